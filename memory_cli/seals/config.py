"""The settings that decide what the gate enforces and where sessions go, sealed whenever
memory-cli writes the config: a change made by anything else is said.

``memory-cli config set`` (every write of the config goes through :mod:`memory_cli.config_edit`)
and ``install`` record, beside the config file, the values of the keys in :data:`WATCHED` as they
now stand. At SessionStart and in ``doctor``, a watched key whose value differs from that
record was changed outside memory-cli (an editor, or the agent's ``sort -o config.json``), and
each such key is named with the way to confirm it or put it back. A change to any other key
(budgets, retrieval weights) is the person's tuning and is not said.

Standard library only (SessionStart reads it).
"""

from __future__ import annotations

import json
import os

# What turns enforcement off or weakens it, and what sends the person's sessions elsewhere.
WATCHED = (
    "database_path",
    "enforcement.enabled",
    "enforcement.default_action",
    "enforcement.headless_ask",
    "enforcement.max_latency_ms",
    "enforcement.hook_route",
    "protection.enabled",
    "verification.enabled",
    "llm.provider",
    "llm.base_url",
    "llm.session_end",
    "llm.claude_command",
    "llm.api_key_env",
)
_ABSENT = "(not set)"


def seal_path(config_path: str | None = None) -> str:
    from ..paths import config_file

    return (config_path or config_file()) + ".seal"


def _values(config_path: str) -> dict[str, object] | None:
    """The watched keys as the file sets them (None: the file cannot be read as JSON)."""
    try:
        with open(config_path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    except OSError:
        return None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    out: dict[str, object] = {}
    for key in WATCHED:
        section, _, name = key.rpartition(".")
        holder = data.get(section) if section else data
        if isinstance(holder, dict) and name in holder:
            out[key] = holder[name]
    return out


def seal(config_path: str | None = None, keys: tuple[str, ...] | None = None) -> None:
    """Record the watched keys as the config now sets them: all of them when the person runs
    ``install``; with ``keys`` (``config set`` of one key) only those, so a change made outside
    memory-cli to another key is not confirmed by the person's unrelated write. A config that
    cannot be read is left unsealed: the gate already refuses to run on it."""
    from ..files import private_file
    from ..paths import config_file

    path = config_path or config_file()
    values = _values(path)
    if values is None:
        return
    target = seal_path(path)
    if keys is not None:
        try:
            with open(target, encoding="utf-8") as f:
                sealed = json.load(f).get("values")
        except (OSError, ValueError, AttributeError):
            sealed = None
        if isinstance(sealed, dict):
            for key in WATCHED:
                if key not in keys:
                    if key in sealed:
                        values[key] = sealed[key]
                    else:
                        values.pop(key, None)
    os.makedirs(os.path.dirname(target) or ".", mode=0o700, exist_ok=True)
    private_file.replace(target, (json.dumps({"values": values}, sort_keys=True) + "\n").encode())


def changes(config_path: str | None = None) -> list[tuple[str, object, object]]:
    """``(key, sealed value, value now)`` for each watched key changed outside memory-cli."""
    from ..paths import config_file

    path = config_path or config_file()
    try:
        with open(seal_path(path), encoding="utf-8") as f:
            sealed = json.load(f).get("values")
    except (OSError, ValueError, AttributeError):
        return []
    now = _values(path)
    if not isinstance(sealed, dict) or now is None:
        return []
    return [
        (key, sealed.get(key, _ABSENT), now.get(key, _ABSENT))
        for key in WATCHED
        if sealed.get(key, _ABSENT) != now.get(key, _ABSENT)
    ]


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def notice(config_path: str | None = None) -> str | None:
    """The line said at SessionStart and by ``doctor``, else None."""
    try:
        found = changes(config_path)
    except Exception:
        return None
    if not found:
        return None
    from ..paths import config_file

    said = "; ".join(f"{k}: {_shown(was)} -> {_shown(now)}" for k, was, now in found)
    key, was, now = found[0]
    put = f"`memory-cli config unset {key}`" if was == _ABSENT else f"`memory-cli config set {key} {_shown(was)}`"
    keep = f"`memory-cli config unset {key}`" if now == _ABSENT else f"`memory-cli config set {key} {_shown(now)}`"
    return (
        f"memory-cli: its config {config_path or config_file()} was changed outside memory-cli ({said}). "
        f"If you made this change, confirm it with {keep}; otherwise put it back with {put}."
    )
