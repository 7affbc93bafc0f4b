"""Scopes say where a memory applies: everywhere, in one project, in one repository checkout,
or for one file.

``repo:<absolute root>`` is the scope of what a repository's own ``.claude/memory-cli.toml``
brings, and of what an agent writes there (:func:`checkout`): it applies only in the checkout
at that root, not in another clone that happens to have the same folder name (which
``project:<name>`` would match).

The project is derived from ``CLAUDE_PROJECT_DIR`` or the git root above the hook's ``cwd``
(which follows ``cd``), never from the process's own working directory: Claude Code may start
the hook anywhere, and rules resolved from the wrong directory silently go dead.
"""

from __future__ import annotations

import os

from .errors import InvalidInput

GLOBAL = "global"


def normalize_project(name: str) -> str:
    """The one name of a project, used for every scope a person types, a hook derives from a
    folder, or a route or tool receives: lower case, spaces and underscores folded to dashes,
    and a trailing version dropped (``WhisperClick V3``, ``whisperclick-v3`` and
    ``WhisperClick`` are all ``whisperclick``): people name a project with its version, folders
    often do not, and one spelling must reach the same memories as the other.

    A trailing version is a dash-separated ``3``, ``v3``, ``3.1``, ``v3beta`` or ``latest``,
    ``main``, ``dev``; a name that is nothing but a version is kept. (``str.split()`` rather
    than ``re``: every hook call derives its project, and importing ``re`` costs more than
    the rest of the call.)"""
    parts = "-".join(name.replace("_", " ").split()).lower().split("-")
    parts = [p for p in parts if p]
    while len(parts) > 1 and _is_version(parts[-1]):
        parts.pop()
    return "-".join(parts)


_VERSION_WORDS = ("latest", "main", "dev")


def _is_version(part: str) -> bool:
    """``3``, ``3.1``, ``v3``, ``v3.1``, ``v3beta``, or one of the branch words."""
    if part in _VERSION_WORDS:
        return True
    if part[0] == "v" and len(part) > 1 and part[1].isdigit():
        return True
    return all(piece.isdigit() for piece in part.split("."))


def parse(scope: str | None) -> str:
    """Validate and normalise a scope given by a person or a hook."""
    if scope is None:
        return GLOBAL
    s = scope.strip()
    if not s or s.lower() == GLOBAL:
        return GLOBAL
    kind, sep, value = s.partition(":")
    kind = kind.lower()
    value = value.strip()
    if not sep or kind not in ("project", "file", "repo"):
        raise InvalidInput(f"unknown scope {scope!r}: use global, project:<name>, repo:<root> or file:<path>")
    if not value:
        raise InvalidInput(f"scope {scope!r} needs a name after '{kind}:'")
    if kind == "project":
        name = normalize_project(value)
        if not name:
            raise InvalidInput(f"scope {scope!r} needs a name after 'project:'")
        return "project:" + name
    if kind == "repo":
        if not os.path.isabs(value):
            raise InvalidInput(f"scope {scope!r}: a repo scope needs the repository's absolute root")
        return "repo:" + os.path.normpath(value)
    return "file:" + value.replace("\\", "/")


def resolve_here(scope: str | None, cwd: str | None = None) -> str:
    """``parse``, plus the bare word ``project``: the project of ``cwd`` (the working directory
    when not given), so a person inside a repository need not spell its name."""
    if scope is not None and scope.strip().lower() == "project":
        name = project_name(find_project_root(cwd or os.getcwd()))
        if not name:
            raise InvalidInput(
                "--scope project needs a project: run it inside one (a directory "
                "with .git above it, or CLAUDE_PROJECT_DIR set), or give project:<name>"
            )
        return "project:" + name
    return parse(scope)


def find_project_root(cwd: str | None, env: dict | None = None) -> str | None:
    """The repository a session works in: the nearest directory holding ``.git`` at or above
    ``CLAUDE_PROJECT_DIR`` (where Claude Code was started, possibly a subfolder such as
    ``src/``), else at or above ``cwd``. ``CLAUDE_PROJECT_DIR`` outside any repository is the
    project itself."""
    project_dir = (os.environ if env is None else env).get("CLAUDE_PROJECT_DIR")
    if project_dir:
        start = os.path.abspath(os.path.expanduser(project_dir))
        return _git_root(start) or start
    if not cwd:
        return None
    return _git_root(os.path.abspath(os.path.expanduser(cwd)))


def _git_root(path: str) -> str | None:
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def checkout(root: str | None) -> str | None:
    """The scope of one checkout, ``repo:<absolute root>`` (None without a root): where what an
    agent or a model writes (MCP ``remember``, ``[MEMORY:...]`` markers, session memories and
    reports) is kept. Not ``project:<name>``: a folder's name is no identity, and a clone of the
    same name elsewhere (a download, a repository someone prepared) is another checkout, whose
    agent must not speak in this one's sessions."""
    if not root:
        return None
    return "repo:" + os.path.normpath(os.path.abspath(os.path.expanduser(root)))


def project_name(root: str | None) -> str | None:
    if not root:
        return None
    base = os.path.basename(os.path.normpath(root))
    return normalize_project(base) if base else None


def applies(scope: str, project: str | None, files: list[str] | tuple = (), project_root: str | None = None) -> bool:
    """Does a memory with ``scope`` apply in this project, to a call touching ``files``?"""
    if scope == GLOBAL:
        return True
    kind, _, value = scope.partition(":")
    if kind == "project":
        return project is not None and value == project
    if kind == "file":
        return any(file_matches(value, f, project_root) for f in files)
    if kind == "repo":
        return project_root is not None and value == project_root
    return False


def file_matches(pattern: str, path: str, project_root: str | None = None) -> bool:
    """A file scope matches the absolute path, a path relative to the project, or a glob."""
    p = path.replace("\\", "/")
    candidates = [p]
    if project_root and os.path.isabs(p):
        try:
            rel = os.path.relpath(p, project_root).replace("\\", "/")
            if not rel.startswith(".."):
                candidates.append(rel)
        except ValueError:
            pass
    pat = pattern.replace("\\", "/")
    import fnmatch

    for c in candidates:
        if c == pat or fnmatch.fnmatchcase(c, pat):
            return True
        if not os.path.isabs(pat) and (c.endswith("/" + pat)):
            return True
    return False


def applicable_scopes_sql(project: str | None, alias: str = "", root: str | None = None) -> tuple[str, list]:
    """SQL filter for entries that apply in a project, and in the checkout at ``root`` when
    given (file scopes are checked in Python)."""
    col = f"{alias}.scope" if alias else "scope"
    extra, params = "", []
    if project:
        extra += f" OR {col} = ?"
        params.append("project:" + project)
    if root:
        extra += f" OR {col} = ?"
        params.append("repo:" + root)
    return f"({col} = 'global'{extra} OR {col} LIKE 'file:%')", params
