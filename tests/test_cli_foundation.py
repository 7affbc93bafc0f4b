"""The CLI as a person uses it: real console script, real database file."""

import json
import os

import pytest
from helpers.cli import run_cli


def test_add_prints_id_and_json_returns_entry(cli):
    r = cli("add", "Never use pythonw.exe", "--type", "rule", "--confidence", "1.0")
    assert r.returncode == 0, r.stderr
    eid = r.stdout.strip().splitlines()[0]
    assert len(eid) == 36
    r = cli("add", "--content", "Prefer pnpm", "--type", "preference", "--json")
    data = json.loads(r.stdout)
    assert data["content"] == "Prefer pnpm" and data["type"] == "preference"
    shown = json.loads(cli("show", eid[:8], "--json").stdout)
    assert shown["id"] == eid and shown["history"][0]["action"] == "add"


def test_confidence_out_of_range_is_clamped_with_warning(cli):
    r = cli("add", "x", "--confidence", "7", "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout)["confidence"] == 1.0
    assert "clamped" in r.stderr


def test_query_json_shape_and_scope(cli):
    cli("add", "Window drag uses WM_APP_DRAGSTART", "--scope", "project:whisperclick")
    cli("add", "drag in another project", "--scope", "project:other")
    r = cli("query", "drag window", "--scope", "project:whisperclick", "--json")
    rows = json.loads(r.stdout)
    assert [x["content"] for x in rows] == ["Window drag uses WM_APP_DRAGSTART"]
    assert set(rows[0]) >= {"id", "content", "type", "scope", "confidence", "score"}
    r = cli("query", "drag window", "--scope", "project:whisperclick")
    assert "WM_APP_DRAGSTART" in r.stdout


def test_list_update_archive_delete(cli):
    eid = cli("add", "first", "--type", "fact").stdout.strip()
    cli("update", eid, "--content", "first, edited", "--tags", "a,b")
    rows = json.loads(cli("list", "--json").stdout)
    assert rows[0]["content"] == "first, edited" and rows[0]["tags"] == ["a", "b"]
    assert cli("archive", eid).returncode == 0
    assert json.loads(cli("list", "--json").stdout) == []
    assert len(json.loads(cli("list", "--status", "archived", "--json").stdout)) == 1
    r = cli("delete", eid)  # no TTY, no --yes: refuses
    assert r.returncode == 2 and "--yes" in r.stderr
    assert cli("delete", eid, "--yes").returncode == 0
    assert json.loads(cli("list", "--status", "all", "--json").stdout) == []


@pytest.mark.parametrize(
    "args,code,needle",
    [
        (["add", "x", "--type", "opinion"], 2, "unknown type"),
        (["add", "x", "--scope", "team:a"], 2, "unknown scope"),
        (["add", ""], 2, "content is empty"),
        (["add"], 2, "content is empty"),
        (["add", "x", "--confidence", "lots"], 2, "--confidence"),
        (["add", "x", "--pattern", "foo"], 2, "--type rule"),
        (["show", "nonexistent-id"], 3, "no memory"),
        (["update", "nonexistent-id", "--content", "y"], 3, "no memory"),
        (["update", "whatever"], 2, "nothing to update"),
        (["list", "--status", "weird"], 2, "unknown status"),
        (["audit", "--since", "last tuesday"], 2, "not an ISO date"),
        (["import", "/no/such/file.jsonl"], 2, "no such file"),
        (["frobnicate"], 2, "No such command"),
    ],
)
def test_bad_input_one_line_error_exit_code_nothing_lost(cli, args, code, needle):
    keep = cli("add", "precious memory").stdout.strip()
    r = cli(*args)
    assert r.returncode == code, (r.stdout, r.stderr)
    assert needle.lower() in r.stderr.lower()
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert json.loads(cli("show", keep, "--json").stdout)["content"] == "precious memory"


def test_json_mode_errors_are_json(cli):
    r = cli("show", "nope", "--json")
    assert r.returncode == 3
    assert json.loads(r.stdout)["error"].startswith("no memory")


def test_corrupt_database_is_refused_and_left_alone(tmp_path):
    db = tmp_path / "corrupt.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    before = db.read_bytes()
    r = run_cli("list", db=db)
    assert r.returncode == 4 and "Traceback" not in r.stderr
    assert db.read_bytes() == before


def test_foreign_file_refused_for_every_writing_command(tmp_path):
    db = tmp_path / "notes.txt"
    db.write_text("not a database")
    for args in (["add", "x"], ["import", str(db)], ["stats"]):
        r = run_cli(*args, db=db)
        assert r.returncode in (2, 4), (args, r.stderr)
        assert db.read_text() == "not a database"


def test_memory_disabled_by_empty_env(tmp_path):
    r = run_cli("list", env={"MEMORY_CLI_DB": ""})
    assert r.returncode == 5 and "disabled" in r.stderr


def test_db_resolution_order(tmp_path, claude_dir):
    cfg_db = tmp_path / "from-config.db"
    env_db = tmp_path / "from-env.db"
    flag_db = tmp_path / "from-flag.db"
    (claude_dir / "memory").mkdir()
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"database_path": str(cfg_db)}))
    run_cli("add", "a")
    assert cfg_db.exists()
    run_cli("add", "b", env={"MEMORY_CLI_DB": str(env_db)})
    assert env_db.exists()
    run_cli("add", "c", db=flag_db, env={"MEMORY_CLI_DB": str(env_db)})
    assert flag_db.exists()
    default = claude_dir / "memory" / "memory.db"
    assert not default.exists()


