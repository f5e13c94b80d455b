"""What grpcio knows about channel arguments and load-balancing policies.

The keys are gRPC core's (include/grpc/impl/channel_arg_names.h); which side each one acts
on, and the policy names, come from gRPC's docs and sources (research/python-clients.md
§2.3-2.6). gRPC ignores an unknown key and an option on the wrong side without a word.
"""

from __future__ import annotations

import json
from typing import Any

from k8slb.code.facts import Options
from k8slb.core import regex
from k8slb.core.record import record
from k8slb.model.objects import Container
from k8slb.reading.yamltree import Pos, YMap, YSeq

INT_MAX = 2**31 - 1  # gRPC reads it as "unlimited"

MAX_AGE = "grpc.max_connection_age_ms"
MAX_AGE_GRACE = "grpc.max_connection_age_grace_ms"
LB_POLICY_NAME = "grpc.lb_policy_name"
SERVICE_CONFIG = "grpc.service_config"

# Act only on a server: connection management and ping enforcement.
SERVER_ONLY = frozenset(
    {
        MAX_AGE,
        MAX_AGE_GRACE,
        "grpc.max_connection_idle_ms",
        "grpc.http2.min_ping_interval_without_data_ms",
        "grpc.http2.max_ping_strikes",
        "grpc.server_handshake_timeout_ms",
        "grpc.server_max_unrequested_time_in_server",
        "grpc.max_allowed_incoming_connections",
        "grpc.so_reuseport",
        "grpc.expand_wildcard_addrs",
        "grpc.experimental.server_config_change_drain_grace_time_ms",
        "grpc.server_call_metric_recording",
    }
)
# Act only on a channel: name resolution, balancing, retries, reconnection.
CLIENT_ONLY = frozenset(
    {
        LB_POLICY_NAME,
        SERVICE_CONFIG,
        "grpc.service_config_disable_resolution",
        "grpc.dns_min_time_between_resolutions_ms",
        "grpc.enable_retries",
        "grpc.per_rpc_retry_buffer_size",
        "grpc.client_idle_timeout_ms",
        "grpc.initial_reconnect_backoff_ms",
        "grpc.min_reconnect_backoff_ms",
        "grpc.max_reconnect_backoff_ms",
        "grpc.default_authority",
        "grpc.ssl_target_name_override",
        "grpc.primary_user_agent",
        "grpc.secondary_user_agent",
        "grpc.use_local_subchannel_pool",
        "grpc.enable_http_proxy",
        "grpc.http_proxy",
        "grpc.dns_enable_srv_queries",
        "grpc.dns_ares_query_timeout",
        "grpc.lb.ring_hash.ring_size_cap",
        "grpc.grpclb_call_timeout_ms",
        "grpc.grpclb_fallback_timeout_ms",
        "grpc.priority_failover_timeout_ms",
        "grpc.inhibit_health_checking",
        "grpc.happy_eyeballs_connection_attempt_delay_ms",
    }
)
BOTH_SIDES = frozenset(
    {
        "grpc.census",
        "grpc.loadreporting",
        "grpc.minimal_stack",
        "grpc.max_concurrent_streams",
        "grpc.max_receive_message_length",
        "grpc.max_send_message_length",
        "grpc.max_message_length",
        "grpc.per_message_compression",
        "grpc.per_message_decompression",
        "grpc.default_compression_algorithm",
        "grpc.default_compression_level",
        "grpc.compression_enabled_algorithms_bitset",
        "grpc.http2.initial_sequence_number",
        "grpc.http2.lookahead_bytes",
        "grpc.http2.hpack_table_size.decoder",
        "grpc.http2.hpack_table_size.encoder",
        "grpc.http2.max_frame_size",
        "grpc.http2.bdp_probe",
        "grpc.http2.min_time_between_pings_ms",
        "grpc.http2_scheme",
        "grpc.http2.max_pings_without_data",
        "grpc.http2.write_buffer_size",
        "grpc.http2.true_binary",
        "grpc.keepalive_time_ms",
        "grpc.keepalive_timeout_ms",
        "grpc.keepalive_permit_without_calls",
        "grpc.ssl_session_cache",
        "grpc.tsi.max_frame_size",
        "grpc.max_metadata_size",
        "grpc.absolute_max_metadata_size",
        "grpc.resource_quota",
        "grpc.socket_mutator",
        "grpc.socket_factory",
        "grpc.max_channel_trace_event_memory_per_node",
        "grpc.enable_channelz",
        "grpc.use_cronet_packet_coalescing",
        "grpc.tcp_receive_buffer_size",
        "grpc.workaround.cronet_compression",
        "grpc.optimization_target",
        "grpc.mobile_log_context",
        "grpc.disable_client_authority_filter",
        "grpc.address_http_proxy",
        "grpc.address_http_proxy_enabled_addresses",
        "grpc.surface_user_agent",
        "grpc.channel_pooling_domain",
        "grpc.channel_id",
        "grpc.authorization_policy_provider",
        "grpc.dscp",
        "grpc.event_engine_use_memory_allocator_factory",
        "grpc.security_frame_allowed",
    }
)
KNOWN_KEYS = SERVER_ONLY | CLIENT_ONLY | BOTH_SIDES
# Namespaces where unknown keys are expected (experiments, tests, internals).
OPEN_PREFIXES = ("grpc.experimental.", "grpc.internal.", "grpc.testing.", "grpc.TEST_ONLY")

