"""Who dials a Service directly (model/dialers.py), as a pre-commit run finds it: the
Service's file changed, every other parse from the cache. A few Services are looked for
by name before anything is read; whatever way a client names the Service, the hook must
find it as the whole-tree run does."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading import objects
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HEADLESS_TWIN
from k8slb.run import parse_codec

from .test_links import workload as deployment


def workload(name: str, variable: str = "UNUSED", value: str = "") -> str:
    """A Deployment (namespace shop) whose one container sets one env variable."""
    env = f'          env: [{{name: {variable}, value: "{value}"}}]\n'
    return deployment(name, f"registry.example/{name}:1.0", env)


def channel(target: str) -> str:
    return f"import os\n\nimport grpc\n\nCHANNEL = grpc.insecure_channel({target})\n"


CONFIG_MAP = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: client-config, namespace: shop}}\n"
    'data:\n  {key}: "backend.default:50051"\n---\n'
)
ARGS_CLIENT = workload("frontend").replace("env:", 'args: ["--b=backend:50051"]\n          env:')
# Each a client of `backend`, named another way: (its files, how the finding names it).
CLIENTS: dict[str, tuple[dict[str, str], str]] = {
    "args": ({"client.yaml": ARGS_CLIENT}, "Deployment/shop/frontend (args)"),
    "env value in capitals": (
        {"client.yaml": workload("frontend", "B", "BACKEND:50051")},
        "Deployment/shop/frontend (env B)",
    ),
    "a literal channel target": (
        {"client/app.py": channel('"backend:50051"')},
        "client/app.py:5",
    ),
    "an environment variable's default": (
        {"client/app.py": channel('os.environ.get("ADDR", "backend:50051")')},
        "client/app.py:5",
    ),
    "a workload's env value (dialed too)": (
        {
            "client/app.py": channel('os.environ["ADDR"]'),
            "client/client.yaml": workload("client", "ADDR", "backend.default:50051"),
        },
        "Deployment/shop/client (env ADDR)",
    ),
    # a bare name is no address in a container's strings, but a channel's target it is
    "a variable a workload sets for the code": (
        {
            "client/app.py": channel('os.environ["ADDR"]'),
            "client/client.yaml": workload("client", "ADDR", "backend"),
        },
        "client/app.py:5",
    ),
    "a Kelvin sign, whose lower case is k": (
        {
            "client/app.py": channel('os.environ["ADDR"]'),
            "client/client.yaml": workload("client", "ADDR", "bac\u212aend"),
        },
        "client/app.py:5",
    ),
    "a prefix that the variable's value completes": (
        {
            "client/app.py": channel("f\"back{os.environ['REST']}\""),
            "client/client.yaml": workload("client", "REST", "end:50051"),
        },
        "client/app.py:5",
    ),
    "the kubelet's link to the Service": (
        {
            "client/app.py": channel('os.environ["BACKEND_SERVICE_HOST"] + ":50051"'),
            "client/client.yaml": workload("client"),
        },
        "client/app.py:5",
    ),
    "a ConfigMap the container loads its env from, with a prefix": (
        {
            "client/app.py": channel('os.environ["SVC_ADDR"]'),
            "client/client.yaml": CONFIG_MAP.format(key="ADDR")
            + deployment(
                "client",
                "registry.example/client:1.0",
                "          envFrom: [{prefix: SVC_, configMapRef: {name: client-config}}]\n",
            ),
        },
        "client/app.py:5",
    ),
    "a ConfigMap's key an env entry takes": (
        {
            "client/app.py": channel('os.environ["ADDR"]'),
            "client/client.yaml": CONFIG_MAP.format(key="target")
            + deployment(
                "client",
                "registry.example/client:1.0",
                "          env:\n            - name: ADDR\n              valueFrom:\n"
                "                configMapKeyRef: {name: client-config, key: target}\n",
            ),
        },
        "client/app.py:5",
    ),
    "a dotted name set, read as its relaxed variable": (
        {
            "client/app.py": channel('os.environ["BACKEND_ADDR"]'),
            "client/client.yaml": workload("client", "backend.addr", "backend"),
        },
        "client/app.py:5",
    ),
    "a Spring settings file a ConfigMap mounted over it retargets": (
        {
            "svc/src/main/resources/application.yml": (
                "grpc:\n  client:\n    backend:\n      address: static://localhost:50051\n"
            ),
            "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
            "svc.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: svc\n  namespace: shop\n"
                "data:\n  application.yml: |\n    grpc:\n      client:\n        backend:\n"
                "          address: static://backend.default:50051\n---\n"
            )
            + deployment(
                "svc",
                "registry.example/svc:1.0",
                "          volumeMounts: [{name: s, mountPath: /config}]\n"
                "      volumes: [{name: s, configMap: {name: svc}}]\n",
            ),
        },
        "svc/src/main/resources/application.yml:4",
    ),
    "a configuration file a ConfigMap mounts": (
        {
            "reports.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: reports, namespace: shop}\n"
                "data:\n  settings.yaml: |\n    store:\n      grpc:\n"
                "        address: dns:///backend.default:50051\n---\n"
            )
            + deployment(
                "reports",
                "registry.example/reports:1.0",
                "          volumeMounts: [{name: conf, mountPath: /etc/reports}]\n"
                "      volumes: [{name: conf, configMap: {name: reports}}]\n",
            ),
        },
        "Deployment/shop/reports (file /etc/reports/settings.yaml of ConfigMap reports)",
    ),
    "a URL in a Secret's file a projected volume mounts": (
        {
            "reports.yaml": (
                "apiVersion: v1\nkind: Secret\nmetadata: {name: reports, namespace: shop}\n"
                "stringData:\n  app.toml: |\n    [store]\n"
                '    url = "http://backend.default:50051/v1"\n---\n'
            )
            + deployment(
                "reports",
                "registry.example/reports:1.0",
                "          volumeMounts: [{name: conf, mountPath: /conf}]\n"
                "      volumes:\n"
                "        - {name: conf, projected: {sources: [{secret: {name: reports}}]}}\n",
            ),
        },
        "Deployment/shop/reports (file /conf/app.toml of Secret reports)",
    ),
}
# Clients of other Services, whose files a hook on `backend` has no need to read.
OTHERS = {
    **{f"other-{n}.yaml": workload(f"other-{n}", "PEER", f"svc-{n}:50051") for n in range(20)},
    **{f"other-{n}/app.py": channel('os.environ["PEER"]') for n in range(20)},
}


def klb101(*arguments: str) -> list[dict[str, Any]]:
    done = CliRunner().invoke(cli, ["check", "--format", "json", "--select", "KLB101", *arguments])
    assert done.exit_code in (0, 1), done.output
    findings: list[dict[str, Any]] = json.loads(done.output)["findings"]
    return findings


def whole_then_hook(
    tree: Path, files: dict[str, str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """KLB101's findings on backend.yaml: from a whole-tree run (which fills the cache),
    and from the hook's run once that file has changed."""
    for name, text in {"backend.yaml": GRPC_SERVICE + BACKEND + HEADLESS_TWIN, **files}.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text, encoding="utf-8")
    service = tree / "backend.yaml"
    whole = [f for f in klb101(str(tree)) if f["path"] == str(service)]
    service.write_text(service.read_text() + "# edited\n")
    return whole, klb101("--context", str(tree), str(service))


