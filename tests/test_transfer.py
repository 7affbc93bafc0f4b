"""Export and import: lossless, and a bad file stores nothing."""

import json

import pytest

from memory_cli.db import Store


def _dump(db):
    s = Store.open(db)
    out = {
        t: s.rows(f"SELECT * FROM {t} ORDER BY 1")
        for t in ("memory_entries", "enforcement_rules", "corrections", "memory_audit_log", "kv", "session_injections")
    }
    s.close()
    return out


def test_roundtrip_is_lossless(tmp_path, cli, db_path):
    cli("add", "Never use pythonw.exe", "--type", "rule", "--tags", "windows,python")
    eid = cli("add", "old fact").stdout.strip()
    cli("supersede", eid, "--content", "new fact")
    s = Store.open(db_path)
    s.execute("UPDATE memory_entries SET embedding = ? WHERE content = 'new fact'", (b"\x00\x01\xff",))
    s.close()
    out = tmp_path / "export.jsonl"
    assert cli("export", "--output", out).returncode == 0
    fresh = tmp_path / "fresh.db"
    r = cli("import", out, db=fresh)
    assert r.returncode == 0, r.stderr
    a, b = _dump(db_path), _dump(fresh)
    for table in a:
        if table == "memory_audit_log":
            assert [r for r in b[table] if r["action"] != "import"] == a[table]
        else:
            assert a[table] == b[table], table
    s = Store.open(fresh)
    assert s.value("SELECT count(*) FROM memory_rank_fts WHERE memory_rank_fts MATCH 'content:pythonw'") == 1
    s.close()
    r = cli("import", out, "--json", db=fresh)
    assert json.loads(r.stdout)["inserted"] == {}


def test_bad_line_imports_nothing(tmp_path, cli, db_path):
    cli("add", "existing")
    out = tmp_path / "e.jsonl"
    cli("export", "--output", out)
    lines = out.read_text().splitlines()
    lines.insert(2, "{not json")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines))
    fresh = tmp_path / "fresh.db"
    cli("add", "kept", db=fresh)
    r = cli("import", bad, db=fresh)
    assert r.returncode == 2 and "line 3" in r.stderr
    assert [e["content"] for e in json.loads(cli("list", "--json", db=fresh).stdout)] == ["kept"]


def test_import_redacts_planted_secrets(tmp_path, cli):
    header = {"format": "memory-cli-export", "version": 1, "schema_version": 1, "tables": []}
    row = {
        "id": "11111111-1111-4111-8111-111111111111",
        "content": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "type": "fact",
        "scope": "global",
        "source": "imported",
        "confidence": 0.5,
        "tags": "[]",
        "created_at": "2026-01-01T00:00:00.000000Z",
        "updated_at": "2026-01-01T00:00:00.000000Z",
    }
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps(header) + "\n" + json.dumps({"table": "memory_entries", "row": row}) + "\n")
    assert cli("import", f).returncode == 0
    exported = cli("export").stdout
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in exported


def test_export_from_a_store_without_vectors_imports_into_one_with_them(cli, db_path, tmp_path):
    """Once the daemon has built the vector table, import must still accept exports from a store
    that never had one (the vector queue is derived state, rebuilt by triggers)."""
    from memory_cli.db import Store
    from memory_cli.embeddings import vectors

    other = tmp_path / "other.db"
    cli("add", "Deploy with ansible", db=other)
    export = tmp_path / "e.jsonl"
    assert cli("export", "--output", str(export), db=other).returncode == 0
    assert "memory_vec_queue" not in export.read_text()
    with Store.open(db_path) as s:
        if not s.load_vec():
            pytest.skip("sqlite-vec cannot load here")
        vectors.ensure_table(s, 384, "all-MiniLM-L6-v2")
    r = cli("import", str(export))
    assert r.returncode == 0, r.stderr
    with Store.open(db_path) as s:
        assert vectors.pending_count(s) == 1  # queued by the trigger, embedded when the model is warm
