"""YAML that nothing applies to a cluster is no manifest: a CI pipeline (read for its
builds, by its own tool's parser), a document with a `kind` but neither `apiVersion` nor
`metadata` (a Drone pipeline, a chart's values choosing its workload's kind), and a file
a kustomization reads as data (a Helm chart's values, a generator's files). None of them
is judged as a broken object (KLB001, KLB002); a real object missing a field still is."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding

from .helpers import lint_files

DRONE = "kind: pipeline\ntype: docker\nname: default\n\nsteps:\n  - name: test\n    image: golang\n"
# GitLab takes the last of repeated keys
GITLAB = "build:\n  variables:\n    TOKEN: $TOKEN\n    TOKEN: $TOKEN\n  script: [make]\n"
VALUES = "# kind -- DaemonSet or Deployment\nkind: DaemonSet\nreplicaCount: 1\n"
REPEATED = "image:\n  repository: registry.example/agent\nimage:\n  tag: '1.0'\n"


def read_errors(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    return lint_files(tmp_path, files, ["KLB001", "KLB002"]).findings


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".drone.yml", DRONE),
        ("deploy/values/agent.yaml", VALUES),
        (".gitlab-ci.yml", GITLAB),
        (".github/workflows/build.yml", GITLAB),
        ("docker-compose.yml", "services:\n  web: {image: web}\n  web: {image: web2}\n"),
    ],
    ids=["drone-pipeline", "values-choosing-a-kind", "gitlab-ci", "workflow", "compose"],
)
def test_yaml_no_cluster_applies_is_not_judged_as_an_object(
    tmp_path: Path, name: str, text: str
) -> None:
    assert read_errors(tmp_path, {name: text}) == []


CHART_INDEX = """\
apiVersion: v1
entries:
  shop:
  - apiVersion: v2
    appVersion: 1.0.0
    created: "2025-03-01T10:00:00.000000000+01:00"
    digest: 0123abcd
    name: shop
    urls:
    - charts/shop-0.1.0.tgz
    version: 0.1.0
generated: "2025-03-01T10:00:00.000000000+01:00"
"""


def test_a_chart_repositorys_index_is_no_object_by_its_shape(tmp_path: Path) -> None:
    """`helm repo index` writes an index.yaml of `apiVersion: v1`, `entries` and
    `generated`, with no `kind`: a tool's file, skipped quietly whatever its name; a
    mapping with other keys beside `entries` is still judged."""
    assert read_errors(tmp_path, {"helm/repo/index.yaml": CHART_INDEX}) == []
    assert read_errors(tmp_path / "renamed", {"charts.yaml": CHART_INDEX}) == []
    other = CHART_INDEX.replace("generated:", "metadata: {name: shop}\ngenerated:")
    (finding,) = read_errors(tmp_path / "other", {"index.yaml": other})
    assert finding.rule == "KLB002" and "has no `kind` string" in finding.message


# another tool's package: a version with no group that Kubernetes' core group never had
PACKAGE = """\
apiVersion: v1beta1
name: nightly-checks
tasks:
  - name: prepare
    image: registry.example/tools:2.1
  - name: verify
    files: [checks/]
"""


def test_a_version_kubernetes_does_not_have_is_another_tools_file(tmp_path: Path) -> None:
    """With no `kind`, a document is a Kubernetes object only when its `apiVersion` is
    Kubernetes' (`v1` for the core group, `<group>/<version>` for the others): a bare
    `v1beta1` above a `tasks:` list is another tool's file, skipped quietly; the same
    document with `v1` or a group's version still lacks its kind."""
    assert read_errors(tmp_path, {"test/data/package/manifest.yaml": PACKAGE}) == []
    for version in ("v1", "batch/v1"):
        text = PACKAGE.replace("v1beta1", version, 1)
        (finding,) = read_errors(tmp_path / version.replace("/", "-"), {"manifest.yaml": text})
        assert finding.rule == "KLB002" and "has no `kind` string" in finding.message


# A tool's config template that a script fills before use: a block goes in where a
# placeholder stands alone, unindented to make the insertion simple
CONFIG_TEMPLATE = """\
# filled by scripts/cluster.sh before use
services:
  - api:
      port: 8080
      storage:
$STORAGE_BLOCK
      log:
        level: $LOG_LEVEL
"""
# The same kind of placeholder in a manifest envsubst fills
MANIFEST_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  template:
    spec:
      containers:
        - name: api
          env:
${EXTRA_ENV}
          image: api
