"""Calls that only look: a program asked for its version, its help, a listing or a status.

A rule on a whole program ("use uv, not pip", "prefer pnpm over npm") is about how work gets
done. After a call ran, verification counts a violation (and raises the rule's severity after
repeated ones) only when the call did that work: ``pip list``, ``npm ls``, ``git status`` or
``docker --version`` change nothing and install nothing, so counting them would escalate a rule
for calls that never did what it forbids. A rule that names the subcommand itself (``git log``)
is not affected: the person forbade exactly that call.

Plain data and string comparisons; standard library only (used by the PostToolUse hook).
"""

from __future__ import annotations

__all__ = ["is_read_only"]

# Words that make any program print and exit.
_ANYWHERE = frozenset({"--version", "--help"})

_JS_PM = frozenset(
    {
        "ls",
        "list",
        "ll",
        "la",
        "view",
        "v",
        "info",
        "show",
        "outdated",
        "search",
        "help",
        "explain",
        "why",
        "root",
        "prefix",
        "bin",
        "doctor",
        "ping",
        "whoami",
        "licenses",
    }
)
_DOCKER = frozenset(
    {"ps", "images", "inspect", "logs", "version", "info", "history", "top", "stats", "port", "diff", "search"}
)

# program -> read-only first words (after leading options).
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "pip": frozenset({"list", "show", "freeze", "check", "help", "search", "inspect", "index", "debug"}),
    "npm": _JS_PM,
    "pnpm": _JS_PM,
    "yarn": _JS_PM,
    "uv": frozenset({"tree", "help"}),
    "poetry": frozenset({"show", "check", "search", "about", "help"}),
    "pipenv": frozenset({"graph", "check", "--where", "--venv", "--py"}),
    "conda": frozenset({"list", "info", "search", "help"}),
    "mamba": frozenset({"list", "info", "search", "help"}),
    "git": frozenset(
        {
            "status",
            "log",
            "diff",
            "show",
            "blame",
            "shortlog",
            "describe",
            "rev-parse",
            "rev-list",
            "ls-files",
            "ls-tree",
            "ls-remote",
            "grep",
            "cat-file",
            "whatchanged",
            "help",
            "version",
        }
    ),
    "docker": _DOCKER,
    "podman": _DOCKER,
    "kubectl": frozenset(
        {"get", "describe", "logs", "version", "explain", "api-resources", "api-versions", "top", "cluster-info"}
    ),
    "helm": frozenset({"list", "ls", "status", "get", "history", "show", "search", "version", "template", "lint"}),
    "cargo": frozenset({"tree", "search", "metadata", "verify-project", "locate-project", "pkgid", "help", "-V"}),
    "go": frozenset({"version", "list", "doc", "help"}),
    "brew": frozenset({"list", "ls", "info", "search", "outdated", "deps", "uses", "config", "doctor", "leaves"}),
    "gem": frozenset({"list", "search", "info", "contents", "environment", "which", "query", "specification"}),
    "apt": frozenset({"list", "show", "search", "policy", "depends", "rdepends"}),
    "apt-cache": frozenset({"show", "search", "policy", "depends", "rdepends", "showpkg", "madison"}),
    "terraform": frozenset({"show", "version", "output", "validate", "providers", "graph"}),
}
# program -> {subcommand: read-only next words}: `git stash list`, `npm config get`.
_NESTED: dict[str, dict[str, frozenset[str]]] = {
    "git": {
        "stash": frozenset({"list", "show"}),
        "remote": frozenset({"-v", "--verbose", "show", "get-url"}),
        "config": frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l"}),
        "branch": frozenset({"-a", "-r", "--list", "-l", "-v", "-vv", "--show-current", "--all", "--remotes"}),
        "tag": frozenset({"-l", "--list"}),
        "worktree": frozenset({"list"}),
        "submodule": frozenset({"status"}),
    },
    "npm": {"config": frozenset({"get", "list", "ls"}), "cache": frozenset({"ls", "verify"})},
    "pnpm": {"config": frozenset({"get", "list"}), "store": frozenset({"path", "status"})},
    "yarn": {"config": frozenset({"get", "list"}), "cache": frozenset({"dir", "list"})},
    "pip": {"config": frozenset({"list", "get", "debug"}), "cache": frozenset({"list", "info", "dir"})},
    "uv": {"pip": frozenset({"list", "show", "freeze", "tree", "check"}), "python": frozenset({"list", "find"})},
    "docker": {
        "image": frozenset({"ls", "list", "inspect", "history"}),
        "container": frozenset({"ls", "list", "inspect", "logs", "top", "port", "diff"}),
        "volume": frozenset({"ls", "list", "inspect"}),
        "network": frozenset({"ls", "list", "inspect"}),
        "compose": frozenset({"ps", "logs", "config", "ls", "images", "top", "version"}),
    },
    "kubectl": {
        "config": frozenset({"view", "get-contexts", "current-context", "get-clusters"}),
        "auth": frozenset({"can-i", "whoami"}),
    },
    "terraform": {"state": frozenset({"list", "show"})},
    "poetry": {"env": frozenset({"info", "list"})},
}
_NESTED["podman"] = _NESTED["docker"]
# Subcommands that only look when given nothing else (`git branch`, `git remote`, `git tag`).
_BARE_OK = {"git": frozenset({"branch", "remote", "tag"})}
# Leading options that take a value (`git -C dir status`, `kubectl -n ns get pods`).
_VALUE_OPTIONS = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-l", "--selector", "-o", "--output"}),
    "docker": frozenset({"-H", "--host", "--context", "--config", "-c"}),
    "podman": frozenset({"--url", "--connection", "-c"}),
    "npm": frozenset({"--prefix", "-C", "-w", "--workspace"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F"}),
    "yarn": frozenset({"--cwd"}),
    "pip": frozenset({"--python", "--proxy", "--log", "--cache-dir"}),
    "helm": frozenset({"-n", "--namespace", "--kube-context"}),
    "cargo": frozenset({"--manifest-path", "-Z", "--config"}),
    "terraform": frozenset({"-chdir"}),
}


def _words_after_options(program: str, args: list[str]) -> list[str]:
    takes_value = _VALUE_OPTIONS.get(program, frozenset())
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] not in _SUBCOMMANDS.get(program, ()):
        word = args[i]
        i += 2 if (word in takes_value and "=" not in word) else 1
    return args[i:]


def is_read_only(program: str, args: list[str]) -> bool:
    """Whether ``program args`` (``program`` as ``command_pattern.normalize_program`` gives
    it: lower case, no ``.exe``, ``pip`` for ``pip3``) only prints and changes nothing."""
    if not args:
        return False  # `npm` alone prints help, but a bare program is also `python`, `bash`
    if any(a in _ANYWHERE for a in args) or (len(args) == 1 and args[0] in ("-h", "-v", "-V")):
        return True
    rest = _words_after_options(program, args)
    if not rest:
        return False
    sub = rest[0]
    if sub in _SUBCOMMANDS.get(program, ()):
        return True
    nested = _NESTED.get(program, {}).get(sub)
    if nested is not None:
        more = rest[1:]
        if not more:
            return sub in _BARE_OK.get(program, ())
        return more[0] in nested
    return False
