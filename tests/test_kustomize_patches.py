"""Without `--kustomize`, a kustomization's strategic-merge patches are merged into the
Deployments, StatefulSets and DaemonSets of its build as kustomize merges them
(model/patched.py): a container a Component's patch adds is judged, where the patch writes
it; a patch file is never an object of its own; what is not applied exactly (a `$patch`
directive, an overlay's patch that replaces a base's value, two kustomizations patching one
object) leaves the object as written. A patch's `target:` selects every object it matches
(patterns, label and annotation selectors); JSON 6902 operations written inline apply; the
replicas an overlay's patches give a workload it keeps as written count as scaling it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading.kustomization import (
    PatchEntry,
    PatchTarget,
    Requirement,
    kustomization_parts,
    selector,
)

# A controller's base: one container, no Service of its own.
MANAGER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger-controller
spec:
  replicas: 2
  selector:
    matchLabels: {app: ledger}
  template:
    metadata:
      labels: {app: ledger}
    spec:
      containers:
        - name: manager
          image: registry.example/ledger-controller:2.1
          ports:
            - containerPort: 9443
          readinessProbe:
            httpGet: {path: /readyz, port: 9443}
"""
# A Component that adds a REST sidecar to the controller's pods, and its Service.
SIDECAR_PATCH = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger-controller
spec:
  template:
    metadata:
      labels:
        mesh.example/inject: "true"
    spec:
      containers:
        - name: ledger-api
          image: ledger-api
          ports:
            - name: http
              containerPort: 8082
          readinessProbe:
            httpGet: {path: /healthz, port: 8082}
"""
API_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: ledger-api
spec:
  selector: {app: ledger}
  ports:
    - name: http
      port: 8082
      targetPort: 8082
"""
COMPONENT = """\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
- service.yaml
patches:
- path: api_patch.yaml
"""


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _findings(folder: Path) -> list[tuple[str, str, str | None, str]]:
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(folder)])
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return sorted(
        (
            f["rule"],
            Path(f["path"]).relative_to(folder).as_posix(),
            f.get("container"),
            f["message"],
        )
        for f in report["findings"]
    )


def _controller(tmp_path: Path, **more: str) -> Path:
    files = {
        "ledger/base/manager.yaml": MANAGER,
        "ledger/base/kustomization.yaml": "resources:\n- manager.yaml\n",
        "ledger/components/api/kustomization.yaml": COMPONENT,
        "ledger/components/api/api_patch.yaml": SIDECAR_PATCH,
        "ledger/components/api/service.yaml": API_SERVICE,
        "ledger/overlays/prod/kustomization.yaml": (
            "resources:\n- ../../base\ncomponents:\n- ../../components/api\n"
        ),
    }
    return _tree(tmp_path, {**files, **more})


def test_a_components_patch_adds_a_container_judged_where_the_patch_writes_it(
    tmp_path: Path,
) -> None:
    found = _findings(_controller(tmp_path))
    added = [f for f in found if f[2] == "ledger-api"]
    assert ("KLB401", "ledger/components/api/api_patch.yaml", "ledger-api") in {
        f[:3] for f in added
    }
    # the Service's port is the sidecar's: the manager is not judged as serving it
    assert not [f for f in found if f[0] == "KLB401" and f[2] == "manager"]
    assert not [f for f in found if f[0] == "KLB002"]  # the patch is no object of its own


def test_without_the_component_the_base_is_as_written(tmp_path: Path) -> None:
    folder = _controller(
        tmp_path, **{"ledger/overlays/prod/kustomization.yaml": "resources:\n- ../../base\n"}
    )
    assert not [f for f in _findings(folder) if f[2] == "ledger-api"]


def test_a_patch_of_the_kustomization_naming_the_file_may_replace(tmp_path: Path) -> None:
    """The kustomization that alone names the file is the only build of it: its patch
    giving the manager a preStop is what runs."""
    service = API_SERVICE.replace("8082", "9443").replace("ledger-api", "ledger")
    stop = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ledger-controller\n"
        "spec:\n  template:\n    spec:\n      containers:\n        - name: manager\n"
        "          lifecycle:\n            preStop:\n              sleep: {seconds: 5}\n"
    )
    files = {
        "app/manager.yaml": MANAGER,
        "app/service.yaml": service,
        "app/stop.yaml": stop,
        "app/kustomization.yaml": (
            "resources:\n- manager.yaml\n- service.yaml\npatchesStrategicMerge:\n- stop.yaml\n"
        ),
    }
    found = _findings(_tree(tmp_path, files))
    assert not [f for f in found if f[0] == "KLB401"], found
    unpatched = _findings(
        _tree(
            tmp_path / "plain",
            {**files, "app/kustomization.yaml": "resources:\n- manager.yaml\n- service.yaml\n"},
        )
    )
    assert [f for f in unpatched if f[0] == "KLB401" and f[2] == "manager"]


