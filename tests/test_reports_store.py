"""The report archive: latest per scope, redaction, bad input as one-line errors."""

from __future__ import annotations

import pytest

from memory_cli.errors import InvalidInput, NotFound
from memory_cli.reports import api


def test_latest_report_is_the_newest_for_that_scope_only(store):
    api.save_report(store, "first session: set up CI", scope="project:demo")
    second = api.save_report(store, "second: fixed flaky test", details="pytest -x now green",
                             scope="project:Demo", session_id="s2")
    api.save_report(store, "other project", scope="project:other")
    latest = api.latest_report(store, "project:demo")
    assert latest["id"] == second["id"]
    assert latest["summary"] == "second: fixed flaky test"
    assert latest["details"] == "pytest -x now green"
    assert api.latest_report(store, "project:none") is None
    assert [r["summary"] for r in api.list_reports(store, scope="project:demo")] == [
        "second: fixed flaky test", "first session: set up CI"]
    assert api.get_report(store, second["id"][:10])["id"] == second["id"]
    assert store.value("SELECT count(*) FROM memory_audit_log WHERE action='report_save'") == 3


def test_secrets_in_reports_are_redacted(store):
    r = api.save_report(store, "deployed with token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
                        details="password=hunter2hunter2", scope="global")
    assert "ghp_a1B2" not in r["summary"] and "REDACTED" in r["summary"]
    assert "hunter2hunter2" not in (r["details"] or "")


@pytest.mark.parametrize("kwargs", [dict(summary="", scope="global"), dict(summary="x", scope=None),
                                    dict(summary="x", scope="nowhere"),
                                    dict(summary="x", scope="global", source="robot"),
                                    dict(summary=5, scope="global")])
def test_bad_report_input_is_refused_and_nothing_stored(store, kwargs):
    summary = kwargs.pop("summary")
    with pytest.raises(InvalidInput):
        api.save_report(store, summary, **kwargs)
    assert store.value("SELECT count(*) FROM session_reports") == 0


def test_unknown_report_id(store):
    with pytest.raises(NotFound):
        api.get_report(store, "nope")
