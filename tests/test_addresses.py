"""How an address reads: which host names stay inside the cluster, and which are IP
addresses (the reach a rule judges a client by)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st
from k8slb.model.addresses import parse_grpc_target


@given(st.ip_addresses())
def test_every_ip_address_reads_as_an_address_or_local(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    reach = parse_grpc_target(f"{host}:50051").reach
    assert reach == ("local" if ip.is_loopback or ip.is_unspecified else "address")


@pytest.mark.parametrize(
    ("target", "reach"),
    [
        ("backend:50051", "cluster"),
        ("backend.shop:50051", "cluster"),
        ("backend.shop.svc.cluster.local:50051", "cluster"),
        ("dns:///backend.shop.svc:50051", "cluster"),
        ("api.example.com:443", "external"),
        ("3com.example.com:443", "external"),  # a digit first, and still a name
        ("localhost:50051", "local"),
        ("unix:///run/app.sock", "local"),
        # a scheme gRPC has no resolver for (an HTTP service's URL handed to a gRPC
        # client: it never connects), or a custom resolver's: not kube-proxy's case
        ("http://shipping:8080", "other"),
        ("kubernetes:///backend.shop:50051", "other"),
    ],
)
def test_host_names_read_by_where_they_lead(target: str, reach: str) -> None:
    assert parse_grpc_target(target).reach == reach


def test_a_placeholder_host_is_the_service_whose_environment_spelling_it_is() -> None:
    from k8slb.model.addresses import filled_in, parse_grpc_target

    filled = filled_in(parse_grpc_target("<USERS_SVC>:50051"))
    assert filled is not None and (filled.host, filled.port, filled.reach) == (
        "users-svc",
        50051,
        "cluster",
    )
    assert filled.text == "<USERS_SVC>:50051"  # the message quotes the value as written
    for other in ("USERS_SVC:50051", "users:50051", "<$(HOST)>:80", "<>:80", "<a.b>:80"):
        assert filled_in(parse_grpc_target(other)) is None
