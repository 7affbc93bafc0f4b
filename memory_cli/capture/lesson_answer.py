"""What ``record_correction`` answers the agent: the lesson as stored and counted, and the
closest lessons already waiting in the project, so the agent (the reader that understood the
person) can say "this is that again" with ``same_as``.
"""

from __future__ import annotations

RECORDED = ("id", "statement", "what_was_wrong", "what_is_right", "occurrences", "sessions", "status", "already")


def answer(store, out: dict, *, lesson: str, project: str | None, same_as: str | None, embed=None) -> dict:
    """The tool's result for a recorded lesson ``out`` (the correction's view). ``embed``: the
    embedding daemon, when it runs, to rank the closest lessons by meaning as well as words."""
    from .taught import closest

    result = {"recorded": {k: out.get(k) for k in RECORDED}, "proposed_now": bool(out.get("promoted_now"))}
    if same_as:
        from .corrections import resolve

        row = resolve(store, same_as)
        result["counted_on"] = {
            "id": row["id"],
            "lesson": row["statement"],
            "taught": row["occurrence_count"],
            "status": row["status"],
        }
        return result
    near = closest(store, lesson, project=project, exclude=out.get("id"), embed=embed)
    result["closest"] = [{"id": n["id"], "lesson": n["lesson"], "taught": n["taught"]} for n in near]
    if near:
        result["hint"] = (
            "If the person meant one of these lessons again, call record_correction with the same quote"
            " and that lesson's id as same_as: it is counted there instead of as a new lesson."
        )
    return result
