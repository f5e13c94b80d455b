"""Go code only tests use (a fake server, a test database's set-up, a generated mock) is
no program a container runs: a package no `main` package links in, imported only by test
files of other folders (directly, or through other such packages), is read as tests are
(code/projects.test_support), and its servers and pools are not reported."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import lint_files

GO_MOD = "module example.com/ledger\n\ngo 1.22\n"

MAIN = """\
package main

import (
	"os"
	"os/signal"
	"syscall"

	"example.com/ledger/books"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	books.Open()
	<-stop
}
"""

BOOKS = "package books\n\nfunc Open() {}\n"

# A fake of the ledger's gRPC peer for tests, and a scratch database, outside _test.go files.
FAKE = """\
package PACKAGE

import (
	"database/sql"
	"net"

	"google.golang.org/grpc"
)

type Fake struct{ server *grpc.Server }

func Start() (*Fake, *sql.DB, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	f := &Fake{server: grpc.NewServer()}
	go f.server.Serve(lis)
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/scratch")
	return f, db, err
}

func (f *Fake) Close() { f.server.Stop() }
"""

BOOKS_TEST = """\
package books_test

import (
	"testing"

	"example.com/ledger/internal/fakes"
)

func TestOpen(t *testing.T) { fakes.Start() }
"""

# a harness (no test file) that only tests import, over the fakes
HARNESS = """\
package harness

import "example.com/ledger/internal/fakes"

func Up() { fakes.Start() }
"""

E2E_TEST = """\
package e2e

import (
	"testing"

	"example.com/ledger/internal/harness"
)

func TestFlow(t *testing.T) { harness.Up() }
"""

OWN_TEST = """\
package relay_test

import (
	"testing"

	"example.com/ledger/relay"
)

func TestRelay(t *testing.T) { relay.Start() }
"""


def test_a_package_only_tests_import_is_no_program_and_a_library_stands_for_itself(
    tmp_path: Path,
) -> None:
    files = {
        "go.mod": GO_MOD,
        "cmd/ledger/main.go": MAIN,
        "books/books.go": BOOKS,
        "books/books_test.go": BOOKS_TEST,
        "internal/fakes/fake.go": FAKE.replace("PACKAGE", "fakes"),
        "internal/harness/harness.go": HARNESS,
        "e2e/e2e_test.go": E2E_TEST,
        # a library no program links in: imported by nothing, or by its own tests only;
        # its server, held in a struct's field, is judged as the library's own (info)
        "relay/relay.go": FAKE.replace("PACKAGE", "relay"),
        "relay/relay_test.go": OWN_TEST,
    }
    result = lint_files(tmp_path, files, ["KLB201", "KLB203", "KLB403", "KLB404"])
    found = sorted({(f.rule, str(Path(f.path).relative_to(tmp_path))) for f in result.findings})
    assert found == [
        ("KLB201", "relay/relay.go"),
        ("KLB203", "relay/relay.go"),
        ("KLB403", "relay/relay.go"),
        ("KLB404", "relay/relay.go"),
    ]
