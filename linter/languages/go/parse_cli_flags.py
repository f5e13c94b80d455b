"""urfave/cli's flags, read as the command-line flags they are (facts.FlagRef): a flag's
definition, a struct literal (`&cli.StringFlag{Name: "backend-addr", Value: "localhost:
50051", EnvVars: []string{"BACKEND_ADDR"}}`), and its read by name on the context or the
command the library hands the action (`c.String("backend-addr")` of `func run(c
*cli.Context) error`). The library (v1, v2 and v3) takes the flag's value from the command
line (`--name=value`, `--name value`, `-name=value`, or an alias), else from the first of
its environment variables that is set (v1's `EnvVar: "A, B"`, v2's `EnvVars`, v3's
`Sources: cli.EnvVars(...)`), else its `Value`: the FlagRef says all three, and
model/addresses.py reads them from the containers that run the code.

The functions the library runs as the process's action (`app.Action = run`, `Action:
run`; cobra's `RunE: run`) run once a process, as `main` does (`actions`).

Budgets: a read's receiver is looked for among the parameters of MAX_NESTING enclosing
functions (_CLIMB nodes up at most); MAX_FLAGS definitions are read a file, MAX_NAMES
names and variables a flag."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from k8slb.code.budget import MAX_NESTING
from k8slb.code.facts import UNKNOWN, FlagRef
from k8slb.code.syntax_trees import node_text as _text

if TYPE_CHECKING:
    from tree_sitter import Node

CLI_PACKAGES = frozenset(
    {"github.com/urfave/cli", "github.com/urfave/cli/v2", "github.com/urfave/cli/v3"}
)
COBRA = "github.com/spf13/cobra"
# the flag types whose value may be an address or a port, and the context's reads of them
_FLAG_TYPES = frozenset({"StringFlag", "IntFlag", "Int64Flag", "UintFlag", "Uint64Flag"})
_READS = frozenset(
    prefix + kind
    for kind in ("String", "Int", "Int64", "Uint", "Uint64")
    for prefix in ("", "Global")  # v1's `c.GlobalString(...)`: a flag of the app's
)
# the types the library hands an action, which read flags by name
_HANDED_TYPES = frozenset({"Context", "Command"})
# the struct keys that name the function the library runs for a command
_ACTION_KEYS = {"Action": CLI_PACKAGES, "Run": {COBRA}, "RunE": {COBRA}}
MAX_FLAGS = 256
MAX_NAMES = 8
_FUNCTIONS = ("function_declaration", "method_declaration", "func_literal")
_CLIMB = 256  # nodes climbed from a read to the functions it is written in

Value = Callable[[Any], Any]  # a node's value, in the scope it is read in


def cli_names(imports: dict[str, str]) -> set[str]:
    """The names a file imports urfave/cli by (`cli`, or an alias)."""
    return {name for name, path in imports.items() if path in CLI_PACKAGES}


def cli_flags(literals: Iterable[tuple[Node, Value]], names: set[str]) -> dict[str, FlagRef]:
    """The file's urfave/cli flag definitions, by each name and alias: `literals` are the
    file's composite literals, each with the reader of values in its scope."""
    found: dict[str, FlagRef] = {}
    count = 0
    for literal, value in literals:
        kind = literal.child_by_field_name("type")
        if kind is None or kind.type != "qualified_type" or count >= MAX_FLAGS:
            continue
        package = kind.child_by_field_name("package")
        if (
            _text(package) not in names
            or _text(kind.child_by_field_name("name")) not in _FLAG_TYPES
        ):
            continue
        count += 1
        flag = _definition(literal, value)
        if flag is not None:
            for name in (flag.name, *flag.aliases):
                found.setdefault(name, flag)
    return found


def _definition(literal: Node, value: Value) -> FlagRef | None:
    """A flag's definition from its literal's keys; None without a literal name."""
    keys: dict[str, Node] = {}
    body = literal.child_by_field_name("body")
    for element in body.named_children if body is not None else ():
        if element.type == "keyed_element" and element.named_child_count == 2:
            key, held = (_unwrap(child) for child in element.named_children)
            keys[_text(key)] = held
    names = _texts(keys.get("Name"), value, split=True) + _texts(keys.get("Aliases"), value)
    if not names:
        return None
    env = _texts(keys.get("EnvVar"), value, split=True) + _texts(keys.get("EnvVars"), value)
    sources = keys.get("Sources")  # v3: `Sources: cli.EnvVars("A", "B")`
    if sources is not None and sources.type == "call_expression":
        function = sources.child_by_field_name("function")
        if function is not None and _text(function).endswith(".EnvVars"):
            env += _texts(sources.child_by_field_name("arguments"), value)
    default: Any = value(keys["Value"]) if "Value" in keys else ""
    if isinstance(default, int) and not isinstance(default, bool):
        default = str(default)  # a port's number, as the args would spell it
    default = default if isinstance(default, str) else UNKNOWN
    return FlagRef(names[0], default, aliases=tuple(names[1:]), env=tuple(env))


