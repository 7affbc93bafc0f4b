"""The agent stores feed the hooks: a failure like a resolved incident gets its resolution,
a new session in a project gets the previous report, and a command run far slower than its
baseline gets a word to Claude."""

from __future__ import annotations

from helpers.hooks import payload

from memory_cli.baselines import api as baselines
from memory_cli.incidents import api as incidents
from memory_cli.reports import api as reports


def test_a_failure_like_a_resolved_incident_is_offered_its_resolution(store, hook, project):
    incidents.record(
        store,
        "Postgres refused connections",
        "psql: could not connect: Connection refused on port 5432",
        service="billing-db",
        cause="pgbouncer was down",
        resolution="sudo systemctl restart pgbouncer",
        embed_timeout_ms=0,
    )
    incidents.record(store, "Disk full on CI", "No space left on device", embed_timeout_ms=0)  # open: not offered
    r = hook(
        "PostToolUseFailure",
        payload(
            "PostToolUseFailure",
            cwd=str(project),
            tool_input={"command": "psql -h localhost -p 5432 billing"},
            error="psql: error: connection to server at localhost port 5432 failed: Connection refused",
        ),
    )
    assert r.returncode == 0
    assert "restart pgbouncer" in r.context and "pgbouncer was down" in r.context
    assert "Disk full" not in r.context
    quiet = hook(
        "PostToolUseFailure",
        payload(
            "PostToolUseFailure",
            cwd=str(project),
            tool_input={"command": "npm run lint"},
            error="eslint: 3 problems (3 errors)",
        ),
    )
    assert "incidents resolved before" not in quiet.context


def test_a_new_session_in_the_project_starts_from_the_previous_report(store, hook, project):
    here = f"repo:{project}"  # reports are kept per checkout
    reports.save_report(store, "Old report", scope=here)
    reports.save_report(
        store,
        "Moved drag handling to WM_APP_DRAGSTART; tests green; next: the tray icon.",
        scope=here,
    )
    reports.save_report(store, "Another project's news", scope="project:billing")
    r = hook("SessionStart", payload("SessionStart", cwd=str(project)))
    assert "Previous session in whisperclick" in r.context and "WM_APP_DRAGSTART" in r.context
    assert "Old report" not in r.context and "Another project" not in r.context


def test_a_run_far_slower_than_its_baseline_is_flagged(store, hook, project, db_path):
    def run(command, ms):
        return hook(
            "PostToolUse", payload("PostToolUse", cwd=str(project), tool_input={"command": command}, duration_ms=ms)
        )

    for ms in (10_000, 11_000, 9_500, 10_500, 10_200):
        assert "usual" not in run("cd /repo && pytest  -q", ms).context
    slow = run("pytest -q", 61_000)
    assert "`pytest -q`" in slow.context and "6.0x the median of 5 samples" in slow.context
    assert "usual" not in run("pytest -q", 10_800).context
    run("ls", 30)  # too short to be a baseline
    names = {m["name"] for m in baselines.list_metrics(store)}
    assert names == {"cmd: pytest -q"}
    b = baselines.baseline(store, "cmd: pytest -q")
    assert b["n"] == 7 and b["unit"] == "s"


def test_one_hang_does_not_hide_a_later_regression(store, hook, project):
    """Five runs of about 10 s and one 61 s hang: the hang is flagged and joins the samples, but
    the baseline stays about 10 s, so a later 80 s run is flagged too and a 10.4 s run is not."""

    def run(ms):
        return hook(
            "PostToolUse", payload("PostToolUse", cwd=str(project), tool_input={"command": "pytest -q"}, duration_ms=ms)
        ).context

    for ms in (10_000, 11_000, 9_500, 10_500, 10_200):
        assert "unusual" not in run(ms)
    assert "unusual" in run(61_000)
    assert "unusual" in run(80_000)
    assert "unusual" not in run(10_400)
    verdict = baselines.check(store, "cmd: pytest -q", 80, scope="project:whisperclick")
    assert verdict["normal"] is False and 10 < verdict["baseline"]["median"] < 11
