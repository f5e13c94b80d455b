"""`make bench-fix`: `k8slb fix` (and `check --format sarif`, which carries every fix) on one
long multi-document stream (what `kubectl get -A -o yaml` prints), at N and 2N documents,
to show the time grows linearly: the ratio of the two runs should stay near 2. Prints
medians and ratios; asserts nothing.

Usage: python scripts/bench_fix.py [DOCUMENTS] [ROUNDS]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from bench import K8SLB, ROOT, measure

DEMO = ROOT / "fixtures" / "demo" / "bad" / "backend.yaml"


def stream(documents: int) -> str:
    """`documents` documents: copies of the demo's four (Deployment, Service, HPA, ...),
    each copy with its own names so every Service gets its own fix."""
    text = DEMO.read_text()
    per_copy = text.count("\n---\n") + 1
    return "\n---\n".join(
        text.replace("backend", f"backend{n}") for n in range(max(1, documents // per_copy))
    )


def main() -> None:
    documents = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    work = Path(tempfile.mkdtemp(prefix="k8slb-bench-fix-"))
    try:
        cases: dict[str, list[str]] = {}
        setups: dict[str, list[str]] = {}
        for size in (documents, 2 * documents):
            source = work / f"stream-{size}.yaml"
            source.write_text(stream(size))
            target = work / f"fixed-{size}.yaml"
            for name, extra in ((f"fix {size}", []), (f"fix --diff {size}", ["--diff"])):
                cases[name] = [*K8SLB, "fix", "--isolated", "--no-cache", *extra, str(target)]
                setups[name] = [f"cp {source} {target}"]
            sarif = f"sarif {size}"
            cases[sarif] = [*K8SLB, "check", "--isolated", "--no-cache", "--format", "sarif"]
            cases[sarif] += ["--output-file", str(work / "report.sarif"), str(source)]
        results = measure(cases, work, rounds, setups)
        print(f"{'case':<22}{'median s':>10}{'peak MB':>9}")
        for name, measured in results.items():
            print(f"{name:<22}{measured.seconds:>10.2f}{measured.megabytes:>9}")
        for kind in ("fix", "fix --diff", "sarif"):
            ratio = results[f"{kind} {2 * documents}"].ratio(results[f"{kind} {documents}"])
            print(f"{kind}: 2x the documents took {ratio:.2f}x the time (linear: 2.00)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
