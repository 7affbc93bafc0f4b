"""What changed memory-cli's rules, hooks or rule cache outside memory-cli: said, never silent.

Without ``install --harden`` the agent shares the person's account, so a route nobody listed can
still change memory-cli's state. What gets through is noticed here, at the next SessionStart
(a line the person sees and the same facts for the agent) and in ``memory-cli doctor``:

- rules changed by a process that was not memory-cli (:mod:`.confirmed`; the gate keeps
  enforcing the confirmed rules until the person runs ``memory-cli rules accept-changes``);
- the sealed rule cache deleted (the gate rebuilds it from the store, but the deletion is said:
  the gate notes it in ``kv`` when it finds the file gone while its seal is still recorded);
- memory-cli's PreToolUse hook gone from the Claude Code settings files it was installed in,
  or registered without ``onFailure: "block"`` (a crashed or hung gate would let calls through);
- a setting that decides enforcement changed outside ``memory-cli config``, and memory-cli's own
  code or bytecode changed since ``install`` sealed it (:mod:`memory_cli.seals`).

A deleted store is the hook runner's to say (it is checked before the store is opened, and no
hook recreates a store that existed; see :mod:`memory_cli.hooks.fail_closed`).
"""

from __future__ import annotations

import os

CACHE_GONE_KEY = "rules.cache-deleted-at"


def note_cache_deleted(store) -> None:
    """The gate found the sealed rule cache gone: kept for the next SessionStart and doctor
    (never waits for the write lock; a lost note costs only the notice)."""
    try:
        from ..store import kvstate
        from ..util import now_iso

        with store.transaction(wait=False):
            if not kvstate.exists(store, CACHE_GONE_KEY):
                kvstate.put_raw(store, CACHE_GONE_KEY, now_iso(), gate=False)
    except Exception:
        pass


def _cache_line(store, clear: bool) -> str | None:
    from ..store import kvstate

    at = kvstate.raw(store, CACHE_GONE_KEY)
    if not at:
        return None
    if clear:
        try:
            with store.transaction(wait=False):
                kvstate.delete(store, CACHE_GONE_KEY)
        except Exception:
            pass
    from .confirmed import _clock

    return (
        f"memory-cli: its rule cache beside the store was deleted by a process that was not memory-cli "
        f"(noticed at {_clock(at)}); the gate rebuilt it from the store. Run `memory-cli doctor` if you did not do this."
    )


def _gate_entries(path) -> list[dict] | None:
    """memory-cli's PreToolUse handlers in one settings file (None: the file has none of ours)."""
    from pathlib import Path

    from .. import install

    try:
        data = install.load_settings(Path(path))
    except Exception:
        return None
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return None
    ours_anywhere = False
    gate: list[dict] = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            for h in (group or {}).get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(h, dict) and install.is_ours(h):
                    ours_anywhere = True
                    if event == "PreToolUse":
                        gate.append(h)
    return gate if ours_anywhere else None


def hook_lines(cwd: str | None = None) -> list[str]:
    """Settings files that load memory-cli's hooks but lost its gate or its ``onFailure``."""
    if os.environ.get("CLAUDE_PLUGIN_ROOT"):  # the plugin's own hooks.json holds the gate
        return []
    from ..seals.installed import claude_settings_files, names_our_hooks

    out = []
    for path in claude_settings_files(cwd):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        if "hook PreToolUse" in text and '"onFailure"' in text:
            continue  # as install wrote it (read in full only when it may not be: a fraction of a ms)
        if not names_our_hooks(text):
            continue  # none of memory-cli's hooks
        gate = _gate_entries(path)
        if gate is None:
            continue
        if not gate:
            out.append(
                f"memory-cli: its PreToolUse hook is gone from {path} while its other hooks are still "
                "there (the file was rewritten outside memory-cli): tool calls are not checked against "
                "your rules; run `memory-cli install`"
            )
        elif any(h.get("onFailure") != "block" for h in gate):
            out.append(
                f"memory-cli: its PreToolUse hook in {path} is registered without onFailure: block, so a "
                "gate that crashes or hangs lets the call through; run `memory-cli install`"
            )
    return out


def findings(
    store, cwd: str | None = None, *, clear: bool = False, claude_settings: bool = True, live: bool = False
) -> list[str]:
    """Every change made outside memory-cli that the person has not yet been told of or accepted
    (``claude_settings``: also Claude Code's settings files; ``live``: memory-cli's code checked
    now, not as the last detached job noted it)."""
    from .confirmed import changes

    out = []
    try:
        changed = changes(store)
    except Exception:
        changed = None
    if changed is not None:
        out.append(changed.line())
    try:
        cache = _cache_line(store, clear)
    except Exception:
        cache = None
    if cache:
        out.append(cache)
    try:
        out.extend(hook_lines(cwd) if claude_settings else [])
    except Exception:
        pass
    from ..seals import code, config

    try:
        if live:
            code_line = code.notice()
        else:
            noted = code.noted(store)
            code_line = code.notice(found=noted) if noted else None
    except Exception:
        code_line = None
    for line in (config.notice(), code_line):
        if line:
            out.append(line)
    return out


def session_start(ctx, resp) -> None:
    """SessionStart: tell the person (``systemMessage``) and the agent (context) what changed."""
    claude = getattr(ctx, "client", None) in (None, "claude")
    for line in findings(ctx.store, ctx.payload.get("cwd"), clear=True, claude_settings=claude):
        resp.notify(line)
        resp.add_context(
            "memory-cli's state was changed outside memory-cli; do not change memory-cli's rules, "
            "hooks or store yourself. " + line.removeprefix("memory-cli: ")
        )


def doctor_checks(store, settings) -> list[dict]:
    """``memory-cli doctor``: one check, ok or the changes made outside memory-cli."""
    lines = findings(store, os.getcwd(), live=True)
    if not lines:
        return [
            {
                "name": "outside changes",
                "status": "ok",
                "detail": "rules, rule cache, gate hook, enforcement settings and code as memory-cli left them",
            }
        ]
    return [
        {"name": "outside changes", "status": "fail", "detail": line.removeprefix("memory-cli: ")} for line in lines
    ]
