"""pydantic's settings classes (`class Settings(BaseSettings)`): an instance's fields are
read from the environment, each from the variable its name (after the class's
`env_prefix`) spells, any case, else its default. `settings = Settings()` is then a map
of those variables, which `settings.DATABASE_URL` reads here or in a module that
imports `settings`."""

from __future__ import annotations

import ast
from collections.abc import Callable

from k8slb.code.facts import UNKNOWN, EnvRef

BASES = frozenset(
    {"pydantic_settings.BaseSettings", "pydantic.BaseSettings", "pydantic.v1.BaseSettings"}
)


def settings_fields(
    node: ast.ClassDef, qualified: Callable[[ast.expr], str | None]
) -> dict[str, EnvRef] | None:
    """Each field's variable and default of a settings class; None for another class.
    A field whose default is not a string (`Field(...)`, which may alias it) is unknown."""
    if not any(qualified(base) in BASES for base in node.bases):
        return None
    prefix = _env_prefix(node)
    if prefix is None:
        return None  # a prefix k8slb cannot read names every variable
    fields: dict[str, EnvRef] = {}
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        value = statement.value
        text = _text(value) if value is not None else None
        default = None if value is None else UNKNOWN if text is None else text
        # case-insensitive by default: a workload's variables are spelt in capitals
        fields[statement.target.id] = EnvRef(f"{prefix}{statement.target.id}".upper(), default)
    return fields


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
