"""A lesson's text compiled into the cheapest check that sees its evidence.

Some behaviour is decided by what the turn *did*, not by what its last message says: "commit
after every change" is broken by a turn that wrote files and never ran ``git commit``, whatever
the reply claims. Those get a deterministic check over the turn's calls (no model, no tokens).
Everything else is judged by a model shown the final message. A lesson about a tool ("use the
project's MCP shell tool, not Bash") is a reminder beside the calls of the tools it names.
"""

from __future__ import annotations

import re

# Deterministic kinds: what the turn must have done after its last file change.
COMMIT_AFTER_EDIT = "commit_after_edit"
TESTS_AFTER_EDIT = "tests_after_edit"
JUDGE = "judge"

_COMMIT = re.compile(r"\bcommit(?:s|ted|ting)?\b", re.I)
_TESTS = re.compile(r"\b(?:run|rerun|re-run)\b.{0,30}\btests?\b|\btests?\b.{0,20}\b(?:pass|run)\b", re.I)
_EDIT_CONTEXT = re.compile(
    r"\b(?:every|each|after|before|finish|finishing|done|end|change|changes|edit|edits|edited|wrote|write|"
    r"modif\w*|turn|stop)\b",
    re.I,
)
_BEFORE_COMMIT = re.compile(r"\bbefore\s+(?:you\s+)?commit", re.I)
_NEGATED = re.compile(r"\b(?:don'?t|do not|never|no)\b.{0,20}\bcommit", re.I)

# Tool names a lesson may speak of, as Claude Code calls them (a reminder goes beside these).
_TOOL_WORDS = {
    "bash": "Bash",
    "shell": "Bash",
    "terminal": "Bash",
    "grep": "Grep",
    "glob": "Glob",
    "webfetch": "WebFetch",
    "web fetch": "WebFetch",
    "websearch": "WebSearch",
    "web search": "WebSearch",
    "notebook": "NotebookEdit",
    "task tool": "Task",
    "subagent": "Task",
}
_TOOL_CONTEXT = re.compile(r"\b(?:tool|mcp|instead of|rather than|not)\b", re.I)


def check_kind(text: str) -> str:
    """The check a Stop-check lesson compiles to: a deterministic kind where its evidence is the
    turn's calls, else ``judge``."""
    t = text or ""
    if _TESTS.search(t) and _BEFORE_COMMIT.search(t):
        return TESTS_AFTER_EDIT  # "run the tests before committing": the tests are the lesson
    if _COMMIT.search(t) and _EDIT_CONTEXT.search(t) and not _NEGATED.search(t):
        return COMMIT_AFTER_EDIT
    if _TESTS.search(t) and _EDIT_CONTEXT.search(t):
        return TESTS_AFTER_EDIT
    return JUDGE


def tools_named(text: str) -> list[str]:
    """The Claude Code tools a lesson is about ("use the MCP shell tool, not Bash" -> Bash), or []
    when it speaks of no tool as such."""
    low = (text or "").lower()
    if not _TOOL_CONTEXT.search(low):
        return []
    out: list[str] = []
    for word, tool in _TOOL_WORDS.items():
        if re.search(r"\b" + re.escape(word) + r"\b", low) and tool not in out:
            out.append(tool)
    return out


def propose(text: str, has_rule: bool) -> str:
    """The form proposed at approval: a rule when the lesson names a command or file the gate can
    decide; a reminder when it is about a tool but no pattern decides it; otherwise a Stop check."""
    if has_rule:
        return "rule"
    if tools_named(text) and check_kind(text) == JUDGE:
        return "reminder"
    return "stop-check"
