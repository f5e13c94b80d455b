"""Java (grpc-java): a file's servers and channels, read along their builders' chains, how
its servers are waited on and stopped, its shutdown hooks and health service; judged by
the same rules as the other languages, worded in grpc-java's terms, silenced with `//`
comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.code.facts import UNKNOWN, CodeFacts, EnvRef
from k8slb.interface.cli import cli
from k8slb.languages.java.parse import parse
from k8slb.model.grpc_options import INT_MAX
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files, rules_of

# The shape of grpc-java's HelloWorldServer example: the server built and started in
# start(), a shutdown hook that stops it, main() waiting in blockUntilShutdown().
SERVER = """\
package com.example.greeter;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

public class GreeterServer {
  private Server server;

  private void start() throws IOException {
    int port = 50051;
    server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(new GreeterImpl())BUILDER
        .build()
        .start();
HOOK  }

  private void stop() throws InterruptedException {
    if (server != null) {
      server.shutdown().awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  private void blockUntilShutdown() throws InterruptedException {
    if (server != null) {
      server.awaitTermination();
    }
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    final GreeterServer server = new GreeterServer();
    server.start();
    server.blockUntilShutdown();
  }
}
"""
HOOK = """\
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        GreeterServer.this.stop();
      } catch (InterruptedException e) {
        server.shutdownNow();
      }
    }));
"""
MAX_AGE = (
    "\n        .maxConnectionAge(5, TimeUnit.MINUTES)\n"
    "        .maxConnectionAgeGrace(30, TimeUnit.SECONDS)"
)


def server_file(builder: str = "", hook: str = HOOK) -> str:
    return SERVER.replace("BUILDER", builder).replace("HOOK", hook)


def facts_of(text: str, path: str = "src/main/java/Main.java") -> CodeFacts:
    return parse(path, text.encode())


# -- servers ---------------------------------------------------------------------------


def test_a_server_is_read_along_its_builder_chain() -> None:
    facts = facts_of(server_file(MAX_AGE))
    (server,) = facts.servers
    assert (server.factory, server.name, server.loc.line, server.loc.column) == (
        "Grpc.newServerBuilderForPort",
        "server",
        14,
        14,
    )
    assert server.options.complete
    assert server.options.get("grpc.max_connection_age_ms").value == 300_000
    assert server.options.get("grpc.max_connection_age_grace_ms").value == 30_000
    assert facts.starts == {"server"}
    (listen,) = facts.listens
    assert (listen.server, listen.address) == ("server", ":50051")


@pytest.mark.parametrize(
    ("setting", "key", "value"),
    [
        ("maxConnectionAge(30, TimeUnit.SECONDS)", "grpc.max_connection_age_ms", 30_000),
        ("maxConnectionAge(2, TimeUnit.HOURS)", "grpc.max_connection_age_ms", 7_200_000),
        ("maxConnectionAge(500, MILLISECONDS)", "grpc.max_connection_age_ms", 500),
        (
            "maxConnectionAge(Long.MAX_VALUE, TimeUnit.NANOSECONDS)",
            "grpc.max_connection_age_ms",
            INT_MAX,
        ),
        ("maxConnectionIdle(15, TimeUnit.SECONDS)", "grpc.max_connection_idle_ms", 15_000),
        ("keepAliveTime(5, TimeUnit.MINUTES)", "grpc.keepalive_time_ms", 300_000),
        ("keepAliveTimeout(1, TimeUnit.SECONDS)", "grpc.keepalive_timeout_ms", 1000),
        (
            "maxConnectionAge(AGE_MINUTES * 2, TimeUnit.MINUTES)",
            "grpc.max_connection_age_ms",
            600_000,
        ),
        ("maxConnectionAge(ageMinutes(), TimeUnit.MINUTES)", "grpc.max_connection_age_ms", UNKNOWN),
    ],
)
def test_duration_settings_are_kept_under_grpcs_core_names_in_milliseconds(
    setting: str, key: str, value: object
) -> None:
    text = server_file("\n        ." + setting).replace(
        "  private Server server;",
        "  private static final int AGE_MINUTES = 5;\n  private Server server;",
    )
    (server,) = facts_of(text).servers
    assert server.options.get(key).value == value


def test_a_builder_held_in_a_variable_is_followed_to_its_build() -> None:
    text = """\
import io.grpc.Server;
import io.grpc.ServerBuilder;
import java.util.concurrent.TimeUnit;

class Main {
  public static void main(String[] args) throws Exception {
    ServerBuilder<?> builder = ServerBuilder.forPort(8980);
    builder.addService(new RouteGuideService());
    builder = builder.maxConnectionAge(1, TimeUnit.MINUTES);
    Server server = builder.build();
    server.start();
    server.awaitTermination();
  }
}
"""
    facts = facts_of(text)
    (server,) = facts.servers
    assert server.name == "server" and server.options.complete
    assert server.options.get("grpc.max_connection_age_ms").value == 60_000
    assert facts.starts == {"server"}
    assert [w.server for w in facts.waits] == ["server"]


def test_a_name_given_a_new_builder_in_turn_holds_each_builders_own_calls() -> None:
    """Statements of one block that bind the name again end the builder before: its
    calls are not the next one's (and a method that does so a thousand times is read
    once, not once a builder)."""
    text = """\
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

class Clients {
  void connect() {
    ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget("cart:50051");
    builder.defaultLoadBalancingPolicy("round_robin");
    ManagedChannel cart = builder.build();
    builder = ManagedChannelBuilder.forTarget("ads:50051");
    builder = builder.usePlaintext();
    ManagedChannel ads = builder.build();
  }
}
"""
    cart, ads = facts_of(text).channels
    assert cart.target == "cart:50051" and ads.target == "ads:50051"
    assert cart.options.get("grpc.lb_policy_name").value == "round_robin"
    assert ads.options.get("grpc.lb_policy_name") is None and ads.options.complete


def test_a_builder_handed_to_a_method_has_options_k8slb_cannot_see() -> None:
    helper = """\
import io.grpc.Server;
import io.grpc.ServerBuilder;

