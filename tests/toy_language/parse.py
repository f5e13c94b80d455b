"""Dial's front-end: `dial ADDRESS [round_robin]` lines into code/facts.py's channels."""

from __future__ import annotations

import re

from k8slb.code.facts import NOT_GIVEN, Channel, CodeFacts, Loc, Option, Options
from k8slb.model.grpc_options import SERVICE_CONFIG
from k8slb.reading.markers import comment_markers, comment_pattern

_DIAL = re.compile(r"^(?P<indent>\s*)dial\s+(?P<target>\S+)(?P<policy>\s+round_robin)?\b")
ROUND_ROBIN = '{"loadBalancingConfig": [{"round_robin": {}}]}'


def parse(path: str, data: bytes) -> CodeFacts:
    text = data.decode("utf-8", "replace")
    facts = CodeFacts(path, "dial")
    for number, line in enumerate(text.splitlines(), start=1):
        found = _DIAL.match(line)
        if found is None:
            continue
        loc = Loc(path, number, len(found.group("indent")) + 1)
        options = NOT_GIVEN
        if found.group("policy"):
            options = Options(True, (Option(SERVICE_CONFIG, ROUND_ROBIN, loc),))
        target = found.group("target")
        facts.channels.append(Channel(loc, "dial", target, options, True, (0, "target")))
    facts.markers = comment_markers(path, text, comment_pattern("--"))
    return facts
