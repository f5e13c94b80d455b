"""KLB401 on servers that drain themselves: a SIGTERM path in the code that waits before it
stops the server (no finding), and a setting of the container's configuration whose name
says the server delays its own stop (info, naming the setting)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from k8slb.code.facts import UNKNOWN
from k8slb.core.findings import Finding, Severity
from k8slb.languages.go.parse import analyse_go
from k8slb.languages.python.parse import parse as parse_python
from k8slb.model.drains import drain_kind, duration_seconds, settings_in
from k8slb.rulekit.examples import BUILT_HERE, READY, web_deployment

from .helpers import lint_files, lint_text

if TYPE_CHECKING:
    from tree_sitter import Node

COREFILE = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dns
data:
  Corefile: |
    .:53 {
        errors
        health {
            LAMEDUCK
        }
        forward . /etc/resolv.conf
    }
"""
MOUNT = "volumeMounts:\n  - {name: config, mountPath: /etc/dns}\n"
VOLUME = "volumes:\n  - name: config\n    configMap: {name: dns}\n"


def _dns(lameduck: str, *, mounted: bool = True, grace: str = "") -> str:
    pod = VOLUME + grace
    manifests = web_deployment(READY + (MOUNT if mounted else ""), pod)
    return manifests + COREFILE.replace("LAMEDUCK", lameduck)


def _args(*args: str) -> str:
    return web_deployment(READY + "args: [" + ", ".join(f'"{a}"' for a in args) + "]\n")


def _one(tmp_path: Path, text: str) -> Finding:
    (finding,) = lint_text(tmp_path, text, ["KLB401"])
    return finding


def test_a_lame_duck_period_in_a_mounted_config_file_makes_klb401_info_naming_it(
    tmp_path: Path,
) -> None:
    finding = _one(tmp_path, _dns("lameduck 10s"))
    assert finding.severity is Severity.INFO
    assert "lame-duck period is set (lameduck 10s, in ConfigMap dns, Corefile)" in finding.text
    assert any("ConfigMap dns" in related.message for related in finding.related)


def test_a_config_file_the_container_does_not_mount_is_no_evidence(tmp_path: Path) -> None:
    assert _one(tmp_path, _dns("lameduck 10s", mounted=False)).severity is Severity.WARNING


@pytest.mark.parametrize(
    "setting",
    ["lameduck 0s", "lameduck 500ms", "# lameduck 10s", "lameduck", "lameduck for a while"],
    ids=["zero", "under-a-second", "commented-out", "no-value", "prose"],
)
def test_a_drain_delay_of_zero_or_none_written_keeps_the_warning(
    tmp_path: Path, setting: str
) -> None:
    assert _one(tmp_path, _dns(setting)).severity is Severity.WARNING


def test_a_delay_not_shorter_than_the_grace_period_says_so(tmp_path: Path) -> None:
    finding = _one(tmp_path, _dns("lameduck 40s"))  # the default grace is 30 s
    assert finding.severity is Severity.INFO
    assert "not shorter than terminationGracePeriodSeconds (30)" in finding.text
    longer = _one(tmp_path / "b", _dns("lameduck 40s", grace="terminationGracePeriodSeconds: 60"))
    assert "terminationGracePeriodSeconds" not in longer.text.split("info only", 1)[1]


@pytest.mark.parametrize(
    "flag",
    [
        "--shutdown-delay-duration=10s",
        "-http.shutdownDelay=5s",
        "--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=10s",
        "--drain-delay-seconds=5",
    ],
)
def test_a_shutdown_delay_flag_makes_klb401_info_naming_it(tmp_path: Path, flag: str) -> None:
    finding = _one(tmp_path, _args(flag))
    assert finding.severity is Severity.INFO
    assert (
        f"{flag.lstrip('-').split('=')[0]} " in finding.text and "its command line" in finding.text
    )
    web = web_deployment(READY)
    args_line = web.count("\n", 0, web.index("readinessProbe")) + 3  # after the probe's 2
    assert ("manifest.yaml", args_line) in [(Path(r.path).name, r.line) for r in finding.related]


