"""Memory markers in the agent's own words, and the transcript reading that finds them.

The agent records operational knowledge by writing ``[MEMORY:<category>] observation`` or
``[MEMORY:<category>:<subject>] observation`` in its reply. Only the assistant's
own text may produce a memory: never a tool result (a file the agent read could contain
markers), never the person's text, never text memory-cli itself put into the conversation
(injected context, the marker instructions and their examples). So parsing

* drops blocks memory-cli injected (between :data:`INJECTED_OPEN` and :data:`INJECTED_CLOSE`,
  and Claude Code's ``<system-reminder>`` wrapper), code fences, inline code and ``>`` quotes
  (markers shown as examples, not made);
* drops markers identical to the examples in :mod:`.instructions`;
* reports markers with an unknown category (or a malformed subject) separately, so the caller
  logs a warning instead of storing them (``[MEMORY:misc] ...`` is rejected).

Transcript reading is defensive: the JSONL format is undocumented, so unknown records and
broken lines are skipped, and only the last few megabytes of a long transcript are read.
Standard library only: this runs in the Stop hook after every turn.
"""

from __future__ import annotations

import os
import re

from ..files import regex_cache
from .transcript_records import INJECTED_CLOSE, INJECTED_OPEN, reverse_lines
from .transcript_records import blocks as _blocks
from .transcript_records import decode_line as _decode_line
from .transcript_records import is_assistant as _is_assistant
from .transcript_records import is_person_prompt as _is_person_prompt
from .transcript_records import message as _message

__all__ = [
    "CATEGORIES",
    "MARKER_REGEX",
    "INJECTED_OPEN",
    "INJECTED_CLOSE",
    "Marker",
    "ParsedMarkers",
    "parse_markers",
    "strip_injected",
    "wrap_injected",
    "assistant_text_since_last_stop",
    "MAX_TRANSCRIPT_BYTES",
    "reverse_lines",
]

CATEGORIES = ("timing", "dependency", "behavior", "remediation", "maintenance")
# Seed 000, verbatim.
MARKER_REGEX = r"\[MEMORY:(timing|dependency|behavior|remediation|maintenance)(?::([a-zA-Z0-9_-]+))?\]\s*(.+)"
# Anything that tries to be a marker, so that the ones the marker format rejects can be reported.
_ANY_MARKER_REGEX = r"\[(?i:memory):([^\]\s:]*)(?::([^\]]*))?\]\s*(.*)"

MAX_TRANSCRIPT_BYTES = 4 * 1024 * 1024
MAX_OBSERVATION = 1000

_compiled: dict[str, re.Pattern[str]] = {}


def _re(name: str) -> re.Pattern[str]:
    p = _compiled.get(name)
    if p is None:
        p = regex_cache.compile(
            {
                "marker": MARKER_REGEX,
                "any": _ANY_MARKER_REGEX,
                "start": r"\[(?i:memory):",
                "injected": re.escape(INJECTED_OPEN) + r"[\s\S]*?(?:" + re.escape(INJECTED_CLOSE) + r"|\Z)",
                "reminder": r"<system-reminder>[\s\S]*?(?:</system-reminder>|\Z)",
                "fence": r"(?ms)^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)",
                "inline": r"`[^`\n]*`",
                "quote": r"(?m)^[ \t]*>.*$",
                "tag": r"(?i)<(\s*/?\s*memory-cli-context)",
            }[name]
        )
        _compiled[name] = p
    return p


class Marker:
    """One marker. ``problem`` says why a rejected marker was rejected (None when valid)."""

    __slots__ = ("category", "subject", "observation", "raw", "problem")

    def __init__(self, category: str, subject: str | None, observation: str, raw: str, problem: str | None = None):
        self.category, self.subject, self.observation = category, subject, observation
        self.raw, self.problem = raw, problem

    def _key(self) -> tuple:
        return (self.category, self.subject, self.observation, self.raw, self.problem)

    def __eq__(self, other) -> bool:
        return isinstance(other, Marker) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"Marker({self.category!r}, {self.subject!r}, {self.observation!r}, problem={self.problem!r})"


class ParsedMarkers:
    """``markers``: valid, store them; ``unknown``: rejected, log a warning for each."""

    __slots__ = ("markers", "unknown")

    def __init__(self) -> None:
        self.markers: list[Marker] = []
        self.unknown: list[Marker] = []

    def __bool__(self) -> bool:
        return bool(self.markers or self.unknown)


def strip_injected(text: str) -> str:
    """Remove what memory-cli (or Claude Code's hook wrapper) put into the conversation."""
    if not text:
        return ""
    text = _re("injected").sub("", text)
    return _re("reminder").sub("", text)


