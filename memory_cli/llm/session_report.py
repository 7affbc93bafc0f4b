"""The plain report of a session that the local reader writes (no model).

The next session starts from it ("Previous session in <project> ..."), so it must describe what
the person did: the requests they typed (not the task notifications, reminders, command
wrappers and continuation summaries Claude Code puts on their side of the transcript, which
:mod:`.transcript` leaves out), the first real request (not a bare ``ls``), the decisions the
person made when asked (answers to the agent's questions, an approved plan, the option they
picked from a list the agent offered) and the times they
corrected the agent: a call they rejected, an interruption, and a prompt that pushes back.
"""

from __future__ import annotations

import json
import re

from memory_cli.llm.transcript import Excerpt, Turn, clip

MAX_CORRECTIONS = 5
MAX_DECISIONS = 4
_EXIT = re.compile(r"\bexit (?:code|status)[: ]+([1-9]\d*)\b", re.I)
_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
# A prompt that answers the agent's last step by disagreeing with it. Narrow on purpose: on the
# labelled real prompts three in four of its matches are corrections.
_PUSHBACK = re.compile(
    r"""^\W*(?:no\b|nope\b|nah\b|wrong\b|not\s+(?:it|that|quite|really|what)\b|that'?s\s+not\b|thats\s+not\b
    |it'?s\s+not\b|its\s+not\b|that\s+is\s+not\b|still\b|stop\b|wait\b|why\s+(?:did|are|is|do)\s+you\b
    |i\s+(?:wanted|said|asked|told)\b|you\s+(?:didn'?t|didnt|did\s+not|forgot|missed|broke)\b|undo\b|revert\b)
    |\b(?:still\s+(?:fails?|failing|broken|not\s+working|doesn'?t|does\s+not|get(?:ting)?|the\s+same|an?\s+error
    |errors?|showing|there)|same\s+(?:error|issue|problem|thing)|(?:didn'?t|didnt|did\s+not|doesn'?t|doesnt
    |does\s+not)\s+(?:work|fix|help|solve|change)|not\s+working|not\s+the\s+(?:issue|problem|cause|reason)
    |that'?s\s+wrong|thats\s+wrong)\b""",
    re.I | re.X,
)
# A typed prompt that only picks one of the options the agent listed: "2", "c", "Option 1".
_PICK = re.compile(
    r"\W*(?:(?:let'?s\s+)?(?:go\s+with|use|do|pick|choose|take)\s+)?(?:option|approach|choice|solution)?\s*#?"
    r"(\d{1,2}|[a-e])\W{0,3}(?:please|pls)?\W*",
    re.I,
)
# What Claude Code answers for a call it cancelled because a parallel one failed: it never ran.
CANCELLED = "<tool_use_error>Cancelled: parallel tool call"
_ANSWERS = re.compile(r'"([^"]{1,300})"="([^"]{1,300})"')
_DISMISSED = "[User dismissed"


def failed(turn: Turn) -> bool:
    """A tool result that reports a failure. A call the person rejected, or that Claude Code
    cancelled, did not run, so it did not fail."""
    if turn.role != "result" or turn.rejected or turn.text.startswith(CANCELLED):
        return False
    return turn.is_error or bool(_EXIT.search(turn.text))


def pushback(text: str) -> bool:
    """True when a typed prompt disagrees with what the agent just did or said."""
    return bool(_PUSHBACK.search(text[:2000]))


def _one_line(text: str, limit: int) -> str:
    return clip(" ".join(text.split()), limit)


_BARE = re.compile(
    r"(?:(?:/[a-z][\w:-]*\s*)+|!.*|(?:ls|ll|dir|pwd|clear|cls|whoami|date|git\s+(?:status|log|diff))(?:\s+-\w+)*)",
    re.I,
)


def _a_request(text: str) -> bool:
    """Not a bare command typed as a prompt: ``ls``, ``git status``, ``/clear``, ``!make``."""
    return not _BARE.fullmatch(text.strip())


def _option(listing: str, pick: str) -> str | None:
    """The line of ``listing`` that offers option ``pick`` ("2. **Show projects first** ..."):
    the last one, as options close a message (an earlier numbered list explains the problem)."""
    found = re.findall(rf"(?im)^\W*(?:option\s+)?{re.escape(pick)}\s*[.):\-]\s*(?:\*\*)?(.+)$", listing)
    return _one_line(found[-1].replace("**", ""), 120) if found else None