@pytest.mark.parametrize(
    "flag",
    [
        "-http.shutdownDelay=0s",
        "--graceful-timeout=30s",
        "--shutdown-timeout=30s",
        "--retry-delay=5s",
    ],
    ids=["zero-delay", "graceful-timeout", "shutdown-timeout", "not-a-stop"],
)
def test_a_timeout_of_the_stop_itself_or_a_zero_delay_keeps_the_warning(
    tmp_path: Path, flag: str
) -> None:
    """A timeout or grace bounds how long the stop may take once the server stops
    accepting: it is no pause before it."""
    assert _one(tmp_path, _args(flag)).severity is Severity.WARNING


def test_a_delay_in_the_env_whose_value_k8slb_cannot_read_is_info_and_says_so(
    tmp_path: Path,
) -> None:
    env = "env:\n  - {name: SHUTDOWN_DELAY, value: $(DELAY)}\n"
    finding = _one(tmp_path, web_deployment(READY + env))
    assert finding.severity is Severity.INFO
    assert "SHUTDOWN_DELAY $(DELAY), in its env), for a time k8slb cannot read" in finding.text


def test_a_delay_in_the_env_from_a_config_maps_key_is_read_there(tmp_path: Path) -> None:
    env = "env:\n  - name: DRAIN_DELAY\n    valueFrom: {configMapKeyRef: {name: cfg, key: drain}}\n"
    config = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {drain: 45s}\n"
    finding = _one(tmp_path, web_deployment(READY + env) + config)
    assert finding.severity is Severity.INFO
    assert "DRAIN_DELAY 45s, in its env, from ConfigMap cfg" in finding.text


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("lameduck", "a lame-duck period"),
        ("lame_duck_duration", "a lame-duck period"),
        ("shutdown-delay-duration", "a shutdown delay"),
        ("HTTPShutdownDelay", "a shutdown delay"),
        ("TERMINATION_DELAY_SECONDS", "a shutdown delay"),
        ("requestAcceptGraceTimeout", "an accept grace period"),
        ("READINESS_SHUTDOWN_DURATION", "a readiness shutdown period"),
        ("readinessProbe", None),
        ("graceful-timeout", None),
        ("terminationGracePeriodSeconds", None),
        ("startup-delay", None),
        ("drainTimeout", None),
    ],
)
def test_a_settings_name_says_whether_it_delays_the_servers_own_stop(
    name: str, kind: str | None
) -> None:
    assert drain_kind(name) == kind


@pytest.mark.parametrize(
    ("value", "name", "seconds"),
    [
        ("10s", "lameduck", 10.0),
        ("1m30s", "shutdownDelay", 90.0),
        ("500ms", "shutdownDelay", 0.5),
        ("5", "SHUTDOWN_DELAY_SECONDS", 5.0),
        ("5000", "drainDelayMs", 5.0),
        ("5", "shutdownDelay", None),  # no unit: not read
        ("0", "shutdownDelay", 0.0),
    ],
)
def test_a_drain_delay_is_read_in_its_unit(value: str, name: str, seconds: float | None) -> None:
    assert duration_seconds(value, name) == seconds


def test_a_setting_is_read_from_json_yaml_and_flag_syntax() -> None:
    texts = [
        '{"shutdownDelay": "5s"}',
        "shutdownDelay: 5s",
        "--shutdown-delay 5s",
        "X_DRAIN_DELAY=5s",
    ]
    assert [[s.seconds for s in settings_in(text, "x")] for text in texts] == [[5.0]] * 4


def test_a_long_run_of_name_characters_is_no_setting() -> None:
    blob = "shutdown-delay" * 100_000 + "=10s"
    assert list(settings_in(blob, "x")) == []


# -- the code's own pause ----------------------------------------------------------------

PYTHON_DRAIN = """\
import signal
import time

import grpc

server = grpc.server(None)


def on_term(signum, frame):
    time.sleep(SECONDS)
    server.stop(10)


signal.signal(signal.SIGTERM, on_term)
server.start()
server.wait_for_termination()
"""


