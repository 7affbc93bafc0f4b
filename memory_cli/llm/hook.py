"""SessionStart's part of session memories: the one-time offer of a model (standard library
and apsw only, as every hook)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


def session_start(ctx: HookContext, resp: Response) -> None:
    """In the plugin's first session, while no model writes session memories and the person was
    never asked, tell them once how to turn one on and what it costs (``install`` at a terminal
    asks instead)."""
    import os

    from ..settings import value

    if not os.environ.get("CLAUDE_PLUGIN_ROOT"):
        return  # a plugin session; `install` at a terminal asks the person itself
    if value(ctx.settings, "llm.provider") != "none" or not value(ctx.settings, "llm.session_end"):
        return
    if (ctx.payload or {}).get("source") not in (None, "startup"):
        return
    from .. import kvstate
    from ..db import LockBusy
    from .offer import OFFERED_KEY, session_start_line

    if kvstate.get(ctx.store, OFFERED_KEY):
        return
    try:
        kvstate.put(ctx.store, OFFERED_KEY, "session_start")
    except LockBusy:
        return  # shown by a later session rather than twice
    resp.notify(session_start_line(ctx.settings))