def wrap_injected(text: str) -> str:
    """Wrap context memory-cli injects so that an agent echoing it never re-stores it.

    A memory's own text cannot open or close the wrapper: ``<memory-cli-context>`` or its
    closing tag inside it (any case, any spacing) loses its ``<``, so what follows it still
    reads as injected context, not as words outside the wrapper."""
    if "memory-cli-context" in text.lower():
        text = _re("tag").sub(lambda m: "&lt;" + m.group(1), text)
    return f"{INJECTED_OPEN}\n{text}\n{INJECTED_CLOSE}"


def _clean_observation(obs: str) -> str:
    obs = obs.strip()
    obs = regex_cache.sub(r"^[*_~]+\s*", "", obs)  # "**[MEMORY:x]** observation"
    obs = regex_cache.sub(r"\s*[*_~]+$", "", obs)
    obs = obs.strip()
    if len(obs) > MAX_OBSERVATION:
        obs = obs[:MAX_OBSERVATION].rstrip() + "…"
    return obs


def _example_keys() -> set[tuple[str, str | None, str]]:
    from .instructions import EXAMPLES

    return {(c, s, o) for c, s, o in EXAMPLES}


def parse_markers(text: str) -> ParsedMarkers:
    """Markers in one piece of assistant text. Never raises on string input."""
    result = ParsedMarkers()
    if not text or not isinstance(text, str) or "[" not in text:
        return result
    if not _re("start").search(text):
        return result
    text = strip_injected(text)
    text = _re("fence").sub("", text)
    text = _re("quote").sub("", text)
    text = _re("inline").sub("", text)
    examples = _example_keys()
    seen: set[tuple[str, str | None, str]] = set()
    for line in text.splitlines():
        starts = [m.start() for m in _re("start").finditer(line)]
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else len(line)
            segment = line[start:end].rstrip()
            m = _re("marker").match(segment)
            if m:
                obs = _clean_observation(m.group(3))
                key = (m.group(1), m.group(2), obs)
                if obs and key not in examples and key not in seen:
                    seen.add(key)
                    result.markers.append(Marker(m.group(1), m.group(2), obs, segment))
                continue
            a = _re("any").match(segment)
            if a is None:
                result.unknown.append(Marker("", None, "", segment[:200], "malformed marker"))
                continue
            category, subject, obs = a.group(1), a.group(2), _clean_observation(a.group(3))
            if category.startswith("<"):
                continue  # the format's placeholder, as in the instructions: not an attempt
            if category not in CATEGORIES:
                problem = f"unknown category {category!r} (allowed: {', '.join(CATEGORIES)})"
            elif not obs:
                problem = "empty observation"
            else:
                problem = f"malformed subject {subject!r} (letters, digits, '-' and '_' only)"
            result.unknown.append(Marker(category, subject or None, obs, segment[:200], problem))
    return result


# --------------------------------------------------------------------------- transcript


def _reverse_records(path: str | os.PathLike, max_bytes: int, chunk: int = 65536):
    """JSON objects of a JSONL file, newest first, reading backwards in chunks so that the
    usual case (the current turn is near the end) reads a few kilobytes, never more than
    ``max_bytes``. Broken lines and non-objects are skipped, and so are tool results (often
    the largest lines, never a turn boundary)."""
    for raw in reverse_lines(path, max_bytes, chunk):
        if b'"tool_result"' in raw and b'"assistant"' not in raw:
            continue
        rec = _decode_line(raw)
        if rec is not None:
            yield rec


def assistant_text_since_last_stop(
    transcript_path: str | os.PathLike | None, max_bytes: int = MAX_TRANSCRIPT_BYTES
) -> str:
    """The assistant's own text blocks of the current turn (since the person's last prompt),
    oldest first, joined by blank lines. Tool results, tool inputs, thinking, the person's
    text and subagent (sidechain) records are never included. "" when unreadable."""
    if not transcript_path:
        return ""
    pieces: list[str] = []
    seen: set[tuple] = set()
    for rec in _reverse_records(transcript_path, max_bytes):
        if _is_person_prompt(rec):
            break
        if not _is_assistant(rec):
            continue
        msg_id = _message(rec).get("id") or rec.get("uuid")
        texts = [b.get("text") for b in _blocks(rec) if b.get("type") == "text" and isinstance(b.get("text"), str)]
        for text in reversed(texts):
            key = (msg_id, text)
            if key in seen or not text.strip():
                continue
            seen.add(key)
            pieces.append(text)
    pieces.reverse()
    return "\n\n".join(pieces)