def _texts(node: Node | None, value: Value, split: bool = False) -> list[str]:
    """The strings a key gives: one (v1's `"a, b"` lists them, with `split`), a slice
    literal's or a call's arguments; [] where one is not a string."""
    if node is None:
        return []
    if node.type in ("composite_literal", "argument_list"):
        held = node.child_by_field_name("body") if node.type == "composite_literal" else node
        items = [_unwrap(c) for c in held.named_children] if held is not None else []
    else:
        items = [node]
    texts = [value(item) for item in items[:MAX_NAMES]]
    if not all(isinstance(text, str) for text in texts):
        return []
    if split:
        texts = [part.strip() for text in texts for part in text.split(",")]
    return [text for text in texts if text][:MAX_NAMES]


def _unwrap(node: Node) -> Node:
    if node.type == "literal_element" and node.named_child_count == 1:
        return node.named_children[0]
    return node


def flag_read(call: Node, member: str, receiver: Node | None, names: set[str]) -> bool:
    """Whether `call` reads a flag by name on what urfave/cli hands an action: a method of
    _READS on a parameter typed `*cli.Context` (v1, v2) or `*cli.Command` (v3), of its
    function or of one it is written in."""
    if member not in _READS or receiver is None or receiver.type != "identifier":
        return False
    parameter = _text(receiver)
    node = call.parent
    functions = 0
    for _ in range(_CLIMB):
        if node is None or functions >= MAX_NESTING:
            return False
        if node.type in _FUNCTIONS:
            functions += 1
            typed = _parameter_type(node, parameter)
            if typed is not None:
                return _handed_type(typed, names)
        node = node.parent
    return False


def _parameter_type(function: Node, name: str) -> Node | None:
    parameters = function.child_by_field_name("parameters")
    for declaration in parameters.named_children if parameters is not None else ():
        if declaration.type != "parameter_declaration":
            continue
        if any(_text(child) == name for child in declaration.children_by_field_name("name")):
            return declaration.child_by_field_name("type")
    return None


def _handed_type(node: Node, names: set[str]) -> bool:
    """`*cli.Context` or `*cli.Command`."""
    if node.type != "pointer_type" or not node.named_children:
        return False
    pointed = node.named_children[0]
    if pointed.type != "qualified_type":
        return False
    package = _text(pointed.child_by_field_name("package"))
    return package in names and _text(pointed.child_by_field_name("name")) in _HANDED_TYPES


def read_value(flags: dict[str, FlagRef], given: Any) -> FlagRef | None:
    """The value of a read of the flag named `given`: its definition in the file, else a
    flag of that name whose default and variables are not known."""
    if not isinstance(given, str) or not given:
        return None
    return flags.get(given) or FlagRef(given, UNKNOWN)


def actions(
    literals: Iterable[Node], assignments: Iterable[Node], imports: dict[str, str]
) -> set[str]:
    """The functions a CLI library runs as a command's action, named in the file: the
    value of an `Action` key (urfave/cli) or a `Run`/`RunE` key (cobra) of a struct literal
    of the library's (`&cli.App{Action: run}`, `&cobra.Command{RunE: serve}`), or assigned
    to such a field (`app.Action = run`) in a file that imports the library."""
    paths = set(imports.values())
    keys = {key for key, packages in _ACTION_KEYS.items() if packages & paths}
    found: set[str] = set()
    if not keys:
        return found
    for literal in literals:
        kind = literal.child_by_field_name("type")
        if kind is not None and kind.type == "qualified_type":
            if imports.get(_text(kind.child_by_field_name("package"))) not in (
                *CLI_PACKAGES,
                COBRA,
            ):
                continue
            body = literal.child_by_field_name("body")
            for element in body.named_children if body is not None else ():
                if element.type == "keyed_element" and element.named_child_count == 2:
                    key, held = (_unwrap(child) for child in element.named_children)
                    if _text(key) in keys and held.type == "identifier":
                        found.add(_text(held))
    for statement in assignments:
        left = statement.child_by_field_name("left")
        right = statement.child_by_field_name("right")
        if left is None or right is None or left.named_child_count != 1:
            continue
        target, held = left.named_children[0], _unwrap(right.named_children[0])
        field = (
            target.child_by_field_name("field") if target.type == "selector_expression" else None
        )
        if field is not None and _text(field) in keys and held.type == "identifier":
            found.add(_text(held))
    return found


def action_literal(function: Node, imports: dict[str, str]) -> bool:
    """Whether a function literal is a command's action, written in place as the value of
    an `Action` key (urfave/cli) or a `Run`/`RunE` key (cobra) of a struct literal of the
    library's (`&cobra.Command{Run: func(cmd *cobra.Command, args []string) {...}}`): the
    library runs it once a process, as `main` runs."""
    element = function.parent
    keyed = element.parent if element is not None else None
    if element is None or element.type != "literal_element" or keyed is None:
        return False
    if keyed.type != "keyed_element" or keyed.named_child_count != 2:
        return False
    key = _unwrap(keyed.named_children[0])
    packages = _ACTION_KEYS.get(_text(key), frozenset())
    body = keyed.parent
    literal = body.parent if body is not None else None
    kind = literal.child_by_field_name("type") if literal is not None else None
    if literal is None or literal.type != "composite_literal" or kind is None:
        return False
    if kind.type != "qualified_type":
        return False
    return imports.get(_text(kind.child_by_field_name("package"))) in packages
