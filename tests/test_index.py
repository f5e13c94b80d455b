"""The index: which pods a Service selects, which containers it targets, mesh, scalers."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.model.index import Index
from k8slb.reading.manifests import load_manifests


def index_of(text: str, mesh: str = "none") -> Index:
    return Index(load_manifests("m.yaml", text.encode()).objects, mesh)


def pod(name: str, containers: str, labels: str = "{app: api}", extra: str = "") -> str:
    return (
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\n"
        f"spec:\n  template:\n    metadata:\n      labels: {labels}\n{extra}"
        f"    spec:\n      containers:\n{containers}"
    )


def service(target: str, selector: str = "{app: api}", namespace: str = "") -> str:
    ns = f", namespace: {namespace}" if namespace else ""
    return (
        f"---\napiVersion: v1\nkind: Service\nmetadata: {{name: api{ns}}}\n"
        f"spec:\n  selector: {selector}\n  ports: [{{port: 80, targetPort: {target}}}]\n"
    )


TWO_CONTAINERS = (
    "        - {name: app, ports: [{name: http, containerPort: 8080}]}\n"
    "        - {name: metrics, ports: [{name: prom, containerPort: 9090}]}\n"
)


def targeted(index: Index) -> list[tuple[str | None, str, int | None]]:
    (svc,) = index.services
    return [(t.workload.name, t.container.name, t.number) for t in index.targets(svc)]


def test_a_named_target_port_picks_the_container_that_declares_it() -> None:
    assert targeted(index_of(pod("d", TWO_CONTAINERS) + service("http"))) == [("d", "app", 8080)]
    assert targeted(index_of(pod("d", TWO_CONTAINERS) + service("prom"))) == [
        ("d", "metrics", 9090)
    ]


def test_a_numeric_target_port_matches_the_declared_number() -> None:
    assert targeted(index_of(pod("d", TWO_CONTAINERS) + service("9090"))) == [
        ("d", "metrics", 9090)
    ]


def test_an_undeclared_name_targets_nothing() -> None:
    assert targeted(index_of(pod("d", TWO_CONTAINERS) + service("grpc"))) == []


def test_undeclared_numeric_port_falls_back_on_probes_then_the_only_container() -> None:
    probed = (
        "        - {name: side, image: x}\n"
        "        - name: app\n          readinessProbe: {httpGet: {path: /, port: 8080}}\n"
    )
    assert targeted(index_of(pod("d", probed) + service("8080"))) == [("d", "app", 8080)]
    only = "        - {name: app, image: x}\n"
    assert targeted(index_of(pod("d", only) + service("8080"))) == [("d", "app", 8080)]
    two = "        - {name: a, image: x}\n        - {name: b, image: y}\n"
    assert targeted(index_of(pod("d", two) + service("8080"))) == []


@pytest.mark.parametrize("proxy", ["istio-proxy", "linkerd-proxy"])
def test_an_injected_mesh_proxy_is_not_the_only_container_a_port_falls_back_on(proxy: str) -> None:
    # a manifest written after injection: the app declares no port, the proxy its own
    app_and_proxy = (
        "        - {name: server, image: example/server}\n"
        f"        - {{name: {proxy}, image: example/proxy, ports: [{{containerPort: 15090}}]}}\n"
    )
    assert targeted(index_of(pod("api", app_and_proxy) + service("8090"))) == [
        ("api", "server", 8090)
    ]
    # two containers of the app's own and neither declares it: no guess
    two_own = "        - {name: server}\n        - {name: helper}\n"
    assert targeted(index_of(pod("api", two_own) + service("8090"))) == []


def test_a_service_selecting_two_deployments_targets_both() -> None:
    text = pod("blue", TWO_CONTAINERS, "{app: api, color: blue}")
    text += pod("green", TWO_CONTAINERS, "{app: api, color: green}") + service("http")
    assert targeted(index_of(text)) == [("blue", "app", 8080), ("green", "app", 8080)]


def test_selection_needs_every_selector_label_and_the_same_namespace() -> None:
    assert (
        targeted(index_of(pod("d", TWO_CONTAINERS) + service("http", "{app: api, v: '2'}"))) == []
    )
    assert targeted(index_of(pod("d", TWO_CONTAINERS) + service("http", namespace="other"))) == []


def test_an_object_that_names_no_namespace_is_in_default_as_kubectl_and_a_chart_put_it() -> None:
    """A plain manifest's unnamed namespace meets `namespace: default`, as a chart's render
    (in the release's namespace) and `kubectl apply` would; another namespace it does not."""
    assert targeted(index_of(pod("d", TWO_CONTAINERS) + service("http", namespace="default"))) == [
        ("d", "app", 8080)
    ]
    named = pod("d", TWO_CONTAINERS).replace(
        "metadata: {name: d}", "metadata: {name: d, namespace: default}"
    )
    assert targeted(index_of(named + service("http"))) == [("d", "app", 8080)]
    assert targeted(index_of(named + service("http", namespace="other"))) == []
    scaled = named + (
        "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n"
        "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}\n"
    )
    index = index_of(scaled)
    assert [s.name for s in index.scalers(index.workloads[0][0])] == ["h"]


def test_a_service_without_selector_selects_nothing() -> None:
    text = pod("d", TWO_CONTAINERS) + "---\napiVersion: v1\nkind: Service\nmetadata: {name: m}\n"
    text += "spec:\n  ports: [{port: 80}]\n"
    index = index_of(text)
    assert index.selected(index.services[0]) == []


def test_native_sidecars_serve_and_plain_init_containers_do_not() -> None:
    init = (
        "      initContainers:\n"
        "        - name: proxy\n"
        "          restartPolicy: Always\n"
        "          ports: [{name: http, containerPort: 8080}]\n"
        "        - {name: migrate, ports: [{name: http, containerPort: 8080}]}\n"
    )
    text = pod("d", "        - {name: app, image: x}\n").replace(
        "      containers:\n", init + "      containers:\n"
    )
    assert targeted(index_of(text + service("http"))) == [("d", "proxy", 8080)]


def test_jobs_never_serve(tmp_path: Path) -> None:
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
        "    metadata: {labels: {app: api}}\n    spec:\n      containers:\n"
        "        - {name: app, ports: [{name: http, containerPort: 8080}]}\n"
    )
    index = index_of(job + service("http"))
    workload, _ = index.workloads[0]
    assert index.serving(workload) == {}


