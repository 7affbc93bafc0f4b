"""UserPromptSubmit correction capture and Stop marker parsing (issue 4)."""


def user_prompt_submit(ctx, resp):
    return None


def stop(ctx, resp):
    return None
