"""Which shell script of the tree a container's command runs: the file a COPY of the
image's Dockerfile put where the command names it (sigterm-never-reaches-server reads what
the script leaves as PID 1)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping

from k8slb.reading.build_files import Dockerfile, ShellScript

# Where a command named without a slash (`run.sh`) is looked for: the folders of a
# Linux image's usual PATH.
PATH_FOLDERS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")


def image_script(
    scripts: Mapping[str, ShellScript], dockerfile: Dockerfile, folder: str, word: str
) -> ShellScript | None:
    """The script of the tree that the program `word` is in the image built by
    `dockerfile` from the context `folder`: a path (relative ones from the WORKDIR) or a
    name in a PATH folder that a COPY filled; None when no scanned script is there."""
    if "$" in word:
        return None
    if "/" in word:
        places = [posixpath.normpath(posixpath.join(dockerfile.workdir, word))]
    else:
        places = [posixpath.join(path, word) for path in PATH_FOLDERS]
    for in_image in places:
        source = dockerfile.from_context(in_image)
        if source is not None:
            found = scripts.get(os.path.normpath(os.path.join(folder, source)))
            if found is not None:
                return found
    return None
