"""What each code reader costs against its own bare parse (issue #51: "reading facts costs
at most 2 x the bare parse per language").

For each language: the files worth a syntax tree (each reader's own byte pre-check, as
`scripts/floor.py` takes them) are parsed bare (tree-sitter's parse, or Python's
`ast.parse`) and read into facts by the language's reader (`languages.LANGUAGES`' parse),
the two passes alternated round after round in this process (process time). Prints, per
language, the files, the best pass of each and the median of the rounds' own ratios
(min-median-max). With `--profile LANGUAGE` it profiles that reader's passes instead
(cProfile, sorted by own time). Nothing is asserted: a benchmark, never a timed test.

The files: the folders named, or the bench's tree of N generated services (`make bench`'s
`make_corpus`, which needs ../shared/bench) with `--services N`, or by default the
project's own fixtures and tests (every language's varied sources).

Usage: python scripts/bench_readers.py [--rounds R] [--services N] [--profile LANG] [DIR...]
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench import ROOT, make_corpus

if TYPE_CHECKING:
    from tree_sitter import Parser

Parse = Callable[[str, bytes], object]


def bare_parsers() -> dict[str, tuple[Callable[[str, bytes], bool], Parse]]:
    """Per language: which files the reader parses (its byte pre-check; Go's reader also
    leaves out `vendor/` and generated files) and the bare parse of one (what
    `scripts/floor.py` does with it)."""
    from k8slb.code.facts import worth_parsing
    from k8slb.languages.go import parse as go
    from k8slb.languages.java import parse as java
    from k8slb.languages.javascript import parse as javascript

    def python(_path: str, data: bytes) -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in the tests' sources
            return ast.parse(data)

    def read_go(path: str, data: bytes) -> bool:
        vendored = "vendor" in path.split("/")[:-1]
        return go.worth_parsing(data) and not vendored and not go.is_generated(data)

    def tree(parser: Callable[[str], Callable[[], Parser]]) -> Parse:
        return lambda path, data: parser(path)().parse(data)

    return {
        "python": (lambda _p, data: worth_parsing(data), python),
        "go": (read_go, tree(lambda _p: go.parser)),
        "javascript": (
            lambda _p, data: javascript.worth_parsing(data),
            tree(javascript.parser_for),
        ),
        "typescript": (
            lambda _p, data: javascript.worth_parsing(data),
            tree(javascript.parser_for),
        ),
        "java": (lambda _p, data: java.worth_parsing(data), tree(lambda _p: java.parser)),
    }


def files_by_language(folders: list[Path]) -> dict[str, list[tuple[str, bytes]]]:
    """Each language's files under the folders that its reader would parse."""
    from k8slb.languages import language_of

    bare = bare_parsers()
    found: dict[str, list[tuple[str, bytes]]] = {name: [] for name in bare}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            language = language_of(str(path))
            if language is None or language.name not in bare or not path.is_file():
                continue
            if ".git" in path.parts or ".venv" in path.parts or "node_modules" in path.parts:
                continue
            data = path.read_bytes()
            if bare[language.name][0](str(path), data):
                found[language.name].append((str(path), data))
    return found


def one_pass(parse: Parse, files: list[tuple[str, bytes]]) -> float:
    started = time.process_time()
    for path, data in files:
        parse(path, data)
    return time.process_time() - started


def measure(folders: list[Path], rounds: int) -> None:
    from k8slb.languages import LANGUAGES, load

    bare = bare_parsers()
    print("language     files   bare parse   reader   reader / bare (min-median-max)")
    for name, files in files_by_language(folders).items():
        if not files:
            continue
        read: Parse = load(LANGUAGES[name].parse)
        parse = bare[name][1]
        one_pass(parse, files[:1])  # the grammar and the modules load once a process
        one_pass(read, files[:1])
        parses, reads = [], []
        for _ in range(rounds):  # alternated: the machine's phase hits both alike
            parses.append(one_pass(parse, files))
            reads.append(one_pass(read, files))
        ratios = sorted(r / p for r, p in zip(reads, parses, strict=True) if p > 0)
        spread = (
            f"{ratios[0]:.2f}-{statistics.median(ratios):.2f}-{ratios[-1]:.2f}" if ratios else "-"
        )
        print(
            f"{name:<12} {len(files):>5} {min(parses) * 1000:>9.1f} ms"
            f" {min(reads) * 1000:>6.1f} ms   {spread}"
        )


def profile(folders: list[Path], language: str, rounds: int, sort: str = "tottime") -> None:
    from k8slb.languages import LANGUAGES, load

    files = files_by_language(folders)[language]
    read: Parse = load(LANGUAGES[language].parse)
    one_pass(read, files[:1])
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        one_pass(read, files)
    profiler.disable()
    pstats.Stats(profiler).sort_stats(sort).print_stats(40)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--services", type=int, default=0, help="the bench's tree of N services")
    parser.add_argument("--profile", default="", help="profile this language's reader")
    options = parser.parse_args()
    folders = list(options.folders)
    with tempfile.TemporaryDirectory(prefix="k8slb-bench-readers-") as work:
        if options.services:
            corpus = Path(work) / "corpus"
            make_corpus(corpus, options.services)
            folders.append(corpus)
        if not folders:
            folders = [ROOT / "fixtures", ROOT / "tests"]
        print(f"files under: {', '.join(map(str, folders))}", file=sys.stderr)
        if options.profile:
            profile(folders, options.profile, options.rounds)
        else:
            measure(folders, options.rounds)


if __name__ == "__main__":
    main()
