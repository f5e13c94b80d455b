"""Every regular expression k8slb applies to what a repository holds runs in time linear in
its input: RE2 (`k8slb.core.regex`), or a plain scan. Python's `re` backtracks, and one
line of a pull request could stall a run for minutes or for ever; this module finds any
use of it in k8slb's code outside a short list, each entry with the reason its input is
not the repository's. Then each input that used to stall a reader, built here and read
in a child process that must finish long before the old code would have."""

from __future__ import annotations

import ast
import pickle
import random
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from k8slb.code.projects import _from_imports
from k8slb.core import regex
from k8slb.reading.build_files import _is_name, tiltfile_builds
from k8slb.reading.chart_lines import Define, _key, defines
from k8slb.reading.encodings import code_lines, newline_lines

from .helpers import ROOT, within_cpu

# (module, the definition the use is in: a function's or a constant's name) -> why its
# input is never a repository's. A use of `re` anywhere else fails the test below.
ALLOWED = {
    ("linter/rulekit/base.py", "Rule.sections"): (
        "k8slb's own rule docstrings, cut at their `## ` headings"
    ),
    ("linter/report/docs.py", "_body"): "k8slb's own rule docstrings, cut at their `## ` headings",
    ("linter/fixing/write.py", "_TEMPORARY"): (
        "the names of k8slb's temporary files in a folder it writes to: a file name is 255 "
        "bytes at most, so even a backtracking match is bounded"
    ),
}
# Modules that compile patterns with `re` inside (fnmatch's globs), by the same rule.
BACKTRACKING_MODULES = {"re", "fnmatch", "sre_compile", "sre_parse", "glob"}
ALLOWED_IMPORTS = {
    ("linter/run/suppressions.py", "fnmatch"): (
        "exemption globs of the configuration: fnmatch matches each `*` with an atomic "
        "group (Python 3.9+), so a glob costs its length times the name's, never more"
    ),
}


def _sources() -> list[Path]:
    return sorted([*(ROOT / "linter").rglob("*.py"), *(ROOT / "rules").rglob("*.py")])


def _uses(path: Path) -> tuple[list[tuple[str, int]], list[tuple[str, str, int]]]:
    """The modules of BACKTRACKING_MODULES the file imports (name, line), and each use of
    a name bound to `re` (the enclosing definition, `re.<attribute>`, line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports: list[tuple[str, int]] = []
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in BACKTRACKING_MODULES:
                    imports.append((alias.name, node.lineno))
                    if alias.name == "re":
                        bound.add(alias.asname or "re")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in BACKTRACKING_MODULES
        ):
            imports.append((f"from {node.module}", node.lineno))
    uses: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inside = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inside = child.name if where == "<module>" else f"{where}.{child.name}"
            elif isinstance(child, ast.Assign | ast.AnnAssign) and where == "<module>":
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                inside = names[0] if names else where
            if (
                isinstance(child, ast.Attribute)
                and isinstance(child.value, ast.Name)
                and child.value.id in bound
            ):
                uses.append((inside, f"re.{child.attr}", child.lineno))
            visit(child, inside)

    visit(tree, "<module>")
    return imports, uses


def test_no_backtracking_regular_expression_reads_what_a_repository_holds() -> None:
    unexplained: list[str] = []
    seen: set[tuple[str, str]] = set()
    for path in _sources():
        module = path.relative_to(ROOT).as_posix()
        imports, uses = _uses(path)
        for name, line in imports:
            top = name.removeprefix("from ").split(".")[0]
            if (module, top) in ALLOWED_IMPORTS:
                seen.add((module, top))
            elif name != "re":  # `import re` is judged by its uses, below
                unexplained.append(f"{module}:{line}: imports {name}")
        for where, use, line in uses:
            if (module, where) in ALLOWED:
                seen.add((module, where))
            else:
                unexplained.append(f"{module}:{line}: {use} in {where}")
    assert not unexplained, (
        "Python's re backtracks: a pattern applied to a repository's files, names or values "
        "must run in linear time (k8slb.core.regex, RE2) or be a scan; a pattern that never "
        "reads them goes in ALLOWED with the reason:\n" + "\n".join(unexplained)
    )
    stale = (set(ALLOWED) | set(ALLOWED_IMPORTS)) - seen
    assert not stale, f"listed but no longer used (remove them): {sorted(stale)}"


def test_the_finder_sees_every_way_re_is_used(tmp_path: Path) -> None:
    """The test above is only as good as its finder: each spelling is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        textwrap.dedent(
            """
            import re as backtracking
            from re import compile
            import fnmatch
            PATTERN = backtracking.compile("a+")
            def read(text):
                return backtracking.search("(a|a)*b", text)
            class Reader:
                def read(self, text):
                    return backtracking.sub("x", "y", text)
            """
        )
    )
    imports, uses = _uses(sample)
    assert [name for name, _ in imports] == ["re", "from re", "fnmatch"]
    assert uses == [
        ("PATTERN", "re.compile", 5),
        ("read", "re.search", 7),
        ("Reader.read", "re.sub", 10),
    ]


