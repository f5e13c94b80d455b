"""A Tiltfile's `k8s_yaml(helm(CHART, name=..., namespace=..., values=[...], set=[...]))`
deploys a release of a chart in the repository: rendered with those (paths from the
Tiltfile's folder) and linted as a helmfile's release is, the chart not rendered alone
with its defaults as well; the Tiltfile's docker_build still links the image it deploys
to its code. A call k8slb cannot read as written (a variable, a loop, a helm() result
never deployed) is refused: its chart is then rendered alone, as without the Tiltfile."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.inputs.tiltfile import plan

from .helpers import lint_paths
from .test_helmfile import CHART, preStops, write
from .test_links import links

# each service's folder: its Tiltfile builds its image and deploys the shared chart
SERVICE_TILTFILE = """\
docker_build("{name}-image", ".", dockerfile="./Dockerfile")

yaml = helm(
    "../../deploy/charts/web",
    name="{name}",
    values=["../../deploy/values/{name}.yaml"],
)
k8s_yaml(yaml)
k8s_resource("{name}-web", port_forwards=8080)
"""

SERVER = """\
from http.server import HTTPServer, SimpleHTTPRequestHandler

HTTPServer(("", 8080), SimpleHTTPRequestHandler).serve_forever()
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the repository the services' Tiltfiles reach up into
    write(tmp_path / "deploy" / "charts" / "web", CHART)
    for name in ("orders", "billing"):
        write(
            tmp_path,
            {
                f"services/{name}/Tiltfile": SERVICE_TILTFILE.format(name=name),
                f"services/{name}/Dockerfile": 'FROM python:3.11\nCMD ["python", "main.py"]\n',
                f"services/{name}/main.py": SERVER,
                f"deploy/values/{name}.yaml": f"image: {name}-image\n",
            },
        )
    return tmp_path


def test_each_tiltfile_release_is_rendered_and_the_chart_not_alone(tree: Path) -> None:
    findings = lint_paths([str(tree)], ("KLB401",)).findings
    assert sorted(preStops(findings)) == ["default/billing-web", "default/orders-web"]
    tiltfile = tree / "services/orders/Tiltfile"
    [orders] = [f for f in findings if "orders-web" in f.message]
    assert orders.path == str(tree / "deploy/charts/web/templates/deployment.yaml")
    assert f"rendered with Tiltfile helm() release orders ({tiltfile})" in orders.detail
    # with no Tiltfile deploying it, the chart is rendered with its defaults, as before
    for name in ("orders", "billing"):
        (tree / f"services/{name}/Tiltfile").unlink()
    assert sorted(preStops(lint_paths([str(tree)], ("KLB401",)).findings)) == ["default/web-web"]


def test_the_tiltfile_still_links_its_image_to_the_code_it_builds(tree: Path) -> None:
    rows = {row["container"]: row for row in links(tree, {})}
    orders = rows["Deployment/default/orders-web:web"]
    assert orders["code"] == "services/orders/main.py"
    assert any(e.startswith("tiltfile: services/orders/Tiltfile:1:") for e in orders["evidence"])
    assert rows["Deployment/default/billing-web:web"]["code"] == "services/billing/main.py"


def test_namespace_and_set_are_read(tree: Path) -> None:
    write(
        tree,
        {
            "services/orders/Tiltfile": (
                "k8s_yaml(helm('../../deploy/charts/web', name='web', namespace='shop',\n"
                "    set=['preStop=false', 'image=orders-image']))\n"
                "k8s_yaml([helm('../../deploy/charts/web', name='lb', set='preStop=true')])\n"
            )
        },
    )
    deployments = sorted(preStops(lint_paths([str(tree)], ("KLB401",)).findings))
    assert deployments == ["default/billing-web", "shop/web-web"]


