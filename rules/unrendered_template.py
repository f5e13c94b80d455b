from k8slb.findings import Severity
from k8slb.rules.base import Example, ReadProblemRule


class UnrenderedTemplate(ReadProblemRule):
    """A Helm or Go template, not a manifest: skipped.

    ## What it does
    Recognises Go-template actions where YAML structure belongs (`{{- if ... }}` lines,
    `replicas: {{ .Values.replicas }}`) and skips the file with a hint. Template text
    inside quoted strings or block scalars (alerting rules, Argo parameters) is an
    ordinary value and does not count.

    ## Why it matters
    A chart's templates are not the manifests that reach the cluster: values, conditions
    and includes decide what they become. Linting them as YAML gives parse errors or, worse,
    findings about objects that are never deployed.

    ## Fix
    Lint the rendered output: `helm template RELEASE CHART -f values.yaml | k8slb check -`
    (or `kubectl kustomize DIR | k8slb check -`).

    ## Other linters
    kube-linter and checkov render charts themselves; kube-score and k8slb read rendered
    output from stdin.
    """

    id = "KLB003"
    name = "unrendered-template"
    severity = Severity.INFO
    examples = (
        Example(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
            "  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n",
        ),
        Example(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alerts\ndata:\n"
            "  rule: 'instance {{ $labels.instance }} is down'\n",
            findings=0,
            title="template text inside a quoted value",
        ),
    )
