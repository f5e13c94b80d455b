"""A helmfile is an input: each release of a chart in the repository is rendered with its
name, namespace, values files and `set` entries by the chart renderer, and linted as a
chart is (findings on the template's lines, the release named); the chart is not also
rendered alone with its defaults. A release of a remote chart is a note; what helmfile
computes at deploy time (templates, environments) is refused with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.core.findings import Finding, Problem
from k8slb.interface.cli import cli

from .helpers import lint_paths

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "values.yaml": "image: acme/web\npreStop: false\n",
    "templates/_helpers.tpl": '{{- define "web.name" -}}\n{{ .Release.Name }}-web\n{{- end }}\n',
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "web.name" . }}
spec:
  replicas: 2
  selector:
    matchLabels: {app: {{ include "web.name" . }}}
  template:
    metadata:
      labels: {app: {{ include "web.name" . }}}
    spec:
      containers:
        - name: web
          image: {{ .Values.image }}:1
          ports:
            - {name: http, containerPort: 8080}
          {{- if .Values.preStop }}
          lifecycle:
            preStop:
              sleep: {seconds: 5}
          {{- end }}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: {{ include "web.name" . }}
spec:
  selector: {app: {{ include "web.name" . }}}
  ports:
    - {name: http, port: 80, targetPort: http}
""",
}

HELMFILE = """\
repositories:
  - name: bitnami
    url: https://charts.bitnami.com/bitnami
releases:
  - name: shop
    namespace: store
    chart: ./charts/web
    values:
      - values/shop.yaml
  - name: admin
    chart: ./charts/web
  - name: cart
    chart: ./charts/web
    set:
      - name: preStop
        value: true
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "charts" / "web", CHART)
    write(tmp_path, {"helmfile.yaml": HELMFILE, "values/shop.yaml": "preStop: true\n"})
    return tmp_path


def lint(tree: Path, select: tuple[str, ...] = ("KLB401", "KLB003")) -> list[Finding]:
    return lint_paths([str(tree)], select).findings


def preStops(findings: list[Finding]) -> dict[str, Finding]:
    """The KLB401 findings by the Deployment they are about (`namespace/name`)."""
    found = {}
    for finding in findings:
        if finding.rule == "KLB401":
            deployment = finding.message.split("Deployment/")[1].split(" ")[0]
            found[deployment] = finding
    return found


def test_each_release_is_rendered_with_its_name_namespace_values_and_sets(tree: Path) -> None:
    findings = lint(tree)
    # shop's values file and cart's `set` turn the preStop hook on; admin has the defaults
    assert sorted(preStops(findings)) == ["default/admin-web"]
    assert [f.rule for f in findings] == ["KLB401"]


def test_a_releases_finding_is_on_the_template_line_and_names_the_release(tree: Path) -> None:
    [finding] = lint(tree)
    assert finding.path == str(tree / "charts/web/templates/deployment.yaml")
    assert finding.line == 14  # `- name: web`
    helmfile = tree / "helmfile.yaml"
    assert f"rendered with helmfile release admin ({helmfile})" in finding.detail
    assert not finding.edits, "the template is shared by the releases: a fix is said, not made"


def test_a_release_renders_in_its_own_namespace(tree: Path) -> None:
    write(tree, {"values/shop.yaml": "preStop: false\n"})
    assert sorted(preStops(lint(tree))) == ["default/admin-web", "store/shop-web"]


def test_a_chart_a_helmfile_installs_is_not_also_rendered_alone(tree: Path) -> None:
    result = lint_paths([str(tree)], ("KLB401",))
    assert "Deployment/default/web" not in " ".join(f.message for f in result.findings)
    # without the helmfile, the chart is rendered with its defaults, as before
    (tree / "helmfile.yaml").unlink()
    assert sorted(preStops(lint(tree))) == ["default/web-web"]


def test_a_file_a_hook_names_is_linted_in_the_releases_that_read_it(
    tree: Path,
) -> None:
    """A pre-commit hook names a changed template (or values file), the rest of the tree
    as context: the chart is linted as the helmfile installs it, not alone with its
    defaults."""
    template = str(tree / "charts/web/templates/deployment.yaml")
    named = ["check", "--select", "KLB401", "--context", str(tree), template]
    output = CliRunner().invoke(cli, named).output
    assert "Deployment/default/admin-web" in output
    assert "Deployment/default/web-web" not in output
    # a release's values file, named, is linted as the release it feeds
    write(tree, {"values/shop.yaml": "preStop: false\n"})
    named = ["check", "--select", "KLB401", "--context", str(tree), str(tree / "values/shop.yaml")]
    assert "Deployment/store/shop-web" in CliRunner().invoke(cli, named).output


def test_a_release_of_a_remote_chart_is_a_note_at_its_line_and_the_others_rendered(
    tree: Path,
) -> None:
    write(tree, {"helmfile.yaml": HELMFILE + "  - name: cache\n    chart: bitnami/redis\n"})
    findings = lint(tree)
    [note] = [f for f in findings if f.rule == "KLB003"]
    assert (note.path, note.line, note.severity.label) == (str(tree / "helmfile.yaml"), 18, "info")
    assert "release cache: chart bitnami/redis is not in the repository" in note.message
    assert sorted(preStops(findings)) == ["default/admin-web"]


def test_a_package_helm_package_makes_at_deploy_time_is_its_chart_folder(tree: Path) -> None:
    """`chart: ./web-0.1.0.tgz`, absent (built by `helm package charts/web` before the
    apply): the chart folder whose Chart.yaml makes that name is rendered."""
    write(tree, {"helmfile.yaml": HELMFILE.replace("./charts/web", "./web-0.1.0.tgz")})
    assert sorted(preStops(lint(tree))) == ["default/admin-web"]
    write(tree, {"helmfile.yaml": HELMFILE.replace("./charts/web", "./web-0.2.0.tgz")})
    notes = [f for f in lint(tree) if f.rule == "KLB003"]
    assert len(notes) == 3 and "no chart folder at ./web-0.2.0.tgz" in notes[0].message


def test_the_files_of_a_helmfile_d_folder_are_helmfiles(tmp_path: Path) -> None:
    """Each file's paths are relative to its folder; `../charts` is in its repository."""
    (tmp_path / ".git").mkdir()
    write(tmp_path / "charts" / "web", CHART)
    release = "releases:\n  - name: {0}\n    chart: ../charts/web\n"
    write(
        tmp_path / "helmfile.d",
        {"10-a.yaml": release.format("a"), "20-b.yaml": release.format("b")},
    )
    assert sorted(preStops(lint(tmp_path))) == ["default/a-web", "default/b-web"]


