"""Memory entries: the one domain API that the CLI, hooks, daemon and later the dashboard and
MCP server share. Nothing here knows about Claude Code or the terminal.

Every write redacts secrets first, runs in one transaction with its audit record, and keeps
history: superseding links old to new, archiving hides without deleting, and even a deletion
leaves the deleted row in the audit log so a person can see what went and recover it.
"""

from __future__ import annotations

from . import audit
from . import fastjson as json  # json's loads/dumps; importing json costs a hook 2 ms
from . import scope as scopes
from .errors import Conflict, InvalidInput, NotFound
from .store.db import Store
from .util import now_iso

TYPES = ("rule", "correction", "preference", "fact", "pattern", "decision")
SOURCES = (
    "manual",
    "user_correction",
    "auto_detected",
    "promoted",
    "imported",
    "migrated",
    "marker",
    "agent",
    "session",
    "team",
    "repo",
)
STATUSES = ("active", "archived", "superseded")
CATEGORIES = ("timing", "dependency", "behavior", "remediation", "maintenance")

# A person typing a memory is trusted more than something inferred (which starts at 0.3).
DEFAULT_CONFIDENCE = {
    "manual": 0.8,
    "imported": 0.8,
    "migrated": 0.7,
    "promoted": 0.8,
    "user_correction": 0.6,
    "marker": 0.7,
    "auto_detected": 0.3,
    "agent": 0.5,
    "session": 0.5,
    "team": 0.8,
    "repo": 0.9,
}

#: Raising an archived memory's confidence to at least this (the default injection floor)
#: reactivates it; superseded memories stay superseded (their replacement is the live one).
REACTIVATE_AT = 0.3

_EDITABLE = ("content", "type", "scope", "confidence", "tags", "category", "subject", "status", "source")


# -- validation ------------------------------------------------------------------------------
def check_type(value: str) -> str:
    t = (value or "").strip().lower()
    if t not in TYPES:
        raise InvalidInput(f"unknown type {value!r}: use one of {', '.join(TYPES)}")
    return t


def check_source(value: str) -> str:
    s = (value or "").strip().lower()
    if s not in SOURCES:
        raise InvalidInput(f"unknown source {value!r}: use one of {', '.join(SOURCES)}")
    return s


def check_status(value: str) -> str:
    s = (value or "").strip().lower()
    if s not in STATUSES:
        raise InvalidInput(f"unknown status {value!r}: use one of {', '.join(STATUSES)}")
    return s


def check_content(store: Store, value) -> str:
    if value is None or not str(value).strip():
        raise InvalidInput("content is empty: a memory needs some text")
    text = str(value).strip()
    from .privacy.redact import redact

    clean, kinds = redact(text)
    if kinds:
        store.warn(f"redacted {len(kinds)} secret(s) before storing ({', '.join(sorted(set(kinds)))})")
    from .privacy.redact import FIELD_LIMITS

    limit = FIELD_LIMITS["memory_entries.content"]
    if len(clean) > limit:
        store.warn(f"content is {len(clean):,} characters; only the first {limit:,} are kept")
    return clean


def clamp_confidence(store: Store, value) -> float:
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"confidence must be a number between 0.0 and 1.0, got {value!r}") from None
    if c != c:  # NaN
        raise InvalidInput("confidence must be a number between 0.0 and 1.0, got NaN")
    if c < 0.0 or c > 1.0:
        clamped = min(1.0, max(0.0, c))
        store.warn(f"confidence {c:g} is outside 0.0-1.0; clamped to {clamped:g}")
        return clamped
    return c


def parse_tags(value) -> list[str]:
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    out: list[str] = []
    for t in items:
        t = str(t).strip()
        if t and t not in out:
            out.append(t)
    return out


def check_category(value):
    if value is None or value == "":
        return None
    c = str(value).strip().lower()
    if c not in CATEGORIES:
        raise InvalidInput(f"unknown category {value!r}: use one of {', '.join(CATEGORIES)}")
    return c