def _with_code(tmp_path: Path, code: str) -> list[Finding]:
    files = {"manifest.yaml": web_deployment(READY), "app.py": code, **dict(BUILT_HERE)}
    return lint_files(tmp_path, files, ["KLB401"]).findings


def test_code_that_waits_on_sigterm_before_it_stops_needs_no_prestop(tmp_path: Path) -> None:
    assert _with_code(tmp_path, PYTHON_DRAIN.replace("SECONDS", "5")) == []


def test_code_that_waits_for_a_time_k8slb_cannot_read_is_info_naming_the_wait(
    tmp_path: Path,
) -> None:
    code = PYTHON_DRAIN.replace("SECONDS", "int(os.environ['DRAIN'])")
    (finding,) = _with_code(tmp_path, "import os\n" + code)
    assert finding.severity is Severity.INFO
    assert "its code waits on SIGTERM before it stops (app.py:11)" in finding.text
    assert "for a time k8slb cannot read" in finding.text


def test_code_that_waits_longer_than_the_grace_period_is_info(tmp_path: Path) -> None:
    (finding,) = _with_code(tmp_path, PYTHON_DRAIN.replace("SECONDS", "45"))
    assert finding.severity is Severity.INFO and "for 45 s" in finding.text


def test_code_that_waits_less_than_a_second_keeps_the_warning(tmp_path: Path) -> None:
    """Routing takes a second or more to drop a pod: a shorter wait is no pause."""
    (finding,) = _with_code(tmp_path, PYTHON_DRAIN.replace("SECONDS", "0.5"))
    assert finding.severity is Severity.WARNING


def test_code_that_stops_before_it_sleeps_keeps_the_warning(tmp_path: Path) -> None:
    stops_first = PYTHON_DRAIN.replace(
        "    time.sleep(SECONDS)\n    server.stop(10)\n", "    server.stop(10)\n    time.sleep(5)\n"
    )
    (finding,) = _with_code(tmp_path, stops_first)
    assert finding.severity is Severity.WARNING


def test_python_pauses_in_a_handler_a_lambda_runs_and_only_awaited_asyncio_sleeps() -> None:
    code = b"""\
import asyncio, signal

async def shutdown():
    await asyncio.sleep(3)
    await runner.cleanup()

async def not_awaited():
    asyncio.sleep(3)
    await runner.cleanup()

loop = asyncio.get_event_loop()
loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.create_task(shutdown()))
loop.add_signal_handler(signal.SIGTERM, not_awaited)
"""
    (pause,) = parse_python("app.py", code).signal_pauses
    assert (pause.loc.line, pause.handler.line, pause.seconds) == (4, 12, 3)


GO_MAIN = """\
package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

const drain = 5 * time.Second

func main() {
	srv := &http.Server{Addr: ":8080"}
	go srv.ListenAndServe()
BODY
}
"""


@pytest.mark.parametrize(
    ("body", "seconds"),
    [
        (
            "\tsig := make(chan os.Signal, 1)\n\tsignal.Notify(sig, syscall.SIGTERM)\n"
            "\t<-sig\n\ttime.Sleep(drain)\n\tsrv.Shutdown(context.Background())\n",
            5.0,
        ),
        (
            "\tctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)\n"
            "\tdefer stop()\n\tselect {\n\tcase <-ctx.Done():\n"
            "\t\t<-time.After(3 * time.Second)\n\t\tsrv.Shutdown(context.Background())\n\t}\n",
            3.0,
        ),
        (
            "\tsig := make(chan os.Signal, 1)\n\tsignal.Notify(sig, syscall.SIGTERM)\n"
            "\t<-sig\n\ttime.Sleep(time.Duration(delay()))\n\tsrv.Shutdown(context.Background())\n",
            UNKNOWN,
        ),
    ],
    ids=["receive-then-sleep", "select-case-time-after", "unknown-duration"],
)
def test_go_sleep_after_the_signal_and_before_the_stop_is_a_pause(
    body: str, seconds: object
) -> None:
    facts = analyse_go("main.go", GO_MAIN.replace("BODY", body).encode())
    (pause,) = facts.signal_pauses
    assert pause.seconds == seconds


