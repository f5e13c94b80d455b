"""A chart whose Chart.yaml its build makes is linted as the build makes it:

- a folder with `templates/` and a values.yaml whose only chart file is a template of one
  (`Chart-template.yaml`, which a Makefile's `envsubst` turns into Chart.yaml) is a chart,
  rendered with that file as its Chart.yaml, its placeholders stood in for; so is such a
  folder that another chart takes as a dependency (`file://../tools/cache`);
- a chart that Maven's resource filtering copies (`<filtering>true</filtering>` on a
  folder at or above it) is rendered with the `${...}` its POM and the POM's parents
  define put in, and a version Helm accepts for what is left in Chart.yaml's versions.

Each is said once, at info; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.reading.chart_made import is_made_name, stood_in
from k8slb.reading.charts import HelmOptions, pack, render_charts

from .helpers import lint_paths
from .test_helmfile import preStops, write

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Chart.Name }}}
  template:
    metadata:
      labels: {app: {{ .Chart.Name }}}
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image }}"
          ports:
            - {name: http, containerPort: {{ .Values.port }}}
          readinessProbe:
            httpGet: {path: /ready, port: http}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
spec:
  selector: {app: {{ .Chart.Name }}}
  ports:
    - {name: http, port: 80, targetPort: http}
"""

# What a Makefile turns into Chart.yaml with `VERSION=... envsubst`
PLATFORM = {
    "Chart-template.yaml": (
        "apiVersion: v2\n"
        "name: platform\n"
        "version: ${VERSION}\n"
        "appVersion: $VERSION\n"
        "dependencies:\n"
        "  - name: cache\n"
        "    version: ${VERSION}\n"
        "    repository: file://../tools/cache\n"
        "    condition: cache.enabled\n"
        "  - name: search\n"
        "    version: ${SEARCH_VERSION}\n"
        "    repository: ${SEARCH_REPOSITORY}\n"
        "    condition: search.enabled\n"
    ),
    "values.yaml": (
        "replicas: 2\nimage: registry.example/platform:1\nport: 8080\n"
        "cache:\n  enabled: true\nsearch:\n  enabled: false\n"
    ),
    "templates/deployment.yaml": DEPLOYMENT,
}
CACHE = {
    "Chart.tpl.yaml": "apiVersion: v2\nname: cache\nversion: {{ .Version }}\n",
    "values.yaml": "replicas: 2\nimage: registry.example/cache:1\nport: 6000\n",
    "templates/deployment.yaml": DEPLOYMENT,
}


@pytest.fixture
def made(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "helm" / "platform", PLATFORM)
    write(tmp_path / "helm" / "tools" / "cache", CACHE)
    return tmp_path


def lint(tree: Path) -> list[Finding]:
    return lint_paths([str(tree)], ("KLB401", "KLB003")).findings


def notes(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "KLB003"]


def test_a_folder_whose_chart_file_is_a_template_of_one_is_rendered_as_a_chart(
    made: Path,
) -> None:
    findings = lint(made)
    chart = made / "helm" / "platform"
    found = preStops(findings)
    assert found["default/platform-platform"].path == str(chart / "templates/deployment.yaml")
    [built] = [f for f in notes(findings) if f.path == str(chart / "Chart-template.yaml")]
    assert built.severity is Severity.INFO and "as its build makes it" in built.message
    assert f"Chart.yaml made from {chart / 'Chart-template.yaml'}" in built.message
    assert "${VERSION} as '0.0.0'" in built.message
    assert "${SEARCH_REPOSITORY} as 'search-repository'" in built.message
    assert built.line == 3  # the first line the build fills
    assert not any("template text" in f.message for f in findings)  # no loose templates


def test_a_dependency_by_folder_made_so_too_is_rendered_in_its_user(made: Path) -> None:
    findings = lint(made)
    cache = made / "helm" / "tools" / "cache"
    # packed from its folder into the platform's release, its Chart.yaml made from its
    # own template (`{{ .Version }}`)
    found = preStops(findings)
    assert found["default/platform-cache"].path == str(cache / "templates/deployment.yaml")
    [built] = [
        f
        for f in notes(findings)
        if f.path == str(made / "helm/platform/Chart-template.yaml")
        if "build makes" in f.message
    ]
    assert str(cache / "Chart.tpl.yaml") in built.message


@pytest.mark.parametrize(
    "name", ["Chart-template.yaml", "Chart.yaml.tmpl", "Chart.tpl.yaml", "chart.yaml.in"]
)
def test_names_that_say_a_file_is_a_template_of_chart_yaml(name: str) -> None:
    assert is_made_name(name)


@pytest.mark.parametrize("name", ["Chart.yaml", "Chart.lock", "Chart-prod.yaml", "charts.yaml"])
def test_names_that_do_not(name: str) -> None:
    assert not is_made_name(name)


@pytest.mark.parametrize(
    ("left_out", "why"),
    [("values.yaml", "no values.yaml"), ("templates/deployment.yaml", "no templates/")],
)
def test_a_template_of_chart_yaml_alone_makes_no_chart(
    tmp_path: Path, left_out: str, why: str
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "cache", {k: v for k, v in CACHE.items() if k != left_out})
    assert not preStops(lint(tmp_path)), why


def test_a_chart_yaml_beside_its_template_is_the_chart_file(made: Path) -> None:
    cache = made / "helm" / "tools" / "cache"
    write(cache, {"Chart.yaml": "apiVersion: v2\nname: cache\nversion: 3.0.0\n"})
    findings = lint(made)
    assert "default/platform-cache" in preStops(findings)
    assert not any(str(cache) in f.path or "Chart.tpl" in f.message for f in notes(findings))


