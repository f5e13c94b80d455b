"""Charts linted as the repository deploys them: a dependency chart's aliases on its own
files, a dependency chart's failure alone at info, an umbrella whose Chart.yaml declares
nothing leaving its charts to be charts of their own, and a chart that renders no object
said to."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

from .test_helm import check, where, write

# A chart of one workload, every name from its values: what several services share,
# each an alias of it in the umbrella that deploys them.
WORKLOAD = {
    "Chart.yaml": "apiVersion: v2\nname: svc-base\nversion: 0.2.0\n",
    "templates/workload.yaml": """\
{{- $name := required "serviceName is required" .Values.serviceName -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
spec:
  selector:
    matchLabels: {app: {{ $name }}}
  template:
    metadata:
      labels: {app: {{ $name }}}
    spec:
      containers:
        - name: {{ $name }}
          image: registry.example/{{ $name }}:1.0
          ports: [{name: grpc, containerPort: 9000}]
          readinessProbe: {grpc: {port: 9000}}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
spec:
  clusterIP: None
  selector: {app: {{ $name }}}
  ports: [{name: grpc, port: 9000}]
""",
}


def _umbrella(repo: Path, repository: str, vendored: bool = False) -> Path:
    """`stack`, deploying `svc-base` twice, as `billing` and `ledger`."""
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    entries = "".join(
        f"  - name: svc-base\n    alias: {alias}\n    version: 0.2.0\n"
        f"    repository: {repository}\n"
        for alias in ("billing", "ledger")
    )
    stack = write(
        repo / "deploy" / "stack",
        {
            "Chart.yaml": f"apiVersion: v2\nname: stack\nversion: 1.0.0\ndependencies:\n{entries}",
            "values.yaml": "billing:\n  serviceName: billing\nledger:\n  serviceName: ledger\n",
        },
    )
    write(stack / "charts" / "svc-base" if vendored else repo / "deploy" / "svc-base", WORKLOAD)
    return stack


@pytest.mark.parametrize("vendored", [False, True])
def test_an_aliased_dependency_s_findings_are_on_its_own_files(
    tmp_path: Path, vendored: bool
) -> None:
    """Helm renders each alias as `charts/<alias>/`, a folder the tree does not have: the
    findings of every alias are on the dependency's own template, at its container line,
    one per object."""
    repo = tmp_path / "repo"
    stack = _umbrella(repo, "file://../svc-base", vendored)
    _, report = check(str(stack))
    base = "deploy/stack/charts/svc-base" if vendored else "deploy/svc-base"
    found = [f for f in report["findings"] if f["rule"] == "KLB401"]
    assert sorted((f["object"]["name"], *where({"findings": [f]}, repo)[0][1:]) for f in found) == [
        ("billing", f"{base}/templates/workload.yaml", 14, 9),
        ("ledger", f"{base}/templates/workload.yaml", 14, 9),
    ]
    assert all(os.path.isfile(f["path"]) for f in report["findings"])


def test_a_dependency_chart_alone_fails_at_info_naming_the_chart_that_uses_it(
    tmp_path: Path,
) -> None:
    """svc-base requires values only its users give: rendered alone with its own
    defaults it fails, which deploys nothing; the umbrella that uses it is linted."""
    repo = tmp_path / "repo"
    _umbrella(repo, "file://../svc-base")
    _, report = check(str(repo))
    (alone,) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert alone["severity"] == "info"
    assert alone["path"].endswith("deploy/svc-base/templates/workload.yaml")
    assert "dependency of chart" in alone["message"]
    assert sum(f["rule"] == "KLB401" for f in report["findings"]) == 2


def test_a_dependency_failing_where_its_user_fails_too_is_said_once_by_the_user(
    tmp_path: Path,
) -> None:
    """The umbrella gives `ledger` no serviceName: its render fails at svc-base's
    template, the same place svc-base alone fails; that is the umbrella's warning, and
    the dependency's own failure at that place adds nothing."""
    repo = tmp_path / "repo"
    stack = _umbrella(repo, "file://../svc-base")
    write(stack, {"values.yaml": "billing:\n  serviceName: billing\n"})
    _, report = check(str(repo))
    failed = [f for f in report["findings"] if f["rule"] == "KLB003"]
    (user,) = failed
    assert user["severity"] == "warning"
    assert user["path"].endswith("deploy/svc-base/templates/workload.yaml")
    assert "deploy/stack" in user["message"]


def test_a_chart_its_own_script_installs_alone_keeps_its_warning(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _umbrella(repo, "file://../svc-base")
    write(repo, {"deploy/svc-base/ci.yaml": "serviceName: \n"})
    write(repo, {"deploy/up.sh": "helm upgrade --install base ./svc-base -f svc-base/ci.yaml\n"})
    _, report = check(str(repo))
    (alone,) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert alone["severity"] == "warning"


# A chart of one web workload that several service charts share, each setting its values
# under the dependency's key (`web:`), the folder beside theirs, nothing vendored.
SHARED_WEB = {
    "Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "values.yaml": "name: web\nimage: registry.example/web\n",
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Values.name }}
spec:
  replicas: 2
  selector:
    matchLabels: {app: {{ .Values.name }}}
  template:
    metadata:
      labels: {app: {{ .Values.name }}}
    spec:
      containers:
        - name: {{ .Values.name }}
          image: {{ .Values.image }}:1.0
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /ready, port: http}}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Values.name }}
spec:
  selector: {app: {{ .Values.name }}}
  ports: [{name: http, port: 80, targetPort: http}]
