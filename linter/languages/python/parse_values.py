"""Python's values: what an expression evaluates to as far as static analysis can follow
it. A literal, an `EnvRef` (`os.environ[...]`, `os.getenv(...)` with its default), a value
imported from another module (resolved later by imported.py), or UNKNOWN; names are followed
through their one binding (python_names.py), f-strings and `+` joined, constant arithmetic
done, gRPC options gathered through names, `+`, `list(...)` and the `.append`/`.extend`/`+=`
that add to a name."""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from k8slb.code.budget import MAX_DEPTH
from k8slb.code.facts import (
    NO_OPTIONS,
    UNKNOWN,
    UNKNOWN_OPTIONS,
    Alternatives,
    EnvRef,
    Imported,
    Joined,
    Option,
    Options,
    Unknown,
    choices,
    joined,
    one_of,
    settled,
)
from k8slb.languages.python.parse_ast import dotted
from k8slb.languages.python.parse_envhelpers import EnvReader, env_reader
from k8slb.languages.python.parse_names import Names, Scope


class Values(Names):
    # the module's own functions by name (the collector fills it) and those that read
    # the environment (parse_envhelpers.py), by id, once asked
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    env_readers: dict[int, EnvReader | None]

    @staticmethod
    def _argument(
        args: Sequence[ast.expr], keywords: Sequence[ast.keyword], index: int, name: str
    ) -> ast.expr | None:
        found = keyword_argument(keywords, name)
        if found is not None:
            return found
        positional = [a for a in args if not isinstance(a, ast.Starred)]
        return positional[index] if index < len(positional) else None

    def options(self, expression: ast.expr, scope: Scope, depth: int) -> Options:
        """The (key, value) pairs of an options expression, followed through names,
        `+`, `list(...)`, and the `.append`/`.extend`/`+=` that add to a name."""
        if not self.budget.step(depth):
            return UNKNOWN_OPTIONS
        if isinstance(expression, ast.Constant) and expression.value is None:
            return NO_OPTIONS
        if isinstance(expression, ast.Name):
            bound = self._binding(expression.id, scope)
            if bound is None:
                return UNKNOWN_OPTIONS
            result = self.options(bound, scope, depth + 1)
            home = self._scope_of(expression.id, scope)
            for how, added in home.additions.get(expression.id, []):  # no single literal now
                result = result + (
                    self._pairs([added], scope)
                    if how == "append"
                    else self.options(added, scope, depth + 1)
                )
            return result
        if isinstance(expression, ast.List | ast.Tuple):
            result = NO_OPTIONS
            plain: list[ast.expr] = []
            for element in expression.elts:
                if isinstance(element, ast.Starred):
                    result = result + self.options(element.value, scope, depth + 1)
                else:
                    plain.append(element)
            pairs = self._pairs(plain, scope)
            if len(plain) == len(expression.elts):  # a plain literal: a fix can extend it
                return Options(pairs.complete, pairs.entries, literal=self.loc(expression))
            return result + pairs
        if isinstance(expression, ast.BinOp) and isinstance(expression.op, ast.Add):
            return self.options(expression.left, scope, depth + 1) + self.options(
                expression.right, scope, depth + 1
            )
        if isinstance(expression, ast.Call) and dotted(expression.func) in ("list", "tuple"):
            if not expression.args:
                return NO_OPTIONS
            return self.options(expression.args[0], scope, depth + 1)
        return UNKNOWN_OPTIONS

    def _pairs(self, elements: Iterable[ast.expr], scope: Scope) -> Options:
        entries: list[Option] = []
        complete = True
        for element in elements:
            pair = element
            if isinstance(pair, ast.Name):
                pair = self._binding(pair.id, scope) or pair
            if isinstance(pair, ast.Tuple | ast.List) and len(pair.elts) == 2:
                key = self.value(pair.elts[0], scope)
                if isinstance(key, str):
                    value = self.value(pair.elts[1], scope)
                    entries.append(Option(key, value, self.loc(pair)))  # the pair itself
                    continue
            complete = False
        return Options(complete, tuple(entries))

    def _follow(self, expression: ast.expr, scope: Scope) -> ast.expr | None:
        for _ in range(MAX_DEPTH):
            if not isinstance(expression, ast.Name):
                return expression
            bound = self._binding(expression.id, scope)
            if bound is None:
                return None
            expression = bound
        return None

    def value(self, expression: ast.expr, scope: Scope, depth: int = 0) -> Any:
        """A literal, an EnvRef, or UNKNOWN (past the reading's budget too: budget.py)."""
        if not self.budget.step(depth):
            return UNKNOWN
        if isinstance(expression, ast.Constant):
            return expression.value if not isinstance(expression.value, bytes) else UNKNOWN
        if isinstance(expression, ast.UnaryOp) and isinstance(expression.op, ast.USub):
            inner = self.value(expression.operand, scope, depth + 1)
            return -inner if _number(inner) else UNKNOWN
        if isinstance(expression, ast.Name):
            bound = self._binding(expression.id, scope)
            if bound is not None:
                return self.value(bound, scope, depth + 1)
            home = self._scope_of(expression.id, scope)
            own = expression.id in home.bindings or expression.id in home.opaque
            if own and isinstance(home.node, ast.FunctionDef | ast.AsyncFunctionDef):
                return self.passed(home, expression.id, depth)
            origin = self._origin(expression.id, scope)
            return self._imported(origin) if origin is not None else UNKNOWN
        if isinstance(expression, ast.Dict):
            result: dict[str, Any] = {}
            for key, item in zip(expression.keys, expression.values, strict=True):
                key_value = self.value(key, scope, depth + 1) if key is not None else UNKNOWN
                if not isinstance(key_value, str):
                    return UNKNOWN
                result[key_value] = self.value(item, scope, depth + 1)
            return result
        if isinstance(expression, ast.List | ast.Tuple):
            return [
                UNKNOWN if isinstance(e, ast.Starred) else self.value(e, scope, depth + 1)
                for e in expression.elts
            ]
        if isinstance(expression, ast.Subscript):
            if self.qualified(expression.value) == "os.environ":
                name = self.value(expression.slice, scope, depth + 1)
                return EnvRef(name, None) if isinstance(name, str) else UNKNOWN
            return UNKNOWN
        if isinstance(expression, ast.Call):
            return self._call_value(expression, scope, depth)
        if isinstance(expression, ast.JoinedStr):
            parts: list[Any] = []
            for part in expression.values:
                if isinstance(part, ast.Constant):
                    parts.append(part.value)
                elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
                    value = self.value(part.value, scope, depth + 1)
                    parts.append(str(value) if _number(value) and part.conversion < 0 else value)
                else:
                    return UNKNOWN
            return joined(parts)
        if isinstance(expression, ast.BinOp):
            left = self.value(expression.left, scope, depth + 1)
            right = self.value(expression.right, scope, depth + 1)
            if _number(left) and _number(right):
                return _arithmetic(expression.op, left, right)
            return joined([left, right]) if isinstance(expression.op, ast.Add) else UNKNOWN
        if isinstance(expression, ast.Attribute) and self.qualified(expression) == "math.inf":
            return math.inf
        if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
            module = self._module_of(expression.value.id, scope)
            if module is not None:  # `config.ADDR` after `import config` or `from . import config`
                return self._imported(Imported(module[0], module[1], expression.attr))
            if expression.value.id == "self":  # `self.host`, set once in `__init__`
                bound_there = self.instance_binding(expression.attr, scope)
                if bound_there is not None:
                    return self.value(bound_there[0], bound_there[1], depth + 1)
            held = self.class_attribute(expression.value.id, expression.attr, scope)
            if held is not None:  # `Settings.AUTH_ADDR` of a plain class of the module
                home = self.class_scopes[expression.value.id]
                return self.value(held, home, depth + 1)
            bound = self._binding(expression.value.id, scope)
            if isinstance(bound, ast.Call):  # `settings.URL` of `settings = Settings()`
                fields = self._settings_made(bound, self._scope_of(expression.value.id, scope))
                if fields is not None:
                    return fields.get(expression.attr, UNKNOWN)
        return UNKNOWN

    def literal_head(self, expression: ast.expr, scope: Scope, depth: int = 0) -> tuple[str, bool]:
        """The literal text an address begins with, up to its first part k8slb cannot
        read, and whether that is the whole text: through a name bound once, an f-string,
        `+`, and the template of `%` and `str.format` (`"localhost:%d" % port`)."""
        followed = self._follow(expression, scope)
        if followed is None or depth >= MAX_DEPTH:
            return "", False
        value = self.value(followed, scope)
        if isinstance(value, str):
            return value, True
        if isinstance(followed, ast.JoinedStr):
            text: list[str] = []
            for part in followed.values:
                if isinstance(part, ast.FormattedValue):
                    head, whole = self.literal_head(part.value, scope, depth + 1)
                    if part.format_spec is not None or part.conversion >= 0 or not whole:
                        return "".join(text), False
                    text.append(head)
                elif isinstance(part, ast.Constant) and isinstance(part.value, str):
                    text.append(part.value)
            return "".join(text), True
        if isinstance(followed, ast.BinOp) and isinstance(followed.op, ast.Add):
            head, whole = self.literal_head(followed.left, scope, depth + 1)
            if not whole:
                return head, False
            rest, whole = self.literal_head(followed.right, scope, depth + 1)
            return head + rest, whole
        template = None
        if isinstance(followed, ast.BinOp) and isinstance(followed.op, ast.Mod):
            template, cut = self.value(followed.left, scope, depth + 1), "%"
        elif (
            isinstance(followed, ast.Call)
            and isinstance(followed.func, ast.Attribute)
            and followed.func.attr == "format"
        ):
            template, cut = self.value(followed.func.value, scope, depth + 1), "{"
        if isinstance(template, str):  # its text up to the first placeholder
            return template.partition(cut)[0], False
        return "", False

    def class_values(self, name: str, module: Scope) -> dict[str, Any]:
        """What another module reads as `Name.attr` of a plain class of this one
        (class_attribute): each attribute its body binds whose value is known (a literal,
        a variable with its default), within the module's reading budget."""
        home = self.class_scopes[name]
        found: dict[str, Any] = {}
        for attribute in home.bindings:
            held = self.class_attribute(name, attribute, module)
            if held is None:
                continue
            value = self.value(held, home)
            if not isinstance(value, Unknown):
                found[attribute] = value
        return found

    def choices(self, expression: ast.expr, scope: Scope) -> list[Any]:
        """The values an address may be, one for each value a parameter it is made of is
        given by its function's call sites (facts.Alternatives): a fact is made for each."""
        self.choosing = True
        try:
            return choices(self.value(expression, scope))
        finally:
            self.choosing = False

    def passed(self, home: Scope, name: str, depth: int) -> Any:
        """A parameter's value: the join of what the module's calls of its function pass
        (facts.one_of), each followed in the caller's scope one step deeper; its default
        where a call passes nothing. A parameter that is rebound, or whose function no call
        of the module reaches, is unknown (no guess)."""
        function = home.node
        assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        if home.bindings.get(name):
            return UNKNOWN  # `addr = addr or DEFAULT`: not only what the callers pass
        found = _parameter(function, name, home)
        if found is None:
            return UNKNOWN
        index, default, _ = found
        values = []
        for call, caller, _ in self.calls_of(home):
            argument = keyword_argument(call.keywords, name)
            if argument is None and index is not None:
                positional = call.args[: index + 1]
                if any(isinstance(a, ast.Starred) for a in positional):
                    return UNKNOWN
                argument = positional[index] if index < len(positional) else None
            if argument is None and any(k.arg is None for k in call.keywords):
                return UNKNOWN  # `**kwargs` may carry it
            if argument is not None:
                values.append(self.value(argument, caller, depth + 1))
            elif default is not None and home.parent is not None:
                values.append(self.value(default, home.parent, depth + 1))
            else:
                values.append(UNKNOWN)
        value = one_of(values)
        return value if self.choosing else settled(value)

    def calls_of(self, home: Scope) -> list[tuple[ast.Call, Scope, tuple[ast.AST, ...]]]:
        """The module's calls of the function `home` is the scope of (only the one being
        judged while a caller's facts are made: `only`), with their scopes and parents."""
        function = home.node
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return []
        found = self.callers.get(id(function))
        if found is None:
            owner = home.parent.node if home.parent is not None else None
            by_class = isinstance(owner, ast.ClassDef)
            made = by_class and function.name == "__init__"  # `Client(addr)` calls it
            called = owner.name if made and isinstance(owner, ast.ClassDef) else function.name
            found = [  # a method is called on an object, a function (a class) by its name
                (call, caller, parents)
                for call, caller, parents in self.calls_to.get(called, [])
                if isinstance(call.func, ast.Attribute) == (by_class and not made)
            ]
            self.callers[id(function)] = found
        only = self.only.get(id(function))
        return found if only is None else [c for c in found if c[0] is only]

    def _call_value(self, call: ast.Call, scope: Scope, depth: int) -> Any:
        name = self.qualified(call.func) or dotted(call.func)
        args = [self.value(a, scope, depth + 1) for a in call.args]
        if name in ("os.environ.get", "os.getenv") and args:
            default = args[1] if len(args) > 1 else None
            if isinstance(args[0], str):
                known = isinstance(default, str | None | Imported | Joined)
                return EnvRef(args[0], default if known else UNKNOWN)
            return UNKNOWN
        if name == "json.dumps" and args:
            return json.dumps(args[0]) if _plain_json(args[0]) else UNKNOWN
        infinite = ("inf", "+inf", "infinity")
        if name == "float" and args and isinstance(args[0], str) and args[0].lower() in infinite:
            return math.inf
        if name == "str" and args and isinstance(args[0], str | EnvRef):
            return args[0]
        fields = self._settings_made(call, scope)
        if fields is not None:
            return dict(fields)  # `Settings()`: its fields as the environment sets them
        return self._env_read(call, scope, depth)

    def _env_read(self, call: ast.Call, scope: Scope, depth: int) -> Any:
        """What a call of the module's own reader of the environment (parse_envhelpers.py)
        reads: `env("DB_URL", "http://localhost")` of one that reads `APP_` + its name is
        the EnvRef `APP_DB_URL` with that default; UNKNOWN for any other call."""
        reader = self._env_reader_of(call, scope)
        if reader is None or any(isinstance(a, ast.Starred) for a in call.args):
            return UNKNOWN
        if any(k.arg is None for k in call.keywords):
            return UNKNOWN
        given = dict(zip(reader.params, call.args, strict=False))
        given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
        name = given.get(reader.name)
        text = self.value(name, scope, depth + 1) if name is not None else None
        if not isinstance(text, str):
            return UNKNOWN
        default: Any = None
        if reader.default is not None:
            function = self.functions[dotted(call.func)]
            held = given.get(reader.default)
            home = self.function_scopes.get(id(function))
            if held is not None:
                default = self.value(held, scope, depth + 1)
            elif home is not None and home.parent is not None:  # the function's own default
                found = _parameter(function, reader.default, home)
                held = found[1] if found is not None else None
                default = self.value(held, home.parent, depth + 1) if held else None
        known = isinstance(default, str | None | Imported | Joined)
        return EnvRef(f"{reader.prefix}{text}{reader.suffix}", default if known else UNKNOWN)

    def _env_reader_of(self, call: ast.Call, scope: Scope) -> EnvReader | None:
        if not isinstance(call.func, ast.Name):
            return None
        function = self.functions.get(call.func.id)
        home = self._scope_of(call.func.id, scope)
        if function is None or call.func.id in home.bindings or call.func.id in home.opaque:
            return None
        if id(function) not in self.env_readers:
            self.env_readers[id(function)] = env_reader(function, self.qualified)
        return self.env_readers[id(function)]

    def _settings_made(self, call: ast.Call, scope: Scope) -> dict[str, EnvRef] | None:
        """The fields of the settings class (parse_settings.py) the call makes, when it is
        one and is given nothing (arguments would set fields)."""
        if not isinstance(call.func, ast.Name) or call.args or call.keywords:
            return None
        home = self._scope_of(call.func.id, scope)
        if call.func.id in home.bindings or call.func.id in home.opaque:
            return None  # rebound: not the class
        return self.settings_classes.get(call.func.id)


