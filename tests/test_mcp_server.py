"""The MCP server through the SDK's own client over stdio, as Claude Code talks to it: every
tool, a clear tool error for bad arguments to every tool, and concurrent calls while hook
processes write to the same store."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading

import pytest
from helpers.cli import _cmd
from helpers.hooks import payload, run_hook

mcp = pytest.importorskip("mcp")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

TOOLS = {
    "query_memory",
    "remember",
    "record_correction",
    "record_incident",
    "search_incidents",
    "resolve_incident",
    "save_report",
    "get_previous_report",
    "record_metric",
    "check_baseline",
}


def session(db_path, project, calls):
    """Start `memory-cli --db DB mcp` in ``project`` and run ``calls(session)``; returns its result."""
    exe, *pre = _cmd()

    async def run():
        params = StdioServerParameters(command=exe, args=[*pre, "--db", str(db_path), "mcp"], cwd=str(project))
        async with stdio_client(params, errlog=subprocess.DEVNULL) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return await calls(s)

    return asyncio.run(run())


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def error(result) -> str:
    assert result.is_error, result.content[0].text
    return result.content[0].text


def test_every_tool_answers_json_and_lists_itself(db_path, project):
    async def calls(s):
        names = {t.name for t in (await s.list_tools()).tools}
        out = {"names": names}
        out["remember"] = data(
            await s.call_tool(
                "remember",
                {
                    "content": "The billing API listens on 8081; password=hunter2hunter2",
                    "type": "fact",
                    "subject": "billing-api",
                    "category": "behavior",
                },
            )
        )
        out["query"] = data(await s.call_tool("query_memory", {"query": "which port does billing listen on"}))
        inc = data(
            await s.call_tool(
                "record_incident",
                {
                    "title": "Postgres refused connections",
                    "symptoms": "psql: connection refused on port 5432",
                    "service": "billing-db",
                    "severity": "high",
                },
            )
        )["incident"]
        out["search"] = data(await s.call_tool("search_incidents", {"query": "connection refused 5432"}))
        out["resolve"] = data(
            await s.call_tool(
                "resolve_incident", {"id": inc["id"][:8], "resolution": "raise max_connections and restart pgbouncer"}
            )
        )
        out["resolved_search"] = data(
            await s.call_tool("search_incidents", {"query": "postgres connection refused", "status": "resolved"})
        )
        out["report"] = data(await s.call_tool("save_report", {"summary": "Fixed the flaky billing test"}))
        out["previous"] = data(await s.call_tool("get_previous_report", {}))
        for v in (10, 11, 12, 10, 11):
            data(await s.call_tool("record_metric", {"name": "pytest -q", "value": v, "unit": "s"}))
        out["slow"] = data(await s.call_tool("check_baseline", {"name": "pytest -q", "value": 62}))
        out["usual"] = data(await s.call_tool("check_baseline", {"name": "pytest -q", "value": 11.5}))
        out["young"] = data(await s.call_tool("check_baseline", {"name": "build", "value": 500}))
        return out

    out = session(db_path, project, calls)
    # The agent tools, and the hook tool Claude Code's mcp_tool hooks call (kept from the model).
    assert out["names"] == TOOLS | {"hook"}
    stored = out["remember"]["stored"]
    assert stored["scope"] == f"repo:{project}" and stored["source"] == "agent"
    assert stored["confidence"] == 0.5 and "hunter2" not in stored["content"]
    assert out["query"]["memories"][0]["id"] == stored["id"]
    hit = out["search"]["incidents"][0]
    assert hit["title"] == "Postgres refused connections" and hit["status"] == "open" and 0 < hit["score"] <= 1
    assert out["resolve"]["incident"]["status"] == "resolved"
    assert "pgbouncer" in out["resolved_search"]["incidents"][0]["resolution"]
    assert out["previous"]["report"]["summary"] == "Fixed the flaky billing test"
    assert out["slow"]["normal"] is False and "5.6x the median" in out["slow"]["why"]
    assert set(out["slow"]["baseline"]) >= {"n", "avg", "p95", "min", "max"} and out["slow"]["baseline"]["n"] == 5
    assert out["usual"]["normal"] is True
    assert out["young"]["normal"] is True and "5 are needed" in out["young"]["why"]

    from memory_cli.store.db import Store

    with Store.open(db_path) as s:  # the agent's memory is unconfirmed, unpinned, audited
        row = s.row("SELECT pinned, source FROM memory_entries WHERE id = ?", (stored["id"],))
        assert row == {"pinned": 0, "source": "agent"}
        actions = {r["action"] for r in s.rows("SELECT action FROM memory_audit_log")}
        assert {"add", "incident_record", "incident_resolve", "report_save", "metric_record"} <= actions


BAD = [
    ("query_memory", {"query": "  "}, "query is empty"),
    ("query_memory", {"query": "x", "limit": 0}, "limit"),
    ("query_memory", {"query": "x", "type": "opinion"}, "unknown type"),
    ("remember", {"content": "", "type": "fact"}, "content is empty"),
    ("remember", {"content": "x", "type": "nonsense"}, "unknown type"),
    ("remember", {"content": "x", "type": "fact", "scope": "galaxy"}, "unknown scope"),
    ("record_correction", {"quote": "never use yarn", "lesson": "use pnpm"}, "refused: the quote is not in"),
    ("record_correction", {"quote": "x", "lesson": ""}, "lesson is empty"),
    ("record_incident", {"title": "", "symptoms": "x"}, "title is empty"),
    ("record_incident", {"title": "x", "symptoms": "y", "severity": "apocalyptic"}, "unknown severity"),
    ("search_incidents", {"query": ""}, "query is empty"),
    ("search_incidents", {"query": "x", "status": "closed"}, "unknown status"),
    ("resolve_incident", {"id": "nope-nope", "resolution": "x"}, "no incident"),
    ("resolve_incident", {"id": "abcd"}, "resolution"),
    ("save_report", {"summary": " "}, "summary is empty"),
    ("get_previous_report", {"scope": "galaxy"}, "unknown scope"),
    ("record_metric", {"name": "x", "value": "fast"}, "invalid arguments: value: Input should be a valid number"),
    ("record_metric", {"name": "", "value": 1}, "name is empty"),
    ("check_baseline", {"name": "x"}, "invalid arguments: value: Field required"),
    ("check_baseline", {"name": "x", "value": "abc"}, "value"),
]


def test_bad_arguments_to_every_tool_are_clear_tool_errors(db_path, project):
    async def calls(s):
        return [(tool, error(await s.call_tool(tool, args)), want) for tool, args, want in BAD]

    results = session(db_path, project, calls)
    assert {tool for tool, *_ in results} == TOOLS
    for tool, message, want in results:
        assert want in message, (tool, message)
        assert "\n" not in message.strip() and "errors.pydantic.dev" not in message, (tool, message)
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:  # nothing half-stored
        assert s.value("SELECT count(*) FROM memory_entries") == 0
        assert s.value("SELECT count(*) FROM incidents") == 0


def test_record_correction_checks_the_quote_against_what_the_person_typed(db_path, project, tmp_path):
    """The agent's lesson through the server as Claude Code calls it: the project is the
    server's folder, the session the one the quoted prompt was typed in."""
    prompt = "we keep CHANGELOG entries   under Unreleased, not under the version"
    r = run_hook("UserPromptSubmit", payload("UserPromptSubmit", cwd=str(project), prompt=prompt), db=db_path)
    assert r.returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def calls(s):
        ok = data(
            await s.call_tool(
                "record_correction",
                {
                    "quote": "We keep changelog entries under Unreleased, not under the version",
                    "lesson": "Add changelog entries under Unreleased",
                    "kind": "standing",
                },
            )
        )
        bad = error(
            await s.call_tool(
                "record_correction", {"quote": "never edit the changelog", "lesson": "Leave the changelog alone"}
            )
        )
        return ok, bad

    ok, bad = session(db_path, project, calls)
    assert (
        ok["recorded"]["statement"] == "Add changelog entries under Unreleased" and ok["recorded"]["occurrences"] == 1
    )
    assert not ok["proposed_now"] and not ok["recorded"]["already"]
    assert "refused" in bad and "project whisperclick" in bad
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        row = s.row("SELECT origin, session_id, scope, user_message FROM corrections WHERE origin IS NOT NULL")
        assert row["origin"] == "agent" and row["session_id"] == "abc123" and row["scope"] == "project:whisperclick"
        refused = s.row("SELECT result, details FROM memory_audit_log WHERE action = 'lesson'")
        assert refused["result"] == "refused" and "never edit the changelog" in refused["details"]


