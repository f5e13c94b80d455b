"""Services over unlike pods: one Service whose pods run different programs.

A Service balances each connection to any of its endpoints as if they were
interchangeable. When the pods it selects run different programs in the containers it
sends a port's traffic to (images of different names: a canary of the same image at
another tag is the same program, and so is a mirror of it on another registry), no
client can send one app's requests through that port, since a request could land on any
of them: the port only carries what they all serve alike, an admin, operations or
metrics endpoint. The rules that take "a Service selects this pod" as evidence of client
traffic ask here, so that such a Service alone does not make a warning.

Where an image is unknown (templated, missing), nothing is said: the programs may be one.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from k8slb.core.record import record
from k8slb.model.index import Index, Target
from k8slb.model.objects import (
    Container,
    PodTemplate,
    namespace_key,
    service_ports,
    target_port,
)
from k8slb.reading.build_files import image_tag, literal_image
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap

# How many workloads of one Service are compared: a Service over more is judged by these
# (its first ones in the index's order), as a budget on what is built from input
MAX_COMPARED = 500


@record
class Unlike:
    """A Service whose pods run different programs on every port it sends to a
    container: how many (different image repositories), and two of them, for the
    message."""

    service: K8sObject
    programs: int
    examples: tuple[str, str]

    @property
    def said(self) -> str:
        """Why its traffic is not the app's clients', for a finding's message."""
        first, second = self.examples
        return (
            f"Service {self.service.name} spans {self.programs} different programs ({first}, "
            f"{second}, ...) and balances each connection to any of its pods, so it carries "
            "only a port they share, such as admin or metrics, not this app's clients"
        )


# per Index: id(service) -> (the ports that span programs, by id; how many; two of them)
_SPANS: weakref.WeakKeyDictionary[Index, dict[int, tuple[frozenset[int], int, tuple[str, ...]]]]
_SPANS = weakref.WeakKeyDictionary()


def unlike_pods(
    index: Index, service: K8sObject, workload: K8sObject, container: Container
) -> Unlike | None:
    """The Service as one over unlike pods, when every port through which it sends
    traffic to this container of the workload reaches different programs across the pods
    it selects; else None (it may carry the app's clients)."""
    spans, programs, examples = _spans(index, service)
    if not spans:
        return None
    # the workload's own targets (Index.serving: made once a workload), not the Service's,
    # which over many workloads would cost their number for each container asked
    served = index.serving(workload).get(container.name, [])
    reaching = [t for t in served if t.service is service]
    if not reaching or any(id(t.service_port) not in spans for t in reaching):
        return None
    return Unlike(service, programs, (examples[0], examples[1]))


def client_services(
    index: Index, workload: K8sObject, container: Container, services: Sequence[K8sObject]
) -> tuple[list[K8sObject], Unlike | None]:
    """The Services serving the container that may carry its app's clients, those over
    unlike pods left out; when none is left, all of them, with why the first carries no
    client of this app (a finding that rests on them is then an info)."""
    clients: list[K8sObject] = []
    unlike: Unlike | None = None
    for service in services:
        found = unlike_pods(index, service, workload, container)
        if found is None:
            clients.append(service)
        elif unlike is None:
            unlike = found
    return (clients, None) if clients else (list(services), unlike)


def only_unlike(index: Index, workload: K8sObject, container: Container) -> Unlike | None:
    """Why the container serves no app's clients, when every Service it serves
    (Index.serving) is one over unlike pods; else None (it serves none, or one that may
    carry its clients)."""
    targets = index.serving(workload).get(container.name, [])
    services = list({id(t.service): t.service for t in targets}.values())
    return client_services(index, workload, container, services)[1] if services else None


def _spans(index: Index, service: K8sObject) -> tuple[frozenset[int], int, tuple[str, ...]]:
    """The Service's ports (ids of its `spec.ports` entries) whose pods run different
    programs, with how many programs all of them reach, and two of those: worked out once
    a Service in a run."""
    table = _SPANS.get(index)
    if table is None:
        table = _SPANS[index] = {}
    found = table.get(id(service))
    if found is None:
        found = table[id(service)] = _work_out(index, service)
    return found