class Main {
  static Server make(int port) {
    ServerBuilder<?> builder = ServerBuilder.forPort(port);
    configure(builder);
    return builder.build();
  }
}
"""
    (server,) = facts_of(helper).servers
    assert not server.options.complete
    wrapped = helper.replace(
        "    ServerBuilder<?> builder = ServerBuilder.forPort(port);\n    configure(builder);\n"
        "    return builder.build();",
        "    return withKeepalive(ServerBuilder.forPort(port)).build();",
    )
    (server,) = facts_of(wrapped).servers
    assert not server.options.complete


# A node of a pipeline: main() makes the builder, a method of the class gives it its
# services and builds it (and a helper of another class may add an interceptor).
HANDED = """\
package org.acme.relay;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import java.util.concurrent.TimeUnit;

public final class RelayNode {
  private Server server;

  private Server assemble(String zone, ServerBuilder<?> builder, int workers) {
    builder.addService(new RelayService(zone, workers));
    if (workers > 1) {
      builder.addService(new FanOutService(workers));
    }SETTINGS
    return builder.build();
  }

  public void run(int port) throws Exception {
    ServerBuilder<?> builder = ServerBuilder.forPort(port);
    server = assemble("eu", builder, 4);
    server.start();
    server.awaitTermination();
  }
}
"""


@pytest.mark.parametrize(
    ("settings", "complete", "age"),
    [
        ("", True, None),
        ("\n    builder.maxConnectionAge(10, TimeUnit.MINUTES);", True, 600_000),
        ("\n    tune(builder);", False, None),  # a method of no file k8slb read
    ],
    ids=["none", "age", "handed-on"],
)
def test_a_builder_handed_to_a_method_of_the_file_is_followed_into_it(
    settings: str, complete: bool, age: object
) -> None:
    (server,) = facts_of(HANDED.replace("SETTINGS", settings)).servers
    line = 19 + settings.count("\n")  # the factory's; and what holds the server
    assert (server.loc.line, server.name) == (line, "server")
    assert server.options.complete is complete
    found = server.options.get("grpc.max_connection_age_ms")
    assert (found.value if found is not None else None) == age


def test_a_builder_given_to_a_method_of_an_object_of_the_class_is_followed() -> None:
    text = """\
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;

class Gateway {
  private Server server;

  void open(NettyServerBuilder builder, String name) throws Exception {
    server = builder.addService(new EdgeService(name)).build().start();
  }

  public static void main(String[] args) throws Exception {
    Gateway gateway = new Gateway();
    gateway.open(NettyServerBuilder.forAddress(new InetSocketAddress(9000)), "edge");
  }
}
"""
    (server,) = facts_of(text).servers
    assert (server.loc.line, server.name, server.options.complete) == (14, "server", True)


def test_a_method_that_hands_the_builder_back_to_itself_is_not_followed_twice() -> None:
    text = HANDED.replace("SETTINGS", "\n    assemble(zone, builder, workers - 1);")
    (server,) = facts_of(text).servers
    assert not server.options.complete


def test_a_static_helper_of_another_file_is_read_for_what_it_sets(tmp_path: Path) -> None:
    """The helper's file exports what it does to the builder it is handed: the server's
    options are known when it sets no connection age (KLB201), unknown when it hands the
    builder on where k8slb cannot see (no finding)."""
    node = HANDED.replace("SETTINGS", "\n    Telemetry.instrument(builder, zone);")
    helper = """\
package org.acme.relay;

import io.grpc.ServerBuilder;

final class Telemetry {
  static void instrument(ServerBuilder<?> builder, String zone) {
    if (!zone.isEmpty()) {
      builder.intercept(new ZoneTagger(zone));
    }STEP
  }
}
"""
    files = {
        "src/main/java/org/acme/relay/RelayNode.java": node,
        "src/main/java/org/acme/relay/Telemetry.java": helper.replace("STEP", ""),
    }
    (finding,) = lint_files(tmp_path / "read", files, ["KLB201"]).findings
    assert (finding.path.endswith("RelayNode.java"), finding.line) == (True, 20)
    files["src/main/java/org/acme/relay/Telemetry.java"] = helper.replace(
        "STEP", "\n    Tuning.apply(builder);"
    )
    assert lint_files(tmp_path / "on", files, ["KLB201"]).findings == []
    del files["src/main/java/org/acme/relay/Telemetry.java"]
    assert lint_files(tmp_path / "none", files, ["KLB201"]).findings == []


def test_an_in_process_server_is_no_network_server() -> None:
    text = server_file().replace(
        "Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())",
        'InProcessServerBuilder.forName("test")',
    )
    assert facts_of(text).servers == []


@pytest.mark.parametrize(
    ("port", "address"),
    [
        ("50051", ":50051"),
        ("PORT", ":8443"),
        (
            'Integer.parseInt(System.getenv().getOrDefault("PORT", "9090"))',
            EnvRef("PORT", "9090", ":"),
        ),
        ('Integer.parseInt(System.getenv("PORT"))', EnvRef("PORT", None, ":")),
        ("args.length", UNKNOWN),
    ],
)
def test_where_a_server_listens(port: str, address: object) -> None:
    text = (
        server_file()
        .replace("    int port = 50051;\n", "")
        .replace("newServerBuilderForPort(port,", f"newServerBuilderForPort({port},")
        .replace(
            "  private Server server;",
            "  private static final int PORT = 8443;\n  private Server server;",
        )
    )
    (listen,) = facts_of(text).listens
    assert listen.address == address


# -- shutdown --------------------------------------------------------------------------


def test_the_jvm_shutdown_hook_is_a_sigterm_handler_and_the_stop_is_graceful() -> None:
    facts = facts_of(server_file())
    (hook,) = facts.sigterm_handlers
    assert hook.line == 18
    (wait,) = facts.waits
    assert (wait.server, wait.how, wait.loc.line) == ("server", "awaitTermination()", 35)
    # shutdown() is graceful; shutdownNow() in the catch only ends an interrupted wait
    (stop,) = facts.stops
    assert (stop.loc.line, stop.grace) == (29, UNKNOWN)


def test_shutdown_now_alone_stops_with_no_grace_and_after_shutdown_it_bounds_it() -> None:
    abrupt = server_file().replace(
        "server.shutdown().awaitTermination(30, TimeUnit.SECONDS);", "server.shutdownNow();"
    )
    (stop,) = facts_of(abrupt).stops
    assert stop.grace == 0
    bounded = server_file().replace(
        "server.shutdown().awaitTermination(30, TimeUnit.SECONDS);",
        "server.shutdown();\n"
        "      if (!server.awaitTermination(30, TimeUnit.SECONDS)) {\n"
        "        server.shutdownNow();\n      }",
    )
    assert [stop.grace for stop in facts_of(bounded).stops] == [UNKNOWN]


def test_a_shutdown_its_hook_does_not_wait_for_stops_with_no_grace(tmp_path: Path) -> None:
    """microservices-demo's ad service: the hook calls stop(), which calls shutdown() and
    returns; the JVM halts as soon as its hooks return, cutting the calls in flight."""
    unawaited = server_file().replace(
        "server.shutdown().awaitTermination(30, TimeUnit.SECONDS);", "server.shutdown();"
    )
    (stop,) = facts_of(unawaited).stops
    assert (stop.grace, stop.written) == (
        0,
        "server.shutdown() in a shutdown hook that does not await it",
    )
    (finding,) = lint_files(
        tmp_path, {"src/main/java/GreeterServer.java": unawaited}, ["KLB404"]
    ).findings
    assert finding.message == (
        "server.shutdown() in a shutdown hook that does not await it aborts every call in flight"
    )
    after = fixed(tmp_path / "fix", unawaited, "KLB404")
    assert (
        "      server.shutdown();\n      try {\n        if (!server.awaitTermination(25," in after
    )
    # a shutdown() outside any hook (main waits with awaitTermination) is graceful
    no_hook = server_file(hook="").replace(
        "server.shutdown().awaitTermination(30, TimeUnit.SECONDS);", "server.shutdown();"
    )
    assert [stop.grace for stop in facts_of(no_hook).stops] == [UNKNOWN]


ANONYMOUS_HOOK = """\
    Runtime.getRuntime().addShutdownHook(new Thread() {
      @Override
      public void run() {
        System.err.println("stopping");
        server.shutdown();
      }
    });
