"""Choosing which memories the agent sees: at session start, beside a prompt, after a failure.

Session start: every memory whose scope applies (global always, the project's in that project,
a file's when that file is in play) is eligible if it is active and confident enough; the
eligible ones are ranked by relevance to the session context, confidence, how specific their
scope is and how binding their type is, then rendered within the budget (see ``format``).
After compaction (SessionStart ``source: compact``) the conversation lost what was injected,
so pinned memories go first and are never cut by the entry limit.

Per prompt: only memories above the relevance threshold, a few of them, never one this
session already received. A question about what was decided *against* ("what did we decide
not to do about caching") also pulls decisions that record a rejected alternative.

After a failure: the error's salient lines are the query; matches are offered as past
solutions, again never repeating one the session already saw.

Every injection counts as use (use_count, last_used, ``session_injections``) and is audited.
Standard library and apsw only at module level: this runs inside hook processes.
"""

from __future__ import annotations

import re

from .. import fastjson as json  # json's loads/dumps without importing json (and its patterns)
from .. import regex_cache
from .. import scope as scopes
from ..errors import InvalidInput
from . import format as fmt

# Session-start ranking weights (documented in the README, "Injection and migration").
W_RELEVANCE, W_CONFIDENCE, W_SPECIFIC, W_TYPE = 0.45, 0.35, 0.10, 0.10
TYPE_WEIGHT = {"rule": 1.0, "correction": 0.9, "decision": 0.6, "pattern": 0.6, "preference": 0.5, "fact": 0.4}
PINNED_BONUS = 0.10
#: The most a session-start answer can carry: Claude Code's hook output limit less the wrapping.
SESSION_CHAR_LIMIT = fmt.HARD_CHAR_LIMIT
#: Relevance (0-1 hybrid score against the session's project, files and task) a memory needs at
#: session start unless its scope or type makes it apply anyway (see :func:`needs_relevance`).
SESSION_RELEVANCE_FLOOR = 0.35
#: Global memories of these types bind the agent everywhere: injected whatever the session is about.
BINDING_TYPES = ("rule", "correction", "preference")

_FIELDS = (
    "id",
    "content",
    "type",
    "scope",
    "confidence",
    "tags",
    "pinned",
    "use_count",
    "last_used",
    "updated_at",
    "subject",
    "category",
    "source",
    "origin",
)
_COLUMNS = ", ".join(_FIELDS)


# ---------------------------------------------------------------------------------------------
# Session context


def parse_session_context(raw) -> dict:
    """``{"project": "WhisperClick V3", "file": "src/main.py", "task": ...}`` from JSON or a dict.

    Accepted keys: project, project_root (or root), cwd, file or files, task (or prompt,
    description), session_id, source. Unknown keys are ignored.
    """
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as e:
            raise InvalidInput(f"--session-context is not valid JSON ({e})") from None
    if not isinstance(raw, dict):
        raise InvalidInput(
            '--session-context must be a JSON object such as {"project": "WhisperClick V3", "file": "src/main.py"}'
        )
    out: dict = {}
    for key in ("project", "cwd", "task", "session_id", "source"):
        if isinstance(raw.get(key), str) and raw[key].strip():
            out[key] = raw[key].strip()
    root = raw.get("project_root") or raw.get("root")
    if isinstance(root, str) and root.strip():
        out["project_root"] = root.strip()
    for alias in ("prompt", "description"):
        if "task" not in out and isinstance(raw.get(alias), str) and raw[alias].strip():
            out["task"] = raw[alias].strip()
    files = raw.get("files")
    files = [files] if isinstance(files, str) else list(files or []) if isinstance(files, list) else []
    if isinstance(raw.get("file"), str):
        files.insert(0, raw["file"])
    out["files"] = [str(f) for f in files if isinstance(f, str) and f.strip()]
    if "project_root" not in out and out.get("cwd"):
        root = scopes.find_project_root(out["cwd"])
        if root:
            out["project_root"] = root
    if "project" not in out and out.get("project_root"):
        out["project"] = scopes.project_name(out["project_root"]) or ""
    return out


