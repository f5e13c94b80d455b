"""One Dockerfile builds every program of a Go module (`go install ./cmd/...`), and a build
argument chooses the one the image runs: `COPY --from=installer /go/bin/${COMMAND} /server`
under `ENTRYPOINT ["/server"]`. `go install` names each binary after its package's folder,
so the build's argument (skaffold's `buildArgs`, compose's `build.args`, `docker build
--build-arg`) names the program: each image links its own `cmd/<name>`, and an argument no
build gives one value links nothing."""

from __future__ import annotations

from pathlib import Path

from k8slb.reading.build_files import (
    MAX_ENV_KEPT,
    MAX_ENV_VALUE,
    MAX_STAGE_FILES,
    parse_dockerfile,
    stage_file_name,
)

from tests.test_links import links, workload

INSTALLER = (
    "FROM golang:1.22-alpine AS builder\nWORKDIR /go/src/example.com/shop\n"
    "COPY go.mod ./\nRUN go mod download\n"
    "FROM builder AS installer\nCOPY cmd cmd/\nCOPY internal internal/\n"
    "RUN go install ./cmd/...\n"
    "FROM scratch\nARG COMMAND\nCOPY --from=installer /go/bin/${COMMAND} /server\n"
    'ENTRYPOINT ["/server"]\n'
)
MAIN = (
    'package main\n\nimport "net/http"\n\nfunc main() {{ http.ListenAndServe(":{port}", nil) }}\n'
)
PROGRAMS = ("orders", "billing")


def module(dockerfile: str = INSTALLER, **more: str) -> dict[str, str]:
    """A Go module of two programs, one Deployment each, one Dockerfile for both."""
    return {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "Dockerfile": dockerfile,
        "internal/money/money.go": "package money\n",
        **{f"cmd/{name}/main.go": MAIN.format(port=8080 + at) for at, name in enumerate(PROGRAMS)},
        **{
            f"deploy/{name}.yaml": workload(name=name, image=f"registry.example/shop/{name}")
            for name in PROGRAMS
        },
        **more,
    }


def skaffold(values: dict[str, str]) -> str:
    artifacts = "".join(
        f"    - image: registry.example/shop/{image}\n      docker:\n        buildArgs:\n"
        f"          COMMAND: {value}\n"
        for image, value in values.items()
    )
    return f"apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n{artifacts}"


def by_name(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(row["container"]).split(":")[0].split("/")[-1]: row for row in rows}


def test_the_last_stage_s_copies_from_a_stage_keep_their_paths_there() -> None:
    dockerfile = parse_dockerfile("Dockerfile", INSTALLER)
    ((copy, said),) = dockerfile.stage_files
    assert (copy.source, copy.dest, said.line) == ("/go/bin/${COMMAND}", "/server", 11)


def test_a_copy_from_an_image_or_a_later_stage_is_no_stage_s_file() -> None:
    dockerfile = parse_dockerfile(
        "Dockerfile",
        "FROM golang:1.22 AS build\nRUN go install ./cmd/...\nFROM alpine\n"
        "COPY --from=acme/tools:1 /bin/tool /tool\nCOPY --from=0 /go/bin/api /api\n",
    )
    assert [copy.source for copy, _ in dockerfile.stage_files] == ["/go/bin/api"]


def test_the_run_file_s_name_in_its_stage_takes_the_build_s_argument() -> None:
    dockerfile = parse_dockerfile("Dockerfile", INSTALLER)
    taken = stage_file_name(dockerfile, "/server", [("COMMAND", "orders")])
    assert taken is not None and taken[0] == "orders"
    assert "(COMMAND=orders)" in taken[1]
    assert stage_file_name(dockerfile, "/server", []) is None  # no value, no name
    # a value that is no file's name (a template the build tool fills) names none
    assert stage_file_name(dockerfile, "/server", [("COMMAND", "{{.CMD}}")]) is None


def test_a_folder_copied_by_an_argument_s_destination_is_followed() -> None:
    dockerfile = parse_dockerfile(
        "Dockerfile",
        "FROM golang:1.22 AS build\nRUN go build -o /out/ ./cmd/...\nFROM alpine\n"
        "ARG COMMAND\nCOPY --from=build /out/${COMMAND} /usr/local/bin/\n",
    )
    taken = stage_file_name(dockerfile, "/usr/local/bin/orders", [("COMMAND", "orders")])
    assert taken is not None and taken[0] == "orders"


