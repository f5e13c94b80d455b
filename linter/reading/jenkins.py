"""A Jenkins pipeline (`Jenkinsfile`, `Jenkinsfile.master`; declarative or scripted), read
for the images it builds: each shell step (`sh 'docker build ...'`, `sh '''...'''`,
`sh(script: "...")`) is read as a shell script is (build_files.script_facts), and the
Docker Pipeline plugin's `docker.build("IMAGE", "ARGS")` as the `docker build -t IMAGE
ARGS` it runs. Jenkins runs each step in a new shell, in the workspace (the checkout)
or the folder a `dir('x') { }` around it names; the variables of the pipeline's
`environment { NAME = "value" }`, `def NAME = "value"` and `env.NAME = "value"` are the
steps' (a value set twice to different values is unknown). The workspace is the
repository's top, which the scan may not show: the builds are read from the file's
folder, and links.py climbs to the folder from which the Dockerfile a build names is
found, as for a script. Groovy is not parsed: one pass of a pattern over the text, braces
counted for `dir`'s blocks."""

from __future__ import annotations

import os
from dataclasses import replace

from k8slb.core import regex
from k8slb.reading.build_files import MAX_SCRIPT, ImageBuild, shell_expanded, step_builds

# A Groovy string: '...' and "..." (to their line's end at the latest), and the
# triple-quoted ones (to the text's end at the latest: one that never closes is read once)
_STRINGS = (
    "'''(?P<{0}3>(?:[^']|'[^']|''[^'])*)(?:'''|\\z)"
    '|"""(?P<{0}4>(?:[^"]|"[^"]|""[^"])*)(?:"""|\\z)'
    r"|'(?P<{0}1>[^'\n]*)'"
    r'|"(?P<{0}2>(?:[^"\\\n]|\\.)*)"'
)
# What the pass reads, in one `finditer`: a shell step's string (`sh 'cmd'`, `sh """`,
# `sh(script: "cmd")`, `sh(returnStdout: true, script: 'cmd')`, `sh label: 'Build',
# script: 'cmd'`), `docker.build(...)`,
# `dir('x') {`, a brace, a comment, another string (whole: a `//` or a brace in it is
# none).
_TOKEN = regex.compile(
    r"""\b(?:sh|bat)\s*\(?\s*(?:\w+\s*:\s*(?:[\w.]+|'[^'\n]*'|"[^"\n]*")\s*,\s*)*"""
    r"""(?:script\s*:\s*)?(?:"""
    + _STRINGS.format("step")
    + r""")|(?P<build>\bdocker\.build\s*\(\s*(?:"(?P<image>[^"\n]*)"|'(?P<plain>[^'\n]*)'))"""
    r"""(?:\s*,\s*(?:"(?P<args>[^"\n]*)"|'(?P<plainargs>[^'\n]*)'))?\s*\)"""
    r"""|\bdir\s*\(\s*(?:path\s*:\s*)?(?:"(?P<dir>[^"\n]*)"|'(?P<plaindir>[^'\n]*)')\s*\)\s*\{"""
    r"""|(?P<open>\{)|(?P<close>\})|//[^\n]*|/\*(?:[^*]|\*+[^*/])*(?:\*+/|\z)|"""
    + _STRINGS.format("other")
)
# `NAME = "value"` (in `environment { }`), `def NAME = 'value'`, `env.NAME = "value"`
_ASSIGNMENT = regex.compile(
    r"""^[ \t]*(?:def[ \t]+|env\.)?([A-Za-z_]\w*)[ \t]*=[ \t]*"""
    r"""(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')[ \t]*(?://[^\n]*)?$""",
    regex.MULTILINE,
)
# The longest value a variable keeps: `A = "${A}${A}"` line after line stays small
_MAX_VALUE = 4096
# Groovy's `${env.NAME}` and `${params.NAME}`: the variable NAME, as the shell sees it
_GROOVY_SCOPE = regex.compile(r"\$\{(?:env|params)\.([A-Za-z_]\w*)\}")


def jenkins_builds(path: str, text: str) -> list[ImageBuild]:
    """The images a pipeline's shell steps and `docker.build` calls build (kind
    `jenkins`); none of a file past MAX_SCRIPT."""
    if len(text) > MAX_SCRIPT or ("docker" not in text and "podman" not in text):
        return []
    variables = _variables(text)
    folder: str | None = os.path.dirname(path) or "."
    found: list[ImageBuild] = []
    dirs: list[tuple[int, str | None]] = []  # the `dir` blocks open: their depth, folder
    depth = line = 0
    counted = 0  # the offset up to which the lines are counted
    for token in _TOKEN.finditer(text):
        here = dirs[-1][1] if dirs else folder
        line += text.count("\n", counted, token.start())
        counted = token.start()
        groups = token.groupdict()
        step = next((g for n in range(1, 5) if (g := groups[f"step{n}"]) is not None), None)
        build = groups["image"] if groups["image"] is not None else groups["plain"]
        named = groups["dir"] if groups["dir"] is not None else groups["plaindir"]
        if step is not None and here is not None:
            single = groups["step1"] is not None or groups["step3"] is not None
            script = step if single else _unescaped(step)
            found += _step_builds(path, _scoped(script), line + 1, here, variables)
        elif build is not None and here is not None:
            args = groups["args"] if groups["args"] is not None else groups["plainargs"]
            script = f'docker build -t "{build}" {"." if args is None else args}'
            found += _step_builds(path, _scoped(_unescaped(script)), line + 1, here, variables)
        elif named is not None:
            depth += 1
            inner = None if here is None or "$" in named else os.path.join(here, named)
            dirs.append((depth, inner and os.path.normpath(inner)))
        elif groups["open"] is not None:
            depth += 1
        elif groups["close"] is not None:
            if dirs and dirs[-1][0] == depth:
                dirs.pop()
            depth -= 1
    return found


def _unescaped(script: str) -> str:
    """A double-quoted string as the shell gets it: Groovy's `\\$` a `$`, `\\"` a `"`."""
    return script.replace("\\$", "$").replace('\\"', '"') if "\\" in script else script


def _scoped(script: str) -> str:
    """Groovy's `${env.NAME}` and `${params.NAME}` as the shell's `${NAME}`."""
    return _GROOVY_SCOPE.sub(r"${\1}", script) if "{" in script else script


def _variables(text: str) -> dict[str, str | None]:
    """The pipeline's literal string variables, each with those set before it put in
    (None: set to different values, or to words)."""
    found: dict[str, str | None] = {}
    for assigned in _ASSIGNMENT.finditer(text):
        name, double, single = assigned[1], assigned[2], assigned[3]
        value: str | None = single
        if single is None:
            value = shell_expanded(_scoped(_unescaped(double)), found)
        if value is not None and (" " in value or "'" in value or len(value) > _MAX_VALUE):
            value = None
        found[name] = value if found.get(name, value) == value else None
    return found


def _step_builds(
    path: str, script: str, line: int, folder: str, variables: dict[str, str | None]
) -> list[ImageBuild]:
    """The builds of one shell step whose text starts on `line`, run in `folder`."""
    if "docker" not in script and "podman" not in script:
        return []
    builds = step_builds(path, script, line, folder, variables)
    return [replace(b, kind="jenkins") for b in builds]
