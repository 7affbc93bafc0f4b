"""The report a new session starts from: a report saved on purpose during a session beats the
automatic summary written when that session ended; otherwise the newest report."""

from __future__ import annotations

from memory_cli import audit
from memory_cli.reports import api

SCOPE = "project:shop"


def test_the_agents_own_report_beats_the_automatic_summary_of_the_same_session(store):
    api.save_report(store, "an older session's summary", scope=SCOPE, session_id="s0", source="session")
    audit.record(store, "inject", session_id="s1")  # session s1 starts
    mine = api.save_report(store, "Moved the loader to pydantic; next: drop YAML", scope=SCOPE)
    auto = api.save_report(store, "Session s1: 3 requests, 1 tool call", scope=SCOPE, session_id="s1", source="session")
    assert api.latest_report(store, SCOPE)["id"] == auto["id"]
    assert api.previous_report(store, SCOPE)["id"] == mine["id"]


def test_without_a_deliberate_report_the_automatic_summary_is_used(store):
    api.save_report(store, "deliberate, but from an earlier session", scope=SCOPE)
    audit.record(store, "inject", session_id="s2")
    auto = api.save_report(store, "Session s2 summary", scope=SCOPE, session_id="s2", source="session")
    assert api.previous_report(store, SCOPE)["id"] == auto["id"]
    assert api.previous_report(store, "project:none") is None
