"""Real-world manifests and other linters' fixtures, read in place from ../shared/corpus.

Every file is read without a crash, and where a peer's fixture exercises a concern of a
k8slb rule, the table below records the peer's verdict, k8slb's, and why they differ.
Skipped where ../shared is absent (a user's clone has none).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from k8slb.reading.charts import enclosing_chart

from .helpers import CORPUS, lint_paths

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")


# The corpus also holds what a chart ships beside its templates (LICENSE, NOTES.txt,
# _helpers.tpl, .helmignore): text that is not YAML, which no user names as a manifest.
DATA_SUFFIXES = {".yaml", ".yml", ".json", ".golden"}


def test_every_corpus_file_is_read_without_a_crash() -> None:
    files = [str(p) for p in sorted(CORPUS.rglob("*")) if p.is_file() and p.suffix in DATA_SUFFIXES]
    result = lint_paths(files)  # named explicitly, so `.golden` files are read as YAML too
    assert result.errors == []
    # A chart's file stands for its chart, rendered once: each chart counts as one file.
    charts = {enclosing_chart(f) for f in files} - {None}
    assert charts == {str(CORPUS / "charts" / "podinfo")}
    assert result.files == sum(1 for f in files if enclosing_chart(f) is None) + len(charts)
    assert result.objects > 300
    # Templates are recognised as such, never as broken YAML.
    by_rule = {f.rule for f in result.findings}
    assert "KLB003" in by_rule
    unreadable = [f for f in result.findings if f.rule == "KLB001"]
    assert unreadable == [], [(f.path, f.text) for f in unreadable]


def test_helm_templates_are_klb003_and_template_text_in_values_is_not() -> None:
    real = CORPUS / "real"
    result = lint_paths([str(real)], ["KLB003"])
    flagged = sorted(f.path.rsplit("/", 1)[1] for f in result.findings)
    # vitess's vtgate-controller-template.yaml is a script's template (`{{cell}}`,
    # `{{replicas}}`: whole values a script fills), read with those values unknown
    assert flagged == [
        "ingress-nginx__charts_ingress-nginx_templates_controller-service.yaml",
        "microservices-demo__helm-chart_templates_adservice.yaml",
    ]


@dataclass(frozen=True)
class Verdict:
    fixture: str
    peer: str
    peer_says: str
    k8slb: tuple[str, ...]  # the rules k8slb reports among KLB301/KLB302
    why: str


PEERS = CORPUS / "peers"
KS = "kube-score/score/testdata/"
VERDICTS = [
    Verdict(
        KS + "pod-probes-identical-http.yaml",
        "kube-score",
        "CRITICAL",
        ("KLB301",),
        "agree: the same httpGet path and port",
    ),
    Verdict(
        KS + "pod-probes-identical-tcp.yaml",
        "kube-score",
        "CRITICAL",
        (),
        "differ: a shared tcpSocket check fails only when the process no longer accepts "
        "connections, when a restart is what liveness should do anyway",
    ),
    Verdict(
        KS + "pod-probes-identical-exec.yaml",
        "kube-score",
        "CRITICAL",
        ("KLB301",),
        "agree: the same exec command",
    ),
    Verdict(KS + "pod-probes-both.yaml", "kube-score", "OK", (), "agree"),
    Verdict(
        KS + "pod-probes-missing-ready.yaml",
        "kube-score",
        "CRITICAL",
        ("KLB302",),
        "agree: a Service targets the pod and it has no readiness probe",
    ),
    Verdict(KS + "pod-probes-all-missing.yaml", "kube-score", "CRITICAL", ("KLB302",), "agree"),
    Verdict(
        KS + "pod-probes-missing-live.yaml",
        "kube-score",
        "AlmostOK",
        (),
        "agree in effect: a missing liveness probe is not a balancing or drain fault",
    ),
    Verdict(
        KS + "pod-probes-not-targeted-by-service.yaml",
        "kube-score",
        "skipped",
        (),
        "agree: no Service selects the pod",
    ),
    Verdict(
        KS + "pod-probes-targeted-by-service-different-namespace.yaml",
        "kube-score",
        "skipped",
        (),
        "agree: a Service only selects pods of its own namespace",
    ),
    Verdict(
        KS + "pod-probes-targeted-by-service-same-namespace.yaml",
        "kube-score",
        "CRITICAL",
        ("KLB302",),
        "agree",
    ),
    Verdict(
        KS + "pod-probes-on-different-containers.yaml",
        "kube-score",
        "OK",
        (),
        "agree, for another reason: kube-score is content with one probe anywhere in the "
        "pod; k8slb finds the serving container (its probes use the targeted port) and "
        "that one has a readiness probe",
    ),
    Verdict(
        "checkov/tests/kubernetes/checks/example_LivenessReadiness/"
        "pod-liveness-readiness-PASSED.yaml",
        "checkov",
        "PASSED (CKV_K8S_8, CKV_K8S_9)",
        ("KLB301",),
        "disagree: checkov only asks that both probes exist; they run the same command, "
        "which kube-score calls CRITICAL and k8slb reports as shared-probe",
    ),
    Verdict(
        "polaris/test/checks/readinessProbeMissing/failure.yaml",
        "Polaris",
        "readinessProbeMissing",
        (),
        "disagree: no Service selects this pod, so it takes no traffic to protect",
    ),
    Verdict(
        "kube-linter/tests/checks/no-readiness-probe.yml",
        "kube-linter",
        "no-readiness-probe on app1/app2",
        (),
        "disagree: no Service in the fixture selects the workloads (and DeploymentConfig "
        "is an OpenShift kind k8slb does not model)",
    ),
    Verdict(
        "kubescape/rules/configured-readiness-probe/test/deployment/input/deployment.yaml",
        "Kubescape",
        "C-0018 fails",
        (),
        "disagree: no Service selects the Deployment",
    ),
]


@pytest.mark.parametrize("verdict", VERDICTS, ids=lambda v: v.fixture.rsplit("/", 1)[1])
def test_peer_fixture_verdicts(verdict: Verdict) -> None:
    result = lint_paths([str(PEERS / verdict.fixture)], ["KLB301", "KLB302"])
    assert tuple(sorted({f.rule for f in result.findings})) == verdict.k8slb, verdict.why
