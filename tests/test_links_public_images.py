"""Published images the repository does not build, linked to nothing by a name alike: a
third party's image where the repository's Go modules name another owner, a Go library
package named as the image (its `testdata` aside), and an image that repackages a
published binary (every COPY `--from` another image or stage)."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.build_files import parse_dockerfile

from tests.test_links import DOCKERFILE, links, only, service_app, workload

GO_MAIN = "package main\n\nfunc main() {}\n"


def _go_service(folder: str) -> dict[str, str]:
    return {f"{folder}/main.go": GO_MAIN, f"{folder}/Dockerfile": DOCKERFILE}


def test_a_third_party_image_is_not_guessed_to_be_a_folder_of_another_owner_s_modules(
    tmp_path: Path,
) -> None:
    """No build says where the repository pushes (its Makefile's tags are variables); its
    modules are `github.com/tidepool/...`. `metricsco/dashboards` and the tracing vendor's
    `tracerio/tracer-relay` name no word of those: a dashboards tool of `hack/` and the
    `relay` build folder are not what they run, while `tidepool/relay` is linked."""
    files = {
        "go.mod": "module github.com/tidepool/flow\n\ngo 1.22\n",
        "hack/dashboards/main.go": GO_MAIN,
        **_go_service("build/relay"),
        "k8s/metrics/dashboards.yaml": workload(name="dashboards", image="metricsco/dashboards"),
        "k8s/metrics/relay.yaml": workload(name="tracer", image="tracerio/tracer-relay"),
        "k8s/app/relay.yaml": workload(name="relay", image="tidepool/relay:v1.2"),
    }
    rows = {row["container"].split("/")[-1].split(":")[0]: row for row in links(tmp_path, files)}
    assert rows["dashboards"]["code"] is None, rows["dashboards"]
    assert rows["tracer"]["code"] is None, rows["tracer"]
    assert rows["relay"]["code"] is not None, rows["relay"]
    assert rows["relay"]["code"].startswith("build/relay"), rows["relay"]


def test_an_image_named_with_the_modules_owner_is_still_linked_by_its_name(
    tmp_path: Path,
) -> None:
    """The same tree's own image under a registry (`ghcr.io/tidepool/...`): linked."""
    files = {
        "go.mod": "module github.com/tidepool/flow\n\ngo 1.22\n",
        **_go_service("dashboards"),
        "k8s/dashboards.yaml": workload(
            name="dashboards", image="ghcr.io/tidepool/flow-dashboards:v2"
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is not None and row["code"].startswith("dashboards"), row


def test_an_image_whose_namespace_a_variable_gives_is_not_judged_third_party(
    tmp_path: Path,
) -> None:
    """`gcr.io/${PROJECT_ID}/dashboards`: where it is pushed is not known, so its name
    still links the one folder so named."""
    files = {
        "go.mod": "module github.com/tidepool/flow\n\ngo 1.22\n",
        **_go_service("dashboards"),
        "k8s/dashboards.yaml": workload(
            name="dashboards", image="gcr.io/${PROJECT_ID}/dashboards:latest"
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is not None and row["code"].startswith("dashboards"), row


def test_a_go_library_with_test_fixtures_is_no_program_named_as_an_image(tmp_path: Path) -> None:
    """`tidepool/modelserver` is the vendor's serving image; `pkg/runtime/modelserver` is
    the agent's adapter package for it, its `testdata/` holding a Python model a test
    loads: a library still, not what the image runs."""
    files = {
        "go.mod": "module github.com/tidepool/flow\n\ngo 1.22\n",
        "pkg/runtime/modelserver/adapter.go": "package modelserver\n",
        "pkg/runtime/modelserver/adapter_test.go": "package modelserver\n",
        "pkg/runtime/modelserver/testdata/model.py": "def predict(x):\n    return x\n",
        "k8s/serving.yaml": workload(name="serving", image="tidepool/modelserver:0.5.0"),
    }
    assert only(links(tmp_path, files))["code"] is None


def test_an_image_that_repackages_a_published_binary_links_no_code(tmp_path: Path) -> None:
    """`Dockerfile.syncer` kept beside the Go module's code copies the binaries of a
    published image (`--from` it, through a stage) onto a slim base and runs them: nothing
    of the context is in the image, so the module is not its code."""
    files = {
        "agent/go.mod": "module github.com/tidepool/agent\n\ngo 1.22\n",
        "agent/cmd/agent/main.go": GO_MAIN,
        "agent/Dockerfile.syncer": (
            "FROM filesync/syncer:1.9.2 AS upstream\n"
            "RUN mkdir /notices && cp /NOTICE /notices/\n"
            "FROM debian:bookworm-slim\n"
            "COPY --from=upstream /usr/local/bin/ /usr/local/bin/\n"
            "COPY --from=upstream /notices/ /notices/\n"
            'ENTRYPOINT ["syncer"]\nCMD ["serve", "--addr=:5572"]\n'
        ),
        "agent/Makefile": "syncer:\n\tdocker build -t tidepool/syncer -f Dockerfile.syncer .\n",
        "agent/k8s/pod.yaml": workload(name="syncer", image="tidepool/syncer:latest"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None, row
    assert "only other images' or stages' files" in row["why_not"], row


def test_an_image_copying_from_a_stage_that_copied_the_context_links_its_code(
    tmp_path: Path,
) -> None:
    """A builder stage that copies the context and the last stage that takes its output
    `--from` it: the context's code is in the image, linked as before."""
    files = {
        "build.sh": "docker build -t registry.example/api -f api/Dockerfile.api api\n",
        "api/Dockerfile.api": (
            "FROM python:3.12 AS build\nCOPY . /src\n"
            "FROM python:3.12-slim\nCOPY --from=build /src /app\n"
            'CMD ["python", "/app/server.py"]\n'
        ),
        "api.yaml": workload(name="api", image="registry.example/api"),
        **service_app("api"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is not None and row["code"].startswith("api"), row


def test_a_dockerfile_says_whether_any_copy_takes_from_its_context() -> None:
    only_from = parse_dockerfile(
        "Dockerfile", "FROM a:1 AS up\nFROM b:2\nCOPY --from=up /bin/x /bin/x\n"
    )
    assert only_from.copies_any and not only_from.copies_context
    assert parse_dockerfile("Dockerfile", "FROM b:2\nADD conf.yaml /etc/\n").copies_context
    mounted = parse_dockerfile(
        "Dockerfile",
        "FROM golang:1.22 AS build\nRUN --mount=type=bind,target=.,rw make build\n"
        "FROM scratch\nCOPY --from=build /out/app /app\n",
    )
    assert mounted.copies_context  # the context, mounted for the builder's RUN
    other = "FROM b:2\nRUN --mount=type=bind,from=tools,target=/t cp /t/x /x\n"
    assert not parse_dockerfile("Dockerfile", other).copies_context


def test_an_image_running_its_base_s_tool_on_files_that_are_no_code_links_none(
    tmp_path: Path,
) -> None:
    """A Job's image built from the Go module's folder copies only its schema migrations
    and the tool's configuration onto a migration tool's image, whose own program runs
    them (`args: [migrate, apply]`): none of the module's code is in it. The same image
    copying the module's `cmd/` folder does hold code, and stays linked."""
    dockerfile = (
        "FROM schemaops/migrator:2 AS migrate\n"
        "COPY ./store/db/migrations migrations\nCOPY ./store/db/migrator.hcl migrator.hcl\n"
    )
    files = {
        "store/go.mod": "module github.com/tidepool/store\n\ngo 1.22\n",
        "store/cmd/store/main.go": GO_MAIN,
        "store/db/db.go": "package db\n\nfunc Open() {}\n",
        "store/Dockerfile.migrate": dockerfile,
        "build.sh": "docker build -t tidepool/store-migrate -f store/Dockerfile.migrate .\n",
        "k8s/job.yaml": workload(
            name="store-migrate",
            image="tidepool/store-migrate:1",
            extra="          args: [migrate, apply]\n",
        ),
    }
    row = only(links(tmp_path, files))
    assert row["code"] is None, row
    assert "none of them code of the repository" in row["why_not"], row
    files["store/Dockerfile.migrate"] = dockerfile + "COPY ./store/cmd cmd\n"
    row = only(links(tmp_path / "with-code", files))
    assert row["code"] is not None, row


def test_a_web_server_image_serving_a_build_s_output_keeps_its_folder(tmp_path: Path) -> None:
    """nginx given a web app's `dist/` (its build's output, not in the tree) and its
    `index.html`, built from the app's folder of code: that folder is linked, as before."""
    files = {
        "console/main.ts": "export const app = 1;\n",
        "console/package.json": '{"name": "console"}\n',
        "console/index.html": "<html></html>\n",
        "console/Dockerfile": (
            "FROM nginx:alpine\nWORKDIR /usr/share/nginx/html\n"
            "COPY ./index.html .\nCOPY ./dist ./dist\n"
        ),
        "build.sh": "docker build -t tidepool/console console\n",
        "k8s/console.yaml": workload(name="console", image="tidepool/console:1"),
    }
    row = only(links(tmp_path, files))
    assert row["code"] == "console", row


def test_docker_hub_s_official_images_link_no_folder_named_as_they_are(tmp_path: Path) -> None:
    """`memcached:1.6-alpine`, `postgres:16` and `rabbitmq` (one name, no owner, no
    registry) are Docker Hub's own images when no build of the tree tags that name: not the
    tool whose build folder is named as one, nor a client package named as one, nor a
    cleanup job whose name ends with one. A bare name Docker Hub does not serve
    (`loadgen:0.1.0`) is the tree's local image, linked by its name still; an official name
    a documented build tags (`docker build -t httpd ./edge`) is that build's."""
    files = {
        "tools/memcached/Dockerfile": "FROM alpine:3.20\nCOPY bin/warmer /warmer\n"
        'ENTRYPOINT ["/warmer"]\n',
        "tools/memcached/Makefile": "build:\n\tgo build -o bin/warmer ../../hack/warmer\n",
        "hack/warmer/main.go": GO_MAIN,
        **_go_service("hack/cleanup-postgres"),
        "sdk/python/shop/brokers/rabbitmq/__init__.py": "import json\n",
        "sdk/python/shop/brokers/rabbitmq/queue.py": "import json\n",
        **service_app("bench/loadgen"),
        "bench/loadgen/Dockerfile": DOCKERFILE,
        **service_app("edge"),
        "edge/Dockerfile": DOCKERFILE,
        "README.md": "Build the edge image:\n\n```sh\ndocker build -t httpd ./edge\n```\n",
        "k8s/cache.yaml": workload(name="cache", image="memcached:1.6-alpine"),
        "k8s/db.yaml": workload(name="db", image="postgres:16"),
        "k8s/mq.yaml": workload(name="mq", image="rabbitmq"),
        "k8s/loadgen.yaml": workload(name="loadgen", image="loadgen:0.1.0"),
        "k8s/edge.yaml": workload(name="edge", image="httpd:2.4"),
    }
    rows = {row["container"].split("/")[-1].split(":")[0]: row for row in links(tmp_path, files)}
    for name in ("cache", "db", "mq"):
        assert rows[name]["code"] is None, rows[name]
    assert (rows["loadgen"]["code"] or "").startswith("bench/loadgen"), rows["loadgen"]
    assert (rows["edge"]["code"] or "").startswith("edge"), rows["edge"]


def test_an_official_image_s_program_under_the_project_s_name_is_no_folder_named_so(
    tmp_path: Path,
) -> None:
    """`ghcr.io/tidepool/nats:2.10.4-scratch` is NATS as the project mirrors or rebuilds it
    (no build of the tree makes it): not the protocol parser of `tracer/protocols/nats`,
    whose test client is the only code below it, nor a package of that name. A folder so
    named that builds an image of its own (`deploy/redis`, with its Dockerfile) is still
    the code of `ghcr.io/tidepool/redis`."""
    files = {
        "go.mod": "module github.com/tidepool/flow\n\ngo 1.22\n",
        "tracer/protocols/nats/testing/client.go": GO_MAIN,
        **_go_service("tracer/cmd/tracer"),
        **_go_service("deploy/redis"),
        "k8s/nats.yaml": workload(name="nats", image="ghcr.io/tidepool/nats:2.10.4-scratch"),
        "k8s/redis.yaml": workload(name="redis", image="ghcr.io/tidepool/redis:7.2-tuned"),
    }
    rows = {row["container"].split("/")[-1].split(":")[0]: row for row in links(tmp_path, files)}
    assert rows["nats"]["code"] is None, rows["nats"]
    assert rows["redis"]["code"] == "deploy/redis", rows["redis"]
