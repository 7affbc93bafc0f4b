"""The PostgreSQL side: connect, create the schema, and the few statements a sync needs.

Every psycopg failure becomes :class:`TeamUnavailable` with one line a person can act on
(server down, wrong password, permission denied, a newer schema). The connection string is the
person's own libpq URL or conninfo, so TLS modes, ``~/.pgpass``, ``PGPASSWORD`` and service
files work as their infrastructure expects.

Every connection carries a ``lock_timeout`` and a ``statement_timeout``: a teammate who leaves a
transaction open on a row, or a server that stalls, ends a sync with one line instead of
holding it (and the background sync's lock) for ever.
"""

from __future__ import annotations

import json

from ..errors import MemoryCliError
from . import schema

CONNECT_TIMEOUT_S = 5
#: How long a statement waits for a row or table lock another session holds.
LOCK_TIMEOUT_S = 5
#: How long any one statement may run; a push batch of 500 rows takes well under a second.
STATEMENT_TIMEOUT_S = 30


class TeamUnavailable(MemoryCliError):
    """The team server could not be used; the local store is untouched and keeps working."""

    exit_code = 6


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise TeamUnavailable("team memory needs psycopg: pip install 'memory-cli[team]'") from None
    return psycopg


def one_line(err: BaseException) -> str:
    """psycopg's messages run over several lines (DETAIL, HINT, the connection attempt)."""
    text = str(err).strip() or type(err).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    # libpq prefixes "connection failed: connection to server at ... failed: <reason>"
    first = lines[0] if lines else text
    if "failed:" in first:
        first = first.rsplit("failed:", 1)[1].strip() or first
    return first


def connect(conninfo: str, *, autocommit: bool = False):
    psycopg = _psycopg()
    try:
        conn = psycopg.connect(
            conninfo, connect_timeout=CONNECT_TIMEOUT_S, autocommit=autocommit, application_name="memory-cli"
        )
    except psycopg.Error as err:
        msg = one_line(err)
        if "password" in msg:
            msg += " (memory-cli stores no password: use ~/.pgpass, PGPASSFILE or PGPASSWORD)"
        raise TeamUnavailable(f"team server unreachable: {msg}") from None

    def limits():
        # Session settings, committed, so every later transaction on this connection has them.
        conn.execute(
            "SELECT set_config('lock_timeout', %s, false), set_config('statement_timeout', %s, false)",
            (f"{LOCK_TIMEOUT_S}s", f"{STATEMENT_TIMEOUT_S}s"),
        )
        if not autocommit:
            conn.commit()

    try:
        wrap(limits)
    except TeamUnavailable:
        conn.close()
        raise
    return conn


def wrap(fn):
    """Run ``fn`` turning any psycopg error into one line."""
    psycopg = _psycopg()
    try:
        return fn()
    except psycopg.errors.LockNotAvailable:
        raise TeamUnavailable(
            f"team server busy: another session held a lock on rows this sync writes for over {LOCK_TIMEOUT_S} s; "
            "nothing was changed, the next sync retries"
        ) from None
    except psycopg.errors.QueryCanceled:
        raise TeamUnavailable(
            f"team server too slow: a statement ran over {STATEMENT_TIMEOUT_S} s and was cancelled; "
            "nothing was changed, the next sync retries"
        ) from None
    except psycopg.errors.InsufficientPrivilege as err:
        raise TeamUnavailable(
            f"the team server refused: {one_line(err)} (confirming rules needs the "
            "memory_cli_maintainer role; sharing needs memory_cli_member)"
        ) from None
    except psycopg.Error as err:
        raise TeamUnavailable(f"team server error: {one_line(err)}") from None


def create_schema(conn) -> None:
    """Create (or complete) the schema and the two roles; idempotent."""

    def run():
        with conn.transaction():
            version = _read_version(conn)
            if version is not None and version > schema.SERVER_SCHEMA_VERSION:
                raise _newer(version)
            conn.execute(schema.SERVER_DDL)
            conn.execute(schema.ROLES_DDL)
            conn.execute(
                f"INSERT INTO {schema.SCHEMA}.meta(key, value) VALUES ('schema_version', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(schema.SERVER_SCHEMA_VERSION),),
            )

    wrap(run)


def _newer(version: int) -> TeamUnavailable:
    return TeamUnavailable(
        f"the team store has schema {version}, newer than this memory-cli knows "
        f"({schema.SERVER_SCHEMA_VERSION}); upgrade memory-cli (the local store keeps working)"
    )