def test_default_database_lives_under_claude_config_dir(claude_dir):
    assert run_cli("add", "hello").returncode == 0
    assert (claude_dir / "memory" / "memory.db").exists()


def test_stats_counts(cli):
    cli("add", "a", "--type", "rule")
    cli("add", "b", "--type", "fact", "--scope", "project:x")
    data = json.loads(cli("stats", "--json").stdout)
    assert data["by_type"] == {"rule": 1, "fact": 1} or data["by_type"] == {"fact": 1, "rule": 1}
    assert data["by_scope"]["project:x"] == 1
    assert data["audit_last_7_days"]["add"] == 2
    assert data["by_age"]["< 1 day"] == 2
    assert "corrections" in data and "rules" in data


def test_audit_filters(cli):
    cli("add", "a")
    cli("add", "b")
    rows = json.loads(cli("audit", "--action", "add", "--limit", "1", "--json").stdout)
    assert len(rows) == 1 and rows[0]["action"] == "add"
    assert json.loads(cli("audit", "--since", "2999-01-01", "--json").stdout) == []


def test_config_validation_names_the_key(claude_dir, cli):
    (claude_dir / "memory").mkdir(exist_ok=True)
    cfg = claude_dir / "memory" / "config.json"
    cfg.write_text(json.dumps({"injection": {"max_tokens": "lots"}, "enforcment": {}}))
    r = cli("config", "--validate")
    assert r.returncode == 2
    assert "injection.max_tokens" in r.stderr and "enforcment" in r.stderr
    r = cli("config", "--json")
    info = json.loads(r.stdout)
    assert info["valid"] is False and info["settings"]["injection"]["max_tokens"] == 2000


def test_config_example_matches_fields_and_is_valid():
    import subprocess
    import sys
    from pathlib import Path

    from memory_cli.settings import validate

    root = Path(__file__).resolve().parent.parent
    assert subprocess.run([sys.executable, str(root / "scripts" / "gen_config_example.py"), "--check"]).returncode == 0
    data = json.loads((root / "config.example.json").read_text())
    validate(data)
    docs = (root / "docs" / "configuration.md").read_text()
    from memory_cli.settings import FIELDS

    missing = [f"{s}.{k}" if s else k for s, k, *_ in FIELDS if f"`{s + '.' if s else ''}{k}`" not in docs]
    assert missing == [], f"docs/configuration.md does not document: {missing}"


def test_editing_a_pinned_entry_rewrites_claude_md_at_once(cli, claude_dir):
    eid = cli("add", "Never use pythonw.exe", "--type", "fact").stdout.strip()
    assert cli("pin", eid).returncode == 0
    claude_md = claude_dir / "CLAUDE.md"
    assert "Never use pythonw.exe" in claude_md.read_text()
    cli("update", eid, "--content", "Never use pythonw.exe; use python.exe")
    assert "use python.exe" in claude_md.read_text()
    new = cli("supersede", eid, "--content", "Launch with python.exe only").stdout.strip()
    assert "Launch with python.exe only" in claude_md.read_text()
    cli("delete", new, "--yes")
    assert not claude_md.exists() or "python.exe" not in claude_md.read_text()


