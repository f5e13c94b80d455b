"""One program of a Go module that holds several (`cmd/<name>` folders, each `package
main`): an image that builds one of them links that program's folder, not the module, the
repository or its Dockerfile's folder. The build names it through a build argument
(`go build ./${CMD}`, its value given by compose), a make target whose recipe builds it
(`make -C backend build-ledger`), or a make target that is its path, named by ENV values
(`make cmd/${SVC}/${SVC}`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading.build_files import make_rules, package_with_args, parse_dockerfile

from tests.test_links import links, workload
from tests.test_links_builder_args import by_container

MAIN = 'package main\n\nimport "example.com/depot/internal/store"\n\nfunc main() { store.Open() }\n'
STORE = "package store\n\nfunc Open() {}\n"
PROGRAMS = ("ledger", "courier")


def module(under: str = "") -> dict[str, str]:
    """A Go module (at `under`) of two programs and the library both import."""
    return {
        f"{under}go.mod": "module example.com/depot\n\ngo 1.22\n",
        f"{under}internal/store/store.go": STORE,
        **{f"{under}cmd/{name}/main.go": MAIN for name in PROGRAMS},
        **{f"k8s/{name}.yaml": workload(name=name, image=f"acme/{name}:1") for name in PROGRAMS},
    }


ARGUMENT_DOCKERFILE = (
    "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\nARG CMD\nARG BIN\nARG SLIM=no\n"
    'RUN if [ "$SLIM" = "yes" ]; then go build -ldflags "-s -w" -o out/${BIN} ./${CMD}; '
    "else go build -o out/${BIN} ./${CMD}; fi\n"
    "FROM alpine:3\nARG BIN\nENV BIN=${BIN}\nCOPY --from=build /src/out /out\n"
    'ENTRYPOINT ["sh", "-c", "/out/${BIN}"]\n'
)


def compose(args: bool = True) -> str:
    return "services:\n" + "".join(
        f"  {name}:\n    image: acme/{name}:1\n    build:\n      context: ../..\n"
        "      dockerfile: deploy/image/Dockerfile\n"
        + (f"      args:\n        CMD: cmd/{name}\n        BIN: {name}\n" if args else "")
        for name in PROGRAMS
    )


def test_a_build_argument_s_package_is_kept_as_the_argument_names_it() -> None:
    dockerfile = parse_dockerfile("deploy/image/Dockerfile", ARGUMENT_DOCKERFILE)
    assert dockerfile.go_builds == ()
    assert {b.package for b in dockerfile.arg_go_builds} == {"${CMD}"}


def test_compose_s_build_arguments_choose_the_program_each_image_builds(tmp_path: Path) -> None:
    files = {
        **module(),
        "deploy/image/Dockerfile": ARGUMENT_DOCKERFILE,
        "deploy/image/compose.build.yaml": compose(),
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("cmd", name)
        assert rows[name]["modules"] == 2, "its own main and the library, not the other program"


def test_with_no_value_given_the_build_argument_narrows_nothing(tmp_path: Path) -> None:
    files = {
        **module(),
        "deploy/image/Dockerfile": ARGUMENT_DOCKERFILE,
        "deploy/image/compose.build.yaml": compose(args=False),
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] not in (os.path.join("cmd", other) for other in PROGRAMS)


MAKEFILE = (
    "VERSION ?= dev\n\n.PHONY: build-ledger build-courier all\n"
    "all: build-ledger build-courier\n\n"
    "build-ledger:\n"
    '\tCGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$(VERSION)" \\\n'
    "\t\t-o bin/ledger ./cmd/ledger\n\n"
    "build-courier: lint\n\t@$(GO_ENV) go build -o bin/courier ./cmd/courier/\n\n"
    "both:\n\tgo build -o bin/ledger ./cmd/ledger\n\tgo build -o bin/courier ./cmd/courier\n"
)


def make_dockerfile(target: str, binary: str) -> str:
    return (
        "FROM golang:1.22 AS build\nWORKDIR /work\nCOPY . .\n"
        f"RUN apt-get install -y make && make -C backend VERSION=1 {target}\n"
        f"FROM gcr.io/distroless/static\nCOPY --from=build /work/backend/bin/{binary} /bin/app\n"
        f'ENTRYPOINT ["/bin/{binary}"]\n'
    )


def test_a_makefile_s_targets_keep_the_go_builds_of_their_recipes() -> None:
    rules = dict(make_rules("backend/Makefile", MAKEFILE))
    assert [(b.package, b.output) for b in rules["build-ledger"]] == [("cmd/ledger", "bin/ledger")]
    assert [b.package for b in rules["build-courier"]] == ["cmd/courier"]
    assert rules["all"] == () and ".PHONY" not in rules and "VERSION" not in rules


def test_a_make_target_s_recipe_names_the_one_program_the_image_builds(tmp_path: Path) -> None:
    files = {
        **module("backend/"),
        "backend/Makefile": MAKEFILE,
        **{
            f"backend/Dockerfile.{name}": make_dockerfile(f"build-{name}", name)
            for name in PROGRAMS
        },
        "build.sh": "".join(
            f"docker build -f backend/Dockerfile.{name} -t acme/{name}:1 .\n" for name in PROGRAMS
        ),
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("backend", "cmd", name)
        assert any(f"(make build-{name}, run by" in e for e in rows[name]["evidence"])


def test_a_target_that_builds_every_program_narrows_to_the_one_run(tmp_path: Path) -> None:
    files = {
        **module("backend/"),
        "backend/Makefile": MAKEFILE,
        "backend/Dockerfile.courier": make_dockerfile("both", "courier"),
        "build.sh": "docker build -f backend/Dockerfile.courier -t acme/courier:1 .\n",
    }
    rows = by_container(links(tmp_path, files))
    assert rows["courier"]["code"] == os.path.join("backend", "cmd", "courier")


def test_a_target_building_programs_none_of_which_runs_links_no_one_of_them(
    tmp_path: Path,
) -> None:
    files = {
        **module("backend/"),
        "backend/Makefile": MAKEFILE,
        "backend/Dockerfile.courier": make_dockerfile("both", "runner"),
        "build.sh": "docker build -f backend/Dockerfile.courier -t acme/courier:1 .\n",
    }
    rows = by_container(links(tmp_path, files))
    assert rows["courier"]["code"] not in (os.path.join("backend", "cmd", p) for p in PROGRAMS)


PATH_TARGET_DOCKERFILE = (
    "FROM golang:1.22 AS build\nENV GOPATH=/go\nENV ORG=acme\nENV SVC=ledger\n"
    "WORKDIR ${GOPATH}/src/${ORG}/depot\n"
    "RUN --mount=type=bind,target=.,rw --mount=type=cache,target=/root/.cache \\\n"
    '    make GOOS=linux REPO="${ORG}/depot" cmd/${SVC}/${SVC} \\\n'
    '    && mv "cmd/${SVC}/${SVC}" /usr/bin/${SVC}\n'
    "FROM gcr.io/distroless/static\nCOPY --from=build /usr/bin/ledger /usr/bin/ledger\n"
    'ENTRYPOINT ["/usr/bin/ledger"]\n'
)


def test_env_values_make_a_target_that_is_a_program_s_path() -> None:
    dockerfile = parse_dockerfile("images/ledger/Dockerfile", PATH_TARGET_DOCKERFILE)
    (call,) = dockerfile.make_calls
    assert call.targets == ("cmd/ledger/ledger",)
    assert [c.source for c in call.copies] == ["."]  # the context's bind mount


def test_a_make_target_that_is_a_program_s_path_links_that_program(tmp_path: Path) -> None:
    files = {
        **module(),
        "Makefile": "cmd/%:\n\tgo build -o $@ ./$(@D)\n",
        "images/ledger/Dockerfile": PATH_TARGET_DOCKERFILE,
        "build.sh": "docker build -f images/ledger/Dockerfile -t acme/ledger:1 .\n",
    }
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] == os.path.join("cmd", "ledger")


def test_a_path_target_of_no_program_links_nothing_new(tmp_path: Path) -> None:
    files = {
        **module(),
        "Makefile": "cmd/%:\n\tgo build -o $@ ./$(@D)\n",
        "images/ledger/Dockerfile": PATH_TARGET_DOCKERFILE.replace("ENV SVC=ledger", "ENV SVC=x"),
        "build.sh": "docker build -f images/ledger/Dockerfile -t acme/ledger:1 .\n",
    }
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] not in (os.path.join("cmd", p) for p in PROGRAMS)


BUILD_ONE = (
    "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY go.mod ./\nRUN go mod download\nCOPY . .\n"
    "RUN go build -o /out/{name} ./cmd/{name}/main.go\n"
    "FROM gcr.io/distroless/base-debian12\nCOPY --from=build /out/{name} /{name}\n"
    'ENTRYPOINT ["/{name}"]\n'
)


def test_a_dockerfile_named_in_another_case_says_which_program_it_builds(
    tmp_path: Path,
) -> None:
    """`-f cmd/ledger/DockerFile .`, as a build may name it: the file is read as a
    Dockerfile, and its `go build ./cmd/ledger/main.go` links that program and the library
    it imports, not the module's top with both programs."""
    files = {
        **module("depot/"),
        **{f"depot/cmd/{name}/DockerFile": BUILD_ONE.format(name=name) for name in PROGRAMS},
        "depot/README.md": "```sh\n"
        + "".join(f"docker build -t acme/{n} -f cmd/{n}/DockerFile .\n" for n in PROGRAMS)
        + "```\n",
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("depot", "cmd", name), rows[name]
        assert rows[name]["modules"] == 2, "its own main and the library, not the other program"
        assert any("RUN go build" in e for e in rows[name]["evidence"]), rows[name]


def test_a_build_of_the_module_that_names_no_program_links_nothing(tmp_path: Path) -> None:
    """The module's folder built by compose with a Dockerfile the tree lacks (one made by
    a script): which of its two programs the image runs, nothing says, so no code is
    linked rather than both programs' as one container's."""
    files = {
        **module("depot/"),
        "compose.yaml": "services:\n  ledger:\n    image: acme/ledger:1\n    build: ./depot\n",
    }
    row = by_container(links(tmp_path, files))["ledger"]
    assert row["code"] is None, row
    assert "a Go module of several programs" in row["why_not"], row
    assert os.path.join("depot", "cmd", "courier") in row["why_not"], row


def test_a_module_of_one_program_built_so_still_links_it(tmp_path: Path) -> None:
    files = {
        **module("depot/"),
        "compose.yaml": "services:\n  ledger:\n    image: acme/ledger:1\n    build: ./depot\n",
    }
    del files["depot/cmd/courier/main.go"]
    row = by_container(links(tmp_path, files))["ledger"]
    assert (row["code"], row["modules"]) == ("depot", 2), row  # its one program's closure


FLAGS_DOCKERFILE = (
    "ARG GO_IMAGE\nFROM $GO_IMAGE AS builder\nARG LDFLAGS\nARG GO_BUILD_FLAGS\n"
    "WORKDIR /depot\nCOPY . .\n"
    "RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 \\\n"
    '    go build -v -o {name} -ldflags "$LDFLAGS" $GO_BUILD_FLAGS ./cmd/{name}\n'
    "FROM gcr.io/distroless/static\nCOPY --from=builder /depot/{name} /\n"
)
FLAGS_MAKEFILE = (
    "GO_IMAGE = golang:1.22\nDOCKER_GO_FLAGS =\nifeq ($(FIPS),1)\n"
    "\tDOCKER_GO_FLAGS = -tags fips\nendif\n\n"
    + "".join(
        f"image-{name}:\n\tdocker build -t acme/{name}:1 -f images/Dockerfile.{name} "
        f'--build-arg GO_IMAGE=$(GO_IMAGE) --build-arg GO_BUILD_FLAGS="{{flags}}" .\n\n'
        for name in PROGRAMS
    )
)


@pytest.mark.parametrize("flags", ["$(DOCKER_GO_FLAGS)", "-tags fips", ""])
def test_a_build_argument_of_go_flags_is_no_package_the_image_builds(
    tmp_path: Path, flags: str
) -> None:
    """`go build ... $GO_BUILD_FLAGS ./cmd/ledger`, the argument given as nothing or as
    flags by the build: that word names no package, so the image builds `cmd/ledger` and
    links that program, not the repository the build's context is."""
    files = {
        **module(),
        **{f"images/Dockerfile.{n}": FLAGS_DOCKERFILE.format(name=n) for n in PROGRAMS},
        "Makefile": FLAGS_MAKEFILE.format(flags=flags),
    }
    for name in PROGRAMS:
        files[f"k8s/{name}.yaml"] = workload(
            name=name, image=f"acme/{name}:1", extra=f"          command: ['/{name}']\n"
        )
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("cmd", name), rows[name]
        assert rows[name]["modules"] == 2, "its own main and the library, not the other program"


def test_a_build_argument_that_names_the_package_still_chooses_it() -> None:
    dockerfile = parse_dockerfile("Dockerfile", ARGUMENT_DOCKERFILE)
    build = dockerfile.arg_go_builds[0]
    assert package_with_args(dockerfile, build.package, [("CMD", "cmd/ledger")]) == "cmd/ledger"
    assert package_with_args(dockerfile, build.package, [("CMD", "")]) is None
    assert package_with_args(dockerfile, build.package, [("CMD", "-race")]) is None