@pytest.mark.parametrize(
    ("tiltfile", "why"),
    [
        ("VALUES = ['v.yaml']\nk8s_yaml(helm('c', name='a', values=VALUES))\n", "computed"),
        ("k8s_yaml(helm('c', name='a', kube_version='1.29'))\n", "`kube_version`"),
        ("k8s_yaml(helm('', name='a'))\n", "no chart or name"),
        # a list added to a dict's entry, not to what `tilt up` is told
        (
            "more = {'values': ['x.yaml']}\n"
            "k8s_yaml(helm('c', name='a', values=['v.yaml'] + more.get('values', [])))\n",
            "computed",
        ),
        (
            "cfg = config.parse()\n"
            "k8s_yaml(helm('c', name='a', values=['v.yaml'] + cfg.get('values')))\n",
            "computed",
        ),
        ("k8s_yaml(helm('c', name='a', values=['../../outside.yaml']))\n", "not in the repo"),
        ("k8s_yaml(helm('remote/chart', name='a'))\n", "a chart repository's"),
        # not followed: in a loop, never deployed, or a name given another value
        ("for n in ['a']:\n    k8s_yaml(helm('c', name=n))\n", None),
        ("y = helm('c', name='a')\n", None),
        ("y = helm('c', name='a')\ny = 'other.yaml'\nk8s_yaml(y)\n", None),
    ],
)
def test_a_call_not_read_as_written_is_refused(
    tmp_path: Path, tiltfile: str, why: str | None
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / "c", CHART)
    write(tmp_path, {"v.yaml": "preStop: true\n", "Tiltfile": tiltfile})
    planned = plan(str(tmp_path / "Tiltfile"), tiltfile)
    assert planned.releases == ()
    if why is None:
        assert planned.problems == ()
    else:
        [problem] = planned.problems
        assert why in problem.message
    # the chart is linted alone, as without the Tiltfile, and nothing is said of the call
    result = lint_paths([str(tmp_path)], ("KLB401", "KLB003"))
    assert sorted(preStops(result.findings)) == ["default/web-web"]
    assert [f.rule for f in result.findings] == ["KLB401"]


def test_a_tiltfile_that_is_not_python_s_syntax_deploys_nothing() -> None:
    assert plan("Tiltfile", "k8s_yaml(helm('c', name='a')\n") == plan("Tiltfile", "")


def test_a_tiltfile_past_the_budget_is_read_for_its_builds_only(tree: Path) -> None:
    tiltfile = tree / "services/orders/Tiltfile"
    tiltfile.write_text(SERVICE_TILTFILE.format(name="orders") + "#" * (1 << 20) + "\n")
    result = lint_paths([str(tree)], ("KLB401",))
    assert not result.errors
    assert sorted(preStops(result.findings)) == ["default/billing-web"]
    rows = {row["container"]: row for row in links(tree, {})}
    assert rows["Deployment/default/billing-web:web"]["code"] == "services/billing/main.py"


CONFIGURED = """\
config.define_string_list('values')
cfg = config.parse()

k8s_yaml(
    helm(
        'deploy/charts/web',
        values=['./dev-values.yaml'] + cfg.get('values', []),
    )
)
"""


def test_an_unnamed_release_with_the_values_tilt_up_may_add_is_read(tmp_path: Path) -> None:
    """A release given no name is rendered under the chart's own name (as the chart alone
    is); a values list followed by the files a user may add with `tilt up -- --values
    FILE` (none unless told) is its list."""
    (tmp_path / ".git").mkdir()
    write(tmp_path / "deploy" / "charts" / "web", CHART)
    write(tmp_path, {"dev-values.yaml": "image: dev-web\n", "Tiltfile": CONFIGURED})
    [release] = plan(str(tmp_path / "Tiltfile"), CONFIGURED).releases
    assert release.name == "web"
    assert release.values == (str(tmp_path / "dev-values.yaml"),)
    findings = lint_paths([str(tmp_path)], ("KLB401",)).findings
    assert sorted(preStops(findings)) == ["default/web-web"]
    [web] = [f for f in findings if f.rule == "KLB401"]
    assert any("Tiltfile helm() release web" in line for line in web.detail), web.detail
