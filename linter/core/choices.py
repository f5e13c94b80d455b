"""The few names the command line shows before anything is loaded (`k8slb --help` must not
import the engine): the meshes k8slb knows, the baseline's default file name, and how a
Kubernetes version is written."""

MESHES = ("none", "istio", "linkerd")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2  # what the README says each exit code means
DEFAULT_BASELINE = ".k8slb-baseline.json"


def parse_version(value: str) -> tuple[int, int]:
    """`1.30` (or `v1.30.2`) as (1, 30); a ValueError for anything else."""
    major, _, minor = value.removeprefix("v").partition(".")
    if not (major.isdigit() and minor.split(".")[0].isdigit()):
        raise ValueError(f"{value!r} is not a version like 1.30")
    return int(major), int(minor.split(".")[0])