# -- reading ---------------------------------------------------------------------------------
def decode(row: dict | None) -> dict | None:
    """Turn a stored row into the public shape (tags as a list, no raw vector bytes)."""
    if row is None:
        return None
    return _decoded(row)


def _decoded(row: dict) -> dict:
    """:func:`decode` of a row that exists."""
    out = dict(row)
    try:
        out["tags"] = json.loads(out.get("tags") or "[]")
    except ValueError:
        out["tags"] = []
    out.pop("embedding", None)
    out.pop("rowid", None)
    out["pinned"] = bool(out.get("pinned"))
    return out


def resolve_id(store: Store, ref: str, table: str = "memory_entries") -> str:
    """Accept a full id or a unique prefix of at least 4 characters, as git does."""
    ref = (ref or "").strip()
    if not ref:
        raise InvalidInput("an id is required")
    if store.value(f"SELECT 1 FROM {table} WHERE id = ?", (ref,)):
        return ref
    if len(ref) >= 4:
        from .ids import like_prefix  # not at import: hooks load this module, never a prefix

        ids = [
            r["id"]
            for r in store.rows(f"SELECT id FROM {table} WHERE id LIKE ? ESCAPE '\\' LIMIT 3", (like_prefix(ref),))
        ]
        if len(ids) == 1:
            return ids[0]
        if len(ids) > 1:
            raise InvalidInput(f"id prefix {ref!r} is ambiguous; give more characters")
    raise NotFound(f"no memory with id {ref!r}")


def get(store: Store, ref: str) -> dict:
    eid = resolve_id(store, ref)
    return _decoded(_existing(store, "SELECT * FROM memory_entries WHERE id = ?", eid))


def _existing(store: Store, sql: str, eid: str) -> dict:
    """The row ``sql`` reads for a memory :func:`resolve_id` has just found; one deleted in
    between (by another process) is NotFound, as it would have been a moment earlier."""
    row = store.row(sql, (eid,))
    if row is None:
        raise NotFound(f"no memory with id {eid!r}")
    return row


#: The subject filter for memories about no subject in particular: injection lists them under
#: "general", and ``--subject general`` (CLI, dashboard) finds them.
GENERAL_SUBJECT = "general"


def subject_matches(wanted: str, subject: str | None) -> bool:
    """The subject filter of :func:`list_entries`, for rows already in hand (ranked search)."""
    want = wanted.strip().lower()
    have = (subject or "").strip().lower()
    return have in ("", GENERAL_SUBJECT) if want == GENERAL_SUBJECT else have == want


def _filters(
    store: Store,
    *,
    type=None,
    scope=None,
    status="active",
    source=None,
    category=None,
    subject=None,
    min_confidence=None,
) -> tuple[list[str], list]:
    """The WHERE clauses shared by :func:`list_entries` and :func:`count_entries`."""
    where: list[str] = []
    params: list = []
    if type:
        where.append("type = ?")
        params.append(check_type(type))
    if scope:
        where.append("scope = ?")
        params.append(scopes.parse(scope))
    if status and status != "all":
        where.append("status = ?")
        params.append(check_status(status))
    if source:
        where.append("source = ?")
        params.append(check_source(source))
    if category:
        where.append("category = ?")
        params.append(check_category(category))
    if subject is not None and str(subject).strip():
        if str(subject).strip().lower() == GENERAL_SUBJECT:
            where.append("(subject IS NULL OR trim(subject) = '' OR lower(subject) = 'general')")
        else:
            where.append("lower(subject) = lower(?)")
            params.append(str(subject).strip())
    if min_confidence is not None:
        try:
            mc = float(min_confidence)
        except (TypeError, ValueError):
            raise InvalidInput(f"min_confidence must be a number between 0.0 and 1.0, got {min_confidence!r}") from None
        if not 0.0 <= mc <= 1.0:
            raise InvalidInput(f"min_confidence must be between 0.0 and 1.0, got {mc:g}")
        where.append("confidence >= ?")
        params.append(mc)
    return where, params