def _config_scope(value: str) -> str:
    """A scope from the configuration, normalised as every scope is (left as written if malformed)."""
    try:
        return scopes.parse(value)
    except Exception:
        return value


def project_aliases(name: str | None) -> list[str]:
    """The scope name a project answers to: its one normalised name
    (:func:`memory_cli.scope.normalize_project`: ``WhisperClick V3`` is ``whisperclick``)."""
    if not name:
        return []
    base = scopes.normalize_project(name)
    return [base] if base else []


def _applies(scope: str, projects: list[str], files: list[str], root: str | None, always: tuple[str, ...] = ()) -> bool:
    if scope == scopes.GLOBAL or scope in always:
        return True
    kind, _, value = scope.partition(":")
    if kind == "project":
        return value in projects
    if kind == "file":
        return any(scopes.file_matches(value, f, root) for f in files)
    if kind == "repo":
        return root is not None and value == root
    return False


def _row(r: dict) -> dict:
    d = dict(r)
    tags = d.get("tags")
    if isinstance(tags, str):
        try:
            d["tags"] = json.loads(tags or "[]")
        except ValueError:
            d["tags"] = []
    d["pinned"] = bool(d.get("pinned"))
    d.pop("embedding", None)
    d.pop("rowid", None)
    return d


# ---------------------------------------------------------------------------------------------
# Retrieval: the ranked search (documented 0-1 scores)


def search(
    store,
    text: str,
    *,
    project: str | None = None,
    files=(),
    limit: int = 10,
    min_score: float | None = None,
    type: str | None = None,
    timeout_ms: int | None = None,
    root: str | None = None,
) -> list[dict]:
    """:func:`memory_cli.retrieval.search.query` restricted to what applies in ``project``/``files``;
    a query with nothing to search for (only stop words) finds nothing."""
    from .search import query

    try:
        return query(
            store,
            text,
            limit=limit,
            type=type,
            project=project,
            files=tuple(files),
            timeout_ms=timeout_ms,
            min_score=min_score,
            root=root,
        )
    except InvalidInput:
        return []


# ---------------------------------------------------------------------------------------------
# Recording


def _record(
    store,
    included: list[dict],
    *,
    session_id: str | None,
    context: str,
    total: int,
    tokens: int,
    hook_event: str | None,
    extra: dict | None = None,
    reset_session: bool = False,
) -> None:
    """Use counts, last-use times, the session's injection list and one audit row, atomically;
    spooled when another process holds the write lock (written later, never twice)."""
    from .. import spool

    ids = [e["id"] for e in included]
    details = {"ids": ids, "tokens": tokens, "included": len(ids), "eligible": total}
    if extra:
        details.update(extra)
    op = spool.make(
        "inject",
        {
            "ids": ids,
            "session_id": session_id or None,
            "reset_session": bool(reset_session),
            "context": context,
            "result": f"{len(ids)} of {total}",
            "details": details,
            "hook_event": hook_event,
        },
    )
    spool.write(store, [op])


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """Record one injection: inside the caller's transaction, its audit row carrying ``op_id``."""
    from .. import entries
    from ..audit import record

    session_id = args.get("session_id")
    ids = [i for i in (args.get("ids") or []) if isinstance(i, str)]
    if args.get("reset_session") and session_id:
        store.execute("DELETE FROM session_injections WHERE session_id = ?", (session_id,))
    entries.mark_used(store, ids, session_id=session_id)
    record(
        store,
        "inject",
        context=args.get("context"),
        result=args.get("result"),
        details=args.get("details"),
        session_id=session_id,
        hook_event=args.get("hook_event"),
        aid=op_id,
        timestamp=at,
    )


def _redacted(text: str) -> str:
    from ..redact import redact

    return redact(text)[0]


def already_injected(store, session_id: str | None) -> set[str]:
    if not session_id:
        return set()
    return {
        r["entry_id"] for r in store.rows("SELECT entry_id FROM session_injections WHERE session_id = ?", (session_id,))
    }


