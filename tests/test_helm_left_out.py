"""A chart Helm fails on in one template (an Ingress that calls `required` on a value its
defaults leave empty, a `fail`) is rendered again without that template: the template is
one KLB003 at the place Helm names, and the rest of the chart is linted on its template
lines. Within a budget of templates and of work (bytes of templates rendered, not
seconds: the same answer on a busy machine); past it, the chart is one KLB003 as before,
none of it linted."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from k8slb.reading import chart_work, charts

from .test_helm import CHART, _fix, check, where, write

INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}-api
  annotations:
    kubernetes.io/ingress.class: {{ required "set ingressClass" .Values.ingressClass }}
spec:
  rules:
    {{- range required "set hostnames" .Values.hostnames }}
    - host: {{ . }}
    {{- end }}
"""

# A value of the run's own, which no template reads: a run that sets values gets no
# stand-in for a `required` one (reading/chart_required.py), so the templates Helm fails
# on are left out, as here.
OWN_VALUES = ("--helm-set", "unread=1")

# what the chart's own findings are when it renders whole (test_helm's first test)
RENDERED = [
    ("KLB401", "templates/deployment.yaml", 18, 17),
    ("KLB101", "templates/service.yaml", 7, 3),
]


def _ingress_chart(folder: Path, **more: str) -> Path:
    values = CHART["values.yaml"] + 'ingressClass: ""\nhostnames: []\n'
    return write(
        folder / "shop",
        {**CHART, "values.yaml": values, "templates/ingress.yaml": INGRESS, **more},
    )


def test_a_required_ingress_is_left_out_and_the_rest_of_the_chart_linted(
    tmp_path: Path,
) -> None:
    chart = _ingress_chart(tmp_path)
    _, report = check(*OWN_VALUES, str(chart))
    assert sorted(where(report, chart)) == sorted(
        [*RENDERED, ("KLB003", "templates/ingress.yaml", 6, 36)]
    )
    (left_out,) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert left_out["severity"] == "warning"
    assert "templates/ingress.yaml of chart" in left_out["headline"]
    assert "set ingressClass" in left_out["headline"]
    assert "rendered and linted without templates/ingress.yaml" in left_out["message"]
    assert report["summary"]["objects"] == 2
    _, given = check("--helm-set", "ingressClass=nginx,hostnames[0]=a.example", str(chart))
    assert sorted(where(given, chart)) == sorted(RENDERED), "with the values: all of it"


def test_each_failing_template_is_left_out_in_turn_with_its_own_finding(tmp_path: Path) -> None:
    failing = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ fail "no" }}\n'
    parse_error = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n{{ .Values.a | nope }}\n"
    chart = _ingress_chart(
        tmp_path, **{"templates/failing.yaml": failing, "templates/parse.yaml": parse_error}
    )
    _, report = check(str(chart))
    assert sorted(where(report, chart)) == sorted(
        [
            *RENDERED,
            ("KLB003", "templates/ingress.yaml", 6, 36),
            ("KLB003", "templates/failing.yaml", 6, 8),
            ("KLB003", "templates/parse.yaml", 5, 1),
        ]
    )


def test_a_helper_left_out_takes_the_templates_that_include_it_and_says_so(
    tmp_path: Path,
) -> None:
    """_helpers.tpl does not parse: left out, its named template goes with it, so the
    Deployment that includes it fails next and is left out too; the Service is linted."""
    broken = '{{- define "shop.labels" -}}\napp: {{ .Values.a | nope }}\n{{- end }}\n'
    chart = write(tmp_path / "shop", {**CHART, "templates/_helpers.tpl": broken})
    _, report = check(str(chart))
    assert sorted(where(report, chart)) == sorted(
        [
            ("KLB003", "templates/_helpers.tpl", 2, 1),
            ("KLB003", "templates/deployment.yaml", 6, 8),
            ("KLB101", "templates/service.yaml", 7, 3),
        ]
    )
    helper = next(f for f in report["findings"] if f["path"].endswith("_helpers.tpl"))
    assert (
        "the named templates it defines (shop.labels) are left out with it" in (helper["message"])
    )
    included = next(f for f in report["findings"] if f["path"].endswith("deployment.yaml"))
    assert 'no template "shop.labels"' in included["headline"]


