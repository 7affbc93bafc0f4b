"""Commands that a written file would run: how a ``command`` rule verifies a Write or Edit.

"Writing a file containing pythonw.exe triggers a verification failure",
but a README saying "never use pythonw.exe" must not. So we look for the program where a
file runs it, not wherever the word appears:

- shell-like files (``.sh .bat .cmd .ps1``, Makefile, Dockerfile ``RUN``, a ``#!`` line): the
  lines that mention a rule's program are parsed as shell;
- code and config (``.py .js .json .yml`` ...): string literals on those lines are parsed as
  command lines, alone and joined (``subprocess.run(["git", "push", "--force"])``,
  ``"start": "pythonw.exe app.py"``);
- prose (``.md .txt .rst``) is not a program and is skipped.

Only lines that contain a candidate program name are looked at, so this stays cheap on large
files; a file that does not contain any program name even as a substring is settled without
importing ``re`` or the shell parser (PostToolUse of every Write pays for this module).
Standard library only.
"""

from __future__ import annotations

import os

_SHELL_EXT = {".sh", ".bash", ".zsh", ".ksh", ".fish", ".bat", ".cmd", ".ps1", ".psm1", ".command", ".mk"}
_SHELL_NAMES = {
    "makefile",
    "gnumakefile",
    "dockerfile",
    "containerfile",
    "justfile",
    "procfile",
    ".bashrc",
    ".zshrc",
    ".profile",
    ".bash_profile",
    "vagrantfile",
}
_PROSE_EXT = {".md", ".markdown", ".txt", ".rst", ".adoc", ".org", ".rtf", ".tex", ".html", ".htm", ".csv", ".log"}
# Past this size a word scan (needed with many command rules) would eat the budget.
MAX_SCAN_CHARS = 2 * 1024 * 1024
# Up to this many characters searched (keys x text), substring checks rule files out first.
_SUBSTRING_SCAN_CHARS = 4 * 1024 * 1024
_patterns = None


def _re():
    """(words, literal, exe suffix, Dockerfile prefix) patterns, compiled on first use."""
    global _patterns
    if _patterns is None:
        import re

        _patterns = (
            re.compile(r"[\w.+-]+"),
            re.compile(
                r'"((?:[^"\\\n]|\\.){1,2000})"|\'((?:[^\'\\\n]|\\.){1,2000})\'|'
                r"`([^`\n]{1,2000})`"
            ),
            re.compile(r"\.(exe|com|bat|cmd)$", re.IGNORECASE),
            re.compile(r"^\s*(?:RUN|CMD|ENTRYPOINT)\s+(?:\[)?", re.IGNORECASE),
        )
    return _patterns


def kind_of(file_path: str | None, content: str) -> str:
    """ "shell", "code" or "prose"."""
    name = os.path.basename((file_path or "").replace("\\", "/")).lower()
    ext = os.path.splitext(name)[1]
    if ext in _SHELL_EXT or name in _SHELL_NAMES or content.startswith("#!"):
        return "shell"
    if ext in _PROSE_EXT:
        return "prose"
    return "code"


def programs_mentioned(low: str, keys) -> set[str]:
    """Which program keys occur in the lowercased text. Few keys: a substring search each
    (fast even on megabytes); many keys: one word scan, looked up in the key set."""
    if len(keys) <= 16:
        return {k for k in keys if k in low}
    if len(keys) * len(low) <= _SUBSTRING_SCAN_CHARS and not any(k in low for k in keys):
        return set()  # a word equal to a key contains it: no key inside, no program named
    words_re, _lit, exe, _docker = _re()
    words = {exe.sub("", w) for w in words_re.findall(low)}
    return {w for w in words if w in keys}


def commands_in(file_path: str | None, content: str, keys) -> list | None:
    """Simple commands the file would run that involve one of ``keys``; None when the file is
    too large to scan within a hook's budget."""
    if not content:
        return []
    if len(content) > MAX_SCAN_CHARS and len(keys) > 16:
        return None
    kind = kind_of(file_path, content)
    if kind == "prose":
        return []
    present = programs_mentioned(content.lower(), keys)
    if not present:
        return []
    from .shellparse import simple_commands

    _words, literal_re, _exe, docker_re = _re()
    out: list = []
    low_present = tuple(present)
    for line in content.splitlines():
        low = line.lower()
        if not any(k in low for k in low_present):
            continue
        if kind == "shell":
            text = docker_re.sub("", line).lstrip("\t@-+ ")
            out.extend(simple_commands(text))
            continue
        literals = [next(g for g in m.groups() if g is not None) for m in literal_re.finditer(line)]
        for lit in literals:
            if any(k in lit.lower() for k in low_present):
                out.extend(simple_commands(lit))
        if len(literals) > 1:
            out.extend(simple_commands(" ".join(lit for lit in literals if " " not in lit)))
    return out