def drop_dormant(store, entries: list[dict], settings) -> list[dict]:
    """Leave out memories that decay has already pushed below the floor, even when today's
    detached decay pass has not run yet, and give the others the confidence decay has already
    taken (what decides eligibility is what is ranked and shown). A cheap SQL check first: only
    entries idle past the grace period can be affected, and the decay code is imported only
    for those."""
    if not entries:
        return entries
    import time

    from ..settings import value as setting

    grace_days = float(setting(settings, "decay.inactive_days"))
    cutoff = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - grace_days * 86400))
    ids = [e["id"] for e in entries]
    marks = ",".join("?" * len(ids))
    stale = [
        r["id"]
        for r in store.rows(
            f"SELECT id FROM memory_entries WHERE id IN ({marks}) AND pinned = 0 AND "
            "max(created_at, coalesce(reinforced_at, ''), coalesce(last_used, '')) < ?",
            [*ids, cutoff],
        )
    ]
    if not stale:
        return entries
    from ..maintenance.decay_store import pending_confidences, policy_from

    effective = pending_confidences(store, stale, settings)
    if not effective:
        return entries
    floor = policy_from(settings).injection_floor
    out = []
    for e in entries:
        c = effective.get(e["id"])
        if c is None:
            out.append(e)
        elif c >= floor:
            out.append(dict(e, confidence=round(c, 6)))
    return out


def already_offered_for_failures(store, session_id: str | None) -> set[str]:
    """Solutions already offered after a failure in this session.

    Not everything the session was shown: a memory injected at session start among a dozen
    others is not the same as "this error again, the fix was X" at the moment it happens.
    """
    if not session_id:
        return set()
    out: set[str] = set()
    for r in store.rows(
        "SELECT details FROM memory_audit_log WHERE action = 'inject' AND session_id = ? AND context LIKE 'failure:%'",
        (session_id,),
    ):
        try:
            out.update(json.loads(r["details"] or "{}").get("ids") or [])
        except ValueError:
            pass
    return out


# ---------------------------------------------------------------------------------------------
# Session start


def _budget(settings) -> tuple[int, int, float, tuple[str, ...]]:
    from ..settings import token_budget
    from ..settings import value as setting

    max_entries = int(setting(settings, "injection.max_entries"))
    max_tokens = int(token_budget({"injection": {"max_tokens": setting(settings, "injection.max_tokens")}}))
    min_conf = float(setting(settings, "injection.min_confidence"))
    scopes = setting(settings, "injection.always_include_scopes") or []
    always = tuple(_config_scope(s) for s in scopes if isinstance(s, str))
    return max_entries, max_tokens, min_conf, always


def _instructions(settings=None) -> str:
    """The [MEMORY:...] marker instructions and, unless ``capture.agent_lessons`` is off (or
    capture is), how to record a lesson (capture area)."""
    from ..capture.instructions import text
    from ..settings import value as setting

    lessons = (
        setting(settings, "capture.enabled") is not False and setting(settings, "capture.agent_lessons") is not False
    )
    return text(lessons=lessons).strip()


def _eligible(
    store,
    projects: list[str],
    files: list[str],
    root: str | None,
    min_conf: float,
    always: tuple[str, ...],
    pool_size: int,
) -> tuple[list[dict], int]:
    """The best-known candidates (by pin and confidence) and how many memories are eligible."""
    scope_list = ["global"] + [f"project:{p}" for p in projects] + [s for s in always if s != "global"]
    if root:
        scope_list.append(f"repo:{root}")
    marks = ",".join("?" * len(scope_list))
    base = f"status = 'active' AND confidence >= ? AND scope IN ({marks})"
    params = [min_conf, *scope_list]
    total = int(store.value(f"SELECT count(*) FROM memory_entries WHERE {base}", params) or 0)
    rows = store.rows(
        f"SELECT {_COLUMNS} FROM memory_entries WHERE {base} "
        "ORDER BY pinned DESC, confidence DESC, use_count DESC, updated_at DESC LIMIT ?",
        [*params, pool_size],
    )
    pool = [_row(r) for r in rows]
    if files:
        file_rows = store.rows(
            f"SELECT {_COLUMNS} FROM memory_entries WHERE status = 'active' "
            "AND confidence >= ? AND scope LIKE 'file:%' LIMIT 2000",
            (min_conf,),
        )
        matching = [_row(r) for r in file_rows if _applies(r["scope"], projects, files, root)]
        total += len(matching)
        pool.extend(matching)
    return pool, total