def test_past_the_budget_of_templates_the_chart_is_not_rendered_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "MAX_LEFT_OUT", 1)
    failing = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ fail "no" }}\n'
    chart = _ingress_chart(tmp_path, **{"templates/failing.yaml": failing})
    _, report = check(*OWN_VALUES, str(chart))
    (only,) = where(report, chart)
    assert only[0] == "KLB003" and only[1] in ("templates/ingress.yaml", "templates/failing.yaml")
    (finding,) = report["findings"]
    assert f"Helm cannot render chart {chart}:" in finding["headline"]
    assert "none of its objects is linted" in finding["message"]


def _busy_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock of a busy machine in the processes that render (forked from this one):
    each look at it a minute later than the last. This process keeps the real one (its
    time limits are not what is tested)."""
    real, here, jumps = time.monotonic, os.getpid(), iter(range(1, 1 << 30))

    def busy() -> float:
        return real() if os.getpid() == here else real() + 60.0 * next(jumps)

    monkeypatch.setattr(time, "monotonic", busy)


FAILING = {
    f"templates/failing-{n}.yaml": (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f{n}\n"
        'data:\n  a: {{ fail "no" }}\n'
    )
    for n in (1, 2)
}


def test_a_chart_rendered_again_without_its_failing_templates_is_the_same_on_a_busy_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendered again and again without each template Helm fails on, the chart gets the
    same answer whatever the clock says while it renders: its renders are bounded by
    their work (bytes of templates), not by seconds. (Rendered here, not through a run,
    whose memory of the chart would answer the second time.)"""
    chart = _ingress_chart(tmp_path, **FAILING)
    job = (str(chart), charts.HelmOptions(set_values=OWN_VALUES[1:]), charts.pack(str(chart)))
    ((quiet,),) = charts.render_charts([job])
    _busy_clock(monkeypatch)
    ((busy,),) = charts.render_charts([job])
    assert (busy.files, busy.problems, busy.stopped) == (quiet.files, quiet.problems, False)
    assert sorted(busy.left_out) == [
        "templates/failing-1.yaml",
        "templates/failing-2.yaml",
        "templates/ingress.yaml",
    ]
    assert sorted(Path(p).name for p in busy.files) == ["deployment.yaml", "service.yaml"]


def test_past_its_budget_of_work_the_chart_is_not_rendered_and_says_after_how_many_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A try may hand Helm so many bytes of templates (at least MIN_COST a render): here
    two renders' worth, and the chart fails on three templates. It is not rendered, as
    Helm would have it, its finding saying k8slb stopped and which templates had failed;
    kept in the cache, as any answer of the chart's own, and the same when busy."""
    monkeypatch.setattr(chart_work, "TRY_WORK", 2 * chart_work.MIN_COST)
    chart = _ingress_chart(tmp_path, **FAILING)
    job = (str(chart), charts.HelmOptions(set_values=OWN_VALUES[1:]), charts.pack(str(chart)))
    ((only,),) = charts.render_charts([job])
    assert not only.stopped and not only.files
    assert only.work == chart_work.Work(2 * chart_work.MIN_COST, 2)
    (finding,) = only.problems
    assert finding.message.startswith(f"Helm cannot render chart {chart}:")
    assert finding.detail[0].startswith(
        "k8slb rendered it 2 times in this run and stopped there: its budget of work was spent"
    )
    # Helm renders a chart's templates in reverse order of their names, failing on the first
    assert (
        "Helm had failed on templates/ingress.yaml, templates/failing-2.yaml,"
        in (finding.detail[0])
    )
    assert "none of its objects is linted" in finding.detail[-1]
    _busy_clock(monkeypatch)
    ((busy,),) = charts.render_charts([job])
    assert busy.problems == only.problems and not busy.stopped


def test_a_further_try_of_a_chart_whose_work_is_spent_is_not_rendered(tmp_path: Path) -> None:
    """Another try (a stand-in, an installer's values) begins where the chart's work is:
    with none left, Helm is not called."""
    chart = write(tmp_path / "shop", CHART)
    job = (str(chart), charts.HelmOptions(), charts.pack(str(chart)))
    spent = chart_work.Work(chart_work.CHART_WORK, 9)
    ((again,),) = charts.render_charts([job], [spent])
    assert not again.files and again.work == spent and not again.stopped
    assert "k8slb rendered it 9 times in this run" in again.problems[0].detail[0]
    ((first,),) = charts.render_charts([job], [chart_work.Work()])
    assert first.files and first.work.renders == 1


