"""Codex CLI's execpolicy rules: ``$CODEX_HOME/rules/memory-cli.rules``.

Codex loads every ``*.rules`` file of ``$CODEX_HOME/rules`` (Starlark) and checks each rule's
``match``/``not_match`` examples when it loads them, like unit tests: an example that disagrees
makes Codex refuse the file. The examples written here were first checked against memory-cli's
own matcher (:mod:`.select`), so they agree with the rule they come from. ``codex execpolicy
check --rules FILE git push --force`` shows what Codex decides.
"""

from __future__ import annotations

import json
from pathlib import Path

from .select import NativeRule

AGENT = "codex"
FILE_NAME = "memory-cli.rules"
DECISION = {"deny": "forbidden", "ask": "prompt"}


def path() -> Path:
    from ..install_agents import codex_home

    return codex_home() / "rules" / FILE_NAME


def _s(text: str) -> str:
    """A Starlark string literal (JSON's escapes are Starlark's for one-line text)."""
    return json.dumps(text, ensure_ascii=False)


def _list(tokens) -> str:
    return "[" + ", ".join(_s(t) for t in tokens) + "]"


def render(rules: list[NativeRule]) -> str:
    out = []
    for r in rules:
        lines = [
            "prefix_rule(",
            f"    pattern = {_list(r.tokens)},",
            f"    decision = {_s(DECISION[r.decision])},",
            f"    justification = {_s(r.message)},",
        ]
        if r.match:
            lines.append(f"    match = [{', '.join(_list(m) for m in r.match)}],")
        if r.not_match:
            lines.append(f"    not_match = [{', '.join(_list(m) for m in r.not_match)}],")
        lines.append(")")
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)