def _specificity(scope: str) -> float:
    if scope.startswith("file:"):
        return 1.0
    if scope.startswith("project:"):
        return 0.6
    return 0.0


def provenance(e: dict) -> str:
    """How a memory came to be, in a few words: ``preference, added by hand``."""
    how = {
        "manual": "added by hand",
        "promoted": "promoted from corrections",
        "marker": "agent marker",
        "imported": "imported",
        "correction": "captured correction",
    }.get(str(e.get("source") or ""), str(e.get("source") or "").strip())
    return f"{e.get('type') or 'memory'}, {how}" if how else str(e.get("type") or "memory")


def drop_near_duplicates(ranked: list[dict], *, window: int = 60) -> list[dict]:
    """Merge memories that say the same thing (a preference and the rule promoted from the same
    corrections; imports holding one rule in three files): the best-ranked one is kept, and
    lists the others' provenance (``merged``) so the agent sees that it was said more than
    once. Only the top ``window`` are compared; the rest pass through untouched. Two pinned
    memories are both kept (each is pinned on purpose)."""
    from ..capture.similar import tokens

    def same(a: set, b: set) -> bool:
        # One says all the other says (plus a qualifier), or they share nearly every word. A
        # looser test would merge "the billing service must ..." with "the mailer service must ...".
        if not a or not b:
            return False
        return a <= b or b <= a or len(a & b) / len(a | b) >= 0.9

    kept: list[dict] = []
    kept_tokens: list[set] = []
    for e in ranked[:window]:
        toks = set(tokens(e.get("content") or ""))
        twin = next(
            (k for k, kt in zip(kept, kept_tokens) if same(toks, kt) and not (e.get("pinned") and k.get("pinned"))),
            None,
        )
        if twin is None or (e.get("pinned") and not twin.get("pinned")):
            kept.append(e)
            kept_tokens.append(toks)
            continue
        twin.setdefault("merged", []).append(provenance(e))
        twin.setdefault("merged_ids", []).append(e["id"])
    return kept + ranked[window:]


def needs_relevance(
    e: dict, projects: list[str], files: list[str], root: str | None, always: tuple[str, ...] = ()
) -> bool:
    """Must this memory clear :data:`SESSION_RELEVANCE_FLOOR` to be injected at session start?

    Exempt: pinned memories, rules/corrections/preferences of global scope or of a scope in
    ``always_include_scopes`` (they bind everywhere), and memories scoped to this project or its
    files (their scope is their relevance). What remains, knowledge that applies everywhere
    such as a fact about some service, is injected only when the session is about it.
    """
    scope = e.get("scope") or "global"
    if e.get("pinned"):
        return False
    if scope == scopes.GLOBAL or scope in always:
        return (e.get("type") or "fact") not in BINDING_TYPES
    return not _applies(scope, projects, files, root)


def session_query_text(ctx: dict) -> str:
    """What the session is about, as search text: project, files, task."""
    parts = []
    if ctx.get("project"):
        parts.append(ctx["project"])
    for f in ctx.get("files") or []:
        parts.append(regex_cache.sub(r"[/\\._-]+", " ", f))
    if ctx.get("task"):
        parts.append(ctx["task"])
    return " ".join(parts).strip()