# Sort keys a person can pick; each has a natural direction (newest, most confident first).
ORDERS = {
    "updated": ("updated_at", "DESC"),
    "created": ("created_at", "DESC"),
    "confidence": ("confidence", "DESC"),
    "used": ("use_count", "DESC"),
    "type": ("type", "ASC"),
    "scope": ("scope", "ASC"),
    "content": ("content COLLATE NOCASE", "ASC"),
    "status": ("status", "ASC"),
    "source": ("source", "ASC"),
}


def list_entries(
    store: Store,
    *,
    type: str | None = None,
    scope: str | None = None,
    status: str | None = "active",
    source: str | None = None,
    category: str | None = None,
    subject: str | None = None,
    min_confidence: float | None = None,
    limit: int | None = None,
    offset: int = 0,
    order: str = "updated",
    descending: bool | None = None,
) -> list[dict]:
    """Entries matching every filter given. ``order`` is one of :data:`ORDERS`; ``descending``
    flips its natural direction when given."""
    where, params = _filters(
        store,
        type=type,
        scope=scope,
        status=status,
        source=source,
        category=category,
        subject=subject,
        min_confidence=min_confidence,
    )
    if order not in ORDERS:
        raise InvalidInput(f"unknown order {order!r}: use one of {', '.join(ORDERS)}")
    column, direction = ORDERS[order]
    if descending is not None:
        direction = "DESC" if descending else "ASC"
    order_by = f" ORDER BY {column} {direction}, id {direction}"
    # Sort only the keys and rowids, then read the page's rows: sorting whole rows (content,
    # vectors) of a large store costs several times more.
    inner = "SELECT rowid FROM memory_entries"
    if where:
        inner += " WHERE " + " AND ".join(where)
    inner += order_by
    if limit is not None or offset:
        if limit is not None and limit < 0:
            raise InvalidInput("limit must be zero or more")
        if offset < 0:
            raise InvalidInput("offset must be zero or more")
        inner += " LIMIT ? OFFSET ?"
        params += [-1 if limit is None else int(limit), int(offset)]
    sql = f"SELECT * FROM memory_entries WHERE rowid IN ({inner}){order_by}"
    return [_decoded(r) for r in store.rows(sql, params)]


def count_entries(store: Store, **filters) -> int:
    """How many entries :func:`list_entries` would return with these filters and no limit."""
    where, params = _filters(store, **filters)
    sql = "SELECT count(*) FROM memory_entries" + (" WHERE " + " AND ".join(where) if where else "")
    return int(store.value(sql, params) or 0)


def pin_state(store: Store, eid: str) -> dict | None:
    """``{"id", "pinned"}`` of one entry (a full id), or None: read before a change, so the
    CLAUDE.md pins are re-synced when a pinned entry was touched."""
    return store.row("SELECT id, pinned FROM memory_entries WHERE id = ?", (eid,))


def pinned_entries(store: Store) -> list[dict]:
    """``{"id", "pinned"}`` of every pinned entry."""
    return store.rows("SELECT id, pinned FROM memory_entries WHERE pinned = 1")


# -- writing ---------------------------------------------------------------------------------
def _check_owner(store: Store, eid: str, by: str, what: str) -> None:
    if by != "person":
        from .provenance import check_may_change

        check_may_change(store, eid, by, what)