def keyword_argument(keywords: Sequence[ast.keyword], name: str) -> ast.expr | None:
    for keyword in keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, home: Scope
) -> tuple[int | None, ast.expr | None, bool] | None:
    """Where a call passes parameter `name`: its position among the positional arguments
    (None for a keyword-only one), its default, and whether the function is a method (its
    first parameter, `self` or `cls`, is the object: not among a call's arguments; a class's
    `__init__` is called by the class's name). None for `*args` and `**kwargs`."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    by_class = home.parent is not None and isinstance(home.parent.node, ast.ClassDef)
    static = any(dotted(d) == "staticmethod" for d in function.decorator_list)
    skip = 1 if by_class and not static and positional else 0
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    for at, argument in enumerate(positional):
        if argument.arg == name:
            return (at - skip if at >= skip else None), defaults[at], by_class
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if argument.arg == name:
            return None, default, by_class
    return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _arithmetic(operator: ast.operator, left: Any, right: Any) -> Any:
    """Constant arithmetic as people write durations: `5 * 60 * 1000`, `2**31 - 1`."""
    try:
        if isinstance(operator, ast.Add):
            return left + right
        if isinstance(operator, ast.Sub):
            return left - right
        if isinstance(operator, ast.Mult):
            return left * right
        if isinstance(operator, ast.Pow) and abs(right) <= 64:
            return left**right
    except (OverflowError, ZeroDivisionError):
        pass
    return UNKNOWN


def _plain_json(data: Any) -> bool:
    if isinstance(data, Unknown | EnvRef | Imported | Joined | Alternatives):
        return False
    if isinstance(data, dict):
        return all(_plain_json(v) for v in data.values())
    if isinstance(data, list):
        return all(_plain_json(v) for v in data)
    return True
