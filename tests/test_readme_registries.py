"""What the README lists that a registry also holds says what the registry says: the rule
table (ALL_RULES), the fix table (each rule's declared fix), the output formats
(report/formats.py) and the options of `check` and `fix` (the command line's own). The
prose around them is the README's own; the rows are held here."""

from __future__ import annotations

import re

from k8slb.interface.cli import cli
from k8slb.report.formats import FORMATS, formatter
from k8slb.rules import ALL_RULES

from .helpers import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def _section(heading: str) -> str:
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _rows(section: str) -> list[list[str]]:
    """The cells of each row of the tables in a section whose first cell is a rule's id."""
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in section.splitlines()
        if re.match(r"\| KLB\d{3} \|", line)
    ]


def test_the_rule_table_lists_every_rule_with_its_name_and_severity_in_id_order() -> None:
    listed = [tuple(row[:3]) for row in _rows(_section("Rules"))]
    assert listed == [(rule.id, rule.name, rule.severity.label) for rule in ALL_RULES]


def test_the_fix_table_lists_every_rule_with_a_fix_and_whether_it_is_safe() -> None:
    listed = [(row[0], row[-1].split()[0]) for row in _rows(_section("Fixes"))]
    declared = [
        (rule.id, "safe" if rule.fix.safe else "unsafe") for rule in ALL_RULES if rule.fix.available
    ]
    assert listed == declared


def test_the_format_option_lists_every_registered_format_in_order() -> None:
    (choices,) = re.findall(r"`--format \{([\w,]+)\}`", README)
    assert choices.split(",") == list(FORMATS)


def test_show_suppressed_names_the_formats_that_render_it() -> None:
    (row,) = [line for line in README.splitlines() if line.startswith("| `--show-suppressed` |")]
    (named,) = re.findall(r"\(([^()]*)\) \|$", row)
    made = [formatter(name) for name in FORMATS]
    others = [f.name for f in made if f.suppressed and not f.for_people]
    assert all(f.suppressed for f in made if f.for_people), "every text format renders it"
    assert named == ", ".join(["the text formats", *others])


def _options(*commands: str) -> set[str]:
    return {
        option
        for name in commands
        for parameter in cli.commands[name].params
        for option in (*parameter.opts, *parameter.secondary_opts)
        if option.startswith("-")
    }


def test_the_options_table_names_only_options_of_check_and_fix() -> None:
    table = README.split("Options of `check`", 1)[1].split("\n\n", 2)[1]
    first = " ".join(line.split(" | ")[0] for line in table.splitlines() if line.startswith("| `"))
    assert set(re.findall(r"(?<![\w-])--?[\w-]+", first)) - _options("check", "fix") == set()


def test_every_option_of_check_and_fix_is_in_the_readme() -> None:
    spans = " ".join(re.findall(r"`([^`\n]+)`", README))
    said = set(re.findall(r"(?<![\w-])--?[\w-]+", spans))
    assert _options("check", "fix") - said == set()