def add(
    store: Store,
    content: str,
    type: str,
    *,
    scope: str | None = "global",
    source: str = "manual",
    confidence: float | None = None,
    tags=None,
    category: str | None = None,
    subject: str | None = None,
    session_id: str | None = None,
    agent: str | None = None,
    fingerprint: str | None = None,
    entry_id: str | None = None,
    audit_context: str | None = None,
    origin: str | None = None,
    home_scope: str | None = None,
) -> dict:
    """Store a new entry. ``origin`` says who wrote it (default: what ``source`` means, see
    :mod:`memory_cli.provenance`). An agent or a model (origin ``agent``/``session``) writes
    only into ``home_scope``, the project it works in: a wider ``scope`` is stored at home (or,
    without a home, held back as archived) and waits in review as ``requested_scope``."""
    from . import provenance
    from .util import new_id

    text = check_content(store, content)
    t = check_type(type)
    sc = scopes.parse(scope)
    src = check_source(source)
    org = origin or provenance.ORIGIN_OF_SOURCE.get(src, provenance.PERSON)
    requested, status = None, "active"
    if org in provenance.UNREVIEWED:
        home = scopes.parse(home_scope) if home_scope else None
        if sc != home:
            requested = sc
            if home is not None:
                sc = home
            else:
                status = "archived"
    conf = clamp_confidence(store, DEFAULT_CONFIDENCE.get(src, 0.5) if confidence is None else confidence)
    tag_list = parse_tags(tags)
    cat = check_category(category)
    subj = subject.strip() if isinstance(subject, str) and subject.strip() else None
    if entry_id is not None:  # from a repository file, an import or a team store
        from .ids import check_id

        check_id(entry_id)
    eid = entry_id or new_id()
    now = now_iso()
    with store.transaction():
        store.execute(
            "INSERT INTO memory_entries(id, content, type, scope, source, confidence, tags, created_at,"
            " updated_at, category, subject, session_id, agent, reinforced_at, fingerprint, origin,"
            " requested_scope, status)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                eid,
                text,
                t,
                sc,
                src,
                conf,
                json.dumps(tag_list),
                now,
                now,
                cat,
                subj,
                session_id,
                agent,
                now,
                fingerprint,
                org,
                requested,
                status,
            ),
        )
        details = {"scope": sc, "source": src, "confidence": conf, "origin": org}
        if requested:
            details["requested_scope"] = requested
        audit.record(
            store,
            "add",
            entry_id=eid,
            context=audit_context,
            result=t,
            details=details,
            session_id=session_id,
        )
    return get(store, eid)


def update(store: Store, ref: str, *, audit_action: str = "update", by: str = "person", **changes) -> dict:
    """Change fields in place. Content changes that deserve history should use :func:`supersede`.
    ``by`` is who asks (an origin): only the person, or the source that created the entry
    (:class:`memory_cli.provenance.NotOwner` otherwise).

    Raising an archived entry's confidence to :data:`REACTIVATE_AT` or more also sets it active
    again (unless ``status`` is given explicitly); the audit row records both changes.
    """
    unknown = set(changes) - set(_EDITABLE)
    if unknown:
        raise InvalidInput(f"cannot update {', '.join(sorted(unknown))}")
    eid = resolve_id(store, ref)
    _check_owner(store, eid, by, "change")
    with store.transaction():
        before = _existing(store, "SELECT * FROM memory_entries WHERE id = ?", eid)
        sets, params, diff = [], [], {}
        for key, value in changes.items():
            if value is None:
                continue
            if key == "content":
                value = check_content(store, value)
            elif key == "type":
                value = check_type(value)
            elif key == "scope":
                value = scopes.parse(value)
            elif key == "confidence":
                value = clamp_confidence(store, value)
            elif key == "tags":
                value = json.dumps(parse_tags(value))
            elif key == "category":
                value = check_category(value)
            elif key == "status":
                value = check_status(value)
                if value == "active" and before["status"] == "superseded" and before["superseded_by"]:
                    raise Conflict(
                        f"memory {eid[:8]} was superseded by {before['superseded_by'][:8]}; "
                        "edit that one instead of reactivating this"
                    )
            elif key == "source":
                value = check_source(value)
            if before[key] != value:
                sets.append(f"{key} = ?")
                params.append(value)
                diff[key] = {"before": before[key], "after": value}
        if (
            "confidence" in diff
            and "status" not in diff
            and changes.get("status") is None
            and before["status"] == "archived"
            and diff["confidence"]["after"] > diff["confidence"]["before"]
            and diff["confidence"]["after"] >= REACTIVATE_AT
        ):
            # Raising an archived memory's confidence means "this is true after all": it comes back.
            sets.append("status = ?")
            params.append("active")
            diff["status"] = {"before": "archived", "after": "active"}
        if (
            by == "person"
            and before["requested_scope"] is not None
            and ("scope" in diff or (diff.get("status") or {}).get("after") == "active")
        ):
            # The person placed it (or let it apply as it is): nothing waits for review any more.
            sets.append("requested_scope = NULL")
            diff["requested_scope"] = {"before": before["requested_scope"], "after": None}
        if not sets:
            return _decoded(before)
        now = now_iso()
        sets.append("updated_at = ?")
        params.append(now)
        if "confidence" in diff or "content" in diff:
            sets.append("reinforced_at = ?")  # a person touching it restarts the decay clock
            params.append(now)
        params.append(eid)
        store.execute(f"UPDATE memory_entries SET {', '.join(sets)} WHERE id = ?", params)
        audit.record(store, audit_action, entry_id=eid, details=diff)
    return get(store, eid)


