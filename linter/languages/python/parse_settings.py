"""pydantic's settings classes (`class Settings(BaseSettings)`): an instance's fields are
read from the environment, each from the variable its name (after the class's
`env_prefix`) spells, any case, else its default. `settings = Settings()` is then a map
of those variables, which `settings.DATABASE_URL` reads here or in a module that
imports `settings`. A field given its own variable by `Field(...)` is read as pydantic
reads it: in pydantic-settings (v2) a string `alias=` or `validation_alias=` is the
variable's whole name, the prefix not applied (and `populate_by_name` reads the field's
own name too: two variables, left unknown); in pydantic 1's `BaseSettings` a string
`env=` is, and `alias` names no variable. Any other form (`AliasChoices`, a list) leaves
the field unknown rather than guessed.

Both read the environment in any case unless the class sets `case_sensitive=True`
(pydantic-settings' documented default: "environment variable names are
case-insensitive"): such a field's variable is named in capitals and matched in any case
(`EnvRef.any_case`), so a workload's `nidx_api_address` sets it as `NIDX_API_ADDRESS`
does; with `case_sensitive=True` it is the name as spelt, prefix and field, and nothing
else."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

from k8slb.code.facts import UNKNOWN, EnvRef, Unknown

BASES = frozenset(
    {"pydantic_settings.BaseSettings", "pydantic.BaseSettings", "pydantic.v1.BaseSettings"}
)
_V2 = "pydantic_settings.BaseSettings"
_FIELDS = frozenset({"pydantic.Field", "pydantic.fields.Field", "pydantic.v1.Field"})
# the keywords that name a field's variable, by the generation of the base
_NAMING = {True: ("alias", "validation_alias"), False: ("env",)}


# how many classes of the module a settings class may derive through
MAX_CHAIN = 8
# the syntax nodes of base classes a module's settings classes may read through
# inheritance, all told (each subclass reads its bases again): past it, a subclass is
# not read as one, its fields unknown
MAX_INHERITED = 100_000
_UNSET = object()  # a setting a class leaves to its bases (and they to the default)


def settings_chain(
    node: ast.ClassDef,
    qualified: Callable[[ast.expr], str | None],
    known: Mapping[str, ast.ClassDef],
) -> list[ast.ClassDef] | None:
    """The class and the settings classes of its module it derives from, nearest first,
    down to the one whose base is pydantic's (`class Settings(DriverSettings)`, where
    `class DriverSettings(BaseSettings)` above it); None for a class not so derived (one
    base each, MAX_CHAIN deep)."""
    chain = [node]
    while len(chain) <= MAX_CHAIN:
        bases = chain[-1].bases
        if {qualified(base) for base in bases} & BASES:
            return chain
        if len(bases) != 1 or not isinstance(bases[0], ast.Name):
            return None
        parent = known.get(bases[0].id)
        if parent is None or parent in chain:
            return None
        chain.append(parent)
    return None


def settings_fields(
    chain: list[ast.ClassDef], qualified: Callable[[ast.expr], str | None]
) -> dict[str, EnvRef] | None:
    """Each field's variable and default of a settings class, its own and those of the
    module's settings classes it derives from (its `settings_chain`), each read with the
    nearest prefix and case set along the way; None where a prefix or case cannot be
    read. A field whose default is not a string (`Field(...)`, which may alias it) is
    unknown."""
    prefixes = [_env_prefix(c) for c in chain]
    prefix = next((p for p in prefixes if p is not _UNSET), "")
    if prefix is None:
        return None  # a prefix k8slb cannot read names every variable
    cases = [_case_sensitive(c) for c in chain]
    if any(case is None for case in cases):
        return None  # a case k8slb cannot read: no variable named for sure
    sensitive = next((c for c in cases if c is not _UNSET), False)
    v2 = _V2 in {qualified(base) for base in chain[-1].bases}
    by_name = any(_populates_by_name(c) for c in chain)
    fields: dict[str, EnvRef] = {}
    for owner in reversed(chain):  # a subclass's field overrides its base's
        fields.update(_fields(owner, qualified, prefix, sensitive is True, v2, by_name))
    return fields


def _fields(
    node: ast.ClassDef,
    qualified: Callable[[ast.expr], str | None],
    prefix: str,
    sensitive: bool,
    v2: bool,
    by_name: bool,
) -> dict[str, EnvRef]:
    """The fields a settings class's own body declares."""

    def variable(name: str, default: str | Unknown | None) -> EnvRef:
        if sensitive:
            return EnvRef(name, default)
        return EnvRef(name.upper(), default, any_case=True)

    fields: dict[str, EnvRef] = {}
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        field = statement.target.id
        value = statement.value
        if isinstance(value, ast.Call) and qualified(value.func) in _FIELDS:
            named = _field_variable(value, v2, by_name)
            if named is None:
                continue  # a variable k8slb cannot name: no guess
            fields[field] = variable(named or f"{prefix}{field}", _field_default(value))
            continue
        default = _default_text(value) if value is not None else None
        fields[field] = variable(f"{prefix}{field}", default)
    return fields


def _case_sensitive(node: ast.ClassDef) -> Any:
    """Whether the class reads its variables in their case only (`case_sensitive=True`
    as a class keyword, in `model_config`, or in pydantic 1's `class Config`); None when
    it is set to what k8slb cannot read, _UNSET when it sets nothing."""
    given: list[ast.expr] = [k.value for k in node.keywords if k.arg == "case_sensitive"]
    for statement in node.body:
        if isinstance(statement, ast.ClassDef) and statement.name == "Config":
            given += [
                inner.value
                for inner in statement.body
                if isinstance(inner, ast.Assign) and _names(inner.targets, "case_sensitive")
            ]
        if (
            isinstance(statement, ast.Assign)
            and _names(statement.targets, "model_config")
            and isinstance(statement.value, ast.Call)
        ):
            given += [k.value for k in statement.value.keywords if k.arg == "case_sensitive"]
    if not given:
        return _UNSET
    last = given[-1]
    if isinstance(last, ast.Constant) and isinstance(last.value, bool):
        return last.value
    return None


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
    return _default_text(given)


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


def _env_prefix(node: ast.ClassDef) -> Any:
    """The class's `env_prefix` (`model_config = SettingsConfigDict(env_prefix=...)`, or
    an inner `class Config`); _UNSET when the class sets none, None when it is set to
    something unread."""
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
    return _UNSET


def _names(targets: list[ast.expr], name: str) -> bool:
    return len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == name


def _text(value: ast.expr) -> str | None:
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def _default_text(value: ast.expr) -> str | Unknown | None:
    """A field's default as the text its variable would hold: a string, or a whole number
    (`grpc_port: int = 8030` reads as "8030" where no variable is set); None for `None`
    (no value), UNKNOWN otherwise."""
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return str(value.value)
    if isinstance(value, ast.Constant) and value.value is None:
        return None
    text = _text(value)
    return UNKNOWN if text is None else text
