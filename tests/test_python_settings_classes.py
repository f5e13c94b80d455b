"""KLB102 through a settings class: a client's channel made in a method of a factory and
kept on `self`, its target an attribute of a plain class (filled from `os.environ` in a
module of its own, re-exported by its package) or a field of a pydantic settings class
whose variable `Field(alias=...)` or `env=` names; the variable set by a ConfigMap that the
workload loads whole (`envFrom`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef
from k8slb.core.findings import Finding
from k8slb.languages.python.parse import analyse, parse

from .helpers import lint_files

SETTINGS = """\
import os


class AppSettings:
    SERVICE_NAME = os.environ.get("SERVICE_NAME", "edge")
    LEDGER_TARGET = os.environ["LEDGER_TARGET"]
    CONNECT_TIMEOUT = 3
"""
FACTORY = """\
import grpc

from conf import AppSettings


class LedgerClients:
    def __init__(self):
        self._channel = None

    async def open(self):
        self._channel = grpc.aio.insecure_channel(AppSettings.LEDGER_TARGET)
        await self._channel.channel_ready()

    async def close(self):
        if self._channel is not None:
            await self._channel.close()
"""
MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: edge-env}
data:
  LEDGER_TARGET: ledger:7000
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: edge}
spec:
  replicas: 2
  selector: {matchLabels: {app: edge}}
  template:
    metadata: {labels: {app: edge}}
    spec:
      containers:
        - name: edge
          image: registry.example/edge:1
          envFrom: [{configMapRef: {name: edge-env}}]
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
          image: registry.example/ledger:1
          ports: [{containerPort: 7000, name: grpc}]
---
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{name: grpc, port: 7000}]
"""


def tree(**changed: str) -> dict[str, str]:
    files = {
        "edge/pyproject.toml": '[project]\nname = "edge"\nversion = "1"\n',
        "edge/conf/__init__.py": "from .app_settings import AppSettings\n",
        "edge/conf/app_settings.py": SETTINGS,
        "edge/clients/__init__.py": "",
        "edge/clients/ledger.py": FACTORY,
        "deploy/app.yaml": MANIFESTS,
    }
    files.update(changed)
    return files


def klb102(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    result = lint_files(tmp_path, files, ["KLB102"])
    assert result.errors == []
    return result.findings


def test_a_channel_target_read_from_a_plain_settings_class_of_another_module(
    tmp_path: Path,
) -> None:
    (finding,) = klb102(tmp_path / "a", tree())
    assert finding.path.endswith("clients/ledger.py") and finding.line == 11
    assert "ledger:7000" in finding.text and "ConfigMap edge-env" in finding.text


@pytest.mark.parametrize(
    "settings",
    [
        # set again by a class method, or by another module's code: not only its body's
        SETTINGS
        + "\n    @classmethod\n    def use(cls, target):\n        cls.LEDGER_TARGET = target\n",
        SETTINGS + "\n\nAppSettings.LEDGER_TARGET = 'localhost:7000'\n",
        # an enum's member is no string
        SETTINGS.replace("class AppSettings:", "class AppSettings(Enum):"),
    ],
)
def test_a_class_attribute_set_elsewhere_or_of_a_class_with_a_base_is_not_followed(
    tmp_path: Path, settings: str
) -> None:
    assert klb102(tmp_path, tree(**{"edge/conf/app_settings.py": settings})) == []


def test_a_plain_class_attribute_is_its_variable_in_its_own_module_too() -> None:
    source = SETTINGS + "\nTARGET = AppSettings.LEDGER_TARGET\nNAME = AppSettings.SERVICE_NAME\n"
    found = parse("conf/app_settings.py", source.encode())  # no word that asks for more
    assert found.exports["TARGET"] == EnvRef("LEDGER_TARGET", None)
    assert found.exports["NAME"] == EnvRef("SERVICE_NAME", "edge")
    assert found.exports["AppSettings"]["CONNECT_TIMEOUT"] == 3


def test_an_imported_name_read_in_a_method_is_the_imported_value() -> None:
    source = FACTORY.replace("from conf import AppSettings", "from conf import LEDGER_TARGET")
    source = source.replace("AppSettings.LEDGER_TARGET", "LEDGER_TARGET")
    (channel,) = analyse("clients/ledger.py", source.encode()).channels
    assert channel.target.module == "conf" and channel.target.name == "LEDGER_TARGET"


PYDANTIC = """\
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EDGE_"{extra})

    ledger_target: str = Field("localhost:7000", alias="LEDGER_ADDR")
    audit_target: str = Field(validation_alias="AUDIT_ADDR")
    cache_target: str = Field(default="localhost:6379")
    other_target: str = Field("x", validation_alias=AliasChoices("A", "B"))


settings = Settings()
"""


def test_pydantic_fields_read_the_variable_their_alias_names() -> None:
    fields = parse("conf.py", PYDANTIC.format(extra="").encode()).exports["settings"]
    assert fields["ledger_target"] == EnvRef(
        "LEDGER_ADDR", "localhost:7000", any_case=True
    )  # no prefix
    assert fields["audit_target"] == EnvRef("AUDIT_ADDR", None, any_case=True)
    assert fields["cache_target"] == EnvRef("EDGE_CACHE_TARGET", "localhost:6379", any_case=True)
    assert "other_target" not in fields  # several variables: no guess
    # populate_by_name reads the field's own name too: two variables, left unknown
    both = PYDANTIC.format(extra=", populate_by_name=True")
    assert "ledger_target" not in parse("conf.py", both.encode()).exports["settings"]


def test_pydantic_1_reads_env_not_alias() -> None:
    source = textwrap.dedent(
        """\
        from pydantic import BaseSettings, Field


        class Settings(BaseSettings):
            ledger_target: str = Field("localhost:7000", env="LEDGER_ADDR")
            audit_target: str = Field("localhost:7001", alias="AUDIT_ADDR")
            cache_target: str = Field(...)


        settings = Settings()
        """
    )
    fields = parse("conf.py", source.encode()).exports["settings"]
    assert fields["ledger_target"] == EnvRef("LEDGER_ADDR", "localhost:7000", any_case=True)
    assert "audit_target" not in fields  # pydantic 1 reads no variable by an alias
    assert fields["cache_target"] == EnvRef("CACHE_TARGET", None, any_case=True)
    assert UNKNOWN not in fields.values()
