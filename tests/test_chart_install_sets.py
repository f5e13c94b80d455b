"""A chart whose templates write a key no values file gives (`app.kubernetes.io/version:
{{ .Values.tag }}` in every object's labels), because the repository's install command
sets it from CI's environment (`--set tag=$CIRCLE_SHA1`), is rendered with a stand-in
string for that key when every template only writes its text: its objects are linted
instead of being wrong shapes (KLB002) left out of the rules. The commands are read from
CircleCI's and GitLab's definitions too. A key a template decides with, counts with,
lays out as YAML or reads as a map, or one a values file gives, is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.reading.chart_install_sets import writes_text_only
from k8slb.reading.ci_sessions import ci_sessions

from .helpers import lint_paths
from .test_helmfile import preStops, write

HELPERS = """\
{{- define "api.labels" -}}
app: api
app.kubernetes.io/version: {{ .Values.tag }}
{{- end }}
"""


def chart(image: str = '"{{ .Values.image }}:{{ .Values.tag }}"', extra: str = "") -> dict:
    """A chart whose labels and image write `.Values.tag`, which values.yaml lacks."""
    return {
        "Chart.yaml": "apiVersion: v2\nname: api\nversion: 0.1.0\n",
        "values.yaml": "image: acme/api\nreplicas: 2\n",
        "templates/_helpers.tpl": HELPERS,
        "templates/deployment.yaml": f"""\
{extra}apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  labels:
    {{{{- include "api.labels" . | nindent 4 }}}}
spec:
  replicas: {{{{ .Values.replicas }}}}
  selector:
    matchLabels: {{app: api}}
  template:
    metadata:
      labels:
        {{{{- include "api.labels" . | nindent 8 }}}}
    spec:
      containers:
        - name: api
          image: {image}
          ports:
            - {{name: http, containerPort: 8080}}
""",
        "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: api
  labels:
    {{- include "api.labels" . | nindent 4 }}
spec:
  selector: {app: api}
  ports:
    - {name: http, port: 80, targetPort: http}
""",
    }


CIRCLECI = """\
version: 2.1
jobs:
  integration:
    machine:
      image: ubuntu-2204:current
    steps:
      - checkout
      - run:
          name: Install the chart
          command: |
            pushd $HOME/project/charts
            cat api/values_ci.yaml | envsubst > api/values_ci_subst.yaml
            helm install api api --values api/values_ci_subst.yaml --set tag=$CIRCLE_SHA1 --atomic
"""


def lint(tree: Path) -> list[Finding]:
    return lint_paths([str(tree)], ("KLB401", "KLB002", "KLB003")).findings


def shapes(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "KLB002"]


def notes(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "KLB003"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "charts" / "api", chart())
    return tmp_path


def test_without_a_command_the_unset_key_is_a_wrong_shape(tree: Path) -> None:
    findings = lint(tree)
    assert shapes(findings) and not preStops(findings)
    assert not notes(findings)


def test_a_circleci_step_that_sets_the_key_gives_it_a_stand_in(tree: Path) -> None:
    # (the step's values file is one CI writes: the command is not rendered with, the
    # chart's defaults are, the key it sets stood in for)
    write(tree, {".circleci/config.yml": CIRCLECI})
    findings = lint(tree)
    assert not shapes(findings)
    [api] = preStops(findings).values()
    config = tree / ".circleci/config.yml"
    said = (
        "a stand-in string for tag, which no values file of the render gives "
        f"(`helm install` at {config}:13 sets tag to $CIRCLE_SHA1)"
    )
    assert any(said in line for line in api.detail), api.detail
    [note] = notes(findings)
    assert note.severity is Severity.INFO and said in note.message


def test_the_values_file_beside_the_chart_is_still_the_one_rendered(tree: Path) -> None:
    # defaults that deploy nothing: the file beside the chart is chosen as before, and
    # the key its command sets is stood in for on top of it
    files = chart()
    files["values.yaml"] = "image: acme/api\nreplicas: 2\n"
    files["templates/deployment.yaml"] = (
        "{{- if .Values.enabled }}\n" + files["templates/deployment.yaml"] + "{{- end }}\n"
    )
    files["values_ci.yaml"] = "enabled: true\n"
    write(tree / "charts" / "api", files)
    write(tree, {".circleci/config.yml": CIRCLECI})
    findings = lint(tree)
    assert not shapes(findings)
    assert preStops(findings)
    [note] = notes(findings)
    assert "rendered instead with values_ci.yaml" in note.message
    assert "and with a stand-in string for tag" in note.message


@pytest.mark.parametrize(
    "ci",
    [
        # GitLab: before_script and script one shell, from $CI_PROJECT_DIR
        {
            ".gitlab-ci.yml": "deploy:\n  before_script:\n    - cd $CI_PROJECT_DIR/charts\n"
            "  script:\n    - helm upgrade --install api ./api --set tag=${CI_COMMIT_SHA}\n"
        },
        # CircleCI: a reusable command's run step, written as a string
        {
            ".circleci/config.yml": "version: 2.1\ncommands:\n  deploy:\n    steps:\n"
            "      - run: helm upgrade --install api charts/api --set-string tag=$TAG\n"
        },
        # a GitHub workflow's run step, and a script
        {
            ".github/workflows/ci.yml": "on: push\njobs:\n  ci:\n    runs-on: ubuntu-latest\n"
            "    steps:\n      - run: helm install api ./charts/api --set tag=$GITHUB_SHA\n"
        },
        {"deploy.sh": '#!/bin/sh\nhelm install api ./charts/api --set tag="$VERSION"\n'},
    ],
)
def test_the_ci_definitions_and_scripts_read(tree: Path, ci: dict[str, str]) -> None:
    write(tree, ci)
    findings = lint(tree)
    assert not shapes(findings)
    assert preStops(findings)
    [note] = notes(findings)
    assert "a stand-in string for tag" in note.message


