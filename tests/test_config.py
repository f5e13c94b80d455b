"""Configuration: found by walking up, validated, and what each key does."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.run.config import find_config

from .helpers import FIXTURES


@contextlib.contextmanager
def working_folder(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def check(where: Path, *args: str) -> tuple[int, str, str]:
    """Run `k8slb check demo` with `where` as the current folder (demo: the bad demo)."""
    if not (where / "demo").exists():
        shutil.copytree(FIXTURES / "demo" / "bad", where / "demo")
    with working_folder(where):
        result = CliRunner().invoke(cli, ["check", "--format", "json", *args, "demo"])
    return result.exit_code, result.stdout, result.stderr


def rules(stdout: str) -> set[str]:
    return {f["rule"] for f in json.loads(stdout)["findings"]}


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def test_the_nearest_config_wins_and_pyproject_needs_the_table(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the search goes up to the repository's top
    write(tmp_path / "pyproject.toml", "[tool.k8slb]\nselect = ['KLB401']\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    assert find_config(inner) == tmp_path / "pyproject.toml"
    write(tmp_path / "a" / "pyproject.toml", "[project]\nname = 'x'\n")  # no [tool.k8slb]
    assert find_config(inner) == tmp_path / "pyproject.toml"
    write(tmp_path / "a" / ".k8slb.yaml", "select: [KLB101]\n")
    assert find_config(inner) == tmp_path / "a" / ".k8slb.yaml"


def test_select_ignore_and_fail_on_from_pyproject(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        """\
        [tool.k8slb]
        select = ["KLB1", "KLB4"]
        ignore = ["grpc-client-clusterip", "client-port-not-exposed"]
        fail-on = "error"
        """,
    )
    code, out, _ = check(tmp_path)
    assert rules(out) == {"KLB101", "KLB401", "KLB403"}
    assert code == 0, "only warnings, and fail-on is error"
    code, out, _ = check(tmp_path, "--select", "KLB301", "--fail-on", "info")
    assert rules(out) == {"KLB301"} and code == 1, "the command line wins"


def test_isolated_and_explicit_config(tmp_path: Path) -> None:
    write(tmp_path / ".k8slb.yaml", "select: [KLB401]\n")
    other = write(tmp_path / "other.yaml", "select: [KLB301]\n")
    assert rules(check(tmp_path)[1]) == {"KLB401"}
    assert len(rules(check(tmp_path, "--isolated")[1])) == 7
    assert rules(check(tmp_path, "--config", str(other))[1]) == {"KLB301"}


def test_an_explicit_toml_config_is_read_as_toml(tmp_path: Path) -> None:
    """`--config k8slb.toml`: a `[tool.k8slb]` table when it has one, else its top level."""
    top = write(tmp_path / "k8slb.toml", 'select = ["KLB301"]\n')
    assert rules(check(tmp_path, "--config", str(top))[1]) == {"KLB301"}
    table = write(tmp_path / "other.toml", '[tool.k8slb]\nselect = ["KLB401"]\n')
    assert rules(check(tmp_path, "--config", str(table))[1]) == {"KLB401"}


def test_exclude_kubernetes_version_mesh_and_fix_values(tmp_path: Path) -> None:
    write(
        tmp_path / ".k8slb.yaml",
        """\
        exclude: ["demo/**/*.py"]
        mesh: istio
        kubernetes-version: "1.29"
        fix:
          prestop-seconds: 8
        """,
    )
    _, out, _ = check(tmp_path)
    assert rules(out) == {"KLB301", "KLB401"}, "Python excluded, KLB101 silenced by the mesh"
    prestop = next(f for f in json.loads(out)["findings"] if f["rule"] == "KLB401")
    assert prestop["fix"]["safe"] is False, "exec sleep below 1.30"
    assert prestop["fix"]["description"].startswith("add lifecycle.preStop.exec (8 s)")


def test_per_file_ignores(tmp_path: Path) -> None:
    write(tmp_path / ".k8slb.yaml", "per-file-ignores:\n  'demo/**/*.py': [KLB2, KLB4]\n")
    found = json.loads(check(tmp_path)[1])["findings"]
    assert {
        (f["path"].rsplit("/", 1)[1], f["rule"]) for f in found if f["path"].endswith(".py")
    } == {("client.py", "KLB102"), ("client.py", "KLB111")}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "selct: [KLB401]\n",
            ".k8slb.yaml:1: unknown key `selct`; did you mean `select`? (allowed: baseline,",
        ),
        (
            "fail-on: critical\n",
            ".k8slb.yaml:1: `fail-on`: 'critical' is not one of 'error', 'warning', 'info'",
        ),
        ("select: KLB401\n", ".k8slb.yaml:1: `select` must be of type array, not 'KLB401'"),
        (
            "fix:\n  prestop-seconds: soon\n",
            ".k8slb.yaml:2: `fix.prestop-seconds` must be of type integer, not 'soon'",
        ),
        ("ignore: [KLB999]\n", ".k8slb.yaml: unknown rule or prefix 'KLB999'"),
        ("exemptions:\n  - rules: [KLB401]\n", "`exemptions.0`: 'reason' is a required property"),
        (
            "exemptions:\n  - {rules: [KLB401], reason: x, expires: '2026-02-30'}\n",
            "`exemptions`: day is out of range",
        ),
        ("select: [KLB401\n", ".k8slb.yaml:2: not valid YAML"),
    ],
    ids=[
        "unknown-key",
        "wrong-value",
        "wrong-type",
        "nested-type",
        "unknown-rule",
        "missing-reason",
        "impossible-date",
        "broken-yaml",
    ],
)
def test_a_wrong_config_is_exit_2_naming_file_key_and_what_is_allowed(
    tmp_path: Path, config: str, message: str
) -> None:
    write(tmp_path / ".k8slb.yaml", config)
    code, out, err = check(tmp_path)
    assert code == 2 and out == ""
    assert message in err


def test_a_wrong_pyproject_table_is_exit_2_too(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.k8slb]\nfail_on = 'error'\n")
    code, _, err = check(tmp_path)
    assert code == 2 and "pyproject.toml: unknown key `fail_on`" in err


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("fail_on: error\n", ":1: unknown key `fail_on`; did you mean `fail-on`? (allowed: "),
        ("selct: [KLB401]\n", ":1: unknown key `selct`; did you mean `select`? (allowed: "),
        ("fix:\n  prestop_seconds: 5\n", ":2: unknown key `fix.prestop_seconds`; did you mean "),
        ("exclud: []\n", ":1: unknown key `exclud`; did you mean `exclude`?"),
        ("colour: red\n", ":1: unknown key `colour` (allowed: "),
    ],
)
def test_an_unknown_key_close_to_a_known_one_is_suggested(
    tmp_path: Path, config: str, message: str
) -> None:
    """`_` for `-` first (TOML's habit), then a close spelling; nothing when none is close."""
    write(tmp_path / ".k8slb.yaml", config)
    code, _, err = check(tmp_path)
    assert code == 2 and f".k8slb.yaml{message}" in err, err


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "links:\n  Deployment/shop/api:app: api\n  Deployment/web: app\n",
            ":3: `links`: the key 'Deployment/web' is not a container, "
            "KIND/NAMESPACE/NAME:CONTAINER or KIND/NAME:CONTAINER "
            "(such as Deployment/shop/frontend:app)",
        ),
        (
            "kubernetes-version: '1.x'\n",
            ":1: `kubernetes-version`: the value '1.x' is not a Kubernetes version",
        ),
        (
            "exemptions:\n  - {rules: [KLB401], reason: x, expires: '2026-1-1'}\n",
            ":2: `exemptions.0.expires`: the value '2026-1-1' is not a date YYYY-MM-DD",
        ),
    ],
    ids=["links-key", "kubernetes-version", "expires"],
)
def test_a_value_of_the_wrong_form_is_said_in_words_not_as_a_regular_expression(
    tmp_path: Path, config: str, message: str
) -> None:
    write(tmp_path / ".k8slb.yaml", config)
    code, _, err = check(tmp_path)
    assert code == 2 and f".k8slb.yaml{message}" in err, err
    assert "^" not in err and "does not match" not in err