def test_an_overlays_patch_replacing_a_bases_value_is_not_applied(tmp_path: Path) -> None:
    """The base is built without the overlay too: a value the overlay changes is not known
    to be the one that runs, so the base stays as written (and its findings with it)."""
    service = API_SERVICE.replace("8082", "9443").replace("ledger-api", "ledger")
    stop = SIDECAR_PATCH.replace("ledger-api", "manager").replace("8082", "9443")
    stop = stop.replace("/healthz", "/livez")  # replaces the base's readiness path
    files = {
        "ledger/base/manager.yaml": MANAGER,
        "ledger/base/service.yaml": service,
        "ledger/base/kustomization.yaml": "resources:\n- manager.yaml\n- service.yaml\n",
        "ledger/overlays/prod/patch.yaml": stop,
        "ledger/overlays/prod/kustomization.yaml": (
            "resources:\n- ../../base\npatches:\n- path: patch.yaml\n"
        ),
    }
    found = _findings(_tree(tmp_path, files))
    assert [f for f in found if f[0] == "KLB401" and f[1] == "ledger/base/manager.yaml"]
    assert not [f for f in found if f[1].endswith("patch.yaml")]


def test_patches_not_applied_exactly_leave_the_object_and_are_no_objects(
    tmp_path: Path,
) -> None:
    deleting = SIDECAR_PATCH.replace("    spec:\n", "    spec:\n      $patch: replace\n", 1)
    for number, (patch, entry) in enumerate(
        [
            (deleting, "- path: api_patch.yaml\n"),
            # the pods' label, not the Deployment's: selects nothing
            (SIDECAR_PATCH, "- path: api_patch.yaml\n  target:\n    labelSelector: app=ledger\n"),
            # anchored: `ledger` is not `ledger-controller`
            (SIDECAR_PATCH, "- path: api_patch.yaml\n  target:\n    name: ledger\n"),
            ("- op: add\n  path: /spec/replicas\n  value: 3\n", "- path: api_patch.yaml\n"),
        ]
    ):
        component = COMPONENT.replace("- path: api_patch.yaml\n", entry)
        folder = _controller(
            tmp_path / str(number),
            **{
                "ledger/components/api/api_patch.yaml": patch,
                "ledger/components/api/kustomization.yaml": component,
            },
        )
        found = _findings(folder)
        assert not [f for f in found if f[2] == "ledger-api" or "api_patch" in f[1]], (
            number,
            found,
        )


def test_an_object_two_kustomizations_patch_is_left_as_written(tmp_path: Path) -> None:
    other = SIDECAR_PATCH.replace("ledger-api", "ledger-audit")
    folder = _controller(
        tmp_path,
        **{
            "ledger/overlays/audit/audit_patch.yaml": other,
            "ledger/overlays/audit/kustomization.yaml": (
                "resources:\n- ../../base\npatches:\n- path: audit_patch.yaml\n"
            ),
        },
    )
    found = _findings(folder)
    assert not [f for f in found if f[2] in ("ledger-api", "ledger-audit")], found


def test_kustomization_parts_reads_the_entries_and_refuses_selectors() -> None:
    body = {
        "kind": "Component",
        "resources": ["service.yaml", "https://example.com/x.yaml"],
        "patches": [
            {"path": "a.yaml"},
            {"path": "b.yaml", "target": {"kind": "Deployment", "name": "web"}},
            {"path": "c.yaml", "target": {"labelSelector": "app=web"}},
            {"patch": "inline"},
            {"path": "e.yaml", "target": {"labelSelector": "app in (web"}},
        ],
        "patchesStrategicMerge": ["d.yaml", "apiVersion: v1\nkind: X\n"],
        "patchesJson6902": [
            {"target": {"kind": "Deployment"}, "patch": "- {op: remove, path: /x}"},
            {"patch": "- {op: remove, path: /x}"},
        ],
    }
    path = "deploy/kustomization.yaml"
    parts = kustomization_parts(path, body)
    assert parts is not None and parts.component
    assert parts.resources == ("deploy/service.yaml",)
    assert parts.patches[:5] == (
        PatchEntry("deploy/d.yaml", None),
        PatchEntry(path, None, None, {"apiVersion": "v1", "kind": "X"}),
        PatchEntry("deploy/a.yaml", None),
        PatchEntry("deploy/b.yaml", PatchTarget(kind="Deployment", name="web")),
        PatchEntry("deploy/c.yaml", PatchTarget(labels=(Requirement("app", "=", ("web",)),))),
    )
    assert parts.patches[5].refused is not None  # a selector Kubernetes would not parse
    late = parts.patches[6]
    assert late.late and late.target == PatchTarget(kind="Deployment")
    assert late.inline == [{"op": "remove", "path": "/x"}]
    assert [p.file for p in parts.patches] == [
        "deploy/d.yaml",
        path,
        "deploy/a.yaml",
        "deploy/b.yaml",
        "deploy/c.yaml",
        "deploy/e.yaml",
        path,
    ]
    assert kustomization_parts("k.yaml", {"patches": "a.yaml"}) is None


