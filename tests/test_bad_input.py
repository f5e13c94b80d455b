"""Bad input gets a clear finding with path and line, and the rest of the run goes on."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from k8slb.core.findings import Finding
from k8slb.reading.manifests import load_manifests
from k8slb.rulekit.examples import READY, web_deployment

from .helpers import lint_files, rules_of

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: {app: api}
  sessionAffinity: ClientIP
  ports:
    - port: 80
"""


def _only(result_findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in result_findings if f.rule == rule]


def test_an_empty_file_is_fine(tmp_path: Path) -> None:
    result = lint_files(tmp_path, {"empty.yaml": "", "comments.yaml": "# nothing yet\n"})
    assert result.findings == [] and result.errors == []
    assert result.files == 2


def test_a_syntax_error_is_klb001_with_its_line_and_other_files_still_lint(tmp_path: Path) -> None:
    result = lint_files(
        tmp_path,
        {
            "broken.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: [oops\n",
            "ok.yaml": SERVICE,
        },
    )
    (broken,) = _only(result.findings, "KLB001")
    assert broken.path.endswith("broken.yaml")
    assert broken.line == 5 and "not valid YAML" in broken.text
    assert _only(result.findings, "KLB104"), "the other file was still linted"


def test_the_documents_after_a_broken_one_are_still_linted(tmp_path: Path) -> None:
    text = "a: [1\n---\n" + SERVICE
    result = lint_files(tmp_path, {"m.yaml": text})
    assert rules_of(result.findings) == ["KLB001", "KLB104"]
    assert result.findings[1].object is not None and result.findings[1].object.document == 1


def test_scalar_and_list_documents_amid_manifests_are_klb002(tmp_path: Path) -> None:
    text = SERVICE + "---\njust a string\n---\n- a\n- b\n"
    result = lint_files(tmp_path, {"m.yaml": text})
    problems = _only(result.findings, "KLB002")
    assert [(f.line, f.text) for f in problems] == [
        (11, "document 1 is a scalar, not a Kubernetes object"),
        (13, "document 2 is a list, not a Kubernetes object"),
    ]


def test_yaml_that_holds_no_manifest_is_skipped_quietly(tmp_path: Path) -> None:
    workflow = "name: ci\non: [push]\njobs:\n  test: {runs-on: ubuntu-latest}\n"
    result = lint_files(tmp_path, {".github/ci.yml": workflow, "list.yaml": "- a\n- b\n"})
    assert result.findings == [] and result.other_documents == 2


def test_an_object_with_no_kind_is_klb002(tmp_path: Path) -> None:
    result = lint_files(tmp_path, {"m.yaml": "apiVersion: v1\nmetadata:\n  name: x\n"})
    (finding,) = result.findings
    assert finding.rule == "KLB002" and "no `kind`" in finding.text
    assert (finding.line, finding.column) == (1, 1)


def test_a_string_where_a_list_belongs_is_klb002_not_a_traceback(tmp_path: Path) -> None:
    text = SERVICE.replace("  ports:\n    - port: 80\n", '  ports: "80"\n')
    result = lint_files(tmp_path, {"m.yaml": text})
    (finding,) = result.findings
    assert finding.rule == "KLB002"
    assert finding.message == "Service/api: spec.ports must be a list, not the string '80'"
    assert finding.line == 8
    assert finding.object is not None and finding.object.name == "api"


def test_an_object_with_a_bad_shape_is_left_out_of_the_other_rules(tmp_path: Path) -> None:
    text = SERVICE.replace("    - port: 80\n", "    - port: eighty\n")
    result = lint_files(tmp_path, {"m.yaml": text})
    assert rules_of(result.findings) == ["KLB002"], "no KLB104 on a half-understood object"
    assert "spec.ports[0].port must be an integer" in result.findings[0].message


SERVED = web_deployment(READY)  # a Deployment with a readiness probe, and its Service
PROBE = "          readinessProbe:\n            httpGet: {path: /ready, port: http}\n"


