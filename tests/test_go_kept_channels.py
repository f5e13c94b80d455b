"""Go channels kept for the life of the process where they are not made: what a helper
returns that its caller stores, a map of the receiver's or of the package, and a helper
that closes the connection only when it fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import CodeFacts
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

IMPORTS = '"os"\n\t"google.golang.org/grpc"'


def facts(body: str) -> CodeFacts:
    source = f"package estimator\n\nimport (\n\t{IMPORTS}\n)\n\n{body}\n"
    return analyse_go("pkg/estimator/client.go", source.encode())


# a helper that dials and waits, closing the connection only when it fails
HELPER = """\
func connect(addr string) (cc *grpc.ClientConn, err error) {
	cc, err = grpc.NewClient(addr)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cc.Close()
		}
	}()
	err = waitReady(cc)
	return cc, err
}
"""


@pytest.mark.parametrize(
    ("deferred", "long_lived"),
    [
        ("\t\tif err != nil {\n\t\t\tcc.Close()\n\t\t}\n", True),
        ("\t\tif (dialErr != nil) {\n\t\t\tcc.Close()\n\t\t}\n", True),
        ("\t\tcc.Close()\n", False),  # closed on every return: per call
        ("\t\tif done {\n\t\t\tcc.Close()\n\t\t}\n", False),  # not a failure's cleanup
    ],
    ids=["on-error", "on-named-error", "always", "other-test"],
)
def test_a_close_on_the_error_path_only_does_not_make_a_channel_per_call(
    deferred: str, long_lived: bool
) -> None:
    on_error = "\t\tif err != nil {\n\t\t\tcc.Close()\n\t\t}\n"
    body = HELPER.replace(on_error, deferred)
    [channel] = facts(body).channels
    assert channel.long_lived is long_lived


@pytest.mark.parametrize(
    ("store", "long_lived"),
    [
        ("\tc.conns[name] = conn\n", True),
        ("\tc.entries[name] = &entry{conn: conn, client: pb.NewClient(conn)}\n", True),
        ("\tregistry[name] = conn\n", True),
        ("\tlocal := map[string]*grpc.ClientConn{}\n\tlocal[name] = conn\n\tuse(local)\n", False),
    ],
    ids=["receiver-map", "receiver-map-of-structs", "package-map", "local-map"],
)
def test_a_channel_stored_in_a_map_that_outlives_the_call_is_long_lived(
    store: str, long_lived: bool
) -> None:
    body = (
        "var registry = map[string]*grpc.ClientConn{}\n\n"
        "type Cache struct {\n\tconns map[string]*grpc.ClientConn\n"
        "\tentries map[string]*entry\n}\n\n"
        "func (c *Cache) Add(name, addr string) {\n"
        "\tconn, err := grpc.NewClient(addr)\n\tif err != nil {\n\t\treturn\n\t}\n"
        f"{store}}}\n"
    )
    [channel] = facts(body).channels
    assert channel.long_lived is long_lived
    place = store.strip().split(" = ")[0] if long_lived else None
    assert channel.kept == (f"in `{place}`" if place else "")


SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: estimator, namespace: shop}
spec:
  selector: {app: estimator}
  ports:
    - {name: grpc, port: 10352}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: estimator, namespace: shop}
spec:
  replicas: 2
  selector:
    matchLabels: {app: estimator}
  template:
    metadata:
      labels: {app: estimator}
    spec:
      containers:
        - name: estimator
          image: registry.example/estimator:1.0
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: scheduler, namespace: shop}
spec:
  template:
    metadata:
      labels: {app: scheduler}
    spec:
      containers:
        - name: scheduler
          image: registry.example/scheduler:1.0
          env:
            - {name: ESTIMATOR_ADDR, value: "estimator.shop.svc.cluster.local:10352"}
"""

MAIN = """\
type Cache struct {
	conns map[string]*grpc.ClientConn
}

func (c *Cache) Establish(name string) error {
	cc, err := connect(os.Getenv("ESTIMATOR_ADDR"))
	if err != nil {
		return err
	}
	c.conns[name] = cc
	return nil
}
"""


def test_end_to_end_a_helpers_channel_a_cache_keeps_is_reported(tmp_path: Path) -> None:
    source = f"package main\n\nimport (\n\t{IMPORTS}\n)\n\n{HELPER}\n{MAIN}"
    files = {"k8s.yaml": SERVICE, "main.go": source}
    [finding] = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "to ClusterIP Service/shop/estimator stays on one pod" in finding.message
    assert "the channel is kept by the caller at line 27, in `c.conns[name]`" in finding.detail
    assert (finding.path.rsplit("/", 1)[1], finding.line) == ("main.go", 9)
    # closed on every return (a connection per call): nothing stays on one pod
    per_call = source.replace("\t\tif err != nil {\n\t\t\tcc.Close()\n\t\t}\n", "\t\tcc.Close()\n")
    files["main.go"] = per_call
    assert lint_files(tmp_path / "per-call", files, ["KLB102"]).findings == []
