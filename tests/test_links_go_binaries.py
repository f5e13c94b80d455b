"""The Go program an image runs, where its Dockerfile builds the module's programs with
`make` or names them by import path: a Makefile's recipe read with the variables the file
sets (`$(GO) build -o $(BINDIR) example.com/depot/cmd/ledger`, `BINDIR ?= $(CURDIR)/bin`
made by a `mkdir -p` before: Go writes `bin/ledger`); an `-o` that is a folder names
each binary for its package; an import path is the folder its module's go.mod says. Where
the build's recipe is not read (a target an included file makes, `go build $(WHAT)`),
the binary the container runs names the one `main` package of the code the image copies
(`/usr/local/bin/courier`: `cmd/courier`). A container whose program is a file copied
from another image (`/pause`) runs no code of the repository."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.model.links import _binary
from k8slb.reading.build_files import (
    GoBuild,
    Said,
    go_binary_name,
    host_go_builds,
    make_rules,
    parse_dockerfile,
)

from tests.test_links import links
from tests.test_links_builder_args import by_container

MAIN = 'package main\n\nimport "example.com/depot/internal/store"\n\nfunc main() { store.Open() }\n'
STORE = "package store\n\nfunc Open() {}\n"
PROGRAMS = ("ledger", "courier")
GO_MOD = "module example.com/depot\n\ngo 1.22\n"

# A Makefile that builds each program by its import path into a folder it makes first
MAKEFILE = (
    "GO ?= go\nBINDIR ?= $(CURDIR)/bin\nLDFLAGS := -s -w\n\n"
    ".PHONY: ledger\nledger:\n\t@mkdir -p $(BINDIR)\n"
    "\tGOOS=linux $(GO) build -o $(BINDIR) -ldflags '$(LDFLAGS)' example.com/depot/cmd/ledger\n\n"
    ".PHONY: courier\ncourier:\n\t@mkdir -p $(BINDIR)\n"
    "\tGOOS=linux $(GO) build -o $(BINDIR) example.com/depot/cmd/courier\n\n"
    "verify:\n\tGO=$(GO) ./hack/verify.sh\n"
)


def deployment(name: str, image: str, command: str = "", container: str = "") -> str:
    """A Deployment of one container (named `container`, else as the workload), its
    command given as a YAML list when `command` is."""
    run = f"\n          command: [{command}]" if command else ""
    return (
        "apiVersion: apps/v1\nkind: Deployment\n"
        f"metadata: {{name: {name}, namespace: shop}}\nspec:\n"
        f"  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n"
        f"    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers:\n"
        f"        - name: {container or name}\n          image: {image}{run}\n"
    )


def module() -> dict[str, str]:
    """A Go module at the top of two programs and the library both import."""
    return {
        "go.mod": GO_MOD,
        "internal/store/store.go": STORE,
        **{f"cmd/{name}/main.go": MAIN for name in PROGRAMS},
    }


def test_a_makefile_s_recipes_are_read_with_the_variables_it_sets() -> None:
    rules = dict(make_rules("Makefile", MAKEFILE))
    ((build,),) = [rules["ledger"]]
    assert build.package == "example.com/depot/cmd/ledger"
    assert build.output == "./bin/ledger"  # `-o` a folder its recipe made: named for the package
    assert [b.output for b in rules["courier"]] == ["./bin/courier"]
    # `GO=$(GO) ./hack/verify.sh` in a recipe is the shell's variable, not the file's GO
    host = host_go_builds("Makefile", MAKEFILE, make=True)
    assert [(b.package, b.output) for b in host] == [
        ("example.com/depot/cmd/ledger", "./bin/ledger"),
        ("example.com/depot/cmd/courier", "./bin/courier"),
    ]


def test_an_output_folder_names_each_binary_for_its_package() -> None:
    dockerfile = parse_dockerfile(
        "Dockerfile",
        "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\n"
        "RUN go build -o out/ ./cmd/ledger && go build -o bin ./cmd/ledger ./cmd/courier\n"
        "RUN go build -o app ./cmd/ledger && go build -o tool ./tools/v2\n"
        "FROM alpine:3\nCOPY --from=build /src/out/ledger /ledger\n",
    )
    assert [(b.package, b.output) for b in dockerfile.go_builds] == [
        ("cmd/ledger", "out/ledger"),
        ("cmd/ledger", "bin/ledger"),  # several packages: `-o` is a folder, as Go requires
        ("cmd/courier", "bin/courier"),
        ("cmd/ledger", "app"),  # one package, no folder made: the file named
        ("tools/v2", "tool"),
    ]


def test_go_names_a_binary_for_its_package_or_for_the_first_file_named() -> None:
    """As `go help build` says: the package path's last element, the one before a major
    version's, and for files given on the command line the first file's name."""
    assert go_binary_name("./cmd/ledger/") == "ledger"
    assert go_binary_name("example.com/tool/v2") == "tool"
    assert go_binary_name("cmd/ledger/main.go") == "main"
    assert go_binary_name("serve.go") == "serve"


def test_a_build_without_an_output_writes_the_binary_go_names() -> None:
    said = Said("Dockerfile", 3, "RUN go build")
    assert _binary(GoBuild("example.com/tool/v2", None, said)) == "tool"
    assert _binary(GoBuild("cmd/ledger/main.go", None, said)) == "main"
    assert _binary(GoBuild("cmd/ledger", "bin/ledgerd", said)) == "ledgerd"


BUILD_IN_IMAGE = (
    "FROM golang:1.22 AS build\nWORKDIR /depot\nCOPY . /depot\n"
    "RUN --mount=type=cache,target=/root/.cache/go-build/ make ledger courier\n"
    "FROM debian:12\nCOPY --from=build /depot/bin/ledger /usr/local/bin/\n"
    "COPY --from=build /depot/bin/courier /usr/local/bin/\n"
)


def test_a_make_target_building_by_import_path_links_the_program_run(tmp_path: Path) -> None:
    files = {
        **module(),
        "Makefile": MAKEFILE,
        "build/images/Dockerfile.build.depot": BUILD_IN_IMAGE,
        "build.sh": "docker build -t acme/depot:1 -f build/images/Dockerfile.build.depot .\n",
        **{
            f"deploy/{name}.yaml": deployment(name, "acme/depot:1", f'"{name}"')
            for name in PROGRAMS
        },
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("cmd", name)
        assert any(f"(make {name}, run by" in e for e in rows[name]["evidence"])


def test_a_binary_the_host_s_makefile_builds_by_import_path_links_its_package(
    tmp_path: Path,
) -> None:
    files = {
        **module(),
        "Makefile": MAKEFILE,
        "build/images/Dockerfile.ledger": "FROM debian:12\nCOPY bin/ledger /usr/local/bin/\n",
        "build.sh": "docker build -t acme/ledger:1 -f build/images/Dockerfile.ledger .\n",
        "deploy/ledger.yaml": deployment("ledger", "acme/ledger:1", '"ledger"'),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] == os.path.join("cmd", "ledger")


def test_without_the_folder_made_an_output_is_the_binary_s_own_name(tmp_path: Path) -> None:
    makefile = MAKEFILE.replace("\t@mkdir -p $(BINDIR)\n", "")
    files = {
        **module(),
        "Makefile": makefile,
        "build/images/Dockerfile.ledger": "FROM debian:12\nCOPY bin/ledger /usr/local/bin/\n",
        "build.sh": "docker build -t acme/ledger:1 -f build/images/Dockerfile.ledger .\n",
        "deploy/ledger.yaml": deployment("ledger", "acme/ledger:1", '"ledger"'),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] != os.path.join("cmd", "ledger")


# The programs built by a target the Makefile does not hold (an included file's, with
# Make's functions), the package chosen by a variable the RUN line sets
HIDDEN_TARGET = (
    "FROM golang:1.22 AS builder\nWORKDIR /go/src/example.com/depot\nCOPY . .\n"
    "RUN GO_BUILD_PACKAGES=./cmd/{name} make build\n"
    "FROM alpine:3\nCOPY --from=builder /go/src/example.com/depot/{name} /\n"
)


def test_a_build_not_read_links_the_one_main_package_named_as_the_binary_run(
    tmp_path: Path,
) -> None:
    files = {
        **module(),
        "Makefile": "include lib/golang.mk\n\nall: build\n",
        "lib/golang.mk": "build:\n\t$(foreach p,$(GO_BUILD_PACKAGES),$(call build-package,$(p)))\n",
        **{f"build/Dockerfile.{n}": HIDDEN_TARGET.format(name=n) for n in PROGRAMS},
        "build.sh": "".join(
            f"docker build -t acme/{n}:1 -f build/Dockerfile.{n} .\n" for n in PROGRAMS
        ),
        **{f"deploy/{n}.yaml": deployment(n, f"acme/{n}:1", f'"/{n}", "serve"') for n in PROGRAMS},
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("cmd", name)
        assert any("the one main package" in e for e in rows[name]["evidence"])


ONE_IMAGE = (
    "FROM golang:1.22 as builder\nWORKDIR /workspace\nCOPY go.mod go.mod\nCOPY cmd/ cmd/\n"
    "COPY internal/ internal/\nCOPY hack/ hack/\nCOPY Makefile Makefile\n"
    "RUN make build\n"
    "FROM debian:12\nCOPY --from=builder /workspace/bin/* /usr/local/bin/\n"
)


def test_one_image_of_every_binary_runs_the_package_its_command_names(tmp_path: Path) -> None:
    files = {
        **module(),
        # the recipe runs a script that takes `go build` as its arguments: not Go's own
        "Makefile": "build:\n\tbash hack/make.sh go build $(WHAT)\n",
        "hack/make.sh": "#!/bin/bash\nfor d in cmd/*; do go build -o bin/ ./$d; done\n",
        "docker/depot-local.Dockerfile": ONE_IMAGE,
        **{
            f"deploy/{n}.yaml": deployment(n, "depot-local:latest", f'"/usr/local/bin/{n}"')
            for n in PROGRAMS
        },
    }
    rows = by_container(links(tmp_path, files))
    for name in PROGRAMS:
        assert rows[name]["code"] == os.path.join("cmd", name)


def test_a_binary_no_build_read_makes_is_not_guessed_by_its_name(tmp_path: Path) -> None:
    dockerfile = (
        "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\n"
        "RUN go build -o /out/ledger ./cmd/ledger\n"
        "FROM alpine:3\nCOPY --from=build /out/ledger /usr/local/bin/ledger\n"
    )
    files = {
        **module(),
        "build/Dockerfile.depot": dockerfile,
        "build.sh": "docker build -t acme/depot:1 -f build/Dockerfile.depot .\n",
        # every build is read: a binary none of them makes is not one of the tree's by name
        "deploy/courier.yaml": deployment("courier", "acme/depot:1", '"/usr/local/bin/courier"'),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["courier"]["code"] != os.path.join("cmd", "courier")


PAUSE = (
    "FROM ubuntu:24.04\nCOPY scripts/migrate /usr/local/bin/\n"
    "COPY --from=registry.k8s.io/pause:3.9 /pause /pause\n"
    'CMD ["/pause"]\n'
)


def test_a_container_running_a_file_of_another_image_links_no_code(tmp_path: Path) -> None:
    files = {
        **module(),
        "scripts/migrate": "#!/bin/sh\necho migrate\n",
        "build/Dockerfile.migrator": PAUSE,
        "build.sh": "docker build -t acme/migrator:1 -f build/Dockerfile.migrator .\n",
        "deploy/migrator.yaml": deployment("migrator", "acme/migrator:1"),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["migrator"]["code"] is None
    assert "registry.k8s.io/pause:3.9" in str(rows["migrator"]["why_not"])


def test_a_file_of_an_image_the_tree_builds_is_not_refused_so(tmp_path: Path) -> None:
    files = {
        **module(),
        "scripts/migrate": "#!/bin/sh\necho migrate\n",
        "build/Dockerfile.migrator": PAUSE.replace("registry.k8s.io/pause:3.9", "acme/pause:1"),
        "build/Dockerfile.pause": "FROM golang:1.22\nCOPY . /src\n"
        "RUN go build -o /pause ./cmd/ledger\n",
        "build.sh": "docker build -t acme/migrator:1 -f build/Dockerfile.migrator .\n"
        "docker build -t acme/pause:1 -f build/Dockerfile.pause .\n",
        "deploy/migrator.yaml": deployment("migrator", "acme/migrator:1"),
    }
    rows = by_container(links(tmp_path, files))
    assert "acme/pause:1, which the repository does not build" not in str(
        rows["migrator"].get("why_not")
    )


def test_a_file_a_builder_stage_makes_is_not_another_image_s(tmp_path: Path) -> None:
    # `FROM golang AS build` then `COPY --from=build /out/ledger`: the stage built it
    dockerfile = (
        "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\n"
        "RUN go build -o /out/ledger ./cmd/ledger\n"
        "FROM alpine:3\nCOPY --from=build /out/ledger /ledger\n"
        'CMD ["/ledger"]\n'
    )
    files = {
        **module(),
        "build/Dockerfile.ledger": dockerfile,
        "build.sh": "docker build -t acme/ledger:1 -f build/Dockerfile.ledger .\n",
        "deploy/ledger.yaml": deployment("ledger", "acme/ledger:1"),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] == os.path.join("cmd", "ledger")


def test_a_role_guess_takes_the_dockerfile_named_as_the_whole_image(tmp_path: Path) -> None:
    # nothing builds ghcr.io/acme/ledger-api (the builds push elsewhere): a guess by the
    # Dockerfile named for it, `Dockerfile.ledger-api`, not `Dockerfile.ledger` by a word
    files = {
        **module(),
        "cmd/ledger-api/main.go": MAIN,
        "Makefile": "include lib/golang.mk\n\nall: build\n",
        "lib/golang.mk": "build:\n\t$(foreach p,$(GO_BUILD_PACKAGES),$(call build-package,$(p)))\n",
        "build/Dockerfile.ledger": HIDDEN_TARGET.format(name="ledger"),
        "build/Dockerfile.ledger-api": HIDDEN_TARGET.format(name="ledger-api"),
        "tools/Dockerfile": "FROM alpine:3\nCOPY tool.sh /\n",
        "tools/tool.sh": "#!/bin/sh\n",
        "build.sh": "docker build -t quay.io/other/tool:1 tools\n",
        "deploy/ledger.yaml": deployment(
            "ledger", "ghcr.io/acme/ledger-api:1", '"/ledger-api"', container="ledger-api"
        ),
    }
    rows = by_container(links(tmp_path, files))
    evidence = " ".join(rows["ledger"]["evidence"])
    assert "build/Dockerfile.ledger-api" in evidence
    assert "build/Dockerfile.ledger " not in evidence + " "


def test_a_package_the_make_line_names_is_the_only_one_its_binary_may_be(
    tmp_path: Path,
) -> None:
    # the image of `GO_BUILD_PACKAGES=./cmd/ledger` runs `/courier`: not that package's
    files = {
        **module(),
        "Makefile": "include lib/golang.mk\n\nall: build\n",
        "lib/golang.mk": "build:\n\t$(foreach p,$(GO_BUILD_PACKAGES),$(call build-package,$(p)))\n",
        "build/Dockerfile.depot": HIDDEN_TARGET.format(name="ledger"),
        "build.sh": "docker build -t acme/depot:1 -f build/Dockerfile.depot .\n",
        "deploy/courier.yaml": deployment("courier", "acme/depot:1", '"/courier"'),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["courier"]["code"] != os.path.join("cmd", "courier")


def test_a_pattern_written_to_one_file_is_its_one_main_package(tmp_path: Path) -> None:
    # `go build -o bin/depot-ledger .../ledger/cmd/...`: Go builds the pattern's one main
    makefile = "bin:\n\tgo build -o bin/depot-ledger example.com/depot/ledger/cmd/...\n"
    files = {
        "go.mod": GO_MOD,
        "internal/store/store.go": STORE,
        "ledger/cmd/ledger-controller/main.go": MAIN,
        "courier/cmd/courier/main.go": MAIN,
        "ledger/Makefile": makefile,
        "ledger/Dockerfile": "FROM alpine:3\nCOPY ledger/bin/depot-ledger /\n"
        'ENTRYPOINT ["/depot-ledger"]\n',
        "build.sh": "docker build -t acme/ledger:1 -f ledger/Dockerfile .\n",
        "deploy/ledger.yaml": deployment("ledger", "acme/ledger:1"),
    }
    (build,) = host_go_builds("ledger/Makefile", makefile, make=True)
    assert (build.package, build.output) == ("example.com/depot/ledger/cmd/...", "bin/depot-ledger")
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] == os.path.join("ledger", "cmd", "ledger-controller")


def test_an_image_of_one_host_built_binary_and_no_command_runs_that_program(
    tmp_path: Path,
) -> None:
    # a kustomize base gives no command (an overlay sets it); the image holds one binary
    files = {
        **module(),
        "Makefile": MAKEFILE,
        "build/Dockerfile.ledger": "FROM gcr.io/distroless/static\nCOPY bin/ledger /\n",
        "build.sh": "docker build -t acme/ledger:1 -f build/Dockerfile.ledger .\n",
        "config/manager.yaml": deployment("ledger", "acme/ledger:1"),
    }
    rows = by_container(links(tmp_path, files))
    assert rows["ledger"]["code"] == os.path.join("cmd", "ledger")
    two = {**files, "build/Dockerfile.ledger": files["build/Dockerfile.ledger"] + "COPY x /x\n"}
    two["x"] = "data\n"
    rows = by_container(links(tmp_path / "two", two))
    assert rows["ledger"]["code"] != os.path.join("cmd", "ledger")
