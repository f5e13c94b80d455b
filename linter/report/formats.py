"""The output formats of `k8slb check --format`, by name: a new format is a module with a
Formatter subclass (report/formatter.py) and one line in `FORMATS`. The command line reads
the names, and what each format supports, from here; this module imports nothing else, so
that `k8slb --help` stays quick."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from k8slb.report.formatter import Formatter

# Name -> "module:Class". A module is imported only when its format is asked for: a
# pre-commit run that prints text never loads SARIF's rule catalogue.
FORMATS: dict[str, str] = {
    "text": "k8slb.report.text:TextFormatter",
    "full": "k8slb.report.text:FullFormatter",
    "concise": "k8slb.report.text:ConciseFormatter",
    "json": "k8slb.report.json:JsonFormatter",
    "sarif": "k8slb.report.sarif:SarifFormatter",
    "github": "k8slb.report.github:GithubFormatter",
    "junit": "k8slb.report.junit:JunitFormatter",
    "markdown": "k8slb.report.markdown:MarkdownFormatter",
}


def formatter(name: str) -> Formatter:
    """The formatter registered under `name` (a KeyError for a name not in FORMATS)."""
    module, _, attribute = FORMATS[name].partition(":")
    made: Formatter = getattr(importlib.import_module(module), attribute)()
    return made
