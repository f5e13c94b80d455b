"""Which module each container starts, when the code of one image serves several
containers that each run another entry point (`command: [node, ./dist/web.js]` beside the
image's `CMD node ./dist/server.js`): a link gives each of them the whole program, but a
container runs its own entry module, not the ones the others start. The rules that judge
a container by its code (sigterm-never-reaches-server, grpc-no-graceful-shutdown) ask
here, so that a server one container starts is neither another's nor named as another's."""

from __future__ import annotations

import bisect
import os
import weakref
from collections.abc import Iterable

from k8slb.code.entry_points import bundled_files, compiled_sources, container_argv, entry_of
from k8slb.code.facts import CodeFacts
from k8slb.model.links import CodeLinks, Link
from k8slb.reading.build_files import OUTPUT_FOLDERS


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


# How many of a package.json's scripts are read for a bundler's command.
MAX_BUILD_SCRIPTS = 200


def built_source(links: CodeLinks, link: Link, script: str) -> str | None:
    """The scanned module the file a Node command runs is built from, where the build
    says so: the file's path in the build context (through the Dockerfile's COPYs, a
    builder stage's output too: `COPY --from=build /app/dist .` then `node index.js` is
    `dist/index.js` of the folder copied into the build stage), placed under the linked
    folder from each folder above it that may be the context; then a bundler's command in
    the package.json above that file which writes it (`esbuild src/server.ts
    --outfile=dist/index.js`: code/entry_points.bundled_files), or tsc's output folder
    beside the source (`dist/server.js` from `server.ts` or `src/server.ts` of the same
    package). None when no build names one, or several are named."""
    folder = os.path.normpath(link.folder)
    paths: list[str] = []
    dockerfile = link.dockerfile
    if dockerfile is not None:
        in_image = os.path.normpath(os.path.join(dockerfile.workdir, script))
        paths += dockerfile.built_sources_of(in_image)[:1] + dockerfile.sources_of(in_image)[:1]
    paths.append(script)
    contexts = [folder]  # the folder, and each one above it (to the top, or `/`)
    while (above := os.path.dirname(contexts[-1]) or ".") != contexts[-1]:
        contexts.append(above)
    found: set[str] = set()
    for path in paths:
        if "$" in path or os.path.isabs(path):
            continue
        for context in contexts:
            built = os.path.normpath(os.path.join(context, path))
            if built.startswith(".."):
                continue
            if within(built, folder):
                found |= _sources_of_built(links, built)
            # a workspace's build writes outside the project (`dist/apps/web` of an Nx
            # workspace): what it is made from must be the linked folder's
            found |= {s for s in _bundled_by_nx(links, built) if within(s, folder)}
    return found.pop() if len(found) == 1 else None


def _sources_of_built(links: CodeLinks, built: str) -> set[str]:
    """The scanned modules a file of the tree (one the build writes) is made from, as the
    package.json nearest above it says (a bundler's command), or as tsc writes its output
    folder (`dist/` of the package mirrors the package, or its `src/`)."""
    found: set[str] = set()
    packages = links.packages
    package = os.path.dirname(built) or "."
    while package not in packages and (os.path.dirname(package) or ".") != package:
        package = os.path.dirname(package) or "."
    if package not in packages:
        return found
    written = os.path.relpath(built, package)
    scripts = list(packages[package].scripts.values())[:MAX_BUILD_SCRIPTS]
    for command in scripts:
        for entry, output in bundled_files(command):
            if output == written:
                found.add(os.path.normpath(os.path.join(package, entry)))
    found |= {
        os.path.normpath(os.path.join(package, tail))
        for tail in compiled_sources(written)
        if written.split(os.sep, 1)[0] in OUTPUT_FOLDERS
    }
    return {path for path in found if path in links.modules}


# What a bundler names the file it writes into its output folder (webpack's `main.js`)
_BUNDLE_NAMES = ("main.js", "index.js")


def _bundled_by_nx(links: CodeLinks, built: str) -> set[str]:
    """The scanned modules an Nx project.json builds the file (or folder) `built` from:
    a target whose `outputPath` is that folder, or the folder of a `main.js` or
    `index.js` node runs (or one named as the entry), names its `main`."""
    outputs = _nx_outputs(links)
    name = os.path.basename(built)
    found = {source for source, _ in outputs.get(built, ())}
    for source, stem in outputs.get(os.path.dirname(built) or ".", ()):
        if name in (*_BUNDLE_NAMES, f"{stem}.js"):
            found.add(source)
    return found


_OUTPUTS: weakref.WeakKeyDictionary[CodeLinks, dict[str, set[tuple[str, str]]]] = (
    weakref.WeakKeyDictionary()
)


def _nx_outputs(links: CodeLinks) -> dict[str, set[tuple[str, str]]]:
    """Each Nx output folder, with the scanned entry modules built into it and their
    names' stems, made once a run: a project.json's `main` and `outputPath` are from the
    workspace's top, taken to be the folder above the file (or its own) where `main` is a
    scanned module (each file's folders walked up once a target)."""
    made = _OUTPUTS.get(links)
    if made is not None:
        return made
    made = {}
    for place, bundles in links.bundles.items():
        for main, output in bundles:
            top = place
            while True:  # the project's folder, then each above it (as deep as its path)
                source = os.path.normpath(os.path.join(top, main))
                if source in links.modules:
                    out = os.path.normpath(os.path.join(top, output))
                    stem = os.path.splitext(os.path.basename(main))[0]
                    made.setdefault(out, set()).add((source, stem))
                    break
                if top in (".", "", os.sep):
                    break
                top = os.path.dirname(top) or "."
    _OUTPUTS[links] = made
    return made