def test_go_sleep_after_the_stop_or_an_unreceived_time_after_is_no_pause() -> None:
    body = (
        "\tsig := make(chan os.Signal, 1)\n\tsignal.Notify(sig, syscall.SIGTERM)\n"
        "\t<-sig\n\ttime.After(drain)\n\tsrv.Shutdown(context.Background())\n\ttime.Sleep(drain)\n"
    )
    assert analyse_go("main.go", GO_MAIN.replace("BODY", body).encode()).signal_pauses == []


NODE_HANDLERS = b"""\
const server = app.listen(8080);
const DRAIN_MS = 5000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

process.on('SIGTERM', async () => {
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
  server.close();
});
process.on('SIGTERM', () => {
  setTimeout(() => process.exit(1), 10000).unref();
  server.close();
});
process.on('SIGTERM', () => {
  setTimeout(() => server.close(), 3000);
});
async function onTerm() { await sleep(2000); server.close(); }
process.once('SIGTERM', onTerm);
"""


def test_node_pauses_are_awaited_timers_or_timers_that_close_the_server() -> None:
    """A timer that only exits (the usual force-exit) bounds the stop: it is no pause."""
    from k8slb.languages.javascript.parse import parse as parse_javascript

    pauses = parse_javascript("server.js", NODE_HANDLERS).signal_pauses
    assert sorted((p.loc.line, p.seconds) for p in pauses) == [(6, 5.0), (14, 3.0), (16, 2.0)]


JAVA_HOOKS = b"""\
import io.grpc.Server;
import java.util.concurrent.TimeUnit;

public class App {
  private static final long DRAIN_MS = 5000;
  private Server server;

  void start() {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        Thread.sleep(DRAIN_MS);
      } catch (InterruptedException e) {}
      server.shutdown();
    }));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> App.this.stop()));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.shutdown();
      Thread.sleep(1000);
    }));
  }

  void stop() throws InterruptedException {
    TimeUnit.SECONDS.sleep(3);
    server.shutdown().awaitTermination(30, TimeUnit.SECONDS);
  }
}
"""


def test_java_pauses_are_sleeps_a_shutdown_hook_makes_before_it_stops() -> None:
    from k8slb.languages.java.parse import parse as parse_java

    pauses = parse_java("App.java", JAVA_HOOKS).signal_pauses
    assert sorted((p.loc.line, p.seconds) for p in pauses) == [(11, 5.0), (23, 3.0)]


def test_a_java_hook_that_pauses_itself_reads_none_of_the_files_methods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a method is walked for its pause only when a hook calls it: a reader's cost stays
    # its parse's, however many methods the file has
    from k8slb.languages.java import parse_shutdown
    from k8slb.languages.java.parse import parse as parse_java

    walked: list[int] = []
    first_pause = parse_shutdown.first_pause

    def counted(body: Node, *rest: Any) -> tuple[Node, object] | None:
        walked.append(int(body.start_point[0]) + 1)  # the line the body read starts on
        return first_pause(body, *rest)

    monkeypatch.setattr(parse_shutdown, "first_pause", counted)
    methods = "".join(f"  void step{n}() {{ server.stop(); }}\n" for n in range(5))
    source = (
        "public class App {\n"
        "  void start() {\n"
        "    Runtime.getRuntime().addShutdownHook(new Thread(() -> {\n"
        "      Thread.sleep(5000);\n"
        "      server.shutdown();\n"
        "    }));\n"
        f"  }}\n{methods}}}\n"
    )
    pauses = parse_java("App.java", ("import io.grpc.Server;\n" + source).encode()).signal_pauses
    assert [(p.loc.line, p.seconds) for p in pauses] == [(5, 5.0)]
    assert walked == [4]  # the hook's own body


