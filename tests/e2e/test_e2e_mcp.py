"""The agent tools through the real Claude Code: `memory-cli install` registers the MCP server in
the throwaway HOME's ~/.claude.json, and a scripted model calls the tools as a model would. The
test reads, in the model's next request, the tool results Claude Code fed back."""

from __future__ import annotations

import json

import pytest

from .standin import tool_use

pytestmark = pytest.mark.e2e

TOOLS = ",".join(
    f"mcp__memory-cli__{t}"
    for t in ("query_memory", "record_incident", "search_incidents", "check_baseline", "record_metric")
)


def _payload(result: dict) -> dict:
    """A tool result's text is the tool's JSON answer."""
    return json.loads(result["text"])


def test_the_model_asks_memory_and_the_incident_journal_mid_session(e2e_home):
    e2e_home.cli(
        "add",
        "Run the billing tests with `make test-billing`, never bare pytest",
        "--type",
        "rule",
        "--scope",
        "project:" + e2e_home.project.name,
    )
    for v in (41, 39, 40, 42, 38):
        e2e_home.cli("baselines", "record", "make test-billing", str(v), "--unit", "s")
    s = e2e_home.run_session(
        "the billing tests hang; look into it",
        [
            tool_use("mcp__memory-cli__query_memory", {"query": "how do I run the billing tests"}),
            tool_use(
                "mcp__memory-cli__record_incident",
                {
                    "title": "Billing tests hang",
                    "symptoms": "make test-billing stuck at test_invoice_pdf",
                    "service": "billing",
                    "severity": "high",
                },
            ),
            tool_use("mcp__memory-cli__search_incidents", {"query": "billing tests stuck at test_invoice_pdf"}),
            tool_use("mcp__memory-cli__check_baseline", {"name": "make test-billing", "value": 245}),
            "The run took six times its usual time; the incident is recorded.",
        ],
        allowed_tools=TOOLS,
        env={"ENABLE_TOOL_SEARCH": "false"},
    )
    assert s.returncode == 0, s.describe()
    init = next(e for e in s.events if e.get("type") == "system" and e.get("subtype") == "init")
    servers = {m["name"]: m["status"] for m in init.get("mcp_servers", [])}
    # "pending" while the server is still starting (a loaded machine); the answers below prove it connected
    assert servers.get("memory-cli") in ("connected", "pending"), init.get("mcp_servers")

    answers = [s.main_requests[i].tool_results()[-1] for i in range(1, 5)]
    assert not any(a["is_error"] for a in answers), s.describe()
    memories = _payload(answers[0])["memories"]
    assert "make test-billing" in memories[0]["content"]
    recorded = _payload(answers[1])["incident"]
    assert recorded["status"] == "open" and recorded["severity"] == "high"
    found = _payload(answers[2])["incidents"]
    assert found and found[0]["id"] == recorded["id"]
    verdict = _payload(answers[3])
    assert verdict["normal"] is False and verdict["baseline"]["n"] == 5 and "6.1x" in verdict["why"]

    listed = e2e_home.cli_json("incidents", "list")
    assert [i["title"] for i in listed] == ["Billing tests hang"]
