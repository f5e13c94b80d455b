"""KLB406 for Django's development server as PID 1: `manage.py runserver` under its
autoreloader has a SIGTERM handler (it exits at once), with `--noreload` it has none; and
Python that a script of the tree hands PID 1 to (`exec python manage.py runserver`) is
judged by the module it names among the linked code."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.launchers import django_reloader
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

DOCKERFILE = (
    "FROM python:3.12-slim\nWORKDIR /srv\nCOPY . /srv\nRUN pip install -r requirements.txt\n"
    'COPY boot.sh /boot.sh\nENTRYPOINT ["/boot.sh"]\n'
)
MANAGE = (
    "#!/usr/bin/env python\nimport os\nimport sys\n\n\ndef main():\n"
    '    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")\n'
    "    from django.core.management import execute_from_command_line\n\n"
    "    execute_from_command_line(sys.argv)\n\n\n"
    'if __name__ == "__main__":\n    main()\n'
)


def tree(boot: str, views: str = "") -> dict[str, str]:
    return {
        "deploy/web.yaml": web_deployment(),
        "web/Dockerfile": DOCKERFILE,
        "web/boot.sh": boot,
        "web/requirements.txt": "django\n",
        "web/manage.py": MANAGE,
        "web/shop/__init__.py": "",
        "web/shop/settings.py": 'ROOT_URLCONF = "shop.urls"\nINSTALLED_APPS = ["shop"]\n',
        "web/shop/urls.py": (
            "from django.http import HttpResponse\nfrom django.urls import path\n\n"
            'urlpatterns = [path("", lambda request: HttpResponse("ok"))]\n'
        ),
        "web/shop/apps.py": views,
    }


def boot(command: str) -> str:
    return f"#!/bin/sh\nset -e\npython manage.py migrate --noinput\nexec {command}\n"


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_python_a_script_hands_pid1_to_is_judged_by_the_module_it_runs(tmp_path: Path) -> None:
    files = tree(boot("python manage.py runserver 0.0.0.0:8080 --noreload"))
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("web/Dockerfile") and finding.line == 6
    assert finding.severity is Severity.WARNING
    assert "python is PID 1" in finding.text and "no SIGTERM handler" in finding.text


def test_a_handler_in_the_linked_code_counts(tmp_path: Path) -> None:
    handler = "import signal\nimport sys\n\nsignal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n"
    files = tree(boot("python manage.py runserver 0.0.0.0:8080 --noreload"), views=handler)
    assert klb406(tmp_path, files) == []


@pytest.mark.parametrize(
    "command",
    ["python manage.py runserver 0.0.0.0:8080", "python3 -u manage.py runserver 8080"],
)
def test_runserver_under_its_autoreloader_has_a_handler(tmp_path: Path, command: str) -> None:
    assert klb406(tmp_path, tree(boot(command))) == []


def test_runserver_in_exec_form_with_noreload_is_reported(tmp_path: Path) -> None:
    files = tree(boot("python app.py"))
    files["web/Dockerfile"] = DOCKERFILE.replace(
        '["/boot.sh"]', '["python", "manage.py", "runserver", "0.0.0.0:8080", "--noreload"]'
    )
    assert len(klb406(tmp_path, files)) == 1
    files["web/Dockerfile"] = files["web/Dockerfile"].replace(', "--noreload"', "")
    assert klb406(tmp_path, files) == []


def test_django_reloader_words() -> None:
    assert django_reloader(["python", "manage.py", "runserver"])
    assert django_reloader(["django-admin", "runserver", "0:8000"])
    assert not django_reloader(["python", "manage.py", "runserver", "--noreload"])
    assert not django_reloader(["python", "manage.py", "migrate"])
    assert not django_reloader(["python", "serve.py", "runserver"])
