"""Session memories without a model: what the transcript itself states plainly.

Used when the provider is ``none`` (nothing leaves the machine), when the project is excluded,
and whenever a provider fails (error, timeout, cap, invalid answer). It keeps two kinds of
knowledge a coding session reliably produces:

* the assistant's stated conclusions: sentences such as "The root cause was ...", "It turns
  out ...", "The fix was ...", "X fails because ...";
* the fix that ended a failure: a command that failed, followed later by the same command
  corrected, by a command the error message itself named, or by the same command passing
  after files were edited or after exactly one other command ran.

Read on real sessions, most candidates are not knowledge, so each kind is filtered:

* a call the person rejected did not fail (nothing ran); a command that only looks around
  (``ls``, ``grep`` whose exit code 1 means "no match", ``df`` on a guessed path) is not a
  failure to learn from, and a look-around command is not a fix;
* the next successful command of the same program is not a fix unless it is the failed one
  corrected or named in the error; a destructive command (``git branch -D``, ``git push
  --force``, ``rm`` ...) is never learned as a fix here, where no person reviews it;
* a conclusion that is hedged ("likely", "might", "something somewhere"), only says where the
  problem was ("the problem was in the test files"), says nothing ("the issue is confirmed"), is
  cut mid-thought (ends in a colon), or that the person answered by interrupting, rejecting the
  next call or pushing back ("no", "still fails", "I wanted ...") is not stored.

It is conservative by design (a handful of memories per session, each a sentence the session
actually said). The session report is written by :mod:`.session_report`.
"""

from __future__ import annotations

import re
from collections import deque

from memory_cli.llm import command_kinds
from memory_cli.llm.session_report import CANCELLED, failed, pushback
from memory_cli.llm.session_report import report as report
from memory_cli.llm.transcript import Excerpt, clip

MAX_CONCLUSIONS = 5
MAX_FIXES = 3
# How many more Bash calls a failure waits for its fix before it is given up.
FIX_WINDOW = 12

_CONCLUSION = re.compile(
    r"\b(?:the (?:root )?cause (?:was|is)|the (?:real )?(?:fix|problem|issue|culprit|solution|reason) (?:was|is)"
    r"|it turn(?:s|ed) out|turns out|(?:was|were|is|are) caused by|(?:fails|failed|breaks|broke|happens|happened)"
    r" because|the trick (?:was|is)|lesson learned|note for next time|this project (?:uses|needs|requires))\b",
    re.I,
)
_HEDGED = re.compile(
    r"\b(?:likely|probably|possibly|perhaps|maybe|might|may be|could be|seems?|appears?|looks like|i think"
    r"|i suspect|i believe|suspect|guess|something|somewhere|somehow)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n+")
_EXCEPTION_LINE = re.compile(r"(?m)^(?:E\s+)?.*\b\w*(?:Error|Exception)\b:.*$")
_ERROR_LINE = re.compile(r"(?im)^.*\b(?:error|exception|failed|fatal|not found|no such|denied|refused|rejected)\b.*$")
_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
# A conclusion that only says where the problem was ("The problem was in the prompts in both
# test files") teaches nothing once that code has changed.
_ONLY_WHERE = re.compile(r"\s+(?:in|inside|within)\b", re.I)
# At least this many words after the marker ("a stale cache"): "the issue is confirmed" says nothing.
_MIN_WORDS_AFTER = 3


def _refuted_turns(ex: Excerpt) -> set[int]:
    """Indexes of assistant turns whose conclusions the person answered against: the stretch of
    assistant turns before an interruption, a rejected call or a prompt that pushes back."""
    out: set[int] = set()
    stretch: list[int] = []
    for i, turn in enumerate(ex.turns):
        if turn.role == "assistant":
            stretch.append(i)
        elif turn.role == "interrupt" or (turn.role == "result" and turn.rejected):
            out.update(stretch)
            stretch = []
        elif turn.role == "person":
            if pushback(turn.text):
                out.update(stretch)
            stretch = []
    return out


def _stated(sentence: str) -> bool:
    """A conclusion stated plainly and whole, with something said after the marker."""
    m = _CONCLUSION.search(sentence)
    if not m or sentence.endswith(("?", ":", "…", "...")) or _HEDGED.search(sentence):
        return False
    rest = sentence[m.end() :]
    if _ONLY_WHERE.match(rest):
        return False  # "the problem was in the test files" says where, not what
    return len(re.findall(r"\w+", rest)) >= _MIN_WORDS_AFTER


