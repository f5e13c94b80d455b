"""Golden files: each fix on real-looking input, compared byte for byte with the expected
output in fixtures/fix/CASE/. Regenerate after a deliberate change with
`K8SLB_REGENERATE=1 make test`, then review the diff of fixtures/fix/."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

from .go_toolchain import unformatted, vet
from .helpers import FIXTURES, lint_paths
from .java_toolchain import require_javac

CASES = {
    "prestop-block": ["--select", "KLB401"],
    "prestop-crlf-bom-4space": ["--select", "KLB401"],
    "prestop-flow": ["--select", "KLB401"],
    "prestop-existing-lifecycle": ["--select", "KLB401"],
    "prestop-exec": ["--select", "KLB401", "--kubernetes-version", "1.29", "--unsafe-fixes"],
    "grace": ["--select", "KLB402"],
    "twin": ["--select", "KLB101"],
    "liveness-tcp": ["--select", "KLB301", "--unsafe-fixes"],
    "python-server": ["--select", "KLB201,KLB204"],
    "python-client": ["--select", "KLB103"],
    "python-sigterm": ["--select", "KLB403", "--unsafe-fixes"],
    "python-sigterm-aio": ["--select", "KLB403", "--unsafe-fixes"],
    "python-line-length": ["--select", "KLB103,KLB201,KLB204"],
    "go-server": ["--select", "KLB201,KLB204"],
    "go-server-params": ["--select", "KLB201,KLB204"],
    "go-client": ["--select", "KLB103"],
    "go-stop": ["--select", "KLB404", "--unsafe-fixes"],
    "go-sigterm": ["--select", "KLB403", "--unsafe-fixes"],
    "java-server": ["--select", "KLB201,KLB204"],
    "java-server-variable": ["--select", "KLB201,KLB204"],
    "java-client": ["--select", "KLB103"],
    "java-stop": ["--select", "KLB404", "--unsafe-fixes"],
    "java-sigterm": ["--select", "KLB403", "--unsafe-fixes"],
}


def _input(case: str) -> Path:
    (found,) = (FIXTURES / "fix" / case).glob("in.*")
    return found


def fixed_copy(tmp_path: Path, case: str, line_ends: bytes | None = None) -> Path:
    """The case's input fixed in `tmp_path` (its lines ending in `line_ends` when given)."""
    source = _input(case)
    target = tmp_path / source.name
    shutil.copyfile(source, target)
    if line_ends is not None:
        target.write_bytes(_line_ends(source.read_bytes(), line_ends))
    settings = source.with_name("line-length.toml")  # the project's formatter settings
    if settings.exists():
        shutil.copyfile(settings, tmp_path / "pyproject.toml")
    named = [str(target)]
    build = source.with_name("pom.xml")  # the project's build: which grpc-java it is on
    if build.exists():
        shutil.copyfile(build, tmp_path / build.name)
        named.append(str(tmp_path / build.name))
    result = CliRunner().invoke(cli, ["fix", *CASES[case], *named])
    assert result.exit_code in (0, 1), result.output
    return target


@pytest.mark.parametrize("case", sorted(CASES))
def test_fix_matches_the_golden_file(tmp_path: Path, case: str) -> None:
    fixed = fixed_copy(tmp_path, case)
    golden = _input(case).with_name("out" + _input(case).suffix)
    if os.environ.get("K8SLB_REGENERATE"):
        golden.write_bytes(fixed.read_bytes())
    assert fixed.read_bytes() == golden.read_bytes()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_fixed_file_has_no_finding_of_the_fixed_rule(tmp_path: Path, case: str) -> None:
    fixed = fixed_copy(tmp_path, case)
    rules = CASES[case][CASES[case].index("--select") + 1].split(",")
    remaining = [f for f in lint_paths([str(fixed)], rules).findings if f.severity.label != "info"]
    assert remaining == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixing_twice_changes_nothing_more(tmp_path: Path, case: str) -> None:
    fixed = fixed_copy(tmp_path, case)
    once = fixed.read_bytes()
    result = CliRunner().invoke(cli, ["fix", *CASES[case], str(fixed)])
    assert fixed.read_bytes() == once
    assert "Nothing to fix" in result.output


