"""How a parse travels: from a parsing process to the run, and into the cache and back.

A pickled Kubernetes object keeps its body as a pickle of its own, and a pickled module's
facts keep everything but what every run reads of every module (`HEADER`, and `_BESIDE`)
as one; each is loaded when first read, by the data-only unpickler (data_pickle.py). A
pre-commit run judges a few objects and modules among thousands: the index finds what it
needs of the others by what an object read when it was made (and its annotations, when
short, kept beside), and who dials a Service by
the targets a module keeps beside its header (and whether it makes a channel per call), or
by searching a body's pickle for a name.

The domain types (reading/objects.py, code/facts.py) are plain: what comes out of a pickle
is a `StoredObject` or `StoredFacts`, a subclass that loads its missing part on first
read. `dumps` pickles a parse so (its reducers are registered with copyreg as this module
is imported: a parsing process, forked from the run, has them too).
"""

from __future__ import annotations

import copyreg
import pickle
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from k8slb.code.facts import CodeFacts
from k8slb.core.findings import ObjectRef
from k8slb.reading.objects import KINDS, K8sObject, api_group
from k8slb.reading.yamltree import YMap
from k8slb.run.data_pickle import load_part

# The only characters outside ASCII whose lower case holds an ASCII letter (the Kelvin
# sign's is k; a dotted capital I's is i and a combining dot), as UTF-8.
_LOWER_TO_ASCII = ("\u212a".encode(), "\u0130".encode())

# What every run reads of every module: the projects, the import graph and a Go file's
# package clause (which folders are programs), the suppression comments, its problem,
# whether imported values wait to be resolved.
HEADER = (
    "path",
    "is_test",
    "language",
    "project",
    "imports",
    "package",
    "markers",
    "problem",
    "deferred",
    # who calls a Go file's functions (languages/go/parse_callers.py): test_only_code reads
    # them of every Go file
    "mentions",
    "spans",
    "callers_read",
)


class StoredObject(K8sObject):
    """An object from a pickle: its body the pickle it travelled as (`_blob`) until read."""

    if not TYPE_CHECKING:  # mypy: `body` is a field of K8sObject

        def __getattr__(self, name: str) -> Any:
            blob = self.__dict__.get("_blob") if name == "body" else None
            if blob is None:
                raise AttributeError(name)
            body = load_part(blob, YMap, self.path)  # ValueError, and the blob stays, if bad
            self.__dict__["body"] = body
            # the pickle is kept to be searched (may_mention): a run that loaded every
            # workload's body for its links still looks for a few names without reading them
            self.__dict__["_searched"] = self.__dict__.pop("_blob")
            return body

    def load(self) -> None:
        self.body  # noqa: B018  # __getattr__ loads it

    def may_mention(self, words: Collection[str]) -> bool:
        """A body not read yet is searched as its pickle, which holds each string as its
        UTF-8 bytes: a pre-commit run looks for a few names without loading thousands of
        bodies."""
        blob = self.__dict__.get("_blob") or self.__dict__.get("_searched")
        if blob is None or any(char in blob for char in _LOWER_TO_ASCII):
            return True
        lowered = blob.lower()  # ASCII letters only: the others' lower cases are not ASCII
        return any(word.encode() in lowered for word in words)


class StoredFacts(CodeFacts):
    """A module's facts from a pickle: beyond HEADER, the pickle they travelled as
    (`_rest`) until one is read, and the targets of its long-lived channels beside."""

    if not TYPE_CHECKING:  # mypy: every field is declared in CodeFacts

        def __getattr__(self, name: str) -> Any:
            rest = self.__dict__.get("_rest") if not name.startswith("__") else None
            if rest is None:
                raise AttributeError(name)
            fields = load_part(rest, dict, self.path)
            del self.__dict__["_rest"]
            self.__dict__.update(fields)
            return getattr(self, name)

    def load(self) -> None:
        self.channels  # noqa: B018  # __getattr__ loads every field

    def dialed_targets(self) -> tuple[Any, ...]:
        known: tuple[Any, ...] | None = self.__dict__.get("_targets")
        if known is None or self.deferred:  # imported values are resolved in new facts
            return super().dialed_targets()
        return known

    def link_digest(self) -> str:
        known: str | None = self.__dict__.get("_links")
        if known is None or self.deferred:  # (an imported port is resolved in new facts)
            return super().link_digest()
        return known

    def dials_per_call(self) -> bool:
        known: bool | None = self.__dict__.get("_per_call")
        if known is None or self.deferred:  # (resolving may find a channel closed per call)
            return super().dials_per_call()
        return known


