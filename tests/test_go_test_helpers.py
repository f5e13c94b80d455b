"""Go servers only a test can start, kept in files that are not `_test.go`: a helper
given the test's handle (`tb testing.TB`), and an unexported fake (a function or a
method of a type named a fake, a mock or a stub) that no function of its file but a
test's calls, out of a `main` package. Their servers are the tests', not a pod's; the
same server in a function a program may call is still reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k8slb.code.facts import STAND_IN_NAME, stand_in_name

from tests.helpers import lint_files

GO_MOD = "module example.com/depot\n\ngo 1.22\n"

# a program that links the package in: the package is no test support as a whole
MAIN = """\
package main

import (
	"os"
	"os/signal"
	"syscall"

	"example.com/depot/rpcutil"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	rpcutil.Version()
	<-stop
}
"""

HELPER = """\
package rpcutil

import (
	"net"
	"testing"

	"google.golang.org/grpc"
)

func Version() string { return "1" }

// ServeForTest serves the registered services on a loopback port for a test.
func ServeForTest(tb testing.TB, register func(*grpc.Server)) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := grpc.NewServer()
	register(srv)
	go func() { _ = srv.Serve(lis) }()
	tb.Cleanup(func() { srv.Stop() })
	return lis.Addr().String()
}
"""

FAKE = """\
package rpcutil

import (
	"context"
	"net"

	"google.golang.org/grpc"
)

type fakeDepot struct{}

func startFakeDepot(ctx context.Context) error {
	lis, err := net.Listen("tcp", ":7070")
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	go func() {
		<-ctx.Done()
		srv.Stop()
	}()
	return srv.Serve(lis)
}
"""

SUITE_TEST = """\
package rpcutil

import (
	"context"
	"testing"
)

func TestMain(m *testing.M) {
	ctx, cancel := context.WithCancel(context.Background())
	go startFakeDepot(ctx)
	m.Run()
	cancel()
}
"""

RULES = ["KLB201", "KLB403", "KLB404"]


def findings(tmp_path: Path, **files: str) -> list[tuple[str, str]]:
    tree = {"go.mod": GO_MOD, "cmd/depot/main.go": MAIN, **files}
    result = lint_files(tmp_path, tree, RULES)
    return sorted({(f.rule, str(Path(f.path).relative_to(tmp_path))) for f in result.findings})


def test_a_helper_given_the_tests_handle_serves_for_tests_only(tmp_path: Path) -> None:
    assert findings(tmp_path, **{"rpcutil/testserver.go": HELPER}) == []
    # the same server in a function a program may call is reported
    served = HELPER.replace("tb testing.TB", "tb interface{ Fatal(...any); Cleanup(func()) }")
    served = served.replace('\t"testing"\n', "")
    assert ("KLB404", "rpcutil/testserver.go") in findings(
        tmp_path, **{"rpcutil/testserver.go": served}
    )


def test_an_unexported_fake_only_tests_start_is_a_tests(tmp_path: Path) -> None:
    files = {"rpcutil/fake_depot.go": FAKE, "rpcutil/suite_test.go": SUITE_TEST}
    assert findings(tmp_path, **files) == []


CALLED = FAKE + "\nfunc Run(ctx context.Context) error { return startFakeDepot(ctx) }\n"


@pytest.mark.parametrize(
    ("old", "new", "fake"),
    [
        ("startFakeDepot", "startFakeDepot", CALLED),  # its file's code starts it, no test
        ("startFakeDepot", "StartFakeDepot", FAKE),  # exported: a program may start it
        ("startFakeDepot", "startDepot", FAKE),  # no name says it is a fake
    ],
    ids=["called-by-the-file", "exported", "not-named-a-fake"],
)
def test_a_fake_a_program_may_start_is_still_judged(
    tmp_path: Path, old: str, new: str, fake: str
) -> None:
    """Only its own folder's tests call it (they try it): it stands for itself."""
    files = {
        "rpcutil/fake_depot.go": fake.replace(old, new),
        "rpcutil/suite_test.go": SUITE_TEST.replace(old, new),
    }
    assert ("KLB404", "rpcutil/fake_depot.go") in findings(tmp_path, **files)


