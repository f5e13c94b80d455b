"""Build files (Dockerfiles, Tiltfiles, the files that make a folder a program): read for
the link between code and containers (reading/build_files.py, model/links.py), not for
objects."""

from __future__ import annotations

import os

from k8slb.inputs.reader import Reader
from k8slb.reading.build_files import (
    BuildFile,
    is_bin_script,
    is_build_file,
    is_documentation,
    read_build_file,
)


class BuildFiles(Reader):
    name = "build"
    parse_ms_per_kb = 0.85
    links = True

    def claims_file(self, path: str) -> bool:
        return is_build_file(os.path.basename(path)) or is_bin_script(path)

    def skippable(self, path: str) -> bool:
        return True  # a build file by its name (or its folder's, `bin/`): parsed alone

    def parse(self, path: str, data: bytes) -> BuildFile:
        return read_build_file(path, data) or BuildFile(path)

    def reported(self, path: str) -> bool:
        # documentation is read for the builds its shell blocks name, never reported on
        return not is_documentation(path)


BUILD_FILES = BuildFiles()