def test_a_template_no_file_of_the_chart_holds_is_not_left_out(tmp_path: Path) -> None:
    """Helm names a file no folder (nor archive: _opened_for) of the chart holds: nothing
    to render without, so the chart is one KLB003 as before."""
    members = {"templates/x.yaml": b"a: 1\n"}
    failure = charts.HelmFailure("execution error at (shop/charts/db/templates/x.yaml:3:1): no")
    assert charts._failing_template(failure, members) is None
    assert charts._opened_for(failure, members, {}) is members
    values = charts.HelmFailure("values file v.yaml: yaml: line 2", "v.yaml", 2)
    assert charts._failing_template(values, members) is None
    here = charts.HelmFailure("execution error at (shop/templates/x.yaml:3:1): no")
    assert charts._failing_template(here, members) == "templates/x.yaml"
    # with subcharts missing, the template is left out all the same; a `fail`/`required`
    # of its own is the template's alone; a named template not found, or a template that
    # reads the subchart's values, may need them
    missing = charts.HelmFailure(str(here), missing=["common", "cache"])
    assert charts._failing_template(missing, members) == "templates/x.yaml"
    assert charts._needs_missing(missing, "templates/x.yaml", b"a: 1\n", {})[0] == ()
    include = charts.HelmFailure(
        'template: shop/templates/x.yaml:3:1: no template "common.name" associated with '
        'template "gotpl"',
        missing=["common", "cache"],
    )
    assert charts._failing_template(include, members) == "templates/x.yaml"
    assert charts._needs_missing(include, "templates/x.yaml", b"a: 1\n", {})[0] == ("common",)
    reads = b'port: {{ required "port" .Values.cache.port }}\n'
    assert charts._needs_missing(missing, "templates/x.yaml", reads, {})[0] == ("cache",)
    unnamed = charts.HelmFailure(
        'template: shop/templates/x.yaml:3:1: template "shared.name" not defined', missing=["a"]
    )
    assert charts._needs_missing(unnamed, "templates/x.yaml", b"a: 1\n", {})[0] == ("a",), "all"
    own = charts.HelmFailure(
        "template: shop/templates/x.yaml:3:1: nil pointer evaluating interface {}.mail",
        missing=["a"],
    )
    assert (
        charts._needs_missing(own, "templates/x.yaml", b"{{ .Values.secrets.mail }}", {})[0] == ()
    )


def test_a_fix_in_a_chart_rendered_without_a_template_is_made(tmp_path: Path) -> None:
    chart = _ingress_chart(tmp_path)
    ingress = (chart / "templates" / "ingress.yaml").read_text()
    output = _fix("--select", "KLB401", str(chart))
    assert "Fixed 1 finding (KLB401)" in output
    assert "preStop:" in (chart / "templates" / "deployment.yaml").read_text()
    assert (chart / "templates" / "ingress.yaml").read_text() == ingress
    _, report = check(str(chart))
    assert "KLB401" not in {f["rule"] for f in report["findings"]}
    assert "KLB003" in {f["rule"] for f in report["findings"]}


def test_a_grpc_service_whose_deployment_did_not_render_is_info_and_says_so(
    tmp_path: Path,
) -> None:
    """KLB101 on a Service whose pods are in a template Helm failed on: how many replicas
    run and whether the server caps connection age are unknown, so info, saying why."""
    deployment = CHART["templates/deployment.yaml"].replace(
        "  replicas: {{ .Values.replicaCount }}",
        "  replicas: {{ .Values.replicaCount }}\n"
        '  # {{ required "set gateway.host" .Values.gateway.host }}',
    )
    values = CHART["values.yaml"] + "gateway: {}\n"
    chart = write(
        tmp_path / "shop",
        {**CHART, "values.yaml": values, "templates/deployment.yaml": deployment},
    )
    _, report = check(*OWN_VALUES, str(chart))
    (finding,) = [f for f in report["findings"] if f["rule"] == "KLB101"]
    assert finding["severity"] == "info"
    assert "Helm failed on 1 of its templates (deployment.yaml)" in finding["headline"]
    assert "did not render" in finding["message"]
    rendered = write(tmp_path / "whole", CHART)
    _, whole = check(str(rendered))
    (scaled,) = [f for f in whole["findings"] if f["rule"] == "KLB101"]
    assert scaled["severity"] == "warning", "with its pods, as before"


