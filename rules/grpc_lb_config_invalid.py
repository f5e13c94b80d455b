from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from k8slb.core.findings import Finding, FixInfo, Severity
from k8slb.model.grpc_options import (
    KNOWN_POLICIES,
    LB_POLICY_NAME,
    SERVICE_CONFIG,
    nearest,
    service_config_policy,
)
from k8slb.rulekit.base import Context, Example, Rule
from k8slb.rulekit.dialect import dialect_of

_CHANNEL = """\
import grpc

channel = grpc.insecure_channel(
    "dns:///backend.shop.svc.cluster.local:50051",
    options=[{options}],
)
"""


def _channel(options: str) -> str:
    return _CHANNEL.replace("{options}", options)


def _json_string(value: Any) -> str | None:
    """A dict service config as the JSON string gRPC wants (None when it is not plain)."""
    if not isinstance(value, dict):
        return None
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return None  # holds values k8slb could not resolve


class GrpcLbConfigInvalid(Rule):
    """A load-balancing setting that gRPC rejects or silently ignores.

    ## What it does
    Reads the `grpc.service_config` and `grpc.lb_policy_name` options of every gRPC
    channel (literal, or held in a name, a list built with `append`, a `functools.partial`)
    and reports:
    - a service config that is a dict, not a JSON string (grpcio raises `TypeError` when
      the channel is made);
    - a service config that is not valid JSON, or whose `loadBalancingConfig` names no
      policy gRPC knows (`round-robin`, `RoundRobin`): the channel is created, and then
      every call on it fails;
    - a `grpc.lb_policy_name` gRPC does not know (`roundrobin`): gRPC logs an error and
      silently uses `pick_first` (grpc-java's `defaultLoadBalancingPolicy("roundrobin")`
      fails every call on the channel instead);
    - both settings, naming different policies: the service config wins, so the
      `lb_policy_name` is dead code that misleads the reader.

    A value is judged as the channel gets it: a Go parameter its function sets anew when
    it is empty (`if conf == "" { conf = defaultConfig }`) is that default where the
    callers pass `""`, theirs where they pass another; where it may be either (a value
    k8slb cannot read, or callers that pass different ones), only a value invalid on
    every path is reported, so none is.

    In Java, the same settings of a grpc-java channel builder:
    `defaultLoadBalancingPolicy(name)`, and `defaultServiceConfig(map)` when the map is a
    literal k8slb can read (grpc-java takes a map there, so a map is no error). No fix
    in Java.

    ## Why it matters
    The first two break every call at run time; the last two leave the client on
    `pick_first`, sending everything to one pod, while the code says otherwise.

    ## Fix
    Write the service config as a JSON string:
    `'{"loadBalancingConfig": [{"round_robin": {}}]}'`, with the policy spelt as gRPC
    spells it (`round_robin`, `pick_first`, `weighted_round_robin`, `ring_hash`), and keep
    one of the two settings.

    `k8slb fix` corrects the two unambiguous cases: a `grpc.lb_policy_name` close to one
    policy name (`roundrobin` -> `round_robin`), and a service config written as a dict,
    which it writes as the JSON string gRPC wants. The rest needs a human.

    ## Other linters
    No other linter reads gRPC client code.
    """

    id = "KLB108"
    name = "grpc-lb-config-invalid"
    severity = Severity.ERROR
    fix = FixInfo(
        available=True,
        safe=True,
        description="a misspelt policy respelt; a dict service config as JSON",
    )
    examples = (
        Example(
            _channel('("grpc.lb_policy_name", "roundrobin")'),
            language="python",
            title="a misspelt policy name",
            at=(5, 14),
        ),
        Example(
            _channel('("grpc.service_config", {"loadBalancingConfig": [{"round_robin": {}}]})'),
            language="python",
            title="a dict where a JSON string is needed",
            at=(5, 14),
        ),
        Example(
            _channel('("grpc.service_config", \'{"loadBalancingConfig": [{"round-robin": {}}]}\')'),
            language="python",
            title="an unknown policy in the service config",
            at=(5, 14),
        ),
        Example(
            _channel(
                '("grpc.service_config", \'{"loadBalancingConfig": [{"pick_first": {}}]}\'),'
                ' ("grpc.lb_policy_name", "round_robin")'
            ),
            language="python",
            title="two settings that disagree",
            at=(5, 88),
        ),
        Example(
            _channel('("grpc.service_config", \'{"loadBalancingConfig": [{"round_robin": {}}]}\')'),
            findings=0,
            language="python",
        ),
        Example(
            'package main\n\nimport "google.golang.org/grpc"\n\n'
            'var conn, _ = grpc.NewClient("dns:///backend:50051",\n'
            '\tgrpc.WithDefaultServiceConfig(`{"loadBalancingConfig": [{"roundrobin": {}}]}`))\n',
            language="go",
            title="in Go, an unknown policy",
            at=(6, 2),
        ),
        Example(
            "import io.grpc.ManagedChannel;\nimport io.grpc.ManagedChannelBuilder;\n\n"
            "class Backend {\n  static final ManagedChannel CHANNEL =\n"
            '      ManagedChannelBuilder.forTarget("dns:///backend:50051")\n'
            '          .defaultLoadBalancingPolicy("roundrobin")\n'
            "          .build();\n}\n",
            language="java",
            title="in Java, a misspelt default policy",
            at=(7, 12),
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        for facts in context.judged_code():
            dialect = dialect_of(facts.language)
            config_name = dialect.option(SERVICE_CONFIG)
            name_option = dialect.option(LB_POLICY_NAME)
            for channel in facts.channels:
                options = channel.options
                config, by_name = options.get(SERVICE_CONFIG), options.get(LB_POLICY_NAME)
                config_policy = None
                if config is not None:
                    config_policy, problem = service_config_policy(config.value)
                    if problem:
                        as_json = _json_string(config.value)
                        edits = dialect.set_value(config.loc, as_json) if as_json else []
                        yield self.code_finding(
                            config.loc,
                            (f"{config_name} {problem[0]}", *problem[1:]),
                            fix="write the service config as a JSON string",
                            edits=edits,
                        )
                if by_name is None or not isinstance(by_name.value, str):
                    continue
                if by_name.value not in KNOWN_POLICIES:
                    hint = nearest(by_name.value, KNOWN_POLICIES)
                    yield self.code_finding(
                        by_name.loc,
                        (
                            f"{name_option} {by_name.value!r} is no policy gRPC knows"
                            + (f" (did you mean {hint!r}?)" if hint else ""),
                            dialect.unknown_policy_consequence(),
                        ),
                        fix=f"spell the policy {hint!r}",
                        edits=dialect.set_value(by_name.loc, hint) if hint else [],
                    )
                elif config_policy is not None and config_policy != by_name.value:
                    yield self.code_finding(
                        by_name.loc,
                        (
                            f"{name_option} {by_name.value!r} is overridden by the service "
                            f"config's {config_policy!r}",
                            f"the channel uses {config_policy}",
                            "keep one setting",
                        ),
                    )
