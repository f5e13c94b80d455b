"""Views of Kubernetes objects (reading/objects.py) for the model and the rules: their pod
templates and containers, a Service's ports, positions."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from k8slb.core import regex
from k8slb.reading.objects import K8sObject, dig
from k8slb.reading.yamltree import Pos, YMap, YSeq

_SLEEP = regex.compile(r"(?:^|[\s;&|/(])sleep\s+(\d+(?:\.\d+)?)([smh]?)")
_SLEEP_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}


def _sleeps(command: str) -> list[tuple[str, str]]:
    """The (number, unit) of each `sleep` in a shell command; one followed by a letter, a
    digit, `_` or `.` (`sleep 5x`, `sleep 1.2.3`) is not a duration."""
    found = []
    for match in _SLEEP.finditer(command):
        after = command[match.end() : match.end() + 1]
        if not (after.isalnum() or after in ("_", ".")):
            found.append((match.group(1), match.group(2)))
    return found


# A hook's simple commands: split at the shell's operators and line breaks.
_COMMAND_END = regex.compile(r"&&|\|\||[;&|\n]")
# `$(pidof app)`, `$(pgrep -f app)`, `` `pidof app` ``: the processes a kill's argument names.
_LOOKUP = regex.compile(r"(?:\$\(|`)\s*(?:\S*/)?(?:pidof|pgrep)\s+([^)`]*)")
_SIGNAL_NUMBERS = {"1": "HUP", "2": "INT", "3": "QUIT", "9": "KILL", "15": "TERM"}
# The signals that ask a process to stop: SIGTERM, and the SIGINT or SIGQUIT some servers
# stop gracefully on (nginx: QUIT).
STOP_SIGNALS = frozenset({"TERM", "INT", "QUIT"})


@dataclass(frozen=True)
class Kill:
    """A process a preStop hook sends a signal: by its name (`pkill app`, `kill $(pidof
    app)`), or every process but PID 1 (`kill -TERM -1`: `name` None)."""

    name: str | None
    signal: str  # TERM, INT, QUIT, KILL, ... (`SIG` left out)
    text: str  # the command, as the hook writes it


def _signal_name(word: str) -> str:
    word = word.upper().removeprefix("SIG")
    return _SIGNAL_NUMBERS.get(word, word)


def kills(script: str) -> list[Kill]:
    """The `kill`, `pkill` and `killall` commands of a shell script, by the processes they
    name (a PID, a PID file or a variable names none k8slb can tell) and their signal
    (SIGTERM unless an option says another)."""
    found: list[Kill] = []
    for command in _COMMAND_END.split(script):
        words = command.split()
        if words[:1] == ["exec"]:
            words = words[1:]
        program = words[0].rsplit("/", 1)[-1] if words else ""
        if program not in ("kill", "pkill", "killall"):
            continue
        signal, given, rest = "TERM", False, iter(enumerate(words[1:], start=2))
        names: list[str | None] = []  # None: every process but PID 1
        for number, word in rest:
            if word in ("-s", "--signal", "-n") and not (program == "pkill" and word == "-s"):
                signal, given = _signal_name(next(rest, (0, ""))[1]), True
            elif word.startswith("--signal="):
                signal, given = _signal_name(word.partition("=")[2]), True
            elif word == "--":
                given = True  # what follows are processes: `kill -- -1`
            elif word == "-1" and program == "kill" and (given or number == len(words)):
                names.append(None)  # every process the hook may signal, PID 1 aside
            elif word.startswith("-") and (word[1:].isupper() or word[1:].isdigit()):
                signal, given = _signal_name(word[1:]), True
            elif word in ("-u", "-U", "-g", "-G", "-P", "-t", "-s", "--user", "--parent"):
                next(rest, None)  # pkill's and killall's options that take a value
            elif program != "kill" and not word.startswith("-"):
                names.append(word.strip("'\""))
        if program == "kill":
            names += [
                w for m in _LOOKUP.finditer(command) for w in m.group(1).split() if w[:1] != "-"
            ]
        found += [Kill(name, signal, command.strip()) for name in names]
    return found


def namespace_key(namespace: str | None) -> str:
    """The namespace an object is in: one that names none is in the namespace it is applied
    in, taken as `default` (kubectl's, and a chart release's unless told otherwise), so a
    plain manifest meets the objects its chart or its kustomize build would."""
    return namespace or "default"


def pod_template(obj: K8sObject) -> PodTemplate | None:
    """The object's pod template (or the Pod itself), when it has one."""
    if obj.template_labels is None:
        return None
    node = obj.template_node()
    return PodTemplate(obj, node) if node is not None else None


def service_ports(service: K8sObject) -> list[YMap]:
    """The entries of a Service's `spec.ports` (those that are mappings)."""
    ports = dig(service.body, "spec", "ports")
    return [p for p in ports if isinstance(p, YMap)] if isinstance(ports, YSeq) else []


def target_port(port: YMap) -> Any:
    """The container port a Service port sends to: `targetPort`, else the port itself.
    Kubernetes defaults a `targetPort` that is null, 0 or "" to the port (generated charts
    write `targetPort: 0` for "not set"), so those are the port too."""
    target = port.get("targetPort")
    return port.get("port") if target is None or target == 0 or target == "" else target


