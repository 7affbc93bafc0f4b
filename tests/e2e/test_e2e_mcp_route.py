"""The gate answered by the running MCP server, through the real Claude Code.

`memory-cli install` (with the MCP server, the default) registers the per-call events as
``mcp_tool`` hooks calling the server's ``hook`` tool. A block rule then denies through that
route: the model reads the rule in the tool_result and the command does not run. With the MCP
server gone (its command cannot start), the gate's ``onFailure: "block"`` blocks the call and
says why, instead of letting it through unchecked.
"""

from __future__ import annotations

import json

import pytest

from .standin import bash

pytestmark = pytest.mark.e2e


def _our_entries(home) -> dict[str, list[dict]]:
    hooks = home.settings()["hooks"]
    return {event: [h for g in groups for h in g["hooks"]] for event, groups in hooks.items()}


def _init(s) -> dict:
    return next(e for e in s.events if e.get("type") == "system" and e.get("subtype") == "init")


def test_a_block_rule_denies_through_the_mcp_tool_route(fresh_home):
    home = fresh_home
    home.install()
    entries = _our_entries(home)
    gate = entries["PreToolUse"][0]
    assert gate["type"] == "mcp_tool" and gate["server"] == "memory-cli" and gate["tool"] == "hook", gate
    assert gate["onFailure"] == "block", gate
    assert entries["PostToolUse"][0]["type"] == "mcp_tool"
    assert entries["SessionStart"][0]["type"] == "command"  # per-session events keep their process
    home.cli("rules", "add", "Never use pythonw.exe", "--alternative", "use python.exe", "--action", "block")
    s = home.run_session(
        "launch the app, then list the folder",
        [bash("touch denied.txt && pythonw.exe src/main.py", "launch"), bash("touch ran.txt", "touch"), "Done."],
        env={"ENABLE_TOOL_SEARCH": "false"},
    )
    assert s.returncode == 0, s.describe()
    denied = s.main_requests[1].tool_results()[-1]
    assert denied["is_error"], s.describe()
    assert "Never use pythonw.exe" in denied["text"] and "use python.exe" in denied["text"], denied
    assert not (home.project / "denied.txt").exists()
    # An ordinary call goes through the same route and runs.
    assert not s.main_requests[2].tool_results()[-1]["is_error"], s.describe()
    assert (home.project / "ran.txt").exists()
    # The decision was the server's: the audit rows name the gate's block, and no hook process
    # was started for a tool event (the stream shows no command hook for PreToolUse).
    blocks = home.cli_json("audit", "--action", "enforce_block")
    assert any(r["hook_event"] == "PreToolUse" for r in blocks), blocks
    started = [e for e in s.events if e.get("type") == "system" and e.get("subtype") == "hook_started"]
    assert not any("fasthook" in json.dumps(e) and "PreToolUse" in json.dumps(e) for e in started), started
    # The hook tool is kept from the model: not among the tools of its requests.
    names = {t.get("name") for r in s.main_requests for t in (r.body.get("tools") or [])}
    assert "mcp__memory-cli__query_memory" in names, sorted(names)
    assert "mcp__memory-cli__hook" not in names, sorted(names)


def test_with_the_mcp_server_gone_the_gate_blocks_and_says_why(fresh_home):
    home = fresh_home
    home.allow_hook_failures = True
    home.install()
    claude_json = home.home / ".claude.json"
    data = json.loads(claude_json.read_text())
    data["mcpServers"]["memory-cli"]["command"] = str(home.root / "no-such-memory-cli")
    claude_json.write_text(json.dumps(data))
    s = home.run_session("make a file", [bash("touch unguarded.txt", "touch"), "Done."])
    assert s.returncode == 0, s.describe()
    assert {m["name"]: m["status"] for m in _init(s).get("mcp_servers", [])}.get("memory-cli") == "failed"
    result = s.main_requests[1].tool_results()[-1]
    assert result["is_error"], s.describe()
    assert "memory-cli" in result["text"] and "not connected" in result["text"], result
    assert not (home.project / "unguarded.txt").exists()
