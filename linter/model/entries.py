"""Which module each container starts, when the code of one image serves several
containers that each run another entry point (`command: [node, ./dist/web.js]` beside the
image's `CMD node ./dist/server.js`): a link gives each of them the whole program, but a
container runs its own entry module, not the ones the others start. The rules that judge
a container by its code (sigterm-never-reaches-server, grpc-no-graceful-shutdown) ask
here, so that a server one container starts is neither another's nor named as another's."""

from __future__ import annotations

import os
import weakref

from k8slb.code.entry_points import compiled_sources, container_argv, entry_of
from k8slb.code.facts import CodeFacts
from k8slb.model.links import CodeLinks, Link


def within(path: str, folder: str) -> bool:
    """Whether a path is the folder or below it (every path is below `.`)."""
    return folder in ("", ".") or path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def compiled_source(links: CodeLinks, folder: str, script: str) -> str | None:
    """The one scanned module below `folder` that the compiled Node script (`node
    dist/apps/auth/main`) may be built from (code/entry_points.compiled_sources); None
    when none is, or several are."""
    tails = [os.sep + os.path.normpath(tail) for tail in compiled_sources(script)]
    if not tails:
        return None
    found = {
        path
        for path in links.modules
        if within(path, folder) and any((os.sep + path).endswith(tail) for tail in tails)
    }
    return found.pop() if len(found) == 1 else None


def started(links: CodeLinks, link: Link) -> str | None:
    """The module the container's command line starts: the link's entry, else the source
    of the compiled Node script it runs; None when neither is known."""
    if link.entry is not None:
        return os.path.normpath(link.entry)
    body = link.container.body
    command, args = body.get("command"), body.get("args")
    dockerfile = link.dockerfile
    entry = entry_of(
        container_argv(
            command if isinstance(command, list) and command else None,
            args if isinstance(args, list) and args else None,
            dockerfile.entrypoint if dockerfile is not None else None,
            dockerfile.cmd if dockerfile is not None else None,
        )
    )
    if entry is None or not entry.node or entry.script is None:
        return None
    return compiled_source(links, link.folder, entry.script)


class Entries:
    """The entry module of every linked container, found when first asked, and the code
    each container runs once the entries other containers start are left out."""

    def __init__(self, links: CodeLinks) -> None:
        self.links = links
        self._started: dict[int, str | None] | None = None

    def _entries(self) -> dict[int, str | None]:
        if self._started is None:
            self._started = {id(link): started(self.links, link) for link in self.links.links}
        return self._started

    def others(self, link: Link) -> set[str]:
        """The modules of the container's code that other containers start and it does
        not: none when its own entry is unknown (it may be one of them)."""
        entries = self._entries()
        own = entries.get(id(link))
        if own is None:
            return set()
        modules = set(link.modules)
        return {
            entry
            for key, entry in entries.items()
            if key != id(link) and entry is not None and entry != own and entry in modules
        }

    def code(self, link: Link) -> list[CodeFacts]:
        """The code the container runs (links.code), less the other containers' entries."""
        others = self.others(link)
        return [m for m in self.links.code(link) if os.path.normpath(m.path) not in others]

    def running(self, module_path: str) -> list[Link]:
        """The containers whose code includes the module, less those for which it is
        another container's entry."""
        path = os.path.normpath(module_path)
        return [link for link in self.links.running(path) if path not in self.others(link)]


_MADE: weakref.WeakKeyDictionary[CodeLinks, Entries] = weakref.WeakKeyDictionary()


def entries_of(links: CodeLinks) -> Entries:
    """The entries of a run's links, found once for every rule that asks."""
    made = _MADE.get(links)
    if made is None:
        made = _MADE[links] = Entries(links)
    return made
