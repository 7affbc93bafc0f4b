"""Corrections that stick: storage, repeat counting across sessions, promotion, review.

A person should say "never use pythonw.exe" once to have it remembered and at most three times
to have it proposed as a rule. So a detected correction is stored at once (redacted), the same
correction phrased differently or said in another session increments the stored row's
``occurrence_count`` instead of adding a row, and at the threshold (``capture.
auto_promote_threshold``, 3) reached in enough distinct sessions (``capture.min_sessions``, 2) it
is promoted: a memory entry (``rule`` for a prohibition, ``preference`` for an instruction) and,
when the correction names something concrete to forbid, a proposed enforcement rule (action
``warn``, ``confirmed = 0``, in force at once). The person confirms, edits or rejects it with
``memory-cli review``; a rejected correction keeps counting but is never proposed again.

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
from ..fastjson import loads
from ..util import dumps, new_id, now_iso

STATUSES = ("pending", "promoted", "approved", "rejected", "dismissed")
RULE_ACTIONS = ("warn", "block", "suggest", "ask")
MAX_CANDIDATES = 500
DEFAULT_THRESHOLD = 3
DEFAULT_MIN_SESSIONS = 2


# --------------------------------------------------------------------------- helpers


def _capture_settings(settings) -> tuple[bool, int, int]:
    section = {}
    if settings is not None:
        try:
            section = settings.section("capture") if hasattr(settings, "section") else (settings.get("capture") or {})
        except Exception:
            section = {}
    enabled = section.get("enabled", True) is not False
    try:
        threshold = max(1, int(section.get("auto_promote_threshold", DEFAULT_THRESHOLD)))
    except (TypeError, ValueError):
        threshold = DEFAULT_THRESHOLD
    try:
        min_sessions = max(1, int(section.get("min_sessions", DEFAULT_MIN_SESSIONS)))
    except (TypeError, ValueError):
        min_sessions = DEFAULT_MIN_SESSIONS
    return enabled, threshold, min_sessions


def _sessions(row: dict) -> list[str]:
    try:
        value = loads(row.get("sessions") or "[]")
    except ValueError:
        return []
    return [s for s in value if isinstance(s, str)] if isinstance(value, list) else []


def _sentence(statement: str) -> str:
    s = " ".join((statement or "").split())
    if not s:
        return s
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!?" else s + "."


def compose_statement(wrong: str, right: str) -> str:
    """A statement from the parts, for corrections edited by hand."""
    if wrong and right:
        return f"{right}, not {wrong}"
    if wrong:
        return f"do not {wrong}"
    return right or ""


# What a detection must be for Claude to be told of it in the live session: found by the rules
# (not the learned model alone), saying what was wrong or what is right, in a short prompt of
# at most TOLD_MAX_WORDS words on fewer than TOLD_MAX_LINES lines. On the prompts people really
# typed (tests/fixtures/real) the rules' explicit detections were right 19 times in 30 over all
# prompts, 16 in 19 within these bounds: the rest were task briefs, pasted plans and questions.
TOLD_MAX_WORDS = 40
TOLD_MAX_LINES = 3


def is_confident(detection, message: str) -> bool:
    """Whether a detection is sure enough to be told to Claude as "Recorded correction: ...".

    A wrong line there tells Claude it was corrected when it was not, so only what the rules
    read with its wrong or right part, in a prompt short enough not to be a brief or a paste,
    is told; every other detection is kept quietly for ``memory-cli review``."""
    if detection is None or detection.kind != "explicit":
        return False
    if not (detection.what_was_wrong or detection.what_is_right):
        return False
    text = message.strip()
    return len(text.split()) <= TOLD_MAX_WORDS and text.count("\n") < TOLD_MAX_LINES


def context_line(result: dict) -> str:
    """The one factual line Claude gets beside the prompt."""
    statement = (result.get("statement") or "").rstrip(".")
    n = result.get("occurrences") or 1
    line = f"Recorded correction: {statement}"
    if n > 1:
        line += f" (said {n} times)"
    return line + "."


def promotion_notice(result: dict) -> str:
    """What the person is told when a correction becomes a proposed rule."""
    statement = (result.get("statement") or "").rstrip(".")
    sessions = result.get("sessions") or 1
    if result.get("reinforced") and result.get("promoted_rule_id"):
        rid = result["promoted_rule_id"][:8]
        return (
            f"memory-cli: you have made this correction {result.get('occurrences')} times in "
            f'{sessions} session{"s" if sessions != 1 else ""}; "{statement}" is already rule {rid} '
            f"({result.get('rule_action')}), which it reinforced; no second rule was added."
        )
    what = (
        f"a proposed rule ({result.get('rule_action') or 'warn'}, unconfirmed)"
        if result.get("promoted_rule_id")
        else "a remembered preference"
    )
    if result.get("held_back"):
        what = "proposed; it applies once you approve it"  # the agent's lesson: never before
    return (
        f"memory-cli: you have made this correction {result.get('occurrences')} times in "
        f'{sessions} session{"s" if sessions != 1 else ""}; "{statement}" is now {what}. '
        "Review it with `memory-cli review`."
    )


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


def _redact(text: str | None) -> tuple[str, list[str]]:
    if not text:
        return "", []
    from ..redact import redact

    return redact(text)


# --------------------------------------------------------------------------- capture


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
    clean_message, kinds = _redact(user_message[: _STORED_MESSAGE + 512])
    if kinds:
        d = detect(clean_message) or d
    wrong, k1 = _redact(d.what_was_wrong)
    right, k2 = _redact(d.what_is_right)
    statement, k3 = _redact(d.statement)
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
    context_text = _redact("; ".join(parts))[0][:500] or None

    from .. import scope as scopes

    scope = "global"
    if d.scope_hint == "project" and project:
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
    }
    from ..db import LockBusy

    try:
        with store.transaction():
            row, matched_by, promoted = _store(store, prepared, now_iso())
    except LockBusy:
        # Another process holds the write lock (a bulk change): the correction waits in the
        # spool and is stored by the next process that gets the lock; the answer says it now.
        from .. import spool

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
    row, matched_by = _find_match(store, key, wrong, right, vector) if key else (None, None)
    if row is not None:
        sessions = _sessions(row)
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
            " embedding=coalesce(embedding, ?), context=coalesce(?, context) WHERE id=?",
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
    row = store.row("SELECT * FROM corrections WHERE id = ?", (cid,))
    if (
        row["status"] == "pending"
        and row["occurrence_count"] >= int(p.get("threshold") or DEFAULT_THRESHOLD)
        and len(_sessions(row)) >= int(p.get("min_sessions") or DEFAULT_MIN_SESSIONS)
        and (row["what_was_wrong"] or row["what_is_right"])
    ):
        promoted = _promote(
            store, row, action="warn", confirmed=False, status="promoted", session_id=session_id, strict=False
        )
        if "agent" in (row.get("origin"), p.get("origin")):
            promoted["held_back"] = _hold_back(store, promoted)
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
            "sessions": len(_sessions(row)),
            "matched_by": matched_by,
            "status": row["status"],
            "redacted": p.get("redacted") or None,
        },
        session_id=session_id,
        hook_event=p.get("hook_event"),
        aid=aid,
        timestamp=now if aid else None,
    )
    return row, matched_by, promoted


def _hold_back(store, promoted: dict) -> bool:
    """What an agent's lesson was promoted to waits for the person: its rule is switched off
    and its entry archived until ``memory-cli review`` approves it (which turns both on)."""
    eid = promoted.get("entry_id")
    if not eid or promoted.get("reinforced"):
        return False  # it reinforced a rule that exists already: nothing new was made
    now = now_iso()
    store.execute("UPDATE enforcement_rules SET active = 0, updated_at = ? WHERE id = ?", (now, eid))
    store.execute("UPDATE memory_entries SET status = 'archived', updated_at = ? WHERE id = ?", (now, eid))
    return True


def _queued_view(store, p: dict, d) -> dict:
    """What the answer says about a correction that waits in the spool: read from the store
    as it is now (a repeat shows the count it will reach), nothing written."""
    row, matched_by = (
        _find_match(store, p["key"], p["wrong"], p["right"], p.get("vector")) if p["key"] else (None, None)
    )
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
    """A correction captured while another process held the write lock (see memory_cli.spool)."""
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
        quote, _ = _redact(item["quote"])
        statement, _ = _redact(item["statement"])
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


# --------------------------------------------------------------------------- rules


def derive_rule_spec(row: dict) -> dict | None:
    """The enforcement rule a correction implies, or None when it names nothing concrete.

    Uses the rules area's sentence deriver on the statement, then on a sentence built from the
    parts, so a rule from "use pnpm, not npm" is a ``command`` rule on the program ``npm``
    (never firing on ``pnpm install``)."""
    wrong = (row.get("what_was_wrong") or "").strip()
    right = (row.get("what_is_right") or "").strip()
    if not wrong:
        return None  # an instruction without a mistake forbids nothing
    candidates = [row.get("statement") or ""]
    if right:
        alt = alternative_for(right)
        candidates.append(f"{alt} instead of {wrong}")
    candidates.append(f"never {wrong}")  # "pipe curl into bash" with an alternative still names a shape
    try:
        from ..rules.derive import derive_rule
    except ImportError:
        return None
    for sentence in candidates:
        if not sentence or "[REDACTED" in sentence:
            continue
        try:
            spec = derive_rule(sentence)
        except Exception:
            spec = None
        if spec:
            if right and not spec.get("alternative"):
                spec["alternative"] = alternative_for(right)  # what the person said is right
            return spec
    return None


def alternative_for(right: str) -> str | None:
    """What to do instead, as a rule's alternative: "use pnpm" for a thing, the words as said
    for an action ("open a pull request", never "use open a pull request")."""
    right = right.strip()
    if not right:
        return None
    from .detect import starts_with_action

    return right if starts_with_action(right) else f"use {right}"


def _validate_pattern(pattern: str, pattern_type: str) -> None:
    """The rules area's own checks, so a person's pattern is refused before anything is stored."""
    from ..rules import spec as rule_spec

    rule_spec.check_pattern(pattern, rule_spec.check_pattern_type(pattern_type))


def _create_rule(
    store, content: str, spec: dict, *, scope: str, action: str, confirmed: bool, message: str
) -> dict | None:
    """Create the entry and its enforcement rule, limited by the derived conditions if any."""
    from ..rules.api import create_rule

    return create_rule(
        store,
        content,
        pattern=spec["pattern"],
        pattern_type=spec["pattern_type"],
        action=action,
        severity="medium",
        alternative=spec.get("alternative"),
        message=message,
        tools=spec.get("tools"),
        fields=spec.get("fields"),
        conditions=spec.get("conditions"),
        scope=scope,
        provenance="promoted",
        confirmed=confirmed,
        source="promoted",
    )


def _promote(
    store,
    row: dict,
    *,
    action: str,
    confirmed: bool,
    status: str,
    session_id: str | None,
    strict: bool,
    pattern: str | None = None,
    pattern_type: str | None = None,
    message: str | None = None,
    scope: str | None = None,
    content: str | None = None,
    no_rule: bool = False,
) -> dict:
    """Turn a correction into a memory entry and, when possible, a rule. ``strict``: errors
    in a pattern the person gave are raised; derived ones that fail fall back to the entry."""
    from .. import entries

    statement = row.get("statement") or compose_statement(
        row.get("what_was_wrong") or "", row.get("what_is_right") or ""
    )
    content = content or _sentence(statement)
    scope = scope or row.get("scope") or "global"
    n = int(row.get("occurrence_count") or 1)
    message = message or f"{_sentence(statement)} (corrected {n} time{'s' if n != 1 else ''})"
    if no_rule:
        spec = None
    elif pattern:
        ptype = pattern_type or "command"
        _validate_pattern(pattern, ptype)
        spec = {
            "pattern": pattern,
            "pattern_type": ptype,
            "tools": ["Bash"] if ptype == "command" else None,
            "fields": ["command"] if ptype == "command" else None,
            "alternative": alternative_for(row.get("what_is_right") or ""),
        }
    else:
        spec = derive_rule_spec(row)
    rule = None
    reinforced = False
    existing = _same_rule(store, spec, scope) if spec else None
    if existing is not None:
        from ..rules.api import reinforce_rule

        rule = reinforce_rule(store, existing["id"], context=statement, session_id=session_id)
        reinforced = True
        if confirmed and not rule["confirmed"]:  # approving this correction confirms the rule it means
            from ..rules.api import confirm_rule

            rule = confirm_rule(store, existing["id"])
        if rule["confirmed"]:
            status = "approved"  # the person already wrote this rule: nothing left to review
    elif spec:
        try:
            with store.transaction():
                rule = _create_rule(
                    store, content, spec, scope=scope, action=action, confirmed=confirmed, message=message
                )
        except Exception:  # a derived pattern the rules area refuses: keep the entry, lose nothing
            if strict:
                raise
            rule = None
    if rule:
        entry_id = rule["id"]
    else:
        etype = "rule" if row.get("what_was_wrong") else "preference"
        entry = entries.add(
            store,
            content,
            etype,
            scope=scope,
            source="promoted",
            tags=["correction"],
            audit_context=f"correction {row['id']}",
        )
        entry_id = entry["id"]
    now = now_iso()
    store.execute(
        "UPDATE corrections SET status=?, promoted_to=?, reviewed_at=? WHERE id=?",
        (status, entry_id, now if status == "approved" else row.get("reviewed_at"), row["id"]),
    )
    audit.record(
        store,
        "promote",
        entry_id=entry_id,
        context=statement[:300],
        result="reinforced" if reinforced else ("approved" if status == "approved" else "proposed"),
        details={
            "correction_id": row["id"],
            "occurrences": n,
            "sessions": len(_sessions(row)),
            "rule": (
                {"pattern": rule.get("pattern"), "pattern_type": rule.get("pattern_type"), "action": rule.get("action")}
                if rule
                else None
            ),
        },
        session_id=session_id,
    )
    return {
        "entry_id": entry_id,
        "rule_id": entry_id if rule else None,
        "action": (rule.get("effective_action") or rule.get("action")) if rule else None,
        "reinforced": reinforced,
    }


def _same_rule(store, spec: dict, scope: str) -> dict | None:
    """The enabled rule that already means what this correction's rule would (rules area)."""
    from ..rules.api import same_rule

    try:
        return same_rule(
            store,
            pattern=spec["pattern"],
            pattern_type=spec["pattern_type"],
            scope=scope,
            tools=spec.get("tools"),
            fields=spec.get("fields"),
            conditions=spec.get("conditions"),
        )
    except Exception:  # a derived pattern the rules area refuses: no rule means the same
        return None


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
    sessions = _sessions(row)
    extra = {}
    if row["detection_type"] == "repeated":
        from .recurring import instances

        extra["instances"] = [
            {"id": i["id"], "session_id": i["session_id"], "statement": i["statement"], "detected_at": i["detected_at"]}
            for i in instances(store, row["id"])
        ]
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
    sql, params = "SELECT * FROM corrections", []
    if status and status != "all":
        sql += " WHERE status = ?"
        params.append(status)
    sql += " ORDER BY last_seen_at DESC LIMIT ?"
    params.append(int(limit))
    return [view(store, r) for r in store.rows(sql, params)]


