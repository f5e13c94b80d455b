"""Servers that drain themselves: evidence that a container keeps serving for a while after
SIGTERM, failing its health check, before it stops, which is the pause a preStop hook
gives the routing to drop the pod (KLB401).

Two kinds of evidence, each named in what KLB401 says:
- in the container's code (code/facts.py's `SignalPause`): a sleep on the path from where
  SIGTERM is received to the server's stop. k8slb sees the whole chain, signal to wait to
  stop;
- in its configuration: a setting in its `command`/`args`, its `env` (and the ConfigMaps
  it takes env from) or a ConfigMap it mounts, whose NAME says that the server delays its
  own stop, with a duration as its value. Which signal starts that delay is inferred from
  the name, not seen (some servers enter their lame-duck mode on another signal), so such
  evidence is partial. A duration of 0 is no delay, and one under `MIN_PAUSE` too short
  to matter: no evidence.

What a name must say, in words (split at `-`, `_`, `.` and case changes): see `drain_kind`.
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Iterator

from k8slb.core import regex
from k8slb.core.findings import Related
from k8slb.core.record import record
from k8slb.model.index import Index
from k8slb.model.links import CodeLinks
from k8slb.model.objects import Container, PodTemplate, pos_of
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import YMap, YSeq

# The words that make a setting's name a server's own drain delay, each with why it means
# "keeps serving (health failing) for that long, then stops":
# - `lame duck` (`lameduck`, `lame_duck_duration`): the term of art for a server that has
#   been told to go away and keeps answering while it tells health checks and clients that
#   it is leaving (CoreDNS's `health { lameduck 10s }`, NATS's `lame_duck_duration`);
# - `delay` beside a word for stopping (`shutdown`, `termination`, `drain`, `stop`, `exit`):
#   a wait BEFORE the stop (kube-apiserver's `--shutdown-delay-duration`, a
#   `-http.shutdownDelay` during which /health fails), unlike a `timeout` or a `grace`,
#   which bounds how long the stop itself may take after the server stops accepting;
# - `accept` beside `grace` (`requestAcceptGraceTimeout`): the time a proxy keeps
#   accepting requests before its graceful stop begins;
# - `readiness` beside a word for stopping (`READINESS_SHUTDOWN_DURATION`): how long the
#   server keeps failing its readiness check, still serving, before it stops.
# A wait shorter than this is no pause: kube-proxy, ingress proxies and meshes take a
# second or more to drop a terminating pod's endpoint (0, "no delay", is the usual case).
MIN_PAUSE = 1.0
_STOPPING = frozenset({"shutdown", "termination", "terminate", "drain", "stop", "exit"})
# a candidate name holds one of these; `drain_kind` then reads its words
_CANDIDATE = regex.compile(
    r"(?i)((?:[a-z][a-z0-9_.-]*?)?(?:lame[_-]?duck|delay|accept[a-z0-9_.-]*grace|readiness)"
    r"[a-z0-9_.-]*)"
    r"[\"']?[ \t]*[:=]?[ \t]*[\"']?([^\s\"',;]*)"
)
_MAX_NAME = 200  # longer words are no setting's name, and are not split into words
_WORDS = ("delay", "lame", "accept", "readiness")  # one of them is in every candidate
_SEPARATORS = regex.compile(r"[^A-Za-z0-9]+")
# a value that a shell, a template or the server fills in: a setting k8slb cannot read
_REFERENCE = regex.compile(r"^(?:\$[({]?[A-Za-z_]|\{\{|%\()")
_DURATION = regex.compile(r"^(?:[0-9]+(?:\.[0-9]*)?(?:ns|us|µs|ms|s|m|h))+$")
_PART = regex.compile(r"([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)")
_NUMBER = regex.compile(r"^[0-9]+(?:\.[0-9]*)?$")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
# a bare number's unit, from the name's last word (`SHUTDOWN_DELAY_SECONDS`)
_NAMED_UNITS = {
    "seconds": 1.0,
    "secs": 1.0,
    "sec": 1.0,
    "s": 1.0,
    "ms": 1e-3,
    "millis": 1e-3,
    "milliseconds": 1e-3,
    "minutes": 60.0,
}


def _words(name: str) -> list[str]:
    words: list[str] = []
    for part in _SEPARATORS.split(name):
        # camelCase without lookarounds: a run of capitals then lower case, split by hand
        for word in _camel(part):
            words.append(word.lower())
    return words


def _camel(part: str) -> Iterator[str]:
    """`requestAcceptGraceTimeout` -> request, Accept, Grace, Timeout; `HTTPDelay` -> HTTP,
    Delay (RE2 has no lookaround to split it)."""
    start = 0
    for i in range(1, len(part)):
        before, here = part[i - 1], part[i]
        after = part[i + 1 : i + 2]
        lower_to_upper = (before.islower() or before.isdigit()) and here.isupper()
        acronym_ends = before.isupper() and here.isupper() and after.islower()
        if lower_to_upper or acronym_ends:
            yield part[start:i]
            start = i
    if part[start:]:
        yield part[start:]


def drain_kind(name: str) -> str | None:
    """What a setting's name says it is ("a lame-duck period", "a shutdown delay", "an
    accept grace period", "a readiness shutdown period"), or None when it is no drain delay
    of the server's own."""
    words = _words(name)
    pairs = set(itertools.pairwise(words))
    if "lameduck" in words or ("lame", "duck") in pairs:
        return "a lame-duck period"
    if "delay" in words and _STOPPING & set(words):
        return "a shutdown delay"
    if "accept" in words and "grace" in words:
        return "an accept grace period"
    if "readiness" in words and _STOPPING & set(words):
        return "a readiness shutdown period"
    return None