def test_a_missing_explicit_config_is_exit_2(tmp_path: Path) -> None:
    code, _, err = check(tmp_path, "--config", "nope.yaml")
    assert code == 2 and "nope.yaml: no such configuration file" in err


def test_the_configuration_is_found_from_the_linted_path_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner
    from k8slb.interface.cli import cli

    repo = tmp_path / "repo"
    (repo / "k8s").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".k8slb.yaml").write_text("ignore: [KLB104]\n")
    (repo / "k8s" / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: api}\n"
        "spec: {selector: {app: api}, sessionAffinity: ClientIP, ports: [{port: 80}]}\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("K8SLB_DEBUG", "")
    done = CliRunner().invoke(cli, ["check", "-v", "--format", "json", str(repo / "k8s")])
    assert json.loads(done.stdout)["findings"] == [], "the repository's ignore applies"
    assert f"configuration: {repo / '.k8slb.yaml'}" in done.stderr
    assert list(elsewhere.iterdir()) == [], "nothing is written in an unrelated folder"


@pytest.mark.parametrize(
    ("config", "said"),
    [
        (
            "helm:\n  values: [ci/missing.yaml]\n",
            ".k8slb.yaml:2: `helm.values[0]`: no values file ci/missing.yaml",
        ),
        (
            "helm:\n  charts:\n    nochart: [[a.yaml]]\n",
            ".k8slb.yaml:3: `helm.charts.nochart`: nochart is no chart (no Chart.yaml)",
        ),
        (
            "helm:\n  charts:\n    chart: [[values.yaml], [ci/gone.yaml]]\n",
            ".k8slb.yaml:3: `helm.charts.chart[1][0]`: no values file ci/gone.yaml in chart chart",
        ),
        (
            "select: [KLB101]\nlinks:\n  Deployment/shop:api: services/gone\n",
            ".k8slb.yaml:3: `links.Deployment/shop:api`: services/gone does not exist",
        ),
        (
            "kubernetes-version: 1.30\n",
            ".k8slb.yaml:1: `kubernetes-version` must be a string: YAML reads 1.3 as a number "
            '(1.30 as 1.3); quote it: kubernetes-version: "1.30"',
        ),
    ],
)
def test_a_path_the_configuration_names_must_be_there(
    tmp_path: Path, config: str, said: str
) -> None:
    """A wrong value stops the run (exit 2) with the file and the line, as the README says;
    it is not a rendering finding that --exit-zero turns green, nor a pin to nothing."""
    (tmp_path / "chart").mkdir()
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "chart" / "values.yaml").write_text("a: 1\n")
    (tmp_path / ".k8slb.yaml").write_text(config)
    done = CliRunner().invoke(cli, ["check", "--exit-zero", str(tmp_path)])
    assert done.exit_code == 2
    assert f"{tmp_path / said}" in done.output, done.output


