"""A chart whose render fails only on values it requires and nothing gives (a password a
person types at install time: `required "..." .Values.X`, also behind `coalesce`, and in
a config the Deployment includes for its checksum) is rendered with a stand-in string for
each such value in turn; its findings say so, and each failure mended is a KLB003 at info
naming the values. A value the template needs as a number or a list fails again with a
string: that chart keeps its KLB003 warnings, its objects unlinted. A run that sets values
itself is not second-guessed."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.reading import charts, render_process
from k8slb.reading.chart_required import with_stand_ins
from k8slb.reading.charts import HelmOptions
from k8slb.reading.sources import discover
from k8slb.run.engine import run
from k8slb.run.selection import select_rules
from k8slb.run.settings import Settings

from .test_helmfile import preStops, write

CONFIG = """\
{{- $admin := coalesce .Values.adminPassword .Values.password | required "Set an admin password" }}
{{- if lt (len $admin) 8 }}{{ fail "the admin password needs 8 characters" }}{{ end }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-config
stringData:
  server.yaml: |
    admin_password: {{ $admin | quote }}
    region: {{ required "Set the region" .Values.cloud.region }}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-server
spec:
  replicas: 2
  selector:
    matchLabels: {app: server}
  template:
    metadata:
      labels: {app: server}
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/config.yaml") . | sha256sum }}
    spec:
      containers:
        - name: server
          image: acme/server:1
          ports:
            - {name: http, containerPort: 8080}
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-server
spec:
  selector: {app: server}
  ports:
    - {name: http, port: 80, targetPort: http}
"""
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: server\nversion: 0.1.0\n",
    "values.yaml": "adminPassword:\ncloud:\n  region:\n",
    "templates/config.yaml": CONFIG,
    "templates/deployment.yaml": DEPLOYMENT,
    "templates/service.yaml": SERVICE,
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy" / "server", CHART)
    return tmp_path


def lint(tree: Path, *sets: str) -> list[Finding]:
    settings = Settings(
        rules=select_rules(["KLB401", "KLB003"], []), helm=HelmOptions(set_values=sets)
    )
    return run(discover([str(tree)]).sources, settings).findings


def unrendered(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "KLB003"]


def test_a_required_value_nothing_gives_is_stood_in_for(tree: Path) -> None:
    findings = lint(tree)
    [server] = preStops(findings).values()
    assert server.path == str(tree / "deploy/server/templates/deployment.yaml")
    told = "rendered with a stand-in string for adminPassword, cloud.region"
    assert any(told in line for line in server.detail), server.detail
    said = unrendered(findings)
    assert said and all(f.severity is Severity.INFO for f in said)
    # at the place Helm named, not moved as a line of the template's rendered text
    config = tree / "deploy/server/templates/config.yaml"
    assert any(
        f.path == str(config) and f.line == 1 and "admin password" in f.message for f in said
    )
    assert all("adminPassword, cloud.region" in f.message for f in said)


@pytest.mark.parametrize(
    "use",
    [
        '{{- range until (required "Set workers" .Values.workers) }}{{ end }}',  # a number
        '{{- range required "Set hosts" .Values.hosts }}{{ end }}',  # a list: a string
        # would be ranged over by Helm's Go all the same, so it is not tried
        '{{- $zones := required "Set zones" .Values.zones }}{{ $zones | toYaml }}',  # a list
        '{{- required "Set tls" .Values.tls }}{{ .Values.tls.secret }}',  # a map
    ],
)
def test_a_value_needed_as_no_string_gets_no_stand_in(tree: Path, use: str) -> None:
    counted = DEPLOYMENT.replace("      containers:\n", f"      {use}\n      containers:\n")
    write(tree / "deploy/server", {"templates/deployment.yaml": counted})
    findings = lint(tree)
    assert not preStops(findings)
    failed = [f for f in unrendered(findings) if "deployment.yaml" in f.message]
    assert failed and all(f.severity is Severity.WARNING for f in failed)


def test_a_run_that_sets_values_is_not_second_guessed(tree: Path) -> None:
    findings = lint(tree, "adminPassword=Secret-Pass-1")
    assert not preStops(findings)
    assert any(f.severity is Severity.WARNING for f in unrendered(findings))


# A chart in the style of a platform's: helpers that take a dict of the root, the values
# and a component's values (`include "x" (dict "top" .Values "part" ...)`), their
# `required` reading variables, not `.Values.` paths; Helm names the `include`, not the
# helper's line. A subchart is declared and not vendored, and one template needs its values.
HELPERS = """\
{{- define "shop.version" -}}
{{- $g := .top -}}
{{- $p := .part -}}
{{- required "set it with --set release.version=1.2.3" ($p.version | default $g.release.version) -}}
{{- end -}}

{{- define "shop.db.config" -}}
{{- $ := .root -}}
{{- $o := .override | default dict -}}
{{- $db := $.Values.database | default dict -}}
database:
  host: {{ $o.host | default $db.host }}
  password: {{ required "a database password is required" ($o.password | default $db.password) }}
{{- end -}}
"""
PLATFORM_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: api-config
data:
  config.yaml: |
{{ include "shop.db.config" (dict "root" . "override" .Values.components.api.database) | indent 4 }}
"""
PLATFORM_DEPLOYMENT = """\
{{- $this := dict "top" .Values "part" .Values.components.api }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/config.yaml") . | sha256sum }}
    spec:
      containers:
        - name: api
          image: "acme/api:{{ include "shop.version" $this }}"
          ports:
            - {name: http, containerPort: 8080}
"""
PLATFORM_SERVICE = SERVICE.replace("{{ .Release.Name }}-server", "api").replace("server", "api")
CACHE_SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: cache
stringData:
  password: {{ .Values.cache.auth.password | quote }}
"""
PLATFORM = {
    "Chart.yaml": (
        "apiVersion: v2\nname: shop\nversion: 0.4.0\ndependencies:\n"
        "  - name: cache\n    version: 1.2.0\n    repository: https://charts.example.com\n"
        "    condition: cache.enabled\n"
    ),
    "values.yaml": (
        "release:\n  version:\ndatabase:\n  host: db\n  password:\ncache:\n  enabled: true\n"
        "components:\n  api:\n    database: {}\n"
    ),
    "templates/_helpers.tpl": HELPERS,
    "templates/config.yaml": PLATFORM_CONFIG,
    "templates/deployment.yaml": PLATFORM_DEPLOYMENT,
    "templates/service.yaml": PLATFORM_SERVICE,
    "templates/cache-secret.yaml": CACHE_SECRET,
}


@pytest.fixture
def platform(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "chart", PLATFORM)
    return tmp_path


def test_a_helpers_required_value_is_named_by_its_variables_or_its_message(
    platform: Path,
) -> None:
    """`$db.password` is `$.Values.database`'s (its assignment in the helper); the release
    version comes from a helper argument, and its message says `--set release.version=`,
    a field the action reads; the template that needs the missing subchart stays left out
    and does not keep the chart from its stand-ins."""
    findings = lint(platform)
    [api] = preStops(findings).values()
    assert api.path == str(platform / "chart/templates/deployment.yaml")
    [told] = [line for line in api.detail if "stand-in string for" in line]
    assert "release.version" in told and "database.password" in told, told
    said = unrendered(findings)
    mended = [f for f in said if "a stand-in string" in f.message]
    assert {f.path for f in mended} == {
        str(platform / "chart/templates" / name) for name in ("config.yaml", "deployment.yaml")
    }
    assert all(f.severity is Severity.INFO and "release.version" in f.message for f in mended)
    [cache] = [f for f in said if f.severity is Severity.WARNING]
    assert "cache-secret.yaml" in cache.message and "without its subchart cache" in cache.message


@pytest.mark.parametrize(
    "helper",
    [
        # the message names a key the action does not read
        '{{- define "shop.version" -}}{{- $p := .part -}}'
        '{{- required "pick an edition with --set edition=ce" $p.version -}}{{- end -}}',
        # the variable is an element of a range, not the value the loop reads
        '{{- define "shop.version" -}}{{- range $name, $v := $.Values.versions -}}'
        '{{- required "a version is required for each part" $v.tag -}}{{- end -}}{{- end -}}',
    ],
)
def test_a_required_value_k8slb_cannot_name_gets_no_stand_in(platform: Path, helper: str) -> None:
    helpers = helper + "\n" + HELPERS.split("{{- end -}}\n\n", 1)[1]
    write(platform / "chart", {"templates/_helpers.tpl": helpers})
    if "range" in helper:
        write(platform / "chart", {"values.yaml": PLATFORM["values.yaml"] + "versions:\n  a: {}\n"})
        deployment = PLATFORM_DEPLOYMENT.replace('"shop.version" $this', '"shop.version" $')
        write(platform / "chart", {"templates/deployment.yaml": deployment})
    findings = lint(platform)
    assert not preStops(findings)
    failed = [f for f in unrendered(findings) if "deployment.yaml" in f.message]
    assert failed and all(f.severity is Severity.WARNING for f in failed)


def test_a_stand_in_try_a_time_limit_stopped_is_said_and_the_chart_not_cached(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The try with a stand-in runs past the time limit of a render (a busy machine): the
    chart keeps its rendering with its defaults (two templates left out), says that the
    try was stopped by time, and is marked stopped, so that no cache keeps an answer
    another run may better."""
    chart = str(tree / "deploy" / "server")
    data = charts.pack(chart)
    rendered = charts.render_charts([(chart, HelmOptions(), data)])
    monkeypatch.setattr(render_process, "TIMEOUT", 1e-6)
    monkeypatch.setattr(render_process, "WALL_FACTOR", 1e6)  # its CPU limit, not the clock's
    # CPU time is counted in clock ticks: a try that used less than one reads 0 s, under
    # any limit; here every try has used one at least
    verdict = render_process._verdict
    monkeypatch.setattr(
        render_process, "_verdict", lambda run, used, took: verdict(run, max(used, 0.01), took)
    )
    [[kept]] = with_stand_ins([(chart, data)], rendered, HelmOptions())
    assert kept.stopped and kept.left_out == rendered[0][0].left_out != []
    (said,) = [p for p in kept.problems if "with a stand-in string for adminPassword" in p.message]
    assert said.message.startswith(f"Helm chart {chart} is not rendered with a stand-in string")
    assert "rendering used over" in said.message
    assert kept.problems[0] == rendered[0][0].problems[0], "its own failure, first"


# A chart that checks its values in a helper, with a `fail` whose message names the key
# (no `required`, no `.Values.` path k8slb could follow: the values are read with `dig`).
VALIDATE = """\
{{- define "server.validate" -}}
{{- $values := .Values | toYaml | fromYaml -}}
{{- if not (dig "database" "host" "" $values) -}}
{{- fail "database.host is required when database.enabled=true" -}}
{{- end -}}
{{- end -}}
"""


@pytest.mark.parametrize(
    ("values", "stood"),
    [
        ('database:\n  enabled: true\n  host: ""\n', True),  # a string left for the user
        ("database:\n  enabled: true\n  host:\n", False),  # nothing: its type unknown
        ("database:\n  enabled: true\n  host: 0\n", False),  # a number
        ("database:\n  enabled: true\n", False),  # a key the chart does not set
    ],
)
def test_a_value_a_fail_names_that_the_defaults_leave_an_empty_string_is_stood_in_for(
    tree: Path, values: str, stood: bool
) -> None:
    chart = tree / "deploy/server"
    deployment = '{{- include "server.validate" . -}}\n' + DEPLOYMENT
    write(
        chart,
        {
            "values.yaml": values,
            "templates/config.yaml": "",
            "templates/_validate.tpl": VALIDATE,
            "templates/deployment.yaml": deployment.replace(
                "        checksum/config: {{ include (print $.Template.BasePath "
                '"/config.yaml") . | sha256sum }}\n',
                "        a: b\n",
            ),
        },
    )
    findings = lint(tree)
    said = unrendered(findings)
    if not stood:
        assert not preStops(findings)
        assert [f.severity for f in said] == [Severity.WARNING]
        return
    [server] = preStops(findings).values()
    assert any("a stand-in string for database.host" in line for line in server.detail)
    [mended] = said
    assert mended.severity is Severity.INFO
    assert mended.path == str(chart / "templates/deployment.yaml") and mended.line == 1
    assert "database.host is required" in mended.message


def test_a_value_the_render_was_given_is_not_stood_in_for(tmp_path: Path) -> None:
    """An installer's `--set` of the key (or a key above it), or a values file that
    holds it: the message names a value the user gives, and the stand-in would hide it."""
    from k8slb.reading.chart_required import _given

    assert _given(HelmOptions(set_values=("a=1,database.host=x",)), "database.host")
    assert _given(HelmOptions(set_values=("database=x",)), "database.host")
    assert not _given(HelmOptions(set_values=("database.hostname=x",)), "database.host")
    given = tmp_path / "prod.yaml"
    given.write_text("database:\n  host: db.example\n")
    assert _given(HelmOptions(values=(str(given),)), "database.host")
    assert not _given(HelmOptions(values=(str(given),)), "database.port")


def test_a_packaged_subcharts_template_that_still_fails_stays_a_warning(tmp_path: Path) -> None:
    """A stand-in mends the chart's own `required`; a template of its packaged subchart
    (opened in memory and left out) still fails: its finding stays one warning, at the
    archive, not also said as mended."""
    from .test_helm_left_out import _packaged_db

    (tmp_path / ".git").mkdir()
    chart = tmp_path / "deploy/server"
    write(chart, {**CHART, "values.yaml": 'adminPassword: ""\ncloud:\n  region: ""\n'})
    archive = _packaged_db(chart)
    findings = lint(tmp_path)
    assert str(chart / "templates/deployment.yaml") in {f.path for f in preStops(findings).values()}
    at_archive = [f for f in unrendered(findings) if f.path == str(archive)]
    [still] = [f for f in at_archive if f.severity is Severity.WARNING]
    assert "charts/db/templates/job.yaml" in still.message
    assert not [f for f in at_archive if f.severity is not Severity.WARNING]


# A helper that picks the image's tag, and fails naming the values as the template reads
# them (`.Values.tag`): the value is as sure as a `required .Values.tag` names it.
VERSION = """\
{{- define "server.version" -}}
{{- if .Values.tag }}{{ .Values.tag }}
{{- else if .Chart.AppVersion }}{{ .Chart.AppVersion }}
{{- else }}{{ fail "At least one between .Values.tag and .Chart.AppVersion should be set" }}
{{- end }}
{{- end -}}
"""


@pytest.mark.parametrize(
    ("values", "stood"),
    [
        ('tag: ""\n', True),  # a string left for the user
        ("tag:\n", True),  # left unset: the message names it as the template reads it
        ("replicas: 2\n", True),  # no key at all
        ("tag: 0\n", False),  # a number the chart gives
        ("tag: {}\n", False),  # a map
    ],
)
def test_a_value_a_fail_names_as_the_template_reads_it_is_stood_in_for_when_left_unset(
    tree: Path, values: str, stood: bool
) -> None:
    chart = tree / "deploy/server"
    deployment = DEPLOYMENT.replace(
        "        checksum/config: {{ include (print $.Template.BasePath "
        '"/config.yaml") . | sha256sum }}\n',
        "        a: b\n",
    ).replace("acme/server:1", 'acme/server:{{ include "server.version" . }}')
    write(
        chart,
        {
            "values.yaml": values,
            "templates/config.yaml": "",
            "templates/_version.tpl": VERSION,
            "templates/deployment.yaml": deployment,
        },
    )
    findings = lint(tree)
    said = unrendered(findings)
    if not stood:
        assert not preStops(findings)
        assert [f.severity for f in said] == [Severity.WARNING]
        return
    [server] = preStops(findings).values()
    assert any("a stand-in string for tag" in line for line in server.detail), server.detail
    [mended] = said
    assert mended.severity is Severity.INFO
    assert ".Values.tag and .Chart.AppVersion" in mended.message
    assert "rendered instead with a stand-in string for tag" in mended.message
