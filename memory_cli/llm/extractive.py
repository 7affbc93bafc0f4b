"""Session memories without a model: only what the transcript proves.

Used when the provider is ``none`` (nothing leaves the machine), when the project is excluded,
and whenever a provider fails (error, timeout, cap, invalid answer). What the agent understood
in the session it records itself (``[MEMORY:...]`` markers, lessons through ``record_correction``):
a word-level reader cannot tell a conclusion from a guess, nor which of several commands fixed
a failure, and what it stores is injected into every later session. So this reader writes a
memory only where the transcript proves it:

* the same command failed, then passed, and exactly one thing happened in between: either files
  were edited and no other command ran, or one other command ran and nothing was edited (``npm
  install`` between two runs of ``npm test``). The memory names that change.

Everything else is left out, on purpose:

* a failure whose command later passed after several changes (which one fixed it is not known),
  or that a *different* command followed (a variant of the command is not proof that the
  original was wrong in that way: heredoc commit messages, another target, a hint in the output
  such as git's "use git add" name commands that were never the fix);
* the assistant's stated conclusions ("the root cause was ..."): often a guess the next turn
  refutes, and never checked;
* a call the person rejected or Claude Code cancelled (nothing ran), a command that only looks
  around (``ls``, ``grep`` whose exit code 1 means "no match"), and a destructive or abandoning
  command (``git push --force``, ``git cherry-pick --skip``) as a fix.

The session report is written by :mod:`.session_report`.
"""

from __future__ import annotations

import re
from collections import deque

from memory_cli.llm import command_kinds
from memory_cli.llm.session_report import CANCELLED, failed
from memory_cli.llm.session_report import report as report
from memory_cli.llm.transcript import Excerpt, clip

MAX_FIXES = 3
# How many more Bash calls a failure waits for its fix before it is given up.
FIX_WINDOW = 12

_EXCEPTION_LINE = re.compile(r"(?m)^(?:E\s+)?.*\b\w*(?:Error|Exception)\b:.*$")
_ERROR_LINE = re.compile(r"(?im)^.*\b(?:error|exception|failed|fatal|not found|no such|denied|refused|rejected)\b.*$")
_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
# A line that only warns is not the error, however it is worded ("warning: ... failed to ...").
_WARNING = re.compile(r"\b(?:warn(?:ing)?|deprecat\w*|notice|hint)\b\s*[:\]]", re.I)
# A log line at an ordinary level is not the error, whatever words it carries.
_LOG_LINE = re.compile(r"\b(?:INFO|DEBUG|TRACE)\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\[[0-9;]*m")
# Errors that report a mistake in code being written (the agent's own slip in a file it edits),
# not something about the project or the machine a later session could use.
_CODE_SLIP = re.compile(
    r"\b(?:SyntaxError|IndentationError|TabError|ReferenceError|NameError|is not defined|Unexpected token"
    r"|unterminated string|Invalid or unexpected token|error TS\d+|Cannot find name|undefined: )",
)


def _error_summary(text: str) -> str:
    """The line that says what went wrong: an exception, else an error line that is neither a
    warning nor an ordinary log line; empty when the output names no error (colour codes, a
    banner, a log line are not an error)."""
    text = _ANSI.sub("", text)
    found = [
        ln
        for ln in _EXCEPTION_LINE.findall(text) + _ERROR_LINE.findall(text)
        if not _WARNING.search(ln) and not _LOG_LINE.search(ln)
    ]
    line = found[0].strip() if found else ""
    return clip(re.sub(r"^E\s+", "", line), 160)


def _fix_for(failure: dict, cmd: str) -> str | None:
    """The memory when ``cmd`` (which succeeded) is the failed command passing after exactly
    one recorded change, else None."""
    if cmd.strip() != failure["cmd"].strip() or not failure["learnable"] or failure["unproven"]:
        return None
    if not failure["error"]:
        return None  # the output names no error: nothing a later session could recognise
    err = f" ({failure['error']})" if failure["error"] else ""
    edited = sorted({e for e in failure["edited"] if e})
    ran = failure["ran"]
    if len(ran) == 1 and not edited:
        # One command, then the very same call passed: that command is what changed (a
        # rejected push passes after a pull, a test run after an install).
        if command_kinds.destructive(ran[0]) or command_kinds.gives_up(ran[0]):
            return None
        return f"`{clip(failure['cmd'], 120)}` failed{err}; it passed after `{clip(ran[0], 160)}`."
    if edited and not ran:
        # Files edited until it passed: a lesson only when the error says what the project or the
        # machine needs (a missing module, an encoding the console lacks), not a slip in the code
        # being written.
        if _CODE_SLIP.search(failure["error"]):
            return None
        return (
            f"`{clip(failure['cmd'], 120)}` failed{err}; it passed after editing "
            f"{', '.join(clip(e, 80) for e in edited[:3])}."
        )
    return None  # a plain retry teaches nothing; after several changes, which one fixed it is unknown


def _fixes(ex: Excerpt) -> list[dict]:
    out = []
    pending: list[dict] = []  # failures waiting for their command to pass, oldest first
    # Calls waiting for their result, in order: parallel calls are answered in the order made.
    calls: deque[str | None] = deque()
    for turn in ex.turns:
        if turn.role == "person":
            calls.clear()
            continue
        if turn.role == "tool":
            calls.append(turn.text if turn.tool == "Bash" else None)
            if turn.tool in _EDIT_TOOLS:
                for failure in pending:
                    failure["edited"].append(turn.text)
            continue
        if turn.role != "result" or not calls:
            continue
        cmd = calls.popleft()
        if cmd is None:
            continue
        if turn.rejected or turn.text.startswith(CANCELLED):
            continue  # nothing ran: neither a failure nor a fix
        if failed(turn):
            # The same command failing again starts over: what counts is what came after the
            # last failure. Another command failing is a command that ran, too.
            pending = [f for f in pending if f["cmd"].strip() != cmd.strip()]
            for failure in pending:
                failure["unproven"] = True  # a change that itself failed proves nothing
            pending.append(
                {
                    "cmd": cmd,
                    "error": _error_summary(turn.text),
                    "edited": [],
                    "ran": [],
                    "unproven": False,
                    "learnable": not command_kinds.exploring(cmd),
                    "left": FIX_WINDOW,
                }
            )
            continue
        for failure in list(pending):
            if cmd.strip() != failure["cmd"].strip():
                continue
            pending.remove(failure)  # it passed: proved or not, it waits no more
            content = _fix_for(failure, cmd)
            if content:
                out.append(
                    {
                        "content": content,
                        "type": "pattern",
                        "category": "remediation",
                        "subject": command_kinds.head(failure["cmd"])[0] or None,
                        "why": "the same command passed after one change",
                    }
                )
                if len(out) >= MAX_FIXES:
                    return out
        for failure in list(pending):
            if not command_kinds.exploring(cmd):
                failure["ran"].append(cmd)
            failure["left"] -= 1
            if failure["left"] <= 0:
                pending.remove(failure)
    return out


def extract(ex: Excerpt, *, project: str | None) -> tuple[list[dict], str]:
    """(memories, report). Memories are scoped to the project when there is one, else global."""
    scope = project or "global"
    memories = []
    for m in _fixes(ex):
        memories.append({**m, "scope": scope})
    return memories, report(ex, project=project)