""",
}


def _sharing(repo: Path, services: tuple[str, ...]) -> None:
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    write(repo / "deploy" / "web", SHARED_WEB)
    for name in services:
        write(
            repo / "deploy" / name,
            {
                "Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 0.1.0\ndependencies:\n"
                "  - name: web\n    version: 0.1.0\n    repository: file://../web\n",
                "values.yaml": f"web:\n  name: {name}\n  image: registry.example/{name}\n",
            },
        )
        write(repo / name, {"Dockerfile": f'FROM node:20\nCOPY . .\nCMD ["node", "{name}.js"]\n'})
        write(repo / name, {f"{name}.js": "require('http').createServer(() => {}).listen(8080)\n"})


def test_every_chart_sharing_one_dependency_folder_is_linted_with_its_own_values(
    tmp_path: Path,
) -> None:
    """Three charts use `file://../web`: each renders web's templates with its values,
    and each object is reported at the shared template's line, naming the chart that
    uses it (the run's renderings of one shared template are keyed apart, none replacing
    another's). web alone, with its defaults, is no release: its Deployment/default/web
    says what theirs say."""
    repo = tmp_path / "repo"
    services = ("cart", "orders", "search")
    _sharing(repo, services)
    _, report = check(str(repo))
    found = {f["object"]["name"]: f for f in report["findings"] if f["rule"] == "KLB401"}
    assert sorted(found) == list(services)
    for name, finding in found.items():
        assert finding["path"].endswith("deploy/web/templates/deployment.yaml")
        assert finding["line"] == 14  # `- name: {{ .Values.name }}`
        assert f"deploy/{name} uses" in finding["message"]
    # one finding an object, however the charts are checked
    _, alone = check(str(repo / "deploy" / "orders"))
    assert [f["object"]["name"] for f in alone["findings"] if f["rule"] == "KLB401"] == ["orders"]


def test_what_only_a_shared_chart_s_defaults_give_is_said_and_all_of_one_installed_alone(
    tmp_path: Path,
) -> None:
    """web's defaults turn off its readiness probe, which every chart that uses it turns
    on: that KLB302 is web's alone, said; its KLB401 is theirs. A script that installs
    web alone makes its objects a release's: each finding said."""
    repo = tmp_path / "repo"
    _sharing(repo, ("cart", "orders"))
    template = repo / "deploy" / "web" / "templates" / "deployment.yaml"
    probe = "          readinessProbe: {httpGet: {path: /ready, port: http}}\n"
    template.write_text(
        template.read_text().replace(probe, "{{- if .Values.ready }}\n" + probe + "{{- end }}\n")
    )
    for name in ("cart", "orders"):
        values = repo / "deploy" / name / "values.yaml"
        values.write_text(values.read_text() + "  ready: true\n")
    _, report = check(str(repo))
    web = [f["rule"] for f in report["findings"] if (f["object"] or {}).get("name") == "web"]
    assert web == ["KLB302"]
    write(repo, {"deploy/up.sh": "helm upgrade --install web ./web\n"})
    _, report = check(str(repo))
    web = [f["rule"] for f in report["findings"] if (f["object"] or {}).get("name") == "web"]
    assert sorted(web) == ["KLB302", "KLB401"]


def test_every_chart_sharing_one_dependency_folder_links_its_own_image(tmp_path: Path) -> None:
    """Each chart's container is linked to the code its own image is built from."""
    repo = tmp_path / "repo"
    services = ("cart", "orders", "search")
    _sharing(repo, services)
    done = CliRunner().invoke(cli, ["explain-links", "--isolated", "--format", "json", str(repo)])
    assert done.exit_code == 0, done.output
    linked = {row["container"]: row["code"] for row in json.loads(done.stdout)["links"]}
    for name in services:
        assert Path(linked[f"Deployment/default/{name}:{name}"]).parent == repo / name


# A chart commented out, whose folder holds the charts a CI job installs one by one.
UMBRELLA = "# apiVersion: v2\n# name: shop\n#\n# dependencies:\n#   - name: orders\n"


def _service_chart(name: str) -> dict[str, str]:
    return {
        "Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n",
        "values.yaml": "replicas: 2\n",
        "templates/workload.yaml": WORKLOAD["templates/workload.yaml"].replace(
            ".Values.serviceName", f'"{name}"'
        ),
    }


def test_the_charts_of_a_folder_whose_chart_yaml_declares_nothing_are_charts_of_their_own(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    umbrella = write(repo / "helm", {"Chart.yaml": UMBRELLA, "values.yaml": "# orders: {}\n"})
    for name in ("orders", "payments"):
        write(umbrella / "charts" / name, _service_chart(name))
    _, report = check(str(repo))
    assert sorted(where(report, repo)) == [
        ("KLB401", "helm/charts/orders/templates/workload.yaml", 14, 9),
        ("KLB401", "helm/charts/payments/templates/workload.yaml", 14, 9),
    ]
    from k8slb.reading.charts import enclosing_chart

    template = umbrella / "charts" / "orders" / "templates" / "workload.yaml"
    assert enclosing_chart(str(template)) == str(umbrella / "charts" / "orders")
    assert enclosing_chart(str(umbrella / "values.yaml")) is None
    write(umbrella, {"Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n"})
    assert enclosing_chart(str(template)) == str(umbrella)


def test_a_chart_that_renders_no_object_says_so_at_info(tmp_path: Path) -> None:
    """No values.yaml, only values files for its environments, and templates that range
    over the services they list: rendered with no values, the chart deploys nothing; it
    is rendered with the file beside it that deploys a workload, and where none does, it
    says so at info."""
    ranged = (
        "{{- range $name, $svc := .Values.services }}\n---\n"
        + WORKLOAD["templates/workload.yaml"].split("\n", 1)[1].replace("$name", "$name")
        + "{{- end }}\n"
    )
    chart = write(
        tmp_path / "k8s",
        {
            "Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
            "values-dev.yaml": "services:\n  orders: {}\n",
            "templates/workload.yaml": ranged,
        },
    )
    _, report = check(str(chart))
    said, found = sorted(report["findings"], key=lambda f: f["rule"])
    assert (said["rule"], said["severity"]) == ("KLB003", "info")
    assert said["path"].endswith("values-dev.yaml")
    assert "rendered instead with values-dev.yaml" in said["message"]
    assert found["rule"] == "KLB401"
    _, given = check("--helm-values", str(chart / "values-dev.yaml"), str(chart))
    assert [f["rule"] for f in given["findings"]] == ["KLB401"]
    write(chart, {"values-dev.yaml": "services: {}\n"})
    _, report = check(str(chart))
    (said,) = report["findings"]
    assert said["path"].endswith("values-dev.yaml")
    assert "renders no object" in said["message"]
