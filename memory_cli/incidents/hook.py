"""PostToolUseFailure: when a command fails like a recorded incident did, offer what resolved it.

Only resolved incidents that match clearly are offered (one to two lines each), after the
memories retrieval offers. Keywords always; meaning only if the embedding daemon answers within
the hook's daemon limit.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response

# The query is a whole error message, so even a true match covers only part of its words: a
# quarter of the query's weight (keyword-only) is where matches stop being look-alikes.
MIN_SCORE = 0.25
MAX_OFFERED = 2


def post_tool_use_failure(ctx: HookContext, resp: Response) -> None:
    if ctx.payload.get("is_interrupt"):
        return
    error = ctx.payload.get("error")
    if not isinstance(error, str) or not error.strip():
        return
    command = ctx.tool_input.get("command") if isinstance(ctx.tool_input.get("command"), str) else None
    from ..retrieval.per_failure import failure_query
    from . import api

    query = failure_query(error, command)
    if not query:
        return
    from ..settings import value as setting

    timeout = min(100.0, float(setting(ctx.settings, "daemon.request_timeout_ms")))
    found = api.search(ctx.store, query, status="resolved", limit=MAX_OFFERED, timeout_ms=timeout, min_score=MIN_SCORE)
    if not found:
        return
    lines = ["memory-cli: this failure looks like incidents resolved before:"]
    for inc in found:
        cause = f" Cause: {inc['cause']}." if inc.get("cause") else ""
        lines.append(f"- {inc['title']} ({inc['created_at'][:10]}).{cause} Resolved by: {inc['resolution']}")
    resp.add_context("\n".join(lines))
    ctx.audit(
        "inject",
        context="incidents",
        result=f"{len(found)} incident(s)",
        details={"incidents": [i["id"] for i in found]},
    )
