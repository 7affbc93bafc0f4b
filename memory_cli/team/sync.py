"""One sync with the team store: push what changed here, then pull what changed there.

Push first, so a local edit reaches the server before the pull could overwrite it. Each push
is optimistic: an update applies only if the server row is still at the version this store last
saw. When a teammate got there first the update is refused, and the pull that follows resolves
the conflict the same way on every machine: the version the server accepted first wins, and the
local edit that lost is kept as a superseded entry pointing at the winner, with both versions in
the audit log. Nothing is silently lost.

Deletions travel as tombstones (``deleted`` on the server row), so a teammate's store archives
its copy instead of resurrecting it at the next push.

What the team store sends never outranks this store:
- a row whose id belongs to a local entry this store never exchanged with the team (``team_exchanged``)
  is refused and audited, and the local entry is left as it is;
- an entry this store wrote and pushed keeps its version when another login changes or removes it
  on the team store: the change is audited as held (a removal only stops sharing it here);
- a rule this store enforces as confirmed keeps its version when the row that arrives is not
  confirmed in the team store (a member changed it, which withdraws a maintainer's confirmation):
  the change is audited as held and applies once a maintainer confirms it.
"""

from __future__ import annotations

import hashlib
import json

from .. import audit, entries, provenance
from ..privacy.redact import redact
from ..rules import api as rules_api
from ..store import kvstate
from ..util import now_iso
from . import server


def _clean(text):
    return redact(text)[0] if isinstance(text, str) and text else text


def local_payload(store, entry_id: str) -> dict | None:
    """What is shared of a local entry, secrets redacted; None when the entry is gone."""
    e = store.row("SELECT * FROM memory_entries WHERE id = ?", (entry_id,))
    if e is None:
        return None
    rule = rules_api.portable_rule(store, entry_id)
    if rule is not None:
        rule["alternative"], rule["message"] = _clean(rule["alternative"]), _clean(rule["message"])
    return {
        "id": e["id"],
        "type": e["type"],
        "content": _clean(e["content"]),
        "scope": e["scope"],
        "category": e["category"],
        "subject": _clean(e["subject"]),
        "tags": json.loads(e["tags"] or "[]"),
        "confidence": round(float(e["confidence"]), 4),
        "rule": rule,
    }


