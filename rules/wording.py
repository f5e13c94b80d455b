"""How a finding about code names things in the language the code is written in: the rules
read language-neutral facts (code/facts.py) and ask here for the option names and the fixes
to quote, so a Go server is told about `MaxConnectionAge`, not `grpc.max_connection_age_ms`."""

from __future__ import annotations

from k8slb.model.grpc_options import MAX_AGE, MAX_AGE_GRACE

# gRPC's core option names as Go's API spells them.
_GO_OPTIONS = {
    MAX_AGE: "MaxConnectionAge",
    MAX_AGE_GRACE: "MaxConnectionAgeGrace",
    "grpc.max_connection_idle_ms": "MaxConnectionIdle",
    "grpc.keepalive_time_ms": "Time",
    "grpc.keepalive_timeout_ms": "Timeout",
    "grpc.service_config": "grpc.WithDefaultServiceConfig",
    "grpc.lb_policy_name": "grpc.WithBalancerName",
}


def option(language: str, key: str) -> str:
    return _GO_OPTIONS.get(key, key) if language == "go" else key


def go_duration(milliseconds: float) -> str:
    """`5 * time.Minute` for 300000 ms: a duration as Go code writes it."""
    for unit, size in (("time.Hour", 3_600_000), ("time.Minute", 60_000), ("time.Second", 1000)):
        if milliseconds >= size and milliseconds % size == 0:
            return f"{int(milliseconds // size)} * {unit}"
    return f"{int(milliseconds)} * time.Millisecond"


def option_value(language: str, key: str, value: float) -> str:
    """`MaxConnectionAge: 5 * time.Minute` in Go, `grpc.max_connection_age_ms = 300000`."""
    if language == "go":
        return f"{option(language, key)}: {go_duration(value)}"
    return f"{key} = {value}"


def max_age_advice(language: str, age_ms: int, grace_ms: int) -> str:
    if language == "go":
        return (
            "add grpc.KeepaliveParams(keepalive.ServerParameters{"
            f"MaxConnectionAge: {go_duration(age_ms)}, "
            f"MaxConnectionAgeGrace: {go_duration(grace_ms)}}})"
        )
    return f"add it (e.g. {age_ms}) with {MAX_AGE_GRACE}"


def no_sigterm_consequence(language: str) -> str:
    if language == "go":
        return (
            "Kubernetes stops pods with SIGTERM, and a Go program that does not catch it "
            "exits at once, so calls in flight are cut"
        )
    return (
        "Kubernetes stops pods with SIGTERM, which Python as PID 1 ignores until SIGKILL, "
        "so calls in flight are cut"
    )


def sigterm_advice(language: str, server: str, grace: int) -> str:
    if language == "go":
        return f"signal.Notify(ch, syscall.SIGTERM), then {server}.GracefulStop() when it arrives"
    return f"add signal.signal(signal.SIGTERM, lambda *_: {server}.stop(grace={grace}))"


def sigterm_fix(language: str, server: str, grace: int) -> str:
    """What KLB403's fix does, and what to review after it."""
    if language == "go":
        return (
            f"add a goroutine that, on SIGTERM, calls {server}.GracefulStop() and "
            f"{server}.Stop() after {grace} s (review: other shutdown work)"
        )
    return (
        f"add a SIGTERM handler: {server}.stop(grace={grace}) (review: other shutdown work, "
        "and that the server runs in the main thread)"
    )


def stop_call(language: str, server: str, grace: object) -> str:
    return f"{server}.Stop()" if language == "go" else f"{server}.stop({grace})"


def stop_advice(language: str, server: str, grace: int) -> str:
    if language == "go":
        return (
            f"call {server}.GracefulStop(), bounded by a timer that calls Stop() after "
            f"{grace} s, so that calls finish on shutdown"
        )
    return f"give it a grace period (e.g. stop(grace={grace})) so that calls finish on shutdown"


def health_drain_advice(language: str) -> str:
    if language == "go":
        return "call Shutdown() on the health server (every service NOT_SERVING) on SIGTERM"
    return "call enter_graceful_shutdown() on SIGTERM"


def http2_setting(language: str) -> str:
    return "ForceAttemptHTTP2" if language == "go" else "http2=True"


def http_pool_advice(language: str) -> str:
    if language == "go":
        return (
            "call CloseIdleConnections() now and then, or have the server close connections "
            "(IdleConnTimeout ends only idle ones, MaxConnsPerHost bounds none)"
        )
    return "have the server close connections now and then, or recreate the client"
