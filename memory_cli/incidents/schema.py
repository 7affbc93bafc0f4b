"""Tables of the agent stores: incidents (with a keyword index), session reports and metric
samples. One migration creates all three; each area's API lives in its own package."""

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
    session_id  TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    resolved_at TEXT,
    embedding   BLOB
);
CREATE INDEX IF NOT EXISTS idx_incidents_status ON incidents(status, created_at);
CREATE VIRTUAL TABLE IF NOT EXISTS incidents_fts USING fts5(
    title, symptoms, service, cause, resolution, content='incidents', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS incidents_fts_ai AFTER INSERT ON incidents BEGIN
    INSERT INTO incidents_fts(rowid, title, symptoms, service, cause, resolution)
    VALUES (new.rowid, new.title, new.symptoms, coalesce(new.service, ''), coalesce(new.cause, ''),
            coalesce(new.resolution, ''));
END;
CREATE TRIGGER IF NOT EXISTS incidents_fts_ad AFTER DELETE ON incidents BEGIN
    INSERT INTO incidents_fts(incidents_fts, rowid, title, symptoms, service, cause, resolution)
    VALUES ('delete', old.rowid, old.title, old.symptoms, coalesce(old.service, ''),
            coalesce(old.cause, ''), coalesce(old.resolution, ''));
END;
CREATE TRIGGER IF NOT EXISTS incidents_fts_au AFTER UPDATE ON incidents BEGIN
    INSERT INTO incidents_fts(incidents_fts, rowid, title, symptoms, service, cause, resolution)
    VALUES ('delete', old.rowid, old.title, old.symptoms, coalesce(old.service, ''),
            coalesce(old.cause, ''), coalesce(old.resolution, ''));
    INSERT INTO incidents_fts(rowid, title, symptoms, service, cause, resolution)
    VALUES (new.rowid, new.title, new.symptoms, coalesce(new.service, ''), coalesce(new.cause, ''),
            coalesce(new.resolution, ''));
END;

CREATE TABLE IF NOT EXISTS session_reports (
    id          TEXT PRIMARY KEY,
    scope       TEXT NOT NULL DEFAULT 'global',
    summary     TEXT NOT NULL,
    details     TEXT,
    session_id  TEXT,
    source      TEXT NOT NULL DEFAULT 'agent' CHECK (source IN ('agent','session','manual')),
    created_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_reports_scope ON session_reports(scope, created_at);

CREATE TABLE IF NOT EXISTS metric_samples (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL,
    value       REAL NOT NULL,
    unit        TEXT,
    scope       TEXT NOT NULL DEFAULT 'global',
    session_id  TEXT,
    recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_metric_samples_name ON metric_samples(name, scope, recorded_at);
"""


def apply_schema(store) -> None:
    """Migration 6: incidents, session reports, metric samples (apsw runs the whole script)."""
    store.execute(DDL)
