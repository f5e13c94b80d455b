"""The YAML tree builder that `yamlcompose` replaced, kept as the reference it must agree with.

It composes each document into ruamel's node graph (the C composer, or the pure-Python one)
and walks the nodes, recursively: slower, but with the composer deciding every question of
anchors, aliases and tags. `test_yamltree.py` compares the event-driven builder with it,
tree for tree and position for position.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from k8slb.reading.yamlcompose import (
    C_LOADER,
    ComposeResult,
    YAMLProblem,
    _colon_in_flow_scalar,
    _problem_from,
    _split_documents,
    key_text,
    scalar_value,
)
from k8slb.reading.yamltree import Document, Pos, YMap, YSeq
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_MERGE = "tag:yaml.org,2002:merge"


def _pos(node: Node, line_offset: int) -> Pos:
    return (node.start_mark.line + 1 + line_offset, node.start_mark.column + 1)


class _Builder:
    def __init__(self, line_offset: int) -> None:
        self.line_offset = line_offset
        self.built: dict[int, Any] = {}

    def build(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):
            return scalar_value(str(node.tag), node.value)
        known = self.built.get(id(node))
        if known is not None:
            return known
        if isinstance(node, MappingNode):
            return self._mapping(node)
        assert isinstance(node, SequenceNode)
        seq = YSeq(_pos(node, self.line_offset))
        self.built[id(node)] = seq
        for item in node.value:
            seq.append(self.build(item))
            seq.item_pos.append(_pos(item, self.line_offset))
        return seq

    def _mapping(self, node: MappingNode) -> YMap:
        mapping = YMap(_pos(node, self.line_offset))
        self.built[id(node)] = mapping
        merged: list[YMap] = []
        for key_node, value_node in node.value:
            if str(key_node.tag) == _MERGE:
                nodes = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
                sources = [self.build(n) for n in nodes]
                if not all(isinstance(s, YMap) for s in sources):
                    raise YAMLProblem(
                        "a merge key (<<) needs a mapping", *_pos(value_node, self.line_offset)
                    )
                merged.extend(sources)
                continue
            if not isinstance(key_node, ScalarNode):
                raise YAMLProblem(
                    "a mapping key that is not a scalar", *_pos(key_node, self.line_offset)
                )
            key = key_text(self.build(key_node))
            if key in mapping.spots:
                raise YAMLProblem(f"duplicate key {key!r}", *_pos(key_node, self.line_offset))
            mapping[key] = self.build(value_node)
            mapping.spots[key] = _pos(key_node, self.line_offset) + _pos(
                value_node, self.line_offset
            )
        for source in merged:
            for key, value in source.items():
                if key not in mapping:
                    mapping[key] = value
                    mapping.spots[key] = source.spots[key]
        return mapping


def _nodes(text: str, pure: bool) -> Iterator[Node]:
    if pure or C_LOADER is None:
        yield from YAML(typ="safe", pure=True).compose_all(text)
        return
    loader = C_LOADER(text)  # lazily, node by node, as the composer-based builder read
    try:
        while loader.check_node():
            yield loader.get_node()
    finally:
        loader.dispose()
        vars(loader).clear()


def _documents_of(text: str, line_offset: int, pure: bool) -> list[tuple[Any, Pos]]:
    try:
        return [
            (_Builder(line_offset).build(node), _pos(node, line_offset))
            for node in _nodes(text, pure)
        ]
    except YAMLError as error:
        problem = _problem_from(error, text, line_offset)
    # the builders' one departure from libyaml: a colon inside a flow plain scalar
    if pure or not _colon_in_flow_scalar(text, line_offset, problem):
        raise problem
    try:
        return _documents_of(text, line_offset, True)
    except YAMLProblem:
        raise problem from None


def reference_compose(text: str, *, pure: bool = False) -> ComposeResult:
    """`yamlcompose.compose` as the node-based builder computes it (no alias-bomb or depth
    limits: give it only documents of ordinary size)."""
    try:
        parsed = _documents_of(text, 0, pure)
        return ComposeResult([Document(i, d, p) for i, (d, p) in enumerate(parsed)], [])
    except YAMLProblem:
        pass
    documents: list[Document] = []
    problems: list[tuple[int, YAMLProblem]] = []
    for offset, piece in _split_documents(text):
        try:
            pieces = _documents_of(piece, offset, pure)
        except YAMLProblem as problem:
            problems.append((len(documents) + len(problems), problem))
            continue
        for data, pos in pieces:
            documents.append(Document(len(documents) + len(problems), data, pos))
    return ComposeResult(documents, problems)
