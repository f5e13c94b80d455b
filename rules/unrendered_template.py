from k8slb.core.findings import Severity
from k8slb.rulekit.base import Example, ReadProblemRule


class UnrenderedTemplate(ReadProblemRule):
    """A template k8slb could not render: skipped, with the reason.

    ## What it does
    A folder with a `Chart.yaml` is a Helm chart (one whose `Chart.yaml` is all comments
    is not: its `charts/*/` are charts of their own): k8slb renders it with Helm's own
    engine and lints what it renders (see the README's "Helm and Kustomize"). This rule reports
    what is left over: a template Helm fails on (a template error, a `required` value not
    given, a `fail` call; a warning, at the line Helm names), the rest of its chart
    rendered and linted without it (up to four such templates a chart, a helper whose
    `define`s others include taking those templates with it; in a chart whose subcharts
    are not vendored, up to sixteen, each naming the missing subcharts it may need: their
    named templates, the defaults of their values; a subchart's own dependency nobody
    vendored, an OCI chart k8slb cannot fetch, named as that subchart's, with `helm
    dependency build` in its folder as the fix; all within the chart's budget of work,
    bytes of templates rendered, never seconds: past it the chart is not rendered, its
    finding saying how many times k8slb rendered it and which templates had failed), a
    chart Helm cannot render at all (past those, a fault in a packaged subchart, every
    template that writes objects failing without the missing subcharts, a values file,
    `values.yaml` or `Chart.yaml` that is not YAML; a warning, at the file and line Helm
    names, in a packaged subchart at its archive), a chart stopped
    by a bound of the run (its time, its memory, the run's time for all its charts; also
    when the bound stopped a further try of it, with a stand-in or an installer's values), a
    chart whose values schema refers to a URL or a file (Helm would fetch it; k8slb does
    not), a chart whose defaults fail but that the repository's own `helm install|upgrade|
    template -f FILE` (in a script, a Makefile recipe, a GitHub workflow step, a CircleCI
    `run` step, a GitLab job's `script` or, last, a shell code block of a Markdown
    deployment guide, which may name the chart as it is published,
    `oci://registry/charts/NAME` or `REPO/NAME`, when it is the chart's README or the
    repository's own guide; of several commands the first of three that renders a
    workload; a variable the script itself sets to literal values, `env=qa` or `for env in
    qa live`, read as each of them, one command a combination; a Makefile's `--set KEY=$(VAR)`
    the user gives, a stand-in string where the chart's values.yaml makes KEY a string) renders
    (info: its objects are linted
    with that command's values, which the finding names, a guide's said to be one; a
    values file the command names and the repository lacks read as its one copy
    elsewhere or its `.example` twin, both named; several candidates: none used, an info
    lists them), a chart that still fails only on values its templates `required` and
    nothing gives (info where Helm failed: rendered with a stand-in string for each, when
    that makes Helm fail on fewer templates and no template uses the value as a number, a
    list or a map; each finding says which values; the value read from the action, from
    the variables it reads followed back to `.Values`, or from a `--set KEY=` its message
    names; a `fail` whose message names a value the chart's values.yaml leaves an empty
    string, or, the message writing it as the template reads it, `.Values.tag`, leaves
    unset),
    a chart with only a stand-in for its values
    (`values.yaml.tpl`) that renders to text that is not YAML, a chart whose templates
    all render nothing (info: with no `values.yaml`, at the `values-ENV.yaml` beside it),
    a chart that deploys no workload with its defaults (no `values.yaml`, workloads off, or
    Helm fails) and that no command of the repository installs, rendered instead with one
    values file beside its Chart.yaml (`values-prod.yaml`, `values.dev.yaml`,
    `prod-values.yaml`, `values/*.yaml`, then a `*values.yaml` of the folder above when
    that is no chart and holds other charts (their shared values): a production one first, an
    example last, the
    first that deploys a workload; info at that file, naming the others, which are not
    rendered: each finding says which file made it),
    a chart whose templates write a key that no values file of its render gives and that a
    command of the repository sets from its environment (`helm install ... --set
    tag=$CIRCLE_SHA1`: a commit's hash, a version; a command not rendered with, as its
    value is CI's, or its values file one CI writes), rendered with a stand-in string for
    that key (`K8slb-given-CIRCLE_SHA1`) when every template action that reads it only
    writes its text (`{{ .Values.tag }}`, `| quote`, inside a larger string; not in a
    condition, a default, a loop, `toYaml`, as a number, nor a map of it read whole) and
    no rendered object holds the stand-in where its shape is wrong (info: the finding
    that names the render, or a new one at the chart file, names the key and the command;
    so does each finding's detail), instead of an empty label on every object that leaves
    them out of the rules,
    a chart rendered as its build makes it (info, once, at its chart file: the Chart.yaml
    a build writes from a template of one, `Chart-template.yaml` beside `templates/` and a
    values.yaml, its placeholders stood in for, a version Helm accepts under a version key;
    the `${...}` Maven's resource filtering puts in from the POMs that filter its folder;
    the finding names what was put in for each),
    a chart that another chart of the run uses from its folder (`repository:
    file://../base`; packed into it in memory as `helm dependency build` would vendor it,
    and so are that chart's own such dependencies, five levels deep at most, never one
    inside itself) and that fails alone with its own defaults (info, naming the chart
    that lints it with its values; a warning still when the repository's own command
    installs it alone; not said at a place where the chart that uses it fails too),
    a chart nothing on this
    machine can render (no `k8slb[helm]`, no `helm` binary; info, once per chart), and a
    file with Go-template actions where YAML
    structure belongs (`{{- if ... }}` lines, a key, a pipeline such as
    `{{ .Values.n | default 1 }}`) outside any chart, which is skipped. Template text
    inside quoted strings or block scalars (alerting rules, Argo parameters, a dashboard's
    JSON folded over lines) is an ordinary value and does not count. A file whose every
    action is a whole scalar value that prints one field (`image:
    {{.Env.SERVICE_API_IMAGE_NAME}}`, as azd's `*.tmpl.yaml` manifests write them, or
    `replicas: {{ .Values.replicas }}`) is no template either, nor one whose every
    action is a script's placeholder, a name in double braces written as a whole value
    or opening one plain word (`type: {{service_type}}`, `secretName:
    {{cluster}}-kubeconfig`: what a deploy script's `sed`, Mustache, Jinja or a Jenkins
    job fills before `kubectl apply`; a dotted field opening a word, `{{ .Release.Name
    }}-web`, is a chart's template and stays skipped): the YAML around them stands as
    written, so it is read with each such value as its own text, a value not known (a
    Service `type` not known is no ClusterIP; a field where a string does not belong is
    not read, but `replicas` not known is kept: not one pod, not none), and its findings
    offer no fix (the file is not YAML until it is filled). A ytt (Carvel)
    template is skipped too: a file with ytt's code in its comments (`#@ load(...)`,
    `#@ if ...:`/`#@ else:`/`#@ end`, `#@data/values`, `#@overlay/match`, a value `name:
    #@ name()`) or a text template's `(@ ... @)`, whose branches YAML would read as
    repeated keys and whose filled values as empty ones. It is said (info) where it holds
    an `apiVersion` or `kind`; a ytt library or data-values file is skipped quietly. k8slb
    does not run ytt: `ytt -f FOLDER | k8slb check -` lints what it renders.

    ## Why it matters
    A chart's templates are not the manifests that reach the cluster: values, conditions
    and includes decide what they become. Linting them as YAML gives parse errors or, worse,
    findings about objects that are never deployed; a chart that does not render is not
    linted at all, which must not pass in silence.

    ## Fix
    Give the chart what it needs to render (`--helm-values FILE`, `--helm-set KEY=VALUE`,
    `--helm-skip-schema-validation` for a schema that refers to a URL), install the engine
    (`pip install 'k8slb[helm]'`), raise a bound (`K8SLB_HELM_SECONDS`,
    `K8SLB_HELM_BUDGET`, `K8SLB_HELM_MEMORY`), or lint rendered output:
    `helm template RELEASE CHART -f values.yaml | k8slb check -`.

    ## Other linters
    kube-linter and checkov render charts themselves (and report the rendered files);
    kube-score reads rendered output from stdin.
    """

    id = "KLB003"
    name = "unrendered-template"
    severity = Severity.INFO
    examples = (
        Example(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
            '  name: {{ include "app.fullname" . }}\nspec:\n  replicas: {{ .Values.replicas }}\n',
            at=(4, 9),
        ),
        Example(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: alerts\ndata:\n"
            "  rule: 'instance {{ $labels.instance }} is down'\n",
            findings=0,
            title="template text inside a quoted value",
        ),
    )
