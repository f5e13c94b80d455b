"""KLB111 judges a client's address only against the Services deployed together with a
container that runs its code (the same chart's render, kustomization's build, or
variant folder of plain manifests): a tree of one folder per chapter, each with its own
manifests, holds Services of one name that no single deployment applies together. Code
that no container of the manifests runs or holds in its image is said at `info`."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

DOCKERFILE = 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/app.py"]\n'


def service(name: str, port: int) -> str:
    return (
        "---\napiVersion: v1\nkind: Service\n"
        f"metadata:\n  name: {name}\nspec:\n  selector: {{app: {name}}}\n"
        f"  ports:\n    - name: http\n      port: {port}\n"
    )


def chapter(name: str, stock_port: int, app: str) -> dict[str, str]:
    """A chapter folder: its own manifests (the web Deployment, which every chapter has,
    makes the chapters variants: no one applies two of them together), its build of the
    web image, and the web program."""
    skaffold = "build:\n  artifacts:\n    - image: registry.example/web\n      context: web\n"
    return {
        f"{name}/k8s/web.yaml": web_deployment() + service("stock", stock_port),
        f"{name}/skaffold.yaml": skaffold,
        f"{name}/web/Dockerfile": DOCKERFILE,
        f"{name}/web/app.py": app,
    }


def client(url: str) -> str:
    return f'import requests\n\n\ndef stock():\n    return requests.get("{url}").json()\n'


def klb111(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB111"]).findings


def test_a_client_is_judged_against_its_own_chapters_service_not_anothers(
    tmp_path: Path,
) -> None:
    # chapter one's web dials 7000, which its own stock exposes; chapter two's exposes 80
    files = {
        **chapter("one", 7000, client("http://stock:7000/items")),
        **chapter("two", 80, client("http://stock/items")),
    }
    assert klb111(tmp_path, files) == []


def test_a_port_only_another_chapters_service_exposes_is_reported(tmp_path: Path) -> None:
    # one's web dials 7000: its own stock exposes 80; two's 7000 is not the one it meets
    files = {
        **chapter("one", 80, client("http://stock:7000/items")),
        **chapter("two", 7000, client("http://stock:7000/items")),
    }
    (finding,) = klb111(tmp_path, files)
    assert finding.path.endswith("one/web/app.py")
    assert finding.severity is Severity.ERROR
    assert "the Service exposes 80" in finding.text


def test_a_name_only_another_chapter_deploys_is_left_alone(tmp_path: Path) -> None:
    billing = web_deployment().replace("web", "billing") + service("billing", 80)
    files = {
        **chapter("one", 80, client("http://billing:9000/pay")),
        **chapter("two", 80, client("http://stock/items")),
        "two/k8s/billing.yaml": billing,
    }
    assert klb111(tmp_path, files) == []


def test_code_no_container_runs_or_holds_is_info(tmp_path: Path) -> None:
    # a chapter no manifest deploys (run by docker-compose alone) dials another's name
    files = {
        **chapter("one", 80, client("http://stock/items")),
        "three/gateway/app.py": client("http://stock:4004/health"),
    }
    (finding,) = klb111(tmp_path, files)
    assert finding.path.endswith("three/gateway/app.py")
    assert finding.severity is Severity.INFO
    assert "no container of the scanned manifests runs this code" in finding.text


def test_code_the_image_holds_but_no_link_shows_run_is_a_warning(tmp_path: Path) -> None:
    # the image of one's web holds a second program its link does not name
    files = {
        **chapter("one", 80, "print('serving')\n"),
        "one/web/report.py": client("http://stock:7000/items"),
    }
    (finding,) = klb111(tmp_path, files)
    assert finding.path.endswith("one/web/report.py")
    assert finding.severity is Severity.WARNING
    assert "Deployment/web's image holds it" in finding.text
