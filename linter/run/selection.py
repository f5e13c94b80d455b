"""Which rules run: `--select` and `--ignore` by id, id prefix or name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from k8slb.rulekit.base import Rule
from k8slb.rules import ALL_RULES


class SelectionError(ValueError):
    pass


def find_rule(code: str) -> type[Rule] | None:
    """A rule by exact id, name or former name (case-insensitive)."""
    wanted = code.strip().lower()
    for rule in ALL_RULES:
        if wanted in (rule.id.lower(), rule.name, *rule.aliases):
            return rule
    return None


def _matching(token: str) -> list[type[Rule]]:
    text = token.strip()
    if text.upper() == "ALL":
        return list(ALL_RULES)
    exact = find_rule(text)
    if exact is not None:
        return [exact]
    prefix = text.upper()
    matched = [r for r in ALL_RULES if prefix.startswith("KLB") and r.id.startswith(prefix)]
    if not matched:
        raise SelectionError(
            f"unknown rule or prefix {token!r}{suggestion(text)} (see `k8slb rules`)"
        )
    return matched


def suggestion(text: str) -> str:
    """`; did you mean KLB401?` for a code or name close to a real one."""
    known = [code for rule in ALL_RULES for code in (rule.id, rule.name, *rule.aliases)]
    wanted = text.upper() if text.upper().startswith("KLB") else text.lower()
    neighbours = {  # two adjacent characters swapped: KLB410 for KLB401
        wanted[:i] + wanted[i + 1] + wanted[i] + wanted[i + 2 :] for i in range(len(wanted) - 1)
    }
    swapped = [k for k in known if k in neighbours]
    import difflib  # only for a misspelt code

    close = swapped or difflib.get_close_matches(wanted, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def unknown_codes(codes: Sequence[str]) -> list[str]:
    """The codes that name no rule (a typo, or a rule of another tool)."""
    unknown = []
    for code in codes:
        try:
            _matching(code)
        except SelectionError:
            unknown.append(code)
    return unknown


def split_codes(values: Iterable[str]) -> list[str]:
    """`--select KLB101,KLB4 --select no-prestop` -> ['KLB101', 'KLB4', 'no-prestop']."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def codes_to_ids(codes: Sequence[str]) -> frozenset[str]:
    """The rule ids that codes (ids, prefixes, names, ALL) stand for."""
    return frozenset(rule.id for code in codes for rule in _matching(code))


def select_rules(select: Sequence[str], ignore: Sequence[str]) -> list[type[Rule]]:
    chosen = {r for token in (select or ["ALL"]) for r in _matching(token)}
    dropped = {r for token in ignore for r in _matching(token)}
    return [r for r in ALL_RULES if r in chosen and r not in dropped]
