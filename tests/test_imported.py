"""Names that cross modules: a constant, an address or a health servicer class imported
from another module of the scanned code is judged as if it were written where it is used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from k8slb.code.facts import NOT_GIVEN, UNKNOWN, Channel, CodeFacts, Imported, Loc
from k8slb.code.imported import resolve_imports
from k8slb.languages.python.parse import analyse_exports

from tests.helpers import GRPC_BACKEND, lint_files

MANIFESTS = GRPC_BACKEND


def client(line: str, imports: str) -> str:
    return f"import os\n\nimport grpc\n{imports}\n\nchannel = grpc.insecure_channel({line})\n"


@pytest.mark.parametrize(
    ("files", "entry"),
    [
        ({"svc/config.py": 'ADDR = "backend:50051"\n'}, client("ADDR", "from config import ADDR")),
        ({"svc/config.py": 'ADDR = "backend:50051"\n'}, client("config.ADDR", "import config")),
        (
            {"svc/__init__.py": "", "svc/settings.py": 'HOST = "backend"\n'},
            client('f"{HOST}:50051"', "from .settings import HOST"),
        ),
        (
            {"svc/__init__.py": "", "svc/settings.py": 'DEFAULT = "backend:50051"\n'},
            client('os.environ.get("ADDR", DEFAULT)', "from .settings import DEFAULT"),
        ),
        (
            {
                "svc/__init__.py": "from .settings import ADDR\n",
                "svc/settings.py": 'ADDR = "backend:50051"\n',
            },
            client("ADDR", "from . import ADDR"),
        ),
        (
            {
                "svc/__init__.py": "",
                "svc/conf/__init__.py": "",
                "svc/conf/net.py": 'A = "backend:50051"\n',
            },
            client("net.A", "from .conf import net"),
        ),
    ],
    ids=[
        "from-import",
        "module-attribute",
        "relative-f-string",
        "env-default",
        "re-export",
        "submodule",
    ],
)
def test_an_imported_address_is_followed_to_its_definition(
    tmp_path: Path, files: dict[str, str], entry: str
) -> None:
    tree = {**files, "svc/client.py": entry, "k8s.yaml": MANIFESTS}
    [finding] = lint_files(tmp_path, tree, select=["KLB102"]).findings
    assert finding.path.endswith("client.py") and "'backend:50051'" in finding.text


def test_a_name_no_scanned_module_defines_stays_unknown(tmp_path: Path) -> None:
    tree = {"svc/client.py": client("ADDR", "from elsewhere import ADDR"), "k8s.yaml": MANIFESTS}
    assert lint_files(tmp_path, tree, select=["KLB102"]).findings == []


def test_import_cycles_end(tmp_path: Path) -> None:
    tree = {
        "svc/a.py": "from b import X\nimport grpc\nY = X\nchannel = grpc.insecure_channel(Y)\n",
        "svc/b.py": "from a import Y\nX = Y\n",
        "k8s.yaml": MANIFESTS,
    }
    assert lint_files(tmp_path, tree, select=["KLB102"]).findings == []


HEALTH_ADD = (
    "from grpc_health.v1 import health_pb2_grpc\n\nfrom .health import Health\n\n\n"
    "def add(server):\n    health_pb2_grpc.add_HealthServicer_to_server(Health(), server)\n"
)
ALWAYS = (
    "from grpc_health.v1 import health_pb2, health_pb2_grpc\n\n\n"
    "class Health(health_pb2_grpc.HealthServicer):\n"
    "    def Check(self, request, context):\n"
    "        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.{})\n"
)


@pytest.mark.parametrize(("status", "found"), [("SERVING", 1), ("NOT_SERVING", 0)])
def test_a_health_servicer_class_from_another_module(
    tmp_path: Path, status: str, found: int
) -> None:
    tree = {
        "svc/__init__.py": "",
        "svc/server.py": HEALTH_ADD,
        "svc/health.py": ALWAYS.format(status),
    }
    findings = lint_files(tmp_path, tree, select=["KLB405"]).findings
    assert len(findings) == found
    if found:
        assert findings[0].path.endswith("server.py")
        assert findings[0].message == "health servicer Health.Check always answers SERVING"


def test_a_change_in_the_imported_module_is_seen_with_the_importer_cached(
    tmp_path: Path,
) -> None:
    tree = {
        "svc/config.py": 'ADDR = "backend:50051"\n',
        "svc/client.py": client("ADDR", "from config import ADDR"),
        "k8s.yaml": MANIFESTS,
    }
    assert len(lint_files(tmp_path, tree, select=["KLB102"]).findings) == 1
    (tmp_path / "svc" / "config.py").write_text('ADDR = "localhost:50051"\n')
    assert lint_files(tmp_path, {}, select=["KLB102"]).findings == []


def test_modules_without_watched_words_export_their_one_line_values() -> None:
    facts = analyse_exports(
        "settings.py",
        b'"""Docs."""\nimport os\nHOST = "backend"\nPORT = 50051\n'
        b'ADDR = os.getenv("ADDR", f"{HOST}:{PORT}")\nTWICE = 1\nTWICE = 2\n'
        b"def f():\n    LOCAL = 1\nMULTI = (\n    1,\n)\n",
    )
    assert facts.exports["HOST"] == "backend" and facts.exports["PORT"] == 50051
    assert facts.exports["ADDR"].default == "backend:50051"
    assert "TWICE" not in facts.exports and "LOCAL" not in facts.exports
    assert "MULTI" not in facts.exports, "a statement over several lines is left out"


def dialled(target: Imported, exports: dict[str, Any], exporter: str) -> Any:
    """What a channel of `svc/client.js` dials once `target` is resolved against the
    exports of the module at `exporter`."""
    loc = Loc("svc/client.js", 1, 1)
    channel = Channel(loc, "new Client", target, NOT_GIVEN, long_lived=True)
    user = CodeFacts("svc/client.js", "javascript", channels=[channel], deferred=True)
    source = CodeFacts(exporter, "javascript", exports=exports)
    return resolve_imports([source, user])[1].channels[0].target


def test_a_module_named_by_its_path_is_found_from_the_importers_folder() -> None:
    found = Imported(0, "./lib", "ADDR", by_path=True)
    assert dialled(found, {"ADDR": "backend:50051"}, "svc/lib/index.ts") == "backend:50051"
    assert dialled(found, {"ADDR": "backend:50051"}, "lib/index.ts") == UNKNOWN


def test_a_dotted_name_is_a_member_of_an_exported_object() -> None:
    exports = {"default": {"ADDR": "backend:50051"}}
    member = Imported(0, "./config", "default.ADDR", by_path=True)
    assert dialled(member, exports, "svc/config.js") == "backend:50051"
    missing = Imported(0, "./config", "default.PORT", by_path=True)
    assert dialled(missing, exports, "svc/config.js") == UNKNOWN


def test_an_address_imported_from_the_package_the_program_runs_as_is_followed(
    tmp_path: Path,
) -> None:
    """`from app.config import ADDR` in `app/clients/backend.py`: `app` is the package the
    program runs as a module of (`uvicorn app.main:app`), found above the importer."""
    tree = {
        "svc/app/config.py": 'ADDR = "backend:50051"\n',
        "svc/app/clients/backend.py": client("ADDR", "from app.config import ADDR"),
        "k8s.yaml": MANIFESTS,
    }
    [finding] = lint_files(tmp_path, tree, select=["KLB102"]).findings
    assert finding.path.endswith("backend.py") and "'backend:50051'" in finding.text
