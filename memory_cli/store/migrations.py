"""Numbered schema migrations, applied automatically when the store is opened.

Each migration runs inside one ``BEGIN IMMEDIATE`` transaction together with its record in
``schema_migrations`` and the new ``PRAGMA user_version``, so a crash leaves the database at the
previous version, and two processes opening an old database at once cannot both apply it.
A database whose version is newer than this code knows is refused and left untouched: an
older memory-cli must not half-understand a newer store. Migrations are append-only: never
edit one that has shipped; add the next number.
"""

from __future__ import annotations

from ..errors import StoreRefused, StoreReplaced
from ..util import now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:  # the store opens through this module: an annotation only, no import back
    from .db import Store

APPLICATION_ID = 0x4D454D43  # "MEMC": marks a file as a memory-cli database

M001_FOUNDATION = """
CREATE TABLE memory_entries (
    id              TEXT PRIMARY KEY,
    content         TEXT NOT NULL,
    type            TEXT NOT NULL CHECK (type IN ('rule','correction','preference','fact','pattern','decision')),
    scope           TEXT NOT NULL DEFAULT 'global',
    source          TEXT NOT NULL,
    confidence      REAL NOT NULL DEFAULT 0.5 CHECK (confidence >= 0.0 AND confidence <= 1.0),
    tags            TEXT NOT NULL DEFAULT '[]',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    last_used       TEXT,
    use_count       INTEGER NOT NULL DEFAULT 0,
    violation_count INTEGER NOT NULL DEFAULT 0,
    superseded_by   TEXT REFERENCES memory_entries(id) ON DELETE SET NULL,
    embedding       BLOB,
    category        TEXT,
    subject         TEXT,
    session_id      TEXT,
    agent           TEXT,
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','archived','superseded')),
    pinned          INTEGER NOT NULL DEFAULT 0,
    pinned_at       TEXT,
    reinforced_at   TEXT,
    decayed_at      TEXT,
    fingerprint     TEXT
);
CREATE INDEX idx_entries_type ON memory_entries(type);
CREATE INDEX idx_entries_scope ON memory_entries(scope);
CREATE INDEX idx_entries_confidence ON memory_entries(confidence DESC);
CREATE INDEX idx_entries_status ON memory_entries(status, scope);
CREATE INDEX idx_entries_subject ON memory_entries(subject, category);
CREATE INDEX idx_entries_pinned ON memory_entries(pinned) WHERE pinned = 1;
CREATE INDEX idx_entries_fingerprint ON memory_entries(fingerprint) WHERE fingerprint IS NOT NULL;

CREATE TABLE enforcement_rules (
    id              TEXT PRIMARY KEY REFERENCES memory_entries(id) ON DELETE CASCADE,
    pattern         TEXT NOT NULL,
    pattern_type    TEXT NOT NULL CHECK (pattern_type IN ('regex','command','intent')),
    action          TEXT NOT NULL CHECK (action IN ('block','warn','suggest','ask')),
    severity        TEXT NOT NULL DEFAULT 'medium' CHECK (severity IN ('critical','high','medium','low')),
    alternative     TEXT,
    active          INTEGER NOT NULL DEFAULT 1,
    message         TEXT,
    tools           TEXT NOT NULL DEFAULT '[]',
    fields          TEXT NOT NULL DEFAULT '[]',
    case_sensitive  INTEGER NOT NULL DEFAULT 0,
    provenance      TEXT NOT NULL DEFAULT 'manual' CHECK (provenance IN ('manual','promoted','imported','derived')),
    confirmed       INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    last_violation_at TEXT
);
CREATE INDEX idx_rules_active ON enforcement_rules(active);

CREATE TABLE corrections (
    id               TEXT PRIMARY KEY,
    session_id       TEXT,
    user_message     TEXT NOT NULL,
    what_was_wrong   TEXT NOT NULL,
    what_is_right    TEXT NOT NULL,
    context          TEXT,
    detected_at      TEXT NOT NULL,
    detection_type   TEXT NOT NULL CHECK (detection_type IN ('explicit','implicit','repeated','inferred')),
    promoted_to      TEXT REFERENCES memory_entries(id) ON DELETE SET NULL,
    occurrence_count INTEGER NOT NULL DEFAULT 1,
    key              TEXT,
    confidence       REAL NOT NULL DEFAULT 0.5,
    scope            TEXT NOT NULL DEFAULT 'global',
    agent            TEXT,
    sessions         TEXT NOT NULL DEFAULT '[]',
    status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','promoted','approved','rejected','dismissed')),
    last_seen_at     TEXT,
    reviewed_at      TEXT
);
CREATE INDEX idx_corrections_key ON corrections(key);
CREATE INDEX idx_corrections_status ON corrections(status);

CREATE TABLE memory_audit_log (
    id          TEXT PRIMARY KEY,
    timestamp   TEXT NOT NULL,
    action      TEXT NOT NULL,
    entry_id    TEXT,
    context     TEXT,
    result      TEXT,
    details     TEXT,
    session_id  TEXT,
    hook_event  TEXT,
    elapsed_ms  REAL
);
CREATE INDEX idx_audit_timestamp ON memory_audit_log(timestamp);
CREATE INDEX idx_audit_action ON memory_audit_log(action, timestamp);
CREATE INDEX idx_audit_entry ON memory_audit_log(entry_id) WHERE entry_id IS NOT NULL;

CREATE TABLE session_injections (
    session_id  TEXT NOT NULL,
    entry_id    TEXT NOT NULL,
    injected_at TEXT NOT NULL,
    PRIMARY KEY (session_id, entry_id)
);

CREATE TABLE kv (
    key        TEXT PRIMARY KEY,
    value      TEXT,
    updated_at TEXT NOT NULL
);

CREATE VIRTUAL TABLE memory_fts USING fts5(
    content, tags, subject, entry_id UNINDEXED,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_entries_fts_insert AFTER INSERT ON memory_entries BEGIN
    INSERT INTO memory_fts(rowid, content, tags, subject, entry_id)
    VALUES (new.rowid, new.content, new.tags, coalesce(new.subject, ''), new.id);
END;
CREATE TRIGGER memory_entries_fts_delete AFTER DELETE ON memory_entries BEGIN
    DELETE FROM memory_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER memory_entries_fts_update AFTER UPDATE OF content, tags, subject ON memory_entries BEGIN
    DELETE FROM memory_fts WHERE rowid = old.rowid;
    INSERT INTO memory_fts(rowid, content, tags, subject, entry_id)
    VALUES (new.rowid, new.content, new.tags, coalesce(new.subject, ''), new.id);
END;
"""

