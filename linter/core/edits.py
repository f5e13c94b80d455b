"""A fix as data: which file, which node, what change. Rules make these; the fixer applies
them (YAML by splicing text at the composer's positions, Python through libcst, Go and
Java by splicing at tree-sitter's positions)."""

from __future__ import annotations

from typing import Any, Literal

from k8slb.core.record import record

Step = str | int
# What each kind of edit can do (the editors: editing/yaml_edit.py, languages/*/edit.py).
# A YAML operation is made by its entry in editing/yaml_edit.py's OPERATIONS.
YamlOp = Literal["add-prestop", "set-grace", "add-twin", "liveness-tcp", "set-scalar", "set-key"]


@record
class YamlEdit:
    """An operation on the node at `target` (a path of keys and indexes from the root of
    the object) of document `document` of a YAML file."""

    path: str
    document: int
    target: tuple[Step, ...]
    op: YamlOp
    value: Any = None


@record
class CodeEdit:
    """An operation on the node of source code that starts at (line, column): the file's
    language (languages/) makes it, with its own kind of edit, a subclass."""

    path: str
    line: int
    column: int
    op: str


@record
class PythonEdit(CodeEdit):
    """add-options | add-sigterm-handler | set-argument | set-pair-value, with its value."""

    value: Any = None


@record
class GoEdit(CodeEdit):
    """An operation on the Go node that starts at (line, column): `add-argument` (code as
    the call's last argument), `add-fields` (lines of `Key: value` into a struct literal),
    `insert-statements` (lines before the statement that holds the call), `graceful-stop`
    (the statement that is the call, replaced by lines). `code` names packages as
    placeholders, `{grpc}`, each bound by `packages` to its import path."""

    code: str
    packages: tuple[tuple[str, str], ...] = ()


@record
class JavaEdit(CodeEdit):
    """An operation on the Java call that starts at (line, column) and calls `method`:
    `chain-after` (`code`, calls like `.maxConnectionAge(5, TimeUnit.MINUTES)`, chained
    right after that call), `insert-statements` (`code`, lines, before the statement that
    holds the call, at its indentation), `graceful-stop` (a `shutdownNow()` made a
    `shutdown()`, bounded by `code`'s lines where it is a statement of its own). `imports`:
    the classes the new code names, imported when the file does not yet."""

    method: str
    code: str
    imports: tuple[str, ...] = ()


@record
class JsEdit(CodeEdit):
    """An operation on the JavaScript (or TypeScript) node that starts at (line, column):
    `add-properties` (lines of `'key': value` into an object literal), `add-argument`
    (code as the last argument of a `new` or a call), `insert-statements` (lines before
    the statement that holds the call), `replace-statement` (the statement that holds the
    call, by lines). `code` is written with two-space indentation, re-indented as the file
    indents."""

    code: str


@record
class ChartEdit:
    """A fix made in a Helm chart's template: `member` (a file inside the chart whose folder
    is `path`) goes from `old` to `new`. It is made only if the chart, rendered with `new`,
    gives `expected` for that template (Helm's name `rendered`) and the same as before for
    every other: the fix as it was planned on the rendered text, and nothing else."""

    path: str
    member: str
    old: str
    new: str
    rendered: str
    expected: str
    options: Any  # the HelmOptions the chart was rendered with
    op: str = "template"


@record
class LineEdit:
    """A line of a file that is neither YAML nor code (a Dockerfile's instruction): the
    line numbered `line`, whose text is `old` (leading and trailing blanks aside),
    becomes `new`, its indentation and line ending kept."""

    path: str
    line: int
    old: str
    new: str
    op: str = "replace-line"


Edit = YamlEdit | CodeEdit | ChartEdit | LineEdit


class Refused(Exception):
    """This edit cannot be made faithfully; the message says why. Every editor raises it
    (editing/, each language's edit.py), and the fixer keeps it as a Refusal."""


class Refusal(str):
    """Why an edit was not made, and which edit (None: every edit of the file), so that the
    fixer can name the rule whose fix it was, and not count that fix as made."""

    edit: Edit | None

    def __new__(cls, reason: str, edit: Edit | None = None) -> Refusal:
        made = super().__new__(cls, reason)
        made.edit = edit
        return made

    def __reduce__(self) -> tuple[Any, ...]:  # to and from the processes that make edits
        return (Refusal, (str(self), self.edit))


PROBE_HANDLERS = ("httpGet", "tcpSocket", "exec", "grpc")


def prestop_hook(value: tuple[str, int]) -> dict[str, Any]:
    """The `preStop` an add-prestop edit writes: (style, seconds) -> the hook's data."""
    style, seconds = value
    if style == "sleep":
        return {"sleep": {"seconds": seconds}}
    return {"exec": {"command": ["sleep", str(seconds)]}}


@record
class FixValues:
    """The values fixes write. Documented defaults; configuration can change them."""

    prestop_seconds: int = 5
    # What a server needs to drain after SIGTERM; the grace period covers it plus the
    # preStop pause (5 + 25 = 30 s, Kubernetes' default terminationGracePeriodSeconds).
    stop_grace_seconds: int = 25
    max_connection_age_ms: int = 300_000
    max_connection_age_grace_ms: int = 30_000


ROUND_ROBIN_CONFIG = '{"loadBalancingConfig": [{"round_robin": {}}]}'
