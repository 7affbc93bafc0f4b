"""Enforcement and verification through the real `memory-cli hook` process, with payloads
shaped like Claude Code's (shared/reference/claude-code-hooks.md)."""

from __future__ import annotations

import json

import pytest
from helpers.hooks import payload
from helpers.store import add_rule

from memory_cli import audit
from memory_cli.rules import api
from memory_cli.rules.safe_regex import fork_available
from memory_cli.store.db import Store


def audit_rows(db_path, action):
    s = Store.open(db_path)
    try:
        return audit.query(s, action=action, limit=100)
    finally:
        s.close()


def pre(command, **kw):
    return payload(
        "PreToolUse",
        tool_input={"command": command, "description": "run", "timeout": 120000, "run_in_background": False},
        **kw,
    )


def test_block_denies_with_the_rule_and_the_alternative(hook, db_path):
    rule = add_rule(
        db_path,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="block",
        severity="high",
        alternative="use python.exe",
    )
    r = hook("PreToolUse", pre("cd app && pythonw.exe src/main.py"))
    assert r.returncode == 0 and r.decision == "deny"
    reason = r.json["hookSpecificOutput"]["permissionDecisionReason"]
    assert "Never use pythonw.exe" in reason and "use python.exe" in reason and rule["id"][:8] in reason
    assert "blocked" in r.system_message
    [row] = audit_rows(db_path, "enforce_block")
    assert row["entry_id"] == rule["id"] and row["hook_event"] == "PreToolUse"


def test_the_word_as_an_argument_is_not_blocked(hook, db_path):
    add_rule(db_path, "Never use pythonw.exe", pattern="pythonw.exe", pattern_type="command", action="block")
    for command in ("grep pythonw.exe notes.md", "pgrep pythonw.exe", 'git commit -m "drop pythonw.exe"'):
        r = hook("PreToolUse", pre(command))
        assert r.returncode == 0 and r.decision is None and r.json is None, command
    assert audit_rows(db_path, "enforce_block") == []


def test_warn_allows_and_tells_claude_and_the_person(hook, db_path):
    add_rule(db_path, "prefer pnpm", pattern="npm", pattern_type="command", action="warn", alternative="pnpm install")
    r = hook("PreToolUse", pre("npm install"))
    assert r.decision is None
    assert "prefer pnpm" in r.context and "pnpm install" in r.context
    assert "warned" in r.system_message
    assert len(audit_rows(db_path, "enforce_warn")) == 1


def test_suggest_adds_the_alternative_as_context_only(hook, db_path):
    add_rule(
        db_path,
        "uv is faster",
        pattern="pip install",
        pattern_type="command",
        action="suggest",
        alternative="uv pip install",
    )
    r = hook("PreToolUse", pre("pip install requests"))
    assert r.decision is None and "uv pip install" in r.context and not r.system_message


def test_ask_hands_the_decision_to_the_person(hook, db_path):
    add_rule(db_path, "confirm deploys", pattern="kubectl apply", pattern_type="command", action="ask")
    r = hook("PreToolUse", pre("kubectl apply -f prod.yaml"))
    assert r.decision == "ask"
    assert "confirm deploys" in r.json["hookSpecificOutput"]["permissionDecisionReason"]


def test_write_rules_see_content_and_path(hook, db_path):
    add_rule(
        db_path,
        "no console.log in src",
        pattern=r"\bconsole\.log\b",
        pattern_type="regex",
        action="block",
        tools=["Write", "Edit"],
        conditions=[{"field": "file_path", "operator": "regex_match", "pattern": "/src/"}],
    )
    write = payload(
        "PreToolUse",
        tool_name="Write",
        tool_input={"file_path": "/home/u/proj/src/app.js", "content": "console.log(1)\n"},
    )
    assert hook("PreToolUse", write).decision == "deny"
    edit = payload(
        "PreToolUse",
        tool_name="Edit",
        tool_input={"file_path": "/home/u/proj/src/app.js", "old_string": "a", "new_string": "console.log(a)"},
    )
    assert hook("PreToolUse", edit).decision == "deny"
    elsewhere = payload(
        "PreToolUse",
        tool_name="Write",
        tool_input={"file_path": "/home/u/proj/tools/x.js", "content": "console.log(1)"},
    )
    assert hook("PreToolUse", elsewhere).decision is None