# -- RE2 as k8slb uses it ----------------------------------------------------------------


def test_a_bytes_pattern_reads_bytes_that_are_not_utf8() -> None:
    """Go, JavaScript and Python sources are searched as bytes, which may be Latin-1."""
    block = regex.compile(rb"^import\s*\(([^)]*)\)", regex.MULTILINE)
    found = block.search(b'import (\n\t"caf\xe9"\n)\n')
    assert found is not None and found.group(1) == b'\n\t"caf\xe9"\n'


def test_a_name_with_an_undecodable_byte_is_searched_not_refused() -> None:
    """os.listdir keeps a name's undecodable byte as a lone surrogate, which UTF-8 (RE2's
    encoding) cannot hold: it is read as U+FFFD, and the offsets stay the text's."""
    name = "Dockerfile.caf\udce9"
    found = regex.compile(r"^Dockerfile(\..+)?$").search(name)
    assert found is not None and found.span(1) == (10, len(name))


_DIRECT_PATTERNS = [
    regex.compile(r"(?P<word>[a-z]+)(\d+)?"),
    regex.compile(r"^(?:alpine|busybox)(?:\d[\d.]*)?$"),
    regex.compile(r"x*"),
    regex.compile(r"^b$", regex.MULTILINE),
    regex.compile(r"é(.)?"),
    regex.compile(rb"[a-z]+(\xe9)?"),
]


def _same_match(ours: regex.Match[Any] | None, theirs: regex.Match[Any] | None) -> None:
    assert (ours is None) == (theirs is None)
    if ours is not None and theirs is not None:
        groups = range(len(ours.groups()) + 1)
        assert [ours.span(g) for g in groups] == [theirs.span(g) for g in groups]
        assert [ours.group(g) for g in groups] == [theirs.group(g) for g in groups]
        assert ours.groupdict() == theirs.groupdict()


@given(
    st.text(alphabet="abx1é\n\udce9 ", max_size=12),
    st.binary(max_size=12),
    st.integers(min_value=-1, max_value=3),
)
def test_matches_asked_of_re2_directly_are_the_binding_s(text: str, data: bytes, most: int) -> None:
    """Every method asks RE2 directly for an ASCII or bytes text: the same matches
    (spans, groups, names), pieces and substitutions as the binding's own way gives, and
    a bytes text's spans (`spans`) are its matches'."""
    for pattern in _DIRECT_PATTERNS:
        subject: Any = data if isinstance(pattern.pattern, bytes) else text
        shown = regex._readable(subject)
        binding = pattern._compiled
        _same_match(pattern.search(subject), binding.search(shown))
        _same_match(pattern.match(subject), binding.match(shown))
        _same_match(pattern.fullmatch(subject), binding.fullmatch(shown))
        ours, theirs = list(pattern.finditer(subject)), list(binding.finditer(shown))
        assert len(ours) == len(theirs)
        for one, other in zip(ours, theirs, strict=True):
            _same_match(one, other)
        assert pattern.findall(subject) == binding.findall(shown)
        if isinstance(subject, bytes):  # a scan's spans, each match's groups' with its own
            groups = range(binding.groups + 1)
            assert [list(spans) for spans in pattern.spans(subject)] == [
                [match.span(g) for g in groups] for match in theirs
            ]
        assert pattern.split(subject, most) == binding.split(shown, most)
        template = b"<\\g<0>>" if isinstance(subject, bytes) else "<\\g<0>>"
        assert pattern.sub(template, subject, most) == binding.sub(template, shown, most)
        assert pattern.sub(lambda m: m.group()[:1], subject, most) == binding.sub(
            lambda m: m.group()[:1], shown, most
        )


