"""The C builder (native/yamltree.c) builds exactly what the Python builder builds: the same
documents, trees, positions, shared aliases and problems (message, line, column, kind), on
every fixture, the corpus, generated documents and hostile text. And the fixer's nodes made
in C (native/yamlnodes.c) are those ruamel's C composer makes. Skipped where it was not
built (no compiler): k8slb then uses the Python builder, which test_yamltree.py checks, and
ruamel's composer."""

from __future__ import annotations

import contextlib
import gc
import os
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.reading import yamlcompose
from k8slb.reading.yamlcompose import ComposeResult, YAMLProblem, _compose
from k8slb.reading.yamltree import YMap, YSeq
from ruamel.yaml.composer import ComposerError
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

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


# -- the fixer's nodes (native/yamlnodes.c) are ruamel's C composer's ---------------------


def _ruamel_nodes(text: str) -> list[Node]:
    saved = yamlcompose._native
    yamlcompose._native = None
    try:
        return yamlcompose.c_nodes(text)
    finally:
        yamlcompose._native = saved


def _node_rows(roots: list[Node]) -> list[tuple[object, ...]]:
    """Every node with what the fixer can read of it (class, tag, value or style, marks,
    comment, anchor), and where an alias reaches a node seen before."""
    first: dict[int, str] = {}
    rows: list[tuple[object, ...]] = []

    def at(mark: Any) -> tuple[int, int, int] | None:
        return None if mark is None else (mark.index, mark.line, mark.column)

    def walk(node: Node, path: str) -> None:
        if id(node) in first:
            rows.append((path, "the node of", first[id(node)]))
            return
        first[id(node)] = path
        row = (path, type(node), node.tag, at(node.start_mark), at(node.end_mark))
        row += (node.comment, node.anchor)
        if isinstance(node, ScalarNode):
            rows.append((*row, node.value, node.style))
            return
        rows.append((*row, node.flow_style, len(node.value)))
        if isinstance(node, MappingNode):
            assert node.merge is None
            for n, (key, value) in enumerate(node.value):
                walk(key, f"{path}.key{n}")
                walk(value, f"{path}.value{n}")
        else:
            for n, item in enumerate(node.value):
                walk(item, f"{path}[{n}]")

    for n, root in enumerate(roots):
        walk(root, f"${n}")
    return rows


def assert_same_nodes_as_ruamel(text: str) -> None:
    """The same nodes, or both refuse the text (an error either way; the messages of the
    composer's own errors differ: ruamel's name no line)."""
    try:
        theirs = _node_rows(_ruamel_nodes(text))
    except YAMLError as error:
        with pytest.raises((YAMLError, YAMLProblem)) as mine:
            NATIVE.nodes(text)
        if not isinstance(error, ComposerError):  # the parser's errors are libyaml's: alike
            assert str(mine.value) == str(error)
        return
    assert _node_rows(NATIVE.nodes(text)) == theirs


@needs_native
def test_the_fixers_nodes_are_ruamels_on_every_fixture_and_corpus_file() -> None:
    for path in _yaml_files():
        assert_same_nodes_as_ruamel(path.read_bytes().decode("utf-8", errors="replace"))


NODE_CASES = [
    "a: 'single'\nb: \"double\"\nc: |\n  literal\nd: >-\n  folded\ne: plain\n",
    "a: ! tagged\nb: !!str 1\nc: !custom {x: 1}\nd: !!seq [1]\ne: 1\nf: 1.5\ng: ~\nh:\n",
    "a: &x {b: 1}\nc: *x\nd: [*x, *x]\n",
    "? [complex, key]\n: value\n? {flow: key}\n: v\n",
    "\ufeffbom: 1\n",
    "---\n...\n---\n# only a comment\n",
    "a: &x 1\nb: &x 2\n",  # an anchor defined twice: both refuse
    "a: &x [1]\nb: &x {c: 2}\n",  # ...on collections
    "a: *nowhere\n",
    "a: [unclosed\n",
]


@needs_native
@pytest.mark.parametrize("text", EDGE_CASES + NODE_CASES + HOSTILE[1:3] + HOSTILE[5:])
def test_the_fixers_nodes_are_ruamels_on_edge_cases(text: str) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:
        return  # the fixer only reads text it decoded
    assert_same_nodes_as_ruamel(text)


@needs_native
@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("[" * 300 + "]" * 300 + "\n", "nesting deeper than 200 levels"),
        ("&a [*a]\n", "the alias *a is inside its own anchor"),
        ("a: &a {b: *a}\n", "the alias *a is inside its own anchor"),
    ],
)
def test_the_fixers_nodes_refuse_what_the_check_refuses(text: str, refusal: str) -> None:
    """Where ruamel's composer would recurse past any limit, or make a node that holds
    itself, the fixer's nodes are refused, as the check refuses those documents."""
    with pytest.raises(YAMLProblem, match=re.escape(refusal)):
        NATIVE.nodes(text)


@needs_native
@settings(max_examples=300, deadline=None)
@given(_VALUES, _VALUES, st.booleans())
def test_the_fixers_nodes_are_ruamels_on_generated_documents(
    shared: object, other: object, flow: bool
) -> None:
    text = _block_yaml({"shared": shared, "again": [shared, other], "other": other}, flow)
    assert_same_nodes_as_ruamel(text + "---\n" + text)


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab:-[]{}&*!|>'\"#<?,\n \t~1.", max_size=40))
def test_the_fixers_nodes_are_ruamels_on_arbitrary_text(text: str) -> None:
    if "*" in text and "&" in text:  # an alias inside its own anchor: refused on purpose
        try:
            NATIVE.nodes(text)
        except YAMLProblem as problem:
            if "inside its own anchor" in problem.message:
                return
        except YAMLError:
            pass
    assert_same_nodes_as_ruamel(text)


@needs_native
@pytest.mark.parametrize("text", [*NODE_CASES, *HOSTILE[:7], "a: &x [1]\nb: &x [2]\n"])
def test_building_or_refusing_a_text_keeps_nothing(text: str) -> None:
    """Each builder, on what it builds and on what it refuses, lets go of every object it
    made: a reference kept on an error path would grow a long run (a server's) a node at a
    time."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return

    def build_many() -> None:
        for _ in range(300):
            for build in (NATIVE.nodes, lambda t: NATIVE.documents(t, 0)):
                with contextlib.suppress(YAMLError, YAMLProblem):
                    build(text)

    build_many()  # the caches of tags and typed scalars are filled by now
    gc.collect()
    before = sys.getallocatedblocks()
    build_many()
    gc.collect()
    assert sys.getallocatedblocks() - before < 100