def supersede(store: Store, ref: str, content: str, *, by: str = "person", **fields) -> dict:
    """Replace an entry with a new one; the old keeps its history and points to the new."""
    old = get(store, ref)
    _check_owner(store, old["id"], by, "replace")
    scope = fields.pop("scope", None) or old["scope"]
    with store.transaction():
        new = add(
            store,
            content,
            fields.pop("type", None) or old["type"],
            scope=scope,
            source=fields.pop("source", None) or old["source"],
            confidence=fields.pop("confidence", None) if "confidence" in fields else old["confidence"],
            tags=fields.pop("tags", None) if fields.get("tags") is not None else old["tags"],
            category=fields.pop("category", None) or old["category"],
            subject=fields.pop("subject", None) or old["subject"],
            audit_context=f"supersedes {old['id']}",
            origin=fields.pop("origin", None) or old.get("origin"),
            home_scope=scope if by == "person" else old["scope"],
        )
        store.execute(
            "UPDATE memory_entries SET status='superseded', superseded_by=?, updated_at=? WHERE id=?",
            (new["id"], now_iso(), old["id"]),
        )
        audit.record(store, "supersede", entry_id=old["id"], result=new["id"])
    return new


def archive(store: Store, ref: str, reason: str | None = None, *, by: str = "person") -> dict:
    eid = resolve_id(store, ref)
    _check_owner(store, eid, by, "archive")
    with store.transaction():
        store.execute("UPDATE memory_entries SET status='archived', updated_at=? WHERE id=?", (now_iso(), eid))
        audit.record(store, "archive", entry_id=eid, context=reason)
    return get(store, eid)


def delete(store: Store, ref: str, *, by: str = "person") -> dict:
    """Remove an entry for good. The full row is kept in the audit log's details."""
    eid = resolve_id(store, ref)
    _check_owner(store, eid, by, "delete")
    with store.transaction():
        row = _decoded(_existing(store, "SELECT * FROM memory_entries WHERE id = ?", eid))
        rule = store.row("SELECT * FROM enforcement_rules WHERE id = ?", (eid,))
        store.execute("UPDATE memory_entries SET superseded_by = NULL WHERE superseded_by = ?", (eid,))
        store.execute("DELETE FROM memory_entries WHERE id = ?", (eid,))
        audit.record(store, "delete", entry_id=eid, details={"entry": row, "rule": rule})
    return row


REACTIVATE_CONFIDENCE = 0.5  # a person vouching again: comfortably above the 0.3 injection floor


def reactivate(store: Store, ref: str, *, floor: float = 0.3) -> dict:
    """Bring an inactive memory back: archived becomes active, and a confidence below the
    injection ``floor`` is raised to :data:`REACTIVATE_CONFIDENCE` so it is injected again.
    A superseded memory cannot be reactivated (edit its replacement)."""
    entry = get(store, ref)
    changes: dict = {}
    if entry["status"] != "active":
        changes["status"] = "active"
    if entry["confidence"] < floor:
        changes["confidence"] = max(REACTIVATE_CONFIDENCE, floor)
    if not changes:
        return entry
    return update(store, entry["id"], audit_action="reactivate", **changes)


