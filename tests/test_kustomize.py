"""`--kustomize`: each kustomization is built, what it builds is linted on its own (two
overlays are two deployments), and each finding is reported in the resource file that
holds the object. A stand-in `kustomize` prints what the real one would."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading import sources

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  sessionAffinity: ClientIP
  selector:
    app: api
  ports:
    - name: http
      port: 80
"""


def _repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the repository a build may read in
    base = tmp_path / "base"
    base.mkdir()
    (base / "kustomization.yaml").write_text("resources:\n  - service.yaml\n")
    (base / "service.yaml").write_text("# the base\n" + SERVICE.format(name="api"))
    prod = tmp_path / "overlays" / "prod"
    prod.mkdir(parents=True)
    (prod / "kustomization.yaml").write_text("namePrefix: prod-\nresources:\n  - ../../base\n")
    stand_in = tmp_path / "bin" / "kustomize"
    stand_in.parent.mkdir()
    stand_in.write_text(
        '#!/bin/sh\ncase "$2" in\n'
        f"  */prod) cat <<'EOF'\n{SERVICE.format(name='prod-api')}EOF\n;;\n"
        f"  *) cat <<'EOF'\n{SERVICE.format(name='api')}EOF\n;;\nesac\n"
    )
    stand_in.chmod(0o755)
    return stand_in.parent


def _check(*args: str) -> dict[str, Any]:
    done = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", *args])
    assert done.exit_code in (0, 1), done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_each_kustomization_is_built_and_reported_in_its_resource_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binaries = _repository(tmp_path)
    monkeypatch.setenv("PATH", f"{binaries}:{os.environ['PATH']}")
    report = _check("--kustomize", str(tmp_path))
    found = [(f["rule"], f["path"], f["line"], f["headline"]) for f in report["findings"]]
    service = str(tmp_path / "base" / "service.yaml")
    assert found == [  # the base is linted in the overlay that builds it
        (
            "KLB104",
            service,
            7,
            "Service/prod-api pins each client IP to one pod (sessionAffinity: ClientIP)",
        ),
    ]


def test_a_base_is_linted_in_each_overlay_that_builds_it_not_on_its_own_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built alone as well, the base said each of its findings once more (two overlays
    are two deployments: each says its own); named alone, the base is built as named, and
    the overlays of its project that build it in are left out of the context."""
    binaries = _repository(tmp_path)
    monkeypatch.setenv("PATH", f"{binaries}:{os.environ['PATH']}")
    staging = tmp_path / "overlays" / "staging"
    staging.mkdir()
    (staging / "kustomization.yaml").write_text("namePrefix: qa-\nresources:\n  - ../../base\n")
    stand_in = binaries / "kustomize"
    staging_build = f"  */staging) cat <<'EOF'\n{SERVICE.format(name='qa-api')}EOF\n;;\n"
    stand_in.write_text(stand_in.read_text().replace("  *) cat", staging_build + "  *) cat"))
    report = _check("--kustomize", str(tmp_path))
    headlines = [f["headline"].split(" ")[0] for f in report["findings"]]
    assert sorted(headlines) == ["Service/prod-api", "Service/qa-api"]  # not the base's too
    for context in ([], ["--no-project-context"]):  # the overlays around it are not built
        alone = _check("--kustomize", *context, str(tmp_path / "base"))["findings"]
        assert [f["headline"].split(" ")[0] for f in alone] == ["Service/api"]


def test_kustomizations_that_only_name_each_other_are_each_built(tmp_path: Path) -> None:
    """A ring has no overlay on top to be linted in: none of it is left out."""
    from k8slb.reading.kustomize import included

    for name, other in (("a", "b"), ("b", "a"), ("top", "c")):
        (tmp_path / name).mkdir(exist_ok=True)
        (tmp_path / name / "kustomization.yaml").write_text(f"resources:\n  - ../{other}\n")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "kustomization.yaml").write_text("resources: []\n")
    folders = [str(tmp_path / name) for name in ("a", "b", "c", "top")]
    assert included(folders) == {str(tmp_path / "c")}


def test_without_the_option_the_resource_files_are_linted_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binaries = _repository(tmp_path)
    monkeypatch.setenv("PATH", f"{binaries}:{os.environ['PATH']}")
    report = _check(str(tmp_path))
    assert [f["headline"].split(" ")[0] for f in report["findings"]] == ["Service/api"]


def test_without_a_binary_each_kustomization_is_named_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each that would be built: the overlay (its base is built in it)."""
    _repository(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    report = _check("--kustomize", "--fail-on", "info", str(tmp_path))
    assert sorted(Path(f["path"]).parent.name for f in report["findings"]) == ["prod"]
    assert all(f["rule"] == "KLB003" and f["severity"] == "info" for f in report["findings"])


def test_a_reference_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    from k8slb.reading.kustomize import files_of

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.yaml").write_text("kind: Secret\n")
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "app").mkdir()
    (repository / "app" / "kustomization.yaml").write_text("resources:\n  - ../../elsewhere\n")
    assert files_of(str(repository / "app")) == [str(repository / "app" / "kustomization.yaml")]


