"""`make bench-count`: the check against the parse floor counted in instructions (valgrind's
callgrind), which, unlike seconds on a shared VM, come out the same on every run: the one
ratio of `make bench` that two runs, an hour or a change apart, can be compared by.

Generates N services as `make bench` does (its Dockerfiles and Go services too), then
counts, each once, `scripts/floor.py` (k8slb's parse floor), `k8slb check --no-cache -j1`
and, where k8slb's C YAML builder is built, the same check on the Python builder (a copy
of the package without the compiled module). Instructions are not seconds (the floor's
work is mostly C, a check's mostly the interpreter's): the time ratio stays above this
one. Prints the counts and the ratios; asserts nothing. Slow: valgrind runs each some 50
times slower (N=2000 takes some ten minutes).

Usage: python scripts/bench_count.py [N]
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import BENCH, PYTHON, ROOT, make_corpus

_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(command: list[str], env: dict[str, str] | None = None) -> int:
    """The instructions one run of `command` executes (its own process; -j1 forks none)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        check=False,
    )
    found = _COLLECTED.search(done.stderr)
    if found is None or done.returncode not in (0, 1):
        sys.exit(f"bench-count: {' '.join(command)} failed ({done.returncode})")
    return int(found.group(1))


def without_compiled_builder(work: Path) -> Path | None:
    """A copy of the installed package without the C builder (None when there is none)."""
    from k8slb.reading import yamlcompose

    if yamlcompose._native is None:
        return None
    import k8slb

    copy = work / "python-builder"
    shutil.copytree(k8slb.__path__[0], copy / "k8slb", symlinks=False)
    for built in (copy / "k8slb" / "reading").glob("_yamltree*"):
        if built.suffix != ".pyi":
            built.unlink()
    return copy


def main() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("bench-count: valgrind is not installed")
    if not (BENCH / "gen_corpus.py").is_file():
        sys.exit("bench-count: ../shared/bench is absent; nothing to measure against")
    services = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    work = Path(tempfile.mkdtemp(prefix="k8slb-bench-count-"))
    try:
        corpus = work / "corpus"
        _, files = make_corpus(corpus, services)
        print(f"corpus: {services} services, {files} files ({work})", flush=True)
        env = {**os.environ, "K8SLB_NO_SERVER": "1"}
        check = [PYTHON, "-m", "k8slb", "check", "--no-cache", "-j", "1", "--quiet", str(corpus)]
        counts = {
            "floor (ast, Go)": instructions(
                [PYTHON, str(ROOT / "scripts" / "floor.py"), str(corpus)]
            ),
            "check -j1": instructions(check, env),
        }
        python_builder = without_compiled_builder(work)
        if python_builder is not None:
            counts["check -j1, Python builder"] = instructions(
                check, {**env, "PYTHONPATH": str(python_builder)}
            )
        floor = counts["floor (ast, Go)"]
        print(f"\n{'case':<28}{'instructions':>16}{'x floor':>9}")
        for name, count in counts.items():
            print(f"{name:<28}{count:>16,}{count / floor:>9.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