BULK_ACTIONS = ("delete", "archive", "activate")


def bulk(store: Store, action: str, refs, *, floor: float = 0.3) -> int:
    """Apply ``action`` to many entries in one transaction; returns how many changed.

    Everything is validated first (the action, every id): one unknown id and nothing is
    applied. ``activate`` is :func:`reactivate` (archived, or below the injection ``floor``);
    an entry already in the target state is not counted. Each change is audited as its single-entry counterpart is."""
    if action not in BULK_ACTIONS:
        raise InvalidInput(f"unknown bulk action {action!r}: use one of {', '.join(BULK_ACTIONS)}")
    if isinstance(refs, (str, bytes)) or not refs:
        raise InvalidInput("ids must be a non-empty list of memory ids")
    ids: list[str] = []
    missing: list[str] = []
    for ref in refs:
        try:
            eid = resolve_id(store, str(ref))
        except NotFound:
            missing.append(str(ref))
            continue
        if eid not in ids:
            ids.append(eid)
    if missing:
        raise NotFound(
            f"no memory with id {', '.join(repr(m) for m in missing[:5])}"
            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            + "; nothing was changed"
        )
    changed = 0
    with store.transaction():
        for eid in ids:
            status = store.value("SELECT status FROM memory_entries WHERE id = ?", (eid,))
            if action == "delete":
                delete(store, eid)
            elif action == "archive":
                if status == "archived":
                    continue
                archive(store, eid, reason="bulk")
            else:
                before = _existing(store, "SELECT status, confidence FROM memory_entries WHERE id = ?", eid)
                after = reactivate(store, eid, floor=floor)
                if (after["status"], after["confidence"]) == (before["status"], before["confidence"]):
                    continue
            changed += 1
    return changed


def purge_scope(scope: str | None) -> str:
    """The scope a purge names, spelled out: elsewhere an empty scope means ``global``, but an
    unset shell variable (``--scope "$S"``) must not wipe every global memory."""
    if scope is None or not str(scope).strip():
        raise InvalidInput("purge needs an explicit scope: global, project:<name> or file:<path>")
    return scopes.parse(scope)


def purge(store: Store, scope: str, *, source: str | None = None) -> int:
    """Delete every entry in exactly ``scope`` (of one ``source`` if given), in one transaction.

    Each deleted row (and its rule) is kept in the audit log, as :func:`delete` keeps it, so a
    purge can be inspected and undone by hand; one ``purge`` record sums it up."""
    sc = purge_scope(scope)
    src = check_source(source) if source else None
    sql = "SELECT id FROM memory_entries WHERE scope = ?"
    params: list = [sc]
    if src:
        sql += " AND source = ?"
        params.append(src)
    with store.transaction():
        ids = [r["id"] for r in store.rows(sql, params)]
        for eid in ids:
            delete(store, eid)
        audit.record(
            store, "purge", context=sc, result=str(len(ids)), details={"scope": sc, "source": src, "deleted": ids}
        )
    return len(ids)


def mark_used(store: Store, ids: list[str], *, session_id: str | None = None) -> None:
    """Injection and queries count as use: it feeds ranking, decay and LRU pin eviction."""
    if not ids:
        return
    now = now_iso()
    with store.transaction():
        store.executemany(
            "UPDATE memory_entries SET use_count = use_count + 1, last_used = ? WHERE id = ?", [(now, i) for i in ids]
        )
        if session_id:
            store.executemany(
                "INSERT OR IGNORE INTO session_injections(session_id, entry_id, injected_at) VALUES (?,?,?)",
                [(session_id, i, now) for i in ids],
            )


# -- what other areas change on an entry -----------------------------------------------------
# The areas that keep an entry's counters, pins, decay or review state ask for the change here,
# so this module stays the one that writes ``memory_entries``. Each writes only the columns it
# names, without the checks and the audit row of :func:`update`: the caller audits its own
# event (a decay step, a pin, a reinforcement), inside its own transaction.