def test_each_skaffold_artifact_s_argument_links_the_program_it_names(tmp_path: Path) -> None:
    files = module(**{"skaffold.yaml": skaffold({name: name for name in PROGRAMS})})
    rows = by_name(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == f"cmd/{name}"
        said = "COPY --from=installer /go/bin/${COMMAND} /server` takes /server from "
        said += f"/go/bin/{name} (COMMAND={name})"
        assert any(said in line for line in rows[name]["evidence"])  # type: ignore[attr-defined]


def test_compose_s_build_args_name_the_program_too(tmp_path: Path) -> None:
    compose = "services:\n" + "".join(
        f"  {name}:\n    image: registry.example/shop/{name}\n    build:\n"
        f"      context: .\n      args:\n        - COMMAND={name}\n"
        for name in PROGRAMS
    )
    rows = by_name(links(tmp_path, module(**{"compose.yaml": compose})))
    assert [rows[name]["code"] for name in PROGRAMS] == ["cmd/orders", "cmd/billing"]


def test_the_argument_s_default_names_the_program_of_a_build_that_gives_none(
    tmp_path: Path,
) -> None:
    dockerfile = INSTALLER.replace("ARG COMMAND\n", "ARG COMMAND=billing\n")
    build = "docker build -t registry.example/shop/billing .\n"
    rows = by_name(links(tmp_path, module(dockerfile, **{"build.sh": build})))
    assert rows["billing"]["code"] == "cmd/billing"


def test_an_argument_no_build_gives_links_nothing_and_says_so(tmp_path: Path) -> None:
    build = "docker build -t registry.example/shop/billing .\n"
    rows = by_name(links(tmp_path, module(**{"build.sh": build})))
    assert rows["billing"]["code"] is None
    why = str(rows["billing"]["why_not"])
    assert "builds every program below ." in why
    assert "no build of the image gives COMMAND one value" in why


def test_two_builds_of_the_image_that_disagree_link_nothing(tmp_path: Path) -> None:
    """A compose file and a script build the same image with different programs: which
    one the cluster runs the tree does not say."""
    compose = (
        "services:\n  billing:\n    image: registry.example/shop/billing\n"
        "    build:\n      context: .\n      args:\n        COMMAND: billing\n"
    )
    build = "docker build --build-arg COMMAND=orders -t registry.example/shop/billing .\n"
    files = module(**{"compose.yaml": compose, "build.sh": build})
    rows = by_name(links(tmp_path, files))
    assert rows["billing"]["code"] is None


def test_a_binary_renamed_by_a_literal_copy_is_its_package_s(tmp_path: Path) -> None:
    dockerfile = INSTALLER.replace("${COMMAND}", "orders")
    files = module(dockerfile, **{"skaffold.yaml": skaffold({"orders": "x"})})
    rows = by_name(links(tmp_path, files))
    assert rows["orders"]["code"] == "cmd/orders"


# -- the program named by a variable of the image's command ----------------------------------

ONE_STAGE = (
    "FROM golang:1.22\nARG COMMAND\nWORKDIR /src\nCOPY . .\nRUN go install ./cmd/...\n{run}\n"
)


def test_a_shell_s_variable_the_image_s_env_sets_from_the_argument_names_the_program(
    tmp_path: Path,
) -> None:
    """`ENV COMMAND=${COMMAND}` keeps the build's value in the image, and the shell form's
    `sh -c` expands it when the container starts."""
    dockerfile = ONE_STAGE.format(run="ENV COMMAND=${COMMAND}\nENTRYPOINT /go/bin/$COMMAND")
    files = module(dockerfile, **{"skaffold.yaml": skaffold({"billing": "billing"})})
    row = by_name(links(tmp_path, files))["billing"]
    assert row["code"] == "cmd/billing"
    said = "`ENTRYPOINT /go/bin/$COMMAND` runs /go/bin/billing (COMMAND=billing, its ENV's)"
    assert any(said in line for line in row["evidence"])  # type: ignore[attr-defined]


def test_a_build_argument_alone_is_no_variable_of_the_running_container(
    tmp_path: Path,
) -> None:
    """An ARG is gone when the container starts: `ENTRYPOINT /go/bin/$COMMAND` with no
    ENV runs `/go/bin/`, and the exec form expands nothing at all."""
    for run, why in (
        ("ENTRYPOINT /go/bin/$COMMAND", "the image's ENV does not set to a known value"),
        ('CMD ["/go/bin/${COMMAND}"]', "is the exec form, which no shell expands"),
    ):
        files = module(
            ONE_STAGE.format(run=run), **{"skaffold.yaml": skaffold({"billing": "billing"})}
        )
        row = by_name(links(tmp_path / str(len(run)), files))["billing"]
        assert row["code"] is None, run
        assert why in str(row["why_not"]), run


def test_the_container_s_own_env_is_the_cluster_s_value_not_the_build_s(
    tmp_path: Path,
) -> None:
    dockerfile = ONE_STAGE.format(run="ENV COMMAND=${COMMAND}\nENTRYPOINT /go/bin/$COMMAND")
    files = module(dockerfile, **{"skaffold.yaml": skaffold({"billing": "billing"})})
    files["deploy/billing.yaml"] = workload(
        name="billing",
        image="registry.example/shop/billing",
        extra="          env:\n            - name: COMMAND\n              value: orders\n",
    )
    assert by_name(links(tmp_path, files))["billing"]["code"] is None


# -- the same shape of a Python image: the argument names the service's folder ---------------

PYTHON = (
    "FROM python:3.12-slim\nARG SERVICE\nWORKDIR /app\nCOPY services/${SERVICE} .\n"
    'CMD ["python", "main.py"]\n'
)


def services(**more: str) -> dict[str, str]:
    return {
        "Dockerfile": PYTHON,
        **{f"services/{name}/main.py": "import http.server\n" for name in PROGRAMS},
        **{
            f"deploy/{name}.yaml": workload(name=name, image=f"registry.example/shop/{name}")
            for name in PROGRAMS
        },
        **more,
    }


def test_a_python_service_s_folder_named_by_the_argument_is_linked(tmp_path: Path) -> None:
    rows = by_name(links(tmp_path, services(**{"skaffold.yaml": skaffold({"orders": "x"})})))
    assert rows["orders"]["code"] is None  # COMMAND is no argument of this Dockerfile
    compose = "services:\n" + "".join(
        f"  {name}:\n    image: registry.example/shop/{name}\n    build:\n"
        f"      context: .\n      args:\n        SERVICE: {name}\n"
        for name in PROGRAMS
    )
    rows = by_name(links(tmp_path / "compose", services(**{"compose.yaml": compose})))
    assert rows["orders"]["code"] == "services/orders/main.py"


def test_python_builds_that_disagree_choose_no_folder(tmp_path: Path) -> None:
    compose = (
        "services:\n  orders:\n    image: registry.example/shop/orders\n"
        "    build:\n      context: .\n      args:\n        SERVICE: orders\n"
    )
    build = "docker build --build-arg SERVICE=billing -t registry.example/shop/orders .\n"
    rows = by_name(links(tmp_path, services(**{"compose.yaml": compose, "build.sh": build})))
    assert rows["orders"]["code"] is None


def test_what_a_dockerfile_keeps_of_its_copies_and_env_is_bounded() -> None:
    copies = "".join(f"COPY --from=build /go/bin/p{n} /p{n}\n" for n in range(1000))
    env = "".join(f"ENV V{n}=x\n" for n in range(1000)) + f"ENV LONG={'x' * 10_000}\n"
    dockerfile = parse_dockerfile(
        "Dockerfile", f"FROM golang AS build\nFROM scratch\n{copies}{env}"
    )
    assert len(dockerfile.stage_files) == MAX_STAGE_FILES
    assert len(dockerfile.env_values) == MAX_ENV_KEPT
    assert all(len(value) <= MAX_ENV_VALUE for _, value in dockerfile.env_values)


def test_each_copy_keeps_its_own_line_of_the_dockerfile() -> None:
    dockerfile = parse_dockerfile(
        "build/Dockerfile",
        "FROM alpine AS certs\nFROM golang AS build\nFROM scratch\n"
        "COPY --from=certs /cert.pem /key.pem /\nCOPY --from=build /go/bin/api /api\n",
    )
    assert [(said.path, said.line) for _, said in dockerfile.stage_files] == [
        ("build/Dockerfile", 4),
        ("build/Dockerfile", 4),
        ("build/Dockerfile", 5),
    ]