"""
RUNNABLE_HOOK = """\
    Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
      @Override
      public void run() {
        server.shutdown();
      }
    }));
"""
NAMED_HOOK_CLASS = """\

class ServerStopper extends Thread {
  private final Server server;

  ServerStopper(Server server) {
    this.server = server;
  }

  @Override
  public void run() {
    server.shutdown();
  }
}
"""


@pytest.mark.parametrize(
    ("hook", "after"),
    [
        (ANONYMOUS_HOOK, ""),
        (RUNNABLE_HOOK, ""),
        (
            "    Runtime.getRuntime().addShutdownHook(new ServerStopper(server));\n",
            NAMED_HOOK_CLASS,
        ),
    ],
    ids=["anonymous-thread", "anonymous-runnable", "named-thread-class"],
)
def test_a_hooks_run_method_that_does_not_await_the_shutdown_stops_with_no_grace(
    tmp_path: Path, hook: str, after: str
) -> None:
    """The hook written as a class (an anonymous Thread, a Runnable handed to a Thread, a
    class of the file that extends Thread) is the same hook as the lambda: the JVM halts
    when its run() returns."""
    text = server_file(hook=hook) + after
    stops = [stop for stop in facts_of(text).stops if stop.grace == 0]
    (stop,) = stops
    assert stop.written == "server.shutdown() in a shutdown hook that does not await it"
    (finding,) = lint_files(
        tmp_path, {"src/main/java/GreeterServer.java": text}, ["KLB404"]
    ).findings
    assert finding.message.startswith("server.shutdown() in a shutdown hook that does not await")
    fixed_text = fixed(tmp_path / "fix", text, "KLB404")
    assert "server.shutdown();\n" in fixed_text
    assert "awaitTermination(25, TimeUnit.SECONDS)" in fixed_text
    again = lint_files(tmp_path / "again", {"S.java": fixed_text}, ["KLB404"]).findings
    assert again == []


def test_a_hooks_run_method_that_awaits_the_shutdown_is_graceful() -> None:
    awaited = ANONYMOUS_HOOK.replace(
        "server.shutdown();", "server.shutdown().awaitTermination(25, TimeUnit.SECONDS);"
    )
    assert [stop.grace for stop in facts_of(server_file(hook=awaited)).stops] == [
        UNKNOWN,
        UNKNOWN,
    ]
    # a run() of a class the hook does not make is not a hook: its shutdown() is graceful
    other = server_file(hook="") + NAMED_HOOK_CLASS
    assert all(stop.grace is UNKNOWN for stop in facts_of(other).stops)


def test_a_sun_misc_term_signal_handler_counts() -> None:
    text = server_file(hook='    Signal.handle(new Signal("TERM"), signal -> server.shutdown());\n')
    assert len(facts_of(text).sigterm_handlers) == 1
    other = server_file(hook='    Signal.handle(new Signal("INT"), signal -> server.shutdown());\n')
    assert facts_of(other).sigterm_handlers == []


# -- channels --------------------------------------------------------------------------

CLIENT = """\
package com.example.shop;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

public class BackendClient {
  private static final String TARGET =
      System.getenv().getOrDefault("BACKEND_ADDR", "backend:50051");

  private final ManagedChannel channel;

  public BackendClient() {
    channel = ManagedChannelBuilder.forTarget(ADDRESS)
        .usePlaintext()OPTIONS
        .build();
  }
}
"""


def client(target: str = "TARGET", options: str = "") -> str:
    return CLIENT.replace("ADDRESS", target).replace("OPTIONS", options)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("TARGET", EnvRef("BACKEND_ADDR", "backend:50051")),
        ('"backend.shop.svc.cluster.local:50051"', "backend.shop.svc.cluster.local:50051"),
        ('System.getenv("HOST") + ":50051"', EnvRef("HOST", None, "", ":50051")),
        (
            'Optional.ofNullable(System.getenv("ADDR")).orElse("backend:50051")',
            EnvRef("ADDR", "backend:50051"),
        ),
        ('String.format("%s:%d", "backend", 50051)', "backend:50051"),
        ("config.target()", UNKNOWN),
    ],
)
def test_a_channels_target_is_followed(target: str, expected: object) -> None:
    (channel,) = facts_of(client(target)).channels
    assert channel.target == expected
    assert channel.long_lived and channel.default_scheme == "dns"
    assert channel.factory == "ManagedChannelBuilder.forTarget"


def test_a_ternary_on_null_gives_the_environment_value_its_default() -> None:
    text = client("address").replace(
        "    channel =",
        '    String fromEnv = System.getenv("BACKEND_ADDR");\n'
        '    String address = fromEnv != null ? fromEnv : "backend:50051";\n    channel =',
    )
    (channel,) = facts_of(text).channels
    assert channel.target == EnvRef("BACKEND_ADDR", "backend:50051")


def test_for_address_dials_host_and_port() -> None:
    text = client().replace("forTarget(TARGET)", 'forAddress("backend", 50051)')
    (channel,) = facts_of(text).channels
    assert (
        channel.target == "backend:50051" and channel.factory == "ManagedChannelBuilder.forAddress"
    )


def test_the_balancing_policy_and_service_config_are_channel_options() -> None:
    policy = facts_of(client(options='\n        .defaultLoadBalancingPolicy("round_robin")'))
    (channel,) = policy.channels
    assert channel.options.get("grpc.lb_policy_name").value == "round_robin"
    config = (
        '\n        .defaultServiceConfig(Map.of("loadBalancingConfig",'
        ' List.of(Map.of("round_robin", Map.of()))))'
    )
    (channel,) = facts_of(client(options=config)).channels
    assert channel.options.get("grpc.service_config").value == (
        '{"loadBalancingConfig": [{"round_robin": {}}]}'
    )
    (channel,) = facts_of(client(options="\n        .defaultServiceConfig(loadConfig())")).channels
    assert channel.options.get("grpc.service_config").value is UNKNOWN


def test_a_channel_shut_down_where_it_is_made_is_one_per_call() -> None:
    per_call = """\
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

