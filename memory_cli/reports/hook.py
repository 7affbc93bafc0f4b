"""SessionStart: the project's previous session report, in a few lines, so a new session starts
from where the last one ended. Cut to ``MAX_CHARS`` so it never crowds out the memories."""

from __future__ import annotations

MAX_CHARS = 600


def session_start(ctx, resp) -> None:
    """The previous report of this checkout only (``scope.checkout``): a report written in
    another folder of the same name (another clone) is not this project's past. Reports kept
    under the folder's name by earlier versions stay readable (``get_previous_report`` with
    ``project:<name>``) but are not injected."""
    from .. import scope as scopes

    here = scopes.checkout(ctx.project_root)
    if not here:
        return
    from . import api

    rep = api.previous_report(ctx.store, here)
    if rep is None:
        return
    summary = " ".join(rep["summary"].split())
    if len(summary) > MAX_CHARS:
        summary = summary[: MAX_CHARS - 1] + "…"
    by = {"agent": "saved by the agent", "session": "summarised at session end", "manual": "written by you"}
    origin = by.get(rep.get("source"), rep.get("source") or "")
    resp.add_context(f"Previous session in {ctx.project} ({rep['created_at'][:10]}, {origin}): {summary}")
    ctx.audit("inject", context="session report", result=rep["id"])
