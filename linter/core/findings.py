"""What a rule reports: severities, locations and findings."""

from __future__ import annotations

import enum
from dataclasses import KW_ONLY, field

from k8slb.core.edits import Edit
from k8slb.core.record import record


class Severity(enum.IntEnum):
    """Ordered so that `severity >= fail_on` reads naturally."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]


@record
class ObjectRef:
    """The Kubernetes object a finding is about, as the JSON contract names it."""

    kind: str
    namespace: str | None
    name: str | None
    document: int
    item: int | None = None  # index inside a `kind: List`

    @property
    def display(self) -> str:
        name = self.name or "<unnamed>"
        return (
            f"{self.kind}/{name}"
            if self.namespace is None
            else f"{self.kind}/{self.namespace}/{name}"
        )


@record
class Related:
    """Another place that explains a finding (the HPA that scales a workload, ...)."""

    path: str
    line: int
    message: str


@record
class RenderedAt:
    """Where a finding about a rendered chart was in Helm's output: the template as Helm
    names it (`chart/templates/x.yaml`) and the line of its rendered text."""

    template: str
    line: int


@record
class FixInfo:
    """A fix: whether there is one, whether it is safe (it changes nothing a person must
    review), and what it does. A rule declares its own (`Rule.fix`: the docs, `k8slb
    rules`), and each of its findings with edits carries it (rulekit/base.py makes it from
    the declaration); said by keyword, never as positional booleans."""

    _: KW_ONLY
    available: bool
    safe: bool = False
    description: str | None = None


NO_FIX = FixInfo(available=False)


@record
class Finding:
    """One problem. `message` is the headline, what is wrong at a glance (the text format's
    first line); `detail` says why it matters and what to do, a line each (shown below the
    headline, or joined to it where a format has one line: `text`)."""

    rule: str
    name: str
    severity: Severity
    path: str
    line: int  # 1-based
    column: int  # 1-based
    message: str
    object: ObjectRef | None = None
    container: str | None = None
    related: tuple[Related, ...] = field(default_factory=tuple)
    fix: FixInfo = NO_FIX
    edits: tuple[Edit, ...] = ()  # what applying the fix changes (empty without a fix)
    detail: tuple[str, ...] = ()
    rendered: RenderedAt | None = None  # a chart's finding: where Helm's output had it

    @property
    def text(self) -> str:
        """The whole message on one line: the headline, then the detail after a colon."""
        return f"{self.message}: {'; '.join(self.detail)}" if self.detail else self.message

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.rule)


@record
class Problem:
    """Something found while reading a file, before any rule runs (KLB001-KLB003)."""

    rule: str
    path: str
    line: int
    column: int
    message: str
    object: ObjectRef | None = None
    severity: Severity | None = None  # when not the rule's own
    detail: tuple[str, ...] = ()  # lines below the message (Finding.detail)