# A command that only waits, as a container's `command` writes it to keep the pod up with
# nothing in it serving (a toolbox, a pod one `kubectl exec`s into): `sleep N` or `sleep
# infinity`, `tail -f /dev/null`, alone or in a shell script made only of them, `true`
# and `:`, with `while`/`until` loops around them.
_WAIT_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
_WAIT_SCRIPT = 1000  # characters of a `-c` script read at most (longer: not a wait)
_WAIT_TOKEN = regex.compile(r"[^\s;&|()<>]+|;|&&|\|\||[&|()<>]")
_WAIT_KEYWORDS = frozenset({"while", "until", "do", "done", "true", ":"})
_DURATION = regex.compile(r"(?:\d+(?:\.\d+)?[smhd]?)+|infinity|inf")


def _waits(words: list[str]) -> bool:
    """Whether one simple command (its words, loop keywords left out) only waits."""
    if not words:
        return True
    program = words[0].rsplit("/", 1)[-1]
    if program == "sleep":
        return len(words) >= 2 and all(_DURATION.fullmatch(w) for w in words[1:])
    if program == "tail":
        return words[1:] in (["-f", "/dev/null"], ["-F", "/dev/null"])
    return False


def _script_waits(script: str) -> bool:
    """Whether a `-c` script is made only of commands that wait (_waits), joined by `;`,
    `&&`, `||` or line breaks, in `while`/`until` loops or not: nothing in the background,
    piped, redirected or quoted."""
    if len(script) > _WAIT_SCRIPT or any(c in script for c in "'\"`$\\"):
        return False
    words: list[str] = []
    for token in [*_WAIT_TOKEN.findall(script.replace("\n", " ; ")), ";"]:
        if token in (";", "&&", "||"):
            if not _waits(words):
                return False
            words = []
        elif token in ("&", "|", "(", ")", "<", ">"):
            return False
        elif token not in _WAIT_KEYWORDS or words:
            words.append(token)
    return True


