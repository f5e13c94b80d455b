"""A chart Helm cannot render with its defaults (a `required` value, a map its templates
read that only the installer's values file sets) is rendered with the values the
repository's own `helm install|upgrade|template -f FILE --set K=V` passes: in a shell
script, a Makefile recipe or a GitHub workflow's run step, resolved from where that
command runs. Its KLB003 is then an info naming the command, and each finding says which
values made the render. A Markdown guide's shell block is read last, from the one folder
its command fits; a command whose values are not files of the repository (`/tmp`, a
variable, a `<placeholder>`) is refused; a chart that renders with its
defaults is rendered as before, whatever the scripts say. A chart's own README (or a guide
at the repository's top or in docs/) may install it by the name it is published under
(`oci://registry/charts/NAME`, `REPO/NAME`), with a placeholder for the release's name;
of several such commands, the first that renders a workload is used."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity

from .helpers import lint_paths
from .test_helmfile import preStops, write

# An umbrella chart whose templates read a section of values the defaults leave out: Helm
# fails on a nil map until the installer's file gives it.
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "values.yaml": "image: acme/shop\n",
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-api
spec:
  replicas: {{ .Values.global.replicas }}
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: {{ .Values.image }}:1
          env:
            - {name: DB_HOST, value: {{ .Values.global.database.host | quote }}}
          ports:
            - {name: http, containerPort: 8080}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-api
spec:
  selector: {app: api}
  ports:
    - {name: http, port: 80, targetPort: http}
""",
}
HERE = 'cd "$(dirname "$0")"\n'  # a script's usual first line: it runs where it is
SITE_VALUES = "global:\n  replicas: 2\n  database:\n    host: db.internal\n"

INSTALL_SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

kubectl create namespace shop || true
helm upgrade --install shop ./shop -n shop --create-namespace \\
    -f ./site-values.yaml --set image=acme/shop-api --wait ${EXTRA_HELM_FLAGS}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy" / "shop", CHART)
    write(tmp_path, {"deploy/site-values.yaml": SITE_VALUES})
    return tmp_path


def lint(tree: Path) -> list[Finding]:
    return lint_paths([str(tree)], ("KLB401", "KLB003")).findings


def unrendered(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "KLB003"]


def test_without_an_installer_the_chart_is_not_rendered(tree: Path) -> None:
    findings = lint(tree)
    assert not preStops(findings)
    [failed] = unrendered(findings)
    assert failed.severity is Severity.WARNING


def test_a_scripts_helm_upgrade_values_render_the_chart(tree: Path) -> None:
    write(tree, {"deploy/install.sh": INSTALL_SCRIPT})
    findings = lint(tree)
    [api] = preStops(findings).values()
    assert "Deployment/shop/shop-api" in api.message  # its release and namespace
    assert api.path == str(tree / "deploy/shop/templates/deployment.yaml")
    script, values = tree / "deploy/install.sh", tree / "deploy/site-values.yaml"
    told = f"rendered with {values} (`helm upgrade` at {script}:6)"
    assert any(told in line for line in api.detail), api.detail
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO
    assert "with its defaults: rendered instead with the values `helm upgrade`" in note.message
    assert f"{script}:6" in note.message and "${EXTRA_HELM_FLAGS}" in note.message


def test_a_makefile_recipe_and_a_workflow_step_run_where_they_say(tree: Path) -> None:
    write(
        tree,
        {
            "Makefile": (
                "deploy:\n\tcd deploy && helm template shop shop --values site-values.yaml"
                " | kubectl apply -f -\n"
            )
        },
    )
    [api] = preStops(lint(tree)).values()
    assert "Deployment/default/shop-api" in api.message
    assert any(f"`helm template` at {tree / 'Makefile'}:2" in line for line in api.detail)
    (tree / "Makefile").unlink()
    workflow = """\
on: push
jobs:
  deploy:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: deploy
    steps:
      - uses: actions/checkout@v4
      - name: install
        run: |
          helm lint shop
          helm upgrade shop shop -n staging -f site-values.yaml --set-string region=eu
"""
    write(tree, {".github/workflows/deploy.yml": workflow})
    [api] = preStops(lint(tree)).values()
    assert "Deployment/staging/shop-api" in api.message
    workflow_path = tree / ".github/workflows/deploy.yml"
    assert any(f"at {workflow_path}:13" in line for line in api.detail), api.detail


