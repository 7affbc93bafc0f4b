"""Session memories without a model: what the transcript itself states plainly.

Used when the provider is ``none`` (nothing leaves the machine), when the project is excluded,
and whenever a provider fails (error, timeout, cap, invalid answer). It keeps two kinds of
knowledge a coding session reliably produces:

* the assistant's stated conclusions: sentences such as "The root cause was ...", "It turns
  out ...", "The fix was ...", "X fails because ...";
* the fix that ended a failure: a command that failed, followed later by a successful run of
  the same program (the command that worked, or the files edited in between).

It is conservative by design (a handful of memories per session, each a sentence the session
actually said) and writes a plain report of the session (requests, tools, failures, files).
"""

from __future__ import annotations

import re

from memory_cli.llm.transcript import Excerpt, clip

MAX_CONCLUSIONS = 5
MAX_FIXES = 3

_CONCLUSION = re.compile(
    r"\b(?:the (?:root )?cause (?:was|is)|the (?:real )?(?:fix|problem|issue|culprit|solution|reason) (?:was|is)"
    r"|it turn(?:s|ed) out|turns out|(?:was|were|is|are) caused by|(?:fails|failed|breaks|broke|happens|happened)"
    r" because|the trick (?:was|is)|lesson learned|note for next time|this project (?:uses|needs|requires))\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n+")
_EXIT = re.compile(r"\bexit (?:code|status)[: ]+([1-9]\d*)\b", re.I)
_EXCEPTION_LINE = re.compile(r"(?m)^(?:E\s+)?.*\b\w*(?:Error|Exception)\b:.*$")
_ERROR_LINE = re.compile(r"(?im)^.*\b(?:error|exception|failed|fatal|not found|no such|denied|refused)\b.*$")
_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")


def _conclusions(ex: Excerpt) -> list[dict]:
    out, seen = [], set()
    for turn in ex.turns:
        if turn.role != "assistant":
            continue
        for sentence in _SENTENCE.split(turn.text):
            s = " ".join(sentence.split()).strip(" -*#>")
            if len(s) < 25 or len(s) > 400 or not _CONCLUSION.search(s) or s.endswith("?"):
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


def _program(command: str) -> str:
    words = [w for w in re.split(r"\s+", command.strip()) if w and "=" not in w.split("/")[0]]
    skip = {"sudo", "env", "time", "uv", "poetry", "npx", "python", "python3", "-m", "run", "exec", "bash", "-c"}
    for w in words:
        if w not in skip and not w.startswith("-"):
            return w.strip("\"'").rsplit("/", 1)[-1]
    return words[0] if words else ""


def _failed(turn) -> bool:
    return turn.is_error or bool(_EXIT.search(turn.text))


def _error_summary(text: str) -> str:
    m = _EXCEPTION_LINE.findall(text) or _ERROR_LINE.findall(text)
    line = (m[0] if m else text.strip().splitlines()[-1] if text.strip() else "").strip()
    return clip(re.sub(r"^E\s+", "", line), 160)


def _fixes(ex: Excerpt) -> list[dict]:
    out = []
    pending: dict[str, dict] = {}  # program -> the failure waiting for its fix
    last_cmd = None
    for turn in ex.turns:
        if turn.role == "tool":
            if turn.tool == "Bash":
                last_cmd = turn.text
            else:
                last_cmd = None
                if turn.tool in _EDIT_TOOLS:
                    for failure in pending.values():
                        failure["edited"].append(turn.text)
            continue
        if turn.role != "result" or not last_cmd:
            continue
        prog = _program(last_cmd)
        if _failed(turn):
            pending.setdefault(prog, {"cmd": last_cmd, "error": _error_summary(turn.text), "edited": []})
        elif prog in pending:
            failure = pending.pop(prog)
            edited = sorted({e for e in failure["edited"] if e})
            err = f" ({failure['error']})" if failure["error"] else ""
            if last_cmd.strip() != failure["cmd"].strip():
                content = f"`{clip(failure['cmd'], 120)}` failed{err}; `{clip(last_cmd, 160)}` worked."
            elif edited:
                content = (
                    f"`{clip(failure['cmd'], 120)}` failed{err}; it passed after editing "
                    f"{', '.join(clip(e, 80) for e in edited[:3])}."
                )
            else:
                content = None
            if content:
                out.append(
                    {
                        "content": content,
                        "type": "pattern",
                        "category": "remediation",
                        "subject": prog or None,
                        "why": "fix that ended a failure",
                    }
                )
                if len(out) >= MAX_FIXES:
                    break
        last_cmd = None
    return out


def report(ex: Excerpt, *, project: str | None) -> str:
    prompts = [t.text for t in ex.turns if t.role == "person"]
    tools = [t for t in ex.turns if t.role == "tool"]
    failures = [t for t in ex.turns if t.role == "result" and _failed(t)]
    edited = sorted({t.text for t in tools if t.tool in _EDIT_TOOLS and t.text})
    last = next((t.text for t in reversed(ex.turns) if t.role == "assistant"), "")
    lines = [
        f"Session{' ' + ex.session_id if ex.session_id else ''}"
        f"{' in ' + project if project else ''}: {len(prompts)} request(s), {len(tools)} tool call(s), "
        f"{len(failures)} failed."
    ]
    if prompts:
        lines.append(f"First request: {clip(prompts[0], 200)}")
    if edited:
        lines.append(
            f"Files edited: {', '.join(clip(e, 80) for e in edited[:8])}"
            + (f" and {len(edited) - 8} more" if len(edited) > 8 else "")
        )
    if last:
        lines.append(f"Last answer: {clip(last, 300)}")
    return "\n".join(lines)


def extract(ex: Excerpt, *, project: str | None) -> tuple[list[dict], str]:
    """(memories, report). Memories are scoped to the project when there is one, else global."""
    scope = project or "global"
    memories = []
    for m in _fixes(ex) + _conclusions(ex):
        memories.append({**m, "scope": scope})
    return memories, report(ex, project=project)
