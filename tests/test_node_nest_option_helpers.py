"""NestJS gRPC servers whose transport object a function of another module returns
(`createMicroservice(AppModule, grpcOptions('orders'))`): the function imported by a
relative path or by a tsconfig.json path alias; a server, drained only through shutdown
hooks (KLB403), when that function returns `{transport: Transport.GRPC, ...}`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import lint_files, rules_of

# A monorepo's shared library: the options every service starts its transport with.
OPTIONS = """\
import { GrpcOptions, Transport } from '@nestjs/microservices';
import { join } from 'path';

export const grpcOptions = (service: string, client = false): GrpcOptions => {
  const host = client ? process.env[`${service}_HOST`] : '0.0.0.0';
  return {
    transport: TRANSPORT,
    options: {
      package: service,
      protoPath: join(__dirname, `proto/${service}.proto`),
      url: `${host}:${process.env[`${service}_PORT`]}`,
    },
  };
};
"""
MAIN = """\
import { NestFactory } from '@nestjs/core';
import { OrdersModule } from './orders.module';
import { grpcOptions } from 'SOURCE';

async function bootstrap() {
  const app = await NestFactory.createMicroservice(OrdersModule, grpcOptions('ORDERS'));
  HOOKS
  await app.listen();
}
bootstrap();
"""
TSCONFIG = """\
{
  "compilerOptions": {
    "baseUrl": "./",
    "paths": {
      "@shop/transport": ["libs/transport/src"],
      "@shop/transport/*": ["libs/transport/src/*"]
    }
  }
}
"""
APP_TSCONFIG = '{"extends": "../../tsconfig.json", "compilerOptions": {"outDir": "../../dist"}}'


def files(source: str, transport: str = "Transport.GRPC", hooks: str = "") -> dict[str, str]:
    return {
        "package.json": "{}",
        "tsconfig.json": TSCONFIG,
        "apps/orders/tsconfig.json": APP_TSCONFIG,
        "apps/orders/src/main.ts": MAIN.replace("SOURCE", source).replace("HOOKS", hooks),
        "libs/transport/src/options.ts": OPTIONS.replace("TRANSPORT", transport),
    }


@pytest.mark.parametrize(
    ("source", "transport", "hooks", "found"),
    [
        ("../../../libs/transport/src/options", "Transport.GRPC", "", ["KLB403"]),
        ("@shop/transport/options", "Transport.GRPC", "", ["KLB403"]),
        ("@shop/transport/options", "Transport.GRPC", "app.enableShutdownHooks();", []),
        ("@shop/transport/options", "Transport.TCP", "", []),
        ("@shop/elsewhere/options", "Transport.GRPC", "", []),
    ],
    ids=["relative-path", "tsconfig-alias", "shutdown-hooks", "not-grpc", "unmapped-name"],
)
def test_a_microservice_given_another_modules_grpc_options_is_a_grpc_server(
    tmp_path: Path, source: str, transport: str, hooks: str, found: list[str]
) -> None:
    result = lint_files(tmp_path, files(source, transport, hooks), ["KLB403"])
    assert rules_of(result.findings) == found
    for finding in result.findings:
        assert finding.path.endswith("main.ts") and finding.line == 6