SECRET = """\
{{- range $name, $value := .Values.credentials }}
{{- if empty $value }}
{{- fail (printf "set credentials.%s" $name) }}
{{- end }}
{{- end }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-credentials
stringData:
  {{- toYaml .Values.credentials | nindent 2 }}
"""
DEPENDENT = (
    "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n"
    "  - name: cache\n    version: 1.2.3\n    repository: https://charts.example\n"
)


def test_a_fail_of_its_own_is_left_out_of_a_chart_whose_subcharts_are_missing(
    tmp_path: Path,
) -> None:
    """A chart whose subcharts are not vendored, with a template that calls `fail` on an
    empty value of its own: the fail is not the subcharts' doing, so that template is
    left out and the rest linted; one that reads a missing subchart's values is left out
    too, said to need that subchart."""
    values = CHART["values.yaml"] + 'credentials:\n  password: ""\ncache:\n  port: 6379\n'
    files = {**CHART, "Chart.yaml": DEPENDENT, "values.yaml": values}
    chart = write(tmp_path / "shop", {**files, "templates/secret.yaml": SECRET})
    _, report = check(*OWN_VALUES, str(chart))  # no stand-in for the password it names
    rules = sorted(f["rule"] for f in report["findings"])
    assert rules == ["KLB003", "KLB003", "KLB101", "KLB401"], report["findings"]
    assert any("rendered and linted without" in f["message"] for f in report["findings"])
    reading = '{{- if empty .Values.cache.password }}{{ fail "set cache.password" }}{{ end }}\n'
    other = write(tmp_path / "other", {**files, "templates/secret.yaml": reading})
    _, whole = check(*OWN_VALUES, str(other))
    assert sorted(f["rule"] for f in whole["findings"]) == rules, "left out all the same"
    (needs,) = [f for f in whole["findings"] if "cannot render" in f["headline"]]
    assert "without its subchart cache:" in needs["headline"]
    assert "`helm dependency build`" in needs["message"]


# A chart in the style of those that install a database and a shared library chart from a
# registry, and commit neither (`helm dependency build` fetches them).
WITH_DEPENDENCIES = """\
apiVersion: v2
name: shop
version: 0.1.0
dependencies:
  - name: commons
    version: 2.0.0
    repository: oci://registry.example/charts
  - name: database
    version: 15.0.0
    repository: oci://registry.example/charts
    condition: database.enabled
"""
# what the database subchart's defaults would give `auth.existingSecret`: nothing here
DATABASE_SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-database
stringData:
  user: {{ lower .Values.database.auth.existingSecret | quote }}
"""
# a library chart's named template, which the chart's own helper wraps
LIBRARY_HELPERS = CHART["templates/_helpers.tpl"] + (
    '{{- define "shop.fullname" -}}{{ include "commons.names.fullname" . }}{{- end }}\n'
)
LIBRARY_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "shop.fullname" . }}-settings
data:
  mode: api
"""


def _dependent_chart(folder: Path, **more: str) -> Path:
    values = CHART["values.yaml"] + "database:\n  enabled: true\n  auth: {}\n"
    files = {**CHART, "Chart.yaml": WITH_DEPENDENCIES, "values.yaml": values}
    return write(folder / "shop", {**files, **more})


