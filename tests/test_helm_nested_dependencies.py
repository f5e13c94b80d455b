"""A chart's dependencies on folders (`repository: file://../web`) are packed as `helm
dependency build` would vendor them, and so are theirs (`web` on `file://../common`),
level after level within a budget, cycle-safe, in memory only; a template that needs a
subchart one of its subcharts declares and nobody vendored is said to need that one, of
that subchart."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading import charts
from k8slb.reading.charts import linked_tree, pack, unpack

from .test_helm import check, where, write

# A library chart whose default values the charts using it read (`.Values.common.x`, as
# Helm gives a parent its subchart's values), and whose helper writes their Deployment.
COMMON = {
    "Chart.yaml": "apiVersion: v2\nname: common\nversion: 1.0.0\n",
    "values.yaml": "probe:\n  enabled: false\n",
    "templates/_deployment.tpl": """\
{{- define "common.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Chart.Name }}
spec:
  replicas: 2
  selector:
    matchLabels: {app: {{ .Chart.Name }}}
  template:
    metadata:
      labels: {app: {{ .Chart.Name }}}
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: registry.example/{{ .Chart.Name }}:1.0
          ports: [{name: http, containerPort: 8080}]
          {{- if .Values.common.probe.enabled }}
          readinessProbe: {httpGet: {path: /ready, port: http}}
          {{- end }}
{{- end -}}
""",
}
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Chart.Name }}
spec:
  selector: {app: {{ .Chart.Name }}}
  ports: [{name: http, port: 80, targetPort: http}]
"""


def _component(name: str, repository: str) -> dict[str, str]:
    """A service chart whose Deployment is the library's (`file://` REPOSITORY)."""
    declared = (
        f"apiVersion: v2\nname: {name}\nversion: 1.0.0\ndependencies:\n"
        f"  - name: common\n    version: 1.0.0\n    repository: {repository}\n"
    )
    return {
        "Chart.yaml": declared,
        "values.yaml": "{}\n",
        "templates/deployment.yaml": '{{ include "common.deployment" . }}\n',
        "templates/service.yaml": SERVICE,
    }


def _umbrella(repo: Path, names: tuple[str, ...] = ("web", "api")) -> Path:
    """`env`, deploying components that each depend on the library: nothing vendored."""
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    write(repo / "helm" / "common", COMMON)
    entries = "".join(
        f"  - name: {name}\n    version: 1.0.0\n    repository: file://../../components/{name}\n"
        for name in names
    )
    for name in names:
        write(repo / "helm" / "components" / name, _component(name, "file://../../common"))
    return write(
        repo / "helm" / "environments" / "env",
        {
            "Chart.yaml": f"apiVersion: v2\nname: env\nversion: 1.0.0\ndependencies:\n{entries}",
            "values.yaml": "{}\n",
        },
    )


def _files(top: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(top)): path.read_bytes()
        for path in sorted(top.rglob("*"))
        if path.is_file()
    }


def test_a_dependency_s_own_folder_dependencies_are_packed_inside_it_and_the_chart_renders(
    tmp_path: Path,
) -> None:
    """`env` -> `file://../../components/web` -> `file://../../common`: Helm renders web
    with its own subchart common (web's `.Values.common`, the library's defaults), which
    `helm dependency build` in web's folder would vendor. Packed one level only, the
    umbrella failed on a nil pointer and none of it was linted (round 29); now every
    component's objects are, on the library's line that writes them, and nothing is
    written into the user's folders."""
    repo = tmp_path / "repo"
    env = _umbrella(repo)
    before = _files(repo)
    assert linked_tree(str(env)) == {
        "charts/api/": str(repo / "helm/components/api"),
        "charts/api/charts/common/": str(repo / "helm/common"),
        "charts/web/": str(repo / "helm/components/web"),
        "charts/web/charts/common/": str(repo / "helm/common"),
    }
    assert {"charts/web/charts/common/values.yaml", "charts/api/templates/service.yaml"} <= set(
        unpack(pack(str(env)))
    )
    _, report = check("--select", "KLB003,KLB302", str(env))
    assert not [f for f in report["findings"] if f["rule"] == "KLB003"]
    said = sorted(
        (f["object"]["name"], *where({"findings": [f]}, repo)[0]) for f in report["findings"]
    )
    assert said == [
        ("api", "KLB302", "helm/common/templates/_deployment.tpl", 15, 9),
        ("web", "KLB302", "helm/common/templates/_deployment.tpl", 15, 9),
    ]
    # rendered by the umbrella, its components inside it
    assert sorted(f["rendered"]["template"] for f in report["findings"]) == [
        "env/charts/api/templates/deployment.yaml",
        "env/charts/web/templates/deployment.yaml",
    ]
    assert _files(repo) == before
    # a warm run sees an edit of the folder two levels down
    write(repo / "helm" / "common", {"values.yaml": "probe:\n  enabled: true\n"})
    _, edited = check("--select", "KLB003,KLB302", str(env))
    assert edited["findings"] == []


def test_folder_dependencies_that_depend_on_each_other_are_packed_once_each_way_down(
    tmp_path: Path,
) -> None:
    """a -> b -> a: the folder already on the way down is not packed again inside
    itself (Helm's `dependency build` would loop); a chain is followed MAX_LINK_DEPTH
    levels."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for name, other in (("a", "b"), ("b", "a")):
        write(repo / name, _component(name, f"file://../{other}"))
    # (each names its dependency `common`): b inside a, not a again inside b
    assert linked_tree(str(repo / "a")) == {"charts/common/": str(repo / "b")}
    for level in range(8):  # c0 -> c1 -> ... -> c7
        write(repo / f"c{level}", _component(f"c{level}", f"file://../c{level + 1}"))
    write(repo / "c8", COMMON)
    deep = linked_tree(str(repo / "c0"))
    assert len(deep) == charts.MAX_LINK_DEPTH
    assert max(prefix.count("charts/") for prefix in deep) == charts.MAX_LINK_DEPTH


def test_folder_dependencies_past_the_count_or_size_budget_are_left_out_below_the_first_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most MAX_LINKED folders are packed, and within MAX_CHART_BYTES: a dependency's
    own one past the size left is packed as if nobody vendored it (the chart renders as
    Helm would without it); the chart's own one past it makes the chart too large, as
    before."""
    repo = tmp_path / "repo"
    env = _umbrella(repo, ("web", "api", "db"))
    monkeypatch.setattr(charts, "MAX_LINKED", 4)
    assert len(linked_tree(str(env))) == 4
    monkeypatch.setattr(charts, "MAX_LINKED", 256)
    write(repo / "helm" / "common", {"big.txt": "x" * 4000})
    sizes = {name: len(data) for name, data in unpack(pack(str(env))).items()}
    own = sum(size for name, size in sizes.items() if "charts/common/" not in name)
    monkeypatch.setattr(charts, "MAX_CHART_BYTES", own + 5000)  # room for one common
    members = unpack(pack(str(env)))
    assert [name for name in members if name.endswith("common/big.txt")] == [
        "charts/api/charts/common/big.txt"
    ]
    assert "charts/web/templates/service.yaml" in members
    monkeypatch.setattr(charts, "MAX_CHART_BYTES", own - 100)
    with pytest.raises(OSError, match="exceed"):
        pack(str(env))


def test_a_template_that_needs_a_subchart_s_own_missing_dependency_names_that_one(
    tmp_path: Path,
) -> None:
    """`store` (a folder dependency of `platform`) depends on `minio` from an OCI registry,
    not vendored; `platform` lacks `preview` of its own. store's template that includes
    `minio.fullname` is said to need minio, store's subchart, vendored in store's folder
    by `helm dependency build` there: not platform's missing preview (round 29 named
    the umbrella's)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    oci = "    version: 1.0.0\n    repository: oci://registry.example/charts\n"
    store = write(
        repo / "store",
        {
            "Chart.yaml": "apiVersion: v2\nname: store\nversion: 1.0.0\n"
            f"dependencies:\n  - name: minio\n{oci}",
            "templates/deployment.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                '  name: {{ include "minio.fullname" . }}\n'
            ),
            "templates/service.yaml": SERVICE,
        },
    )
    platform = write(
        repo / "platform",
        {
            "Chart.yaml": "apiVersion: v2\nname: platform\nversion: 1.0.0\ndependencies:\n"
            f"  - name: preview\n{oci}"
            "  - name: store\n    version: 1.0.0\n    repository: file://../store\n",
            "templates/service.yaml": SERVICE,
        },
    )
    _, report = check("--select", "KLB003", str(platform))
    [left] = [
        f
        for f in report["findings"]
        if f["severity"] == "warning" and f["path"] == str(store / "templates/deployment.yaml")
    ]
    assert f"without minio, the subchart of {store}:" in left["headline"]
    assert "preview" not in left["message"]
    assert f"`helm dependency build {store}`" in left["message"]
    [own] = [f for f in report["findings"] if f["path"] == str(platform / "Chart.yaml")]
    assert own["headline"] == f"chart {platform} is rendered without its subchart preview"
    assert (
        "(`helm dependency build` vendors them from oci://registry.example/charts; k8slb "
        "fetches nothing (no network))" in own["message"]
    )
    assert sorted(os.listdir(platform)) == ["Chart.yaml", "templates"]


def test_the_missing_subcharts_a_subchart_s_template_may_need_are_its_own_chart_s() -> None:
    """A named template not found is any chart's (named templates are global): the
    missing one whose name prefixes it, wherever it is declared; values are read only of
    the template's own chart's subcharts; with neither, its own chart's missing ones,
    else those of the nearest chart above it that lacks some."""
    nested = {"charts/store/": ("minio",), "charts/store/charts/cache/": ("redis",)}
    failure = charts.HelmFailure(
        'template: p/charts/store/templates/x.yaml:3:1: template "minio.fullname" not defined',
        missing=["preview"],
    )
    member = "charts/store/templates/x.yaml"
    assert charts._needs_missing(failure, member, b"a: 1\n", nested) == (
        ("minio",),
        "charts/store/",
    )
    deep = "charts/store/charts/cache/templates/x.yaml"
    assert charts._needs_missing(failure, deep, b"a: 1\n", nested) == (("minio",), "charts/store/")
    unnamed = charts.HelmFailure(
        'template: p/charts/store/templates/x.yaml:3:1: template "shared.name" not defined',
        missing=["preview"],
    )
    assert charts._needs_missing(unnamed, member, b"a: 1\n", nested) == (
        ("minio",),
        "charts/store/",
    )
    other = "charts/web/templates/x.yaml"  # web lacks nothing: the chart's own, above it
    assert charts._needs_missing(unnamed, other, b"a: 1\n", nested) == (("preview",), "")
    nil = charts.HelmFailure(
        "template: p/charts/store/templates/x.yaml:3:1: nil pointer evaluating interface {}.port",
        missing=["preview"],
    )
    assert charts._needs_missing(nil, member, b"{{ .Values.preview.port }}", nested) == ((), "")
    assert charts._needs_missing(nil, member, b"{{ .Values.minio.port }}", nested) == (
        ("minio",),
        "charts/store/",
    )


def test_a_subchart_s_own_missing_dependencies_are_found_among_the_chart_s_files() -> None:
    """By alias else name; vendored as a folder of that name, a folder whose Chart.yaml
    names it, or an archive `NAME-VERSION.tgz`; the chart's own Chart.yaml is Helm's to
    say (not here); a Chart.yaml outside a subchart's folder is no subchart's."""
    declared = (
        b"apiVersion: v2\nname: store\nversion: 1.0.0\ndependencies:\n"
        b"  - name: minio\n    repository: oci://r\n"
        b"  - name: redis\n    alias: cache\n    repository: oci://r\n"
        b"  - name: pg\n    repository: oci://r\n"
        b"  - name: nats\n    repository: oci://r\n"
        b"  - name: etcd\n    repository: oci://r\n"
    )
    members = {
        "Chart.yaml": declared,
        "ci/Chart.yaml": declared,
        "charts/store/Chart.yaml": declared,
        "charts/store/charts/pg/Chart.yaml": b"name: pg\n",
        "charts/store/charts/queue/Chart.yaml": b"name: nats\n",
        "charts/store/charts/etcd-1.2.3.tgz": b"",
    }
    assert charts._nested_missing(members) == {"charts/store/": ("minio", "cache")}