def _reduce_object(obj: K8sObject) -> tuple[Any, ...]:
    blob = obj.__dict__.get("_blob")
    if blob is None:
        blob = pickle.dumps(obj.body, pickle.HIGHEST_PROTOCOL)
    header = (obj.path, obj.document, obj.item, obj.api_version, obj.kind)
    facts = (obj.name, obj.namespace, obj.labels, obj.ref, obj.template_labels)
    service = (obj.selector, obj.service_type, obj.headless, obj.scale_target)
    return (_object, (header, facts, service, blob, obj.damaged, _annotations_beside(obj)))


# An object's annotations travel beside its header when they are this short or shorter
# (what every Service says is asked where the L7 proxies in front of one are looked for:
# a pre-commit run on a module loaded every Service's body for it); longer ones (a
# `last-applied-configuration`, the whole object again) stay in the body.
ANNOTATIONS_BESIDE = 512


def _annotations_beside(obj: K8sObject) -> dict[str, Any] | None:
    """The object's annotations to keep beside its header, or None: read from its body."""
    known = obj.__dict__.get("_annotations")
    if known is None and "_blob" in obj.__dict__:
        return None  # a body not loaded: its annotations were too long to keep beside
    if known is None:
        known = obj.annotations
    if not isinstance(known, dict):
        return None
    size = sum(len(str(key)) + len(str(value)) for key, value in known.items())
    return known if size <= ANNOTATIONS_BESIDE else None


def _object(
    header: tuple[str, int, int | None, str, str],
    facts: tuple[str | None, str | None, dict[str, str], ObjectRef, dict[str, str] | None],
    service: tuple[dict[str, str], str, bool, tuple[str, Any] | None],
    blob: bytes,
    damaged: frozenset[str],
    annotations: dict[str, Any] | None,
) -> StoredObject:
    """An object as `_reduce_object` pickled it: its body left as bytes until read, its
    annotations beside when they were short."""
    obj: StoredObject = object.__new__(StoredObject)
    obj.path, obj.document, obj.item, obj.api_version, obj.kind = header
    obj.name, obj.namespace, obj.labels, obj.ref, obj.template_labels = facts
    obj.selector, obj.service_type, obj.headless, obj.scale_target = service
    obj.group = api_group(obj.api_version)
    obj.spec = KINDS.get((obj.group, obj.kind))
    obj._annotations, obj.damaged = annotations, damaged
    obj.__dict__["_blob"] = blob
    return obj


def _reduce_facts(facts: CodeFacts) -> tuple[Any, ...]:
    state = facts.__dict__
    rest = state.get("_rest")
    if rest is None:
        others = {k: v for k, v in state.items() if k not in HEADER and k not in _BESIDE}
        rest = pickle.dumps(others, pickle.HIGHEST_PROTOCOL)
    header = tuple(state[key] for key in HEADER)
    beside = (facts.dialed_targets(), facts.dials_per_call(), facts.link_digest())
    return (_facts, (header, rest, *beside))


# What a module's pickle keeps beside its header, of what its code says: the targets of
# its long-lived channels, whether it makes a channel per call, and the digest of what
# links read of it.
_BESIDE = ("_targets", "_per_call", "_links")


def _facts(
    header: tuple[Any, ...], rest: bytes, targets: tuple[Any, ...], per_call: bool, links: str
) -> StoredFacts:
    """Facts as `_reduce_facts` pickled them: the fields beyond HEADER left as bytes."""
    facts: StoredFacts = object.__new__(StoredFacts)
    facts.__dict__.update(zip(HEADER, header, strict=True))
    facts.__dict__["_rest"] = rest
    facts.__dict__["_targets"] = targets
    facts.__dict__["_per_call"] = per_call
    facts.__dict__["_links"] = links
    return facts


for _kind, _reducer in (
    (K8sObject, _reduce_object),
    (StoredObject, _reduce_object),
    (CodeFacts, _reduce_facts),
    (StoredFacts, _reduce_facts),
):
    copyreg.pickle(_kind, _reducer)  # type: ignore[arg-type]


def dumps(parsed: object) -> bytes:
    """A parse as a worker sends it back and the cache keeps it."""
    return pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
