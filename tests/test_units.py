"""Deployment units: a Service only meets the pods of the objects applied with it."""

from __future__ import annotations

from pathlib import Path

from k8slb.rulekit.examples import READY, SERVICE, web_deployment

from .helpers import lint_files, rules_of

DEPLOYMENT = web_deployment(READY, service=False)


def test_a_service_in_one_variant_folder_never_selects_the_pods_of_another(
    tmp_path: Path,
) -> None:
    """`l4/` and `mesh/` both define Deployment/web: they are alternatives, never applied
    together, so the pods of `mesh/` (fronted by a mesh route k8slb does not read) are not
    served by `l4/`'s Service."""
    files = {
        "variants/l4/app.yaml": DEPLOYMENT + SERVICE,
        "variants/mesh/app.yaml": DEPLOYMENT,
    }
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    assert sorted(f.path.split("variants/")[1] for f in found) == ["l4/app.yaml"]
    (finding,) = found
    assert [r.path for r in finding.related] == [str(tmp_path / "variants/l4/app.yaml")]


def test_an_object_that_names_no_namespace_is_the_one_that_names_default(
    tmp_path: Path,
) -> None:
    """A sample's Deployment written with `namespace: default` and its variant in a folder
    below, written with none, are the same object (kubectl applies both in `default`):
    alternatives, so the variant's Service does not serve the sample's pods."""
    in_default = DEPLOYMENT.replace("  name: web\n", "  name: web\n  namespace: default\n", 1)
    assert "namespace: default" in in_default
    files = {
        "samples/start/app.yaml": in_default,
        "samples/start/cloud/app.yaml": DEPLOYMENT + SERVICE,
    }
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    assert [f.path.split("samples/")[1] for f in found] == ["start/cloud/app.yaml"]


def test_files_split_by_kind_in_one_tree_are_one_unit(tmp_path: Path) -> None:
    """No object is defined twice: the Service in `services/` selects the Deployment in
    `deployments/`, as `kubectl apply -R` would apply them together."""
    files = {"deployments/web.yaml": DEPLOYMENT, "services/web.yaml": SERVICE}
    assert rules_of(lint_files(tmp_path, files, ["KLB401"]).findings) == ["KLB401"]


def test_the_common_files_beside_the_variants_go_with_each_of_them(tmp_path: Path) -> None:
    """`base.yaml` beside two variant folders holds the Deployment both variants front."""
    files = {
        "deploy/base.yaml": DEPLOYMENT,
        "deploy/a/svc.yaml": SERVICE,
        "deploy/b/svc.yaml": SERVICE.replace("port: 80", "port: 81"),
    }
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    assert rules_of(found) == ["KLB401"], "one container, served by either variant's Service"


def test_two_files_in_one_folder_that_define_the_same_objects_are_alternatives(
    tmp_path: Path,
) -> None:
    files = {
        "k8s/app.yaml": DEPLOYMENT,
        "k8s/app-ha.yaml": DEPLOYMENT.replace("replicas: 3", "replicas: 6"),
        "k8s/service.yaml": SERVICE,
    }
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    assert sorted(Path(f.path).name for f in found) == ["app-ha.yaml", "app.yaml"]


def renamed(manifest: str, name: str) -> str:
    """The manifest's first object under another name (its pod labels kept)."""
    return manifest.replace("name: web\n", f"name: {name}\n", 1)


def test_folders_that_each_run_the_same_pods_under_other_names_are_alternatives(
    tmp_path: Path,
) -> None:
    """`grpc/` and `rest/` each run a Deployment of the pods `app: web` under a name of
    their own: two controllers of one selector are never applied together, so the Service
    of `grpc/` does not serve the pods of `rest/`."""
    files = {
        "variants/grpc/app.yaml": DEPLOYMENT + SERVICE,
        "variants/rest/k8s/app.yaml": renamed(DEPLOYMENT, "web-rest"),
        "variants/shared/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    }
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    assert [f.path.split("variants/")[1] for f in found] == ["grpc/app.yaml"]


def test_files_of_one_folder_that_run_the_same_pods_are_applied_together(
    tmp_path: Path,
) -> None:
    """A canary beside its stable Deployment, with the same selector: one folder may be
    applied whole, so the Service serves both."""
    files = {
        "k8s/app.yaml": DEPLOYMENT + SERVICE,
        "k8s/app-canary.yaml": renamed(DEPLOYMENT, "web-canary"),
    }
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    assert sorted(Path(f.path).name for f in found) == ["app-canary.yaml", "app.yaml"]


# A kustomize tree: the Deployment in `base/`, the Service that exposes it through a cloud
# load balancer in an overlay of its own, and beside it an all-in-one demo folder that
# copies the Deployment (so `base/` and `overlays/` hold one object twice: variants).
EXPOSED = SERVICE.replace("name: web\n", "name: web-external\n").replace(
    "spec:\n", "spec:\n  type: NodePort\n"
)
EXPOSED_TREE = {
    "deploy/base/web.yaml": DEPLOYMENT,
    "deploy/base/kustomization.yaml": "resources:\n- web.yaml\n",
    "deploy/overlays/gclb/service.yaml": EXPOSED,
    "deploy/overlays/gclb/kustomization.yaml": "resources:\n- service.yaml\n",
    "deploy/overlays/demo/all-in-one.yaml": DEPLOYMENT + SERVICE,
}
PROD = "resources:\n- ../base\n- ../overlays/gclb\n"


def test_a_kustomization_that_builds_two_variant_folders_applies_them_together(
    tmp_path: Path,
) -> None:
    """`prod/` builds the base and the gclb overlay: whatever the folders say of variants,
    the overlay's Service and the base's pods are applied together, and it serves them."""
    files = {**EXPOSED_TREE, "deploy/prod/kustomization.yaml": PROD}
    found = lint_files(tmp_path, files, ["KLB401"]).findings
    (base,) = [f for f in found if f.path.endswith("deploy/base/web.yaml")]
    assert "web-external" in base.text


def test_variant_folders_no_kustomization_builds_together_stay_apart(tmp_path: Path) -> None:
    """With no build that holds both, the overlay's Service may be another variant's."""
    found = lint_files(tmp_path / "alone", EXPOSED_TREE, ["KLB401"]).findings
    assert not [f for f in found if f.path.endswith("deploy/base/web.yaml")]
