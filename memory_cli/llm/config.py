"""The ``llm`` and ``limits`` configuration sections, read with their defaults."""

from __future__ import annotations

import fnmatch
import os

from memory_cli.scope import normalize_project

PROVIDERS = ("none", "anthropic", "claude-cli", "openai-compatible")
# Sources whose entries are written without a person: they count against ``limits.per_scope``
# and are the only ones compaction may touch.
AUTOMATIC_SOURCES = ("session", "marker")


def llm_section(settings) -> dict:
    """Every ``llm.*`` setting by key, as configured or else its default."""
    from memory_cli.settings import FIELDS, value

    return {key: value(settings, f"llm.{key}") for section, key, *_ in FIELDS if section == "llm"}


def per_scope_limit(settings) -> int:
    from memory_cli.settings import value

    return int(value(settings, "limits.per_scope"))


def excluded(settings, project: str | None, cwd: str | None) -> bool:
    """True when ``llm.exclude_projects`` names this project (by name, path or glob)."""
    from memory_cli.settings import value

    patterns = value(settings, "llm.exclude_projects") or []
    if not patterns:
        return False
    bare = project.split(":", 1)[1] if project and project.startswith("project:") else None
    names = [n for n in (project, bare) if n]
    paths = []
    if cwd:
        real = os.path.abspath(os.path.expanduser(cwd))
        paths = [real, real + os.sep]
    for pat in patterns:
        pat = pat.strip()
        if not pat:
            continue
        expanded = os.path.expanduser(pat)
        for name in names:
            if fnmatch.fnmatchcase(name.lower(), pat.lower()):
                return True
        if bare and not any(ch in pat for ch in "*?[/\\:") and normalize_project(pat) == bare:
            return True  # "WhisperClick V3" names project:whisperclick, as in every scope
        for p in paths:
            if (
                fnmatch.fnmatchcase(p, expanded)
                or fnmatch.fnmatchcase(p, expanded.rstrip(os.sep) + os.sep + "*")
                or p.rstrip(os.sep) == expanded.rstrip(os.sep)
            ):
                return True
    return False
