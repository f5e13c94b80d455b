"""Helm charts are rendered with Helm's engine and linted; each finding is reported on the
template line that wrote it, with the value that filled it in; a chart that cannot be
rendered is one clear finding, and the rest is still linted."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft7Validator
from k8slb.interface.cli import cli
from k8slb.reading import charts

from .helpers import FIXTURES, SHARED

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "values.yaml": "replicaCount: 3\ngrpcPort: 50051\nservice:\n  type: ClusterIP\n",
    "templates/_helpers.tpl": '{{- define "shop.labels" -}}\napp: api\n{{- end }}\n',
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-api
  labels:
    {{- include "shop.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
        - name: api
          image: registry.example/api:1.0
          ports:
            - name: grpc
              containerPort: {{ .Values.grpcPort }}
          readinessProbe:
            grpc:
              port: {{ .Values.grpcPort }}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-api
  namespace: {{ .Release.Namespace }}
spec:
  type: {{ .Values.service.type }}
  selector:
    app: api
  ports:
    - name: grpc
      port: {{ .Values.grpcPort }}
      targetPort: grpc
""",
}


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return folder


def check(*args: str) -> tuple[int, dict[str, Any]]:
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", *args])
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return done.exit_code, report


def where(report: dict[str, Any], chart: Path) -> list[tuple[str, str, int, int]]:
    return [
        (f["rule"], str(Path(f["path"]).relative_to(chart)), f["line"], f["column"])
        for f in report["findings"]
    ]


