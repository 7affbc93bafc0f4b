"""memory-cli's own state is protected from the agent: each way an agent's tool call could switch
the gate off is asked of the person (denied in Codex and Gemini, see self_protect), through the installed
hook command with Claude Code's (Codex's, Gemini's) payloads; reading stays free; the caches
the hooks read cannot lie about the store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers.cli import run_cli
from helpers.hooks import hook_cmd, payload, run_hook
from helpers.store import add_rule

from memory_cli import audit
from memory_cli.store.db import Store

PROJECT = "/home/u/proj"


@pytest.fixture
def guarded(db_path, claude_dir):
    """A store with the person's block rule on `git push --force`, and Claude Code settings."""
    rule = add_rule(
        db_path,
        "Never force-push",
        pattern="git push --force",
        pattern_type="command",
        action="block",
        confirmed=True,
    )
    (claude_dir / "settings.json").write_text('{"hooks": {}}')
    return rule


def bash(command: str, cwd: str = PROJECT) -> dict:
    return payload("PreToolUse", cwd=cwd, tool_input={"command": command, "description": "run"})


def write(path: str, content: str = "{}", tool: str = "Write") -> dict:
    ti = {"file_path": str(path), "content": content}
    if tool == "Edit":
        ti = {"file_path": str(path), "old_string": "fasthook", "new_string": "x"}
    return payload("PreToolUse", tool_name=tool, tool_input=ti)


def rows(db_path, action):
    with Store.open(db_path) as s:
        return audit.query(s, action=action, limit=100)


def _reproductions(db, claude):
    settings = claude / "settings.json"
    return {
        "rules disable": "memory-cli rules disable 0123abcd",
        "rules delete through the venv's path": "/opt/venv/bin/memory-cli rules delete 0123abcd",
        "rules edit": "memory-cli rules edit 0123abcd --action warn",
        "uninstall": "memory-cli uninstall",
        "purge": "memory-cli purge --scope global --yes",
        "python -m": "python3 -m memory_cli rules disable 0123abcd",
        "the hook launcher": f"python3 -I -S /opt/memory_cli/fasthook.py rules disable 0123abcd --db {db}",
        "import replacing": "memory-cli import evil.jsonl --on-conflict replace",
        "sqlite3 UPDATE": f'sqlite3 {db} "UPDATE enforcement_rules SET active=0"',
        "sqlite3 load_extension": f"sqlite3 {db} \"SELECT load_extension('./evil.so')\"",
        "sqlite3 writefile": f"sqlite3 {db} \"SELECT writefile('{claude}/settings.json', '{{}}')\"",
        "python3 -c DELETE": (
            f"python3 -c \"import sqlite3; c=sqlite3.connect('{db}'); "
            "c.execute('DELETE FROM enforcement_rules'); c.commit()\""
        ),
        "rm -f store": f"rm -f {db}",
        "rm of the wal": f"rm {db}-wal",
        "chmod 000 store": f"chmod 000 {db}",
        "mv store away": f"mv {db} /tmp/gone.db",
        "sed -i settings": f"sed -i '/fasthook/d' {settings}",
        "echo {} > settings": f"echo '{{}}' > {settings}",
        "settings.local env": """echo '{"env":{"MEMORY_CLI_DB":""}}' > .claude/settings.local.json""",
        "through bash -c": f"bash -c 'rm -f {db}'",
        "cd then rm": f"cd {db.parent} && rm -f {db.name}",
        "rule cache rewrite": f"cp /tmp/forged {db}.rules-cache",
        "spool folder": f"rm -rf {db}.spool",
        "regex cache folder": f"rm -rf {claude}/memory/cache",
        "tee into the toml": "echo '[rules]' | tee .claude/memory-cli.toml",
        "find -delete": f"find {claude} -name '*.json' -delete",
        "rm -rf of home": "rm -rf ~",
        "rm -rf of $HOME": 'rm -rf "$HOME"',
        "a link to write through later": f"ln -s {claude}/settings.json innocent.json",
        "codex native rules removed": "rm -f ~/.codex/rules/memory-cli.rules",
        "gemini native policy emptied": "echo '' > ~/.gemini/policies/memory-cli.toml",
        "gemini allow policy beside it": "cp /tmp/allow.toml ~/.gemini/policies/zz-allow.toml",
    }