@pytest.mark.parametrize("client", CLIENTS)
def test_the_hook_finds_a_client_however_it_names_the_service(tmp_path: Path, client: str) -> None:
    files, who = CLIENTS[client]
    whole, hook = whole_then_hook(tmp_path, {**files, **OTHERS})
    [finding] = hook
    assert f"{who} dials it, not its headless twin backend-headless" in finding["message"]
    assert [f["message"] for f in whole] == [finding["message"]]


def test_a_service_nobody_dials_is_found_so_without_reading_other_clients(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str] = []  # the paths of the bodies and the modules' code loaded
    original = parse_codec.load_part

    def counting(blob: bytes, kind: type[Any], path: str) -> Any:
        loaded.append(path)
        return original(blob, kind, path)

    monkeypatch.setattr(parse_codec, "load_part", counting)  # bodies and modules' code
    whole, hook = whole_then_hook(tmp_path, OTHERS)
    [finding] = hook
    assert "which has a headless twin" in finding["message"]
    assert [f["message"] for f in whole] == [finding["message"]]
    assert not any("other-" in path for path in loaded), "no other workload or module is read"


def test_a_pickled_body_holds_its_strings_as_they_are_searched() -> None:
    """may_mention searches a body still pickled: a name is found in any case, a body
    without it is passed over, and one with a Kelvin sign may hold any name with a k."""
    import pickle

    from k8slb.reading.yamlcompose import compose

    def body(env_value: str) -> objects.K8sObject:
        text = workload("frontend", "B", env_value)
        parsed = objects.K8sObject("a.yaml", 0, None, "apps/v1", "Deployment", _root(text))
        loaded: objects.K8sObject = pickle.loads(pickle.dumps(parsed))
        assert "body" not in loaded.__dict__, "the body is still pickled"
        return loaded

    def _root(text: str) -> Any:
        return compose(text).documents[0].data

    assert body("BackEnd:50051").may_mention({"backend"})
    assert not body("other:50051").may_mention({"backend"})
    assert not body("caf\u00e9").may_mention({"backend"})
    assert body("bac\u212aend").may_mention({"backend"})


