"""``memory-cli import-markdown``: store what :mod:`.markdown` found, once.

Idempotence is by fingerprint (normalised content + scope, after redaction). A candidate is
skipped when an entry with that fingerprint exists in any status, when an entry added by other
means says the same thing in the same scope, or when the person deleted the imported entry
(the deletion's audit record keeps the fingerprint): a re-run must not resurrect what was
removed on purpose. Everything one run adds goes in one transaction with one ``import`` audit
row summarising it, beside the per-entry ``add`` rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .. import entries
from ..audit import record
from ..privacy.redact import redact
from ..util import now_iso
from .markdown import Candidate, collect, discover, fingerprint


def _known_fingerprints(store) -> tuple[set[str], set[str]]:
    """(present, deleted): fingerprints of stored entries and of entries a person deleted."""
    present = {
        r["fingerprint"] for r in store.rows("SELECT fingerprint FROM memory_entries WHERE fingerprint IS NOT NULL")
    }
    for r in store.rows("SELECT content, scope FROM memory_entries"):
        present.add(fingerprint(r["content"], r["scope"]))
    deleted = set()
    for r in store.rows(
        "SELECT json_extract(details, '$.entry.fingerprint') AS fp FROM memory_audit_log "
        "WHERE action = 'delete' AND details IS NOT NULL"
    ):
        if r["fp"]:
            deleted.add(r["fp"])
    return present, deleted


def _attach_rule(store, entry: dict):
    """Imported rules get enforcement data the same way `memory-cli add --type rule` does."""
    from ..rules import api as rules_api

    return rules_api.attach_rule(store, entry)


def _index(store, entry_ids: list[str]) -> None:
    """Embed now when the daemon is warm; otherwise the vectors area's queue backfills them."""
    from ..embeddings import vectors

    try:
        vectors.index_entries(store, entry_ids)
    except Exception as e:  # an index problem must not undo the import; reindex repairs it
        store.warn(
            f"imported memories are not yet searchable by meaning ({type(e).__name__}); run `memory-cli reindex`"
        )


def _summary(c: Candidate, status: str, entry_id: str | None = None) -> dict:
    return {
        "status": status,
        "id": entry_id,
        "content": c.content,
        "type": c.type,
        "scope": c.scope,
        "tags": list(c.tags),
        "source_file": c.source_file,
        "line": c.line,
        "date": c.date,
    }


def import_sources(
    store,
    sources: Iterable[str | Path],
    *,
    scope: str | None = None,
    dry_run: bool = False,
    claude_home: str | Path | None = None,
    attach_rules: bool = True,
) -> dict:
    """Import the memories under ``sources``; report what was added and what was skipped.

    Returns ``{"files": [{"path", "found", "added", "skipped"}], "entries": [...], "added": n,
    "skipped_existing": n, "skipped_deleted": n, "redacted": n, "errors": [...], "dry_run": bool}``.
    """
    from .. import scope as scopes

    forced = scopes.parse(scope) if scope else None
    sources = [str(s) for s in sources]
    candidates, errors = collect(sources, scope=forced, claude_home=claude_home)
    for source in sources:
        if not discover([source], claude_home=claude_home):
            errors.append((str(source), "no memory files found there"))
    present, deleted = _known_fingerprints(store)
    files: dict[str, dict] = {}
    out_entries: list[dict] = []
    added_ids: list[str] = []
    counts = {"added": 0, "skipped_existing": 0, "skipped_deleted": 0, "redacted": 0}

    def file_row(path: str) -> dict:
        return files.setdefault(path, {"path": path, "found": 0, "added": 0, "skipped": 0})

    with store.transaction():
        for c in candidates:
            clean, kinds = redact(c.content)
            if kinds:
                counts["redacted"] += 1
                c.content = clean
            c.scope = scopes.parse(c.scope)
            fp = fingerprint(c.content, c.scope)
            row = file_row(c.source_file)
            row["found"] += 1
            if fp in deleted:
                counts["skipped_deleted"] += 1
                row["skipped"] += 1
                out_entries.append(_summary(c, "skipped_deleted"))
                continue
            if fp in present:
                counts["skipped_existing"] += 1
                row["skipped"] += 1
                out_entries.append(_summary(c, "skipped_existing"))
                continue
            present.add(fp)
            row["added"] += 1
            counts["added"] += 1
            if dry_run:
                out_entries.append(_summary(c, "would_add"))
                continue
            entry = entries.add(
                store,
                c.content,
                c.type,
                scope=c.scope,
                source="migrated",
                tags=c.tags,
                fingerprint=fp,
                audit_context=f"migrated from {c.source_file}:{c.line}",
            )
            if c.date and f"{c.date}T00:00:00.000000Z" < entry["created_at"]:
                # Keep the log's own date as the creation date; the decay clock stays at now.
                entries.set_created_at(store, entry["id"], f"{c.date}T00:00:00.000000Z")
            if attach_rules and entry["type"] == "rule":
                _attach_rule(store, entry)
            added_ids.append(entry["id"])
            out_entries.append(_summary(c, "added", entry["id"]))
        if not dry_run:
            record(
                store,
                "import",
                context="import-markdown",
                result=f"{counts['added']} added",
                details={"sources": sources, **counts, "files": len(files), "errors": len(errors), "at": now_iso()},
            )
    if added_ids:
        _index(store, added_ids)
    return {
        "files": list(files.values()),
        "entries": out_entries,
        **counts,
        "errors": [{"path": p, "error": e} for p, e in errors],
        "dry_run": dry_run,
    }
