from __future__ import annotations

from collections.abc import Iterator

from k8slb.findings import Finding, Severity
from k8slb.markers import Marker
from k8slb.rules.base import Context, Example, Rule


class UnusedSuppression(Rule):
    """A suppression that suppresses nothing (with `--report-unused-ignores`).

    ## What it does
    With `--report-unused-ignores`, reports every `# k8slb: ignore[...]` comment and
    `k8slb.io/ignore` annotation that silenced no finding in the run, and those that name
    a rule k8slb does not know. A suppression of a rule that was not selected is not
    judged. Off by default, like the other reports about suppressions.

    ## Why it matters
    Suppressions outlive the problems they hid: once the manifest is fixed, a stale
    `ignore` would silence the same mistake when it comes back.

    ## Fix
    Delete the comment or the annotation, or correct the rule code.

    ## Other linters
    ruff's `RUF100` (unused `noqa`).
    """

    id = "KLB005"
    name = "unused-suppression"
    severity = Severity.WARNING
    examples = (
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"
            "spec:\n  sessionAffinity: None  # k8slb: ignore[KLB104]\n",
            title="nothing to suppress on that line",
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
    def about(cls, marker: Marker) -> Finding:
        return Finding(
            rule=cls.id,
            name=cls.name,
            severity=cls.severity,
            path=marker.path,
            line=marker.line,
            column=marker.column,
            message=f"`{marker.text}` suppresses nothing; remove it",
        )
