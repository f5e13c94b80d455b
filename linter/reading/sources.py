"""Find the files to lint: walk folders (honouring .gitignore), classify, read bytes."""

from __future__ import annotations

import dataclasses
import errno
import operator
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from k8slb.core.paths import folder_of_test_data
from k8slb.core.record import record
from k8slb.inputs import MANIFESTS, READERS, reader_of, reported
from k8slb.languages import language_of as code_language
from k8slb.reading.bounded import read_bounded
from k8slb.reading.git_index import Tracked, index_file, tracked_in
from k8slb.reading.kustomization import (
    KUSTOMIZATION_FILES,
    data_files,
    merge_patch_files,
    references,
)
from k8slb.reading.repository import git_top, inside, repository_of
from k8slb.reading.walks import Stamps, remember, remembered, walk_key

if TYPE_CHECKING:  # imported where a pattern is compiled: a one-file run may need none
    import pathspec

STDIN = "-"

# Folders no one keeps manifests in, skipped like ruff skips them.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        "site-packages",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".k8slb_cache",  # k8slb 0.1's cache, inside the tree; never read now
    }
)

# The kind of a source: a reader's (inputs/: plain YAML, a chart's folder, a kustomization's,
# a build file) or a language of code's (languages/: "python", "go")
Language = str


@record
class Source:
    """A file to lint. `path` is shown to the user; `location` (where it is read, as a
    string: a Path object each cost a monorepo's walk a fifth of its time) is None for
    stdin."""

    path: str
    language: Language
    location: str | None
    report: bool = True  # False: read for cross-file facts only (`--context`)
    unread: str | None = None  # why the file is listed but never read (KLB006)
    # the folder of a test's data it is in, below the folder named (core/paths.py's
    # folder_of_test_data): deployed by no tool, its findings are said at info
    test_data: str | None = None

    def read(self) -> bytes:
        """The bytes, at most MAX_FILE_BYTES of them: a named `/dev/zero` or a runaway
        stream is refused instead of filling the memory."""
        if self.location is None:
            return _bounded(sys.stdin.buffer)
        reader = reader_of(self.language)
        packed = reader.pack(self.location) if reader is not None else None
        if packed is not None:  # a folder read whole: its files, for the cache's keys
            return packed
        with open(self.location, "rb", buffering=0) as handle:  # see read_bounded
            return _bounded(handle)


MAX_FILE_BYTES = 256 * 1024 * 1024  # far above any manifest or module


def _bounded(handle: BinaryIO) -> bytes:
    data = read_bounded(handle, MAX_FILE_BYTES)
    if data is None:
        raise OSError(errno.EFBIG, f"larger than {MAX_FILE_BYTES // 2**20} MiB, not read")
    return data


@dataclass
class Discovery:
    sources: list[Source] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def language_of(name: str, *, explicit: bool) -> Language | None:
    """Folders contribute code in the languages k8slb reads (languages/) and the files a
    reader claims (inputs/: YAML files, the Dockerfiles and Tiltfiles that link code to
    containers); a file named on the command line is read as YAML unless it is one of
    those (like `ruff` lints what it is handed)."""
    code = code_language(name.lower())
    if code is not None:
        return code.name
    claimed = next((r.name for r in READERS.values() if r.claims_file(name)), None)
    return claimed or (MANIFESTS.name if explicit else None)


def named_kind(name: str) -> Language:
    """The kind of a file named on the command line (or read from stdin under `name`)."""
    return language_of(name, explicit=True) or MANIFESTS.name


def folder_kind(names: list[str], *, on_request: bool) -> Language | None:
    """The kind of a folder read whole (a chart, a kustomization when the run asks for
    those), by the names of its files; None for a folder walked file by file."""
    return next(
        (
            reader.name
            for reader in READERS.values()
            if (on_request or not reader.on_request) and reader.claims_folder(names)
        ),
        None,
    )


class _TrackedFiles:
    """What git tracks in the repository a walk is in, read from its index when a
    .gitignore first leaves a path out (reading/git_index.py), its stamp taken then."""

    def __init__(self, top: str | None, stamps: Stamps | None = None) -> None:
        self.top = top
        self.stamps = stamps
        self.read = False
        self.tracked: Tracked | None = None

    def hold(self, path: Path, *, is_dir: bool) -> bool:
        """Whether git tracks the file, or a file below the folder."""
        if self.top is None or not inside(str(path), self.top):
            return False
        if not self.read:
            self.read = True
            index = index_file(self.top)
            if index is not None and self.stamps is not None:
                self.stamps.add(index)  # the walk now rests on what the index says
            self.tracked = tracked_in(self.top)
        if self.tracked is None:
            return False
        relative = os.path.relpath(path, self.top).replace(os.sep, "/")
        return self.tracked.holds(relative, is_dir=is_dir)


