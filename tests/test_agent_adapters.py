"""Codex CLI and Gemini CLI calls through the real hook process: their payloads (as the pinned
binaries send them, see docs/agents.md) meet the same rules and store as Claude Code's, and
each agent gets its answer in its own format. Also `install --agent` / `uninstall --agent`."""

from __future__ import annotations

import json
import subprocess

from helpers.cli import run_cli
from helpers.hooks import hook_cmd, run_agent_hook
from helpers.store import add_rule

PATCH = (
    "*** Begin Patch\n*** Add File: notes.txt\n+harmless\n"
    "*** Update File: config/.env\n@@\n-TOKEN=old\n+TOKEN=new\n*** End Patch\n"
)


def agent_hook(db_path, agent: str, event: str, body: dict) -> dict | None:
    """Run the hook command `install --agent` registers, the payload on stdin; its JSON answer."""
    return run_agent_hook(db_path, agent, event, body)


def codex(event: str, **fields) -> dict:
    """A payload as Codex CLI 0.169.0 sends it."""
    base = {
        "session_id": "01a21493-codex",
        "transcript_path": "/home/u/.codex/sessions/rollout.jsonl",
        "cwd": "/home/u/work/whisperclick",
        "hook_event_name": event,
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
    }
    if event in ("PreToolUse", "PostToolUse"):
        base.update(turn_id="t1", tool_use_id="call_1")
    return {**base, **fields}


def gemini(event: str, **fields) -> dict:
    """A payload as Gemini CLI 0.61.0 sends it."""
    base = {
        "session_id": "aa1de2b7-gemini",
        "transcript_path": "/home/u/.gemini/tmp/whisperclick/chats/session.jsonl",
        "cwd": "/home/u/work/whisperclick",
        "hook_event_name": event,
        "timestamp": "2026-11-25T21:20:06.052Z",
    }
    return {**base, **fields}


def _audit(db_path, action: str = "hook") -> list[dict]:
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        return s.rows("SELECT * FROM memory_audit_log WHERE action = ? ORDER BY timestamp", (action,))


def test_a_codex_patch_is_denied_when_any_file_it_touches_meets_a_file_rule(db_path):
    add_rule(
        db_path, "Never edit .env files", pattern=r"\.env$", pattern_type="regex", action="block", fields=["file_path"]
    )
    out = agent_hook(
        db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="apply_patch", tool_input={"command": PATCH})
    )
    spec = out["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny" and "Never edit .env files" in spec["permissionDecisionReason"]
    harmless = PATCH.split("*** Update File")[0] + "*** End Patch\n"
    quiet = agent_hook(
        db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="apply_patch", tool_input={"command": harmless})
    )
    assert not (quiet or {}).get("hookSpecificOutput", {}).get("permissionDecision")
    checked = {r["context"] for r in _audit(db_path) if r["agent"] == "codex"}
    assert checked == {"Write", "Edit"}  # the added file as a Write, the updated one as an Edit


def test_a_codex_ask_rule_reaches_codex_as_a_warning_it_accepts(db_path):
    """Codex rejects a PreToolUse `ask` as an invalid answer; the rule's words still arrive."""
    add_rule(db_path, "Ask before pushing", pattern="git push", pattern_type="command", action="ask")
    out = agent_hook(
        db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="Bash", tool_input={"command": "git push"})
    )
    spec = out["hookSpecificOutput"]
    assert "permissionDecision" not in spec
    assert "Ask before pushing" in spec["additionalContext"] and "Ask before pushing" in out["systemMessage"]


def test_gemini_shell_calls_meet_bash_rules_and_get_geminis_deny_format(db_path):
    add_rule(
        db_path,
        "Never use pythonw.exe",
        pattern="pythonw.exe",
        pattern_type="command",
        action="block",
        alternative="use python.exe",
    )
    body = gemini("BeforeTool", tool_name="run_shell_command", tool_input={"command": "pythonw.exe src/main.py"})
    out = agent_hook(db_path, "gemini", "BeforeTool", body)
    assert out["decision"] == "deny" and "use python.exe" in out["reason"]
    assert "hookSpecificOutput" not in out
    look_alike = gemini("BeforeTool", tool_name="run_shell_command", tool_input={"command": "grep -rn pythonw.exe src"})
    assert "decision" not in (agent_hook(db_path, "gemini", "BeforeTool", look_alike) or {})
    rows = [r for r in _audit(db_path, "enforce_block")]
    assert [(r["agent"], r["context"], r["hook_event"]) for r in rows] == [("gemini", "Bash", "PreToolUse")]