def review_queue(store) -> list[dict]:
    """What waits for the person: proposed rules first, then recurring instructions (item
    "recurring": the same thing said in several sessions, :mod:`.recurring`, with every
    instance), then corrections that have content, most repeated first, then inferred ones that have none yet (a prompt the learned model took
    for a correction: only the person can say what it meant, or reject it). Each item has
    ``item`` = "proposal" | "correction" and, for pending corrections, the rule approval would
    create (``suggested_rule``)."""
    items = []
    for r in store.rows("SELECT * FROM corrections WHERE status = 'promoted' ORDER BY last_seen_at DESC"):
        v = view(store, r)
        v["item"] = "proposal"
        items.append(v)
    from .recurring import grouped_ids

    for r in store.rows(
        "SELECT * FROM corrections WHERE status = 'pending' AND detection_type = 'repeated'"
        " ORDER BY occurrence_count DESC, last_seen_at DESC"
    ):
        v = view(store, r)
        held = {i["id"] for i in v.get("instances") or []}
        if len(held) == 1 and store.value("SELECT status FROM corrections WHERE id = ?", (held.pop(),)) != "pending":
            continue  # one correction, since proposed (or reviewed) on its own count: shown there
        v["item"] = "recurring"
        v["suggested_rule"] = None
        items.append(v)
    grouped = grouped_ids(store)  # shown under their recurring proposal instead
    for r in store.rows(
        "SELECT * FROM corrections WHERE status = 'pending' AND key IS NOT NULL AND key != ''"
        " ORDER BY occurrence_count DESC, last_seen_at DESC"
    ):
        if r["id"] in grouped:
            continue
        v = view(store, r)
        v["item"] = "correction"
        spec = derive_rule_spec(r)
        v["suggested_rule"] = (
            {k: spec.get(k) for k in ("pattern", "pattern_type", "tools", "alternative")} if spec else None
        )
        items.append(v)
    for r in store.rows(
        "SELECT * FROM corrections WHERE status = 'pending' AND coalesce(key, '') = ''"
        " AND detection_type = 'inferred' ORDER BY last_seen_at DESC"
    ):
        if r["id"] in grouped:
            continue
        v = view(store, r)
        v["item"] = "correction"
        v["suggested_rule"] = None
        items.append(v)
    return items