def test_templates_that_need_subcharts_not_vendored_are_left_out_and_the_rest_linted(
    tmp_path: Path,
) -> None:
    """Rendered without its missing subcharts, the chart's Secret reads a value only the
    database subchart's defaults give, and its ConfigMap names itself with the library
    chart's named template: each is left out, naming the subchart it needs, and the chart's
    Deployment and Service are linted; what is missing is said once, at info."""
    chart = _dependent_chart(
        tmp_path,
        **{
            "templates/secret.yaml": DATABASE_SECRET,
            "templates/_helpers.tpl": LIBRARY_HELPERS,
            "templates/configmap.yaml": LIBRARY_CONFIG,
        },
    )
    _, report = check(str(chart))
    assert sorted(where(report, chart)) == sorted(
        [
            *RENDERED,
            ("KLB003", "Chart.yaml", 4, 1),
            ("KLB003", "templates/configmap.yaml", 4, 11),
            ("KLB003", "templates/secret.yaml", 6, 24),
        ]
    )
    said = {f["path"].rpartition("/")[2]: f for f in report["findings"] if f["rule"] == "KLB003"}
    assert said["Chart.yaml"]["severity"] == "info"
    assert "rendered without its subcharts commons, database" in said["Chart.yaml"]["headline"]
    assert "without its subchart database:" in said["secret.yaml"]["headline"]
    assert "without its subchart commons:" in said["configmap.yaml"]["headline"]
    assert 'no template "commons.names.fullname"' in said["configmap.yaml"]["headline"]
    assert all(said[name]["severity"] == "warning" for name in ("secret.yaml", "configmap.yaml"))
    assert "`helm dependency build`" in said["secret.yaml"]["message"]


def test_a_chart_whose_every_template_needs_a_missing_library_is_one_finding(
    tmp_path: Path,
) -> None:
    """When every template that writes objects fails without the subcharts (each names
    itself with the library's named template), none of the chart is linted: one KLB003,
    a warning, saying so, and not one a template."""
    named = "  name: {{ .Release.Name }}-api\n"
    fullname = '  name: {{ include "shop.fullname" . }}-api\n'
    chart = _dependent_chart(
        tmp_path,
        **{
            "templates/_helpers.tpl": LIBRARY_HELPERS,
            "templates/deployment.yaml": CHART["templates/deployment.yaml"].replace(
                named, fullname
            ),
            "templates/service.yaml": CHART["templates/service.yaml"].replace(named, fullname),
        },
    )
    _, report = check(str(chart))
    (finding,) = report["findings"]
    assert (finding["rule"], finding["severity"]) == ("KLB003", "warning")
    assert f"Helm cannot render chart {chart}:" in finding["headline"]
    assert "every template of it that writes objects fails" in finding["message"]


def test_a_missing_subchart_its_tags_turn_off_is_no_finding(tmp_path: Path) -> None:
    """Helm renders no subchart whose tags are all off in the values' `tags:` (and that
    no condition turns on): a library chart switched off by its tag is not missing."""
    tagged = WITH_DEPENDENCIES.replace(
        "    repository: oci://registry.example/charts\n  - name: database",
        "    repository: oci://registry.example/charts\n    tags: [shared]\n  - name: database",
    )
    values = CHART["values.yaml"] + "database:\n  enabled: false\ntags:\n  shared: false\n"
    chart = write(tmp_path / "shop", {**CHART, "Chart.yaml": tagged, "values.yaml": values})
    _, report = check(str(chart))
    assert "KLB003" not in {f["rule"] for f in report["findings"]}
    _, turned_on = check("--helm-set", "tags.shared=true", str(chart))
    assert [f["headline"] for f in turned_on["findings"] if f["rule"] == "KLB003"] == [
        f"chart {chart} is rendered without its subchart commons"
    ]


# A subchart packed as its archive, as `helm dependency build` leaves it: a schema job
# whose helper `required`s a field of a map it is handed (no value k8slb can name), and a
# Deployment with its Service.
DB_JOB = """\
{{- define "db.env" -}}
- name: DB_HOST
  value: {{ required (printf "Please specify host for %s" .name) .host }}
{{- end -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: db-schema
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers:
        - name: schema
          image: registry.example/db:1.0
          env:
            {{- include "db.env" .Values.store | nindent 12 }}
"""


def _packaged_db(chart: Path) -> Path:
    from .test_helm import _package

    def renamed(text: str) -> str:
        return text.replace("-api", "-db").replace(": api", ": db").replace("shop.", "db.")

    frontend = renamed(CHART["templates/deployment.yaml"])
    service = renamed(CHART["templates/service.yaml"])
    archive = chart / "charts" / "db-1.0.0.tgz"
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(
        _package(
            {
                "db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 1.0.0\n",
                "db/values.yaml": "replicaCount: 2\ngrpcPort: 7233\nservice:\n  type: ClusterIP\n"
                "store:\n  name: default\n  host: ''\n",
                "db/templates/job.yaml": DB_JOB,
                "db/templates/_helpers.tpl": '{{- define "db.labels" -}}\napp: db\n{{- end }}\n',
                "db/templates/deployment.yaml": frontend,
                "db/templates/service.yaml": service,
            }
        )
    )
    return archive


