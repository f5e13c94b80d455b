"""Code actions on a run's findings, each edit made by the editors and checked as
`k8slb fix` checks what it writes, so an edit they refuse is never offered:

- a finding's fix (`fixing/suggest.py`, as SARIF carries it): a `quickfix`, preferred
  when safe, its title ending "(unsafe)" when it needs review;
- "suppress here": the comment `check --add-noqa` writes (`fixing/noqa.py`);
- `source.fixAll.k8slb`: `k8slb fix` of the file's safe fixes, every pass of it.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence

from k8slb.core.findings import Finding
from k8slb.fixing.noqa import add_noqa
from k8slb.fixing.suggest import Replacement, changed_span, suggestions
from k8slb.interface.lsp.positions import Text, uri_of
from k8slb.interface.lsp.state import Workspace
from k8slb.reading.charts import unpack
from k8slb.reading.encodings import UTF8, codec_for
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.k8slb"

Found = tuple[types.Diagnostic, Finding]


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the client asked for actions of `kind` (LSP: a kind asked for takes in the
    kinds below it, `source` takes in `source.fixAll.k8slb`)."""
    return only is None or any(kind == o or kind.startswith(f"{o}.") for o in only)


def _edit(
    workspace: Workspace, pieces: Sequence[Replacement], codec: PositionCodec
) -> types.WorkspaceEdit | None:
    """Replacements (character offsets in the text as judged) as a workspace edit; None
    when a file's text cannot be had any more."""
    by_path: dict[str, list[Replacement]] = defaultdict(list)
    for piece in pieces:
        by_path[piece.path].append(piece)
    changes: dict[str, list[types.TextEdit]] = {}
    for path, mine in by_path.items():
        text = workspace.text_of(path)
        if text is None:
            return None
        located = Text(path, text, codec)
        changes[uri_of(path)] = [
            types.TextEdit(range=located.range(p.start, p.end), new_text=p.text)
            for p in sorted(mine, key=lambda p: p.start)
        ]
    return types.WorkspaceEdit(changes=changes)


def fixes(
    workspace: Workspace, found: Sequence[Found], codec: PositionCodec
) -> list[types.CodeAction]:
    """Each finding's fix, where the editors make it and it reads back as intended."""
    assert workspace.result is not None
    findings = [f for _, f in found]
    made = suggestions(findings, dict(workspace.result.contents))
    actions = []
    for index, (diagnostic, finding) in enumerate(found):
        if index not in made:
            continue
        edit = _edit(workspace, made[index], codec)
        if edit is None:
            continue
        title = f"{finding.rule}: {finding.fix.description or 'fix it'}"
        actions.append(
            types.CodeAction(
                title=title if finding.fix.safe else f"{title} (unsafe)",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=edit,
                is_preferred=finding.fix.safe,
            )
        )
    return actions


def suppressions(
    workspace: Workspace, found: Sequence[Found], codec: PositionCodec
) -> list[types.CodeAction]:
    """ "Suppress here" for each finding a comment can silence where it stands."""
    assert workspace.result is not None
    actions = []
    for diagnostic, finding in found:
        added = add_noqa([finding], dict(workspace.result.contents), "comment")
        new = added.text.get(finding.path)
        if added.refused or new is None:
            continue
        old = workspace.text_of(finding.path)
        codec_of_file = codec_for(finding.path, new) or UTF8
        if old is None:
            continue
        piece = changed_span(finding.path, old, codec_of_file.decode(new))
        edit = _edit(workspace, [piece], codec)
        if edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"{finding.rule}: suppress here (# k8slb: ignore[{finding.rule}])",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=edit,
                )
            )
    return actions


def has_safe_fix(found: Sequence[Found]) -> bool:
    return any(f.fix.safe and f.edits for _, f in found)


def fix_all_action(
    data: object = None, edit: types.WorkspaceEdit | None = None
) -> types.CodeAction:
    return types.CodeAction(
        title="k8slb: fix all safe fixes in this file",
        kind=FIX_ALL,
        edit=edit,
        data=data,
    )


def fix_all(workspace: Workspace, path: str, codec: PositionCodec) -> types.WorkspaceEdit | None:
    """`k8slb fix` of the file's safe fixes, as the edit of each file it changes (the file,
    or the chart template its findings were relocated to); None when nothing changes."""
    outcome = workspace.fix_file(path)
    if outcome is None or not outcome.fixed_text:
        return None
    pieces: list[Replacement] = []
    for changed, data in outcome.fixed_text.items():
        before = outcome.original[changed]
        chart = workspace.chart_named(changed)
        if chart is not None and chart.location is not None:  # packed: the files changed
            old_members, new_members = unpack(before), unpack(data)
            for member, new in new_members.items():
                if old_members.get(member) != new:
                    file = os.path.join(chart.location, member)
                    pieces += _pieces(file, old_members.get(member, b""), new)
        else:
            pieces += _pieces(changed, before, data)
    return _edit(workspace, pieces, codec) if pieces else None


def _pieces(path: str, before: bytes, after: bytes) -> list[Replacement]:
    codec = codec_for(path, before) or UTF8
    try:
        return [changed_span(path, codec.decode(before), codec.decode(after))]
    except UnicodeDecodeError:
        return []
