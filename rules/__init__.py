"""The rule catalogue: one module per rule, listed here in id order."""

from k8slb.rulekit.base import Rule
from k8slb.rules.client_port_not_exposed import ClientPortNotExposed
from k8slb.rules.db_pool_no_recycle import DbPoolNoRecycle
from k8slb.rules.external_traffic_local import ExternalTrafficLocal
from k8slb.rules.grace_too_short import GraceTooShort
from k8slb.rules.grpc_client_clusterip import GrpcClientClusterIp
from k8slb.rules.grpc_client_pick_first import GrpcClientPickFirst
from k8slb.rules.grpc_clusterip import GrpcClusterIp
from k8slb.rules.grpc_lb_config_invalid import GrpcLbConfigInvalid
from k8slb.rules.grpc_max_age_no_grace import GrpcMaxAgeNoGrace
from k8slb.rules.grpc_no_graceful_shutdown import GrpcNoGracefulShutdown
from k8slb.rules.grpc_option_wrong_side import GrpcOptionWrongSide
from k8slb.rules.grpc_server_no_max_age import GrpcServerNoMaxAge
from k8slb.rules.headless_under_linkerd import HeadlessUnderLinkerd
from k8slb.rules.health_always_serving import HealthAlwaysServing
from k8slb.rules.http_pool_no_lifetime import HttpPoolNoLifetime
from k8slb.rules.invalid_manifest import InvalidManifest
from k8slb.rules.invalid_python import InvalidCode
from k8slb.rules.invalid_yaml import InvalidYaml
from k8slb.rules.no_prestop import NoPreStop
from k8slb.rules.no_readiness_probe import NoReadinessProbe
from k8slb.rules.readiness_checks_nothing import ReadinessChecksNothing
from k8slb.rules.session_affinity import SessionAffinity
from k8slb.rules.shared_probe import SharedProbe
from k8slb.rules.sigterm_never_reaches_server import SigtermNeverReachesServer
from k8slb.rules.statefulset_service_not_headless import StatefulSetServiceNotHeadless
from k8slb.rules.stop_without_grace import StopWithoutGrace
from k8slb.rules.topology_routing import TopologyRouting
from k8slb.rules.unread_file import UnreadFile
from k8slb.rules.unrendered_template import UnrenderedTemplate
from k8slb.rules.unused_suppression import UnusedSuppression

ALL_RULES: tuple[type[Rule], ...] = (
    InvalidYaml,
    InvalidManifest,
    UnrenderedTemplate,
    InvalidCode,
    UnusedSuppression,
    UnreadFile,
    GrpcClusterIp,
    GrpcClientClusterIp,
    GrpcClientPickFirst,
    SessionAffinity,
    ExternalTrafficLocal,
    TopologyRouting,
    HeadlessUnderLinkerd,
    GrpcLbConfigInvalid,
    GrpcOptionWrongSide,
    StatefulSetServiceNotHeadless,
    ClientPortNotExposed,
    GrpcServerNoMaxAge,
    HttpPoolNoLifetime,
    DbPoolNoRecycle,
    GrpcMaxAgeNoGrace,
    SharedProbe,
    NoReadinessProbe,
    ReadinessChecksNothing,
    NoPreStop,
    GraceTooShort,
    GrpcNoGracefulShutdown,
    StopWithoutGrace,
    HealthAlwaysServing,
    SigtermNeverReachesServer,
)
