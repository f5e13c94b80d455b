"""A Go address made by a function of the file from what a call gives it
(`address("ORDERS_HOST", "ORDERS_PORT")`): what the function returns, its parameters read
as that call's arguments."""

from __future__ import annotations

from k8slb.code.facts import UNKNOWN, EnvRef, EnvText
from k8slb.languages.go.parse import analyse_go

HEAD = (
    'package main\n\nimport (\n\t"fmt"\n\t"log"\n\t"os"\n\n\t"google.golang.org/grpc"\n)\n\n'
    "func address(host string, port string) string {\n\th := os.Getenv(host)\n"
    '\tif h == "" {\n\t\tlog.Fatalf("missing %s", host)\n\t}\n'
    '\treturn fmt.Sprintf("%s:%s", h, os.Getenv(port))\n}\n\n'
    'func lookup(key string) string {\n\tif key == "" {\n\t\treturn ""\n\t}\n'
    "\treturn os.Getenv(key)\n}\n\n"
    'func again(key string) string {\n\tif key == "" {\n\t\treturn again("FALLBACK")\n\t}\n'
    "\treturn key\n}\n\n"
)


def targets(main: str, head: str = HEAD) -> list[object]:
    source = f"{head}func main() {{\n{main}}}\n"
    return [c.target for c in analyse_go("cmd/api/main.go", source.encode()).channels]


def test_a_functions_result_is_read_with_the_calls_arguments() -> None:
    main = (
        '\ta, _ := grpc.NewClient(address("ORDERS_HOST", "ORDERS_PORT"))\n'
        '\tb, _ := grpc.NewClient(address("STOCK_HOST", "STOCK_PORT"))\n\t_, _ = a, b\n'
    )
    assert targets(main) == [
        EnvText((EnvRef("ORDERS_HOST", None), ":", EnvRef("ORDERS_PORT", None))),
        EnvText((EnvRef("STOCK_HOST", None), ":", EnvRef("STOCK_PORT", None))),
    ]


def test_an_empty_return_of_a_failure_is_left_out() -> None:
    main = '\tc, _ := grpc.NewClient(lookup("LEDGER_ADDR"))\n\t_ = c\n'
    assert targets(main) == [EnvRef("LEDGER_ADDR", None)]


def test_a_function_that_calls_itself_is_read_once() -> None:
    main = '\tc, _ := grpc.NewClient(again("ledger:9000"))\n\t_ = c\n'
    # its own call is not followed: what that returns is unknown, so the result is too
    assert targets(main) == [UNKNOWN]


def test_returns_of_different_values_leave_the_result_unknown() -> None:
    choose = (
        'func choose(key string) string {\n\tif os.Getenv(key) == "eu" {\n'
        '\t\treturn "ledger-eu:9000"\n\t}\n\treturn "ledger:9000"\n}\n\n'
    )
    main = '\tc, _ := grpc.NewClient(choose("REGION"))\n\t_ = c\n'
    assert targets(main, HEAD + choose) == [UNKNOWN]
