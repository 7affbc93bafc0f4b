"""PostToolUse: the duration of recurring commands (test runs, builds) as metric samples, and a
word to Claude when a run takes far longer than usual ("this run took 6.1x its usual time").

Claude Code sends ``duration_ms`` with PostToolUse. Commands shorter than ``MIN_MS`` are not
recorded (they are not what a baseline helps with, and every tool call would add a row). The
metric name is the command with its directory change and environment assignments dropped and
its whitespace collapsed, so `cd api && pytest -q` and `pytest  -q` share one baseline.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response

MIN_MS = 1000
MAX_NAME = 120
_LEAD = r"^\s*(?:cd\s+\S+\s*(?:&&|;)\s*)+"
_ENV = r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+"


def metric_name(command: str) -> str | None:
    import re  # only for a command that ran a second or more: most calls never get here

    text = re.sub(_ENV, "", re.sub(_LEAD, "", command or "")).strip()
    text = " ".join(text.split())
    if not text:
        return None
    return "cmd: " + text[:MAX_NAME]


def post_tool_use(ctx: HookContext, resp: Response) -> None:
    if ctx.tool_name != "Bash":
        return
    duration = ctx.payload.get("duration_ms")
    command = ctx.tool_input.get("command")
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or duration < MIN_MS:
        return
    name = metric_name(command) if isinstance(command, str) else None
    if name is None:
        return
    from . import api

    scope = f"project:{ctx.project}" if ctx.project else "global"
    seconds = round(float(duration) / 1000.0, 3)
    verdict = api.check(ctx.store, name, seconds, scope=scope)
    from ..store.db import LockBusy

    try:
        api.record(ctx.store, name, seconds, unit="s", scope=scope, session_id=ctx.session_id or None, audited=False)
    except LockBusy:  # another process is writing: the sample waits in the spool
        from ..store import spool

        args = {"name": name, "value": seconds, "unit": "s", "scope": scope, "session_id": ctx.session_id or None}
        spool.put(ctx.store.path, [spool.make("metric", args)])
    if not verdict["normal"]:
        resp.add_context(
            f"memory-cli: this run of `{name[5:]}` was unusual: {verdict['why']}. Something "
            "may be wrong (a hang, a retry loop, a cold cache); check before going on."
        )
        ctx.audit("baseline_abnormal", context=name, result=str(seconds), details=verdict)
