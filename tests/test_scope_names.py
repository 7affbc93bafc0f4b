"""One project name, one scope: what a person types, what a hook derives and what is stored agree."""

from __future__ import annotations

import json

from helpers.hooks import payload

from memory_cli import scope
from memory_cli.store import migrations
from memory_cli.store.db import Store


def test_project_names_fold_case_spaces_and_version_tails_to_one_name():
    for spelling in ("WhisperClick V3", "whisperclick", "WhisperClick-v3", "whisperclick_v3", " WhisperClick 3.1 "):
        assert scope.parse(f"project:{spelling}") == "project:whisperclick", spelling
    assert scope.normalize_project("Billing API") == "billing-api"
    assert scope.normalize_project("v3") == "v3"  # nothing but a version: kept
    assert scope.project_name("/home/u/src/WhisperClick-V3") == "whisperclick"


def test_a_memory_added_under_the_projects_versioned_name_is_found_by_query_and_inject(cli):
    assert cli("add", "Window drag posts WM_APP_DRAGSTART", "--scope", "project:WhisperClick V3").returncode == 0
    assert cli("add", "Tray icon is recreated on TaskbarCreated", "--scope", "project:whisperclick").returncode == 0
    listed = json.loads(cli("list", "--json").stdout)
    assert {e["scope"] for e in listed} == {"project:whisperclick"}
    for spelling in ("project:WhisperClick V3", "project:whisperclick"):
        found = cli("query", "drag tray icon", "--scope", spelling).stdout
        assert "WM_APP_DRAGSTART" in found and "TaskbarCreated" in found, spelling
    injected = cli("inject", "--session-context", '{"project": "WhisperClick V3"}').stdout
    assert "WM_APP_DRAGSTART" in injected and "TaskbarCreated" in injected


def test_a_session_in_a_versioned_folder_gets_the_projects_memories(cli, hook, tmp_path):
    repo = tmp_path / "work" / "WhisperClick-V3"
    (repo / ".git").mkdir(parents=True)
    assert cli("add", "Window drag posts WM_APP_DRAGSTART", "--scope", "project:WhisperClick").returncode == 0
    r = hook("SessionStart", payload("SessionStart", cwd=str(repo)))
    assert r.returncode == 0
    assert "WM_APP_DRAGSTART" in r.context


def test_opening_an_older_store_merges_project_scope_variants(db_path):
    s = Store.open(db_path)
    now = "2026-01-01T00:00:00Z"
    for i, variant in enumerate(("project:whisperclick-v3", "project:WhisperClick V3", "project:whisperclick")):
        s.conn.execute(
            "INSERT INTO memory_entries(id, content, type, scope, source, created_at, updated_at) "
            "VALUES (?,?,?,?,?,?,?)",
            (f"e{i}", f"memory {i}", "fact", variant, "manual", now, now),
        )
    s.conn.execute(
        "INSERT INTO session_reports(id, scope, summary, created_at) VALUES ('r1','project:whisperclick-v3','s',?)",
        (now,),
    )
    s.conn.execute(
        "INSERT INTO memory_entries(id, content, type, scope, source, created_at, updated_at) "
        "VALUES ('f1','file','fact','file:src/Main.py','manual',?,?)",
        (now, now),
    )
    s.conn.execute(f"DELETE FROM schema_migrations WHERE version >= {SCOPE_MIGRATION}")
    s.conn.execute(f"PRAGMA user_version={SCOPE_MIGRATION - 1}")
    s.close()

    s = Store.open(db_path)
    scopes = {r["id"]: r["scope"] for r in s.rows("SELECT id, scope FROM memory_entries")}
    assert scopes == {
        "e0": "project:whisperclick",
        "e1": "project:whisperclick",
        "e2": "project:whisperclick",
        "f1": "file:src/Main.py",
    }
    assert s.value("SELECT scope FROM session_reports WHERE id='r1'") == "project:whisperclick"
    assert s.value("PRAGMA user_version") == migrations.LATEST
    s.close()


SCOPE_MIGRATION = 11


def test_a_project_excluded_from_the_model_by_its_versioned_name_stays_excluded():
    from memory_cli.llm import config

    settings = {"llm": {"exclude_projects": ["WhisperClick V3"]}}
    assert config.excluded(settings, "project:whisperclick", None)
    assert not config.excluded(settings, "project:billing-api", None)


def test_a_scope_always_included_by_configuration_is_normalised(store):
    from memory_cli import entries
    from memory_cli import settings as settings_mod
    from memory_cli.retrieval import session_start

    e = entries.add(
        store, "Shared tooling lives in tools/ of the monorepo", "rule", scope="project:tooling", confidence=0.9
    )
    cfg = settings_mod.load()
    cfg["injection"]["always_include_scopes"] = ["global", "project:Tooling V2"]
    assert e["id"] in session_start.inject(store, {"project": "billing"}, cfg, record=False)["ids"]


def test_an_export_from_before_one_project_name_imports_under_that_name(cli, db_path, tmp_path):
    assert cli("add", "Window drag posts WM_APP_DRAGSTART", "--scope", "project:whisperclick").returncode == 0
    out = tmp_path / "export.jsonl"
    assert cli("export", "--output", out).returncode == 0
    old = out.read_text().replace('"project:whisperclick"', '"project:WhisperClick-v3"')
    assert "project:WhisperClick-v3" in old
    out.write_text(old)
    fresh = tmp_path / "fresh.db"
    assert cli("import", out, db=fresh).returncode == 0
    listed = json.loads(cli("list", "--json", db=fresh).stdout)
    assert [e["scope"] for e in listed] == ["project:whisperclick"]
