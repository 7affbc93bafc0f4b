"""What agents and models asked to share more widely, waiting for the person's answer.

An entry an agent or a model wrote (see :mod:`memory_cli.provenance`) is stored in its home
scope; the wider scope it asked for is kept as ``requested_scope`` until the person approves
(the entry then applies where it asked) or rejects it (it stays home), in ``memory-cli review``
or on the dashboard.
"""

from __future__ import annotations

from .errors import NotFound


def pending(store) -> list[dict]:
    """Entries an agent or a model wrote that ask for a wider scope than their home, oldest first."""
    return store.rows(
        "SELECT id, content, type, scope, requested_scope, origin, status, created_at FROM memory_entries"
        " WHERE requested_scope IS NOT NULL AND status != 'superseded' ORDER BY created_at"
    )


def pending_row(store, ref: str) -> dict:
    """The entry ``ref`` names, if it is waiting for review (:class:`NotFound` otherwise)."""
    from . import entries

    eid = entries.resolve_id(store, ref)
    row = store.row("SELECT id, scope, requested_scope, status FROM memory_entries WHERE id = ?", (eid,))
    if row is None or row["requested_scope"] is None or row["status"] == "superseded":
        raise NotFound(f"{ref} is not waiting for review")
    return row


def approve(store, ref: str) -> dict:
    """The person lets an agent's or model's entry apply where it asked to (and brings it back
    if it was held back for want of a home)."""
    from . import audit, entries

    row = pending_row(store, ref)
    with store.transaction():
        entries.settle_requested_scope(store, row["id"], row["requested_scope"])
        audit.record(
            store,
            "review_scope",
            entry_id=row["id"],
            result="approved",
            details={"scope": {"before": row["scope"], "after": row["requested_scope"]}},
        )
    return entries.get(store, row["id"])


def reject(store, ref: str) -> dict:
    """The person keeps it where it was written (one held back for want of a home stays archived)."""
    from . import audit, entries

    row = pending_row(store, ref)
    with store.transaction():
        entries.settle_requested_scope(store, row["id"], None)
        audit.record(
            store, "review_scope", entry_id=row["id"], result="rejected", details={"asked": row["requested_scope"]}
        )
    return entries.get(store, row["id"])