class Lookup {
  String find(String key) {
    ManagedChannel channel = ManagedChannelBuilder.forTarget("backend:50051").build();
    try {
      return GreeterGrpc.newBlockingStub(channel).find(key);
    } finally {
      channel.shutdownNow();
    }
  }
}
"""
    (channel,) = facts_of(per_call).channels
    assert not channel.long_lived
    in_main = per_call.replace("String find(String key)", "public static void main(String[] key)")
    (channel,) = facts_of(in_main).channels
    assert channel.long_lived, "main's channels live as long as the program"
    # shutting it down ends neither a server's life nor a stop of one
    assert facts_of(per_call).stops == []


# -- health ----------------------------------------------------------------------------


def test_the_health_status_manager_and_what_drains_it() -> None:
    text = (
        server_file()
        .replace(
            "        .addService(new GreeterImpl())",
            "        .addService(new GreeterImpl())\n"
            "        .addService(health.getHealthService())",
        )
        .replace(
            "    int port = 50051;\n",
            "    int port = 50051;\n    health = new HealthStatusManager();\n",
        )
    )
    facts = facts_of(text)
    (servicer,) = facts.health_servicers
    assert servicer.custom_class is None and facts.health_drains == []
    drained = text.replace(
        "        GreeterServer.this.stop();",
        "        health.enterTerminalState();\n        GreeterServer.this.stop();",
    )
    assert len(facts_of(drained).health_drains) == 1
    not_serving = text.replace(
        "        GreeterServer.this.stop();",
        '        health.setStatus("", ServingStatus.NOT_SERVING);\n'
        "        GreeterServer.this.stop();",
    )
    assert len(facts_of(not_serving).health_drains) == 1
    # the ad services of microservices-demo and otel-demo: once cleared, the service is
    # unknown to the health service, and a probe of it fails
    cleared = text.replace(
        "        GreeterServer.this.stop();",
        '        health.clearStatus("");\n        GreeterServer.this.stop();',
    )
    assert len(facts_of(cleared).health_drains) == 1


HEALTH_CLASS = """\
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;

class AlwaysHealthy extends HealthGrpc.HealthImplBase {
  @Override
  public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> out) {
    out.onNext(HealthCheckResponse.newBuilder()
        .setStatus(STATUS)
        .build());
    out.onCompleted();
  }
}
"""


@pytest.mark.parametrize(
    ("status", "can_fail"),
    [
        ("HealthCheckResponse.ServingStatus.SERVING", False),
        ("ready.get() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING", True),
        ("currentStatus()", True),
    ],
)
def test_a_hand_written_health_service(status: str, can_fail: bool) -> None:
    (servicer,) = facts_of(HEALTH_CLASS.replace("STATUS", status)).health_servicers
    assert (servicer.custom_class, servicer.class_can_fail) == ("AlwaysHealthy", can_fail)


# -- what is read, and what is not ------------------------------------------------------


def test_files_that_do_not_name_grpc_are_not_parsed() -> None:
    text = server_file(hook="").replace("io.grpc", "org.example")  # a hook is read
    assert facts_of(text).servers == []


@pytest.mark.parametrize(
    "path",
    [
        "target/generated-sources/Main.java",
        "build/generated/source/Main.java",
    ],
)
def test_build_output_is_not_read(path: str) -> None:
    assert facts_of(server_file(), path).servers == []


@pytest.mark.parametrize(
    "path",
    ["src/main/java/build/relay/Main.java", "service/src/main/java/org/target/Main.java"],
)
def test_a_package_named_build_or_target_is_read(path: str) -> None:
    """Below `src/main/java` the folders are a package's (`package build.relay;`)."""
    assert len(facts_of(server_file(), path).servers) == 1


def test_a_shutdown_hook_in_a_file_that_names_no_grpc_is_the_projects_handler(
    tmp_path: Path,
) -> None:
    """A base class of the project's mains registers the JVM's hook: KLB403 is silent."""
    base = """\
package com.example.greeter;

public abstract class Main {
  protected abstract void onShutdown();

  protected Main() {
    Runtime.getRuntime().addShutdownHook(new Thread(this::onShutdown));
  }
}
"""
    files = {"GreeterServer.java": server_file(hook="")}
    assert rules_of(lint_files(tmp_path / "alone", files, ["KLB403"]).findings) == ["KLB403"]
    files["Main.java"] = base
    assert lint_files(tmp_path / "based", files, ["KLB403"]).findings == []


@pytest.mark.parametrize(
    "annotation",
    [
        '@javax.annotation.Generated(value = "by gRPC proto compiler")',
        "@io.grpc.stub.annotations.GrpcGenerated",
    ],
)
def test_generated_code_is_not_read(annotation: str) -> None:
    text = server_file().replace(
        "public class GreeterServer", f"{annotation}\npublic class GreeterServer"
    )
    assert facts_of(text, "src/main/java/GreeterGrpc.java").servers == []


