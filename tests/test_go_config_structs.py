"""A client's address read through a Go service's configuration: a settings package fills
a struct from the environment over defaults and returns it, `main` passes it whole through
functions of other packages, a worker copies a field into a struct literal of its own type,
and that type's methods send to the field on their receiver. Each file is parsed alone; the
values are joined once every file is read (code/imported.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, CodeFacts, EnvRef, PackageField, StructField
from k8slb.code.imported import resolve_imports
from k8slb.languages.go import parse as go_parse
from k8slb.languages.go.parse import analyse_go

from tests.helpers import lint_files

GO_MOD = "module example.com/shop\n\ngo 1.22\n"

SETTINGS = """\
package settings

import (
	"os"
	"strconv"
)

// Settings is what the shop's processes read from their environment.
type Settings struct {
	ListenAddr  string
	PaymentsURL string
	StockURL    string
	Retries     int
}

// FromEnv reads the settings, each over its default for a laptop.
func FromEnv() (Settings, error) {
	s := Settings{
		ListenAddr:  ":8080",
		PaymentsURL: "http://localhost:9001",
		StockURL:    "http://localhost:9002",
		Retries:     3,
	}
	if v := os.Getenv("LISTEN_ADDR"); v != "" {
		s.ListenAddr = v
	}
	if v := os.Getenv("PAYMENTS_URL"); v != "" {
		s.PaymentsURL = v
	}
	if v := os.Getenv("STOCK_URL"); v != "" {
		s.StockURL = v
	}
	if v := os.Getenv("RETRIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return s, err
		}
		s.Retries = n
	}
	return s, nil
}
"""

MAIN = """\
package main

import (
	"context"
	"log"

	"example.com/shop/internal/app"
	"example.com/shop/internal/settings"
)

func main() {
	cfg, err := settings.FromEnv()
	if err != nil {
		log.Fatal(err)
	}
	if err := app.Run(context.Background(), cfg); err != nil {
		log.Fatal(err)
	}
}
"""

APP = """\
package app

import (
	"context"

	"golang.org/x/sync/errgroup"

	"example.com/shop/internal/checkout"
	"example.com/shop/internal/settings"
)

// Run starts the shop's workers and waits for them.
func Run(ctx context.Context, cfg settings.Settings) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return checkout.StartWorker(ctx, cfg)
	})
	return g.Wait()
}
"""

WORKER = """\
package checkout

import (
	"context"

	"example.com/shop/internal/settings"
)

// StartWorker handles checkout jobs until ctx ends.
func StartWorker(ctx context.Context, cfg settings.Settings) error {
	jobs := &Jobs{PaymentsURL: cfg.PaymentsURL}
	return jobs.loop(ctx)
}
"""

JOBS = """\
package checkout

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
)

// Jobs holds what the checkout jobs share.
type Jobs struct {
	PaymentsURL string
}

