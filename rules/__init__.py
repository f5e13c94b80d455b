"""The rule catalogue: one module per rule, listed here in id order."""

from k8slb.rules.base import Rule
from k8slb.rules.external_traffic_local import ExternalTrafficLocal
from k8slb.rules.grace_too_short import GraceTooShort
from k8slb.rules.grpc_clusterip import GrpcClusterIp
from k8slb.rules.headless_under_linkerd import HeadlessUnderLinkerd
from k8slb.rules.invalid_manifest import InvalidManifest
from k8slb.rules.invalid_yaml import InvalidYaml
from k8slb.rules.no_prestop import NoPreStop
from k8slb.rules.no_readiness_probe import NoReadinessProbe
from k8slb.rules.session_affinity import SessionAffinity
from k8slb.rules.shared_probe import SharedProbe
from k8slb.rules.topology_routing import TopologyRouting
from k8slb.rules.unrendered_template import UnrenderedTemplate

ALL_RULES: tuple[type[Rule], ...] = (
    InvalidYaml,
    InvalidManifest,
    UnrenderedTemplate,
    GrpcClusterIp,
    SessionAffinity,
    ExternalTrafficLocal,
    TopologyRouting,
    HeadlessUnderLinkerd,
    SharedProbe,
    NoReadinessProbe,
    NoPreStop,
    GraceTooShort,
)