@pytest.mark.parametrize(
    ("broken", "silenced", "still"),
    [
        # a probe of the wrong shape: the rules that read probes skip the object
        (
            (PROBE, "          readinessProbe: yes\n"),
            "KLB302",
            "KLB401",
        ),
        # a grace period of the wrong shape: the rules that read how pods stop skip it
        (
            (
                "    spec:\n      containers:\n",
                "    spec:\n      terminationGracePeriodSeconds: half\n      containers:\n",
            ),
            "KLB401",
            "KLB302",
        ),
    ],
    ids=["probe", "grace"],
)
def test_a_bad_shape_in_a_separable_field_silences_only_the_rules_that_read_it(
    tmp_path: Path, broken: tuple[str, str], silenced: str, still: str
) -> None:
    """A wrong probe must not hide a missing preStop hook, nor a wrong grace period a
    missing readiness probe."""
    old, new = broken
    text = SERVED.replace(old, new)
    if silenced == "KLB401":
        text = text.replace(PROBE, "")
    assert text != SERVED
    result = lint_files(tmp_path, {"m.yaml": text}, ["KLB002", silenced, still])
    assert sorted(rules_of(result.findings)) == sorted(["KLB002", still])
    (problem,) = _only(result.findings, "KLB002")
    assert problem.detail[0].startswith("the rules that read `")
    assert problem.detail[0].endswith("` skip this object; the others still check it")


def test_a_bad_shape_in_a_field_that_links_objects_leaves_the_object_out_whole(
    tmp_path: Path,
) -> None:
    """A wrong container port or label could tie the object to the wrong Services."""
    text = SERVED.replace("containerPort: 8080", "containerPort: web")
    result = lint_files(tmp_path, {"m.yaml": text}, ["KLB002", "KLB401", "KLB302"])
    assert rules_of(result.findings) == ["KLB002"]
    assert result.findings[0].detail == ()


