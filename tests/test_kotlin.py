"""Kotlin (grpc-java and grpc-kotlin on the JVM): a file's servers and channels, read along
their builders' chains, how its servers are waited on and stopped, its shutdown hooks;
judged by the same rules as Java, worded in grpc-java's terms, with no fix offered."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, CodeFacts, EnvRef
from k8slb.core.findings import Severity
from k8slb.languages import language_of
from k8slb.languages.kotlin.parse import parse

from .helpers import lint_files, rules_of

# A Spring Boot component that starts a grpc-java server when the context is ready and
# waits on it in a coroutine: the server is never stopped.
COMPONENT = """\
package com.example.orders

import io.grpc.Server
import io.grpc.ServerBuilder
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.launch
import org.springframework.stereotype.Component
import javax.annotation.PostConstruct

@Component
class GrpcRunner(private val orders: OrderService) {
    @PostConstruct
    fun serve() {
        val port = 9090
        val server: Server = ServerBuilder.forPort(port)
            .addService(orders)BUILDER
            .build()
        server.start()
HOOK        GlobalScope.launch {
            server.awaitTermination()
        }
    }
}
"""
HOOK = """\
        Runtime.getRuntime().addShutdownHook(Thread {
            server.shutdown()
            if (!server.awaitTermination(20, TimeUnit.SECONDS)) {
                server.shutdownNow()
            }
        })
"""
MAX_AGE = (
    "\n            .maxConnectionAge(5, TimeUnit.MINUTES)"
    "\n            .maxConnectionAgeGrace(30, TimeUnit.SECONDS)"
)
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: orders}
spec:
  replicas: 3
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      containers:
        - name: orders
          image: orders:1.0
          ports: [{containerPort: 9090, name: grpc}]
          readinessProbe: {grpc: {port: 9090}}
          lifecycle: {preStop: {sleep: {seconds: 5}}}
---
apiVersion: v1
kind: Service
metadata: {name: orders}
spec:
  selector: {app: orders}
  ports: [{name: grpc, port: 9090}]
"""
SOURCE = "orders/src/main/kotlin/com/example/orders/GrpcRunner.kt"


def component(builder: str = "", hook: str = "") -> str:
    return COMPONENT.replace("BUILDER", builder).replace("HOOK", hook)


def facts_of(text: str, path: str = "src/main/kotlin/Main.kt") -> CodeFacts:
    return parse(path, text.encode())


def line_of(text: str, written: str) -> int:
    """The line (from 1) where `written` first is in `text`."""
    return text[: text.index(written)].count("\n") + 1


def test_kotlin_files_are_kotlins_and_build_scripts_are_not() -> None:
    assert language_of("src/main/kotlin/a/Main.kt").name == "kotlin"  # type: ignore[union-attr]
    assert language_of("build.gradle.kts") is None


def test_a_server_is_read_along_its_builder_chain() -> None:
    code = component(MAX_AGE)
    facts = facts_of(code)
    (server,) = facts.servers
    at = line_of(code, "ServerBuilder.forPort")
    assert (server.factory, server.name, server.loc.line) == ("ServerBuilder.forPort", "server", at)
    assert server.options.complete
    assert server.options.get("grpc.max_connection_age_ms").value == 300_000
    assert server.options.get("grpc.max_connection_age_grace_ms").value == 30_000
    assert facts.starts == {"server"}
    assert [(x.server, x.address) for x in facts.listens] == [("server", ":9090")]
    (wait,) = facts.waits
    at = line_of(code, "server.awaitTermination()")
    assert (wait.server, wait.how, wait.loc.line) == ("server", "awaitTermination()", at)
    assert not facts.sigterm_handlers


def test_settings_made_in_apply_are_the_builders_and_in_also_unknown() -> None:
    applied = "\n            .apply { maxConnectionAge(1, TimeUnit.MINUTES) }"
    (server,) = facts_of(component(applied)).servers
    assert server.options.complete
    assert server.options.get("grpc.max_connection_age_ms").value == 60_000
    also = "\n            .also { it.maxConnectionAge(1, TimeUnit.MINUTES) }"
    (server,) = facts_of(component(also)).servers
    assert not server.options.complete


