"""KLB110 statefulset-service-not-headless: the governing Service of a StatefulSet."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from k8slb.core.findings import Severity
from k8slb.interface.cli import cli
from k8slb.rules.statefulset_service_not_headless import _SERVICE, _STATEFULSET

from .helpers import lint_files, lint_paths, lint_text

CLUSTER_IP = _SERVICE.replace("  clusterIP: None\n", "")


def test_a_clusterip_governing_service_is_a_warning_pointing_at_service_name(
    tmp_path: Path,
) -> None:
    (finding,) = lint_text(tmp_path, _STATEFULSET + CLUSTER_IP, ["KLB110"])
    assert finding.severity is Severity.WARNING
    assert (finding.line, finding.column) == (6, 16)
    assert finding.related[0].message == "the governing Service"
    assert not finding.fix.safe and "delete and recreate" in (finding.fix.description or "")


def test_a_service_of_that_name_in_another_namespace_does_not_count(tmp_path: Path) -> None:
    elsewhere = _SERVICE.replace("  name: db\n", "  name: db\n  namespace: other\n")
    (finding,) = lint_text(tmp_path, _STATEFULSET + elsewhere, ["KLB110"])
    assert finding.severity is Severity.INFO and "no scanned manifest defines" in finding.text


def test_the_unsafe_fix_makes_it_headless_and_keeps_the_rest(tmp_path: Path) -> None:
    target = tmp_path / "db.yaml"
    target.write_text(
        _STATEFULSET
        + CLUSTER_IP.replace("spec:\n  selector", "spec:\n  clusterIP: 10.0.0.7\n  selector")
    )
    safe = CliRunner().invoke(cli, ["fix", "--isolated", "--select", "KLB110", str(target)])
    assert "1 hidden fix can be enabled with --unsafe-fixes" in safe.output
    CliRunner().invoke(
        cli, ["fix", "--isolated", "--unsafe-fixes", "--select", "KLB110", str(target)]
    )
    assert "  clusterIP: None\n" in target.read_text()
    assert lint_text(tmp_path / "again", target.read_text(), ["KLB110"]) == []


def test_a_client_service_governs_is_a_warning_when_the_pod_names_a_member(
    tmp_path: Path,
) -> None:
    """`--join=db-0.db` needs the per-pod names a headless Service publishes."""

    plain = (_STATEFULSET + _SERVICE.replace("  clusterIP: None\n", "")).replace("peer", "http")
    (quiet,) = lint_text(tmp_path / "a", plain, ["KLB110"])
    assert quiet.severity is Severity.INFO and "cannot see" in quiet.text
    joined = plain.replace(
        "          image: registry.example/db:1.0\n",
        "          image: registry.example/db:1.0\n          args: ['--join=db-0.db:7000']\n",
    )
    (loud,) = lint_text(tmp_path / "b", joined, ["KLB110"])
    assert loud.severity is Severity.WARNING


CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db-settings\ndata: {mode: x}\n"


def test_a_service_no_manifest_of_its_walked_folder_creates_is_a_dangling_name(
    tmp_path: Path,
) -> None:
    """Three members and no Service anywhere in the folder read: a bug, not 'elsewhere'."""
    files = {"db.yaml": _STATEFULSET, "config.yaml": CONFIG}
    (finding,) = lint_files(tmp_path, files, ["KLB110"]).findings
    assert finding.severity is Severity.WARNING
    assert "it runs 3 members" in finding.text and "db-0.db does not resolve" in finding.text


def test_a_statefulset_file_named_alone_may_have_its_service_beside_it_unread(
    tmp_path: Path,
) -> None:
    (tmp_path / "db.yaml").write_text(_STATEFULSET)
    (tmp_path / "service.yaml").write_text(_SERVICE)
    (finding,) = lint_paths([str(tmp_path / "db.yaml")], ["KLB110"]).findings
    assert finding.severity is Severity.INFO
    assert "may be created elsewhere" in finding.text


def test_a_chart_that_names_a_service_it_never_creates_is_a_warning(tmp_path: Path) -> None:
    chart = {
        "Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
        "templates/statefulset.yaml": _STATEFULSET,
    }
    (finding,) = lint_files(tmp_path / "db", chart, ["KLB110"]).findings
    assert finding.severity is Severity.WARNING and finding.path.endswith("statefulset.yaml")


def test_a_dangling_name_of_one_member_is_info_unless_the_pod_names_a_member(
    tmp_path: Path,
) -> None:
    one = _STATEFULSET.replace("replicas: 3", "replicas: 1")
    files = {"db.yaml": one, "config.yaml": CONFIG}
    (quiet,) = lint_files(tmp_path / "a", files, ["KLB110"]).findings
    assert quiet.severity is Severity.INFO and "one member that nothing names" not in quiet.text
    assert "runs one member and nothing in the pod names one" in quiet.text
    joined = one.replace(
        "          image: registry.example/db:1.0\n",
        "          image: registry.example/db:1.0\n          args: ['--join=db-0.db:7000']\n",
    )
    files = {"db.yaml": joined, "config.yaml": CONFIG}
    (loud,) = lint_files(tmp_path / "b", files, ["KLB110"]).findings
    assert loud.severity is Severity.WARNING and "the pod names a member" in loud.text


def test_a_dangling_name_points_at_the_service_that_selects_the_pods(tmp_path: Path) -> None:
    other = _SERVICE.replace("  name: db\n", "  name: db-headless\n")
    (finding,) = lint_text(tmp_path, _STATEFULSET + other, ["KLB110"])
    assert "or name the one that does (db-headless)" in finding.text


def test_another_stacks_service_of_the_same_name_does_not_govern_it(tmp_path: Path) -> None:
    """Two stacks each run their own StatefulSet/db: `cloud/` with its headless Service,
    `edge/` with a ClusterIP one. They are copies, never applied together: the ClusterIP
    Service of `edge/` is no finding of `cloud/`'s StatefulSet."""
    files = {
        "stacks/cloud/db.yaml": _STATEFULSET + _SERVICE,
        "stacks/edge/db.yaml": _STATEFULSET + CLUSTER_IP,
    }
    found = lint_files(tmp_path, files, ["KLB110"]).findings
    assert [f.path.split("stacks/")[1] for f in found] == ["edge/db.yaml"]