# Policies gRPC core registers; the first three spread calls over addresses.
BALANCING_POLICIES = frozenset({"round_robin", "weighted_round_robin", "ring_hash"})
KNOWN_POLICIES = BALANCING_POLICIES | {
    "pick_first",
    "grpclb",
    "rls_experimental",
    "outlier_detection_experimental",
    "priority_experimental",
    "weighted_target_experimental",
    "xds_cluster_impl_experimental",
    "xds_cluster_manager_experimental",
    "xds_override_host_experimental",
    "xds_wrr_locality_experimental",
    "cds_experimental",
    "least_request_experimental",
    "random_subsetting",
}


def nearest(word: str, choices: frozenset[str]) -> str | None:
    import difflib  # only for a misspelt option

    found = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.75)
    return found[0] if found else None


@record
class Policy:
    """The load-balancing policy a channel's options select, as gRPC resolves them."""

    name: str | None  # None: nothing selects one (pick_first, the default)
    source: str  # where it comes from, for messages
    known: bool = True  # False when the options could not be fully read

    @property
    def balancing(self) -> bool:
        return self.name in BALANCING_POLICIES


def service_config_policy(config: Any) -> tuple[str | None, tuple[str, ...] | None]:
    """(policy, problem) from a service config value: a JSON string, as gRPC wants; the
    problem is what is wrong, then what follows from it."""
    if isinstance(config, dict):
        return None, ("is a dict", "gRPC wants a JSON string: json.dumps it")
    if not isinstance(config, str):
        return None, None
    try:
        data = json.loads(config)
    except json.JSONDecodeError as error:
        return None, (f"is not valid JSON ({error.msg})", "every call on the channel fails")
    if not isinstance(data, dict):
        return None, ("is not a JSON object",)
    configs = data.get("loadBalancingConfig")
    if configs is not None:
        if not isinstance(configs, list) or not all(
            isinstance(c, dict) and len(c) == 1 for c in configs
        ):
            return None, ("has a loadBalancingConfig that is not a list of one-key objects",)
        names = [next(iter(c)) for c in configs]
        usable = [n for n in names if n in KNOWN_POLICIES]
        if not usable:
            hint = nearest(names[0], KNOWN_POLICIES) if names else None
            also = f" (did you mean {hint!r}?)" if hint else ""
            return None, (
                f"names no policy gRPC knows: {', '.join(names)}{also}",
                "every call fails",
            )
        return usable[0], None
    legacy = data.get("loadBalancingPolicy")
    if legacy is not None:
        if not isinstance(legacy, str) or legacy.lower() not in KNOWN_POLICIES:
            return None, (f"has loadBalancingPolicy {legacy!r}, which gRPC does not know",)
        return legacy.lower(), None
    return None, None


def channel_policy(options: Options) -> Policy:
    """gRPC's precedence: the service config's policy, else `grpc.lb_policy_name` when it
    names a known policy, else pick_first."""
    config = options.get(SERVICE_CONFIG)
    if config is not None:
        name, _ = service_config_policy(config.value)
        if name is not None:
            return Policy(name, "grpc.service_config")
    by_name = options.get(LB_POLICY_NAME)
    if by_name is not None and isinstance(by_name.value, str) and by_name.value in KNOWN_POLICIES:
        return Policy(by_name.value, LB_POLICY_NAME)
    unresolved = not options.complete or any(
        entry is not None and not isinstance(entry.value, str | dict) for entry in (config, by_name)
    )
    return Policy(None, "the default (pick_first)", known=not unresolved)


# A container argument or env variable that names a server's maximum connection age, by any
# spelling (`--keepaliveMaxServerConnectionAge`, `--max-connection-age`,
# `GRPC_MAX_CONNECTION_AGE`), read with its separators dropped; its grace is another setting.
_AGE_SETTING = regex.compile(r"max(?:server)?conn(?:ection)?age(grace)?")
_SEPARATORS = regex.compile(r"[^a-z0-9]+")
# values that leave the age unbounded
_UNBOUNDED = frozenset({"", "0", "0s", "0ms", "infinity", "inf", "none", "false"})


def _names_max_age(name: str) -> bool:
    squeezed = _SEPARATORS.sub("", name.lower())
    return any(not found.group(1) for found in _AGE_SETTING.finditer(squeezed))


def configured_max_age(container: Container) -> tuple[str, Pos] | None:
    """A maximum connection age the container's arguments or env give its server, as
    written (`--keepaliveMaxServerConnectionAge 30m`), and where: what the server's own
    option in the code would say. None when none is given, or one leaves it unbounded."""
    written = [
        (str(word), seq.item_pos[number] if number < len(seq.item_pos) else seq.pos)
        for key in ("command", "args")
        if isinstance(seq := container.body.get(key), YSeq)
        for number, word in enumerate(seq)
    ]
    for number, (word, pos) in enumerate(written):
        flag, equals, value = word.partition("=")
        if not flag.startswith("-") or not _names_max_age(flag):
            continue
        if not equals:  # `--flag VALUE`: the next word, unless it is a flag
            following = written[number + 1][0] if number + 1 < len(written) else "-"
            value = "" if following.startswith("-") else following
            word = f"{flag} {value}"
        if value.strip().lower() not in _UNBOUNDED:
            return word, pos
    entries = container.body.get("env")
    for entry in entries if isinstance(entries, YSeq) else []:
        if not isinstance(entry, YMap):
            continue
        name, set_to = entry.get("name"), entry.get("value")
        given = set_to is not None and str(set_to).strip().lower() not in _UNBOUNDED
        if isinstance(name, str) and _names_max_age(name) and given:
            return f"{name}={set_to}", entry.pos
    return None
