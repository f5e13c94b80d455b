"""The Python code a program's entry point reaches by calls k8slb can follow: from the
function a console script names (or a module's own code and its `__main__` block, for a
module run as a program), each call of a function of the same module or of one a module
imports (languages/python/parse_calls.py), across the modules of the scanned tree, the
module's own code too once it is imported. A name imported from a package of another
project of the tree (a workspace's `acme_utils`, its own folder with `src/acme_utils/`)
is looked up in that project, as the installed package is the tree's: the one project
whose outermost package bears the name.

KLB406 asks it whether a SIGTERM handler, or a server that installs one, is reached: a
helper of a shared package that registers one for the program (`run_until_exit()`) is
the program's handler, and one of the same package that the program never calls is not
(a module imported for another function). Calls k8slb cannot follow (a method, a
function handed on as a value) reach nothing. A module the Python reader gives no syntax
tree (none of the words it looks for is in it: code/facts.py's WATCHED) is taken to call
each function it imports by name (MAX_MODULE_CALLS at most, as a parsed module keeps),
from each of its functions: all of them one step of the walk. MAX_REACHED functions are
followed at most."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Mapping
from itertools import islice

from k8slb.code.facts import CodeFacts
from k8slb.code.projects import module_files, package_roots
from k8slb.languages.python.parse_calls import MAX_MODULE_CALLS, MODULE

MAX_REACHED = 2000  # functions followed from one entry point


def _packages(modules: Mapping[str, CodeFacts]) -> dict[str, set[str]]:
    """The outermost packages (and top-level modules) of the Python projects of the tree,
    by name: `acme_utils` -> {"libs/acme_utils/src"}."""
    found: dict[str, set[str]] = {}
    for path, facts in modules.items():
        if facts.language != "python" or facts.is_test or not facts.project:
            continue
        project = os.path.normpath(facts.project)
        inside = os.path.relpath(path, project)
        head = inside.split(os.sep, 1)[0].removesuffix(".py")
        if head.isidentifier():
            found.setdefault(head, set()).add(project)
    return found


class _Reach:
    """One entry point's walk: the tree's packages by name, found when first needed."""

    def __init__(self, modules: Mapping[str, CodeFacts]) -> None:
        self.modules = modules
        self.packages: dict[str, set[str]] | None = None

    def projects(self, head: str) -> list[str]:
        """The one project of the tree whose outermost package is `head`, if one is."""
        if self.packages is None:
            self.packages = _packages(self.modules)
        found = self.packages.get(head, set())
        return sorted(found) if len(found) == 1 else []

    def step(self, path: str, function: str) -> tuple[str, str]:
        """A function of a module as the walk follows it: any function of a module the
        reader gave no syntax tree is its own code, as each calls the same (_imported)."""
        facts = self.modules.get(path)
        return (path, MODULE) if facts is not None and not facts.calls_read else (path, function)

    def target(self, importer: CodeFacts, call: str) -> tuple[str, str] | None:
        """The module (its path) and function a call of `importer` names (parse_calls'
        `module:name`, or a function of its own)."""
        path = os.path.normpath(importer.path)
        if ":" not in call:
            return path, call
        spec, name = call.split(":", 1)
        module = spec.lstrip(".")
        level = len(spec) - len(module)
        package = os.path.dirname(path)
        roots = [package, os.path.normpath(importer.project or package)]
        if not level:
            head = module.split(".", 1)[0]
            roots += [*package_roots(head, package), *self.projects(head)]
        for found in module_files(level, module, package, roots):
            if found in self.modules and found != path:
                return found, name
        return None


def _imported(facts: CodeFacts) -> tuple[str, ...]:
    """The calls of a module the reader gave no syntax tree (none of the words it looks
    for is in it): each name it imports from a module (`from a.b import c`: `a.b:c`), as
    a module imports a function to call it; one it imports whole calls nothing."""
    calls = (
        f"{'.' * level}{module}:{name}"
        for level, dotted in facts.imports
        if "." in dotted or level
        for module, _, name in [dotted.rpartition(".")]
    )
    return tuple(islice(calls, MAX_MODULE_CALLS))


def reached_signal(
    modules: Mapping[str, CodeFacts], entry: str, functions: Iterable[str]
) -> str | None:
    """Where (`path: function`) the code the entry module's `functions` reach registers a
    SIGTERM handler or runs a server that installs one; None when none is reached."""
    reach = _Reach(modules)
    start = os.path.normpath(entry)
    queue = deque(dict.fromkeys(reach.step(start, function) for function in functions))
    seen = set(queue)
    while queue and len(seen) <= MAX_REACHED:
        path, function = queue.popleft()
        facts = modules.get(path)
        if facts is None:
            continue
        if function in facts.signal_functions:
            return f"{path}: {function or 'its own code'}"
        calls = facts.function_calls.get(function, ()) if facts.calls_read else _imported(facts)
        ahead = [(path, MODULE)] if path != start else []  # imported: its own code ran
        for call in calls:
            target = reach.target(facts, call)
            if target is not None:
                ahead += [reach.step(*target), (target[0], MODULE)]
        for step in ahead:
            if step not in seen:
                seen.add(step)
                queue.append(step)
    return None