"""


def test_a_config_template_broken_at_a_placeholder_line_is_told_at_info(tmp_path: Path) -> None:
    """YAML that breaks where a placeholder stands alone on its line (`$NAME`, `${NAME}`)
    and that holds no Kubernetes object's key is a template a script fills: KLB001 at info,
    saying so. A manifest broken there stays an error; a config broken elsewhere is no
    Kubernetes input, said so (tests/test_broken_yaml_no_input.py)."""
    (told,) = read_errors(tmp_path, {"tools/cluster.yaml": CONFIG_TEMPLATE})
    assert (told.rule, told.severity.label) == ("KLB001", "info")
    assert "line 6 is a placeholder (`$STORAGE_BLOCK`)" in told.message
    braced = CONFIG_TEMPLATE.replace("$STORAGE_BLOCK", "${STORAGE_BLOCK}")
    (told,) = read_errors(tmp_path / "braced", {"cluster.yaml": braced})
    assert told.severity.label == "info"
    (manifest,) = read_errors(tmp_path / "manifest", {"deploy.yaml": MANIFEST_TEMPLATE})
    assert (manifest.rule, manifest.severity.label) == ("KLB001", "error")
    broken = CONFIG_TEMPLATE.replace("$STORAGE_BLOCK", "storage_block")
    (plain,) = read_errors(tmp_path / "plain", {"cluster.yaml": broken})
    assert (plain.rule, plain.severity.label) == ("KLB001", "info")
    assert "placeholder" not in plain.message and "not a Kubernetes input" in plain.message


# An API description a program fills by string substitution (`{entity}`) before it serves
# it: YAML reads `{entity}` as a flow mapping, and a value after it breaks the document.
API_TEMPLATE = """\
openapi: 3.0.0
info:
  title: {service}
  version: {version}
paths:
  /{entity}:
    get:
      summary: List {entity} items.
      responses:
        200:
          description: {entity} items, as an array.
"""


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("api/src/main/resources/specs/openapi.yaml", "build resources (`src/main/resources/`)"),
        ("api/src/test/resources/expected.yaml", "build resources (`src/test/resources/`)"),
        ("pkg/proxy/testdata/bootstrap.yaml", "a test's data (`testdata/`)"),
        ("pkg/proxy/test_fixtures/bootstrap.yaml", "a test's data (`test_fixtures/`)"),
    ],
)
def test_broken_yaml_a_build_or_a_test_reads_is_no_manifest(
    tmp_path: Path, name: str, why: str
) -> None:
    """Where a program's build packs a file (Maven's and Gradle's `src/<set>/resources`) or
    a test keeps its data, a YAML file that holds no Kubernetes object's key is the
    program's or the test's, which no manifest tool applies: its breakage is told at info,
    saying why. The same text elsewhere is no Kubernetes input by what it holds (info, said
    so: tests/test_broken_yaml_no_input.py); a manifest among the build's resources stays
    an error, and a broken manifest among a test's data is at info as a test's data
    (tests/test_test_data.py)."""
    (told,) = read_errors(tmp_path, {name: API_TEMPLATE})
    assert (told.rule, told.severity.label) == ("KLB001", "info")
    assert why in told.message and "not a manifest" in told.message
    (elsewhere,) = read_errors(tmp_path / "elsewhere", {"deploy/openapi.yaml": API_TEMPLATE})
    assert elsewhere.severity.label == "info" and "not a manifest" not in elsewhere.message
    manifest = "apiVersion: v1\nkind: ConfigMap\n" + API_TEMPLATE.replace("openapi", "data", 1)
    (broken,) = read_errors(tmp_path / "manifest", {name: manifest})
    in_test = "test's data" in why
    assert broken.severity.label == ("info" if in_test else "error")
    assert ("no deploy tool applies it" in " ".join(broken.detail)) == in_test


REPEATING_KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization

namespace: shop
resources:
  - ../../base

images:
  - name: api
    newTag: "1.4"

apiVersion: kustomize.config.k8s.io/v1beta1
"""


def test_a_kustomization_that_repeats_a_key_is_read_as_kustomize_reads_it(tmp_path: Path) -> None:
    """kustomize reads its kustomization file leniently (the last of a repeated key kept,
    as sigs.k8s.io/yaml's YAMLToJSON does): it builds. The same value given twice loses
    nothing (info); another value drops the first (warning). A manifest that repeats a key
    stays an error."""
    (same,) = read_errors(tmp_path, {"overlays/dev/kustomization.yaml": REPEATING_KUSTOMIZATION})
    assert (same.rule, same.severity.label, same.line) == ("KLB001", "info", 12)
    assert "nothing is lost" in same.message and "kustomize builds" in same.message
    other = REPEATING_KUSTOMIZATION.replace(
        "\napiVersion: kustomize.config.k8s.io/v1beta1\n",
        '\nimages:\n  - name: api\n    newTag: "1.5"\n',
    )
    (dropped,) = read_errors(tmp_path / "other", {"kustomization.yaml": other})
    assert (dropped.severity.label, dropped.rule) == ("warning", "KLB001")
    assert "the first dropped" in dropped.message
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\napiVersion: v1\n"
    (error,) = read_errors(tmp_path / "manifest", {"configmap.yaml": manifest})
    assert error.severity.label == "error"


