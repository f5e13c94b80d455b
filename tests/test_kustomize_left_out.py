"""Without `--kustomize`, what a kustomization leaves out of its build: a file of objects
beside a kustomization, in a folder from which one lists other files, or in a subfolder of
one that gathers its parts from two or more of its other subfolders, that no build of the
run holds and no script, workflow, guide, Tiltfile or Skaffold configuration applies, is
deployed by nothing of the repository, so the rules say nothing of it (its reading
problems kept: model/kustomized.py's `left_out`, `not_deployed`); and the Helm charts a
kustomization inflates from a repository k8slb does not fetch are said once, at its
`helmCharts:` line (KLB006)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

# A gRPC service and the LoadBalancer in front of it, in one file, as a small team writes
# them: no readinessProbe, no preStop (KLB302 and KLB401 at warning where deployed).
SERVICE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: {name}
          image: registry.example/assistant/{name}:1.4
          ports:
            - containerPort: 8000
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  type: LoadBalancer
  selector: {{app: {name}}}
  ports:
    - port: 8000
"""


def _check(*paths: str) -> list[dict[str, Any]]:
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--no-cache", "--format", "json", "--fail-on", "info", *paths]
    )
    assert done.exit_code in (0, 1), done.output
    findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return findings


def _severities(findings: list[dict[str, Any]], root: Path) -> dict[tuple[str, str], str]:
    return {
        (f["rule"], Path(f["path"]).relative_to(root).as_posix()): f["severity"]
        for f in findings
        if f["rule"] in ("KLB302", "KLB401")
    }


def _write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _overlay_tree(root: Path) -> None:
    """kubernetes/ -> overlay/ -> base/, with a file beside the top kustomization and one
    beside the base's that none lists."""
    _write(
        root,
        {
            "kubernetes/kustomization.yaml": "resources:\n  - overlay\n",
            "kubernetes/old-store.yaml": SERVICE.format(name="store"),
            "kubernetes/overlay/kustomization.yaml": (
                "resources:\n  - local-store.yaml\n  - ../base\n"
            ),
            "kubernetes/overlay/local-store.yaml": SERVICE.format(name="store-local"),
            "kubernetes/base/kustomization.yaml": "resources:\n  - planner.yaml\n",
            "kubernetes/base/planner.yaml": SERVICE.format(name="planner"),
            "kubernetes/base/summariser.yaml": SERVICE.format(name="summariser"),
        },
    )


def test_a_file_beside_a_kustomization_that_no_build_lists_gets_no_finding(
    tmp_path: Path,
) -> None:
    _overlay_tree(tmp_path)
    findings = _check(str(tmp_path))
    assert _severities(findings, tmp_path) == {
        ("KLB302", "kubernetes/base/planner.yaml"): "warning",
        ("KLB401", "kubernetes/base/planner.yaml"): "warning",
        ("KLB302", "kubernetes/overlay/local-store.yaml"): "warning",
        ("KLB401", "kubernetes/overlay/local-store.yaml"): "warning",
    }


def test_a_file_of_a_folder_the_kustomization_picks_from_is_left_out_when_not_picked(
    tmp_path: Path,
) -> None:
    """`include/` holds the resources a kustomization lists one by one; the one listed
    only in a comment is not built. A folder below it from which it lists nothing
    (`monitoring/`, applied on its own), beside the one folder it picks from, is no
    kustomization's: its files keep their findings."""
    _write(
        tmp_path,
        {
            "deploy/kustomization.yaml": (
                "namespace: assistant\nresources:\n  - include/api.yaml\n#  - include/admin.yaml\n"
            ),
            "deploy/include/api.yaml": SERVICE.format(name="api"),
            "deploy/include/admin.yaml": SERVICE.format(name="admin"),
            "deploy/monitoring/exporter.yaml": SERVICE.format(name="exporter"),
        },
    )
    assert _severities(_check(str(tmp_path)), tmp_path) == {
        ("KLB302", "deploy/include/api.yaml"): "warning",
        ("KLB401", "deploy/include/api.yaml"): "warning",
        ("KLB302", "deploy/monitoring/exporter.yaml"): "warning",
        ("KLB401", "deploy/monitoring/exporter.yaml"): "warning",
    }


