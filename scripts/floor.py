"""The honest floor for `make bench`: the least k8slb's own choice of parsers must do on a
tree. Read every file; compose every YAML document with ruamel's C composer (positions
kept); `ast.parse` every Python file that holds a watched word (the same byte pre-check
`check` makes); tree-sitter-parse every Go file that imports a watched package, every
JavaScript or TypeScript module that names a watched library, and every Java file that
names io.grpc. Nothing is analysed and no rule runs.

../shared/bench/floor.py measures Python with libcst, which `check` does not use (it reads
Python with `ast`, libcst is the fixer's); the bench reports both floors.

Usage: python scripts/floor.py DIR
"""

from __future__ import annotations

import ast
import os
import sys
import warnings


def main() -> None:
    from k8slb.code.facts import worth_parsing
    from k8slb.languages.go.parse import parser
    from k8slb.languages.go.parse import worth_parsing as go_worth_parsing
    from k8slb.languages.java.parse import parser as java_parser
    from k8slb.languages.java.parse import worth_parsing as java_worth_parsing
    from k8slb.languages.javascript.parse import parser_for
    from k8slb.languages.javascript.parse import worth_parsing as js_worth_parsing
    from ruamel.yaml.cyaml import CSafeLoader

    warnings.simplefilter("ignore")
    root = sys.argv[1]
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                data = handle.read()
            if name.endswith((".yaml", ".yml")):
                loader = CSafeLoader(data)
                while loader.check_node():
                    loader.get_node()
            elif name.endswith(".py") and worth_parsing(data):
                ast.parse(data)
            elif name.endswith(".go") and go_worth_parsing(data):
                parser().parse(data)
            elif name.endswith((".js", ".mjs", ".cjs", ".ts", ".tsx")) and js_worth_parsing(data):
                parser_for(name)().parse(data)
            elif name.endswith(".java") and java_worth_parsing(data):
                java_parser().parse(data)


if __name__ == "__main__":
    main()
