"""Plain YAML: each file's documents are Kubernetes objects (reading/manifests.py). The
files named on the command line that nothing else claims are read so too, and so is
what every rendered source renders."""

from __future__ import annotations

import os

from k8slb.inputs.reader import Reader
from k8slb.reading.chart_repeats import read_as_kustomize_does
from k8slb.reading.kustomization import KUSTOMIZATION_FILES
from k8slb.reading.manifests import ManifestFile, load_manifests

SUFFIXES = (".yaml", ".yml")


class PlainYaml(Reader):
    name = "yaml"
    parse_ms_per_kb = 0.16
    # its trees, with every position, cost more to pickle and unpickle than to build (built
    # in C, on `make bench`'s tree: 0.35 ms a file to read, 0.32 ms to pickle and unpickle;
    # Go and Python files cost 0.7-1.25 and 0.5 ms to read, 0.2 and 0.12 ms to send back)
    parsed_here = True

    def claims_file(self, path: str) -> bool:
        return path.lower().endswith(SUFFIXES)

    def parse(self, path: str, data: bytes) -> ManifestFile:
        found = load_manifests(path, data)
        if os.path.basename(path) in KUSTOMIZATION_FILES:  # a repeated key: kustomize reads it
            return read_as_kustomize_does(path, data, found)
        return found


PLAIN_YAML = PlainYaml()
