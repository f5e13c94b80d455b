"""Find, load and validate the configuration: `[tool.k8slb]` in pyproject.toml, or a
`.k8slb.yaml`, in the current folder or the nearest one above it (the first found wins).

The file is validated against schemas/config.json; a wrong key or value is an error that
names the file, the key path (and the line, in YAML) and what is allowed. Rule codes are
checked too: an unknown id is an error, not a silent no-op.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from k8slb import schema
from k8slb.core.edits import FixValues
from k8slb.core.record import record
from k8slb.model.links import Pin
from k8slb.reading.build_files import Said
from k8slb.reading.charts import HelmOptions
from k8slb.reading.repository import git_top, inside, upward
from k8slb.reading.shapes import position_of
from k8slb.reading.yamltree import YMap
from k8slb.run.selection import SelectionError, codes_to_ids

if TYPE_CHECKING:  # jsonschema is imported only when there is a configuration to check
    from jsonschema import ValidationError


YAML_NAMES = (".k8slb.yaml", ".k8slb.yml")
FIX_KEYS = {
    "prestop-seconds": "prestop_seconds",
    "stop-grace-seconds": "stop_grace_seconds",
    "max-connection-age-ms": "max_connection_age_ms",
    "max-connection-age-grace-ms": "max_connection_age_grace_ms",
}


# Keys that would make k8slb run a program or reach the network: a repository's
# configuration is untrusted (a pull request writes it), so these come from the command
# line (or the workflow) alone, and the key is refused, as ruff refuses an unknown one.
COMMAND_LINE_ONLY = {
    "kustomize": (
        "--kustomize",
        "it runs `kustomize build`, which fetches every URL a kustomization names",
    ),
}


class ConfigError(Exception):
    """The configuration is wrong; the message says where and what is allowed."""


@record
class Exemption:
    """Findings not reported for matching objects, from the configuration."""

    rules: frozenset[str]
    reason: str
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    container: str | None = None
    expires: datetime.date | None = None
    line: int | None = None  # where the configuration writes it (YAML; None in TOML)

    def expired(self, today: datetime.date) -> bool:
        return self.expires is not None and today > self.expires


# An exemption is said this many days before it expires: its findings come back then, and
# fail the run, which should not be the first word of it.
EXPIRY_NOTICE_DAYS = 14


def expiry_warnings(config: Config, today: datetime.date) -> list[str]:
    """A sentence for each exemption that expires within EXPIRY_NOTICE_DAYS, today, or
    has expired (its findings are reported again)."""
    warnings = []
    for number, exemption in enumerate(config.exemptions):
        if exemption.expires is None:
            continue
        left = (exemption.expires - today).days
        if left > EXPIRY_NOTICE_DAYS:
            continue
        line = f":{exemption.line}" if exemption.line is not None else ""
        shown = shown_path(config.path) if config.path else "the configuration"
        rules = ", ".join(sorted(exemption.rules))
        where = f"{shown}{line}: the exemption `exemptions[{number}]` ({rules}: {exemption.reason})"
        if exemption.expired(today):
            said = f"expired on {exemption.expires}: its findings are reported again"
        elif left == 0:
            said = "expires today: its findings are reported again from tomorrow"
        else:
            days = f"{left} day{'s' * (left != 1)}"
            said = f"expires on {exemption.expires}, in {days}: its findings are reported again"
            said += " after that day"
        warnings.append(f"{where} {said}")
    return warnings


@dataclass
class Config:
    path: Path | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    fail_on: str | None = None
    exclude: list[str] = field(default_factory=list)
    kubernetes_version: str | None = None
    mesh: str | None = None
    per_file_ignores: dict[str, frozenset[str]] = field(default_factory=dict)
    fix: FixValues = field(default_factory=FixValues)
    exemptions: list[Exemption] = field(default_factory=list)
    baseline: Path | None = None
    helm: HelmOptions = field(default_factory=HelmOptions)
    links: dict[str, Pin] = field(default_factory=dict)  # container key -> its code

    @property
    def root(self) -> Path:
        """Where relative patterns start: the configuration's folder."""
        return self.path.parent.resolve() if self.path else Path.cwd()


@cache
def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = schema("config.json")
    return loaded


def find_config(start: Path) -> Path | None:
    """The first `.k8slb.yaml` or pyproject.toml with a [tool.k8slb] table, from `start`
    up to its repository's top (repository.py): one in a shared folder above configures
    no one's run."""
    for folder in map(Path, upward(str(start.resolve()))):
        for name in YAML_NAMES:
            if (folder / name).is_file():
                return folder / name
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_table(pyproject):
            return pyproject
    return None


PROJECT_MARKERS = (".git", "pyproject.toml", *YAML_NAMES)


def project_root(start: Path) -> Path:
    """The project a linted path belongs to: the nearest folder above it that holds a
    `.git`, a pyproject.toml or a k8slb configuration; `start` itself when none does."""
    return marked_project(start) or start.resolve()


