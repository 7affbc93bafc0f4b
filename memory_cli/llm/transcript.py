"""Read the part of a Claude Code transcript (JSONL) that has not been summarised yet.

A transcript is appended to while a session runs, so reading resumes at a byte offset and
stops at the last complete line: a half-written line at the end is left for the next read.
Side chains (sub-agents), meta records, summaries and the text Claude Code injects into the
person's side of the conversation (``<system-reminder>``, ``<task-notification>``, command
wrappers, hook output, what the IDE says the person opened, the summary that continues a
compacted session) are skipped, so that a
``person`` turn is a prompt somebody typed. Tool calls and results are kept, shortened, because
"what failed and what fixed it" is most of what a coding session learns; a call the person
rejected is marked as such (Claude Code records it as an error, but nothing ran), and an
interruption by the person is kept as a turn of its own.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

TOOL_INPUT_CHARS = 400
TOOL_RESULT_CHARS = 800
TEXT_CHARS = 4000
# A long session's transcript can reach tens of megabytes; only its last part is read.
MAX_READ_BYTES = 8 * 1024 * 1024

_NOISE_PREFIXES = (
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "<task-notification>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-memory-input>",
    "<ide_opened_file>",
    "<ide_selection>",
    "Caveat: The messages below were generated",
    "This session is being continued from a previous conversation",
    "<memory-cli>",
)
_INTERRUPTED = "[Request interrupted"
# What Claude Code answers in place of a tool's result when the person declines the call.
_REJECTED = (
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action right now",
)


@dataclass
class Turn:
    """One step of the conversation: ``person`` (a typed prompt), ``assistant``, ``tool`` (a
    call), ``result`` or ``interrupt`` (the person stopped the assistant). ``rejected``: a result
    that only says the person declined the call."""

    role: str
    text: str
    tool: str | None = None
    is_error: bool = False
    tool_input: dict | None = None
    rejected: bool = False


@dataclass
class Excerpt:
    path: str
    start: int
    end: int
    turns: list[Turn] = field(default_factory=list)
    session_id: str | None = None
    cwd: str | None = None
    bad_lines: int = 0
    skipped_bytes: int = 0

    @property
    def empty(self) -> bool:
        return not any(t.role in ("person", "assistant") for t in self.turns)


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _blocks(content) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for b in _blocks(content):
        if b.get("type") == "text" and isinstance(b.get("text"), str):
            parts.append(b["text"])
    return "\n".join(parts)


def describe_tool_input(name: str, tool_input) -> str:
    if not isinstance(tool_input, dict):
        return ""
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return clip(value, TOOL_INPUT_CHARS)
    try:
        return clip(json.dumps(tool_input, ensure_ascii=False), TOOL_INPUT_CHARS)
    except (TypeError, ValueError):
        return ""


def read(path: str | os.PathLike, offset: int = 0) -> Excerpt:
    """Records from ``offset`` to the last complete line. Raises OSError if the file cannot be read."""
    path = os.fspath(path)
    size = os.path.getsize(path)
    if offset < 0 or offset > size:  # the file was replaced or truncated: start again
        offset = 0
    skipped = 0
    with open(path, "rb") as fh:
        if size - offset > MAX_READ_BYTES:
            fh.seek(size - MAX_READ_BYTES)
            fh.readline()  # realign on a line start
            skipped = fh.tell() - offset
        else:
            fh.seek(offset)
        data = fh.read()
    cut = data.rfind(b"\n")
    data = data[: cut + 1] if cut >= 0 else b""
    ex = Excerpt(path=path, start=offset, end=offset + skipped + len(data), skipped_bytes=skipped)
    for raw in data.split(b"\n"):
        raw = raw.strip()
        if not raw:
            continue
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            ex.bad_lines += 1
            continue
        if isinstance(rec, dict):
            _add_record(ex, rec)
        else:
            ex.bad_lines += 1
    return ex


def _add_record(ex: Excerpt, rec: dict) -> None:
    kind = rec.get("type")
    if kind not in ("user", "assistant"):
        return
    if ex.session_id is None and isinstance(rec.get("sessionId"), str):
        ex.session_id = rec["sessionId"]
    if isinstance(rec.get("cwd"), str):
        ex.cwd = ex.cwd or rec["cwd"]
    if rec.get("isSidechain") or rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isApiErrorMessage"):
        return
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return
    for block in _blocks(msg.get("content")):
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            text = block["text"].strip()
            if kind == "user" and text.startswith(_INTERRUPTED):
                ex.turns.append(Turn("interrupt", clip(text, 200)))
                continue
            if not text or text.startswith(_NOISE_PREFIXES):
                continue
            ex.turns.append(Turn("person" if kind == "user" else "assistant", clip(text, TEXT_CHARS)))
        elif btype == "tool_use" and kind == "assistant":
            name = str(block.get("name") or "tool")
            tin = block.get("input") if isinstance(block.get("input"), dict) else {}
            ex.turns.append(Turn("tool", describe_tool_input(name, tin), tool=name, tool_input=tin))
        elif btype == "tool_result" and kind == "user":
            text = _result_text(block)
            rejected = text.lstrip().startswith(_REJECTED)
            ex.turns.append(
                Turn("result", clip(text, TOOL_RESULT_CHARS), is_error=bool(block.get("is_error")), rejected=rejected)
            )


def redact_all(ex: Excerpt) -> int:
    """Redact every turn in place (before anything is shown, stored or sent); returns the count."""
    from memory_cli.privacy.redact import redact

    found = 0
    for t in ex.turns:
        t.text, kinds = redact(t.text)
        found += len(kinds)
        t.tool_input = None  # only the redacted description is kept
    return found


def render(ex: Excerpt) -> str:
    """The excerpt as plain text for a prompt: one line group per turn, roles in brackets."""
    lines = []
    for t in ex.turns:
        if t.role == "person":
            lines.append(f"[person] {t.text}")
        elif t.role == "assistant":
            lines.append(f"[assistant] {t.text}")
        elif t.role == "tool":
            lines.append(f"[tool {t.tool}] {t.text}")
        elif t.role == "interrupt":
            lines.append("[the person interrupted]")
        elif t.rejected:
            lines.append("[the person rejected this call]")
        else:
            lines.append(f"[{'error' if t.is_error else 'result'}] {t.text}")
    return "\n".join(lines)


def fit(text: str, max_chars: int) -> tuple[str, int]:
    """Cut ``text`` to ``max_chars`` in the middle (a session's start says what was asked, its end
    what came of it); returns the text and how many characters were left out."""
    if len(text) <= max_chars:
        return text, 0
    head = max_chars // 4
    tail = max_chars - head - 60
    omitted = len(text) - head - tail
    return text[:head] + f"\n[... {omitted} characters left out ...]\n" + text[-tail:], omitted
