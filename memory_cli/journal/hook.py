"""Hook handlers fed by the journal stores (stdlib + apsw only, like every hook module).

- SessionStart: the previous session report for this project, in a few lines, capped at a
  share of the injection token budget (600 characters at most).
- PostToolUseFailure (and a failed Bash call in PostToolUse): matching incidents with their
  cause and resolution, ranked like memories.
- PostToolUse: the duration of a recurring command (a test run, a build) when Claude Code sends
  ``duration_ms``, recorded as a sample of ``cmd:<tool> <sub-command>``; when the run took far
  longer than its baseline (after enough samples), a warning to the agent and the person.
"""

from __future__ import annotations

REPORT_MAX_CHARS = 600
REPORT_BUDGET_SHARE = 0.2  # of the injection token budget (~4 characters a token)
INCIDENT_MIN_SCORE = 0.5
INCIDENTS_SHOWN = 2


def _project_scope(ctx) -> str | None:
    return f"project:{ctx.project}" if ctx.project else None


def _timeout(ctx) -> float:
    try:
        return float(ctx.settings["daemon"]["request_timeout_ms"])
    except (KeyError, TypeError, ValueError):
        return 150.0


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    return text if len(text) <= n else text[: max(0, n - 1)].rstrip() + "…"


# ----------------------------------------------------------------------------- SessionStart

def session_start(ctx, resp):
    sc = _project_scope(ctx)
    if not sc or not ctx.store.table_exists("session_reports"):
        return
    from ..reports.api import latest_report

    r = latest_report(ctx.store, sc)
    if r is None:
        return
    try:
        budget_chars = int(ctx.settings["injection"]["max_tokens"]) * 4 * REPORT_BUDGET_SHARE
    except (KeyError, TypeError, ValueError):
        budget_chars = REPORT_MAX_CHARS
    cap = int(min(REPORT_MAX_CHARS, budget_chars))
    if cap < 80:
        return
    lines = [ln for ln in r["summary"].splitlines() if ln.strip()][:5]
    body = _clip("\n".join(lines), cap)
    resp.add_context(f"Previous session report for {sc} ({r['created_at'][:16].replace('T', ' ')} UTC):\n"
                     + body)
    ctx.audit("report_inject", entry_id=r["id"], result="injected", details={"chars": len(body)})


# ----------------------------------------------------------------------------- failures

def _offer_incidents(ctx, resp, error: str) -> None:
    if not ctx.store.table_exists("incidents"):
        return
    from ..incidents.api import search_incidents

    command = ctx.tool_input.get("command")
    query = (command + "\n" if isinstance(command, str) else "") + error[:2000]
    hits = search_incidents(ctx.store, query, limit=INCIDENTS_SHOWN, timeout_ms=_timeout(ctx),
                            min_score=INCIDENT_MIN_SCORE)
    if not hits:
        return
    lines = ["Similar past incidents (memory-cli incidents):"]
    for h in hits:
        line = f"- {h['title']} [{h['status']}]"
        if h.get("cause"):
            line += f"; cause: {_clip(h['cause'], 160)}"
        if h.get("resolution"):
            line += f"; fixed by: {_clip(h['resolution'], 200)}"
        lines.append(line)
    resp.add_context("\n".join(lines))
    ctx.audit("incident_offer", result=str(len(hits)), details={"ids": [h["id"] for h in hits]})


def post_tool_use_failure(ctx, resp):
    if ctx.payload.get("is_interrupt"):
        return
    from ..retrieval.inject import error_text

    error = error_text(ctx.payload.get("error"))
    if error.strip():
        _offer_incidents(ctx, resp, error)


# ----------------------------------------------------------------------------- durations

def post_tool_use(ctx, resp):
    if ctx.tool_name != "Bash":
        return
    from ..retrieval.inject import bash_failed

    error = bash_failed(ctx.payload.get("tool_response"))
    if error:
        _offer_incidents(ctx, resp, error)
        return
    duration = ctx.payload.get("duration_ms")
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or duration < 0:
        return
    if not ctx.store.table_exists("metric_samples"):
        return
    from ..baselines import api as baselines

    name = baselines.command_metric(ctx.tool_input.get("command") or "")
    if not name:
        return
    seconds = round(float(duration) / 1000.0, 3)
    scope = _project_scope(ctx) or "global"
    verdict = baselines.check(ctx.store, name, seconds, scope=scope,
                              factor=baselines.FACTOR)
    baselines.record(ctx.store, name, seconds, unit="s", scope=scope, source="hook",
                     session_id=ctx.session_id or None)
    if not verdict["normal"] and (verdict["ratio"] or 0) > 1:
        msg = (f"memory-cli: this {name[4:]} run took {verdict['ratio']:.1f}x its usual time "
               f"({seconds:g} s vs avg {verdict['baseline']['avg']:.3g} s over {verdict['baseline']['n']} runs)")
        resp.add_context(msg + ". Something may be wrong (a hang, a retry loop, a slow dependency).")
        resp.notify(msg)
        ctx.audit("baseline_slow", context=name, result=f"{verdict['ratio']:.1f}x",
                  details={"value": seconds, "baseline": verdict["baseline"]})
