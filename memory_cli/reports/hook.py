"""SessionStart: the project's previous session report, in a few lines, so a new session starts
from where the last one ended. Cut to ``MAX_CHARS`` so it never crowds out the memories."""

from __future__ import annotations

MAX_CHARS = 600


def session_start(ctx, resp) -> None:
    if not ctx.project:
        return
    from . import api

    rep = api.previous_report(ctx.store, f"project:{ctx.project}")
    if rep is None:
        return
    summary = " ".join(rep["summary"].split())
    if len(summary) > MAX_CHARS:
        summary = summary[: MAX_CHARS - 1] + "…"
    resp.add_context(f"Previous session in {ctx.project} ({rep['created_at'][:10]}): {summary}")
    ctx.audit("inject", context="session report", result=rep["id"])