def test_a_gemini_write_to_a_relative_path_meets_a_file_rule(db_path):
    add_rule(
        db_path,
        "Never write under config/",
        pattern=r"/whisperclick/config/",
        pattern_type="regex",
        action="block",
        fields=["file_path"],
    )
    body = gemini("BeforeTool", tool_name="write_file", tool_input={"file_path": "config/app.toml", "content": "x"})
    out = agent_hook(db_path, "gemini", "BeforeTool", body)
    assert out["decision"] == "deny" and "Never write under config/" in out["reason"]


def test_a_correction_typed_in_gemini_is_said_back_as_gemini_context(db_path, detector_speaks):
    body = gemini("BeforeAgent", prompt="No, use pnpm, not npm. Install the dependencies.")
    out = agent_hook(db_path, "gemini", "BeforeAgent", body)
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "BeforeAgent" and "use pnpm, not npm" in spec["additionalContext"]
    assert [r["agent"] for r in _audit(db_path)] == ["gemini"]


def test_an_event_memory_cli_does_not_handle_is_allowed_and_recorded(db_path):
    out = agent_hook(db_path, "gemini", "Notification", gemini("Notification", message="hi"))
    assert out is None
    errors = _audit(db_path, "hook_error")
    assert errors and errors[0]["agent"] == "gemini" and "Notification" in errors[0]["details"]


def test_install_for_an_agent_merges_backs_up_and_uninstall_removes_only_ours(tmp_path):
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    mine = {"matcher": "x", "hooks": [{"type": "command", "command": "echo mine"}]}
    settings.write_text(json.dumps({"theme": "dark", "hooks": {"BeforeTool": [mine]}}))
    dry = run_cli("install", "--agent", "gemini", "--dry-run")
    assert dry.returncode == 0 and "hook --agent gemini BeforeTool" in dry.stdout and "dry run" in dry.stdout
    assert json.loads(settings.read_text())["hooks"] == {"BeforeTool": [mine]}
    done = run_cli("install", "--agent", "gemini")
    assert done.returncode == 0 and "backed up" in done.stdout
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark" and data["hooks"]["BeforeTool"][0] == mine
    ours = data["hooks"]["BeforeTool"][1]["hooks"][0]
    assert ours["timeout"] == 5000 and ours["command"].endswith("hook --agent gemini BeforeTool")  # ms for Gemini
    assert set(data["hooks"]) == {
        "BeforeTool",
        "AfterTool",
        "BeforeAgent",
        "AfterAgent",
        "SessionStart",
        "SessionEnd",
        "PreCompress",
    }
    assert "already installed" in run_cli("install", "--agent", "gemini").stdout
    run_cli("uninstall", "--agent", "gemini")
    assert json.loads(settings.read_text()) == {"theme": "dark", "hooks": {"BeforeTool": [mine]}}


def test_install_for_codex_writes_codex_hooks_json_in_codex_home(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert run_cli("install", "--agent", "codex").returncode == 0
    data = json.loads((tmp_path / "codex-home" / "hooks.json").read_text())
    pre = data["hooks"]["PreToolUse"][0]
    assert pre["matcher"] == "^(Bash|apply_patch)$" and pre["hooks"][0]["timeout"] == 5  # seconds for Codex
    assert "SessionEnd" in data["hooks"] and "PostToolUseFailure" not in data["hooks"]


def test_an_unknown_agent_is_refused_in_one_line():
    r = run_cli("install", "--agent", "cursor")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "unknown agent 'cursor'" in r.stderr


def test_stats_say_which_agent_each_hook_call_and_block_came_from(db_path):
    add_rule(db_path, "Never use pythonw.exe", pattern="pythonw.exe", pattern_type="command", action="block")
    blocked = {"command": "pythonw.exe main.py"}
    agent_hook(db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="Bash", tool_input=blocked))
    agent_hook(db_path, "gemini", "BeforeTool", gemini("BeforeTool", tool_name="run_shell_command", tool_input=blocked))
    agent_hook(db_path, "gemini", "BeforeAgent", gemini("BeforeAgent", prompt="hello"))
    data = json.loads(run_cli("--json", "stats", db=db_path).stdout)["by_agent_last_7_days"]
    assert data["codex"] == {"hook_calls": 1, "blocks": 1, "warns": 0, "errors": 0}
    assert data["gemini"] == {"hook_calls": 2, "blocks": 1, "warns": 0, "errors": 0}
    assert "claude" not in data
    text = run_cli("stats", db=db_path).stdout
    assert "codex: 1 hook calls, 1 blocked" in text and "gemini: 2 hook calls, 1 blocked" in text