@pytest.mark.parametrize(
    "command",
    [
        "helm upgrade shop ./shop -f /tmp/site-values.yaml",  # written by the job: not here
        "helm upgrade shop ./shop -f $VALUES",  # a variable
        "helm upgrade shop ./shop -f ./site-values.yaml --set-file cert=tls.crt",
        "helm upgrade shop ./shop -f ./site-values.yaml --set image.tag=$TAG",
        "helm upgrade shop ./other -f ./site-values.yaml",  # not this chart's folder
        "helm upgrade shop $CHART -f ./site-values.yaml",
    ],
)
def test_a_command_not_read_as_written_is_refused(tree: Path, command: str) -> None:
    write(tree, {"deploy/install.sh": f"{HERE}{command}\n"})
    findings = lint(tree)
    assert not preStops(findings)
    assert unrendered(findings)[0].severity is Severity.WARNING


GUIDE = """\
# Deploying

Build the image, then run these from the [deploy](deploy) folder:

1. Install the shop:

   ```bash
   $ helm install shop shop -f site-values.yaml
   ```
"""


def test_a_guides_shell_block_is_read_last_from_the_one_folder_it_fits(tree: Path) -> None:
    write(tree, {"docs/DEPLOYING.md": GUIDE})
    findings = lint(tree)
    [api] = preStops(findings).values()
    assert "Deployment/default/shop-api" in api.message
    guide = tree / "docs/DEPLOYING.md"
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO
    assert f"at {guide}:8 (a code block of a Markdown guide)" in note.message
    # A script's command comes first, the guide's is counted.
    write(tree, {"deploy/install.sh": INSTALL_SCRIPT})
    findings = lint(tree)
    assert list(preStops(findings)) == ["shop/shop-api"]
    assert "1 other command of the repository installs it too" in unrendered(findings)[0].detail


@pytest.mark.parametrize(
    "block",
    [
        "```yaml\nrun: helm install shop shop -f site-values.yaml\n```\n",  # not a shell's
        # a value the reader is to fill in
        "```\nhelm install shop shop -f site-values.yaml --set image=<your-image>\n```\n",
        "```\nhelm install shop shop -f site-values.yaml --set image=[IMAGE]\n```\n",
        "```\nhelm install shop shop\n```\n",  # no values file: nothing pins the folder
        "    helm install shop shop -f site-values.yaml\n",  # no fence
    ],
)
def test_a_guides_command_that_is_no_evidence_is_refused(tree: Path, block: str) -> None:
    write(tree, {"README.md": block})
    assert not preStops(lint(tree))


def test_a_guides_command_that_fits_two_folders_is_refused(tree: Path) -> None:
    write(tree / "staging" / "shop", CHART)
    write(tree, {"staging/site-values.yaml": SITE_VALUES, "README.md": GUIDE})
    findings = lint(tree)
    assert not preStops(findings)
    assert {f.severity for f in unrendered(findings)} == {Severity.WARNING}


def test_an_install_comes_before_a_template_and_the_others_are_counted(tree: Path) -> None:
    write(
        tree,
        {
            "deploy/site-dev.yaml": "global:\n  replicas: 1\n  database: {host: localhost}\n",
            "deploy/a-render.sh": f"{HERE}helm template dev shop -f site-dev.yaml\n",
            "deploy/z-install.sh": f"{HERE}helm install prod shop -f site-values.yaml\n",
        },
    )
    findings = lint(tree)
    assert list(preStops(findings)) == ["default/prod-api"]
    [note] = unrendered(findings)
    assert "1 other command of the repository installs it too" in note.detail


def test_a_script_run_from_the_repositorys_top(tree: Path) -> None:
    command = "helm upgrade --install shop deploy/shop -f deploy/site-values.yaml\n"
    write(tree, {"scripts/deploy.sh": command})
    assert list(preStops(lint(tree))) == ["default/shop-api"]


def test_a_chart_that_renders_with_its_defaults_keeps_them(tree: Path) -> None:
    write(tree / "deploy" / "shop", {"values.yaml": "image: acme/shop\n" + SITE_VALUES})
    write(tree, {"deploy/install.sh": INSTALL_SCRIPT})
    findings = lint(tree)
    [api] = preStops(findings).values()
    assert "Deployment/default/shop-api" in api.message
    assert not any("rendered with" in line for line in api.detail)
    assert not unrendered(findings)