func (j *Jobs) loop(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Charge asks the payments service to charge an order.
func (j *Jobs) Charge(ctx context.Context, body []byte) error {
	url := j.PaymentsURL + "/charge"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return fmt.Errorf("charge: %s", res.Status)
	}
	return nil
}
"""

# the intermediate package serves its own health check: a file the Go reader reads
APP_SERVING = APP.replace("import (\n", 'import (\n\t"net/http"\n', 1).replace(
    "\treturn g.Wait()\n",
    '\tg.Go(func() error {\n\t\treturn http.ListenAndServe(":8081", nil)\n\t})\n'
    "\treturn g.Wait()\n",
)

FILES = {
    "internal/settings/settings.go": SETTINGS,
    "cmd/shop/main.go": MAIN,
    "internal/app/app.go": APP_SERVING,
    "internal/checkout/worker.go": WORKER,
    "internal/checkout/jobs.go": JOBS,
}

MANIFESTS = """\
apiVersion: v1
kind: Service
metadata: {name: payments}
spec:
  selector: {app: payments}
  ports: [{port: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop}
spec:
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
        - name: shop
          env:
            - {name: PAYMENTS_URL, value: "http://payments:8080"}
"""


def _read(files: dict[str, str]) -> list[CodeFacts]:
    return resolve_imports([analyse_go(path, text.encode()) for path, text in files.items()])


def _urls(files: dict[str, str], path: str = "internal/checkout/jobs.go") -> list[object]:
    [module] = [m for m in _read(files) if m.path == path]
    return [url for url, _ in module.urls]


def test_the_settings_function_exports_each_field_it_fills_from_the_environment() -> None:
    settings = analyse_go("internal/settings/settings.go", SETTINGS.encode())
    assert settings.exports["field FromEnv .PaymentsURL"] == EnvRef(
        "PAYMENTS_URL", "http://localhost:9001"
    )
    assert "field FromEnv .Retries" not in settings.exports, "written in a nested block"


def test_a_receivers_field_a_literal_of_another_file_fills_is_followed_to_the_environment() -> None:
    """jobs.go posts to `j.PaymentsURL`, which worker.go's `&Jobs{PaymentsURL:
    cfg.PaymentsURL}` fills from the settings struct main passes through app.Run."""
    jobs = analyse_go("internal/checkout/jobs.go", JOBS.encode())
    [(url, _)] = jobs.urls
    assert StructField("internal/checkout", "Jobs", "PaymentsURL") in url.parts
    main = analyse_go("cmd/shop/main.go", MAIN.encode())
    [call] = main.exports["call example.com/shop/internal/app Run"]
    assert call[1] == PackageField("example.com/shop/internal/settings", "", "FromEnv")
    assert _urls(FILES) == [EnvRef("PAYMENTS_URL", "http://localhost:9001", suffix="/charge")]


def test_end_to_end_the_default_client_posting_to_a_configured_service_is_klb202(
    tmp_path: Path,
) -> None:
    files = {"go.mod": GO_MOD, "k8s.yaml": MANIFESTS, **FILES}
    [finding] = lint_files(tmp_path, files, ["KLB202"]).findings
    assert finding.path.endswith("internal/checkout/jobs.go") and finding.line == 27
    assert "'http://payments:8080/charge'" in finding.text


def test_what_the_readers_cannot_tie_stays_unknown() -> None:
    # no literal of the type in any file: nothing fills the field
    alone = {p: t for p, t in FILES.items() if not p.endswith("worker.go")}
    assert _urls(alone) == [UNKNOWN]
    # two literals with different values: no one address stands
    two = WORKER.replace(
        "\tjobs := &Jobs{PaymentsURL: cfg.PaymentsURL}\n",
        "\tjobs := &Jobs{PaymentsURL: cfg.PaymentsURL}\n"
        '\t_ = Jobs{PaymentsURL: "http://payments-canary:8080"}\n',
    )
    assert _urls({**FILES, "internal/checkout/worker.go": two}) == [UNKNOWN]
    # another file of the package sets the field itself: the literal is not all it holds
    override = (
        'package checkout\n\nimport "os"\n\n'
        'func (j *Jobs) useCanary() {\n\tj.PaymentsURL = os.Getenv("CANARY_URL")\n}\n'
    )
    assert _urls({**FILES, "internal/checkout/canary.go": override}) == [UNKNOWN]
    # the settings struct handed to a method that may change any field
    loaded = SETTINGS.replace("\treturn s, nil\n", "\ts.Load()\n\treturn s, nil\n")
    assert _urls({**FILES, "internal/settings/settings.go": loaded}) == [UNKNOWN]
    # a field set in an `else`: not the variable's default
    branched = SETTINGS.replace(
        "\t\ts.PaymentsURL = v\n\t}\n",
        '\t\ts.PaymentsURL = v\n\t} else {\n\t\ts.PaymentsURL = "x"\n\t}\n',
    )
    assert _urls({**FILES, "internal/settings/settings.go": branched}) == [UNKNOWN]
    # an unconditional write after the default replaces it
    plain = SETTINGS.replace(
        '\tif v := os.Getenv("PAYMENTS_URL"); v != "" {\n\t\ts.PaymentsURL = v\n\t}\n',
        '\ts.PaymentsURL = os.Getenv("PAYMENTS_URL")\n',
    )
    assert _urls({**FILES, "internal/settings/settings.go": plain}) == [
        EnvRef("PAYMENTS_URL", None, suffix="/charge")
    ]


def test_a_parameter_named_as_the_package_of_its_type_is_the_parameter() -> None:
    """`func StartWorker(ctx, settings settings.Settings)`: `settings.PaymentsURL` reads
    the parameter, not a package's variable."""
    named = WORKER.replace("cfg settings.Settings", "settings settings.Settings").replace(
        "cfg.PaymentsURL", "settings.PaymentsURL"
    )
    files = {**FILES, "internal/checkout/worker.go": named}
    assert _urls(files) == [EnvRef("PAYMENTS_URL", "http://localhost:9001", suffix="/charge")]


GRPC_JOBS = """\
package checkout

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

type Jobs struct {
	PaymentsURL string
}

func (j *Jobs) loop(ctx interface{ Done() <-chan struct{} }) error {
	creds := grpc.WithTransportCredentials(insecure.NewCredentials())
	conn, err := grpc.NewClient(j.PaymentsURL, creds)
	if err != nil {
		return err
	}
	defer conn.Close()
	<-ctx.Done()
	return nil
}
"""


def test_a_grpc_channel_dialled_through_the_same_configuration_is_followed() -> None:
    """KLB102 reads a channel's target through the same paths as KLB202's URLs."""
    files = {**FILES, "internal/checkout/jobs.go": GRPC_JOBS}
    [module] = [m for m in _read(files) if m.path == "internal/checkout/jobs.go"]
    assert [c.target for c in module.channels] == [EnvRef("PAYMENTS_URL", "http://localhost:9001")]


def test_a_url_whose_path_holds_an_unknown_piece_keeps_its_address() -> None:
    """`base + "/orders/" + id + "/status"`: the order's ID cannot change the host."""
    jobs = JOBS.replace(
        'j.PaymentsURL + "/charge"', 'j.PaymentsURL + "/orders/" + id + "/charge"'
    ).replace("body []byte)", "id string, body []byte)")
    assert _urls({**FILES, "internal/checkout/jobs.go": jobs}) == [
        EnvRef("PAYMENTS_URL", "http://localhost:9001", suffix="/orders/.../charge")
    ]
    host = JOBS.replace('j.PaymentsURL + "/charge"', '"http://" + host + "/charge"').replace(
        "body []byte)", "host string, body []byte)"
    )
    assert _urls({**FILES, "internal/checkout/jobs.go": host}) == [UNKNOWN], "the host unknown"


def test_the_default_client_held_in_a_variable_is_reported_where_it_is_bound() -> None:
    held = JOBS.replace(
        "\tres, err := http.DefaultClient.Do(req)\n",
        "\tclient := http.DefaultClient\n\tres, err := client.Do(req)\n",
    )
    jobs = analyse_go("internal/checkout/jobs.go", held.encode())
    assert [(c.factory, c.loc.line) for c in jobs.http_clients] == [("http.DefaultClient", 27)]


def test_a_function_that_returns_nothing_is_not_walked_for_its_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A function whose body never spells `return` fills no struct for its callers: its
    statements are not walked for one (each node a Python object), and what the file
    exports is the same."""
    walked: list[str] = []
    real = go_parse._returned_names
    monkeypatch.setattr(
        go_parse, "_returned_names", lambda s: walked.append(go_parse._text(s)) or real(s)
    )
    no_return = SETTINGS + "\nfunc Log(s Settings) {\n\tprintln(s.PaymentsURL)\n}\n"
    read = analyse_go("internal/settings/settings.go", no_return.encode())
    assert read.exports == analyse_go("internal/settings/settings.go", SETTINGS.encode()).exports
    assert walked and not any("println" in statement for statement in walked)
