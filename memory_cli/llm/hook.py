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

    from ..settings import value

    if not _in_plugin():
        return  # not a plugin session: `install` at a terminal asks the person itself
    if value(ctx.settings, "llm.provider") != "none" or not value(ctx.settings, "llm.session_end"):
        return
    if (ctx.payload or {}).get("source") not in (None, "startup"):
        return
    from ..store import kvstate
    from ..store.db import LockBusy
    from .offer import OFFERED_KEY, session_start_line

    if kvstate.get(ctx.store, OFFERED_KEY):
        return
    try:
        kvstate.put(ctx.store, OFFERED_KEY, "session_start")
    except LockBusy:
        return  # shown by a later session rather than twice
    resp.notify(session_start_line(ctx.settings))


def _in_plugin() -> bool:
    """This process runs memory-cli as a Claude Code plugin: Claude Code named the plugin's
    folder, or this package sits in a plugin folder (beside its ``.claude-plugin/plugin.json``)."""
    import os

    if os.environ.get("CLAUDE_PLUGIN_ROOT"):
        return True
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.isfile(os.path.join(os.path.dirname(package), ".claude-plugin", "plugin.json"))
