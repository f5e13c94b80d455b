"""Building blocks for the rules' examples: a web Deployment and the Service in front of it."""

from __future__ import annotations

SERVICE = """\
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - name: http
      port: 80
      targetPort: http
"""


def web_deployment(container_extra: str = "", pod_extra: str = "", *, service: bool = True) -> str:
    """A Deployment whose container `web` listens on port 8080 (named `http`).

    `container_extra` and `pod_extra` are YAML lines added to the container and to the pod
    spec, written without indentation (it is added here)."""
    manifest = (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        "  name: web\n"
        "spec:\n"
        "  replicas: 3\n"
        "  selector:\n"
        "    matchLabels: {app: web}\n"
        "  template:\n"
        "    metadata:\n"
        "      labels: {app: web}\n"
        "    spec:\n" + _indent(pod_extra, 6) + "      containers:\n"
        "        - name: web\n"
        "          image: registry.example/web:1.0\n"
        "          ports:\n"
        "            - name: http\n"
        "              containerPort: 8080\n" + _indent(container_extra, 10)
    )
    return manifest + (SERVICE if service else "")


def bare_pod(container_extra: str = "") -> str:
    """web_deployment()'s pod run bare, with no controller (a Pod named `web`), and the
    Service in front of it; `container_extra` as in web_deployment()."""
    return (
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  name: web\n"
        "  labels: {app: web}\n"
        "spec:\n"
        "  containers:\n"
        "    - name: web\n"
        "      image: registry.example/web:1.0\n"
        "      ports:\n"
        "        - name: http\n"
        "          containerPort: 8080\n" + _indent(container_extra, 6) + SERVICE
    )


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