def inject(
    store,
    session_context: dict,
    settings,
    *,
    session_id: str | None = None,
    source: str | None = None,
    record: bool = True,
    include_instructions: bool = True,
    hook_event: str | None = None,
    max_entries: int | None = None,
    max_tokens: int | None = None,
) -> dict:
    """The session-start block for ``session_context`` (see :func:`parse_session_context`).

    Returns ``{"text", "memory_text", "ids", "included", "eligible", "tokens", "scopes",
    "source"}``; ``text`` adds the marker instructions to the memory block.
    """
    sc = session_context if "files" in session_context else parse_session_context(session_context)
    source = source or sc.get("source") or "startup"
    session_id = session_id or sc.get("session_id")
    cfg_entries, cfg_tokens, min_conf, always = _budget(settings)
    max_entries = cfg_entries if max_entries is None else max_entries
    max_tokens = cfg_tokens if max_tokens is None else max_tokens
    projects = project_aliases(sc.get("project"))
    files = sc.get("files") or []
    root = sc.get("project_root")

    pool, total = _eligible(store, projects, files, root, min_conf, always, max(200, max_entries * 10))
    by_id = {e["id"]: e for e in pool}

    relevance: dict[str, float] = {}
    text = session_query_text(sc)
    if text and max_entries > 0:
        from ..settings import value as setting

        timeout = setting(settings, "daemon.request_timeout_ms")
        for hit in search(
            store,
            text,
            project=projects[0] if projects else None,
            files=files,
            limit=max(30, max_entries * 3),
            timeout_ms=timeout,
            root=root,
        ):
            scope = hit.get("scope") or "global"
            if hit.get("status", "active") != "active" or float(hit.get("confidence") or 0) < min_conf:
                continue
            if not _applies(scope, projects, files, root, always):
                continue
            relevance[hit["id"]] = max(0.0, min(1.0, float(hit.get("score") or 0.0)))
            if hit["id"] not in by_id:
                entry = {k: hit.get(k) for k in _FIELDS}
                entry["pinned"] = bool(entry.get("pinned"))
                by_id[hit["id"]] = entry
    by_id = {e["id"]: e for e in drop_dormant(store, list(by_id.values()), settings)}
    below_floor = [
        i
        for i, e in by_id.items()
        if relevance.get(i, 0.0) < SESSION_RELEVANCE_FLOOR and needs_relevance(e, projects, files, root, always)
    ]
    for i in below_floor:
        del by_id[i]
    total = max(0, total - len(below_floor))

    def rank(e: dict) -> tuple:
        score = (
            W_RELEVANCE * relevance.get(e["id"], 0.0)
            + W_CONFIDENCE * float(e.get("confidence") or 0)
            + W_SPECIFIC * _specificity(e.get("scope") or "global")
            + W_TYPE * TYPE_WEIGHT.get(e.get("type") or "fact", 0.4)
            + (PINNED_BONUS if e.get("pinned") else 0.0)
        )
        return (-score, -int(e.get("use_count") or 0), e.get("updated_at") or "")

    ranked = drop_near_duplicates(sorted(by_id.values(), key=rank), window=max(60, max_entries * 4))
    compact = source == "compact"
    if compact:
        pinned = [e for e in ranked if e.get("pinned")]
        ranked = pinned + [e for e in ranked if not e.get("pinned")]
        max_entries = max(max_entries, len(pinned))

    instructions = _instructions(settings) if include_instructions else ""
    limit = SESSION_CHAR_LIMIT - (len(instructions) + 2 if instructions else 0)
    if compact and any(e.get("pinned") for e in ranked):
        needed = fmt.render_session(
            [e for e in ranked if e.get("pinned")], max_entries=max_entries, max_tokens=10**6, max_chars=limit
        )
        max_tokens = max(max_tokens, needed.tokens)
    rendered = fmt.render_session(
        ranked, total=max(total, len(by_id)), max_entries=max_entries, max_tokens=max_tokens, max_chars=limit
    )
    notice = ""
    if max_tokens * fmt.CHARS_PER_TOKEN > limit and rendered.count < min(max_entries, len(ranked)):
        # The budget allowed more than one hook answer can carry: say so instead of cutting silently.
        unlimited = fmt.render_session(
            ranked,
            total=max(total, len(by_id)),
            max_entries=max_entries,
            max_tokens=max_tokens,
            max_chars=10**9,
            unlimited=True,
        )
        cut = unlimited.count - rendered.count
        if cut > 0:
            notice = (
                f"memory-cli: {cut} more {'memory' if cut == 1 else 'memories'} fit the "
                f"{max_tokens:,}-token budget but not Claude Code's {fmt.CLAUDE_OUTPUT_LIMIT:,}-character "
                f"limit on one hook answer (budgets are honoured up to about "
                f"{fmt.HARD_CHAR_LIMIT // fmt.CHARS_PER_TOKEN:,} tokens)"
            )
            rendered = fmt.render_session(
                ranked,
                total=max(total, len(by_id)),
                max_entries=max_entries,
                max_tokens=max_tokens,
                max_chars=limit - len(notice) - 2,
            )
            rendered.text = rendered.text + "\n\n" + notice if rendered.text else ""
    full = fmt.join_blocks(rendered.text, instructions, limit=SESSION_CHAR_LIMIT)
    result = {
        "text": full,
        "memory_text": rendered.text,
        "ids": [e["id"] for e in rendered.included],
        "included": rendered.count,
        "eligible": rendered.total,
        "tokens": rendered.tokens,
        "scopes": ["global"] + [f"project:{p}" for p in projects] + [f"file:{f}" for f in files],
        "source": source,
        "notice": notice,
        "below_floor": len(below_floor),
    }
    if record and (rendered.included or compact):
        _record(
            store,
            rendered.included,
            session_id=session_id,
            context=f"session:{source}",
            total=rendered.total,
            tokens=rendered.tokens,
            hook_event=hook_event,
            extra={
                "project": sc.get("project"),
                "files": files[:5],
                "below_floor": len(below_floor),
                **({"limit_cut": notice} if notice else {}),
            },
            reset_session=source in ("compact", "clear"),
        )
    return result


