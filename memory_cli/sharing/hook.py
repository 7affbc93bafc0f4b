"""SessionStart loads the repository's shared file when it changed (a read and a hash when it
did not). Tool calls never look at it: the rules it holds are in the store, and the rule cache,
by then."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..hooks.context import HookContext
    from ..hooks.response import Response


# SessionStart's share of its 8 s deadline for loading a changed repository file: a file at its
# caps takes about 1.5 s of CPU, which a loaded machine stretches past the deadline; what is not
# reached waits for the next session start (rules first).
LOAD_BUDGET_S = 3.0


def session_start(ctx: HookContext, resp: Response) -> None:
    from memory_cli import sharing

    if not ctx.project_root or sharing.nothing_to_load(ctx.store, ctx.project_root):
        return
    from memory_cli.errors import InvalidInput
    from memory_cli.sharing import api

    try:
        result = api.load(ctx.store, ctx.project_root, budget_s=LOAD_BUDGET_S)
    except InvalidInput as err:
        resp.notify(f"memory-cli: {err} (the shared memory was not loaded; nothing changed)")
        ctx.audit("repo_load", result="malformed", context=str(err))
        return
    line = api.summary(result) if result else None
    if line:
        resp.notify(line)