# --------------------------------------------------------------------------- review actions


def _check_action(action: str | None) -> str | None:
    if action is None:
        return None
    a = action.strip().lower()
    if a not in RULE_ACTIONS:
        raise InvalidInput(f"unknown action {action!r}: use one of {', '.join(RULE_ACTIONS)}")
    return a


def approve(
    store,
    ref: str,
    *,
    action: str | None = None,
    pattern: str | None = None,
    pattern_type: str | None = None,
    message: str | None = None,
    scope: str | None = None,
    content: str | None = None,
    no_rule: bool = False,
) -> dict:
    """Confirm a proposal (or promote a pending correction now), optionally changing the
    rule's action, pattern, message and the entry's scope and text. ``no_rule``: keep it as
    a remembered entry only (an existing proposed rule is switched off)."""
    from .. import entries
    from .. import scope as scopes

    action = _check_action(action)
    scope = scopes.parse(scope) if scope else None
    if content is not None:
        content = _redact(content)[0].strip()
        if not content:
            raise InvalidInput("content is empty")
    if message is not None:
        message = _redact(message)[0].strip() or None
    with store.transaction():
        row = resolve(store, ref)
        if (
            row["status"] in ("promoted", "approved")
            and row["promoted_to"]
            and store.value("SELECT 1 FROM memory_entries WHERE id = ?", (row["promoted_to"],))
        ):
            eid = row["promoted_to"]
            rule = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (eid,))
            if no_rule:
                if rule is not None:
                    store.execute(
                        "UPDATE enforcement_rules SET active = 0, updated_at = ? WHERE id = ?", (now_iso(), eid)
                    )
            elif rule is None and pattern:
                ptype = pattern_type or "command"
                _validate_pattern(pattern, ptype)
                now = now_iso()
                store.execute(
                    "INSERT INTO enforcement_rules(id, pattern, pattern_type, action, severity, alternative, active,"
                    " message, tools, fields, case_sensitive, provenance, confirmed, created_at, updated_at)"
                    " VALUES (?,?,?,?,'medium',?,1,?,?,?,0,'promoted',1,?,?)",
                    (
                        eid,
                        pattern,
                        ptype,
                        action or "warn",
                        alternative_for(row["what_is_right"] or ""),
                        message or _sentence(row.get("statement") or ""),
                        dumps(["Bash"] if ptype == "command" else []),
                        dumps(["command"] if ptype == "command" else []),
                        now,
                        now,
                    ),
                )
                entries.update(store, eid, type="rule")
            elif rule is not None:
                sets, params = ["confirmed = 1", "active = 1", "updated_at = ?"], [now_iso()]
                if action:
                    sets.append("action = ?")
                    params.append(action)
                if pattern:
                    ptype = pattern_type or rule["pattern_type"]
                    _validate_pattern(pattern, ptype)
                    sets += ["pattern = ?", "pattern_type = ?"]
                    params += [pattern, ptype]
                if message:
                    sets.append("message = ?")
                    params.append(message)
                params.append(eid)
                store.execute(f"UPDATE enforcement_rules SET {', '.join(sets)} WHERE id = ?", params)
            if content or scope:
                entries.update(store, eid, content=content, scope=scope)
            if store.value("SELECT status FROM memory_entries WHERE id = ?", (eid,)) != "active":
                entries.update(store, eid, status="active")
            store.execute("UPDATE corrections SET status='approved', reviewed_at=? WHERE id=?", (now_iso(), row["id"]))
            audit.record(
                store,
                "promote",
                entry_id=eid,
                context=(row.get("statement") or "")[:300],
                result="approved",
                details={"correction_id": row["id"], "action": action, "pattern": pattern},
            )
        else:
            _promote(
                store,
                row,
                action=action or "warn",
                confirmed=True,
                status="approved",
                session_id=None,
                strict=True,
                pattern=pattern,
                pattern_type=pattern_type,
                message=message,
                scope=scope,
                content=content,
                no_rule=no_rule,
            )
        return view(store, store.row("SELECT * FROM corrections WHERE id = ?", (row["id"],)))