def _read_version(conn) -> int | None:
    exists = conn.execute("SELECT to_regclass(%s)", (f"{schema.SCHEMA}.meta",)).fetchone()[0]
    if exists is None:
        return None
    row = conn.execute(f"SELECT value FROM {schema.SCHEMA}.meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else None


def check_schema(conn) -> None:
    """Refuse a server without the schema or with a newer one, in one line."""

    def run():
        version = _read_version(conn)
        conn.rollback()
        return version

    version = wrap(run)
    if version is None:
        raise TeamUnavailable("no memory-cli team store on that server: an admin runs `memory-cli team init URL` first")
    if version > schema.SERVER_SCHEMA_VERSION:
        raise _newer(version)
    if version < schema.SERVER_SCHEMA_VERSION:
        raise TeamUnavailable(
            f"the team store has schema {version}, older than this memory-cli needs "
            f"({schema.SERVER_SCHEMA_VERSION}, which keeps members from changing confirmed rules); an admin "
            "runs `memory-cli team init URL` to upgrade it (the local store keeps working)"
        )


COLUMNS = (
    "id",
    "version",
    "type",
    "content",
    "scope",
    "category",
    "subject",
    "tags",
    "confidence",
    "rule",
    "confirmed",
    "confirmed_by",
    "deleted",
    "author",
    "updated_by",
    "created_at",
    "updated_at",
)


def _row(values) -> dict:
    out = dict(zip(COLUMNS, values))
    for key in ("created_at", "updated_at"):
        if out.get(key) is not None:
            out[key] = out[key].isoformat()
    return out


def pull_since(conn, mark: str) -> tuple[list[dict], str]:
    """Rows changed since ``mark`` and the next mark.

    The mark is the oldest transaction still running when the previous pull's snapshot was taken
    (``pg_snapshot_xmin``). Every change committed after that snapshot carries a transaction id at
    or above it, so nothing that commits late is ever skipped; a row seen twice is recognised by
    its version and ignored.
    """

    def run():
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            nxt = conn.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text").fetchone()[0]
            cur = conn.execute(
                f"SELECT {', '.join(COLUMNS)} FROM {schema.SCHEMA}.entries WHERE change_xid >= %s::xid8"
                " ORDER BY change_xid, id",
                (mark,),
            )
            rows = [_row(r) for r in cur.fetchall()]
        return rows, nxt

    return wrap(run)


# author and updated_by are left to the server's trigger, which writes the login.
_INSERT = (
    f"INSERT INTO {schema.SCHEMA}.entries(id, type, content, scope, category, subject, tags, confidence,"
    " rule, deleted) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,false)"
    f" ON CONFLICT (id) DO NOTHING RETURNING {', '.join(COLUMNS)}"
)
# The trigger refuses a member's removal of someone else's rule, and turning it into a plain
# entry; asking only for the rows it would allow keeps that refusal from failing the whole batch
# (the row comes back as refused).
_MAY_UNRULE = (
    f"(jsonb_typeof(rule) IS DISTINCT FROM 'object' OR author = session_user"
    f" OR pg_has_role(current_user, '{schema.MAINTAINER_ROLE}', 'MEMBER'))"
)
_UPDATE = (
    f"UPDATE {schema.SCHEMA}.entries SET type=%s, content=%s, scope=%s, category=%s, subject=%s, tags=%s,"
    " confidence=%s, rule=%s WHERE id=%s AND version=%s AND NOT deleted"
    f" AND (%s::jsonb IS NOT NULL OR {_MAY_UNRULE})"
    f" RETURNING {', '.join(COLUMNS)}"
)
_TOMBSTONE = (
    f"UPDATE {schema.SCHEMA}.entries SET deleted=true WHERE id=%s AND version=%s AND NOT deleted AND {_MAY_UNRULE}"
    f" RETURNING {', '.join(COLUMNS)}"
)


def _fields(p: dict) -> tuple:
    return (
        p["type"],
        p["content"],
        p["scope"],
        p["category"],
        p["subject"],
        json.dumps(p["tags"]),
        p["confidence"],
        json.dumps(p["rule"]) if p["rule"] is not None else None,
    )


def push_batch(conn, items: list[tuple[str, dict | str, int]]) -> list[dict | None]:
    """Apply ``(kind, payload or id, known version)`` items in one transaction, pipelined.

    ``insert`` adds a new entry (None back when the id exists already); ``update`` and
    ``delete`` apply only if the server row is still at the known version (None back when a
    teammate changed it since: the caller resolves that with the next pull)."""

    def run():
        cursors = []
        with conn.transaction():
            with conn.pipeline():
                for kind, p, version in items:
                    cur = conn.cursor()
                    if kind == "insert":
                        f = _fields(p)
                        cur.execute(_INSERT, (p["id"], *f))
                    elif kind == "update":
                        f = _fields(p)
                        cur.execute(_UPDATE, (*f, p["id"], version, f[-1]))
                    else:
                        cur.execute(_TOMBSTONE, (p, version))
                    cursors.append(cur)
            out = []
            for cur in cursors:
                row = cur.fetchone()
                out.append(_row(row) if row else None)
        return out

    return wrap(run)


def confirm(conn, entry_id: str) -> dict | None:
    """A maintainer vouches for a shared rule. PostgreSQL itself refuses members; the trigger
    records the maintainer's login as ``confirmed_by``."""

    def run():
        with conn.transaction():
            cur = conn.execute(
                f"UPDATE {schema.SCHEMA}.entries SET confirmed=true"
                f" WHERE id=%s AND NOT deleted AND rule IS NOT NULL RETURNING {', '.join(COLUMNS)}",
                (entry_id,),
            )
            row = cur.fetchone()
        return _row(row) if row else None

    return wrap(run)


def login(conn) -> str:
    """The login this connection writes as: the name the server's trigger records."""

    def run():
        name = conn.execute("SELECT session_user").fetchone()[0]
        conn.rollback()
        return name

    return wrap(run)


def counts(conn) -> dict:
    def run():
        row = conn.execute(
            f"SELECT count(*) FILTER (WHERE NOT deleted), count(*) FILTER (WHERE deleted),"
            f" count(*) FILTER (WHERE rule IS NOT NULL AND NOT deleted AND confirmed) FROM {schema.SCHEMA}.entries"
        ).fetchone()
        conn.rollback()
        return {"entries": row[0], "tombstones": row[1], "confirmed_rules": row[2]}

    return wrap(run)


def roles_of(conn) -> list[str]:
    def run():
        rows = conn.execute(
            "SELECT r FROM unnest(ARRAY[%s, %s]) AS r WHERE pg_has_role(current_user, r, 'MEMBER')",
            (schema.MEMBER_ROLE, schema.MAINTAINER_ROLE),
        ).fetchall()
        conn.rollback()
        return [r[0] for r in rows]

    return wrap(run)
