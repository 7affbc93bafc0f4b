"""Corrections that stick: capture and storage, repeat counting across sessions, reading.

A person should say "never use pythonw.exe" once to have it remembered and at most three times
to have it proposed as a rule. So a detected correction is stored at once (redacted), the same
correction phrased differently or said in another session increments the stored row's
``occurrence_count`` instead of adding a row, and at the threshold (``capture.
auto_promote_threshold``, 3) reached in enough distinct sessions (``capture.min_sessions``, 2) it
is promoted: a memory entry (``rule`` for a prohibition, ``preference`` for an instruction) and,
when the correction names something concrete to forbid, a proposed enforcement rule (action
``warn``, ``confirmed = 0``, in force at once; :mod:`.promotion`). The person confirms, edits
or rejects it with ``memory-cli review`` (:mod:`memory_cli.review`); a rejected correction keeps
counting but is never proposed again. How a correction is worded is :mod:`.wording`.

"The same correction" is decided in this order: the normalised key (exact), the lexical role
comparison of :func:`.similar.same_correction`, then, when the embedding daemon answered,
cosine similarity of the statements provided the roles do not conflict
(:func:`.semantic.roles_conflict`).

Secrets: the prompt, the extracted parts, the statement and the context are redacted before
anything is written, and audit records carry only the redacted statement.
"""

from __future__ import annotations

from .. import audit
from ..errors import InvalidInput, MemoryCliError, NotFound
from ..fastjson import list_of, loads
from ..util import dumps, new_id, now_iso
from .wording import compose_statement

STATUSES = ("pending", "promoted", "approved", "rejected", "dismissed")
MAX_CANDIDATES = 500
DEFAULT_THRESHOLD = 3
DEFAULT_MIN_SESSIONS = 2


# --------------------------------------------------------------------------- helpers


def _capture_settings(settings) -> tuple[bool, int, int]:
    from ..settings import value as setting

    enabled = setting(settings, "capture.enabled") is not False
    try:
        threshold = max(1, int(setting(settings, "capture.auto_promote_threshold")))
    except (TypeError, ValueError):
        threshold = DEFAULT_THRESHOLD
    try:
        min_sessions = max(1, int(setting(settings, "capture.min_sessions")))
    except (TypeError, ValueError):
        min_sessions = DEFAULT_MIN_SESSIONS
    return enabled, threshold, min_sessions


def session_ids(row: dict) -> list[str]:
    """The sessions a stored correction was said in."""
    return list_of(row.get("sessions"), str)


def _empty() -> dict:
    return {
        "correction": False,
        "kind": None,
        "what_was_wrong": None,
        "what_is_right": None,
        "confidence": None,
        "occurrences": None,
        "promoted_rule_id": None,
        "promoted_entry_id": None,
        "id": None,
        "statement": None,
        "status": None,
        "sessions": None,
        "matched_by": None,
        "promoted_now": False,
        "redacted": [],
    }


_STORED_MESSAGE = 4000  # characters of the prompt kept with a correction (detection reads as many)


def redact_text(text: str | None) -> tuple[str, list[str]]:
    """``text`` with its secrets replaced, and the kinds found (nothing stored unredacted)."""
    if not text:
        return "", []
    from ..privacy.redact import redact

    return redact(text)


# --------------------------------------------------------------------------- capture


_EVERYWHERE = None


def said_everywhere(message: str) -> bool:
    """Whether the person said the correction holds beyond this project ("always", "in every
    project", "everywhere", "globally"). Said in a project without such words, a correction
    stays in that project: every correction typed there gets the same default scope."""
    global _EVERYWHERE
    if _EVERYWHERE is None:
        import re

        _EVERYWHERE = re.compile(
            r"\b(?:always|everywhere|globally|(?:in\s+)?(?:every|any|each)\s+(?:project|repo|repository)"
            r"|(?:in\s+)?all\s+(?:of\s+)?(?:my\s+|the\s+|our\s+)?(?:projects|repos|repositories))\b",
            re.I,
        )
    return bool(_EVERYWHERE.search(message or ""))


