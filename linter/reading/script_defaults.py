"""What a deploy script's variable is when the script runs with nothing given (no
argument, no environment): a `${NAME:-default}`'s literal default, or the literal of the
one line that sets the variable (`REGISTRY=acme`, `REGISTRY=${4:-acme}`). Links read it for
an image a script's `--set` gives (model/links.py); chart_installers.script_variables reads a
script's variables for the values paths of its install commands."""

from __future__ import annotations

import functools
from collections import Counter

from k8slb.core import regex
from k8slb.reading.build_files import ShellScript

# A shell variable's use, `$NAME` or `${NAME}`, or `${NAME:-default}` (`${NAME-default}`)
# with a literal default: the whole of a word
_SHELL_USE = regex.compile(
    r"\$(?:(?P<bare>[A-Za-z_]\w*)|\{(?P<name>[A-Za-z_]\w*|[0-9]+)"
    r"(?::?-(?P<default>[^${}\s\"'`]*))?\})"
)
_MAX_SCRIPT_DEFAULT = 256  # the longest default read


def script_default(value: str, script: ShellScript) -> str | None:
    """What a script's `--set` value is when the script is run with nothing given: a
    variable's literal default (`${REGISTRY:-acme}`), or a variable the script sets once,
    to a literal or to another's literal default (`REGISTRY=${4:-acme}`). None when
    it is not one variable, it is set more than once (an option's case) or to anything
    else."""
    used = _SHELL_USE.fullmatch(value) if len(value) <= _MAX_SCRIPT_DEFAULT else None
    if used is None:
        return None
    if used["default"]:
        return used["default"]
    return _assigned_default(used["bare"] or used["name"], script.text or "")


# Where a script sets a variable (a command's word `NAME=`, `NAME+=`), and a line that
# only sets one (`export NAME=value  # comment`)
_SETS_VARIABLE = regex.compile(r"(?:^|[\s;&|(])([A-Za-z_]\w*)\+?=", regex.MULTILINE)
_ASSIGNMENT_LINE = regex.compile(
    r"^[ \t]*(?:export[ \t]+|readonly[ \t]+)?([A-Za-z_]\w*)=(\S*)[ \t]*(?:#.*)?$",
    regex.MULTILINE,
)


def _assigned_default(name: str, text: str) -> str | None:
    """The literal a script's one assignment of `name` gives it (or its literal default)."""
    if name.isdigit():
        return None
    counts, lines = _assignments(text)
    given = lines.get(name) if counts.get(name) == 1 else None
    if not given or len(given) > _MAX_SCRIPT_DEFAULT:
        return None
    if "$" not in given and "`" not in given:
        return given
    inner = _SHELL_USE.fullmatch(given)
    return inner["default"] or None if inner is not None else None


@functools.lru_cache(maxsize=8)
def _assignments(text: str) -> tuple[Counter[str], dict[str, str]]:
    """How many times a script sets each variable, and the value a line of its own gives
    it (its quotes dropped): read once a script, not once a container."""
    counts = Counter(match[1] for match in _SETS_VARIABLE.finditer(text))
    lines = {match[1]: match[2].strip("\"'") for match in _ASSIGNMENT_LINE.finditer(text)}
    return counts, lines
