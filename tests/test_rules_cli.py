"""`memory-cli rules ...`, `enforce`, `import-rules hookify` and `add --type rule`, run as a
person runs them (the real console script)."""

from __future__ import annotations

import json
import os
import subprocess

from helpers.cli import BIN_DIR
from helpers.hooks import payload


def test_seed_smoke_test_verbatim(claude_dir):
    """Seed 002's two lines, verbatim, through bash, against the default database."""
    env = dict(os.environ, PATH=f"{BIN_DIR}{os.pathsep}{os.environ.get('PATH', '')}")
    script = (
        'memory-cli add --type rule --content "Never use pythonw.exe" --scope global '
        "--confidence 1.0\n"
        'memory-cli enforce --tool Bash --input "pythonw.exe src/main.py" | grep -q "blocked"\n'
    )
    r = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert (claude_dir / "memory" / "memory.db").exists()


def test_enforce_human_lines(cli):
    cli("rules", "add", "Never use pythonw.exe", "--alternative", "use python.exe")
    cli("rules", "add", "--pattern", "npm", "--pattern-type", "command", "--action", "warn", "prefer pnpm")
    cli(
        "rules",
        "add",
        "--pattern",
        "pip install",
        "--pattern-type",
        "command",
        "--action",
        "suggest",
        "--alternative",
        "uv pip install",
        "uv is faster",
    )
    blocked = cli("enforce", "--tool", "Bash", "--input", "pythonw.exe src/main.py").stdout
    assert blocked.startswith("blocked:") and "Never use pythonw.exe" in blocked
    assert "instead: use python.exe" in blocked
    assert cli("enforce", "--tool", "Bash", "--input", "npm test").stdout.startswith("warned:")
    assert cli("enforce", "--tool", "Bash", "--input", "pip install x").stdout.startswith("suggested:")
    assert cli("enforce", "--tool", "Bash", "--input", "grep pythonw.exe notes").stdout.startswith("allowed:")


def test_enforce_json_shape(cli):
    cli("add", "--type", "rule", "--content", "use python.exe instead of pythonw.exe")
    r = cli("enforce", "--tool", "Bash", "--input", "pythonw.exe x", "--json")
    data = json.loads(r.stdout)
    assert data["decision"] == "block" and isinstance(data["elapsed_ms"], (int, float))
    [rule] = data["rules"]
    assert set(rule) >= {"id", "pattern", "action", "severity", "message", "alternative"}
    assert rule["alternative"] == "use python.exe"
    allowed = json.loads(cli("enforce", "--tool", "Bash", "--input", "ls", "--json").stdout)
    assert allowed["decision"] == "allow" and allowed["rules"] == []


def test_enforce_input_json_and_write_tool(cli):
    cli(
        "rules",
        "add",
        "no env files",
        "--pattern",
        r"(^|/)\.env$",
        "--pattern-type",
        "regex",
        "--action",
        "block",
        "--tools",
        "Write,Edit",
        "--fields",
        "file_path",
    )
    ti = json.dumps({"file_path": "/p/.env", "content": "A=1"})
    assert json.loads(cli("enforce", "--tool", "Write", "--input-json", ti, "--json").stdout)["decision"] == "block"
    assert cli("enforce", "--tool", "Write", "--input", "A=1", "--file", "/p/app.py").stdout.startswith("allowed")


def test_invalid_regex_is_refused_at_add_with_the_error(cli):
    r = cli("rules", "add", "bad", "--pattern", "a(", "--pattern-type", "regex", "--action", "block")
    assert r.returncode == 2
    assert "missing ), unterminated subpattern at position 1" in r.stderr
    assert json.loads(cli("rules", "list", "--json").stdout) == []
    r = cli("add", "--type", "rule", "--content", "bad one", "--pattern", "(x", "--pattern-type", "regex")
    assert r.returncode == 2 and "missing )" in r.stderr
    assert json.loads(cli("list", "--json").stdout) == []  # the entry was rolled back too


def test_add_rule_without_anything_concrete_is_a_reminder(cli):
    r = cli("add", "--type", "rule", "--content", "be more careful")
    assert r.returncode == 0 and "not enforced" in r.stderr
    assert json.loads(cli("rules", "list", "--json").stdout) == []
    r = cli("rules", "add", "be more careful")
    assert r.returncode == 2 and "--pattern" in r.stderr