def capture(
    store,
    user_message: str,
    *,
    session_id: str | None = None,
    context: str | None = None,
    transcript_path: str | None = None,
    project: str | None = None,
    agent: str | None = None,
    settings=None,
    embed=None,
    hook_event: str | None = None,
    detection=None,
    turn=None,
    origin: str | None = None,
    same_as: str | None = None,
) -> dict:
    """Detect a correction in ``user_message`` and store or count it. ``origin`` "agent": a
    lesson the agent recorded (:mod:`.lessons`), whose promotion waits for the person. Returns a dict with
    ``correction`` (bool) and, when true, the stored row's view (see ``_empty`` for keys).
    ``turn`` is the agent's last turn (an :class:`.agent_turn.AgentTurn` or a callable that
    reads it), else it is read from ``transcript_path`` when detection or the stored context
    needs it."""
    result = _empty()
    enabled, threshold, min_sessions = _capture_settings(settings)
    if not enabled or not isinstance(user_message, str) or not user_message.strip():
        return result
    from .detect import detect
    from .similar import correction_key

    read_turn: list = []

    def agent_turn():
        """The agent's last turn, read from the transcript once (or as the caller read it)."""
        if not read_turn:
            if turn is not None:
                read_turn.append(turn() if callable(turn) else turn)
            else:
                from .agent_turn import read

                read_turn.append(read(transcript_path, user_message))
        return read_turn[0]

    if detection is None:
        detection = detect(user_message, agent_turn)
    d = detection
    if d is None:
        return result
    # Detection reads the first _STORED_MESSAGE characters and only they are stored: redacting
    # more (a 20 MB paste) is work nobody uses. The margin lets a secret that straddles the cut
    # be recognised whole before it is cut.
    clean_message, kinds = redact_text(user_message[: _STORED_MESSAGE + 512])
    if kinds:
        d = detect(clean_message) or d
    wrong, k1 = redact_text(d.what_was_wrong)
    right, k2 = redact_text(d.what_is_right)
    statement, k3 = redact_text(d.statement)
    kinds = sorted(set(kinds) | set(k1) | set(k2) | set(k3))

    parts = []
    if context:
        parts.append(context)
    elif transcript_path or turn is not None:
        said = agent_turn()
        line = said.context_line() if said is not None else ""
        if line:
            parts.append(line)
    if project:
        parts.append(f"project {project}")
    context_text = redact_text("; ".join(parts))[0][:500] or None

    from .. import scope as scopes

    scope = "global"
    if project and (d.scope_hint == "project" or not said_everywhere(clean_message)):
        try:
            scope = scopes.parse(f"project:{project}")
        except MemoryCliError:
            scope = "global"
    key = correction_key(wrong, right) if (wrong or right) else None
    vector = None
    if key and embed is not None:
        from .semantic import embed_safely

        vectors = embed_safely(embed, [statement])
        vector = vectors[0] if vectors else None

    prepared = {
        "message": clean_message[:_STORED_MESSAGE],
        "wrong": wrong,
        "right": right,
        "statement": statement,
        "redacted": kinds,
        "context": context_text,
        "scope": scope,
        "key": key,
        "vector": vector,
        "kind": d.kind,
        "confidence": d.confidence,
        "session_id": session_id,
        "agent": agent,
        "threshold": threshold,
        "min_sessions": min_sessions,
        "hook_event": hook_event,
        "origin": origin,
        "same_as": same_as,
    }
    from ..store.db import LockBusy

    try:
        with store.transaction():
            row, matched_by, promoted = _store(store, prepared, now_iso())
    except LockBusy:
        # Another process holds the write lock (a bulk change): the correction waits in the
        # spool and is stored by the next process that gets the lock; the answer says it now.
        from ..store import spool

        spool.put(store.path, [spool.make("capture", prepared)])
        return _queued_view(store, prepared, d)
    out = view(store, row)
    out.update(
        correction=True,
        matched_by=matched_by,
        promoted_now=promoted is not None,
        redacted=kinds,
        kind=d.kind,
        confidence=d.confidence,
        first_kind=row["detection_type"],
    )
    if promoted is not None:
        out["rule_action"] = promoted.get("action")
        out["reinforced"] = promoted.get("reinforced", False)
        out["held_back"] = promoted.get("held_back", False)
    return out