def test_a_builder_held_in_a_val_is_followed_and_one_handed_on_is_incomplete() -> None:
    code = """\
import io.grpc.netty.NettyServerBuilder
import java.util.concurrent.TimeUnit

fun main() {
    val builder = NettyServerBuilder.forPort(PORT)
    builder.maxConnectionAge(2, TimeUnit.MINUTES)
    val server = builder.build().start()
    server.awaitTermination()
}

const val PORT = 7000
"""
    facts = facts_of(code)
    (server,) = facts.servers
    assert server.options.complete
    assert server.options.get("grpc.max_connection_age_ms").value == 120_000
    assert facts.starts == {"server"}
    assert facts.listens[0].address == ":7000"
    handed = code.replace("    builder.maxConnectionAge", "    tune(builder)\n    builder.x")
    (server,) = facts_of(handed).servers
    assert not server.options.complete


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ('"orders:9090"', "orders:9090"),
        ('"dns:///$HOST:9090"', "dns:///orders:9090"),
        ('"${HOST}:${PORT}"', "orders:9090"),
        ('System.getenv("TARGET") ?: "orders:9090"', EnvRef("TARGET", "orders:9090")),
        ('System.getenv().getOrDefault("TARGET", "a:1")', EnvRef("TARGET", "a:1")),
        ("lookup()", UNKNOWN),
    ],
)
def test_a_channels_target_is_followed_through_templates_and_the_environment(
    target: str, expected: object
) -> None:
    code = f"""\
import io.grpc.ManagedChannelBuilder

object Config {{
    const val HOST = "orders"
    const val PORT = 9090
}}

class Client {{
    private val channel = ManagedChannelBuilder.forTarget({target}).usePlaintext().build()
}}
""".replace("$HOST", "${Config.HOST}").replace("${HOST}", "${Config.HOST}")
    code = code.replace("${PORT}", "${Config.PORT}")
    (channel,) = facts_of(code).channels
    assert channel.target == expected
    assert channel.long_lived


def test_a_channel_made_and_shut_down_in_one_function_is_made_per_call() -> None:
    code = """\
import io.grpc.ManagedChannelBuilder

fun price(id: String): Long {
    val channel = ManagedChannelBuilder.forAddress("prices", 9090).usePlaintext().build()
    try {
        return PriceGrpcKt.PriceCoroutineStub(channel).hashCode().toLong()
    } finally {
        channel.shutdownNow()
    }
}
"""
    (channel,) = facts_of(code).channels
    assert (channel.factory, channel.target, channel.long_lived) == (
        "ManagedChannelBuilder.forAddress",
        "prices:9090",
        False,
    )


def test_the_jvm_shutdown_hook_is_a_sigterm_handler_and_its_bounded_stop_is_graceful() -> None:
    code = component(hook=HOOK)
    facts = facts_of(code)
    (handler,) = facts.sigterm_handlers
    assert handler.line == line_of(code, "Runtime.getRuntime()")
    (stop,) = facts.stops
    assert (stop.server, stop.grace) == ("server", UNKNOWN)  # shutdownNow() bounds it


def with_stop(code: str, marks: str = "") -> str:
    """The component with its server in a property and a `stop()` that only shuts it down
    (`marks`: the annotations put on it)."""
    code = code.replace(
        "    @PostConstruct",
        f"    {marks}fun stop() {{\n        server.shutdown()\n    }}\n\n    @PostConstruct",
    )
    return code.replace("        val server: Server =", "        server =").replace(
        "class GrpcRunner(private val orders: OrderService) {",
        "class GrpcRunner(private val orders: OrderService) {\n"
        "    private lateinit var server: Server\n",
    )


