from k8slb.core.findings import Severity
from k8slb.rulekit.base import Example, ReadProblemRule


class InvalidManifest(ReadProblemRule):
    """A field that k8slb reads has the wrong shape.

    ## What it does
    Validates the fields the rules read (Service ports and selectors, pod templates,
    containers, probes, lifecycle hooks, scaler targets, labels and annotations) against
    the JSON schema shipped with k8slb, and reports each field of the wrong type, such as
    a string where the API wants a list or a number. It also reports an object without
    `kind` or `apiVersion`, and a list or scalar document in the middle of manifests.

    No rule reasons about a half-understood field. A wrong shape in a field the object
    can be read without (a container's probes or `lifecycle`, the pod's
    `terminationGracePeriodSeconds`) leaves the object to the rules that do not read that
    field: a broken probe does not hide a missing preStop hook. A wrong shape anywhere else
    (ports, selectors, labels, the containers themselves) could tie the object to the
    wrong Services, and the object is left out of every other rule.

    YAML files that hold no Kubernetes objects at all (CI workflows, Helm values, tool
    configs) are not manifests and are skipped quietly. A document with no `kind` is taken
    for an object (and reported for the kind it lacks) only when its `apiVersion` is one
    Kubernetes has: `v1` for the core group, `<group>/<version>` for the others; another
    tool's `apiVersion: v1beta1` or `apiVersion: 1` is not. A key written `null` is no
    value: a record another program serialised (`kind: null`, `apiVersion: null` among
    its unset fields) names no kind and is no object.

    An object of a kind the rules judge (a Service, a workload, a Pod, an autoscaler) that
    names itself nowhere, with neither `metadata.name` nor `metadata.generateName`, cannot
    be created by kubectl, kustomize or Helm: it is a fragment, such as a state a test
    waits for (any pod of an app, running and ready) or a patch, and no rule judges it as
    deployed. It is reported only in a file a kustomization lists among its `resources`,
    where kustomize refuses to build it. (A chart's rendered objects are judged as Helm
    renders them.) The assertions of a test runner (the files a chainsaw `Test` matches
    under `assert:` or `error:`, a kuttl `TestStep`'s, a step file named `01-assert.yaml`
    or `01-errors.yaml`) are patterns, not objects: their shapes are not checked (a key
    may be an expression, a value its expected result) and no rule judges them.

    A value written wholly as a `#{NAME}` placeholder (`namespace: #{NS}`, an args item
    `- #{FLAG}`) is one a program writes into the text before it applies the file; YAML
    reads the `#` as a comment and the value as empty. So is a value written wholly as a
    field of Python's `str.format`, `{name}` (`name: {name}`, a file the code reads and
    fills before it creates the object), which YAML reads as a mapping of one key with no
    value, a flow mapping no manifest means. Such a value is not said as a
    wrong shape, but the object it would have made unreadable still stays out of the
    rules (what fills it is not known); an empty value written as such still is said, and
    so is a mapping written with a value or with more keys (`{app: web}`).
    So is, at info, an empty value a chart's template prints from a value that no values
    file of its render sets (`app: {{ .Values.appName }}`, rendered with the chart's
    defaults, where the chart leaves `appName` for its installer to give): the finding
    names the value; one the chart's values.yaml writes empty stays an error.

    ## Why it matters
    The API server rejects these objects, often only at deploy time. k8slb says so at
    the line where the shape is wrong instead of guessing what was meant.

    ## Fix
    Write the field in the shape the Kubernetes API documents (`ports` is a list of
    mappings, `containerPort` a number, label values are strings).

    ## Other linters
    kubeconform validates whole objects against the OpenAPI schemas; k8slb checks only
    what its rules need and keeps going.
    """

    id = "KLB002"
    name = "invalid-manifest"
    severity = Severity.ERROR
    examples = (
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"
            'spec:\n  selector: {app: api}\n  ports: "80"\n',
            title="a string where a list of ports belongs",
            at=(7, 3),
        ),
        Example(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"
            "spec:\n  selector: {app: api}\n  ports:\n    - port: 80\n",
            findings=0,
        ),
    )
