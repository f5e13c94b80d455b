from k8slb.core.findings import Severity
from k8slb.rulekit.base import Example, ReadProblemRule


class InvalidYaml(ReadProblemRule):
    """A file or a document that is not readable YAML.

    ## What it does
    Reports a YAML document that does not parse, with the line and column where the
    parser gave up, and files that are not YAML text at all: binary data, text that is
    not UTF-8, and documents whose aliases expand without bound (a "billion laughs" alias
    bomb, refused in linear time instead of being expanded).

    A key given twice in one mapping is not valid YAML either (an error) in a manifest
    file; in what a Helm chart renders (`env:` written by two branches of a template) it
    is a warning, and the chart is linted all the same: `helm install` and `helm upgrade`
    read rendered manifests with a lenient decoder that keeps the last value of a
    repeated key, so k8slb reads the file as Helm does (the earlier key and its block
    dropped) and says so once per repeat, on the later key. Stricter readers of the same
    manifest (kustomize, Flux's helm-controller: `mapping key "env" already defined`)
    refuse it, and whatever the first value held is lost. A repeat whose earlier key is
    not found by its indentation (flow style, an unusual key) leaves the file unread, an
    error as before; at most 16 repeats are read past in one rendered file. A
    kustomization file that repeats a key is read so too, as kustomize (v5) reads it, the
    last value kept (it decodes the file leniently, sigs.k8s.io/yaml's YAMLToJSON), and
    the kustomization is built. In both, a repeat that gives the same value again
    (`apiVersion:` written twice alike) loses nothing and is told at `info`.

    A document that breaks where a placeholder stands alone on its line (`$POOLS`,
    `${EXTRA_ENV}`, at the line YAML stops at or one of the four above it), in a file
    that holds no `apiVersion:` or `kind:` key, is told at `info`: a tool's config
    template that a script fills (envsubst, a heredoc) before it is read, not a manifest
    and not YAML yet by design. So is a broken file that holds neither key where a
    program's build or its tests keep their files: below a `src/<set>/resources` folder
    (Maven's and Gradle's resources, packed into the program, which reads them: an API
    description it fills by `{resource}` substitution) or in a test's data folder
    (`testdata`, `test_data`, `test-data`, `fixtures`, `test_fixtures`, `test-fixtures`,
    `__fixtures__`: an input or an expected output a test compares). No manifest tool
    applies those. A file with either key may be a Kubernetes manifest, and stays an
    error however it breaks, but in a test's data below the folder named: a manifest
    there is a test's input, some broken on purpose (a parser's test of a repeated key),
    or the output it expects, which no deploy tool applies, so it is `info`, with that
    reason first, as every rule's finding in such a file. Naming the folder itself
    (`k8slb check pkg/parser/testdata`) asks for it to be judged in full: an error.

    Any other broken file that holds neither key (in block style, in flow style or as
    JSON, `"kind":`) is no Kubernetes input, and is told at `info` with that reason ("not
    a Kubernetes input: ..."): every object kubectl applies has both keys, so the file is
    another program's (an application's settings, a plugin's definition, a mapping of
    data), which k8slb would skip in silence if it parsed. Where a template engine's tag
    stands at the line YAML stopped at or one of the four above it (a Jinja, Ansible or
    Salt block tag `{% if edition %}`, a comment `{# ... #}`, an expression `{{ ... }}`),
    the reason says the file is a template, not YAML yet: an install script renders it
    first. A broken file with neither key stays an error where Kubernetes reads it all the
    same: a kustomization (kustomize does not require its `apiVersion` and `kind`), a Helm
    values file (`values` in its name or a folder's: `values.yaml`, `values-prod.yaml`,
    `helm/values/agent.yaml`, which `helm install -f` reads), what a chart renders, and
    a file a kustomization of the run lists as a resource or a patch. (Skaffold, compose
    and CI files are read for their builds only, and never reported here; a chart's own
    files are read when it is rendered.)

    ## Why it matters
    `kubectl apply` rejects such a file, and no other rule can look inside it. The rest of
    the run goes on: the other documents of the same file (after the next `---`) and
    every other file are still linted.

    ## Fix
    Correct the YAML at the reported position (a repeated key in a chart: give it once in
    the template, merging what both branches meant). `yamllint` gives more detail on
    style.

    ## Other linters
    kube-score, kube-linter and kubeconform stop with a parse error; checkov skips the file.
    """

    id = "KLB001"
    name = "invalid-yaml"
    severity = Severity.ERROR
    examples = (
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  labels: {app: api\n",
            title="an unclosed flow mapping",
            at=(6, 1),
        ),
        Example("apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n", findings=0),
    )
