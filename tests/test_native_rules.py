"""Native copies of the rules: what each agent's own format can hold, written where the agent
reads it, following every rule change, and removed byte for byte.

The formats are checked against the pinned Codex binary where it is installed (``codex
execpolicy check``); the end-to-end proof that each agent stops the call with every hook off is
in tests/e2e/test_e2e_native_rules.py.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers.cli import run_cli
from helpers.store import add_rule

REPO = Path(__file__).resolve().parents[1]
CODEX = REPO / ".e2e-agents" / "node_modules" / ".bin" / "codex"
AGENTS = ("claude", "codex", "gemini")


@pytest.fixture(autouse=True)
def _codex_home(monkeypatch, isolated_env):
    monkeypatch.delenv("CODEX_HOME", raising=False)


def _home() -> Path:
    return Path(os.environ["HOME"])


def native_path(agent: str) -> Path:
    return {
        "claude": _home() / ".claude" / "settings.json",
        "codex": _home() / ".codex" / "rules" / "memory-cli.rules",
        "gemini": _home() / ".gemini" / "policies" / "memory-cli.toml",
    }[agent]


def export(db, agent):
    r = run_cli("--json", "rules", "export", "--to", agent, db=db)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _ok(r):
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r


# (kind, create_rule kwargs, confirmed) -> exported natively?
KINDS = [
    ("command block", dict(pattern="git push --force", pattern_type="command", action="block"), True),
    ("command ask", dict(pattern="rm -rf /", pattern_type="command", action="ask"), True),
    ("command warn", dict(pattern="npm install", pattern_type="command", action="warn"), False),
    ("command suggest", dict(pattern="pip install", pattern_type="command", action="suggest"), False),
    ("regex on a command", dict(pattern=r"curl .*\| *sh", pattern_type="regex", action="block"), False),
    (
        "regex on written content",
        dict(pattern="AKIA[0-9A-Z]{16}", pattern_type="regex", action="block", tools=["Write"], fields=["content"]),
        False,
    ),
    ("intent", dict(pattern="delete the production database", pattern_type="intent", action="block"), False),
    (
        "command with a condition",
        dict(
            pattern="git commit",
            pattern_type="command",
            action="block",
            conditions=[{"field": "command", "operator": "regex_match", "pattern": "wip"}],
        ),
        False,
    ),
    (
        "command scoped to a project",
        dict(pattern="make deploy", pattern_type="command", action="block", scope="project:whisperclick"),
        False,
    ),
    (
        "command on other tools too",
        dict(pattern="docker system prune", pattern_type="command", action="block", tools=["Bash", "Write"]),
        False,
    ),
    (
        "unconfirmed command block",
        dict(
            pattern="git reset --hard",
            pattern_type="command",
            action="block",
            confirmed=False,
            provenance="promoted",
            source="promoted",
        ),
        False,
    ),
]


def test_each_format_exports_the_rule_kinds_a_prefix_states_and_lists_the_rest_as_hook_only(db_path):
    ids = {}
    for kind, kw, _ in KINDS:
        ids[kind] = add_rule(db_path, f"rule: {kind}", **kw)["id"]
    for agent in AGENTS:
        out = export(db_path, agent)
        native = {r["id"] for r in out["native"]}
        hook_only = {h["id"]: h["why"] for h in out["hook_only"]}
        for kind, _, exported in KINDS:
            rid = ids[kind]
            assert (rid in native) is exported, (agent, kind, out)
            assert (rid in hook_only) is (not exported), (agent, kind, out)
        assert "Bash(git push --force:*)" in out["text"] or agent != "claude"
        assert '["git", "push", "--force"]' in out["text"] or agent != "codex"
        assert 'commandPrefix = "git push --force"' in out["text"] or agent != "gemini"
        # nothing hook-only leaks into the native text
        assert "npm install" not in out["text"] and "git commit" not in out["text"] and "AKIA" not in out["text"]
    why = {h["id"]: h["why"] for h in export(db_path, "codex")["hook_only"]}
    assert "regex" in why[ids["regex on written content"]]
    assert "intent" in why[ids["intent"]]
    assert "unconfirmed" in why[ids["unconfirmed command block"]]
    assert "wider" in why[ids["command with a condition"]]


def test_decisions_per_format(db_path):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    add_rule(db_path, "Ask before wiping", pattern="rm -rf /", pattern_type="command", action="ask")
    claude = json.loads(export(db_path, "claude")["text"])
    # git documents -f as --force: that spelling is a prefix of its own
    assert claude == {
        "permissions": {"deny": ["Bash(git push --force:*)", "Bash(git push -f:*)"], "ask": ["Bash(rm -rf /:*)"]}
    }
    codex = export(db_path, "codex")["text"]
    assert 'decision = "forbidden"' in codex and 'decision = "prompt"' in codex
    assert 'justification = "Never force-push' in codex
    gemini = export(db_path, "gemini")["text"]
    assert 'decision = "deny"' in gemini and 'decision = "ask_user"' in gemini
    assert 'denyMessage = "Never force-push' in gemini and "priority = 999" in gemini


@pytest.mark.skipif(not CODEX.exists(), reason="the pinned Codex CLI is not installed (scripts/setup_agents.sh)")
def test_codex_execpolicy_check_forbids_the_exported_rule_and_not_its_look_alikes(db_path):
    add_rule(
        db_path,
        "Never force-push",
        pattern="git push --force",
        pattern_type="command",
        action="block",
        alternative="git push --force-with-lease",
    )
    _ok(run_cli("rules", "export", "--to", "codex", "--write", db=db_path))
    rules = native_path("codex")
    assert "match = [" in rules.read_text() and "not_match = [" in rules.read_text()

    def check(*cmd):
        p = subprocess.run(
            [str(CODEX), "execpolicy", "check", "--rules", str(rules), *cmd], capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0, p.stderr  # Codex loaded the file: its examples agreed
        return json.loads(p.stdout)

    for cmd in (["git", "push", "--force"], ["git", "push", "--force", "origin", "main"], ["git", "push", "-f"]):
        decided = check(*cmd)
        assert decided["decision"] == "forbidden", decided
        assert "Never force-push" in decided["matchedRules"][0]["prefixRuleMatch"]["justification"]
    for cmd in (["git", "push", "origin", "main"], ["git", "push", "--force-with-lease"]):
        assert check(*cmd) == {"matchedRules": []}


def _snapshot(paths):
    return {str(p): (p.read_bytes() if p.is_file() else ("dir" if p.is_dir() else None)) for p in paths}


def test_install_change_uninstall_returns_every_native_file_byte_for_byte(db_path, project):
    home = _home()
    # The person's own files, in formats memory-cli would not write itself.
    settings = home / ".claude" / "settings.json"
    settings.write_bytes(b'{\r\n    "model": "opus",\r\n    "permissions": {"deny": ["Read(./.env)"]}\r\n}')
    gemini_md = home / ".gemini" / "GEMINI.md"
    gemini_md.parent.mkdir()
    gemini_md.write_bytes(b"\xef\xbb\xbfmy gemini notes\r\nno final newline")
    watched = [
        settings,
        gemini_md,
        home / ".codex",
        home / ".codex" / "AGENTS.md",
        native_path("codex"),
        native_path("codex").parent,
        native_path("gemini"),
        native_path("gemini").parent,
    ]
    before = _snapshot(watched)
    _ok(run_cli("install", "--agent", "codex", "--no-mcp", db=db_path))
    _ok(run_cli("install", "--agent", "gemini", "--no-mcp", db=db_path))
    hooks_only = _snapshot(watched)
    first = add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    for agent in AGENTS:
        _ok(run_cli("rules", "export", "--to", agent, "--write", db=db_path))
    assert "Bash(git push --force:*)" in settings.read_text()
    assert "Read(./.env)" in settings.read_text()
    _ok(run_cli("pin", first["id"], db=db_path))
    assert "Never force-push" in (home / ".codex" / "AGENTS.md").read_text()
    assert "Never force-push" in gemini_md.read_text(encoding="utf-8-sig")

    # Changes follow: add, edit, disable, enable, delete.
    r = _ok(
        run_cli(
            "--json",
            "rules",
            "add",
            "Ask before wiping",
            "--pattern",
            "rm -rf /",
            "-T",
            "command",
            "-a",
            "ask",
            db=db_path,
        )
    )
    second = json.loads(r.stdout)["id"]
    for agent in ("codex", "gemini"):
        assert "rm" in native_path(agent).read_text()
    assert "Bash(rm -rf /:*)" in settings.read_text()
    _ok(run_cli("rules", "edit", second, "--pattern", "rm -rf /home", db=db_path))
    assert '"/home"' in native_path("codex").read_text() and "Bash(rm -rf /home:*)" in settings.read_text()
    _ok(run_cli("rules", "disable", second, db=db_path))
    assert "rm" not in native_path("gemini").read_text() and "rm -rf" not in settings.read_text()
    _ok(run_cli("rules", "enable", second, db=db_path))
    assert "rm -rf /home" in native_path("gemini").read_text()
    _ok(run_cli("rules", "delete", second, "--yes", db=db_path))
    assert "rm -rf" not in native_path("codex").read_text() and "rm -rf" not in settings.read_text()

    for agent in ("codex", "gemini"):
        _ok(run_cli("uninstall", "--agent", agent, db=db_path))
    _ok(run_cli("uninstall", db=db_path))
    after = _snapshot(watched)
    # The native files and pinned blocks are gone exactly; what remains differs only by the
    # hook files themselves (hooks.json, settings.json of Gemini), which are not watched here;
    # ~/.codex, which install made for its hooks.json, goes with it once empty.
    assert after[str(settings)] == before[str(settings)]
    assert after[str(gemini_md)] == before[str(gemini_md)]
    for p in watched[2:]:
        assert after[str(p)] in (hooks_only[str(p)], before[str(p)]), p
    assert not native_path("codex").exists() and not native_path("codex").parent.exists()
    assert not native_path("gemini").parent.exists()
    assert not (home / ".codex" / "AGENTS.md").exists()


def test_an_unconfirmed_rule_goes_native_only_once_confirmed(db_path):
    rule = add_rule(
        db_path,
        "Do not reset hard",
        pattern="git reset --hard",
        pattern_type="command",
        action="warn",
        confirmed=False,
        provenance="promoted",
        source="promoted",
    )
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("rules", "export", "--to", "gemini", "--write", db=db_path))
    assert "git reset" not in native_path("gemini").read_text()
    _ok(run_cli("rules", "confirm", rule["id"], db=db_path))
    assert 'commandPrefix = "git reset --hard"' in native_path("gemini").read_text()


def test_a_hand_edit_is_drift_doctor_says_how_to_restore_and_a_rule_change_leaves_it(db_path):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    for agent in AGENTS:
        _ok(run_cli("rules", "export", "--to", agent, "--write", db=db_path))
    doctor = json.loads(run_cli("--json", "doctor", db=db_path).stdout)
    native = {
        c["name"]: c
        for c in (doctor if isinstance(doctor, list) else doctor["checks"])
        if c["name"].startswith("native")
    }
    assert {c["status"] for c in native.values()} == {"ok"}, native

    codex = native_path("codex")
    codex.write_text(codex.read_text().replace("forbidden", "allow"))
    settings = native_path("claude")
    data = json.loads(settings.read_text())
    data["permissions"]["deny"] = []
    settings.write_text(json.dumps(data))
    doctor = json.loads(run_cli("--json", "doctor", db=db_path).stdout)
    native = {
        c["name"]: c
        for c in (doctor if isinstance(doctor, list) else doctor["checks"])
        if c["name"].startswith("native")
    }
    assert native["native rules (codex)"]["status"] == "warn"
    assert "memory-cli rules export --to codex --write" in native["native rules (codex)"]["detail"]
    assert native["native rules (claude)"]["status"] == "warn"
    assert "removed by hand" in native["native rules (claude)"]["detail"]
    assert native["native rules (gemini)"]["status"] == "ok"

    r = _ok(
        run_cli("rules", "add", "Ask before wiping", "--pattern", "rm -rf /", "-T", "command", "-a", "ask", db=db_path)
    )
    assert "native codex rules not updated" in r.stderr and "edited by hand" in r.stderr
    assert "allow" in codex.read_text()  # the person's edit is not overwritten silently
    assert "rm -rf /" in native_path("gemini").read_text()

    _ok(run_cli("rules", "export", "--to", "codex", "--write", db=db_path))
    _ok(run_cli("rules", "export", "--to", "claude", "--write", db=db_path))
    assert "forbidden" in codex.read_text() and "rm" in codex.read_text()
    assert "Bash(git push --force:*)" in settings.read_text()


def test_a_symlinked_rule_file_is_refused_and_left_alone(db_path, tmp_path):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text("precious\n")
    target = native_path("gemini")
    target.parent.mkdir(parents=True)
    target.symlink_to(elsewhere)
    r = run_cli("rules", "export", "--to", "gemini", "--write", db=db_path)
    assert r.returncode != 0 and "symlink" in r.stderr and "Traceback" not in r.stderr
    assert elsewhere.read_text() == "precious\n" and target.is_symlink()


def test_a_rule_file_memory_cli_did_not_write_is_never_touched(db_path):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    theirs = native_path("codex")
    theirs.parent.mkdir(parents=True)
    theirs.write_text('prefix_rule(pattern = ["ls"], decision = "allow")\n')
    r = run_cli("rules", "export", "--to", "codex", "--write", db=db_path)
    assert r.returncode != 0 and "not written by memory-cli" in r.stderr
    assert theirs.read_text() == 'prefix_rule(pattern = ["ls"], decision = "allow")\n'


def test_agents_md_symlinked_outside_is_refused_like_claude_md(db_path, tmp_path):
    _ok(run_cli("install", "--agent", "codex", "--no-mcp", db=db_path))
    outside = tmp_path / "outside.md"
    outside.write_text("precious\n")
    agents_md = _home() / ".codex" / "AGENTS.md"
    agents_md.symlink_to(outside)
    rule = add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    r = run_cli("--json", "pin", rule["id"], db=db_path)
    assert r.returncode == 0, r.stderr
    reports = json.loads(r.stdout)["sync"]
    codex = [a for rep in reports for a in rep.get("agents", []) if a["agent"] == "codex"]
    assert codex and codex[0]["action"] == "conflict" and "outside" in codex[0]["reason"]
    assert outside.read_text() == "precious\n"


def test_unknown_agent_is_one_line_and_exit_2(db_path):
    r = run_cli("rules", "export", "--to", "cursor", db=db_path)
    assert r.returncode == 2 and "unknown agent" in r.stderr and "Traceback" not in r.stderr


def test_a_rule_added_as_a_memory_and_one_stored_by_any_other_path_reach_the_native_copy(db_path):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("rules", "export", "--to", "codex", "--write", db=db_path))
    _ok(
        run_cli(
            "add",
            "--type",
            "rule",
            "Never reset hard",
            "--pattern",
            "git reset --hard",
            "--pattern-type",
            "command",
            "--action",
            "block",
            db=db_path,
        )
    )
    assert '["git", "reset", "--hard"]' in native_path("codex").read_text()
    # A rule stored by any other path (a team pull in the background) goes through the rules
    # area's one door, which rewrites the copy as soon as the change is committed.
    add_rule(db_path, "Never clean", pattern="git clean -fdx", pattern_type="command", action="block")
    assert '["git", "clean", "-fdx"]' in native_path("codex").read_text()
    from memory_cli.maintenance.tasks import native_task

    assert native_task(db_path, {}) == "native rule copies up to date"


def test_a_settings_file_memory_cli_created_goes_again_and_rule_changes_leave_no_backups(db_path):
    claude_dir = _home() / ".claude"
    before = sorted(p.name for p in claude_dir.iterdir())
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("rules", "export", "--to", "claude", "--write", db=db_path))
    assert json.loads(native_path("claude").read_text()) == {
        "permissions": {"deny": ["Bash(git push --force:*)", "Bash(git push -f:*)"]}
    }
    _ok(
        run_cli(
            "rules",
            "add",
            "Never reset hard",
            "--pattern",
            "git reset --hard",
            "-T",
            "command",
            "-a",
            "block",
            db=db_path,
        )
    )
    assert "Bash(git reset --hard:*)" in native_path("claude").read_text()
    assert not [p for p in claude_dir.iterdir() if ".bak-" in p.name]
    _ok(run_cli("uninstall", db=db_path))
    assert sorted(p.name for p in claude_dir.iterdir()) == before


@pytest.mark.skipif(not CODEX.exists(), reason="the pinned Codex CLI is not installed (scripts/setup_agents.sh)")
def test_codex_examples_include_calls_the_hook_stopped_and_codex_accepts_them(db_path, hook):
    from helpers.hooks import payload

    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    for command in (
        "git push --force origin feature-x",
        "git push origin main --force",
        "git status; git push --force",
    ):
        body = payload("PreToolUse", tool_name="Bash", tool_input={"command": command, "description": "d"})
        assert hook("PreToolUse", body).decision == "deny"
    _ok(run_cli("rules", "export", "--to", "codex", "--write", db=db_path))
    text = native_path("codex").read_text()
    # The call that begins with the prefix is an example; the one with the flag last, or with
    # shell syntax, cannot be (Codex would refuse the file).
    assert '["git", "push", "--force", "origin", "feature-x"]' in text
    assert '"main", "--force"' not in text and "status" not in text
    p = subprocess.run(
        [str(CODEX), "execpolicy", "check", "--rules", str(native_path("codex")), "git", "push", "--force"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and json.loads(p.stdout)["decision"] == "forbidden", p.stderr


def test_a_call_the_hook_stops_later_is_no_drift(db_path, hook):
    from helpers.hooks import payload

    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("rules", "export", "--to", "codex", "--write", db=db_path))
    body = payload(
        "PreToolUse", tool_name="Bash", tool_input={"command": "git push --force origin x", "description": "d"}
    )
    assert hook("PreToolUse", body).decision == "deny"
    doctor = json.loads(run_cli("--json", "doctor", db=db_path).stdout)
    checks = doctor if isinstance(doctor, list) else doctor["checks"]
    assert [c["status"] for c in checks if c["name"] == "native rules (codex)"] == ["ok"], checks


def test_uninstall_without_a_store_creates_none(db_path):
    for agent in ("codex", "gemini", "claude"):
        _ok(run_cli("uninstall", "--agent", agent, db=db_path))
    assert not db_path.exists()


def test_a_copy_is_followed_while_no_rule_is_native_and_stops_after_uninstall(db_path):
    rule = add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    _ok(run_cli("rules", "export", "--to", "gemini", "--write", db=db_path))
    _ok(run_cli("rules", "delete", rule["id"], "--yes", db=db_path))
    assert not native_path("gemini").exists()
    _ok(
        run_cli(
            "rules", "add", "No hard reset", "--pattern", "git reset --hard", "-T", "command", "-a", "block", db=db_path
        )
    )
    assert "git reset --hard" in native_path("gemini").read_text()
    _ok(run_cli("uninstall", "--agent", "gemini", db=db_path))
    assert not native_path("gemini").exists()
    _ok(run_cli("rules", "add", "No clean", "--pattern", "git clean -fdx", "-T", "command", "-a", "block", db=db_path))
    assert not native_path("gemini").exists() and not native_path("gemini").parent.exists()


def test_install_native_keeps_the_confirmed_rules_native_for_that_agent_and_uninstall_takes_them_back(db_path):
    """``install --native`` asks for the agent's native copy with its hooks: a confirmed block
    rule is there at once, a rule added later follows, and without the flag the agent's rule
    formats are left alone."""
    settings = native_path("claude")
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"model": "opus"}')
    original = settings.read_bytes()
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    r = _ok(run_cli("install", "--no-mcp", "--no-model", "--native", db=db_path))
    assert "1 confirmed rule(s) in its own rule format" in r.stderr
    assert "Bash(git push --force:*)" in json.loads(settings.read_text())["permissions"]["deny"]
    _ok(run_cli("install", "--agent", "codex", "--no-mcp", "--native", db=db_path))
    assert '"--force"' in native_path("codex").read_text()
    later = json.loads(
        _ok(
            run_cli(
                "--json", "rules", "add", "Ask first", "--pattern", "rm -rf /", "-T", "command", "-a", "ask", db=db_path
            )
        ).stdout
    )
    assert "Bash(rm -rf /:*)" in json.loads(settings.read_text())["permissions"]["ask"], later
    assert "rm" in native_path("codex").read_text()
    _ok(run_cli("install", "--agent", "gemini", "--no-mcp", db=db_path))
    assert not native_path("gemini").exists()
    _ok(run_cli("uninstall", "--agent", "codex", db=db_path))
    assert not native_path("codex").exists()
    _ok(run_cli("uninstall", db=db_path))
    assert json.loads(settings.read_bytes()) == json.loads(original)  # hooks and permissions gone
