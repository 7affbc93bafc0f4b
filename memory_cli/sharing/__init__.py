"""Rules and memories committed with the repository, in ``.claude/memory-cli.toml``.

``share``/``unshare`` write the file; every teammate's memory-cli loads it into the scope of
that checkout (``repo:<root>``) when it changed, at SessionStart, never on a tool call. The file is reviewed in pull requests like code, because what it holds is enforced in
everyone's sessions.
"""

from __future__ import annotations

import os

FILE_NAME = "memory-cli.toml"
#: ``kv`` key prefix of what was loaded from each repository root (its hash and entry ids).
KV_PREFIX = "sharing.file:"


def path_for(root: str) -> str:
    return os.path.join(root, ".claude", FILE_NAME)


def nothing_to_load(store, root: str) -> bool:
    """No file and nothing loaded from one before: the common case, decided with a ``stat`` and
    one primary-key read, before the loading code is imported (SessionStart runs this)."""
    if os.path.exists(path_for(root)):
        return False
    from memory_cli.store import kvstate

    return not kvstate.exists(store, KV_PREFIX + root)
