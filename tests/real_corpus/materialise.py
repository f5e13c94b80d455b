"""The real corpus's copies made again from local git mirrors, each checked against its
digest: `python -m tests.real_corpus.materialise --mirrors DIR OUT [NAME ...]`.

A project's mirror is `DIR/<owner>+<name>` (a git directory, or a folder holding one named
`repo` or `repo/.git`, as fetched snapshots are laid out). Its `path` at `commit` is written to
`OUT/<project>/` blob by blob, as git stores it (no `.gitattributes` filter or
export-ignore applies; a link stays a link), through a temporary folder, so an interrupted
run leaves no half copy. A copy already there with the right digest is kept. Exit status 1
when a project has no mirror, lacks its commit or a blob, or its copy's digest differs.

A graduated round (`--round rounds/<day>`) keeps each repository's tree, as its reviewers'
copies did: `OUT/<project>/<path>/`, the licence file at its own path, and the project's
`extra` files (another folder of the repository, or of another repository at a commit,
such as a vendored chart) where it says, without the paths its `!path` entries leave out
(files the repository's snapshots lack, such as built binaries, which its reviewers'
copies lacked too).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .evaluate import HERE, Project, digest, held_out, projects


def mirror_of(mirrors: Path, repository: str) -> Path | None:
    folder = mirrors / repository.replace("/", "+")
    for candidate in (folder / "repo", folder / "repo" / ".git", folder):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _git(mirror: Path, *args: str, given: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", "--git-dir", str(mirror), *args], input=given, capture_output=True, check=False
    )
    if done.returncode:
        raise RuntimeError(done.stderr.decode(errors="replace").strip())
    return done.stdout


def extract(
    mirror: Path, commit: str, path: str, into: Path, leave_out: tuple[str, ...] = ()
) -> None:
    """The files under `path` at `commit` written below `into` by their path under it; or,
    when `path` names one file, that file written as `into`; none of those under a path of
    `leave_out` (paths in the repository)."""
    prefix = "" if path in (".", "") else path.strip("/")
    listing = _git(mirror, "ls-tree", "-r", "-z", commit, *(["--", prefix] if prefix else []))
    entries = []
    for entry in filter(None, listing.split(b"\0")):
        meta, stored = entry.split(b"\t", 1)
        mode, kind, sha = meta.decode().split()
        name = stored.decode()
        left_out = any(name == out or name.startswith(f"{out}/") for out in leave_out)
        if kind == "blob" and not left_out:  # a submodule (commit) has no content here
            entries.append((mode, sha, "" if name == prefix else name[len(prefix) :].lstrip("/")))
    if not entries:
        raise RuntimeError(f"{path}: nothing at {commit}")
    blobs = _git(
        mirror, "cat-file", "--batch", given="".join(f"{e[1]}\n" for e in entries).encode()
    )
    at = 0
    for mode, sha, name in entries:
        header_end = blobs.index(b"\n", at)
        header = blobs[at:header_end].decode()
        if header.endswith("missing"):
            raise RuntimeError(f"{name or path}: blob {sha} is not in the mirror")
        size = int(header.split()[2])
        content = blobs[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1  # the content, then a newline
        target = into / name if name else into
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            os.symlink(content, target)
        else:
            target.write_bytes(content)
            if mode == "100755":
                target.chmod(0o755)


# What a copy is made of: a repository, a commit, a path in it, where it goes in the copy,
# and the paths in that repository left out of it.
Part = tuple[str, str, str, str, tuple[str, ...]]


def parts(project: Project) -> list[Part]:
    """A corpus project's copy is its path; a graduated round's keeps the repository's
    tree: its path, its licence file and its extra files, each at its own place, without
    the paths of the repository its `!path` entries leave out."""
    if not project.from_path:
        return [(project.repository, project.commit, project.path, ".", ())]
    out = tuple(spec[1:].strip("/") for spec in project.extra if spec.startswith("!"))
    found = [(project.repository, project.commit, project.path, project.path, out)]
    if project.licence_file not in ("", "-"):  # "-": the project has no licence file
        found.append(
            (project.repository, project.commit, project.licence_file, project.licence_file, ())
        )
    for spec in project.extra:  # [owner/name@commit:]path[>where], or !path
        if spec.startswith("!"):
            continue
        source, _, where = spec.partition(">")
        origin, colon, path = source.rpartition(":")
        repository, commit = origin.split("@", 1) if colon else (project.repository, project.commit)
        found.append((repository, commit, path, where or path, ()))
    return found


def materialise(project: Project, mirrors: Path, out: Path) -> str:
    """What became of the project's copy, in a few words ("ok" when its digest is right)."""
    copy = out / project.name
    if copy.is_dir() and digest(copy) == project.digest:
        return "ok (already there)"
    part = out / f".{project.name}.part"
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    for repository, commit, path, where, leave_out in parts(project):
        mirror = mirror_of(mirrors, repository)
        if mirror is None:
            shutil.rmtree(part)
            return f"no mirror of {repository} in {mirrors}"
        try:
            extract(mirror, commit, path, part / where, leave_out)
        except RuntimeError as error:
            shutil.rmtree(part)
            return f"not extracted: {error}"
    shutil.rmtree(copy, ignore_errors=True)
    part.rename(copy)
    got = digest(copy)
    return "ok" if got == project.digest else f"digest {got} is not {project.digest}"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.real_corpus.materialise")
    parser.add_argument("--mirrors", type=Path, required=True, help="the folder of the mirrors")
    parser.add_argument("--projects", type=Path, default=HERE / "projects.tsv")
    parser.add_argument(
        "--round", type=Path, metavar="ROUND", help="a graduated round's folder (rounds/<day>)"
    )
    parser.add_argument("out", type=Path, help="the corpus folder to write")
    parser.add_argument("names", nargs="*", help="only these projects")
    args = parser.parse_args(argv)
    chosen = (
        held_out(args.round, graduated=True).projects
        if args.round is not None
        else projects(args.projects)
    )
    failed = 0
    for project in chosen:
        if args.names and project.name not in args.names:
            continue
        outcome = materialise(project, args.mirrors, args.out)
        failed += not outcome.startswith("ok")
        print(f"{project.name}: {outcome}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
