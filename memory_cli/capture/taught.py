"""What a project's person has taught and is still waiting for review: the lessons an agent can
say it heard again.

The agent that understood the person is the best judge of "this is that again", better than any
word or vector comparison memory-cli can make. So ``record_correction`` answers with the
pending lessons of the project closest to the one just recorded (:func:`closest`), and the
session-start instruction lists the most-taught ones (:func:`most_taught_text`, within a small
fixed budget), each with its id: the agent passes that id as ``same_as`` and the prompt counts
for that instruction (:func:`memory_cli.capture.lessons.record_lesson`).

A lesson here is a correction waiting for the person (pending, or proposed and not yet
reviewed) in the project's scope; one that a recurring proposal holds is shown as that
proposal. The hook's own readings are listed once they have matched a second prompt: a single
one is a cut of one prompt by rules ("do not proble" from "okay no proble"), which would
mislead the agent rather than help it name a repeat. Standard library only: session start
reads it on the hook path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..store.db import Store

CLOSEST = 3  # lessons an answer of record_correction lists
LISTED = 5  # lessons the session-start instruction lists at most
BUDGET_CHARS = 600  # about 150 tokens: what that list may cost every session
LINE_CHARS = 100  # one lesson's line


def _scope(project: str | None) -> str | None:
    if not project:
        return None
    from .. import scope as scopes

    try:
        return scopes.parse(f"project:{project}")
    except Exception:
        return None


def waiting(store: Store, project: str | None, *, limit: int = 200) -> list[dict]:
    """The project's lessons waiting for the person, most taught first: ``id``, ``lesson`` (one
    line), ``taught`` (times), ``sessions``."""
    scope = _scope(project)
    if scope is None:
        return []
    rows = store.rows(
        "SELECT id, statement, what_is_right, occurrence_count, sessions, detection_type FROM corrections"
        " WHERE scope = ? AND status IN ('pending', 'promoted')"
        " AND (origin = 'agent' OR detection_type = 'repeated' OR (coalesce(key, '') != '' AND occurrence_count > 1))"
        " ORDER BY occurrence_count DESC, last_seen_at DESC LIMIT ?",
        (scope, limit),
    )
    from .recurring import held_by_several

    held, single = held_by_several(store)
    out = []
    for r in rows:
        if r["id"] in held or r["id"] in single:
            continue
        text = " ".join((r["statement"] or r["what_is_right"] or "").split())
        if not text:
            continue
        try:
            from ..fastjson import loads

            sessions = len(loads(r["sessions"] or "[]"))
        except ValueError:
            sessions = 0
        out.append(
            {
                "id": r["id"],
                "lesson": text[:LINE_CHARS],
                "taught": int(r["occurrence_count"] or 1),
                "sessions": sessions,
            }
        )
    return out


def closest(store: Store, text: str, *, project: str | None, exclude: str | None = None, embed=None) -> list[dict]:
    """The project's waiting lessons closest to ``text`` (at most ``CLOSEST``), each with its
    ``id``, one-line ``lesson`` and ``taught`` count. No floor: a paraphrase may share no word,
    and the agent reading them is the judge of sameness, not this ranking. Ranked by shared
    words, plus the cosine of their meaning when ``embed`` (``texts -> vectors``, the embedding
    daemon) answers: a paraphrase that shares no word is still offered (docs/corrections.md
    measures both rankings)."""
    from .similar import similarity

    items = [i for i in waiting(store, project) if i["id"] != exclude]
    meaning = [0.0] * len(items)
    if embed is not None and items:
        from .semantic import cosine, embed_safely

        vectors = embed_safely(embed, [text] + [i["lesson"] for i in items])
        if vectors:
            meaning = [max(0.0, cosine(vectors[0], v)) for v in vectors[1:]]
    scored = [(similarity(text, i["lesson"]) + m, i["taught"], i) for i, m in zip(items, meaning)]
    scored.sort(key=lambda s: (-s[0], -s[1]))
    return [dict(i, closeness=round(s, 2)) for s, _t, i in scored[:CLOSEST]]


def most_taught_text(store: Store, project: str | None) -> str:
    """The session-start lines listing the project's most-taught waiting lessons with their
    ids, within ``BUDGET_CHARS``; empty when there is none."""
    items = waiting(store, project, limit=LISTED * 4)[:LISTED]
    if not items:
        return ""
    head = "Lessons already recorded here (pass the id as `same_as` when the person says one again):"
    lines = [head]
    used = len(head)
    for i in items:
        line = f"- {i['id'][:8]}: {i['lesson']} (taught {i['taught']}x)"
        if used + len(line) + 1 > BUDGET_CHARS:
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if len(lines) > 1 else ""