def test_without_the_option_an_overlay_reads_the_base_it_names(tmp_path: Path) -> None:
    """The most common layout: `check overlays/prod` reads ../../base as files, as
    `check .` does, and says what it leaves out (a remote resource, a path out of the
    repository) on the kustomization's line."""
    _repository(tmp_path)
    prod = tmp_path / "overlays" / "prod"
    (prod / "kustomization.yaml").write_text(
        "namePrefix: prod-\nresources:\n  - ../../base\n"
        "  - https://github.com/acme/shared//deploy?ref=v1\n  - ../../../elsewhere\n"
    )
    report = _check("--fail-on", "info", str(prod))
    found = [
        (f["rule"], Path(f["path"]).relative_to(tmp_path).as_posix(), f["line"])
        for f in report["findings"]
    ]
    assert found == [
        ("KLB104", "base/service.yaml", 7),
        ("KLB006", "overlays/prod/kustomization.yaml", 4),
        ("KLB006", "overlays/prod/kustomization.yaml", 5),
    ]
    messages = [f["headline"] for f in report["findings"][1:]]
    assert "is remote" in messages[0] and "outside the repository" in messages[1]
    whole = _check(str(tmp_path))  # the base once, however it is reached
    assert [f["rule"] for f in whole["findings"]] == ["KLB104", "KLB006", "KLB006"]


def test_a_list_written_at_the_left_margin_is_read() -> None:
    """YAML lets a list's items start at the key's own column: kustomize's docs write them
    so; a comment among them does not end the list, the next key does."""
    from k8slb.reading.kustomization import patch_files, references

    text = "resources:\n- a.yaml\n# the base\n- ../base\nnamePrefix: x-\n- stray\n"
    named = [r.text for r in references("app/kustomization.yaml", text)]
    assert named == ["a.yaml", "../base"]
    patches = (
        "patches:\n- path: fwi.yaml\n  target:\n    kind: Job\npatchesStrategicMerge:\n- b.yaml\n"
    )
    assert patch_files("app/kustomization.yaml", patches) == ["app/fwi.yaml", "app/b.yaml"]


def test_a_patch_is_not_linted_as_an_object(tmp_path: Path) -> None:
    """A component's patch is a fragment of the objects it targets (bank-of-anthos writes
    them with no apiVersion): it is no KLB002 error; the resources still are linted."""
    _repository(tmp_path)
    component = tmp_path / "components" / "sql"
    component.mkdir(parents=True)
    (component / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
        "patches:\n- path: add-proxy.yaml\n  target:\n    kind: Deployment\n"
    )
    (component / "add-proxy.yaml").write_text(
        "kind: Deployment\nmetadata:\n  name: any\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: proxy\n        image: proxy:1\n"
    )
    rules = [f["rule"] for f in _check("--fail-on", "info", str(tmp_path))["findings"]]
    assert "KLB002" not in rules and "KLB104" in rules


def test_kustomizations_that_name_each_other_are_each_read_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for name, other in (("a", "b"), ("b", "a")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kustomization.yaml").write_text(f"resources:\n  - ../{other}\n")
    (tmp_path / "a" / "service.yaml").write_text(SERVICE.format(name="api"))
    report = _check(str(tmp_path / "a"))
    assert report["summary"]["files"] == 3


BASE_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web:1
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
          readinessProbe:
            httpGet: {path: /healthz, port: 8080}
"""
# what `kustomize build overlays/prod` prints: keys sorted, lists at their key's indentation
BUILT_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: web:1
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8080
        name: web
        readinessProbe:
          httpGet:
            path: /healthz
            port: 8080
"""


def test_a_field_no_patch_changed_keeps_its_line_in_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overlay's patch names the same Deployment: the finding on a probe the patch
    never touched is on the probe's line of the base, not on the patch's first line."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n  - deploy.yaml\n")
    (tmp_path / "base" / "deploy.yaml").write_text(BASE_DEPLOYMENT)
    prod = tmp_path / "overlays" / "prod"
    prod.mkdir(parents=True)
    (prod / "kustomization.yaml").write_text(
        "resources:\n  - ../../base\npatches:\n  - path: replicas.yaml\n"
    )
    (prod / "replicas.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 5\n"
    )
    stand_in = tmp_path / "bin" / "kustomize"
    stand_in.parent.mkdir()
    stand_in.write_text(f"#!/bin/sh\ncat <<'EOF'\n{BUILT_DEPLOYMENT}EOF\n")
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{stand_in.parent}:{os.environ['PATH']}")
    report = _check("--kustomize", "--select", "KLB301", str(prod))
    found = [(Path(f["path"]).name, f["line"]) for f in report["findings"]]
    assert found == [("deploy.yaml", 16)], "livenessProbe: line 16 of the base"


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        (".k8slb.yaml", "select: [ALL]\nkustomize: true\n", ".k8slb.yaml:2: `kustomize`"),
        ("pyproject.toml", "[tool.k8slb]\nkustomize = true\n", "pyproject.toml: `kustomize`"),
    ],
)
def test_a_repositorys_configuration_cannot_turn_on_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str, said: str
) -> None:
    """A build runs kustomize, which fetches any URL a kustomization names: an untrusted
    pull request must not be able to ask for it. The key is refused, naming the flag."""
    binaries = _repository(tmp_path)
    ran = tmp_path / "ran"
    (binaries / "kustomize").write_text(f"#!/bin/sh\ntouch {ran}\n")
    monkeypatch.setenv("PATH", f"{binaries}:{os.environ['PATH']}")
    (tmp_path / name).write_text(text)
    done = CliRunner().invoke(cli, ["check", "--format", "json", str(tmp_path)])
    assert done.exit_code == 2
    assert f"{tmp_path / said} is not read from a configuration" in done.output
    assert "pass --kustomize on the command line" in done.output
    assert not ran.exists(), "kustomize never ran"


