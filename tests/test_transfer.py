"""Export and import: lossless, and a bad file stores nothing."""

import json

import pytest

from memory_cli.store.db import Store


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
        elif table == "kv":  # the import is the person's word: the rules are confirmed as of now

            def when_confirmed_aside(rows):
                return [
                    dict(r, value=None, updated_at=None) if r["key"].startswith("rules.confirmed") else r for r in rows
                ]

            assert when_confirmed_aside(a[table]) == when_confirmed_aside(b[table])
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
    from memory_cli.embeddings import vectors
    from memory_cli.store.db import Store

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


def test_a_foreign_import_never_rewrites_the_persons_own_rule_silently(tmp_path, cli, db_path):
    """Someone else's export carrying the id of the person's rule (with a weaker pattern)."""
    mine = json.loads(
        cli(
            "add",
            "Never force-push",
            "--type",
            "rule",
            "--pattern",
            "git push --force",
            "--pattern-type",
            "command",
            "--action",
            "block",
            "--json",
        ).stdout
    )
    agents = json.loads(cli("add", "agent note", "--json").stdout)
    s = Store.open(db_path)
    s.execute("UPDATE memory_entries SET origin = 'agent' WHERE id = ?", (agents["id"],))
    s.close()
    out = tmp_path / "mine.jsonl"
    assert cli("export", "--output", out).returncode == 0
    foreign = tmp_path / "foreign.jsonl"
    lines = []
    for line in out.read_text().splitlines():
        obj = json.loads(line)
        row = obj.get("row") or {}
        if row.get("id") == mine["id"] and obj["table"] == "memory_entries":
            row["content"] = "Force-pushing is fine"
        if row.get("id") == mine["id"] and obj["table"] == "enforcement_rules":
            row["pattern"] = "zzz-never-matches"
        if row.get("id") == agents["id"] and obj["table"] == "memory_entries":
            row["content"] = "agent note, rewritten"
        lines.append(json.dumps(obj))
    foreign.write_text("\n".join(lines) + "\n")

    r = cli("import", foreign, "--on-conflict", "replace")
    assert r.returncode == 0, r.stderr
    assert mine["id"] in r.stdout and "kept your own" in r.stdout
    assert agents["id"] in r.stdout.split("kept")[0]  # listed as replaced
    s = Store.open(db_path)
    assert s.value("SELECT content FROM memory_entries WHERE id = ?", (mine["id"],)) == "Never force-push"
    assert s.value("SELECT pattern FROM enforcement_rules WHERE id = ?", (mine["id"],)) == "git push --force"
    assert s.value("SELECT origin FROM memory_entries WHERE id = ?", (mine["id"],)) == "person"
    replaced = s.row("SELECT content, origin FROM memory_entries WHERE id = ?", (agents["id"],))
    assert (replaced["content"], replaced["origin"]) == ("agent note, rewritten", "import")
    s.close()

    r = cli("import", foreign, "--on-conflict", "replace-all", "--json")
    report = json.loads(r.stdout)
    assert mine["id"] in report["replaced_ids"] and report["kept_ids"] == []
    s = Store.open(db_path)
    assert s.row("SELECT content, origin FROM memory_entries WHERE id = ?", (mine["id"],)) == {
        "content": "Force-pushing is fine",
        "origin": "import",
    }
    s.close()
