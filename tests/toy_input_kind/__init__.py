"""Subst, a toy rendered source a test adds to k8slb the way a contributor adds one (a
jsonnet or helmfile reader): this package and one line in `k8slb.inputs.READERS`
(tests/test_toy_input_kind.py).

A `.subst` file is YAML whose `$NAME` words are replaced by the values its first line
sets (`# subst: name=shop port=8080`), as envsubst would; a `$NAME` that line does not
set is a problem at its line and column, and nothing of the file is rendered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from k8slb.core.findings import Problem, Severity
from k8slb.inputs import Reader, ReadSettings
from k8slb.reading.chart_findings import RenderedTemplate
from k8slb.reading.chart_lines import TemplateLines
from k8slb.reading.charts import UNRENDERED, HelmOptions, Rendering

_VALUES = re.compile(r"^#\s*subst:(?P<values>.*)$")
_WORD = re.compile(r"\$(\w+)")

SOURCE = "source"  # the rendering's member that is the source's text

# The paths of the sources each render call was given: the test's way to see the cache.
RENDERED: list[str] = []


def rendered_path(path: str) -> str:
    """The rendered text's path: the source's, as a chart's `#N` variant is its template's."""
    return f"{path}#0"


def render_one(path: str, data: bytes) -> Rendering:
    text = data.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    header = _VALUES.match(lines[0]) if lines else None
    values = dict(v.split("=", 1) for v in header.group("values").split()) if header else {}
    rendering = Rendering(path, members={SOURCE: data})
    for number, line in enumerate(lines, start=1):
        for word in _WORD.finditer(line):
            if word.group(1) not in values:
                message = f"subst: ${word.group(1)} has no value on the first line"
                column = word.start() + 1
                problem = Problem(UNRENDERED, path, number, column, message, None, Severity.WARNING)
                rendering.problems.append(problem)
    if not rendering.problems:
        shown = rendered_path(path)
        rendering.files[shown] = _WORD.sub(lambda word: values[word.group(1)], text)
        rendering.names[shown] = path
    return rendering


class Subst(Reader):
    name = "subst"
    renders = True

    def claims_file(self, path: str) -> bool:
        return path.endswith(".subst")

    def render(
        self, sources: Sequence[tuple[str, bytes]], settings: ReadSettings
    ) -> list[list[Rendering]]:
        RENDERED.extend(path for path, _ in sources)
        return [[render_one(path, data)] for path, data in sources]

    def templates(self, rendering: Rendering, path: str) -> Mapping[str, RenderedTemplate]:
        """Each rendered line is its source's line: a finding goes back to it."""
        original = rendering.members[SOURCE].decode("utf-8", "replace")
        return {
            shown: RenderedTemplate(
                path,
                TemplateLines(original.splitlines(), rendered.splitlines()),
                [],
                path,
                path,
                None,
                rendered,
                original,
                HelmOptions(),
                None,
                fixable=False,
                manual="make that change in the .subst file",
            )
            for shown, rendered in rendering.files.items()
        }


SUBST = Subst()