class _IgnoreRules:
    """The .gitignore files that apply inside one folder, outermost first; they leave out
    untracked paths only, as git's do (`tracked`: what the index holds)."""

    def __init__(
        self,
        specs: tuple[tuple[Path, tuple[str, ...]], ...] = (),
        tracked: _TrackedFiles | None = None,
    ) -> None:
        self.specs = specs  # each .gitignore's folder and lines
        self.tracked = tracked or _TrackedFiles(None)

    def below(self, folder: Path) -> _IgnoreRules:
        lines = _read_gitignore(folder)
        return _IgnoreRules((*self.specs, (folder, lines)), self.tracked) if lines else self

    def ignores(self, path: Path, *, is_dir: bool) -> bool:
        verdict = False
        for base, lines in self.specs:  # like git, the innermost file that has a say wins
            relative = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
            spec = folder_patterns(lines) if is_dir else gitignore_patterns(lines)
            include = spec.check_file(relative).include
            if include is not None:
                verdict = include
        return verdict and not self.tracked.hold(path, is_dir=is_dir)


def _read_gitignore(folder: Path) -> tuple[str, ...]:
    try:
        lines = (folder / ".gitignore").read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    return tuple(lines)


def _rules_for(root: Path, stamps: Stamps | None = None) -> _IgnoreRules:
    """The .gitignore files of the repository above `root`, down to `root` itself."""
    absolute = root.resolve()
    repository = git_top(str(absolute))
    top = Path(repository or absolute)
    rules = _IgnoreRules(tracked=_TrackedFiles(repository, stamps))
    chain = [absolute, *absolute.parents]
    for folder in reversed(chain[: chain.index(top) + 1]):
        rules = rules.below(folder)
    return rules


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _link_problem(link: str, root: str) -> str | None:
    """Why the file a symbolic link found in a walk points to is not read, or None.
    Like git, which stores a link and never its target, k8slb reads only what the scanned
    tree holds: a link whose target stays inside the scanned folder."""
    target = os.path.realpath(link)
    if not os.path.exists(target):
        return f"a broken symbolic link (to {os.readlink(link)}): not read"
    if not _inside(target, root):
        return "a symbolic link to a file outside the scanned folder: not read"
    return _special_problem(os.stat(target).st_mode)


def _special_problem(mode: int) -> str | None:
    """Why a file of this mode is not read (a FIFO would block the run forever)."""
    if stat.S_ISREG(mode):
        return None
    kind = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}
    return f"{kind.get(stat.S_IFMT(mode), 'a device')}, not a regular file: not read"


Found = tuple[str, Language, str | None]  # (path as shown, language, why it is not read)


def _walk(
    root: str,
    exclude: Exclude | None,
    errors: list[str],
    kustomize: bool = False,
    walks: Path | None = None,
) -> Iterator[Found]:
    """The files under `root`, folders in sorted order, each folder's files first.
    Strings, not Path objects, on this hot path: a monorepo has thousands of files.
    `walks`: a cache's folder, where the walk is remembered by the stamps it rests on
    (walks.py) and taken back while they are as then."""
    base, shown = os.path.realpath(root), os.path.normpath(root)
    if walks is None:
        yield from _walk_folder(
            base, shown, base, _rules_for(Path(base)), exclude, errors, kustomize
        )
        return
    key = walk_key(base, shown, kustomize, exclude.sets if exclude is not None else None)
    kept = remembered(walks, key)
    if kept is not None:
        yield from kept
        return
    stamps = Stamps()
    stamps.add_folders_up_to(base, git_top(base))
    before = len(errors)
    found = list(
        _walk_folder(
            base, shown, base, _rules_for(Path(base), stamps), exclude, errors, kustomize, stamps
        )
    )
    if len(errors) == before:
        remember(walks, key, stamps, found)
    yield from found


_NAME = operator.attrgetter("name")


