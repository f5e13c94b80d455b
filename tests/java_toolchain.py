"""A JDK and Debian's grpc-java for the proof that runs what k8slb writes in Java code.

grpc-java comes from Debian's `libgrpc-java` (1.41.3), whose jars land in /usr/share/java;
the package names none of the jars they need at run time (netty, perfmark, gson, guava),
so `.ci/run` installs those by name too (nothing comes from Maven). Where javac or a jar is
missing the tests skip, with the reason; CI sets K8SLB_REQUIRE_JAVA, and there they fail
instead, so the proof cannot quietly stop running (nor the test that compiles the Java
fixes' goldens, which needs javac alone).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

DEBIAN_JARS = Path("/usr/share/java")
PACKAGES = (
    "default-jdk-headless libgrpc-java libnetty-java libperfmark-java libgoogle-gson-java"
    " libguava-java"
)
# a grpc-java client and server on the netty transport, and the libraries of grpc-core's
# and grpc-netty's poms that they load (not the annotations, nor netty's proxy handlers)
JARS = (
    "grpc-api",
    "grpc-context",
    "grpc-core",
    "grpc-netty",
    "grpc-stub",
    "netty-buffer",
    "netty-codec",
    "netty-codec-http",
    "netty-codec-http2",
    "netty-common",
    "netty-handler",
    "netty-resolver",
    "netty-transport",
    "guava",
    "perfmark-api",
    "gson",
)


def _unavailable(reason: str) -> None:
    if os.environ.get("K8SLB_REQUIRE_JAVA"):
        pytest.fail(f"K8SLB_REQUIRE_JAVA is set, but {reason}")
    pytest.skip(reason)


def require_javac() -> str:
    """javac's path; a skip where no JDK is installed, a failure where CI needs it."""
    found = shutil.which("javac")
    if found is None or shutil.which("java") is None:
        _unavailable(f"no JDK (java, javac) on PATH (apt-get install {PACKAGES})")
    assert found is not None
    return found


def require_java() -> str:
    """The class path of Debian's grpc-java and what it loads."""
    require_javac()
    jars = [DEBIAN_JARS / f"{name}.jar" for name in JARS]
    missing = [jar.name for jar in jars if not jar.is_file()]
    if missing:
        _unavailable(f"no {', '.join(missing)} in {DEBIAN_JARS} (apt-get install {PACKAGES})")
    return os.pathsep.join(map(str, jars))


def javac(classpath: str, sources: list[Path], classes: Path) -> None:
    """Compile `sources` into the folder `classes`."""
    command = ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", str(classes)]
    done = subprocess.run(
        [*command, *map(str, sources)], capture_output=True, text=True, check=False, timeout=300
    )
    assert done.returncode == 0, done.stderr