# A Go server that drains itself in a method of its app: health NOT_SERVING, then a wait
# whose length is a field of its config struct (a default set elsewhere), then the stop;
# main receives SIGTERM and calls Run, which calls Close (DRAIN: the drain's statements).
GO_APP_MAIN = """\
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"example.com/orders/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := app.New(app.Load()).Run(ctx); err != nil {
		os.Exit(1)
	}
}
"""
GO_APP = """\
package app

import (
	"context"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

type Config struct {
	Addr       string
	DrainDelay time.Duration
}

func Load() Config {
	return Config{Addr: ":50051", DrainDelay: envDuration("SHUTDOWN_WAIT", 5*time.Second)}
}

func envDuration(name string, fallback time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return fallback
}

type App struct {
	cfg    Config
	server *grpc.Server
	health *health.Server
}

func New(cfg Config) *App {
	a := &App{cfg: cfg, server: grpc.NewServer(), health: health.NewServer()}
	healthpb.RegisterHealthServer(a.server, a.health)
	return a
}

func (a *App) Run(ctx context.Context) error {
	lis, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return err
	}
	go a.server.Serve(lis)
	<-ctx.Done()
	return a.Close(context.WithoutCancel(ctx))
}

func (a *App) Close(ctx context.Context) error {
DRAIN	a.server.GracefulStop()
	return nil
}
"""
DRAINS = (
    '\ta.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)\n'
    "\tselect {\n\tcase <-time.After(a.cfg.DrainDelay):\n\tcase <-ctx.Done():\n\t}\n"
)


def _go_app(tmp_path: Path, drain: str) -> list[Finding]:
    files = {
        "manifest.yaml": web_deployment(READY),
        "skaffold.yaml": dict(BUILT_HERE)["skaffold.yaml"],
        "Dockerfile": "FROM golang:1.22\nWORKDIR /src\nCOPY . .\n"
        'RUN go build -o /bin/orders ./cmd/orders\nCMD ["/bin/orders"]\n',
        "go.mod": "module example.com/orders\n",
        "cmd/orders/main.go": GO_APP_MAIN,
        "internal/app/app.go": GO_APP.replace("DRAIN", drain),
    }
    return lint_files(tmp_path, files, ["KLB401"]).findings


def test_a_go_drain_method_that_waits_after_not_serving_is_a_pause_k8slb_cannot_time() -> None:
    facts = analyse_go("app.go", GO_APP.replace("DRAIN", DRAINS).encode())
    (pause,) = facts.signal_pauses
    assert (pause.loc.line, pause.handler.line) == (55, 53)
    assert pause.seconds is UNKNOWN and pause.signalled is False


def test_a_go_server_draining_in_a_method_for_a_time_from_its_config_is_info(
    tmp_path: Path,
) -> None:
    (finding,) = _go_app(tmp_path, DRAINS)
    assert finding.severity is Severity.INFO
    assert "its code sets its health NOT_SERVING, then waits (app.go:55" in finding.text
    assert "for a time k8slb cannot read" in finding.text


def test_a_go_drain_known_in_length_but_not_tied_to_sigterm_is_still_info(
    tmp_path: Path,
) -> None:
    """The wait is read (5 s), but the path from SIGTERM to it is not followed: info."""
    drain = DRAINS.replace("a.cfg.DrainDelay", "5 * time.Second")
    (finding,) = _go_app(tmp_path, drain)
    assert finding.severity is Severity.INFO and ", 5 s)" in finding.text


def test_a_go_server_that_stops_before_it_waits_or_never_fails_health_keeps_the_warning(
    tmp_path: Path,
) -> None:
    no_health = DRAINS.replace(
        '\ta.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)\n', ""
    )
    (finding,) = _go_app(tmp_path / "no-health", no_health)
    assert finding.severity is Severity.WARNING
    stops_first = '\ta.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)\n'
    stops_first += "\ta.server.Stop()\n\t<-time.After(5 * time.Second)\n"
    (finding,) = _go_app(tmp_path / "stops-first", stops_first)
    assert finding.severity is Severity.WARNING