# ---------------------------------------------------------------------------------------------
# Per prompt


_NEGATIVE_Q = regex_cache.compile(
    r"\b(decided?|decision|chose|agreed)\s+(not|against)\b|\brejected\b|\bruled out\b|\bdecided? against\b"
    r"|\bwhy (not|didn'?t we|don'?t we)\b|\b(didn'?t|did not|don'?t|do not) (we )?(use|go with|choose|pick)\b"
    r"|\bnot to (do|use)\b|\binstead of\b|\balternatives?\b",
    re.I,
)
_NEG_WORDS = {
    "decide",
    "decided",
    "decision",
    "not",
    "against",
    "rejected",
    "ruled",
    "out",
    "why",
    "didn",
    "didn't",
    "did",
    "we",
    "use",
    "go",
    "with",
    "choose",
    "chose",
    "pick",
    "instead",
    "alternative",
    "alternatives",
    "what",
    "do",
    "about",
    "to",
    "the",
    "a",
    "for",
    "on",
}


def is_negative_question(text: str) -> bool:
    """ "What did we decide not to do about caching?" and its relatives."""
    return bool(_NEGATIVE_Q.search(text or ""))


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def rejected_decisions(store, text: str, *, project: str | None, files=(), limit: int = 3) -> list[dict]:
    """Decisions recording a rejected alternative that share a topic word with ``text``.

    The topic words are the question minus its negation wording; matching is on word stems
    (caching ~ cache) against the decision's content and its ``rejected:<alternative>`` tags.
    """
    from .fts import query_terms as terms

    topic = [t for t in terms(text) if t not in _NEG_WORDS and len(t) > 2]
    if not topic:
        return []
    hits = search(
        store, " ".join(topic) + " rejected", project=project, files=files, limit=max(10, limit * 4), type="decision"
    )
    out = []
    stems = {_stem(t) for t in topic}
    for h in hits:
        tags = h.get("tags") or []
        rejected = [t for t in tags if str(t).lower().startswith("rejected:")]
        body = (h.get("content") or "").lower() + " " + " ".join(str(t).lower() for t in tags)
        words = {_stem(w) for w in regex_cache.findall(r"[a-z0-9]+", body)}
        says_rejected = rejected or regex_cache.search(r"\b(against|rejected|over|instead of|rather than|not)\b", body)
        if says_rejected and stems & words:
            out.append(h)
    return out[:limit]


