"""A long session told in a budget: what a memory can come from, not the head and tail of a log.

One summary request must stay within ``llm.max_input_tokens`` in all (system prompt, existing
memories, transcript and the answer's schema). A long session's rendered transcript is several
times that, and cutting its middle loses exactly what memories are made of: the person's
corrections halfway through, the failure that took an hour and what finally ended it. So the
turns are ranked by what they carry, and the least telling go first:

1. what the person typed (every prompt; long pasted text clipped, the last prompt whole), their
   interruptions and the calls they rejected: never dropped;
2. failures (the error, the call that failed) and the call and result that ended them;
3. the agent's conclusions: its last words before each prompt and at the end, and any text that
   gives a reason or a decision ("because", "root cause", "instead", "decided");
4. the rest of the agent's text;
5. other tool calls (kept as one short line each), then their results (dropped first).

Within a rank, turns far from any prompt go before turns next to one, and the survivors are
shown in their order, with one marker per gap. Tokens are estimated without a tokenizer:
ASCII text at 3.5 characters a token, any other character (CJK, accents, symbols) a token each,
which over-counts English prose rather than under-counts code or Chinese.
"""

from __future__ import annotations

import re

from memory_cli.llm.transcript import Excerpt, Turn, clip

PERSON_CHARS = 1500  # a pasted log or brief beyond this is clipped; the last prompt is kept whole
LAST_PERSON_CHARS = 4000
ERROR_CHARS = 600
RESULT_CHARS = 300
ASSISTANT_CHARS = 1200
CALL_CHARS = 200

