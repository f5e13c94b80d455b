"""A chart whose subchart is not vendored, whose templates call the subchart's named
templates: where every call only writes a name on (a host to dial, a Secret to read),
the templates render with a stand-in for it and their objects are linted; where one
would decide what is written (a condition), or a stand-in lands in an object's
identity (its name, labels, a selector), the template is left out as before
(reading/chart_stand_ins.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from k8slb.reading.chart_stand_ins import may_stand_in, misplaced, stand_in_text

from .helpers import within_cpu
from .test_helm import CHART, check, where
from .test_helm_left_out import RENDERED, _dependent_chart

CHART_YAML = ("KLB003", "Chart.yaml")  # the subcharts missing, said once
# the Deployment dials the database subchart's Service and reads its Secret, both named
# by the subchart's own named template
DIALS_DATABASE = CHART["templates/deployment.yaml"].replace(
    "          image: registry.example/api:1.0\n",
    "          image: registry.example/api:1.0\n"
    "          env:\n"
    "            - name: DATABASE_HOST\n"
    '              value: {{ include "database.fullname" . }}.{{ .Release.Namespace }}.svc\n'
    "            - name: DATABASE_PASSWORD\n"
    "              valueFrom:\n"
    "                secretKeyRef:\n"
    '                  name: {{ include "database.fullname" . | quote }}\n'
    "                  key: password\n",
)


def test_a_template_that_only_names_a_missing_subcharts_template_is_linted(
    tmp_path: Path,
) -> None:
    chart = _dependent_chart(tmp_path, **{"templates/deployment.yaml": DIALS_DATABASE})
    _, report = check(str(chart))
    rules = sorted((rule, path) for rule, path, _, _ in where(report, chart))
    assert rules == sorted([(rule, path) for rule, path, _, _ in RENDERED] + [CHART_YAML])
    (said,) = [f for f in report["findings"] if f["rule"] == "KLB003"]
    assert said["path"].endswith("Chart.yaml")
    assert "database.fullname as k8slb-stand-in-database-fullname" in said["message"]


def test_a_stand_in_in_a_label_leaves_the_template_out_as_before(tmp_path: Path) -> None:
    labelled = DIALS_DATABASE.replace(
        "      labels:\n        app: api\n",
        '      labels:\n        app: api\n        db: {{ include "database.fullname" . }}\n',
    )
    chart = _dependent_chart(tmp_path, **{"templates/deployment.yaml": labelled})
    _, report = check(str(chart))
    rules = {(rule, path) for rule, path, _, _ in where(report, chart)}
    assert ("KLB003", "templates/deployment.yaml") in rules
    assert ("KLB401", "templates/deployment.yaml") not in rules
    assert not any("stand-in" in f["message"] for f in report["findings"])


def test_a_name_a_condition_reads_is_not_stood_in_for(tmp_path: Path) -> None:
    deciding = DIALS_DATABASE.replace(
        "          env:\n",
        '          {{- if eq (include "database.fullname" .) "db" }}\n'
        "          args: [--local]\n"
        "          {{- end }}\n"
        "          env:\n",
    )
    chart = _dependent_chart(tmp_path, **{"templates/deployment.yaml": deciding})
    _, report = check(str(chart))
    rules = {(rule, path) for rule, path, _, _ in where(report, chart)}
    assert ("KLB003", "templates/deployment.yaml") in rules
    assert ("KLB401", "templates/deployment.yaml") not in rules


def test_only_output_actions_allow_a_stand_in() -> None:
    def members(text: str) -> dict[str, bytes]:
        return {"templates/a.yaml": text.encode()}

    assert may_stand_in("db.host", members('h: {{ include "db.host" . | quote }}'))
    assert may_stand_in("db.host", members('{{- $h := include "db.host" . }}'))
    assert not may_stand_in("db.host", members('l: {{- include "db.host" . | nindent 4 }}'))
    assert not may_stand_in("db.host", members('{{ if include "db.host" . }}x{{ end }}'))
    assert not may_stand_in("db.host", members('{{ default "x" (include "db.host" .) }}'))
    assert not may_stand_in("db.host", members('x: "db.host"'))  # not in an action


def test_a_stand_in_is_misplaced_in_an_identity_or_yaml_that_does_not_parse() -> None:
    token = stand_in_text("db.host")
    ok = f"kind: Pod\nmetadata:\n  name: a\nspec:\n  env:\n    - value: {token}\n"
    assert not misplaced([ok], ["db.host"])
    assert misplaced([ok.replace("name: a", f"name: {token}")], ["db.host"])
    assert misplaced([f"kind: Service\nspec:\n  selector:\n    a: {token}\n"], ["db.host"])
    assert misplaced([f"{token}: 1\n"], ["db.host"])
    assert misplaced([f"a: [{token}\n"], ["db.host"])


def test_a_rendered_text_of_aliases_doubling_is_misplaced_quickly(tmp_path: Path) -> None:
    """A rendered text whose anchors double (30 lists of two aliases of the one before,
    2**30 values when walked) holding a stand-in: its walk stops at a budget, and the
    stand-ins are not kept (not known where it stands)."""
    token = stand_in_text("mongodb.fullname")
    lines = [f"a0: &a0 [{token}]"] + [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 31)]
    (tmp_path / "rendered.yaml").write_text("\n".join(lines) + "\n")
    script = (
        "import sys; from k8slb.reading.chart_stand_ins import misplaced; "
        "print(misplaced([open(sys.argv[1]).read()], ['mongodb.fullname']))"
    )
    done = within_cpu([sys.executable, "-c", script, str(tmp_path / "rendered.yaml")], 10)
    assert done.stdout.strip() == "True", done.stderr
