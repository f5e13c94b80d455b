"""A rule's full documentation, from its docstring and its tested examples.

`k8slb explain` prints it; the examples are the same ones the test-suite runs, so the
documentation cannot show an example that does not behave as described."""

from __future__ import annotations

from k8slb.rules.base import Rule


def _example_lines(rule: type[Rule]) -> list[str]:
    lines: list[str] = []
    for example in rule.examples:
        if example.findings:
            verdict = "Reported"
            if example.severity is not None:
                verdict += f" at `{example.severity.label}`"
        else:
            verdict = "Not reported"
        title = f" ({example.title})" if example.title else ""
        lines += [f"{verdict}{title}:", ""]
        lines += ["```" + example.language, example.source.rstrip("\n"), "```", ""]
        if example.manifests:
            lines += [
                "with the manifests:",
                "",
                "```yaml",
                example.manifests.rstrip("\n"),
                "```",
                "",
            ]
    return lines


def rule_markdown(rule: type[Rule]) -> str:
    summary, _, body = rule.doc().partition("\n")
    fix = "none"
    if rule.fix.available:
        fix = "safe" if rule.fix.safe else "unsafe (needs `--unsafe-fixes`)"
    lines = [
        f"# {rule.id} {rule.name}",
        "",
        f"{summary.strip()}",
        "",
        f"Severity: `{rule.severity.label}`. Fix: {fix}.",
        "",
        body.strip(),
        "",
    ]
    if rule.examples:
        lines += ["## Examples", "", *_example_lines(rule)]
    return "\n".join(lines).rstrip("\n") + "\n"
