"""Repetition as a signal of its own: the same instruction in several sessions is a standing rule.

A person who asks for the same thing in session after session, in different words ("use the
wrapper", "please go through our wrapper, not bash", "the audit needs every command to run in
the wrapper"), is teaching a rule even when no single prompt reads as a correction strong enough
to be told to Claude. Capture keeps every detection, sure or not (:mod:`.corrections`); each is
matched to earlier ones on the hook path only by its wrong and right parts, and a detection that
has none (the learned model's) is never matched there.

:func:`find_recurring` groups what a person said by meaning instead, off the hook's clock (the
detached maintenance job runs :func:`propose_recurring`): two statements belong together when
their normalised words overlap (:func:`memory_cli.capture.similar.similarity`, standard library)
or, when the embedding daemon answers, when their vectors are close. A group that spans at least
``MIN_SESSIONS`` sessions becomes one proposal in ``memory-cli review`` (kind ``repeated``),
listing every instance with its session (the ids it groups are kept in the store's ``kv``
table); nothing becomes a rule or preference without review.

Only stored corrections that read as corrections on their own are read (``READS_AS_CORRECTION``:
not the learned model's bare guesses): they are already redacted, and a prompt nobody took for
a correction (a task brief, a question, praise) is never a candidate, so a person's everyday
requests ("commit this", "run the tests") repeated across sessions are not proposed.
"""

from __future__ import annotations

from ..util import dumps, new_id, now_iso
from .similar import similarity

MIN_SESSIONS = 2
MIN_TAUGHT = 3  # or taught this many times, in one session or several
# Two statements say the same thing at or above this (stdlib similarity). Below the hook path's
# SAME_THRESHOLD (0.7): that one must not merge two different corrections on one prompt's
# evidence, this one groups phrasings a person varied on purpose, and its result is only a
# proposal for review.
GROUP_THRESHOLD = 0.5
# Cosine of two statements' embeddings (when the daemon gives them) at or above which they are
# one instruction: the hook's threshold for two phrasings of one correction.
VECTOR_THRESHOLD = 0.82
# The same for two one-line lessons a reader that understood the person wrote (the agent's
# lessons, the session-end model's findings): their paraphrases are far closer than two raw
# prompts or the detector's statements of them. Chosen on the lessons a model acting as the
# agent recorded from two real people's prompts (looser thresholds, which hand-written lessons
# favour, joined different instructions there), and held out on four others
# (scripts/score_grouping.py, docs/corrections.md).
LESSON_VECTOR_THRESHOLD = 0.6
LESSON_GROUP_THRESHOLD = 0.4  # the word threshold chosen there for two such lessons
MAX_WORDS = 40  # a longer stored prompt is a brief or a paste: its statement is not compared


MAX_CHARS = 300  # the same for text without spaces between words (Chinese, Japanese)
# Only what reads as a correction on its own is grouped: what the rules read with its wrong or
# right part, a lesson the agent recorded (its quote checked), or what a session-end model
# found (confidence 0.5). The learned model's guesses (0.3, no parts; right about half the
# time on people it was not trained on) wait alone: a repeated request must not join a
# correction to make a proposal.
READS_AS_CORRECTION = "(coalesce(key, '') != '' OR origin = 'agent' OR confidence >= 0.5)"


def _text(row: dict) -> str:
    return (row.get("statement") or row.get("user_message") or "").strip()


def find_recurring(items: list[dict], *, vectors: dict | None = None) -> list[list[dict]]:
    """Groups of ``items`` (dicts with ``id``, ``session``, ``text`` and optionally ``prompt``,
    the words the person typed, and ``taught``, how many prompts the item stands for) that say
    the same thing, each taught at least ``MIN_TAUGHT`` times or in ``MIN_SESSIONS`` sessions,
    in the same session or across sessions (a repeat is a prompt, not a session). One
    correction's instances in several sessions are one node; nodes are grouped by
    :func:`cluster`. ``vectors`` maps an item id to its embedding (float32 bytes)."""
    items = [i for i in items if i["text"] and len(i["text"].split()) <= MAX_WORDS and len(i["text"]) <= MAX_CHARS]
    nodes: dict[str, list[dict]] = {}
    for i in items:
        nodes.setdefault(i["id"], []).append(i)
    firsts = [group[0] for group in nodes.values()]
    labels = cluster(len(firsts), lambda a, b: _close(firsts[a], firsts[b], vectors))
    groups: dict[int, list[dict]] = {}
    for label, group in zip(labels, nodes.values()):
        groups.setdefault(label, []).extend(group)
    return [g for g in groups.values() if len({i["session"] for i in g}) >= MIN_SESSIONS or taught(g) >= MIN_TAUGHT]