def test_a_pattern_is_pickled_and_matches_as_before() -> None:
    """Parses are pickled (the cache, the pool's workers), patterns in them too."""
    again = pickle.loads(pickle.dumps(regex.compile(r"a(b)")))
    found = again.search("xab")
    assert found is not None and found.span(1) == (2, 3)


def test_flags_work_as_re_s() -> None:
    assert regex.compile(r"^b", regex.MULTILINE).search("a\nb") is not None
    assert regex.compile(r"a.b", regex.DOTALL).search("a\nb") is not None
    assert regex.compile(r"K8SLB", regex.IGNORECASE).search("# k8slb: ignore") is not None
    assert regex.compile(r"^b").search("a\nb") is None


def test_code_lines_end_where_python_and_go_end_them() -> None:
    """The scan that replaced a pattern gives its lines, for every mix of line ends."""
    pattern = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")
    generator = random.Random(46)
    for _ in range(5_000):
        text = "".join(generator.choice("a\r\n\f") for _ in range(generator.randint(0, 12)))
        assert code_lines(text, keepends=True) == pattern.findall(text), repr(text)
        assert newline_lines(text) == re.findall(r"[^\n]*\n|[^\n]+\Z", text), repr(text)


def test_from_imports_are_read_as_the_one_pattern_read_them() -> None:
    """The scan that replaced `from a import (b, c)|b, c` finds what the pattern found, on
    generated lines (a pattern with both made RE2 read to the end for each open `(`)."""
    pattern = re.compile(
        rb"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^#\n;]+)", re.MULTILINE
    )
    atoms = [b"from ", b" ", b"\t", b"x", b".", b"import", b" import ", b"(", b")", b"\n"]
    atoms += [b"#", b";", b"a, b", b"\r", b"\xe9"]
    generator = random.Random(46)
    for _ in range(20_000):
        text = b"".join(generator.choice(atoms) for _ in range(generator.randint(0, 16)))
        expected = [match.groups() for match in pattern.finditer(text)]
        assert list(_from_imports(text)) == expected, text


def test_a_line_s_key_is_read_as_the_pattern_read_it() -> None:
    """The scan that replaced the key pattern (on every line of every template and
    rendering) gives its key, for generated lines."""
    pattern = re.compile(r"""^(?:"[^"]*"|'[^']*'|[^\s:#'"{][^:#]*?)\s*:(?:\s|$)""")
    atoms = ['"', "'", "a", " ", "\t", ":", "#", "{", "b c", ": ", "\u00a0", "x:y"]
    generator = random.Random(46)
    for _ in range(20_000):
        text = "".join(generator.choice(atoms) for _ in range(generator.randint(0, 9)))
        match = pattern.match(text)
        expected = match.group(0).rstrip().rstrip(":").strip("\"'") if match else None
        assert _key(text) == expected, repr(text)


def test_a_define_s_body_ends_at_its_end_or_at_the_next_define() -> None:
    helpers = (
        '{{ define "a" }}\n{{ if .x }}\nx\n{{ end }}\ny\n{{- end }}\n'
        '{{ define "b" }}\nb\n{{/* {{ define "c" }} */}}\nc\n'
    )
    found = defines({"_helpers.tpl": helpers})
    assert found["a"] == Define("_helpers.tpl", 2, ("{{ if .x }}", "x", "{{ end }}", "y"))
    assert found["b"].lines == ("b",), "the define in a comment is taken for one: b ends there"
    assert found["c"].lines == ("c",)


