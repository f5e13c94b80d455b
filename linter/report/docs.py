"""A rule's full documentation, from its docstring and its tested examples.

`k8slb explain` prints it, and `python -m k8slb.report.docs` writes docs/rules/ (a test fails when
those files are stale). The examples are the ones the test-suite runs, so the documentation
cannot show an example that does not behave as described."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from k8slb.rulekit.base import Rule
from k8slb.rules import ALL_RULES


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
        for name, text in example.beside:
            lines += [f"with `{name}`:", "", "```", text.rstrip("\n"), "```", ""]
        if example.links:
            links = ", ".join(f"`{name} -> {target}`" for name, target in example.links)
            lines += [f"beside the symbolic links {links}.", ""]
    return lines


# The sections a reader wants first, in this order; the others (what it detects, in full)
# follow in the docstring's order. KLB101's detection alone is 60 lines.
FIRST_SECTIONS = ("Why it matters", "Fix")


def _body(rule: type[Rule]) -> str:
    """The docstring after its summary, its sections reordered by FIRST_SECTIONS."""
    body = rule.doc().partition("\n\n")[2]
    preamble = re.split(r"^## ", body, maxsplit=1, flags=re.MULTILINE)[0].strip()
    sections = rule.sections()
    order = [h for h in FIRST_SECTIONS if h in sections]
    order += [h for h in sections if h not in order]
    parts = [preamble] if preamble else []
    parts += [f"## {heading}\n{sections[heading]}" for heading in order]
    return "\n\n".join(parts)


def rule_markdown(rule: type[Rule]) -> str:
    summary = rule.summary()
    body = _body(rule)
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
        *_former_names(rule),
        body.strip(),
        "",
    ]
    if rule.examples:
        lines += ["## Examples", "", *_example_lines(rule)]
    return "\n".join(lines).rstrip("\n") + "\n"


def _former_names(rule: type[Rule]) -> list[str]:
    if not rule.aliases:
        return []
    names = ", ".join(f"`{alias}`" for alias in rule.aliases)
    return [
        f"Formerly {names}: still accepted in `--select`, `--ignore`, the configuration and "
        "suppressions.",
        "",
    ]


def index_markdown() -> str:
    lines = [
        "# k8slb rules",
        "",
        "Generated from the rules' docstrings by `python -m k8slb.report.docs`; do not edit.",
        "",
        "| id | name | severity | fix | summary |",
        "|---|---|---|---|---|",
    ]
    for rule in ALL_RULES:
        fix = ("safe" if rule.fix.safe else "unsafe") if rule.fix.available else "-"
        lines.append(
            f"| [{rule.id}]({rule.id}.md) | {rule.name} | {rule.severity.label} | {fix} "
            f"| {rule.summary()} |"
        )
    return "\n".join(lines) + "\n"


def generated() -> dict[str, str]:
    """docs/rules/: file name -> content."""
    files = {f"{rule.id}.md": rule_markdown(rule) for rule in ALL_RULES}
    files["README.md"] = index_markdown()
    return files


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.md"):
        stale.unlink()
    for name, text in generated().items():
        (folder / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules"))
