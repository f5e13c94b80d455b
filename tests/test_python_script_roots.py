"""Python: an absolute import is found from the folder of the script a program starts
(`python src/main.py` puts `src` first on sys.path), even where an `src/__init__.py`
makes the project the folder above it: a channel whose target is a pydantic settings
field of `src/settings.py`, read from a module of `src/clients/`, is judged with the
variables the workload sets."""

from __future__ import annotations

import sys
from pathlib import Path

from k8slb.core.findings import Finding

from .helpers import lint_files, within_cpu

SETTINGS = """\
from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    LEDGER_HOST: str
    LEDGER_PORT: int


settings = Settings()
"""
CLIENT = """\
import grpc

from settings import settings


class LedgerClient:
    def __init__(self):
        self.channel = grpc.insecure_channel(f"{settings.LEDGER_HOST}:{settings.LEDGER_PORT}")


ledger_client = LedgerClient()
"""
MAIN = """\
import uvicorn
from fastapi import FastAPI

from clients.ledger import ledger_client

app = FastAPI()

if __name__ == "__main__":
    uvicorn.run(app, host="0.0.0.0", port=8000)
"""
DOCKERFILE = """\
FROM python:3.12-slim
WORKDIR /app
COPY src/ ./src/
CMD ["python", "src/main.py"]
"""
MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
data:
  LEDGER_HOST: ledger
  LEDGER_PORT: "7000"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gw}
spec:
  replicas: 2
  selector: {matchLabels: {app: gw}}
  template:
    metadata: {labels: {app: gw}}
    spec:
      containers:
        - name: gw
          image: gw:latest
          envFrom:
            - configMapRef: {name: app-config}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ledger}
spec:
  replicas: 3
  selector: {matchLabels: {app: ledger}}
  template:
    metadata: {labels: {app: ledger}}
    spec:
      containers:
        - name: ledger
          image: ledger:latest
---
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{port: 7000, targetPort: 7000}]
"""


def tree(**changed: str) -> dict[str, str]:
    files = {
        "gw/Dockerfile": DOCKERFILE,
        "gw/pyproject.toml": '[project]\nname = "gw"\nversion = "1"\n',
        "gw/src/__init__.py": "",
        "gw/src/main.py": MAIN,
        "gw/src/settings.py": SETTINGS,
        "gw/src/clients/__init__.py": "",
        "gw/src/clients/ledger.py": CLIENT,
        "build.sh": "docker build -t gw:latest ./gw\n",
        "k8s/app.yaml": MANIFESTS,
    }
    files.update(changed)
    return {name: text for name, text in files.items() if text != "-"}


def check(tmp_path: Path, files: dict[str, str], rules: list[str]) -> list[Finding]:
    result = lint_files(tmp_path, files, rules)
    assert result.errors == []
    return result.findings


def test_an_import_is_found_from_the_script_s_folder_below_a_package(tmp_path: Path) -> None:
    channel, service = check(tmp_path, tree(), ["KLB102", "KLB101"])
    assert channel.rule == "KLB102" and channel.path.endswith("gw/src/clients/ledger.py")
    assert "'ledger:7000'" in channel.text
    assert "LEDGER_HOST and LEDGER_PORT as Deployment/gw loads them" in channel.text
    # the Service the channel dials carries gRPC, whatever its port
    assert service.rule == "KLB101" and "a gRPC channel dials it: ledger.py:8" in service.text


def test_without_the_package_file_the_project_is_the_script_s_folder(tmp_path: Path) -> None:
    (channel,) = check(tmp_path, tree(**{"gw/src/__init__.py": "-"}), ["KLB102"])
    assert "'ledger:7000'" in channel.text


def test_a_folder_with_no_script_is_no_root(tmp_path: Path) -> None:
    # no `__main__` block: nothing says `src` is the folder a program starts in
    unguarded = MAIN.replace('if __name__ == "__main__":\n    ', "")
    assert check(tmp_path, tree(**{"gw/src/main.py": unguarded}), ["KLB102"]) == []


def test_a_script_beside_the_module_s_package_is_no_root_of_it(tmp_path: Path) -> None:
    # `tools/run.py` runs with `tools` on sys.path, which holds no `src/clients`
    files = tree(
        **{
            "gw/src/main.py": MAIN.replace('if __name__ == "__main__":\n    ', ""),
            "gw/tools/run.py": 'if __name__ == "__main__":\n    print("hi")\n',
            "gw/tools/settings.py": SETTINGS,
        }
    )
    assert check(tmp_path, files, ["KLB102"]) == []


def test_a_modules_imports_walk_up_its_folders_once() -> None:
    # each absolute import walked up to MAX_SCRIPT_DEPTH folders of the module's path:
    # 20,000 imports of a module 3,000 folders deep, a script in each, took about 7 s of
    # CPU; the walk is now made once a folder
    code = (
        "from types import SimpleNamespace\n"
        "from k8slb.code.imported import _Resolver\n"
        "resolver = _Resolver([])\n"
        "deep = '/'.join(f'd{n}' for n in range(3000))\n"
        "resolver._scripts = {'/'.join(f'd{n}' for n in range(k)) for k in range(1, 3001)}\n"
        "python = SimpleNamespace(language='python')\n"
        "print(sum(len(resolver.script_roots(python, deep)) for _ in range(20_000)))\n"
    )
    done = within_cpu([sys.executable, "-c", code], cpu_seconds=4)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(20_000 * 64)