def test_a_kustomization_naming_a_remote_resource_is_not_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kustomize would fetch the URL (a request from the runner to a host the pull request
    chooses): each remote entry is KLB006 and that kustomization is not built."""
    binaries = _repository(tmp_path)
    built = tmp_path / "built"
    stand_in = binaries / "kustomize"
    stand_in.write_text(
        stand_in.read_text().replace("#!/bin/sh\n", f'#!/bin/sh\necho "$2" >> {built}\n')
    )
    monkeypatch.setenv("PATH", f"{binaries}:{os.environ['PATH']}")
    prod = tmp_path / "overlays" / "prod" / "kustomization.yaml"
    prod.write_text(prod.read_text() + "  - https://example.com/evil.yaml\n")
    report = _check("--kustomize", str(tmp_path))
    remote = [
        (f["rule"], f["path"], f["line"]) for f in report["findings"] if "remote" in f["headline"]
    ]
    assert remote == [("KLB006", str(prod), 4)]
    assert built.read_text().split() == [str(tmp_path / "base")], "only the base is built"


def test_the_overlays_that_build_a_kustomization_in_are_found_through_the_others(
    tmp_path: Path,
) -> None:
    """`building` walks back from the named kustomizations once: an overlay over an overlay
    over the base builds the base in too; one over another base does not."""
    from k8slb.reading.kustomize import building

    for name, named in (("base", []), ("mid", ["base"]), ("top", ["mid"]), ("other", ["x"])):
        (tmp_path / name).mkdir()
        entries = "".join(f"  - ../{n}\n" for n in named)
        (tmp_path / name / "kustomization.yaml").write_text(f"resources:\n{entries or '  []'}\n")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "kustomization.yaml").write_text("resources: []\n")
    overlays = [str(tmp_path / n) for n in ("top", "mid", "other")]
    assert building(overlays, [str(tmp_path / "base")]) == {
        str(tmp_path / "top"),
        str(tmp_path / "mid"),
    }


def test_a_tree_with_no_kustomization_is_walked_without_making_each_path_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What kustomizations name is looked for among the files found only when one was found:
    a pre-commit hook's walk of 10,000 files made each of their paths absolute for none."""
    for number in range(40):
        (tmp_path / f"app-{number}.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    made: list[str] = []
    absolute = os.path.abspath
    monkeypatch.setattr(sources.os.path, "abspath", lambda p: made.append(p) or absolute(p))
    found = sources.discover([str(tmp_path)])
    assert len(found.sources) == 40
    assert len(made) < 40


def test_a_build_stopped_by_its_time_limit_says_so_and_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that runs past BUILD_TIMEOUT (a busy machine) is said as stopped by time,
    and marked stopped, so that no cache keeps it as the kustomization's answer."""
    from k8slb.reading import kustomize

    _repository(tmp_path)
    slow = tmp_path / "bin" / "kustomize"
    slow.write_text("#!/bin/sh\nexec /bin/sleep 5\n")
    monkeypatch.setenv("PATH", str(slow.parent))
    monkeypatch.setattr(kustomize, "BUILD_TIMEOUT", 0.2)
    built = kustomize.build(str(tmp_path / "overlays" / "prod"))
    assert built.stopped and not built.files
    (said,) = built.problems
    assert "timed out after 0.2 seconds" in said.message
