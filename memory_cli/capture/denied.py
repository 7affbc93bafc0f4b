"""PermissionDenied: a tool call refused on the person's behalf, kept as a "that was wrong" signal.

Claude Code (2.1.328) fires PermissionDenied when auto mode's permission check refuses a call
(its classifier, acting for the person, said no; or nobody could be asked to approve it). The
call never ran, and the transcript says only that a tool failed. The handler keeps one audit row,
``permission_denied`` (the tool, a redacted one-line summary of its input, the call's id and the
refusal's reason), written after Claude Code has its answer like every hook audit row. It never
answers ``retry``: whether the agent may try again is the person's policy, not memory-cli's.

The rows are read in two places: when the person's next prompt is checked for a correction, a
denied call of the turn being answered counts as a rejected call (:func:`mark_turn`; the read
happens only when detection asks for the agent's turn, so ordinary prompts pay nothing), and a
rule proposal's replay counts denied calls as corrected ones (:func:`denied_call_ids`).

Standard library only: this runs on the hook path.
"""

from __future__ import annotations

ACTION = "permission_denied"
REASON_CHARS = 300
# How many of a session's newest denials the next prompt's turn is compared with.
RECENT = 20


def permission_denied(ctx, resp) -> None:
    """Record the denied call (no answer: Claude Code's own handling stands)."""
    from ..privacy.redact import redact_cut
    from .agent_turn import _one_line

    payload = ctx.payload
    details = {"input": redact_cut(_one_line(payload.get("tool_input")), 300)}
    call_id = payload.get("tool_use_id")
    if isinstance(call_id, str) and call_id:
        details["tool_use_id"] = call_id
    reason = payload.get("reason")
    if isinstance(reason, str) and reason.strip():
        details["reason"] = redact_cut(" ".join(reason.split()), REASON_CHARS)
    mode = payload.get("permission_mode")
    if isinstance(mode, str) and mode:
        details["permission_mode"] = mode
    ctx.audit(ACTION, context=payload.get("tool_name"), result="denied", details=details)


def _recent_ids(store, session_id: str) -> set[str]:
    """Call ids of the session's newest denials (the action index bounds the read)."""
    if store is None or not session_id:
        return set()
    try:
        rows = store.rows(
            "SELECT json_extract(details, '$.tool_use_id') AS id FROM memory_audit_log"
            " WHERE action = ? AND session_id = ? AND json_valid(details) ORDER BY timestamp DESC LIMIT ?",
            (ACTION, session_id, RECENT),
        )
    except Exception:  # a store that cannot answer leaves the turn as the transcript told it
        return set()
    return {r["id"] for r in rows if isinstance(r["id"], str) and r["id"]}


def mark_turn(store, session_id: str, turn):
    """``turn`` (an :class:`.agent_turn.AgentTurn`, or None) with ``rejected`` set and
    ``denied`` naming the call when one of its calls was refused in the permission check (a
    ``permission_denied`` row of this session names its id)."""
    # a refused call answers with an error result: a turn without one needs no look at the store
    if turn is None or not getattr(turn, "found", False) or not turn.calls or not turn.errors:
        return turn
    ids = _recent_ids(store, session_id)
    hit = [cid for cid in turn.calls if cid in ids]
    if hit:
        turn.denied = turn.calls[hit[0]]  # read newest first: the last refused call
        turn.rejected = True
    return turn


def denied_call_ids(store) -> set[str]:
    """Call ids of every recorded ``permission_denied`` row (for replay)."""
    if store is None:
        return set()
    try:
        rows = store.rows(
            "SELECT DISTINCT json_extract(details, '$.tool_use_id') AS id FROM memory_audit_log"
            " WHERE action = ? AND json_valid(details)",
            (ACTION,),
        )
    except Exception:
        return set()
    return {r["id"] for r in rows if isinstance(r["id"], str) and r["id"]}