def test_a_finding_put_in_the_patch_file_is_silenced_there_or_on_its_object(
    tmp_path: Path,
) -> None:
    annotated = MANAGER.replace(
        "  name: ledger-controller\n",
        "  name: ledger-controller\n  annotations:\n"
        "    k8slb.io/ignore: KLB401; drained by the mesh\n",
    )
    on_object = _controller(tmp_path / "object", **{"ledger/base/manager.yaml": annotated})
    assert not [f for f in _findings(on_object) if f[0] == "KLB401"]
    commented = SIDECAR_PATCH.replace(
        "        - name: ledger-api\n", "        - name: ledger-api  # k8slb: ignore[KLB401]\n"
    )
    in_patch = _controller(
        tmp_path / "comment", **{"ledger/components/api/api_patch.yaml": commented}
    )
    assert not [f for f in _findings(in_patch) if f[0] == "KLB401"]


def test_selectors_read_as_kubernetes_reads_them() -> None:
    assert selector("tier=api, track!=canary,zone in (a, b),!legacy,owner") == (
        Requirement("tier", "=", ("api",)),
        Requirement("track", "!=", ("canary",)),
        Requirement("zone", "in", ("a", "b")),
        Requirement("legacy", "!", ()),
        Requirement("owner", "exists", ()),
    )
    held = {"tier": "api", "zone": "b", "owner": "pay"}
    assert all(r.holds(held) for r in selector("tier==api,zone notin (c),!legacy") or ())
    assert not all(r.holds(held) for r in selector("tier=api,track") or ())
    for broken in ("a in (b", "a b", "=x", "a=b c", "a" * 2000):
        assert selector(broken) is None, broken


# A payments API served over gRPC, its base labelled by the kustomization that names it.
PAYMENTS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: payments-api
spec:
  replicas: 1
  selector:
    matchLabels: {app: payments-api}
  template:
    metadata:
      labels: {app: payments-api}
    spec:
      containers:
        - name: api
          image: registry.example/payments-api:1.4
          ports:
            - {name: grpc, containerPort: 50051}
---
apiVersion: v1
kind: Service
metadata:
  name: payments-api
spec:
  selector: {app: payments-api}
  ports:
    - {name: grpc, port: 50051, targetPort: grpc}
"""
SCALE_ALL = """\
resources:
- ../../base
patches:
- patch: |-
    - op: replace
      path: /spec/replicas
      value: {replicas}
  target:
    kind: Deploy.*
    labelSelector: {selector}