def command_line(link: Link) -> list[object]:
    """The container's command line: its command and args over its Dockerfile's
    ENTRYPOINT and CMD, composed as Kubernetes does."""
    body = link.container.body
    command, args = body.get("command"), body.get("args")
    dockerfile = link.dockerfile
    return container_argv(
        command if isinstance(command, list) and command else None,
        args if isinstance(args, list) and args else None,
        dockerfile.entrypoint if dockerfile is not None else None,
        dockerfile.cmd if dockerfile is not None else None,
    )


# ASGI servers that handle SIGTERM themselves: they run the application's lifespan
# shutdown, then end the event loop, cancelling the tasks still on it (uvicorn's
# Server.handle_exit, hypercorn's shutdown trigger; gunicorn's uvicorn workers too).
_ASGI_SERVERS = frozenset({"uvicorn", "hypercorn"})


def signal_owner(code: list[CodeFacts], link: Link) -> str | None:
    """What handles SIGTERM for the Python application a container runs, when it is not
    the application's own handler: the ASGI server its command line runs (`uvicorn
    app.main:app`), or a call in its code that runs a server with a handler of its own
    (`uvicorn.run`, aiohttp's `web.run_app`); None when neither."""
    entry = entry_of(command_line(link))
    words = entry.words.split() if entry is not None and not entry.node else []
    program = os.path.basename(words[0]) if words else ""
    if program in _ASGI_SERVERS:
        return program
    if program == "gunicorn" and any("uvicorn" in word for word in words):
        return "gunicorn's uvicorn workers"
    runs = next((loc for module in code for loc in module.signal_servers), None)
    return f"the server run at {runs.path}:{runs.line}" if runs is not None else None


def started(links: CodeLinks, link: Link) -> str | None:
    """The module the container's command line starts: the link's entry, else the source
    of the compiled Node script it runs; None when neither is known."""
    if link.entry is not None:
        return os.path.normpath(link.entry)
    entry = entry_of(command_line(link))
    if entry is None or not entry.node or entry.script is None:
        return None
    return compiled_source(links, link.folder, entry.script)


class Entries:
    """The entry module of every linked container, found when first asked, and the code
    each container runs once the entries other containers start are left out."""

    def __init__(self, links: CodeLinks) -> None:
        self.links = links
        # by each container's place (id(workload), position): links.placed()
        self._started: dict[tuple[int, int], str | None] | None = None
        # who starts each entry module, by the containers' places: each container's others
        # are looked up among its own modules, where a scan of every entry for every
        # container was quadratic (3,000 workloads judged: a third of a second)
        self._starters: dict[str, set[tuple[int, int]]] = {}

    def _entries(self) -> dict[tuple[int, int], str | None]:
        if self._started is None:
            self._started, renamed = {}, self.links.renamed
            # a link restored from the last run and not asked for is read as kept: a
            # pre-commit run reads no workload's body for the entries it knows
            for workload, position, _, entry, link in self.links.placed():
                if link is not None:  # (else `entry` is the module it starts, as kept)
                    entry = started(self.links, link)
                self._started[(id(workload), position)] = entry
            if self.links.renamed != renamed:  # some were not as kept: read them again
                self._started = None
                return self._entries()
            for key, entry in self._started.items():
                if entry is not None:
                    self._starters.setdefault(entry, set()).add(key)
        return self._started

    def others(self, link: Link) -> set[str]:
        """The modules of the container's code that other containers start and it does
        not: none when its own entry is unknown (it may be one of them)."""
        return self.others_among(link, link.modules)

    def others_among(self, link: Link, modules: Iterable[str]) -> set[str]:
        """Of `modules`, those that other containers start and this one does not (a
        program's modules its link left out, as those of a container whose command names
        another entry: it runs only what that entry loads); none when its own entry is
        unknown."""
        workload, position = self.links.place(link)
        key = (id(workload), position)
        own = self._entries().get(key)
        if own is None:
            return set()
        starters = self._starters
        return {
            module
            for module in set(modules)
            if module != own and starters.get(module, set()) - {key}
        }

    def code(self, link: Link) -> list[CodeFacts]:
        """The code the container runs (links.code), less the other containers' entries."""
        others = self.others(link)
        return [m for m in self.links.code(link) if os.path.normpath(m.path) not in others]

    def only_imported(self, facts: CodeFacts, line: int) -> bool:
        """Whether the line is in the module's `if __name__ == "__main__":` block while
        every container known to run the module (links by evidence, not a name alike)
        starts another entry module: Python runs that block only in the module run as the
        program (`python x.py`, `python -m pkg.x`), and the others import it. False where
        no container is known to run it, or one's entry is unknown or is this module."""
        # the blocks are top-level statements, in order and apart: the last one from line on
        at = bisect.bisect_right(facts.main_blocks, (line, float("inf"))) - 1
        if at < 0 or facts.main_blocks[at][1] < line:
            return False
        path = os.path.normpath(facts.path)
        runners = self.running(path)
        if not runners:
            return False
        for link in runners:
            if link.guessed:
                return False
            place = self.links.place(link)
            entry = self._entries().get((id(place[0]), place[1]))
            if entry is None or entry == path:
                return False
        return True

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
        # over a proxy of the links: an entry that held them would keep them (the run's
        # index, objects and trees) in `_MADE` for the rest of the process
        made = _MADE[links] = Entries(weakref.proxy(links))
    return made