def test_tiltfile_builds_need_matching_quotes_and_skip_commented_lines() -> None:
    """What the backreferences said (a string closes with its own quote) and what the
    comment test read (the text before the call, from its line's start), as scans."""
    tiltfile = (
        "# docker_build('x', '.')\n"
        "  # docker_build('y', '.')\n"
        "docker_build('a', 'ctx', dockerfile='D.f'); docker_build(\"b\", \"c2\")\n"
        "   docker_build(ref='c', context='.')\n"
        "docker_build('d\", '.')\n"
    )
    builds = tiltfile_builds("svc/Tiltfile", tiltfile)
    assert [(b.image, b.context, b.dockerfile, b.said.line) for b in builds] == [
        ("a", "svc/ctx", "svc/D.f", 3),  # Tilt takes dockerfile= from the Tiltfile's folder
        ("b", "svc/c2", None, 3),
        ("c", "svc", None, 4),
    ]


def test_tiltfile_builds_read_past_comments_between_arguments() -> None:
    """A comment after an argument, to its line's end (`'shop/web',  # the front`), is
    space between arguments; a `#` inside a string is not one."""
    tiltfile = (
        "docker_build(  # the front\n"
        "    'shop/web',  # its image\n"
        "    context='web',\n"
        "    dockerfile='web/Dockerfile',\n"
        ")\n"
        "docker_build('shop/a#b', 'a')\n"
    )
    builds = tiltfile_builds("Tiltfile", tiltfile)
    assert [(b.image, b.context, b.said.line) for b in builds] == [
        ("shop/web", "web", 1),
        ("shop/a#b", "a", 6),
    ]


# -- inputs that stalled a reader -----------------------------------------------------------

STALLS = {
    # `(?:\\.|[^=:\s])+` took 2^n ways through n backslashes: 40 took 47 s, 44 never ended
    "properties-key-of-backslashes": (
        "src/main/resources/application.properties",
        "spring",
        "b'\\\\' * 44 + b'\\n'",
    ),
    # each `import (` scanned to the end for its `)`: quadratic
    "go-import-without-closer": ("main.go", "go", "b'package main\\n' + b'import (\\n' * 40_000"),
    # `jib {.*? to {.*? image` with neither: cubic
    "gradle-jib-without-image": ("build.gradle", "build", "b'jib { to { ' * 1_000"),
    "maven-jib-without-image": (
        "pom.xml",
        "build",
        "b'<artifactId>jib-maven-plugin</artifactId><to>' * 8_000",
    ),
    # Spring Boot's buildpacks image, the same shapes with neither
    "gradle-buildpacks-without-name": ("build.gradle", "build", "b'bootBuildImage { ' * 1_000"),
    "maven-buildpacks-without-name": (
        "pom.xml",
        "build",
        "b'<artifactId>spring-boot-maven-plugin</artifactId><image>' * 8_000",
    ),
    # a Makefile recipe continued over thousands of lines, and thousands of recipes
    "makefile-docker-build-continued": (
        "Makefile",
        "build",
        "b'\\tdocker build -t a \\\\\\n' * 40_000",
    ),
    "makefile-many-docker-builds": ("Makefile", "build", "b'\\tdocker build -t a/b c\\n' * 40_000"),
    # each `docker_build(` scanned to the end for its `)`: quadratic
    "tiltfile-docker-build-without-closer": (
        "Tiltfile",
        "build",
        "b\"docker_build('a', 'b'\" * 30_000",
    ),
    # thousands of complete calls: each one's line was counted from the file's start
    "tiltfile-many-docker-builds": ("Tiltfile", "build", "b\"docker_build('a', 'b')\\n\" * 40_000"),
    "tiltfile-many-docker-builds-on-one-line": (
        "Tiltfile",
        "build",
        "b\"docker_build('a', 'b'); \" * 40_000",
    ),
    # each `export {` scanned to the end for its `}`: quadratic
    "javascript-export-without-closer": ("index.js", "javascript", "b'export {' * 100_000"),
    # YAML build definitions read by ruamel's pure round-trip scanner: 6 s a MB (3 MB here)
    "cloudbuild-steps-by-the-thousand": (
        "cloudbuild.yaml",
        "build",
        "b'steps:\\n' + b'- {name: gcr.io/cloud-builders/docker, args: [build, x]}\\n' * 50_000",
    ),
    # a Makefile's variable doubled on each line: 2^200 characters if it were kept
    "makefile-variable-doubled": ("Makefile", "build", "b'A := x\\n' + b'A := $(A)$(A)\\n' * 200"),
    # a long value put in a word thousands of times; a build line of many tags; many lines
    "makefile-many-builds": (
        "Makefile",
        "build",
        "b'B := ' + b'b' * 4_000 + b'\\n\\tdocker build -t x' + b'$(B)' * 5_000 + b' .\\n' "
        "+ b'\\tdocker build -t $(B)/x -t y ' * 2_000 + b'.\\n' "
        "+ b'\\tdocker build -t x/y:$(B) .\\n' * 2_000",
    ),
    "script-docker-build-without-context": ("build.sh", "build", "b'docker build -t a ' * 50_000"),
    "script-many-tags-and-cds": (
        "build.sh",
        "build",
        "b'cd a\\ndocker tag a b' + b' c' * 50_000 + b'\\n' + b'docker tag a/b:1 c/d:2\\n' * 5_000",
    ),
    # each `from x import (` scanned to the end for its `)`: quadratic
    "python-from-import-without-closer": ("app.py", "python", "b'from x import (\\n' * 50_000"),
}


