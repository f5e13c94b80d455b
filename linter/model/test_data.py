"""The files of a test's data: below the folder the user named, in a `testdata/` (or
`fixtures/`, ...: core/paths.py's TEST_DATA) folder, which the repository's tests read as
an input or an expected output and no deploy tool applies (Go's tool skips `testdata`).
Their findings are kept, at info, with that reason (`said_at_info`, as those of a file no
kustomization builds), and their objects are a deployment unit of their own (units.py):
a copy of a Service there never makes a real Deployment served, nor a copy of a
Deployment a real Service's pods. Naming such a folder (or a file in it) asks for it to
be judged as any other: its files are then no test's data."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from k8slb.reading.sources import Source


def files_in_test_data(
    sources: Sequence[Source], rendered_from: Mapping[str, str]
) -> dict[str, str]:
    """Each file (normalised) read in a test's data, a plain one or one a chart or a build
    there rendered, with the folder of the data it is in."""
    folders = {s.path: s.test_data for s in sources if s.test_data is not None}
    if not folders:
        return {}
    found = {os.path.normpath(path): folder for path, folder in folders.items()}
    for path, source in rendered_from.items():
        folder = folders.get(source)
        if folder is not None:
            found[os.path.normpath(path)] = folder
    return found


def why_test_data(files: Mapping[str, str]) -> dict[str, str]:
    """Why each file's findings are said at info (what `said_at_info` puts first)."""
    return {
        path: (
            f"a test's data (`{os.path.basename(folder)}/`): no deploy tool applies it, so "
            "this is said at info (name the folder to have it judged in full)"
        )
        for path, folder in files.items()
    }
