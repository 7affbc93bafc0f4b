"""One memory, not three: what the session-end reader found, merged with what is already kept.

A session's lesson can reach the store three ways: the agent's own ``[MEMORY]`` markers and
lessons while it works, the session-end model's memories and corrections, and what earlier
sessions stored. This module is where the session-end job's findings meet the rest, before
anything is inserted:

* :func:`new_memories` drops a memory that says what an active entry of the session's checkout,
  its project or ``global`` already says (a marker the agent wrote an hour ago included), what
  a correction of this same session already holds, or what an earlier memory of the same batch
  says;
* :func:`model_corrections` is the one door for the corrections the model found: today each is
  stored through capture (skipped when capture already holds the same words of that session),
  and correction grouping joins them to their group here.
"""

from __future__ import annotations

from typing import Any


def _session_corrections(store, session_id: str | None) -> list[str]:
    if not session_id:
        return []
    texts: list[str] = []
    for r in store.rows(
        "SELECT what_is_right, user_message FROM corrections WHERE session_id = ? LIMIT 200", (session_id,)
    ):
        texts += [t for t in (r["what_is_right"], r["user_message"]) if t]
    return texts


def new_memories(
    store, memories: list[dict], *, scopes: list[str], session_id: str | None = None
) -> tuple[list[dict], list[dict[str, Any]]]:
    """Split ``memories`` into those to store and those that repeat something kept; each
    repeat is returned as ``{"memory", "duplicate_of"}`` (an entry id, ``correction`` or
    ``(this batch)``)."""
    from memory_cli.capture.similar import same_text
    from memory_cli.llm.dedup import find_duplicate

    corrections = _session_corrections(store, session_id)
    kept: list[dict] = []
    repeats: list[dict[str, Any]] = []
    for m in memories:
        dup = None
        for scope in dict.fromkeys(s for s in [m["scope"], *scopes] if s):
            hit = find_duplicate(store, m["content"], scope, extra=kept)
            if hit is not None:
                dup = hit.get("id") or "(this batch)"
                break
        if dup is None and any(same_text(m["content"], c) for c in corrections):
            dup = "correction"
        if dup is None:
            kept.append(m)
        else:
            repeats.append({"memory": m, "duplicate_of": dup})
    return kept, repeats


def model_corrections(store, found: list[dict], *, session_id: str | None, project: str | None) -> list[dict]:
    """Store the corrections the session-end model found (validated: each quote is the person's
    own words); returns the corrections stored."""
    if not found:
        return []
    from memory_cli.capture.corrections import record_missed

    return record_missed(store, found, session_id=session_id, project=project)