def _parts_tree(root: Path, extra: dict[str, str] | None = None) -> None:
    """A base that gathers its parts from a folder each (`api/`, `worker/`), a folder of
    an old part it no longer lists (`legacy/`), a folder of policies an overlay picks
    files from (`policies/`), and an overlay beside it."""
    _write(
        root,
        {
            "k8s/base/kustomization.yaml": (
                "resources:\n  - api/api.yaml\n  - worker/worker.yaml\n"
            ),
            "k8s/base/api/api.yaml": SERVICE.format(name="api"),
            "k8s/base/worker/worker.yaml": SERVICE.format(name="worker"),
            "k8s/base/legacy/proxy.yaml": SERVICE.format(name="proxy"),
            "k8s/base/policies/limits.yaml": (
                "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: limits\n"
            ),
            "k8s/base/policies/webhook.yaml": SERVICE.format(name="webhook"),
            "k8s/overlays/prod/kustomization.yaml": (
                "resources:\n  - ../../base\n  - ../../base/policies/limits.yaml\n"
            ),
            **(extra or {}),
        },
    )


def test_a_subfolder_a_kustomization_gathering_its_parts_skips_is_not_deployed(
    tmp_path: Path,
) -> None:
    """`legacy/` sits among the folders the base builds from but is listed nowhere, and
    `policies/webhook.yaml` beside the one file the overlay picks: nothing deploys them,
    so the rules say nothing of them; the parts listed keep their warnings."""
    _parts_tree(tmp_path)
    assert _severities(_check(str(tmp_path)), tmp_path) == {
        ("KLB302", "k8s/base/api/api.yaml"): "warning",
        ("KLB401", "k8s/base/api/api.yaml"): "warning",
        ("KLB302", "k8s/base/worker/worker.yaml"): "warning",
        ("KLB401", "k8s/base/worker/worker.yaml"): "warning",
    }


def test_a_file_no_build_holds_keeps_its_reading_problems(tmp_path: Path) -> None:
    """The file is still read: YAML that does not parse is said (KLB001) though nothing
    deploys the file."""
    broken = SERVICE.format(name="proxy") + "---\nkind: [unclosed\n"
    _parts_tree(tmp_path, {"k8s/base/legacy/proxy.yaml": broken})
    findings = _check(str(tmp_path))
    rules = {f["rule"] for f in findings if f["path"].endswith("legacy/proxy.yaml")}
    assert rules == {"KLB001"}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("scripts/deploy.sh", "#!/bin/sh\nkubectl apply -f k8s/base/legacy/proxy.yaml\n"),
        ("Makefile", "proxy:\n\tkubectl apply --filename=./k8s/base/legacy/\n"),
        ("docs/README.md", "```sh\nkubectl create -R -f k8s/base/legacy\n```\n"),
        ("skaffold.yaml", "manifests:\n  rawYaml:\n    - k8s/base/legacy/*.yaml\n"),
        ("Tiltfile", "k8s_yaml(['k8s/base/legacy/proxy.yaml'])\n"),
        (
            "argocd/proxy.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: proxy\n"
            "spec:\n  source:\n    repoURL: https://git.example/shop.git\n"
            "    path: k8s/base/legacy\n",
        ),
    ],
)
def test_a_file_a_script_guide_tilt_skaffold_or_argo_cd_applies_stays_deployed(
    tmp_path: Path, name: str, text: str
) -> None:
    _parts_tree(tmp_path, {name: text})
    severities = _severities(_check(str(tmp_path)), tmp_path)
    assert severities[("KLB401", "k8s/base/legacy/proxy.yaml")] == "warning"
    assert ("KLB401", "k8s/base/policies/webhook.yaml") not in severities


def test_kubectl_without_recursion_applies_only_the_folder_named(tmp_path: Path) -> None:
    """`kubectl apply -f k8s/base/` applies the folder's own files, not its subfolders'
    (kubectl's `-R` does): `legacy/` is still deployed by nothing."""
    _parts_tree(tmp_path, {"deploy.sh": "kubectl apply -f k8s/base/\n"})
    severities = _severities(_check(str(tmp_path)), tmp_path)
    assert ("KLB401", "k8s/base/legacy/proxy.yaml") not in severities


