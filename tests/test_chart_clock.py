"""Helm's `now` held still (reading/chart_clock.py): a Job named with the time of the render
gets the same name every run, the fixed time's; a field, a variable or a string that says
`now` is left as it is."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading import charts
from k8slb.reading.chart_clock import with_fixed_clock

from .test_helm import write

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ printf "%s-schema-%s" .Release.Name (now | date "20060102-1504") }}
  annotations:
    stamp: {{ now | date "2006" | quote }}
    said: "{{ "now" }} {{ .Values.now }}"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: schema
          image: acme/schema:1
"""


def test_a_job_named_with_now_renders_the_same_every_run(tmp_path: Path) -> None:
    chart = write(
        tmp_path / "shop",
        {
            "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
            "values.yaml": "now: later\n",
            "templates/job.yaml": JOB,
        },
    )
    first = charts.render(str(chart), charts.HelmOptions())
    [text] = first.files.values()
    assert "name: shop-schema-19700101-0000\n" in text
    assert 'stamp: "1970"' in text
    assert 'said: "now later"' in text
    again = charts.render(str(chart), charts.HelmOptions())
    assert again.files == first.files


def test_only_the_function_of_an_action_is_replaced() -> None:
    text = (
        b"a: now {{ $now := .now }}{{ nowish }}{{ 'n' }}{{ \"now}}\" }}\n"
        b'b: {{ printf "%s" (now\n | date "2006") }}{{ now\n'
    )
    fixed = with_fixed_clock({"templates/a.yaml": text, "values.yaml": b"a: {{ now }}\n"})
    assert fixed["values.yaml"] == b"a: {{ now }}\n"  # not a template
    lines = fixed["templates/a.yaml"].decode().splitlines()
    assert lines[0] == text.decode().splitlines()[0]
    assert lines[1] == 'b: {{ printf "%s" ((toDate "2006-01-02" "1970-01-01")'
    assert lines[2] == ' | date "2006") }}{{ now'  # an action never closed is none
