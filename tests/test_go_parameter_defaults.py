"""A Go parameter its function sets anew when it is empty (`if conf == "" { conf =
defaultConfig }`): a call passing `""` gives it that value, another value is the
caller's, and KLB108 judges the value the channel gets, not the empty text the caller
passed."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

CLIENT = """\
package quotes

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const fallbackConfig = `{"methodConfig": [{"name": [{}], "timeout": "2s"}]}`

type Client struct {
	conn *grpc.ClientConn
}

func NewClient(target string, serviceConfig string) (*Client, error) {
	if serviceConfig == "" {
		serviceConfig = fallbackConfig
	}
	conn, err := grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(serviceConfig),
	)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn}, nil
}
"""
SAME_FILE_CALL = """
func Default() (*Client, error) {
	return NewClient("dns:///quotes:9000", GIVEN)
}
"""
MAIN = """\
package main

import "example.com/shop/pkg/quotes"

func main() {
	c, err := quotes.NewClient("dns:///quotes:9000", GIVEN)
	if err != nil || c == nil {
		panic(err)
	}
}
"""
GO_MOD = "module example.com/shop\n\ngo 1.22\n"


@pytest.mark.parametrize(
    ("given", "reported"),
    [('""', False), ("`{not json`", True), ('`{"methodConfig": []}`', False)],
)
def test_a_call_in_another_file_passing_empty_gets_the_functions_default(
    tmp_path: Path, given: str, reported: bool
) -> None:
    files: dict[str, str | bytes] = {
        "go.mod": GO_MOD,
        "pkg/quotes/client.go": CLIENT,
        "cmd/shop/main.go": MAIN.replace("GIVEN", given),
    }
    found = lint_files(tmp_path, files, ["KLB108"]).findings
    assert bool(found) is reported


@pytest.mark.parametrize(("given", "reported"), [('""', False), ("`[1, 2`", True), ("`{}`", False)])
def test_a_call_in_the_same_file_passing_empty_gets_the_functions_default(
    tmp_path: Path, given: str, reported: bool
) -> None:
    files: dict[str, str | bytes] = {
        "go.mod": GO_MOD,
        "pkg/quotes/client.go": CLIENT + SAME_FILE_CALL.replace("GIVEN", given),
    }
    found = lint_files(tmp_path, files, ["KLB108"]).findings
    assert bool(found) is reported


TARGET = """\
package quotes

import "google.golang.org/grpc"

func dial(target string) (*grpc.ClientConn, error) {
	if target == "" {
		target = "dns:///quotes.shop:9000"
	}
	return grpc.NewClient(target)
}

func Start() {
	conn, _ := dial(GIVEN)
	defer conn.Close()
}
"""


@pytest.mark.parametrize(
    ("given", "targets"),
    [
        ('""', ["dns:///quotes.shop:9000"]),
        ('"dns:///ledger.shop:9000"', ["dns:///ledger.shop:9000"]),
    ],
)
def test_a_target_parameter_is_the_default_where_the_caller_passes_empty(
    given: str, targets: list[str]
) -> None:
    facts = analyse_go("quotes/dial.go", TARGET.replace("GIVEN", given).encode())
    assert [channel.target for channel in facts.channels] == targets
