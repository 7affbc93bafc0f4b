"""Injection and past-solution lookups (issue 5)."""


def session_start(ctx, resp):
    return None


def user_prompt_submit(ctx, resp):
    return None


def post_tool_use(ctx, resp):
    return None


def post_tool_use_failure(ctx, resp):
    return None
