"""The editor of Spring Boot settings: no fix edits them (their dialect makes none);
`--add-noqa` asks whether its `#` comments left the settings as they were."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.core.edits import CodeEdit, Refused


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    raise Refused("k8slb does not edit Spring settings")


def same_code(old: str, new: str, path: str) -> bool:
    """The same settings but for comments. In YAML a `#` after a blank opens one; in a
    `.properties` file a `#` after a value is part of it (a comment has a line of its
    own), so there nothing may change."""
    if not path.lower().endswith((".yml", ".yaml")):
        return old == new

    def settings(text: str) -> list[str]:
        return [line.split(" #", 1)[0].rstrip() for line in text.splitlines()]

    return settings(old) == settings(new)
