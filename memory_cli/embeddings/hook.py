"""SessionStart: start the embedding daemon (issue 5)."""


def session_start(ctx, resp):
    return None
