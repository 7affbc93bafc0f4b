"""The review queue as a person reads it: one item per instruction, most taught first, a one-line
summary on top, and the learned model's bare guesses kept as evidence where a better reader
records lessons.

The learned model guesses "was this a correction?" from words alone, with no parts, and is right
about half the time on people it was not trained on. Where the agent records lessons (it has
recorded at least one from a prompt typed in that project, or has read ``READ_PROMPTS`` prompts
there under the lesson instruction), the agent has read every prompt with the whole conversation
in view, so a guess it did not confirm is not an item of its own:
it is shown as evidence under the item it reads like, if any, and otherwise counted in the
summary only. Elsewhere (no agent lessons: another agent, MCP off) the guesses stay items, as
before: only the person can say what they meant.

The hook's rules read the same prompts word by word (``"no, X not Y"``), and where the agent
records lessons they are folded the same way when the agent neither recorded a lesson from that
prompt nor said it is that again (``same_as``): the agent read the prompt with the
conversation in view and let it pass, and such readings are where a garbled or inverted
statement comes from ("do not verify them 1 by 1" from "no verify them 1 by 1"). A reading the
agent counted stays an item; `review --list --all` shows every correction.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

EVIDENCE_CLOSE = 0.5  # word similarity at which a guess reads like an item (recurring's threshold)
WEEK = timedelta(days=7)


def is_guess(item: dict) -> bool:
    """A learned-model guess: inferred, no parts, below the confidence of a reader's finding."""
    return (
        item.get("kind") == "inferred"
        and not item.get("what_was_wrong")
        and float(item.get("confidence") or 0) < 0.5
        and item.get("origin") != "agent"
    )


AGENT_SAID = "lesson recorded by the agent"  # the context of a correction the agent counted


def is_unconfirmed_reading(store, item: dict) -> bool:
    """A correction the hook's rules read from typed prompts alone, none of which the agent
    recorded or said again: every correction it stands for (itself, or a recurring group's
    instances) is the person's words as captured by UserPromptSubmit, none the agent's."""
    if item.get("origin") not in (None, "person") or is_guess(item):
        return False
    if (item.get("context") or "").startswith(AGENT_SAID):
        return False
    ids = [i.get("id") for i in item.get("instances") or []] or [item.get("id")]
    ids = [i for i in ids if i]
    if not ids:
        return False
    marks = ",".join("?" * len(ids))
    rows = store.rows(
        f"SELECT c.id, c.origin, c.context, c.session_id, c.user_message,"
        f" EXISTS(SELECT 1 FROM capture_prompts p WHERE p.correction_id = c.id) AS typed"
        f" FROM corrections c WHERE c.id IN ({marks})",
        tuple(ids),
    )
    return len(rows) == len(ids) and all(
        (r["typed"] or _read_by_agent(store, r))
        and not r["origin"]
        and not str(r["context"] or "").startswith(AGENT_SAID)
        for r in rows
    )


def _read_by_agent(store, reading: dict) -> bool:
    """Whether the agent recorded a lesson of its own from the prompt this reading was cut from
    (its quote is in that prompt): the prompt then points at the agent's lesson, and the hook's
    cut of it would be a second item for one prompt ("do not just push through the migrations"
    beside the agent's "fix the root cause in the CD pipeline, not by hand")."""
    prompt = " ".join((reading.get("user_message") or "").casefold().split())
    if not prompt or not reading.get("session_id"):
        return False
    for r in store.rows(
        "SELECT user_message FROM corrections WHERE origin = 'agent' AND session_id = ?", (reading["session_id"],)
    ):
        parts = [" ".join(p.split()) for p in re.split(r"\.\.\.|…", (r["user_message"] or "").casefold())]
        parts = [p for p in parts if p]
        if parts and all(p in prompt for p in parts):
            return True
    return False


# Prompts typed in a project under the lesson instruction (the hook keeps them only then) after
# which an agent that recorded no lesson there has read enough to have said so: the guesses it
# let pass are not items of their own either (a person who asks for tasks and gives no
# instruction otherwise finds their bug reports and feature requests queued as rules).
READ_PROMPTS = 15


