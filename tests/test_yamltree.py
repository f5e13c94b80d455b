"""Composing YAML into position-carrying data: every test here runs on both builders, the
C one (native/yamltree.c, where it was built) and the Python one, its fallback."""

from __future__ import annotations

import io
import json
import math
import resource
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from k8slb.reading import yamlcompose
from k8slb.reading.yamlcompose import C_LOADER, MAX_EXPANDED_NODES, _compose, compose
from k8slb.reading.yamltree import YMap, YSeq
from ruamel.yaml import YAML

from .helpers import CORPUS, FIXTURES
from .yaml_reference import reference_compose


@pytest.fixture(autouse=True, params=["c", "python"])
def builder(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The builder a test runs on (composed texts are remembered: not across builders)."""
    if request.param == "c" and yamlcompose._native is None:
        pytest.skip("the C builder was not built here")
    if request.param == "python":
        monkeypatch.setattr(yamlcompose, "_native", None)
    monkeypatch.setattr(yamlcompose, "_COMPOSED", {})
    return str(request.param)


def test_positions_are_one_based_for_keys_values_and_items() -> None:
    result = compose("a: 1\nlist:\n  - x\n  - {k: v}\n")
    (doc,) = result.documents
    assert isinstance(doc.data, YMap)
    assert doc.data.pos == (1, 1)
    assert doc.data.key_pos["list"] == (2, 1)
    assert doc.data.value_pos["a"] == (1, 4)
    items = doc.data["list"]
    assert isinstance(items, YSeq)
    assert items.item_pos == [(3, 5), (4, 5)]
    assert items[1].key_pos["k"] == (4, 6)


def test_scalars_follow_yaml_1_2_core_types() -> None:
    (doc,) = compose(
        'i: 8080\nq: "8080"\nb: true\nyes_is_text: yes\nn: ~\nf: 0.5\nh: 0x1F\n'
    ).documents
    assert doc.data == {
        "i": 8080,
        "q": "8080",
        "b": True,
        "yes_is_text": "yes",
        "n": None,
        "f": 0.5,
        "h": 31,
    }


def test_every_document_counts_including_empty_ones() -> None:
    result = compose("a: 1\n---\n---\n# only a comment\n---\nb: 2\n")
    assert [d.index for d in result.documents] == [0, 1, 2, 3]
    assert [d.data for d in result.documents] == [{"a": 1}, None, None, {"b": 2}]


def test_aliases_are_shared_and_merge_keys_apply() -> None:
    (doc,) = compose("base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n").documents
    assert doc.data["use"] is doc.data["base"]
    assert doc.data["merged"] == {"x": 1, "y": 3}
    assert doc.data["merged"].value_pos["y"] == (5, 6)


def test_a_broken_document_does_not_hide_the_others() -> None:
    result = compose("a: 1\n---\nb: [1\n---\nc: 3\n")
    assert [(d.index, d.data) for d in result.documents] == [(0, {"a": 1}), (2, {"c": 3})]
    ((index, problem),) = result.problems
    assert index == 1
    assert problem.line == 4  # where the parser noticed the missing `]`


def test_duplicate_keys_are_a_problem_with_their_position() -> None:
    ((_, problem),) = compose("name: a\nname: b\n").problems
    assert "duplicate key 'name'" in problem.message
    assert (problem.line, problem.column) == (2, 1)


def test_an_alias_bomb_is_refused_quickly_and_in_little_memory() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    result = compose("\n".join(lines) + "\n")
    assert time.process_time() - started < 5  # a guard against a hang, not a benchmark
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB
    ((_, problem),) = result.problems
    assert "alias" in problem.message and f"{MAX_EXPANDED_NODES:,}" in problem.message
    assert result.documents == []


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    result = compose("[" * 5000 + "]" * 5000 + "\n")
    assert result.problems or result.documents


def _shape(node: YMap | YSeq) -> tuple[object, ...]:
    """A container's own part: its position, its keys' or items' positions, its keys."""
    if isinstance(node, YMap):
        return (node.pos, node.spots, list(node))
    return (node.pos, node.item_pos, len(node))


def same_tree(built: object, reference: object, where: str = "$") -> str | None:
    """Where two trees differ (values, kinds, key order, every position), or None."""
    if type(built) is not type(reference):
        return f"{where}: {type(built).__name__} vs {type(reference).__name__}"
    if isinstance(built, YMap | YSeq) and isinstance(reference, YMap | YSeq):
        if _shape(built) != _shape(reference):
            return f"{where}: {_shape(built)} vs {_shape(reference)}"
        if isinstance(built, YMap) and isinstance(reference, YMap):
            children = [(f"{where}.{k}", built[k], reference[k]) for k in built]
        else:
            children = [
                (f"{where}[{i}]", b, r)
                for i, (b, r) in enumerate(zip(built, reference, strict=True))
            ]
    else:
        nan = isinstance(built, float) and math.isnan(built) and math.isnan(reference)  # type: ignore[arg-type]
        return None if built == reference or nan else f"{where}: {built!r} vs {reference!r}"
    for child_where, b, r in children:
        difference = same_tree(b, r, child_where)
        if difference:
            return difference
    return None


def assert_matches_reference(text: str, *, pure: bool = False) -> None:
    """The event-driven builder and the composer-based reference read `text` alike: the
    same documents, trees and positions; problems at the same places."""
    built, reference = _compose(text, pure), reference_compose(text, pure=pure)
    assert [(i, p.line, p.column) for i, p in built.problems] == [
        (i, p.line, p.column) for i, p in reference.problems
    ]
    assert [(d.index, d.pos) for d in built.documents] == [
        (d.index, d.pos) for d in reference.documents
    ]
    for mine, theirs in zip(built.documents, reference.documents, strict=True):
        assert same_tree(mine.data, theirs.data) is None, same_tree(mine.data, theirs.data)


EDGE_CASES = [
    "",
    "---\n",
    "a: 1\n...\n---\nb: [x, 'y', \"z\"]\n",
    "base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n",
    "a: &a {k: 1}\nb: &b {k: 2, j: 3}\nc:\n  <<: [*a, *b]\n  z: 0\n",
    "k: &name key\n*name : value\n",
    "? complex\n: value\n1: one\n0x1F: hex\ntrue: yes\n~: nothing\n1.5: float\n",
    "a: !!str 1\nb: !!int '7'\nc: ! 8\nd: !custom x\ne: !!float '1e3'\nf: !!bool 'true'\n",
    "a: .inf\nb: -.Inf\nc: .NaN\nd: 1_000\ne: 0o17\nf: +12\ng: 2001-12-14\n",
    "list:\n- &item {name: a}\n- *item\n- - nested\n  - [1, 2]\n",
    "text: |\n  line one\n  line two\nfolded: >-\n  a\n  b\nplain: multi\n  line\n",
    "%YAML 1.2\n%TAG !e! tag:example.com,2000:\n---\na: !e!thing x\n",
    "a: 1\n---\nb: [1\n---\nc: 3\n",
    "name: a\nname: b\n",
    "a: *nope\n",
    "a: &x 1\nb: &x 2\nc: *x\n",
    "? [a]\n: 1\n",
    "m: &m {k: v}\n*m : 1\n",
    "merge:\n  <<: 1\n",
    '{{ include "x" }}\nmetadata:\n  name: {{ .Values.name }}\n',
    "a: 'it''s'\nb: \"tab\\tnewline\\n\\u00e9\"\nc: <<\nd: '<<'\n",
    "\ufeffkey: with a byte-order mark\n",
    "a:\r\n  b: crlf\r\n",
]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_the_event_builder_reads_edge_cases_as_the_composer_does(text: str) -> None:
    assert_matches_reference(text)


@pytest.mark.parametrize("text", EDGE_CASES)
def test_the_pure_parser_builds_the_same_trees(text: str) -> None:
    """Where ruamel.yaml.clib is missing the pure-Python parser sends the same events."""
    if "&x 1\nb: &x" in text:
        pytest.skip("the pure composer overrides a reused anchor where libyaml's refuses it")
    assert_matches_reference(text, pure=True)


def _yaml_files() -> list[Path]:
    files = sorted(FIXTURES.rglob("*.y*ml"))
    if CORPUS.is_dir():
        files += sorted(CORPUS.rglob("*.y*ml"))
    return files


def test_the_event_builder_reads_every_fixture_and_corpus_file_as_the_composer_does() -> None:
    """Real manifests (and the shared corpus of real-world files and other linters' test
    fixtures, where ../shared is present), broken ones included."""
    files = _yaml_files()
    assert len(files) > 20
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        try:
            assert_matches_reference(text)
        except AssertionError as error:
            raise AssertionError(f"{path}: {error}") from None


# libyaml and the pure-Python reader differ on control characters (NEL is a line break to
# one of them) and on a byte-order mark inside a line (a column to libyaml, none to
# ruamel's reader, so what follows it on the line is one column apart), which is not what
# this property is about.
_TEXT = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters="\ufeff")
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(_TEXT, max_size=8)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(_TEXT, min_size=1, max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def _block_yaml(value: object, flow: bool) -> str:
    """`value` as ruamel writes it: block or flow style, anchors and aliases where one
    object appears twice."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = flow
    out = io.StringIO()
    yaml.dump(value, out)
    return out.getvalue()


@pytest.mark.skipif(C_LOADER is None, reason="ruamel.yaml.clib is not installed")
@settings(max_examples=200, deadline=None)
@given(_VALUES, _VALUES, st.booleans())
# a key that is no scalar (`?!: []`), in the second document too: found at its own line
@example(shared=None, other={"0": None, "?!": []}, flow=True)
def test_generated_documents_build_as_the_composer_builds_them(
    shared: object, other: object, flow: bool
) -> None:
    text = _block_yaml({"shared": shared, "again": [shared, other], "other": other}, flow)
    assert_matches_reference(text)
    assert_matches_reference(text + "---\n" + text)


@settings(max_examples=100, deadline=None)
@given(_VALUES)
def test_the_c_and_pure_parsers_build_the_same_trees(value: object) -> None:
    text = "data: " + json.dumps(value, ensure_ascii=False) + "\n"
    fast, pure = compose(text), compose(text, pure=True)
    assert bool(fast.problems) == bool(pure.problems)
    assert [(d.index, d.pos) for d in fast.documents] == [(d.index, d.pos) for d in pure.documents]
    for mine, theirs in zip(fast.documents, pure.documents, strict=True):
        assert same_tree(mine.data, theirs.data) is None


@pytest.mark.skipif(C_LOADER is None, reason="ruamel.yaml.clib is not installed")
def test_no_parser_outlives_its_text_with_the_collector_off() -> None:
    """The CLI turns the garbage collector off: a parser kept alive by a cycle would keep
    libyaml's buffers too, some 15 KB a file (hundreds of MB on a big tree)."""
    import gc

    from k8slb.reading.yamlcompose import C_PARSER, c_nodes

    def parsers() -> int:
        return sum(1 for o in gc.get_objects() if isinstance(o, C_PARSER))

    gc.collect()
    gc.disable()
    try:
        before = parsers()
        for number in range(20):
            _compose(f"a: {number}\n", False)
            c_nodes(f"b: {number}\n")
        assert parsers() == before
    finally:
        gc.enable()


def test_a_pickled_tree_loads_as_the_same_tree_with_every_position() -> None:
    """The parse cache and the parallel parse carry trees as pickles."""
    import pickle

    text = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    for document in compose(text).documents:
        loaded = pickle.loads(pickle.dumps(document.data, protocol=pickle.HIGHEST_PROTOCOL))
        assert same_tree(loaded, document.data) is None
        assert loaded == document.data


def test_a_key_repeated_across_documents_is_one_string_and_pickles_once() -> None:
    """Keys are interned: a manifest repeats `name` and `metadata` in every document, and
    the cache stores (and loads) each such key once per file."""
    import pickle

    text = "".join(f"---\nmetadata: {{name: n{i}}}\n" for i in range(50))
    trees = [document.data for document in compose(text).documents]
    assert len({id(key) for tree in trees for key in tree}) == 1
    assert len({id(key) for tree in trees for key in tree["metadata"]}) == 1
    loaded = pickle.loads(pickle.dumps(trees, protocol=pickle.HIGHEST_PROTOCOL))
    assert len({id(key) for tree in loaded for key in tree["metadata"]}) == 1
    assert pickle.dumps(trees).count(b"metadata") == 1


@pytest.mark.skipif(C_LOADER is None, reason="ruamel.yaml.clib is not installed")
def test_libyaml_makes_the_events_that_take_one_call() -> None:
    """Composing relies on libyaml's parser making the one-call event classes (15% of the
    time it takes); without them every event would be converted."""
    assert yamlcompose._C_FLAT
    made = {e.__class__ for e in yamlcompose.parser_events("a: [b, {c: d}]\n")}
    assert set(yamlcompose._FLAT.values()) <= made


@pytest.mark.skipif(C_LOADER is None, reason="ruamel.yaml.clib is not installed")
def test_libyamls_own_event_classes_are_converted_and_build_the_same_trees(
    monkeypatch: pytest.MonkeyPatch, builder: str
) -> None:
    """Should a ruamel.yaml.clib make its events otherwise, each is converted: the trees
    are those the one-call events build, every fixture's (and the corpus's)."""
    import sys

    if builder == "c":
        pytest.skip("events are the Python builder's")
    texts = [p.read_bytes().decode("utf-8", errors="replace") for p in _yaml_files()]
    expected = [yamlcompose._compose(text, False) for text in texts]
    module = sys.modules[yamlcompose.C_PARSER.__module__]
    for base in yamlcompose._FLAT:
        monkeypatch.setattr(module, base.__name__, base)
    monkeypatch.setattr(yamlcompose, "_C_FLAT", False)
    assert not any(
        e.__class__ in yamlcompose._FLAT.values()
        for e in iter(yamlcompose.C_PARSER("a: 1\n").get_event, None)
    )
    for text, before in zip(texts, expected, strict=True):
        after = yamlcompose._compose(text, False)
        assert [(d.index, d.pos) for d in after.documents] == [
            (d.index, d.pos) for d in before.documents
        ]
        for mine, theirs in zip(after.documents, before.documents, strict=True):
            assert same_tree(mine.data, theirs.data) is None
        assert [(i, p.message, p.line, p.column) for i, p in after.problems] == [
            (i, p.message, p.line, p.column) for i, p in before.problems
        ]


def test_the_one_call_events_hold_what_ruamels_own_hold() -> None:
    """Made from the same arguments, a one-call event and ruamel's have every slot alike."""
    arguments = {
        "ScalarEvent": ("a", "!t", (True, False), "v", 1, 2, '"'),
        "MappingStartEvent": ("a", "!t", True, 1, 2, True),
        "SequenceStartEvent": ("a", None, False, 1, 2, False),
        "MappingEndEvent": (1, 2),
        "SequenceEndEvent": (1, 2),
    }
    for base, flat in yamlcompose._FLAT.items():
        args = arguments[base.__name__]
        theirs, mine = base(*args), flat(*args)
        assert isinstance(mine, base)
        slots = yamlcompose._SLOTS[flat]
        assert {s: getattr(mine, s) for s in slots} == {s: getattr(theirs, s) for s in slots}
        assert yamlcompose._flat(theirs).__class__ is flat


# Plain scalars holding `:` inside flow collections, valid YAML 1.2 (production
# ns-plain-char: a `:` followed by a character that is safe in a plain scalar), which
# libyaml reads since 0.2.1 and PyYAML reads: an image with its tag, a URL.
COLON_IN_FLOW = {
    "containers: [{name: c, image: c:1}]\n": {"containers": [{"name": "c", "image": "c:1"}]},
    "links: [http://example.com/foo#bar, {url: https://e.org:8443/x}]\n": {
        "links": ["http://example.com/foo#bar", {"url": "https://e.org:8443/x"}]
    },
    "{a:b: c}\n": {"a:b": "c"},
}


@pytest.mark.parametrize("text", COLON_IN_FLOW)
@pytest.mark.parametrize("builder", ["c", "python"])
def test_a_colon_inside_a_flow_plain_scalar_is_valid_yaml(
    text: str, builder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both builders read it (through ruamel's pure parser, where libyaml's older rule, which
    both builders' parser has, stops), as PyYAML and libyaml 0.2.1 on do."""
    if builder == "python":
        monkeypatch.setattr(yamlcompose, "_native", None)
    elif yamlcompose._native is None:
        pytest.skip("the C builder is not compiled here")
    monkeypatch.setattr(yamlcompose, "_COMPOSED", {})
    composed = compose(text)
    assert composed.problems == []
    assert _plain(composed.documents[0].data) == COLON_IN_FLOW[text]
    assert YAML(typ="safe", pure=True).load(text) == COLON_IN_FLOW[text]


@pytest.mark.parametrize("builder", ["c", "python"])
def test_a_colon_before_a_flow_indicator_stays_an_error_in_both_builders(
    builder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if builder == "python":
        monkeypatch.setattr(yamlcompose, "_native", None)
    monkeypatch.setattr(yamlcompose, "_COMPOSED", {})
    ((_, problem),) = compose("{a:, b: 1}\n").problems
    assert (problem.message, problem.line, problem.column) == ("found unexpected ':'", 1, 3)


def _plain(value: object) -> object:
    if isinstance(value, YMap):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, YSeq):
        return [_plain(v) for v in value]
    return value