def payload_hash(p: dict) -> str:
    # Not confidence: each store's decay lowers it on its own clock, which is not an edit.
    keys = ("type", "content", "scope", "category", "subject", "tags", "rule")
    canon = json.dumps({k: p.get(k) for k in keys}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()


def _mapping(store, entry_id: str) -> dict | None:
    return store.row("SELECT * FROM team_entries WHERE entry_id = ?", (entry_id,))


def exchanged(store, entry_id: str) -> bool:
    """Whether this store pushed the entry to, or pulled it from, a team store."""
    return store.value("SELECT 1 FROM team_exchanged WHERE entry_id = ?", (entry_id,)) is not None


def _mark_exchanged(store, entry_id: str, via: str, server_id: str | None = None) -> None:
    """``server_id``: the entry's id on the team store when it is not ``entry_id``; kept here too,
    so the entry is still recognised after ``team leave`` and a later join."""
    store.execute(
        "INSERT INTO team_exchanged(entry_id, via, at, server_id) VALUES (?, ?, ?, ?)"
        " ON CONFLICT(entry_id) DO UPDATE SET server_id = coalesce(excluded.server_id, server_id)",
        (entry_id, via, now_iso(), server_id if server_id != entry_id else None),
    )


def _remember(store, row: dict, *, synced_hash: str) -> None:
    store.execute(
        "INSERT INTO team_entries(entry_id, version, synced_hash, author, server_updated_at, confirmed, state,"
        " shared_at, synced_at) VALUES (?,?,?,?,?,?, 'shared', ?, ?) ON CONFLICT(entry_id) DO UPDATE SET"
        " version=excluded.version, synced_hash=excluded.synced_hash, author=excluded.author,"
        " server_updated_at=excluded.server_updated_at, confirmed=excluded.confirmed, state='shared',"
        " synced_at=excluded.synced_at",
        (
            row["id"],
            row["version"],
            synced_hash,
            row["author"],
            row["updated_at"],
            1 if row["confirmed"] else 0,
            now_iso(),
            now_iso(),
        ),
    )


# -- push ----------------------------------------------------------------------------------------
PUSH_BATCH = 500

# Only what may need pushing: never synced, to delete, gone locally, or written since its last
# sync. A sync of a store sharing 100,000 entries reads these rows, not all of them.
_CHANGED_SINCE_SYNC = (
    "SELECT t.* FROM team_entries t"
    " LEFT JOIN memory_entries e ON e.id = t.entry_id"
    " LEFT JOIN enforcement_rules r ON r.id = t.entry_id"
    " WHERE t.state = 'tombstone' OR t.version = 0 OR t.synced_at IS NULL OR e.id IS NULL"
    " OR e.updated_at > t.synced_at OR r.updated_at > t.synced_at"
    " ORDER BY t.entry_id"
)


def push(store, conn) -> dict:
    out = {"pushed": 0, "deleted": 0, "refused": 0}
    work = []  # (kind, payload or id, known version, hash)
    forget, unchanged = [], []
    for m in store.rows(_CHANGED_SINCE_SYNC):
        p = local_payload(store, m["entry_id"])
        if m["state"] == "tombstone" or p is None:
            if m["version"]:
                work.append(("delete", m["server_id"] or m["entry_id"], m["version"], None))
            else:  # never reached the server: nothing to delete there
                forget.append(m["entry_id"])
            continue
        if m["server_id"]:
            p["id"] = m["server_id"]
        h = payload_hash(p)
        if m["version"] and h == m["synced_hash"]:
            unchanged.append(m["entry_id"])  # touched, not changed (a use count, decay)
            continue
        work.append(("update" if m["version"] else "insert", p, m["version"], h))
    if forget or unchanged:
        with store.transaction():
            store.executemany("DELETE FROM team_entries WHERE entry_id = ?", [(e,) for e in forget])
            now = now_iso()
            store.executemany("UPDATE team_entries SET synced_at = ? WHERE entry_id = ?", [(now, e) for e in unchanged])
    retry = _push_work(store, conn, work, out)
    if retry:  # the same entries under their new ids (random: nobody holds them)
        _push_work(store, conn, retry, out)
    if out["pushed"] or out["deleted"]:
        with store.transaction():
            audit.record(store, "team_push", result=f"{out['pushed']} pushed, {out['deleted']} deleted")
    return out


def _local_id(store, server_id: str) -> str:
    """The local entry a team store row is about (its id, unless it was kept under another)."""
    return (
        store.value("SELECT entry_id FROM team_entries WHERE server_id = ?", (server_id,))
        or store.value("SELECT entry_id FROM team_exchanged WHERE server_id = ?", (server_id,))
        or server_id
    )


def _server_id(store, entry_id: str, m: dict | None) -> str | None:
    """The id this store knows the entry by on the team store, when it is not the local one."""
    if m is not None and m["server_id"]:
        return m["server_id"]
    return store.value("SELECT server_id FROM team_exchanged WHERE entry_id = ?", (entry_id,))


def _push_work(store, conn, work: list, out: dict) -> list:
    """Push ``work`` in batches; returns the inserts to send again under a new id."""
    retry = []
    for i in range(0, len(work), PUSH_BATCH):
        batch = work[i : i + PUSH_BATCH]
        rows = server.push_batch(conn, [(k, p, v) for k, p, v, _ in batch])
        with store.transaction():
            for (kind, p, _v, h), row in zip(batch, rows):
                eid = _local_id(store, p if kind == "delete" else p["id"])
                if kind == "insert" and row is None and not exchanged(store, eid):
                    retry.append((kind, _rekey(store, eid, p), 0, h))
                    continue
                if kind == "delete":
                    store.execute("DELETE FROM team_entries WHERE entry_id = ?", (eid,))
                    if row is None:
                        out["refused"] += 1
                        audit.record(
                            store,
                            "team_conflict",
                            entry_id=eid,
                            result="the team store kept it: a teammate changed it since (the pull brings it "
                            "back), or it is a rule only its author or a maintainer may remove",
                        )
                    else:
                        # No longer the team's: a row with this id that turns up later is refused.
                        store.execute("DELETE FROM team_exchanged WHERE entry_id = ?", (eid,))
                        out["deleted"] += 1
                elif row is None:
                    out["refused"] += 1  # resolved by the pull that follows
                else:
                    _remember(store, dict(row, id=eid), synced_hash=h)
                    _mark_exchanged(store, eid, "pushed", row["id"])
                    out["pushed"] += 1
    return retry


def _rekey(store, entry_id: str, payload: dict) -> dict:
    """The team store has a row under this entry's id that this store never sent: someone else's
    claim on it. The entry keeps its id here and is shared under a new one."""
    from ..util import new_id

    taken = payload["id"]
    server_id = new_id()
    store.execute("UPDATE team_entries SET server_id = ? WHERE entry_id = ?", (server_id, entry_id))
    audit.record(
        store,
        "team_share",
        entry_id=entry_id,
        result=f"shared as {server_id}",
        context=f"the team store already has a row with the id {taken} that this store never sent; "
        "the entry keeps its id here and is shared under a new one",
    )
    return dict(payload, id=server_id)


# -- pull ----------------------------------------------------------------------------------------
def apply_remote(store, row: dict, me: str | None = None, notes: list | None = None) -> str:
    """Bring one server row into the local store; returns what happened (for counts). ``me`` is
    this store's login on the team server: a change it made (from another machine) is the
    person's own. A row refused or kept under a new id is added to ``notes``."""
    from ..ids import check_id

    check_id(row["id"], "team row id")  # refused and audited by pull, like any bad row
    server_id = row["id"]
    row = dict(row, id=_local_id(store, server_id))
    m = _mapping(store, row["id"])
    local = store.row("SELECT * FROM memory_entries WHERE id = ?", (row["id"],))
    via = store.value("SELECT via FROM team_exchanged WHERE entry_id = ?", (row["id"],))
    # A row under the local id of an entry this store shares under another id is a stranger's.
    known_as = _server_id(store, row["id"], m)
    stranger = known_as is not None and known_as != server_id
    if local is not None and (via is None or stranger):
        if row["deleted"] or local["origin"] in (provenance.PERSON, provenance.IMPORT, None):
            with store.transaction():
                _refuse_collision(store, row, m, notes)
            return "collisions"
        # The id is held by an entry of another source (a repository file, an agent): the team's
        # row is kept beside it under a new local id, and neither replaces the other.
        with store.transaction():
            row = _take_under_new_id(store, row, server_id, local["origin"], notes)
        m, local, via = None, None, None
    # An entry this store wrote and pushed changes only by the person's own login.
    own = via == "pushed"
    teammates_change_to_own = own and (me is None or row["updated_by"] != me)
    if row["deleted"]:
        if m is None:  # not shared with this store (or this store sent the tombstone itself)
            return "skipped"
        with store.transaction():
            store.execute("DELETE FROM team_entries WHERE entry_id = ?", (row["id"],))
            if local is not None and teammates_change_to_own:
                store.execute("DELETE FROM team_exchanged WHERE entry_id = ?", (row["id"],))
                _hold(
                    store,
                    row,
                    local_payload(store, row["id"]),
                    f"{row['updated_by']} removed it from the team store; the entry written here stays, "
                    "no longer shared",
                )
                return "held"
            if local is not None and local["status"] == "active" and not own and _unvouched_removal(store, row):
                store.execute("DELETE FROM team_exchanged WHERE entry_id = ?", (row["id"],))
                _hold(
                    store,
                    row,
                    local_payload(store, row["id"]),
                    f"{row['updated_by']} removed a rule this store enforces as confirmed, and is neither its "
                    f"author ({row['author']}) nor a maintainer known here; the rule stays enforced here, no "
                    "longer synced (`memory-cli rules delete` removes it)",
                )
                return "held"
            if local is not None and local["status"] == "active":
                current = local_payload(store, row["id"])
                if m["synced_hash"] and payload_hash(current) != m["synced_hash"]:
                    audit.record(
                        store,
                        "team_conflict",
                        entry_id=row["id"],
                        result=f"{row['updated_by']} deleted it before the local edit reached the "
                        "team store; the edited version stays here, archived",
                        details={"loser": {"content": current["content"], "rule": current["rule"]}},
                    )
                entries.archive(store, row["id"], reason=f"deleted from the team store by {row['updated_by']}")
                return "archived"
        return "skipped"
    if m is not None and row["version"] <= m["version"] and bool(m["confirmed"]) == bool(row["confirmed"]):
        return "skipped"  # already seen (a pull overlaps the previous one on purpose)
    remote_hash = payload_hash(row)
    with store.transaction():
        if local is None:
            _create_local(store, row)
            _mark_exchanged(store, row["id"], "pulled", server_id)
            _remember(store, row, synced_hash=remote_hash)
            return "added"
        current = local_payload(store, row["id"])
        current_hash = payload_hash(current)
        if teammates_change_to_own:
            why = f"{row['updated_by']} changed an entry written here (team version {row['version']})"
        elif not own and not row["confirmed"] and _enforced_as_confirmed(store, row["id"]):
            why = (
                f"{row['updated_by']}'s change (team version {row['version']}) is not confirmed in the team "
                "store; this store keeps enforcing its confirmed version until a maintainer confirms the change"
            )
        else:
            why = None
        if why is not None:
            if current_hash != remote_hash:
                _hold(store, row, current, why)
            # This store's version stays; an edit made here since the last sync is still pushed.
            _remember(store, row, synced_hash=(m["synced_hash"] if m and m["synced_hash"] else current_hash))
            return "held" if current_hash != remote_hash else "skipped"
        if m is not None and m["synced_hash"] and current_hash not in (m["synced_hash"], remote_hash):
            _keep_losing_version(store, row, current)
            result = "conflict"
        else:
            result = "updated"
        # The person's own rule keeps the confirmation it has here (the team store's flag is the
        # maintainers' word on it, not the person's).
        _overwrite_local(store, row, keep_confirmed=own)
        _remember(store, row, synced_hash=remote_hash)
    return result


KEY_MAINTAINERS = "team.maintainers"


def note_maintainers(store, rows) -> None:
    """Remember the logins that confirmed a rule (only the maintainer role can): they, and a
    rule's author, are the ones whose removal of a confirmed rule this store follows."""
    seen = {r["confirmed_by"] for r in rows if r.get("confirmed_by")}
    known = set(kvstate.get(store, KEY_MAINTAINERS, []) or [])
    if seen - known:
        kvstate.put(store, KEY_MAINTAINERS, sorted(known | seen))


def _unvouched_removal(store, row: dict) -> bool:
    """A tombstone for a rule enforced here as confirmed, written by a login that is neither the
    rule's author nor a maintainer this store has seen confirm a rule. The team store's trigger
    refuses such a removal; a store that finds one anyway (a server without that trigger, a row
    made into a plain entry first) keeps enforcing the rule it had."""
    if not _enforced_as_confirmed(store, row["id"]):
        return False
    who = row["updated_by"]
    return who != row["author"] and who not in (kvstate.get(store, KEY_MAINTAINERS, []) or [])


def _enforced_as_confirmed(store, entry_id: str) -> bool:
    return bool(store.value("SELECT confirmed FROM enforcement_rules WHERE id = ?", (entry_id,)))


def _hold(store, row: dict, current: dict, why: str) -> None:
    """A change that may not replace what this store holds (a teammate's change to an entry the
    person wrote, an unconfirmed change to a rule enforced here as confirmed) is recorded with
    both versions, and the local entry stays as it is."""
    audit.record(
        store,
        "team_held",
        entry_id=row["id"],
        result="kept this store's version",
        context=why,
        details={
            "held": {k: row.get(k) for k in ("type", "content", "scope", "rule", "updated_by", "version", "deleted")},
            "kept": {"content": current["content"], "scope": current["scope"], "rule": current["rule"]},
        },
    )


def _refuse_collision(store, row: dict, m: dict | None, notes: list | None = None) -> None:
    """A row with the id of a local entry the team never had: the local entry stays as it is. If
    that entry is marked for sharing and not pushed yet, it will be shared under a new id."""
    from ..util import new_id

    rekeyed = m is not None and not m["version"] and not m["server_id"]
    if rekeyed:
        store.execute("UPDATE team_entries SET server_id = ? WHERE entry_id = ?", (new_id(), row["id"]))
    why = (
        f"{row['author']}'s row in the team store has the id of a local entry this store never shared with it; "
        "the local entry is untouched"
    )
    if m is not None:
        why += "; it is shared under an id of its own"
    audit.record(
        store,
        "team_pull",
        entry_id=row["id"],
        result="refused",
        context=why,
        details={"author": row["author"], "updated_by": row["updated_by"], "version": row["version"]},
    )
    _note(notes, row["id"], "refused", why)


def _take_under_new_id(store, row: dict, server_id: str, holder: str | None, notes: list | None = None) -> dict:
    """Keep a teammate's row whose id a local entry of another source holds, under a new local id."""
    from ..util import new_id

    local_id = new_id()
    store.execute(
        "INSERT INTO team_entries(entry_id, server_id, shared_at) VALUES (?, ?, ?)", (local_id, server_id, now_iso())
    )
    why = (
        f"{provenance.describe(holder)} holds the id {server_id}; {row['author']}'s team entry is kept here as "
        f"{local_id}, the other entry is untouched"
    )
    audit.record(store, "team_pull", entry_id=local_id, result="kept under a new id", context=why)
    _note(notes, local_id, "kept under a new id", why)
    return dict(row, id=local_id)


#: How many refused or renamed rows a sync's result lists (the audit log has every one).
MAX_NOTES = 20


def _note(notes: list | None, entry_id: str, what: str, why: str) -> None:
    if notes is not None and len(notes) < MAX_NOTES:
        notes.append({"id": entry_id, "what": what, "why": why})


def _create_local(store, row: dict) -> None:
    if row["rule"] is not None:
        r = row["rule"]
        rule = rules_api.RuleSpec(
            row["content"],
            scope=row["scope"],
            provenance="imported",
            confirmed=bool(row["confirmed"]),
            source="team",
            confidence=row["confidence"],
            tags=row["tags"],
            entry_id=row["id"],
            **rules_api.portable_kwargs(r),
        )
        rules_api.new_rule(store, rule)
    else:
        entries.add(
            store,
            row["content"],
            row["type"],
            scope=row["scope"],
            source="team",
            confidence=row["confidence"],
            tags=row["tags"],
            category=row["category"],
            subject=row["subject"],
            entry_id=row["id"],
            audit_context=f"team: {row['author']}",
        )


def _overwrite_local(store, row: dict, *, keep_confirmed: bool = False) -> None:
    entries.update(
        store,
        row["id"],
        audit_action="team_pull",
        content=row["content"],
        type=row["type"],
        scope=row["scope"],
        tags=row["tags"],
        category=row["category"],
        subject=row["subject"],
    )
    if row["rule"] is not None and store.value("SELECT 1 FROM enforcement_rules WHERE id = ?", (row["id"],)):
        changes = rules_api.portable_kwargs(row["rule"])
        # The teammate's version is the whole rule: a text it no longer has is cleared here too
        # (edit_rule ignores a missing field and clears on "").
        for key in ("alternative", "message", "name"):
            changes.setdefault(key, "")
        confirmed = bool(row["confirmed"]) or (keep_confirmed and _enforced_as_confirmed(store, row["id"]))
        rules_api.edit_rule(store, row["id"], confirmed=confirmed, **changes)


def _keep_losing_version(store, row: dict, current: dict) -> None:
    """The local edit lost to a teammate's: keep it as a superseded entry pointing at the winner."""
    loser_id = entries.add_superseded_copy(store, current, row["id"], source="team")
    audit.record(
        store,
        "team_conflict",
        entry_id=row["id"],
        result=f"kept {row['updated_by']}'s version {row['version']}; the local edit is {loser_id[:8]} (superseded)",
        details={
            "winner": {k: row.get(k) for k in ("content", "rule", "updated_by", "version")},
            "loser": {"id": loser_id, "content": current["content"], "rule": current["rule"]},
        },
    )


def pull(store, conn, mark: str) -> tuple[dict, str]:
    """Apply every change since ``mark`` in one local transaction: a pull is all or nothing,
    and a failed one is repeated whole by the next sync (applying a row twice is a no-op).

    A row this store refuses (a rule whose pattern does not compile here, written by another
    version) is left out and audited, so one bad row cannot stop every later sync."""
    from ..errors import MemoryCliError

    rows, nxt = server.pull_since(conn, mark)
    me = server.login(conn)
    out = {
        "added": 0,
        "updated": 0,
        "archived": 0,
        "conflict": 0,
        "held": 0,
        "collisions": 0,
        "skipped": 0,
        "refused_rows": 0,
    }
    notes: list[dict] = []
    with store.transaction():
        note_maintainers(store, rows)
        for row in rows:
            try:
                with store.transaction():  # a savepoint: a refused row leaves nothing behind
                    out[apply_remote(store, row, me, notes)] += 1
            except MemoryCliError as err:
                out["refused_rows"] += 1
                audit.record(
                    store,
                    "team_pull",
                    entry_id=row["id"],
                    result="refused",
                    context=str(err),
                    details={"author": row["author"], "version": row["version"]},
                )
                _note(notes, row["id"], "refused", str(err))
    out["notes"] = notes
    return out, nxt