NULLS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: null}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: null
      containers:
      - name: web
        image: null
        ports: [{containerPort: 8080, name: null, protocol: null}]
        readinessProbe:
          httpGet: {path: null, port: 8080, scheme: null, host: null}
          periodSeconds: null
        lifecycle: {preStop: {sleep: {seconds: 40}}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  type: null
  clusterIP: null
  sessionAffinity: null
  selector: {app: web}
  ports: [{port: 80, targetPort: null, name: null, appProtocol: null}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: null, kind: Deployment, name: web}
  minReplicas: null
  maxReplicas: 10
"""


def test_an_explicit_null_on_an_optional_field_is_not_set(tmp_path: Path) -> None:
    """What a template writes for an unset value: Kubernetes reads it as absent, so it is
    no KLB002, and the rules read the defaults (a 30 s grace against a 40 s pause; the
    Service's port 80 as its target port)."""
    result = lint_files(tmp_path, {"m.yaml": NULLS})
    assert rules_of(result.findings) == ["KLB402"]
    assert "30 s" in result.findings[0].message


def test_a_file_that_is_not_utf8_is_klb001_naming_the_line(tmp_path: Path) -> None:
    data = SERVICE.encode().replace(b"name: api", b"name: caf\xe9")
    result = lint_files(tmp_path, {"latin1.yaml": data, "ok.yaml": SERVICE})
    (finding,) = _only(result.findings, "KLB001")
    assert finding.path.endswith("latin1.yaml")
    assert (finding.line, finding.column) == (4, 12) and "not UTF-8 (byte 0xe9)" in finding.text
    assert _only(result.findings, "KLB104")


def test_a_bom_and_utf16_are_read(tmp_path: Path) -> None:
    result = lint_files(
        tmp_path,
        {"bom.yaml": b"\xef\xbb\xbf" + SERVICE.encode(), "u16.yaml": SERVICE.encode("utf-16")},
    )
    assert rules_of(result.findings) == ["KLB104", "KLB104"]


def test_a_binary_file_named_yaml_is_klb001(tmp_path: Path) -> None:
    result = lint_files(tmp_path, {"image.yaml": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"})
    (finding,) = result.findings
    assert finding.rule == "KLB001" and "binary" in finding.text


def test_control_characters_are_klb001_with_a_position(tmp_path: Path) -> None:
    result = lint_files(tmp_path, {"m.yaml": "a: 1\nb: x\x07y\n"})
    (finding,) = result.findings
    assert finding.rule == "KLB001" and (finding.line, finding.column) == (2, 5)


def test_a_helm_template_is_klb003_and_skipped(tmp_path: Path) -> None:
    template = (
        'apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include "app.fullname" . }}\n'
        "spec:\n  {{- if .Values.affinity }}\n  sessionAffinity: ClientIP\n  {{- end }}\n"
    )
    result = lint_files(tmp_path, {"templates/service.yaml": template})
    (finding,) = result.findings
    assert finding.rule == "KLB003" and (finding.line, finding.column) == (4, 9)
    assert "helm template" in finding.text


def test_template_text_in_a_quoted_value_over_several_lines_is_data_and_the_file_is_linted(
    tmp_path: Path,
) -> None:
    # a dashboard's JSON in a ConfigMap, its double-quoted value folded over lines: a line
    # of it reads `name }} : {{ other }}`, as a `key: {{ value }}` would
    dashboard = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboards\ndata:\n"
        '  board.json: "{\\"targets\\":[{\\"legendFormat\\":\\"{{\n'
        '    source }} : {{ code }}\\"}]}"\n---\n'
    )
    result = lint_files(
        tmp_path, {"grafana.yaml": dashboard + SERVICE}, select=["KLB003", "KLB104"]
    )
    assert rules_of(result.findings) == ["KLB104"]  # the Service after it is linted


def test_a_template_action_after_template_text_in_a_quoted_value_is_still_klb003(
    tmp_path: Path,
) -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n"
        '  a: "{{\n    x }} : {{ y }}"\n  replicas: {{ .Values.n }}\n'
    )
    result = lint_files(tmp_path, {"m.yaml": text})
    (finding,) = result.findings
    assert finding.rule == "KLB003" and (finding.line, finding.column) == (8, 13)


def test_a_template_line_the_yaml_scanner_cannot_read_is_klb003(tmp_path: Path) -> None:
    text = "a: 1\n{{- if .Values.x }}\nb: 2\n{{- end }}\n"
    result = lint_files(tmp_path, {"m.yaml": text})
    (finding,) = result.findings
    assert finding.rule == "KLB003" and (finding.line, finding.column) == (2, 1)


def test_a_template_after_a_document_yaml_cannot_scan_is_still_found() -> None:
    from k8slb.reading.manifests import find_template

    data = 'a: "x\n  {{ y }} : {{ z }}"\n'  # template text in a value, then a broken document
    assert find_template(data + "---\nb: [\n") is None
    assert find_template(data + "---\nb: [\n---\nc: {{ .Values.x }}\n") == (6, 4)


def test_an_alias_bomb_neither_hangs_nor_eats_memory(tmp_path: Path) -> None:
    lines = ["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:"]
    lines.append('  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]')
    lines += [f"  a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
    result = lint_files(tmp_path, {"bomb.yaml": "\n".join(lines) + "\n", "ok.yaml": SERVICE})
    assert rules_of(result.findings) == ["KLB001", "KLB104"]
    assert "alias bomb" in result.findings[0].message


def test_unknown_kinds_and_crds_are_counted_never_an_error(tmp_path: Path) -> None:
    crd_object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n"
    # a Service of another API group is no core Service
    other_service = (
        "apiVersion: mesh.example.com/v1\nkind: Service\nmetadata: {name: k}\n"
        "spec:\n  template: {spec: {containers: [{image: x}]}}\n"
    )
    result = lint_files(tmp_path, {"w.yaml": crd_object, "k.yaml": other_service})
    assert result.findings == []
    assert result.objects == 2 and result.unknown_kinds == 2


def test_a_kind_list_is_unpacked_and_items_are_numbered(tmp_path: Path) -> None:
    items = "".join(
        "  - " + line + "\n" if i == 0 else "    " + line + "\n"
        for i, line in enumerate(SERVICE.splitlines())
    )
    text = "apiVersion: v1\nkind: List\nitems:\n" + items + items.replace("name: api", "name: b")
    result = lint_files(tmp_path, {"list.yaml": text})
    refs = [f.object for f in result.findings]
    assert [(r.name, r.document, r.item) for r in refs if r] == [("api", 0, 0), ("b", 0, 1)]


def test_helm_chart_metadata_is_not_a_manifest(tmp_path: Path) -> None:
    chart = "apiVersion: v2\nname: shop\nversion: 1.2.3\ndescription: the shop\n"
    result = lint_files(tmp_path, {"chart/Chart.yaml": chart, "chart/values.yaml": "replicas: 3\n"})
    assert result.findings == [] and result.errors == []
    # elsewhere, `apiVersion: v2` with no group is no version Kubernetes has: not an object;
    # Helm 2's `v1` is the core group's, so there the text is a slip (an object with no kind)
    elsewhere = lint_files(tmp_path / "other", {"meta.yaml": chart})
    assert elsewhere.findings == []
    old = lint_files(tmp_path / "old", {"meta.yaml": chart.replace("v2", "v1")})
    assert rules_of(old.findings) == ["KLB002"], "the same text with `v1` is a slip"


def test_the_users_code_is_read_without_printing_its_warnings(tmp_path: Path) -> None:
    """An invalid escape in a Python file is the file's business (Python 3.12 prints a
    SyntaxWarning when it compiles one): k8slb reads the code, it does not run it."""
    import os
    import subprocess
    import sys

    (tmp_path / "server.py").write_text(
        'import grpc\nPATTERN = "\\d+"\nserver = grpc.server(None)\nTAG = "\\h"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", "check", "--isolated", "--no-cache", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "always"},
    )
    assert done.returncode in (0, 1), done.stderr
    assert "escape" not in done.stderr and "Warning" not in done.stderr, done.stderr


def test_the_fields_left_out_travel_with_the_object_through_the_cache() -> None:
    text = SERVED.replace(PROBE, "          readinessProbe: 1\n")
    (deployment, _) = load_manifests("m.yaml", text.encode()).objects
    assert deployment.damaged == {"readinessProbe"}
    assert "readinessProbe" not in deployment.body["spec"]["template"]["spec"]["containers"][0]
    assert pickle.loads(pickle.dumps(deployment)).damaged == {"readinessProbe"}


def test_yaml_whose_api_version_is_not_kubernetes_is_no_object(tmp_path: Path) -> None:
    """Grafana's provisioning files (often shipped in a chart) say `apiVersion: 1`: not a
    Kubernetes object missing its kind, just other YAML. `apiVersion: v1` with no kind is
    still a slip."""
    grafana = "apiVersion: 1\ndatasources:\n  - name: Prometheus\n    type: prometheus\n"
    providers = 'apiVersion: "1"\nproviders:\n  - name: default\n    folder: ""\n'
    result = lint_files(tmp_path, {"datasources.yaml": grafana, "dashboards.yaml": providers})
    assert result.findings == [] and result.other_documents == 2
    slip = lint_files(tmp_path / "slip", {"m.yaml": "apiVersion: apps/v1\nmetadata: {}\n"})
    assert rules_of(slip.findings) == ["KLB002"]


# A deploy tool's manifest (azd's `*.tmpl.yaml`): Go-template actions only where a scalar
# value goes, filled from the environment before the file is applied.
FILLED = (
    web_deployment(service=True)
    .replace("image: registry.example/web:1.0", "image: {{.Env.SERVICE_WEB_IMAGE_NAME}}")
    .replace(
        "containerPort: 8080",
        "containerPort: 8080\n          env:\n"
        "            - name: CLIENT_ID\n              value: {{ .Env.CLIENT_ID }}  # azd",
    )
)


def test_a_file_whose_template_actions_are_only_scalar_values_is_read_with_them_unknown(
    tmp_path: Path,
) -> None:
    """Each `{{.Env.X}}` stands for one value; the YAML around it is as written, so the
    Deployment and its Service are judged, the placeholders read as values not known.
    The file is no YAML until filled: what is found gets no fix."""
    result = lint_files(tmp_path, {"manifests/deployment.tmpl.yaml": FILLED})
    assert rules_of(result.findings) == ["KLB302", "KLB401"]
    assert all(not f.fix.available and not f.edits for f in result.findings)


@pytest.mark.parametrize(
    "structure",
    [
        "  {{- if .Env.HA }}\n  minReadySeconds: 5\n  {{- end }}\n",  # a block
        "  {{.Env.KEY}}: 5\n",  # a key
        "  minReadySeconds: {{ .Env.WAIT | default 5 }}\n",  # a pipeline
        "  minReadySeconds: {{.Env.A}}{{.Env.B}}\n",  # two actions
    ],
)
def test_a_file_with_one_template_action_that_is_structure_is_still_klb003(
    tmp_path: Path, structure: str
) -> None:
    text = FILLED.replace("spec:\n  replicas", "spec:\n" + structure + "  replicas", 1)
    result = lint_files(tmp_path, {"manifests/deployment.tmpl.yaml": text})
    assert rules_of(result.findings) == ["KLB003"]


def test_a_number_not_known_is_never_read_as_its_default(tmp_path: Path) -> None:
    """`replicas: {{.Env.REPLICAS}}` is not one replica: nothing says so of the pods."""
    text = FILLED.replace(
        "replicas: 3", "replicas: {{.Env.REPLICAS}}\n  strategy: {type: Recreate}"
    )
    result = lint_files(tmp_path, {"manifests/deployment.tmpl.yaml": text})
    assert not [f for f in result.findings if "one replica" in f.text]
    assert "KLB003" not in rules_of(result.findings) and "KLB002" not in rules_of(result.findings)


# A deploy script's manifest (`sed -e "s/{{cluster}}/$NAME/g" file | kubectl apply -f -`):
# names in double braces where a value goes, some opening a longer word.
SCRIPTED = (
    web_deployment(service=True)
    .replace("  name: web\nspec:\n  replicas: 3", "  name: web-{{cluster}}\nspec:\n  replicas: 3")
    .replace("image: registry.example/web:1.0", "image: {{ REGISTRY }}/web:1.0")
    .replace(
        "containerPort: 8080",
        "containerPort: 8080\n          volumeMounts:\n"
        "            - name: config\n              subPath: {{cluster}}-kubeconfig\n"
        "              mountPath: /etc/kubeconfig",
    )
    .replace("  selector:\n    app: web", "  type: {{service_type}}\n  selector:\n    app: web")
)


def test_a_file_whose_values_are_double_brace_names_is_read_with_them_unknown(
    tmp_path: Path,
) -> None:
    """`{{name}}` and `{{ NAME }}` where a value goes (or opening one: `{{cluster}}-x`)
    are what a script fills: the objects are judged, each placeholder a string not known,
    and nothing found gets a fix that would rewrite the file around them."""
    assert "{{service_type}}" in SCRIPTED and "subPath: {{cluster}}" in SCRIPTED
    result = lint_files(tmp_path, {"deploy/web.yaml": SCRIPTED})
    assert rules_of(result.findings) == ["KLB302", "KLB401"]
    assert all(not f.fix.available and not f.edits for f in result.findings)
    (deployment, service) = load_manifests("web.yaml", SCRIPTED.encode()).objects
    mount = deployment.body["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]
    assert mount["subPath"] == "{{cluster}}-kubeconfig"
    assert service.body["spec"]["type"] == "{{service_type}}"


@pytest.mark.parametrize(
    "structure",
    [
        "  {{ end }}\n",  # Go's word, not a name
        "  minReadySeconds: {{ wait }} seconds\n",  # more than one word
        "  minReadySeconds: {{a}}-{{b}}\n",  # two placeholders
        "  minReadySeconds: {{a}}'s\n",  # a quote the value would need escaped
        "  {{extra}}\n",  # a block a script puts in, alone on its line
    ],
)
def test_a_double_brace_name_that_is_no_one_value_leaves_the_file_a_template(
    tmp_path: Path, structure: str
) -> None:
    text = SCRIPTED.replace("spec:\n  replicas", "spec:\n" + structure + "  replicas", 1)
    result = lint_files(tmp_path, {"deploy/web.yaml": text})
    assert rules_of(result.findings) == ["KLB003"]


def test_a_replica_count_that_is_a_placeholder_is_not_known_yet_judged(tmp_path: Path) -> None:
    """`replicas: {{replicas}}` is neither one pod nor none: the Deployment is judged (no
    KLB002, no finding lost) and nothing calls it one replica."""
    text = SCRIPTED.replace("replicas: 3", "replicas: {{replicas}}\n  strategy: {type: Recreate}")
    result = lint_files(tmp_path, {"deploy/web.yaml": text})
    assert rules_of(result.findings) == ["KLB302", "KLB401"]
    assert not [f for f in result.findings if "one replica" in f.text]
    (deployment, _) = load_manifests("web.yaml", text.encode()).objects
    assert deployment.body["spec"]["replicas"] == "{{replicas}}"


def test_a_go_field_that_opens_a_longer_word_leaves_the_file_a_template(tmp_path: Path) -> None:
    """`{{ .Release.Name }}-web` is how a chart's template builds a name: only a name
    with no dot (a script's placeholder) may open a longer word."""
    text = SCRIPTED.replace("subPath: {{cluster}}-kubeconfig", "subPath: {{ .Values.c }}-kc")
    result = lint_files(tmp_path, {"deploy/web.yaml": text})
    assert rules_of(result.findings) == ["KLB003"]