_TRIVIAL_PROMPT = regex_cache.compile(
    r"^\s*(/\S+|y(es)?|no?|ok(ay)?|thanks?( you)?|continue|go on|go ahead|do it|sure)\W*\s*$", re.I
)


def for_prompt(
    store,
    prompt: str,
    settings,
    *,
    project: str | None = None,
    project_root: str | None = None,
    files=(),
    session_id: str | None = None,
    record: bool = True,
    hook_event: str | None = None,
) -> dict:
    """The few memories most relevant to what the person just asked, not yet seen this session."""
    from .fts import query_terms as terms

    empty = {"text": "", "ids": [], "included": 0, "eligible": 0, "tokens": 0}
    if not prompt or _TRIVIAL_PROMPT.match(prompt) or len(terms(prompt)) < 2:
        return empty
    from ..settings import value as setting

    max_entries = int(setting(settings, "injection.per_prompt_max_entries"))
    max_tokens = int(setting(settings, "injection.per_prompt_max_tokens"))
    threshold = float(setting(settings, "injection.similarity_threshold"))
    min_conf = float(setting(settings, "injection.min_confidence"))
    if max_entries <= 0 or max_tokens <= 0:
        return empty
    projects = project_aliases(project)
    seen = already_injected(store, session_id)
    timeout = setting(settings, "daemon.request_timeout_ms")
    query_text = prompt[:2000]
    hits: list[dict] = []
    if is_negative_question(prompt):
        hits.extend(
            rejected_decisions(
                store, query_text, project=projects[0] if projects else None, files=files, limit=max_entries
            )
        )
    hits.extend(
        search(
            store,
            query_text,
            project=projects[0] if projects else None,
            files=files,
            limit=max_entries * 4,
            min_score=threshold,
            timeout_ms=timeout,
            root=project_root,
        )
    )
    chosen, ids = [], set()
    for h in hits:
        if h["id"] in ids or h["id"] in seen or h.get("pinned"):
            continue  # pinned memories already sit in CLAUDE.md
        if h.get("status", "active") != "active" or float(h.get("confidence") or 0) < min_conf:
            continue
        if not _applies(h.get("scope") or "global", projects, list(files), project_root):
            continue
        ids.add(h["id"])
        chosen.append(h)
    chosen = drop_dormant(store, chosen, settings)
    rendered = fmt.render_prompt(chosen, max_entries=max_entries, max_tokens=max_tokens)
    if record and rendered.included:
        _record(
            store,
            rendered.included,
            session_id=session_id,
            context="prompt",
            total=rendered.total,
            tokens=rendered.tokens,
            hook_event=hook_event,
        )
    return {
        "text": rendered.text,
        "ids": [e["id"] for e in rendered.included],
        "included": rendered.count,
        "eligible": rendered.total,
        "tokens": rendered.tokens,
    }


# ---------------------------------------------------------------------------------------------
# After a failure


_ERRORISH = regex_cache.compile(
    r"Traceback \(most recent call last\)|\b[A-Z]\w*(Error|Exception|Failure)\b|\berror\b|\bfatal\b|\bfailed\b"
    r"|command not found|No such file or directory|Permission denied|ERR!|\bexit (code|status) [1-9]"
    r"|cannot|can't|could not|unable to|refused|denied|not found|timed out|segmentation fault",
    re.I,
)
_NOISE = regex_cache.compile(r"0x[0-9a-f]{6,}|\b[0-9a-f]{12,}\b|\b\d{5,}\b", re.I)
# Lines every error of a kind shares: they dilute the keyword score of the line that matters.
_BOILERPLATE = regex_cache.compile(
    r"^(Traceback \(most recent call last\):?|During handling of the above exception.*"
    r"|The above exception was the direct cause.*|File \".*\", line \d+.*|Exit code \d+|\^+)$",
    re.I,
)
_PATH = regex_cache.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}")


