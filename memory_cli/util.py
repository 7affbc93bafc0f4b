"""Small helpers shared by every layer: ids, timestamps, JSON.

Kept dependency-free and cheap to import because hooks load it on every tool call.
"""

from __future__ import annotations

import os
import time


def new_id() -> str:
    """A random UUID4 string, built without importing :mod:`uuid` (slow to import)."""
    b = bytearray(os.urandom(16))
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def now_iso() -> str:
    """UTC timestamp with microseconds, sortable as text (no ``datetime`` import: hook path)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int((t % 1) * 1_000_000):06d}Z"


def parse_iso(text: str):
    """Parse timestamps written by :func:`now_iso` or given by a person (ISO 8601)."""
    from datetime import datetime, timezone

    t = text.strip()
    if t.endswith("Z"):  # the store's own stamps: already UTC, nothing to convert
        return datetime.fromisoformat(t[:-1] + "+00:00")
    dt = datetime.fromisoformat(t)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def iso(dt) -> str:
    from datetime import timezone

    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(obj) -> str:
    """Compact JSON (``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``)."""
    from .fastjson import dumps as fast_dumps

    return fast_dumps(obj, ensure_ascii=False, compact=True)


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character: the one measure every redaction rule
    uses (the scanner rules' ``entropy`` thresholds in :mod:`memory_cli.privacy.secret_formats`, the
    random-looking tokens of :mod:`memory_cli.privacy.redact`)."""
    from math import log2  # only where a token is weighed: most hook calls never get here

    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * log2(c / n) for c in counts.values())