# A workflow that installs the chart with a values file each deployment puts in place
# (`cp examples/site-values.yaml deploy/site-values.yaml`, says the guide): the tree holds
# only the example.
COPY_IN_PLACE = """\
on: push
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: helm upgrade --install shop ./deploy/shop -f ./deploy/shop/site-values.yaml
"""


def test_a_values_file_the_tree_lacks_is_read_as_its_one_copy_elsewhere(tree: Path) -> None:
    (tree / "deploy/site-values.yaml").rename(tree / "deploy/site.yaml")
    write(tree, {".github/workflows/deploy.yml": COPY_IN_PLACE})
    assert not preStops(lint(tree))  # the command names a file that is not there
    write(tree, {"examples/site-values.yaml": SITE_VALUES})
    findings = lint(tree)
    [api] = preStops(findings).values()
    example = tree / "examples/site-values.yaml"
    missing = tree / "deploy/shop/site-values.yaml"
    told = f"rendered with {example} (for {missing}, not in the repository)"
    assert any(told in line for line in api.detail), api.detail
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO
    assert f"{example} (for {missing}, which the repository lacks)" in note.message


@pytest.mark.parametrize("twin", ["site-values.yaml.example", "site-values.sample.yaml"])
def test_a_values_file_the_tree_lacks_is_read_as_its_example_twin(tree: Path, twin: str) -> None:
    (tree / "deploy/site-values.yaml").unlink()  # no file of its own name: its twin
    write(tree, {".github/workflows/deploy.yml": COPY_IN_PLACE, f"deploy/shop/{twin}": SITE_VALUES})
    [api] = preStops(lint(tree)).values()
    assert any(f"{tree / 'deploy/shop' / twin} (for " in line for line in api.detail), api.detail


def test_a_values_file_the_tree_lacks_and_several_could_be_is_not_guessed(tree: Path) -> None:
    write(
        tree,
        {
            ".github/workflows/deploy.yml": COPY_IN_PLACE,
            "examples/site-values.yaml": SITE_VALUES,
        },
    )
    findings = lint(tree)
    assert not preStops(findings)
    [said, failed] = sorted(unrendered(findings), key=lambda f: f.severity)
    assert failed.severity is Severity.WARNING and said.severity is Severity.INFO
    assert "several files could be it" in said.message
    assert str(tree / "examples/site-values.yaml") in said.message
    assert str(tree / "deploy/site-values.yaml") in said.message


def test_another_charts_values_file_is_no_copy_of_the_one_the_tree_lacks(tree: Path) -> None:
    (tree / "deploy/site-values.yaml").unlink()
    write(tree, {".github/workflows/deploy.yml": COPY_IN_PLACE})
    write(tree / "deploy/other", {**CHART, "site-values.yaml": SITE_VALUES})
    found = preStops(lint(tree)).values()  # the other chart's own, with that file: no more
    assert [f.path for f in found] == [str(tree / "deploy/other/templates/deployment.yaml")]


# A chart's README that documents installing the published chart, not its folder: the
# release's name a placeholder, a first block whose values the reader fills in, a
# production block, then the quick start.
PUBLISHED_README = """\
# shop

## Production

```console
$ helm repo add acme https://charts.acme.example
$ helm install [RELEASE_NAME] acme/shop \\
    --set global.database.host=<your-database-host>
```

## Quick start

```console
$ helm install [RELEASE_NAME] oci://ghcr.io/acme/charts/shop --set global.replicas=2 \\
    --set global.database.host=localhost
```
"""


def test_a_charts_readme_installs_it_by_its_published_name(tree: Path) -> None:
    write(tree, {"deploy/shop/README.md": PUBLISHED_README})
    findings = lint(tree)
    [api] = preStops(findings).values()
    assert "Deployment/default/shop-api" in api.message  # the run's own release
    readme = tree / "deploy/shop/README.md"
    assert any(f"(`helm install` at {readme}:14)" in line for line in api.detail), api.detail
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO
    assert f"at {readme}:14 (a code block of a Markdown guide)" in note.message
    assert "--set global.replicas=2, global.database.host=localhost" in note.message


