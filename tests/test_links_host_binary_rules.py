"""An image that copies a Go binary a Makefile's rule builds for each of its targets
(`$(BINS): ...` with `go build -o ./$@ ./$(@D)`), built from the repository's top
(`docker build -f images/ledger/Dockerfile .`) and copying beside it a package of
templates: the container links the package the rule compiles to the very file the image
copies, not the whole repository nor the templates' folder, even when its command waits
first (`sh -c "sleep 10 && /usr/local/bin/acme-ledger"`). Nothing read makes the binary:
no code is linked."""

from __future__ import annotations

from pathlib import Path

from k8slb.code.entry_points import script_words
from k8slb.reading.build_files import host_go_builds

from tests.test_links import links, workload
from tests.test_links_builder_args import by_container

MODULE = "module example.com/acme\n\ngo 1.22\n"
LEDGER = 'package main\n\nimport "example.com/acme/store"\n\nfunc main() { store.Open() }\n'
NOTIFIER = 'package main\n\nimport "example.com/acme/store"\n\nfunc main() { store.Open() }\n'
STORE = "package store\n\nfunc Open() {}\n"
TEMPLATES = 'package templates\n\nconst Site = "server { listen 80; }"\n'

MAKEFILE = (
    "GO ?= go\nBINARIES = \\\n    ledger/ledger \\\n    notifier/notifier\n\n"
    "COMPILE = CGO_ENABLED=0 $(GO) build -trimpath -o ./$@ ./$(dir $@)\n\n"
    "$(BINARIES): $(shell find . -name '*.go')\n"
    "ifeq ($(OS),Darwin)\n\tGOOS=linux $(COMPILE)\nelse\n\t$(COMPILE)\nendif\n\n"
    "images: $(BINARIES)\n"
    "\tdocker build -t acme-ledger:$(TAG) -f images/ledger/Dockerfile .\n"
    "\tdocker build -t acme-notifier:$(TAG) -f images/notifier/Dockerfile .\n"
)


def dockerfile(name: str, binary: str) -> str:
    return (
        "FROM debian:12\nRUN apt-get update && apt-get install -y ca-certificates\n"
        f"COPY {binary} /usr/local/bin/acme-{name}\n"
        "COPY ./render/templates /etc/acme/templates\nCOPY ./config /etc/acme/config\n"
        "WORKDIR /etc/acme\n"
    )


def command(name: str, wait: bool) -> str:
    run = f"/usr/local/bin/acme-{name} --config=/etc/acme/config/{name}.yaml"
    line = f'["/bin/sh", "-c", "sleep 10 && {run}"]' if wait else f'["{run.split()[0]}"]'
    return f"          command: {line}\n"


def tree(makefile: str = MAKEFILE) -> dict[str, str]:
    return {
        "go.mod": MODULE,
        "ledger/main.go": LEDGER,
        "notifier/main.go": NOTIFIER,
        "store/store.go": STORE,
        "render/templates/site.go": TEMPLATES,
        "config/ledger.yaml": "port: 8080\n",
        "Makefile": makefile,
        "images/ledger/Dockerfile": dockerfile("ledger", "./ledger/ledger"),
        "images/notifier/Dockerfile": dockerfile("notifier", "notifier/notifier"),
        "deploy/ledger.yaml": workload(
            name="ledger", image="acme-ledger:1.0", extra=command("ledger", True)
        ),
        "deploy/notifier.yaml": workload(
            name="notifier", image="acme-notifier:1.0", extra=command("notifier", False)
        ),
    }


def test_a_rule_s_recipe_is_read_for_each_of_its_targets() -> None:
    builds = host_go_builds("Makefile", MAKEFILE, make=True)
    made = sorted({(b.package, b.output) for b in builds})
    assert made == [("ledger", "./ledger/ledger"), ("notifier", "./notifier/notifier")]
    assert all("$@" not in b.said.text for b in builds)


def test_a_rule_s_target_folder_and_name_variables_are_read() -> None:
    text = "cmd/api/api cmd/worker/worker:\n\tgo build -o $(@D)/$(@F) ./$(@D)\n"
    made = sorted((b.package, b.output) for b in host_go_builds("Makefile", text, make=True))
    assert made == [("cmd/api", "cmd/api/api"), ("cmd/worker", "cmd/worker/worker")]


def test_a_script_s_program_is_found_past_a_wait_in_front() -> None:
    assert script_words("sleep 30 && /bin/api --port=80") == ["/bin/api", "--port=80"]
    assert script_words("echo start; sleep 5; exec /bin/api") == ["exec", "/bin/api"]
    assert script_words("sleep 30") == ["sleep", "30"]
    assert script_words("cd /srv && ./api") == ["cd", "/srv", "&&", "./api"]


def test_an_image_copying_a_binary_a_rule_builds_links_that_package(tmp_path: Path) -> None:
    rows = by_container(links(tmp_path, tree()))
    for name in ("ledger", "notifier"):
        row = rows[name]
        assert row["code"] == name, row
        assert row["modules"] == 2, "its main and the package it imports"
        assert any(f"-o ./{name}/{name}" in e for e in row["evidence"]), row


def test_a_binary_no_build_read_makes_links_no_code_not_the_repository(tmp_path: Path) -> None:
    unread = MAKEFILE.replace("./$@ ./$(dir $@)", "$(OUT) $(PKG)")
    rows = by_container(links(tmp_path, tree(unread)))
    for name in ("ledger", "notifier"):
        assert rows[name]["code"] is None, rows[name]
        assert "no build read makes" in rows[name]["why_not"], rows[name]