def test_project_scope_applies_only_in_that_project(hook, db_path, project):
    add_rule(
        db_path, "no npm here", pattern="npm", pattern_type="command", action="block", scope="project:whisperclick"
    )
    inside = pre("npm i", cwd=str(project / "src"))
    outside = pre("npm i", cwd="/tmp")
    assert hook("PreToolUse", inside).decision == "deny"
    assert hook("PreToolUse", outside).decision is None


def test_post_tool_use_counts_violations_feeds_them_back_and_escalates(hook, db_path):
    rule = add_rule(
        db_path,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="block",
        severity="medium",
    )
    written = payload(
        "PostToolUse",
        tool_name="Write",
        tool_input={
            "file_path": "/home/u/proj/run.py",
            "content": 'import subprocess\nsubprocess.run(["pythonw.exe", "app.py"])\n',
        },
        tool_response={"filePath": "/home/u/proj/run.py", "success": True},
    )
    for n in range(1, 5):
        r = hook("PostToolUse", written)
        assert r.returncode == 0
        assert r.json["decision"] == "block" and "Never use pythonw.exe" in r.json["reason"]
        assert f"violation {n}" in r.system_message
    assert "severity raised to high" in r.system_message
    s = Store.open(db_path)
    try:
        stored = api.get_rule(s, rule["id"])
    finally:
        s.close()
    assert stored["violation_count"] == 4 and stored["severity"] == "high"
    fails = audit_rows(db_path, "verify_fail")
    assert len(fails) == 4 and fails[0]["details"]["violation_count"] == 4


def test_post_tool_use_ignores_docs_and_passes_clean_calls(hook, db_path):
    add_rule(db_path, "Never use pythonw.exe", pattern="pythonw.exe", pattern_type="command", action="block")
    doc = payload(
        "PostToolUse",
        tool_name="Write",
        tool_input={"file_path": "/p/README.md", "content": "Never use pythonw.exe.\n"},
        tool_response={"success": True},
    )
    r = hook("PostToolUse", doc)
    assert r.returncode == 0 and r.json is None
    ok = payload(
        "PostToolUse",
        tool_input={"command": "python.exe app.py"},
        tool_response={"stdout": "pythonw.exe is not running", "stderr": ""},
    )
    assert hook("PostToolUse", ok).json is None


def test_output_is_checked_only_when_a_rule_names_it(hook, db_path):
    add_rule(
        db_path,
        "no leaked keys in output",
        pattern=r"AKIA[0-9A-Z]{16}",
        pattern_type="regex",
        action="warn",
        fields=["stdout", "stderr"],
        tools=["Bash"],
    )
    leak = payload(
        "PostToolUse", tool_input={"command": "env"}, tool_response={"stdout": "AWS=AKIAABCDEFGHIJKLMNOP", "stderr": ""}
    )
    r = hook("PostToolUse", leak)
    assert "no leaked keys in output" in r.context and "decision" not in r.json  # a warn rule warns
    row = audit_rows(db_path, "verify_fail")[0]
    assert "AKIAABCDEFGHIJKLMNOP" not in json.dumps(row)  # secrets are redacted in the audit log


def test_warn_then_run_is_a_violation_but_suggest_is_not(hook, db_path):
    add_rule(db_path, "prefer pnpm", pattern="npm", pattern_type="command", action="warn")
    add_rule(db_path, "try bun", pattern="node", pattern_type="command", action="suggest")
    ran = payload(
        "PostToolUse", tool_input={"command": "npm i && node x.js"}, tool_response={"stdout": "", "stderr": ""}
    )
    r = hook("PostToolUse", ran)
    assert "prefer pnpm" in r.context and "try bun" not in r.context
    assert len(audit_rows(db_path, "verify_fail")) == 1


