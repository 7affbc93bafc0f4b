"""The judge's request: written by memory-cli, short, quoting each lesson the person approved.

Claude Code runs a ``type: "prompt"`` Stop hook through its own small fast model with the hook
input in place of ``$ARGUMENTS`` (on Stop it holds ``last_assistant_message`` and
``stop_hook_active``), and reads ``{"ok": bool, "reason": str}`` back. In the pinned 2.1.328 the
evaluator's request also carries the conversation (the turn's calls and results included) before
this text, so the judge sees the final message and what the turn did. The same text (with the
input filled in) is what Codex CLI's and Gemini CLI's stop hooks send to the person's session
provider, and what ``scripts/score_stop_judge.py`` scores.

Bounds: at most :data:`MAX_LESSONS` lessons per check and :data:`MAX_PROMPT_CHARS` of prompt
(a longer lesson is cut); further lessons go to a second check. Each lesson carries a tag (its
id's first 8 characters) the reason starts with, so a send-back is counted against its lesson.
"""

from __future__ import annotations

MARKER = "memory-cli Stop check"
MAX_LESSONS = 8
MAX_LESSON_CHARS = 300
MAX_PROMPT_CHARS = 4000

TEMPLATE = """{marker}. The person who uses this coding agent approved these lessons; judge whether the \
agent's final message of this turn breaks one of them.

Lessons:
{lessons}

Rules for judging:
- Judge only what this turn shows: the final message (`last_assistant_message` in the input) \
and, when you are shown it, what the agent did since the person's last message. Do not guess.
- A lesson that does not apply to this message is kept. When in doubt, it is kept.
- If `stop_hook_active` is true in the input, the agent was already sent back once this turn: \
answer ok true.
- Answer {{"ok": false, "reason": "[TAG] what the agent must do now, in one sentence"}} only when \
the final message clearly breaks a lesson (TAG is that lesson's tag); otherwise \
{{"ok": true, "reason": "kept"}}.

Input: {arguments}"""


def tag(entry_id: str) -> str:
    return entry_id[:8]


def lesson_line(entry_id: str, text: str) -> str:
    t = " ".join((text or "").split())
    if len(t) > MAX_LESSON_CHARS:
        t = t[: MAX_LESSON_CHARS - 1] + "\u2026"
    return f'[{tag(entry_id)}] "{t}"'


def chunks(lessons: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """Lessons (id, text) in groups no larger than the caps, each group one check."""
    out: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    size = len(TEMPLATE)
    for lesson in lessons:
        n = len(lesson_line(*lesson)) + 1
        if cur and (len(cur) >= MAX_LESSONS or size + n > MAX_PROMPT_CHARS):
            out.append(cur)
            cur, size = [], len(TEMPLATE)
        cur.append(lesson)
        size += n
    if cur:
        out.append(cur)
    return out


def prompt(lessons: list[tuple[str, str]], arguments: str = "$ARGUMENTS") -> str:
    """The judge's request for these lessons; ``arguments``: the hook input, or Claude Code's
    ``$ARGUMENTS`` placeholder in the settings entry."""
    return TEMPLATE.format(marker=MARKER, lessons="\n".join(lesson_line(i, t) for i, t in lessons), arguments=arguments)


def tags_in(reason: str) -> list[str]:
    """The lesson tags a send-back's reason names."""
    import re

    return re.findall(r"\[([0-9a-zA-Z_-]{4,12})\]", reason or "")


def parse_verdict(text: str) -> dict | None:
    """``{"ok": bool, "reason": str}`` from a model's answer (the first JSON object in it), or
    None when there is none: a judge that failed."""
    import json

    if not isinstance(text, str):
        return None
    start = text.find("{")
    while start != -1:
        depth = 0
        for i in range(start, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    try:
                        obj = json.loads(text[start : i + 1])
                    except ValueError:
                        break
                    if isinstance(obj, dict) and isinstance(obj.get("ok"), bool):
                        return {"ok": obj["ok"], "reason": str(obj.get("reason") or "")}
                    break
        start = text.find("{", start + 1)
    return None
