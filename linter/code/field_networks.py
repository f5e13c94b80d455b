"""Whether a Go listener's network, read from a struct's field (facts.FieldNetwork), is a
Unix socket's: each write of the field in the project's files (their FIELD_SOURCES
exports), followed from field to field (`Options{Network: cfg.RuntimeNetwork}`, then
`fs.StringVar(&c.RuntimeNetwork, "runtime-network", c.RuntimeNetwork, ...)`, then
`RuntimeNetwork: "unix"` of the default config), gives `unix` or `unixpacket`, and one
at least is a command-line flag whose default is one: the program listens on a Unix
socket unless its command line says otherwise. Fields are known by name only, so a
field of that name that any struct of the project writes otherwise (`Network: "tcp"`,
a value not read) leaves the network unknown. A field met again on the way (a flag
whose default is its own field's value) adds nothing; past MAX_FIELDS fields followed,
the network is unknown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# the networks of `net.Listen(network, address)` whose address is a socket file's path
UNIX_NETWORKS = frozenset(("unix", "unixpacket"))
# the fields followed from the one the listener reads, at most
MAX_FIELDS = 32

Sources = Mapping[str, Sequence[tuple[str, ...]]]


class _Unknown(Exception):
    """A write that is not a Unix network, or one k8slb does not read."""


def unix_network(sources: Sources, field: str) -> str | None:
    """What the finding says of where the network came from (the flag and its default),
    where the field's network is a Unix socket's; None otherwise."""
    walk = _Walk(sources)
    try:
        walk.field(field)
    except _Unknown:
        return None
    if walk.flag is None or not walk.texts:
        return None
    name, bound = walk.flag
    via = "," if bound == field else f", set from the field {bound},"
    default = " or ".join(f'"{text}"' for text in sorted(walk.texts))
    return (
        f"its network is the field {field}{via} which the flag -{name} sets, by default "
        f"{default}, a Unix socket's (no write of the field in the program's code gives "
        "another)"
    )


class _Walk:
    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.seen: set[str] = set()
        self.texts: set[str] = set()  # the networks met
        self.flag: tuple[str, str] | None = None  # the first flag met: its name, its field

    def field(self, name: str) -> None:
        if name in self.seen:
            return  # met on the way: it adds nothing
        if len(self.seen) >= MAX_FIELDS:
            raise _Unknown
        self.seen.add(name)
        written = self.sources.get(name)
        if not written:
            raise _Unknown
        for source in written:
            self.source(source, name)

    def source(self, source: tuple[str, ...], field: str) -> None:
        kind = source[0]
        if kind == "text" and len(source) == 2 and source[1] in UNIX_NETWORKS:
            self.texts.add(source[1])
        elif kind == "field" and len(source) == 2:
            self.field(source[1])
        elif kind == "flag" and len(source) >= 3:
            self.source(source[2:], field)
            self.flag = self.flag or (source[1], field)
        else:
            raise _Unknown
