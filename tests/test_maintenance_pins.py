"""Pinning: the database and CLAUDE.md stay in step, the rest of CLAUDE.md is never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.hooks import payload

from memory_cli import audit, entries
from memory_cli.errors import InvalidInput
from memory_cli.maintenance import claudemd, pins
from memory_cli.store.db import Store
from memory_cli.util import now_iso

PERSONS_CLAUDE_MD = b"# WhisperClick\r\n\r\nBuild with `make`. Windows line endings on purpose.\r\n"


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


def _add_rule(store, content: str, *, severity="critical", confirmed=1, scope="global", alternative=None) -> str:
    """A rule row as the rules area stores it (plain SQL: the rules API is another area's)."""
    e = entries.add(store, content, "rule", scope=scope)
    now = now_iso()
    store.execute(
        "INSERT INTO enforcement_rules(id, pattern, pattern_type, action, severity, alternative, active,"
        " confirmed, created_at, updated_at) VALUES (?,?,?,?,?,?,1,?,?,?)",
        (e["id"], "pythonw", "regex", "block", severity, alternative, confirmed, now, now),
    )
    return e["id"]


def test_global_pin_is_written_at_once_and_removed_with_the_last_unpin(store, claude_dir: Path):
    rid = _add_rule(store, "Never use pythonw.exe", alternative="python.exe")
    result = pins.pin(store, rid[:8])
    target = claude_dir / "CLAUDE.md"
    assert result["path"] == str(target)
    text = target.read_text()
    assert f"- [rule] Never use pythonw.exe (instead: python.exe) (id {rid[:8]})" in text
    assert entries.get(store, rid)["pinned"]
    assert [a["result"] for a in audit.query(store, action="pin")] == ["create-file", "pinned"]

    pins.unpin(store, rid)
    assert not target.exists()  # memory-cli created it, and nothing else was in it
    assert not entries.get(store, rid)["pinned"]


def test_project_pin_goes_into_the_project_claude_md_and_nothing_else_changes(store, project: Path, claude_dir: Path):
    (project / "CLAUDE.md").write_bytes(PERSONS_CLAUDE_MD)
    before = _files(project)
    e = entries.add(
        store, "Drag the window with WM_APP_DRAGSTART, not pywebview's drag", "decision", scope="project:whisperclick"
    )
    r = pins.pin(store, e["id"], project_root=str(project))
    assert r["path"] == str(project / "CLAUDE.md")
    data = (project / "CLAUDE.md").read_bytes()
    assert data.startswith(PERSONS_CLAUDE_MD) and b"WM_APP_DRAGSTART" in data
    assert _files(project) == before
    assert not (claude_dir / "CLAUDE.md").exists()

    pins.unpin(store, e["id"])  # from anywhere: the target was remembered
    assert (project / "CLAUDE.md").read_bytes() == PERSONS_CLAUDE_MD
    assert _files(project) == before


def test_project_pin_needs_to_know_the_project_directory(store, project: Path, tmp_path: Path):
    e = entries.add(store, "Use pnpm", "preference", scope="project:whisperclick")
    with pytest.raises(InvalidInput, match="from inside that project"):
        pins.pin(store, e["id"], project_root=None)
    other = tmp_path / "work" / "other"
    (other / ".git").mkdir(parents=True)
    with pytest.raises(InvalidInput):
        pins.pin(store, e["id"], project_root=str(other))
    assert not (other / "CLAUDE.md").exists()
    assert not entries.get(store, e["id"])["pinned"]


def test_pin_limit_unpins_the_least_recently_used_and_says_so(store, claude_dir: Path):
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"pinning": {"max_pinned": 3}}))
    ids = [entries.add(store, f"fact number {i}", "fact")["id"] for i in range(4)]
    for eid in ids[:3]:
        pins.pin(store, eid)
    entries.mark_used(store, [ids[0]])  # the oldest pin was just injected: it is not the LRU one
    r = pins.pin(store, ids[3])
    assert [e["id"] for e in r["evicted"]] == [ids[1]]
    assert r["evicted"][0]["content"] == "fact number 1"
    body = claudemd.read_block(claude_dir / "CLAUDE.md").body
    assert "fact number 1" not in body
    assert all(f"fact number {i}" in body for i in (0, 2, 3))
    assert [a["result"] for a in audit.query(store, action="unpin")] == ["evicted"]


def test_pin_critical_pins_every_active_critical_rule(store, claude_dir: Path):
    a = _add_rule(store, "Never use pythonw.exe")
    b = _add_rule(store, "Never git push public main; use scripts/sync_public.py")
    _add_rule(store, "Prefer ripgrep", severity="low")
    r = pins.pin_critical(store)
    assert sorted(e["id"] for e in r["pinned"]) == sorted([a, b])
    body = claudemd.read_block(claude_dir / "CLAUDE.md").body
    assert "pythonw" in body and "sync_public" in body and "ripgrep" not in body
    again = pins.pin_critical(store)
    assert again["pinned"] == [] and len(again["already_pinned"]) == 2