def test_version_and_short_help(cli):
    from memory_cli import __version__

    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"memory-cli {__version__}"
    r = cli("add", "-h")
    assert r.returncode == 0 and "Usage: memory-cli add" in r.stdout


def test_piped_output_is_neither_wrapped_nor_cut(cli):
    long = "Always run the integration suite with --maxfail=1 before pushing to the release branch " * 2
    cli("add", long.strip(), "--type", "fact")
    r = cli("list")  # stdout is a pipe here, as in a log or `| grep`
    lines = [line for line in r.stdout.splitlines() if "integration suite" in line]
    assert len(lines) == 1 and long.strip() in lines[0]


def test_add_shows_the_scope_and_project_means_this_project(cli, project):
    r = cli("add", "Ruff is the formatter here", "--type", "preference", cwd=project)
    assert r.returncode == 0
    assert "scope: global (every project; --scope project for this one only)" in r.stderr
    r = cli("add", "The API listens on 8081", "--scope", "project", cwd=project)
    assert r.returncode == 0 and "scope: project:whisperclick" in r.stderr
    listed = json.loads(cli("list", "--scope", "project", "--json", cwd=project).stdout)
    assert [e["content"] for e in listed] == ["The API listens on 8081"]
    outside = project.parent  # no .git above it
    r = cli("add", "x", "--scope", "project", cwd=outside)
    assert r.returncode == 2 and "needs a project" in r.stderr


def test_reading_commands_refuse_a_db_in_a_missing_directory(tmp_path):
    missing = tmp_path / "no-such-dir" / "memory.db"
    for args in (["list"], ["show", "abcd"], ["stats"], ["export"], ["audit"], ["rules", "list"]):
        r = run_cli(*args, db=missing)
        assert r.returncode == 4, (args, r.stderr)
        assert "does not exist" in r.stderr and r.stderr.count("\n") == 1
    assert not missing.parent.exists()  # looking created nothing


def test_a_read_only_store_can_still_be_read(tmp_path):
    import shutil
    import subprocess

    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("needs root to mount a read-only file system")
    mnt = tmp_path / "ro"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        db = mnt / "memory.db"
        eid = run_cli("add", "Readable even when frozen", db=db).stdout.strip()
        assert subprocess.run(["mount", "-o", "remount,ro", str(mnt)]).returncode == 0
        r = run_cli("list", db=db)
        assert r.returncode == 0 and "Readable even when frozen" in r.stdout
        assert "read-only database" in r.stderr
        for args in (["show", eid], ["stats"], ["export"], ["audit"], ["rules", "list"]):
            r = run_cli(*args, db=db)
            assert r.returncode == 0, (args, r.stderr)
        r = run_cli("add", "cannot be written", db=db)
        assert r.returncode != 0 and r.stderr.count("\n") == 1
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_retired_config_keys_are_accepted_with_a_note(cli, claude_dir):
    cfg = claude_dir / "memory" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(
        json.dumps(
            {"embedding": {"provider": "local", "dimensions": 384}, "backup": {"frequency": "daily", "max_backups": 3}}
        )
    )
    r = cli("config", "--validate", "--json")
    assert r.returncode == 0, r.stderr
    assert "embedding.provider is no longer used" in r.stderr
    assert json.loads(r.stdout)["settings"]["backup"]["max_backups"] == 3


def test_audit_table_cuts_a_long_context_after_a_whole_word(cli, db_path):
    """A captured correction's words in `audit`: cut after a whole word and marked, never mid-word."""
    from helpers.hooks import payload, run_hook

    prompt = "no, never use pythonw.exe for the launcher script, always use python.exe instead please"
    run_hook("UserPromptSubmit", payload("UserPromptSubmit", prompt=prompt), db=db_path)
    out = cli("audit", "--action", "capture", env={"COLUMNS": "250"}).stdout
    line = next(ln for ln in out.splitlines() if " capture " in ln)
    cell = line[line.index("pythonw") - len("do not use ") :].rstrip()
    assert cell.endswith("…"), line
    words = cell[:-1].split()
    assert words and all(w in prompt.replace(",", " ").split() + ["do", "not"] for w in words), cell
