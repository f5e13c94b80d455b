"""k8slb's layers depend one way, lowest first (ARCHITECTURE.md):

    core < reading < code < model < rules < editing < run < fixing, report < interface, lsp

A module may import from its own layer and the layers below it. Every import counts,
those inside functions too (found in the syntax tree, not by running anything). The
imports that go upward today are listed, one per line, in tests/layering_debt.txt: a new
one fails this test, and so does one that is gone from the code but still listed (the
list only shrinks, and says what is left to untangle)."""

from __future__ import annotations

import ast
from pathlib import Path

from .helpers import ROOT

LAYERS = {
    "core": 0,  # k8slb.core and the small top-level modules below
    "reading": 1,
    "code": 2,
    "model": 3,
    "rules": 4,
    "editing": 5,  # edits made on a text: pure functions, below the run
    "run": 6,
    "fixing": 7,
    "report": 7,
    "interface": 8,
    "lsp": 8,  # `k8slb lsp`, the editor's front end: beside the command line
}
# the modules of the package's top level, by layer (the sub-packages are layers themselves)
TOP_LEVEL = {
    "k8slb": "core",
    "k8slb.record": "core",
    "k8slb.choices": "core",
    "k8slb.internal": "core",
    "k8slb.home": "core",
    "k8slb.progress": "core",
    "k8slb.parallel": "core",
    "k8slb.data_pickle": "core",
    "k8slb.selection": "run",
    "k8slb.config": "run",
    "k8slb.cache": "run",
    "k8slb.engine": "run",
    "k8slb.parsing": "run",
    "k8slb.parse_codec": "run",
    "k8slb.run_memory": "run",
    "k8slb.relocation": "run",
    "k8slb.languages": "core",  # the table of languages: names, suffixes, dotted paths
    "k8slb.suppressions": "run",
    "k8slb.docs": "report",  # the rules' documentation, as SARIF and `make docs` print it
    "k8slb.api": "interface",  # the use cases: plan, check, fix
    "k8slb.cli_options": "interface",
    "k8slb.cli": "interface",
    "k8slb.server": "interface",
    "k8slb.__main__": "interface",
}
DEBT = Path(__file__).with_name("layering_debt.txt")


def modules() -> dict[str, Path]:
    """k8slb's module names and their files (linter/ is the package, rules/ its `rules`)."""
    found: dict[str, Path] = {}
    for base, prefix in ((ROOT / "linter", ("k8slb",)), (ROOT / "rules", ("k8slb", "rules"))):
        for path in base.rglob("*.py"):
            parts = [*prefix, *path.relative_to(base).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


# A language package's modules (k8slb.languages.<language>.<module>) belong to the layer
# their name starts with: they read source, word findings and build edits, or make them.
LANGUAGE_ROLES = {"parse": "code", "dialect": "rules", "edit": "editing"}


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    if parts[:2] == ["k8slb", "languages"] and len(parts) > 2:
        if len(parts) == 3:
            return "core"  # a language package's own __init__: its docstring
        return LANGUAGE_ROLES[parts[3].split("_")[0]]
    return TOP_LEVEL[module]


def upward_imports() -> set[str]:
    """`importer -> imported` for each import that reaches a higher layer."""
    known = modules()
    found = set()
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in (t for t in targets if t in known):
                if LAYERS[layer(target)] > LAYERS[layer(name)]:
                    found.add(f"{name} -> {target}")
    return found


def test_every_module_has_a_layer() -> None:
    assert all(layer(name) in LAYERS for name in modules())


def test_no_import_goes_up_but_those_listed_as_debt() -> None:
    listed = {
        line.strip()
        for line in DEBT.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    actual = upward_imports()
    assert not actual - listed, f"new upward imports: {sorted(actual - listed)}"
    assert not listed - actual, f"paid off: remove from {DEBT.name}: {sorted(listed - actual)}"
