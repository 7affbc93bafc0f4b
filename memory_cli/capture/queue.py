"""The review queue as a person reads it: one item per instruction, most taught first, a one-line
summary on top, and the learned model's bare guesses kept as evidence where a better reader
records lessons.

The learned model guesses "was this a correction?" from words alone, with no parts, and is right
about half the time on people it was not trained on. Where the agent records lessons (it has
recorded at least one from a prompt typed in that project), the agent has read every prompt
with the whole conversation in view, so a guess it did not confirm is not an item of its own:
it is shown as evidence under the item it reads like, if any, and otherwise counted in the
summary only. Elsewhere (no agent lessons: another agent, MCP off) the guesses stay items, as
before: only the person can say what they meant.
"""

from __future__ import annotations

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


def lesson_projects(store) -> set[int]:
    """The projects (as the prompts' project numbers) where the agent has recorded a lesson."""
    rows = store.rows(
        "SELECT DISTINCT p.project_crc FROM capture_prompts p JOIN corrections c ON c.id = p.correction_id"
        " WHERE c.origin = 'agent'"
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
        if (
            is_guess(item)
            and project_of_session(store, item.get("session_ids", [None])[0] if item.get("session_ids") else None)
            in projects
        ):
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


def folded_count(store) -> int:
    """How many pending guesses the queue keeps as evidence (see :func:`fold_guesses`)."""
    projects = lesson_projects(store)
    if not projects:
        return 0
    rows = store.rows(
        "SELECT id, session_id, detection_type AS kind, what_was_wrong, confidence, origin FROM corrections"
        " WHERE status = 'pending' AND detection_type = 'inferred' AND coalesce(key, '') = ''"
    )
    return sum(1 for r in rows if is_guess(r) and project_of_session(store, r["session_id"]) in projects)


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


def summary(items: list[dict], *, folded: int = 0, now: datetime | None = None) -> str:
    """One line: how many instructions wait, how many are proposed, how many waited since last
    week (first said more than 7 days ago), and the guesses kept as evidence."""
    now = now or datetime.now(timezone.utc)
    n = len(items)
    proposed = sum(1 for i in items if i.get("item") in ("proposal", "recurring"))
    old = sum(1 for i in items if (_parse(i.get("detected_at")) or now) <= now - WEEK)
    line = f"{n} instruction{'s' if n != 1 else ''}, {proposed} proposed, {old} waiting since last week"
    if folded:
        line += f" ({folded} guess{'es' if folded != 1 else ''} of the word model kept as evidence)"
    return line