def test_test_sources_are_not_reported(tmp_path: Path) -> None:
    assert facts_of(server_file(), "src/test/java/GreeterServerTest.java").is_test
    found = lint_files(tmp_path, {"src/test/java/GreeterServer.java": server_file()}, ["KLB201"])
    assert found.findings == []


def test_a_file_that_does_not_parse_is_klb004(tmp_path: Path) -> None:
    broken = server_file().replace("private void stop() throws", "private void stop( throws")
    (finding,) = lint_files(tmp_path, {"GreeterServer.java": broken}).findings
    assert finding.rule == "KLB004" and "not valid Java" in finding.message


# -- the rules, on Java ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("builder", "rules"),
    [
        ("", ["KLB201"]),
        (MAX_AGE, []),
        ("\n        .maxConnectionAge(5, TimeUnit.MINUTES)", ["KLB204"]),
        ("\n        .keepAliveTime(5, TimeUnit.MINUTES)", ["KLB201"]),
        ("\n        .maxConnectionAge(Long.MAX_VALUE, TimeUnit.NANOSECONDS)", ["KLB201"]),
    ],
    ids=["none", "age-and-grace", "age-without-grace", "other-settings", "infinite-age"],
)
def test_connection_age_of_a_grpc_java_server(
    tmp_path: Path, builder: str, rules: list[str]
) -> None:
    files = {"GreeterServer.java": server_file(builder)}
    assert rules_of(lint_files(tmp_path, files, ["KLB201", "KLB204"]).findings) == rules


def test_the_finding_speaks_grpc_java(tmp_path: Path) -> None:
    files = {"GreeterServer.java": server_file()}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert (finding.line, finding.column) == (14, 14)
    assert finding.message == "Grpc.newServerBuilderForPort() sets no maxConnectionAge"
    assert (
        ".maxConnectionAge(5, TimeUnit.MINUTES).maxConnectionAgeGrace(30, TimeUnit.SECONDS)"
        in finding.text
    )


def test_a_server_with_no_shutdown_hook_is_klb403(tmp_path: Path) -> None:
    assert lint_files(tmp_path / "hook", {"S.java": server_file()}, ["KLB403"]).findings == []
    (finding,) = lint_files(
        tmp_path / "none", {"S.java": server_file(hook="")}, ["KLB403"]
    ).findings
    assert finding.line == 28  # the awaitTermination() the program waits in
    assert "gRPC server 'server' waits in awaitTermination() with no SIGTERM handler" in (
        finding.message
    )
    assert "JVM" in finding.text


# A server component a lifecycle framework of the project starts and stops: start() starts
# it, close() drains it, the framework's own hook (elsewhere) calls close().
_COMPONENT = """\
package shop.ledger;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;

public class LedgerRpc {
  private final Server rpc;

  public LedgerRpc(int port) {
    rpc = NettyServerBuilder.forPort(port).addService(new LedgerService()).build();
  }

  public void open() throws IOException {
    rpc.start();
  }

  public void close() {
    try {
{drain}
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
"""


@pytest.mark.parametrize(
    "drain",
    [
        "      rpc.shutdown().awaitTermination();",
        "      (rpc.shutdownNow()).awaitTermination();",
        "      if (rpc != null) {\n        rpc.shutdown();\n"
        "        rpc.awaitTermination();\n      }",
    ],
    ids=["chained", "parenthesised", "after-shutdown"],
)
def test_awaiting_a_stop_begun_is_a_drain_not_a_wait_to_serve(tmp_path: Path, drain: str) -> None:
    """awaitTermination() on shutdown()'s result, or after the same server's shutdown() in
    the same method, waits for a drain: the server is not waited on as it serves."""
    text = _COMPONENT.replace("{drain}", drain)
    assert facts_of(text, "src/main/java/shop/ledger/LedgerRpc.java").waits == []
    assert lint_files(tmp_path, {"LedgerRpc.java": text}, ["KLB403"]).findings == []


def test_a_wait_after_another_objects_shutdown_is_still_a_wait(tmp_path: Path) -> None:
    """An executor's shutdown() before the server's awaitTermination() drains nothing of
    the server's."""
    text = _COMPONENT.replace(
        "{drain}", "      workers.shutdown();\n      rpc.awaitTermination();"
    ).replace("Server rpc;", "Server rpc;\n  private ExecutorService workers;")
    (wait,) = facts_of(text, "src/main/java/shop/ledger/LedgerRpc.java").waits
    assert wait.how == "awaitTermination()"


SPRING_SERVER = """\
package shop.orders;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import org.springframework.stereotype.Component;

@Component
public class OrderServer {
  private Server server;

  @PostConstruct
  public void start() throws Exception {
    server = ServerBuilder.forPort(9090).addService(new OrderService()).build().start();
    server.awaitTermination();
  }

  @PreDestroy
  public void stop() throws InterruptedException {
    server.shutdown().awaitTermination(20, TimeUnit.SECONDS);
  }
}
"""


def test_a_spring_beans_pre_destroy_is_what_sigterm_runs(tmp_path: Path) -> None:
    """Spring Boot closes its context from a JVM shutdown hook, running each bean's
    @PreDestroy (and a DisposableBean's destroy()): the server is stopped on SIGTERM (no
    KLB403), and a shutdown() there that is not awaited cuts the calls in flight (KLB404)."""
    path = "src/main/java/shop/orders/OrderServer.java"
    (handler,) = facts_of(SPRING_SERVER, path).sigterm_handlers
    assert handler.line == 19
    assert (
        lint_files(tmp_path / "graceful", {path: SPRING_SERVER}, ["KLB403", "KLB404"]).findings
        == []
    )
    unawaited = SPRING_SERVER.replace(
        "server.shutdown().awaitTermination(20, TimeUnit.SECONDS);", "server.shutdown();"
    )
    (finding,) = lint_files(tmp_path / "cut", {path: unawaited}, ["KLB403", "KLB404"]).findings
    assert (finding.rule, finding.line) == ("KLB404", 21)
    disposable = unawaited.replace(
        "public class OrderServer {", "public class OrderServer implements DisposableBean {"
    ).replace("  @PreDestroy\n  public void stop()", "  @Override\n  public void destroy()")
    assert [stop.written for stop in facts_of(disposable, path).stops] == [
        "server.shutdown() in a shutdown hook that does not await it"
    ]
    # with neither, nothing runs on SIGTERM: the JVM exits as the wait is cut
    plain = SPRING_SERVER.replace("  @PreDestroy\n", "")
    (finding,) = lint_files(tmp_path / "none", {path: plain}, ["KLB403"]).findings
    assert finding.line == 16


