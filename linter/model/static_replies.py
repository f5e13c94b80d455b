"""Health paths a proxy answers by itself: an nginx `location` that only `return`s a 2xx,
read from the configuration the pod mounts from a ConfigMap.

Such a check fails only when nginx itself cannot answer, so readiness and liveness sharing
it fail together only when the process is stuck (KLB301 reports the pair at info). Gateways
in front of distributed systems (Loki's, Cortex's) probe exactly such a path.
"""

from __future__ import annotations

from collections.abc import Iterator

from k8slb.core import regex
from k8slb.model.index import Index
from k8slb.model.objects import Container, PodTemplate
from k8slb.reading.build_files import image_repository
from k8slb.reading.objects import K8sObject
from k8slb.reading.yamltree import YMap, YSeq

_COMMENT = regex.compile(r"#[^\n]*")
# a directive that hands the request to something else: the answer is no longer nginx's own
_HANDS_ON = regex.compile(r"\b(?:\w+_pass|try_files|rewrite|content_by_lua\w*|js_content)\b")
_RETURNS_OK = regex.compile(r"(?:^|[;{}\s])return\s+2\d\d\b")
# `location /path {...}` or `location = /path {...}` (a block with no block inside)
_LOCATION = regex.compile(r"\blocation\s+(?:=\s*)?([^\s{}]+)\s*\{([^{}]*)\}")


def _is_nginx(container: Container) -> bool:
    name = image_repository(container.body.get("image")).rsplit("/", 1)[-1]
    return "nginx" in name or "openresty" in name


def _mounted_configmaps(template: PodTemplate) -> set[str]:
    volumes = template.spec.get("volumes")
    names: set[str] = set()
    if isinstance(volumes, YSeq):
        for volume in volumes:
            source = volume.get("configMap") if isinstance(volume, YMap) else None
            if isinstance(source, YMap) and isinstance(source.get("name"), str):
                names.add(source["name"])
    return names


def _texts(config: K8sObject) -> Iterator[str]:
    data = config.body.get("data")
    if isinstance(data, YMap):
        yield from (value for value in data.values() if isinstance(value, str))


def static_reply(
    index: Index, workload: K8sObject, template: PodTemplate, container: Container, path: str
) -> str | None:
    """Why the nginx container answers `path` itself, when a ConfigMap its pod mounts
    holds a `location` for exactly that path whose only answer is `return 2xx`."""
    if not _is_nginx(container):
        return None
    names = _mounted_configmaps(template)
    for config in index.objects:
        if not config.is_a("", "ConfigMap") or config.name not in names:
            continue
        if config.namespace != workload.namespace or not index.together(workload, config):
            continue
        for text in _texts(config):
            for found in _LOCATION.finditer(_COMMENT.sub("", text)):
                body = found.group(2)
                if found.group(1) != path:
                    continue
                if _RETURNS_OK.search(body) and not _HANDS_ON.search(body):
                    return (
                        f"nginx answers {path} itself (`return` in the location block of "
                        f"ConfigMap {config.name}), without asking a backend"
                    )
    return None