"""


def _payments(tmp_path: Path, selector: str, **more: str) -> Path:
    files = {
        "deploy/base/payments.yaml": PAYMENTS,
        "deploy/base/kustomization.yaml": (
            "resources:\n- payments.yaml\ncommonLabels:\n  system: billing\n"
        ),
        "deploy/overlays/live/kustomization.yaml": SCALE_ALL.format(replicas=4, selector=selector),
        "deploy/overlays/local/kustomization.yaml": SCALE_ALL.format(replicas=1, selector=selector),
    }
    return _tree(tmp_path, {**files, **more})


def _severity_of_klb101(folder: Path) -> list[str]:
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(folder)])
    report: dict[str, Any] = json.loads(done.stdout)
    return [f["severity"] for f in report["findings"] if f["rule"] == "KLB101"]


def test_an_overlay_scaling_every_labelled_deployment_makes_the_base_scaled(
    tmp_path: Path,
) -> None:
    """The live overlay's inline JSON 6902 patch selects the Deployments by a label their
    base's kustomization adds: the one replica written is not the one that runs there,
    so the gRPC Service is not "one replica nothing scales"."""
    assert _severity_of_klb101(_payments(tmp_path / "labelled", "system=billing")) == ["warning"]
    # a selector no object meets leaves the one replica as written
    assert _severity_of_klb101(_payments(tmp_path / "other", "system=ledger")) == ["info"]


def test_a_kustomizations_own_labels_come_after_its_patches(tmp_path: Path) -> None:
    """kustomize runs `patches:` before the kustomization's own labels, and
    `patchesJson6902:` after them: only the second selects by a label added there."""
    own = (
        "resources:\n- payments.yaml\ncommonLabels:\n  system: billing\n"
        "{key}:\n- target:\n    kind: Deployment\n    labelSelector: system=billing\n"
        "  patch: |-\n    - {{op: replace, path: /spec/replicas, value: 3}}\n"
    )
    files = {"deploy/base/payments.yaml": PAYMENTS}
    before = _tree(
        tmp_path / "before",
        {**files, "deploy/base/kustomization.yaml": own.format(key="patches")},
    )
    after = _tree(
        tmp_path / "after",
        {**files, "deploy/base/kustomization.yaml": own.format(key="patchesJson6902")},
    )
    assert _severity_of_klb101(before) == ["info"]
    assert _severity_of_klb101(after) == ["warning"]


def test_a_target_by_name_pattern_applies_a_patch_to_each_object_it_matches(
    tmp_path: Path,
) -> None:
    component = COMPONENT.replace(
        "- path: api_patch.yaml\n",
        "- path: api_patch.yaml\n  target:\n    kind: Deployment\n    name: ledger-.*\n",
    )
    folder = _controller(tmp_path, **{"ledger/components/api/kustomization.yaml": component})
    found = _findings(folder)
    assert ("KLB401", "ledger/components/api/api_patch.yaml", "ledger-api") in {
        f[:3] for f in found
    }


def test_a_container_an_inline_patch_adds_is_reported_at_its_own_line(tmp_path: Path) -> None:
    """A patch written in the kustomization (`patch: |`) is read where it stands: the
    container it adds is reported at that container's line of the kustomization, as a
    patch file's would be at its line of that file."""
    written = "".join(f"    {line}\n" if line else "\n" for line in SIDECAR_PATCH.splitlines())
    component = COMPONENT.replace("- path: api_patch.yaml\n", "- patch: |\n" + written)
    folder = _controller(tmp_path, **{"ledger/components/api/kustomization.yaml": component})
    (folder / "ledger/components/api/api_patch.yaml").unlink()
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(folder)])
    report: dict[str, Any] = json.loads(done.stdout)
    (found,) = [f for f in report["findings"] if f["rule"] == "KLB401"]
    assert Path(found["path"]).name == "kustomization.yaml"
    lines = component.splitlines()
    assert lines[found["line"] - 1].strip() == "- name: ledger-api"


def test_a_patch_written_on_one_line_applies_and_one_folded_does_not(tmp_path: Path) -> None:
    """A JSON 6902 patch on one quoted line is read where it stands; one folded (`>`),
    whose lines k8slb cannot place in the file, is not applied (the object as written)."""
    own = (
        "resources:\n- payments.yaml\npatches:\n- target:\n    kind: Deployment\n  patch: {value}\n"
    )
    files = {"deploy/base/payments.yaml": PAYMENTS}
    one_line = '\'[{"op": "replace", "path": "/spec/replicas", "value": 3}]\''
    folded = '>\n    [{"op": "replace", "path": "/spec/replicas",\n    "value": 3}]'
    quoted = _tree(
        tmp_path / "quoted",
        {**files, "deploy/base/kustomization.yaml": own.format(value=one_line)},
    )
    unplaced = _tree(
        tmp_path / "folded",
        {**files, "deploy/base/kustomization.yaml": own.format(value=folded)},
    )
    assert _severity_of_klb101(quoted) == ["warning"]
    assert _severity_of_klb101(unplaced) == ["info"]


def test_an_overlays_replicas_field_makes_the_base_scaled(tmp_path: Path) -> None:
    """kustomize's `replicas:` field sets the count of the workloads of its build by name:
    the live overlay runs three of the base's one replica, the local one keeps one."""
    files = {
        "deploy/base/payments.yaml": PAYMENTS,
        "deploy/base/kustomization.yaml": "resources:\n- payments.yaml\n",
        "deploy/overlays/local/kustomization.yaml": "resources:\n- ../../base\n",
    }
    live = "resources:\n- ../../base\nreplicas:\n- name: {name}\n  count: 3\n"
    scaled = _tree(
        tmp_path / "scaled",
        {**files, "deploy/overlays/live/kustomization.yaml": live.format(name="payments-api")},
    )
    other = _tree(
        tmp_path / "other",
        {**files, "deploy/overlays/live/kustomization.yaml": live.format(name="ledger")},
    )
    assert _severity_of_klb101(scaled) == ["warning"]
    found = _findings(scaled)
    assert any("deploy/overlays/live/kustomization.yaml gives" in f[3] for f in found)
    # a name no workload of the build has leaves the one replica as written
    assert _severity_of_klb101(other) == ["info"]
