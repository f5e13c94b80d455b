"""The link table (`k8slb explain-links`, `check --show-links`): each container, the code
it runs, and the evidence, strongest first; what was overruled is shown as such so that a
user can see a wrong link and pin the right one in the configuration."""

from __future__ import annotations

import json
from collections.abc import Sequence

from k8slb.core.results import LinkRow
from k8slb.report.printable import printable


def links_text(rows: Sequence[LinkRow]) -> str:
    if not rows:
        return "No workloads with containers were found.\n"
    lines: list[str] = []
    for row in rows:
        if row.code is None:
            why = f": {printable(row.why_not)}" if row.why_not else ""
            lines.append(f"{printable(row.container)} -> no code found{why}")
            lines += [
                f"    its env, read by code no container runs: {printable(reader)}"
                for reader in row.env_read_by
            ]
            continue
        count = f"{row.modules} module{'s' * (row.modules != 1)}"
        lines.append(f"{printable(row.container)} -> {printable(row.code)} ({count})")
        lines += [f"    {printable(evidence)}" for evidence in row.evidence]
        lines += [
            f"    overruled by the evidence above: {printable(evidence)}"
            for evidence in row.overruled
        ]
    linked = sum(1 for row in rows if row.code is not None)
    lines.append(
        f"{linked} of {len(rows)} container{'s' * (len(rows) != 1)} linked to code. "
        'Pin a link in the configuration: links: {"KIND/NAMESPACE/NAME:CONTAINER": PATH}.'
    )
    return "\n".join(lines) + "\n"


def links_json(rows: Sequence[LinkRow]) -> str:
    return json.dumps({"links": [row.as_json() for row in rows]}, indent=2) + "\n"