def test_shutdown_now_with_no_graceful_shutdown_is_klb404(tmp_path: Path) -> None:
    abrupt = server_file().replace(
        "server.shutdown().awaitTermination(30, TimeUnit.SECONDS);", "server.shutdownNow();"
    )
    (finding,) = lint_files(tmp_path / "now", {"S.java": abrupt}, ["KLB404"]).findings
    assert finding.message.startswith("server.shutdownNow() aborts every call in flight")
    assert lint_files(tmp_path / "ok", {"S.java": server_file()}, ["KLB404"]).findings == []


def test_a_health_status_manager_never_set_not_serving_is_klb405(tmp_path: Path) -> None:
    text = server_file().replace(
        "    int port = 50051;\n",
        "    int port = 50051;\n    health = new HealthStatusManager();\n",
    )
    (finding,) = lint_files(tmp_path / "never", {"S.java": text}, ["KLB405"]).findings
    assert "enterTerminalState()" in finding.text
    drained = text.replace(
        "        GreeterServer.this.stop();",
        "        health.enterTerminalState();\n        GreeterServer.this.stop();",
    )
    assert lint_files(tmp_path / "drained", {"S.java": drained}, ["KLB405"]).findings == []
    always = HEALTH_CLASS.replace("STATUS", "ServingStatus.SERVING")
    (finding,) = lint_files(tmp_path / "custom", {"H.java": always}, ["KLB405"]).findings
    assert finding.message == "health servicer AlwaysHealthy.Check always answers SERVING"


MANIFESTS = GRPC_SERVICE + BACKEND  # a gRPC Service on a ClusterIP, and its 3 pods
HEADLESS = MANIFESTS.replace("spec:\n  selector", "spec:\n  clusterIP: None\n  selector", 1)


def test_a_channel_to_a_clusterip_grpc_service_is_klb102(tmp_path: Path) -> None:
    files = {"BackendClient.java": client(), "k8s.yaml": MANIFESTS}
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("BackendClient.java") and finding.line == 13
    assert "gRPC channel to ClusterIP Service/backend stays on one pod" in finding.message


def test_a_channel_to_a_headless_service_needs_round_robin_klb103(tmp_path: Path) -> None:
    plain = {"BackendClient.java": client(), "k8s.yaml": HEADLESS}
    assert rules_of(lint_files(tmp_path / "pf", plain, ["KLB103"]).findings) == ["KLB103"]
    balanced = {
        "BackendClient.java": client(
            options='\n        .defaultLoadBalancingPolicy("round_robin")'
        ),
        "k8s.yaml": HEADLESS,
    }
    assert lint_files(tmp_path / "rr", balanced, ["KLB103"]).findings == []


def test_a_misspelt_policy_is_klb108(tmp_path: Path) -> None:
    files = {"C.java": client(options='\n        .defaultLoadBalancingPolicy("roundrobin")')}
    (finding,) = lint_files(tmp_path, files, ["KLB108"]).findings
    assert finding.message.startswith("defaultLoadBalancingPolicy 'roundrobin' is no policy")
    assert "grpc-java finds no such policy and fails every call on the channel" in finding.text


def test_a_suppression_comment_silences_a_finding(tmp_path: Path) -> None:
    text = server_file().replace(
        "    server = Grpc.newServerBuilderForPort(",
        "    // k8slb: ignore[KLB201] the mesh ends connections\n"
        "    server = Grpc.newServerBuilderForPort(",
    )
    assert lint_files(tmp_path, {"S.java": text}, ["KLB201"]).findings == []


def test_add_noqa_writes_a_slash_comment_that_silences_it(tmp_path: Path) -> None:
    (tmp_path / "GreeterServer.java").write_text(server_file())
    args = ["check", "--no-cache", "--select", "KLB201", str(tmp_path)]
    added = CliRunner().invoke(cli, [*args, "--add-noqa"])
    assert added.exit_code == 0, added.output
    line = (tmp_path / "GreeterServer.java").read_text().splitlines()[13]
    assert line.endswith(
        "server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())"
        " // k8slb: ignore[KLB201]"
    )
    assert CliRunner().invoke(cli, args).exit_code == 0


# -- the fixes -------------------------------------------------------------------------


def fixed(tmp_path: Path, text: str, rules: str) -> str:
    """The file after `k8slb fix --unsafe-fixes --select RULES`."""
    path = tmp_path / "GreeterServer.java"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    ran = CliRunner().invoke(
        cli, ["fix", "--no-cache", "--unsafe-fixes", "--select", rules, str(path)]
    )
    assert ran.exit_code in (0, 1), ran.output
    return path.read_text()


def test_the_max_age_fix_chains_both_settings_after_the_factory_call(tmp_path: Path) -> None:
    after = fixed(tmp_path, server_file(), "KLB201")
    assert (
        "    server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())\n"
        "        .maxConnectionAge(5, TimeUnit.MINUTES)\n"
        "        .maxConnectionAgeGrace(30, TimeUnit.SECONDS)\n"
        "        .addService(new GreeterImpl())\n"
    ) in after
    assert after.count("import java.util.concurrent.TimeUnit;") == 1, "imported already"


def test_timeunit_is_imported_in_order_or_after_the_package(tmp_path: Path) -> None:
    text = server_file().replace("import java.util.concurrent.TimeUnit;\n", "")
    after = fixed(tmp_path / "ordered", text, "KLB201")
    assert "import java.io.IOException;\nimport java.util.concurrent.TimeUnit;\n" in after
    bare = (
        "package demo;\n\nclass Main {\n  static io.grpc.Server make() {\n"
        "    return io.grpc.ServerBuilder.forPort(50051).build();\n  }\n}\n"
    )
    after = fixed(tmp_path / "bare", bare, "KLB201")
    assert after.startswith("package demo;\n\nimport java.util.concurrent.TimeUnit;\n\nclass Main")
    # too long for the line: continuation lines, as google-java-format breaks a chain
    assert (
        "    return io.grpc.ServerBuilder.forPort(50051)\n"
        "        .maxConnectionAge(5, TimeUnit.MINUTES)\n"
        "        .maxConnectionAgeGrace(30, TimeUnit.SECONDS).build();\n"
    ) in after


