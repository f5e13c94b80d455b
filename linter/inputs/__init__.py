"""The kinds of input k8slb reads manifests (and the links of code to containers) from,
besides code (languages/): a module each (`inputs/plain.py`, `inputs/helm.py`,
`inputs/kustomize.py`, `inputs/helmfile.py`, `inputs/tiltfile.py`, `inputs/build.py`) and
one line each in `READERS`, which every stage consults: finding the files, reading and
stamping them, parsing or rendering them, the cache, what a run reports and where a fix
is written. A new rendered source (jsonnet, a `kubectl get -o yaml` dump) is a `Reader` of
its own and a line here (tests/test_toy_input_kind.py adds one that way).

The order is the order of claims: a folder that is a chart is rendered as one, though it
holds a kustomization too, and a build file's name wins over its YAML suffix."""

from __future__ import annotations

from k8slb.inputs.build import BUILD_FILES
from k8slb.inputs.helm import HELM_CHARTS
from k8slb.inputs.helmfile import HELMFILES
from k8slb.inputs.kustomize import KUSTOMIZATIONS
from k8slb.inputs.plain import PLAIN_YAML
from k8slb.inputs.reader import Reader, ReadSettings
from k8slb.inputs.tiltfile import TILTFILES

READERS: dict[str, Reader] = {
    reader.name: reader
    for reader in (HELM_CHARTS, KUSTOMIZATIONS, HELMFILES, TILTFILES, BUILD_FILES, PLAIN_YAML)
}

# What a file named on the command line that no reader claims is read as, and what every
# rendered source's output is parsed by.
MANIFESTS: Reader = PLAIN_YAML


def reader_of(kind: str) -> Reader | None:
    """The reader of a source's kind; None for code (languages/)."""
    return READERS.get(kind)


def reported(kind: str, path: str) -> bool:
    """Whether a file of this kind is reported on (code always is), or read for its facts
    only."""
    reader = READERS.get(kind)
    return reader is None or reader.reported(path)


__all__ = ["MANIFESTS", "READERS", "ReadSettings", "Reader", "reader_of", "reported"]
