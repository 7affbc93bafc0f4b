"""Export and import: every table as JSON Lines, a lossless round trip (ids and times kept).

An import is checked line by line before anything is written, then applied in one
transaction: a bad line anywhere means nothing is stored, and the error names the line.
Derived tables (the FTS index, vector index shadow tables) are not exported; they are rebuilt
by triggers and ``memory-cli reindex``.
"""

from __future__ import annotations

import base64
import json

from . import audit
from .errors import InvalidInput
from .ids import check_id
from .store.db import Store
from .store.migrations import LATEST
from .util import now_iso

FORMAT = "memory-cli-export"
FORMAT_VERSION = 1
FIRST = ["memory_entries", "enforcement_rules", "corrections"]


# Rebuilt from memory_entries by triggers on import: exporting them would only go stale.
DERIVED = {"memory_vec_queue"}


def data_tables(store: Store) -> list[str]:
    """Ordinary tables only: SQLite itself marks virtual tables (FTS5, vec0) and their shadow
    tables, so a table whose name merely starts like one (``memory_vec_queue``) is not skipped."""
    rows = store.rows(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    names = [r["name"] for r in rows if r["name"] != "schema_migrations" and r["name"] not in DERIVED]
    return [t for t in FIRST if t in names] + sorted(t for t in names if t not in FIRST)


def _encode(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$base64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _decode(value):
    if isinstance(value, dict) and set(value) == {"$base64"}:
        return base64.b64decode(value["$base64"])
    return value


def export_lines(store: Store):
    tables = data_tables(store)
    yield json.dumps(
        {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "schema_version": LATEST,
            "exported_at": now_iso(),
            "tables": tables,
        }
    )
    for table in tables:
        for row in store.rows(
            f'SELECT * FROM "{table}" ORDER BY rowid' if _has_rowid(store, table) else f'SELECT * FROM "{table}"'
        ):
            yield json.dumps({"table": table, "row": {k: _encode(v) for k, v in row.items()}}, ensure_ascii=False)


def _has_rowid(store: Store, table: str) -> bool:
    sql = store.value("SELECT sql FROM sqlite_master WHERE name=?", (table,)) or ""
    return "WITHOUT ROWID" not in sql.upper()


def _columns(store: Store, table: str) -> tuple[list[str], list[str]]:
    info = store.rows(f'PRAGMA table_info("{table}")')
    cols = [c["name"] for c in info]
    pk = [c["name"] for c in sorted(info, key=lambda c: c["pk"]) if c["pk"]]
    return cols, pk


# Columns holding an entry's (or a correction's, incident's, report's) id: they reach URL
# paths and prefix lookups, so an imported one must look like an id. The audit log is exempt:
# it records what happened, refused ids included, and creates nothing.
ID_COLUMNS = frozenset({"id", "entry_id", "superseded_by", "promoted_to"})


def parse_lines(store: Store, lines) -> list[tuple[str, dict, int]]:
    """Check the whole file first; raise InvalidInput naming the first bad line."""
    tables = set(data_tables(store))
    columns = {t: set(_columns(store, t)[0]) for t in tables}
    records: list[tuple[str, dict]] = []
    header_seen = False
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise InvalidInput(f"line {number}: not JSON ({e.msg}); nothing was imported") from None
        if not isinstance(obj, dict):
            raise InvalidInput(f"line {number}: expected a JSON object; nothing was imported")
        if "format" in obj:
            if obj.get("format") != FORMAT:
                raise InvalidInput(f"line {number}: not a memory-cli export; nothing was imported")
            if int(obj.get("schema_version", 0)) > LATEST:
                raise InvalidInput(
                    f"line {number}: export is from a newer schema "
                    f"({obj.get('schema_version')} > {LATEST}); upgrade memory-cli first"
                )
            header_seen = True
            continue
        table, row = obj.get("table"), obj.get("row")
        if table in DERIVED:
            continue  # older exports carried it; the triggers rebuild it
        if table not in tables or not isinstance(row, dict):
            raise InvalidInput(f"line {number}: unknown table {table!r} or missing row; nothing was imported")
        unknown = set(row) - columns[table]
        if unknown:
            raise InvalidInput(
                f"line {number}: table {table} has no column(s) {', '.join(sorted(unknown))}; nothing was imported"
            )
        for col in ID_COLUMNS & set(row) if table != "memory_audit_log" else ():  # a record, not an entry
            if isinstance(row[col], str):
                try:
                    check_id(row[col], f"{table}.{col}")
                except InvalidInput as err:
                    raise InvalidInput(f"line {number}: {err}; nothing was imported") from None
        records.append((table, {k: _decode(v) for k, v in row.items()}, number))
    if not header_seen and records:
        raise InvalidInput("no export header line: this file was not written by `memory-cli export`")
    return records


#: ``--on-conflict``: keep what is here; replace what is here except the person's own entries;
#: replace everything, the person's own entries included.
ON_CONFLICT = ("skip", "replace", "replace-all")

#: Tables whose rows are an entry (or its rule) under the entry's id: provenance decides whether
#: an import may rewrite them.
ENTRY_TABLES = ("memory_entries", "enforcement_rules")

#: How many replaced or kept ids the audit row lists (the command's output lists them all).
AUDIT_IDS = 100


def import_lines(store: Store, lines, *, on_conflict: str = "skip") -> dict:
    """Import an export. With ``replace``, a row whose id exists here replaces it, except an entry
    the person wrote (origin ``person``): that is kept and listed, since an export from another
    store would otherwise rewrite the person's rule silently; ``replace-all`` replaces those too.
    A replaced entry's origin becomes ``import``: its words are the file's now, not the person's."""
    if on_conflict not in ON_CONFLICT:
        raise InvalidInput("on-conflict must be skip, replace or replace-all")
    records = parse_lines(store, lines)
    import apsw

    # Every value passes the store's redaction gate (memory_cli.privacy.redact.gate_params) on the
    # way in: tags, subjects, session ids, audit rows and kv included, not only content.
    report = {"inserted": {}, "skipped": {}, "replaced": {}, "kept": {}, "replaced_ids": [], "kept_ids": []}
    number = 0
    try:
        with store.transaction():
            store.execute("PRAGMA defer_foreign_keys=ON")
            for table, row, number in records:  # noqa: B007 - the error handler below names the line
                _import_row(store, table, row, on_conflict, report)
            number = 0
            details = dict(
                report, replaced_ids=report["replaced_ids"][:AUDIT_IDS], kept_ids=report["kept_ids"][:AUDIT_IDS]
            )
            audit.record(store, "import", result="ok", details=details)
    except apsw.ConstraintError as e:
        where = f"line {number}: " if number else ""
        raise InvalidInput(f"{where}{_constraint_message(e)}; nothing was imported") from None
    return report


def _origin(store: Store, entry_id) -> str | None:
    return store.value("SELECT origin FROM memory_entries WHERE id = ?", (entry_id,))


def _constraint_message(e: Exception) -> str:
    text = str(e)
    return text.split(": ", 1)[-1] if ": " in text else text


def _import_row(store: Store, table: str, row: dict, on_conflict: str, report: dict) -> None:
    cols, pk = _columns(store, table)
    scope = row.get("scope")
    if isinstance(scope, str) and scope.startswith("project:"):
        from .scope import normalize_project

        name = normalize_project(scope[len("project:") :])
        row = dict(row, scope=f"project:{name}" if name else "global")  # an export from before one name
    names = [c for c in row if c in cols]
    placeholders = ",".join("?" for _ in names)
    quoted = ",".join(f'"{c}"' for c in names)
    exists = False
    if pk and all(k in row for k in pk):
        cond = " AND ".join(f'"{k}" = ?' for k in pk)
        exists = store.value(f'SELECT 1 FROM "{table}" WHERE {cond}', [row[k] for k in pk]) is not None
    if exists and (on_conflict == "skip" or table == "memory_audit_log"):  # what happened is not rewritten
        report["skipped"][table] = report["skipped"].get(table, 0) + 1
        return
    if exists and table in ENTRY_TABLES:
        from . import provenance

        eid = row["id"]
        if on_conflict != "replace-all" and _origin(store, eid) == provenance.PERSON:
            report["kept"][table] = report["kept"].get(table, 0) + 1
            if eid not in report["kept_ids"]:
                report["kept_ids"].append(eid)
            return
        if eid not in report["replaced_ids"]:
            report["replaced_ids"].append(eid)
        if table == "memory_entries" and "origin" in cols:
            row = dict(row, origin=provenance.IMPORT)
            names = [c for c in row if c in cols]
    if exists:
        cond = " AND ".join(f'"{k}" = ?' for k in pk)
        sets = ",".join(f'"{c}" = ?' for c in names if c not in pk)
        if sets:
            store.execute(
                f'UPDATE "{table}" SET {sets} WHERE {cond}',
                [row[c] for c in names if c not in pk] + [row[k] for k in pk],
            )
        report["replaced"][table] = report["replaced"].get(table, 0) + 1
        return
    store.execute(f'INSERT INTO "{table}" ({quoted}) VALUES ({placeholders})', [row[c] for c in names])
    report["inserted"][table] = report["inserted"].get(table, 0) + 1
