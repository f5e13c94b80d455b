"""NestJS's gRPC transport read as the grpc-js servers and clients it makes: a microservice
is a grpc-js server (KLB201 on its channelOptions, KLB403 unless enableShutdownHooks), a
registered client a long-lived grpc-js client (KLB102), and the url a ConfigService reads
is the environment variable it names, followed to the Service."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.code.facts import EnvRef, Unknown
from k8slb.core.findings import Severity
from k8slb.interface.cli import cli
from k8slb.languages.javascript.parse import parse_typescript

from .helpers import lint_files, rules_of

# An order service that serves gRPC through NestJS, as `nest new` and the docs lay it out.
SERVER = """\
import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions, Transport } from '@nestjs/microservices';
import { join } from 'path';
import { OrdersModule } from './orders.module';

async function bootstrap() {
  const app = await NestFactory.create(OrdersModule);
  app.connectMicroservice<MicroserviceOptions>({
    transport: Transport.GRPC,
    options: {
      package: 'orders',
      protoPath: join(__dirname, 'proto/orders.proto'),
      url: URL,CHANNEL
    },
  });
  HOOKS
  await app.startAllMicroservices();
  await app.listen(3000);
}
bootstrap();
"""
MAX_AGE = (
    "\n      channelOptions: {\n        'grpc.max_connection_age_ms': 300000,\n"
    "        'grpc.max_connection_age_grace_ms': 30000,\n      },"
)


def server(url: str = "'0.0.0.0:5000'", channel: str = "", hooks: str = "") -> str:
    return SERVER.replace("URL", url).replace("CHANNEL", channel).replace("HOOKS", hooks)


# A billing service's client of the orders service, its url from @nestjs/config.
CLIENT = """\
import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { join } from 'path';

@Module({
  imports: [
    ConfigModule.forRoot(),
    ClientsModule.registerAsync([
      {
        name: 'ORDERS_PACKAGE',
        useFactory: (config: ConfigService) => ({
          transport: Transport.GRPC,
          options: {
            package: 'orders',
            protoPath: join(__dirname, 'proto/orders.proto'),
            url: config.getOrThrow<string>('ORDERS_GRPC_URL'),
          },
        }),
        inject: [ConfigService],
      },
    ]),
  ],
})
export class BillingModule {}
"""
# The orders Deployment (3 replicas, its gRPC url from the environment) behind a ClusterIP
# Service whose port says nothing of gRPC, and billing, which dials it by the Service's name.
MANIFESTS = """\
apiVersion: v1
kind: Service
metadata:
  name: orders
spec:
  selector:
    app: orders
  ports:
    - name: tcp
      port: 5000
      targetPort: 5000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  replicas: 3
  selector:
    matchLabels:
      app: orders
  template:
    metadata:
      labels:
        app: orders
    spec:
      containers:
        - name: orders
          image: shop/orders:1.0
          env:
            - name: ORDERS_GRPC_URL
              value: 0.0.0.0:5000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: billing
spec:
  replicas: 2
  selector:
    matchLabels:
      app: billing
  template:
    metadata:
      labels:
        app: billing
    spec:
      containers:
        - name: billing
          image: shop/billing:1.0
          env:
            - name: ORDERS_GRPC_URL
              value: orders:5000