def _store(store, p: dict, now: str, aid: str | None = None):
    """Store or count one prepared correction inside the caller's transaction; promote it at
    the threshold. Returns (row, matched_by, promoted rule or None)."""
    promoted = None
    key, wrong, right, statement, vector = p["key"], p["wrong"], p["right"], p["statement"], p.get("vector")
    session_id = p.get("session_id")
    confidence = float(p.get("confidence") or 0)
    joins = None  # a recurring proposal the agent said this is: the new correction joins it
    matched_by: str | None
    if p.get("same_as"):
        row, matched_by = store.row("SELECT * FROM corrections WHERE id = ?", (p["same_as"],)), "agent"
        if row is not None and row["detection_type"] == "repeated":
            joins, row = row["id"], None
    else:
        row, matched_by = _match(store, p)
    if row is not None:
        sessions = session_ids(row)
        if session_id and session_id not in sessions:
            sessions.append(session_id)
        count = int(row["occurrence_count"] or 1) + 1
        new_wrong = row["what_was_wrong"] or wrong
        new_right = row["what_is_right"] or right
        new_statement = row.get("statement") or statement
        if (not row["what_was_wrong"] and wrong) or (not row["what_is_right"] and right):
            new_statement = statement if (wrong and right) else new_statement
        store.execute(
            "UPDATE corrections SET occurrence_count=?, sessions=?, last_seen_at=?, confidence=?,"
            " what_was_wrong=?, what_is_right=?, statement=?, key=coalesce(key, ?),"
            " embedding=coalesce(embedding, ?), context=coalesce(?, context), repeats=? WHERE id=?",
            (
                count,
                dumps(sessions),
                now,
                max(float(row["confidence"] or 0), confidence),
                new_wrong,
                new_right,
                new_statement,
                key,
                vector,
                p.get("context"),
                dumps(_with_repeat(row, p.get("message"), session_id, now)),
                row["id"],
            ),
        )
        cid = row["id"]
    else:
        cid = new_id()
        sessions = [session_id] if session_id else []
        store.execute(
            "INSERT INTO corrections(id, session_id, user_message, what_was_wrong, what_is_right,"
            " context, detected_at, detection_type, occurrence_count, key, confidence, scope, agent,"
            " sessions, status, last_seen_at, statement, embedding, origin)"
            " VALUES (?,?,?,?,?,?,?,?,1,?,?,?,?,?,'pending',?,?,?,?)",
            (
                cid,
                session_id,
                p.get("message"),
                wrong,
                right,
                p.get("context"),
                now,
                p.get("kind"),
                key,
                confidence,
                p.get("scope") or "global",
                p.get("agent"),
                dumps(sessions),
                now,
                statement,
                vector,
                p.get("origin"),
            ),
        )
    if joins is not None:
        from .recurring import join

        join(store, joins, cid, session_id, now)
    row = store.row("SELECT * FROM corrections WHERE id = ?", (cid,))
    if (
        row["status"] == "pending"
        and row["occurrence_count"] >= int(p.get("threshold") or DEFAULT_THRESHOLD)
        and len(session_ids(row)) >= int(p.get("min_sessions") or DEFAULT_MIN_SESSIONS)
        and (row["what_was_wrong"] or row["what_is_right"])
    ):
        from .promotion import hold_back, promote

        promoted = promote(
            store,
            row,
            action="warn",
            confirmed=False,
            status="promoted",
            session_id=session_id,
            strict=False,
            sessions=len(session_ids(row)),
        )
        if "agent" in (row.get("origin"), p.get("origin")):
            promoted["held_back"] = hold_back(store, promoted)
        row = store.row("SELECT * FROM corrections WHERE id = ?", (cid,))
    audit.record(
        store,
        "capture",
        entry_id=row["promoted_to"],
        context=row["statement"][:300] if row["statement"] else None,
        result="repeat" if matched_by else "new",
        details={
            "correction_id": cid,
            "kind": p.get("kind"),
            "confidence": confidence,
            "occurrences": row["occurrence_count"],
            "sessions": len(session_ids(row)),
            "matched_by": matched_by,
            "status": row["status"],
            "redacted": p.get("redacted") or None,
            # how the agent worded the lesson it counted here (redacted): what a person or a
            # later measure needs to see whether it was the same instruction
            "said_as": ((p.get("statement") or "")[:300] or None) if matched_by == "agent" else None,
        },
        session_id=session_id,
        hook_event=p.get("hook_event"),
        aid=aid,
        timestamp=now if aid else None,
    )
    return row, matched_by, promoted


