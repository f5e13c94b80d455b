"""The languages k8slb reads code in: a package each (`languages/python/`,
`languages/go/`, `languages/javascript/`, `languages/java/`, `languages/kotlin/`) and
one line each in `LANGUAGES`, which every stage consults: finding the files (suffixes),
parsing them (`parse`), the rules' words and edits (`dialect`), the fixer (`edit`) and
`--add-noqa` (`comment`).

A language package's modules are named for what they do: `parse*` read source into the
facts of code/facts.py, `dialect*` say how a finding names things in the language and
build the edits that fix it, `edit*` make those edits on the file's text; ARCHITECTURE.md's
layer table gives each prefix its layer (tests/test_layers.py reads it from there). This
table names them by their dotted paths, so that each stage loads only its own layer's
part, and only for a language among its files (the test holds each path to its stage's
layer).
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from typing import Any

from k8slb.core import regex
from k8slb.core.record import record


@record
class Language:
    name: str
    suffixes: tuple[str, ...]  # lower case, with the dot
    comment: str  # what opens a comment to the end of the line: where `--add-noqa` writes
    comment_gap: str  # what the language's formatter writes between code and a comment
    example_file: str  # the name a rule example's code is written under
    parse: str  # "module:function": (path, bytes) -> CodeFacts
    dialect: str  # "module:object": its rulekit.dialect.Dialect
    # a module with `edit(text, edits, path) -> text` (raising core.edits.Refused) and
    # `same_code(old, new, path) -> bool` (whether only comments changed: `--add-noqa`)
    editor: str
    warm: str = ""  # "module:function" that `k8slb server` calls once, to have it ready
    # the files that make their folder a program (`package.json`): its modules are one
    # project, whose SIGTERM handler counts for all (code/projects.py)
    project_files: tuple[str, ...] = ()
    # files of the language that no suffix tells (Spring's `application.yml`): a search
    # in the path, written with `/`
    pattern: str = ""
    # "module:function" called once a run with every module, their projects known: what
    # a module's facts owe to others (a Spring profile's settings) is settled there,
    # and with what the Java builds say (java_builds.GrpcJavaBuild, by folder)
    settle: str = ""
    # what the command line calls it, where it says which files it reads (cli.READ)
    title: str = ""


LANGUAGES: dict[str, Language] = {
    language.name: language
    for language in (
        Language(
            "python",
            (".py",),
            "#",
            "  ",  # ruff's and black's
            "app.py",
            "k8slb.languages.python.parse:parse",
            "k8slb.languages.python.dialect:DIALECT",
            "k8slb.languages.python.edit",
            title="Python",
        ),
        Language(
            "go",
            (".go",),
            "//",
            " ",  # gofmt's
            "main.go",
            "k8slb.languages.go.parse:analyse_go",
            "k8slb.languages.go.dialect:DIALECT",
            "k8slb.languages.go.edit",
            "k8slb.languages.go.parse:parser",  # tree-sitter's grammar, built once
            title="Go",
        ),
        Language(
            "javascript",
            (".js", ".mjs", ".cjs"),
            "//",
            "  ",  # prettier's and eslint's
            "server.js",
            "k8slb.languages.javascript.parse:parse",
            "k8slb.languages.javascript.dialect:DIALECT",
            "k8slb.languages.javascript.edit",
            "k8slb.languages.javascript.parse:parser",
            ("package.json",),
            title="JavaScript",
        ),
        Language(
            "typescript",
            (".ts", ".tsx"),
            "//",
            "  ",
            "server.ts",
            "k8slb.languages.javascript.parse:parse_typescript",
            "k8slb.languages.javascript.dialect:DIALECT",  # grpc-js's words, as JavaScript's
            "k8slb.languages.javascript.edit",
            "k8slb.languages.javascript.parse:typescript_parser",
            ("package.json",),
            title="TypeScript",
        ),
        Language(
            "java",
            (".java",),
            "//",
            " ",  # google-java-format's
            "Main.java",
            "k8slb.languages.java.parse:parse",
            "k8slb.languages.java.dialect:DIALECT",
            "k8slb.languages.java.edit",
            "k8slb.languages.java.parse:parser",
            title="Java",
        ),
        Language(
            "kotlin",
            (".kt",),  # not `.kts`: Gradle's build scripts, read as builds (java_builds)
            "//",
            " ",  # ktlint's
            "Main.kt",
            "k8slb.languages.kotlin.parse:parse",
            "k8slb.languages.kotlin.dialect:DIALECT",
            "k8slb.languages.kotlin.edit",
            "k8slb.languages.kotlin.parse:parser",
            title="Kotlin",
        ),
        Language(
            "spring",
            (),
            "#",
            "  ",
            "src/main/resources/application.properties",
            "k8slb.languages.java.parse_quarkus:parse",  # Spring's settings, and Quarkus's
            "k8slb.languages.java.dialect_spring:DIALECT",
            "k8slb.languages.java.edit_spring",
            settle="k8slb.languages.java.parse_quarkus:settle",
            pattern=(
                r"(?:^|/)src/main/resources/(?:config/)?(?:application|bootstrap)"
                r"(?:-[^/]+)?\.(?:properties|ya?ml)$"
            ),
            title="Spring Boot settings",
        ),
    )
}


def language_of(path: str) -> Language | None:
    """The language of a file, by its name's suffix, or by where it is (its pattern)."""
    lowered = path.lower()
    for language in LANGUAGES.values():
        if lowered.endswith(language.suffixes):
            return language
    posix = path.replace(os.sep, "/")
    return next((lang for lang in PATTERNED if _compiled(lang.pattern).search(posix)), None)


@cache
def _compiled(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern)


# The languages of the JVM whose modules Maven and Gradle lay out (`src/main/java`,
# `src/main/kotlin`), read for grpc-java and the Spring Boot starters alike.
JVM = ("java", "kotlin")

PATTERNED = tuple(language for language in LANGUAGES.values() if language.pattern)


@cache  # asked for each file parsed, fixed or commented
def load(dotted: str) -> Any:
    """What a `module:attribute` path of the table names, or the module of a path without
    an attribute (imported now)."""
    module, _, attribute = dotted.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded
