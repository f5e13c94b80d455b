"""pydantic's settings classes (`class Settings(BaseSettings)`): an instance's fields are
read from the environment, each from the variable its name (after the class's
`env_prefix`) spells, any case, else its default. `settings = Settings()` is then a map
of those variables, which `settings.DATABASE_URL` reads here or in a module that
imports `settings`. A field given its own variable by `Field(...)` is read as pydantic
reads it: in pydantic-settings (v2) a string `alias=` or `validation_alias=` is the
variable's whole name, the prefix not applied (and `populate_by_name` reads the field's
own name too: two variables, left unknown); in pydantic 1's `BaseSettings` a string
`env=` is, and `alias` names no variable. Any other form (`AliasChoices`, a list) leaves
the field unknown rather than guessed."""

from __future__ import annotations

import ast
from collections.abc import Callable

from k8slb.code.facts import UNKNOWN, EnvRef, Unknown

BASES = frozenset(
    {"pydantic_settings.BaseSettings", "pydantic.BaseSettings", "pydantic.v1.BaseSettings"}
)
_V2 = "pydantic_settings.BaseSettings"
_FIELDS = frozenset({"pydantic.Field", "pydantic.fields.Field", "pydantic.v1.Field"})
# the keywords that name a field's variable, by the generation of the base
_NAMING = {True: ("alias", "validation_alias"), False: ("env",)}


def settings_fields(
    node: ast.ClassDef, qualified: Callable[[ast.expr], str | None]
) -> dict[str, EnvRef] | None:
    """Each field's variable and default of a settings class; None for another class.
    A field whose default is not a string (`Field(...)`, which may alias it) is unknown."""
    bases = {qualified(base) for base in node.bases}
    if not bases & BASES:
        return None
    prefix = _env_prefix(node)
    if prefix is None:
        return None  # a prefix k8slb cannot read names every variable
    v2 = _V2 in bases
    fields: dict[str, EnvRef] = {}
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        field = statement.target.id
        value = statement.value
        if isinstance(value, ast.Call) and qualified(value.func) in _FIELDS:
            named = _field_variable(value, v2, _populates_by_name(node))
            if named is None:
                continue  # a variable k8slb cannot name: no guess
            default = _field_default(value)
            # case-insensitive by default: a workload's variables are spelt in capitals
            fields[field] = EnvRef((named or f"{prefix}{field}").upper(), default)
            continue
        text = _text(value) if value is not None else None
        default = None if value is None else UNKNOWN if text is None else text
        fields[field] = EnvRef(f"{prefix}{field}".upper(), default)
    return fields


def _field_variable(call: ast.Call, v2: bool, by_name: bool) -> str | None:
    """The variable a `Field(...)` names for its field: "" for none (the field's own name,
    after the prefix), None when it names one k8slb cannot read or several."""
    named = ""
    for keyword in call.keywords:
        if keyword.arg is None:
            return None  # `**options` may name one
        if keyword.arg in _NAMING[v2]:
            text = _text(keyword.value)
            if text is None or (named and named != text):
                return None
            named = text
        elif keyword.arg == "alias" or keyword.arg == "validation_alias":
            return None  # pydantic 1 reads no variable by it: not guessed either way
    return None if named and by_name else named


def _field_default(call: ast.Call) -> str | Unknown | None:
    """A `Field(...)`'s default: its first argument or `default=` when a string, None when
    it has none (`Field(...)`, `Field()`: required), else unknown."""
    given = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "default":
            given = keyword.value
        elif keyword.arg == "default_factory":
            return UNKNOWN
    if given is None or (isinstance(given, ast.Constant) and given.value is Ellipsis):
        return None
    text = _text(given)
    return UNKNOWN if text is None else text


def _populates_by_name(node: ast.ClassDef) -> bool:
    """Whether the class reads a field by its own name beside its alias."""
    for statement in node.body:
        if isinstance(statement, ast.Assign) and _names(statement.targets, "model_config"):
            value = statement.value
            if isinstance(value, ast.Call):
                for keyword in value.keywords:
                    if keyword.arg == "populate_by_name":
                        return not (
                            isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                        )
    return False


def _env_prefix(node: ast.ClassDef) -> str | None:
    """The class's `env_prefix` (`model_config = SettingsConfigDict(env_prefix=...)`, or
    an inner `class Config`); "" when none is set, None when it is set to something
    unread."""
    for statement in node.body:
        if isinstance(statement, ast.ClassDef) and statement.name == "Config":
            for inner in statement.body:
                if isinstance(inner, ast.Assign) and _names(inner.targets, "env_prefix"):
                    return _text(inner.value)
        if isinstance(statement, ast.Assign) and _names(statement.targets, "model_config"):
            if not isinstance(statement.value, ast.Call):
                return None
            for keyword in statement.value.keywords:
                if keyword.arg is None:
                    return None  # `**options`
                if keyword.arg == "env_prefix":
                    return _text(keyword.value)
    return ""


def _names(targets: list[ast.expr], name: str) -> bool:
    return len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == name


def _text(value: ast.expr) -> str | None:
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