def test_an_object_missing_its_api_version_is_still_an_error(tmp_path: Path) -> None:
    manifest = "kind: Deployment\nmetadata:\n  name: web\nspec: {}\n"
    (finding,) = read_errors(tmp_path, {"deploy.yaml": manifest})
    assert finding.rule == "KLB002" and "has no `apiVersion` string" in finding.message


CHART = "apiVersion: v2\nname: shop\ntype: application\nversion: 0.1.0\nappVersion: '1.0'\n"
TEMPLATE = (
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-web\n"
    "spec:\n  selector: {app: web}\n  ports: [{port: 80}]\n"
)


def test_a_charts_metadata_named_in_lowercase_says_helm_needs_chart_yaml(
    tmp_path: Path,
) -> None:
    """Helm loads no chart from `chart.yaml`: the error says so at that path, not that a
    manifest has no kind; the templates beside it, rendered by nothing, are each skipped
    (KLB003, info)."""
    files = {"chart/chart.yaml": CHART, "chart/templates/service.yaml": TEMPLATE}
    result = lint_files(tmp_path, files, ["KLB002", "KLB003"])
    misnamed, template = result.findings
    assert (misnamed.rule, misnamed.path, misnamed.line) == (
        "KLB002",
        str(tmp_path / "chart/chart.yaml"),
        1,
    )
    assert "Helm reads only `Chart.yaml`" in misnamed.message
    assert "no `kind`" not in misnamed.message
    assert misnamed.detail[0].startswith("rename it to Chart.yaml")
    assert (template.rule, template.severity.label) == ("KLB003", "info")
    assert template.path.endswith("chart/templates/service.yaml")


def test_a_lowercase_chart_yaml_that_is_no_charts_metadata_is_judged_as_a_manifest(
    tmp_path: Path,
) -> None:
    (finding,) = read_errors(tmp_path, {"chart.yaml": "apiVersion: v1\nmetadata: {name: x}\n"})
    assert "has no `kind` string" in finding.message


KUSTOMIZATION = """\
resources:
  - deploy.yaml
helmCharts:
  - name: agent
    repo: https://charts.example
    valuesFile: values/agent.yaml
    additionalValuesFiles:
      - values/extra.yaml
configMapGenerator:
  - name: app
    files:
      - application.yaml
      - logging=config/logging.yaml
"""
DEPLOYMENT = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"


def test_files_a_kustomization_reads_as_data_are_not_manifests(tmp_path: Path) -> None:
    files = {
        "k8s/kustomization.yaml": KUSTOMIZATION,
        "k8s/deploy.yaml": DEPLOYMENT,
        **{
            f"k8s/{name}": REPEATED
            for name in (
                "values/agent.yaml",
                "values/extra.yaml",
                "application.yaml",
                "config/logging.yaml",
            )
        },
    }
    assert read_errors(tmp_path, files) == []
    # a file of the tree no kustomization names is read as a manifest still
    files["k8s/other.yaml"] = REPEATED
    (finding,) = read_errors(tmp_path, files)
    assert (finding.rule, Path(finding.path).name) == ("KLB001", "other.yaml")


# Another program's record written by a YAML serialiser (a Java class's tag, every field
# of it, those not set as `null`): two of its fields are named `kind` and `apiVersion`
SERIALISED = """\
!!com.example.catalog.PackageInfo
apiVersion: null
kind: null
name: orders
owner: team-a
version: 1.0.0
"""


def test_a_kind_written_null_is_no_kind(tmp_path: Path) -> None:
    """`kind: null` names no kind and `apiVersion: null` no version: the document is
    another program's record, not an object that lacks them; with a version Kubernetes
    has, it still is one, missing its kind."""
    assert read_errors(tmp_path, {"src/test/resources/package.yml": SERIALISED}) == []
    text = SERIALISED.replace("apiVersion: null", "apiVersion: apps/v1", 1)
    (finding,) = read_errors(tmp_path / "versioned", {"package.yml": text})
    assert finding.rule == "KLB002" and "has no `kind` string" in finding.message
