"""Checking free-text fields that people and agents hand to the stores: one place that trims,
refuses empty required text, redacts secrets and bounds the length, so that the incident,
report and metric stores treat every field the same way memory entries do."""

from __future__ import annotations

from .errors import InvalidInput

MAX_TEXT = 20_000


def text(store, value, name: str, *, required: bool = False, max_len: int = MAX_TEXT) -> str | None:
    """``value`` as stored text: stripped, redacted, at most ``max_len`` characters (redacted
    first, so a cut never leaves part of a secret). None for an optional empty field."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise InvalidInput(f"{name} is empty")
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be text, got {type(value).__name__}")
    from .privacy.redact import redact

    clean, kinds = redact(value.strip())
    if kinds and store is not None:
        store.warn(f"redacted {len(kinds)} secret(s) in {name} before storing")
    if len(clean) > max_len:
        clean = clean[: max_len - 12] + " [cut here]"
    return clean


def choice(value, name: str, allowed: tuple[str, ...], default: str | None = None) -> str:
    if value is None or value == "":
        if default is None:
            raise InvalidInput(f"{name} is required: one of {', '.join(allowed)}")
        return default
    v = str(value).strip().lower()
    if v not in allowed:
        raise InvalidInput(f"unknown {name} {value!r}: use {', '.join(allowed)}")
    return v


def limit(value, default: int = 10, maximum: int = 100) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(f"limit must be a positive whole number, got {value!r}")
    return min(value, maximum)
