"""Stand-ins for the named templates of a subchart that is not vendored: a chart whose
templates `include "mongodb.fullname" .` (directly, or by name through a helper of its
own: `include "call-nested" (list . "mongodb" "mongodb.fullname")`) fails without the
mongodb subchart, and every object of the template is left unlinted, though most such
calls only write a name the object passes on (a host to dial, a Secret to read).

So a named template Helm did not find, whose name starts with the name (or alias) of a
dependency the chart declares and lacks (`mongodb.`), that no file of the chart defines,
is defined as a stand-in string (`stand_in_text`: `k8slb-stand-in-mongodb-fullname`), and
the chart rendered again, when every action of the chart's templates that names it only
writes its text where it stands (`may_stand_in`: `{{ include "NAME" . }}`, or its value
put in a variable, maybe quoted; not in a condition, a comparison, a default, nor
indented as a block, where the text the real subchart gives decides what is written). The
render is kept only when each rendered template that holds a stand-in holds it in a
value k8slb does not read an object's identity from (`misplaced`): not in a key, an
object's name or namespace, its labels or a selector (which pods a Service selects),
and the text still parses as YAML; else the chart is rendered without stand-ins, as
before. The chart's KLB003 of the missing subchart says which names were stood in for.

Bounded: MAX_STOOD names a chart, MAX_ACTION characters of an action read, the chart's
templates read once a name (each within the chart's own size limit)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from k8slb.core import regex

MAX_STOOD = 8  # named templates stood in for, in one chart
MAX_ACTION = 1000  # characters of one template action read
STAND_IN_MEMBER = "templates/_k8slb-stand-ins.tpl"  # the chart's file that defines them
STAND_IN_PREFIX = "k8slb-stand-in-"
_ACTION = regex.compile(r"\{\{-?((?s:.){0,1000}?)-?\}\}")  # MAX_ACTION
# an action that writes (or keeps in a variable) what one include or template gives
_OUTPUT = regex.compile(r'^\s*(?:\$\w+\s*:?=\s*)?(?:include|template)\s+"[^"\n]+"')
# words by which the text a name gives would decide what is written, or be laid out as a
# block (and with it the YAML around it)
_DECIDING = regex.compile(
    r"\b(?:if|else|with|range|and|or|not|eq|ne|lt|le|gt|ge|default|empty|ternary|"
    r"required|fail|coalesce|has|hasKey|hasPrefix|hasSuffix|contains|regexMatch|len|"
    r"indent|nindent|toYaml|toJson|fromYaml|fromJson|tpl|split|splitList|index)\b"
)
_UNSAFE_NAME = regex.compile(r"[^a-z0-9]+")


def stand_in_text(name: str) -> str:
    """What a stood-in named template writes: a DNS label naming it (`mongodb.fullname`:
    `k8slb-stand-in-mongodb-fullname`), valid where a name of Kubernetes is wanted."""
    label = _UNSAFE_NAME.sub("-", name.lower()).strip("-")
    return (STAND_IN_PREFIX + label)[:63].rstrip("-")


def lacking_prefix(name: str, lacking: Iterable[str]) -> bool:
    """Whether a named template's name is one a missing dependency would define: it
    starts with that dependency's name (or alias) and a dot, as charts name theirs."""
    return any(name.startswith(f"{dependency}.") for dependency in lacking)


def _is_template(member: str) -> bool:
    parts = member.split("/")
    return "templates" in parts[:-1]


def may_stand_in(name: str, members: Mapping[str, bytes]) -> bool:
    """Whether every action of the chart's templates that names `name` (quoted) writes
    the text it gives where it stands (_OUTPUT, and none of the _DECIDING words), and no
    file of the chart defines it."""
    quoted = f'"{name}"'
    wanted = quoted.encode()
    for member, data in members.items():
        if not _is_template(member) or wanted not in data:
            continue
        text = data.decode("utf-8", "replace")
        if f"define {quoted}" in text:
            return False
        actions = [found.group(1) for found in _ACTION.finditer(text)]
        named = [body for body in actions if quoted in body]
        if text.count(quoted) != sum(body.count(quoted) for body in named):
            return False  # a call longer than MAX_ACTION, or one not in an action
        for body in named:
            if _OUTPUT.search(body) is None or _DECIDING.search(body) is not None:
                return False
    return True


def with_stand_ins(members: Mapping[str, bytes], names: Iterable[str]) -> dict[str, bytes]:
    """The chart's files with a helper defining each name as its stand-in text (named
    templates are global: a subchart's call finds it in the chart's own templates/)."""
    defines = "".join(
        f'{{{{- define "{name}" -}}}}{stand_in_text(name)}{{{{- end -}}}}\n'
        for name in sorted(names)
    )
    return {**members, STAND_IN_MEMBER: defines.encode()}


_IDENTITY = frozenset({"labels", "matchLabels", "selector"})


def misplaced(texts: Iterable[str], names: Iterable[str]) -> bool:
    """Whether a rendered text holds a stand-in where k8slb reads an object's identity
    (a key, `metadata.name` or `.namespace`, labels, a selector), or holds one and does
    not parse as YAML: the stand-ins are then not kept."""
    tokens = [stand_in_text(name) for name in names]
    for text in texts:
        if not any(token in text for token in tokens):
            continue
        documents = _documents(text)
        if documents is None:
            return True
        budget = [_MAX_NODES]  # a rendered text's values walked, its aliases each time
        for document in documents:
            if _identity_holds(document, tokens, 0, (), budget):
                return True
    return False


def _documents(text: str) -> list[object] | None:
    """The YAML documents of a rendered text, as plain values; None when it does not
    parse."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return list(YAML(typ="safe", pure=True).load_all(text))
    except (YAMLError, ValueError, RecursionError):
        return None


_MAX_DEPTH = 64  # nesting of a rendered value walked; deeper counts as misplaced
# values of one rendered text walked (an alias walks its anchor's value again: 30 lists of
# two aliases of the one before are 2**30); more counts as misplaced
_MAX_NODES = 100_000


def _identity_holds(
    value: object, tokens: list[str], depth: int, path: tuple[str, ...], budget: list[int]
) -> bool:
    """Whether a stand-in is in a key, an object's name or namespace, or under a key of
    _IDENTITY, anywhere in the value; True past the budgets (not known)."""
    budget[0] -= 1
    if depth > _MAX_DEPTH or budget[0] < 0:
        return True
    if isinstance(value, dict):
        for key, item in value.items():
            if any(token in str(key) for token in tokens):
                return True
            if _identity_holds(item, tokens, depth + 1, (*path, str(key)), budget):
                return True
        return False
    if isinstance(value, list):
        return any(_identity_holds(item, tokens, depth + 1, path, budget) for item in value)
    if not isinstance(value, str) or not any(token in value for token in tokens):
        return False
    named = path in (("metadata", "name"), ("metadata", "namespace"))
    return named or any(key in _IDENTITY for key in path)