def test_concurrent_tool_calls_while_hooks_write(db_path, project):
    stop = threading.Event()
    hook_codes = []

    def hooks():
        i = 0
        while not stop.is_set() and i < 40:
            r = run_hook(
                "UserPromptSubmit",
                payload("UserPromptSubmit", cwd=str(project), prompt=f"no, never use npm here, use pnpm ({i})"),
                db=db_path,
            )
            hook_codes.append(r.returncode)
            i += 1

    writer = threading.Thread(target=hooks)
    writer.start()

    async def calls(s):
        jobs = [
            s.call_tool("remember", {"content": f"fact number {i} about the deploy", "type": "fact"}) for i in range(30)
        ]
        jobs += [s.call_tool("record_metric", {"name": "deploy", "value": 30 + i}) for i in range(30)]
        jobs += [s.call_tool("query_memory", {"query": "deploy"}) for _ in range(10)]
        return await asyncio.gather(*jobs)

    try:
        results = session(db_path, project, calls)
    finally:
        stop.set()
        writer.join(120)
    assert [r for r in results if r.is_error] == []
    assert hook_codes and set(hook_codes) == {0}
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        assert s.value("SELECT count(*) FROM memory_entries WHERE source = 'agent'") == 30
        assert s.value("SELECT count(*) FROM metric_samples WHERE name = 'deploy'") == 30
        assert s.value("PRAGMA integrity_check") == "ok"