def test_a_shutdown_its_hook_does_not_wait_for_stops_with_no_grace() -> None:
    hook = "        Runtime.getRuntime().addShutdownHook(Thread(::stop))\n"
    facts = facts_of(with_stop(component(hook=hook)))
    (stop,) = facts.stops
    assert (stop.server, stop.grace) == ("server", 0)
    assert stop.written == "server.shutdown() in a shutdown hook that does not await it"


def test_a_spring_beans_pre_destroy_and_destroy_are_what_sigterm_runs() -> None:
    """Spring Boot closes its context on SIGTERM, running `@PreDestroy` functions and a
    DisposableBean's `destroy()`: each is a SIGTERM handler, and a shutdown() there that is
    not awaited stops with no grace."""
    code = with_stop(component(), marks="@PreDestroy\n    ")
    facts = facts_of(code)
    (handler,) = facts.sigterm_handlers
    assert handler.line == line_of(code, "@PreDestroy")
    (stop,) = facts.stops
    assert (stop.server, stop.grace) == ("server", 0)
    disposable = code.replace(
        "    @PreDestroy\n    fun stop()", "    override fun destroy()"
    ).replace("OrderService) {", "OrderService) : DisposableBean {")
    assert [stop.grace for stop in facts_of(disposable).stops] == [0]
    # a function of another name, not marked, runs on no signal
    unmarked = code.replace("    @PreDestroy\n", "")
    assert facts_of(unmarked).sigterm_handlers == []


def test_a_class_body_on_one_line_is_read_though_the_grammar_wants_a_separator() -> None:
    """tree-sitter's Kotlin grammar inserts a member separator before a closing brace on
    the same line (the compiler needs none): the tree is whole, and read."""
    hook = (
        "        Runtime.getRuntime().addShutdownHook(object : Thread() "
        "{ override fun run() { server.shutdownNow() } })\n"
    )
    facts = facts_of(component(hook=hook))
    assert facts.problem is None
    assert len(facts.sigterm_handlers) == 1
    assert [(stop.server, stop.grace) for stop in facts.stops] == [("server", 0)]


def test_a_file_the_grammar_goes_back_over_past_its_budget_is_unread_at_info() -> None:
    """Each one-line object body sends tree-sitter back over what it read: a few are read,
    a thousand (quadratic for the grammar) leave the file unread."""
    hook = "Runtime.getRuntime().addShutdownHook(object : Thread() { override fun run() { h() } })"

    def hooks(count: int) -> CodeFacts:
        return facts_of("import io.grpc.*\n\nfun hooks() {\n" + f"    {hook}\n" * count + "}\n")

    assert len(hooks(100).sigterm_handlers) == 100
    many = hooks(1000)
    assert many.problem is not None and many.problem.severity is Severity.INFO
    assert "went back over the file" in many.problem.message


def test_a_file_the_grammar_refuses_is_unread_at_info_not_an_error() -> None:
    facts = facts_of("import io.grpc.ServerBuilder\n\nfun serve() {\n    val port =\n}\n")
    assert facts.problem is not None
    assert (facts.problem.rule, facts.problem.severity) == ("KLB004", Severity.INFO)
    assert facts.problem.message.startswith("not analysed:")
    assert not facts.servers


def test_a_server_with_no_max_age_and_no_shutdown_is_reported_with_no_fix(
    tmp_path: Path,
) -> None:
    code = component()
    files: dict[str, str | bytes] = {"deploy.yaml": MANIFESTS, SOURCE: code}
    files["orders/Dockerfile"] = "FROM eclipse-temurin:21\nCOPY build/libs/*.jar app.jar\n"
    result = lint_files(tmp_path, files, select=["KLB201", "KLB403"])
    findings = sorted(result.findings, key=lambda f: f.rule)
    assert rules_of(findings) == ["KLB201", "KLB403"]
    max_age, shutdown = findings
    assert max_age.path.endswith(SOURCE)
    assert max_age.line == line_of(code, "ServerBuilder.forPort")
    assert "ServerBuilder.forPort() sets no maxConnectionAge" in max_age.message
    assert shutdown.path.endswith(SOURCE)
    assert shutdown.line == line_of(code, "server.awaitTermination()")
    assert "Thread { ... }" in " ".join(shutdown.detail)
    assert not any(f.edits for f in findings)


