"""What an installed hook command pins, so the environment cannot switch the person's rules off.

``memory-cli install`` writes the store (``--db``) and the config (``--config``) it was installed
with into every hook command it registers. A hook's environment is not the person's alone: a
repository's committed ``.claude/settings.json`` ``env`` block, and ``.claude/settings.local.json``
(which an agent can write), set variables for every hook Claude Code runs. So on a pinned
command:

* ``MEMORY_CLI_CONFIG`` is ignored: the pinned config is read (a config with enforcement off
  cannot be swapped in);
* ``MEMORY_CLI_DB`` naming another store (an empty one, say) is ignored: the store is ``--db``,
  else the pinned config's ``database_path``, else the default;
* ``MEMORY_CLI_DB=""`` (memory switched off, as memory-cli's own ``claude -p`` calls ask) keeps
  capture and injection off, but the rules still hold: PreToolUse and PostToolUse run against
  the pinned store.

SessionStart says in one line what was ignored. Without a pin (an older install, a command a
test or a person wrote by hand) the environment is the source, as it always was.

The pinned values are put back into this process's environment, so the detached processes a
hook starts (maintenance, the embedding daemon) use the same store and config.
"""

from __future__ import annotations

import os

# Events that check tool calls against rules: they run even when MEMORY_CLI_DB="" asks for
# memory to be off, if the command is pinned.
ENFORCING = frozenset({"PreToolUse", "PostToolUse"})


class Pin:
    """The outcome for one hook call: ``db`` to use as the ``--db`` override (None: the usual
    resolution), ``skip`` (memory is off and this event enforces nothing: a silent no-op),
    ``quiet`` (memory is off: only the notice, no handlers) and ``notice`` (one line for
    SessionStart, or None)."""

    __slots__ = ("db", "skip", "quiet", "notice")

    def __init__(self, db, skip=False, quiet=False, notice=None):
        self.db = db
        self.skip = skip
        self.quiet = quiet
        self.notice = notice


def _same(a: str, b: str) -> bool:
    try:
        return os.path.realpath(os.path.expanduser(a)) == os.path.realpath(os.path.expanduser(b))
    except (OSError, ValueError):
        return False


def _shown(name: str, value: str) -> str:
    """``NAME=value`` for the one-line notice: whitespace folded, at most 120 characters."""
    text = " ".join(value.split()) or "(empty)"
    return f"{name}={text if len(text) <= 120 else text[:119] + '…'}"


def resolve(event: str, db: str | None, config: str | None) -> Pin:
    """Apply the pin of a hook command (``db``/``config`` from its command line) to this
    process's environment; see the module docstring."""
    env = os.environ
    if not db and not config:
        from ..settings import memory_disabled

        return Pin(None, skip=memory_disabled(None))
    ignored = []
    env_config = env.get("MEMORY_CLI_CONFIG")
    if config:
        config = os.path.expanduser(config)
        if env_config is not None and not _same(env_config, config):
            ignored.append(_shown("MEMORY_CLI_CONFIG", env_config))
        env["MEMORY_CLI_CONFIG"] = config
    env_db = env.get("MEMORY_CLI_DB")
    off = env_db == ""
    if db:
        store = os.path.expanduser(db)
    elif config:
        from .. import settings as settings_mod

        env.pop("MEMORY_CLI_DB", None)
        store = settings_mod.database_path(None, settings_mod.load())
    else:
        store = None
    if store is not None:
        if env_db is not None and (off or not _same(env_db, store)):
            ignored.append(_shown("MEMORY_CLI_DB", env_db))
        env["MEMORY_CLI_DB"] = store
    notice = None
    if ignored and event == "SessionStart":
        if off:
            notice = (
                f"ignored {' and '.join(ignored)} from the environment for its rules: "
                f"enforcing {store}; memories are neither captured nor injected in this session"
            )
        else:
            notice = f"ignored {' and '.join(ignored)} from the environment; enforcing {store}"
    quiet = off and event not in ENFORCING
    return Pin(store, skip=quiet and notice is None, quiet=quiet, notice=notice)
