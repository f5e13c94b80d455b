"""A container whose command runs an inline Python program (`python -c CODE`) in place of
its image's entry runs none of the image's code unless the program imports it: a Job
testing the libraries an image installs, a CronJob's clean-up script in an API's image,
link no code; one that imports the folder's package still runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from k8slb.code.entry_points import inline_python

from tests.test_links import DOCKERFILE, links, only, service_app, workload


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["python", "-c", "import json"], "import json"),
        (["python3", "-u", "-c", "print(1)"], "print(1)"),
        (["/usr/bin/python3.12", "-W", "ignore", "-cimport os"], "import os"),
        (["tini", "--", "python", "-c", "pass"], "pass"),
        (["python", "server.py", "-c", "x"], None),  # a script's own `-c`
        (["python", "-m", "acme", "-c", "x"], None),
        (["python", "-macme"], None),
        (["node", "-e", "1"], None),
        (["$PY", "python", "-c", "pass"], None),
    ],
)
def test_an_inline_python_program_is_read_from_its_command_line(
    argv: list[str], code: str | None
) -> None:
    assert inline_python(argv) == code


def _job(code: str) -> str:
    command = json.dumps(["python", "-u", "-c"])
    args = json.dumps([code])
    return workload(
        name="inventory",
        image="registry.example/inventory:1.0",
        extra=f"          command: {command}\n          args: {args}\n",
    )


def _tree(code: str) -> dict[str, str]:
    return {
        "k8s/inventory.yaml": _job(code),
        "skaffold.yaml": "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
        "    - image: registry.example/inventory\n      context: src/inv\n",
        "src/inv/Dockerfile": DOCKERFILE,
        **service_app("src/inv"),
    }


def test_an_inline_program_importing_none_of_the_image_s_code_links_none(
    tmp_path: Path,
) -> None:
    code = "import json\nimport numpy\nprint(json.dumps({'numpy': numpy.__version__}))\n"
    row = only(links(tmp_path, _tree(code)))
    assert row["code"] is None, row
    assert "inline Python program" in str(row["why_not"]), row


def test_an_inline_program_importing_the_image_s_code_still_links_it(tmp_path: Path) -> None:
    row = only(links(tmp_path, _tree("import handlers\nhandlers.main()\n")))
    assert row["code"] is not None and row["code"].startswith("src/inv"), row


def test_an_inline_program_that_does_not_parse_is_not_judged(tmp_path: Path) -> None:
    row = only(links(tmp_path, _tree("def (:\n")))
    assert row["code"] is not None, row
