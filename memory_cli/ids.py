"""What an id may look like, and how an id prefix is matched.

Ids memory-cli makes are UUID4 strings, but ids also arrive from outside: a repository's
``.claude/memory-cli.toml``, an ``import`` file, a team store's rows. An id ends up in URL
paths (the dashboard's buttons), audit rows and messages, so one that carries ``/``, ``?``,
``#``, ``..``, spaces or control characters could make a button act on another route or
entry. Every id taken from outside passes :func:`check_id`; the id prefixes a person types
are matched with :func:`like_prefix`, so ``%`` and ``_`` are literal characters and never
wildcards that match any entry. Standard library only (hooks import it).
"""

from __future__ import annotations

import re

from .errors import InvalidInput

MAX_LEN = 128
_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_LEN - 1}}}\Z")


def is_valid(value) -> bool:
    return isinstance(value, str) and _ID.match(value) is not None


def check_id(value, what: str = "id") -> str:
    """``value`` if it is a well-formed id (letters, digits, ``-``, ``_``, ``.``; starting with
    a letter or digit; at most 128 characters), else one :class:`InvalidInput` line."""
    if not is_valid(value):
        shown = repr(value)[:80]
        raise InvalidInput(
            f"{what} {shown} is not a valid id (letters, digits, '-', '_' and '.', starting with a "
            f"letter or digit, at most {MAX_LEN} characters)"
        )
    return value


def like_prefix(ref: str) -> str:
    """A LIKE pattern matching ids that start with ``ref`` literally; use with ``ESCAPE '\\'``."""
    return ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