def _conclusions(ex: Excerpt) -> list[dict]:
    out, seen = [], set()
    refuted = _refuted_turns(ex)
    for i, turn in enumerate(ex.turns):
        if turn.role != "assistant" or i in refuted:
            continue
        for sentence in _SENTENCE.split(turn.text):
            s = " ".join(sentence.split()).strip(" -*#>")
            if len(s) < 25 or len(s) > 400 or not _stated(s):
                continue
            key = s.lower()
            if key in seen:
                continue
            seen.add(key)
            fixish = re.search(r"\b(fix|solution|trick|cause|because|culprit)\b", s, re.I)
            out.append(
                {
                    "content": s,
                    "type": "fact",
                    "category": "remediation" if fixish else None,
                    "subject": None,
                    "why": "stated conclusion",
                }
            )
            if len(out) >= MAX_CONCLUSIONS:
                return out
    return out


def _error_summary(text: str) -> str:
    m = _EXCEPTION_LINE.findall(text) or _ERROR_LINE.findall(text)
    line = (m[0] if m else text.strip().splitlines()[-1] if text.strip() else "").strip()
    return clip(re.sub(r"^E\s+", "", line), 160)


def _learnable_failure(cmd: str) -> bool:
    return not command_kinds.exploring(cmd)


def _fix_for(failure: dict, cmd: str) -> str | None:
    """The memory when ``cmd`` (which succeeded) fixed ``failure``, else None."""
    if command_kinds.destructive(cmd) or command_kinds.gives_up(cmd):
        return None
    err = f" ({failure['error']})" if failure["error"] else ""
    if cmd.strip() == failure["cmd"].strip():
        edited = sorted({e for e in failure["edited"] if e})
        ran = failure["ran"]
        if len(ran) == 1 and not edited and failure["learnable"]:
            # One command, then the very same call passed: that command is what the agent
            # did about the failure (a rejected push passes after a pull).
            if command_kinds.destructive(ran[0]) or command_kinds.gives_up(ran[0]):
                return None
            return f"`{clip(failure['cmd'], 120)}` failed{err}; it passed after `{clip(ran[0], 160)}`."
        if not edited or ran:
            # A plain retry teaches nothing; after edits and other commands, which one fixed it
            # is not known.
            return None
        return (
            f"`{clip(failure['cmd'], 120)}` failed{err}; it passed after editing "
            f"{', '.join(clip(e, 80) for e in edited[:3])}."
        )
    if not failure["learnable"] or command_kinds.exploring(cmd):
        return None
    # Tied to the failure: the error message named it ("Run git config --global user.email").
    # Neither the assistant's narration (it names every command it is about to run) nor the
    # person's next prompt ("git push" typed as the next request) ties a command to a failure.
    tied = command_kinds.named_in(cmd, failure["output"])
    if not (command_kinds.corrected(failure["cmd"], cmd) or tied):
        return None
    return f"`{clip(failure['cmd'], 120)}` failed{err}; `{clip(cmd, 160)}` worked."


def _fixes(ex: Excerpt) -> list[dict]:
    out = []
    pending: list[dict] = []  # failures waiting for their fix, oldest first
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
            if not any(f["cmd"].strip() == cmd.strip() for f in pending):
                pending.append(
                    {
                        "cmd": cmd,
                        "error": _error_summary(turn.text),
                        "output": turn.text,
                        "edited": [],
                        "ran": [],
                        "learnable": _learnable_failure(cmd),
                        "left": FIX_WINDOW,
                    }
                )
            continue
        for failure in list(pending):
            content = _fix_for(failure, cmd)
            if content:
                pending.remove(failure)
                out.append(
                    {
                        "content": content,
                        "type": "pattern",
                        "category": "remediation",
                        "subject": command_kinds.head(failure["cmd"])[0] or None,
                        "why": "fix that ended a failure",
                    }
                )
                if len(out) >= MAX_FIXES:
                    return out
                break
        for failure in list(pending):
            if cmd.strip() != failure["cmd"].strip() and not command_kinds.exploring(cmd):
                failure["ran"].append(cmd)
            failure["left"] -= 1
            if failure["left"] <= 0:
                pending.remove(failure)
    return out


def extract(ex: Excerpt, *, project: str | None) -> tuple[list[dict], str]:
    """(memories, report). Memories are scoped to the project when there is one, else global."""
    scope = project or "global"
    memories = []
    for m in _fixes(ex) + _conclusions(ex):
        memories.append({**m, "scope": scope})
    return memories, report(ex, project=project)
