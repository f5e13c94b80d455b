"""A fuzzer that stays: real manifests and Python files, mutated the way editors, merges
and attackers mutate them, must never make k8slb raise, and every fix it makes must read
back as valid input that fixing again leaves alone. Bounded in `make test`; set
K8SLB_FUZZ_EXAMPLES for a longer run (`K8SLB_FUZZ_EXAMPLES=2000 make test`)."""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from k8slb.fixing.fixer import plan
from k8slb.reading.sources import discover
from k8slb.reading.yamlcompose import compose
from k8slb.rules import ALL_RULES
from k8slb.run.engine import run
from k8slb.run.settings import Settings

from .helpers import CORPUS, FIXTURES

SEEDS = sorted(
    [*(FIXTURES / "demo").rglob("*.yaml"), *(FIXTURES / "demo").rglob("*.py")]
    + [*(FIXTURES / "fix").glob("*.yaml")]
    + (sorted((CORPUS / "real").glob("*.yaml"))[:30] if CORPUS.is_dir() else [])
)
EXAMPLES = int(os.environ.get("K8SLB_FUZZ_EXAMPLES", "40"))

# Text that YAML and Python files meet in the wild, or that breaks naive position math.
SNIPPETS = [
    "&a ",
    "*a",
    "<<: *a\n",
    "|+\n  x\n\n",
    "|-\n",
    ">\n",
    "- ",
    "  ",
    "\t",
    "{",
    "}",
    "[",
    "]",
    ": ",
    "---\n",
    "...\n",
    "#",
    "'",
    '"',
    "\r\n",
    "\ufeff",
    "\x00",
    "\x1b[31m",
    "{{ .Values.x }}",
    "null",
    "~",
    "!!str ",
    "? ",
    "%YAML 1.2\n",
    "\\",
    "(",
    ")",
]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    seed = draw(st.sampled_from(SEEDS))
    data = bytearray(seed.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "delete-line", "indent", "insert", "swap"]))
        if kind == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "delete-line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            del data[start : (end + 1 if end >= 0 else len(data))]
        elif kind == "indent":
            start = data.rfind(b"\n", 0, at) + 1
            data[start:start] = b" " * draw(st.integers(1, 4))
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from(SNIPPETS)).encode()
        else:  # a value of another type: a list or mapping where a scalar was
            data[at:at] = draw(st.sampled_from([b"[]", b"{}", b"[1, 2]", b"{a: b}", b"7"]))
    return seed.suffix, bytes(data)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated())
def test_mutated_files_never_break_check_or_fix(case: tuple[str, bytes]) -> None:
    suffix, data = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(data)
        sources = discover([folder]).sources
        options = Settings(rules=ALL_RULES)
        checked = run(sources, options)
        assert not any("internal error" in e for e in checked.errors), checked.errors
        first = plan(sources, options, unsafe=True)
        assert not any("internal error" in r for r in first.refused), first.refused
        fixed = first.fixed_text.get(str(path))
        if fixed is None:
            return
        if suffix == ".yaml":
            assert compose(fixed.decode("utf-8-sig", errors="replace")).problems == [] or (
                compose(data.decode("utf-8-sig", errors="replace")).problems
            )
        else:
            with warnings.catch_warnings():  # mutated escapes (`\h`) are the input's
                warnings.simplefilter("ignore")
                compile(fixed, str(path), "exec")
        path.write_bytes(fixed)
        again = plan(sources, options, unsafe=True)
        assert again.fixed_text == {}, "fixing twice is fixing once"
