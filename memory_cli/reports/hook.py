"""SessionStart: the project's previous session report, in a few lines, so a new session starts
from where the last one ended. Each line is cut to ``LINE_CHARS`` and the whole to ``MAX_CHARS``,
so that one long line (the first request, a pasted error) cannot hide the rest (what the person
decided and corrected, what was left), and the report never crowds out the memories."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response

MAX_CHARS = 1400
LINE_CHARS = 320


def fit(summary: str) -> str:
    """The report's lines, each within ``LINE_CHARS``, as many whole lines as fit ``MAX_CHARS``."""
    out: list[str] = []
    used = 0
    for raw in summary.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if len(line) > LINE_CHARS:
            line = line[: LINE_CHARS - 1] + "…"
        if used + len(line) + 1 > MAX_CHARS:
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def session_start(ctx: HookContext, resp: Response) -> None:
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
    summary = fit(rep["summary"])
    by: dict = {"agent": "saved by the agent", "session": "summarised at session end", "manual": "written by you"}
    origin = by.get(rep.get("source"), rep.get("source") or "")
    resp.add_context(f"Previous session in {ctx.project} ({rep['created_at'][:10]}, {origin}):\n{summary}")
    ctx.audit("inject", context="session report", result=rep["id"])