@pytest.mark.skipif(not fork_available(), reason="needs os.fork")
def test_catastrophic_regex_cannot_stall_the_hook_and_its_block_rule_is_not_passed_over(hook, db_path, tmp_path):
    add_rule(db_path, "evil", pattern=r"(a+)+$", pattern_type="regex", action="block")
    r = hook("PreToolUse", pre("echo " + "a" * 60 + "!"))
    assert r.returncode == 0 and r.decision == "deny"
    assert "could not be finished" in r.json["hookSpecificOutput"]["permissionDecisionReason"]
    [row] = audit_rows(db_path, "enforce_overrun")
    assert row["result"] == "denied" and row["details"]["unchecked_rules"]


def test_a_10mb_write_is_decided_within_the_hook(hook, db_path):
    add_rule(db_path, "no pythonw", pattern=r"pythonw\.exe", pattern_type="regex", action="block", tools=["Write"])
    content = ("x = 1\n" * 1_700_000) + "subprocess.run(['PYTHONW.EXE'])\n"
    big = payload("PreToolUse", tool_name="Write", tool_input={"file_path": "/home/u/proj/big.py", "content": content})
    r = hook("PreToolUse", big)
    assert r.returncode == 0 and r.decision == "deny"


def test_enforcement_can_be_switched_off(hook, db_path, claude_dir):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"enforcement": {"enabled": False}}))
    assert hook("PreToolUse", pre("npm i")).decision is None


def test_rule_added_between_calls_is_enforced_at_once(hook, db_path):
    add_rule(db_path, "no yarn", pattern="yarn", pattern_type="command", action="block")
    assert hook("PreToolUse", pre("npm i")).decision is None  # builds and caches the rule set
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    assert hook("PreToolUse", pre("npm i")).decision == "deny"


def test_broken_cache_or_odd_payloads_fail_open(hook, db_path):
    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    hook("PreToolUse", pre("ls"))
    cache = str(db_path) + ".rules-cache"
    with open(cache, "wb") as f:
        f.write(b"not marshal")
    assert hook("PreToolUse", pre("npm i")).decision == "deny"  # rebuilt, still enforced
    odd = payload("PreToolUse", tool_name="Bash", tool_input={"command": 42})
    r = hook("PreToolUse", odd)
    assert r.returncode == 0 and r.decision is None


def _needs_fine_times(path: str) -> None:
    """A filesystem keeping whole seconds never uses a file's identity (every read is hashed)."""
    import os

    if not os.stat(path).st_ctime_ns % 1_000_000_000:
        pytest.skip("this filesystem keeps whole-second change times")