def _decisions(ex: Excerpt) -> list[str]:
    out = []
    last_tool = None
    last_said = ""
    for turn in ex.turns:
        if turn.role == "assistant":
            last_said = turn.text
            continue
        if turn.role == "person":
            m = _PICK.fullmatch(turn.text.strip())
            if m and last_said:
                offered = _option(last_said, m.group(1))
                out.append(f"chose {m.group(1)}" + (f": {offered}" if offered else " of the options offered"))
            continue
        if turn.role == "tool":
            last_tool = turn
            continue
        if turn.role != "result" or turn.rejected or last_tool is None:
            continue
        if last_tool.tool == "AskUserQuestion":
            for question, answer in _ANSWERS.findall(turn.text):
                if not answer.startswith(_DISMISSED):
                    out.append(f"{_one_line(question, 120)} -> {_one_line(answer, 120)}")
        elif last_tool.tool == "ExitPlanMode" and "approved your plan" in turn.text:
            out.append(f"plan approved: {_plan_title(last_tool.tool_input, last_tool.text)}")
        last_tool = None
    return out[:MAX_DECISIONS]


# A plan's heading that names no subject ("Plan", "Implementation Plan", "Overview").
_GENERIC_HEADING = re.compile(
    r"(?:(?:the|my|proposed|implementation|updated|final)\s+)*(?:plan|overview|summary|context|goal|task)s?:?", re.I
)


# The start of the plan in the call's description (clipped JSON): ``{"plan": "# Title\n...``.
_PLAN_START = re.compile(r'"plan"\s*:\s*"((?:[^"\\]|\\.)*)')


def _plan_from_clipped(text: str) -> str:
    """The plan's text as far as the clipped description of the call holds it. The session-end
    job reads the call only after redaction, which keeps that description and nothing else."""
    try:
        plan = json.loads(text).get("plan", "")
        return plan if isinstance(plan, str) else ""
    except (ValueError, AttributeError):
        pass
    m = _PLAN_START.search(text)
    if not m:
        return ""
    body = re.sub(r"\\(?:u[0-9a-fA-F]{0,3})?$", "", m.group(1).rstrip("…"))  # a cut escape
    try:
        return json.loads(f'"{body}"')
    except ValueError:
        return body.replace("\\n", "\n")


