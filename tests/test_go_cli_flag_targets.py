"""A Go client's target read from a command-line flag of urfave/cli (`c.String("addr")`
on the context the library hands the action), resolved from the args or the env its
containers set; and a server's local told apart from a same-named local of another
function literal (KLB403)."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.facts import UNKNOWN, FlagRef
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

GO_MOD = "module example.com/shop\n\ngo 1.22\n\nrequire github.com/urfave/cli/v2 v2.27.1\n"

CLIENT = """\
package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc"

	pb "example.com/shop/proto"
	"example.com/shop/stock"
)

func main() {
	app := &cli.App{
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name: "stock-api", Aliases: []string{"s"}, EnvVars: []string{"STOCK_API"},
			},
		},
		Action: runShop,
	}
	_ = app.Run(os.Args)
}

func runShop(c *cli.Context) error {
	api, err := dialStock(c.Context, c.String("stock-api"))
	if err != nil {
		return err
	}
	serveShop(api)
	return nil
}

func dialStock(ctx context.Context, target string) (*stock.Client, error) {
	conn, err := grpc.DialContext(ctx, target, grpc.WithInsecure())
	if err != nil {
		return nil, err
	}
	client := stock.NewClient(ctx, pb.NewStockClient(conn))
	return client, nil
}
"""


def test_a_urfave_cli_flag_read_is_the_flag_with_its_aliases_and_variables() -> None:
    [channel] = analyse_go("shop/main.go", CLIENT.encode()).channels
    assert channel.target == FlagRef("stock-api", "", aliases=("s",), env=("STOCK_API",))
    assert channel.long_lived, "kept by a client returned to the action the library runs"
    v1 = CLIENT.replace("/v2", "").replace(
        'Aliases: []string{"s"}, EnvVars: []string{"STOCK_API"}',
        'Value: "stock:50051", EnvVar: "STOCK_API, STOCK"',
    )
    [channel] = analyse_go("shop/main.go", v1.encode()).channels
    assert channel.target == FlagRef("stock-api", "stock:50051", env=("STOCK_API", "STOCK"))


def test_a_read_on_anything_but_the_library_context_is_no_flag() -> None:
    other = CLIENT.replace("func runShop(c *cli.Context)", "func runShop(c *strings.Builder)")
    [channel] = analyse_go("shop/main.go", other.encode()).channels
    assert channel.target is UNKNOWN


def test_the_action_the_library_runs_keeps_what_it_makes_for_the_process() -> None:
    plain = CLIENT.replace("Action: runShop,", "")
    [channel] = analyse_go("shop/main.go", plain.encode()).channels
    assert not channel.long_lived, "a function of no known lifetime"
    assigned = plain.replace("_ = app.Run(os.Args)", "app.Action = runShop\n\t_ = app.Run(os.Args)")
    [channel] = analyse_go("shop/main.go", assigned.encode()).channels
    assert channel.long_lived


def shop(container: str) -> dict[str, str]:
    """The client, run by a Deployment (`container` is its container's extra lines), and
    a ClusterIP gRPC Service of two replicas."""
    return {
        "go.mod": GO_MOD,
        "shop/main.go": CLIENT.replace("serveShop(api)", "_ = api"),
        "shop/Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /usr/bin/shop ./shop\nENTRYPOINT ["/usr/bin/shop"]\n',
        "deploy/shop.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: shop, namespace: web}\n"
            "spec:\n  selector: {matchLabels: {app: shop}}\n  template:\n"
            "    metadata: {labels: {app: shop}}\n    spec:\n      containers:\n"
            "        - name: shop\n          image: example/shop:latest\n"
            f"{container}"
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: stock, namespace: web}\n"
            "spec:\n  replicas: 2\n  selector: {matchLabels: {app: stock}}\n  template:\n"
            "    metadata: {labels: {app: stock}}\n    spec:\n      containers:\n"
            "        - name: stock\n          image: example/stock:latest\n"
            "          ports: [{containerPort: 8080}]\n"
            "---\napiVersion: v1\nkind: Service\nmetadata: {name: stock, namespace: web}\n"
            "spec:\n  selector: {app: stock}\n  ports: [{name: grpc, port: 8080}]\n"
        ),
    }


def test_the_flag_is_what_the_container_args_or_env_give(tmp_path: Path) -> None:
    for at, container in enumerate(
        (
            '          args: ["-stock-api=stock.web:8080"]\n',
            '          args: ["--s", "stock:8080"]\n',
            "          env: [{name: STOCK_API, value: 'stock:8080'}]\n",
        )
    ):
        found = lint_files(tmp_path / str(at), shop(container), ["KLB102"]).findings
        assert [f.path.rpartition("/")[2] for f in found] == ["main.go"], container
        assert "Service/web/stock" in found[0].text
    env = lint_files(
        tmp_path / "env",
        shop("          env: [{name: STOCK_API, value: 'stock:8080'}]\n"),
        ["KLB102"],
    ).findings
    assert "--stock-api from STOCK_API" in env[0].text
    none = lint_files(tmp_path / "none", shop("          args: [--verbose]\n"), ["KLB102"])
    assert none.findings == [], "no address given: no Service"


SERVERS = """\
package main

import (
	"net"
	"net/http"
	"sync"

	"google.golang.org/grpc"
)

func run(grpcLis, pprofLis net.Listener) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		srv := grpc.NewServer()
		_ = srv.Serve(grpcLis)
	}()
	go func() {
		defer wg.Done()
		srv := new(http.Server)
		_ = srv.Serve(pprofLis)
	}()
	wg.Wait()
}
"""


def test_a_same_named_local_of_another_function_literal_is_not_the_server() -> None:
    waits = analyse_go("app/main.go", SERVERS.encode()).waits
    assert [w.loc.line for w in waits] == [17], "the pprof server's Serve is not the gRPC one's"
    outer = SERVERS.replace("\tvar wg", "\tsrv := grpc.NewServer()\n\tvar wg").replace(
        "\t\tsrv := new(http.Server)\n", ""
    )
    waits = analyse_go("app/main.go", outer.encode()).waits
    assert len(waits) == 2, "a closure's use of the outer local is the server's"