def _work_out(index: Index, service: K8sObject) -> tuple[frozenset[int], int, tuple[str, ...]]:
    selected = index.selected(service)[:MAX_COMPARED]
    if len(selected) < 2:
        return frozenset(), 0, ()
    spanning: set[int] = set()
    seen: set[str] = set()
    for port in service_ports(service):
        programs = _port_programs(port, selected, index.port_targets(service, port))
        if programs is None:
            return frozenset(), 0, ()  # an image unknown: the pods may run one program
        if programs and not set.intersection(*programs):
            spanning.add(id(port))
            seen.update(*programs)
    if not spanning:
        return frozenset(), 0, ()
    return frozenset(spanning), len(seen), tuple(sorted(seen)[:2])


def _port_programs(
    port: YMap, selected: list[tuple[K8sObject, PodTemplate]], targets: list[Target]
) -> list[set[str]] | None:
    """For each selected workload the port reaches, the programs of the containers it
    reaches there (the one that declares the port, or, for a number no container
    declares, the pod's main container: its first app container). Copies of one workload
    (the same kind, namespace and name, in variant folders a plain tree holds) are one
    app: no cluster runs both, so their programs are pooled. None when one of those
    images is not literal (templated, missing)."""
    by_workload: dict[int, list[Container]] = {}
    for target in targets:
        by_workload.setdefault(id(target.workload), []).append(target.container)
    found: dict[tuple[str, str, str], set[str]] = {}
    for workload, template in selected:
        containers = by_workload.get(id(workload))
        if containers is None:
            own = template.own_containers
            if not isinstance(target_port(port), int) or not own:
                continue  # a named port the pod does not declare: none of its traffic
            containers = own[:1]
        images = {_program(c.body.get("image"), (workload.name or "", c.name)) for c in containers}
        if None in images:
            return None
        app = (workload.kind, namespace_key(workload.namespace), workload.name or "")
        found.setdefault(app, set()).update(i for i in images if i is not None)
    return list(found.values()) if len(found) >= 2 else []


def _program(image: object, names: tuple[str, ...]) -> str | None:
    """The program an image runs: its name, the repository's last segment without tag or
    digest (`registry.example:5000/shop/web` is `web`: a mirror of it, or the image a
    build tool pushes for a bare `web`, is the same program, and so is a fork published
    under the same name); None when it is not literal (templated, missing).

    One repository may hold several programs, a tag each (`acme/demo:demo-order_0.2`,
    `acme/demo:demo-user_0.2`): where the tag names words of its own workload's or
    container's name (`names`), `order` in `shop-order`, the program is those words too.
    Words with a digit (versions: `v2`, `0`, `java17`) and words of a release channel
    (`canary`, `stable`...) say which build, not which program, and are left out: a
    canary at another tag is the same program."""
    repository = literal_image(image)
    if repository is None or not isinstance(image, str):
        return None
    repository = repository.rpartition("/")[2]
    tag = image_tag(image) or ""
    own = {word for name in names for word in _words(name)}
    named = [
        word
        for word in _words(tag)
        if word in own and word not in _CHANNELS and not any(c.isdigit() for c in word)
    ]
    return f"{repository} ({'-'.join(named)})" if named else repository


# Words of a tag that say which build or release channel an image is, not which program
_CHANNELS = frozenset(
    {
        "latest", "stable", "canary", "gray", "grey", "blue", "green", "beta", "alpha",
        "preview", "edge", "nightly", "next", "main", "master", "primary", "baseline",
        "release", "snapshot", "dev", "debug",
    }
)  # fmt: skip


def _words(name: str) -> list[str]:
    """A name's words (split at `-`, `_` and `.`), lower case; at most 256 characters of it
    are read (a tag is at most 128, a Kubernetes name at most 253)."""
    return [w for w in name[:256].lower().replace("_", "-").replace(".", "-").split("-") if w]