def _finishes(code: str) -> str:
    """Run `code` in a child; the old code took minutes on each input, the new well under
    a second: ten seconds of CPU tell them apart, however loaded the machine."""
    done = within_cpu([sys.executable, "-c", code], cpu_seconds=10)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("path, language, data", STALLS.values(), ids=STALLS.keys())
def test_an_input_that_stalled_a_reader_is_read_quickly(
    path: str, language: str, data: str
) -> None:
    out = _finishes(
        "from k8slb.run.parsing import parse_one, Unparsed\n"
        f"parsed = parse_one({path!r}, {language!r}, {data})\n"
        "assert not isinstance(parsed, Unparsed), parsed\n"
        "print(type(parsed).__name__)\n"
    )
    assert out.strip() in ("CodeFacts", "BuildFile")


def test_a_helm_template_line_of_a_word_many_spaces_and_a_word_is_placed_quickly() -> None:
    """A rendered line is placed on its template line by its key (chart_lines): `a`, two
    hundred thousand spaces and `b` made the key pattern try every split of the spaces.
    (It writes no key: it goes on the template's `kind:` line.)"""
    _finishes(
        "from k8slb.reading.chart_lines import TemplateLines\n"
        "line = 'a' + ' ' * 200_000 + 'b'\n"
        "lines = TemplateLines(['kind: A', line, line], ['kind: A', line])\n"
        "assert lines.line(2) == 1\n"
    )


def test_a_template_line_of_many_actions_is_matched_quickly() -> None:
    """Which of several template lines wrote a rendered line: each action stands for any
    text; thousands of them and a text that fits none took the joined pattern for ever."""
    _finishes(
        "from k8slb.reading.chart_lines import TemplateLines\n"
        "template = 'key: ' + 'a{{ .x }}' * 3_000 + 'b'\n"
        "rendered = 'key: ' + 'a' * 50_000\n"
        "lines = TemplateLines([template, template], [rendered])\n"
        "assert lines.template_lines == [1]\n"
    )


