"""Maintenance's part of the hooks: hand daily upkeep off, and re-sync pins before compaction.

SessionStart and SessionEnd only *start* maintenance (decay, backup, audit retention) in a
detached process, at most once a day, and return at once. SessionEnd also queues its transcript
(memory_cli.llm.queue) and starts the job's session-summary step even when the daily part
already ran today. SessionEnd has 1.5 s in all and SessionStart stands between the person and their first prompt. When maintenance already ran
today this costs one small file read.

PreCompact first pins the critical rules that bind here (global and this project's, including
rules escalated to critical by violations), then rewrites the pinned block of the global and the
project CLAUDE.md, since Claude Code re-reads the project's CLAUDE.md after compaction. PreCompact has no channel to Claude; a
hand-edited block is reported to the person (``systemMessage``) and left as it is.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


def _start_maintenance(ctx, *, session_summaries: bool = False) -> None:
    from ..settings import value as setting

    enabled = bool(setting(ctx.settings, "maintenance.enabled"))
    if not enabled and not session_summaries:
        return
    from memory_cli.maintenance import detached

    try:
        outcome = detached.spawn_maintenance(
            ctx.store.path,
            time_limit=float(setting(ctx.settings, "maintenance.time_limit_s")),
            session_summaries=session_summaries,
            daily=enabled,
        )
    except OSError as err:
        ctx.audit(
            "maintenance", result="not started", context=ctx.event, details={"error": f"{type(err).__name__}: {err}"}
        )
        return
    if outcome in (detached.SPAWNED, detached.SPAWNED_SUMMARIES):
        ctx.audit(
            "maintenance",
            result="started" if outcome == detached.SPAWNED else "started: session summaries",
            context=ctx.event,
        )


def session_start(ctx: HookContext, resp: Response) -> None:
    _start_maintenance(ctx)


def session_end(ctx: HookContext, resp: Response) -> None:
    # The transcript is only queued here; the detached job writes its memories.
    from memory_cli.llm.queue import enqueue_from_hook

    _start_maintenance(ctx, session_summaries=enqueue_from_hook(ctx))


def pre_compact(ctx: HookContext, resp: Response) -> None:
    from memory_cli.maintenance import pins
    from memory_cli.store.locks import LockBusy

    targets = {pins.GLOBAL_TARGET}
    if ctx.project_root:
        targets.add(pins.project_target(ctx.project_root, ctx.settings))
        # Pins of this project written from another checkout of it.
        for target, info in pins.kvstate.with_prefix(ctx.store, pins.FILE_KEY).items():
            if isinstance(info, dict) and info.get("project") == ctx.project:
                targets.add(target)
    try:
        targets |= pins.pin_critical_before_compaction(
            ctx.store, project=ctx.project, project_root=ctx.project_root, settings=ctx.settings
        )
        reports = pins.sync(ctx.store, targets=targets, settings=ctx.settings)
    except LockBusy:
        ctx.audit("pin", context="sync", result="skipped: another memory-cli is writing CLAUDE.md")
        return
    for r in reports:
        if r.get("conflict"):
            resp.notify(
                f"memory-cli: the pinned block in {r['path']} was edited by hand, so it was "
                "not refreshed before compaction; run `memory-cli pins --sync` to see what to do"
            )