def test_a_server_with_max_age_and_a_hook_is_not_reported(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"deploy.yaml": MANIFESTS, SOURCE: component(MAX_AGE, HOOK)}
    result = lint_files(tmp_path, files, select=["KLB201", "KLB403"])
    assert rules_of(result.findings) == []


def test_a_kotlin_service_of_a_spring_starter_makes_its_settings_a_server(tmp_path: Path) -> None:
    service = """\
package com.example.orders

import net.devh.boot.grpc.server.service.GrpcService

@GrpcService
class OrderService : OrderServiceGrpcKt.OrderServiceCoroutineImplBase()
"""
    files: dict[str, str | bytes] = {
        "deploy.yaml": MANIFESTS,
        "orders/src/main/kotlin/com/example/orders/OrderService.kt": service,
        "orders/src/main/resources/application.yml": "grpc:\n  server:\n    port: 9090\n",
        "orders/build.gradle.kts": 'dependencies {\n    implementation("'
        + 'net.devh:grpc-server-spring-boot-starter:3.1.0.RELEASE")\n}\n',
    }
    result = lint_files(tmp_path, files, select=["KLB201"])
    (finding,) = result.findings
    assert finding.path.endswith("orders/src/main/resources/application.yml")


def test_a_parameter_hides_a_property_of_its_name_and_a_companions_is_read() -> None:
    code = """\
import io.grpc.ServerBuilder

class Runner {
    companion object {
        const val PORT = 9090
    }

    private val port = 8080

    fun serve(port: Int) {
        val server = ServerBuilder.forPort(port).build()
    }

    fun serveDefault() {
        val server = ServerBuilder.forPort(PORT).build()
    }
}
"""
    assert [listen.address for listen in facts_of(code).listens] == [UNKNOWN, ":9090"]


# A client class that builds its channel from its primary constructor's parameters, and a
# Micronaut factory that hands it the host and port its `@Value` fields are injected.
RATES_CLIENT = """\
package shop.rates

import io.grpc.ManagedChannel
import io.grpc.ManagedChannelBuilder

class RatesClient(host: String, port: Int, private val timeoutMs: Long) {
    private val channel: ManagedChannel = ManagedChannelBuilder
        .forAddress(host, port)
        .usePlaintext()
        .build()

    val stub = RatesGrpc.newBlockingStub(channel)
}
"""

RATES_FACTORY = """\
package shop.config

import io.micronaut.context.annotation.Bean
import io.micronaut.context.annotation.Factory
import io.micronaut.context.annotation.Value
import jakarta.inject.Singleton
import shop.rates.RatesClient

@Factory
class ClientsFactory {
    @Value("\\${rates.host}")
    private lateinit var ratesHost: String

    @Value("\\${rates.port:50051}")
    private lateinit var ratesPort: String

    @Singleton @Bean
    fun ratesClient(): RatesClient = RatesClient(ratesHost, ratesPort.toInt(), 500L)
}
"""

RATES_DEPLOYMENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
spec:
  selector:
    matchLabels: {app: checkout}
  template:
    metadata:
      labels: {app: checkout}
    spec:
      containers:
        - name: checkout
          image: registry.example/checkout:1.0
          env:
            - name: RATES_HOST
              value: backend
