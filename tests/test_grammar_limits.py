"""KLB004 for the languages k8slb reads with tree-sitter: a grammar that is not the
language's compiler and lags it. A syntax error it reports is k8slb's limit, told at info
as a file left unread, unless the file itself shows it is broken for any version of its
language: a bracket that pairs with none, a merge's conflict markers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from k8slb.code.facts import CodeFacts
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go
from k8slb.languages.java.parse import parse as parse_java
from k8slb.languages.javascript.parse import parse, parse_typescript
from k8slb.languages.kotlin.parse import parse as parse_kotlin

# A React component that links to a page, written as TypeScript allows and tree-sitter's
# TypeScript grammar (0.23.2, the newest) refuses: a bare `&` in an attribute's string.
JSX_LINK = """\
import * as grpc from '@grpc/grpc-js';

export function Notice({ href }: { href: string }) {
  return (
    <a
      className='notice'
      // the form, filled in
      href='https://example.com/new?kind=bug&labels=ui'
    >
      Tell us
    </a>
  );
}
"""

# A function type whose parameter is named as a built-in type (`(number) => string`: a
# parameter `number` of type any), valid TypeScript the grammar refuses.
FUNCTION_TYPE = """\
import * as grpc from '@grpc/grpc-js';

export const label = (value: number, format: (number) => string): string => format(value);

export function formatter(kind: string): (any) => string {
  return (v) => `${kind}:${v}`;
}
"""

# vitest's partial mock: an import type as a type argument to a call.
IMPORT_TYPE_ARGUMENT = """\
import * as grpc from '@grpc/grpc-js';
import { vi } from 'vitest';

vi.mock('@/api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@/api/client')>();
  return { ...actual, fetchAll: vi.fn() };
});
"""


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("src/notice.tsx", JSX_LINK, 8),
        ("src/format.ts", FUNCTION_TYPE, 3),
        ("src/__tests__/api.test.tsx", IMPORT_TYPE_ARGUMENT, 5),
    ],
    ids=["jsx-ampersand", "function-type", "import-type-argument"],
)
def test_valid_typescript_the_grammar_refuses_is_unread_at_info(
    name: str, text: str, line: int
) -> None:
    problem = parse_typescript(name, text.encode()).problem
    assert problem is not None
    assert (problem.rule, problem.severity, problem.line) == ("KLB004", Severity.INFO, line)
    assert problem.message.startswith("not analysed: tree-sitter's TypeScript grammar")


@pytest.mark.parametrize(
    ("name", "text", "broken", "line"),
    [
        # a call left open
        ("src/format.ts", FUNCTION_TYPE, ("format(value);", "format(value;"), 3),
        # an element's attribute braces left open
        ("src/notice.tsx", JSX_LINK, ("{ href }: {", "{ href: {"), 3),
        # a closer too many
        ("src/format.ts", FUNCTION_TYPE, ("`${kind}:${v}`;", "`${kind}:${v}`);"), 6),
    ],
    ids=["open-call", "open-brace", "closer-too-many"],
)
def test_a_bracket_that_pairs_with_none_keeps_the_error(
    name: str, text: str, broken: tuple[str, str], line: int
) -> None:
    problem = parse_typescript(name, text.replace(*broken).encode()).problem
    assert problem is not None and (problem.rule, problem.severity) == ("KLB004", None)
    assert problem.message.startswith("not valid TypeScript")
    assert f"at line {line} pairs with none" in problem.message


def test_brackets_in_strings_comments_and_patterns_are_no_tokens() -> None:
    """Counted on the grammar's tokens: a `(` in a string, a template's text, a comment or
    a regular expression opens nothing."""
    text = FUNCTION_TYPE + (
        "// a smile :(\nexport const open = '(' + `[${'{'}` + String(/[(]/.source);\n"
    )
    problem = parse_typescript("src/format.ts", text.encode()).problem
    assert problem is not None and problem.severity is Severity.INFO


def test_merge_conflict_markers_keep_the_error() -> None:
    text = JSX_LINK.replace(
        "      Tell us\n", "<<<<<<< HEAD\n      Tell us\n=======\n      Write to us\n>>>>>>> main\n"
    )
    problem = parse_typescript("src/notice.tsx", text.encode()).problem
    assert problem is not None and problem.severity is None
    assert "conflict markers" in problem.message


GO = """\
package main

import "google.golang.org/grpc"

func main() {
\tserver := grpc.NewServer()
\tgo func() { _ = server }()
\tfor i := range 3 {
\t\tprintln(i)
\t}
\tvar x = 1 +
}
"""

JAVA = """\
import io.grpc.ServerBuilder;

class Main {
    public static void main(String[] args) throws Exception {
        var server = ServerBuilder.forPort(8080).build().start();
        int x = 1 +;
        server.awaitTermination();
    }
}
"""

KOTLIN = """\
import io.grpc.ServerBuilder

fun main() {
    val server = ServerBuilder.forPort(8080).build().start()
    server.awaitTermination()
    val port =
}
"""


def _go(path: str, data: bytes) -> CodeFacts:
    return analyse_go(path, data)


@pytest.mark.parametrize(
    ("parse_file", "name", "text", "opened", "language"),
    [
        (_go, "cmd/main.go", GO, ("for i := range 3 {", "for i := range 3 {{"), "Go"),
        (parse_java, "src/main/java/Main.java", JAVA, ("start();", "start(;"), "Java"),
        (parse_kotlin, "src/main/kotlin/Main.kt", KOTLIN, ("start()", "start("), "Kotlin"),
        (
            parse,
            "src/server.js",
            JSX_LINK.replace(": { href: string }", ""),
            ("(\n", "((\n"),
            "JavaScript",
        ),
    ],
    ids=["go", "java", "kotlin", "javascript"],
)
def test_one_rule_for_every_tree_sitter_language(
    parse_file: Callable[[str, bytes], CodeFacts],
    name: str,
    text: str,
    opened: tuple[str, str],
    language: str,
) -> None:
    """A syntax error in a file whose brackets pair up: unread, at info, in each language;
    the same file with a bracket left open: an error."""
    refused = parse_file(name, text.encode()).problem
    assert refused is not None and refused.severity is Severity.INFO
    assert refused.message.startswith(f"not analysed: tree-sitter's {language} grammar")
    broken = parse_file(name, text.replace(*opened, 1).encode()).problem
    assert broken is not None and (broken.rule, broken.severity) == ("KLB004", None)
    assert "pairs with none" in broken.message