def test_a_body_once_loaded_is_still_searched_as_its_pickle() -> None:
    """A run that loaded every workload's body (its links: a hook on a module, a check
    after an edit) still passes over a body that cannot hold the names looked for,
    without reading its strings again; a body that holds one is still found."""
    import pickle

    from k8slb.reading.yamlcompose import compose

    def loaded(env_value: str) -> objects.K8sObject:
        text = workload("frontend", "B", env_value)
        parsed = objects.K8sObject("a.yaml", 0, None, "apps/v1", "Deployment", _root(text))
        stored: objects.K8sObject = pickle.loads(pickle.dumps(parsed))
        assert stored.body == parsed.body  # loaded now
        return stored

    def _root(text: str) -> Any:
        return compose(text).documents[0].data

    assert loaded("BackEnd:50051").may_mention({"backend"})
    assert not loaded("other:50051").may_mention({"backend"})
    again = pickle.loads(pickle.dumps(loaded("other:50051")))  # a loaded body pickled again
    assert not again.may_mention({"backend"}) and again.body["kind"] == "Deployment"


def test_a_hook_looks_for_per_call_clients_without_loading_code_that_makes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether every client seen of a ClusterIP opens a channel per call is asked of every
    module: a cached module keeps beside its header whether it makes one, and one that
    makes none (a client that keeps its channel) is not loaded for it."""
    loaded: list[str] = []
    original = parse_codec.load_part

    def counting(blob: bytes, kind: type[Any], path: str) -> Any:
        loaded.append(path)
        return original(blob, kind, path)

    monkeypatch.setattr(parse_codec, "load_part", counting)
    whole, hook = whole_then_hook(tmp_path, {"backend.yaml": GRPC_SERVICE + BACKEND, **OTHERS})
    assert [f["message"] for f in whole] == [f["message"] for f in hook]
    assert hook, "the Service is judged"
    assert not any("other-" in path and path.endswith(".py") for path in loaded)


def _model(tree: Path) -> Any:
    """The model of the tree, as a check makes it (every parse fresh)."""
    from k8slb.reading.sources import discover
    from k8slb.run.engine import analyse, read_bytes, read_sources
    from k8slb.run.selection import select_rules
    from k8slb.run.settings import Settings

    sources = discover([str(tree)]).sources
    settings = Settings(rules=select_rules([], []))
    return analyse(sources, settings, read_sources(sources, read_bytes(sources), settings=settings))


SERVICES = "".join(
    f"---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc-{n}, namespace: shop}}\n"
    f"spec:\n  selector: {{app: other-{n}}}\n  ports: [{{name: grpc, port: 50051}}]\n"
    for n in range(6)
)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_services_dialers_are_the_same_whatever_set_it_is_asked_with(
    tmp_path: Path, client: str
) -> None:
    """Who dials a Service, asked with a few Services by their names, is who dials it
    asked with more of them, and asked of the whole tree: so a judgement of a few files
    asks once for all their Services (Context._judged_services), whatever set a rule asks.
    Every subset of seven Services with backend and its twin, against the set of them all
    and the whole tree's search."""
    import itertools

    from k8slb.model.dialers import api_resolved, dialers_by_service, searched_by_name

    files, _ = CLIENTS[client]
    every = {"backend.yaml": GRPC_SERVICE + BACKEND + HEADLESS_TWIN + SERVICES}
    for name, text in {**every, **files, **OTHERS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    context = _model(tmp_path)
    services = list(context.index.services)
    assert len(services) == 8 and searched_by_name(services)
    code = list(context.code())
    for ask in (dialers_by_service, api_resolved):
        whole = ask(context.index, code, context.links)
        union = ask(context.index, code, context.links, services)
        for size in (1, 2, 3):
            for chosen in itertools.combinations(services, size):
                found = ask(context.index, code, context.links, list(chosen))
                for service in chosen:
                    said = found.get(id(service), [])
                    assert said == union.get(id(service), []) == whole.get(id(service), [])
    direct = dialers_by_service(context.index, code, context.links, services)
    assert direct.get(id(services[0])), "backend is dialled"


def test_a_hook_asks_who_dials_its_services_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KLB101 asks who dials the judged Services of two sets (those whose ports show no
    gRPC, for a channel's evidence, and those judged), KLB102 and KLB401 again, and the
    API's resolvers of one Service at a time: a hook on a file of several Services asks
    each search once, of them all, and finds what the whole tree's run finds."""
    from k8slb.model import dialers
    from k8slb.rulekit import base

    asked: list[str] = []
    for name in ("dialers_by_service", "api_resolved"):
        original = getattr(dialers, name)

        def counting(*arguments: Any, _name: str = name, _original: Any = original) -> Any:
            asked.append(_name)
            return _original(*arguments)

        monkeypatch.setattr(base, name, counting)
    files, _ = CLIENTS["a variable a workload sets for the code"]
    plain = "---\n" + GRPC_SERVICE.replace("backend", "plain").replace("name: grpc", "name: tcp")
    texts = {"backend.yaml": GRPC_SERVICE + BACKEND + HEADLESS_TWIN + SERVICES + plain}
    for name, text in {**texts, **files, **OTHERS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    service = tmp_path / "backend.yaml"
    run = ["check", "--format", "json", "--no-cache"]
    whole = CliRunner().invoke(cli, [*run, str(tmp_path)])
    asked.clear()
    hook = CliRunner().invoke(cli, [*run, "--context", str(tmp_path), str(service)])
    assert sorted(asked) == ["api_resolved", "dialers_by_service"], asked
    mine = [f for f in json.loads(whole.output)["findings"] if f["path"] == str(service)]
    assert json.loads(hook.output)["findings"] == mine and mine


def test_the_variables_configmaps_give_are_bounded(tmp_path: Path) -> None:
    """Hundreds of ConfigMaps whose every key names the Service, each loaded by hundreds of
    workloads under a prefix of their own, give more variables than the search narrows by
    (dialers.NAMING_BUDGET): it then resolves every channel, as the whole tree's does,
    each ConfigMap and prefix read once."""
    from k8slb.model import dialers

    keys = "".join(f"  K{key}: backend.default:50051\n" for key in range(20))
    maps = "".join(
        f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{n}, namespace: shop}}\n"
        f"data:\n{keys}"
        for n in range(20)
    )
    loads = ", ".join(f"{{prefix: P{{n}}_{m}_, configMapRef: {{name: c{m}}}}}" for m in range(20))
    workloads = "".join(
        "---\n"
        + deployment(
            f"w{n}", f"registry.example/w{n}:1.0", f"          envFrom: [{loads}]\n"
        ).replace("{n}", str(n))
        for n in range(30)
    )
    files = {
        "backend.yaml": GRPC_SERVICE + BACKEND + HEADLESS_TWIN,
        "maps.yaml": maps + workloads,
        "client/app.py": channel('os.environ["P3_7_K5"]'),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    context = _model(tmp_path)
    assert dialers._naming(context.index, {"backend"}) is None  # 12,000 variables
    backend = next(s for s in context.index.services if s.name == "backend")
    code = list(context.code())
    narrowed = dialers.dialers_by_service(context.index, code, context.links, [backend])
    whole = dialers.dialers_by_service(context.index, code, context.links)
    assert narrowed[id(backend)] == whole[id(backend)]


# Clients of `backend` that resolve its pods through the Kubernetes API, each naming its
# resolver's scheme another way: their files.
API_CLIENTS: dict[str, dict[str, str]] = {
    "a literal target": {"client/app.py": channel('"kubernetes:///backend.default:50051"')},
    "a variable's default": {
        "client/app.py": channel('os.environ.get("ADDR", "k8s:///backend.default:50051")')
    },
    "a workload's env value, in capitals": {
        "client/app.py": channel('os.environ["ADDR"]'),
        "client/client.yaml": workload("client", "ADDR", "KUBERNETES:///backend.default:50051"),
    },
    "the scheme the variable's value ends with": {
        "client/app.py": channel('os.environ["SCHEME"] + ":///backend.default:50051"'),
        "client/client.yaml": workload("client", "SCHEME", "k8s"),
    },
    "a prefix that the variable's value completes": {
        "client/app.py": channel("f\"kube{os.environ['REST']}\""),
        "client/client.yaml": workload("client", "REST", "rnetes:///backend.default:50051"),
    },
    "a ConfigMap the container loads its env from, with a prefix": {
        "client/app.py": channel('os.environ["SVC_ADDR"]'),
        "client/client.yaml": (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: client-config, namespace: shop}\n"
            'data:\n  ADDR: "kubernetes:///backend.default:50051"\n---\n'
        )
        + deployment(
            "client",
            "registry.example/client:1.0",
            "          envFrom: [{prefix: SVC_, configMapRef: {name: client-config}}]\n",
        ),
    },
}


@pytest.mark.parametrize("client", API_CLIENTS)
def test_a_services_api_resolvers_are_the_same_whatever_set_it_is_asked_with(
    tmp_path: Path, client: str
) -> None:
    """Who resolves a Service's pods through the API, asked with a few Services (whose
    channels are resolved only where their targets may hold a resolver's scheme), is who
    does asked with all of them, and asked of the whole tree; every module of the tree
    reads PLAIN, which a workload sets to backend's plain address."""
    import itertools

    from k8slb.model.dialers import api_resolved

    every = {"backend.yaml": GRPC_SERVICE + BACKEND + HEADLESS_TWIN + SERVICES}
    plain = {f"plain-{n}/app.py": channel('os.environ["PLAIN"]') for n in range(3)}
    plain["plain.yaml"] = workload("plain", "PLAIN", "backend.default:50051")
    for name, text in {**every, **plain, **API_CLIENTS[client], **OTHERS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    context = _model(tmp_path)
    services = list(context.index.services)
    code = list(context.code())
    whole = api_resolved(context.index, code, context.links)
    backend = next(s for s in services if s.name == "backend")
    assert [d.who for d in whole[id(backend)]] == [f"{tmp_path}/client/app.py:5"]
    for size in (1, 2, 3):
        for chosen in itertools.combinations(services, size):
            found = api_resolved(context.index, code, context.links, list(chosen))
            for service in chosen:
                assert found.get(id(service), []) == whole.get(id(service), [])


def test_a_hook_resolves_no_channel_whose_target_cannot_name_an_api_resolver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every module reads ADDR, which one workload sets to the judged Service's plain
    address: asked who resolves that Service through the API, no channel is resolved
    (each would ask which containers run its module, every link of the tree)."""
    from k8slb.model import dialers

    files = {f"plain-{n}/app.py": channel('os.environ["ADDR"]') for n in range(5)}
    files["plain.yaml"] = workload("plain", "ADDR", "backend.default:50051")
    files["backend.yaml"] = GRPC_SERVICE + BACKEND
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    context = _model(tmp_path)
    backend = next(s for s in context.index.services if s.name == "backend")
    resolved: list[str] = []
    original = dialers.destinations_of

    def counting(*arguments: Any) -> Any:
        resolved.append(arguments[-1].path)
        return original(*arguments)

    monkeypatch.setattr(dialers, "destinations_of", counting)
    code = list(context.code())
    assert dialers.api_resolved(context.index, code, context.links, [backend]) == {}
    assert resolved == []
    assert dialers.api_resolved(context.index, code, context.links) == {}
    assert len(resolved) == 5, "the whole tree's search still resolves every channel"


def test_a_search_by_names_looks_at_each_workload_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Who dials a few Services and who resolves them through the API look at each
    workload's strings for their names once between them (each look at a cached body's
    pickle costs some 6 us: thousands a search), and find what they found before."""
    from collections import Counter

    from k8slb.model import dialers

    files, _ = CLIENTS["a workload's env value (dialed too)"]
    for name, text in {"backend.yaml": GRPC_SERVICE + BACKEND, **files, **OTHERS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    context = _model(tmp_path)
    backend = next(s for s in context.index.services if s.name == "backend")
    code = list(context.code())
    looked: Counter[str] = Counter()
    original = objects.K8sObject.may_mention

    def counting(self: objects.K8sObject, words: Any) -> bool:
        if self.kind == "Deployment" and set(words) == {"backend"}:
            looked[self.name or ""] += 1
        return original(self, words)

    monkeypatch.setattr(objects.K8sObject, "may_mention", counting)
    direct = dialers.dialers_by_service(context.index, code, context.links, [backend])
    resolved = dialers.api_resolved(context.index, code, context.links, [backend])
    again = dialers.dialers_by_service(context.index, code, context.links, [backend])
    assert set(looked.values()) == {1} and len(looked) == 22, looked  # 20 others, 2
    said = [d.who for d in direct[id(backend)]]
    assert said == ["Deployment/shop/client (env ADDR)", f"{tmp_path}/client/app.py:5"]
    assert again == direct and resolved == {}


DOCKERFILE = 'FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nCMD ["python", "app.py"]\n'


def _services_reading(addresses: dict[str, str | None]) -> dict[str, str]:
    """A service a folder each whose module dials os.environ["ADDR"]: with a Dockerfile
    and a Deployment of its image that sets ADDR to the address given, or (None) run by
    no container, beside a Deployment of another image that sets ADDR to backend."""
    files: dict[str, str] = {}
    for name, address in addresses.items():
        files[f"{name}/app.py"] = channel('os.environ["ADDR"]')
        if address is None:
            files[f"{name}/k8s.yaml"] = deployment(
                f"{name}-other",
                "registry.example/elsewhere:1.0",
                '          env: [{name: ADDR, value: "backend.default:50051"}]\n',
            )
            continue
        files[f"{name}/Dockerfile"] = DOCKERFILE
        files[f"{name}/k8s.yaml"] = workload(name, "ADDR", address)
    return files


def test_a_variable_set_to_a_name_is_followed_to_the_modules_its_setters_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every module reads ADDR; one workload sets it to backend's address: asked who
    dials backend, only the modules that workload's containers run, and those no
    container runs whose nearest workloads set it so, are resolved, and the dialers are
    the whole tree's search's; a hook on backend's file says what the whole run says."""
    from k8slb.model import dialers

    files = _services_reading(
        {"a": "backend.default:50051", "lone": None, **{f"b{n}": "other:50051" for n in range(4)}}
    )
    for name, text in {"backend.yaml": GRPC_SERVICE + BACKEND, **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    context = _model(tmp_path)
    backend = next(s for s in context.index.services if s.name == "backend")
    code = list(context.code())
    resolved: list[str] = []
    original = dialers.destinations_of

    def counting(*arguments: Any) -> Any:
        resolved.append(os.path.relpath(arguments[-1].path, tmp_path))
        return original(*arguments)

    monkeypatch.setattr(dialers, "destinations_of", counting)
    narrowed = dialers.dialers_by_service(context.index, code, context.links, [backend])
    assert sorted(resolved) == ["a/app.py", "lone/app.py"], resolved
    whole = dialers.dialers_by_service(context.index, code, context.links)
    assert narrowed[id(backend)] == whole[id(backend)]
    said = {os.path.relpath(d.who.rsplit(":", 1)[0], tmp_path) for d in whole[id(backend)]}
    assert {"a/app.py", "lone/app.py"} <= said
    monkeypatch.undo()
    whole_run, hook = whole_then_hook(tmp_path / "tree", files)
    assert hook and [f["message"] for f in whole_run] == [f["message"] for f in hook]