def set_confidence(
    store: Store, eid: str, confidence: float, *, archive: bool = False, reinforced: bool = False
) -> None:
    """A confidence a rule of the caller computed (a contradiction, a reinforcement); ``archive``:
    the entry drops out of use; ``reinforced``: its decay clock restarts."""
    now = now_iso()
    sets = "confidence = ?, updated_at = ?" + (", reinforced_at = ?" if reinforced else "")
    sets += ", status = 'archived'" if archive else ""
    params: list = [confidence, now] + ([now] if reinforced else [])
    store.execute(f"UPDATE memory_entries SET {sets} WHERE id = ?", [*params, eid])


def set_decayed(store: Store, eid: str, confidence: float, decayed_at: str, *, archive: bool) -> None:
    """One decay step (:mod:`memory_cli.maintenance.decay_store`)."""
    store.execute(
        "UPDATE memory_entries SET confidence = ?, decayed_at = ?,"
        " status = CASE WHEN ? THEN 'archived' ELSE status END WHERE id = ?",
        (confidence, decayed_at, 1 if archive else 0, eid),
    )


def set_pinned(store: Store, eid: str, pinned_at: str | None) -> None:
    """Pinned into an agent's instructions file since ``pinned_at``, or (None) not pinned."""
    store.execute(
        "UPDATE memory_entries SET pinned = ?, pinned_at = ? WHERE id = ?", (1 if pinned_at else 0, pinned_at, eid)
    )


def set_superseded_by(store: Store, eid: str, successor: str) -> None:
    """``eid`` lives on as ``successor`` (a merge of several into one)."""
    store.execute(
        "UPDATE memory_entries SET status='superseded', superseded_by=?, updated_at=? WHERE id=?",
        (successor, now_iso(), eid),
    )


def set_created_at(store: Store, eid: str, created_at: str) -> None:
    """An imported entry keeps the date its source gave it (the decay clock stays at now)."""
    store.execute("UPDATE memory_entries SET created_at = ? WHERE id = ?", (created_at, eid))


def count_violation(store: Store, eid: str) -> None:
    """One more violation of the rule on ``eid``."""
    store.execute("UPDATE memory_entries SET violation_count = violation_count + 1 WHERE id = ?", (eid,))


def hold_back(store: Store, eid: str) -> None:
    """What an agent's lesson was promoted to waits, archived, until the person approves it."""
    store.execute("UPDATE memory_entries SET status = 'archived', updated_at = ? WHERE id = ?", (now_iso(), eid))


def settle_requested_scope(store: Store, eid: str, scope: str | None) -> None:
    """A requested scope was decided: granted (``scope``: the entry moves there and is active)
    or refused (None: it stays where it was written)."""
    if scope:
        store.execute(
            "UPDATE memory_entries SET scope = ?, requested_scope = NULL, status = 'active', updated_at = ?"
            " WHERE id = ?",
            (scope, now_iso(), eid),
        )
    else:
        store.execute("UPDATE memory_entries SET requested_scope = NULL, updated_at = ? WHERE id = ?", (now_iso(), eid))


def add_superseded_copy(store: Store, current: dict, successor: str, *, source: str) -> str:
    """A copy of ``current`` kept as superseded by ``successor`` (a local edit that lost to a
    teammate's); returns the copy's id."""
    from .util import new_id

    copy_id = new_id()
    now = now_iso()
    store.execute(
        "INSERT INTO memory_entries(id, content, type, scope, source, confidence, tags, created_at, updated_at,"
        " category, subject, status, superseded_by) VALUES (?,?,?,?,?,?,?,?,?,?,?, 'superseded', ?)",
        (
            copy_id,
            current["content"],
            current["type"],
            current["scope"],
            source,
            current["confidence"],
            json.dumps(current["tags"]),
            now,
            now,
            current["category"],
            current["subject"],
            successor,
        ),
    )
    return copy_id