@pytest.mark.parametrize("case", ["python-sigterm", "python-sigterm-aio"])
def test_imports_a_fix_adds_are_where_isort_puts_them(case: str) -> None:
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed next to this Python")
    golden = FIXTURES / "fix" / case / "out.py"
    done = subprocess.run(
        [str(ruff), "check", "--isolated", "--select", "I", str(golden)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout


def test_python_fixes_keep_to_the_configured_line_length_so_the_formatter_keeps_them() -> None:
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed next to this Python")
    golden = FIXTURES / "fix" / "python-line-length" / "out.py"
    assert max(len(line) for line in golden.read_text().splitlines()) <= 88
    done = subprocess.run(
        [str(ruff), "format", "--isolated", "--line-length", "88", "--diff", str(golden)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout


def test_the_line_length_is_the_nearest_formatter_setting(tmp_path: Path) -> None:
    from k8slb.languages.python import edit_lines as line_length
    from k8slb.languages.python.edit_lines import line_length_for

    line_length._known.clear()
    (tmp_path / ".git").mkdir()
    app = tmp_path / "services" / "app"
    app.mkdir(parents=True)
    assert line_length_for(str(app / "x.py")) == 88, "nothing configured: black's default"
    line_length._known.clear()
    (tmp_path / "pyproject.toml").write_text("[tool.black]\n")
    assert line_length_for(str(app / "x.py")) == 88, "black's own default"
    line_length._known.clear()
    (tmp_path / "services" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    assert line_length_for(str(app / "x.py")) == 120
    # what the way up learnt holds for the folders on it, and only for them
    assert line_length_for(str(tmp_path / "services" / "y.py")) == 120
    assert line_length_for(str(tmp_path / "z.py")) == 88
    line_length._known.clear()
    (app / "ruff.toml").write_text("line-length = 100\n")
    assert line_length_for(str(app / "x.py")) == 100
    line_length._known.clear()
    (app / "ruff.toml").write_text("line-length = [broken")
    assert line_length_for(str(app / "x.py")) == 120, "a broken file is passed over"


GO_CASES = sorted(case for case in CASES if case.startswith("go-"))


@pytest.mark.parametrize("case", GO_CASES)
def test_go_fixes_are_what_gofmt_writes(case: str) -> None:
    """gofmt-clean code stays gofmt-clean: `gofmt -l` lists neither the input nor the fix."""
    folder = FIXTURES / "fix" / case
    assert unformatted([folder / "in.go", folder / "out.go"]) == []


@pytest.mark.parametrize("case", GO_CASES)
def test_go_fixes_build(tmp_path: Path, case: str) -> None:
    """The fixed file compiles (`go vet` type-checks it and runs the vet checks) against real
    grpc-go, as the unfixed one does."""
    folder = FIXTURES / "fix" / case
    for name in ("in.go", "out.go"):
        source = (folder / name).read_text()
        done = vet(tmp_path, f"k8slbtest/{case}/{name[:-3]}", {"main.go": source})
        assert done.returncode == 0, f"{name}:\n{done.stderr}"


def test_the_demo_go_service_builds_before_and_after_its_fixes(tmp_path: Path) -> None:
    """The demo's Go service, fixed with every fix (unsafe ones too), is still gofmt-clean
    and compiles, as the good variant does."""
    demo = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", demo)
    before = (demo / "checkout" / "main.go").read_text()
    result = CliRunner().invoke(
        cli, ["fix", "--isolated", "--no-cache", "--unsafe-fixes", str(demo)]
    )
    assert result.exit_code in (0, 1), result.output
    after = (demo / "checkout" / "main.go").read_text()
    assert after != before, "the demo has a Go fix to prove"
    good = (FIXTURES / "demo" / "good" / "checkout" / "main.go").read_text()
    for name, source in (("bad", before), ("fixed", after), ("good", good)):
        path = tmp_path / f"{name}.go"
        path.write_text(source)
        assert unformatted([path]) == [], name
        done = vet(tmp_path / "gopath", f"k8slbtest/demo/{name}", {"main.go": source})
        assert done.returncode == 0, f"{name}:\n{done.stderr}"


JAVA_CASES = sorted(case for case in CASES if case.startswith("java-"))
JAVA_STUBS = Path(__file__).resolve().parent / "java_stubs"
# The application's own classes the Java goldens name: services, and a generated stub.
_JAVA_APP = {
    "InventoryService": "class InventoryService implements io.grpc.BindableService {}",
    "PricingService": "class PricingService implements io.grpc.BindableService {}",
    "SearchService": "class SearchService implements io.grpc.BindableService {}",
    "GreeterImpl": "class GreeterImpl implements io.grpc.BindableService {}",
    "InventoryGrpc": (
        "final class InventoryGrpc {\n"
        "  static final class InventoryBlockingStub {}\n\n"
        "  static InventoryBlockingStub newBlockingStub(io.grpc.Channel channel) {\n"
        "    return new InventoryBlockingStub();\n  }\n}"
    ),
}


@pytest.mark.parametrize("case", JAVA_CASES)
def test_java_fixes_compile(tmp_path: Path, case: str) -> None:
    """The fixed file compiles (javac type-checks it against the signatures of the
    grpc-java classes it uses, tests/java_stubs), as the unfixed one does."""
    javac = require_javac()
    for name in ("in.java", "out.java"):
        source = (FIXTURES / "fix" / case / name).read_text()
        package = re.search(r"^package ([\w.]+);", source, re.MULTILINE)
        main = re.search(r"^(?:public )?(?:final )?class (\w+)", source, re.MULTILINE)
        assert package is not None and main is not None
        root = tmp_path / name[:-5]
        folder = root.joinpath(*package.group(1).split("."))
        folder.mkdir(parents=True)
        files = [folder / f"{main.group(1)}.java"]
        files[0].write_text(source)
        for cls, body in _JAVA_APP.items():
            if re.search(rf"\b{cls}\b", source):
                files.append(folder / f"{cls}.java")
                files[-1].write_text(f"package {package.group(1)};\n\n{body}\n")
        done = subprocess.run(
            [
                javac,
                "-d",
                str(root / "classes"),
                "-sourcepath",
                f"{JAVA_STUBS}{os.pathsep}{root}",
                *map(str, files),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, (name, done.stderr)


def _line_ends(data: bytes, ending: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", ending)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_crlf_file_gets_its_fix_with_crlf_on_every_line(tmp_path: Path, case: str) -> None:
    """The fix of a file whose lines end in CRLF is the golden fix with CRLF line ends:
    no line a fix inserts ends in a bare LF."""
    fixed = fixed_copy(tmp_path, case, b"\r\n")
    golden = _input(case).with_name("out" + _input(case).suffix).read_bytes()
    assert fixed.read_bytes() == _line_ends(golden, b"\r\n")
