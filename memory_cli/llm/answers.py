"""What every provider returns, and how it fails: shared by :mod:`.providers` and the providers
kept in modules of their own (:mod:`.openai_compat`), so that neither imports the other."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

MAX_OUTPUT_TOKENS = 4096


class LLMError(Exception):
    """A request that gave no usable answer. ``kind``: timeout, rate_limit, server, client,
    connection, malformed, cap, config."""

    def __init__(self, kind: str, message: str, *, retryable: bool = False, retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.retry_after = retry_after


@dataclass
class Answer:
    input: dict
    provider: str
    model: str | None
    input_tokens: int | None = None
    output_tokens: int | None = None


def _json_object(text: str) -> dict | None:
    """The JSON object in a model's text answer (bare, or inside a ``` fence)."""
    text = text.strip()
    fence = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    if fence:
        text = fence.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start : end + 1])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _retry_after(response) -> float | None:
    try:
        value = response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None


def _short(text: str, limit: int = 200) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
