"""Migration 6: incidents (with an FTS5 index), session reports and metric samples.

- ``incidents``: "has this happened before?" Title, symptoms, cause and resolution are indexed
  in ``incident_fts`` (same tokenizer as memories) so they rank through the same keyword
  scoring; ``embedding`` holds the text's vector when the embedding daemon was warm at write
  time, for the same vector signal memories get.
- ``session_reports``: what a session did, per scope, newest first, so the next session can
  start from it.
- ``metric_samples``: raw samples (a test run's duration, a build's), from which baselines
  (n, avg, p95, min, max) are computed on read: a sample is never lost to a stale aggregate.
"""

from __future__ import annotations

DDL = """
CREATE TABLE IF NOT EXISTS incidents (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    symptoms    TEXT NOT NULL,
    service     TEXT,
    severity    TEXT NOT NULL DEFAULT 'medium' CHECK (severity IN ('critical','high','medium','low')),
    cause       TEXT,
    resolution  TEXT,
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','resolved')),
    scope       TEXT NOT NULL DEFAULT 'global',
    source      TEXT NOT NULL DEFAULT 'manual',
    session_id  TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    resolved_at TEXT,
    embedding   BLOB
);
CREATE INDEX IF NOT EXISTS idx_incidents_status ON incidents(status, created_at);
CREATE VIRTUAL TABLE IF NOT EXISTS incident_fts USING fts5(
    title, symptoms, cause, resolution, service,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS incidents_fts_insert AFTER INSERT ON incidents BEGIN
    INSERT INTO incident_fts(rowid, title, symptoms, cause, resolution, service)
    VALUES (new.rowid, new.title, new.symptoms, coalesce(new.cause, ''), coalesce(new.resolution, ''),
            coalesce(new.service, ''));
END;
CREATE TRIGGER IF NOT EXISTS incidents_fts_delete AFTER DELETE ON incidents BEGIN
    DELETE FROM incident_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER IF NOT EXISTS incidents_fts_update AFTER UPDATE OF title, symptoms, cause, resolution, service ON incidents BEGIN
    DELETE FROM incident_fts WHERE rowid = old.rowid;
    INSERT INTO incident_fts(rowid, title, symptoms, cause, resolution, service)
    VALUES (new.rowid, new.title, new.symptoms, coalesce(new.cause, ''), coalesce(new.resolution, ''),
            coalesce(new.service, ''));
END;

CREATE TABLE IF NOT EXISTS session_reports (
    id          TEXT PRIMARY KEY,
    scope       TEXT NOT NULL,
    summary     TEXT NOT NULL,
    details     TEXT,
    session_id  TEXT,
    source      TEXT NOT NULL DEFAULT 'agent',
    created_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_reports_scope ON session_reports(scope, created_at);

CREATE TABLE IF NOT EXISTS metric_samples (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    value       REAL NOT NULL,
    unit        TEXT,
    scope       TEXT NOT NULL DEFAULT 'global',
    source      TEXT NOT NULL DEFAULT 'manual',
    session_id  TEXT,
    recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_metric_samples_name ON metric_samples(name, scope, recorded_at);
"""

TABLES = ("incidents", "session_reports", "metric_samples")


def migrate(store) -> None:
    from ..migrations import _split_sql

    for statement in _split_sql(DDL):
        store.execute(statement)