def test_no_fix_where_another_timeunit_is_imported(tmp_path: Path) -> None:
    text = server_file().replace(
        "import java.util.concurrent.TimeUnit;", "import com.example.time.TimeUnit;"
    )
    assert fixed(tmp_path, text, "KLB201") == text


def test_no_max_age_fix_on_a_builder_k8slb_cannot_see_whole(tmp_path: Path) -> None:
    text = server_file().replace(
        "Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())",
        "configure(Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create()))",
    )
    assert fixed(tmp_path, text, "KLB201") == text


def test_the_graceful_stop_fix_bounds_shutdown_with_await_termination(tmp_path: Path) -> None:
    awaited = server_file().replace(
        "server.shutdown().awaitTermination(30, TimeUnit.SECONDS);",
        "server.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);",
    )
    # already awaited: only made graceful
    assert fixed(tmp_path / "awaited", awaited, "KLB404") == server_file()
    inline = server_file().replace(
        "      server.shutdown().awaitTermination(30, TimeUnit.SECONDS);",
        "      logger.info(server.shutdownNow().toString());",
    )
    assert fixed(tmp_path / "inline", inline, "KLB404") == inline, "no statement to bound it"


def test_the_sigterm_fix_adds_a_shutdown_hook_before_the_wait(tmp_path: Path) -> None:
    after = fixed(tmp_path, server_file(hook=""), "KLB403")
    assert (
        "    if (server != null) {\n"
        "      Runtime.getRuntime().addShutdownHook(new Thread(() -> {\n"
        "        server.shutdown();\n"
        "        try {\n"
        "          if (!server.awaitTermination(25, TimeUnit.SECONDS)) {\n"
        "            server.shutdownNow();\n"
        "          }\n"
        "        } catch (InterruptedException interrupted) {\n"
        "          server.shutdownNow();\n"
        "          Thread.currentThread().interrupt();\n"
        "        }\n"
        "      }));\n"
        "      server.awaitTermination();\n"
    ) in after
    assert lint_files(tmp_path / "again", {"S.java": after}, ["KLB403", "KLB404"]).findings == []


def test_no_sigterm_fix_that_would_capture_a_reassigned_local(tmp_path: Path) -> None:
    text = """\
import io.grpc.Server;
import io.grpc.ServerBuilder;

class Main {
  public static void main(String[] args) throws Exception {
    Server server = ServerBuilder.forPort(50051).build();
    server = server.start();
    server.awaitTermination();
  }
}
"""
    assert fixed(tmp_path, text, "KLB403") == text


def test_a_target_with_a_scheme_of_the_programs_own_resolver_is_unknown() -> None:
    (channel,) = facts_of(client('"example:///lb.example.grpc.io"')).channels
    assert channel.target is UNKNOWN
    (channel,) = facts_of(client('"dns:///backend:50051"')).channels
    assert channel.target == "dns:///backend:50051"


def test_an_interfaces_constants_are_followed() -> None:
    text = client("Config.TARGET").replace(
        "public class BackendClient {",
        'interface Config {\n  String TARGET = "backend:50051";\n}\n\npublic class BackendClient {',
    )
    (channel,) = facts_of(text).channels
    assert channel.target == "backend:50051"


def test_the_clusterip_fix_rewrites_the_env_and_chains_round_robin(tmp_path: Path) -> None:
    from k8slb.rules.grpc_client_clusterip import CLIENT as FRONTEND

    env_client = client('System.getenv("BACKEND_ADDR")')
    (tmp_path / "BackendClient.java").write_text(env_client)
    (tmp_path / "k8s.yaml").write_text(MANIFESTS + FRONTEND)
    args = ["fix", "--no-cache", "--unsafe-fixes", "--select", "KLB102", str(tmp_path)]
    ran = CliRunner().invoke(cli, args)
    assert ran.exit_code in (0, 1), ran.output
    assert (
        'ManagedChannelBuilder.forTarget(System.getenv("BACKEND_ADDR"))\n'
        '        .defaultLoadBalancingPolicy("round_robin")\n'
        "        .usePlaintext()"
    ) in (tmp_path / "BackendClient.java").read_text()
    manifests = (tmp_path / "k8s.yaml").read_text()
    assert 'value: "dns:///backend-headless:50051"' in manifests
    assert "name: backend-headless" in manifests, "the headless twin is added"


def test_a_server_held_in_a_field_through_this_is_named_by_the_field() -> None:
    text = server_file().replace("    server = Grpc.", "    this.server = Grpc.")
    facts = facts_of(text)
    assert [s.name for s in facts.servers] == ["server"] and facts.starts == {"server"}


def test_a_shutdown_hook_in_another_package_of_the_same_module_counts(tmp_path: Path) -> None:
    hook = """\
package com.example.greeter.lifecycle;

import io.grpc.Server;

public final class Hooks {
  public static void stopOnSigterm(Server server) {
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
  }
}
"""
    main = "greeter/src/main/java/com/example/greeter/GreeterServer.java"
    files = {
        main: server_file(hook=""),
        "greeter/src/main/java/com/example/greeter/lifecycle/Hooks.java": hook,
    }
    assert lint_files(tmp_path / "one", files, ["KLB403"]).findings == []
    apart = {main: server_file(hook=""), "other/src/main/java/com/example/Hooks.java": hook}
    assert rules_of(lint_files(tmp_path / "two", apart, ["KLB403"]).findings) == ["KLB403"]


def test_a_netty_server_on_an_inet_socket_address_listens_there() -> None:
    text = server_file().replace(
        "Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())",
        'NettyServerBuilder.forAddress(new InetSocketAddress("0.0.0.0", port))',
    )
    (server,) = facts_of(text).servers
    assert server.factory == "NettyServerBuilder.forAddress"
    assert [listen.address for listen in facts_of(text).listens] == ["0.0.0.0:50051"]


def test_grpc_new_channel_builder_for_address_dials_host_and_port() -> None:
    text = client().replace(
        "ManagedChannelBuilder.forTarget(TARGET)",
        'Grpc.newChannelBuilderForAddress("backend", 50051, InsecureChannelCredentials.create())',
    )
    (channel,) = facts_of(text).channels
    assert (channel.factory, channel.target) == (
        "Grpc.newChannelBuilderForAddress",
        "backend:50051",
    )


