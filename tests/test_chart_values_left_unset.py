"""A chart rendered with its defaults prints empty every value its templates read and no
values file sets: a label `app: {{ .Values.appName }}` with nothing under `appName` is an
empty label, a wrong shape (KLB002) of the render, not of the chart as its installer runs
it (`-f values-prod.yaml`, `--set appName=...`). That finding is said at info, naming the
value; one that the chart's own values write empty, or that an unset value does not make,
stays an error."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding

from .helpers import lint_files

# A cert-manager chart with no values.yaml: its values files are one per environment
CERTIFICATE = """\
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ .Values.certName }}
  labels:
    environment: {{ .Values.environment }}
    team: payments
spec:
  secretName: {{ .Values.certName }}-tls
  issuerRef:
    name: letsencrypt
  dnsNames:
  - {{ .Values.domain }}
"""
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: certs\nversion: 0.1.0\n",
    "values-live.yaml": "certName: shop-cert\nenvironment: live\ndomain: shop.example\n",
    "templates/certificate.yaml": CERTIFICATE,
}


def shape_findings(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    found = lint_files(tmp_path, {f"deploy/certs/{k}": v for k, v in files.items()}, ["KLB002"])
    return found.findings


def test_a_label_no_values_file_sets_is_said_at_info_naming_the_value(tmp_path: Path) -> None:
    (told,) = shape_findings(tmp_path, CHART)
    assert (told.rule, told.severity.label) == ("KLB002", "info")
    assert told.path.endswith("templates/certificate.yaml") and told.line == 6
    assert "`.Values.environment` is set in no values file" in told.message
    assert any("--set environment=" in line for line in told.detail)


def test_a_value_the_charts_own_values_write_empty_stays_an_error(tmp_path: Path) -> None:
    """values.yaml that sets the key (to nothing) chose that default: installed as it is,
    the label is empty; and a label written empty in the template is the author's."""
    files = {**CHART, "values.yaml": "certName: cert\nenvironment:\ndomain: shop.example\n"}
    (own,) = shape_findings(tmp_path / "own", files)
    assert (own.severity.label, own.line) == ("error", 6)
    written = CERTIFICATE.replace("team: payments", "team:")
    files = {**CHART, "values.yaml": "certName: c\nenvironment: live\ndomain: d\n"}
    files["templates/certificate.yaml"] = written
    (literal,) = shape_findings(tmp_path / "literal", files)
    assert (literal.severity.label, literal.line) == ("error", 7)