@pytest.mark.parametrize(
    "where",
    ["README.md", "docs/install/helm.md"],  # the repository's top, its docs
)
def test_a_guide_of_the_repository_installs_its_one_chart_of_that_name(
    tree: Path, where: str
) -> None:
    write(tree, {where: PUBLISHED_README})
    assert list(preStops(lint(tree))) == ["default/shop-api"]


def test_a_published_name_is_read_only_where_it_can_be_the_charts(tree: Path) -> None:
    write(tree, {"examples/README.md": PUBLISHED_README})  # a guide of another folder
    assert not preStops(lint(tree))
    (tree / "examples/README.md").unlink()
    other = PUBLISHED_README.replace("charts/shop", "charts/shop-ui")  # another chart
    write(tree, {"deploy/shop/README.md": other.replace("acme/shop", "acme/shop-ui")})
    assert not preStops(lint(tree))
    (tree / "deploy/shop/README.md").unlink()
    write(tree / "staging" / "shop", CHART)  # two charts of that name: which one is it?
    write(tree, {"README.md": PUBLISHED_README})
    assert not preStops(lint(tree))


# A chart that fails with its defaults (a `required` host) and whose workers are off by
# default: a documented command may render it with no workload at all.
WORKERS = {
    "Chart.yaml": "apiVersion: v2\nname: jobs\nversion: 0.1.0\n",
    "values.yaml": "workers:\n  enabled: false\n",
    "templates/configmap.yaml": """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  broker: {{ required "broker is required" .Values.broker | quote }}
""",
    "templates/deployment.yaml": """\
{{- if .Values.workers.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-worker
spec:
  replicas: 2
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
        - name: worker
          image: acme/worker:1
          ports:
            - {name: http, containerPort: 8080}
{{- end }}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-worker
spec:
  selector: {app: worker}
  ports:
    - {name: http, port: 80, targetPort: http}
""",
}

WORKERS_README = """\
```sh
helm install jobs oci://registry.example/charts/jobs --set broker=nats://nats:4222
```

With workers:

```sh
helm install jobs oci://registry.example/charts/jobs --set broker=nats://nats:4222 \\
  --set workers.enabled=true
```
"""


def test_of_several_commands_the_first_that_renders_a_workload_is_used(tree: Path) -> None:
    write(tree / "jobs", {**WORKERS, "README.md": WORKERS_README})
    findings = lint(tree)
    [worker] = preStops(findings).values()
    assert "Deployment/default/jobs-worker" in worker.message
    readme = tree / "jobs/README.md"
    assert any(f"at {readme}:8)" in line for line in worker.detail), worker.detail
    # None renders one: the first that renders is kept, the defaults' failure gone.
    write(tree / "jobs", {"README.md": WORKERS_README.replace("enabled=true", "enabled=false")})
    findings = lint(tree)
    assert not preStops(findings)
    jobs = [f for f in unrendered(findings) if "jobs" in f.message]
    assert [f.severity for f in jobs] == [Severity.INFO]
    assert f"at {readme}:2 (a code block" in jobs[0].message


# A script that deploys one stage of several, naming each values file by variables the
# script itself sets: a literal assignment and a loop over literal words.
STAGES_SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
site=eu
target_namespace=${1:-shop}

for stage in qa live; do
  echo "deploying ${stage}"
  helm upgrade --install "shop-${stage}" ./shop \\
    --values "values/${site}/${stage}.yaml" \\
    --namespace "${target_namespace}"