@pytest.mark.parametrize(
    ("text", "line", "said"),
    [
        (
            "environments:\n  prod:\n    values: [prod.yaml]\n" + HELMFILE,
            1,
            "`environments` is not read by k8slb",
        ),
        (HELMFILE.replace("values/shop.yaml", "values/{{ .Environment.Name }}.yaml"), 9, "{{"),
        (HELMFILE.replace("values/shop.yaml", "values/shop.yaml.gotmpl"), 9, "is a template"),
        (HELMFILE.replace("    namespace: store\n", "    jsonPatches: []\n"), 6, "`jsonPatches`"),
        (
            "helmDefaults:\n  wait: true\n  args: [--set, preStop=true]\n" + HELMFILE,
            3,
            "helmDefaults' `args`",
        ),
    ],
)
def test_what_helmfile_computes_at_deploy_time_is_refused_at_its_line(
    tree: Path, text: str, line: int, said: str
) -> None:
    write(tree, {"helmfile.yaml": text})
    [refused] = [f for f in lint(tree) if f.rule == "KLB003"]
    assert (refused.path, refused.line) == (str(tree / "helmfile.yaml"), line)
    assert said in refused.message and "not rendered" in refused.message


def test_a_helmfile_refused_whole_leaves_its_charts_rendered_alone(tree: Path) -> None:
    write(tree, {"helmfile.yaml": "environments:\n  prod: {}\n" + HELMFILE})
    assert sorted(preStops(lint(tree))) == ["default/web-web"]


def test_inline_values_are_passed_as_written_or_refused(tree: Path) -> None:
    inline = HELMFILE.replace("      - values/shop.yaml\n", "      - {preStop: false}\n")
    write(tree, {"helmfile.yaml": inline})
    assert sorted(preStops(lint(tree))) == ["default/admin-web", "store/shop-web"]
    # a string Helm's --set would read as an integer is not passed as another value
    write(tree, {"helmfile.yaml": inline.replace("{preStop: false}", "{image: '8080'}")})
    [refused] = [f for f in lint(tree) if f.rule == "KLB003"]
    assert refused.line == 9 and "cannot be passed to Helm as it is written" in refused.message


def test_a_missing_values_file_keeps_its_release_from_rendering_with_a_warning(
    tree: Path,
) -> None:
    (tree / "values/shop.yaml").unlink()
    [problem] = [f for f in lint(tree) if f.rule == "KLB003"]
    assert (problem.line, problem.severity.label) == (9, "warning")
    assert "values file values/shop.yaml is not in the repository" in problem.message


def test_a_changed_values_file_renders_the_release_again(tree: Path) -> None:
    """The cache keeps a helmfile's renderings by its bytes, its charts' and its values
    files': a run after a values file changed renders again."""

    def check() -> str:
        ran = CliRunner().invoke(cli, ["check", "--select", "KLB401", str(tree)])
        return ran.output

    first = check()
    assert "Deployment/default/admin-web" in first and "shop-web" not in first
    assert check() == first
    write(tree, {"values/shop.yaml": "preStop: false # now off\n"})
    assert "Deployment/store/shop-web" in check()


def test_problems_are_problems_of_the_helmfile() -> None:
    from k8slb.inputs.helmfile import plan

    planned = plan("deploy/helmfile.yaml", "releases:\n  - name: x\n    chart: oci://r/x\n")
    assert planned.releases == ()
    [problem] = planned.problems
    assert isinstance(problem, Problem)
    assert (problem.path, problem.line) == ("deploy/helmfile.yaml", 3)