# memory_rank_fts (migration 5) indexes everything memory_fts did plus session context, and every
# search reads it; keeping both doubled the write cost of every entry for an index nothing read.
M008_ONE_FTS_INDEX = """
DROP TRIGGER IF EXISTS memory_entries_fts_insert;
DROP TRIGGER IF EXISTS memory_entries_fts_delete;
DROP TRIGGER IF EXISTS memory_entries_fts_update;
DROP TABLE IF EXISTS memory_fts;
"""


def _audit_agent_column(store: Store) -> None:
    """``memory_audit_log.agent``: the coding agent a hook row came from; NULL for rows written
    before agents were told apart, and for rows no hook wrote (the CLI). Adds only what is missing."""
    columns = [r["name"] for r in store.rows("PRAGMA table_info(memory_audit_log)")]
    if "agent" not in columns:
        store.execute("ALTER TABLE memory_audit_log ADD COLUMN agent TEXT")
    store.execute(
        "CREATE INDEX IF NOT EXISTS idx_audit_agent ON memory_audit_log(agent, timestamp) WHERE agent IS NOT NULL"
    )


def _rule_spelling_only_column(store: Store) -> None:
    """``enforcement_rules.spelling_only``: 1 for a command rule that matches the spelling it is
    written in only, not every spelling of the operation it is recognised as (0, the default:
    ``rm -rf /`` also stops ``find / -delete``). Adds only what is missing."""
    columns = [r["name"] for r in store.rows("PRAGMA table_info(enforcement_rules)")]
    if "spelling_only" not in columns:
        store.execute("ALTER TABLE enforcement_rules ADD COLUMN spelling_only INTEGER NOT NULL DEFAULT 0")


