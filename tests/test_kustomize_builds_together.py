"""`--kustomize` judges each build apart, yet the builds of one tree land in one cluster: a
Namespace that one kustomization writes labels the pods another builds in it, and a
module's code, judged in every build, is judged once, with the pods that run it. A
stand-in `kustomize` prints each folder's resources as the real one would."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.rulekit.examples import BUILT_HERE, SIGTERM_HANDLER, grpc_server, web_deployment
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files

# prints the resources of the folder it builds, as kustomize would with no transformer
STAND_IN = """\
#!/bin/sh
for file in "$2"/*.yaml; do
  case "$file" in */kustomization.yaml) ;; *) echo ---; cat "$file" ;; esac
done
"""
SHOP = "  namespace: shop\n"


def _namespace(labels: str = "", annotations: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
        + (f"  labels: {{{labels}}}\n" if labels else "")
        + (f"  annotations: {{{annotations}}}\n" if annotations else "")
    )


def _in_shop(manifests: str) -> str:
    """Each object of the manifests in namespace shop, as the app's build writes them."""
    return manifests.replace("metadata:\n  name: ", "metadata:\n  namespace: shop\n  name: ")


def _tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str, infra: str) -> Path:
    """A tree of two kustomizations: deploy/app (the workloads) and deploy/infra (the
    Namespace they run in), with the stand-in on PATH."""
    (tmp_path / ".git").mkdir()
    for name, manifests in (("app", app), ("infra", infra)):
        folder = tmp_path / "deploy" / name
        folder.mkdir(parents=True)
        (folder / "kustomization.yaml").write_text("resources:\n  - objects.yaml\n")
        (folder / "objects.yaml").write_text(manifests)
    binaries = tmp_path / "bin"
    binaries.mkdir()
    (binaries / "kustomize").write_text(STAND_IN)
    (binaries / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{binaries}:{os.environ['PATH']}")
    return tmp_path


def _findings(tree: Path, rule: str) -> list[dict[str, Any]]:
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--kustomize", "--format", "json", "--select", rule, str(tree)]
    )
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return [f for f in report["findings"] if f["rule"] == rule]


@pytest.mark.parametrize(
    ("labels", "annotations"),
    [
        ("istio-injection: enabled", ""),
        ("istio.io/rev: stable", ""),
        ("", "linkerd.io/inject: enabled"),
    ],
    ids=["istio-injection", "istio-revision", "linkerd"],
)
def test_a_namespace_another_kustomization_writes_meshes_the_pods_built_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, labels: str, annotations: str
) -> None:
    app = _in_shop(GRPC_SERVICE + BACKEND)
    assert _findings(_tree(tmp_path, monkeypatch, app, _namespace()), "KLB101") != []
    meshed = tmp_path / "meshed"
    meshed.mkdir()
    tree = _tree(meshed, monkeypatch, app, _namespace(labels, annotations))
    assert _findings(tree, "KLB101") == []  # the mesh's proxies place each call


def test_a_pod_that_opts_out_of_its_namespaces_injection_is_not_meshed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = _in_shop(GRPC_SERVICE + BACKEND).replace(
        "labels: {app: backend}", "labels: {app: backend, sidecar.istio.io/inject: 'false'}"
    )
    tree = _tree(tmp_path, monkeypatch, app, _namespace("istio-injection: enabled"))
    assert len(_findings(tree, "KLB101")) == 1


def _server_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, infra: str) -> Path:
    """A grpcio server built into the image that one replica of Deployment web runs (app),
    and an infrastructure build that runs none of it."""
    app = _in_shop(web_deployment().replace("  replicas: 3\n", "  replicas: 1\n"))
    tree = _tree(tmp_path, monkeypatch, app, infra)
    (tree / "app.py").write_text(grpc_server(before_wait=SIGTERM_HANDLER))
    for name, text in BUILT_HERE:
        (tree / name).write_text(text)
    return tree


def test_code_judged_in_several_builds_is_judged_with_the_pods_that_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The infrastructure's build runs none of the server's code: judged there, it has no
    pods to weigh and says warning; the app's build runs it as one replica: info. One
    code site, one finding: the judgement made with the pods."""
    tree = _server_tree(tmp_path, monkeypatch, _namespace())
    (finding,) = _findings(tree, "KLB201")
    assert (finding["path"], finding["severity"]) == (str(tree / "app.py"), "info")
    assert "one replica" in finding["message"]


def test_code_in_a_namespace_another_build_meshes_gets_no_finding_from_a_build_without_its_pods(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _server_tree(tmp_path, monkeypatch, _namespace("istio-injection: enabled"))
    assert _findings(tree, "KLB201") == []


def _plain_tree(service: str, backend: str) -> dict[str, str]:
    """Resource files read as written (no --kustomize): their kustomization sets the
    namespace, and the Namespace, in another kustomization, injects Istio's sidecars."""
    return {
        "deploy/app/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
            "namespace: shop\nresources:\n  - backend\n"
        ),
        "deploy/app/backend/kustomization.yaml": "resources:\n  - objects.yaml\n",
        "deploy/app/backend/objects.yaml": service + backend,
        "deploy/infra/kustomization.yaml": "resources:\n  - namespace.yaml\n",
        "deploy/infra/namespace.yaml": _namespace("istio-injection: enabled"),
    }


def test_resource_files_read_as_written_are_in_the_namespace_their_kustomization_sets(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    assert lint_files(tmp_path, _plain_tree(GRPC_SERVICE, BACKEND), ["KLB101"]).findings == []
    elsewhere = tmp_path / "elsewhere"
    files = _plain_tree(GRPC_SERVICE, BACKEND)
    files["deploy/app/kustomization.yaml"] = files["deploy/app/kustomization.yaml"].replace(
        "namespace: shop", "namespace: other"
    )
    assert len(lint_files(elsewhere, files, ["KLB101"]).findings) == 1


def test_a_service_whose_pods_are_unseen_is_meshed_by_its_namespace(tmp_path: Path) -> None:
    """Its selector is one kustomize adds: the run sees no pod, but every pod of the
    namespace gets a sidecar unless it opts out."""
    (tmp_path / ".git").mkdir()
    unselected = GRPC_SERVICE.replace("    app: backend\n", "    app: built-by-kustomize\n")
    files = _plain_tree(unselected, BACKEND)
    assert lint_files(tmp_path, files, ["KLB101"]).findings == []
    files["deploy/infra/namespace.yaml"] = _namespace()
    assert len(lint_files(tmp_path / "unmeshed", files, ["KLB101"]).findings) == 1
