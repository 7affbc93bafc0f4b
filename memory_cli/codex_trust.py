"""Codex's hook trust, for memory-cli's own hooks.

Codex (0.169 and later) runs a non-managed hook only once it is trusted, and records trust per
hash of the hook's definition (``[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash``
in the user's ``config.toml``): every rewrite of ``hooks.json`` un-trusts what changed, and a
hook someone else rewrote is not run until the person reviews it. ``codex exec`` has no review
step, so an integrator trusts its own hooks through Codex's app-server: ``hooks/list`` reports
each hook's ``currentHash`` and ``trustStatus``, and ``config/value/write`` records a hash as
trusted. memory-cli trusts exactly its own hooks (the handlers whose command runs
``memory-cli ... hook``), at the hash they have now, and ``doctor`` checks that each of them is
still trusted at that hash.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

TIMEOUT_S = 20.0


def codex_binary() -> str | None:
    return shutil.which("codex")


def _rpc(binary: str, calls: list[tuple[str, dict]], cwd: str) -> dict[int, dict]:
    """Answers of Codex's app-server (JSON-RPC over stdio) to ``calls``, by position (1-based)."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"clientInfo": {"name": "memory-cli", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
    ]
    lines += [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(calls, start=1)]
    proc = subprocess.Popen(
        [binary, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
    )
    answers: dict[int, dict] = {}
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(x) + "\n" for x in lines))
        proc.stdin.flush()
        deadline = time.monotonic() + TIMEOUT_S
        while len(answers) < len(calls) + 1 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and isinstance(msg.get("id"), int):
                answers[msg["id"]] = msg
    finally:
        proc.kill()
        proc.wait()
    return answers


def hooks(binary: str, cwd: str) -> list[dict]:
    """Every hook Codex sees for ``cwd`` (key, command, currentHash, trustStatus...)."""
    answer = _rpc(binary, [("hooks/list", {"cwds": [cwd]})], cwd).get(1, {})
    data = (answer.get("result") or {}).get("data") or []
    return [h for entry in data for h in entry.get("hooks") or [] if isinstance(h, dict)]


def ours(listed: list[dict]) -> list[dict]:
    from .install import is_ours

    return [h for h in listed if h.get("handlerType") == "command" and is_ours({"command": h.get("command")})]


def trust_ours(binary: str, cwd: str) -> list[dict]:
    """Record memory-cli's hooks as trusted at their current hashes; returns those it wrote."""
    mine = [h for h in ours(hooks(binary, cwd)) if h.get("trustStatus") != "trusted" and h.get("currentHash")]
    calls = [
        (
            "config/value/write",
            {
                "keyPath": "hooks.state." + json.dumps(h["key"]) + ".trusted_hash",
                "value": h["currentHash"],
                "mergeStrategy": "replace",
            },
        )
        for h in mine
    ]
    if calls:
        answers = _rpc(binary, calls, cwd)
        mine = [h for i, h in enumerate(mine, start=1) if "result" in answers.get(i, {})]
    return mine


def doctor_checks(store, settings) -> list[dict]:
    """``codex hook trust``: each of memory-cli's Codex hooks trusted at its current hash."""
    from . import install_agents

    if not install_agents.registered("codex", "user"):
        return []
    binary = codex_binary()
    if binary is None:
        return [{"name": "codex hook trust", "status": "ok", "detail": "codex is not on PATH: trust not checked"}]
    try:
        mine = ours(hooks(binary, os.getcwd()))
    except OSError as e:
        return [{"name": "codex hook trust", "status": "warn", "detail": f"codex app-server did not answer: {e}"}]
    if not mine:
        return [{"name": "codex hook trust", "status": "warn", "detail": "Codex lists none of memory-cli's hooks"}]
    off = [h for h in mine if h.get("trustStatus") != "trusted"]
    if off:
        names = ", ".join(f"{h.get('eventName')} ({h.get('trustStatus')})" for h in off[:4])
        return [
            {
                "name": "codex hook trust",
                "status": "warn",
                "detail": f"{len(off)} of memory-cli's {len(mine)} Codex hooks not trusted at their current hash: "
                f"{names}; Codex skips them (`memory-cli install --agent codex` trusts them again, or /hooks in Codex)",
            }
        ]
    return [
        {
            "name": "codex hook trust",
            "status": "ok",
            "detail": f"Codex trusts memory-cli's {len(mine)} hooks at their current hashes",
        }
    ]
