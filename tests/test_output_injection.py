"""Values from the linted files cannot drive the terminal or the CI log: every format shows
control characters as escapes (JSON and SARIF keep the exact value, JSON-escaped)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.report.printable import printable

HOSTILE = "a\n::warning::x\x1b[31m\r\x85\u202e"
MANIFEST = f"""\
apiVersion: v1
kind: Service
metadata:
  name: {json.dumps(HOSTILE)}
spec:
  selector: {{app: web}}
  ports: [{{name: grpc, port: 50051}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: x, ports: [{{containerPort: 50051}}]}}]
"""
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]")


def _output(tmp_path: Path, output_format: str) -> str:
    path = tmp_path / "evil.yaml"
    path.write_text(MANIFEST)
    done = CliRunner().invoke(
        cli,
        ["check", "--isolated", "--no-cache", "--format", output_format, str(path)],
        env={"FORCE_COLOR": "1"},
    )
    assert done.exit_code == 1, done.output
    return done.output


SHOWN = {
    "text": "a\\n::warning::x\\x1b[31m\\r\\x85\\u202e",
    "junit": "a\\n::warning::x\\x1b[31m\\r\\x85\\u202e",
    "github": "a%0A::warning::x\\x1b[31m%0D\\x85\\u202e",  # the runner's own escaping
}


@pytest.mark.parametrize("output_format", sorted(SHOWN))
def test_control_characters_are_shown_as_escapes(tmp_path: Path, output_format: str) -> None:
    output = _output(tmp_path, output_format)
    assert SHOWN[output_format] in output
    without_own_colours = re.sub("\x1b\\[[0-9;]*m", "", output.replace("\\x1b[31m", ""))
    assert not RAW_CONTROL.search(without_own_colours)
    assert not any(line.startswith("::warning::x") for line in output.splitlines())


def test_junit_stays_well_formed_xml(tmp_path: Path) -> None:
    ET.fromstring(_output(tmp_path, "junit"))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_json_formats_keep_the_exact_value(tmp_path: Path, output_format: str) -> None:
    output = _output(tmp_path, output_format)
    assert not RAW_CONTROL.search(output), "JSON-escaped"
    assert any(HOSTILE in text for text in _strings(json.loads(output)))


def test_printable_escapes_each_kind_of_control() -> None:
    assert printable("a\tb\nc\rd\x1be\x7ff\x9bg\u202eh\u2066i") == (
        "a\\tb\\nc\\rd\\x1be\\x7ff\\x9bg\\u202eh\\u2066i"
    )
    assert printable("plain ünïcode") == "plain ünïcode"