def test_each_way_to_switch_the_gate_off_from_bash_is_asked(hook, db_path, claude_dir, guarded):
    asked = {}
    for name, command in _reproductions(db_path, claude_dir).items():
        r = hook("PreToolUse", bash(command))
        asked[name] = r.decision
        if r.decision == "ask":
            reason = r.json["hookSpecificOutput"]["permissionDecisionReason"]
            assert reason.startswith("memory-cli protects its own state: ") and "\n" not in reason, reason
    assert {k: v for k, v in asked.items() if v != "ask"} == {}
    # each one audited as memory-cli's own question, not as the person's action
    logged = rows(db_path, "protect_ask")
    assert len(logged) == len(asked)
    assert all(row["result"] == "asked" and row["details"]["reason"] for row in logged)
    # the person's rule is still there and still denies
    assert hook("PreToolUse", bash("git push --force origin main")).decision == "deny"


def test_writes_and_edits_of_settings_the_toml_and_the_spool_are_asked(hook, db_path, claude_dir, guarded):
    targets = [
        (claude_dir / "settings.json", "Write"),
        (claude_dir / "settings.json", "Edit"),
        ("/home/u/proj/.claude/settings.local.json", "Write"),
        ("/home/u/proj/.claude/settings.json", "Edit"),
        ("/home/u/proj/.claude/memory-cli.toml", "Write"),
        ("/home/u/proj/.claude/memory-cli.toml", "Edit"),
        (f"{db_path}.spool/0001.json", "Write"),
        (f"{db_path}.rules-cache", "Write"),
        (claude_dir / "memory" / "config.json", "Write"),
        (Path.home() / ".codex" / "rules" / "memory-cli.rules", "Write"),
        (Path.home() / ".gemini" / "policies" / "memory-cli.toml", "Edit"),
        (Path.home() / ".gemini" / "policies" / "allow-everything.toml", "Write"),
    ]
    for path, tool in targets:
        r = hook("PreToolUse", write(path, tool=tool))
        assert r.decision == "ask", (path, tool, r)
        named = r.json["hookSpecificOutput"]["permissionDecisionReason"].rsplit("(", 1)[1].split(")")[0]
        assert str(path).startswith(named), (path, named)  # the file, or the protected folder holding it


def test_reading_stays_free(hook, db_path, claude_dir, guarded):
    settings = claude_dir / "settings.json"
    for command in (
        "memory-cli list",
        "memory-cli query 'deploy steps'",
        "memory-cli review --list",
        "memory-cli rules list",
        "memory-cli rules show 0123abcd",
        "memory-cli doctor",
        "memory-cli stats",
        "memory-cli rules disable --help",
        f"sqlite3 {db_path} .tables",
        f'sqlite3 {db_path} "SELECT id, action FROM enforcement_rules"',
        f"sqlite3 -readonly {db_path} .dump",
        'sqlite3 other.db "DELETE FROM t; DROP TABLE t"',
        f"cat {settings}",
        f"grep -n fasthook {settings}",
        f"jq .hooks {settings} > /tmp/hooks.json",
        f"cp {settings} /tmp/settings.backup.json",
        f"find {claude_dir} -name '*.json' -exec cat {{}} \\;",
        f"ls -la {db_path.parent}",
        "rm -rf build dist && echo done > out.txt",
        "python3 -c \"import json; print(json.load(open('package.json')))\"",
    ):
        r = hook("PreToolUse", bash(command))
        assert r.decision is None, (command, r)
    for path in ("/home/u/proj/src/app.py", "/home/u/proj/settings.json", "/home/u/proj/docs/memory.db.md"):
        assert hook("PreToolUse", write(path)).decision is None, path
    assert rows(db_path, "protect_ask") == []