def _merge_project_scope_variants(store: Store) -> None:
    """Rewrite every stored ``project:<name>`` to the one normalised name.

    Scopes written before :func:`memory_cli.scope.normalize_project` dropped version tails and
    folded underscores (``project:whisperclick-v3``, ``project:WhisperClick V3``) become the
    name every command, hook, route and tool now uses (``project:whisperclick``), so the
    memories of one project are found under one scope. Every table with a ``scope`` column.
    """
    from ..scope import normalize_project

    tables = [
        r["name"] for r in store.rows("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
    ]
    for table in tables:
        try:
            columns = [r["name"] for r in store.rows(f'PRAGMA table_info("{table}")')]
        except Exception:  # a virtual table whose module is not loaded
            continue
        if "scope" not in columns:
            continue
        variants = [
            r["scope"] for r in store.rows(f"SELECT DISTINCT scope FROM \"{table}\" WHERE scope LIKE 'project:%'")
        ]
        for old in variants:
            name = normalize_project(old.partition(":")[2])
            new = f"project:{name}"
            if name and new != old:  # a name that normalises to nothing keeps its scope (never wider)
                store.execute(f'UPDATE "{table}" SET scope = ? WHERE scope = ?', (new, old))


def _area(module: str, function: str = "apply_schema"):
    """An area's migration lives beside its code and is imported only when it runs."""

    def step(store: Store) -> None:
        from importlib import import_module

        getattr(import_module(module), function)(store)

    step.__name__ = f"migrate:{module}.{function}"
    return step


# (version, name, SQL script or callable(store)). Append only; numbers only increase.
MIGRATIONS: list[tuple] = [
    (1, "foundation: entries, rules, corrections, audit log, FTS5", M001_FOUNDATION),
    (2, "rules: conditions, names, import provenance, analysis, rule-set generation", _area("memory_cli.rules.schema")),
    (3, "capture: correction statements and vectors, markers seen", _area("memory_cli.capture.schema")),
    (4, "vectors: embedding queue fed by triggers", _area("memory_cli.embeddings.vectors")),
    (5, "retrieval: session index for neighbour context", _area("memory_cli.retrieval.hybrid")),
    (6, "agent stores: incidents, session reports, metric samples", _area("memory_cli.incidents.schema")),
    (
        7,
        "entries: listing newest first by status without a scan",
        "CREATE INDEX IF NOT EXISTS idx_entries_status_updated ON memory_entries(status, updated_at);",
    ),
    (8, "retrieval: one FTS index (memory_rank_fts); drop the foundation's memory_fts", M008_ONE_FTS_INDEX),
    (9, "team: entries shared with a team store", _area("memory_cli.team.schema")),
    (
        10,
        "provenance: who wrote each entry (origin) and the wider scope it waits to be given",
        _area("memory_cli.provenance"),
    ),
    (11, "scopes: one normalised project name; merge stored variants", _merge_project_scope_variants),
    (12, "audit: which coding agent (claude, codex, gemini) each hook row came from", _audit_agent_column),
    (
        13,
        "team: entries this store exchanged with a team store",
        _area("memory_cli.team.schema", "apply_exchanged_schema"),
    ),
    (
        14,
        "team: the team store's id of an entry when it is not the local one",
        _area("memory_cli.team.schema", "apply_server_id_schema"),
    ),
    (
        15,
        "capture: the prompts a lesson's quote is checked against; corrections' origin",
        _area("memory_cli.capture.lessons"),
    ),
    (16, "rules: a command rule may stand for its spelling only, not its operation", _rule_spelling_only_column),
    (17, "checks: each approved lesson's form of enforcement", _area("memory_cli.checks.schema")),
    (
        18,
        "rules: when the rules last changed (rules_state.changed_at), and the rules confirmed as they stand",
        _area("memory_cli.rules.schema", "apply_change_time_schema"),
    ),
    (
        19,
        "capture: the words of each later prompt counted on a correction",
        _area("memory_cli.capture.schema", "apply_repeats_schema"),
    ),
]

LATEST = MIGRATIONS[-1][0]


def check_and_migrate(store: Store, *, apply: bool = True, current: bool = False) -> int:
    """Fast path for hooks: two pragma reads when the schema is current, none when the caller
    has just read that it is (``current``: :func:`refuse_if_unusable` returned True)."""
    if current:
        return LATEST
    version = store.value("PRAGMA user_version")
    app_id = store.value("PRAGMA application_id")
    if version == LATEST and app_id == APPLICATION_ID:
        return version
    version, app_id = _refuse_if_unusable_now(store)
    if version < LATEST:
        if not apply:
            raise StoreRefused(
                f"database {store.path} is at schema version {version}; this memory-cli needs "
                f"{LATEST} (open it read-write once to migrate)"
            )
        return migrate(store)
    return version


def refuse_if_replaced(store: Store) -> None:
    """Raise for an empty database where memory-cli had a store: a file written over the store
    (``curl -o``, ``sqlite3 .backup`` of an empty database) would otherwise be migrated into a
    store with no rules, and the gate would let everything through without a word. The rule
    cache beside it says a store was there: the gate writes it only after reading a real one.
    Called only when :func:`refuse_if_unusable` found the schema not current."""
    import os

    if store.value("PRAGMA user_version") != 0 or not os.path.exists(store.path + ".rules-cache"):
        return
    if store.value("SELECT count(*) FROM sqlite_master") == 0:
        raise StoreReplaced(
            f"memory-cli's store at {store.path} was replaced by an empty database by a process that was "
            f"not memory-cli: bring your rules back with `memory-cli restore` from a backup, or delete "
            f"{store.path}.rules-cache to start an empty store"
        )


def refuse_if_unusable(store: Store) -> bool:
    """Raise for foreign or newer databases without writing anything. Returns whether the
    schema is current (the common case: two pragma reads, and nothing else to check)."""
    version = store.value("PRAGMA user_version")
    app_id = store.value("PRAGMA application_id")
    if version == LATEST and app_id == APPLICATION_ID:
        return True
    _refuse_if_unusable_now(store)
    return False


def _refuse_if_unusable_now(store: Store) -> tuple[int, int]:
    """Read the version, the application id and the tables from one snapshot, then judge.

    Read one by one, another process creating the same new store could commit in between:
    "no application id" then "tables", and a store it has just created would be refused as
    another program's. Returns the version and application id read.
    """
    conn = store.conn
    conn.execute("BEGIN")
    try:
        version = store.value("PRAGMA user_version")
        app_id = store.value("PRAGMA application_id")
        _refuse_if_unusable(store, version, app_id)
    finally:
        conn.execute("COMMIT")
    return version, app_id


def _refuse_if_unusable(store: Store, version: int, app_id: int) -> None:
    if app_id != APPLICATION_ID:
        tables = [
            r["name"]
            for r in store.rows("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
        ]
        if tables or version != 0:
            shown = ", ".join(tables[:5]) + ("..." if len(tables) > 5 else "")
            raise StoreRefused(
                f"{store.path} is a SQLite database that memory-cli did not create "
                f"(tables: {shown or 'none'}); left untouched"
            )
    if version > LATEST:
        raise StoreRefused(
            f"database {store.path} was written by a newer memory-cli (schema {version}, this "
            f"version knows up to {LATEST}); upgrade memory-cli. The database was not modified"
        )


def migrate(store: Store) -> int:
    with store.transaction():
        version = store.value("PRAGMA user_version")  # re-read under the write lock
        app_id = store.value("PRAGMA application_id")
        _refuse_if_unusable(store, version, app_id)
        if version == 0:
            store.execute(f"PRAGMA application_id={APPLICATION_ID}")
            store.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
        for number, name, step in MIGRATIONS:
            if number <= version:
                continue
            if callable(step):
                step(store)
            else:
                for statement in _split_sql(step):
                    store.execute(statement)
            store.execute(
                "INSERT OR REPLACE INTO schema_migrations(version, name, applied_at) VALUES (?,?,?)",
                (number, name, now_iso()),
            )
            store.execute(f"PRAGMA user_version={number}")
            version = number
    return version


def _split_sql(script: str) -> list[str]:
    """Split a script into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    import apsw

    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if buf.strip() and apsw.complete(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def applied(store: Store) -> list[dict]:
    if not store.table_exists("schema_migrations"):
        return []
    return store.rows("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