def test_nothing_is_said_left_out_where_a_build_is_not_known_whole(tmp_path: Path) -> None:
    """Two kustomizations in a loop (kustomize refuses the build): which files a build
    holds is not known, so no file is said left out on a guess."""
    _write(
        tmp_path,
        {
            "a/kustomization.yaml": "resources:\n  - api.yaml\n  - ../b\n",
            "a/api.yaml": SERVICE.format(name="api"),
            "a/worker.yaml": SERVICE.format(name="worker"),
            "b/kustomization.yaml": "resources:\n  - ../a\n",
        },
    )
    severities = _severities(_check(str(tmp_path)), tmp_path)
    assert severities[("KLB302", "a/worker.yaml")] == "warning"


def test_a_patch_file_beside_its_kustomization_keeps_the_findings_of_what_it_adds(
    tmp_path: Path,
) -> None:
    """A strategic-merge patch is named under `patches:`, not `resources:`: a container it
    adds whole is deployed, and judged in the patch file at full severity."""
    patch = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n"
        "    spec:\n      containers:\n        - name: proxy\n"
        "          image: registry.example/assistant/proxy:1.0\n"
        "          ports:\n            - containerPort: 8000\n"
    )
    _write(
        tmp_path,
        {
            "app/kustomization.yaml": (
                "resources:\n  - api.yaml\npatches:\n  - path: proxy-patch.yaml\n"
            ),
            "app/api.yaml": SERVICE.format(name="api"),
            "app/proxy-patch.yaml": patch,
        },
    )
    severities = _severities(_check(str(tmp_path)), tmp_path)
    assert severities[("KLB401", "app/proxy-patch.yaml")] == "warning"


def test_remote_helm_charts_of_a_kustomization_are_said_once_at_their_list(
    tmp_path: Path,
) -> None:
    """kustomize pulls them (`--enable-helm`) from their repositories; k8slb fetches
    nothing, so one info names each chart not vendored in the chart home, and a vendored
    one (charts/NAME) is not named: it is a chart of the tree."""
    _write(
        tmp_path,
        {
            "deploy/kustomization.yaml": (
                "namespace: assistant\nresources:\n  - api.yaml\n\nhelmCharts:\n"
                "  - name: queue\n    # helm repo add acme https://charts.example/acme\n"
                "    repo: https://charts.example/acme\n    version: 1.2.0\n"
                "    valuesInline:\n      env:\n        - name: REPLICAS\n"
                "  - name: cache\n    repo: oci://registry.example/charts\n"
                "  - name: local-tools\n"
            ),
            "deploy/api.yaml": SERVICE.format(name="api"),
            "deploy/charts/local-tools/Chart.yaml": "apiVersion: v2\nname: local-tools\n",
        },
    )
    said = [f for f in _check(str(tmp_path)) if f["rule"] == "KLB006"]
    assert [(f["path"], f["line"], f["severity"]) for f in said] == [
        (str(tmp_path / "deploy" / "kustomization.yaml"), 5, "info")
    ]
    assert said[0]["headline"].startswith(
        "kustomize Helm charts queue (https://charts.example/acme), "
        "cache (oci://registry.example/charts) are not rendered"
    )


def test_with_builds_a_kustomization_of_remote_charts_is_not_built_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--kustomize` would need `--enable-helm` and the network: the kustomization is not
    built, and the same note says so (not kustomize's error, at warning)."""
    _write(
        tmp_path,
        {
            "deploy/kustomization.yaml": (
                "resources:\n  - api.yaml\nhelmCharts:\n  - name: queue\n"
                "    repo: https://charts.example/acme\n"
            ),
            "deploy/api.yaml": SERVICE.format(name="api"),
            "bin/kustomize": "#!/bin/sh\necho 'Error: must specify --enable-helm' >&2\nexit 1\n",
        },
    )
    (tmp_path / "bin" / "kustomize").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    said = [(f["rule"], f["severity"], f["line"]) for f in _check("--kustomize", str(tmp_path))]
    assert said == [("KLB006", "info", 3)]
