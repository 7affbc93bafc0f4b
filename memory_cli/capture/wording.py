"""How a correction is worded: the statement, the line Claude is told, the notice the person gets.

Read on the hook path (UserPromptSubmit tells Claude "Recorded correction: ..." and the person
when a correction became a proposed rule), so it imports nothing.
"""

from __future__ import annotations


def sentence(statement: str) -> str:
    """A statement as one sentence: capitalised, ending with a full stop."""
    s = " ".join((statement or "").split())
    if not s:
        return s
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!?" else s + "."


def compose_statement(wrong: str, right: str) -> str:
    """A statement from the parts, for corrections edited by hand."""
    if wrong and right:
        return f"{right}, not {wrong}"
    if wrong:
        return f"do not {wrong}"
    return right or ""


# What a detection must be for Claude to be told of it in the live session: found by the rules
# (not the learned model alone), saying what was wrong or what is right, in a short prompt of
# at most TOLD_MAX_WORDS words on fewer than TOLD_MAX_LINES lines. On the prompts people really
# typed (tests/fixtures/real) the rules' explicit detections were right 19 times in 30 over all
# prompts, 16 in 19 within these bounds: the rest were task briefs, pasted plans and questions.
TOLD_MAX_WORDS = 40
TOLD_MAX_LINES = 3


def is_confident(detection, message: str) -> bool:
    """Whether a detection is sure enough to be told to Claude as "Recorded correction: ...".

    A wrong line there tells Claude it was corrected when it was not, so only what the rules
    read with its wrong or right part, in a prompt short enough not to be a brief or a paste,
    is told; every other detection is kept quietly for ``memory-cli review``."""
    if detection is None or detection.kind != "explicit":
        return False
    if not (detection.what_was_wrong or detection.what_is_right):
        return False
    text = message.strip()
    return len(text.split()) <= TOLD_MAX_WORDS and text.count("\n") < TOLD_MAX_LINES


def context_line(result: dict) -> str:
    """The one factual line Claude gets beside the prompt."""
    statement = (result.get("statement") or "").rstrip(".")
    n = result.get("occurrences") or 1
    line = f"Recorded correction: {statement}"
    if n > 1:
        line += f" (said {n} times)"
    return line + "."


def promotion_notice(result: dict) -> str:
    """What the person is told when a correction becomes a proposed rule."""
    statement = (result.get("statement") or "").rstrip(".")
    sessions = result.get("sessions") or 1
    if result.get("reinforced") and result.get("promoted_rule_id"):
        rid = result["promoted_rule_id"][:8]
        return (
            f"memory-cli: you have made this correction {result.get('occurrences')} times in "
            f'{sessions} session{"s" if sessions != 1 else ""}; "{statement}" is already rule {rid} '
            f"({result.get('rule_action')}), which it reinforced; no second rule was added."
        )
    what = (
        f"a proposed rule ({result.get('rule_action') or 'warn'}, unconfirmed)"
        if result.get("promoted_rule_id")
        else "a remembered preference"
    )
    if result.get("held_back"):
        what = "proposed; it applies once you approve it"  # the agent's lesson: never before
    return (
        f"memory-cli: you have made this correction {result.get('occurrences')} times in "
        f'{sessions} session{"s" if sessions != 1 else ""}; "{statement}" is now {what}. '
        "Review it with `memory-cli review`."
    )