def test_a_cache_rewritten_in_place_with_its_times_put_back_is_not_trusted(hook, db_path):
    """A reader trusts the cache by the file identity recorded when memory-cli wrote it, without
    hashing it; a rewrite in place, same size, with its access and modification times put back,
    still shows a new change time: the gate rebuilds the rules from the store and blocks."""
    import os

    from memory_cli.store import kvstate
    from memory_cli.store.db import Store

    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    assert hook("PreToolUse", pre("ls")).decision is None  # builds the cache, records its identity
    cache = str(db_path) + ".rules-cache"
    _needs_fine_times(cache)
    with Store.open(str(db_path)) as s:
        assert (kvstate.raw(s, "seal-stat:rules-cache") or "").startswith(kvstate.raw(s, "seal:rules-cache") + "|")
    assert hook("PreToolUse", pre("npm i")).decision == "deny"  # trusted as it is
    before = os.stat(cache)
    data = open(cache, "rb").read()
    assert b"npm" in data
    with open(cache, "r+b") as f:  # same inode, same size: the rule now names another command
        f.write(data.replace(b"npm", b"xyz"))
    os.utime(cache, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(cache)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert hook("PreToolUse", pre("npm i")).decision == "deny"


def test_a_cache_without_a_recorded_identity_is_hashed_once_then_known(hook, db_path):
    """A cache written by a version that recorded no identity (or copied back from a backup):
    the next call checks its bytes, still enforces, and records the identity for the calls after."""
    import os

    from memory_cli.store import kvstate
    from memory_cli.store.db import Store

    add_rule(db_path, "no npm", pattern="npm", pattern_type="command", action="block")
    assert hook("PreToolUse", pre("ls")).decision is None
    with Store.open(str(db_path)) as s, s.transaction():
        s.execute("DELETE FROM kv WHERE key = 'seal-stat:rules-cache'")
    assert hook("PreToolUse", pre("npm i")).decision == "deny"
    _needs_fine_times(str(db_path) + ".rules-cache")
    st = os.stat(str(db_path) + ".rules-cache")
    with Store.open(str(db_path)) as s:
        recorded = kvstate.raw(s, "seal-stat:rules-cache") or ""
        seal = kvstate.raw(s, "seal:rules-cache")
    assert recorded == f"{seal}|{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}", recorded


def _run_in_process(event, body, db_path, monkeypatch, extra_handler):
    """The real runner, in-process, with this module's handler added to the event (the lead
    registers rules.hook:stop / :user_prompt_submit in hooks/registry.py)."""
    import io

    from memory_cli.hooks import registry, runner

    monkeypatch.setitem(registry.HANDLERS, event, list(registry.HANDLERS.get(event, [])) + [extra_handler])
    out = io.StringIO()
    assert runner.main(event, str(db_path), stdin=io.StringIO(json.dumps(body)), stdout=out) == 0
    return json.loads(out.getvalue()) if out.getvalue() else {}


def test_imported_stop_rule_keeps_the_turn_going_once(db_path, monkeypatch):
    add_rule(
        db_path,
        "tests before stopping",
        pattern=r"\A",
        pattern_type="regex",
        action="block",
        fields=["last_assistant_message"],
        hook_events=["Stop"],
        message="Run the tests before finishing.",
        conditions=[{"field": "last_assistant_message", "operator": "not_contains", "pattern": "pytest"}],
    )
    handler = "memory_cli.rules.hook:stop"
    done = payload("Stop", last_assistant_message="All done.")
    out = _run_in_process("Stop", done, db_path, monkeypatch, handler)
    assert out["decision"] == "block" and "Run the tests" in out["reason"]
    again = payload("Stop", last_assistant_message="All done.", stop_hook_active=True)
    assert "decision" not in _run_in_process("Stop", again, db_path, monkeypatch, handler)
    tested = payload("Stop", last_assistant_message="pytest: 12 passed")
    assert "decision" not in _run_in_process("Stop", tested, db_path, monkeypatch, handler)


def test_imported_prompt_rule_adds_context(db_path, monkeypatch):
    add_rule(
        db_path,
        "deploys need a ticket",
        pattern=r"\bdeploy\b",
        pattern_type="regex",
        action="warn",
        fields=["prompt"],
        hook_events=["UserPromptSubmit"],
        message="Deploys need a change ticket.",
    )
    out = _run_in_process(
        "UserPromptSubmit",
        payload("UserPromptSubmit", prompt="please deploy it"),
        db_path,
        monkeypatch,
        "memory_cli.rules.hook:user_prompt_submit",
    )
    assert "change ticket" in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    "command, denied",
    [
        ("pip install requests", True),
        ("pip3 install requests", True),
        ("pip3.11 install requests", True),
        ("/usr/bin/pip3 install requests", True),
        ("python -m pip install requests", True),
        ("python3 -u -m pip install requests", True),
        ("pip3 list", False),
        ("pipx install black", False),
        ("python tools/pip.py install", False),
        ("echo pip3 install requests", False),
    ],
)
def test_a_rule_on_pip_holds_for_every_way_of_running_pip(hook, db_path, command, denied):
    add_rule(db_path, "Use uv, not pip", pattern="pip install", pattern_type="command", action="block")
    r = hook("PreToolUse", payload("PreToolUse", tool_input={"command": command}))
    assert (r.decision == "deny") is denied, r
