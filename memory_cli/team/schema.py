"""The local tables that remember what is shared with the team store, and the server's schema.

Locally, ``team_entries`` maps each shared entry to the server version it was last synced at,
a hash of what was synced and when (``synced_at``), so a sync looks only at entries changed
since (their ``updated_at`` is later), pushes only what changed here, and can tell a local edit
that raced a teammate's (a conflict) from a plain update. The connection and the pull
mark live in ``kv`` (``team.*`` keys).

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


def apply_schema(store) -> None:
    store.execute(LOCAL_SQL.strip())


#: The server schema version this code writes and understands.
SERVER_SCHEMA_VERSION = 1
SCHEMA = "memory_cli"
MEMBER_ROLE = "memory_cli_member"
MAINTAINER_ROLE = "memory_cli_maintainer"

#: Columns a member may write; ``confirmed``/``confirmed_by`` are the maintainers' alone, and the
#: server's trigger owns ``version``, times and ``change_xid``.
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
CREATE OR REPLACE FUNCTION {SCHEMA}.stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_xid := pg_current_xact_id();
    NEW.updated_at := now();
    IF TG_OP = 'INSERT' THEN
        NEW.version := 1;
        NEW.created_at := now();
    ELSE
        NEW.version := OLD.version + 1;
        NEW.created_at := OLD.created_at;
        NEW.author := OLD.author;
        -- A changed rule needs a maintainer's confirmation again, unless a maintainer changed it.
        IF NEW.rule IS DISTINCT FROM OLD.rule
           AND NOT pg_has_role(current_user, '{MAINTAINER_ROLE}', 'MEMBER') THEN
            NEW.confirmed := false;
            NEW.confirmed_by := NULL;
        END IF;
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
Members' rules are enforced as warnings until a maintainer runs `memory-cli team confirm ID`."""
