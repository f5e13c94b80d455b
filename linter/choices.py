"""The few names the command line shows before anything is loaded (`k8slb --help` must not
import the engine): the meshes k8slb knows and the baseline's default file name."""

MESHES = ("none", "istio", "linkerd")
DEFAULT_BASELINE = ".k8slb-baseline.json"
