"""A call rewritten to the replacement its rule names: "use pnpm, not npm" turns ``npm install``
into ``pnpm install``.

Claude Code accepts ``updatedInput`` with a PreToolUse ``ask`` (checked in 2.1.328: the call
awaiting the person's answer is the rewritten one), so the person sees the change before it
runs. Only a plain case is rewritten: the command begins with the rule's own words, holds one
command (no ``;``, ``&&``, pipes, substitutions or newlines), and the alternative reads as a
command (``use pnpm``, ``pnpm``, ``python.exe instead``) of plain words. Anything else is left
to the rule's ordinary answer. Standard library only: it runs in the PreToolUse hook.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"^[A-Za-z0-9_./@%+=,:-]+$")
_LEAD = re.compile(r"^(?:use|run|try|prefer|call)\s+", re.IGNORECASE)
_TAIL = re.compile(r"\s+(?:instead(?:\s+of\s+.*)?|rather\s+than\s+.*)$", re.IGNORECASE)
_NOT_ONE_COMMAND = re.compile(r"[;&|`\n\r<>]|\$\(")


def replacement_words(alternative: str | None) -> list[str] | None:
    """The command an alternative names, as words; None when it is prose."""
    if not alternative:
        return None
    text = alternative.strip().strip("`'\"").rstrip(".").strip()
    text = _TAIL.sub("", _LEAD.sub("", text)).strip().strip("`'\"")
    words = text.split()
    if not words or len(words) > 6 or not all(_WORD.match(w) for w in words):
        return None
    return words


def rewrite(command: str, pattern: str, alternative: str | None) -> str | None:
    """``command`` with the rule's words replaced by the alternative's; None when not plain."""
    words = replacement_words(alternative)
    tokens = (pattern or "").split()
    if not words or not tokens or words == tokens or not isinstance(command, str):
        return None
    if _NOT_ONE_COMMAND.search(command) or not all(_WORD.match(t) for t in tokens):
        return None
    m = re.match(r"\s*" + r"\s+".join(map(re.escape, tokens)) + r"(?=\s|$)", command)
    if not m:
        return None
    return " ".join(words) + command[m.end() :]