def only_waits(container: Container) -> bool:
    """Whether the container's `command` (which replaces the image's entry point, with its
    `args`) only waits: `sleep infinity`, `tail -f /dev/null`, or a shell's `-c` script of
    such waits (`while true; do sleep 3600; done`). Such a container runs no server: no
    request reaches it, whatever its image would have run."""
    if not container.body.get("command"):
        return False
    words = container.words
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    if program in _WAIT_SHELLS:
        rest = words[1:]
        if not rest or not rest[0].startswith("-") or not rest[0].endswith("c"):
            return False
        rest = rest[1:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        return len(rest) == 1 and _script_waits(rest[0])
    return _waits(words)


def pos_of(mapping: YMap, key: str, *, value: bool = False) -> Pos:
    """Where `key` (or its value) is written; the mapping itself when the key is absent."""
    table = mapping.value_pos if value else mapping.key_pos
    return table.get(key, mapping.pos)


@dataclass
class Container:
    """One container of a pod template, init containers included."""

    name: str
    body: YMap
    init: bool
    path: tuple[str | int, ...] = ()  # from the object's root: (..., "containers", 0)

    @property
    def long_running(self) -> bool:
        """App containers and native sidecars (init containers that keep running)."""
        return not self.init or self.body.get("restartPolicy") == "Always"

    @property
    def pos(self) -> Pos:
        return pos_of(self.body, "name", value=True) if "name" in self.body else self.body.pos

    @property
    def words(self) -> list[str]:
        """Its command, then its args, as strings (what the image's entry point is given)."""
        return [str(w) for w in [*(self.body.get("command") or []), *(self.body.get("args") or [])]]

    @cached_property
    def flags(self) -> dict[str, str]:
        """What its command and args give each flag: `--name=value`, `-name=value`, or the
        word after `--name` / `-name` (Go's flag package and pflag read all four); the last
        one counts, as both packages keep the last. Read once: every listener and dial
        of its code asks."""
        words = self.words
        found: dict[str, str] = {}
        for at, word in enumerate(words):
            if not word.startswith("-"):
                continue
            flag, equals, value = word.partition("=")
            name = flag[2:] if flag.startswith("--") else flag[1:]
            if equals:
                found[name] = value
            elif at + 1 < len(words):
                found[name] = words[at + 1]
        return found

    def probe(self, kind: str) -> YMap | None:
        probe = self.body.get(kind)
        return probe if isinstance(probe, YMap) else None

    def ports(self) -> Iterator[YMap]:
        ports = self.body.get("ports")
        if isinstance(ports, YSeq):
            yield from (p for p in ports if isinstance(p, YMap))

    def port_number(self, port: int | str) -> int | None:
        """Resolve a named port of this container to its number."""
        if isinstance(port, int):
            return port
        for entry in self.ports():
            if entry.get("name") == port:
                number = entry.get("containerPort")
                return number if isinstance(number, int) else None
        return None

    def prestop(self) -> YMap | None:
        hook = dig(self.body, "lifecycle", "preStop")
        return hook if isinstance(hook, YMap) else None

    def prestop_kills(self) -> list[Kill]:
        """The processes the preStop hook's exec command signals (see `kills`)."""
        hook = self.prestop()
        command = dig(hook, "exec", "command") if hook is not None else None
        if not isinstance(command, list):
            return []
        words = [str(part) for part in command]
        shell = len(words) >= 3 and words[1].startswith("-") and words[1].endswith("c")
        return kills(words[2] if shell else " ".join(words))

    def prestop_sleep(self) -> float | None:
        """Seconds the preStop hook sleeps: the native `sleep` action, or `sleep N` in an
        exec command (summed when it sleeps more than once); None when it does not."""
        hook = self.prestop()
        if hook is None:
            return None
        seconds = dig(hook, "sleep", "seconds")
        if isinstance(seconds, int):
            return float(seconds)
        command = dig(hook, "exec", "command")
        if not isinstance(command, list):
            return None
        sleeps = _sleeps(" ".join(str(part) for part in command))
        if not sleeps:
            return None
        return sum(float(number) * _SLEEP_UNITS[unit] for number, unit in sleeps)


DEFAULT_GRACE = 30  # Kubernetes' terminationGracePeriodSeconds when a pod sets none
# The names the mesh injectors give the proxy they add to a pod (Istio's sidecar injector
# and `istioctl kube-inject`, Linkerd's proxy injector): fixed by the injectors, not chosen.
MESH_PROXY_CONTAINERS = frozenset({"istio-proxy", "linkerd-proxy"})


def probe_port(container: Container, probe: YMap) -> int | None:
    """The port a probe (or lifecycle handler) checks, named ports resolved."""
    for handler in ("httpGet", "tcpSocket", "grpc"):
        port = dig(probe, handler, "port")
        if port is not None:
            return container.port_number(port)
    return None


@dataclass
class PodTemplate:
    owner: K8sObject
    body: YMap  # the template (or the Pod itself): its `metadata` and `spec`
    containers: list[Container] = field(init=False)

    def __post_init__(self) -> None:
        self.containers = []
        for key, init in (("initContainers", True), ("containers", False)):
            entries = self.spec.get(key)
            if not isinstance(entries, YSeq):
                continue
            for number, entry in enumerate(entries):
                if isinstance(entry, YMap):
                    name = entry.get("name")
                    label = name if isinstance(name, str) else f"{key}[{number}]"
                    path = (*self.spec_path, key, number)
                    self.containers.append(Container(label, entry, init, path))

    @property
    def spec(self) -> YMap:
        spec = self.body["spec"]
        assert isinstance(spec, YMap)
        return spec

    @property
    def spec_path(self) -> tuple[str | int, ...]:
        """Where the pod spec is, from the object's root."""
        kind = self.owner.spec
        return (*(kind.template_path if kind and kind.template_path else ()), "spec")

    @property
    def labels(self) -> dict[str, str]:
        """The pod's labels: those its owner keeps (with what a kustomization adds to a
        file read as written: model/kustomized.py), else the template's own."""
        kept = self.owner.template_labels
        return kept if kept is not None else dig(self.body, "metadata", "labels") or {}

    @property
    def annotations(self) -> dict[str, str]:
        return dig(self.body, "metadata", "annotations") or {}

    @property
    def grace_seconds(self) -> int:
        """`terminationGracePeriodSeconds`, or Kubernetes' default when it is not an int."""
        grace = self.spec.get("terminationGracePeriodSeconds")
        return grace if isinstance(grace, int) and not isinstance(grace, bool) else DEFAULT_GRACE

    @property
    def own_containers(self) -> list[Container]:
        """The app containers less a mesh's injected proxy (a manifest written after
        injection holds it), which serves no port of the pod's own Services."""
        return [c for c in self.containers if not c.init and c.name not in MESH_PROXY_CONTAINERS]

    @cached_property
    def long_running(self) -> list[Container]:
        """App containers and native sidecars: worked out once a template (links and rules
        ask it some 28 times a container of a run), never changed after."""
        return [c for c in self.containers if c.long_running]


def flag_value(container: Container, name: str) -> str | None:
    """What a container's command and args give a flag (Container.flags)."""
    return container.flags.get(name)


def volume_items(source: YMap) -> list[tuple[str, str]] | None:
    """(key, file name) of the files a ConfigMap or Secret volume's `items` lists; None
    when it lists none, and every key of its data is a file of its own name."""
    items = source.get("items")
    if not isinstance(items, YSeq):
        return None
    return [
        (item["key"], item["path"])
        for item in items
        if isinstance(item, YMap)
        and isinstance(item.get("key"), str)
        and isinstance(item.get("path"), str)
    ]


def mounted_files(mount: YMap, files: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """(key, path in the container) of the volume's files (key, file name) that a
    `volumeMounts` entry with a `mountPath` shows: the one its `subPath` names, at the
    mount path itself, else each below the mount path."""
    sub_path = mount.get("subPath")
    for key, file in files:
        if isinstance(sub_path, str) and sub_path:
            if file == sub_path:
                yield key, mount["mountPath"]
        else:
            yield key, posixpath.join(mount["mountPath"], file)
