"""A Go channel made by a factory that hands it to its callers (facts.Channel.kept_by),
judged program by program: each Go program (a package no scanned file imports, with what
it links in: projects.GoPackages.programs) whose own calls of the factory each close what
they get before they return makes a channel per call, whatever another program that
links the same factory in does with it. Where the programs that call it disagree, the
channel is two: one made per call, for the programs that close it, and one kept, for
those that keep it, each with the target its programs' calls pass (a parameter's
callers read among their files only) and the programs it stands for (Channel.programs),
which the dialers look for among the containers that run its code.

Budgets: MAX_SPLITS channels a run are read so (past them a channel is judged over every
call, as one), and a module linked into more than MAX_PROGRAMS programs is not."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from k8slb.code.facts import Channel, CodeFacts

if TYPE_CHECKING:
    from k8slb.code.imported import _Resolver

MAX_SPLITS = 64  # channels resolved program by program a run
MAX_PROGRAMS = 256  # programs that link one module in, read one by one


def program_channels(
    resolver: _Resolver, importer: CodeFacts, channel: Channel, closes: list[tuple[CodeFacts, bool]]
) -> list[Channel] | None:
    """The channel as the programs that close it per call make it, and as those that keep
    it do; None when no program's calls all close it, or a call that keeps it is in no
    program that links the channel's module in (judged over every call)."""
    path = os.path.normpath(importer.path)
    programs = [files for files in resolver.go_packages().programs() if path in files]
    if not programs or len(programs) > MAX_PROGRAMS:
        return None
    per_call: list[list[str]] = []
    kept: list[list[str]] = []
    placed: set[str] = set()
    for files in programs:
        members = set(files)
        placed |= members
        found = {closed for module, closed in closes if os.path.normpath(module.path) in members}
        if found == {True}:
            per_call.append(files)
        elif found:
            kept.append(files)
    unplaced = any(not c and os.path.normpath(m.path) not in placed for m, c in closes)
    if not per_call or unplaced:
        return None
    found_channels = _within(resolver, importer, replace(channel, long_lived=False), per_call)
    if kept:
        found_channels += _within(resolver, importer, replace(channel, long_lived=True), kept)
    return found_channels


def _within(
    resolver: _Resolver, importer: CodeFacts, channel: Channel, programs: list[list[str]]
) -> list[Channel]:
    """The channel resolved with only these programs' calls (a parameter's callers among
    their files), in caches of its own: what the run's caches hold was joined over all."""
    saved = resolver.resolved, resolver.exported, resolver.within
    resolver.resolved, resolver.exported = {}, {}
    resolver.within = frozenset(path for files in programs for path in files)
    try:
        named = replace(channel, programs=tuple(files[0] for files in programs if files))
        return resolver.resolved_channel(importer, named)
    finally:
        resolver.resolved, resolver.exported, resolver.within = saved
