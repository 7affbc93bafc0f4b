"""Reading a Claude Code transcript from its end: raw lines, records, and which record is what.

A hook that needs the current turn reads backwards from the end of the JSONL file, in chunks, up
to a byte limit, so that its cost does not grow with the session. Standard library only and
no regular expressions: the UserPromptSubmit hook imports this on most prompts
(:mod:`.agent_turn`), the Stop hook through :mod:`.markers`.
"""

from __future__ import annotations

import os

from ..fastjson import loads as _loads

INJECTED_OPEN = "<memory-cli-context>"
INJECTED_CLOSE = "</memory-cli-context>"


def reverse_lines(path: str | os.PathLike, max_bytes: int, chunk: int = 65536):
    """The raw lines of a file, newest first, read backwards in chunks of ``chunk`` bytes and
    never more than ``max_bytes`` in all. A FIFO, a device or an unreadable path yields nothing."""
    try:
        # Without blocking: a FIFO or a device as the transcript must not hold the hook.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, TypeError, ValueError):
        return
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return
        fh = os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        return
    with fh:
        try:
            fh.seek(0, os.SEEK_END)
            pos = fh.tell()
        except OSError:
            return
        floor = max(0, pos - max_bytes)
        carry = b""
        while pos > floor:
            step = min(chunk, pos - floor)
            pos -= step
            try:
                fh.seek(pos)
                data = fh.read(step) + carry
            except OSError:
                return
            lines = data.split(b"\n")
            if pos > floor or floor > 0:
                # The first piece starts mid-line: completed by the next (earlier) chunk, or,
                # at the byte limit, a fragment that is dropped.
                carry = lines.pop(0)
            else:
                carry = b""
            yield from reversed(lines)


def decode_line(raw: bytes) -> dict | None:
    """One line as a JSON object, or None (blank, broken, not an object, not UTF-8)."""
    raw = raw.strip()
    if not raw or raw[:1] != b"{":
        return None
    try:
        rec = _loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def message(rec: dict) -> dict:
    msg = rec.get("message")
    return msg if isinstance(msg, dict) else {}


def blocks(rec: dict) -> list:
    content = message(rec).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


_NOT_TYPED = (
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "[Request interrupted",
    "<local-command-stdout>",
    "Caveat: The messages below were generated",
    INJECTED_OPEN,
)


def is_person_prompt(rec: dict) -> bool:
    """A record holding what the person typed: the boundary between turns."""
    if rec.get("type") != "user" or rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isSidechain"):
        return False
    if message(rec).get("role") not in (None, "user"):
        return False
    parts = blocks(rec)
    if not parts or any(b.get("type") == "tool_result" for b in parts):
        return False
    texts = [b.get("text") for b in parts if b.get("type") == "text" and isinstance(b.get("text"), str)]
    if not texts and not any(b.get("type") == "image" for b in parts):
        return False
    joined = "\n".join(texts).lstrip()
    return not joined.startswith(_NOT_TYPED)


def is_assistant(rec: dict) -> bool:
    """A record of the main agent's own reply (not a subagent's, not an API error)."""
    if rec.get("type") != "assistant" or rec.get("isSidechain") or rec.get("isApiErrorMessage"):
        return False
    return message(rec).get("role") in (None, "assistant")