def _walk_folder(
    folder: str,
    shown_folder: str,
    base: str,
    rules: _IgnoreRules,
    exclude: Exclude | None,
    errors: list[str],
    kustomize: bool = False,
    stamps: Stamps | None = None,
) -> Iterator[Found]:
    if stamps is not None:  # taken before the listing: a change after it moves the stamp
        stamps.add(folder)
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=_NAME)
    except OSError as error:  # unreadable, or a path longer than the system allows
        errors.append(f"{shown_folder}: cannot read folder: {error.strerror or error}")
        return
    files = [e.name for e in entries if e.is_file(follow_symlinks=False)]
    whole = folder_kind(files, on_request=kustomize)
    if whole is not None and not _confirmed(whole, folder, stamps):
        whole = None  # named like one, but its contents say it is none: walked
    if whole is not None:  # rendered or built whole
        yield shown_folder, whole, None
        return
    if folder != base and any(e.name == ".gitignore" for e in entries):
        if stamps is not None:
            stamps.add_ignore_file(folder)
        rules = rules.below(Path(folder))
    folders = []
    prefix = "" if shown_folder == "." else os.path.join(shown_folder, "")  # as join would
    for entry in entries:
        name, path = entry.name, entry.path
        shown = prefix + name
        is_dir = entry.is_dir(follow_symlinks=False)
        language = None if is_dir else language_of(shown, explicit=False)
        if not is_dir and language is None:
            continue  # also folder links: never followed, like os.walk and git
        if stamps is not None and entry.is_symlink():
            stamps.trusted = False  # what is read, and left out, rests on its target
        if is_dir and name in SKIPPED_DIRS:
            continue
        if rules.specs and rules.ignores(Path(path), is_dir=is_dir):
            continue
        if exclude is not None and exclude.matches(Path(path), is_dir=is_dir):
            continue
        if is_dir:
            folders.append((path, shown))
        elif language is not None:
            try:  # the folder listing says which entries are regular files: no stat
                if entry.is_file(follow_symlinks=False):
                    problem = None
                elif entry.is_symlink():
                    problem = _link_problem(path, base)
                else:
                    problem = _special_problem(entry.stat(follow_symlinks=False).st_mode)
            except OSError as error:
                problem = f"cannot be examined: {error.strerror or error}: not read"
                if stamps is not None:
                    stamps.trusted = False
            yield shown, language, problem
    for path, shown in folders:
        yield from _walk_folder(path, shown, base, rules, exclude, errors, kustomize, stamps)


def _confirmed(kind: Language, folder: str, stamps: Stamps | None) -> bool:
    """Whether the folder a reader claims by its files' names is one by their contents."""
    reader = reader_of(kind)
    if reader is None:
        return True
    confirmed, rests_on = reader.confirms_folder(folder)
    if stamps is not None:
        for path in rests_on:
            stamps.add(path)
    return confirmed


@record
class Exclude:
    """Patterns of paths to leave out, in gitignore's syntax: each set relative to its own
    folder (the configuration's `exclude` to its folder, `--exclude` to the current one).
    A walk leaves out what they match; a file or folder named on the command line is
    left out too only when `forced` (`--force-exclude`, which the pre-commit hooks pass:
    pre-commit names every changed file)."""

    sets: tuple[tuple[tuple[str, ...], Path], ...]
    forced: bool = False

    def matches(self, path: Path, *, is_dir: bool) -> bool:
        resolved = path.resolve()
        for patterns, root in self.sets:
            try:
                relative = resolved.relative_to(root).as_posix()
            except ValueError:
                continue
            if relative == ".":
                continue  # the folder the patterns are relative to is never matched
            if gitignore_patterns(patterns).match_file(relative + ("/" if is_dir else "")):
                return True
        return False

    def excludes_named(self, path: Path) -> bool:
        """Whether a path named on the command line is left out: only when forced, when
        it or a folder above it matches."""
        if not self.forced:
            return False
        resolved = path.resolve()
        if self.matches(resolved, is_dir=resolved.is_dir()):
            return True
        return any(self.matches(parent, is_dir=True) for parent in resolved.parents)