def test_hand_edit_is_reported_and_only_overwritten_on_request(store, claude_dir: Path):
    a = entries.add(store, "Jellyfin takes 60s to start after a restart", "fact")["id"]
    pins.pin(store, a)
    target = claude_dir / "CLAUDE.md"
    edited = target.read_bytes().replace(b"60s", b"90s")
    target.write_bytes(edited)

    b = entries.add(store, "Postgres dependents wait 10s after a restart", "fact")["id"]
    r = pins.pin(store, b)
    assert r["sync"][0]["conflict"]
    assert target.read_bytes() == edited
    assert entries.get(store, b)["pinned"]  # the pin itself is kept

    preview = pins.sync(store, dry_run=True)
    assert [x["action"] for x in preview if x["target"] == pins.GLOBAL_TARGET] == ["conflict"]
    done = pins.sync(store, overwrite_edits=True)
    assert [x["action"] for x in done if x["target"] == pins.GLOBAL_TARGET] == ["replace"]
    body = claudemd.read_block(target).body
    assert "60s" in body and "Postgres" in body and "90s" not in body
    kept = [x for x in audit.query(store, action="pin") if x["result"] == "replace"]
    assert "90s" in kept[0]["details"]["overwritten_block"]


def test_superseded_pin_moves_to_its_successor_and_archived_pin_is_dropped(store, claude_dir: Path):
    old = entries.add(store, "Build with make all", "fact")["id"]
    gone = entries.add(store, "Old deploy host is deploy1", "fact")["id"]
    pins.pin(store, old)
    pins.pin(store, gone)
    new = entries.supersede(store, old, "Build with make release")["id"]
    entries.archive(store, gone)
    pins.sync(store)
    body = claudemd.read_block(claude_dir / "CLAUDE.md").body
    assert "make release" in body and "make all" not in body and "deploy1" not in body
    assert entries.get(store, new)["pinned"] and not entries.get(store, old)["pinned"]
    assert not entries.get(store, gone)["pinned"]


def test_pinning_an_archived_entry_is_refused(store):
    e = entries.add(store, "Obsolete", "fact")
    entries.archive(store, e["id"])
    with pytest.raises(InvalidInput, match="archived"):
        pins.pin(store, e["id"])


# ----------------------------------------------------------------------------- PreCompact hook


def test_precompact_rewrites_a_stale_block(db_path: Path, project: Path, hook):
    with Store.open(db_path) as s:
        e = entries.add(s, "Tests run with pytest -q", "fact", scope="project:whisperclick")
        pins.pin(s, e["id"], project_root=str(project))
        entries.update(s, e["id"], content="Tests run with pytest -q -x")  # not synced by update
    assert "-q -x" not in (project / "CLAUDE.md").read_text()
    r = hook("PreCompact", payload("PreCompact", cwd=str(project / "src")))
    assert r.returncode == 0 and r.json is None
    assert "Tests run with pytest -q -x" in (project / "CLAUDE.md").read_text()


def test_precompact_in_a_project_without_pins_creates_nothing(db_path: Path, project: Path, hook, claude_dir):
    with Store.open(db_path):
        pass
    before = _files(project)
    r = hook("PreCompact", payload("PreCompact", cwd=str(project)))
    assert r.returncode == 0
    assert _files(project) == before and not (claude_dir / "CLAUDE.md").exists()


def test_precompact_tells_the_person_about_a_hand_edited_block(db_path: Path, project: Path, hook):
    with Store.open(db_path) as s:
        e = entries.add(s, "Tests run with pytest -q", "fact", scope="project:whisperclick")
        pins.pin(s, e["id"], project_root=str(project))
    md = project / "CLAUDE.md"
    md.write_text(md.read_text().replace("pytest -q", "pytest -vv"))
    edited = md.read_bytes()
    r = hook("PreCompact", payload("PreCompact", cwd=str(project)))
    assert r.returncode == 0
    assert "edited by hand" in r.system_message and "memory-cli pins --sync" in r.system_message
    assert md.read_bytes() == edited


def test_precompact_pins_the_critical_rules_that_apply_here_including_escalated_ones(
    db_path: Path, project: Path, hook, claude_dir: Path
):
    from memory_cli.rules import api as rules_api

    with Store.open(db_path) as s:
        critical = _add_rule(s, "Never use pythonw.exe", alternative="python.exe")
        here = _add_rule(s, "Never push to main in WhisperClick", scope="project:whisperclick")
        elsewhere = _add_rule(s, "Never drop the billing tables", scope="project:billing-api")
        escalated = _add_rule(s, "Never run rm -rf on the repo", severity="high")
        for _ in range(4):
            rules_api.record_violation(s, escalated)
        assert s.value("SELECT severity FROM enforcement_rules WHERE id = ?", (escalated,)) == "critical"
    r = hook("PreCompact", payload("PreCompact", cwd=str(project)))
    assert r.returncode == 0
    with Store.open(db_path) as s:
        pinned = {row["id"] for row in s.rows("SELECT id FROM memory_entries WHERE pinned = 1")}
    assert pinned == {critical, here, escalated}
    assert elsewhere not in pinned
    global_md = (claude_dir / "CLAUDE.md").read_text()
    assert "Never use pythonw.exe" in global_md and "Never run rm -rf on the repo" in global_md
    assert "Never push to main in WhisperClick" in (project / "CLAUDE.md").read_text()
