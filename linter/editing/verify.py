"""The last guard of every fix: read the fixed text back and check that it says what the
old text said plus exactly the intended change, and nothing else.

Splicing text at parser positions is fast and keeps every byte, but a wrong position
(an alias, an unusual scalar, a parser quirk) would silently write a different manifest:
a key in another container, a Service cut in two, a duplicate key. So each YAML fix is
also made on the data, and the two must agree; each Python fix must still compile. A fix
that fails is refused and reported; the file is never written with it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from k8slb.core.edits import PROBE_HANDLERS, YamlEdit, prestop_hook
from k8slb.reading.yamlcompose import compose


def plain(data: Any) -> Any:
    """YAML data without positions, safe to change."""
    if isinstance(data, dict):  # a YMap too
        return {key: plain(value) for key, value in data.items()}
    if isinstance(data, list):  # a YSeq too
        return [plain(item) for item in data]
    return data


def _at(document: Any, target: Sequence[str | int]) -> Any:
    for step in target:
        document = document[step]
    return document


def _expected(documents: list[Any], edits: Sequence[YamlEdit]) -> list[Any]:
    """The old documents with the edits made on the data (each edited one is a plain copy
    of its own)."""
    result = documents
    twins: list[tuple[int, Any]] = []
    for edit in edits:
        if edit.op == "add-twin":
            twins.append((edit.document, edit.value["body"]))
            continue
        node = _at(result[edit.document], edit.target)
        if edit.op == "add-prestop":
            if not isinstance(node.get("lifecycle"), dict):
                node["lifecycle"] = {}
            node["lifecycle"]["preStop"] = prestop_hook(edit.value)
        elif edit.op == "set-grace":
            node["terminationGracePeriodSeconds"] = edit.value
        elif edit.op == "set-key":
            key, value = edit.value
            node[key] = value
        elif edit.op == "set-scalar":
            parent = _at(result[edit.document], edit.target[:-1])
            parent[edit.target[-1]] = edit.value
        elif edit.op == "liveness-tcp":
            probe = node["livenessProbe"]
            for handler in PROBE_HANDLERS:
                probe.pop(handler, None)
            probe["tcpSocket"] = {"port": edit.value}
        else:
            raise ValueError(f"unknown edit {edit.op!r}")
    for document, body in sorted(twins, key=lambda twin: twin[0], reverse=True):
        result.insert(document + 1, plain(body))
    return result


def yaml_fix_problem(old: str, new: str, edits: Sequence[YamlEdit]) -> str | None:
    """Why `new` is not `old` with `edits` made, or None when it is exactly that."""
    before, after = compose(old), compose(new)
    if after.problems:
        _, problem = after.problems[0]
        return f"the fixed text would not be valid YAML ({problem.message}, line {problem.line})"
    if before.problems:
        return "the file has a document that does not parse"
    # Only the documents an edit changes are copied (the others are compared as they are:
    # a composed tree is shared, never changed).
    edited = {e.document for e in edits if e.op != "add-twin"}
    try:
        expected = _expected(
            [plain(d.data) if n in edited else d.data for n, d in enumerate(before.documents)],
            edits,
        )
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        return "the place to edit is not where the finding was"
    # A YAML container equals the plain one with the same contents: no copy is needed.
    if [d.data for d in after.documents] != expected:
        return "the fixed text would change more than the fix (k8slb refuses to write it)"
    return None


def python_fix_problem(new: str, path: str) -> str | None:
    """Why the fixed Python source cannot be written: it must still compile."""
    try:
        with warnings.catch_warnings():  # the file's own `\d` escapes are not ours to report
            warnings.simplefilter("ignore")
            compile(new, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return f"the fixed code would not compile ({error})"
    return None
