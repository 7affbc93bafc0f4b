"""The calls of the turn that is ending, read from the transcript Claude Code names at Stop.

A deterministic Stop check needs what the turn did, in order: which files it wrote, which
commands it ran after. The transcript is read backwards from its end (the ending turn is the
last one) and at most :data:`MAX_BYTES` of it, up to the person's prompt that began the turn. A
Stop hook's own feedback (a send-back) does not begin a turn: the turn goes on after it.
Standard library only (the Stop hook imports this).
"""

from __future__ import annotations

import re

from ..capture.transcript_records import blocks, decode_line, is_assistant, is_person_prompt, reverse_lines

MAX_BYTES = 512 * 1024
MAX_RECORDS = 600
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
_FEEDBACK = ("Stop hook feedback", "Stop hook blocking error")

_GIT_COMMIT = re.compile(r"(?:^|[;&|(\s])git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+commit\b")
_TEST_RUN = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)\b"
    r"|\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\bmake\s+(?:test|check)\b|\b(?:cargo|go|dotnet|mix)\s+test\b"
)
_SHELL_WRITE = re.compile(r"\bsed\s+-i\b|\btee\s+(?!-a\s+/dev/)\S|(?<![0-9&>])>{1,2}\s*(?!&|/dev/null|/tmp/)[\w./-]")


class Call:
    __slots__ = ("tool", "text")

    def __init__(self, tool: str, text: str) -> None:
        self.tool = tool
        self.text = text  # the command, or the file it touches, in one line

    @property
    def writes(self) -> bool:
        return self.tool in EDIT_TOOLS or (self.tool == "Bash" and bool(_SHELL_WRITE.search(self.text)))

    @property
    def commits(self) -> bool:
        return self.tool == "Bash" and bool(_GIT_COMMIT.search(self.text))

    @property
    def tests(self) -> bool:
        return self.tool == "Bash" and bool(_TEST_RUN.search(self.text))

    def line(self, limit: int = 120) -> str:
        s = f"{self.tool}: {self.text}".rstrip(": ")
        return s if len(s) <= limit else s[: limit - 1] + "\u2026"


def _one_line(name: str, tool_input) -> str:
    if not isinstance(tool_input, dict):
        return ""
    for key in ("command", "file_path", "notebook_path", "path", "pattern", "url", "query"):
        v = tool_input.get(key)
        if isinstance(v, str) and v:
            return " ".join(v.split())
    return ""


def _typed(rec: dict) -> str:
    return "\n".join(b.get("text", "") for b in blocks(rec) if b.get("type") == "text").lstrip()


def calls(transcript_path: str | None, agent: str | None = None) -> list[Call] | None:
    """The ending turn's tool calls, oldest first; None when there is no transcript to read.
    ``agent`` codex or gemini: their own session files, read as Claude-shaped calls by the
    session replay's readers (a Codex patch becomes one Write/Edit per file)."""
    if not transcript_path or not isinstance(transcript_path, str):
        return None
    if agent in ("codex", "gemini"):
        return _agent_calls(transcript_path, agent)
    out: list[Call] = []
    seen_any = False
    try:
        for n, raw in enumerate(reverse_lines(transcript_path, MAX_BYTES)):
            seen_any = True
            if n >= MAX_RECORDS:
                break
            if b'"tool_use"' not in raw and b'"user"' not in raw:
                continue
            rec = decode_line(raw)
            if rec is None:
                continue
            if rec.get("type") == "user":
                if is_person_prompt(rec) and not _typed(rec).startswith(_FEEDBACK):
                    break
                continue
            if not is_assistant(rec):
                continue
            for block in reversed(blocks(rec)):
                if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                    out.append(Call(block["name"], _one_line(block["name"], block.get("input"))))
    except (OSError, ValueError):
        return None
    if not seen_any:
        return None
    out.reverse()
    return out


def _agent_calls(path: str, agent: str) -> list[Call] | None:
    from importlib import import_module

    try:
        session = import_module(f"memory_cli.replay.{agent}").read(path)
    except (OSError, ValueError):
        return None
    if session is None:
        return None
    last = max((c.turn for c in session.calls), default=0)
    if session.prompts and len(session.prompts) > last:
        return []  # the person spoke after the last call: this turn called nothing
    return [Call(c.tool, _one_line(c.tool, c.tool_input)) for c in session.calls if c.turn == last]


def summary(turn: list[Call], limit: int = 12) -> str:
    """The turn's calls in a few lines (a judge's or a person's view of what the turn did)."""
    if not turn:
        return "no tool calls"
    lines = [c.line() for c in turn[-limit:]]
    more = len(turn) - len(lines)
    return ("(" + str(more) + " earlier calls)\n" if more > 0 else "") + "\n".join(lines)