# Two groups join when at least this share of their members' pairs are close (average linkage).
# Joining on any one close pair (single linkage) let a chain join what no member says twice:
# "branch off the phase 12 branch, not main" joined "switch to main, pull, then branch" through
# "create new branches off latest main" (scripts/score_grouping.py, docs/corrections.md).
LINK_SHARE = 0.5


def cluster(n: int, close) -> list[int]:
    """Average-linkage groups of ``n`` things, ``close(a, b)`` saying whether two are the same
    instruction: the two groups with the largest share of close pairs join first, while that
    share is at least ``LINK_SHARE``. Returns each thing's group label. Only close pairs are
    kept, so a person's few hundred waiting lessons cost the pair comparisons and little more."""
    links: dict[int, dict[int, int]] = {a: {} for a in range(n)}
    for a in range(n):
        for b in range(a + 1, n):
            if close(a, b):
                links[a][b] = links[b][a] = 1
    size = dict.fromkeys(range(n), 1)
    label = list(range(n))
    members = {a: [a] for a in range(n)}
    while True:
        best = None
        for x, row in links.items():
            for y, count in row.items():
                if x < y:
                    share = count / (size[x] * size[y])
                    if share >= LINK_SHARE and (best is None or (share, count) > best[:2]):
                        best = (share, count, x, y)
        if best is None:
            return label
        _share, _count, x, y = best
        for z, count in links.pop(y).items():
            links[z].pop(y)
            if z != x:
                links[x][z] = links[z][x] = links[x].get(z, 0) + count
        size[x] += size.pop(y)
        moved = members.pop(y)
        for m in moved:
            label[m] = x
        members[x].extend(moved)


def taught(group: list[dict]) -> int:
    """How many prompts a group stands for: each correction's own count (its repeats on the
    hook path), a prompt that two readers took a correction from (the detector and the agent,
    say) once."""
    counts: dict[str, int] = {}
    prompt_of: dict[str, tuple] = {}
    for i in group:
        counts[i["id"]] = int(i.get("taught") or 1)
        prompt_of[i["id"]] = (i["session"], " ".join((i.get("prompt") or i["id"]).split()).casefold())
    same_prompt = len(prompt_of) - len(set(prompt_of.values()))
    return sum(counts.values()) - same_prompt


def _close(a: dict, b: dict, vectors: dict | None) -> bool:
    lessons = bool(a.get("lesson") and b.get("lesson"))
    if similarity(a["text"], b["text"]) >= (LESSON_GROUP_THRESHOLD if lessons else GROUP_THRESHOLD):
        return True
    if vectors and a["id"] in vectors and b["id"] in vectors:
        from .semantic import cosine

        bar = LESSON_VECTOR_THRESHOLD if lessons else VECTOR_THRESHOLD
        return cosine(vectors[a["id"]], vectors[b["id"]]) >= bar
    return False


def is_lesson(row: dict) -> bool:
    """Whether a correction's statement is a one-line lesson written by a reader that understood
    the person (the agent, the session-end model), not the detector's cut of a prompt."""
    return row.get("origin") == "agent" or (
        row.get("detection_type") == "inferred" and float(row.get("confidence") or 0) >= 0.5
    )


def _sessions(row: dict) -> list[str]:
    """The sessions a correction was said in, or the one it was first said in."""
    from ..fastjson import list_of

    return [s for s in list_of(row.get("sessions"), str) if s] or ([row["session_id"]] if row.get("session_id") else [])


INSTANCES_KEY = "capture.recurring:"  # kv: proposal id -> the ids of the corrections it groups


def _members(store) -> dict[str, str]:
    """Instance correction id -> the id of the recurring proposal that holds it."""
    from ..store import kvstate

    out = {}
    for key, value in kvstate.with_prefix(store, INSTANCES_KEY).items():
        for i in (value or {}).get("instances", []):
            out[i] = key
    return out


def candidates(rows: list[dict]) -> list[dict]:
    """What :func:`find_recurring` groups, from stored corrections: one item per correction and
    session it was said in, with the row it came from."""
    return [
        {
            "id": r["id"],
            "session": s,
            "text": _text(r),
            "row": r,
            "prompt": r["user_message"],
            "taught": r["occurrence_count"],
            "lesson": is_lesson(r),
        }
        for r in rows
        for s in _sessions(r) or [r["id"]]
    ]


def vectors_of(rows: list[dict], embed) -> dict | None:
    """Each row's embedding by id (``embed``: ``texts -> list[bytes] | None``), or None when
    there is no embedder or it fails: words alone then decide."""
    if embed is None or not rows:
        return None
    from .semantic import embed_safely

    got = embed_safely(embed, [_text(r) for r in rows])
    return {r["id"]: v for r, v in zip(rows, got)} if got else None


