"""PreToolUse enforcement and PostToolUse verification (issue 3)."""


def pre_tool_use(ctx, resp):
    return None


def post_tool_use(ctx, resp):
    return None
