"""Putting things in a store the way the CLI would, each in its own connection."""

from __future__ import annotations


def add_rule(db_path, content, **kw):
    """Store a rule through the rules API, in its own connection (as the CLI would)."""
    from memory_cli.rules import api
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        return api.create_rule(s, content, **kw)
