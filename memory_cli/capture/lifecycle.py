"""What happens to a memory marker once parsed: new, reinforced, contradicted or duplicate.

- A new observation is stored at confidence 0.7 with its category, subject, session and agent.
- An active memory with the same category and subject and a similar observation is
  **reinforced**: +0.1 (capped at 1.0), updated time refreshed, no new row.
- An active memory with the same category and subject that the new observation
  **contradicts** loses 0.2 and is deactivated (status ``archived``) below 0.3; the new
  observation is stored at 0.7.
- Anything else with the same category and subject is left alone and the observation is
  stored beside it: one memory per meaning, not one per (category, subject) pair, so two
  different facts about the same service both survive.

Similarity and contradiction are lexical (:mod:`.similar`); when the embedding daemon is warm a
close cosine match also counts as the same observation unless the texts contradict.

The same marker seen twice in one session (a Stop hook that fires again for the same turn)
is counted once: see ``capture_marker_seen``.
"""

from __future__ import annotations

import hashlib

from .. import audit
from ..util import now_iso

NEW_CONFIDENCE = 0.7
REINFORCE_STEP = 0.1
CONTRADICT_STEP = 0.2
ACTIVE_THRESHOLD = 0.3


def _fingerprint(category: str, subject: str | None, observation: str) -> str:
    text = f"{category}\x1f{(subject or '').lower()}\x1f{' '.join(observation.lower().split())}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def _candidates(store, category: str, subject: str | None, scopes: list[str]) -> list[dict]:
    marks = ",".join("?" * len(scopes))
    if subject:
        where = "lower(subject) = lower(?)"
        params = [category, subject, *scopes]
    else:
        where = "subject IS NULL"
        params = [category, *scopes]
    return store.rows(
        "SELECT id, content, confidence, scope, origin FROM memory_entries WHERE category = ?"
        " AND (status = 'active' OR (status = 'archived' AND requested_scope IS NOT NULL))"
        f" AND {where} AND scope IN ({marks}) ORDER BY confidence DESC, updated_at DESC",
        params,
    )


def record_marker(
    store,
    category: str,
    subject: str | None,
    observation: str,
    *,
    session_id: str | None = None,
    agent: str | None = None,
    scope: str = "global",
    embed=None,
    hook_event: str | None = None,
) -> dict:
    """Apply one marker. Returns ``{"action": "created"|"reinforced"|"duplicate", "entry_id",
    "contradicted": [{"id", "confidence", "deactivated"}]}``."""
    from .. import entries
    from ..privacy.redact import redact
    from .similar import contradicts, same_observation

    observation, _ = redact(" ".join(observation.split()))
    subject = subject or None
    scopes = ["global"] if scope == "global" else ["global", scope]
    fp = _fingerprint(category, subject, observation)
    with store.transaction():
        if session_id:
            if store.value(
                "SELECT 1 FROM capture_marker_seen WHERE session_id = ? AND fingerprint = ?", (session_id, fp)
            ):
                return {"action": "duplicate", "entry_id": None, "contradicted": []}
            store.execute(
                "INSERT OR IGNORE INTO capture_marker_seen(session_id, fingerprint, seen_at) VALUES (?,?,?)",
                (session_id, fp, now_iso()),
            )
        candidates = _candidates(store, category, subject, scopes)
        same = None
        contradicted = []
        for c in candidates:
            if contradicts(c["content"], observation):
                # An agent's marker weakens only what agents wrote, never the person's entries.
                if c.get("origin", "agent") == "agent":
                    contradicted.append(c)
            elif same is None and same_observation(c["content"], observation):
                same = c
        if same is None and not contradicted and candidates and embed is not None:
            same = _semantic_same(embed, observation, candidates)
        changes = []
        for c in contradicted:
            before = float(c["confidence"])
            after = round(max(0.0, before - CONTRADICT_STEP), 6)
            deactivated = after < ACTIVE_THRESHOLD
            entries.set_confidence(store, c["id"], after, archive=deactivated)
            audit.record(
                store,
                "contradict",
                entry_id=c["id"],
                context=observation[:300],
                result="deactivated" if deactivated else f"{after:g}",
                details={"before": before, "after": after, "by": observation, "category": category, "subject": subject},
                session_id=session_id,
                hook_event=hook_event,
            )
            changes.append({"id": c["id"], "confidence": after, "deactivated": deactivated})
        if same is not None:
            before = float(same["confidence"])
            after = round(min(1.0, before + REINFORCE_STEP), 6)
            entries.set_confidence(store, same["id"], after, reinforced=True)
            audit.record(
                store,
                "reinforce",
                entry_id=same["id"],
                context=observation[:300],
                result=f"{after:g}",
                details={"before": before, "after": after, "category": category, "subject": subject},
                session_id=session_id,
                hook_event=hook_event,
            )
            return {"action": "reinforced", "entry_id": same["id"], "confidence": after, "contradicted": changes}
        entry = entries.add(
            store,
            observation,
            "fact",
            scope=scope,
            source="marker",
            confidence=NEW_CONFIDENCE,
            tags=["marker"],
            category=category,
            subject=subject,
            session_id=session_id,
            agent=agent,
            audit_context="memory marker",
            home_scope=None if scope == "global" else scope,
        )
        audit.record(
            store,
            "marker",
            entry_id=entry["id"],
            context=observation[:300],
            result="created",
            details={"category": category, "subject": subject, "contradicted": [c["id"] for c in changes]},
            session_id=session_id,
            hook_event=hook_event,
        )
        return {"action": "created", "entry_id": entry["id"], "confidence": NEW_CONFIDENCE, "contradicted": changes}