def test_rules_lifecycle(cli):
    rid = cli(
        "rules", "add", "--pattern", "npm", "--pattern-type", "command", "--action", "block", "no npm"
    ).stdout.strip()
    listed = json.loads(cli("rules", "list", "--json").stdout)
    assert [r["id"] for r in listed] == [rid]
    shown = json.loads(cli("rules", "show", rid[:8], "--json").stdout)
    assert shown["pattern"] == "npm" and shown["history"]
    assert "disabled" in cli("rules", "disable", rid[:8]).stdout
    assert cli("enforce", "--tool", "Bash", "--input", "npm i").stdout.startswith("allowed")
    cli("rules", "enable", rid[:8])
    edited = json.loads(cli("rules", "edit", rid[:8], "--action", "warn", "--alternative", "pnpm", "--json").stdout)
    assert edited["action"] == "warn" and edited["alternative"] == "pnpm"
    assert cli("enforce", "--tool", "Bash", "--input", "npm i").stdout.startswith("warned")
    r = cli("rules", "delete", rid[:8])
    assert r.returncode == 2 and "--yes" in r.stderr  # no confirmation without a terminal
    assert cli("rules", "delete", rid[:8], "--yes").returncode == 0
    assert json.loads(cli("rules", "list", "--json").stdout) == []
    assert cli("rules", "show", rid[:8]).returncode == 3


def test_confirm_promotes_a_captured_rule(cli, db_path):
    from memory_cli.rules import api
    from memory_cli.store.db import Store

    s = Store.open(db_path)
    rule = api.create_rule(
        s,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="warn",
        provenance="promoted",
        confirmed=False,
        source="promoted",
    )
    s.close()
    assert cli("enforce", "--tool", "Bash", "--input", "pythonw.exe").stdout.startswith("warned")
    pending = json.loads(cli("rules", "list", "--unconfirmed", "--json").stdout)
    assert [r["id"] for r in pending] == [rule["id"]]
    cli("rules", "confirm", rule["id"][:8])
    assert cli("enforce", "--tool", "Bash", "--input", "pythonw.exe").stdout.startswith("blocked")


def test_rules_test_tries_patterns_without_storing(cli):
    yes = json.loads(
        cli("rules", "test", "--pattern", "git push --force", "--input", "git push origin +main", "--json").stdout
    )
    assert yes["matches"] is True
    no = cli("rules", "test", "--pattern", "npm", "--input", "pnpm install").stdout
    assert no.strip() == "no match"
    assert json.loads(cli("rules", "list", "--json").stdout) == []


def test_rules_test_without_id_checks_every_stored_rule(cli):
    """The README's first commands, as written: `rules test --input` alone asks what the gate
    would do with every stored rule."""
    cli("add", "Never run pythonw.exe; use python.exe", "--type", "rule", "--action", "block")
    r = cli("rules", "test", "--input", "pythonw.exe app.py")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("blocked:") and "use python.exe" in r.stdout
    other = cli("rules", "test", "--input", "grep pythonw.exe notes.txt")
    assert other.stdout.startswith("allowed:") and "(1 rule checked," in other.stdout
    both = cli("rules", "test", "x", "--pattern", "npm", "--input", "npm i")
    assert both.returncode == 2 and "not both" in both.stderr and "neither" in both.stderr
    assert cli("audit", "--json").stdout.count('"dry_run"') == 0  # rules test stores nothing


def test_dry_runs_are_not_blocks(cli, db_path):
    """`enforce` is a dry run: its row in the audit log says so, and neither `stats` nor the
    dashboard's chart counts it as a block; 'checked' counts the stored rule it considered."""
    from memory_cli import stats
    from memory_cli.store.db import Store

    cli("add", "Never run pythonw.exe; use python.exe", "--type", "rule", "--action", "block")
    assert cli("enforce", "--tool", "Bash", "--input", "pythonw.exe app.py").stdout.startswith("blocked:")
    assert "(1 rule checked," in cli("enforce", "--tool", "Bash", "--input", "ls").stdout
    [row] = json.loads(cli("audit", "--action", "dry_run", "--json").stdout)
    assert row["result"] == "block" and row["context"] == "cli Bash"
    assert json.loads(cli("audit", "--action", "enforce_block", "--json").stdout) == []
    out = cli("stats").stdout
    assert "last 7 days: added 1\n" in out and "block" not in out.split("last 7 days")[1].split("\n")[0]
    data = json.loads(cli("stats", "--json").stdout)
    assert "dry_run" not in data["audit_last_7_days"]
    with Store.open(db_path) as s:
        assert sum(stats.enforcement_per_day(s)["blocks"]) == 0