def test_doctor_shows_each_agents_registration_and_a_timed_real_hook_call(db_path):
    run_cli("install", "--agent", "gemini")
    checks = {c["name"]: c for c in json.loads(run_cli("--json", "doctor", db=db_path).stdout)["checks"]}
    gemini_check = checks["hooks (gemini) (user)"]
    assert gemini_check["status"] == "ok", gemini_check
    assert (
        "7 events registered" in gemini_check["detail"] and "a real BeforeTool call: median" in gemini_check["detail"]
    )
    assert "not installed" in checks["hooks (codex)"]["detail"]


def test_codex_session_end_is_handled_and_answers_nothing(db_path):
    body = {k: v for k, v in codex("SessionEnd", reason="other").items() if k not in ("model", "permission_mode")}
    assert agent_hook(db_path, "codex", "SessionEnd", body) is None
    assert [(r["agent"], r["hook_event"], r["result"]) for r in _audit(db_path)] == [("codex", "SessionEnd", "ok")]


def test_a_gemini_settings_file_with_comments_is_left_alone_with_a_way_forward(tmp_path):
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    text = '{\n  // my theme\n  "theme": "dark"\n}\n'
    settings.write_text(text)
    r = run_cli("install", "--agent", "gemini")
    assert r.returncode == 2 and "has comments" in r.stderr and "--dry-run" in r.stderr
    assert settings.read_text() == text
    assert list(settings.parent.iterdir()) == [settings]  # no backup, no temporary file


def test_a_rule_for_another_tool_makes_install_register_that_agents_name_for_it(db_path):
    add_rule(
        db_path,
        "Never read secrets",
        pattern=r"secrets\.txt$",
        pattern_type="regex",
        action="block",
        tools=["Read"],
        fields=["file_path"],
    )
    run_cli("install", "--agent", "gemini", db=db_path)
    settings = json.loads((db_path.parent / "home" / ".gemini" / "settings.json").read_text())
    assert "read_file" in settings["hooks"]["BeforeTool"][0]["matcher"]
    body = gemini("BeforeTool", tool_name="read_file", tool_input={"file_path": "/home/u/secrets.txt"})
    assert agent_hook(db_path, "gemini", "BeforeTool", body)["decision"] == "deny"


def test_the_audit_listing_names_the_agent_of_each_hook_call(db_path):
    agent_hook(db_path, "gemini", "BeforeAgent", gemini("BeforeAgent", prompt="hello"))
    agent_hook(db_path, "codex", "UserPromptSubmit", codex("UserPromptSubmit", prompt="hello", turn_id="t1"))
    lines = [ln.split() for ln in run_cli("audit", "--action", "hook", db=db_path).stdout.splitlines()[1:]]
    assert sorted((ln[3], ln[4]) for ln in lines) == [("codex", "UserPromptSubmit"), ("gemini", "UserPromptSubmit")]


def test_markers_in_geminis_last_answer_are_stored_as_after_claudes(db_path, tmp_path):
    project = tmp_path / "whisperclick"
    (project / ".git").mkdir(parents=True)  # an agent's marker is kept in the project it came from
    answer = "Done.\n[MEMORY:behavior:docker] Tagging needs the sha before the build step"
    body = gemini(
        "AfterAgent", prompt="tag the image", prompt_response=answer, stop_hook_active=False, cwd=str(project)
    )
    agent_hook(db_path, "gemini", "AfterAgent", body)
    listed = run_cli("--json", "list", db=db_path).stdout
    assert "Tagging needs the sha before the build step" in listed


def test_a_new_rule_for_a_tool_an_agents_hook_never_sees_is_warned_about_at_once(db_path):
    run_cli("install", "--agent", "gemini", db=db_path)
    r = run_cli("rules", "add", "Never read secrets", "--pattern", "secrets", "--tools", "Read", db=db_path)
    assert r.returncode == 0
    assert "rules for Read will not fire in gemini" in r.stderr and "install --agent gemini" in r.stderr
    run_cli("install", "--agent", "gemini", db=db_path)
    again = run_cli("rules", "add", "Never read keys", "--pattern", "keys", "--tools", "Read", db=db_path)
    assert "will not fire in gemini" not in again.stderr


