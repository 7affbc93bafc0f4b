"""The maintenance commands as a person runs them: pin, pins, decay, backup, restore, stats."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memory_cli import audit, entries
from memory_cli.maintenance import backup, retention
from memory_cli.store.db import Store
from memory_cli.util import iso, now_iso


def _age(store, entry_id: str, days: float) -> None:
    """Make an entry look untouched for ``days`` (what the calendar would do)."""
    then = iso(datetime.now(timezone.utc) - timedelta(days=days))
    store.execute(
        "UPDATE memory_entries SET created_at = ?, updated_at = ?, reinforced_at = ?, last_used = NULL WHERE id = ?",
        (then, then, then, entry_id),
    )


def _confirmed_rule(store, content: str) -> str:
    e = entries.add(store, content, "rule", confidence=0.4)
    now = now_iso()
    store.execute(
        "INSERT INTO enforcement_rules(id, pattern, pattern_type, action, severity, confirmed,"
        " created_at, updated_at) VALUES (?,?,?,?,?,1,?,?)",
        (e["id"], "x", "regex", "warn", "high", now, now),
    )
    return e["id"]


def test_pin_unpin_and_pins_from_the_command_line(cli, db_path: Path, project: Path, claude_dir: Path):
    (project / "CLAUDE.md").write_text("# WhisperClick\n")
    gid = cli("add", "--type", "rule", "Never use pythonw.exe").stdout.strip()
    pid = cli("add", "--type", "fact", "--scope", "project:whisperclick", "Run tests with pytest -q").stdout.strip()

    r = cli("pin", gid[:8])
    assert r.returncode == 0, r.stderr
    assert f"pinned {gid[:8]} into {claude_dir / 'CLAUDE.md'}" in r.stdout
    assert "Never use pythonw.exe" in (claude_dir / "CLAUDE.md").read_text()

    r = cli("pin", pid, cwd=project / "src")
    assert r.returncode == 0, r.stderr
    assert "Run tests with pytest -q" in (project / "CLAUDE.md").read_text()

    listing = json.loads(cli("pins", "--json").stdout)
    assert {p["id"] for p in listing["pins"]} == {gid, pid} and listing["max_pinned"] == 20

    assert cli("unpin", pid).returncode == 0
    assert (project / "CLAUDE.md").read_text() == "# WhisperClick\n"

    r = cli("pin", pid)  # run from elsewhere: which project CLAUDE.md is unknown
    assert r.returncode == 2 and "from inside that project" in r.stderr
    r = cli("pin", pid, "--project-dir", str(project))
    assert r.returncode == 0, r.stderr


def test_pins_sync_reports_a_hand_edit_and_overwrites_only_when_asked(cli, claude_dir: Path):
    eid = cli("add", "Jellyfin takes 60s to start").stdout.strip()
    cli("pin", eid)
    md = claude_dir / "CLAUDE.md"
    md.write_text(md.read_text().replace("60s", "90s"))

    r = cli("pins", "--sync")
    assert r.returncode == 1
    assert "CONFLICT" in r.stdout and "| - [fact] Jellyfin takes 90s to start" in r.stdout
    assert "90s" in md.read_text()
    assert cli("pins", "--sync", "--dry-run").returncode == 0
    r = cli("pins", "--sync", "--overwrite")
    assert r.returncode == 0 and "did replace" in r.stdout
    assert "60s" in md.read_text() and "90s" not in md.read_text()


def test_decay_dry_run_then_apply_matches_seed_scenarios(cli, db_path: Path):
    with Store.open(db_path) as s:
        stale = entries.add(s, "Jellyfin needs 60s after restart", "fact", confidence=0.4)["id"]
        fresh = entries.add(s, "Caddy starts after WireGuard", "fact", confidence=0.7)["id"]
        fading = entries.add(s, "Old host deploy1 is primary", "fact", confidence=0.15)["id"]
        pinned = entries.add(s, "Pinned but idle", "fact", confidence=0.4)["id"]
        rule = _confirmed_rule(s, "Never use pythonw.exe")
        s.execute("UPDATE memory_entries SET pinned = 1, pinned_at = ? WHERE id = ?", (now_iso(), pinned))
        _age(s, stale, 44)
        _age(s, fresh, 15)
        _age(s, fading, 40)
        _age(s, pinned, 100)
        _age(s, rule, 100)

    preview = json.loads(cli("decay", "--dry-run", "--json").stdout)
    assert {c["id"]: (c["confidence_before"], c["confidence_after"]) for c in preview["changes"]} == {
        stale: (0.4, 0.2),
        fading: (0.15, 0.0),
    }
    assert preview["exempt_pinned"] == 1 and preview["exempt_confirmed_rules"] == 1
    with Store.open(db_path) as s:
        assert entries.get(s, stale)["confidence"] == 0.4  # dry run changed nothing

    r = cli("decay")
    assert r.returncode == 0 and "0.40 -> 0.20" in r.stdout and "inactive" in r.stdout
    with Store.open(db_path) as s:
        e = entries.get(s, stale)
        assert e["confidence"] == 0.2 and e["status"] == "active" and e["decayed_at"]
        assert entries.get(s, fading)["status"] == "archived"  # archived, not deleted
        assert entries.get(s, fresh)["confidence"] == 0.7
        assert entries.get(s, pinned)["confidence"] == 0.4 and entries.get(s, rule)["confidence"] == 0.4
        logged = {a["entry_id"]: a for a in audit.query(s, action="decay")}
        assert logged[stale]["details"]["confidence_before"] == 0.4
        assert logged[stale]["details"]["confidence_after"] == 0.2
        assert logged[fading]["result"] == "archived"
    again = json.loads(cli("decay", "--json").stdout)
    assert again["changes"] == []  # same day, nothing more to take


def test_backup_and_restore_from_the_command_line(cli, db_path: Path, claude_dir: Path, tmp_path: Path):
    keep = cli("add", "Keep me", "--type", "fact").stdout.strip()
    r = cli("backup", "--json")
    made = Path(json.loads(r.stdout)["backup"])
    assert made.parent == _db_backups(db_path)
    out_dir = tmp_path / "usb"
    out_dir.mkdir()
    r = cli("backup", "--to", str(out_dir))
    assert r.returncode == 0 and len(list(out_dir.iterdir())) == 1

    cli("delete", keep)
    cli("add", "Added after the backup", "--type", "fact")
    r = cli("restore", str(made))  # no terminal to ask on, no --yes: refused, nothing changed
    assert r.returncode == 2 and "pass --yes" in r.stderr
    assert "Added after the backup" in cli("list").stdout
    r = cli("restore", str(made), "--yes")
    assert r.returncode == 0, r.stderr
    assert "restored 1 memories" in r.stdout and "previous database is saved at" in r.stdout
    listed = json.loads(cli("list", "--json").stdout)
    assert [e["content"] for e in listed] == ["Keep me"]
    with Store.open(db_path) as s:
        assert [a["result"] for a in audit.query(s, action="restore")] == [str(made)]
    assert len(backup.list_backups(_db_backups(db_path), backup.PRE_RESTORE)) == 1

    bogus = tmp_path / "notes.txt"
    bogus.write_text("not a database")
    r = cli("restore", str(bogus))
    assert r.returncode == 4 and "not an SQLite database" in r.stderr
    assert [e["content"] for e in json.loads(cli("list", "--json").stdout)] == ["Keep me"]


def test_audit_log_retention_keeps_recent_rows(store):
    now = datetime.now(timezone.utc)
    for days in (200, 120, 91, 89, 1):
        store.execute(
            "INSERT INTO memory_audit_log(id, timestamp, action) VALUES (?,?,?)",
            (f"a{days}", iso(now - timedelta(days=days)), "hook"),
        )
    assert retention.prune_audit_log(store, 90, now=now) == 3
    assert sorted(r["id"] for r in store.rows("SELECT id FROM memory_audit_log WHERE id LIKE 'a%'")) == ["a1", "a89"]


def test_maintenance_run_does_backup_decay_and_retention(cli, db_path: Path, claude_dir: Path):
    with Store.open(db_path) as s:
        stale = entries.add(s, "Stale fact", "fact", confidence=0.7)["id"]
        _age(s, stale, 51)
        s.execute(
            "INSERT INTO memory_audit_log(id, timestamp, action) VALUES ('ancient', ?, 'hook')",
            (iso(datetime.now(timezone.utc) - timedelta(days=400)),),
        )
    r = cli("maintenance", "run")
    assert r.returncode == 0, r.stderr
    assert "task backup ok" in r.stdout and "task decay ok" in r.stdout
    with Store.open(db_path) as s:
        assert entries.get(s, stale)["confidence"] == 0.4
        assert s.value("SELECT count(*) FROM memory_audit_log WHERE id = 'ancient'") == 0
    assert len(backup.list_backups(_db_backups(db_path))) == 1
    status = json.loads(cli("maintenance", "status", "--json").stdout)
    assert status["last_run"] and not status["running"]
    assert "already ran today" in cli("maintenance", "run").stdout


def test_stats_gains_pins_decay_violations_review_backups_and_latency(cli, db_path: Path, hook):
    from helpers.hooks import payload

    eid = cli("add", "--type", "rule", "Never use pythonw.exe").stdout.strip()
    cli("pin", eid)
    with Store.open(db_path) as s:
        s.execute("UPDATE memory_entries SET violation_count = 4 WHERE id = ?", (eid,))
    for _ in range(3):
        hook("PreToolUse", payload("PreToolUse"))
    cli("backup")
    data = json.loads(cli("stats", "--json").stdout)
    assert data["pinned"]["count"] == 1 and data["pinned"]["max"] == 20
    assert data["violations_per_rule"][0] == {"id": eid, "content": "Never use pythonw.exe", "violations": 4}
    assert data["backups"]["count"] == 1
    assert set(data["decay"]) >= {"decayed_active", "below_injection_floor", "archived_by_decay"}
    assert set(data["pending_review"]) == {"corrections", "unconfirmed_rules"}
    latency = data["hook_latency_ms"]["PreToolUse"]
    assert latency["calls"] == 3 and latency["p50"] <= latency["p95"] <= latency["max"]


def _db_backups(db: Path) -> Path:
    """Where a non-default database's backups go: its own folder under the backups directory."""
    from memory_cli import settings as settings_mod
    from memory_cli.maintenance.tasks import backups_dir

    folder = backups_dir(settings_mod.load(), db)
    assert folder.parent.name == "backups"
    return folder