def _queued_view(store, p: dict, d) -> dict:
    """What the answer says about a correction that waits in the spool: read from the store
    as it is now (a repeat shows the count it will reach), nothing written."""
    row, matched_by = _match(store, p)
    out = _empty()
    out.update(
        correction=True,
        queued=True,
        statement=(row.get("statement") if row else None) or p["statement"],
        what_was_wrong=p["wrong"],
        what_is_right=p["right"],
        occurrences=int(row["occurrence_count"] or 1) + 1 if row else 1,
        status=row["status"] if row else "pending",
        id=row["id"] if row else None,
        matched_by=matched_by,
        redacted=p.get("redacted") or [],
        kind=d.kind,
        confidence=d.confidence,
    )
    return out


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """A correction captured while another process held the write lock (see memory_cli.store.spool)."""
    _store(store, args, at or now_iso(), aid=op_id)


MODEL_CONFIDENCE = 0.5  # a correction the session-end model read from the whole transcript


def record_missed(store, found: list[dict], *, session_id: str | None, project: str | None) -> list[dict]:
    """Store the corrections a model found in a finished session that capture had not: each
    ``{"quote", "statement", "kind"}`` (validated: the quote is the person's own words). One
    already captured from the same words in that session is left as it is. The rest are kept as
    inferred corrections for review, never told to anyone and never a rule on their own; they
    count like any correction, and a recurring one joins the others (:mod:`.recurring`)."""
    from .detect import Detection

    out = []
    for item in found:
        quote, _ = redact_text(item["quote"])
        statement, _ = redact_text(item["statement"])
        if not quote or not statement:
            continue
        seen = store.value(
            "SELECT id FROM corrections WHERE session_id IS ? AND instr(lower(user_message), lower(?)) > 0",
            (session_id, quote[:200]),
        )
        if seen:
            continue
        d = Detection.inferred(statement, quote, confidence=MODEL_CONFIDENCE, signal=f"model:{item['kind']}")
        out.append(capture(store, quote, session_id=session_id, project=project, detection=d, hook_event="SessionEnd"))
    return out


def _match(store, p: dict) -> tuple[dict | None, str | None]:
    """The stored correction a prepared one repeats, and how it was matched: by its parts
    (:func:`_find_match`), or, with none, by the very same words (:func:`_same_words`)."""
    if p["key"]:
        return _find_match(store, p["key"], p["wrong"], p["right"], p.get("vector"))
    row = _same_words(store, p)
    return row, ("same words" if row is not None else None)