def lesson_projects(store) -> set[int]:
    """The projects (as the prompts' project numbers) where the agent records lessons: it has
    recorded one there, or has read ``READ_PROMPTS`` prompts there under the instruction."""
    rows = store.rows(
        "SELECT DISTINCT p.project_crc FROM capture_prompts p JOIN corrections c ON c.id = p.correction_id"
        " WHERE c.origin = 'agent'"
        " UNION SELECT project_crc FROM capture_prompts GROUP BY project_crc HAVING count(*) >= ?",
        (READ_PROMPTS,),
    )
    return {r["project_crc"] for r in rows}


def project_of_session(store, session_id: str | None) -> int | None:
    if not session_id:
        return None
    return store.value("SELECT project_crc FROM capture_prompts WHERE session_id = ? LIMIT 1", (session_id,))


def fold_guesses(store, items: list[dict]) -> tuple[list[dict], int]:
    """``items`` without the guesses made where the agent records lessons; each such guess goes
    under the item it reads like (``evidence``). Returns (items, guesses folded)."""
    projects = lesson_projects(store)
    if not projects:
        return items, 0
    from .similar import similarity

    kept, guesses = [], []
    for item in items:
        if _folded(store, item, projects):
            guesses.append(item)
        else:
            kept.append(item)
    for g in guesses:
        said = g.get("user_message") or g.get("statement") or ""
        best, best_score = None, EVIDENCE_CLOSE
        for item in kept:
            texts = [item.get("statement") or ""] + [i.get("statement") or "" for i in item.get("instances") or []]
            score = max(similarity(said, t) for t in texts)
            if score >= best_score:
                best, best_score = item, score
        if best is not None:
            best.setdefault("evidence", []).append(
                {
                    "id": g["id"],
                    "quote": said,
                    "session_id": (g.get("session_ids") or [None])[0],
                    "detected_at": g.get("detected_at"),
                }
            )
    return kept, len(guesses)


def _folded(store, item: dict, projects: set[int]) -> bool:
    """Whether ``item`` is kept as evidence rather than shown as an item of its own."""
    session = (item.get("session_ids") or [None])[0]
    if project_of_session(store, session) not in projects:
        return False
    return is_guess(item) or (item.get("item") != "proposal" and is_unconfirmed_reading(store, item))


def most_taught_first(items: list[dict]) -> list[dict]:
    """Every item by how often it was taught, then most recent; the word model's guesses (where
    they are still items) last, since only the person can say what they meant."""
    return sorted(items, key=lambda i: (is_guess(i), -int(i.get("occurrences") or 1), _neg_time(i.get("last_seen_at"))))


def _neg_time(at: str | None) -> float:
    t = _parse(at)
    return -t.timestamp() if t else 0.0


def _parse(at: str | None) -> datetime | None:
    if not at:
        return None
    try:
        t = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


# What each kind of item is called wherever the queue is shown; the summary's "proposed"
# counts the first two.
LABELS = {"proposal": "proposed rule", "recurring": "proposed instruction"}


def label(item: dict) -> str:
    """What an item of the queue is, in the words review shows it under."""
    return LABELS.get(item.get("item") or "", "correction")


def summary(items: list[dict], *, folded: int = 0, now: datetime | None = None) -> str:
    """One line: how many instructions wait, how many are proposed, how many waited since last
    week (first said more than 7 days ago), and the readings kept as evidence."""
    now = now or datetime.now(timezone.utc)
    n = len(items)
    proposed = sum(1 for i in items if i.get("item") in LABELS)
    old = sum(1 for i in items if (_parse(i.get("detected_at")) or now) <= now - WEEK)
    line = f"{n} instruction{'s' if n != 1 else ''}, {proposed} proposed, {old} waiting since last week"
    if folded:
        line += f" ({folded} reading{'s' if folded != 1 else ''} of the hook's words kept as evidence)"
    return line