def test_import_hookify_keeps_meaning_and_is_idempotent(cli, tmp_path, hook):
    claude = tmp_path / "proj" / ".claude"
    claude.mkdir(parents=True)
    (claude / "hookify.rm.local.md").write_text(
        "---\nname: block-dangerous-rm\nenabled: true\nevent: bash\npattern: rm\\s+-rf\n"
        "action: block\n---\n\nDangerous rm command detected!\n"
    )
    (claude / "hookify.env.local.md").write_text(
        "---\nname: warn-env-keys\nenabled: true\nevent: file\nconditions:\n"
        "  - field: file_path\n    operator: regex_match\n    pattern: \\.env$\n"
        "  - field: new_text\n    operator: contains\n    pattern: KEY\n---\n\nSensitive file!\n"
    )
    (claude / "hookify.off.local.md").write_text(
        "---\nname: disabled-one\nenabled: false\nevent: bash\npattern: sudo\n---\nno sudo\n"
    )
    (claude / "hookify.bad.local.md").write_text("---\nname: bad\nevent: bash\npattern: (\n---\nx\n")
    r = cli("import-rules", "hookify", str(tmp_path / "proj"))
    assert r.returncode == 0 and "imported 3 new" in r.stdout
    assert "skipped" in r.stderr and "missing )" in r.stderr
    again = cli("import-rules", "hookify", str(tmp_path / "proj"))
    assert "0 new, 0 updated, 3 unchanged" in again.stdout
    rules = json.loads(cli("rules", "list", "--all", "--json").stdout)
    assert {r["name"] for r in rules} == {"block-dangerous-rm", "warn-env-keys", "disabled-one"}
    assert all(r["provenance"] == "imported" and r["confirmed"] for r in rules)

    deny = hook("PreToolUse", payload("PreToolUse", tool_input={"command": "rm -rf build"}))
    assert deny.decision == "deny" and "Dangerous rm" in deny.json["hookSpecificOutput"]["permissionDecisionReason"]
    env_key = payload("PreToolUse", tool_name="Write", tool_input={"file_path": "/p/.env", "content": "API_KEY=1"})
    assert "Sensitive file" in hook("PreToolUse", env_key).context
    env_other = payload("PreToolUse", tool_name="Write", tool_input={"file_path": "/p/.env", "content": "api_key=1"})
    assert hook("PreToolUse", env_other).json is None  # `contains` is case-sensitive, as in hookify
    assert hook("PreToolUse", payload("PreToolUse", tool_input={"command": "sudo ls"})).json is None

    (claude / "hookify.rm.local.md").write_text(
        "---\nname: block-dangerous-rm\nenabled: true\nevent: bash\npattern: rm\\s+-rf\n"
        "action: warn\n---\n\nDangerous rm command detected!\n"
    )
    updated = cli("import-rules", "hookify", str(claude))
    assert "1 updated" in updated.stdout
    assert hook("PreToolUse", payload("PreToolUse", tool_input={"command": "rm -rf x"})).decision is None


def test_import_hookify_without_rule_files_is_an_error(cli, tmp_path):
    r = cli("import-rules", "hookify", str(tmp_path))
    assert r.returncode == 2 and "no hookify rule files" in r.stderr


def test_rules_replay_without_a_rule_says_how_to_name_one(cli):
    """A newcomer's bare `rules replay`: one line that says what to give, with an example."""
    r = cli("rules", "replay")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "rules list" in r.stderr and "--pattern" in r.stderr, r.stderr
    assert "not both" not in r.stderr
    both = cli("rules", "replay", "abcd1234", "--pattern", "git push --force")
    assert both.returncode == 2 and "not both" in both.stderr