"""


def test_a_nest_grpc_microservice_is_a_grpc_js_server_bound_to_its_url() -> None:
    facts = parse_typescript("src/main.ts", server().encode())
    (made,) = facts.servers
    assert (made.loc.line, made.name, made.factory) == (8, "app", "app.connectMicroservice")
    assert made.options.complete and not made.options.entries, "NestJS gives grpc-js {}"
    (listen,) = facts.listens
    assert (listen.server, listen.address, listen.loc.line) == ("app", "0.0.0.0:5000", 13)
    assert facts.starts == {"app"} and [w.server for w in facts.waits] == ["app"]


def test_create_microservice_with_no_url_listens_on_nests_default() -> None:
    text = (
        "import { NestFactory } from '@nestjs/core';\n"
        "import { Transport } from '@nestjs/microservices';\n"
        "async function bootstrap() {\n"
        "  const ms = await NestFactory.createMicroservice(AppModule, {\n"
        "    transport: Transport.GRPC,\n"
        "    options: { package: 'hero', protoPath: 'hero.proto' },\n"
        "  });\n"
        "  await ms.listen();\n}\nbootstrap();\n"
    )
    facts = parse_typescript("main.ts", text.encode())
    assert [(s.name, s.loc.line) for s in facts.servers] == [("ms", 4)]
    assert [listen.address for listen in facts.listens] == ["localhost:5000"]


def test_other_nest_transports_are_not_grpc() -> None:
    text = server().replace("Transport.GRPC", "Transport.TCP")
    facts = parse_typescript("main.ts", text.encode())
    assert facts.servers == [] and facts.listens == []


@pytest.mark.parametrize(
    ("channel", "found"),
    [("", ["KLB201"]), (MAX_AGE, [])],
    ids=["no-channel-options", "max-age-in-channel-options"],
)
def test_a_nest_grpc_servers_connection_age_is_its_channel_options(
    tmp_path: Path, channel: str, found: list[str]
) -> None:
    files = {"src/main.ts": server(channel=channel), "package.json": "{}"}
    assert rules_of(lint_files(tmp_path, files, ["KLB201"]).findings) == found


def test_the_max_age_advice_names_the_transports_channel_options(tmp_path: Path) -> None:
    files = {"src/main.ts": server(), "package.json": "{}"}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.message == "app.connectMicroservice() sets no 'grpc.max_connection_age_ms'"
    assert "to the transport's options.channelOptions" in finding.text


def test_channel_options_set_elsewhere_keep_it_silent(tmp_path: Path) -> None:
    text = server(channel="\n      channelOptions: loadChannelOptions(),")
    files = {"src/main.ts": text, "package.json": "{}"}
    assert lint_files(tmp_path, files, ["KLB201"]).findings == []


@pytest.mark.parametrize(
    ("hooks", "found"),
    [("", ["KLB403"]), ("app.enableShutdownHooks();", [])],
    ids=["no-hooks", "shutdown-hooks"],
)
def test_a_nest_grpc_server_is_drained_only_through_shutdown_hooks(
    tmp_path: Path, hooks: str, found: list[str]
) -> None:
    files = {"src/main.ts": server(hooks=hooks), "package.json": "{}"}
    assert rules_of(lint_files(tmp_path, files, ["KLB403"]).findings) == found


def test_the_sigterm_advice_for_a_nest_server_is_nests_own(tmp_path: Path) -> None:
    files = {"src/main.ts": server(), "package.json": "{}"}
    (finding,) = lint_files(tmp_path, files, ["KLB403"]).findings
    assert "app.enableShutdownHooks()" in finding.text and "gracefulShutdown: true" in finding.text
    assert "process.on" not in finding.text
    assert not finding.edits, "no process.on handler: NestJS closes the transport itself"


def test_a_registered_nest_client_is_long_lived_and_its_url_is_the_environments() -> None:
    (channel,) = parse_typescript("billing.module.ts", CLIENT.encode()).channels
    assert channel.long_lived and channel.loc.line == 17
    assert channel.factory == "ClientsModule.registerAsync"
    assert channel.target == EnvRef("ORDERS_GRPC_URL")
    assert channel.options.complete and not channel.options.entries


@pytest.mark.parametrize(
    ("read", "expected"),
    [
        ("config.get('ORDERS_GRPC_URL', 'orders:5000')", EnvRef("ORDERS_GRPC_URL", "orders:5000")),
        ("process.env.ORDERS_GRPC_URL ?? 'orders:5000'", EnvRef("ORDERS_GRPC_URL", "orders:5000")),
        ("'orders.shop.svc:5000'", "orders.shop.svc:5000"),
        # a key of a loaded configuration file, not an environment variable
        ("config.get('orders.url')", Unknown()),
    ],
    ids=["config-default", "process-env", "literal", "config-file-key"],
)
def test_a_nest_clients_url_is_followed(read: str, expected: object) -> None:
    text = CLIENT.replace("config.getOrThrow<string>('ORDERS_GRPC_URL')", read)
    (channel,) = parse_typescript("billing.module.ts", text.encode()).channels
    assert channel.target == expected


def test_client_proxy_factory_and_keepalive_settings_are_read() -> None:
    text = (
        "import { ClientProxyFactory, Transport } from '@nestjs/microservices';\n"
        "export const orders = ClientProxyFactory.create({\n"
        "  transport: Transport.GRPC,\n"
        "  options: {\n"
        "    package: 'orders',\n"
        "    protoPath: 'orders.proto',\n"
        "    keepalive: { keepaliveTimeMs: 10000, other: 1 },\n"
        "    channelOptions: { 'grpc.lb_policy_name': 'round_robin' },\n"
        "  },\n"
        "});\n"
    )
    (channel,) = parse_typescript("orders.client.ts", text.encode()).channels
    assert (channel.factory, channel.target, channel.loc.line) == (
        "ClientProxyFactory.create",
        "localhost:5000",
        2,
    )
    assert [(o.key, o.value) for o in channel.options.entries] == [
        ("grpc.lb_policy_name", "round_robin"),
        ("grpc.keepalive_time_ms", 10000),
    ]


def test_options_k8slb_cannot_follow_leave_the_target_unknown() -> None:
    text = CLIENT.replace("options: {\n", "options: {\n              ...sharedGrpcOptions,\n", 1)
    (channel,) = parse_typescript("billing.module.ts", text.encode()).channels
    assert channel.target == Unknown() and not channel.options.complete


def test_a_nest_client_is_followed_through_the_environment_to_a_scaled_clusterip(
    tmp_path: Path,
) -> None:
    files = {
        "orders/src/main.ts": server(
            "process.env.ORDERS_GRPC_URL", MAX_AGE, "app.enableShutdownHooks();"
        ),
        "orders/package.json": "{}",
        "billing/src/billing.module.ts": CLIENT,
        "billing/package.json": "{}",
        "deploy/k8s.yaml": MANIFESTS,
    }
    found = lint_files(tmp_path, files, ["KLB101", "KLB102"]).findings
    client = [f for f in found if f.rule == "KLB102"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.severity) for f in client] == [
        ("billing.module.ts", 17, Severity.WARNING)
    ]
    assert "ClusterIP Service/orders" in client[0].message
    (service,) = [f for f in found if f.rule == "KLB101"]
    assert "its code serves gRPC on 5000" in service.text


def test_the_fix_adds_the_max_age_to_the_channel_options_written(tmp_path: Path) -> None:
    text = server(
        channel="\n      channelOptions: {\n        'grpc.keepalive_time_ms': 10000,\n      },"
    )
    (tmp_path / "package.json").write_text("{}")
    (tmp_path / "main.ts").write_text(text)
    args = ["fix", "--no-cache", "--select", "KLB201", str(tmp_path)]
    assert CliRunner().invoke(cli, args).exit_code in (0, 1)
    assert (tmp_path / "main.ts").read_text() == server(
        channel="\n      channelOptions: {\n        'grpc.keepalive_time_ms': 10000,\n"
        "        'grpc.max_connection_age_ms': 300000,\n"
        "        'grpc.max_connection_age_grace_ms': 30000,\n      },"
    )
    assert lint_files(tmp_path, {}, ["KLB201"]).findings == []


@pytest.mark.parametrize(
    ("options", "found"),
    [("", ["KLB404"]), ("\n      gracefulShutdown: true,", [])],
    ids=["forced", "graceful"],
)
def test_closing_a_nest_app_forces_its_grpc_server_down_unless_graceful(
    tmp_path: Path, options: str, found: list[str]
) -> None:
    text = server(channel=options, hooks="app.enableShutdownHooks();")
    files = {"src/main.ts": text, "package.json": "{}"}
    findings = lint_files(tmp_path, files, ["KLB403", "KLB404"]).findings
    assert [f.rule for f in findings] == found
    for finding in findings:
        assert finding.line == 8 and finding.edits == ()
        assert "closing the NestJS application" in finding.message
        assert "set gracefulShutdown: true in the transport's options" in finding.text


def test_a_nest_app_that_is_never_closed_has_no_stop_to_report() -> None:
    facts = parse_typescript("src/main.ts", server().encode())
    assert facts.stops == []


def test_a_client_decorator_and_options_in_a_module_const_are_read() -> None:
    text = (
        "import { Client, ClientGrpc, GrpcOptions, Transport } from '@nestjs/microservices';\n"
        "const ordersOptions: GrpcOptions = {\n"
        "  transport: Transport.GRPC,\n"
        "  options: { package: 'orders', protoPath: 'orders.proto', url: 'orders:5000' },\n"
        "};\n"
        "export class BillingService {\n"
        "  @Client(ordersOptions)\n"
        "  private readonly client: ClientGrpc;\n"
        "}\n"
    )
    (channel,) = parse_typescript("billing.service.ts", text.encode()).channels
    assert (channel.factory, channel.target, channel.loc.line) == ("Client", "orders:5000", 4)


def test_clients_listed_under_clients_are_registered() -> None:
    text = CLIENT.replace(
        "ClientsModule.registerAsync([",
        "ClientsModule.registerAsync({\n      isGlobal: true,\n      clients: [",
    ).replace("      },\n    ]),\n  ],\n})", "      },\n    ]}),\n  ],\n})")
    (channel,) = parse_typescript("billing.module.ts", text.encode()).channels
    assert channel.target == EnvRef("ORDERS_GRPC_URL")


# A GraphQL gateway's module: a provider whose factory makes the gRPC client of the users
# service with ClientProxyFactory, its url read through ConfigService from a ConfigMap.
GATEWAY = """\
import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { ClientGrpcProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';

@Module({
  imports: [ConfigModule],
  providers: [
    {
      provide: 'USERS_CLIENT',
      useFactory: (configService: ConfigService): ClientGrpcProxy => {
        return ClientProxyFactory.create({
          transport: Transport.GRPC,
          options: {
            url: configService.get<string>('USERS_GRPC_URL'),
            package: 'users',
            protoPath: 'users.proto',
          },
        });
      },
      inject: [ConfigService],
    },
  ],
  exports: ['USERS_CLIENT'],
})
export class UsersModule {}
"""
GATEWAY_MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: gateway
data:
  USERS_GRPC_URL: ADDRESS
---
apiVersion: v1
kind: Service
metadata:
  name: users
spec:
  selector:
    app: users
  ports:
    - port: 50051
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: users
spec:
  replicas: 3
  selector:
    matchLabels:
      app: users
  template:
    metadata:
      labels:
        app: users
    spec:
      containers:
        - name: users
          image: blog/users:1.0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway
spec:
  selector:
    matchLabels:
      app: gateway
  template:
    metadata:
      labels:
        app: gateway
    spec:
      containers:
        - name: gateway
          image: blog/gateway:1.0
          envFrom:
            - configMapRef:
                name: gateway
"""


@pytest.mark.parametrize(
    ("address", "lines"),
    [("users:50051", [14]), ("<USERS_SVC>:50051", []), ("<USERS>:50051", [14])],
    # a placeholder is the Service whose name it spells as Kubernetes spells it in the
    # environment (USERS_SERVICE_HOST is Service users'), where the namespace has one
    ids=["service", "placeholder-of-no-service", "placeholder-of-the-service"],
)
def test_a_provider_factorys_client_proxy_is_followed_through_a_config_map(
    tmp_path: Path, address: str, lines: list[int]
) -> None:
    files = {
        "gateway/src/users.module.ts": GATEWAY,
        "gateway/package.json": "{}",
        "deploy/k8s.yaml": GATEWAY_MANIFESTS.replace("ADDRESS", address),
    }
    found = lint_files(tmp_path, files, ["KLB102"]).findings
    assert [f.line for f in found] == lines
    for finding in found:
        assert "ClusterIP Service/users" in finding.message


def test_a_placeholder_of_a_service_on_a_port_it_does_not_expose_is_klb111(
    tmp_path: Path,
) -> None:
    files = {
        "gateway/src/users.module.ts": GATEWAY,
        "gateway/package.json": "{}",
        "deploy/k8s.yaml": GATEWAY_MANIFESTS.replace("ADDRESS", "<USERS>:50052"),
    }
    found = lint_files(tmp_path, files, ["KLB102", "KLB111"]).findings
    # refused, not pinned: KLB111 alone
    assert [(f.rule, f.line) for f in found] == [("KLB111", 14)]
    assert "'<USERS>:50052'" in found[0].text and "Service/users does not expose" in found[0].text
