"""Scripts of a `bin/` folder with no suffix (`bin/start`, as Ruby and Node projects keep
them): one whose `#!` line names a shell is read as a shell script, so an image whose
command runs it (`./bin/start`, copied by `COPY . .`) runs a file of the repository, not
a binary built elsewhere; a suffixless file of another language, or a binary, is none."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from k8slb.reading.build_files import read_build_file

from tests.test_links import links, workload

START = """\
#!/bin/sh
set -e
echo "migrating"
bundle exec rake db:migrate
exec ./bin/serve
"""
SERVE = "#!/usr/bin/env ruby\nrequire_relative '../config/boot'\nServer.start\n"
RUBY_DOCKERFILE = """\
FROM ruby:3.3-slim
WORKDIR /app
COPY Gemfile ./
RUN bundle install
COPY . .
EXPOSE 9001
CMD ["./bin/serve"]
"""
GO_TOOL = 'package main\n\nimport "net/http"\n\nfunc main() { http.ListenAndServe(":8080", nil) }\n'


def ruby_service() -> dict[str, str]:
    """A Ruby service whose manifest runs `./bin/start`, beside a Go tool of the same
    repository (a tree with Go: a binary not held would be another program's)."""
    return {
        "apps/ledger/Gemfile": "source 'https://rubygems.org'\ngem 'grpc'\n",
        "apps/ledger/bin/start": START,
        "apps/ledger/bin/serve": SERVE,
        "apps/ledger/Dockerfile": RUBY_DOCKERFILE,
        "apps/ledger/build.sh": "#!/bin/sh\ndocker build -t acme/ledger:1 .\n",
        "tools/go.mod": "module example.com/tools\n\ngo 1.22\n",
        "tools/probe/main.go": GO_TOOL,
        "tools/sweep/main.go": GO_TOOL,
        "k8s/ledger.yaml": workload(name="ledger", image="acme/ledger:1").replace(
            "image: acme/ledger:1", 'image: acme/ledger:1\n          command: ["./bin/start"]'
        ),
    }


@pytest.mark.parametrize(
    ("path", "text", "shell"),
    [
        ("apps/ledger/bin/start", START, "sh"),
        ("bin/setup", "#!/usr/bin/env bash\nset -euo pipefail\n", "bash"),
        ("bin/serve", SERVE, None),
        ("bin/tool", "\x7fELF\x02\x01\x01", None),
    ],
)
def test_a_suffixless_file_of_a_bin_folder_is_a_script_when_a_shell_runs_it(
    path: str, text: str, shell: str | None
) -> None:
    read = read_build_file(path, text.encode())
    script = read.script if read is not None else None
    assert (script.shell if script is not None else None) == shell


def test_a_command_running_a_bin_script_of_the_repository_links_its_folder(
    tmp_path: Path,
) -> None:
    files = ruby_service()
    rows = links(tmp_path, files)
    (row,) = [r for r in rows if r["container"].endswith("/ledger:server")]
    assert row["code"] is not None, row
    assert "does not hold" not in row.get("why_not", ""), row
    assert row["code"] == os.path.join("apps", "ledger"), row
