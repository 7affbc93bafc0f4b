"""``install --harden`` and its undoing in ``uninstall``: the sandbox part of the user's Claude
Code settings, planned beside the hook entries so the person sees one diff per file."""

from __future__ import annotations

import sys
from pathlib import Path

NOTICE = (
    "memory-cli: --harden turns on Claude Code's sandbox for the agent's Bash tool. Besides keeping memory-cli's "
    "state (above) read-only or unreadable to it, the sandbox also limits every command the agent runs: no writes "
    "outside the project and the temp folder, and network only through Claude Code's proxy (it asks before a new "
    "host). `memory-cli uninstall` takes out exactly these entries."
)


def plan_harden(changes: list) -> tuple[list, dict]:
    """``changes`` with the sandbox entries merged into the user settings' planned content
    (added as a change of its own when the hooks go to another file)."""
    from .. import harden
    from .. import install as lib
    from .common import db_path

    user = lib.settings_file("user")
    db = str(db_path())
    write, read = harden.deny_write(db), harden.deny_read(db)
    out = list(changes)
    for i, (path, before, after) in enumerate(out):
        if Path(path) == user:
            hardened, record = harden.with_harden(after, write, read)
            out[i] = (path, before, hardened)
            break
    else:
        current = lib.load_settings(user)
        hardened, record = harden.with_harden(current, write, read)
        out.append((user, current, hardened))
    return out, {"path": str(user), "record": record}


def after_harden(planned: dict | None, dry_run: bool) -> None:
    from .. import harden

    if not planned:
        return
    if not dry_run:
        harden.save_record(planned["path"], planned["record"])
    print(NOTICE, file=sys.stderr)
    missing = harden.missing_programs()
    if missing:
        print(
            f"memory-cli: the sandbox needs {' and '.join(missing)} on this system (Debian/Ubuntu: "
            "apt-get install bubblewrap socat); until then Claude Code runs Bash unsandboxed",
            file=sys.stderr,
        )


def plan_unharden(changes: list) -> tuple[list, str | None]:
    """``changes`` with what ``--harden`` recorded taken out of the user settings."""
    from .. import harden
    from .. import install as lib

    user = lib.settings_file("user")
    record = (harden.load_record() or {}).get(str(user))
    if not isinstance(record, dict):
        return changes, None
    out = list(changes)
    for i, (path, before, after) in enumerate(out):
        if Path(path) == user:
            out[i] = (path, before, harden.without_harden(after, record))
            return out, str(user)
    current = lib.load_settings(user)
    out.append((user, current, harden.without_harden(current, record)))
    return out, str(user)


def forget(path: str) -> None:
    from .. import harden

    harden.forget_record(path)


def trust_codex_hooks() -> None:
    """Codex runs a hook only once trusted at its current hash: trust memory-cli's own through
    Codex's app-server, or say how to."""
    import os

    from .. import codex_trust

    binary = codex_trust.codex_binary()
    if binary is None:
        print("memory-cli: codex is not on PATH: trust memory-cli's hooks in Codex with /hooks", file=sys.stderr)
        return
    try:
        done = codex_trust.trust_ours(binary, os.getcwd())
    except OSError as e:
        print(f"memory-cli: could not ask Codex to trust the hooks ({e}); use /hooks in Codex", file=sys.stderr)
        return
    print(
        f"memory-cli: Codex now trusts memory-cli's hooks at their current hashes ({len(done)} newly)", file=sys.stderr
    )