done
"""


def test_a_scripts_own_literal_variables_are_read_in_its_values_paths(tree: Path) -> None:
    write(
        tree,
        {
            "deploy/deploy.sh": STAGES_SCRIPT,
            "deploy/values/eu/live.yaml": SITE_VALUES,
            "deploy/values/eu/qa.yaml": "global:\n  replicas: 1\n  database: {host: db}\n",
        },
    )
    findings = lint(tree)
    [api] = preStops(findings).values()
    assert "Deployment/default/shop-qa-api" in api.message  # the loop's first stage
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO
    assert "(with stage=qa, site=eu, as the script sets them)" in note.message or (
        "(with site=eu, stage=qa, as the script sets them)" in note.message
    ), note.message
    assert "1 other command of the repository installs it too" in note.detail


@pytest.mark.parametrize(
    "assigned",
    [
        "stage=${1}",  # the script's argument
        'stage="$(cat stage.txt)"',
        "read -r stage",
        "stage=qa\nstage+=-1",
        "for stage in *.yaml; do :; done",  # a glob: the files of wherever it runs
    ],
)
def test_a_variable_the_script_does_not_set_to_a_literal_refuses_it(
    tree: Path, assigned: str
) -> None:
    command = "helm upgrade shop ./shop -f ./values/${stage}.yaml"
    write(
        tree,
        {
            "deploy/deploy.sh": f"{HERE}{assigned}\n{command}\n",
            "deploy/values/qa.yaml": SITE_VALUES,
        },
    )
    findings = lint(tree)
    assert not preStops(findings)
    assert unrendered(findings)[0].severity is Severity.WARNING


# A chart whose values schema wants a token the defaults leave empty: the Makefile
# installs it with `--set token=$(TOKEN)`, what the user types at `make install TOKEN=...`.
TOKEN_CHART = {
    "Chart.yaml": "apiVersion: v2\nname: relay\nversion: 0.1.0\n",
    "values.yaml": 'token: ""\nreplicas: 2\nmetrics:\n  enabled: false\n',
    "values.schema.json": (
        '{"type": "object", "properties": {"token": {"type": "string", "minLength": 1},'
        ' "replicas": {"type": "integer"}}}'
    ),
    "templates/deployment.yaml": """\
{{- $token := .Values.token }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: relay
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: relay}
  template:
    metadata:
      labels: {app: relay}
    spec:
      containers:
        - name: relay
          image: acme/relay:1
          env:
            - {name: TOKEN, value: {{ $token | quote }}}
          ports:
            - {name: http, containerPort: 8080}
""",
    "templates/service.yaml": """\
apiVersion: v1
kind: Service
metadata:
  name: relay
spec:
  selector: {app: relay}
  ports:
    - {name: http, port: 80, targetPort: http}
""",
}


def test_a_set_to_a_variable_the_user_gives_is_a_stand_in_string(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "charts" / "relay", TOKEN_CHART)
    recipe = "install:\n\thelm upgrade --install relay ./charts/relay --set token=$(TOKEN)\n"
    write(tmp_path, {"Makefile": recipe})
    findings = lint(tmp_path)
    [relay] = preStops(findings).values()
    assert any("token as <TOKEN>" in line for line in relay.detail), relay.detail
    [note] = unrendered(findings)
    assert note.severity is Severity.INFO
    assert "a stand-in string for what the user gives: token as <TOKEN>" in note.message


@pytest.mark.parametrize(
    "setting",
    [
        "--set replicas=$(REPLICAS)",  # a number in the chart: the user's type is unknown
        "--set metrics.enabled=$(METRICS)",  # a switch
        "--set metrics=$(METRICS)",  # a map
        "--set region=$(REGION)",  # a key the chart does not set
        "--set token=v$(VERSION)",  # not only a variable
        "--set token=$TOKEN",  # make's $T, then OKEN: not what the user gives
    ],
)
def test_a_set_to_a_variable_that_may_not_be_a_string_refuses_it(
    tmp_path: Path, setting: str
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "charts" / "relay", TOKEN_CHART)
    recipe = f"install:\n\thelm upgrade relay ./charts/relay --set token=abc {setting}\n"
    write(tmp_path, {"Makefile": recipe})
    findings = lint(tmp_path)
    assert not preStops(findings)
    assert unrendered(findings)[0].severity is Severity.WARNING


def test_a_set_string_to_a_make_variable_is_a_stand_in_a_scripts_is_not(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "charts" / "relay", TOKEN_CHART)
    command = "helm upgrade relay ./charts/relay --set-string token=${RELAY_TOKEN}"
    write(tmp_path, {"Makefile": f"install:\n\t{command}\n"})
    [relay] = preStops(lint(tmp_path)).values()
    assert any("token as <RELAY_TOKEN>" in line for line in relay.detail), relay.detail
    (tmp_path / "Makefile").unlink()
    write(tmp_path, {"deploy.sh": f"{HERE}{command}\n"})  # CI's environment, as often
    assert not preStops(lint(tmp_path))
