"""`check --add-noqa`: silence every current finding where it is, so a team can turn k8slb
on today and fix the old findings later (ruff's `--add-noqa`).

Two styles: a `# k8slb: ignore[ID]` comment at the end of the finding's line (YAML and
Python; `// k8slb: ignore[ID]` in Go: codes already there are kept, new ones are added to
the same comment), or
(`--add-noqa=annotation`) the `k8slb.io/ignore` annotation on the object, which survives
tools that drop comments. The file is checked as a fix is: the YAML must hold exactly the
same data, the Python the same syntax tree, the Go the same tokens; a line where a comment
would change what the file says (inside a block scalar, after a `\\` continuation, in a
raw string) is refused and named.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from k8slb.core.edits import YamlEdit
from k8slb.core.findings import Finding
from k8slb.editing.verify import plain, yaml_fix_problem
from k8slb.fixing.fixer import apply_edits
from k8slb.languages import language_of, load
from k8slb.reading.build_files import is_build_file
from k8slb.reading.encodings import codec_for, file_bytes, source_lines
from k8slb.reading.markers import ANNOTATION, comment_pattern, split_codes
from k8slb.reading.yamlcompose import compose

# Findings that are not silenced in place: an unused suppression is removed, not ignored,
# and an unread file cannot be edited.
NOT_IN_PLACE = frozenset({"KLB005", "KLB006"})


@dataclass
class Added:
    text: dict[str, bytes] = field(default_factory=dict)  # the files that change
    comments: int = 0  # findings silenced by a comment
    annotations: int = 0  # findings silenced by an annotation
    refused: list[str] = field(default_factory=list)  # "path:line: why"


def _merged(codes: Iterable[str], new: Iterable[str], joiner: str = ", ") -> str:
    return joiner.join(dict.fromkeys([*codes, *sorted(new)]))


def _with_comment(line: str, codes: set[str], opener: str = "#", gap: str = "  ") -> str:
    """The line with the codes in its k8slb comment: added to one already there, or a new
    comment opened by `opener` after `gap` (what the language's formatter writes: two
    spaces in Python and YAML, as ruff and black, one in Go, as gofmt)."""
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    match = comment_pattern(opener).search(body)
    if match is not None and match.group("codes") is not None:
        start, end = match.span(1)  # the codes: comment_pattern's first group
        old = split_codes(match.group("codes"))
        return body[:start] + _merged(old, codes - set(old)) + body[end:] + ending
    comment = f"{opener} k8slb: ignore[{_merged((), codes)}]"
    return f"{body.rstrip()}{gap}{comment}{ending}"


def _unchanged(path: str, old: str, new: str) -> bool:
    language = language_of(path)
    if language is not None:
        same: bool = load(language.editor).same_code(old, new, path)
        return same
    return yaml_fix_problem(old, new, []) is None


def comment_lines(
    path: str, data: bytes, codes_by_line: dict[int, set[str]]
) -> tuple[bytes, list[int]]:
    """The file with a comment on each of those lines, and the lines refused. All comments
    are checked together; only when that fails is each line checked alone."""
    codec = codec_for(path, data)
    if codec is None:
        return data, sorted(codes_by_line)
    try:
        text = codec.decode(data)
    except UnicodeDecodeError:
        return data, sorted(codes_by_line)
    lines = source_lines(path, text, keepends=True)
    language = language_of(path)
    opener, gap = (language.comment, language.comment_gap) if language else ("#", "  ")
    wanted = {n: c for n, c in codes_by_line.items() if 0 < n <= len(lines)}
    refused = sorted(set(codes_by_line) - set(wanted))

    def commented(chosen: Iterable[int]) -> str:
        copy = list(lines)
        for number in chosen:
            copy[number - 1] = _with_comment(copy[number - 1], wanted[number], opener, gap)
        return "".join(copy)

    new = commented(wanted)
    if not _unchanged(path, text, new):
        kept = [n for n in sorted(wanted) if _unchanged(path, text, commented([n]))]
        refused = sorted({*refused, *(set(wanted) - set(kept))})
        new = commented(kept)
    try:
        return codec.encode(new), refused
    except UnicodeEncodeError:
        return data, sorted(codes_by_line)


def _object_body(text: str, document: int, item: int | None) -> tuple[Any, tuple[str | int, ...]]:
    """The object's mapping in the file's data, and its path from the document's root."""
    documents = compose(text).documents
    data = plain(documents[document].data) if document < len(documents) else None
    if item is None:
        return data, ()
    items = data.get("items") if isinstance(data, dict) else None
    return (items[item] if isinstance(items, list) and item < len(items) else None), ("items", item)