def _same_words(store, p: dict) -> dict | None:
    """The learned model's guess taken from the very same words in the same scope, for a guess
    (which has no parts to match a repeat by): the person typed them again, which counts on that
    one (a repeat is a prompt), instead of making a second item of the same text. Only guesses:
    a contentless reproach ("That's wrong.") said twice is about two different things, and an
    agent's lesson is never matched so (two lessons from one prompt are two instructions)."""
    if p.get("origin") or p.get("kind") != "inferred" or not p.get("message"):
        return None
    return store.row(
        "SELECT * FROM corrections WHERE user_message = ? AND scope = ? AND detection_type = 'inferred'"
        " AND (key IS NULL OR key = '') AND origin IS NULL AND status != 'dismissed'"
        " ORDER BY detected_at LIMIT 1",
        (p["message"], p["scope"]),
    )


def _find_match(store, key: str, wrong: str, right: str, vector: bytes | None):
    from .similar import same_correction

    row = store.row("SELECT * FROM corrections WHERE key = ? ORDER BY detected_at LIMIT 1", (key,))
    if row is not None:
        return row, "key"
    candidates = store.rows(
        "SELECT id, what_was_wrong, what_is_right FROM corrections WHERE key IS NOT NULL AND key != ''"
        " ORDER BY last_seen_at DESC LIMIT ?",
        (MAX_CANDIDATES,),
    )
    for c in candidates:
        if same_correction(c["what_was_wrong"] or "", c["what_is_right"] or "", wrong, right):
            return store.row("SELECT * FROM corrections WHERE id = ?", (c["id"],)), "lexical"
    if vector:
        from .semantic import CORRECTION_THRESHOLD, cosine, roles_conflict, roles_overlap

        best, best_score = None, 0.0
        for c in store.rows(
            "SELECT id, what_was_wrong, what_is_right, embedding FROM corrections"
            " WHERE embedding IS NOT NULL ORDER BY last_seen_at DESC LIMIT ?",
            (MAX_CANDIDATES,),
        ):
            score = cosine(vector, c["embedding"])
            cw, cr = c["what_was_wrong"] or "", c["what_is_right"] or ""
            if score > best_score and roles_overlap(cw, cr, wrong, right) and not roles_conflict(cw, cr, wrong, right):
                best, best_score = c, score
        if best is not None and best_score >= CORRECTION_THRESHOLD:
            return store.row("SELECT * FROM corrections WHERE id = ?", (best["id"],)), "semantic"
    return None, None


# --------------------------------------------------------------------------- reading


def resolve(store, ref: str) -> dict:
    """A correction by id, unique id prefix (4+ characters), or the id of the entry it became."""
    ref = (ref or "").strip()
    if not ref:
        raise InvalidInput("a correction id is required")
    row = store.row("SELECT * FROM corrections WHERE id = ?", (ref,))
    if row is None:
        row = store.row("SELECT * FROM corrections WHERE promoted_to = ?", (ref,))
    if row is None and len(ref) >= 4:
        from ..ids import like_prefix

        like = like_prefix(ref)
        rows = store.rows(
            "SELECT * FROM corrections WHERE id LIKE ? ESCAPE '\\' OR promoted_to LIKE ? ESCAPE '\\' LIMIT 3",
            (like, like),
        )
        if len(rows) > 1:
            raise InvalidInput(f"id prefix {ref!r} is ambiguous; give more characters")
        row = rows[0] if rows else None
    if row is None:
        raise NotFound(f"no correction with id {ref!r}")
    return row


MAX_REPEATS = 20  # the words of the latest later prompts kept on a correction
REPEAT_CHARS = 300


def repeats(row: dict) -> list[dict]:
    """Each later prompt counted on ``row``: ``{"quote", "session_id", "at"}``, oldest first."""
    return list_of(row.get("repeats"), dict)


def _with_repeat(row: dict, message: str | None, session_id: str | None, now: str) -> list[dict]:
    quote = " ".join((message or "").split())
    if len(quote) > REPEAT_CHARS:
        quote = quote[: REPEAT_CHARS - 1] + "…"
    return (repeats(row) + [{"quote": quote, "session_id": session_id, "at": now}])[-MAX_REPEATS:]