def test_a_helper_file_of_defines_never_closed_is_read_in_linear_time() -> None:
    """Each define looked for its `end` in all the lines after it (and kept them all as
    its body): 20,000 of them, with no `end`, took minutes and gigabytes."""
    _finishes(
        "from k8slb.reading.chart_lines import defines\n"
        "block = '{{{{ define \"d{}\" }}}}\\n{{{{ if .x }}}}\\n'\n"
        "helpers = ''.join(block.format(n) for n in range(20_000))\n"
        "found = defines({'_helpers.tpl': helpers})\n"
        "assert len(found) == 20_000 and found['d0'].lines == ('{{ if .x }}',)\n"
    )


def test_a_properties_file_of_continued_lines_is_read_in_linear_time() -> None:
    """200,000 lines continued with `\\`: one setting, joined once (it was copied again for
    each line: 40 s)."""
    _finishes(
        "from k8slb.languages.java.parse_spring import parse\n"
        "data = (b'a' * 20 + b'\\\\\\n') * 200_000\n"
        "facts = parse('src/main/resources/application.properties', data)\n"
        "assert facts.problem is None\n"
    )


@given(st.text(alphabet=st.sampled_from("aZ_09=-.$é "), max_size=6))
def test_an_env_name_is_told_without_re2_as_the_pattern_tells_it(word: str) -> None:
    """`_is_name` asks no RE2 (its binding copies the text each call, and an ENV line can
    hold thousands of names): the same answer as the pattern it stands for."""
    assert _is_name(word) == bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", word))


def test_a_scan_s_spans_are_the_same_by_the_binding_s_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """`spans` where RE2 cannot be asked directly (another version of the binding)."""
    pattern = regex.compile(rb"(a)|(b)")
    direct = [list(spans) for spans in pattern.spans(b"abxa")]
    monkeypatch.setattr(regex, "_DIRECT", False)
    assert [list(spans) for spans in pattern.spans(b"abxa")] == direct
    assert direct == [
        [(0, 1), (0, 1), (-1, -1)],
        [(1, 2), (-1, -1), (1, 2)],
        [(3, 4), (3, 4), (-1, -1)],
    ]


def test_a_constant_pattern_is_compiled_when_first_used() -> None:
    """A pattern a module's own body makes (a constant) waits to be compiled until it is
    used: a run that uses a dozen of k8slb's 250 constants (a pre-commit hook) no longer
    compiles them all as it imports them. It matches as one compiled at once."""
    body: dict[str, Any] = {"regex": regex}
    made = "PATTERN = regex.compile(rb'(?m)^builds:')\nOTHER = regex.compile(r'a(b)')"
    exec(compile(made, "<a module>", "exec"), body)
    waiting = body["PATTERN"]
    assert any(pattern is waiting for pattern in regex._WAITING)
    with pytest.raises(AttributeError):
        regex.Pattern._compiled.__get__(waiting)  # type: ignore[attr-defined]
    found = waiting.search(b"x\nbuilds:")
    assert found is not None and found.span() == (2, 9)
    assert regex.Pattern._compiled.__get__(waiting) is not None  # type: ignore[attr-defined]
    again = pickle.loads(pickle.dumps(body["OTHER"]))  # (a parse worker's) before its use
    found = again.search("xab")
    assert found is not None and found.span(1) == (2, 3)


def test_a_pattern_compiled_in_a_function_fails_where_it_is_compiled() -> None:
    """A caller that compiles a repository's text (a kustomization's patch target) catches
    `regex.error` where it compiles it: that pattern is compiled at once, as before."""
    with pytest.raises(regex.error):
        regex.compile(r"(unclosed")


def test_every_constant_pattern_of_k8slb_compiles() -> None:
    """Every module of k8slb imported (as the server does), each constant pattern they hold
    compiles: one that would not fails here, not at its first use in a user's run."""
    import importlib
    import pkgutil

    from k8slb.run.fingerprint import package_folders

    for prefix, folder in package_folders():
        for module in pkgutil.walk_packages([folder], prefix):
            importlib.import_module(module.name)
    regex.compile_waiting()
    assert regex._WAITING == []