# A Spring configuration that builds its channels with a tracing library's builder bean,
# held in a field, not grpc-java's own class.
WRAPPED_BUILDER = """\
package com.example.orders;

import com.example.tracing.TracingManagedChannelBuilder;
import org.springframework.context.annotation.Bean;

public class ChannelConfig {
  private final BUILDER_TYPE channelBuilder;

  ChannelConfig(BUILDER_TYPE channelBuilder) {
    this.channelBuilder = channelBuilder;
  }

  @Bean
  public InventoryGrpc.InventoryBlockingStub inventory() {
    var channel = channelBuilder.forAddress("inventory", 9090).usePlaintext().build();
    return InventoryGrpc.newBlockingStub(channel);
  }
}
"""


def test_a_channel_made_by_a_builder_bean_named_as_a_channel_builder_is_read() -> None:
    text = WRAPPED_BUILDER.replace("BUILDER_TYPE", "TracingManagedChannelBuilder")
    (channel,) = facts_of(text).channels
    assert (channel.target, channel.long_lived) == ("inventory:9090", True)


def test_a_for_address_of_another_kind_of_object_makes_no_channel() -> None:
    text = WRAPPED_BUILDER.replace("BUILDER_TYPE", "AddressBook")
    assert facts_of(text).channels == []


# -- HTTP clients --------------------------------------------------------------------------

HTTP_CLIENT = """\
package com.example.checkout;

import java.net.http.HttpClient;

public class ShippingClient {
  private static final String SHIPPING = "http://shipping:8080/quote";
  private final HttpClient client = MADE;
}
"""
SHIPPING = """\
apiVersion: v1
kind: Service
metadata:
  name: shipping
spec:
  selector:
    app: shipping
  ports:
    - port: 8080
"""


@pytest.mark.parametrize(
    ("made", "found"),
    [
        ("HttpClient.newHttpClient()", ["KLB202"]),
        ("HttpClient.newBuilder().build()", ["KLB202"]),
        ("new OkHttpClient()", ["KLB202"]),
        ("HttpClients.custom().setConnectionTimeToLive(60, TimeUnit.SECONDS).build()", []),
    ],
    ids=["jdk", "jdk-builder", "okhttp", "apache-with-a-time-to-live"],
)
def test_a_pooled_http_client_kept_for_the_process(
    tmp_path: Path, made: str, found: list[str]
) -> None:
    files = {
        "src/main/java/ShippingClient.java": HTTP_CLIENT.replace("MADE", made),
        "k8s.yaml": SHIPPING,
    }
    assert rules_of(lint_files(tmp_path, files, ["KLB202"]).findings) == found


def test_an_http_client_made_for_each_call_is_not_long_lived() -> None:
    text = HTTP_CLIENT.replace(
        "  private final HttpClient client = MADE;\n",
        "  String get() {\n    HttpClient client = HttpClient.newHttpClient();\n"
        "    return SHIPPING;\n  }\n",
    )
    (client,) = facts_of(text).http_clients
    assert not client.long_lived


# A server made by hand in a class of its own: the builder held in a local that a stream
# hands `builder::addService` (a call of that method alone), or in a field tested against
# null; the factory kept as a method reference in a field a test may replace.
POOLED_SERVER = """\
package com.acme.ledger.rpc;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Function;

public class LedgerRpcHost {
    private final int port;
    private Server server;
    private NettyServerBuilder pending;
    private Function<InetSocketAddress, NettyServerBuilder> factory =
            NettyServerBuilder::forAddress;

    public LedgerRpcHost(int port) { this.port = port; }

    public synchronized void open(List<BindableService> services) throws Exception {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(port))
                .maxInboundMessageSize(1 << 22);
        services.forEach(builder::addService);
        server = builder.build().start();
    }

    public synchronized void prepare(List<BindableService> services) {
        if (pending == null) {
            pending = NettyServerBuilder.forPort(port + 1);
        }
        services.forEach(pending::addService);
    }

    public synchronized Server launch() throws Exception {
        return pending.build().start();
    }

    public synchronized Server fromFactory(List<BindableService> services) throws Exception {
        NettyServerBuilder made = factory.apply(new InetSocketAddress(port + 2));
        services.forEach(made::addService);
        return made.build().start();
    }
}
"""


def test_hand_built_servers_through_method_references_are_read() -> None:
    facts = facts_of(POOLED_SERVER, "src/main/java/com/acme/ledger/rpc/LedgerRpcHost.java")
    made = sorted((s.loc.line, s.factory, s.options.complete) for s in facts.servers)
    assert made == [
        (20, "NettyServerBuilder.forAddress", True),
        (28, "NettyServerBuilder.forPort", True),
        (38, "NettyServerBuilder.forAddress", True),
    ]
    assert all(not s.options.entries for s in facts.servers)


def test_a_method_reference_to_an_option_setter_leaves_the_options_unknown() -> None:
    text = POOLED_SERVER.replace("builder::addService", "builder::maxConnectionAge")
    facts = facts_of(text, "src/main/java/com/acme/ledger/rpc/LedgerRpcHost.java")
    (first,) = [s for s in facts.servers if s.loc.line == 20]
    assert not first.options.complete


LEDGER_REQUESTS = """\
package com.acme.ledger;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;

public class LedgerRequests {
    private static final String LEDGER = "http://ledger:7000";
    private static final String MIRROR = "http://ledger-mirror";

    HttpRequest entries() {
        return HttpRequest.newBuilder(URI.create(LEDGER + "/entries")).build();
    }

    HttpRequest all() {
        return HttpRequest.newBuilder(URI.create(LEDGER)).build();
    }

    HttpRequest mirror() {
        return HttpRequest.newBuilder(URI.create(MIRROR + ":7100/entries")).build();
    }
}
"""


def test_a_constant_url_a_request_carries_is_read_where_it_is_written() -> None:
    """`URI.create(LEDGER + "/entries")` and `URI.create(LEDGER)` send to the URL the
    constant writes (8): read there, the line to change (KLB111 says one wrong port once);
    a request that adds a port of its own to a constant (20) is read at the request."""
    facts = facts_of(LEDGER_REQUESTS, "src/main/java/com/acme/ledger/LedgerRequests.java")
    assert [(url, loc.line) for url, loc in facts.urls] == [
        ("http://ledger:7000", 8),
        ("http://ledger-mirror", 9),
        ("http://ledger-mirror:7100/entries", 20),
    ]
