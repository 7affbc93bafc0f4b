"""The compiled rule set a hook checks, rebuilt only when a rule changed.

Every tool call starts a fresh hook process, so "compile once" has to survive the process. The
set is built from the store into plain tuples and indexes (by tool, by program name, by
3-gram, by hook event), written next to the database with :mod:`marshal`, and labelled with
the store's rule-set generation, which triggers bump on every change that can alter a decision
(see :mod:`schema`). A hook reads one ``rules_state`` row; when the label matches it reads the
file and decodes only its header (no SQL over the rules, no regex parsing, no shell parsing of
patterns; rules and index buckets are decoded when a call reaches them, see :mod:`packed`);
otherwise it rebuilds and rewrites the file. The label alone proves nothing (whoever rewrites the
file can copy it), so the file is used only when its bytes have the digest recorded in the store
when memory-cli wrote it (:mod:`memory_cli.files.cache_seal`). Counting a violation does not bump the
generation.

Standard library only (marshal, os): this is on the PreToolUse path.
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

from .rows import ROWS_SQL as _ROWS_SQL

FORMAT = 8

# Positions in a compiled rule tuple.
(
    ID,
    ACTION,
    SEVERITY,
    PTYPE,
    PATTERN,
    TOOLS,
    FIELDS,
    CASE,
    SCOPE,
    CONFIRMED,
    ALT,
    MSG,
    CONTENT,
    NAME,
    EVENTS,
    COMPILED,
    CONDS,
    PROVENANCE,
) = range(18)

_ACTION_RANK = {"block": 0, "ask": 1, "warn": 2, "suggest": 3}
_SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
# Fields whose text is not in tool_input or tool_response: such rules are always candidates.
_NON_CALL_FIELDS = frozenset({"transcript", "prompt", "user_prompt", "last_assistant_message", "reason"})

_MEMO: dict[str, RuleSet] = {}


class RuleSet:
    """Enabled rules of active entries, in decision order (block first, then severity).

    Backed by one packed buffer (:mod:`packed`, also the cache file's content) that is decoded
    only where a call looks, so a hook with 10,000 rules pays for the few that can matter:
    - ``cmd``: program key -> rule indexes (command rules);
    - ``gram``: 3-gram -> regex rules whose every match contains that 3-gram (case-folded),
      ``always``: tool or "*" -> regex/intent rules without one; a call's candidates are the
      rules of the 3-grams of its texts plus ``always`` (sound, see engine);
    - ``by_tool``: tool or "*" -> every regex/intent rule (texts too large for 3-grams);
    - ``by_event``: "Stop" / "UserPromptSubmit" -> rule indexes;
    - ``meta["cmd_words"]``: every program key is a plain word (enables the engine's
      no-parse shortcut); ``broken``: [(id, error)] rules whose stored pattern failed.
    The indexes are read-only mappings (``get``, ``[]``, ``in``, truth, ``len``)."""

    __slots__ = ("key", "n", "_packed", "_cache", "_broken", "cmd", "gram", "always", "by_tool", "by_event", "meta")

    # Positions in a compiled rule tuple, for the matchers that are handed a rule set and are
    # imported by this module (operations): they read them here instead of importing it back.
    TOOLS = TOOLS
    COMPILED = COMPILED

    def __init__(self, data: bytes):
        from .packed import Packed

        p = Packed(data)
        self._packed = p
        self.key = p.key
        self.n = p.n
        self._cache: dict[int, tuple] = {}
        self._broken: list | None = None
        ix = p.indexes
        self.cmd = ix["cmd"]
        self.gram = ix["gram"]
        self.always = ix["always"]
        self.by_tool = ix["by_tool"]
        self.by_event = ix["by_event"]
        self.meta = p.meta

    def __len__(self) -> int:
        return self.n

    def rule(self, i: int) -> tuple:
        r = self._cache.get(i)
        if r is None:
            r = marshal.loads(self._packed.rule_bytes(i))
            self._cache[i] = r
        return r

    def all_rules(self) -> list[tuple]:
        return [self.rule(i) for i in range(self.n)]

    @property
    def broken(self) -> list:
        if self._broken is None:
            self._broken = self._packed.broken()
        return self._broken

    @property
    def generation(self) -> int:
        return self.key[1]

    def dump(self) -> bytes:
        return self._packed.data


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.+-@%~^")


def _plain_words(cmd: dict) -> bool:
    return all(k and set(k) <= _WORD_CHARS for k in cmd)


def effective_action(rule: tuple) -> str:
    """Unconfirmed rules never block: they warn until the person confirms them. Intent rules
    never block or ask at all: embedding similarity measures topic, not intent ("back up the
    production database" scores as close to "delete the production database" as dropping it
    does), so a similarity can justify a warning that says why, never a refusal."""
    action = rule[ACTION]
    if rule[PTYPE] == "intent" and action in ("block", "ask"):
        return "warn"
    return "warn" if action == "block" and not rule[CONFIRMED] else action


def _effective_rank(action: str, confirmed: bool) -> int:
    if action == "block" and not confirmed:
        action = "warn"
    return _ACTION_RANK.get(action, 9)


def _compile_row(row: dict) -> tuple:
    """One stored rule as a plain tuple, using its stored analysis (recomputed if missing)."""
    import json

    from . import spec

    ptype = row["pattern_type"]
    case = bool(row["case_sensitive"])
    conditions = json.loads(row["conditions"] or "[]")
    analysis = None
    if row.get("analysis"):
        try:
            analysis = json.loads(row["analysis"])
        except ValueError:
            analysis = None
    if (
        not analysis
        or analysis.get("v") != spec.ANALYSIS_VERSION
        or (ptype == "regex" and "regex" not in analysis)
        or (ptype == "command" and "command" not in analysis)
    ):
        vec = (analysis or {}).get("vector")
        import base64

        analysis = spec.analyze(
            row["pattern"],
            ptype,
            case_sensitive=case,
            conditions=conditions,
            vector=base64.b64decode(vec) if vec else None,
        )
    compiled: tuple | bytes | None
    if ptype == "regex":
        info = analysis["regex"]
        compiled = (
            info.get("literal"),
            tuple(info.get("required") or ()),
            info.get("risk", "exp"),
            bool(info.get("fold_ok")),
            tuple(info["anchor"]) if info.get("anchor") else None,
        )
    elif ptype == "command":
        c = analysis["command"]
        pipe = tuple((*x[:3], tuple(x[3]), tuple(x[4])) for x in c[5]) if len(c) > 5 and c[5] else ()
        compiled = (c[0], c[1], c[2], tuple(c[3]), tuple(c[4]), pipe)
        if not row.get("spelling_only"):
            from .operations import operation_of

            op = operation_of(compiled)
            if op is not None:
                compiled += (op,)  # COMPILED[6]: (operation, target) the rule stands for
    else:
        vec = analysis.get("vector")
        if vec:
            import base64

            compiled = base64.b64decode(vec)
        else:
            compiled = None
    cond_infos = analysis.get("conditions") or []
    conds = []
    for i, c in enumerate(conditions):
        info = cond_infos[i] if i < len(cond_infos) else None
        if info is not None:
            info = (
                info.get("literal"),
                tuple(info.get("required") or ()),
                info.get("risk", "exp"),
                bool(info.get("fold_ok")),
                tuple(info["anchor"]) if info.get("anchor") else None,
            )
        conds.append((c["field"], c["operator"], c["pattern"], info))
    tools = tuple(json.loads(row["tools"] or "[]"))
    return (
        row["id"],
        row["action"],
        row["severity"],
        ptype,
        row["pattern"],
        tools,
        tuple(json.loads(row["fields"] or "[]")),
        case,
        row["scope"],
        bool(row["confirmed"]),
        row["alternative"],
        row["message"],
        row["content"],
        row["name"],
        tuple(json.loads(row["hook_events"] or "[]")),
        compiled,
        tuple(conds),
        row["provenance"],
    )


def _pick_gram(rule: tuple, buckets: dict) -> str | None:
    """A 3-gram every match of this regex rule contains (case-folded), from its literal or
    required substrings; the least used one, to keep buckets small. None: no such 3-gram."""
    fields = rule[FIELDS]
    if fields and any(f in _NON_CALL_FIELDS for f in fields):
        return None
    lit, required = rule[COMPILED][0], rule[COMPILED][1]
    strings = [lit] if lit is not None else list(required)
    best = None
    for text in strings:
        folded = text.casefold()
        for k in range(len(folded) - 2):
            g = folded[k : k + 3]
            size = len(buckets.get(g, ()))
            if best is None or size < best[0]:
                best = (size, g)
                if size == 0:
                    return g
    return None if best is None else best[1]


def _assemble(key: tuple, rules: list, broken: list) -> RuleSet:
    from .packed import pack

    rules.sort(key=lambda r: (_effective_rank(r[ACTION], r[CONFIRMED]), _SEVERITY_RANK.get(r[SEVERITY], 9), r[ID]))
    parts = []
    cmd: dict[str, list[int]] = {}
    gram: dict[str, list[int]] = {}
    always: dict[str, list[int]] = {}
    by_tool: dict[str, list[int]] = {}
    by_event: dict[str, list[int]] = {}
    written_keys: set[str] = set()  # command rules verified against written files
    tool_keys: dict[str, set] = {}  # command rules that name another tool explicitly
    ops: dict[str, list[int]] = {}  # operation -> command rules that stand for it
    pipes: list[int] = []  # command rules written as a pipeline
    for i, r in enumerate(rules):
        parts.append(marshal.dumps(r))
        for ev in r[EVENTS]:
            if ev in ("Stop", "UserPromptSubmit"):
                by_event.setdefault(ev, []).append(i)
        if r[EVENTS] and not any(ev in ("PreToolUse", "PostToolUse") for ev in r[EVENTS]):
            continue
        if r[PTYPE] == "command":
            from .program_names import versionless

            k = versionless(r[COMPILED][1])  # a rule on pip3 is a rule on pip
            cmd.setdefault(k, []).append(i)
            if not r[TOOLS] or "Bash" in r[TOOLS]:
                written_keys.add(k)
            for t in r[TOOLS]:
                if t != "Bash":
                    tool_keys.setdefault(t, set()).add(k)
            if len(r[COMPILED]) > 6:
                ops.setdefault(r[COMPILED][6][0], []).append(i)
            if len(r[COMPILED]) > 5 and r[COMPILED][5]:
                pipes.append(i)
            continue
        tools = r[TOOLS] or ("*",)
        for t in tools:
            by_tool.setdefault(t, []).append(i)
        g = _pick_gram(r, gram) if r[PTYPE] == "regex" else None
        if g is not None:
            gram.setdefault(g, []).append(i)
        else:
            for t in tools:
                always.setdefault(t, []).append(i)
    meta = {
        "cmd_words": _plain_words(cmd),
        "written_keys": sorted(written_keys),
        "tool_keys": {t: sorted(ks) for t, ks in tool_keys.items()},
    }
    if ops or pipes:
        from .operations import TRIGGERS

        meta["ops"] = ops
        meta["pipes"] = pipes
        meta["op_words"] = sorted({w for op in ops for w in TRIGGERS[op]})
    indexes = {"cmd": cmd, "gram": gram, "always": always, "by_tool": by_tool, "by_event": by_event}
    return RuleSet(pack(key, parts, indexes, meta, broken))


def build(store: Store, key: tuple) -> RuleSet:
    rows = store.rows(_ROWS_SQL)
    if _KEPT in key[0]:  # the rules changed outside memory-cli: the confirmed ones still hold
        from .confirmed import kept_rows

        rows += kept_rows(store, key[1], rows)
    rules, broken = [], []
    for row in rows:
        try:
            rules.append(_compile_row(row))
        except Exception as e:  # a stored pattern this version cannot compile: skip, report
            broken.append((row["id"], f"{type(e).__name__}: {e}"))
    return _assemble(key, rules, broken)


def cache_path(store: Store) -> str | None:
    path = getattr(store, "path", None)
    if not path or path == ":memory:" or path.startswith("file:"):
        return None
    return path + ".rules-cache"


# In the key's salt: the set also holds the confirmed rules changed outside memory-cli.
_KEPT = "/kept-"
_KEY_SQL = (
    "SELECT generation, salt, (SELECT value FROM kv WHERE key = 'rules.confirmed-generation') AS confirmed"
    " FROM rules_state WHERE id = 1"
)


def _read_key(store) -> tuple:
    """(salt, generation, format): the label of the rules as they stand; while they stand changed
    outside memory-cli (the generation ahead of the one memory-cli confirmed, see
    :mod:`memory_cli.confirmation`) the salt names the confirmed generation too."""
    row = store.row(_KEY_SQL)
    generation = int(row["generation"])
    confirmed = row["confirmed"]
    if confirmed is not None and int(confirmed) != generation:
        return (f"{row['salt']}{_KEPT}{int(confirmed)}", generation, FORMAT)
    return (row["salt"], generation, FORMAT)


def _keep_confirmed(store: Store, key: tuple) -> None:
    """Record the rules just built as the confirmed ones when they are (at most once per
    generation; never waits for the write lock: the next rebuild tries again)."""
    if _KEPT in key[0] or store.value(
        "SELECT 1 FROM kv WHERE key = 'rules.confirmed-rows' AND json_extract(value, '$.generation') = ?", (key[1],)
    ):
        return
    try:
        from .confirmed import record

        with store.transaction(wait=False):
            record(store, key[1], store.rows(_ROWS_SQL))
    except Exception:
        pass


SEAL = "rules-cache"


def _seal_label(key: tuple) -> str:
    return f"{key[1]}:"


def load(store: Store, *, use_file: bool = True) -> RuleSet:
    """The current compiled rule set: from memory, from the cache file, or rebuilt.

    The file is used only when its bytes have the digest the store recorded when it was
    written (:mod:`memory_cli.files.cache_seal`): a file rewritten by anything else, even with the
    right label, is rebuilt, never trusted."""
    key = _read_key(store)  # read the label before the rows: a race can only make it stale
    memo = _MEMO.get(store.path)
    if memo is not None and memo.key == key:
        return memo
    from ..files import cache_seal

    path = cache_path(store) if use_file else None
    if path is not None:
        try:
            data, ident = cache_seal.read(path)
            rs = RuleSet(data)  # decoded lazily: nothing is parsed here but a header
            want = cache_seal.expected(store, SEAL)
            if (
                rs.key == key
                and want is not None
                and want.startswith(_seal_label(key))
                and cache_seal.trusted(store, SEAL, want, data, ident)
            ):
                _MEMO[store.path] = rs
                return rs
        except FileNotFoundError:  # sealed and gone: deleted by something that was not memory-cli
            if cache_seal.expected(store, SEAL) is not None and os.access(os.path.dirname(path) or ".", os.W_OK):
                from .tamper import note_cache_deleted

                note_cache_deleted(store)
        except (OSError, EOFError, ValueError, TypeError, IndexError, KeyError):
            pass
    rs = build(store, key)
    _keep_confirmed(store, key)
    if path is not None:
        data = rs.dump()
        # Sealed first: a file written without its seal would never be trusted anyway.
        if cache_seal.record(store, SEAL, _seal_label(key) + cache_seal.digest(data)):
            _write(path, data)
            cache_seal.record_identity(store, SEAL, path)  # later readers need not hash it
    _MEMO[store.path] = rs
    return rs


def seal_problem(store: Store) -> str | None:
    """Why the cache file would not be trusted as it is now (None: it is sound or absent);
    for ``memory-cli doctor``, which rebuilds it after saying so."""
    from ..files import cache_seal

    path = cache_path(store)
    if path is None:
        return None
    problem = cache_seal.check(store, SEAL, path, _seal_label(_read_key(store)))
    if problem is None:
        return None
    try:
        with open(path, "rb") as f:
            if RuleSet(f.read()).key != _read_key(store):
                return None  # an older generation: stale, rebuilt on the next call as usual
    except Exception:
        pass
    return problem


def _write(path: str, data: bytes) -> None:
    from ..files.private_file import replace  # 0600, through a random temporary name

    try:
        replace(path, data)
    except (OSError, ValueError):
        pass


def forget() -> None:
    """Drop the in-process copy (tests; a long-lived process after external changes)."""
    _MEMO.clear()


def row_for(store: Store, rule_id: str) -> dict | None:
    """One stored rule in the shape :func:`build` reads (enabled or not)."""
    return store.row(_ROWS_SQL.split(" WHERE ")[0] + " WHERE r.id = ?", (rule_id,))


def single(row: dict, *, keep_scope: bool = False) -> RuleSet:
    """A rule set of just this rule, applying everywhere (``rules test``), or only where its
    scope applies (``keep_scope``: ``rules replay``)."""
    compiled = list(_compile_row(row))
    if not keep_scope:
        compiled[SCOPE] = "global"
    compiled[EVENTS] = ()
    return _assemble((None, -1, FORMAT), [tuple(compiled)], [])
