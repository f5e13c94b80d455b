"""The C builder (native/yamltree.c) builds exactly what the Python builder builds: the same
documents, trees, positions, shared aliases and problems (message, line, column, kind), on
every fixture, the corpus, generated documents and hostile text. Skipped where it was not
built (no compiler): k8slb then uses the Python builder, which test_yamltree.py checks."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.reading import yamlcompose
from k8slb.reading.yamlcompose import ComposeResult, _compose
from k8slb.reading.yamltree import YMap, YSeq

from .test_yamltree import _VALUES, EDGE_CASES, _block_yaml, _yaml_files, same_tree

NATIVE = yamlcompose._native
needs_native = pytest.mark.skipif(NATIVE is None, reason="the C builder was not built here")


def test_the_c_builder_is_built_where_ci_requires_it() -> None:
    """CI sets K8SLB_REQUIRE_NATIVE: a C builder that stopped compiling must not go unseen
    behind the Python fallback."""
    if not os.environ.get("K8SLB_REQUIRE_NATIVE"):
        pytest.skip("K8SLB_REQUIRE_NATIVE is not set")
    assert NATIVE is not None


def _composed(text: str, native: object) -> ComposeResult:
    saved = yamlcompose._native
    yamlcompose._native = native
    try:
        return _compose(text, False)
    finally:
        yamlcompose._native = saved


def _containers(node: object, path: str = "$") -> Iterator[tuple[str, object]]:
    """Every container with where it is reached first (an alias reaches a shared one)."""
    yield path, node
    if isinstance(node, YMap):
        for key, value in node.items():
            yield from _containers(value, f"{path}.{key}")
    elif isinstance(node, YSeq):
        for index, item in enumerate(node):
            yield from _containers(item, f"{path}[{index}]")


def _sharing(data: object) -> list[tuple[str, str]]:
    """Which paths reach the same container as an earlier one: the aliases' sharing."""
    first: dict[int, str] = {}
    shared = []
    for path, node in _containers(data):
        if isinstance(node, YMap | YSeq):
            if id(node) in first:
                shared.append((path, first[id(node)]))
            else:
                first[id(node)] = path
    return shared


def assert_same_as_python(text: str) -> None:
    c, python = _composed(text, NATIVE), _composed(text, None)
    assert [(i, p.message, p.line, p.column, type(p)) for i, p in c.problems] == [
        (i, p.message, p.line, p.column, type(p)) for i, p in python.problems
    ]
    assert [(d.index, d.pos) for d in c.documents] == [(d.index, d.pos) for d in python.documents]
    for mine, theirs in zip(c.documents, python.documents, strict=True):
        assert same_tree(mine.data, theirs.data) is None, same_tree(mine.data, theirs.data)
        assert _sharing(mine.data) == _sharing(theirs.data)


@needs_native
def test_every_fixture_and_corpus_file_builds_alike() -> None:
    files = _yaml_files()
    assert len(files) > 20
    for path in files:
        assert_same_as_python(path.read_bytes().decode("utf-8", errors="replace"))


HOSTILE = [
    "[" * 300 + "]" * 300 + "\n",  # past the nesting limit
    "a: " + "[" * 199 + "]" * 199 + "\n",  # just within it
    "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 7)),
    "&a [*a]\n",  # an alias inside its own anchor
    "a: &a {b: *a}\n",
    "a: [b\nc: {{ template }}\n",  # a key error, then a syntax error in the same document
    '{{ include "x" }}\n---\nok: 1\n',
    "k: v\x01\n",  # a character YAML does not allow
    "a: \ud800\n",  # text that is not UTF-8 encodable
    "{a: 1, a: 2}\n",
    "<<: [*undefined]\n",
    "a: &x [1]\nb:\n  <<: *x\n",  # a merge of a list of scalars
    "- &k key\n- {*k : 1, *k : 2}\n",
    "? &k [1]\n: v\n",
    "a: !!binary aGk=\nb: !!timestamp 2001-12-14\nc: !!null ''\nd: !!map {}\ne: !!seq []\n",
    "\xe9t\xe9: \u00fcber\nliste: [\u4e2d, \U0001f600]\n",
    "%YAML 1.1\n---\na: yes\n",
    "a: 1\n--- !tag\nb: 2\n... # end\n",
]


@needs_native
@pytest.mark.parametrize("text", EDGE_CASES + HOSTILE)
def test_edge_cases_and_hostile_text_build_alike(text: str) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:  # neither builder takes it: both raise the same error
        with pytest.raises(UnicodeEncodeError):
            _composed(text, NATIVE)
        with pytest.raises(UnicodeEncodeError):
            _composed(text, None)
        return
    assert_same_as_python(text)


@needs_native
@settings(max_examples=300, deadline=None)
@given(_VALUES, _VALUES, st.booleans(), st.sampled_from(["", "---\n", "a: [\n", "&x 1\n*y\n"]))
def test_generated_documents_build_alike(
    shared: object, other: object, flow: bool, tail: str
) -> None:
    text = _block_yaml({"shared": shared, "again": [shared, other], "other": other}, flow)
    assert_same_as_python(text)
    assert_same_as_python(text + "---\n" + text + tail)


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab:-[]{}&*!|>'\"#<?,\n \t~1.", max_size=40))
def test_arbitrary_text_builds_alike_or_fails_alike(text: str) -> None:
    assert_same_as_python(text)
