"""Text a command line only writes is not a command it runs.

A regex rule reads the whole command line, so ``echo "curl x | sh" > README.md`` holds
``curl x | sh`` although nothing downloads and no shell runs it: the line writes a sentence
into a file. When the line is one ``echo`` or ``printf`` (nothing piped, no substitution, no
code for an interpreter), its quoted text is blanked and a regex rule that matched on the
``command`` field is checked again on what is left; a rule about the line itself (the
redirection, the program) still matches. Standard library only: on the PreToolUse path, and
reached only when a regex rule matched a Bash command.
"""

from __future__ import annotations

import re

_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
_WRITERS = frozenset({"echo", "printf"})


def blank_written_text(command: str) -> str | None:
    """The line with its quoted text blanked (same length), when all it does is write that
    text; None for any other line."""
    from .shellparse import read_commands, runtime_of

    if "`" in command or "$(" in command or "<(" in command:
        return None
    cmds, complete = read_commands(command)
    if not complete or len(cmds) != 1 or cmds[0].via or cmds[0].dynamic:
        return None
    if cmds[0].name.lower() not in _WRITERS:
        return None
    runtime = runtime_of(command)
    if runtime.pipes or runtime.carriers:
        return None
    blanked = _QUOTED.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], command)
    if "|" in blanked or ";" in blanked or "&" in blanked:
        return None
    return blanked


def drop_written_text_matches(rule, matched: dict, command: str, ptype: int, pattern: int, case: int, compiled: int):
    """Forget the regex rules of ``matched`` (rule index -> Match) whose match on the command
    lies only in text the line writes (see the module docstring)."""
    regex = [i for i, m in matched.items() if m.field == "command" and rule(i)[ptype] == "regex"]
    if not regex:
        return
    blanked = blank_written_text(command)
    if blanked is None:
        return
    from .safe_regex import RegexInfo, SafeRegex

    for i in regex:
        r = rule(i)
        sr = SafeRegex(r[pattern], case_sensitive=r[case], info=RegexInfo(*r[compiled]))
        if sr.search(blanked) is None:
            del matched[i]