def _semantic_same(embed, observation: str, candidates: list[dict]) -> dict | None:
    from .semantic import OBSERVATION_THRESHOLD, cosine, embed_safely

    vectors = embed_safely(embed, [observation] + [c["content"] for c in candidates])
    if not vectors:
        return None
    best, best_score = None, 0.0
    for c, v in zip(candidates, vectors[1:]):
        score = cosine(vectors[0], v)
        if score > best_score:
            best, best_score = c, score
    return best if best_score >= OBSERVATION_THRESHOLD else None


def record_markers(
    store,
    markers,
    *,
    session_id: str | None = None,
    agent: str | None = None,
    scope: str = "global",
    embed=None,
    hook_event: str | None = None,
) -> list[dict]:
    """Apply parsed markers in order (a later marker in the same turn sees the earlier ones),
    in one transaction. When another process holds the write lock and this store does not wait
    for it (a hook), they are spooled and applied by the next process that gets the lock."""
    from ..store.db import LockBusy

    triples = [[m.category, m.subject, m.observation] for m in markers]
    try:
        with store.transaction():
            return _apply_markers(store, triples, session_id, agent, scope, embed, hook_event)
    except LockBusy:
        from ..store import spool

        args = {"markers": triples, "session_id": session_id, "agent": agent, "scope": scope, "hook_event": hook_event}
        spool.put(store.path, [spool.make("markers", args)])
        return [
            {"action": "queued", "entry_id": None, "contradicted": [], "category": c, "subject": s, "observation": o}
            for c, s, o in triples
        ]


def _apply_markers(store, triples, session_id, agent, scope, embed, hook_event) -> list[dict]:
    out = []
    for category, subject, observation in triples:
        result = record_marker(
            store,
            category,
            subject,
            observation,
            session_id=session_id,
            agent=agent,
            scope=scope,
            embed=embed,
            hook_event=hook_event,
        )
        result.update(category=category, subject=subject, observation=observation)
        out.append(result)
    return out


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """Markers a Stop hook read while another process held the write lock (lexical matching
    only: the embedding daemon is not asked at drain time)."""
    triples = [t for t in (args.get("markers") or []) if isinstance(t, list) and len(t) == 3]
    _apply_markers(
        store,
        triples,
        args.get("session_id"),
        args.get("agent"),
        args.get("scope") or "global",
        None,
        args.get("hook_event"),
    )


def summary(results: list[dict], rejected: int = 0) -> str:
    """One line for the person, e.g. 'memory-cli: 1 new memory, 1 reinforced'."""
    created = sum(1 for r in results if r["action"] == "created")
    reinforced = sum(1 for r in results if r["action"] == "reinforced")
    lowered = sum(len(r.get("contradicted") or []) for r in results)
    queued = sum(1 for r in results if r["action"] == "queued")
    parts = []
    if queued:
        parts.append(
            f"{queued} memor{'y' if queued == 1 else 'ies'} to store once the store is free "
            "(another process is writing)"
        )
    if created:
        parts.append(f"{created} new memor{'y' if created == 1 else 'ies'}")
    if reinforced:
        parts.append(f"{reinforced} reinforced")
    if lowered:
        parts.append(f"{lowered} contradicted (confidence lowered)")
    if rejected:
        parts.append(
            f"{rejected} marker{'s' if rejected != 1 else ''} ignored (unknown category or malformed; "
            "see `memory-cli audit --action marker`)"
        )
    return "memory-cli: " + ", ".join(parts) if parts else ""