# A build that links web_deployment()'s container to the example's code beside it
# (`k8slb explain-links`): a skaffold artifact for its image, a Dockerfile running app.py.
BUILT_HERE = (
    (
        "skaffold.yaml",
        "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n",
    ),
    ("Dockerfile", 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/app.py"]\n'),
)


def publishing_not_ready(manifests: str) -> str:
    """The manifests with their Service made to publish not-ready addresses."""
    return manifests.replace(
        "spec:\n  selector:", "spec:\n  publishNotReadyAddresses: true\n  selector:", 1
    )


READY = "readinessProbe:\n  httpGet: {path: /ready, port: http}\n"
LIVE = "livenessProbe:\n  httpGet: {path: /live, port: http}\n"
PRESTOP = "lifecycle:\n  preStop:\n    sleep: {seconds: 5}\n"
# A pod-level volume on claim `data`, not among the files (taken as ReadWriteOnce)
DATA_CLAIM = "volumes:\n  - name: data\n    persistentVolumeClaim: {claimName: data}\n"


GRPC_SERVER = """\
from concurrent import futures

import grpc


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8){options})
    server.add_insecure_port("[::]:50051")
    server.start()
{before_wait}    server.wait_for_termination()
"""
MAX_AGE_OPTIONS = (
    ',\n        options=[("grpc.max_connection_age_ms", 300_000),'
    ' ("grpc.max_connection_age_grace_ms", 30_000)],\n    '
)
SIGTERM_HANDLER = (
    "    import signal\n\n"
    "    signal.signal(signal.SIGTERM, lambda signum, frame: server.stop(grace=25))\n"
)


def grpc_server(options: str = "", before_wait: str = "") -> str:
    """A grpcio server started in `serve()`; `options` follows the thread pool argument."""
    return GRPC_SERVER.format(options=options, before_wait=before_wait)


GO_SERVER = """\
package main

import (
	"net"
{imports}
	"google.golang.org/grpc"
)

func main() {{
	lis, _ := net.Listen("tcp", ":50051")
	server := grpc.NewServer({options})
{before_serve}	server.Serve(lis)
}}
"""
GO_MAX_AGE = (
    "grpc.KeepaliveParams(keepalive.ServerParameters{\n"
    "\t\tMaxConnectionAge:      5 * time.Minute,\n"
    "\t\tMaxConnectionAgeGrace: 30 * time.Second,\n"
    "\t})"
)
GO_KEEPALIVE_IMPORTS = '\t"time"\n\n\t"google.golang.org/grpc/keepalive"'
GO_SIGTERM = (
    "\tgo func() {\n"
    "\t\tstop := make(chan os.Signal, 1)\n"
    "\t\tsignal.Notify(stop, syscall.SIGTERM)\n"
    "\t\t<-stop\n"
    "\t\tserver.GracefulStop()\n"
    "\t}()\n"
)
# A grpc-go server served by net/http through h2c: its connections are the HTTP server's.
GO_HANDLER = """\
package main

import (
	"net/http"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
)

func main() {
	server := grpc.NewServer()
	http.ListenAndServe(":50051", h2c.NewHandler(server, &http2.Server{}))
}
"""
GO_SIGNAL_IMPORTS = '\t"os"\n\t"os/signal"\n\t"syscall"'


NODE_SERVER = """\
const grpc = require('@grpc/grpc-js');

function main() {{
  const server = new grpc.Server({options});
{before_bind}  server.bindAsync(':50051', grpc.ServerCredentials.createInsecure(), () => {{}});
}}

main();
"""
NODE_MAX_AGE = "{'grpc.max_connection_age_ms': 300000, 'grpc.max_connection_age_grace_ms': 30000}"
NODE_SIGTERM = (
    "  process.on('SIGTERM', () => {\n"
    "    setTimeout(() => server.forceShutdown(), 25000).unref();\n"
    "    server.tryShutdown(() => process.exit(0));\n"
    "  });\n"
)


def node_server(options: str = "", before_bind: str = "") -> str:
    """A grpc-js server started in `main()`; `options` are grpc.Server's argument."""
    return NODE_SERVER.format(options=options, before_bind=before_bind)


def go_server(options: str = "", before_serve: str = "", imports: str = "") -> str:
    """A grpc-go server started in `main()`; `options` are grpc.NewServer's arguments."""
    return GO_SERVER.format(options=options, before_serve=before_serve, imports=imports)


JAVA_SERVER = """\
import io.grpc.Server;
import io.grpc.ServerBuilder;
import java.util.concurrent.TimeUnit;

public class Main {
  public static void main(String[] args) throws Exception {
{setup}    Server server = ServerBuilder.forPort(50051){builder}
        .addService(new GreeterService())
        .build()
        .start();
{before_wait}    server.awaitTermination();
  }
}
"""
JAVA_MAX_AGE = (
    "\n        .maxConnectionAge(5, TimeUnit.MINUTES)"
    "\n        .maxConnectionAgeGrace(30, TimeUnit.SECONDS)"
)

# The same server in Kotlin: grpc-java's builder, started and waited on in `main`.
KOTLIN_SERVER = """\
import io.grpc.ServerBuilder
import java.util.concurrent.TimeUnit

fun main() {
    val server = ServerBuilder.forPort(50051){builder}
        .addService(GreeterService())
        .build()
        .start()
{before_wait}    server.awaitTermination()
}
"""
KOTLIN_MAX_AGE = (
    "\n        .maxConnectionAge(5, TimeUnit.MINUTES)"
    "\n        .maxConnectionAgeGrace(30, TimeUnit.SECONDS)"
)
KOTLIN_HOOK = (
    "    Runtime.getRuntime().addShutdownHook(Thread {\n"
    "        server.shutdown()\n"
    "        if (!server.awaitTermination(25, TimeUnit.SECONDS)) {\n"
    "            server.shutdownNow()\n"
    "        }\n"
    "    })\n"
)


def kotlin_server(builder: str = "", before_wait: str = "") -> str:
    """A grpc-java server built, started and waited on in a Kotlin `main`; `builder` is
    chained after `ServerBuilder.forPort(50051)`."""
    return KOTLIN_SERVER.replace("{builder}", builder).replace("{before_wait}", before_wait)


def maven_pom(grpc_version: str) -> tuple[tuple[str, str], ...]:
    """A Maven build beside the code, on grpc-java `grpc_version` (Example.beside)."""
    return (
        (
            "pom.xml",
            "<project>\n  <properties>\n"
            f"    <grpc.version>{grpc_version}</grpc.version>\n"
            "  </properties>\n  <dependencies>\n    <dependency>\n"
            "      <groupId>io.grpc</groupId>\n"
            "      <artifactId>grpc-netty-shaded</artifactId>\n"
            "      <version>${grpc.version}</version>\n"
            "    </dependency>\n  </dependencies>\n</project>\n",
        ),
    )


# The JVM runs its shutdown hooks on SIGTERM: this one drains the server, bounded.
JAVA_HOOK = (
    "    Runtime.getRuntime().addShutdownHook(new Thread(() -> {\n"
    "      server.shutdown();\n"
    "      try {\n"
    "        if (!server.awaitTermination(25, TimeUnit.SECONDS)) {\n"
    "          server.shutdownNow();\n"
    "        }\n"
    "      } catch (InterruptedException interrupted) {\n"
    "        server.shutdownNow();\n"
    "      }\n"
    "    }));\n"
)


def java_server(builder: str = "", before_wait: str = "", setup: str = "") -> str:
    """A grpc-java server built, started and waited on in `main`; `builder` is chained
    after `ServerBuilder.forPort(50051)`, `setup` comes before it."""
    return (
        JAVA_SERVER.replace("{setup}", setup)
        .replace("{builder}", builder)
        .replace("{before_wait}", before_wait)
    )
