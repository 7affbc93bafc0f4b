"""Maintenance and pin sync (issue 6)."""


def session_start(ctx, resp):
    return None


def pre_compact(ctx, resp):
    return None


def session_end(ctx, resp):
    return None