def said_each_time(row: dict) -> list[dict]:
    """Every time the person said ``row``'s correction, oldest first, as review lists it
    (``{"id", "session_id", "statement", "quote", "detected_at"}``): the first prompt, then each
    later one counted on it."""
    said = [(row["session_id"], row["user_message"], row["detected_at"])]
    said += [(r.get("session_id"), r.get("quote"), r.get("at")) for r in repeats(row)]
    return [
        {"id": row["id"], "session_id": session, "statement": row["statement"], "quote": quote, "detected_at": at}
        for session, quote, at in said
    ]


def view(store, row: dict) -> dict:
    """The public shape of a correction (no vector bytes), with its entry and rule."""
    rule = None
    entry = None
    if row.get("promoted_to"):
        entry = store.row(
            "SELECT id, content, type, scope, status, confidence FROM memory_entries WHERE id = ?",
            (row["promoted_to"],),
        )
        r = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (row["promoted_to"],))
        if r is not None:
            rule = {
                k: r.get(k)
                for k in (
                    "pattern",
                    "pattern_type",
                    "action",
                    "severity",
                    "alternative",
                    "confirmed",
                    "message",
                    "provenance",
                )
            }
            rule["enabled"] = bool(r.get("active"))
            for k in ("tools", "fields"):
                try:
                    rule[k] = loads(r.get(k) or "[]")
                except ValueError:
                    rule[k] = []
            rule["confirmed"] = bool(rule["confirmed"])
    sessions = session_ids(row)
    extra = {}
    if row["detection_type"] == "repeated":
        from .recurring import instances

        every = [said for i in instances(store, row["id"]) for said in said_each_time(i)]
        extra["instances"] = sorted(every, key=lambda i: i["detected_at"] or "")
    elif repeats(row):
        extra["instances"] = said_each_time(row)
    return {
        "correction": True,
        "id": row["id"],
        "kind": row["detection_type"],
        "statement": row.get("statement") or compose_statement(row["what_was_wrong"], row["what_is_right"]),
        "what_was_wrong": row["what_was_wrong"],
        "what_is_right": row["what_is_right"],
        "confidence": row["confidence"],
        "occurrences": row["occurrence_count"],
        "sessions": len(sessions),
        "session_ids": sessions,
        "status": row["status"],
        "scope": row["scope"],
        "context": row["context"],
        "user_message": row["user_message"],
        "detected_at": row["detected_at"],
        "last_seen_at": row["last_seen_at"],
        "reviewed_at": row["reviewed_at"],
        "promoted_entry_id": row["promoted_to"],
        "promoted_rule_id": row["promoted_to"] if rule else None,
        "origin": row.get("origin") or "person",
        "entry": entry,
        "rule": rule,
        **extra,
    }


def list_corrections(store, *, status: str | None = None, limit: int = 100) -> list[dict]:
    if status and status not in STATUSES and status != "all":
        raise InvalidInput(f"unknown status {status!r}: use one of {', '.join(STATUSES)} or all")
    sql = "SELECT * FROM corrections"
    params: list = []
    if status and status != "all":
        sql += " WHERE status = ?"
        params.append(status)
    sql += " ORDER BY last_seen_at DESC LIMIT ?"
    params.append(int(limit))
    return [view(store, r) for r in store.rows(sql, params)]


def waiting_counts(store) -> tuple[int, int]:
    """(rules proposed, corrections with parts still counting) that wait for the person."""
    proposals = store.value("SELECT count(*) FROM corrections WHERE status = 'promoted'") or 0
    pending = (
        store.value("SELECT count(*) FROM corrections WHERE status = 'pending' AND key IS NOT NULL AND key != ''") or 0
    )
    return int(proposals), int(pending)
