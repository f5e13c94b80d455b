from k8slb.core.findings import Severity
from k8slb.rulekit.base import Example, ReadProblemRule


class InvalidCode(ReadProblemRule):
    """A file of code that does not parse.

    ## What it does
    Reports a file of code that k8slb wanted to analyse (Python, Go, JavaScript,
    TypeScript, Java or Kotlin that mentions gRPC, an HTTP or database client, or SIGTERM;
    Spring Boot settings that configure gRPC) but that does not parse, with the line where
    the parser gave up. The rest of the run goes on.

    Go, JavaScript, TypeScript, Java and Kotlin are read with tree-sitter's grammars, which
    are not those languages' compilers and lag them (TypeScript's `(number) => string` as
    a parameter's type, a bare `&` in a JSX attribute's string, `importOriginal<typeof
    import('x')>()`, Go 1.26's `new(expr)`). A syntax error one of them reports is told at
    `info`, the file left unread, unless the file shows that it is broken for any version
    of its language, which stays an error:
    - a bracket (`(`, `[`, `{`, a template's `${`) that pairs with none, counted on the
      grammar's tokens, so that one in a string, a comment or a regular expression is
      none (the message names its line); a call or a block left open is the common typo;
    - a merge's conflict markers (a line that opens with `<<<<<<< ` or `>>>>>>> `);
    - code nested more than 1,000 levels deep around the error.
    A broken file whose brackets pair up (`x = 1 +;`) is told at `info` too: the grammar
    cannot tell it from valid code newer than itself, and the language's compiler names
    it. Where k8slb knows why a file is refused, the `info` says so:
    - JavaScript whose opening comments say `@flow` (Flow-typed, its annotations stripped
      by Babel), when it does not parse as JavaScript;
    - a template with a code file's name: JavaScript or TypeScript whose line in error
      holds a template language's action (Hugo's or Go's `{{ if ... }}`, `{{ .Title }}`,
      `{{ site.Params.x }}`, Jinja's `{{ name }}`, `{% if %}`; not JSX's `style={{ ... }}`),
      or that holds a control action anywhere (`{{ if`, `{{ range`, `{{ end }}`, `{% for`);
      and Python that holds such a control action (a project template's `{% if %}`; not
      `{{ x }}`, which an f-string holds): a site generator or a renderer replaces them
      before the file is code (a docs site's `assets/js/search.js`), even where a bracket
      is left open;
    - minified JavaScript that does not parse: a file named as a minifier's or bundler's
      output (`*.min.js`, `*-min.js`, `*.bundle.js`), or whose line in error is over 500
      characters long in a file whose lines average over 110 characters (the measure of
      GitHub's linguist): what a build writes or a project vendors (a docs site's copy of
      a UI library), which Node and browsers parse and tree-sitter's grammar sometimes
      does not (a tagged template holding an escape that is none, valid since ES2018). It
      is not code written in the repository: eslint users list such files in their
      ignores, Biome leaves files over its size limit unread;
    - Go that uses `new` with an expression (`new(int64(5))`, Go 1.26): the file parses
      once each `new(` is read as a plain call.
    In Kotlin, where all the grammar lacks is the separator it wants between a class's
    members on one line, the file is read.

    Where the grammar's error is its own and the tree around it is whole, the file is read
    and nothing is reported: TypeScript's type arguments to a tagged template
    (`styled.label<{ shown: boolean }>` before a template with `${...}` in it, TypeScript
    2.9), before which tree-sitter's grammar adds a `!` the file lacks; an import type
    indexed among type arguments (`NonNullable<import("swr").Options["onError"]>`),
    which that grammar cannot index; type declarations
    alone (interfaces, type aliases), which no code runs; and, in JavaScript, a `;` the
    tree lacks before a line break.

    Files no program's source looks like are left unread too, told at `info`: code
    nested more than 1,000 levels deep (a Go file whose functions and blocks nest about 100
    deep, too), and a file tree-sitter takes more than 10 s of CPU to parse
    (`K8SLB_PARSE_SECONDS`). The first line nested too deep is named. See the README's
    Security section.

    ## Why it matters
    The rules on code cannot see inside the file, so a channel or server in it goes
    unchecked. Files that mention none of those are never parsed and never reported here.

    A file that the running Python cannot parse but libcst can (syntax newer than the
    interpreter k8slb runs on) is reported at `info` as not analysed. So is a file that
    neither parses and that holds, on the line where the parser gave up, a construct of
    Python 2 that Python 3 refuses (a `print` or `exec` statement, `except E, e`, `raise
    E, "message"`, a backquoted repr, `<>`, an old octal or long literal, a `ur` prefix):
    a program for Python 2 is valid for its interpreter, and k8slb does not read that
    version of the language, which the finding says.

    ## Fix
    Correct the syntax (k8slb reads the Python 3 grammar, up to 3.14), or exclude the file.

    ## Other linters
    Each language's compiler or linter (the Python compiler and ruff, `go vet`, `tsc`,
    `javac`) reports the same error in more detail.
    """

    id = "KLB004"
    name = "invalid-code"
    aliases = ("invalid-python",)  # its name while only Python was read
    severity = Severity.ERROR
    examples = (
        Example("import grpc\n\ndef serve(:\n    pass\n", language="python", at=(3, 11)),
        Example("import grpc\n\ndef serve():\n    pass\n", findings=0, language="python"),
        Example(
            'import grpc\n\ndef serve():\n    print "serving"\n',
            language="python",
            severity=Severity.INFO,
            title="a module written for Python 2",
            at=(4, 5),
        ),
    )
