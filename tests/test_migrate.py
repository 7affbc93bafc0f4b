"""`memory-cli migrate`: flat-file memory into the store, once, with a report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_cli import entries
from memory_cli.markdown_import.importer import import_sources as migrate

FIXTURES = Path(__file__).parent / "fixtures" / "flatfiles"
SHARED = FIXTURES / "shared" / "memory"
REPO = FIXTURES / "repos" / "whisperclick"
AUTO = FIXTURES / "claude_home" / "projects"


def count(store, where="1=1"):
    return store.value(f"SELECT count(*) FROM memory_entries WHERE {where}")


def test_running_twice_adds_nothing_the_second_time(cli, db_path):
    first = cli("import-markdown", "--source", SHARED, "--source", REPO, "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["added"] > 20 and report["skipped_existing"] == 0
    second = cli("import-markdown", "--source", SHARED, "--source", REPO)
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith(f"Imported 0 memories from 6 files ({report['added']} already stored).")
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        assert count(s) == report["added"]
        assert count(s, "source = 'migrated' AND fingerprint IS NOT NULL") == report["added"]
        imports = s.rows("SELECT result FROM memory_audit_log WHERE action = 'import' ORDER BY timestamp")
        assert [r["result"] for r in imports] == [f"{report['added']} added", "0 added"]


def test_report_lists_what_was_imported_per_file(cli):
    r = cli("import-markdown", "--source", SHARED)
    assert r.returncode == 0, r.stderr
    assert "Imported 14 memories from 4 files." in r.stdout
    assert f"{SHARED / 'decisions-log.md'}: 3 found, 3 added" in r.stdout
    assert "[correction] global: Stop summarising diffs" in r.stdout


def test_seed_style_glob_after_source_and_auto_memory_scopes(cli, store):
    store.close()
    dirs = sorted(str(p) for p in AUTO.glob("*/memory"))
    r = cli(
        "import-markdown", "--source", *dirs, "--json"
    )  # what the shell makes of --source ~/.claude/projects/*/memory/
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["entries"]
    scopes = {e["scope"] for e in rows}
    assert scopes == {"project:whisperclick", "project:billing-api"}


def test_memory_a_person_already_added_is_not_duplicated(store):
    # Same sentence, other case, spacing and emphasis: the same memory to the fingerprint.
    entries.add(store, "never use  **pythonw.exe** — use python.exe so errors are visible", "rule")
    # The same sentence in another scope is another memory.
    entries.add(store, "Always read a file before editing it.", "rule", scope="project:x")
    report = migrate(store, [SHARED / "hot-memory.md"])
    assert report["skipped_existing"] == 1 and report["added"] == 4
    assert count(store, "content LIKE '%pythonw.exe%'") == 1
    assert count(store, "content = 'Always read a file before editing it.'") == 2


def test_a_deleted_import_is_not_resurrected(store):
    migrate(store, [SHARED / "context-memory.md"])
    victim = store.row("SELECT id FROM memory_entries WHERE content LIKE 'Dana reviews%'")["id"]
    entries.delete(store, victim)
    report = migrate(store, [SHARED / "context-memory.md"])
    assert report["added"] == 0 and report["skipped_deleted"] == 1
    assert count(store, "content LIKE 'Dana reviews%'") == 0


def test_dry_run_stores_nothing(cli, db_path):
    r = cli("import-markdown", "--source", SHARED, "--dry-run", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["dry_run"] and report["added"] == 14
    assert {e["status"] for e in report["entries"]} == {"would_add"}
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        assert count(s) == 0


def test_types_tags_dates_and_rejected_alternatives_are_stored(store):
    migrate(store, [SHARED])
    d = store.row("SELECT * FROM memory_entries WHERE content LIKE 'Memory store. Decision:%'")
    assert d["type"] == "decision" and d["created_at"].startswith("2025-02-03")
    assert {"rejected:postgresql", "rejected:chroma"} <= set(json.loads(d["tags"]))
    c = store.row("SELECT * FROM memory_entries WHERE content LIKE 'pythonw for the GUI%'")
    assert c["type"] == "correction" and c["reinforced_at"] > "2025-03-15"  # decay clock starts now


def test_secrets_are_redacted_before_storing(store, tmp_path):
    f = tmp_path / "hot-memory.md"
    f.write_text("## Services\n- The staging API key is sk-ant-api03-" + "a" * 40 + " for the test account\n")
    report = migrate(store, [f])
    assert report["added"] == 1 and report["redacted"] == 1
    content = store.value("SELECT content FROM memory_entries")
    assert "aaaaaaaaaa" not in content and "[REDACTED" in content
    assert "aaaaaaaaaa" not in json.dumps(report)
    assert migrate(store, [f])["added"] == 0


def test_scope_override(cli, db_path):
    r = cli("import-markdown", "--source", SHARED / "decisions-log.md", "--scope", "project:WhisperClick", "--json")
    assert {e["scope"] for e in json.loads(r.stdout)["entries"]} == {"project:whisperclick"}


def test_missing_source_is_an_error_but_a_partly_missing_one_a_warning(cli, tmp_path):
    r = cli("import-markdown", "--source", tmp_path / "nope")
    assert r.returncode == 2 and "no memory files found" in r.stderr
    r = cli("import-markdown", "--source", SHARED / "hot-memory.md", "--source", tmp_path / "nope")
    assert r.returncode == 0 and "warning:" in r.stderr and "Imported 5 memories" in r.stdout


def test_imported_memories_are_queryable_and_injected(cli, project):
    home_copy = project.parent / "claude_projects"
    shutil.copytree(AUTO, home_copy)
    assert (
        cli("import-markdown", "--source", SHARED, "--source", REPO, "--source", *home_copy.glob("*/memory")).returncode
        == 0
    )
    q = cli("query", "pywebview", "--json")
    assert any("pywebview" in e["content"] for e in json.loads(q.stdout))
    inj = cli("inject", "--session-context", '{"project": "WhisperClick V3", "file": "src/main.py"}')
    assert "pythonw" in inj.stdout and "WM_APP_DRAGSTART" in inj.stdout
    assert "Invoices are stored in cents" not in inj.stdout  # another project's memory


@pytest.mark.parametrize("name", ["CLAUDE.md", "MEMORY.md"])
def test_pin_block_written_by_memory_cli_is_never_imported(store, tmp_path, name):
    f = tmp_path / name
    f.write_text(
        "# Notes\n\n<!-- memory-cli:pins:begin (managed by memory-cli; edit with `memory-cli pin/unpin`) "
        "sha256=0123456789abcdef -->\n- [rule] Never force-push main (confidence: 1.0)\n"
        "<!-- memory-cli:pins:end -->\n\n## Build\n- Run `make dist` before tagging a release\n"
    )
    report = migrate(store, [f])
    assert [e["content"] for e in report["entries"]] == ["Run `make dist` before tagging a release"]


def test_the_old_command_name_still_works(cli):
    r = cli("migrate", "--source", SHARED / "hot-memory.md", "--dry-run", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["files"]
