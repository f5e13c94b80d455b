"""The bundled demo shows the textbook case, and `--format json` keeps the contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from k8slb import __version__
from k8slb.interface.cli import cli

from .helpers import FIXTURES

DEMO = str(FIXTURES / "demo")


def check_json(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["check", "--format", "json", *args])
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_bad_demo_shows_the_pitfalls_and_the_good_demo_none() -> None:
    report = check_json(DEMO)
    by_rule = {
        f["rule"]: f
        for f in report["findings"]
        if "inventory" not in f["path"] and "checkout" not in f["path"]
    }
    rules = {f["rule"] for f in report["findings"]}
    assert rules == {"KLB101", "KLB102", "KLB111", "KLB201", "KLB301", "KLB401", "KLB403"}
    assert all("/bad/" in f["path"] for f in report["findings"])
    assert "HorizontalPodAutoscaler/backend" in by_rule["KLB101"]["message"]
    assert "up to 10 replicas" in by_rule["KLB101"]["message"]
    assert check_json(f"{DEMO}/good")["findings"] == []


def test_the_demo_finds_grpc_from_the_code_and_a_port_the_client_cannot_reach() -> None:
    findings = check_json(f"{DEMO}/bad")["findings"]
    [inventory] = [f for f in findings if f["rule"] == "KLB101" and "inventory" in f["path"]]
    assert inventory["headline"].startswith(
        "Service/shop/inventory carries gRPC (its code serves gRPC on 7070: server.py:20)"
    )
    assert f"{DEMO}/bad/inventory/Dockerfile" in {r["path"] for r in inventory["related"]}
    [mismatch] = [f for f in findings if f["rule"] == "KLB111"]
    assert mismatch["severity"] == "error" and "dials port 7000" in mismatch["headline"]


def test_the_client_finding_names_the_service_it_resolved_through_the_env_var() -> None:
    (client,) = [
        f
        for f in check_json(DEMO)["findings"]
        if f["rule"] == "KLB102" and f["path"].endswith("client.py")
    ]
    assert client["path"] == f"{DEMO}/bad/client.py" and client["object"] is None
    assert (
        "(BACKEND_ADDR as Deployment/shop/frontend sets it at frontend.yaml:23)"
        in client["message"]
    )
    assert client["headline"] == "gRPC channel to ClusterIP Service/shop/backend stays on one pod"
    assert "dial it as dns:///backend-headless.shop.svc.cluster.local:50051" in client["message"]
    assert [(r["path"], r["line"]) for r in client["related"]] == [
        (f"{DEMO}/bad/frontend.yaml", 23),
        (f"{DEMO}/bad/backend.yaml", 40),
    ]


def test_json_matches_the_contract_field_for_field() -> None:
    report = check_json(DEMO)
    assert list(report) == ["version", "tool", "summary", "findings", "errors"]
    assert report["errors"] == []
    assert report["version"] == 1
    assert report["tool"] == {"name": "k8slb", "version": __version__}
    assert report["summary"] == {
        "files": 21,  # each folder's pyproject.toml too: a build file read for its scripts
        "objects": 16,
        "findings": 10,
        "fixable": 5,
        "unsafe_fixable": 4,
        "baselined": 0,
        "by_severity": {"error": 1, "warning": 8, "info": 1},
    }
    finding = next(f for f in report["findings"] if f["rule"] == "KLB101")
    assert list(finding) == [
        "rule",
        "name",
        "severity",
        "path",
        "line",
        "column",
        "object",
        "container",
        "message",
        "headline",
        "related",
        "fix",
    ]
    assert finding["name"] == "grpc-clusterip" and finding["severity"] == "warning"
    assert finding["path"] == f"{DEMO}/bad/backend.yaml", "the path as the user named it"
    assert (finding["line"], finding["column"]) == (45, 1)
    assert finding["object"] == {
        "kind": "Service",
        "namespace": "shop",
        "name": "backend",
        "document": 1,
    }
    assert finding["container"] is None
    assert {
        "path": f"{DEMO}/bad/backend.yaml",
        "line": 53,
        "message": "HorizontalPodAutoscaler/backend scales Deployment/shop/backend",
    } in finding["related"]
    assert all(list(r) == ["path", "line", "message"] for r in finding["related"])
    assert finding["fix"] == {
        "available": True,
        "safe": True,
        "description": "add the headless twin Service backend-headless",
    }


def test_findings_are_sorted_by_path_line_column_rule() -> None:
    findings = check_json(DEMO)["findings"]
    keys = [(f["path"], f["line"], f["column"], f["rule"]) for f in findings]
    assert keys == sorted(keys)


def test_container_findings_name_the_container() -> None:
    findings = check_json(DEMO)["findings"]
    assert {f["rule"]: f["container"] for f in findings if f["object"]} == {
        "KLB101": None,
        "KLB301": "server",
        "KLB401": "server",
    }


def test_the_json_report_carries_the_runs_errors(tmp_path: Path) -> None:
    """A path that is not there: the run exits 2, and a tool reading only the report
    learns why."""
    (tmp_path / "s.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")
    missing = str(tmp_path / "gone")
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--format", "json", str(tmp_path / "s.yaml"), missing]
    )
    assert done.exit_code == 2
    report = json.loads(done.stdout)
    assert report["errors"] == [f"{missing}: no such file or directory"]