def propose_recurring(store, *, embed=None) -> list[dict]:
    """Group the pending corrections per scope and write one proposal for each group spanning
    ``MIN_SESSIONS`` sessions, or add new instances to the proposal the group already holds.
    ``embed`` (``texts -> list[bytes] | None``, the daemon's) adds closeness by meaning to the
    word comparison; without it, or when it fails, words alone decide. Returns the proposals
    written or grown, as ``{"id", "statement", "instances", "sessions", "new"}``."""
    from ..store import kvstate

    members = _members(store)  # of every proposal, reviewed ones too: a rejected one is not made again
    live = {
        r["id"]
        for r in store.rows(
            "SELECT id FROM corrections WHERE detection_type = 'repeated' AND status IN ('pending', 'promoted')"
        )
    }
    # Waiting corrections that read as corrections (pending, or a lesson already proposed on its
    # own count: a paraphrase said later joins it rather than waiting beside it), and every
    # instance a recurring proposal holds
    rows = store.rows(
        "SELECT * FROM corrections WHERE detection_type != 'repeated' AND (status IN ('pending', 'promoted') AND "
        + READS_AS_CORRECTION
        + " OR id IN (SELECT value FROM json_each(?)))",
        (dumps(list(members)),),
    )
    # One bucket: the person's lessons (kept in their project) and the session-end model's
    # findings (global) of one instruction join one group; its scope is decided below.
    by_scope = {"": candidates(rows)} if rows else {}
    vectors = vectors_of(rows, embed)
    now = now_iso()
    out = []
    with store.transaction():
        for scope, items in sorted(by_scope.items()):
            for group in find_recurring(items, vectors=vectors):
                ids = list(dict.fromkeys(i["id"] for i in group))
                owners = sorted({members[i] for i in ids if i in members})
                new_ids = [i for i in ids if i not in members]
                if not new_ids:
                    continue
                sessions = sorted({i["session"] for i in group})
                if owners and not set(owners) & live:
                    # the person already approved or rejected this: new instances join it quietly,
                    # and take its decision (they are not items of their own)
                    pid = owners[0]
                    held = kvstate.get(store, INSTANCES_KEY + pid, {}).get("instances", [])
                    kvstate.put(store, INSTANCES_KEY + pid, {"instances": list(dict.fromkeys(held + new_ids))})
                    members.update(dict.fromkeys(new_ids, pid))
                    decided = store.value("SELECT status FROM corrections WHERE id = ?", (pid,))
                    if decided in ("approved", "rejected"):
                        # a new instance has made no proposal of its own yet: nothing to retire
                        settle_instances(store, pid, decided, now)
                    continue
                owners = [o for o in owners if o in live]
                if owners:
                    pid = owners[0]
                    held = kvstate.get(store, INSTANCES_KEY + pid, {}).get("instances", [])
                    all_ids = list(dict.fromkeys(held + new_ids))
                    known = {i["id"] for i in group}
                    group = group + [i for item in by_scope.values() for i in item if i["id"] in set(held) - known]
                    sessions = sorted({i["session"] for i in group})
                    store.execute(
                        "UPDATE corrections SET occurrence_count = ?, sessions = ?, last_seen_at = ? WHERE id = ?",
                        (taught(group), dumps(sessions), now, pid),
                    )
                    statement = store.value("SELECT statement FROM corrections WHERE id = ?", (pid,))
                    new = False
                else:
                    # worded as the lesson taught most often (the one the agent counted again
                    # and again), the latest of those: one wording said once does not speak
                    # for what was said three times
                    chosen = max(
                        (i["row"] for i in group),
                        key=lambda r: (int(r["occurrence_count"] or 1), r["last_seen_at"] or r["detected_at"]),
                    )
                    scope = _scope_of(group, chosen)
                    statement = _text(chosen)
                    pid = new_id()
                    all_ids = ids
                    store.execute(
                        "INSERT INTO corrections(id, session_id, user_message, what_was_wrong, what_is_right,"
                        " context, detected_at, detection_type, occurrence_count, key, confidence, scope, agent,"
                        " sessions, status, last_seen_at, statement, origin)"
                        " VALUES (?,?,?,'',?,?,?,'repeated',?,NULL,0.6,?,?,?,'pending',?,?,?)",
                        (
                            pid,
                            chosen["session_id"],
                            chosen["user_message"],
                            statement,
                            f"said in {len(sessions)} sessions",
                            now,
                            taught(group),
                            scope,
                            chosen["agent"],
                            dumps(sessions),
                            now,
                            statement,
                            chosen.get("origin"),
                        ),
                    )
                    new = True
                kvstate.put(store, INSTANCES_KEY + pid, {"instances": all_ids})
                for i in all_ids:
                    members[i] = pid
                out.append(
                    {
                        "id": pid,
                        "statement": statement,
                        "instances": len(all_ids),
                        "taught": taught(group),
                        "sessions": len(sessions),
                        "new": new,
                    }
                )
    return out