def test_cronjob_and_pod_templates_are_found() -> None:
    cron = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  jobTemplate:\n"
        "    spec:\n      template:\n        spec:\n          containers: [{name: x}]\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: api}}\n"
        "spec:\n  containers: [{name: y}]\n"
        "---\napiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: r}\n"
        "spec:\n  template:\n    spec:\n      containers: [{name: z}]\n"
    )
    index = index_of(cron)
    assert [(w.kind, [c.name for c in t.containers]) for w, t in index.workloads] == [
        ("CronJob", ["x"]),
        ("Pod", ["y"]),
        ("Rollout", ["z"]),
    ]


NAMESPACE = "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"


def mesh(text: str, option: str = "none") -> str | None:
    index = index_of(text, option)
    workload, template = index.workloads[0]
    return index.mesh_of(workload, template)


def shop_pod(extra: str = "") -> str:
    return pod("d", TWO_CONTAINERS, extra=extra).replace(
        "metadata: {name: d}", "metadata: {name: d, namespace: shop}"
    )


def test_mesh_detection() -> None:
    assert mesh(shop_pod()) is None
    assert mesh(shop_pod("      annotations: {sidecar.istio.io/inject: 'true'}\n")) == "istio"
    assert mesh(shop_pod("      annotations: {linkerd.io/inject: enabled}\n")) == "linkerd"
    injected = NAMESPACE + "  labels: {istio-injection: enabled}\n"
    assert mesh(shop_pod() + injected) == "istio"
    revision = NAMESPACE + "  labels: {istio.io/rev: canary}\n"
    assert mesh(shop_pod() + revision) == "istio"
    opted_out = shop_pod("      annotations: {sidecar.istio.io/inject: 'false'}\n")
    assert mesh(opted_out + injected) is None
    linkerd_ns = NAMESPACE + "  annotations: {linkerd.io/inject: enabled}\n"
    assert mesh(shop_pod() + linkerd_ns) == "linkerd"
    assert mesh(shop_pod(), "linkerd") == "linkerd"