def test_findings_are_on_the_template_lines_with_the_values_they_came_from(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    _, report = check(str(chart))
    assert where(report, chart) == [
        ("KLB401", "templates/deployment.yaml", 18, 17),  # `- name: api`
        ("KLB101", "templates/service.yaml", 7, 3),  # `type: {{ .Values.service.type }}`
    ]
    klb101 = report["findings"][1]
    assert (
        klb101["headline"]
        == "Service/default/shop-api carries gRPC (port name 'grpc') on a ClusterIP"
    )
    assert "Deployment/default/shop-api runs 3 replicas" in klb101["message"]
    assert klb101["related"][0] == {
        "path": str(chart / "values.yaml"),
        "line": 4,
        "message": "values.yaml:4 service.type",
    }
    assert report["summary"]["objects"] == 2 and report["summary"]["files"] == 1
    assert klb101["fix"]["available"] is False, "a template is not the rendered text"
    assert klb101["rendered"] == {"template": "shop/templates/service.yaml", "line": 7}
    schema = json.loads(resources.files("k8slb").joinpath("schemas/report.json").read_text())
    assert list(Draft7Validator(schema).iter_errors(report)) == []


def test_value_files_and_set_values_are_helm_s_own(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    write(chart, {"values-prod.yaml": "service:\n  type: NodePort\n"})
    _, report = check("--helm-values", str(chart / "values-prod.yaml"), str(chart))
    klb101 = next(f for f in report["findings"] if f["rule"] == "KLB101")
    assert "on a NodePort" in klb101["headline"]
    assert klb101["related"][0]["message"] == "values-prod.yaml:2 service.type"
    _, headless = check(
        "--helm-set", "service.type=ClusterIP", "--helm-set", "grpcPort=9000", str(chart)
    )
    assert "grpcPort=9000" and "port: 9000" not in json.dumps(headless)
    assert any(f["rule"] == "KLB101" for f in headless["findings"])
    _, renamed = check("--helm-release", "prod", "--helm-namespace", "shop", str(chart))
    assert any("Service/shop/prod-api" in f["headline"] for f in renamed["findings"])


@pytest.mark.parametrize(
    ("template", "line", "says"),
    [
        # a number: no stand-in string is tried for it (reading/chart_required.py)
        ('  a: {{ required "set replicas" .Values.replicas | int | quote }}\n', 6, "set replicas"),
        ('  a: {{ fail "this chart needs a database" }}\n', 6, "needs a database"),
        ("  a: {{ .Values.a | nope }}\n", 6, 'function "nope" not defined'),
    ],
    ids=["required", "fail", "parse-error"],
)
def test_a_template_error_is_one_finding_at_the_line_helm_names(
    tmp_path: Path, template: str, line: int, says: str
) -> None:
    write(
        tmp_path / "broken",
        {
            "Chart.yaml": "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
            "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n"
            + template,
        },
    )
    write(
        tmp_path,
        {
            "plain.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
            "spec: {sessionAffinity: ClientIP, selector: {a: b}}\n"
        },
    )
    _, report = check(str(tmp_path))
    rules = {(f["rule"], Path(f["path"]).name, f["line"]) for f in report["findings"]}
    assert ("KLB003", "cm.yaml", line) in rules
    assert ("KLB104", "plain.yaml", 4) in rules, "the other files are still linted"
    broken = next(f for f in report["findings"] if f["rule"] == "KLB003")
    assert broken["severity"] == "warning" and says in broken["message"]


def test_a_values_file_that_is_not_yaml_is_named_with_its_line(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    bad = write(tmp_path, {"bad-values.yaml": "replicaCount: [1\n"}) / "bad-values.yaml"
    _, report = check("--helm-values", str(bad), str(chart))
    (finding,) = report["findings"]
    assert finding["rule"] == "KLB003" and finding["path"] == str(bad) and finding["line"] == 1
    assert "values file" in finding["message"]


@pytest.mark.parametrize(
    ("files", "at", "says"),
    [
        ({"values.yaml": "a: 1\nb: [1\nc: 2\n"}, ("values.yaml", 2), "cannot load values.yaml"),
        (
            {"Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\nkeywords: [a\n"},
            ("Chart.yaml", 4),
            "cannot load Chart.yaml",
        ),
        (
            {"Chart.yaml": "apiVersion: v2\nversion: 0.1.0\nname: team/shop\n"},
            ("Chart.yaml", 3),
            'chart.metadata.name "team/shop" is invalid',
        ),
        (
            {
                "charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
                "charts/cache/values.yaml": "x: 1\ny: {\n",
            },
            ("charts/cache/values.yaml", 2),
            "error unpacking subchart cache",
        ),
    ],
    ids=["values", "chart", "name-a-path", "subchart-values"],
)
def test_a_chart_file_helm_cannot_load_is_named_at_helms_line_with_its_reason(
    tmp_path: Path, files: dict[str, str], at: tuple[str, int], says: str
) -> None:
    chart = write(tmp_path / "shop", {**CHART, **files})
    _, report = check(str(chart))
    (finding,) = report["findings"]
    assert finding["rule"] == "KLB003" and (Path(finding["path"]), finding["line"]) == (
        chart / at[0],
        at[1],
    )
    assert says in finding["message"]


def test_without_an_engine_each_chart_is_named_once_and_the_rest_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "_engine", lambda: None)
    chart = write(tmp_path / "shop", CHART)
    _, report = check("--no-cache", str(tmp_path))
    (finding,) = report["findings"]
    assert finding["rule"] == "KLB003" and finding["severity"] == "info"
    assert finding["path"] == str(chart / "Chart.yaml")
    assert "k8slb[helm]" in finding["message"]


def test_a_vendored_subchart_is_rendered_with_its_parent(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    write(
        chart / "charts" / "cache",
        {
            "Chart.yaml": "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
            "templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n"
            "  name: cache\nspec:\n  sessionAffinity: ClientIP\n  selector:\n    app: cache\n",
        },
    )
    _, report = check(str(chart))
    assert ("KLB104", "charts/cache/templates/service.yaml", 6, 20) in where(report, chart)


@pytest.mark.parametrize("nested", [False, True])
def test_a_subchart_in_a_folder_named_apart_from_its_chart_is_reported_in_its_folder(
    tmp_path: Path, nested: bool
) -> None:
    """Helm names a subchart's templates by its chart's name (`charts/session-cache/`);
    the tree has them in its folder (`charts/cache/`): findings are on the folder's file,
    also for a subchart of a subchart."""
    chart = write(tmp_path / "shop", CHART)
    sub = chart / "charts" / "cache"
    if nested:
        write(sub, {"Chart.yaml": "apiVersion: v2\nname: storage\nversion: 0.1.0\n"})
        sub = sub / "charts" / "redis"
    write(
        sub,
        {
            "Chart.yaml": "apiVersion: v2\nname: session-cache\nversion: 0.1.0\n",
            "templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n"
            "  name: cache\nspec:\n  sessionAffinity: ClientIP\n  selector:\n    app: cache\n",
        },
    )
    _, report = check(str(chart))
    shown = Path(os.path.relpath(sub, chart)).as_posix()
    assert ("KLB104", f"{shown}/templates/service.yaml", 6, 20) in where(report, chart)
    assert all(os.path.isfile(finding["path"]) for finding in report["findings"])


def test_a_warm_run_sees_an_edited_template(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    assert any(f["rule"] == "KLB401" for f in check(str(chart))[1]["findings"])
    deployment = chart / "templates" / "deployment.yaml"
    deployment.write_text(
        deployment.read_text()
        + "          lifecycle:\n            preStop:\n              sleep: {seconds: 5}\n"
    )
    assert not any(f["rule"] == "KLB401" for f in check(str(chart))[1]["findings"])


def _fix(*args: str) -> str:
    done = CliRunner().invoke(cli, ["fix", "--isolated", *args])
    assert done.exit_code in (0, 1), done.output
    return done.output


def test_a_fix_is_made_in_the_template_where_it_writes_literal_text(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    deployment = chart / "templates" / "deployment.yaml"
    before = deployment.read_text()
    output = _fix("--select", "KLB401", str(chart))
    assert "Fixed 1 finding (KLB401)" in output
    prestop = "lifecycle:\n  preStop:\n    sleep:\n      seconds: 5\n"
    assert deployment.read_text() == before + "".join(
        " " * 10 + line + "\n" for line in prestop.splitlines()
    )
    assert not [f for f in check(str(chart))[1]["findings"] if f["rule"] == "KLB401"]


def test_a_fix_is_refused_where_the_template_decides(tmp_path: Path) -> None:
    """Behind a `range`, an added line could land in the wrong place for other values;
    a twin Service would copy the release's names: both are left to a human, said so."""
    probe = "          readinessProbe:\n            grpc:\n"
    ranged = CHART["templates/deployment.yaml"].replace(
        probe + "              port: {{ .Values.grpcPort }}\n",
        "          env:\n            {{- range $k, $v := .Values.env }}\n"
        "            - name: {{ $k }}\n              value: {{ $v | quote }}\n"
        "            {{- end }}\n",
    )
    chart = write(tmp_path / "shop", {**CHART, "templates/deployment.yaml": ranged})
    write(chart, {"values.yaml": CHART["values.yaml"] + "env:\n  MODE: prod\n"})
    before = {p: p.read_bytes() for p in chart.rglob("*") if p.is_file()}
    output = _fix("--unsafe-fixes", str(chart))
    assert "Nothing to fix" in output
    assert {p: p.read_bytes() for p in chart.rglob("*") if p.is_file()} == before
    _, report = check(str(chart))
    assert all(not f["fix"]["available"] for f in report["findings"])
    manual = [
        f["rule"] for f in report["findings"] if "make that change in the template" in f["message"]
    ]
    assert manual == ["KLB401", "KLB101"], "a fix was there, for a human to make"


def test_a_template_fix_that_would_render_otherwise_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k8slb.editing import chart_fix

    real = chart_fix.plan_chart_edit

    def sabotaged(*args: Any, **kwargs: Any) -> Any:
        edit = real(*args, **kwargs)
        return edit and replace(edit, new=edit.new.replace("seconds: 5", "seconds: 7"))

    monkeypatch.setattr(chart_fix, "plan_chart_edit", sabotaged)
    chart = write(tmp_path / "shop", CHART)
    before = {p: p.read_bytes() for p in chart.rglob("*") if p.is_file()}
    output = _fix("--select", "KLB401", str(chart))
    assert "it would not render to the fix" in output
    assert {p: p.read_bytes() for p in chart.rglob("*") if p.is_file()} == before


def test_a_chart_without_templates_is_quietly_nothing(tmp_path: Path) -> None:
    chart = write(
        tmp_path / "empty", {"Chart.yaml": "apiVersion: v2\nname: empty\nversion: 0.1.0\n"}
    )
    code, report = check(str(chart))
    assert code == 0 and report["findings"] == []


PODINFO = SHARED / "corpus" / "charts" / "podinfo"


@pytest.mark.skipif(not PODINFO.is_dir(), reason="../shared/corpus is absent")
def test_podinfo_grpc_port_with_its_hpa_and_the_missing_prestop_on_their_template_lines() -> None:
    _, report = check("--helm-set", "hpa.enabled=true", str(PODINFO))
    assert where(report, PODINFO) == [
        ("KLB401", "templates/deployment.yaml", 38, 9),  # `- name: {{ .Chart.Name }}`
        ("KLB101", "templates/service.yaml", 17, 3),  # `type: {{ .Values.service.type }}`
    ]
    klb101 = report["findings"][1]
    assert "HorizontalPodAutoscaler/podinfo scales Deployment/default/podinfo" in klb101["message"]
    assert klb101["related"][0]["message"] == "values.yaml:36 service.type"
    evidence = [r for r in klb101["related"] if r["message"].startswith("gRPC evidence")]
    assert evidence and evidence[0]["line"] == 36, "the grpc port's `name: grpc` line"


def test_the_demo_chart_is_linted_on_its_template_lines() -> None:
    chart = FIXTURES / "helm" / "payments"
    _, report = check(str(chart))
    assert where(report, chart) == [
        ("KLB401", "templates/deployment.yaml", 18, 17),
        ("KLB101", "templates/service.yaml", 6, 3),
    ]
    assert report["findings"][1]["related"][0]["message"] == "values.yaml:5 service.type"


# The Service's headless twin, rendered only when `twin` is set.
TWIN = (
    "{{- if .Values.twin }}\n"
    + CHART["templates/service.yaml"]
    .replace("-api\n", "-api-headless\n")
    .replace("type: {{ .Values.service.type }}", "clusterIP: None")
    + "{{- end }}\n"
)


def test_each_configured_value_set_is_linted_on_its_own_and_named(tmp_path: Path) -> None:
    chart = write(tmp_path / "deploy" / "shop", {**CHART, "templates/twin.yaml": TWIN})
    write(chart, {"values-prod.yaml": "twin: true\nreplicaCount: 6\n"})
    config = tmp_path / ".k8slb.yaml"
    config.write_text(
        "helm:\n  namespace: shop\n  charts:\n"
        '    deploy/shop: [["values.yaml"], ["values.yaml", "values-prod.yaml"]]\n'
    )
    done = CliRunner().invoke(
        cli, ["check", "--config", str(config), "--format", "json", str(chart)]
    )
    report = json.loads(done.stdout)
    klb101 = [f for f in report["findings"] if f["rule"] == "KLB101"]
    labels = [re.search(r"rendered with ([^;]+)", f["message"]) for f in klb101]
    assert [(f["severity"], m and m.group(1)) for f, m in zip(klb101, labels, strict=True)] == [
        ("warning", "values.yaml"),
        ("info", "values.yaml + values-prod.yaml"),
    ], "the twin of the prod values does not lower the default values' finding"
    assert all(f["path"] == str(chart / "templates" / "service.yaml") for f in klb101)
    assert "Service/shop/shop-api" in klb101[0]["headline"], "the configured namespace"
    assert "runs 6 replicas" not in klb101[0]["message"]


def test_sarif_carries_a_template_fix_as_a_replacement_in_the_template(tmp_path: Path) -> None:
    chart = write(tmp_path / "shop", CHART)
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "sarif", str(chart)])
    results = json.loads(done.stdout)["runs"][0]["results"]
    prestop = next(r for r in results if r["ruleId"] == "KLB401")
    (change,) = prestop["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"].endswith("shop/templates/deployment.yaml")
    (replacement,) = change["replacements"]
    assert replacement["deletedRegion"]["startLine"] == 26  # after the last of its 25 lines
    assert "preStop" in replacement["insertedContent"]["text"]
    assert "fixes" not in next(r for r in results if r["ruleId"] == "KLB101"), "a twin: by hand"


def test_subcharts_that_are_not_vendored_are_named_once_and_the_rest_linted(
    tmp_path: Path,
) -> None:
    declared = CHART["Chart.yaml"] + (
        "dependencies:\n  - name: redis\n    version: 1.0.0\n    repository: https://x.invalid\n"
        "  - name: cache\n    version: 0.1.0\n    repository: https://x.invalid\n"
    )
    chart = write(tmp_path / "shop", {**CHART, "Chart.yaml": declared})
    write(
        chart / "charts" / "cache",
        {"Chart.yaml": "apiVersion: v2\nname: cache\nversion: 0.1.0\n"},
    )
    _, report = check(str(chart))
    missing = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert [(f["severity"], f["line"], f["headline"]) for f in missing] == [
        ("info", 4, f"chart {chart} is rendered without its subchart redis")
    ]
    assert {f["rule"] for f in report["findings"]} >= {"KLB101", "KLB401"}


def test_a_missing_subchart_its_condition_turns_off_is_no_finding(tmp_path: Path) -> None:
    """Helm renders no subchart whose condition is false, vendored or not."""
    declared = CHART["Chart.yaml"] + (
        "dependencies:\n  - name: redis\n    version: 1.0.0\n    repository: https://x.invalid\n"
        "    condition: redis.enabled,cache.enabled\n"
    )
    values = CHART["values.yaml"] + "redis:\n  enabled: false\ncache:\n  enabled: true\n"
    chart = write(tmp_path / "shop", {**CHART, "Chart.yaml": declared, "values.yaml": values})
    _, report = check(str(chart))
    assert "KLB003" not in {f["rule"] for f in report["findings"]}
    _, turned_on = check("--helm-set", "redis.enabled=true", str(chart))
    assert [f["headline"] for f in turned_on["findings"] if f["rule"] == "KLB003"] == [
        f"chart {chart} is rendered without its subchart redis"
    ]


def test_helms_reason_at_the_end_of_an_include_chain_is_in_the_message(tmp_path: Path) -> None:
    """Helm 4 names each template of an include chain on its own line, the reason last; a
    subchart the chart declares and lacks is named as the likely cause (the Deployment is
    left out, the rest of the chart linted)."""
    declared = CHART["Chart.yaml"] + (
        "dependencies:\n  - name: common\n    version: 1.0.0\n    repository: https://x.invalid\n"
    )
    helpers = '{{- define "shop.secrets" -}}{{ include "common.secrets" . }}{{- end -}}\n'
    deployment = '{{ include "shop.secrets" . }}\n' + CHART["templates/deployment.yaml"]
    chart = write(
        tmp_path / "shop",
        {
            **CHART,
            "Chart.yaml": declared,
            "templates/_helpers.tpl": helpers,
            "templates/deployment.yaml": deployment,
        },
    )
    _, report = check(str(chart))
    (failed,) = [f for f in report["findings"] if "cannot render" in f["headline"]]
    assert 'no template "common.secrets"' in failed["headline"]
    assert "templates/deployment.yaml of chart" in failed["headline"]
    assert "without its subchart common:" in failed["headline"]
    assert "`helm dependency build`" in failed["message"]


def test_a_finding_on_a_line_a_helper_wrote_is_on_the_helpers_line(tmp_path: Path) -> None:
    """The container comes from `include "shop.container"`: the finding is on the line of
    _helpers.tpl that writes it, not on the Deployment's `kind:` line, and its fix is left
    to a human (other templates may include the helper too)."""
    deployment = CHART["templates/deployment.yaml"]
    start = deployment.index("        - name: api\n")
    end = deployment.index("          readinessProbe:")
    container = "".join(line[8:] + "\n" for line in deployment[start:end].splitlines())
    helpers = (
        CHART["templates/_helpers.tpl"]
        + '{{- define "shop.env" -}}\n- {name: MODE, value: prod}\n{{- end }}\n'
        + '{{- define "shop.container" -}}\n'
        + container
        + "{{- end }}\n"
    )
    included = (
        deployment[:start]
        + '        {{- include "shop.container" . | nindent 8 }}\n'
        + deployment[end:]
    )
    chart = write(
        tmp_path / "shop",
        {**CHART, "templates/_helpers.tpl": helpers, "templates/deployment.yaml": included},
    )
    _, report = check("--select", "KLB401", str(chart))
    (finding,) = report["findings"]
    assert (finding["path"], finding["line"]) == (str(chart / "templates" / "_helpers.tpl"), 8)
    assert "fix" not in finding or not finding["fix"]["available"]
    assert "make that change in the helper" in finding["message"]


def test_two_fixes_in_one_template_are_made_one_pass_after_the_other(tmp_path: Path) -> None:
    sidecar = (
        "        - name: proxy\n          image: registry.example/proxy:1.0\n"
        "          ports:\n            - name: admin\n              containerPort: 9901\n"
    )
    deployment = CHART["templates/deployment.yaml"].replace(
        "        - name: api\n", sidecar + "        - name: api\n"
    )
    service = CHART["templates/service.yaml"] + "    - name: admin\n      port: 9901\n"
    chart = write(
        tmp_path / "shop",
        {**CHART, "templates/deployment.yaml": deployment, "templates/service.yaml": service},
    )
    output = _fix("--select", "KLB401", str(chart))
    assert "Fixed 2 findings (KLB401 ×2)" in output, output
    assert (chart / "templates" / "deployment.yaml").read_text().count("preStop:") == 2


def test_a_value_the_fix_changes_is_changed_in_values_yaml(tmp_path: Path) -> None:
    prestop = "          lifecycle:\n            preStop:\n              sleep: {seconds: 5}\n"
    deployment = (
        CHART["templates/deployment.yaml"].replace(
            "    spec:\n      containers:\n",
            "    spec:\n      terminationGracePeriodSeconds: {{ .Values.grace }}\n"
            "      containers:\n",
        )
        + prestop
    )
    values = CHART["values.yaml"] + "grace: 5  # seconds\n"
    chart = write(
        tmp_path / "shop",
        {**CHART, "templates/deployment.yaml": deployment, "values.yaml": values},
    )
    _, report = check("--select", "KLB402", str(chart))
    (finding,) = report["findings"]
    assert finding["related"][0]["message"] == "values.yaml:5 grace"
    assert finding["fix"]["available"] is True
    output = _fix("--select", "KLB402", str(chart))
    assert "Fixed 1 finding (KLB402)" in output, output
    assert (chart / "values.yaml").read_text() == CHART["values.yaml"] + "grace: 30  # seconds\n"
    assert (chart / "templates" / "deployment.yaml").read_text() == deployment


def test_a_chart_is_rendered_again_only_when_one_of_its_files_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "renders"  # rendering happens in a child: it counts in a file
    real = charts.render_sets

    def counted(chart: str, *args: Any) -> Any:
        with calls.open("a") as out:
            out.write(chart + "\n")
        return real(chart, *args)

    monkeypatch.setattr(charts, "render_sets", counted)
    write(tmp_path / "shop", CHART)
    plain = write(
        tmp_path, {"plain.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"}
    )
    check(str(tmp_path / "shop"), str(plain / "plain.yaml"))
    (plain / "plain.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n")
    check(str(tmp_path / "shop"), str(plain / "plain.yaml"))
    assert len(calls.read_text().splitlines()) == 1, "the other file changed, not the chart"
    values = tmp_path / "shop" / "values.yaml"
    values.write_text(values.read_text() + "extra: 1\n")
    check(str(tmp_path / "shop"), str(plain / "plain.yaml"))
    assert len(calls.read_text().splitlines()) == 2


def test_an_unknown_chart_api_version_and_a_packaged_chart_are_clear_findings(
    tmp_path: Path,
) -> None:
    chart = write(
        tmp_path / "odd", {**CHART, "Chart.yaml": "apiVersion: v9\nname: odd\nversion: 1\n"}
    )
    _, report = check(str(chart))
    (finding,) = report["findings"]
    assert (finding["rule"], finding["line"], finding["severity"]) == ("KLB003", 1, "warning")
    assert "apiVersion v9 is none Helm knows" in finding["message"]
    package = tmp_path / "shop-0.1.0.tgz"
    package.write_bytes(b"\x1f\x8b\x08\x00" + bytes(20))
    _, report = check(str(package))
    assert report["findings"][0]["headline"].startswith("a gzip archive (a packaged Helm chart?)")


def test_without_the_library_a_helm_binary_renders_the_chart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`helm template` prints one stream; its `# Source:` comments say which template
    wrote each document (a stand-in binary prints what Helm would)."""
    chart = write(tmp_path / "shop", CHART)
    fake = tmp_path / "bin" / "helm"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\ncat <<'EOF'\n---\n# Source: shop/templates/service.yaml\n"
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: shop-api\n  namespace: default\n"
        "spec:\n  type: ClusterIP\n  selector:\n    app: api\n  sessionAffinity: ClientIP\n"
        "  ports:\n    - name: grpc\n      port: 50051\n      targetPort: grpc\nEOF\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    monkeypatch.setattr(charts, "_engine", lambda: "binary")
    _, report = check("--no-cache", str(chart))
    assert where(report, chart) == [
        ("KLB104", "templates/service.yaml", 2, 1),  # a key no template line writes: `kind:`
        ("KLB101", "templates/service.yaml", 7, 3),
    ]


def test_a_template_named_on_the_command_line_lints_its_chart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a pre-commit hook passes: the changed files, here a chart's template, with the
    repository in view."""
    chart = write(tmp_path / "deploy" / "shop", CHART)
    write(
        chart / "charts" / "cache",
        {
            "Chart.yaml": "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
            "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        },
    )
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    for named in (
        "deploy/shop/templates/service.yaml",
        "deploy/shop/charts/cache/templates/cm.yaml",
    ):
        _, report = check("--context", ".", named)
        assert {(f["rule"], f["path"]) for f in report["findings"]} == {
            ("KLB401", "deploy/shop/templates/deployment.yaml"),
            ("KLB101", "deploy/shop/templates/service.yaml"),
        }, named


def test_a_chart_whose_name_climbs_out_of_its_folder_stays_in_it(tmp_path: Path) -> None:
    outside = write(tmp_path / "etc", {"templates/service.yaml": "secret: 1\n"})
    chart = write(
        tmp_path / "charts" / "evil",
        {**CHART, "Chart.yaml": "apiVersion: v2\nname: ../../etc\nversion: 0.1.0\n"},
    )
    _, report = check(str(chart))
    assert report["findings"], "reported (Helm refuses the name)"
    assert all(Path(f["path"]).is_relative_to(chart) for f in report["findings"])
    assert (outside / "templates" / "service.yaml").read_text() == "secret: 1\n"


def test_a_context_run_on_a_template_keeps_the_findings_its_helpers_wrote(
    tmp_path: Path,
) -> None:
    """A pre-commit run that names a chart's template reports what a helper of that chart
    wrote, though the helper renders to no file of its own."""
    helpers = CHART["templates/_helpers.tpl"] + (
        '{{- define "shop.container" -}}\n- name: api\n  image: registry.example/api:1.0\n'
        "  ports: [{name: grpc, containerPort: 50051}]\n{{- end }}\n"
    )
    deployment = CHART["templates/deployment.yaml"]
    start = deployment.index("        - name: api\n")
    included = deployment[:start] + '        {{- include "shop.container" . | nindent 8 }}\n'
    chart = write(
        tmp_path / "repo" / "shop",
        {**CHART, "templates/_helpers.tpl": helpers, "templates/deployment.yaml": included},
    )
    write(
        tmp_path / "repo", {"other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"}
    )
    template = str(chart / "templates" / "deployment.yaml")
    _, report = check("--select", "KLB401", "--context", str(tmp_path / "repo"), template)
    assert [f["path"] for f in report["findings"]] == [str(chart / "templates" / "_helpers.tpl")]


def test_a_helm_set_of_its_own_process_renders_the_chart(tmp_path: Path) -> None:
    """Checking --helm-set must not load Helm's library (a Go runtime) in k8slb's own
    process: the renders fork from it, and a forked Go runtime hangs (each chart then
    stopped at the 30 s limit as KLB003). A process of its own, as a user runs it."""
    import subprocess
    import sys

    chart = write(tmp_path / "shop", CHART)
    options = [
        "--isolated",
        "--no-cache",
        "--format",
        "json",
        "--helm-set",
        "service.type=ClusterIP",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", "check", *options, str(chart)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "K8SLB_NO_SERVER": "1"},
        check=False,
    )
    rules = [f["rule"] for f in json.loads(done.stdout)["findings"]]
    assert "KLB003" not in rules and "KLB101" in rules, done.stdout


def test_checking_helm_set_loads_no_helm_library_in_k8slbs_process() -> None:
    """The cause of the hang above, which only some charts show: the parent must never
    hold Helm's Go runtime (render_process forks the renders from it)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from k8slb.reading.charts import set_value_problem\n"
        "assert set_value_problem('a=1,b.c=x') is None and set_value_problem('a')\n"
        "print('helm_python' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_where_a_chart_sets_a_value_the_code_dials_is_the_template_line(tmp_path: Path) -> None:
    """KLB111 names the env entry that sets the wrong port: in a chart, the template's line
    (the rendered text is shorter: the template's first lines render to nothing)."""
    frontend = """\
{{- /* the frontend */ -}}
{{- $name := "frontend" }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  namespace: shop
spec:
  selector:
    matchLabels: {app: frontend}
  template:
    metadata:
      labels: {app: frontend}
    spec:
      containers:
        - name: web
          image: frontend:1
          env:
            - name: INVENTORY_ADDR
              value: "inventory.shop.svc.cluster.local:{{ .Values.port }}"
"""
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: inventory, namespace: shop}\n"
        "spec:\n  selector: {app: inventory}\n  ports: [{name: tcp, port: 7070}]\n"
    )
    files = {
        "chart/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.0.0\n",
        "chart/values.yaml": "port: 7000\n",
        "chart/templates/frontend.yaml": frontend,
        "chart/templates/inventory.yaml": service,
        "client.py": "import os\n\nimport grpc\n\n"
        "channel = grpc.insecure_channel(os.environ['INVENTORY_ADDR'])\n",
    }
    write(tmp_path, files)
    _, report = check("--select", "KLB111", str(tmp_path))
    (finding,) = report["findings"]
    assert (
        "(INVENTORY_ADDR as Deployment/shop/frontend sets it at frontend.yaml:20)"
        in (finding["message"])
    )
    assert finding["related"][0]["line"] == 20  # `value: "inventory...` in the template


def _chart(folder: Path, template: str) -> Path:
    return write(
        folder,
        {
            "Chart.yaml": f"apiVersion: v2\nname: {folder.name}\nversion: 0.1.0\n",
            "templates/x.yaml": template,
        },
    )


PLAIN_TEMPLATE = (
    "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
    "spec: {sessionAffinity: ClientIP, selector: {a: b}}\n"
)
ENDLESS = "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n"


def test_a_chart_that_fills_the_memory_is_stopped_at_the_limit_and_k8slb_stays_small(
    tmp_path: Path,
) -> None:
    """A few bytes of template ask Helm for gigabytes: the renderer's data may grow only by
    K8SLB_HELM_MEMORY MiB, and what a chart renders is read up to 32 MiB; k8slb's own
    process stays under 300 MB, and the other charts are linted. (The run's own data is
    capped at 2 GiB, so that a renderer without its limit dies rather than fill the
    machine; a generous timeout guards against a hang.)"""
    import resource
    import subprocess
    import sys

    _chart(tmp_path / "a-plain", PLAIN_TEMPLATE)
    _chart(tmp_path / "b-grows", '{{ range until 2000000000 }}{{ printf "%0100d" 1 }}{{ end }}\n')
    _chart(tmp_path / "c-repeats", 'a: {{ repeat 100000000 "x" }}\n')
    code = (
        "import resource, sys\n"
        "from click.testing import CliRunner\n"
        "from k8slb.interface.cli import cli\n"
        "done = CliRunner().invoke(cli, ['check', '--isolated', '--no-cache', sys.argv[1]])\n"
        "print(done.output)\n"
        "print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )

    def cap_data() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (2 << 30, 2 << 30))

    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "K8SLB_HELM_MEMORY": "256", "K8SLB_NO_SERVER": "1"},
        preexec_fn=cap_data,
        check=False,
    )
    out = done.stdout
    assert "a-plain/templates/x.yaml:4:" in out and "KLB104" in out, out + done.stderr
    assert (
        "b-grows/Chart.yaml:1:1: KLB003 [warning] Helm chart "
        f"{tmp_path / 'b-grows'} is not rendered, so not linted: "
        "rendering needs more than 256 MiB of memory: stopped"
    ) in out
    assert "K8SLB_HELM_MEMORY (MiB) raises the limit" in out
    # which limit stops it first depends on the machine's load (its memory, its output, or
    # the render's time when two test workers share the cores): any limit, said at its chart
    stopped = (
        r"256 MiB of memory|32 MiB of manif|used over \d+ s of CPU|for rendering charts ran out"
    )
    assert re.search(rf"c-repeats/Chart.yaml:1:1: KLB003 .*({stopped})", out), out
    assert "goroutine" not in out + done.stderr, "Go's dying words are kept from the user"
    peak_kib = int(out.rsplit("peak ", 1)[1])
    assert peak_kib < 300 * 1024


def test_the_charts_of_a_run_share_one_rendering_budget_and_each_past_it_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty charts that each render for ever would hold a run for twenty time limits: the
    run has one budget for all its charts; the chart it runs out on is stopped, each
    chart after it is reported as not rendered, none left out silently."""
    from k8slb.reading import render_process

    monkeypatch.setattr(render_process, "TIMEOUT", 4.0)
    monkeypatch.setattr(render_process, "WALL_FACTOR", 20.0)  # the clock's guard: out of reach
    monkeypatch.setenv("K8SLB_HELM_BUDGET", "6")
    _chart(tmp_path / "a-plain", PLAIN_TEMPLATE)
    for name in ("b", "c", "d", "e"):
        _chart(tmp_path / f"{name}-endless", ENDLESS)
    _, report = check("--no-cache", str(tmp_path))
    said = {
        Path(f["path"]).parent.name: f["headline"].partition("not linted: ")[2]
        for f in report["findings"]
        if f["rule"] == "KLB003"
    }
    stopped, ran_out, spent = (
        "rendering used over 4 s of CPU: stopped",
        "stopped: the run's 6 s of CPU for rendering charts ran out",
        "not rendered: the run's 6 s of CPU for rendering charts were spent on the charts "
        "before it",
    )
    assert sorted(said) == ["b-endless", "c-endless", "d-endless", "e-endless"]
    assert said["b-endless"] in (stopped, ran_out) and said["c-endless"] in (ran_out, spent)
    assert said["d-endless"] == said["e-endless"] == spent, "6 s hold at most two of them"
    assert ("KLB104", "a-plain/templates/x.yaml", 4, 25) in where(report, tmp_path)
    budget_hint = [f["message"] for f in report["findings"] if "ran out" in f["message"]]
    assert "K8SLB_HELM_BUDGET (seconds) gives a run more time" in budget_hint[0]


def test_a_chart_the_budget_left_unrendered_is_rendered_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Being out of time is the run's, not the chart's: it is not kept in the cache."""
    chart = _chart(tmp_path / "plain", PLAIN_TEMPLATE)
    monkeypatch.setenv("K8SLB_HELM_BUDGET", "0.001")
    _, starved = check(str(chart))
    assert [f["rule"] for f in starved["findings"]] == ["KLB003"]
    monkeypatch.delenv("K8SLB_HELM_BUDGET")
    _, fed = check(str(chart))
    assert [f["rule"] for f in fed["findings"]] == ["KLB104"]


def _schema(properties: str) -> str:
    return (
        '{\n  "$schema": "https://json-schema.org/draft-07/schema#",\n'
        '  "definitions": {"count": {"type": "integer"}},\n'
        f'  "type": "object",\n  "properties": {properties}\n}}\n'
    )


@pytest.mark.parametrize(
    "target",
    [
        "https://kubernetesjsonschema.dev/v1.18.0/_definitions.json#/definitions/x",
        "file:///etc/passwd",
        "common.schema.json#/definitions/x",
    ],
    ids=["url", "file", "relative"],
)
def test_a_values_schema_that_refers_outside_itself_is_named_at_its_reference(
    tmp_path: Path, target: str
) -> None:
    """Helm's validator would fetch it (from the network, or the machine's files): k8slb
    fetches nothing, says so at the `$ref`, and `--helm-skip-schema-validation` renders
    the chart without its schema."""
    schema = _schema('{\n    "service": {"$ref": "' + target + '"}\n  }')
    chart = write(tmp_path / "shop", {**CHART, "values.schema.json": schema})
    _, report = check(str(chart))
    (finding,) = report["findings"]
    assert (finding["rule"], finding["path"], finding["line"]) == (
        "KLB003",
        str(chart / "values.schema.json"),
        6,
    )
    assert f"refers to {target}, which Helm would fetch" in finding["message"]
    assert "--helm-skip-schema-validation renders it" in finding["message"]
    _, skipped = check("--helm-skip-schema-validation", str(chart))
    assert [f["rule"] for f in skipped["findings"]] == ["KLB401", "KLB101"]


@pytest.mark.parametrize(
    "metaschema",
    ["https://json-schema.org/draft-07/schema#", "http://json-schema.org/schema#"],
    ids=["draft-07", "latest-by-its-old-name"],
)
def test_a_values_schema_of_its_own_is_helms_to_check(tmp_path: Path, metaschema: str) -> None:
    """References inside the schema, a `urn:` (Helm loads nothing for it) and the standard
    metaschemas are no reason to stop: Helm validates the values, and says which one breaks
    the schema."""
    schema = _schema(
        '{"replicaCount": {"$ref": "#/definitions/count"}, "x": {"$ref": "urn:example:x"}}'
    ).replace("https://json-schema.org/draft-07/schema#", metaschema)
    assert metaschema in schema
    chart = write(tmp_path / "shop", {**CHART, "values.schema.json": schema})
    _, report = check(str(chart))
    assert [f["rule"] for f in report["findings"]] == ["KLB401", "KLB101"]
    _, broken = check("--helm-set", "replicaCount=three", str(chart))
    (finding,) = broken["findings"]
    assert "at '/replicaCount': got string, want integer" in finding["headline"]


def _package(files: dict[str, str]) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_packaged_subcharts_schema_that_refers_outside_is_named_inside_its_archive(
    tmp_path: Path,
) -> None:
    chart = write(tmp_path / "shop", CHART)
    (chart / "charts").mkdir()
    (chart / "charts" / "cache-1.2.3.tgz").write_bytes(
        _package(
            {
                "cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.2.3\n",
                "cache/values.schema.json": _schema('{"a": {"$ref": "https://x.invalid/s"}}'),
            }
        )
    )
    _, report = check(str(chart))
    (finding,) = report["findings"]
    assert (finding["path"], finding["line"]) == (str(chart / "charts" / "cache-1.2.3.tgz"), 1)
    assert "(cache/values.schema.json, line 5, inside the archive)" in finding["message"]
    _, skipped = check("--helm-skip-schema-validation", str(chart))
    assert [f["rule"] for f in skipped["findings"]] == ["KLB401", "KLB101"]


def test_a_finding_in_a_packaged_subchart_is_on_its_archive_naming_the_template_inside(
    tmp_path: Path,
) -> None:
    """`charts/cache-1.2.3.tgz` is rendered with its parent, but its templates are no
    files a person can open: the finding is on the archive, and says which template
    inside it, at which line."""
    chart = write(tmp_path / "shop", CHART)
    (chart / "charts").mkdir()
    (chart / "charts" / "cache-1.2.3.tgz").write_bytes(
        _package(
            {
                "cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.2.3\n",
                "cache/templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n"
                "  name: cache\nspec:\n  sessionAffinity: ClientIP\n  selector:\n    app: cache\n",
            }
        )
    )
    _, report = check(str(chart))
    (finding,) = [f for f in report["findings"] if f["rule"] == "KLB104"]
    assert (finding["path"], finding["line"]) == (str(chart / "charts" / "cache-1.2.3.tgz"), 1)
    assert (
        "written by cache/templates/svc.yaml, line 6, inside the archive cache-1.2.3.tgz"
        in finding["message"]
    )
    assert all(Path(f["path"]).exists() for f in report["findings"])


COMMON = {
    "Chart.yaml": "apiVersion: v2\nname: common\nversion: 0.1.0\n",
    "templates/_labels.tpl": '{{- define "common.labels" -}}\napp: api\n{{- end }}\n',
}


def _linked(tmp_path: Path, repository: str) -> Path:
    """The shop chart, its labels from a library chart in a folder of its own."""
    declared = CHART["Chart.yaml"] + (
        f"dependencies:\n  - name: common\n    version: 0.1.0\n    repository: {repository}\n"
    )
    deployment = CHART["templates/deployment.yaml"].replace("shop.labels", "common.labels")
    return write(
        tmp_path / "repo" / "shop",
        {**CHART, "Chart.yaml": declared, "templates/deployment.yaml": deployment},
    )


def test_a_dependency_in_a_sibling_folder_is_rendered_as_helm_dependency_build_would(
    tmp_path: Path,
) -> None:
    """`repository: file://../common`: Helm uses that folder once `helm dependency build`
    has vendored it; k8slb uses it as it is, and a finding on its templates is on its
    own files, edited there (a warm run sees the edit)."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    common = write(tmp_path / "repo" / "common", COMMON)
    write(
        common,
        {"templates/svc.yaml": PLAIN_TEMPLATE.replace("name: s", "name: cache")},
    )
    chart = _linked(tmp_path, "file://../common")
    _, report = check(str(chart))
    assert where(report, tmp_path / "repo") == [
        ("KLB104", "common/templates/svc.yaml", 4, 25),
        ("KLB401", "shop/templates/deployment.yaml", 18, 17),
        ("KLB101", "shop/templates/service.yaml", 7, 3),
    ]
    (common / "templates" / "svc.yaml").write_text(PLAIN_TEMPLATE.replace("ClientIP", "None"))
    _, edited = check(str(chart))
    assert [f["rule"] for f in edited["findings"]] == ["KLB401", "KLB101"]
    write(common, {"templates/broken.yaml": '{{ fail "common is broken" }}\n'})
    _, broken = check(str(chart))
    assert where(broken, tmp_path / "repo") == [
        ("KLB003", "common/templates/broken.yaml", 1, 3),  # left out, the rest rendered
        ("KLB401", "shop/templates/deployment.yaml", 18, 17),
        ("KLB101", "shop/templates/service.yaml", 7, 3),
    ]


def test_a_dependency_on_a_folder_of_its_charts_is_one_subchart_rendered_the_same_each_run(
    tmp_path: Path,
) -> None:
    """`repository: file://charts/db-chart` names a folder Helm already loads as a subchart
    (its name `db`, not the folder's): no copy is added besides it, which made two subcharts
    named `db`, the one Helm rendered changing from run to run, and with it whether the
    template Helm fails on could be left out (an umbrella chart of round 27)."""
    from k8slb.reading.charts import linked_dependencies

    (tmp_path / "repo" / ".git").mkdir(parents=True)
    declared = (
        "apiVersion: v2\nname: umbrella\nversion: 0.1.0\ndependencies:\n"
        "  - name: db\n    version: 0.1.0\n    repository: file://charts/db-chart\n"
    )
    chart = write(
        tmp_path / "repo" / "umbrella",
        {
            "Chart.yaml": declared,
            "templates/service.yaml": PLAIN_TEMPLATE,
            "charts/db-chart/Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
            "charts/db-chart/templates/secret.yaml": '{{ fail "db is broken" }}\n',
            "charts/db-chart/templates/svc.yaml": PLAIN_TEMPLATE.replace("name: s", "name: db"),
        },
    )
    assert linked_dependencies(str(chart)) == {}
    expected = [
        ("KLB003", "umbrella/charts/db-chart/templates/secret.yaml", 1, 3),
        ("KLB104", "umbrella/charts/db-chart/templates/svc.yaml", 4, 25),
        ("KLB104", "umbrella/templates/service.yaml", 4, 25),
    ]
    for _ in range(3):
        _, report = check("--no-cache", str(chart))
        assert sorted(where(report, tmp_path / "repo")) == expected


def test_a_dependency_folder_outside_the_repository_is_not_read_and_said(
    tmp_path: Path,
) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    write(tmp_path / "common", COMMON)  # beside the repository, not in it
    chart = _linked(tmp_path, "file://../../common")
    _, report = check(str(chart))
    # missing, as a subchart not vendored: the template that needs it is left out
    (missing, failed) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert missing["headline"] == f"chart {chart} is rendered without its subchart common"
    assert 'no template "common.labels"' in failed["headline"]
    assert "templates/deployment.yaml of chart" in failed["headline"]
    assert "vendored in its charts/ folder (`helm dependency build`)" in failed["message"]
    assert "KLB101" in {f["rule"] for f in report["findings"]}, "the rest is linted"


def test_a_template_line_that_renders_twice_says_its_finding_once(tmp_path: Path) -> None:
    """A `range` writes the same object, and so the same finding, on each pass."""
    ranged = "{{- range list 1 2 }}\n---\n" + PLAIN_TEMPLATE + "{{- end }}\n"
    chart = _chart(tmp_path / "twice", ranged)
    _, report = check(str(chart))
    assert where(report, chart) == [("KLB104", "templates/x.yaml", 6, 25)]


def test_a_fix_in_a_dependency_folder_is_left_to_a_human_and_nothing_is_written_for_it(
    tmp_path: Path,
) -> None:
    """k8slb writes fixes into the chart's own files; the dependency's folder is another
    chart's, and `charts/common/` must never appear in the parent."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    worker = CHART["templates/deployment.yaml"].replace("{{ .Release.Name }}-api", "worker")
    common = write(
        tmp_path / "repo" / "common",
        {**COMMON, "templates/worker.yaml": worker, "values.yaml": CHART["values.yaml"]},
    )
    chart = _linked(tmp_path, "file://../common")
    before = (common / "templates" / "worker.yaml").read_text()
    _fix("--select", "KLB401", str(chart))
    assert not (chart / "charts").exists()
    assert (common / "templates" / "worker.yaml").read_text() == before
    _, report = check("--select", "KLB401", str(chart))
    linked = next(f for f in report["findings"] if "common" in f["path"])
    assert linked["fix"]["available"] is False
    assert f"make that change in {common / 'templates' / 'worker.yaml'}" in linked["message"]


def test_a_chart_that_ships_only_a_template_of_its_values_says_so_not_klb001(
    tmp_path: Path,
) -> None:
    """Without a values.yaml the templates get no values, and `[{{ .Values.a }}, …]` is
    no YAML: the cause is the missing values, said once at the file the chart ships in
    their place, not a KLB001 on a template line that is right."""
    configmap = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n"
        "  args: [{{ .Values.first }}, {{ .Values.second }}]\n"
    )
    chart = write(
        tmp_path / "cfg",
        {
            "Chart.yaml": "apiVersion: v2\nname: cfg\nversion: 0.1.0\n",
            "values.yaml.tpl": "first: {{ .Env.FIRST }}\nsecond: b\n",
            "templates/cm.yaml": configmap,
        },
    )
    _, report = check(str(chart))
    (finding,) = report["findings"]
    assert (finding["rule"], finding["path"], finding["line"]) == (
        "KLB003",
        str(chart / "values.yaml.tpl"),
        1,
    )
    assert (
        "it has no values.yaml, only values.yaml.tpl (a template of its values)"
        in (finding["headline"])
    )
    assert "cfg/templates/cm.yaml, rendered line 6" in finding["message"]
    filled = write(tmp_path, {"filled.yaml": "first: a\nsecond: b\n"}) / "filled.yaml"
    _, given = check("--helm-values", str(filled), str(chart))
    assert given["findings"] == []
    write(chart, {"values.yaml": "first: ''\n"})  # values of its own: the template's fault
    _, own = check(str(chart))
    assert where(own, chart) == [("KLB001", "templates/cm.yaml", 6, 3)]


def test_plain_manifests_inside_a_chart_are_linted_as_they_are(tmp_path: Path) -> None:
    """Helm renders templates/ only; a `rendered/` folder of manifests in the chart is
    linted where it is, never skipped. Files the templates read (with
    template text) and the values of `ci/` are no manifests."""
    chart = write(
        tmp_path / "shop",
        {
            **CHART,
            "rendered/service.yaml": PLAIN_TEMPLATE,
            "files/config.yaml": "mode: {{ .Values.mode }}\n",
            "ci/lint-values.yaml": "replicaCount: 1\n",
        },
    )
    _, report = check(str(chart))
    assert where(report, chart) == [
        ("KLB104", "rendered/service.yaml", 4, 25),
        ("KLB401", "templates/deployment.yaml", 18, 17),
        ("KLB101", "templates/service.yaml", 7, 3),
    ]


@pytest.mark.parametrize(
    ("files", "inside"),
    [
        (
            {"cache/templates/svc.yaml": 'x: 1\n{{ fail "cache needs a password" }}\n'},
            "cache/templates/svc.yaml, line 2, inside the archive cache-1.2.3.tgz",
        ),
        ({"cache/values.yaml": "a: [1\n"}, "values.yaml, line 1, inside the archive"),
    ],
    ids=["template", "values"],
)
def test_an_error_in_a_packaged_subchart_is_on_its_archive_naming_the_file_inside(
    tmp_path: Path, files: dict[str, str], inside: str
) -> None:
    chart = write(tmp_path / "shop", CHART)
    (chart / "charts").mkdir()
    (chart / "charts" / "cache-1.2.3.tgz").write_bytes(
        _package({"cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.2.3\n", **files})
    )
    _, report = check(str(chart))
    (finding,) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert (finding["rule"], finding["path"], finding["line"]) == (
        "KLB003",
        str(chart / "charts" / "cache-1.2.3.tgz"),
        1,
    )
    assert inside in finding["message"] and "no file to open here" in finding["message"]
    # a template Helm fails on is left out of the archive opened in memory (Helm loads a
    # subchart packed or unpacked alike), the rest linted; a values file it cannot load
    # keeps the whole chart from rendering
    rest = sorted(f["rule"] for f in report["findings"] if f["rule"] != "KLB003")
    assert rest == (["KLB101", "KLB401"] if "templates" in inside else [])


TWIN_CONTAINERS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-api
spec:
  replicas: 2
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
        - name: api
          image: registry.example/api:1.0
          ports:
            - name: http
              containerPort: 8080
          resources: {{- toYaml .Values.api.resources | nindent 12 }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: 8080
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
        - name: ui
          image: registry.example/ui:1.0
          ports:
            - name: http-ui
              containerPort: 9090
          resources: {{- toYaml .Values.ui.resources | nindent 12 }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: 9090
          readinessProbe:
            httpGet:
              path: /healthz
              port: 9090
        {{- if .Values.proxy.enabled }}
        - name: proxy
          image: registry.example/proxy:1.0
          resources:
            limits:
              memory: 64Mi
        {{- end }}
"""
TWIN_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: twins\nversion: 0.1.0\n",
    "values.yaml": (
        "api:\n  resources:\n    limits:\n      memory: 1Gi\n"
        "ui:\n  resources:\n    limits:\n      memory: 1Gi\n"
        "proxy:\n  enabled: false\n"
    ),
    "templates/deployment.yaml": TWIN_CONTAINERS,
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-api
spec:
  selector:
    app: api
  ports:
    - name: http
      port: 80
      targetPort: http
    - name: http-ui
      port: 9090
      targetPort: http-ui
""",
}


def test_a_finding_on_the_second_of_two_alike_containers_is_on_the_second_ones_lines(
    tmp_path: Path,
) -> None:
    """Two containers whose probes read alike, line for line: each finding is on its own
    container's template lines (a `resources: {{- ...` the first writes, and the literal
    `resources:` of a container left out, do not move the second's onto the first's)."""
    chart = write(tmp_path / "twins", TWIN_CHART)
    _, report = check("--select", "KLB301,KLB401", str(chart))
    lines = TWIN_CONTAINERS.splitlines()
    placed = {(f["rule"], f["container"]): f for f in report["findings"]}
    assert lines[placed["KLB401", "api"]["line"] - 1].strip() == "- name: api"
    assert lines[placed["KLB401", "ui"]["line"] - 1].strip() == "- name: ui"
    liveness = [n for n, line in enumerate(lines, start=1) if line.strip() == "livenessProbe:"]
    readiness = [n for n, line in enumerate(lines, start=1) if line.strip() == "readinessProbe:"]
    for rule, container in (("KLB301", "api"), ("KLB301", "ui")):
        nth = 0 if container == "api" else 1
        assert placed[rule, container]["line"] == liveness[nth]
        assert placed[rule, container]["related"][0]["line"] == readiness[nth] + 1  # httpGet


def test_a_prestop_fix_on_the_second_of_two_alike_containers_edits_the_second(
    tmp_path: Path,
) -> None:
    """The fix goes in the container it is for, or nowhere: never in its twin."""
    last = TWIN_CONTAINERS.index("        {{- if .Values.proxy.enabled }}")
    chart = write(
        tmp_path / "twins", {**TWIN_CHART, "templates/deployment.yaml": TWIN_CONTAINERS[:last]}
    )
    deployment = chart / "templates" / "deployment.yaml"
    output = _fix("--select", "KLB401", str(chart))
    assert "Fixed 2 findings (KLB401 ×2)" in output, output
    after = deployment.read_text()
    api, ui = after.index("- name: api"), after.index("- name: ui")
    assert after.count("preStop:") == 2
    assert api < after.index("preStop:") < ui < after.rindex("preStop:")
    assert not [f for f in check(str(chart))[1]["findings"] if f["rule"] == "KLB401"]


def test_a_prestop_fix_the_template_decides_after_is_left_to_a_human(tmp_path: Path) -> None:
    """After the second container an `if` may write a third: its fix is refused there, and
    not moved into the first container, which reads alike."""
    chart = write(tmp_path / "twins", TWIN_CHART)
    deployment = chart / "templates" / "deployment.yaml"
    output = _fix("--select", "KLB401", str(chart))
    assert "Fixed 1 finding (KLB401)" in output, output
    after = deployment.read_text()
    assert after.count("preStop:") == 1
    assert after.index("- name: api") < after.index("preStop:") < after.index("- name: ui")
    (remaining,) = [f for f in check(str(chart))[1]["findings"] if f["rule"] == "KLB401"]
    assert remaining["container"] == "ui"
    assert "make that change in the template" in remaining["message"]


def test_a_rendered_line_is_placed_only_within_the_container_that_rendered_it() -> None:
    """A line the first container's value wrote (`runAsUser: 1000`) that only a container
    left out writes literally is placed nowhere, and the lines after it stay in their own
    containers; twin lines behind the last placed one are not guessed between."""
    from k8slb.reading.chart_lines import TemplateLines

    template = """\
containers:
  - name: api
    securityContext: {{- toYaml .Values.api.securityContext | nindent 6 }}
    livenessProbe:
      exec: true
  - name: ui
    livenessProbe:
      exec: true
  {{- if .Values.debug }}
  - name: debug
    securityContext:
      runAsUser: 1000
  {{- end }}
""".splitlines()
    rendered = """\
containers:
  - name: api
    securityContext:
      runAsUser: 1000
    livenessProbe:
      exec: true
  - name: ui
    livenessProbe:
      exec: true
""".splitlines()
    assert TemplateLines(template, rendered).template_lines == [1, 2, 3, None, 4, 5, 6, 7, 8]


RANGED = {
    "Chart.yaml": "apiVersion: v2\nname: fleet\nversion: 0.1.0\n",
    "values.yaml": (
        "workers:\n  - name: billing\n    enabled: true\n  - name: ledger\n    enabled: true\n"
    ),
    "templates/deployment.yaml": """\
{{- range .Values.workers -}}
{{- if .enabled -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {{ .name }}
  template:
    metadata:
      labels:
        app: {{ .name }}
    spec:
      containers:
        - name: {{ .name }}
          image: registry.example/{{ .name }}:1.0
---
{{- end }}
{{- end }}
""",
    "templates/service.yaml": """\
{{- range .Values.workers -}}
{{- if .enabled -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}
spec:
  selector:
    app: {{ .name }}
  ports:
    - name: http
      port: 80
---
{{- end }}
{{- end }}
""",
}


def test_a_range_that_renders_text_after_the_marker_is_split_where_helm_splits(
    tmp_path: Path,
) -> None:
    """`-}}` eats the newline after `---`, so each object after the first renders as
    `---apiVersion: apps/v1`: Helm splits there, and so does k8slb, each object's findings
    on the template's lines (a plain YAML file keeps YAML's rule: that line is text)."""
    chart = write(tmp_path / "fleet", RANGED)
    _, report = check(str(chart))
    assert all(f["rule"] != "KLB001" for f in report["findings"])
    named = {f["object"]["name"] for f in report["findings"] if f["rule"] == "KLB401"}
    assert named == {"billing", "ledger"}
    assert {line for _, _, line, _ in where(report, chart)} == {18}  # `- name: {{ .name }}`
    plain = tmp_path / "plain.yaml"
    plain.write_text("apiVersion: v1\nkind: ConfigMap\n---apiVersion: v1\nkind: ConfigMap\n")
    _, report = check(str(plain))
    assert [f["rule"] for f in report["findings"]] == ["KLB001"]  # `kind` twice in one


def _sharing_charts(repository: Path) -> Path:
    """Two charts of one repository; the second's helpers are a link to the first's."""
    (repository / ".git").mkdir(parents=True)
    helpers = CHART["templates/_helpers.tpl"] + (
        '{{- define "fleet.name" -}}\n{{ .Release.Name }}-{{ .Chart.Name }}\n{{- end }}\n'
    )
    deployment = CHART["templates/deployment.yaml"].replace(
        "{{ .Release.Name }}-api", '{{ include "fleet.name" . }}'
    )
    for name in ("main", "replica"):
        write(
            repository / "charts" / name,
            {
                "Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n",
                "values.yaml": CHART["values.yaml"],
                "templates/deployment.yaml": deployment,
                "templates/service.yaml": CHART["templates/service.yaml"],
            },
        )
    write(repository / "charts" / "main", {"templates/_helpers.tpl": helpers})
    replica = repository / "charts" / "replica"
    (replica / "templates" / "_helpers.tpl").symlink_to("../../main/templates/_helpers.tpl")
    return replica


def test_a_chart_file_that_links_to_a_file_of_its_repository_is_read_as_helm_reads_it(
    tmp_path: Path,
) -> None:
    """Helm's loader follows a symbolic link: a chart whose `_helpers.tpl` is a link to a
    sibling chart's renders, and is linted; a link out of the repository is not followed."""
    replica = _sharing_charts(tmp_path / "repo")
    _, report = check(str(replica))
    assert [f["rule"] for f in report["findings"]] == ["KLB401", "KLB101"]
    assert report["findings"][0]["object"]["name"] == "replica-replica"
    outside = tmp_path / "elsewhere.tpl"
    outside.write_text('{{- define "fleet.name" -}}\nfar\n{{- end }}\n')
    (replica / "templates" / "_helpers.tpl").unlink()
    (replica / "templates" / "_helpers.tpl").symlink_to(outside)
    _, report = check(str(replica))
    assert [f["rule"] for f in report["findings"]] == ["KLB003", "KLB101"]  # no Deployment
