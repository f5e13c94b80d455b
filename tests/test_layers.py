"""k8slb's layers depend one way, lowest first, as ARCHITECTURE.md's layer table lists them:

    core < reading < code < model < rules < editing < run < fixing, report < interface

The table is the one list of which module is in which layer: this test reads it. A module
may import from its own layer and the layers below it. Every import counts: those inside
functions, relative ones (resolved against the importing module's package), and the
dotted strings a module names another by (`importlib.import_module("k8slb.x")`, a
registry's "k8slb.report.text:TextFormatter"), found in the syntax tree, not by running
anything. The table of languages names each language's parts for the stage that loads
them, so each is held to that stage's layer. The imports that go upward are listed, one
per line, in tests/layering_debt.txt (none today): a new one fails this test, and so does
one that is gone from the code but still listed (the list only shrinks)."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest
from k8slb.languages import LANGUAGES, Language

from .helpers import ROOT

ARCHITECTURE = ROOT / "ARCHITECTURE.md"
DEBT = Path(__file__).with_name("layering_debt.txt")


def _layer_table() -> tuple[list[str], dict[str, str], dict[str, str], dict[str, str]]:
    """ARCHITECTURE.md's layer table: the layers lowest first (a row may name two of one
    rank: "fixing, report"), and what each row lists: packages (`core/`, each module under
    it), modules (`cli.py`, `languages/__init__.py`) and the parts of a language package,
    by their name's prefix (each language's `parse*.py`)."""
    section = ARCHITECTURE.read_text("utf-8").split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    ranks: list[str] = []
    packages: dict[str, str] = {}
    modules: dict[str, str] = {}
    parts: dict[str, str] = {}
    for names, listed in re.findall(r"^\| ([a-z, ]+) \| [^|]* \| (.*) \|$", section, re.M):
        if names == "layer":
            continue  # the heading
        ranks.append(names)
        for each, token in re.findall(r"(each language's )?`([\w/*]+(?:\.py|/))`", listed):
            if each:
                parts[token.removesuffix(".py").rstrip("*")] = names
            elif token.endswith("/"):
                packages["k8slb." + token.strip("/").replace("/", ".")] = names
            else:
                dotted = "k8slb." + token.removesuffix(".py").replace("/", ".")
                modules[dotted.removesuffix(".__init__")] = names
    return ranks, packages, modules, parts


RANKS, PACKAGES, TOP_LEVEL, LANGUAGE_PARTS = _layer_table()
RANK = {layer: rank for rank, layer in enumerate(RANKS)}

# Where a new module goes, said by the test that finds it in no layer.
WHERE_IT_GOES = (
    "ARCHITECTURE.md's layer table lists it in no layer: put it in the folder of the "
    "lowest layer that can hold it (what it imports is in its layer or below, and what "
    "imports it is in its layer or above), or, for a new package, list it in that layer's "
    "row of the table (`name/`)"
)
WHERE_A_PART_GOES = (
    "a language package's module is named for its layer (ARCHITECTURE.md's layer table): "
    "{parts}; name it so, as Go's parse_routes.py is"
)


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


def layer(module: str) -> str | None:
    """The row of the layer table that holds the module; None when none does."""
    parts = module.split(".")
    if parts[:2] == ["k8slb", "languages"] and len(parts) > 2:
        role = "__init__" if len(parts) == 3 else parts[3]
        return next((names for p, names in LANGUAGE_PARTS.items() if role.startswith(p)), None)
    if module in TOP_LEVEL:
        return TOP_LEVEL[module]
    for length in range(len(parts), 1, -1):
        package = ".".join(parts[:length])
        if package in PACKAGES:
            return PACKAGES[package]
    return None


def unplaced(known: dict[str, Path]) -> list[str]:
    """A message for each module the table puts in no layer, saying where it goes."""
    parts = ", ".join(f"{p}*.py ({row})" for p, row in LANGUAGE_PARTS.items() if p != "__init__")
    part = WHERE_A_PART_GOES.format(parts=parts)
    messages = []
    for name, path in sorted(known.items()):
        if layer(name) is None:
            where = part if ".languages." in name else WHERE_IT_GOES
            messages.append(f"{name} ({path.relative_to(ROOT)}): {where}")
    return messages


_DOTTED = re.compile(r"k8slb(?:\.\w+)+(?::\w+)?")


def _package(module: str, path: Path) -> list[str]:
    """The package a relative import in the module starts from."""
    parts = module.split(".")
    return parts if path.name == "__init__.py" else parts[:-1]


def imported(module: str, path: Path, source: str, known: dict[str, Path]) -> set[str]:
    """The modules of k8slb that the module's source imports or names by a dotted string."""
    targets: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package(module, path)
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, *([base] if base else [])])
            targets += [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            table = module == "k8slb.languages" and node.value in LANGUAGE_TABLE
            if _DOTTED.fullmatch(node.value) and not table:  # the table's: by their stage
                targets.append(node.value.partition(":")[0])
    return {target for target in targets if target in known}


# The table of languages names each part for the stage that loads it: the language's
# field, and the part (by its name's prefix) whose layer that stage is in.
LANGUAGE_FIELDS = {
    "parse": "parse",
    "warm": "parse",
    "settle": "parse",
    "dialect": "dialect",
    "editor": "edit",
}
LANGUAGE_TABLE = {
    getattr(language, field) for language in LANGUAGES.values() for field in LANGUAGE_FIELDS
}


def misplaced_parts(language: Language) -> list[str]:
    """Each path of the language's line that names a module outside its stage's layer."""
    found = []
    for field, part in LANGUAGE_FIELDS.items():
        dotted = getattr(language, field)
        if not dotted:
            continue
        module = dotted.partition(":")[0]
        if layer(module) != LANGUAGE_PARTS[part]:
            found.append(
                f"{language.name}.{field} = {dotted!r}: in layer {layer(module)}, "
                f"where the stage that loads it is in {LANGUAGE_PARTS[part]}"
            )
    return found


def upward_imports() -> set[str]:
    """`importer -> imported` for each import that reaches a higher layer."""
    known = modules()
    found = set()
    for name, path in known.items():
        source = path.read_text(encoding="utf-8")
        found |= _upward(name, path, imported(name, path, source, known))
    return found


def _upward(name: str, path: Path, targets: set[str]) -> set[str]:
    importer = layer(name)
    found = set()
    for target in targets:
        reached = layer(target)
        if importer is not None and reached is not None and RANK[reached] > RANK[importer]:
            found.add(f"{name} -> {target}")
    return found


def test_every_module_is_in_a_layer_of_the_table() -> None:
    messages = unplaced(modules())
    assert not messages, "\n".join(messages)


def test_no_import_goes_up_but_those_listed_as_debt() -> None:
    listed = {
        line.strip()
        for line in DEBT.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    actual = upward_imports()
    assert not actual - listed, f"new upward imports: {sorted(actual - listed)}"
    assert not listed - actual, f"paid off: remove from {DEBT.name}: {sorted(listed - actual)}"


def test_the_language_table_names_each_part_in_the_layer_of_the_stage_that_loads_it() -> None:
    assert [line for language in LANGUAGES.values() for line in misplaced_parts(language)] == []


# -- the test's own holes, closed -------------------------------------------------------------


def _upward_in(module: str, source: str) -> set[str]:
    """What the test finds going up in `source`, as if it were the module's file."""
    known = modules()
    path = known.get(module, ROOT / "linter" / (module.replace(".", "/") + ".py"))
    return _upward(module, path, imported(module, path, source, known))


@pytest.mark.parametrize(
    "module, source",
    [
        ("k8slb.core.edits", "from ..run.engine import run\n"),
        ("k8slb.core.edits", "from ..run import engine\n"),
        ("k8slb.core.record", "from ..interface import cli\n"),
        ("k8slb.reading", "def later():\n    from ..run.engine import run\n"),  # a package's own
        ("k8slb.editing.yaml_edit", "from ..fixing.fixer import plan\n"),
    ],
)
def test_a_relative_import_that_goes_up_is_found(module: str, source: str) -> None:
    assert _upward_in(module, source)


def test_a_relative_import_within_the_layer_is_not_an_upward_one() -> None:
    assert _upward_in("k8slb.reading.sources", "from .repository import top\n") == set()


@pytest.mark.parametrize(
    "module, source",
    [
        ("k8slb.core.regex", 'importlib.import_module("k8slb.run.engine")\n'),
        ("k8slb.report.formats", 'FORMATS = {"toy": "k8slb.interface.cli:ToyFormatter"}\n'),
    ],
)
def test_a_dotted_string_that_names_a_higher_module_is_found(module: str, source: str) -> None:
    assert _upward_in(module, source)


def test_a_language_part_outside_its_stages_layer_is_found() -> None:
    swapped = replace(LANGUAGES["python"], parse="k8slb.languages.python.edit:edit")
    assert misplaced_parts(swapped) == [
        "python.parse = 'k8slb.languages.python.edit:edit': in layer editing, where the stage"
        " that loads it is in code"
    ]


def test_a_new_module_is_told_where_it_goes() -> None:
    messages = unplaced(
        {
            "k8slb.newthing": ROOT / "linter" / "newthing.py",
            "k8slb.languages.go.helpers": ROOT / "linter" / "languages" / "go" / "helpers.py",
        }
    )
    assert len(messages) == 2
    assert messages[0].startswith("k8slb.languages.go.helpers (linter/languages/go/helpers.py)")
    assert "parse*.py (code), dialect*.py (rules), edit*.py (editing)" in messages[0]
    assert messages[1].startswith("k8slb.newthing (linter/newthing.py): ARCHITECTURE.md's")
    assert "put it in the folder of the lowest layer that can hold it" in messages[1]


def test_the_folders_of_linter_are_the_layers_of_the_table() -> None:
    """`ls linter/` says what the table says: each folder is named in a layer's row (the
    languages' by their `__init__.py`), and no module sits loose at the top but the
    package's own two."""
    top = ROOT / "linter"
    listed = {name.split(".")[1] for name in [*PACKAGES, *TOP_LEVEL] if name.count(".") >= 1}
    folders = {path.name for path in top.iterdir() if (path / "__init__.py").is_file()}
    assert sorted(folders - listed) == [], "a folder of linter/ that no row of the table names"
    loose = {path.name for path in top.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert sorted(loose) == [], WHERE_IT_GOES


def test_the_table_names_no_module_that_is_gone() -> None:
    known = modules()
    listed = [*TOP_LEVEL, *PACKAGES]
    assert [name for name in listed if name not in known] == []


def test_rules_holds_the_rule_catalogue_and_nothing_else() -> None:
    """Each module of rules/ is a rule of ALL_RULES; what rules share is rulekit/'s."""
    from k8slb.rules import ALL_RULES

    catalogue = {rule.__module__ for rule in ALL_RULES}
    in_rules = {name for name in modules() if name.startswith("k8slb.rules.")}
    assert sorted(in_rules - catalogue) == []