def marked_project(start: Path) -> Path | None:
    """The nearest folder at or above `start` that marks a project, up to its
    repository's top, or None."""
    for folder in map(Path, upward(str(start.resolve()))):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None


def _has_table(pyproject: Path) -> bool:
    try:
        return "k8slb" in _read_toml(pyproject).get("tool", {})
    except ConfigError:
        return True  # a broken pyproject.toml that may hold ours: load it and say why


def _read_toml(path: Path) -> dict[str, Any]:
    from k8slb.core import toml_text  # imported here: most runs read no TOML

    try:
        text = path.read_text("utf-8")
        if toml_text.deep_keys(text):  # tomllib would take minutes: refused as unreadable
            raise ConfigError(
                f"{path}: not read: a line holds more than {toml_text.MAX_LINE_DOTS} dots "
                "(a dotted key of that many parts)"
            )
        data: dict[str, Any] = toml_text.parse(text)
        return data
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except toml_text.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:  # arrays nested past the stack
        raise ConfigError(f"{path}: not read: its values nest too deep") from None


def _read(path: Path) -> tuple[Any, YMap | None]:
    """The configuration data, and its YAML tree (for line numbers) when it is YAML."""
    if path.name == "pyproject.toml":
        table: dict[str, Any] = _read_toml(path).get("tool", {}).get("k8slb", {})
        return table, None
    if path.suffix.lower() == ".toml":  # `--config k8slb.toml`: [tool.k8slb], else the top
        whole = _read_toml(path)
        tool = whole.get("tool")
        own = tool.get("k8slb") if isinstance(tool, dict) else None
        return (own if isinstance(own, dict) else whole), None
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    from k8slb.reading.yamlcompose import compose  # ruamel.yaml: only for a YAML file

    composed = compose(text)
    if composed.problems:
        _, problem = composed.problems[0]
        raise ConfigError(f"{path}:{problem.line}: not valid YAML: {problem.message}")
    data = composed.documents[0].data if composed.documents else None
    if data is None:
        return {}, None
    return data, data if isinstance(data, YMap) else None