def _plan_title(tool_input: dict | None, text: str) -> str:
    """What the approved plan is about, in a line: its first heading that names a subject, else
    its first line of prose. Read from the call's input, else from its clipped description."""
    plan = tool_input.get("plan") if isinstance(tool_input, dict) else None
    if not isinstance(plan, str):
        plan = _plan_from_clipped(text)
    if not isinstance(plan, str) or not plan.strip():
        return "(untitled)"
    for raw in plan.splitlines():
        line = raw.strip().lstrip("#").strip().strip("*_` ").strip()
        if not line or _GENERIC_HEADING.fullmatch(line):
            continue
        line = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", line).replace("**", "").replace("`", "")
        line = re.sub(r"^(?:implementation\s+)?plan\s*:\s*(?=\S)", "", line, flags=re.I)  # "Plan: Add X"
        return _one_line(line, 120)
    return "(untitled)"


def corrections(ex: Excerpt) -> list[str]:
    """The typed prompts that corrected the agent: the first prompt after the person interrupted
    or rejected a call, and any prompt that pushes back."""
    out = []
    after_stop = False  # the person interrupted or rejected a call since their last prompt
    for turn in ex.turns:
        if turn.role == "interrupt" or turn.role == "result" and turn.rejected:
            after_stop = True
        elif turn.role == "person":
            if after_stop or pushback(turn.text):
                out.append(turn.text)
            after_stop = False
    return out


def _path_end(path: str, limit: int) -> str:
    """A long path shortened from its start: files in one deep folder differ by their names."""
    path = path.strip()
    return path if len(path) <= limit else "…" + path[-(limit - 1) :]


# What Claude Code writes as the assistant's turn when there was nothing to answer.
_PLACEHOLDERS = ("no response requested.", "(no content)", "api error")


def _placeholder(text: str) -> bool:
    return text.strip().lower().startswith(_PLACEHOLDERS)


def report(ex: Excerpt, *, project: str | None) -> str:
    prompts = [t.text for t in ex.turns if t.role == "person"]
    tools = [t for t in ex.turns if t.role == "tool"]
    results = [t for t in ex.turns if t.role == "result"]
    failures = sum(1 for t in results if failed(t))
    rejected = sum(1 for t in results if t.rejected)
    interrupted = sum(1 for t in ex.turns if t.role == "interrupt")
    edited = sorted({t.text for t in tools if t.tool in _EDIT_TOOLS and t.text})
    last = next((t.text for t in reversed(ex.turns) if t.role == "assistant" and not _placeholder(t.text)), "")
    counts = f"{len(prompts)} typed request(s), {len(tools)} tool call(s), {failures} failed"
    if rejected:
        counts += f", {rejected} rejected by the person"
    if interrupted:
        counts += f", {interrupted} interruption(s)"
    lines = [f"Session{' ' + ex.session_id if ex.session_id else ''}{' in ' + project if project else ''}: {counts}."]
    first = next((p for p in prompts if _a_request(p)), None)
    if first:
        lines.append(f"First request: {_one_line(first, 200)}")
    decisions = _decisions(ex)
    if decisions:
        lines.append("Decisions: " + "; ".join(decisions))
    corrected = corrections(ex)
    if corrected:
        shown = [f'"{_one_line(c, 140)}"' for c in corrected[:MAX_CORRECTIONS]]
        more = f" and {len(corrected) - len(shown)} more" if len(corrected) > len(shown) else ""
        lines.append(f"Corrections ({len(corrected)}): " + "; ".join(shown) + more)
    if edited:
        lines.append(
            f"Files edited: {', '.join(_path_end(e, 80) for e in edited[:8])}"
            + (f" and {len(edited) - 8} more" if len(edited) > 8 else "")
        )
    commits = _commits(tools)
    if commits:
        lines.append(f"Commits ({len(commits)}): " + "; ".join(f'"{c}"' for c in commits[-3:]))
    requests = [p for p in prompts if _a_request(p)]
    open_ = left_open(ex)
    if requests and (requests[-1] != first or open_):
        lines.append(f"Last request{' (not finished)' if open_ else ''}: {_one_line(requests[-1], 200)}")
    if open_:
        lines.append(f"Left open: {open_}")
    if last:
        lines.append(f"Last answer: {clip(last, 300)}")
    return "\n".join(lines)


_COMMIT_MSG = re.compile(r"""git\s+commit\b[^\n]*?\s-(?:[a-z]*m)\s*(?:"([^"]+)"|'([^']+)'|(\S+))""")


# ``git commit -m "$(cat <<'EOF'`` then the message's first line.
_HEREDOC = re.compile(r"""git\s+commit\b.*?<<-?\s*['"]?(\w+)['"]?\s*\n\s*([^\n]+)""", re.S)


def _commits(tools: list[Turn]) -> list[str]:
    """The messages of the commits the session made (``git commit -m``), oldest first."""
    out = []
    for t in tools:
        if t.tool == "Bash" and "git commit" in t.text:
            heredoc = _HEREDOC.search(t.text)
            m = _COMMIT_MSG.search(t.text)
            if heredoc:
                out.append(_one_line(heredoc.group(2), 100))
            elif m:
                msg = next(g for g in m.groups() if g)
                out.append(_one_line(msg.split("\n")[0], 100))
    return out


# A closing question that asks for the next task, not about the one at hand.
_IDLE_QUESTION = re.compile(r"\b(?:what else|anything else|what(?:'s| is) next|what would you like)\b", re.I)


def left_open(ex: Excerpt) -> str | None:
    """What the session ended without: the person's last request unanswered or interrupted, the
    last command after it failing, or the agent's closing question. None when it ended on an
    answer."""
    after = []
    for t in reversed(ex.turns):
        if t.role == "person":
            break
        after.append(t)
    after.reverse()
    if not any(t.role == "person" for t in ex.turns):
        return None
    if not after:
        return "the last request got no answer"
    if after[-1].role == "interrupt":
        return "the person interrupted the answer to the last request"
    results = [t for t in after if t.role == "result" and not t.rejected]
    said = [t for t in after if t.role == "assistant" and not _placeholder(t.text)]
    if results and failed(results[-1]) and not (said and after.index(said[-1]) > after.index(results[-1])):
        return "the last command failed: " + _one_line(results[-1].text, 160)
    if after[-1].role in ("tool", "result") or (
        said and said[-1] is after[-1] and said[-1].text.rstrip().endswith(":") and len(after) > 1
    ):
        return "the session ended while the agent was still working"
    if said and said[-1].text.rstrip().endswith("?") and not _IDLE_QUESTION.search(said[-1].text[-200:]):
        return "the agent's closing question: " + _one_line(said[-1].text.rstrip().splitlines()[-1], 200)
    return None