@record
class Setting:
    """A drain delay a container's configuration sets: where, as written, and for how long
    (`seconds` None when k8slb cannot read the duration)."""

    kind: str  # drain_kind's
    written: str  # `lameduck 10s`
    where: str  # "its args", "ConfigMap coredns (Corefile)"
    seconds: float | None
    related: Related | None = None


def duration_seconds(value: str, name: str) -> float | None:
    """A duration as Go and most servers write it (`10s`, `1m30s`, `500ms`), or a bare
    number in the unit the name's last word gives (`_SECONDS`); None when unreadable."""
    value = value.strip()
    if _DURATION.match(value):
        return sum(float(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(value))
    if _NUMBER.match(value):
        words = _words(name)
        unit = _NAMED_UNITS.get(words[-1]) if words else None
        if unit is not None or float(value) == 0:
            return float(value) * (unit or 1.0)
    return None


def settings_in(text: str, where: str, related: Related | None = None) -> Iterator[Setting]:
    """The drain delays a configuration text sets (`name value`, `name: value`,
    `name=value`, `--name=value`), on lines that are not comments: each with a value that
    is a duration, a number, or a reference k8slb cannot read (`$(DELAY)`, `${DELAY}`);
    one under `MIN_PAUSE` (0 above all) is no delay, and a name followed by anything else
    (prose, another flag) sets nothing."""
    for line in text.splitlines():
        if line.lstrip().startswith(("#", "//", ";")):
            continue
        for match in _CANDIDATE.finditer(line):
            name, value = match.group(1).strip("-."), match.group(2)
            if not _REFERENCE.match(value):
                value = value.rstrip("})]")  # `health {lameduck 10s}`
            if len(name) > _MAX_NAME:
                continue  # no setting's name: a blob (an embedded file, a key)
            kind = drain_kind(name)
            if kind is None or not value:
                continue
            seconds = duration_seconds(value, name)
            unread = _REFERENCE.match(value) or _NUMBER.match(value)  # a number: unit unknown
            if (seconds is not None and seconds < MIN_PAUSE) or (seconds is None and not unread):
                continue
            yield Setting(kind, f"{name} {value}", where, seconds, related)


def _config_map_names(template: PodTemplate, container: Container) -> list[tuple[str, str]]:
    """(ConfigMap, how) of the ConfigMaps the container mounts or takes env from."""
    mounted = {
        m.get("name") for m in container.body.get("volumeMounts") or [] if isinstance(m, YMap)
    }
    found: list[tuple[str, str]] = []
    volumes = template.spec.get("volumes")
    for volume in volumes if isinstance(volumes, YSeq) else []:
        if not isinstance(volume, YMap) or volume.get("name") not in mounted:
            continue
        sources = [volume.get("configMap")]
        projected = dig(volume, "projected", "sources")
        if isinstance(projected, YSeq):
            sources += [s.get("configMap") for s in projected if isinstance(s, YMap)]
        for source in sources:
            if isinstance(source, YMap) and isinstance(source.get("name"), str):
                found.append((source["name"], "mounted"))
    for entry in container.body.get("envFrom") or []:
        name = dig(entry, "configMapRef", "name") if isinstance(entry, YMap) else None
        if isinstance(name, str):
            found.append((name, "env"))
    return found


def configured_drain(
    index: Index, workload: K8sObject, template: PodTemplate, container: Container
) -> Setting | None:
    """The first drain delay the container's configuration sets: its command and args,
    its env, a ConfigMap it mounts or takes env from (applied with the workload)."""
    command = " ".join(container.words)
    key = "args" if "args" in container.body else "command"
    said = Related(workload.path, pos_of(container.body, key)[0], f"its {key}")
    for setting in settings_in(command, "its command line", said):
        return setting
    for variable in container.body.get("env") or []:
        if not isinstance(variable, YMap):
            continue
        value, where = variable.get("value"), "its env"
        said = Related(workload.path, pos_of(variable, "value", value=True)[0], where)
        reference = dig(variable, "valueFrom", "configMapKeyRef")
        if value is None and isinstance(reference, YMap):  # a key of a ConfigMap
            config = index.config_map(workload, str(reference.get("name")))
            data = config.body.get("data") if config is not None else None
            wanted = reference.get("key")
            if config is None or not isinstance(data, YMap) or not isinstance(wanted, str):
                continue
            if wanted not in data:
                continue
            value, where = data[wanted], f"its env, from ConfigMap {config.name}"
            line = pos_of(data, wanted, value=True)[0]
            said = Related(config.path, line, f"{wanted} in ConfigMap {config.name}")
        if isinstance(value, str | int) and not isinstance(value, bool):
            text = f"{variable.get('name')}={value}"
            for setting in settings_in(text, where, said):
                return setting
    for name, how in _config_map_names(template, container):
        config = index.config_map(workload, name)
        # a body not read yet is searched for the words first (a chart's dashboards)
        if config is None or not config.may_mention(_WORDS):
            continue
        data = config.body.get("data")
        if not isinstance(data, YMap):
            continue
        for key, value in data.items():
            if not isinstance(value, str):
                continue
            text = value if how == "mounted" and "\n" in value else f"{key}={value}"
            line = pos_of(data, key, value=True)[0]
            related = Related(config.path, line, f"{key} in ConfigMap {name}")
            for setting in settings_in(text, f"ConfigMap {name}, {key}", related):
                return setting
    return None


@record
class Drain:
    """Why a container needs no preStop pause, or may not: what k8slb saw (`said`), and
    whether that is the whole chain (`complete`: the code's own wait on SIGTERM, shorter
    than the grace period) or only part of it (a setting's name, a wait k8slb cannot time,
    one the grace period cuts)."""

    said: str
    complete: bool
    related: Related | None = None


def _seconds(value: float) -> str:
    return f"{value:g} s"


def self_drain(
    index: Index, links: CodeLinks, workload: K8sObject, template: PodTemplate, container: Container
) -> Drain | None:
    """The evidence that the container drains itself on SIGTERM (the module's doc): the
    code's own pause first, then a setting of its configuration; None when there is none."""
    grace = template.grace_seconds
    partial: Drain | None = None
    link = links.of(workload, container.name)
    for facts in links.code(link) if link is not None else []:
        for pause in facts.signal_pauses:
            seconds = pause.seconds
            known = isinstance(seconds, int | float) and not isinstance(seconds, bool)
            if known and seconds < MIN_PAUSE:
                continue  # shorter than any routing takes to drop a pod: no pause
            where = f"{posixpath.basename(pause.loc.path)}:{pause.loc.line}"
            related = Related(pause.loc.path, pause.loc.line, "it waits on SIGTERM before stopping")
            if not pause.signalled:
                # the drain is seen, not the SIGTERM that starts it: partial, whatever its time
                if partial is None:
                    said = (
                        f"its code sets its health NOT_SERVING, then waits ({where}"
                        + (f", {_seconds(seconds)}" if known else ", for a time k8slb cannot read")
                        + ") before it stops, on a path from SIGTERM k8slb does not follow"
                    )
                    partial = Drain(said, False, related)
                continue
            if known and seconds < grace:
                said = f"its code waits {_seconds(seconds)} on SIGTERM before it stops ({where})"
                return Drain(said, True, related)
            if partial is None:
                said = f"its code waits on SIGTERM before it stops ({where}), " + (
                    f"for {_seconds(seconds)}, which terminationGracePeriodSeconds ({grace}) "
                    "cuts short"
                    if known
                    else "for a time k8slb cannot read"
                )
                partial = Drain(said, False, related)
    if partial is not None:
        return partial
    setting = configured_drain(index, workload, template, container)
    if setting is None:
        return None
    said = f"{setting.kind} is set ({setting.written}, in {setting.where})"
    if setting.seconds is None:
        said += ", for a time k8slb cannot read"
    elif setting.seconds >= grace:
        said += f", not shorter than terminationGracePeriodSeconds ({grace})"
    return Drain(said, False, setting.related)
