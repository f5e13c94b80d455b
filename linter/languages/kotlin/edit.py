"""The editor of Kotlin: no fix edits it (its dialect makes none: Java's edits, a shutdown
hook written as a Java lambda, imports placed as google-java-format places them, do not
carry over to Kotlin exactly); `--add-noqa` asks whether its `//` comments left the code
as it was."""

from __future__ import annotations

from collections.abc import Sequence

from k8slb.code.syntax_trees import same_code as same_tokens
from k8slb.core.edits import CodeEdit, Refused
from k8slb.languages.kotlin.parse import parser


def edit(text: str, edits: Sequence[CodeEdit], path: str) -> str:
    raise Refused("k8slb does not edit Kotlin")


def same_code(old: str, new: str, path: str) -> bool:
    """The same tokens in the same order but for comments, and the new text parses."""
    return same_tokens(parser, old.encode(), new.encode())