def _agent_hook(agent: str, event: str, body: dict, db_path) -> dict:
    cmd = hook_cmd() + ["--db", str(db_path), "hook", "--agent", agent, event]
    proc = subprocess.run(cmd, input=json.dumps(body).encode(), capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def test_codex_cannot_ask_so_it_is_denied(db_path, claude_dir, guarded):
    body = bash(f'sqlite3 {db_path} "UPDATE enforcement_rules SET active=0"')
    out = _agent_hook("codex", "PreToolUse", body, db_path)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "protects its own state" in out["hookSpecificOutput"]["permissionDecisionReason"]
    patch = "*** Begin Patch\n*** Add File: .claude/settings.local.json\n+{}\n*** End Patch\n"
    body = payload("PreToolUse", tool_name="apply_patch", tool_input={"command": patch})
    out = _agent_hook("codex", "PreToolUse", body, db_path)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert [r["result"] for r in rows(db_path, "protect_deny")] == ["denied", "denied"]


def test_gemini_is_denied_as_a_headless_gemini_cannot_answer_an_ask(db_path, claude_dir, guarded):
    body = dict(bash("memory-cli rules disable 0123abcd"), hook_event_name="BeforeTool", tool_name="run_shell_command")
    out = _agent_hook("gemini", "BeforeTool", body, db_path)
    assert out["decision"] == "deny" and "memory-cli rules disable" in out["reason"]
    body = dict(write(claude_dir / "settings.json"), hook_event_name="BeforeTool", tool_name="write_file")
    out = _agent_hook("gemini", "BeforeTool", body, db_path)
    assert out["decision"] == "deny"


def test_the_switch_is_the_persons_config_not_the_environment(hook, db_path, claude_dir, guarded):
    command = f"rm -f {db_path}"
    for var in ("MEMORY_CLI_PROTECTION", "MEMORY_CLI_PROTECTION_ENABLED"):
        assert hook("PreToolUse", bash(command), env={var: "0"}).decision == "ask"
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text('{"protection": {"enabled": false}}')
    assert hook("PreToolUse", bash(command)).decision is None


# -- the CLI run from an agent's shell ------------------------------------------------------------
@pytest.mark.parametrize("marker", ["CLAUDECODE", "CODEX_THREAD_ID", "GEMINI_CLI"])
def test_weakening_commands_refuse_in_an_agents_shell(db_path, guarded, marker):
    r = run_cli("rules", "disable", guarded["id"], db=db_path, env={marker: "1"})
    assert r.returncode == 7
    assert "run it in your own terminal" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    with Store.open(db_path) as s:
        assert s.value("SELECT active FROM enforcement_rules WHERE id = ?", (guarded["id"],)) == 1
    # reading is free in the same shell
    assert run_cli("rules", "list", db=db_path, env={marker: "1"}).returncode == 0
    # and the person's own terminal runs it
    assert run_cli("rules", "disable", guarded["id"], db=db_path).returncode == 0


def test_purge_and_uninstall_refuse_in_an_agents_shell(db_path, guarded):
    r = run_cli("purge", "--scope", "global", "--yes", db=db_path, env={"CLAUDECODE": "1"}, process=True)
    assert r.returncode == 7 and "memory-cli purge" in r.stderr
    r = run_cli("uninstall", db=db_path, env={"CLAUDECODE": "1"})
    assert r.returncode == 7
    with Store.open(db_path) as s:
        assert s.value("SELECT count(*) FROM enforcement_rules") == 1


# -- caches cannot lie ----------------------------------------------------------------------------
def _forge_rule_cache(db_path):
    """What an attacker with the store's own label writes: a rule cache without any rule."""
    from memory_cli.rules import ruleset

    with Store.open(db_path) as s:
        key = ruleset._read_key(s)
    forged = ruleset._assemble(key, [], [])
    (db_path.parent / (db_path.name + ".rules-cache")).write_bytes(forged.dump())


def test_a_swapped_rule_cache_is_rebuilt_not_trusted(hook, db_path, guarded):
    assert hook("PreToolUse", bash("git push --force")).decision == "deny"  # writes the sealed cache
    _forge_rule_cache(db_path)
    assert hook("PreToolUse", bash("git push --force")).decision == "deny"


def test_doctor_reports_a_rule_cache_that_does_not_match_the_store(hook, db_path, guarded):
    hook("PreToolUse", bash("ls"))
    _forge_rule_cache(db_path)
    checks = json.loads(run_cli("doctor", "--json", db=db_path).stdout)["checks"]
    [cache] = [c for c in checks if c["name"] == "rules: cache"]
    assert cache["status"] == "warn" and "does not match" in cache["detail"]
    checks = json.loads(run_cli("doctor", "--json", db=db_path).stdout)["checks"]
    assert not [c for c in checks if c["name"] == "rules: cache"]  # doctor's load rebuilt it


def _forge_regex_cache(path):
    """Every kept pattern replaced by engine code that never matches (valid for the engine)."""
    import marshal
    from array import array

    from memory_cli.files import regex_cache

    never = regex_cache._generate(r"(?!)", 0)
    data = marshal.loads(path.read_bytes())
    for k, entry in data["patterns"].items():
        flags, _code, groups, groupindex, indexgroup = entry
        code = array("I", array("I", never[1]).tolist()).tobytes()
        data["patterns"][k] = (flags, code, groups, groupindex, indexgroup)
    path.write_bytes(marshal.dumps(data))


def test_a_swapped_regex_cache_is_compiled_afresh(db_path, claude_dir, detector_speaks):
    from pathlib import Path

    from memory_cli.files import regex_cache

    run_cli("install", "--no-mcp", "--no-model", db=db_path)
    path = Path(regex_cache.cache_file())
    assert path.exists()
    _forge_regex_cache(path)
    r = run_hook("UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm not npm"), db=db_path)
    assert r.returncode == 0 and "Recorded correction: use pnpm, not npm" in r.context, r
    checks = json.loads(run_cli("doctor", "--json", db=db_path).stdout)["checks"]
    [line] = [c for c in checks if c["name"] == "capture: compiled patterns"]
    assert line["status"] == "ok"  # the hook wrote a sealed file again