def test_looking_a_memory_up_with_query_memory_counts_as_using_it(db_path, project):
    from memory_cli import entries
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        eid = entries.add(s, "The billing API listens on port 8081", "fact", scope="project:whisperclick")["id"]

    async def calls(s):
        return data(await s.call_tool("query_memory", {"query": "billing API port"}))

    found = session(db_path, project, calls)
    assert [m["id"] for m in found["memories"]] == [eid]
    with Store.open(db_path) as s:
        row = s.row("SELECT use_count, last_used FROM memory_entries WHERE id = ?", (eid,))
    assert row["use_count"] == 1 and row["last_used"]


def test_with_memory_turned_off_the_server_starts_lists_no_tools_and_exits_cleanly(tmp_path, claude_dir):
    """MEMORY_CLI_DB="" turns memory off: Claude Code must see a working server (not a failed
    one) that offers nothing, and the server must end with exit 0 when Claude Code closes it."""
    import os

    from helpers.mcp_handshake import INITIALIZE

    requests = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.Popen(
        [*_cmd(), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, MEMORY_CLI_DB=""),
        cwd=str(work),
    )
    answers = []
    for request in requests:
        proc.stdin.write((json.dumps(request) + "\n").encode())
        proc.stdin.flush()
        if "id" in request:
            answers.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read().decode()
    init, listed = answers
    assert init["result"]["serverInfo"]["name"] == "memory-cli"
    assert "memory is turned off" in init["result"].get("instructions", "")
    # No agent tool; only the hook tool, kept from the model: a pinned gate's rules hold with
    # memory off.
    assert [(t["name"], t.get("_meta")) for t in listed["result"]["tools"]] == [
        ("hook", {"ui": {"visibility": ["app"]}})
    ]
    assert not list(work.iterdir()) and not (claude_dir / "memory").exists()  # no store was created


def test_agents_record_incidents_in_their_own_words_and_search_by_service_or_alert(db_path, project):
    async def calls(s):
        warned = data(
            await s.call_tool(
                "record_incident",
                {
                    "title": "DiskPressure on node-3",
                    "symptoms": "93% used",
                    "service": "kubelet",
                    "severity": "warning",
                },
            )
        )["incident"]
        info = data(
            await s.call_tool(
                "record_incident",
                {"title": "Deploy finished late", "symptoms": "took 20 min", "service": "ci", "severity": "info"},
            )
        )["incident"]
        by_service = data(await s.call_tool("search_incidents", {"service": "KUBELET"}))
        by_alert = data(await s.call_tool("search_incidents", {"query": "", "alert": "diskpressure"}))
        return warned, info, by_service, by_alert

    warned, info, by_service, by_alert = session(db_path, project, calls)
    assert (warned["severity"], info["severity"]) == ("medium", "low")
    assert [i["id"] for i in by_service["incidents"]] == [warned["id"]]
    assert [i["id"] for i in by_alert["incidents"]] == [warned["id"]]
