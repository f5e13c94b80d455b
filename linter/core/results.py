"""What a run gives back, whatever reads it (the report formats, the fixer, the cache,
the server): its findings, what it read, and which code each container runs."""

from __future__ import annotations

from dataclasses import dataclass, field

from k8slb.core.findings import Finding
from k8slb.core.record import record


@record
class LinkRow:
    """One line of `k8slb explain-links`: a container, its code, and why."""

    container: str  # its key, `Deployment/shop/frontend:web`
    code: str | None  # the entry point, else the folder; None: no code found
    modules: int
    evidence: tuple[str, ...] = ()
    overruled: tuple[str, ...] = ()  # weaker evidence pointing elsewhere
    # with no code found: the modules no container runs that read a variable its `env`
    # sets, as the findings about them read it (`client.py: BACKEND_ADDR`)
    env_read_by: tuple[str, ...] = ()
    why_not: str | None = None  # with no code: why, when the evidence says

    def as_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "container": self.container,
            "code": self.code,
            "modules": self.modules,
            "evidence": list(self.evidence),
            "overruled": list(self.overruled),
            "env_read_by": list(self.env_read_by),
        }
        if self.why_not is not None:
            found["why_not"] = self.why_not
        return found


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[tuple[Finding, str]] = field(default_factory=list)  # (finding, why)
    paths: list[str] = field(default_factory=list)  # every file read and reported on
    contents: dict[str, bytes] = field(default_factory=dict)  # their bytes (SARIF fixes)
    files: int = 0
    objects: int = 0
    unknown_kinds: int = 0
    other_documents: int = 0
    errors: list[str] = field(default_factory=list)  # the run could not read something
    warnings: list[str] = field(default_factory=list)  # what it read means nothing (a pin)
    baselined: int = 0  # findings the baseline hid (set by the command line)
    links: list[LinkRow] = field(default_factory=list)  # which code each container runs
