"""Drop new memories that say what the store already says (in the scope they would live in).

Candidates come from the project's ranked search (keyword plus vectors when the embedding
daemon is warm) and from the scope's own recent entries; the decision is made by
:func:`memory_cli.capture.similar.same_text`, the same wording-level comparison capture uses to
tell that "never use pythonw.exe" and "stop using pythonw.exe" are one correction. Only the
memory's own scope and ``global`` are compared: another project's memory never makes this
project's memory a duplicate (and is never revealed to it).
"""

from __future__ import annotations

RECENT_PER_SCOPE = 300
SEARCH_DEPTH = 8


def _ranked_search():
    from memory_cli.retrieval.search import query

    return query


def find_duplicate(store, content: str, scope: str, *, extra: list[dict] | tuple[dict, ...] = ()) -> dict | None:
    """The active entry (or earlier memory of this batch, in ``extra``) that ``content`` repeats."""
    from memory_cli.capture.similar import same_text

    norm = " ".join(content.lower().split())
    candidates: dict[str, dict] = {}
    try:
        for hit in _ranked_search()(store, content, scope=scope, limit=SEARCH_DEPTH, timeout_ms=300):
            candidates[hit["id"]] = hit
    except Exception:  # a broken index must not stop summarising; the scan below still runs
        pass
    for row in store.rows(
        "SELECT id, content, scope FROM memory_entries WHERE status = 'active' AND scope IN (?, 'global') "
        "ORDER BY updated_at DESC LIMIT ?",
        (scope, RECENT_PER_SCOPE),
    ):
        candidates.setdefault(row["id"], row)
    for other in list(candidates.values()) + [dict(m, id=m.get("id") or "(this batch)") for m in extra]:
        if other.get("scope") not in (scope, "global"):
            continue
        text = other.get("content") or ""
        if " ".join(text.lower().split()) == norm or same_text(content, text):
            return other
    return None