def test_a_hook_called_for_an_unknown_agent_allows_and_is_recorded(db_path):
    proc = subprocess.run(
        [*hook_cmd(), "--db", str(db_path), "hook", "--agent", "cursor", "PreToolUse"],
        input=json.dumps(codex("PreToolUse", tool_name="Bash", tool_input={"command": "ls"})).encode(),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0 and not proc.stderr
    assert "permissionDecision" not in proc.stdout.decode()
    errors = _audit(db_path, "hook_error")
    assert errors and "unknown agent 'cursor'" in errors[0]["details"]


def test_a_correction_after_geminis_hook_context_is_judged_on_the_typed_words(db_path, detector_speaks):
    """Gemini CLI 0.61.0 puts the context earlier hooks added (memory-cli's own injection) before
    the typed words in BeforeAgent's ``prompt``: the correction is still told to its model."""
    injected = (
        "<hook_context>&lt;memory-cli-context&gt;\n## Operational Memory (1 memory, ~45 tokens)\n\n"
        "### general\n- [rule] Never use pythonw.exe (confidence: 0.8)\n&lt;/memory-cli-context&gt;</hook_context>\n\n"
    )
    out = agent_hook(
        db_path, "gemini", "BeforeAgent", gemini("BeforeAgent", prompt=injected + "No, use yarn, not npm.")
    )
    assert "Recorded correction: use yarn, not npm." in out["hookSpecificOutput"]["additionalContext"]
    stored = run_cli("--json", "review", "--list", db=db_path).stdout
    assert "pythonw" not in stored  # the injected text is not stored as the person's words


def test_a_codex_patch_with_indented_file_headers_meets_the_file_rule_of_the_file_it_writes(db_path):
    """Codex's own patch parser trims each header line, so `  *** Add File: .env` writes .env."""
    add_rule(
        db_path, "Never edit .env files", pattern=r"\.env$", pattern_type="regex", action="block", fields=["file_path"]
    )
    for header in ("  *** Add File: .env", "\t*** Update File: config/.env", " *** Delete File: .env  "):
        patch = f"*** Begin Patch\n{header}\n+TOKEN=x\n*** End Patch\n"
        out = agent_hook(
            db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="apply_patch", tool_input={"command": patch})
        )
        assert out["hookSpecificOutput"]["permissionDecision"] == "deny", header
    moved = "*** Begin Patch\n*** Update File: notes.txt\n   *** Move to: .env\n@@\n-a\n+b\n*** End Patch\n"
    out = agent_hook(
        db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="apply_patch", tool_input={"command": moved})
    )
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_shell_calls_given_as_argv_arrays_or_cmd_fields_meet_command_rules(db_path):
    """Codex's `shell` tool (`command` as an argv array), its `exec_command` (`cmd`), and a Bash
    call in either shape: each is read as the command line it runs, and the rule denies it."""
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    shapes = [
        ("codex", "shell", {"command": ["bash", "-lc", "git push --force origin main"], "workdir": "/w"}),
        ("codex", "exec_command", {"cmd": "git push --force", "workdir": "/w"}),
        ("codex", "local_shell", {"command": ["git", "push", "--force"]}),
        ("codex", "Bash", {"command": ["git", "push", "-f"]}),
        ("claude", "Bash", {"cmd": ["git", "push", "--force"]}),
    ]
    for agent, tool, ti in shapes:
        body = (codex if agent == "codex" else _claude)("PreToolUse", tool_name=tool, tool_input=ti)
        out = agent_hook(db_path, agent, "PreToolUse", body)
        assert out["hookSpecificOutput"]["permissionDecision"] == "deny", (tool, ti)
    quoted = {"command": ["echo", "git push --force"]}  # one argument, not a push
    out = agent_hook(db_path, "codex", "PreToolUse", codex("PreToolUse", tool_name="shell", tool_input=quoted))
    assert not (out or {}).get("hookSpecificOutput", {}).get("permissionDecision")


def test_a_shell_call_whose_input_holds_no_readable_command_is_said_not_allowed_silently(db_path):
    add_rule(db_path, "Never force-push", pattern="git push --force", pattern_type="command", action="block")
    body = codex("PreToolUse", tool_name="shell", tool_input={"script": {"lines": ["git push --force"]}})
    out = agent_hook(db_path, "codex", "PreToolUse", body)
    assert "could not check this shell call" in out["systemMessage"] and "script" in out["systemMessage"]
    readable = codex("PreToolUse", tool_name="Bash", tool_input={"command": "ls"})
    assert agent_hook(db_path, "codex", "PreToolUse", readable) is None


def _claude(event: str, **fields) -> dict:
    from helpers.hooks import payload

    return payload(event, **fields)