def test_a_template_of_a_packaged_subchart_is_left_out_and_the_rest_of_it_linted(
    tmp_path: Path,
) -> None:
    """Helm loads a subchart in charts/ packed (`db-1.0.0.tgz`) or unpacked alike: the
    archive is opened in memory, the template Helm failed on left out (its KLB003 on the
    archive, naming the file inside it), and the subchart's other objects linted."""
    chart = write(tmp_path / "shop", CHART)
    archive = _packaged_db(chart)
    _, report = check(*OWN_VALUES, str(chart))
    found = sorted(where(report, chart))
    assert ("KLB003", "charts/db-1.0.0.tgz", 1, 1) in found
    assert ("KLB401", "charts/db-1.0.0.tgz", 1, 1) in found, "the subchart's Deployment"
    assert [*RENDERED[:1]] == [f for f in found if f[1] == "templates/deployment.yaml"]
    (left_out,) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert left_out["severity"] == "warning"
    assert "charts/db/templates/job.yaml of chart" in left_out["headline"]
    assert "Please specify host for default" in left_out["headline"]
    assert "db/templates/job.yaml, line 17, inside the archive db-1.0.0.tgz" in left_out["message"]
    assert "rendered and linted without charts/db/templates/job.yaml" in left_out["message"]
    klb401 = next(f for f in report["findings"] if f["rule"] == "KLB401" and "db" in f["path"])
    assert (
        "written by db/templates/deployment.yaml, line 18, inside the archive"
        in (klb401["message"])
    )
    assert not (chart / "charts" / "db").exists(), "opened in memory, nothing written"
    assert archive.is_file()
    _, given = check("--helm-set", "db.store.host=db.example", str(chart))
    assert "KLB003" not in {f["rule"] for f in given["findings"]}, "given the value: all of it"


def test_an_archive_is_opened_only_down_to_the_file_helm_names(tmp_path: Path) -> None:
    """A packaged subchart inside a packaged subchart is opened too; an archive whose
    files would climb out of its folder, or that holds no folder of the name, is not."""
    from k8slb.reading.chart_packages import packed

    from .test_helm import _package

    inner = packed({"cache/templates/x.yaml": b"a: 1\n", "cache/Chart.yaml": b"name: cache\n"})
    outer = packed({"db/Chart.yaml": b"name: db\n", "db/charts/cache-1.0.0.tgz": inner})
    members = {"Chart.yaml": b"name: shop\n", "charts/db-1.0.0.tgz": outer}
    failure = charts.HelmFailure(
        "execution error at (shop/charts/db/charts/cache/templates/x.yaml:1:1): no"
    )
    opened = charts._opened_for(failure, members, {})
    assert sorted(opened) == [
        "Chart.yaml",
        "charts/db/Chart.yaml",
        "charts/db/charts/cache/Chart.yaml",
        "charts/db/charts/cache/templates/x.yaml",
    ]
    assert charts._failing_template(failure, opened) == "charts/db/charts/cache/templates/x.yaml"
    climbing = {"charts/db-1.0.0.tgz": _package({"db/../../x/templates/x.yaml": "a: 1\n"})}
    named = charts.HelmFailure("execution error at (shop/charts/db/templates/x.yaml:1:1): no")
    assert charts._opened_for(named, climbing, {}) is climbing
    other = {"charts/db-1.0.0.tgz": _package({"web/templates/x.yaml": "a: 1\n"})}
    assert charts._opened_for(named, other, {}) is other


def test_archives_opened_past_the_charts_size_limit_are_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chart's files, its archives opened, stay within MAX_CHART_BYTES (an archive
    inside an archive, each within its own limit, would add up): past it, none is."""
    from k8slb.reading.chart_packages import packed

    members = {"charts/db-1.0.0.tgz": packed({"db/templates/x.yaml": b"a: 1\n" * 100})}
    failure = charts.HelmFailure("execution error at (shop/charts/db/templates/x.yaml:1:1): no")
    assert "charts/db/templates/x.yaml" in charts._opened_for(failure, members, {})
    monkeypatch.setattr(charts, "MAX_CHART_BYTES", 400)
    assert charts._opened_for(failure, members, {}) is members
