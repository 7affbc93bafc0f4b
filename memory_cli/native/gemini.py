"""Gemini CLI's policy engine: ``~/.gemini/policies/memory-cli.toml``, the user tier.

Gemini CLI reads every ``*.toml`` of ``~/.gemini/policies`` as user-tier policy (tier 4 of 5,
above the defaults, extensions and the workspace; only the root-owned admin tier is higher). A
rule's ``commandPrefix`` matches the shell command's leading words (followed by a space, a
quote or the end: ``git push --force`` does not match ``git push --force-with-lease``).
Priority 999 is the highest within the tier, so the deny holds even in ``--yolo`` runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from .select import NativeRule

AGENT = "gemini"
FILE_NAME = "memory-cli.toml"
DECISION = {"deny": "deny", "ask": "ask_user"}
PRIORITY = 999


def path() -> Path:
    return Path.home() / ".gemini" / "policies" / FILE_NAME


def _s(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for one-line text)."""
    return json.dumps(text, ensure_ascii=False)


def render(rules: list[NativeRule]) -> str:
    out = []
    for r in rules:
        lines = [
            "[[rule]]",
            'toolName = "run_shell_command"',
            f"commandPrefix = {_s(r.prefix)}",
            f"decision = {_s(DECISION[r.decision])}",
            f"priority = {PRIORITY}",
        ]
        if r.decision == "deny":
            lines.append(f"denyMessage = {_s(r.message)}")
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)
