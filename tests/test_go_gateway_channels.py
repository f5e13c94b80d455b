"""grpc-gateway's generated `Register<Service>HandlerFromEndpoint(ctx, mux, endpoint, opts)`
dials `endpoint` with the options `opts` holds and keeps the channel until `ctx` is done
(protoc-gen-grpc-gateway's template): a channel at the registration's line, judged as a
`grpc.NewClient(endpoint, opts...)` there (v2) or a `grpc.Dial` (v1), whether or not the
generated file is in the tree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from k8slb.code.facts import CodeFacts, EnvRef
from k8slb.languages.go.dialect import DIALECT
from k8slb.languages.go.parse import analyse_go
from k8slb.model.grpc_options import SERVICE_CONFIG

from tests.helpers import lint_files, within_cpu

V2 = "github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
V1 = "github.com/grpc-ecosystem/grpc-gateway/runtime"
ROUND_ROBIN = '`{"loadBalancingConfig": [{"round_robin": {}}]}`'


def gateway(body: str, runtime: str = V2, options: str = "") -> str:
    """A gateway program whose `main` registers what `body` does, on `mux`, with `opts`."""
    return (
        'package main\n\nimport (\n\t"context"\n\t"net/http"\n\t"os"\n\t"time"\n\n'
        f'\t"{runtime}"\n\t"google.golang.org/grpc"\n'
        '\t"google.golang.org/grpc/credentials/insecure"\n\n'
        '\tledgerpb "example.com/bank/gen/ledger"\n)\n\n'
        "var _ = time.Second\n\n"
        "func main() {\n\tmux := runtime.NewServeMux()\n"
        "\topts := []grpc.DialOption{\n"
        "\t\tgrpc.WithTransportCredentials(insecure.NewCredentials()),\n"
        f"{options}\t}}\n{body}"
        '\thttp.ListenAndServe(":8080", mux)\n}\n'
    )


REGISTER = (
    "\tif err := ledgerpb.RegisterLedgerHandlerFromEndpoint(CTX, mux, "
    'os.Getenv("LEDGER_ADDR"), opts); err != nil {\n\t\tpanic(err)\n\t}\n'
)


def registered_at(source: str) -> int:
    """The line of the registration (the first line that names it)."""
    return next(n for n, line in enumerate(source.splitlines(), 1) if "FromEndpoint" in line)


def facts(source: str, path: str = "cmd/gateway/main.go") -> CodeFacts:
    return analyse_go(path, source.encode())


def test_a_registration_from_an_endpoint_is_a_channel_of_its_address() -> None:
    options = f"\t\tgrpc.WithDefaultServiceConfig({ROUND_ROBIN}),\n"
    source = gateway(REGISTER.replace("CTX", "context.Background()"), options=options)
    [channel] = facts(source).channels
    assert channel.factory == "ledgerpb.RegisterLedgerHandlerFromEndpoint"
    assert channel.target == EnvRef("LEDGER_ADDR", None)
    assert channel.long_lived and channel.default_scheme == "dns"
    assert (channel.loc.line, channel.loc.column) == (registered_at(source), 12)
    # the options of the slice it is given, as a NewClient given `opts...` reads them
    assert channel.options.complete
    option = channel.options.get(SERVICE_CONFIG)
    assert option is not None and "round_robin" in option.value
    assert "grpc.NewClient" in channel.made_in and "context is done" in channel.made_in


def test_grpc_gateway_v1_dials_with_grpc_dial() -> None:
    source = gateway(REGISTER.replace("CTX", "context.Background()"), runtime=V1)
    [channel] = facts(source).channels
    assert channel.default_scheme == "passthrough"
    assert "grpc.Dial" in channel.made_in


@pytest.mark.parametrize(
    ("context", "long_lived"),
    [
        ("context.Background()", True),
        ("ctx", True),  # `ctx, cancel := context.WithCancel(...)` of a function that serves
        ("r.Context()", False),  # a request's: done when the request is
        ("rctx", False),
        ("tctx", False),  # a deadline's
    ],
)
def test_a_channel_lives_as_long_as_the_context_it_is_registered_with(
    context: str, long_lived: bool
) -> None:
    body = (
        "\tctx, cancel := context.WithCancel(context.Background())\n\tdefer cancel()\n"
        "\ttctx, stop := context.WithTimeout(ctx, 5*time.Second)\n\tdefer stop()\n"
        "\tvar r *http.Request\n\trctx := r.Context()\n"
        "\t_, _ = tctx, rctx\n" + REGISTER.replace("CTX", context)
    )
    [channel] = facts(gateway(body)).channels
    assert channel.long_lived is long_lived


@pytest.mark.parametrize(
    "call",
    [
        # not the generated signature
        'ledgerpb.RegisterLedgerHandlerFromEndpoint(ctx, mux, "ledger:9000")',
        'ledgerpb.RegisterLedgerHandlerFromEndpoint(ctx, mux, "ledger:9000", opts...)',
        # a registration over a connection made elsewhere: that one is the channel
        "ledgerpb.RegisterLedgerHandler(ctx, mux, conn)",
        # a method, and a function of the file's own package (read where it is written)
        'gw.RegisterLedgerHandlerFromEndpoint(ctx, mux, "ledger:9000", opts)',
        'RegisterLedgerHandlerFromEndpoint(ctx, mux, "ledger:9000", opts)',
    ],
)
def test_what_is_not_a_generated_registration_makes_no_channel(call: str) -> None:
    body = f"\tctx := context.Background()\n\tvar conn *grpc.ClientConn\n\tvar gw G\n\t_ = {call}\n"
    assert facts(gateway(body)).channels == []


def test_the_generated_file_is_not_read_where_it_is_in_the_tree() -> None:
    generated = (
        "// Code generated by protoc-gen-grpc-gateway. DO NOT EDIT.\n"
        '// source: ledger.proto\n\npackage ledgerpb\n\nimport (\n\t"context"\n\n'
        f'\t"{V2}"\n\t"google.golang.org/grpc"\n)\n\n'
        "func RegisterLedgerHandlerFromEndpoint(ctx context.Context, mux *runtime.ServeMux, "
        "endpoint string, opts []grpc.DialOption) (err error) {\n"
        "\tconn, err := grpc.NewClient(endpoint, opts...)\n\tif err != nil {\n\t\treturn err\n"
        "\t}\n\tgo func() {\n\t\t<-ctx.Done()\n\t\tconn.Close()\n\t}()\n"
        "\treturn RegisterLedgerHandler(ctx, mux, conn)\n}\n"
    )
    assert facts(generated, "gen/ledger/ledger.pb.gw.go").channels == []


def test_a_gateway_over_a_connection_of_its_own_is_judged_by_that_connection() -> None:
    body = (
        '\tconn, err := grpc.NewClient(os.Getenv("LEDGER_ADDR"), opts...)\n'
        "\tif err != nil {\n\t\tpanic(err)\n\t}\n"
        "\t_ = ledgerpb.RegisterLedgerHandlerClient(context.Background(), mux, "
        "ledgerpb.NewLedgerClient(conn))\n"
    )
    [channel] = facts(gateway(body)).channels
    assert channel.factory == "grpc.NewClient" and channel.long_lived


def test_no_dial_option_is_added_to_a_registration() -> None:
    source = gateway(REGISTER.replace("CTX", "context.Background()"))
    [channel] = facts(source).channels
    assert channel.options.complete
    assert DIALECT.channel_options(channel, [(SERVICE_CONFIG, ROUND_ROBIN[1:-1])]) == []


def manifests(headless: bool = False) -> str:
    service = "  clusterIP: None\n" if headless else ""
    return (
        "apiVersion: v1\nkind: Service\nmetadata: {name: ledger, namespace: bank}\nspec:\n"
        f"{service}  selector: {{app: ledger}}\n  ports:\n    - {{name: grpc, port: 9000}}\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ledger, namespace: bank}\n"
        "spec:\n  replicas: 3\n  selector:\n    matchLabels: {app: ledger}\n  template:\n"
        "    metadata:\n      labels: {app: ledger}\n    spec:\n      containers:\n"
        "        - name: ledger\n          image: registry.example/ledger:1.0\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: gateway, namespace: bank}\n"
        "spec:\n  template:\n    metadata:\n      labels: {app: gateway}\n    spec:\n"
        "      containers:\n        - name: gateway\n"
        "          image: registry.example/gateway:1.0\n          env:\n"
        '            - {name: LEDGER_ADDR, value: "ledger.bank.svc.cluster.local:9000"}\n'
    )


def test_end_to_end_a_gateway_channel_to_a_cluster_ip_stays_on_one_pod(tmp_path: Path) -> None:
    source = gateway(REGISTER.replace("CTX", "context.Background()"))
    files = {"k8s.yaml": manifests(), "main.go": source}
    [finding] = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "to ClusterIP Service/bank/ledger stays on one pod" in finding.message
    assert "made by grpc-gateway's RegisterLedgerHandlerFromEndpoint" in " ".join(finding.detail)
    assert (finding.path.rsplit("/", 1)[1], finding.line) == ("main.go", registered_at(source))
    assert not any(edit.path.endswith(".go") for edit in finding.edits)
    # registered for one request only: no channel kept
    files["main.go"] = source.replace("context.Background()", "(&http.Request{}).Context()")
    assert lint_files(tmp_path / "per-request", files, ["KLB102"]).findings == []


@pytest.mark.parametrize(
    ("runtime", "options", "expected"),
    [
        (V2, "", "uses pick_first"),
        (V2, f"\t\tgrpc.WithDefaultServiceConfig({ROUND_ROBIN}),\n", None),
        # v1 dials with grpc.Dial: passthrough, one address whatever the policy
        (V1, f"\t\tgrpc.WithDefaultServiceConfig({ROUND_ROBIN}),\n", "gets one address"),
    ],
    ids=["v2-pick-first", "v2-round-robin", "v1-round-robin"],
)
def test_end_to_end_the_policy_in_opts_is_the_channels(
    tmp_path: Path, runtime: str, options: str, expected: str | None
) -> None:
    source = gateway(REGISTER.replace("CTX", "context.Background()"), runtime, options)
    files = {"k8s.yaml": manifests(headless=True), "main.go": source}
    found = lint_files(tmp_path, files, ["KLB103"]).findings
    if expected is None:
        assert found == []
        return
    [finding] = found
    assert expected in finding.message
    assert finding.line == registered_at(source)
    assert not any(edit.path.endswith(".go") for edit in finding.edits)


def test_thousands_of_registrations_and_imports_are_read_in_linear_time(tmp_path: Path) -> None:
    # each registration scanned the file's imports for grpc-gateway's version: 12,000
    # imports and registrations (1.1 MB) took about 14 s of CPU; now under 1 s
    n = 12_000
    imports = "".join(f'p{i} "example.com/gen/p{i}"\n' for i in range(n))
    calls = "".join(
        f' p{i}.RegisterSHandlerFromEndpoint(ctx, mux, "svc:1", nil)\n' for i in range(n)
    )
    source = tmp_path / "main.go"
    source.write_text(
        'package main\nimport (\n"context"\n"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"\n'
        f"{imports})\nfunc main() {{\n ctx := context.Background()\n"
        f" mux := runtime.NewServeMux()\n{calls}}}\n"
    )
    code = (
        "import sys; from k8slb.languages.go.parse import analyse_go; "
        "print(analyse_go('main.go', open(sys.argv[1], 'rb').read()).problem)"
    )
    done = within_cpu([sys.executable, "-c", code, str(source)], cpu_seconds=5)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
