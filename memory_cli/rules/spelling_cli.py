"""What ``rules add`` and ``rules test`` say about the operation a command rule stands for,
and the ``--spelling-only`` opt-out (see :mod:`operations`)."""

from __future__ import annotations

from . import api


def keep_spelling_only(store, rule: dict) -> dict:
    """Mark a just-added command rule as matching its spelling only; returns it as stored. A
    rule of another pattern type has no operation: it is kept as it is, with a warning."""
    if rule.get("pattern_type") != "command" or rule.get("reinforced"):
        store.warn("--spelling-only applies to a new command rule (--pattern-type command); nothing changed")
        return rule
    api.write_rule(store, rule["id"], {"spelling_only": True})  # the rules' one door
    return api.get_rule(store, rule["id"])


def operation_line(rule: dict) -> str | None:
    """``recognised as a recursive delete of /: ...`` for a command rule, or what a
    spelling-only rule matches; None for other rules."""
    if rule.get("pattern_type") != "command":
        return None
    op = rule.get("operation")
    if op:
        return (
            f"recognised as {op['description']}: its other spellings are stopped too"
            " (--spelling-only: only the command as written)"
        )
    if rule.get("spelling_only"):
        return "spelling only: matches the command as written (flags in any order, -f for --force), no other program"
    return None
