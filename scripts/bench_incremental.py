"""`check` after one file changed, against `check` of the unchanged tree, both warm.

Builds the bench's monorepo (scripts/bench.py's `make_corpus`; 3,050 services make some
10,000 files), warms the cache with a whole-tree run, then times in interleaved rounds:
`check .` of the unchanged tree; `check .` after one manifest changed, and after one Python
module changed (each round the edit is new: a line of its own is appended, so no result
the cache remembers answers it, and a whole-tree run before it leaves the cache warm, as a
developer's last run does); and the pre-commit hook (`.pre-commit-hooks.yaml`'s command,
`check --force-exclude --context . FILE`) on each changed file after a whole-tree run. A
run's time is its command's: the cache it leaves to a child process is written untimed,
and waited for. Prints min/median/max of each case and the medians of each round's own
ratio to the unchanged run. Nothing is asserted: the targets are issue #51's.

Usage: python scripts/bench_incremental.py [N] [ROUNDS] [--tree FOLDER]
(--tree keeps the generated tree in FOLDER and reuses it when it is there.)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import K8SLB, Measured, make_corpus, measure, wait_for_cache_writers

HOOK = [*K8SLB, "check", "--force-exclude", "--context", "."]  # .pre-commit-hooks.yaml's


def edit_command(path: Path, comment: str) -> str:
    """A shell line that changes the file anew each time it runs (a line with the time in
    nanoseconds appended): its bytes are never ones a remembered result was keyed by."""
    return f'printf "{comment} edited %s\\n" "$(date +%s%N)" >> {path}'


def main() -> None:
    arguments = sys.argv[1:]
    kept: Path | None = None
    if "--tree" in arguments:
        at = arguments.index("--tree")
        kept = Path(arguments[at + 1]).resolve()
        del arguments[at : at + 2]
    services = int(arguments[0]) if arguments else 3050
    rounds = int(arguments[1]) if len(arguments) > 1 else 5
    work = kept or Path(tempfile.mkdtemp(prefix="k8slb-bench-incremental-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["K8SLB_CACHE_DIR"] = str(work / "cache")
    corpus = work / "corpus"
    if not corpus.is_dir():
        make_corpus(corpus, services)
    files = sum(1 for p in corpus.rglob("*") if p.is_file() and ".git" not in p.parts)
    print(f"tree: {corpus}, {files} files", flush=True)
    manifest = corpus / "team-0" / "svc-0" / "k8s.yaml"
    module = next(iter(sorted(corpus.glob("team-*/svc-*/server.py"))))
    whole = [*K8SLB, "check", "--quiet", "."]
    warm = f"{' '.join(whole)} >/dev/null || true"
    subprocess.run(warm, shell=True, cwd=corpus, check=True)  # the cold run, untimed
    wait_for_cache_writers(work)
    cases = {
        "check ., unchanged": whole,
        "check ., one YAML changed": whole,
        "check ., one .py changed": whole,
        "hook, YAML changed": [*HOOK, str(manifest.relative_to(corpus))],
        "hook, .py changed": [*HOOK, str(module.relative_to(corpus))],
    }
    setups = {
        "check ., unchanged": [warm],
        "check ., one YAML changed": [warm, edit_command(manifest, "#")],
        "check ., one .py changed": [warm, edit_command(module, "#")],
        "hook, YAML changed": [warm, edit_command(manifest, "#")],
        "hook, .py changed": [warm, edit_command(module, "#")],
    }
    results = measure(cases, corpus, rounds, setups, cache_home=work)
    unchanged = results["check ., unchanged"]
    print(f"\n{'case':<28}{'min s':>8}{'median s':>10}{'max s':>8}  x unchanged")
    for name, measured in results.items():
        print(
            f"{name:<28}{min(measured.rounds):>8.3f}{measured.seconds:>10.3f}"
            f"{max(measured.rounds):>8.3f}  {_ratio(measured, unchanged)}"
        )
    print(
        "targets (#51): one file changed <= 1.5x the unchanged warm run; the hook <= 0.4 s "
        "on a changed YAML or code file"
    )


def _ratio(measured: Measured, other: Measured) -> str:
    """min-median-max over the rounds of each round's own ratio."""
    each = [a / b for a, b in zip(measured.rounds, other.rounds, strict=True)]
    return f"{min(each):.2f}-{statistics.median(each):.2f}-{max(each):.2f}"


if __name__ == "__main__":
    main()