"""


def test_a_primary_constructors_parameters_are_what_its_callers_pass() -> None:
    from k8slb.code.facts import Constructed, EnvText, Setting, joined
    from k8slb.code.imported import resolve_imports

    client = parse("svc/src/main/kotlin/shop/rates/RatesClient.kt", RATES_CLIENT.encode())
    (channel,) = client.channels
    assert channel.target == joined(
        [Constructed("RatesClient", 0, 3), ":", Constructed("RatesClient", 1, 3)]
    )
    factory = parse("svc/src/main/kotlin/shop/config/ClientsFactory.kt", RATES_FACTORY.encode())
    [passed] = factory.exports["new RatesClient"]
    assert passed[:2] == (
        Setting("spring", "rates.host", "RATES_HOST", None),
        Setting("spring", "rates.port", "RATES_PORT", "50051"),
    )
    for module in (client, factory):
        module.project = "svc"
    (resolved,) = resolve_imports([client, factory])[0].channels
    assert resolved.target == EnvText((EnvRef("RATES_HOST"), ":", EnvRef("RATES_PORT", "50051")))


@pytest.mark.parametrize(
    ("call", "why"),
    [
        ("RatesClient(port = ratesPort.toInt(), host = ratesHost, timeoutMs = 500L)", "named"),
        ("RatesClient(ratesHost, ratesPort.toInt())", "another constructor's count"),
    ],
)
def test_a_constructor_call_whose_arguments_are_out_of_place_passes_nothing(
    call: str, why: str
) -> None:
    factory = RATES_FACTORY.replace("RatesClient(ratesHost, ratesPort.toInt(), 500L)", call)
    facts = parse("svc/src/main/kotlin/shop/config/ClientsFactory.kt", factory.encode())
    calls = facts.exports.get("new RatesClient", [])
    assert all(len(values) != 3 for values in calls), why


def test_a_var_parameter_of_the_constructor_is_no_known_value() -> None:
    changed = RATES_CLIENT.replace(
        "class RatesClient(host: String", "class RatesClient(var host: String"
    )
    (channel,) = parse("RatesClient.kt", changed.encode()).channels
    assert channel.target == UNKNOWN, "the class may change it before the channel is built"


def test_a_file_read_only_for_its_injected_values_tells_no_syntax_error() -> None:
    broken = RATES_FACTORY + "\nfun broken( {\n"
    facts = parse("svc/src/main/kotlin/shop/config/ClientsFactory.kt", broken.encode())
    assert facts.problem is None and not facts.exports


def test_end_to_end_a_channel_a_micronaut_factory_configures_is_klb102(tmp_path: Path) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    files: dict[str, str | bytes] = {
        "checkout/build.gradle.kts": 'plugins {\n    id("io.micronaut.application")\n}\n',
        "checkout/src/main/kotlin/shop/rates/RatesClient.kt": RATES_CLIENT,
        "checkout/src/main/kotlin/shop/config/ClientsFactory.kt": RATES_FACTORY,
        "checkout/src/main/resources/application.yml": (
            "rates:\n  host: ${RATES_HOST:localhost}\n  port: ${RATES_PORT:50051}\n"
        ),
        "k8s/backend.yaml": GRPC_SERVICE + BACKEND,
        "k8s/checkout.yaml": RATES_DEPLOYMENT,
    }
    (finding,) = lint_files(tmp_path, files, select=["KLB102"]).findings
    assert finding.path.endswith("RatesClient.kt") and finding.line == 7
    assert "'backend:50051'" in finding.text and "RATES_HOST" in finding.text


_LIFECYCLE = """\
package com.example.ledger

import io.grpc.Server
import io.grpc.netty.NettyServerBuilder

class LedgerRpc(port: Int, service: LedgerService) {
    private val rpc: Server = NettyServerBuilder.forPort(port).addService(service).build()

    fun open() {
        rpc.start()
    }

    fun close() {
DRAIN
    }
}
"""


@pytest.mark.parametrize(
    "drain",
    [
        "        rpc.shutdown().awaitTermination()",
        "        rpc.shutdownNow()\n        rpc.awaitTermination()",
    ],
    ids=["chained", "after-shutdown"],
)
def test_awaiting_a_stop_begun_is_a_drain_not_a_wait_to_serve(drain: str) -> None:
    """awaitTermination() on shutdown()'s result, or after the same server's shutdown() in
    the same function, waits for a drain, not for the server as it serves."""
    assert facts_of(_LIFECYCLE.replace("DRAIN", drain)).waits == []
    (wait,) = facts_of(_LIFECYCLE.replace("DRAIN", "        rpc.awaitTermination()")).waits
    assert wait.how == "awaitTermination()"
