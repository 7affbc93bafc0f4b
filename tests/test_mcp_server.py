"""The MCP server through the SDK's own stdio client: a real `memory-cli mcp` process, a real
store, every tool, bad arguments for every tool, and concurrent calls while hooks write."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memory_cli.mcp.server import TOOL_NAMES

from conftest import _cmd, payload, run_hook


def _params(db: Path, cwd: Path) -> StdioServerParameters:
    cmd = _cmd()
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_CLI_DB")}
    env["MEMORY_CLI_DAEMON_AUTOSTART"] = "0"
    return StdioServerParameters(command=cmd[0], args=cmd[1:] + ["--db", str(db), "mcp"], env=env, cwd=str(cwd))


def _session(db, cwd, body):
    """Run ``body(session)`` against a fresh server; returns its result."""
    async def main():
        with anyio.fail_after(120):
            async with stdio_client(_params(db, cwd), errlog=sys.stderr) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    return await body(s)
    return anyio.run(main)


async def _call(s, name, args):
    res = await s.call_tool(name, args)
    text = res.content[0].text if res.content else ""
    return res.is_error, (res.structured_content if not res.is_error else text)


@pytest.fixture
def proj(tmp_path) -> Path:
    p = tmp_path / "Shop API"
    (p / ".git").mkdir(parents=True)
    return p


def test_lists_every_tool_with_its_arguments(db_path, proj):
    async def body(s):
        return {t.name: t.input_schema for t in (await s.list_tools()).tools}
    tools = _session(db_path, proj, body)
    assert set(tools) == set(TOOL_NAMES)
    assert tools["check_baseline"]["required"] == ["name", "value"]
    assert set(tools["remember"]["required"]) == {"content", "type"}
    assert set(tools["record_incident"]["properties"]) == {"title", "symptoms", "service", "severity",
                                                          "cause", "resolution"}


def test_every_tool_round_trip(db_path, proj):
    async def body(s):
        out = {}
        out["remember"] = await _call(s, "remember", {"content": "Use pnpm, never npm, in this repo",
                                                      "type": "rule", "subject": "pnpm"})
        out["secret"] = await _call(s, "remember", {"content": "deploy key AKIAIOSFODNN7EXAMPLE is in vault",
                                                    "type": "fact", "scope": "global"})
        out["query"] = await _call(s, "query_memory", {"query": "which package manager pnpm npm"})
        out["query_typed"] = await _call(s, "query_memory", {"query": "pnpm", "type": "fact"})
        out["incident"] = await _call(s, "record_incident", {
            "title": "pytest hangs at collection", "symptoms": "OperationalError: database is locked",
            "service": "api", "severity": "high", "cause": "stale postgres lock"})
        iid = out["incident"][1]["incident"]["id"]
        out["search"] = await _call(s, "search_incidents", {"query": "database is locked during pytest"})
        out["search_open"] = await _call(s, "search_incidents", {"query": "database locked", "status": "resolved"})
        out["resolve"] = await _call(s, "resolve_incident", {"id": iid[:8], "resolution": "docker restart pg"})
        out["search_resolved"] = await _call(s, "search_incidents", {"query": "database locked", "status": "resolved"})
        out["no_report"] = await _call(s, "get_previous_report", {})
        out["save"] = await _call(s, "save_report", {"summary": "Fixed the flaky db test; next: CI cache",
                                                     "details": "root cause was a stale lock"})
        out["report"] = await _call(s, "get_previous_report", {})
        for v in (10, 11, 9, 10):
            await _call(s, "record_metric", {"name": "cmd:pytest", "value": v, "unit": "s"})
        out["few"] = await _call(s, "check_baseline", {"name": "cmd:pytest", "value": 60})
        out["metric"] = await _call(s, "record_metric", {"name": "cmd:pytest", "value": 12, "unit": "s"})
        out["slow"] = await _call(s, "check_baseline", {"name": "cmd:pytest", "value": 60})
        out["ok"] = await _call(s, "check_baseline", {"name": "cmd:pytest", "value": 11})
        return out
    out = _session(db_path, proj, body)
    assert all(not err for err, _ in out.values()), {k: v for k, v in out.items() if v[0]}
    stored = out["remember"][1]["stored"]
    assert stored["scope"] == "project:shop-api" and stored["source"] == "auto_detected"
    assert stored["confidence"] < 0.5 and not stored["pinned"]
    assert "AKIAIOSFODNN7EXAMPLE" not in out["secret"][1]["stored"]["content"]
    assert out["query"][1]["results"][0]["content"] == "Use pnpm, never npm, in this repo"
    assert out["query_typed"][1]["results"] == [] or all(r["type"] == "fact" for r in out["query_typed"][1]["results"])
    assert out["search"][1]["results"][0]["title"] == "pytest hangs at collection"
    assert 0 < out["search"][1]["results"][0]["score"] <= 1
    assert out["search_open"][1]["results"] == []
    assert out["resolve"][1]["incident"]["status"] == "resolved"
    assert out["search_resolved"][1]["results"][0]["resolution"] == "docker restart pg"
    assert out["no_report"][1] == {"scope": "project:shop-api", "report": None}
    assert out["report"][1]["report"]["summary"] == "Fixed the flaky db test; next: CI cache"
    assert out["few"][1]["normal"] is True and "at least 5" in out["few"][1]["why"]
    slow = out["slow"][1]
    assert slow["normal"] is False and slow["baseline"]["n"] == 5 and set(slow["baseline"]) == {
        "n", "avg", "p95", "min", "max"}
    assert "5.8x" in slow["why"]
    assert out["ok"][1]["normal"] is True


BAD = [
    ("query_memory", {"query": ""}, "query is empty"),
    ("query_memory", {"query": "x", "type": "gossip"}, "unknown type"),
    ("query_memory", {"query": "x", "limit": 0}, "limit must be between"),
    ("query_memory", {"query": "x", "scope": "team:x"}, "unknown scope"),
    ("query_memory", {}, "query"),
    ("remember", {"content": "  ", "type": "fact"}, "content is empty"),
    ("remember", {"content": "x", "type": "wish"}, "unknown type"),
    ("remember", {"content": "x", "type": "fact", "category": "astrology"}, "category"),
    ("remember", {"content": "x"}, "type"),
    ("record_incident", {"title": "", "symptoms": "y"}, "title is empty"),
    ("record_incident", {"title": "x", "symptoms": "y", "severity": "apocalyptic"}, "unknown severity"),
    ("record_incident", {"title": "x"}, "symptoms"),
    ("search_incidents", {"query": "   "}, "query is empty"),
    ("search_incidents", {"query": "x", "status": "maybe"}, "unknown incident status"),
    ("search_incidents", {"query": "x", "limit": 1000}, "limit must be between"),
    ("resolve_incident", {"id": "nope", "resolution": "x"}, "no incident"),
    ("resolve_incident", {"id": "", "resolution": "x"}, "incident id is empty"),
    ("resolve_incident", {"id": "x"}, "resolution"),
    ("save_report", {"summary": ""}, "summary is empty"),
    ("save_report", {"summary": "x" * 5000}, "limit is 4000"),
    ("get_previous_report", {"scope": "somewhere"}, "unknown scope"),
    ("record_metric", {"name": "", "value": 1}, "metric name is empty"),
    ("record_metric", {"name": "x", "value": "fast"}, "value"),
    ("record_metric", {"name": "bad\nname", "value": 1}, "metric name"),
    ("check_baseline", {"name": "x", "value": "NaN"}, "finite"),
    ("check_baseline", {"name": "x"}, "value"),
]


def test_bad_arguments_are_clear_tool_errors_and_store_nothing(db_path, proj):
    assert {name for name, _, _ in BAD} == set(TOOL_NAMES)

    async def body(s):
        return [(name, await _call(s, name, args)) for name, args, _ in BAD]
    results = _session(db_path, proj, body)
    for (name, args, expect), (_, (err, text)) in zip(BAD, results):
        assert err, (name, args, text)
        assert expect in text, (name, args, text)
        assert "Traceback" not in text
    from memory_cli.db import Store

    with Store.open(db_path) as st:
        for table in ("memory_entries", "incidents", "session_reports", "metric_samples"):
            assert st.value(f"SELECT count(*) FROM {table}") == 0, table


def test_concurrent_tool_calls_while_hooks_write_the_same_store(db_path, proj):
    """Twenty concurrent tool writes and a hook process recording durations at the same time:
    every write lands, none is lost to a lock."""
    hook_payloads = [payload("PostToolUse", cwd=str(proj), tool_name="Bash",
                             tool_input={"command": "pytest -q"},
                             tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
                             duration_ms=1000 + i) for i in range(8)]

    async def body(s):
        results = []

        async def tool(i):
            results.append(await _call(s, "record_incident", {"title": f"incident {i}", "symptoms": "boom"}))
            results.append(await _call(s, "record_metric", {"name": "builds", "value": i}))

        async def hooks():
            for p in hook_payloads:
                await anyio.to_thread.run_sync(lambda p=p: run_hook("PostToolUse", p, db=db_path))

        async with anyio.create_task_group() as tg:
            tg.start_soon(hooks)
            for i in range(10):
                tg.start_soon(tool, i)
        return results
    results = _session(db_path, proj, body)
    assert all(not err for err, _ in results), [r for r in results if r[0]]
    from memory_cli.db import Store

    with Store.open(db_path) as st:
        assert st.value("SELECT count(*) FROM incidents") == 10
        assert st.value("SELECT count(*) FROM metric_samples WHERE name = 'builds'") == 10
        assert st.value("SELECT count(*) FROM metric_samples WHERE name = 'cmd:pytest'") == 8
        assert st.value("SELECT count(*) FROM memory_audit_log WHERE action = 'incident_record'") == 10


def test_server_starts_without_torch(db_path, proj):
    """The server answers initialize without importing torch or sentence-transformers."""
    code = ("import sys, runpy; sys.argv=['memory-cli','--db',%r,'mcp'];"
            "import memory_cli.mcp.server as s; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('torch','sentence_transformers'))))"
            ) % str(db_path)
    out = subprocess.run([sys.executable, "-c", "import json;" + code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
