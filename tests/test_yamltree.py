"""Composing YAML into position-carrying data."""

from __future__ import annotations

import resource
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.reading.yamltree import C_LOADER, MAX_EXPANDED_NODES, YMap, YSeq, compose


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


# libyaml and the pure-Python reader differ on control characters (NEL is a line break to
# one of them), which is not what this property is about.
_TEXT = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"))


@pytest.mark.skipif(C_LOADER is None, reason="ruamel.yaml.clib is not installed")
@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(_TEXT, max_size=8),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(_TEXT, min_size=1, max_size=6), children, max_size=4)
        ),
        max_leaves=12,
    )
)
def test_c_and_pure_composers_agree(value: object) -> None:
    import json

    text = "data: " + json.dumps(value, ensure_ascii=False) + "\n"
    fast, pure = compose(text), compose(text, pure=True)
    assert bool(fast.problems) == bool(pure.problems)
    assert [d.data for d in fast.documents] == [d.data for d in pure.documents]
    assert [(d.data.key_pos, d.data.value_pos) for d in fast.documents] == [
        (d.data.key_pos, d.data.value_pos) for d in pure.documents
    ]