@pytest.mark.parametrize(
    "uses",
    [
        {"extra": "{{- if .Values.tag }}\n{{- end }}\n"},  # decides
        {"image": '"{{ .Values.image }}:{{ .Values.tag | default "1" }}"'},  # a default
        {"extra": "# {{ toJson .Values }}\n"},  # the map that holds it, whole
        {"extra": '{{- define "unused" }}{{ .Values.tag.major }}{{ end }}\n'},  # a map
        {"extra": "{{- $t := .Values.tag }}\n{{- if $t }}\n{{- end }}\n"},  # its variable
        {"extra": "# {{ .Values.tag | int }}\n"},  # a number
    ],
)
def test_a_key_read_other_than_as_text_is_not_stood_in(tmp_path: Path, uses: dict) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "charts" / "api", chart(**uses))
    write(tmp_path, {".circleci/config.yml": CIRCLECI})
    findings = lint(tmp_path)
    assert shapes(findings)
    assert not notes(findings)


def test_a_stand_in_where_a_number_goes_is_not_kept(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    files = chart()
    files["templates/deployment.yaml"] = files["templates/deployment.yaml"].replace(
        "{{ .Values.replicas }}", "{{ .Values.count }}"
    )
    write(tmp_path / "charts" / "api", files)
    command = "helm install api ./charts/api --set tag=$SHA --set count=$COUNT"
    write(tmp_path, {"deploy.sh": f"#!/bin/sh\n{command}\n"})
    findings = lint(tmp_path)
    assert not notes(findings)
    assert shapes(findings)


@pytest.mark.parametrize(("values", "key"), [("tag: v1\n", "tag"), ("global: {}\n", "global.tag")])
def test_a_key_a_values_file_gives_or_a_global_is_not_stood_in(
    tmp_path: Path, values: str, key: str
) -> None:
    (tmp_path / ".git").mkdir()
    files = chart()
    files["values.yaml"] += values
    files = {k: v.replace(".Values.tag", f".Values.{key}") for k, v in files.items()}
    write(tmp_path / "charts" / "api", files)
    write(tmp_path, {"deploy.sh": f"#!/bin/sh\nhelm install api ./charts/api --set {key}=$SHA\n"})
    findings = lint(tmp_path)
    assert not notes(findings)


def test_text_only_reads() -> None:
    def members(*lines: str) -> dict[str, bytes]:
        return {"templates/a.yaml": "\n".join(lines).encode()}

    key = ["image", "tag"]
    assert writes_text_only(key, members('image: "{{ .Values.image.tag | quote }}"'))
    assert writes_text_only(key, members('{{ printf "%s-%s" .Release.Name $.Values.image.tag }}'))
    assert writes_text_only(key, members("{{- $t := .Values.image.tag }}", "v: {{ $t }}"))
    assert not writes_text_only(key, members("v: {{ .Values.other }}"))  # never read
    assert not writes_text_only(key, members("{{ .Values.image.tag }}", "{{ with .Values.image }}"))
    assert not writes_text_only(key, members('{{ index .Values.image "tag" }}'))
    assert not writes_text_only(key, members('{{ include "x" .Values.image.tag }}'))
    assert not writes_text_only(key, members("{{- $t := .Values.image.tag }}", "{{ $t = 1 }}"))
    # a subchart's templates read values of their own
    sub = {"charts/db/templates/a.yaml": b"{{ if .Values.image.tag }}{{ end }}"}
    assert writes_text_only(key, {**members("v: {{ .Values.image.tag }}"), **sub})


def test_circleci_steps_run_from_the_top_their_lines_kept(tmp_path: Path) -> None:
    top = str(tmp_path)
    path = str(tmp_path / ".circleci" / "config.yml")
    text = (
        "version: 2.1\njobs:\n  a:\n    working_directory: ~/repo\n    steps:\n"
        "      - checkout\n      - run: cd ~/repo/charts && helm install x x\n"
        "      - run:\n          working_directory: charts\n          command: |\n"
        "            cd ${CIRCLE_WORKING_DIRECTORY}/charts\n            helm install y y\n"
        "  b:\n    steps:\n      - checkout:\n          path: src\n      - run: helm install z z\n"
    )
    sessions = list(ci_sessions(path, text, top))
    assert [(first, starts) for first, _, starts, _ in sessions] == [
        (7, [top]),
        (11, [str(tmp_path / "charts")]),
    ]
    assert sessions[0][1] == f"cd {top}/charts && helm install x x"
    assert sessions[1][1].splitlines()[0] == f"cd {top}/charts"