def test_doctor_reports_a_regex_cache_that_does_not_match_the_store(db_path, claude_dir):
    from pathlib import Path

    from memory_cli.files import regex_cache

    run_cli("install", "--no-mcp", "--no-model", db=db_path)
    _forge_regex_cache(Path(regex_cache.cache_file()))
    checks = json.loads(run_cli("doctor", "--json", db=db_path).stdout)["checks"]
    [line] = [c for c in checks if c["name"] == "capture: compiled patterns (seal)"]
    assert line["status"] == "warn" and "does not match" in line["detail"]


# -- no wrong blocks ------------------------------------------------------------------------------
REAL = Path(__file__).parent / "fixtures" / "real"

# The real calls of the held-out sessions that do change memory-cli's state: each one writes,
# moves or restores a Claude Code settings file, where memory-cli's hooks live. Asking the person
# there is the protection working; nothing else of the 8,000 calls may be asked.
REALLY_TOUCHING = [
    ("4thehalibit-3.jsonl", "Bash", "runs cp onto Claude Code settings"),
    ("Damon-Salvetore-1.jsonl", "Edit", "changes Claude Code settings"),
    ("oliyoung-1.jsonl", "Bash", "runs git restore on Claude Code local settings"),
    ("oliyoung-1.jsonl", "Bash", "runs mv on Claude Code local settings"),
    ("patleeman-2.jsonl", "Edit", "changes Claude Code settings"),
    ("patleeman-2.jsonl", "Edit", "changes Claude Code settings"),
    ("patleeman-2.jsonl", "Edit", "changes Claude Code settings"),
    ("patleeman-2.jsonl", "Edit", "changes Claude Code settings"),
]


def _real_calls(*folders: str):
    for f in [f for folder in folders for f in sorted((REAL / folder).glob("*.jsonl"))]:
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            content = (record.get("message") or {}).get("content") if isinstance(record.get("message"), dict) else None
            for block in content if isinstance(content, list) else []:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("name") in ("Bash", "Write", "Edit", "MultiEdit", "NotebookEdit")
                ):
                    yield f.name, record.get("cwd") or PROJECT, block["name"], block.get("input") or {}


