"""What the agent did in the turn the person is answering: the context a short reply needs.

Most corrections people really type are a few words ("still broken", "nope", "use the venv")
that read as a correction only beside what the agent just did: "no" after "Should I delete the
branch?" answers a question; "no" after "Fixed! All tests pass" rejects the work. The words alone
cannot tell these apart, so detection also reads the agent's last turn from the transcript Claude
Code names in every hook payload: its last words, the tools it called, whether it edited files,
whether a call failed or was rejected by the person (in the permission prompt, or refused by
the permission check: :mod:`.denied`), whether the person interrupted it, and whether it ended
by asking something.

Standard library only, and cheap: the transcript is read backwards from its end (the turn being
answered is the last one) and at most :data:`MAX_BYTES` of it; tool results are never parsed, only
looked at for an error flag. The same function reads the labelled real prompts' transcripts
(``scripts/collect_real_context.py``), so the model is trained on exactly what the hook sees.
"""

from __future__ import annotations

import os

from ..fastjson import dumps, loads
from .transcript_records import blocks, is_assistant, is_person_prompt, reverse_lines

# The turn being answered is at the end of the transcript; a turn with long tool outputs may
# start earlier than this, and then its oldest part is not read (its last words are).
MAX_BYTES = 256 * 1024
MAX_RECORDS = 400
TEXT_KEEP = 600  # characters of the agent's last words kept

_EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch", "write_file", "replace"})
_REJECTED = (b"doesn't want to proceed", b"doesn\\u2019t want to proceed", b"tool use was rejected")
_INTERRUPTED = "[Request interrupted by user"


class AgentTurn:
    """The agent's last turn before a prompt. ``found`` is False when there was none (the
    session's first prompt); :func:`read` gives None instead when there is no transcript."""

    __slots__ = (
        "found",
        "text",
        "tools",
        "last_input",
        "edited",
        "errors",
        "rejected",
        "interrupted",
        "calls",
        "denied",
    )

    def __init__(self) -> None:
        self.found = False
        self.text = ""
        self.tools: list[str] = []
        self.last_input = ""  # the last tool call's input in one line (its command, file, ...)
        self.edited = False
        self.errors = 0
        self.rejected = False
        self.interrupted = False
        # its tool calls by id (what a PermissionDenied names): "Tool: input in one line"
        self.calls: dict[str, str] = {}
        self.denied = ""  # the call the permission check refused, as in ``calls`` (:mod:`.denied`)

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}

    def context_line(self, limit: int = 400) -> str:
        """One line for a correction's ``context`` column: the agent's last tool call, or
        failing that its last words ("" when there was no turn)."""
        if self.denied:
            text = f"after {self.denied} (refused by the permission check)"
        elif self.tools:
            text = f"after {self.tools[-1]}: {self.last_input}".rstrip(": ")
        elif self.text:
            text = "after the reply: " + " ".join(self.text.split())
        else:
            return ""
        return text if len(text) <= limit else text[: limit - 1] + "\u2026"

    @classmethod
    def from_dict(cls, data: dict) -> AgentTurn:
        turn = cls()
        for key in cls.__slots__:
            if key in data:
                setattr(turn, key, data[key])
        return turn


def _one_line(tool_input) -> str:
    """A tool call's input in one line: its command, file, path, pattern, URL, query,
    description or prompt, else the input as JSON; at most 300 characters."""
    if not isinstance(tool_input, dict):
        return str(tool_input)[:300] if tool_input is not None else ""
    for key in ("command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description", "prompt"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:300]
    try:
        return dumps(tool_input, ensure_ascii=False, sort_keys=True)[:300]
    except (TypeError, ValueError):
        return ""


def _typed_text(rec: dict) -> str:
    return "\n".join(
        b["text"] for b in blocks(rec) if b.get("type") == "text" and isinstance(b.get("text"), str)
    ).strip()


def from_lines(lines_newest_first, prompt: str | None = None) -> AgentTurn:
    """The agent's last turn from a transcript's raw JSONL lines, newest first. A person prompt
    equal to ``prompt`` met before any of the agent's records is the prompt being answered
    (Claude Code may have written it already) and is passed over; the next one ends the turn."""
    turn = AgentTurn()
    texts: list[str] = []
    want = prompt.strip() if isinstance(prompt, str) else None
    skipped_self = False
    for count, raw in enumerate(lines_newest_first):
        if count >= MAX_RECORDS:
            break
        if b'"tool_result"' in raw and b'"assistant"' not in raw:
            if b'"is_error":true' in raw or b'"is_error": true' in raw:
                turn.errors += 1
                if any(m in raw for m in _REJECTED):
                    turn.rejected = True
            turn.found = True
            continue
        raw = raw.strip()
        if not raw.startswith(b"{"):
            continue
        try:
            rec = loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        if not isinstance(rec, dict):
            continue
        if rec.get("type") == "user" and not rec.get("isSidechain"):
            text = _typed_text(rec)
            if text.startswith(_INTERRUPTED):
                turn.interrupted = True
                continue
            if is_person_prompt(rec):
                if not turn.found and not skipped_self and want is not None and text == want:
                    skipped_self = True
                    continue
                break
            continue
        if not is_assistant(rec):
            continue
        turn.found = True
        for block in reversed(blocks(rec)):
            kind = block.get("type")
            if kind == "tool_use" and isinstance(block.get("name"), str):
                said = _one_line(block.get("input"))
                if not turn.tools:
                    turn.last_input = said
                turn.tools.append(block["name"])
                if isinstance(block.get("id"), str) and block["id"]:
                    turn.calls[block["id"]] = f"{block['name']}: {said}".rstrip(": ")
                if block["name"] in _EDIT_TOOLS:
                    turn.edited = True
            elif kind == "text" and isinstance(block.get("text"), str) and len(texts) < 4:
                said = block["text"].strip()
                if said:
                    texts.append(said)
    turn.tools.reverse()
    if texts:
        turn.text = texts[0][-TEXT_KEEP:]
    return turn


def read(
    transcript_path: str | os.PathLike | None, prompt: str | None = None, max_bytes: int = MAX_BYTES
) -> AgentTurn | None:
    """The agent's last turn before ``prompt`` in the transcript at ``transcript_path``. Not
    ``found`` when there was none: the transcript holds no turn, or does not exist yet in a
    folder that does (Claude Code creates the file after the session's first prompt). None when
    there is nothing to read (no path, no folder, not a regular file), so that detection knows
    the context is unknown rather than empty."""
    if not transcript_path:
        return None
    try:
        if not os.path.isfile(transcript_path):
            if not os.path.lexists(transcript_path) and os.path.isdir(
                os.path.dirname(os.fspath(transcript_path)) or "."
            ):
                return AgentTurn()
            return None
        return from_lines(reverse_lines(transcript_path, max_bytes), prompt)
    except (OSError, TypeError, ValueError):
        return None
