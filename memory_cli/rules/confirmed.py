"""The rules the person last confirmed, and what changed in them outside memory-cli.

:mod:`memory_cli.confirmation` tells whether every change to the rules came through memory-cli.
This module keeps what those rules were (``kv['rules.confirmed-rows']``: the enabled rules, as
the rule set reads them, at the confirmed generation) and uses it twice:

- the gate keeps enforcing them: while the rules stand changed outside memory-cli, the compiled
  rule set holds the confirmed rules besides the current ones (:func:`kept_rows`), so a rule
  switched off by a raw ``UPDATE`` still blocks, and a rule added that way blocks too (more
  caution, never less);
- the person is told: at the next SessionStart and in ``doctor`` (:func:`changes`, :func:`summary`:
  "2 rules turned off by a process that was not memory-cli, at 14:02"), until they accept the
  state as it is (``memory-cli rules accept-changes``, :func:`accept`).

Cheap to import (``fastjson`` only): the rule set reads it on the hook path when it rebuilds.
"""

from __future__ import annotations

ROWS_KEY = "rules.confirmed-rows"


def _state(store):
    from .. import confirmation

    return confirmation.state(store)


def snapshot(store) -> dict | None:
    """``{"generation": N, "rows": [...]}`` as last recorded, or None."""
    from ..fastjson import loads
    from ..store import kvstate

    text = kvstate.raw(store, ROWS_KEY)
    if not text:
        return None
    try:
        data = loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("rows"), list) else None


def record(store, generation: int, rows: list[dict]) -> None:
    """Keep ``rows`` as the confirmed rules of ``generation`` (the caller holds a transaction)."""
    from ..fastjson import dumps
    from ..store import kvstate

    kvstate.put_raw(store, ROWS_KEY, dumps({"generation": generation, "rows": rows}), gate=False)


def kept_rows(store, generation: int, current: list[dict]) -> list[dict]:
    """The confirmed rules the current rows no longer hold (switched off, deleted or rewritten
    outside memory-cli): what the gate keeps enforcing until the person accepts the change."""
    snap = snapshot(store)
    if snap is None:
        return []
    now = {(r["id"], r["pattern"], r["action"]) for r in current}
    return [
        r for r in snap["rows"] if isinstance(r, dict) and (r.get("id"), r.get("pattern"), r.get("action")) not in now
    ]


class Changes:
    """How the rules differ from the confirmed ones, by a process that was not memory-cli (a
    plain class: ``dataclasses`` costs a hook milliseconds to import)."""

    def __init__(self, at: str | None) -> None:
        self.at = at
        self.turned_off: list[dict] = []  # confirmed rules no longer enforced
        self.rewritten: list[dict] = []  # same rule, another pattern or action
        self.added: list[dict] = []  # enforced now, never confirmed
        self.unknown = False  # no record of the confirmed rules to compare with

    def line(self) -> str:
        """One line for the person."""
        parts = []
        if self.turned_off:
            parts.append(f"{_n(len(self.turned_off))} turned off")
        if self.rewritten:
            parts.append(f"{_n(len(self.rewritten))} rewritten")
        if self.added:
            parts.append(f"{_n(len(self.added))} added")
        what = ", ".join(parts) or "the rules changed"
        when = f", at {_clock(self.at)}" if self.at else ""
        names = "; ".join(_label(r) for r in (self.turned_off + self.rewritten)[:3])
        kept = (
            " memory-cli keeps enforcing the rules as you last confirmed them"
            + (f" ({names})" if names else "")
            + "; if you made this change, run `memory-cli rules accept-changes`, otherwise `memory-cli doctor`."
        )
        return f"memory-cli: {what} by a process that was not memory-cli{when}.{kept}"


def _n(count: int) -> str:
    return f"{count} rule" + ("" if count == 1 else "s")


def _label(row: dict) -> str:
    text = " ".join(str(row.get("content") or row.get("pattern") or "").split())
    return f"{str(row.get('id', ''))[:8]} {text[:60]}".strip()


def _clock(at: str) -> str:
    """``2026-12-06T14:02:11.123Z`` as ``14:02 UTC`` (today) or ``2026-12-06 14:02 UTC``."""
    from ..util import now_iso

    day, _, rest = at.partition("T")
    hm = rest[:5]
    return f"{hm} UTC" if now_iso().startswith(day) else f"{day} {hm} UTC"


def _current_rows(store) -> list[dict]:
    from .rows import ROWS_SQL as _ROWS_SQL

    return store.rows(_ROWS_SQL)


def changes(store) -> Changes | None:
    """What changed outside memory-cli since the person last confirmed the rules (None: nothing)."""
    generation, confirmed, at = _state(store)
    if confirmed is None or confirmed == generation:
        return None
    out = Changes(at=at)
    snap = snapshot(store)
    if snap is None:
        out.unknown = True
        return out
    then = {r.get("id"): r for r in snap["rows"] if isinstance(r, dict)}
    now = {r["id"]: r for r in _current_rows(store)}
    for rid, row in then.items():
        if rid not in now:
            out.turned_off.append(row)
        elif (now[rid]["pattern"], now[rid]["action"]) != (row.get("pattern"), row.get("action")):
            out.rewritten.append(row)
    out.added = [r for rid, r in now.items() if rid not in then]
    return out


def refresh(store) -> None:
    """After memory-cli changed rules: the rules as they stand are the confirmed ones, recorded
    now (once per generation), unless they stand changed outside memory-cli."""
    generation, confirmed, _at = _state(store)
    if confirmed is not None and confirmed != generation:
        return
    snap_generation = store.value("SELECT json_extract(value, '$.generation') FROM kv WHERE key = ?", (ROWS_KEY,))
    if snap_generation is not None and int(snap_generation) == generation:
        return
    with store.transaction():
        record(store, generation, _current_rows(store))


def accept(store) -> dict:
    """The person's word: the rules as they stand now are the confirmed ones."""
    from .. import confirmation

    before = changes(store)
    with store.transaction():
        confirmation.confirm(store)
        generation = _state(store)[0]
        record(store, generation, _current_rows(store))
    return {
        "accepted": before is not None,
        "turned_off": len(before.turned_off) if before else 0,
        "rewritten": len(before.rewritten) if before else 0,
        "added": len(before.added) if before else 0,
    }
