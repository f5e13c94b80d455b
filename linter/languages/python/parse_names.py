"""Python's names: what a name stands for where it is used. Imports (`import grpc as g`,
`from grpc import aio`, relative imports from the project), the scopes a name is bound in
(a function's, the module's; a class body is seen only from itself), and bindings that
can be followed (bound once by `=`) against those that cannot (parameters, loop targets).
The value evaluation (python_values.py) and the collector (python.py) build on this."""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field

from k8slb.code.budget import Budget
from k8slb.code.facts import CodeFacts, EnvRef, Imported, Loc
from k8slb.languages.python.parse_ast import dotted


@dataclass
class Scope:
    """Names bound in one function (or the module): enough to follow a value."""

    node: ast.AST
    parent: Scope | None
    bindings: dict[str, list[ast.expr]] = field(default_factory=lambda: defaultdict(list))
    # names bound in ways whose value cannot be followed: parameters, loop and `with`
    # targets, tuple unpacking...
    opaque: set[str] = field(default_factory=set)
    additions: dict[str, list[tuple[str, ast.expr]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    # `kwargs["pool_recycle"] = 1800`: the values stored under each constant key of a
    # name bound here (a dict later spread as `**kwargs`), by name, then key
    stored: dict[str, dict[str, list[ast.expr]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )


class Names:
    """The names of one module, as the traversal of python.py records them."""

    def __init__(self, path: str, data: bytes, facts: CodeFacts) -> None:
        self.path = path
        self.data = data
        self.lines = data.splitlines()
        self.facts = facts
        self.imports: dict[str, str] = {}  # local name -> the module path it stands for
        self.locals: set[str] = set()  # names defined here (def, class), shadowing imports
        # `from M import N` (relative or not): where each local name comes from
        self.origins: dict[str, Imported] = {}
        # module-level pydantic settings classes: their fields' variables (parse_settings)
        self.settings_classes: dict[str, dict[str, EnvRef]] = {}
        self.deferred = False  # a value holds an Imported
        self.budget = Budget()  # the values this module's reading may still compute
        # the calls of the module by the name they call (`dial` for `dial(x)`, `make` for
        # `self.make(x)`), with the scope each is made in: where a parameter's values come
        # from (python_values.Values.passed)
        self.calls_to: dict[str, list[tuple[ast.Call, Scope, tuple[ast.AST, ...]]]] = defaultdict(
            list
        )
        # the one call of a function (by the function node's id) its parameters are read
        # from, while a caller's facts are made
        self.only: dict[int, ast.Call] = {}
        # the calls of each function (by its node's id) and whether what a call gives is
        # kept (by the call's id): each asked again and again by the callers' callers
        self.callers: dict[int, list[tuple[ast.Call, Scope, tuple[ast.AST, ...]]]] = {}
        self.keeps: dict[int, bool] = {}
        # whether a value may be one of several (facts.Alternatives): only while a fact's
        # address is computed (Values.choices); anywhere else a parameter with several
        # values is unknown
        self.choosing = False
        # each function's scope, by its node's id (the walk makes them): where the one
        # assignment of an instance attribute in `__init__` is read (`instance_binding`)
        self.function_scopes: dict[int, Scope] = {}
        # by class node id: its attributes' values (instance_binding)
        self._instance_bindings: dict[int, dict[str, tuple[ast.expr, Scope]]] = {}
        # the module-level classes' bodies, by name (class_attribute), and every
        # `X.attr = ...` of the module, as (X, attr): an attribute set again there
        self.class_scopes: dict[str, Scope] = {}
        self.attribute_stores: set[tuple[str, str]] = set()

    def note_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                self.imports[local] = alias.name if alias.asname else local
        elif node.module and not node.level:
            for alias in node.names:
                self.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                self.origins[alias.asname or alias.name] = Imported(0, node.module, alias.name)
        else:  # relative: only ever a module of the project
            for alias in node.names:
                self.origins[alias.asname or alias.name] = Imported(
                    node.level, node.module or "", alias.name
                )

    def qualified(self, node: ast.expr) -> str | None:
        """`grpc.aio.insecure_channel` for `aio.insecure_channel` after
        `from grpc import aio`; None for names that are not imported."""
        return self.qualified_name(dotted(node))

    def qualified_name(self, name: str) -> str | None:
        """`qualified` of a node whose dotted name is `name` ("" for none)."""
        if not name:
            return None
        head, _, rest = name.partition(".")
        if head in self.locals or head not in self.imports:
            return None
        base = self.imports[head]
        return f"{base}.{rest}" if rest else base

    def _scope_of(self, name: str, scope: Scope) -> Scope:
        """The scope where `name` is bound, as Python looks it up: innermost first, and
        a class body is seen only from itself, not from its methods."""
        current: Scope | None = scope
        while current is not None:
            visible = current is scope or not isinstance(current.node, ast.ClassDef)
            if visible and (name in current.bindings or name in current.opaque):
                return current
            current = current.parent
        return scope

    def _binding(self, name: str, scope: Scope) -> ast.expr | None:
        """The value a name is bound to, when it is bound exactly once by `=`."""
        home = self._scope_of(name, scope)
        bound = home.bindings.get(name, [])
        return bound[0] if len(bound) == 1 and name not in home.opaque else None

    def _made_once(self, name: str, scope: Scope) -> ast.expr | None:
        """The one object a name is bound to when its other bindings are `None` (a
        placeholder: `service = None`, then `service = Service()` in a branch)."""
        home = self._scope_of(name, scope)
        made = [
            value
            for value in home.bindings.get(name, [])
            if not (isinstance(value, ast.Constant) and value.value is None)
        ]
        return made[0] if len(made) == 1 and name not in home.opaque else None

    def instance_binding(self, name: str, scope: Scope) -> tuple[ast.expr, Scope] | None:
        """The value of `self.<name>` read in a method, and the scope to read it in: its one
        assignment (`self.name = ...`) in its class, made in `__init__` itself (run before
        any other method can read it), for an object the module makes once, at its top
        level (`client = Client()`: what its methods keep lives as long as the process).
        None when the class assigns it elsewhere, more than once, or as one of several
        targets, or the object is made elsewhere (per request, maybe)."""
        method: Scope | None = scope
        while method is not None and not isinstance(method.node, _Function):
            method = method.parent
        owner = method.parent if method is not None else None
        if method is None or owner is None or not isinstance(owner.node, ast.ClassDef):
            return None
        if id(owner.node) not in self._instance_bindings:
            made_once = self._made_at_top(owner)
            self._instance_bindings[id(owner.node)] = (
                self._assigned_in_init(owner.node) if made_once else {}
            )
        return self._instance_bindings[id(owner.node)].get(name)

    def _made_at_top(self, owner: Scope) -> bool:
        """Whether the module makes an object of the class at its top level."""
        top = owner
        while top.parent is not None:
            top = top.parent
        assert isinstance(owner.node, ast.ClassDef)
        return any(
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == owner.node.name
            for values in top.bindings.values()
            for value in values
        )

    def _assigned_in_init(self, owner: ast.ClassDef) -> dict[str, tuple[ast.expr, Scope]]:
        """Each attribute of `self` the class assigns once, as a statement of `__init__`
        itself, with its value: one walk of the class for all its attributes."""
        init = next(
            (n for n in owner.body if isinstance(n, _Function) and n.name == "__init__"), None
        )
        init_scope = self.function_scopes.get(id(init)) if init is not None else None
        if init is None or init_scope is None:
            return {}
        # each attribute's assignments: (the statement, its value; None when unpacked into,
        # augmented or one of several targets: not followed)
        found: dict[str, list[tuple[ast.AST, ast.expr | None]]] = defaultdict(list)
        for node in ast.walk(owner):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                simple = not isinstance(node, ast.AugAssign) and len(targets) == 1
                for name in {a for t in targets if (a := _self_attribute(t)) is not None}:
                    found[name].append((node, node.value if simple else None))
            elif isinstance(node, ast.Tuple | ast.List):
                for name in {a for e in node.elts if (a := _self_attribute(e)) is not None}:
                    found[name].append((node, None))
        statements = {id(child) for child in init.body}  # not in a branch, loop or function
        return {
            name: (value, init_scope)
            for name, assigned in found.items()
            if len(assigned) == 1
            and (value := assigned[0][1]) is not None
            and id(assigned[0][0]) in statements
        }

    def note_attribute_stores(self, targets: list[ast.expr]) -> None:
        """Record the `X.attr` an assignment sets (in a tuple too): such an attribute of a
        class is not only what its body says."""
        for target in targets:
            elements = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
            for element in elements:
                if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name):
                    self.attribute_stores.add((element.value.id, element.attr))

    def class_attribute(self, name: str, attribute: str, scope: Scope) -> ast.expr | None:
        """The value of `Name.attribute` where `Name` is a plain class of the module (no
        base but `object`: not an enum, not pydantic's, whose fields are no class
        attributes) that its body binds once, and that nothing assigns again (`Name.attr
        = ...`, `cls.attr`, `self.attr` anywhere in the module); None otherwise."""
        seen_from = self._scope_of(name, scope)
        if seen_from.parent is not None and (
            name in seen_from.bindings or name in seen_from.opaque
        ):
            return None  # a name of a function's own
        home = self.class_scopes.get(name)
        if home is None or name in self.settings_classes or self._bound_at_top(name):
            return None
        node = home.node
        assert isinstance(node, ast.ClassDef)
        if any(dotted(base) != "object" for base in node.bases) or node.keywords:
            return None
        if any((who, attribute) in self.attribute_stores for who in (name, "cls", "self")):
            return None
        bound = home.bindings.get(attribute, [])
        return bound[0] if len(bound) == 1 and attribute not in home.opaque else None

    def _bound_at_top(self, name: str) -> bool:
        """Whether a module-level class's name is bound again at the module's top level."""
        home = self.class_scopes[name].parent
        return home is not None and (name in home.bindings or name in home.opaque)

    def loc(self, node: ast.AST) -> Loc:
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        column = len(text[:offset].decode("utf-8", errors="replace")) + 1  # offsets are bytes
        return Loc(self.path, line, column)

    def _origin(self, name: str, scope: Scope) -> Imported | None:
        """Where a free name comes from, when a `from ... import` at module level bound it
        and nothing in between rebinds it."""
        if self._bound(name, scope):
            return None
        return self.origins.get(name)

    def _bound(self, name: str, scope: Scope) -> bool:
        """Whether `name` is bound by this module's own code (not by an import) where
        `scope` sees it."""
        home = self._scope_of(name, scope)
        return name in home.bindings or name in home.opaque or name in self.locals

    def _module_of(self, name: str, scope: Scope) -> tuple[int, str] | None:
        """(level, dotted module) for a name bound by `import a.b as name` or by
        `from . import name`, which may be a module of the project."""
        if self._bound(name, scope):
            return None
        if name in self.origins:
            origin = self.origins[name]
            module = f"{origin.module}.{origin.name}" if origin.module else origin.name
            return (origin.level, module)
        if name in self.imports and "." not in name:
            return (0, self.imports[name])
        return None

    def _imported(self, origin: Imported) -> Imported:
        self.deferred = True
        return origin


_Function = (ast.FunctionDef, ast.AsyncFunctionDef)


def _self_attribute(node: ast.expr) -> str | None:
    """`x` of a `self.x`, or None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None
