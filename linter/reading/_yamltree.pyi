# The C builder (native/yamltree.c): see yamlcompose._native_builder.
from collections.abc import Callable
from typing import Any

def configure(
    ymap: type,
    yseq: type,
    problem: type[Exception],
    limit: type[Exception],
    resolve_scalar: Callable[[Any, bool, str], Any],
    is_merge_key: Callable[[Any, bool, str], bool],
    key_text: Callable[[Any], str],
    apply_merges: Callable[[Any, list[tuple[Any, tuple[int, int]]]], None],
    libyaml_error: Callable[..., Exception],
    typed_first: str,
    any_first: bool,
    nesting_message: str,
    bomb_message: str,
    max_nesting: int,
    max_expanded: int,
    /,
) -> None: ...
def documents(text: str, line_offset: int, /) -> list[tuple[Any, tuple[int, int]]]: ...
def configure_nodes(
    scalar: type,
    sequence: type,
    mapping: type,
    plain_tag: Callable[[str], str],
    make_tag: Callable[[str], Any],
    /,
) -> None: ...
def nodes(text: str, /) -> list[Any]: ...
