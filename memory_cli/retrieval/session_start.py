"""Choosing which memories the agent sees at session start.

Every memory whose scope applies (global always, the project's in that project, a file's when
that file is in play) is eligible if it is active and confident enough; the eligible ones are
ranked by relevance to the session context, confidence, how specific their scope is and how
binding their type is, then rendered within the budget (see ``format``). After compaction
(SessionStart ``source: compact``) the conversation lost what was injected, so pinned memories
go first and are never cut by the entry limit. What every injection shares is :mod:`.inject`.
Standard library and apsw only at module level: this runs inside hook processes.
"""

from __future__ import annotations

from .. import fastjson as json  # json's loads/dumps without importing json (and its patterns)
from .. import scope as scopes
from ..errors import InvalidInput
from ..files import regex_cache
from . import format as fmt
from .inject import applies, drop_dormant, project_aliases, record_injection, search

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


def _budget(settings) -> tuple[int, int, float, tuple[str, ...]]:
    from ..settings import token_budget
    from ..settings import value as setting

    max_entries = int(setting(settings, "injection.max_entries"))
    max_tokens = int(token_budget({"injection": {"max_tokens": setting(settings, "injection.max_tokens")}}))
    min_conf = float(setting(settings, "injection.min_confidence"))
    scopes = setting(settings, "injection.always_include_scopes") or []
    always = tuple(_config_scope(s) for s in scopes if isinstance(s, str))
    return max_entries, max_tokens, min_conf, always


def _instructions(settings=None, store=None, project: str | None = None) -> str:
    """The [MEMORY:...] marker instructions and, unless ``capture.agent_lessons`` is off (or
    capture is), how to record a lesson with the project's most-taught waiting lessons (capture
    area)."""
    from ..capture.instructions import text
    from ..settings import value as setting

    lessons = (
        setting(settings, "capture.enabled") is not False and setting(settings, "capture.agent_lessons") is not False
    )
    out = text(lessons=lessons).strip()
    if lessons and store is not None and project:
        from ..capture.taught import most_taught_text

        try:
            taught = most_taught_text(store, project)
        except Exception:  # an older store without the columns: the instructions alone
            taught = ""
        if taught:
            out += "\n" + taught
    return out


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
        matching = [_row(r) for r in file_rows if applies(r["scope"], projects, files, root)]
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
    return not applies(scope, projects, files, root)


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
            if not applies(scope, projects, files, root, always):
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

    instructions = _instructions(settings, store, sc.get("project")) if include_instructions else ""
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
        record_injection(
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