# A library's server: New makes it and Run serves it, which the program calls; RunOn serves
# it on a listener a test's helper gives, in a package of helpers that never names gRPC.
LIBRARY = """\
package depot

import (
	"net"

	"google.golang.org/grpc"
)

type Service struct {
	GrpcServer *grpc.Server
	Addr       string
}

func New(addr string) *Service {
	return &Service{GrpcServer: grpc.NewServer(), Addr: addr}
}

func (s *Service) Run() error {
	lis, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return err
	}
	return s.GrpcServer.Serve(lis)
}

// RunOn serves on a listener the caller made.
func (s *Service) RunOn(lis net.Listener) {
	if err := s.GrpcServer.Serve(lis); err != nil {
		panic(err)
	}
}
"""

LIBRARY_MAIN = """\
package main

import "example.com/depot/depot"

func main() {
	_ = depot.New(":7070").Run()
}
"""

# no gRPC named: a file k8slb's Go reader does not parse, yet what calls RunOn
STARTER = """\
package depottest

import (
	"net"
	"testing"

	"example.com/depot/depot"
)

func StartDepot(
	t *testing.T,
	addr string,
) *depot.Service {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := depot.New(addr)
	go srv.RunOn(lis)
	return srv
}
"""

STARTER_TEST = """\
package depottest

import "testing"

func TestStart(t *testing.T) {
	StartDepot(t, ":0")
}
"""


def waits_reported(tmp_path: Path, **files: str) -> list[int]:
    tree = {"go.mod": GO_MOD, "cmd/depot/main.go": LIBRARY_MAIN, "depot/depot.go": LIBRARY}
    result = lint_files(tmp_path, {**tree, **files}, ["KLB403"])
    return sorted(f.line for f in result.findings if f.path.endswith("depot.go"))


def test_a_method_only_test_helpers_call_serves_no_pod(tmp_path: Path) -> None:
    """Run, which the program calls, is judged (line 23); RunOn, which only a helper
    given the test's handle calls, is the tests' (line 28)."""
    files = {"depottest/start.go": STARTER, "depottest/start_test.go": STARTER_TEST}
    assert waits_reported(tmp_path, **files) == [23]
    # through a function only a test's helper calls, too
    chained = STARTER.replace("\tt *testing.T,\n", "\tt interface{ Fatal(...any) },\n")
    chained = chained.replace('\t"testing"\n', "")
    files["depottest/start.go"] = chained
    files["depottest/must.go"] = (
        'package depottest\n\nimport "testing"\n\n'
        'func MustStart(t *testing.T) { StartDepot(t, ":0") }\n'
    )
    assert waits_reported(tmp_path / "chained", **files) == [23]
    # a function only its own folder's tests call stands for itself (they try it)
    del files["depottest/must.go"]
    assert waits_reported(tmp_path / "own", **files) == [23, 28]


@pytest.mark.parametrize(
    "main",
    [
        LIBRARY_MAIN.replace("_ = depot.New(", "go depot.New(").replace(
            ".Run()\n", '.Run()\n\tdepot.New(":7071").RunOn(nil)\n'
        ),
        LIBRARY_MAIN.replace("_ = depot.New", 'serve(depot.New(":7071").RunOn)\n\t_ = depot.New')
        + "\nfunc serve(run func(l net.Listener)) { run(nil) }\n",
    ],
    ids=["called", "handed-on"],
)
def test_a_method_a_program_calls_too_is_judged(tmp_path: Path, main: str) -> None:
    if "net.Listener" in main:
        main = main.replace(
            'import "example.com/depot/depot"',
            'import (\n\t"net"\n\n\t"example.com/depot/depot"\n)',
        )
    files = {
        "cmd/depot/main.go": main,
        "depottest/start.go": STARTER,
        "depottest/start_test.go": STARTER_TEST,
    }
    assert waits_reported(tmp_path, **files) == [23, 28]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aAkKeEoOcCfFmM_0Zx", max_size=10))
def test_a_stand_ins_name_is_what_the_pattern_finds(name: str) -> None:
    """`stand_in_name` asks RE2 only where a fake's or a mock's word may be: the same
    answer as STAND_IN_NAME's search of every name."""
    assert stand_in_name(name) == (STAND_IN_NAME.search(name) is not None)