_REASON = re.compile(
    r"\b(because|root cause|the (?:fix|cause|problem|issue) (?:is|was)|instead|decided|turns out|"
    r"the reason|so that|works now|fixed|should not|must not|never|always)\b",
    re.IGNORECASE,
)


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` as a Claude-class tokenizer counts them, estimated from above for code
    and non-English text."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return int(ascii_chars / 3.5) + (len(text) - ascii_chars) + 1


def _line(t: Turn, limit: int | None = None) -> str:
    if t.role == "person":
        return f"[person] {clip(t.text, limit or PERSON_CHARS)}"
    if t.role == "assistant":
        return f"[assistant] {clip(t.text, limit or ASSISTANT_CHARS)}"
    if t.role == "tool":
        return f"[tool {t.tool}] {clip(t.text, limit or CALL_CHARS)}"
    if t.role == "interrupt":
        return "[the person interrupted]"
    if t.rejected:
        return "[the person rejected this call]"
    if t.is_error:
        return f"[error] {clip(t.text, limit or ERROR_CHARS)}"
    return f"[result] {clip(t.text, limit or RESULT_CHARS)}"


def _ranks(turns: list[Turn]) -> list[int]:
    """The rank (1 = kept longest) of each turn, as the module docstring lists them."""
    n = len(turns)
    rank = [5] * n
    next_person = [n] * n
    upcoming = n
    for i in range(n - 1, -1, -1):
        next_person[i] = upcoming
        if turns[i].role in ("person", "interrupt"):
            upcoming = i
    last_assistant_before: set[int] = set()
    for i, t in enumerate(turns):
        if t.role == "assistant":
            # the agent's last words before the next prompt (or the end): its conclusion
            later = turns[i + 1 : next_person[i]]
            if not any(u.role == "assistant" for u in later):
                last_assistant_before.add(i)
    for i, t in enumerate(turns):
        if t.role in ("person", "interrupt") or t.rejected:
            rank[i] = 1
        elif t.role == "result" and t.is_error:
            rank[i] = 2
            if i > 0 and turns[i - 1].role == "tool":
                rank[i - 1] = min(rank[i - 1], 2)
        elif t.role == "assistant":
            rank[i] = 3 if (i in last_assistant_before or _REASON.search(t.text)) else 4
        elif t.role == "tool":
            rank[i] = min(rank[i], 5)
        else:
            rank[i] = 6
    # What ended a failure: the next call of the same tool that did not fail, and its result.
    for i, t in enumerate(turns):
        if t.role == "result" and t.is_error and i > 0 and turns[i - 1].role == "tool":
            tool = turns[i - 1].tool
            for j in range(i + 1, min(n - 1, i + 40)):
                if turns[j].role == "tool" and turns[j].tool == tool:
                    if turns[j + 1].role == "result" and not turns[j + 1].is_error:
                        rank[j] = min(rank[j], 2)
                        rank[j + 1] = min(rank[j + 1], 2)
                        break
                    if turns[j + 1].role == "result" and turns[j + 1].is_error:
                        break  # failed again: that failure has its own pairing
    return rank


def _distance_to_person(turns: list[Turn]) -> list[int]:
    far = [10**9] * len(turns)
    last = None
    for i, t in enumerate(turns):
        if t.role == "person":
            last = i
        if last is not None:
            far[i] = i - last
    last = None
    for i in range(len(turns) - 1, -1, -1):
        if turns[i].role == "person":
            last = i
        if last is not None:
            far[i] = min(far[i], last - i)
    return far


def condense(ex: Excerpt, max_tokens: int) -> tuple[str, dict]:
    """The excerpt rendered in at most ``max_tokens`` (estimated), keeping what matters most;
    returns the text and what was left out (``{"turns": kept, "dropped": n, "clipped": n}``)."""
    turns = ex.turns
    if not turns:
        return "", {"turns": 0, "dropped": 0, "clipped": 0}
    last_person = max((i for i, t in enumerate(turns) if t.role == "person"), default=None)
    lines = [
        _line(t, LAST_PERSON_CHARS if i == last_person else None) if t.role == "person" else _line(t)
        for i, t in enumerate(turns)
    ]
    cost = [estimate_tokens(s) + 1 for s in lines]
    keep = [True] * len(turns)
    clipped = 0
    rank = _ranks(turns) if sum(cost) > max_tokens else []
    far = _distance_to_person(turns) if rank else []
    # Lowest rank first; inside a rank the turns farthest from a prompt, then the oldest.
    order = sorted((i for i in range(len(rank)) if rank[i] > 1), key=lambda i: (-rank[i], -far[i], i))
    target = max_tokens
    clip_to = [300, 120, 60]
    text = _render(lines, keep)
    while estimate_tokens(text) > max_tokens:
        total = sum(c for c, k in zip(cost, keep) if k)
        first = True  # the text is over: at least one more turn goes
        while order and (total > target or first):
            first = False
            i = order.pop(0)
            keep[i] = False
            total -= cost[i]
        if not order and clip_to:
            # Only the person's own turns are left: clip the long ones, the last one last.
            limit = clip_to.pop(0)
            need = estimate_tokens(_render(lines, keep)) - max_tokens
            for i in sorted((i for i in range(len(turns)) if keep[i]), key=lambda i: (i == last_person, -cost[i])):
                if need <= 0:
                    break
                short = _line(turns[i], limit)
                saved = cost[i] - (estimate_tokens(short) + 1)
                if saved > 0:
                    lines[i], need = short, need - saved
                    cost[i] -= saved
                    clipped += 1
        new = _render(lines, keep)
        if new == text and not (clip_to and not order):
            break  # nothing more can go
        text = new
        target -= max(50, estimate_tokens(text) - max_tokens)  # the gap markers' share
    dropped = keep.count(False)
    return text, {"turns": len(turns) - dropped, "dropped": dropped, "clipped": clipped}


def _render(lines: list[str], keep: list[bool]) -> str:
    out, run = [], 0
    for line, k in zip(lines, keep):
        if k:
            if run:
                out.append(f"[... {run} steps left out ...]")
                run = 0
            out.append(line)
        else:
            run += 1
    if run:
        out.append(f"[... {run} steps left out ...]")
    return "\n".join(out)


def last_prompt(ex: Excerpt) -> str | None:
    """What the person typed last in this part of the session."""
    for t in reversed(ex.turns):
        if t.role == "person":
            return t.text
    return None
