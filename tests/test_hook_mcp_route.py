"""The two routes to the per-call hooks give the same answer on the whole rule corpus.

The command route is the real hook process (the command `install` registers) with the payload
on stdin. The mcp_tool route is the real MCP server (`memory-cli mcp`), its ``hook`` tool called
over stdio with the arguments Claude Code makes from the entry `install` registers: each
``${field}`` replaced as the pinned Claude Code does (an object becomes its JSON text, a missing
field an empty string). Each route gets its own copy of the same store, rules included (the
same ids), and both see the calls in the same order, so counts and per-session budgets move in
step; the full hook JSON must be equal, call by call.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys

from helpers.hooks import payload, run_hook
from helpers.store import add_rule
from test_rules_shellparse import ONLY_MENTIONS_IT, RUNS_IT

from memory_cli import hook_routes
from memory_cli.install import hooks_object
from memory_cli.store.db import Store

RULES = [
    dict(content="Never use pythonw.exe", pattern="pythonw.exe", pattern_type="command", action="block",
         alternative="use python.exe"),
    dict(content="Use uv, not pip", pattern="pip install", pattern_type="command", action="block"),
    dict(content="prefer pnpm over npm", pattern="npm", pattern_type="command", action="warn"),
    dict(content="no global npm installs", pattern="npm install -g", pattern_type="command", action="ask"),
    dict(content="suggest ripgrep", pattern="grep", pattern_type="command", action="suggest", alternative="rg"),
    dict(content="never edit .env files", pattern=r"(?:^|/)\.env$", pattern_type="regex", action="block",
         tools=["Write", "Edit"], fields=["file_path"]),
    dict(content="no console.log in src", pattern=r"\bconsole\.log\b", pattern_type="regex", action="block",
         tools=["Write"], fields=["content"],
         conditions=[{"field": "file_path", "operator": "regex_match", "pattern": r"(^|/)src/"}]),
    dict(content="no secrets in output", pattern="BEGIN RSA PRIVATE KEY", pattern_type="regex", action="warn",
         tools=["Bash"], fields=["stdout"]),
]  # fmt: skip


def _pre(command: str) -> dict:
    return payload(
        "PreToolUse",
        tool_input={"command": command, "description": "run", "timeout": 120000, "run_in_background": False},
    )


def _post(command: str, stdout: str = "") -> dict:
    return payload(
        "PostToolUse",
        tool_input={"command": command, "description": "run"},
        tool_response={"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
        duration_ms=412,
    )


def _write(path: str, content: str = "KEY=1\n") -> dict:
    return payload("PreToolUse", tool_name="Write", tool_input={"file_path": path, "content": content})


def corpus() -> list[tuple[str, dict]]:
    """Every rule case the suite has for commands (the shell-parse corpus), before and after the
    call, the file-path cases, output checks, a failure and a refused call."""
    cases: list[tuple[str, dict]] = []
    commands = RUNS_IT + ONLY_MENTIONS_IT + [
        "pip install requests", "python3 -u -m pip install requests", "pip3 list", "echo pip3 install requests",
        "npm install -g typescript", "npm test", "grep -r TODO src", "ls -la",
    ]  # fmt: skip
    for command in commands:
        cases.append(("PreToolUse", _pre(command)))
    for command in commands[::3]:
        cases.append(("PostToolUse", _post(command)))
    cases.append(("PostToolUse", _post("cat key.pem", stdout="-----BEGIN RSA PRIVATE KEY-----\nMII...")))
    for path in (r"c:\Users\me\proj\.env", "/home/u/proj/.env", r"c:\Users\me\proj\.env.example"):
        cases.append(("PreToolUse", _write(path)))
    cases.append(("PreToolUse", _write(r"C:\proj\src\app.js", "console.log(1)")))
    cases.append(("PreToolUse", _write(r"C:\proj\tools\x.js", "console.log(1)")))
    cases.append(("PreToolUse", payload("PreToolUse", tool_name="Edit",
                                        tool_input={"file_path": "/p/.env", "old_string": "a", "new_string": "b"})))  # fmt: skip
    cases.append(("PostToolUseFailure", payload("PostToolUseFailure", error="Exit code 1\npythonw.exe: not found")))
    cases.append(("PermissionDenied", payload("PermissionDenied")))
    cases.append(("PreToolUse", payload("PreToolUse", tool_input={"command": ["pythonw.exe", "main.py"]})))
    return cases


def interpolate(template, hook_input: dict):
    """Claude Code 2.1.328's interpolation of an mcp_tool entry's ``input``: ``${a.b}`` in a
    string is the value at that path, an object or array as its JSON text, a missing or null
    value as an empty string; lists and objects are walked."""

    def at(path: str):
        node = hook_input
        for key in path.split("."):
            if not isinstance(node, dict):
                return None
            node = node.get(key)
        return node

    def text(value) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (dict, list)):
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return str(value)

    if isinstance(template, str):
        return re.sub(r"\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}", lambda m: text(at(m.group(1))), template)
    if isinstance(template, list):
        return [interpolate(v, hook_input) for v in template]
    if isinstance(template, dict):
        return {k: interpolate(v, hook_input) for k, v in template.items()}
    return template


def _registered_entries() -> dict[str, dict]:
    """The mcp_tool entries `install` writes, by event."""
    hooks = hooks_object("LAUNCHER", route="mcp_tool")
    return {e: g[0]["hooks"][0] for e, g in hooks.items() if g[0]["hooks"][0]["type"] == "mcp_tool"}


async def _call_tool(db: str, calls: list[dict]) -> list[str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
    params = StdioServerParameters(command=sys.executable, args=["-m", "memory_cli", "--db", db, "mcp"], env=env)
    out = []
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert listed[hook_routes.HOOK_TOOL].meta == {"ui": {"visibility": ["app"]}}  # kept from the model
        for arguments in calls:
            result = await s.call_tool(hook_routes.HOOK_TOOL, arguments)
            assert not result.is_error, result
            out.append("".join(c.text for c in result.content if c.type == "text"))
    return out


def _json(text: str) -> dict:
    return json.loads(text) if text.strip() else {}


def test_install_registers_the_per_call_events_on_the_server_and_the_gate_blocks_on_failure():
    entries = _registered_entries()
    assert set(entries) == {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionDenied"}
    assert entries["PreToolUse"]["onFailure"] == "block"
    assert all("onFailure" not in e for ev, e in entries.items() if ev != "PreToolUse")
    assert all("if" not in e for e in entries.values())  # every spelling of a call reaches the gate
    hooks = hooks_object("LAUNCHER", route="mcp_tool")
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd", "PreCompact"):
        assert hooks[event][0]["hooks"][0]["type"] == "command"
    assert all(g[0]["hooks"][0]["type"] == "command" for g in hooks_object("LAUNCHER").values())


def test_both_routes_give_the_same_hook_json_on_the_rule_corpus(db_path, tmp_path):
    for rule in RULES:
        add_rule(db_path, **rule)
    with Store.open(db_path) as s:  # the rules in the main file, so that a copy holds them
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    twin = tmp_path / "twin.db"
    shutil.copyfile(db_path, twin)
    cases = corpus()
    entries = _registered_entries()
    command_route = [run_hook(event, body, db=db_path).stdout for event, body in cases]
    calls = [interpolate(entries[event]["input"], body) for event, body in cases]
    mcp_route = asyncio.run(_call_tool(str(twin), calls))
    decisions = {}
    for (event, body), by_command, by_mcp in zip(cases, command_route, mcp_route):
        assert _json(by_mcp) == _json(by_command), (event, body.get("tool_input"))
        decision = ((_json(by_command).get("hookSpecificOutput") or {}).get("permissionDecision")) or "none"
        decisions[decision] = decisions.get(decision, 0) + 1
    # The corpus exercises every kind of answer, not only silence.
    assert decisions.get("deny", 0) >= 20 and decisions.get("ask", 0) >= 1 and decisions["none"] >= 20, decisions
    assert any("additionalContext" in (_json(t).get("hookSpecificOutput") or {}) for t in command_route)
    # Both stores recorded the same decisions in their audit logs.
    with Store.open(db_path) as a, Store.open(str(twin)) as b:
        q = "SELECT action, hook_event, result FROM memory_audit_log WHERE action != 'hook' ORDER BY rowid"
        assert [tuple(r) for r in a.rows(q)] == [tuple(r) for r in b.rows(q)]


def test_the_server_refuses_events_that_are_not_per_call(db_path):
    out = asyncio.run(_call_tool(str(db_path), [{"event": "SessionStart", "session_id": "s"}]))
    assert _json(out[0]) == {}


def test_doctor_reports_the_route_and_fails_when_no_server_can_answer_the_gate(cli, claude_dir):
    assert cli("install", "--no-model").returncode == 0
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--no-timing", "--json").stdout)["checks"]}
    route = checks["hook route (user)"]
    assert route["status"] == "ok" and "answered by the running MCP server" in route["detail"], route
    assert "PreToolUse" in route["detail"]
    # The server's registration removed by hand: every gated call would be blocked. Said, with the fix.
    home_json = claude_dir / ".claude.json"
    data = json.loads(home_json.read_text())
    del data["mcpServers"]["memory-cli"]
    home_json.write_text(json.dumps(data))
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--no-timing", "--json").stdout)["checks"]}
    route = checks["hook route (user)"]
    assert route["status"] == "fail" and "every gated call is blocked" in route["detail"], route
    # The command route, chosen in the config, is reported as such.
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"enforcement": {"hook_route": "command"}}))
    assert cli("install", "--no-model").returncode == 0
    pre = json.loads((claude_dir / "settings.json").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert pre["type"] == "command" and pre["command"].endswith("hook PreToolUse")
    checks = {c["name"]: c for c in json.loads(cli("doctor", "--no-timing", "--json").stdout)["checks"]}
    assert "a hook process per tool call" in checks["hook route (user)"]["detail"]


def test_an_mcp_tool_route_without_the_server_is_refused(cli, claude_dir):
    (claude_dir / "memory").mkdir(exist_ok=True)
    (claude_dir / "memory" / "config.json").write_text(json.dumps({"enforcement": {"hook_route": "mcp_tool"}}))
    r = cli("install", "--no-mcp", "--no-model")
    assert r.returncode == 2 and "needs the MCP server" in r.stderr, r.stderr
    assert not (claude_dir / "settings.json").exists()


def test_uninstall_removes_exactly_what_install_added(cli, claude_dir):
    other = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}
    (claude_dir / "settings.json").write_text(json.dumps(other))
    assert cli("install", "--no-model").returncode == 0
    assert cli("uninstall").returncode == 0
    assert json.loads((claude_dir / "settings.json").read_text()) == other
    assert not (claude_dir / ".claude.json").exists()  # install created it for our server alone


def test_the_server_answering_the_gate_is_pinned_like_the_hook_commands(cli, claude_dir, db_path, tmp_path):
    """A repository's settings can set MEMORY_CLI_DB and MEMORY_CLI_CONFIG for what Claude Code
    starts; the server `install` registers pins the store (--db) and the config (its entry's
    env, which Claude Code puts over its own), so a block rule still denies."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    add_rule(db_path, "never force-push", pattern="git push --force", pattern_type="command", action="block")
    assert cli("install", "--no-model").returncode == 0
    entry = json.loads((claude_dir / ".claude.json").read_text())["mcpServers"]["memory-cli"]
    assert entry["args"][-3:] == ["--db", str(db_path), "mcp"] and entry["env"]["MEMORY_CLI_CONFIG"], entry
    open_config = tmp_path / "open.json"
    open_config.write_text(json.dumps({"enforcement": {"enabled": False}, "database_path": str(tmp_path / "e.db")}))
    call = interpolate(_registered_entries()["PreToolUse"]["input"], _pre("git push --force origin main"))

    async def ask(hostile: dict) -> dict:
        env = {**os.environ, **hostile, **entry["env"]}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            result = await s.call_tool(hook_routes.HOOK_TOOL, call)
            return _json(result.content[0].text)

    for hostile in (
        {"MEMORY_CLI_DB": ""},
        {"MEMORY_CLI_DB": str(tmp_path / "empty.db")},
        {"MEMORY_CLI_CONFIG": str(open_config)},
    ):
        out = asyncio.run(ask(hostile))
        assert out["hookSpecificOutput"]["permissionDecision"] == "deny", (hostile, out)
