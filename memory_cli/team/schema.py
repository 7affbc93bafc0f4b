"""The local tables that remember what is shared with the team store, and the server's schema.

Locally, ``team_entries`` maps each shared entry to the server version it was last synced at,
a hash of what was synced and when (``synced_at``), so a sync looks only at entries changed
since (their ``updated_at`` is later), pushes only what changed here, and can tell a local edit
that raced a teammate's (a conflict) from a plain update. The connection and the pull
mark live in ``kv`` (``team.*`` keys). ``team_exchanged`` lists the entries this store has sent to
or received from a team store; it outlives ``team leave`` and is what lets a pull tell a teammate's
entry from a local one that merely has the same id (which a pull never touches).

On the server everything lives in one schema (``memory_cli``); ``meta.schema_version`` lets an
older memory-cli refuse a schema it does not know instead of half-understanding it.
"""

from __future__ import annotations

LOCAL_SQL = """
CREATE TABLE IF NOT EXISTS team_entries (
    entry_id          TEXT PRIMARY KEY,
    version           INTEGER NOT NULL DEFAULT 0,
    synced_hash       TEXT,
    author            TEXT,
    server_updated_at TEXT,
    confirmed         INTEGER NOT NULL DEFAULT 0,
    state             TEXT NOT NULL DEFAULT 'shared' CHECK (state IN ('shared', 'tombstone')),
    shared_at         TEXT NOT NULL,
    synced_at         TEXT
);
"""


EXCHANGED_SQL = (
    """
CREATE TABLE IF NOT EXISTS team_exchanged (
    entry_id TEXT PRIMARY KEY REFERENCES memory_entries(id) ON DELETE CASCADE,
    via      TEXT NOT NULL CHECK (via IN ('pushed', 'pulled')),
    at       TEXT NOT NULL
)
""",
    # A store that synced before this table existed: what it pulled carries source 'team', what
    # it pushed has a server version.
    "INSERT OR IGNORE INTO team_exchanged(entry_id, via, at)"
    " SELECT id, 'pulled', updated_at FROM memory_entries WHERE source = 'team'",
    "INSERT OR IGNORE INTO team_exchanged(entry_id, via, at)"
    " SELECT t.entry_id, 'pushed', coalesce(t.synced_at, t.shared_at) FROM team_entries t"
    " JOIN memory_entries e ON e.id = t.entry_id WHERE t.version > 0",
)


#: The id a shared entry has on the team store when it is not its local id: the person's entry
#: whose id another login took on the server first is shared under a new one, and a teammate's
#: row whose id a local entry of another source (a repository file) holds is kept under a new
#: local id. Either way no entry gives up its identity to a stranger's claim. ``team_exchanged``
#: keeps it too, so the entry is recognised after ``team leave`` and a later join.
SERVER_ID_SQL = (
    ("team_entries", "ALTER TABLE team_entries ADD COLUMN server_id TEXT"),
    ("team_exchanged", "ALTER TABLE team_exchanged ADD COLUMN server_id TEXT"),
    (
        None,
        "CREATE UNIQUE INDEX IF NOT EXISTS team_entries_server_id ON team_entries(server_id)"
        " WHERE server_id IS NOT NULL",
    ),
    (
        None,
        "CREATE INDEX IF NOT EXISTS team_exchanged_server_id ON team_exchanged(server_id) WHERE server_id IS NOT NULL",
    ),
)


def apply_schema(store) -> None:
    store.execute(LOCAL_SQL.strip())


def apply_exchanged_schema(store) -> None:
    for statement in EXCHANGED_SQL:
        store.execute(statement.strip())


#: The server schema version this code writes and understands. Version 2 is the one whose
#: trigger keeps members from weakening confirmed rules and from claiming another's name;
#: version 3 also keeps a member from turning someone else's rule into a plain entry (which a
#: member could then remove). This code refuses to sync with an older one (``team init``
#: upgrades it).
SERVER_SCHEMA_VERSION = 3
SCHEMA = "memory_cli"
MEMBER_ROLE = "memory_cli_member"
MAINTAINER_ROLE = "memory_cli_maintainer"

#: Columns a member may write; ``confirmed``/``confirmed_by`` are the maintainers' alone, and the
#: server's trigger owns ``version``, times and ``change_xid``, and sets ``author``,
#: ``updated_by`` and ``confirmed_by`` from the login whatever a client wrote there.
MEMBER_INSERT_COLUMNS = (
    "id",
    "type",
    "content",
    "scope",
    "category",
    "subject",
    "tags",
    "confidence",
    "rule",
    "deleted",
    "author",
    "updated_by",
)
MEMBER_UPDATE_COLUMNS = (
    "type",
    "content",
    "scope",
    "category",
    "subject",
    "tags",
    "confidence",
    "rule",
    "deleted",
    "updated_by",
)