def test_placeholders_of_a_template_of_chart_yaml_are_all_stood_in_for() -> None:
    text, said = stood_in(
        "# built by ${TOOL}\nname: ${NAME}\nversion: v${VERSION}\nkubeVersion: '>=$KUBE'\n",
        lambda name: "2.1.0" if name == "VERSION" else None,
        every=True,
    )
    assert text == "# built by ${TOOL}\nname: name\nversion: v2.1.0\nkubeVersion: '>=0.0.0'\n"
    assert said == {"${NAME}": "name", "${VERSION}": "2.1.0", "$KUBE": "0.0.0"}


def test_a_chart_yaml_as_committed_has_its_versions_stood_in_for_only() -> None:
    text, _ = stood_in(
        "name: app\ndescription: costs $5 or ${PRICE}\nversion: ${project.version}\n",
        lambda _: None,
        every=False,
    )
    assert text == "name: app\ndescription: costs $5 or ${PRICE}\nversion: 0.0.0\n"


# A Maven module whose pom.xml copies its Helm chart with filtering on: its Chart.yaml,
# values and helpers name properties the module's parent POM defines.
PARENT_POM = """\
<project>
  <groupId>org.example.fleet</groupId>
  <artifactId>fleet-parent</artifactId>
  <version>2.4.0-SNAPSHOT</version>
  <packaging>pom</packaging>
  <properties>
    <!-- one port for health and metrics -->
    <health.port>8088</health.port>
    <image.registry>registry.example</image.registry>
    <image.prefix>${image.registry}/fleet</image.prefix>
  </properties>
</project>
"""
MODULE_POM = """\
<project>
  <parent>
    <groupId>org.example.fleet</groupId>
    <artifactId>fleet-parent</artifactId>
    <version>2.4.0-SNAPSHOT</version>
  </parent>
  <artifactId>fleet-deploy</artifactId>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-resources-plugin</artifactId>
        <executions>
          <execution>
            <id>helm</id>
            <goals><goal>copy-resources</goal></goals>
            <configuration>
              <outputDirectory>${project.build.directory}/helm</outputDirectory>
              <resources>
                <resource>
                  <directory>${project.basedir}/src/main/helm</directory>
                  <includes><include>*.txt</include></includes>
                  <filtering>false</filtering>
                </resource>
                <resource>
                  <directory>${project.basedir}/src/main/helm</directory>
                  <filtering>true</filtering>
                </resource>
              </resources>
            </configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
"""
FILTERED = {
    "Chart.yaml": (
        "apiVersion: v1\n# the Maven project's version\nversion: ${project.version}\n"
        "appVersion: ${project.version}\nname: fleet\n"
    ),
    "values.yaml": (
        "replicas: 2\nimage: ${image.prefix}/tracker:${project.version}\n"
        "healthPort: ${health.port}\njavaOptions: ${java.options}\n"
    ),
    "templates/_helpers.tpl": (
        '{{- define "fleet.port" -}}{{ default ${health.port} .Values.port }}{{- end -}}\n'
    ),
    "templates/deployment.yaml": DEPLOYMENT.replace(
        "{{ .Values.port }}", '{{ include "fleet.port" . }}'
    ),
}


@pytest.fixture
def maven(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"pom.xml": PARENT_POM, "deploy/pom.xml": MODULE_POM})
    write(tmp_path / "deploy" / "src" / "main" / "helm", FILTERED)
    return tmp_path


def test_a_chart_maven_filters_is_rendered_with_the_poms_properties(maven: Path) -> None:
    findings = lint(maven)
    chart = maven / "deploy" / "src" / "main" / "helm"
    found = preStops(findings)["default/fleet-fleet"]
    assert found.path == str(chart / "templates/deployment.yaml")
    [built] = notes(findings)
    assert built.severity is Severity.INFO
    assert (built.path, built.line) == (str(chart / "Chart.yaml"), 3)
    assert "${project.version} as '2.4.0-SNAPSHOT'" in built.message
    assert "${health.port} as '8088'" in built.message
    assert "${image.prefix} as 'registry.example/fleet'" in built.message
    assert f"from {maven / 'deploy/pom.xml'} and its parents" in built.message
    assert "java.options" not in built.message  # no POM defines it: left as Maven leaves it


def test_what_the_filtered_chart_renders_carries_the_properties(maven: Path) -> None:
    chart = str(maven / "deploy" / "src" / "main" / "helm")
    [[rendering]] = render_charts([(chart, HelmOptions(), pack(chart))])
    [text] = rendering.files.values()
    assert 'image: "registry.example/fleet/tracker:2.4.0-SNAPSHOT"' in text
    assert "containerPort: 8088}" in text
    # the chart's files as committed: what a fix edits
    assert b"${health.port}" in rendering.members["values.yaml"]


def test_a_chart_no_pom_filters_has_its_chart_versions_stood_in_for(maven: Path) -> None:
    (maven / "deploy" / "pom.xml").write_text(MODULE_POM.replace("src/main/helm", "src/other"))
    (maven / "deploy/src/main/helm/templates/_helpers.tpl").write_text(
        '{{- define "fleet.port" -}}8088{{- end -}}\n'
    )
    findings = lint(maven)
    assert "default/fleet-fleet" in preStops(findings)
    [built] = notes(findings)
    assert "${project.version} as '0.0.0'" in built.message
    assert "pom.xml" not in built.message