def _scope_of(group: list[dict], latest: dict) -> str:
    """Where a group's proposal applies: the scope most of its corrections have (a project's
    lessons), the latest one's on a tie."""
    from collections import Counter

    counts = Counter(i["row"]["scope"] or "global" for i in group)
    top = max(counts.values())
    return latest["scope"] if counts[latest["scope"] or "global"] == top else counts.most_common(1)[0][0]


def join(store, proposal_id: str, correction_id: str, session_id: str | None, now: str) -> None:
    """Add one correction to a recurring proposal (the agent said it is that instruction again):
    it is listed among its instances and counted, inside the caller's transaction."""
    from ..store import kvstate

    held = (kvstate.get(store, INSTANCES_KEY + proposal_id, {}) or {}).get("instances", [])
    kvstate.put(store, INSTANCES_KEY + proposal_id, {"instances": list(dict.fromkeys([*held, correction_id]))})
    row = store.row("SELECT sessions, occurrence_count FROM corrections WHERE id = ?", (proposal_id,))
    sessions = _sessions(row or {})
    if session_id and session_id not in sessions:
        sessions.append(session_id)
    store.execute(
        "UPDATE corrections SET occurrence_count = occurrence_count + 1, sessions = ?, last_seen_at = ? WHERE id = ?",
        (dumps(sorted(sessions)), now, proposal_id),
    )


def settle_instances(store, proposal_id: str, status: str, now: str) -> list[str]:
    """The person approved or rejected a recurring proposal: the instances it holds that still
    wait (pending, or proposed on their own count) take the same decision, inside the caller's
    transaction, so none comes back as an item of its own. An approved instance points at the
    proposal's entry. Returns the entries the instances had made of their own (proposed on
    their own count), for the caller to retire: the proposal's entry stands for them."""
    from ..store import kvstate

    ids = (kvstate.get(store, INSTANCES_KEY + proposal_id, {}) or {}).get("instances", [])
    if not ids:
        return []
    entry = store.value("SELECT promoted_to FROM corrections WHERE id = ?", (proposal_id,))
    rows = store.rows(
        "SELECT id, promoted_to FROM corrections WHERE id IN (SELECT value FROM json_each(?))"
        " AND status IN ('pending', 'promoted')",
        (dumps(ids),),
    )
    own = [r["promoted_to"] for r in rows if r["promoted_to"] and r["promoted_to"] != entry]
    for r in rows:
        store.execute(
            "UPDATE corrections SET status = ?, reviewed_at = ?, promoted_to = ? WHERE id = ?",
            (status, now, entry if status == "approved" and entry else r["promoted_to"], r["id"]),
        )
    return own


def _pending_proposals(store) -> set[str]:
    return {
        r["id"]
        for r in store.rows("SELECT id FROM corrections WHERE detection_type = 'repeated' AND status = 'pending'")
    }


def grouped_ids(store) -> set[str]:
    """The ids of corrections that a pending recurring proposal holds (review shows them there)."""
    members = _members(store)
    if not members:
        return set()
    live = _pending_proposals(store)
    return {i for i, pid in members.items() if pid in live}


def held_by_several(store) -> tuple[set[str], set[str]]:
    """(corrections a pending recurring proposal of several instances holds: shown there, not
    as items of their own; recurring proposals that hold a single correction: that correction
    stands for itself)."""
    from collections import Counter

    members = _members(store)
    if not members:
        return set(), set()
    sizes = Counter(members.values())
    live = _pending_proposals(store)
    held = {cid for cid, pid in members.items() if pid in live and sizes[pid] > 1}
    return held, {pid for pid, n in sizes.items() if n == 1}


def instances(store, correction_id: str) -> list[dict]:
    """Every instance of a recurring proposal, oldest first: its id, statement, session and when."""
    from ..store import kvstate

    ids = (kvstate.get(store, INSTANCES_KEY + correction_id, {}) or {}).get("instances", [])
    if not ids:
        return []
    return store.rows(
        "SELECT id, statement, user_message, session_id, sessions, detected_at, repeats FROM corrections"
        " WHERE id IN (SELECT value FROM json_each(?)) ORDER BY detected_at, id",
        (dumps(ids),),
    )