SERVER_DDL = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS {SCHEMA}.entries (
    id           text PRIMARY KEY,
    version      bigint NOT NULL DEFAULT 1,
    type         text NOT NULL,
    content      text NOT NULL,
    scope        text NOT NULL DEFAULT 'global',
    category     text,
    subject      text,
    tags         jsonb NOT NULL DEFAULT '[]',
    confidence   real NOT NULL DEFAULT 0.8,
    rule         jsonb,
    confirmed    boolean NOT NULL DEFAULT false,
    confirmed_by text,
    deleted      boolean NOT NULL DEFAULT false,
    author       text NOT NULL,
    updated_by   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    change_xid   xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX IF NOT EXISTS entries_change_xid ON {SCHEMA}.entries (change_xid);
CREATE OR REPLACE FUNCTION {SCHEMA}.stamp() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    maintainer boolean := pg_has_role(current_user, '{MAINTAINER_ROLE}', 'MEMBER');
BEGIN
    -- Who wrote it is the login, never what the client claims.
    NEW.change_xid := pg_current_xact_id();
    NEW.updated_at := now();
    NEW.updated_by := session_user;
    IF TG_OP = 'INSERT' THEN
        NEW.version := 1;
        NEW.created_at := now();
        NEW.author := session_user;
        NEW.confirmed_by := CASE WHEN NEW.confirmed THEN session_user END;
        RETURN NEW;
    END IF;
    NEW.version := OLD.version + 1;
    NEW.created_at := OLD.created_at;
    NEW.author := OLD.author;
    -- Removing a rule from every store is for its author and the maintainers, and so is making
    -- it no rule: otherwise a member clears the rule first and removes a plain entry next.
    IF jsonb_typeof(OLD.rule) = 'object' AND NOT maintainer AND OLD.author IS DISTINCT FROM session_user
       AND ((NEW.deleted AND NOT OLD.deleted) OR jsonb_typeof(NEW.rule) IS DISTINCT FROM 'object') THEN
        RAISE EXCEPTION 'only its author or a maintainer may remove a rule from the team store'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.confirmed AND NOT OLD.confirmed THEN
        NEW.confirmed_by := session_user;
    ELSIF NEW.confirmed THEN
        NEW.confirmed_by := OLD.confirmed_by;
    ELSE
        NEW.confirmed_by := NULL;
    END IF;
    -- What a maintainer vouched for needs a maintainer again once a member changes any of it.
    IF OLD.confirmed AND NOT maintainer
       AND (NEW.type, NEW.content, NEW.scope, NEW.category, NEW.subject, NEW.tags, NEW.rule, NEW.deleted)
           IS DISTINCT FROM
           (OLD.type, OLD.content, OLD.scope, OLD.category, OLD.subject, OLD.tags, OLD.rule, OLD.deleted) THEN
        NEW.confirmed := false;
        NEW.confirmed_by := NULL;
    END IF;
    IF NEW.deleted THEN
        NEW.confirmed := false;
        NEW.confirmed_by := NULL;
    END IF;
    RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS entries_stamp ON {SCHEMA}.entries;
CREATE TRIGGER entries_stamp BEFORE INSERT OR UPDATE ON {SCHEMA}.entries
    FOR EACH ROW EXECUTE FUNCTION {SCHEMA}.stamp();
"""

ROLES_DDL = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MEMBER_ROLE}') THEN
        CREATE ROLE {MEMBER_ROLE} NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{MAINTAINER_ROLE}') THEN
        CREATE ROLE {MAINTAINER_ROLE} NOLOGIN IN ROLE {MEMBER_ROLE};
    END IF;
END $$;
GRANT USAGE ON SCHEMA {SCHEMA} TO {MEMBER_ROLE};
GRANT SELECT ON {SCHEMA}.meta, {SCHEMA}.entries TO {MEMBER_ROLE};
GRANT INSERT ({", ".join(MEMBER_INSERT_COLUMNS)}) ON {SCHEMA}.entries TO {MEMBER_ROLE};
GRANT UPDATE ({", ".join(MEMBER_UPDATE_COLUMNS)}) ON {SCHEMA}.entries TO {MEMBER_ROLE};
GRANT INSERT (confirmed, confirmed_by), UPDATE (confirmed, confirmed_by) ON {SCHEMA}.entries TO {MAINTAINER_ROLE};
"""

#: What ``team init`` prints and docs/team.md shows: how an admin lets people in.
GRANT_HELP = f"""\
Give each person a login role and one of the two team roles:
  CREATE ROLE alice LOGIN PASSWORD '...';   -- or your usual authentication (certificates, LDAP)
  GRANT {MEMBER_ROLE} TO alice;            -- reads every shared entry, adds and edits entries
  GRANT {MAINTAINER_ROLE} TO bob;          -- also confirms rules, which makes them block
Members' rules are enforced as warnings until a maintainer runs `memory-cli team confirm ID`.
Rows record the login that wrote them, so give each person a login of their own."""


def apply_server_id_schema(store) -> None:
    for table, statement in SERVER_ID_SQL:
        if table and "server_id" in {r["name"] for r in store.rows(f"PRAGMA table_info({table})")}:
            continue  # a store that ran this step before an earlier one was repeated
        store.execute(statement)
