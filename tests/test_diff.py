"""`fix --diff` prints a unified diff that `patch` applies to give exactly the fixed text,
for any edit, and in linear time on the long streams where difflib alone is quadratic."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.fixing.diff import unified_diff

pytestmark = pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch(1)")

# with lines patch(1) takes whole and str.splitlines would cut: a form feed (a page break in a
# Python module), NEL and the Unicode line separator inside a line, a CRLF line
LINES = st.lists(
    st.sampled_from(
        [
            *("a\n", "b\n", "---\n", "  namespace: shop\n", "x\n"),
            *("\f\n", "c\x85d\n", "e\u2028f\n", "g\r\n"),
        ]
    ),
    max_size=40,
)


def _patched(old: bytes, diff: str) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        target, patch = Path(folder) / "f.yaml", Path(folder) / "f.diff"
        target.write_bytes(old)
        patch.write_bytes(diff.encode())
        subprocess.run(["patch", "-s", str(target), str(patch)], check=True)
        return target.read_bytes()


@settings(max_examples=150, deadline=None)
@given(LINES, LINES, st.booleans())
def test_the_diff_patches_the_old_text_into_the_new(
    old_lines: list[str], new_lines: list[str], no_final_newline: bool
) -> None:
    old = "".join(old_lines).encode()
    new = "".join(new_lines).encode()
    if no_final_newline:
        new = new.rstrip(b"\n")
    diff = unified_diff("f.yaml", old, new)
    assert (diff == "") == (old == new)
    if diff:
        assert _patched(old, diff) == new


def test_a_long_stream_with_an_edit_in_every_document() -> None:
    """The shape `fix` gives a `kubectl get -o yaml` dump: 4,000 documents, one line added
    to each. (Linear here; difflib on the whole file took minutes at 15,000.)"""
    document = "---\nkind: Service\nmetadata:\n  name: svc{n}\n  namespace: shop\nspec: {{}}\n"
    old = "".join(document.format(n=n) for n in range(4000)).encode()
    new = old.replace(b"spec: {}\n", b"spec: {}\nextra: 1\n")
    diff = unified_diff("f.yaml", old, new)
    assert diff.count("\n+extra: 1\n") == 4000
    assert _patched(old, diff) == new