def test_a_pod_that_names_an_istio_revision_or_asks_for_the_sidecar_by_label_is_meshed() -> None:
    """Istio's revision injector takes the pods labelled `istio.io/rev: <rev>` (in a
    namespace that neither names a revision nor turns injection off), and the
    `sidecar.istio.io/inject: "true"` label injects as the annotation does."""

    def labelled(labels: str) -> str:
        return pod("d", TWO_CONTAINERS, labels=labels).replace(
            "metadata: {name: d}", "metadata: {name: d, namespace: shop}"
        )

    assert mesh(labelled("{app: api, istio.io/rev: v1-11-3}")) == "istio"
    assert mesh(labelled("{app: api, sidecar.istio.io/inject: 'true'}")) == "istio"
    assert mesh(labelled("{app: api, version: v1}")) is None
    disabled = NAMESPACE + "  labels: {istio-injection: disabled}\n"
    assert mesh(labelled("{app: api, istio.io/rev: v1-11-3}") + disabled) is None
    opted_out = "{app: api, istio.io/rev: v1-11-3, sidecar.istio.io/inject: 'false'}"
    assert mesh(labelled(opted_out)) is None


def test_a_pod_istio_has_injected_already_is_meshed() -> None:
    """`istioctl kube-inject` writes the proxy into the manifest, with the injector's
    `sidecar.istio.io/status` annotation: the pod is in the mesh whatever its namespace."""
    status = """      annotations: {sidecar.istio.io/status: '{"containers":["istio-proxy"]}'}\n"""
    assert mesh(shop_pod(status)) == "istio"
    assert mesh(shop_pod(status.replace("status", "statuses"))) is None


def test_a_mesh_balances_a_set_of_pods_only_when_every_one_is_meshed() -> None:
    """The one decision the rules about pinned connections share (KLB101, KLB201, the
    client rules): a pod outside the mesh keeps its connections where they landed."""
    linkerd = "      annotations: {linkerd.io/inject: enabled}\n"
    outside = pod("e", TWO_CONTAINERS).replace("{name: e}", "{name: e, namespace: shop}")
    index = index_of(shop_pod(linkerd) + outside)
    meshed, plain = index.workloads
    assert index.mesh_balancing([meshed]) == "linkerd"
    assert index.mesh_balancing([meshed, plain]) is None
    assert index.mesh_balancing([]) is None, "no pod known: nothing says a mesh is there"
    assert index_of(outside, "istio").mesh_balancing([]) == "istio", "--mesh names one"


def test_istio_ambient_counts_only_with_a_waypoint() -> None:
    ambient = NAMESPACE + "  labels: {istio.io/dataplane-mode: ambient}\n"
    assert mesh(shop_pod() + ambient) is None
    waypoint = (
        NAMESPACE + "  labels: {istio.io/dataplane-mode: ambient, istio.io/use-waypoint: w}\n"
    )
    assert mesh(shop_pod() + waypoint) == "istio"


def test_scalers_hpa_and_keda() -> None:
    hpa = (
        "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n"
        "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}\n"
        "---\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: k}\n"
        "spec:\n  scaleTargetRef: {name: d}\n"
        "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: o}\n"
        "spec:\n  scaleTargetRef: {kind: StatefulSet, name: d}\n"
    )
    index = index_of(pod("d", TWO_CONTAINERS) + hpa)
    workload, _ = index.workloads[0]
    assert [s.name for s in index.scalers(workload)] == ["h", "k"]