def test_no_real_tool_call_is_asked(db_path, claude_dir, guarded):
    """Every Bash/Write/Edit call of the real transcripts the rules were tuned on, through the
    PreToolUse hook runner with the protection on and the person's rule set: none is asked (none
    touches memory-cli's state)."""
    import io

    from memory_cli.hooks.runner import main as run_hook_in_process

    calls = list(_real_calls("transcripts"))
    assert len(calls) >= 500
    asked = []
    for name, cwd, tool, tool_input in calls:
        body = payload("PreToolUse", cwd=cwd, tool_name=tool, tool_input=tool_input)
        out = io.StringIO()
        run_hook_in_process("PreToolUse", str(db_path), stdin=io.StringIO(json.dumps(body)), stdout=out)
        answer = json.loads(out.getvalue()) if out.getvalue().strip() else {}
        reason = (answer.get("hookSpecificOutput") or {}).get("permissionDecisionReason") or ""
        if "protects its own state" in reason:
            asked.append((name, tool, str(tool_input.get("command") or tool_input.get("file_path"))[:120], reason))
    assert asked == [], "\n".join(map(str, asked))
    assert rows(db_path, "protect_ask") == []


def test_held_out_real_calls_are_asked_only_where_they_change_memory_clis_state(db_path, claude_dir, guarded):
    """The sessions of the people held out (never read while writing the protection): each of
    their 7,000-odd calls through the check the PreToolUse hook makes (the whole runner takes about
    six minutes over their large writes). Asked: exactly the calls that change a settings file; a
    settings file read through `python3 -m json.tool` is not among them."""
    from memory_cli.rules import self_protect

    calls = list(_real_calls("heldout", "heldout2"))
    assert len(calls) >= 7000
    asked = []
    for name, cwd, tool, tool_input in calls:
        reason = self_protect.check(tool, tool_input, str(db_path), cwd)
        if reason is not None:
            asked.append((name, tool, reason))
    assert len(asked) == len(REALLY_TOUCHING), "\n".join(map(str, asked))
    for (name, tool, reason), (want_name, want_tool, want_what) in zip(asked, REALLY_TOUCHING):
        assert (name, tool) == (want_name, want_tool) and f" {want_what} " in reason, (name, tool, reason)


def test_archiving_a_note_is_the_agents_ordinary_work_archiving_a_rule_is_not(hook, db_path, guarded):
    """The plugin's /forget archives a memory from Claude's shell: a note goes, a rule does not."""
    from memory_cli import entries

    with Store.open(db_path) as s:
        note = entries.add(s, "The staging VPN drops every 8 hours", "fact")
    assert hook("PreToolUse", bash(f"memory-cli archive {note['id']}")).decision is None
    assert hook("PreToolUse", bash(f"memory-cli archive {guarded['id'][:8]}")).decision == "ask"
    r = run_cli("archive", guarded["id"], db=db_path, env={"CLAUDECODE": "1"})
    assert r.returncode == 7, r.stderr
    r = run_cli("archive", note["id"], db=db_path, env={"CLAUDECODE": "1"})
    assert r.returncode == 0, r.stderr


def test_a_script_written_to_switch_the_gate_off_later_is_asked(hook, db_path, guarded):
    script = write("/home/u/proj/cleanup.sh", f"#!/bin/sh\nrm -f {db_path}\n")
    assert hook("PreToolUse", script).decision == "ask"
    program = write(
        "/home/u/proj/fix.py",
        f"import sqlite3\nsqlite3.connect('{db_path}').execute('DELETE FROM enforcement_rules')\n",
    )
    assert hook("PreToolUse", program).decision == "ask"
    notes = write("/home/u/proj/NOTES.md", f"the store is {db_path}; never rm -f it\n")
    assert hook("PreToolUse", notes).decision is None


def test_the_person_at_a_terminal_can_confirm_in_an_agents_shell(db_path, guarded):
    """The refusal gives way only to a `yes` typed at an interactive terminal."""
    import os
    import pty
    import sys
    import time
    from pathlib import Path

    console = Path(sys.executable).parent / "memory-cli"
    env = dict(os.environ, CLAUDECODE="1")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command at a terminal
        os.execve(str(console), [str(console), "--db", str(db_path), "rules", "disable", guarded["id"]], env)
    seen = b""
    deadline = time.monotonic() + 60
    while b"Type 'yes'" not in seen and time.monotonic() < deadline:
        seen += os.read(fd, 1024)
    os.write(fd, b"yes\n")
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen
    assert b"Claude Code" in seen
    with Store.open(db_path) as s:
        assert s.value("SELECT active FROM enforcement_rules WHERE id = ?", (guarded["id"],)) == 0
