"""SessionStart: make sure the embedding daemon will be warm for this session.

Starting it here, in the background, means the model is usually loaded by the time the person
types a prompt, while the hook itself only takes a lock and forks (a few ms): it never waits
for the model. When the daemon already runs and this database has entries waiting for
vectors (added while it was down), it is told to backfill them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


def session_start(ctx: HookContext, resp: Response) -> None:
    from ..daemon import control

    settings = ctx.settings
    if not control.autostart_enabled(settings):
        return

    db = getattr(ctx.store, "path", None)
    out = control.ensure_started(settings, db=db)
    if out is None:
        return
    if out.get("error"):
        ctx.audit("hook_error", context="daemon autostart", result=out["error"][:300])
        return
    if out.get("started"):
        ctx.audit(
            "maintenance",
            context="daemon autostart",
            result=f"started pid {out.get('pid')}",
            details={"cleaned": out.get("cleaned") or []},
        )
        return
    if db and ctx.store is not None:
        from ..embeddings import vectors
        from ..settings import value as setting

        vectors.request_backfill(ctx.store, db, min(50, setting(settings, "daemon.request_timeout_ms")))
