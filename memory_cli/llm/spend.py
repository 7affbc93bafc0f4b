"""Tokens spent on models: the per-day cap, and what `stats` and the dashboard show.

People who let a tool read their sessions with a model want to know what it burns in the
background, and to bound it. Every request first checks that today's tokens (UTC) plus this
request's estimate stay within ``llm.daily_token_cap``; after the answer the tokens the provider
reports (or the estimate, when it reports none) are added to today's count in ``kv``. The
``llm_call`` audit rows carry each request's tokens and session, so the figures per day and per
session are read from there.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from memory_cli.llm.answers import LLMError

TOKENS_KEY = "llm.tokens:"


def _today() -> str:
    return datetime.now(timezone.utc).date().isoformat()


def tokens_today(store) -> int:
    from memory_cli.store import kvstate

    return int(kvstate.get(store, TOKENS_KEY + _today(), 0) or 0)


def check(store, cap: int, estimate: int) -> None:
    """Raise LLMError('cap') when ``estimate`` more tokens would pass today's cap."""
    used = tokens_today(store)
    if used + estimate > cap:
        raise LLMError(
            "cap",
            f"the daily token cap (llm.daily_token_cap) of {cap} is reached: {used} spent today, "
            f"this request needs about {estimate}",
        )


def spend(store, tokens: int) -> int:
    """Add ``tokens`` to today's count (older days' counts are dropped); returns the new total."""
    from memory_cli.store import kvstate

    key = TOKENS_KEY + _today()
    with store.transaction():
        used = int(kvstate.get(store, key, 0) or 0) + max(0, int(tokens))
        kvstate.put(store, key, used)
        kvstate.delete_prefix(store, TOKENS_KEY, keep=key)
    return used


def _calls(store, days: int) -> list[dict]:
    since = (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%Y-%m-%d")
    out = []
    for r in store.rows(
        "SELECT timestamp, session_id, details FROM memory_audit_log WHERE action = 'llm_call' "
        "AND result = 'ok' AND timestamp >= ? ORDER BY timestamp",
        (since,),
    ):
        try:
            d = json.loads(r["details"] or "{}")
        except ValueError:
            d = {}
        tokens = int(d.get("input_tokens") or d.get("estimated_tokens") or 0) + int(d.get("output_tokens") or 0)
        purpose = str(d.get("purpose") or "summarize")
        out.append({"day": str(r["timestamp"])[:10], "session": r["session_id"], "tokens": tokens, "purpose": purpose})
    return out


def summary(store, settings=None, *, days: int = 30, sessions: int = 10) -> dict:
    """Tokens per day (the last ``days``), per session (the last ``sessions``), per purpose (what
    they were spent on: ``summarize``, ``compact``, ``stop_check``), today's total against the cap."""
    from memory_cli.settings import value

    per_day: dict[str, dict] = {}
    per_session: dict[str, dict] = {}
    per_purpose: dict[str, dict] = {}
    for c in _calls(store, days):
        u = per_purpose.setdefault(c["purpose"], {"purpose": c["purpose"], "requests": 0, "tokens": 0})
        u["requests"] += 1
        u["tokens"] += c["tokens"]
        d = per_day.setdefault(c["day"], {"day": c["day"], "requests": 0, "tokens": 0})
        d["requests"] += 1
        d["tokens"] += c["tokens"]
        if c["session"]:
            s = per_session.setdefault(c["session"], {"session": c["session"], "day": c["day"], "tokens": 0})
            s["tokens"] += c["tokens"]
            s["day"] = c["day"]
    recent = sorted(per_session.values(), key=lambda s: s["day"])[-sessions:]
    return {
        "today": tokens_today(store),
        "daily_cap": int(value(settings, "llm.daily_token_cap")),
        "per_day": sorted(per_day.values(), key=lambda d: d["day"]),
        "per_session": list(reversed(recent)),
        "per_purpose": sorted(per_purpose.values(), key=lambda u: -u["tokens"]),
    }