def with_context(found: Discovery, context: Discovery) -> Discovery:
    """`found`, plus the files of `context` (discovered with `report=False`) it lacks,
    read for their facts but not reported on: a pre-commit hook lints the changed files
    with the rest of the repository in view. A context file is a named one when its real
    path is; only one with a named file's name and inode is resolved (one look at a name
    each: a stat, let alone a resolve, of every file of a large tree cost a quarter of a
    second). A link or a hard link under another name is another file, as a whole-tree
    run reads it."""
    named = [s.location for s in found.sources if s.location is not None]
    names = {os.path.basename(location) for location in named}
    inodes = {_inode(location) for location in named} - {None}
    real = {os.path.realpath(location) for location in named}

    def is_named(location: str) -> bool:
        return (
            os.path.basename(location) in names
            and _inode(location) in inodes
            and os.path.realpath(location) in real
        )

    extra = [s for s in context.sources if s.location is not None and not is_named(s.location)]
    # a source named reads some of the context itself (a chart its dependency folders)
    for reader in READERS.values():
        mine = [s.path for s in found.sources if s.language == reader.name]
        others = [s.path for s in extra if s.language == reader.name]
        covered = reader.covered(mine, others) if mine and others else set()
        extra = [s for s in extra if s.language != reader.name or s.path not in covered]
    # a chart a helmfile of the context installs is linted in its releases: named, it
    # makes the helmfile reported instead
    taken = _taken([*found.sources, *extra])
    if not taken:  # (no context path made absolute for none: a hook's is 10,000 files)
        return Discovery([*found.sources, *extra], [*found.errors, *context.errors])
    kept = [s for s in found.sources if not s.location or _key(s.location) not in taken]
    told = {taken[_key(s.location)].path for s in found.sources if s not in kept and s.location}
    extra = [
        dataclasses.replace(s, report=True) if s.path in told else s
        for s in extra
        if not s.location or _key(s.location) not in taken
    ]
    return Discovery([*kept, *extra], [*found.errors, *context.errors])


def as_in_context(found: Discovery, context: Discovery) -> Discovery:
    """`found`, each file the context's walk found in a test's data marked so, as there:
    a pre-commit hook names each changed file with `--context .`, and its run says what
    the tree's does (only the files of a test's data resolved: a few)."""
    data = {
        os.path.realpath(s.location): s.test_data
        for s in context.sources
        if s.test_data is not None and s.location is not None
    }
    if not data:
        return found
    sources = [
        dataclasses.replace(s, test_data=folder)
        if s.test_data is None
        and s.location is not None
        and (folder := data.get(os.path.realpath(s.location))) is not None
        else s
        for s in found.sources
    ]
    return Discovery(sources, found.errors)


def _key(location: str) -> str:
    return os.path.abspath(location)


def _inode(location: str) -> tuple[int, int] | None:
    """The device and inode a path leads to (through links); None when it cannot be read."""
    try:
        status = os.stat(location)
    except OSError:
        return None
    return status.st_dev, status.st_ino


@cache
def gitignore_patterns(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    """Patterns as git reads them, matched in linear time (RE2: a hostile repository's
    `.gitignore` or `per-file-ignores` must not stall a run). pathspec is imported here,
    on first use: a run with no pattern to match (a one-file check) does not pay for it."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns, backend="re2")


@cache
def folder_patterns(patterns: tuple[str, ...]) -> pathspec.PathSpec[pathspec.Pattern]:
    """A .gitignore's patterns as git reads them for a folder the walk reaches (every
    folder above it kept): the last pattern that matches decides, as in git. Not
    GitIgnoreSpec, which ranks a folder's own match by a folder pattern (`!*/`, that
    takes folders back from a `*` above it) below any other pattern's, and would leave
    out every folder of a tree that ignores all but the files it names."""
    import pathspec

    return pathspec.PathSpec.from_lines("gitignore", patterns, backend="re2")


def discover(
    paths: Iterable[str],
    stdin_filename: str | None = None,
    exclude: Exclude | None = None,
    kustomize: bool = False,
    *,
    report: bool = True,
    walks: Path | None = None,
) -> Discovery:
    """The files under `paths` (reported on, or read for their facts only: `report`).
    Folders are walked (gitignore and `exclude` honoured); a file named on the command line
    is always read, as ruff does. `walks`: a cache's folder, where walks are remembered."""
    found = Discovery()
    paths = list(paths)
    several = len(paths) > 1  # one folder's walk gives each file once
    seen: set[str] = set()

    def add(
        shown: str,
        language: Language,
        location: str | None,
        unread: str | None,
        test_data: str | None = None,
    ) -> None:
        if several:
            key = os.path.abspath(location) if location else STDIN
            if key in seen:
                return
            seen.add(key)
        told = report and reported(language, shown)
        found.sources.append(
            Source(shown, language, location, report=told, unread=unread, test_data=test_data)
        )

    for path in paths:
        if path == STDIN:
            name = stdin_filename or STDIN
            add(name, named_kind(name), None, None)
            continue
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            if os.path.islink(path):
                found.errors.append(f"{path}: broken symbolic link")
            else:
                found.errors.append(f"{path}: {(error.strerror or str(error)).lower()}")
            continue
        if exclude is not None and exclude.excludes_named(Path(path)):
            continue  # --force-exclude: named, but excluded all the same
        if stat.S_ISDIR(mode):
            named = os.path.normpath(path)
            for shown, language, unread in _walk(path, exclude, found.errors, kustomize, walks):
                add(shown, language, shown, unread, folder_of_test_data(shown, named))
        else:  # named by the user: read, even through a link or from a pipe (`<(helm ...)`)
            language = named_kind(path)
            whole = _folder_of(path) if language == MANIFESTS.name else None
            if whole is not None:  # a template (or values) a pre-commit hook names: its chart
                add(whole[1], whole[0], whole[1], None)
            else:
                add(path, language, path, None)
    if not kustomize:
        _add_kustomized(found, exclude, report)
    else:
        found.sources = _without_included_bases(found.sources)
    found.sources = _without_taken(found.sources)
    return found


