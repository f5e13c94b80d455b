from k8slb.core.findings import Severity
from k8slb.rulekit.base import Example, ReadProblemRule


class InvalidYaml(ReadProblemRule):
    """A file or a document that is not readable YAML.

    ## What it does
    Reports a YAML document that does not parse, with the line and column where the
    parser gave up, and files that are not YAML text at all: binary data, text that is
    not UTF-8, and documents whose aliases expand without bound (a "billion laughs" alias
    bomb, refused in linear time instead of being expanded).

    ## Why it matters
    `kubectl apply` rejects such a file, and no other rule can look inside it. The rest of
    the run goes on: the other documents of the same file (after the next `---`) and
    every other file are still linted.

    ## Fix
    Correct the YAML at the reported position. `yamllint` gives more detail on style.

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