def test_a_missing_helm_values_file_or_a_bad_helm_set_is_a_usage_error(tmp_path: Path) -> None:
    """Checked even with no chart among the paths: exit 2, not a KLB003 warning."""
    (tmp_path / "s.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")
    for option in (["--helm-values", str(tmp_path / "nope.yaml")], ["--helm-set", "a"]):
        done = CliRunner().invoke(
            cli, ["check", "--isolated", "--exit-zero", *option, str(tmp_path)]
        )
        assert done.exit_code == 2, (option, done.output)
        assert "Invalid value for" in done.output
    fine = CliRunner().invoke(
        cli, ["check", "--isolated", "--helm-set", "a=1,b.c=x", str(tmp_path)]
    )
    assert fine.exit_code == 0, fine.output


def test_exclude_applies_to_named_files_only_when_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pre-commit names each changed file, so the hooks pass --force-exclude: the
    configuration's `exclude` then holds for named files too. --exclude replaces the
    configuration's patterns, --extend-exclude adds to them (relative to the current
    folder), as in ruff."""
    bad = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    for folder in ("vendor", "app", "generated"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "backend.yaml").write_text(bad)
    (tmp_path / ".k8slb.yaml").write_text("exclude: [vendor/]\n")
    monkeypatch.chdir(tmp_path)

    def read(*args: str) -> list[str]:
        done = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", *args])
        assert done.exit_code in (0, 1), done.output
        return sorted({Path(f["path"]).parent.name for f in json.loads(done.stdout)["findings"]})

    named = ["vendor/backend.yaml", "app/backend.yaml"]
    assert read(*named) == ["app", "vendor"], "named: read, as ruff does without the flag"
    assert read("--force-exclude", *named) == ["app"]
    assert read("--force-exclude", "vendor") == []
    assert read(".") == ["app", "generated"]
    assert read("--exclude", "generated", ".") == ["app", "vendor"], "replaces the configuration's"
    assert read("--extend-exclude", "generated,app/", ".") == []


@pytest.mark.parametrize(
    ("config", "key", "line"),
    [
        ("helm:\n  values: [{secret}]\n", "helm.values[0]", 2),
        ("helm:\n  values: [../secret.yaml]\n", "helm.values[0]", 2),
        ("helm:\n  values: [linked.yaml]\n", "helm.values[0]", 2),
        ("helm:\n  charts:\n    chart: [[../../secret.yaml]]\n", "helm.charts.chart[0][0]", 3),
        ("helm:\n  charts:\n    ../outside-chart: [[values.yaml]]\n", "helm.charts", 3),
        ("links:\n  Deployment/shop:api: ../../..\n", "links.Deployment/shop:api", 2),
        ("select: [ALL]\nbaseline: ../secret.yaml\n", "baseline", 2),
        ("baseline: linked-folder/b.json\n", "baseline", 1),
    ],
    ids=[
        "absolute values file",
        "values file by ..",
        "values file by a link",
        "chart's values file by ..",
        "chart outside",
        "links target by ..",
        "baseline by ..",
        "baseline through a linked folder",
    ],
)
def test_a_path_the_configuration_names_must_stay_in_its_repository(
    tmp_path: Path, config: str, key: str, line: int
) -> None:
    """An untrusted repository's configuration must not make k8slb read, merge and quote a
    file of the runner's (a kubeconfig, credentials) nor overwrite one with
    --write-baseline: a path leading out of the repository, by `..`, an absolute path or a
    link, is refused (exit 2) with the file, the line and the key."""
    secret = write(tmp_path / "secret.yaml", "token: s3cret\n")
    outside_chart = tmp_path / "outside-chart"
    outside_chart.mkdir()
    write(outside_chart / "Chart.yaml", "apiVersion: v2\nname: o\nversion: 1.0.0\n")
    write(outside_chart / "values.yaml", "token: s3cret\n")
    repo = tmp_path / "repo"
    (repo / "chart" / "templates").mkdir(parents=True)
    (repo / ".git").mkdir()
    write(repo / "chart" / "Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
    write(repo / "chart" / "values.yaml", "a: 1\n")
    (repo / "linked.yaml").symlink_to(secret)
    (repo / "linked-folder").symlink_to(tmp_path)
    configuration = write(repo / ".k8slb.yaml", config.format(secret=secret))
    for write_baseline in ([], ["--write-baseline"]):
        done = CliRunner().invoke(cli, ["check", "--exit-zero", *write_baseline, str(repo)])
        assert done.exit_code == 2, done.output
        assert f"{configuration}:{line}: `{key}" in done.output
        assert "outside the repository" in done.output and "s3cret" not in done.output
    assert secret.read_text() == "token: s3cret\n", "not overwritten by --write-baseline"


def test_a_path_given_on_the_command_line_may_lie_outside_the_repository(tmp_path: Path) -> None:
    """The user's own choice: --helm-values and --baseline name any file."""
    values = write(tmp_path / "values.yaml", "replicas: 2\n")
    repo = tmp_path / "repo"
    (repo / "chart" / "templates").mkdir(parents=True)
    (repo / ".git").mkdir()
    write(repo / "chart" / "Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
    write(repo / "chart" / "values.yaml", "a: 1\n")
    baseline = tmp_path / "baseline.json"
    options = ["--helm-values", str(values), "--baseline", str(baseline), "--write-baseline"]
    done = CliRunner().invoke(cli, ["check", "--exit-zero", *options, str(repo)])
    assert done.exit_code == 0, done.output
    assert baseline.is_file()


def test_outside_any_repository_the_configuration_names_only_files_below_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tree without .git (unpacked in a home folder, checked from there) is its own
    project: its configuration cannot reach the folder around it."""
    write(tmp_path / "secret.yaml", "token: s3cret\n")
    tree = tmp_path / "download"
    tree.mkdir()
    configuration = write(tree / ".k8slb.yaml", "helm:\n  values: [../secret.yaml]\n")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(cli, ["check", "download"])
    assert done.exit_code == 2
    assert f"{configuration}:2: `helm.values[0]`: ../secret.yaml leads outside" in done.output


@pytest.mark.parametrize(
    ("days", "said", "exempted"),
    [
        (3, "expires on {day}, in 3 days: its findings are reported again after that day", True),
        (0, "expires today: its findings are reported again from tomorrow", True),
        (-1, "expired on {day}: its findings are reported again", False),
    ],
    ids=["within-14-days", "on-the-day", "expired"],
)
def test_an_exemption_about_to_expire_or_expired_is_a_warning_with_its_line(
    tmp_path: Path, days: int, said: str, exempted: bool
) -> None:
    """Its findings come back (and fail the run) when it expires: said before, on the day,
    and after, on stderr as `k8slb: warning:`, whatever the format."""
    import datetime

    day = datetime.date.today() + datetime.timedelta(days=days)
    write(
        tmp_path / ".k8slb.yaml",
        f"exemptions:\n  - {{rules: [KLB301], reason: later, expires: '{day}'}}\n"
        "  - {rules: [KLB401], reason: 'being fixed', expires: '" + str(day) + "'}\n",
    )
    _, out, err = check(tmp_path)
    expected = "k8slb: warning: .k8slb.yaml:3: the exemption `exemptions[1]` (KLB401: being fixed) "
    assert expected + said.format(day=day) in err, err
    assert ("KLB401" not in rules(out)) is exempted


def test_an_exemption_expiring_later_than_two_weeks_is_not_mentioned(tmp_path: Path) -> None:
    import datetime

    day = datetime.date.today() + datetime.timedelta(days=15)
    write(
        tmp_path / ".k8slb.yaml",
        f"exemptions:\n  - {{rules: [KLB401], reason: x, expires: '{day}'}}\n",
    )
    _, out, err = check(tmp_path)
    assert "KLB401" not in rules(out) and "warning" not in err