def _annotation_edits(path: str, text: str, findings: Sequence[Finding]) -> list[YamlEdit]:
    """One `k8slb.io/ignore` edit per object, naming every rule found on it, added to the
    codes the annotation names already (its reason after `;` kept)."""
    by_object: dict[tuple[int, int | None], set[str]] = defaultdict(set)
    for finding in findings:
        assert finding.object is not None
        by_object[(finding.object.document, finding.object.item)].add(finding.rule)
    edits = []
    for (document, item), codes in by_object.items():
        body, root = _object_body(text, document, item)
        metadata = body.get("metadata") if isinstance(body, dict) else None
        if not isinstance(metadata, dict):
            continue  # nothing to annotate: apply_edits would refuse it anyway
        annotations = metadata.get("annotations")
        existing = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
        old, _, reason = str(existing).partition(";") if existing is not None else ("", "", "")
        value = _merged(split_codes(old), codes - set(split_codes(old)), ",")
        value += f";{reason}" if reason else ""
        where = (*root, "metadata")
        if isinstance(annotations, dict):
            edits.append(
                YamlEdit(path, document, (*where, "annotations"), "set-key", (ANNOTATION, value))
            )
        else:
            edits.append(
                YamlEdit(path, document, where, "set-key", ("annotations", {ANNOTATION: value}))
            )
    return edits


def add_noqa(findings: Sequence[Finding], contents: dict[str, bytes], style: str) -> Added:
    """Every finding silenced in its file (the files read from disk where `contents` lacks
    them); nothing is written here."""
    added = Added()
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.rule not in NOT_IN_PLACE:
            by_file[finding.path].append(finding)
    for path, found in sorted(by_file.items()):
        if any(f.rendered is not None for f in found):  # a Helm template: no YAML to check
            added.refused += [
                f"{path}:{f.line}: a Helm template, which k8slb cannot check a comment in: "
                f"add `# k8slb: ignore[{f.rule}]` (or the annotation) there by hand"
                for f in found
            ]
            continue
        if is_build_file(os.path.basename(path)):
            # a Dockerfile: `#` opens a comment only at the start of a line, and k8slb
            # reads no suppression comment there
            added.refused += [
                f"{path}:{f.line}: no comment can silence a finding in this file: "
                f"list {f.rule} for it in the configuration's per-file-ignores"
                for f in found
            ]
            continue
        try:
            data = file_bytes(path, contents)
        except OSError as error:
            added.refused.append(f"{path}: cannot be read: {error.strerror or error}")
            continue
        annotated = [
            f
            for f in found
            if style == "annotation"
            and f.object is not None
            and language_of(path) is None  # an object's annotation: in a manifest, not code
        ]
        commented = [f for f in found if f not in annotated]
        lines: dict[int, set[str]] = defaultdict(set)
        for finding in commented:
            lines[finding.line].add(finding.rule)
        new, refused = comment_lines(path, data, lines) if lines else (data, [])
        added.refused += [
            f"{path}:{n}: a comment there would change what the file says" for n in refused
        ]
        added.comments += sum(1 for f in commented if f.line not in refused)
        if annotated:
            codec = codec_for(path, new)
            edits = _annotation_edits(path, codec.decode(new), annotated) if codec else []
            done, problems = apply_edits(new, edits) if edits else (new, ["nothing to annotate"])
            if problems:
                added.refused += [f"{path}: annotation not added: {p}" for p in problems]
            else:
                new = done
                added.annotations += len(annotated)
        if new != data:
            added.text[path] = new
    return added
