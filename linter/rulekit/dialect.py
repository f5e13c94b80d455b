"""How a finding about code speaks the language the code is written in, and the edits
that fix it there. Rules read language-neutral facts (code/facts.py) and ask the file's
`Dialect` for the names to quote and the edits to make: a Go server is told about
`MaxConnectionAge`, a Python one about `grpc.max_connection_age_ms`. Each language's
dialect is in its package (`languages/<language>/dialect.py`), named in `languages/`.

The words are required of every dialect; an edit a language cannot make is an empty
list, and the finding then has no fix there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import Any

from k8slb.code.facts import Channel, Loc, Server, Stop, Wait
from k8slb.core.edits import CodeEdit
from k8slb.core.record import record
from k8slb.languages import LANGUAGES, load


@record
class Since:
    """The first version of a library (`grpc-java`, 1.47.0) whose builder of a server has
    the connection settings a fix adds: older ones do not compile the fix. `advice` says
    what to do on an older one."""

    library: str
    version: tuple[int, ...]
    builder: str  # the builder that lacks them before it
    advice: str

    @property
    def dotted(self) -> str:
        return ".".join(map(str, self.version))


class Dialect(ABC):
    # -- words ---------------------------------------------------------------------------

    @abstractmethod
    def option(self, key: str) -> str:
        """gRPC's core option name (`grpc.max_connection_age_ms`) as the language's API
        spells it."""

    @abstractmethod
    def option_value(self, key: str, value: float) -> str:
        """The option set to a value, as the code would write it."""

    @abstractmethod
    def max_age_advice(self, age_ms: int, grace_ms: int) -> str:
        """How to bound a server's connection age."""

    @abstractmethod
    def no_sigterm_consequence(self) -> str:
        """What happens to calls in flight when SIGTERM is not handled."""

    @abstractmethod
    def sigterm_advice(self, server: str, grace: int) -> str:
        """How to stop the server gracefully on SIGTERM."""

    @abstractmethod
    def sigterm_fix(self, server: str, grace: int) -> str:
        """What the SIGTERM fix does, and what to review after it."""

    def server_max_age_advice(self, server: Server, age_ms: int, grace_ms: int) -> str:
        """How to bound this server's connection age: the language's words, unless a
        framework makes the server and takes its options elsewhere."""
        return self.max_age_advice(age_ms, grace_ms)

    def server_sigterm_advice(self, server: Server, name: str, grace: int) -> tuple[str, str]:
        """How to stop this server gracefully on SIGTERM, and what the fix does: the
        language's words, unless a framework runs the server and stops it itself."""
        return self.sigterm_advice(name, grace), self.sigterm_fix(name, grace)

    def stop_words(self, stop: Stop, grace: int) -> tuple[str, str]:
        """How to let the calls in flight finish where this stop is made, and what the
        fix does: the language's words, unless a framework makes the stop."""
        return self.stop_advice(stop.server, grace), self.stop_fix(grace)

    def exit_wait_advice(self, server: str, grace: int) -> str:
        """How to have the process wait for a graceful stop before it exits."""
        return f"stop {server} where the process exits, and wait for the stop before exiting"

    @abstractmethod
    def stop_call(self, server: str, grace: object) -> str:
        """The call that stops the server at once, as written."""

    @abstractmethod
    def stop_advice(self, server: str, grace: int) -> str:
        """How to let the calls in flight finish when the server stops."""

    @abstractmethod
    def stop_fix(self, grace: int) -> str:
        """What the graceful-stop fix does, and what to review after it."""

    @abstractmethod
    def health_drain_advice(self) -> str:
        """How to have the health service say NOT_SERVING on shutdown."""

    @abstractmethod
    def http2_setting(self) -> str:
        """The HTTP client's setting that turns HTTP/2 on."""

    @abstractmethod
    def http_pool_advice(self) -> str:
        """How to bound the life of a pooled HTTP connection."""

    def unknown_policy_consequence(self) -> str:
        """What a channel does when the policy it is told to use by name is none gRPC
        knows (gRPC core's behaviour, unless the language's library differs)."""
        return "gRPC logs an error and silently uses pick_first"

    def for_server(self, server: Server) -> Dialect:
        """The words for one server: the same, unless the language has servers of several
        frameworks that name their settings apart (Spring Boot's starters)."""
        return self

    def server_options_since(self, server: Server) -> Since | None:
        """The library version this server's builder needs for the settings
        `server_options` adds, when older ones lack them; None when every version has them."""
        return None

    def server_made(self, factory: str) -> str:
        """The call that makes a server, named for a message."""
        return f"{factory}()"

    def health_check(self, implementation: str) -> str:
        """The check a hand-written health service answers with, named for a message."""
        return f"health servicer {implementation}.Check"

    # -- edits (none: the finding has no fix in this language) ---------------------------

    def server_options(self, server: Server, pairs: Sequence[tuple[str, int]]) -> list[CodeEdit]:
        """Give a gRPC server these options."""
        return []

    def channel_options(self, channel: Channel, pairs: Sequence[tuple[str, Any]]) -> list[CodeEdit]:
        """Give a channel these options."""
        return []

    def sigterm_handler(self, wait: Wait, server: str, grace: int) -> list[CodeEdit]:
        """Stop the server gracefully on SIGTERM, before it waits at `wait`."""
        return []

    def graceful_stop(self, stop: Stop, grace: int) -> list[CodeEdit]:
        """Make an abrupt stop graceful."""
        return []

    def set_target(self, channel: Channel, target: str) -> list[CodeEdit]:
        """Have the channel dial `target` instead of its literal target."""
        return []

    def set_value(self, loc: Loc, value: Any) -> list[CodeEdit]:
        """Write `value` in place of the option value at `loc`."""
        return []


@cache
def dialect_of(language: str) -> Dialect:
    """The dialect of a language named in languages/."""
    made: Dialect = load(LANGUAGES[language].dialect)
    return made