def _describe(error: ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "the configuration"
    schema: Any = error.schema
    expected: Any = error.validator_value
    if error.validator == "additionalProperties":
        known = schema.get("properties", {})
        extra = _wrong_key(error) or ""
        key = ".".join([*map(str, error.absolute_path), extra])
        allowed = ", ".join(sorted(known))
        return f"unknown key `{key}`{_did_you_mean(extra, known)} (allowed: {allowed})"
    if error.validator == "pattern":  # the schema says what the pattern stands for
        shape = schema.get("description", "of the form the schema gives")
        example = f" (such as {schema['examples'][0]})" if schema.get("examples") else ""
        what = "key" if "propertyNames" in error.schema_path else "value"
        return f"`{where}`: the {what} {error.instance!r} is not {shape}{example}"
    if error.validator == "enum":
        allowed = ", ".join(repr(v) for v in expected)
        return f"`{where}`: {error.instance!r} is not one of {allowed}"
    if error.validator == "type" and where == "kubernetes-version":
        return (
            f"`{where}` must be a string: YAML reads {error.instance!r} as a number "
            '(1.30 as 1.3); quote it: kubernetes-version: "1.30"'
        )
    if error.validator == "type":
        return f"`{where}` must be of type {error.validator_value}, not {error.instance!r}"
    return f"`{where}`: {error.message}"


def _wrong_key(error: ValidationError) -> str | None:
    """The key an error is about, when it is a key (unknown, or of the wrong form)."""
    instance: Any = error.instance
    schema: Any = error.schema
    if error.validator == "additionalProperties":
        extra: list[str] = sorted(set(instance) - set(schema.get("properties", {})))
        return extra[0]
    return str(instance) if "propertyNames" in error.schema_path else None


def _did_you_mean(key: str, known: Iterable[str]) -> str:
    """`; did you mean `fail-on`?` for a key close to a known one (`_` for `-` first)."""
    import difflib  # only for a misspelt key

    dashed = key.replace("_", "-").lower()
    close = [k for k in known if k == dashed] or difflib.get_close_matches(dashed, known, n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


def load_config(path: Path) -> Config:
    from jsonschema import Draft7Validator

    data, tree = _read(path)
    for name, (flag, why) in COMMAND_LINE_ONLY.items():
        if isinstance(data, dict) and name in data:
            line = f":{position_of(tree, [name])[0]}" if tree is not None else ""
            raise ConfigError(
                f"{path}{line}: `{name}` is not read from a configuration ({why}): "
                f"pass {flag} on the command line"
            )
    errors = sorted(
        Draft7Validator(_schema()).iter_errors(data), key=lambda e: list(map(str, e.path))
    )
    if errors:
        error = errors[0]
        line = ""
        if tree is not None:
            key = _wrong_key(error)
            steps = [*error.absolute_path, *([key] if key is not None else [])]
            line = f":{position_of(tree, steps)[0]}"
        raise ConfigError(f"{path}{line}: {_describe(error)}")
    for where, problem in _path_problems(path.parent.resolve(), data):
        line = f":{position_of(tree, where)[0]}" if tree is not None else ""
        raise ConfigError(f"{path}{line}: `{_dotted(where)}`: {problem}")
    try:
        return _build(path, data, tree)
    except SelectionError as error:
        raise ConfigError(f"{path}: {error}") from None
    except ValueError as error:  # a date that matches the pattern but does not exist
        raise ConfigError(f"{path}: `exemptions`: {error}") from None


def _dotted(where: list[str | int]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in where)[1:]


def _path_problems(root: Path, data: dict[str, Any]) -> list[tuple[list[str | int], str]]:
    """The paths the configuration names that are not there (a wrong value stops the run,
    as the README says) or lead out of its repository: each values file, each chart of
    `helm.charts` and its value files, each target of `links`, the baseline. Relative to
    the configuration's folder."""
    # its repository, else its own folder (not the current folder: a tree without .git,
    # unpacked in a home folder and checked from there, may not reach the home folder)
    top = os.path.realpath(git_top(str(root)) or root)
    missing: list[tuple[list[str | int], str]] = []

    def outside(where: list[str | int], path: Path, name: str) -> bool:
        """A repository's configuration must not make k8slb read (and quote) or write a
        file of the runner's: every path it names resolves inside the repository, links
        followed. A path given on the command line is the user's own choice."""
        if inside(os.path.realpath(path), top):
            return False
        missing.append(
            (
                where,
                f"{name} leads outside the repository ({top}), which its configuration "
                "may not name (give it on the command line)",
            )
        )
        return True

    helm = data.get("helm", {})
    for index, name in enumerate(helm.get("values", [])):
        where: list[str | int] = ["helm", "values", index]
        if not outside(where, root / name, name) and not (root / name).is_file():
            missing.append((where, f"no values file {name}"))
    for chart, sets in helm.get("charts", {}).items():
        folder = root / chart
        if outside(["helm", "charts", chart], folder, chart):
            continue
        if not (folder / "Chart.yaml").is_file():
            missing.append((["helm", "charts", chart], f"{chart} is no chart (no Chart.yaml)"))
            continue
        for number, chosen in enumerate(sets):
            for index, name in enumerate(chosen):
                where = ["helm", "charts", chart, number, index]
                if not outside(where, folder / name, name) and not (folder / name).is_file():
                    missing.append((where, f"no values file {name} in chart {chart}"))
    for key, target in data.get("links", {}).items():
        if not outside(["links", key], root / target, target) and not (root / target).exists():
            missing.append((["links", key], f"{target} does not exist"))
    if "baseline" in data:  # `--write-baseline` writes it
        outside(["baseline"], root / data["baseline"], data["baseline"])
    return missing


def _codes(data: dict[str, Any], key: str) -> list[str]:
    codes: list[str] = data.get(key, [])
    codes_to_ids(codes)  # raises on an unknown rule
    return codes


def _build(path: Path, data: dict[str, Any], tree: YMap | None = None) -> Config:
    fix_values = FixValues(**{FIX_KEYS[k]: v for k, v in data.get("fix", {}).items()})
    exemptions = [
        Exemption(
            rules=codes_to_ids(entry["rules"]),
            reason=entry["reason"],
            kind=entry.get("kind"),
            namespace=entry.get("namespace"),
            name=entry.get("name"),
            container=entry.get("container"),
            expires=datetime.date.fromisoformat(entry["expires"]) if "expires" in entry else None,
            line=position_of(tree, ["exemptions", number])[0] if tree is not None else None,
        )
        for number, entry in enumerate(data.get("exemptions", []))
    ]
    return Config(
        path=path,
        select=_codes(data, "select") if "select" in data else None,
        ignore=_codes(data, "ignore"),
        fail_on=data.get("fail-on"),
        exclude=list(data.get("exclude", [])),
        kubernetes_version=data.get("kubernetes-version"),
        mesh=data.get("mesh"),
        per_file_ignores={
            pattern: codes_to_ids(codes)
            for pattern, codes in data.get("per-file-ignores", {}).items()
        },
        fix=fix_values,
        exemptions=exemptions,
        baseline=path.parent.resolve() / data["baseline"] if "baseline" in data else None,
        helm=_helm(path.parent.resolve(), data.get("helm", {})),
        links={
            key: Pin(
                os.path.normpath(path.parent.resolve() / target),
                Said(shown_path(path), position_of(tree, ["links", key])[0] if tree else 1, ""),
            )
            for key, target in data.get("links", {}).items()
        },
    )


def shown_path(path: Path) -> str:
    """A path k8slb found (the configuration, the baseline) as it is shown: relative to the
    current folder when it is below it, as the paths given are."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def _helm(root: Path, data: dict[str, Any]) -> HelmOptions:
    return HelmOptions(
        values=tuple(str(root / name) for name in data.get("values", [])),
        release=data.get("release"),
        namespace=data.get("namespace", "default"),
        value_sets=tuple(
            (os.path.realpath(root / chart), tuple(tuple(files) for files in sets))
            for chart, sets in data.get("charts", {}).items()
        ),
    )