def _folder_of(path: str) -> tuple[Language, str] | None:
    """The folder source (its kind and folder) a file named belongs to, if any."""
    for reader in READERS.values():
        folder = reader.folder_of(path)
        if folder is not None:
            return reader.name, folder
    return None


def _taken(sources: Sequence[Source]) -> dict[str, Source]:
    """Each folder (absolute) that a source renders itself (a chart a helmfile installs,
    Reader.takes), and the source that does."""
    taken: dict[str, Source] = {}
    for reader in READERS.values():
        mine = [s for s in sources if s.language == reader.name and s.location is not None]
        if not mine or not reader.takes([s.location for s in mine if s.location]):
            continue
        for source in mine:
            for folder in reader.takes([source.location] if source.location else []):
                taken.setdefault(folder, source)
    return taken


def _without_taken(sources: list[Source]) -> list[Source]:
    """A chart a helmfile installs is linted in its releases, not alone as well."""
    taken = _taken(sources)
    if not taken:
        return sources  # (no path made absolute for none: a hook walks 10,000 files)
    return [s for s in sources if not s.location or _key(s.location) not in taken]


def _without_included_bases(sources: list[Source]) -> list[Source]:
    """A base is linted in the overlays that build it, not on its own as well."""
    for reader in READERS.values():
        left_out = reader.left_out([s.path for s in sources if s.language == reader.name])
        sources = [s for s in sources if s.language != reader.name or s.path not in left_out]
    return sources


def _add_kustomized(found: Discovery, exclude: Exclude | None, report: bool) -> None:
    """What the kustomizations found name inside their repository, read as files where the
    paths named do not hold it already: `check overlays/prod` reads ../../base too (each
    kustomization still judged on its own, deployment_units). Remote entries and entries
    outside the repository are KLB006 of the kustomization (manifests.py)."""
    queue = [s for s in found.sources if _is_kustomization(s)]
    if not queue:
        return  # (every path made absolute, for nothing: a tenth of a hook's run at 10,000 files)
    known = {os.path.abspath(s.location) for s in found.sources if s.location}
    patches: set[str] = set()
    while queue:
        source = queue.pop()
        assert source.location is not None
        try:
            text = source.read().decode("utf-8", "replace")
        except OSError:
            continue  # reported when the file itself is read
        top = repository_of(os.path.dirname(source.location))
        merges = merge_patch_files(source.location, text)
        patches.update(os.path.abspath(named) for named in data_files(source.location, text))
        patches.difference_update(os.path.abspath(named) for named in merges)
        for named in merges:  # read for model/patched.py, which never lints them as objects
            if inside(named, top) and os.path.abspath(named) not in known and os.path.isfile(named):
                known.add(os.path.abspath(named))
                found.sources.append(Source(named, MANIFESTS.name, named, report=report))
        for reference in references(source.location, text):
            target = reference.target
            if target is None or not inside(target, top) or os.path.abspath(target) in known:
                continue
            if os.path.isdir(target):
                walked = list(_walk(target, exclude, found.errors))
            elif os.path.isfile(target):
                walked = [(target, named_kind(target), None)]
            else:
                continue  # kustomize says so when it builds; the walk has nothing to read
            known.add(os.path.abspath(target))
            for shown, language, unread in walked:
                if os.path.abspath(shown) in known and shown != target:
                    continue
                known.add(os.path.abspath(shown))
                added = Source(shown, language, shown, report=report, unread=unread)
                found.sources.append(added)
                if _is_kustomization(added):
                    queue.append(added)
    # a JSON 6902 patch is no object, a values or generator file data: not linted as
    # objects (a strategic-merge patch is read, and applied or dropped: model/patched.py)
    found.sources = [
        s
        for s in found.sources
        if not (
            s.language == MANIFESTS.name and s.location and os.path.abspath(s.location) in patches
        )
    ]


def _is_kustomization(source: Source) -> bool:
    return (
        source.location is not None
        and source.unread is None
        and source.language == MANIFESTS.name
        and os.path.basename(source.location) in KUSTOMIZATION_FILES
    )
