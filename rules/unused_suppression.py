from __future__ import annotations

from collections.abc import Iterator

from k8slb.core.findings import Finding, Severity
from k8slb.reading.markers import Marker
from k8slb.rulekit.base import Context, Example, Rule


class UnusedSuppression(Rule):
    """A suppression that suppresses nothing: it names no rule, or (with
    `--report-unused-ignores`) hid no finding.

    ## What it does
    Always reports a `# k8slb: ignore[...]` comment or a `k8slb.io/ignore` annotation that
    names a code no k8slb rule has (`KLB999`, a misspelt name): it can never hide anything.
    With `--report-unused-ignores`, also reports every suppression that silenced no finding
    in the run; one for a rule that was not selected is not judged. The finding points at
    the comment or at the annotation's key.

    ## Why it matters
    Suppressions outlive the problems they hid: once the manifest is fixed, a stale
    `ignore` would silence the same mistake when it comes back.

    ## Fix
    Delete the comment or the annotation, or correct the rule code.

    ## Other linters
    ruff's `RUF100` (unused `noqa`; like it, unknown codes are reported without being
    asked).
    """

    id = "KLB005"
    name = "unused-suppression"
    severity = Severity.WARNING
    examples = (
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"
            "spec:\n  sessionAffinity: None  # k8slb: ignore[KLB104]\n",
            title="nothing to suppress on that line",
            at=(6, 26),
        ),
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"
            "spec:\n  sessionAffinity: ClientIP  # k8slb: ignore[KLB104] sticky by design\n",
            findings=0,
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        return iter(())  # the engine asks `about` for each unused marker, after suppression

    @classmethod
    def unknown(cls, marker: Marker, codes: list[str]) -> Finding:
        named = ", ".join(f"`{code}`" for code in codes)
        return cls._at(
            marker,
            f"`{marker.text}` names {named}, which no k8slb rule is (`k8slb rules` lists "
            "them): it suppresses nothing",
        )

    @classmethod
    def about(cls, marker: Marker) -> Finding:
        return cls._at(marker, f"`{marker.text}` suppresses nothing; remove it")

    @classmethod
    def stale(cls, path: str, line: int, rule: str, where: str) -> Finding:
        """A baseline entry (at `line` of the baseline file) for `rule` in the file `where`
        that matches no finding any more."""
        return Finding(
            rule=cls.id,
            name=cls.name,
            severity=cls.severity,
            path=path,
            line=line,
            column=1,
            message=f"baseline entry for {rule} in {where} matches no finding any more; "
            "rewrite the baseline with --write-baseline",
        )

    @classmethod
    def _at(cls, marker: Marker, message: str) -> Finding:
        return Finding(
            rule=cls.id,
            name=cls.name,
            severity=cls.severity,
            path=marker.path,
            line=marker.line,
            column=marker.column,
            message=message,
        )
