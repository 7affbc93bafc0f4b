"""The team's part of SessionStart and SessionEnd: start a detached sync, never wait for it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


def _start(ctx, at_end: bool) -> None:
    from memory_cli.team import background

    try:
        outcome = background.maybe_start(ctx.store, ctx.settings, at_end=at_end)
    except OSError as err:
        ctx.audit(
            "team_sync", result="not started", context=ctx.event, details={"error": f"{type(err).__name__}: {err}"}
        )
        return
    if outcome == background.STARTED:
        ctx.audit("team_sync", result="started", context=ctx.event)


def session_start(ctx: HookContext, resp: Response) -> None:
    _start(ctx, at_end=False)


def session_end(ctx: HookContext, resp: Response) -> None:
    _start(ctx, at_end=True)