def bash_failed(tool_response) -> str | None:
    """The error text of a Bash call that failed, or None when it looks like it succeeded.

    Claude Code reports most failed commands through PostToolUseFailure; a PostToolUse Bash
    response has no exit code field on most versions, so an explicit non-zero code (when a
    version sends one) or error lines on stderr are taken as failure.
    """
    if not isinstance(tool_response, dict) or tool_response.get("interrupted"):
        return None
    for key in ("exit_code", "exitCode", "returncode", "returnCode", "return_code"):
        code = tool_response.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return str(tool_response.get("stderr") or tool_response.get("stdout") or f"exit code {code}")
    stderr = tool_response.get("stderr")
    if isinstance(stderr, str) and stderr.strip() and _ERRORISH.search(stderr):
        return stderr
    return None


def error_text(error) -> str:
    """PostToolUseFailure's ``error`` is a string on current versions; tolerate objects."""
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        parts = [str(error.get(k)) for k in ("message", "error", "stderr", "stdout") if error.get(k)]
        return "\n".join(parts) or json.dumps(error)[:2000]
    return "" if error is None else str(error)


def failure_query(error: str, command: str | None = None) -> str:
    """The salient part of an error as search text: the last error-looking lines, the program."""
    lines = [ln.strip() for ln in (error or "").splitlines() if ln.strip() and not _BOILERPLATE.match(ln.strip())]
    salient = [ln for ln in lines if _ERRORISH.search(ln)] or lines[-3:]
    picked = salient[-3:]
    if lines and lines[-1] not in picked and len(picked) < 4:
        picked.append(lines[-1])  # the final line of a traceback names the exception
    text = " ".join(ln[:240] for ln in picked)
    text = _PATH.sub(lambda m: regex_cache.split(r"[\\/]", m.group(0))[-1], text)
    text = _NOISE.sub(" ", text)
    if command:
        first = command.strip().split()
        if first:
            prog = regex_cache.split(r"[\\/]", first[0])[-1]
            if prog and prog.lower() not in text.lower():
                text = f"{prog} {text}"
    return " ".join(text.split())[:600]


def for_failure(
    store,
    error: str,
    settings,
    *,
    tool_name: str | None = None,
    command: str | None = None,
    project: str | None = None,
    project_root: str | None = None,
    files=(),
    session_id: str | None = None,
    record: bool = True,
    hook_event: str | None = None,
) -> dict:
    """Past solutions to errors like this one, above the relevance threshold."""
    empty = {"text": "", "ids": [], "included": 0, "eligible": 0, "tokens": 0, "query": ""}
    query = failure_query(error, command)
    from .fts import query_terms as terms

    if len(terms(query)) < 2:
        return empty
    from ..settings import value as setting

    threshold = float(setting(settings, "injection.similarity_threshold"))
    min_conf = float(setting(settings, "injection.min_confidence"))
    max_entries = max(1, int(setting(settings, "injection.per_prompt_max_entries")))
    max_tokens = max(100, int(setting(settings, "injection.per_prompt_max_tokens")) + 100)
    projects = project_aliases(project)
    seen = already_offered_for_failures(store, session_id)
    timeout = setting(settings, "daemon.request_timeout_ms")
    hits = search(
        store,
        query,
        project=projects[0] if projects else None,
        files=files,
        limit=max_entries * 4,
        min_score=threshold,
        timeout_ms=timeout,
        root=project_root,
    )
    chosen = [
        h
        for h in hits
        if h["id"] not in seen
        and h.get("status", "active") == "active"
        and float(h.get("confidence") or 0) >= min_conf
        and _applies(h.get("scope") or "global", projects, list(files), project_root)
    ]
    chosen = drop_dormant(store, chosen, settings)
    rendered = fmt.render_solutions(chosen, tool_name=tool_name, max_entries=max_entries, max_tokens=max_tokens)
    if record and rendered.included:
        _record(
            store,
            rendered.included,
            session_id=session_id,
            context=f"failure:{tool_name or 'tool'}",
            total=rendered.total,
            tokens=rendered.tokens,
            hook_event=hook_event,
            extra={"query": _redacted(query[:200])},
        )
    return {
        "text": rendered.text,
        "ids": [e["id"] for e in rendered.included],
        "included": rendered.count,
        "eligible": rendered.total,
        "tokens": rendered.tokens,
        "query": query,
    }
