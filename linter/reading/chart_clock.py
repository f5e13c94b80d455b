"""Helm's clock held still: a template that calls `now` (sprig's: the time of the render)
renders to another text every run, a Job named `app-migrate-{{ now | date "..." }}` to
another name. Findings keyed by object, a baseline, the cache and a fix's check of its own
render would differ from run to run for nothing in the chart. Helm's engine has no clock to
set, so each `now` of a template's actions is rendered as one fixed time instead:
`toDate "2006-01-02" "1970-01-01"`, midnight at the start of 1970 (the Unix epoch's day, an
instant no real render has, so a name made with it reads as what it is) in the zone of the
machine, so that `date` prints the same digits whatever that zone is.

Only the word `now` as a function of an action (`{{ now }}`, `(now | date "...")`,
`printf "%s" now`) is replaced: not `.now` (a field), `$now` (a variable), `nowish`, nor
text in a string literal or outside the `{{ }}`. The lines of the template are kept (findings
go back to them). Linear: one pass of RE2 over the text, one over each action."""

from __future__ import annotations

from collections.abc import Mapping

from k8slb.core import regex

FIXED_NOW = b'(toDate "2006-01-02" "1970-01-01")'
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt", ".json")
# A Go-template action: `{{` to `}}`, through string literals (which may hold `}}`); no
# `{{` inside one, so that an action left open ends where the next begins.
_ACTION = regex.compile(
    rb"\{\{(?:[^{}\"'`]|\{[^{]|\}[^}]"
    rb"|\"(?:[^\"\\\n]|\\.)*\"|`[^`{]*`|'(?:[^'\\\n]|\\.)*'|[\"'`])*\}\}"
)
# An action's words and literals: a word that is `now` is the function.
_TOKEN = regex.compile(rb"\"(?:[^\"\\\n]|\\.)*\"|`[^`]*`|'(?:[^'\\\n]|\\.)*'|[\w.$]+")


def with_fixed_clock(members: Mapping[str, bytes]) -> Mapping[str, bytes]:
    """The chart's files, each template that calls `now` calling the fixed time instead
    (the same mapping when none does)."""
    changed = {}
    for name, data in members.items():
        if b"now" in data and name.endswith(_TEMPLATE_SUFFIXES) and _is_template(name):
            fixed = _ACTION.sub(_fixed_action, data)
            if fixed != data:
                changed[name] = fixed
    return {**members, **changed} if changed else members


def _is_template(name: str) -> bool:
    """A file Helm renders: under `templates/`, the chart's or a vendored subchart's."""
    return "templates" in name.split("/")[:-1]


def _fixed_action(action: regex.Match[bytes]) -> bytes:
    text = action.group(0)
    if b"now" not in text:
        return text
    return _TOKEN.sub(lambda word: FIXED_NOW if word.group(0) == b"now" else word.group(0), text)