def reject(store, ref: str, reason: str | None = None) -> dict:
    """Reject a correction or proposal: its rule is switched off and its entry archived, and it
    is never proposed again (repeats still count)."""
    from .. import entries

    with store.transaction():
        row = resolve(store, ref)
        eid = row["promoted_to"]
        if eid and store.value("SELECT 1 FROM memory_entries WHERE id = ?", (eid,)):
            store.execute("UPDATE enforcement_rules SET active = 0, updated_at = ? WHERE id = ?", (now_iso(), eid))
            if store.value("SELECT status FROM memory_entries WHERE id = ?", (eid,)) == "active":
                entries.archive(store, eid, reason=reason or "correction rejected in review")
        store.execute("UPDATE corrections SET status='rejected', reviewed_at=? WHERE id=?", (now_iso(), row["id"]))
        audit.record(
            store,
            "reject",
            entry_id=eid,
            context=(row.get("statement") or "")[:300],
            result="rejected",
            details={"correction_id": row["id"], "reason": _redact(reason)[0] or None},
        )
        return view(store, store.row("SELECT * FROM corrections WHERE id = ?", (row["id"],)))


def edit(
    store,
    ref: str,
    *,
    what_was_wrong: str | None = None,
    what_is_right: str | None = None,
    statement: str | None = None,
) -> dict:
    """Correct what was detected. The key is recomputed so later repeats still match."""
    from .similar import correction_key

    with store.transaction():
        row = resolve(store, ref)
        wrong = _redact(what_was_wrong)[0].strip() if what_was_wrong is not None else row["what_was_wrong"]
        right = _redact(what_is_right)[0].strip() if what_is_right is not None else row["what_is_right"]
        if statement is not None:
            stmt = _redact(statement)[0].strip()
        elif what_was_wrong is not None or what_is_right is not None:
            stmt = compose_statement(wrong, right)
        else:
            stmt = row.get("statement")
        if not (wrong or right or stmt):
            raise InvalidInput("a correction needs what was wrong, what is right, or a statement")
        key = correction_key(wrong, right) if (wrong or right) else None
        store.execute(
            "UPDATE corrections SET what_was_wrong=?, what_is_right=?, statement=?, key=?, embedding=NULL WHERE id=?",
            (wrong, right, stmt, key, row["id"]),
        )
        audit.record(
            store,
            "update",
            entry_id=row["promoted_to"],
            context=(stmt or "")[:300],
            result="correction",
            details={"correction_id": row["id"], "what_was_wrong": wrong, "what_is_right": right},
        )
        return view(store, store.row("SELECT * FROM corrections WHERE id = ?", (row["id"],)))
