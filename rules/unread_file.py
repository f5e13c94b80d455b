from k8slb.core.findings import Severity
from k8slb.rulekit.base import Example, ReadProblemRule

UNREAD_FILE = "KLB006"


class UnreadFile(ReadProblemRule):
    """A file k8slb did not open: a symbolic link out of the tree, a broken link, something
    that is not a regular file, a kustomize resource that is remote or outside the
    repository, or a Helm chart a kustomization would pull.

    ## What it does
    While walking a folder, k8slb reads regular files, and symbolic links whose target
    stays inside the folder being scanned. Anything else with a YAML or Python name is
    reported here and left unopened: a link to a file outside the scanned folder, a
    broken link, a FIFO, a socket or a device. Links to folders are never followed
    (as git, which stores the link and not what it points to). A file named on the
    command line is always read: naming it is the user's choice.

    A kustomization's `resources:`, `bases:` and `components:` inside the repository are
    read as files (`k8slb check overlays/prod` reads `../../base` too); an entry k8slb
    does not read, a remote one (a URL, `github.com/...`) or a path that leads out of the
    repository, is reported on its line of the kustomization. So are, once at its
    `helmCharts:` line, the Helm charts a kustomization inflates that are not vendored in
    its chart home (`charts/NAME`): `kustomize build --enable-helm` would pull them from
    their `repo:`, k8slb fetches nothing, and the objects they make are not linted (with
    `--kustomize`, the kustomization is then not built).

    ## Why it matters
    k8slb runs in CI on pull requests from strangers. A committed link such as
    `secrets.yaml -> /home/runner/.kube/config` would otherwise be read and its values
    quoted in findings, in a log anyone can see; a FIFO named `x.yaml` would block the run
    forever. The finding says the file was skipped, so nothing is skipped unnoticed.

    ## Fix
    Replace the link by the file itself, or lint the target where it lives
    (`k8slb check path/to/target.yaml`); build a kustomization with remote resources with
    `--kustomize`; vendor a kustomization's charts into its `charts/`. Files that are
    deliberately links can be left out with `exclude` or `per-file-ignores` in the
    configuration.

    ## Other linters
    git stores links without their content; ruff and kube-linter follow them. None of the
    Kubernetes linters reports the files it skipped.
    """

    id = UNREAD_FILE
    name = "unread-file"
    severity = Severity.INFO
    examples = (
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n",
            links=(("secrets.yaml", "/etc/passwd"),),
            title="a link to a file outside the tree",
            at=(1, 1),
        ),
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n",
            findings=0,
            links=(("service.yaml", "manifest.yaml"),),
            title="a link to a file of the tree: read",
        ),
    )
