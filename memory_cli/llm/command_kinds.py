"""What a shell command from a session does, as far as learning from it goes.

The local reader learns "command X failed, command Y fixed it" from a transcript. On real
sessions most such pairs were wrong: the agent was looking around (``ls``, ``grep`` whose exit
code 1 only means "no match", ``df`` on a guessed path), or the next successful command of the
same program did something else entirely (``gh variable list`` failing, ``gh repo view``
working). This module answers the questions that tell a fix from a coincidence:

- :func:`exploring`: every program the command runs only reads or searches;
- :func:`destructive`: the command deletes or rewrites what cannot be got back, and so is never
  learned as a fix without a person reviewing it; :func:`gives_up`: it abandons the operation
  that failed (``git rebase --abort``), which ends a failure without fixing it;
- :func:`corrected`: the second command is the first one corrected (same program and
  subcommand, mostly the same words);
- :func:`named_in`: the command's program and subcommand are spelled out in a text, such as
  the error that suggested it ("Run git config --global user.email").

Commands are read with the rule engine's shell reader; ``ssh host "cmd"`` is read for ``cmd``
and ``cd dir &&`` prefixes are ignored.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from memory_cli.rules.shellparse import simple_commands

# Programs whose first word is a subcommand that says what the call does.
_SUBCOMMANDS = frozenset(
    [
        "git",
        "gh",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "deno",
        "docker",
        "podman",
        "kubectl",
        "helm",
        "cargo",
        "go",
        "pip",
        "pip3",
        "uv",
        "poetry",
        "conda",
        "brew",
        "apt",
        "apt-get",
        "dnf",
        "yum",
        "systemctl",
        "terraform",
        "dotnet",
        "gcloud",
        "aws",
        "az",
        "heroku",
        "fly",
        "flyctl",
        "vercel",
        "firebase",
        "make",
        "just",
        "bundle",
        "gem",
        "composer",
        "rustup",
        "docker-compose",
        "wrangler",
        "npx",
    ]
)
# Programs that only read, list or search (the whole command must consist of these).
_READ_ONLY = frozenset(
    [
        "ls",
        "ll",
        "dir",
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "find",
        "fd",
        "locate",
        "which",
        "whereis",
        "type",
        "file",
        "stat",
        "du",
        "df",
        "wc",
        "sort",
        "uniq",
        "cut",
        "tr",
        "jq",
        "yq",
        "tree",
        "pwd",
        "echo",
        "printf",
        "test",
        "[",
        "command",
        "env",
        "printenv",
        "ps",
        "pgrep",
        "id",
        "whoami",
        "uname",
        "hostname",
        "realpath",
        "readlink",
        "basename",
        "dirname",
        "diff",
        "cmp",
        "md5sum",
        "sha256sum",
        "sha1sum",
        "xxd",
        "od",
        "hexdump",
        "strings",
        "lsof",
        "mount",
        "free",
        "uptime",
        "date",
        "history",
        "column",
        "nl",
        "tac",
        "alias",
        "declare",
        "set",
        "true",
        "false",
        "sleep",
        "get-childitem",
        "get-content",
        "select-string",
        "test-path",
        "get-item",
    ]
)
# Subcommands of the programs above that only read.
_READ_ONLY_SUB = {
    "git": frozenset(
        [
            "status",
            "log",
            "diff",
            "show",
            "branch",
            "remote",
            "config",
            "rev-parse",
            "ls-files",
            "blame",
            "describe",
            "tag",
        ]
    ),
    "gh": frozenset(["api", "repo", "pr", "run", "issue", "variable", "secret", "auth", "release", "workflow"]),
    "docker": frozenset(["ps", "images", "logs", "inspect", "version", "info"]),
    "npm": frozenset(["ls", "list", "view", "outdated", "config"]),
    "pip": frozenset(["list", "show", "freeze"]),
    "pip3": frozenset(["list", "show", "freeze"]),
    "systemctl": frozenset(["status", "is-active", "is-enabled", "list-units"]),
    "kubectl": frozenset(["get", "describe", "logs"]),
}
# Words after a read-only subcommand that make the call write (gh pr create, git remote add).
_WRITING_WORDS = frozenset(
    [
        "add",
        "set",
        "unset",
        "delete",
        "remove",
        "rm",
        "create",
        "edit",
        "close",
        "merge",
        "reopen",
        "comment",
        "review",
        "rename",
        "sync",
        "upload",
        "download",
        "cancel",
        "rerun",
        "enable",
        "disable",
    ]
)
# Read-only only when nothing in the call writes (gh api -X PUT, git branch -D, git config key value).
_WRITING_FLAGS = re.compile(
    r"^(?:-X|--method|-D|-d|--delete|-m|--move|-f|--field|-F|--raw-field|--input|--add|--unset)$"
)

_DESTRUCTIVE = (
    ("git", re.compile(r"^push\b.*(?:\s--force\b|\s-f\b|\s--force-with-lease\b|\s--mirror\b|\s--delete\b|\s\+)")),
    ("git", re.compile(r"^branch\b.*\s-(?:D|d|-delete)\b")),
    ("git", re.compile(r"^reset\b.*\s--hard\b")),
    ("git", re.compile(r"^clean\b.*\s-\w*f")),
    ("git", re.compile(r"^(?:checkout|restore)\b.*(?:\s--\s|\s\.$|\s--staged\b|\s--worktree\b)")),
    ("git", re.compile(r"^(?:stash\s+(?:drop|clear)|filter-branch|filter-repo|rebase\b|tag\s+-d|worktree\s+remove)")),
    ("rm", re.compile(r"")),
    ("rmdir", re.compile(r"")),
    ("shred", re.compile(r"")),
    ("dd", re.compile(r"")),
    ("mkfs", re.compile(r"")),
    ("truncate", re.compile(r"")),
    ("docker", re.compile(r"^(?:rm|rmi|system\s+prune|volume\s+(?:rm|prune)|image\s+prune)\b")),
    ("kubectl", re.compile(r"^delete\b")),
    ("terraform", re.compile(r"^destroy\b")),
    ("gh", re.compile(r"^(?:repo|release)\s+delete\b|^api\b.*-X\s+DELETE\b")),
)
# Giving up on an operation (dropping the commit being applied, abandoning a rebase) ends a
# failure without fixing it.
_GIVES_UP = re.compile(r"^(?:cherry-pick|rebase|am|merge|revert|bisect)\b.*\s--(?:skip|abort|quit)\b|^bisect\s+reset\b")
_SQL_DESTRUCTIVE = re.compile(r"\b(?:drop\s+(?:table|database|schema)|truncate\s+table|delete\s+from)\b", re.I)


def _commands(command: str) -> list:
    """The simple commands ``command`` runs, with ``ssh`` read for its remote command and the
    ``cd`` steps left out."""
    out = []
    for sc in simple_commands(command or ""):
        if sc.name == "ssh":
            words = [a for a in sc.args if not a.startswith("-")]
            remote = sc.args[-1] if sc.args and " " in sc.args[-1] else None
            if remote and len(words) >= 2:
                out.extend(_commands(remote))
                continue
        if sc.name in ("cd", "pushd", "popd", "set-location"):
            continue
        out.append(sc)
    return out


def _name(sc) -> str:
    return re.sub(r"\.(?:exe|cmd|bat|ps1)$", "", sc.name.lower())


def _sub(sc) -> str | None:
    if _name(sc) not in _SUBCOMMANDS:
        return None
    for a in sc.args:
        if a.startswith("-"):
            continue
        return a if re.fullmatch(r"[a-z][a-z0-9:_-]*", a) else None
    return None


def head(command: str) -> tuple[str, str | None]:
    """(program, subcommand) of the command's main step: the first one that is not a wrapper
    such as ``sudo``."""
    for sc in _commands(command):
        if _name(sc) in ("sudo", "env", "time", "nohup", "timeout", "nice", "exec"):
            continue
        return _name(sc), _sub(sc)
    return ("", None)


def exploring(command: str) -> bool:
    """True when every step of ``command`` only reads, lists or searches."""
    cmds = _commands(command)
    if not cmds:
        return False
    for sc in cmds:
        name = _name(sc)
        if name in ("sudo", "env", "time", "nohup", "timeout"):
            continue  # the wrapped program is listed after it
        if name in _READ_ONLY:
            if name == "find" and any(a in ("-delete", "-exec", "-execdir") for a in sc.args):
                return False
            continue
        subs = _READ_ONLY_SUB.get(name)
        if subs is None or _sub(sc) not in subs or any(_WRITING_FLAGS.match(a) for a in sc.args):
            return False
        if any(a in _WRITING_WORDS for a in sc.args[1:3]):
            return False
        if name == "git" and _sub(sc) == "config" and len([a for a in sc.args if not a.startswith("-")]) > 2:
            return False  # git config key value writes
        if name == "git" and _sub(sc) in ("branch", "tag") and len([a for a in sc.args if not a.startswith("-")]) > 1:
            return False  # git branch name creates one
    return True


def destructive(command: str) -> bool:
    """True when ``command`` deletes or rewrites something that cannot be got back."""
    if _SQL_DESTRUCTIVE.search(command or ""):
        return True
    for sc in _commands(command):
        name = _name(sc)
        rest = " ".join(sc.args)
        for prog, pattern in _DESTRUCTIVE:
            if name == prog and pattern.search(rest):
                return True
    return False


def gives_up(command: str) -> bool:
    """True when ``command`` abandons what failed (``git cherry-pick --skip``, ``git rebase
    --abort``) instead of fixing it."""
    return any(_name(sc) == "git" and _GIVES_UP.search(" ".join(sc.args)) for sc in _commands(command))


def _tokens(words) -> list[str]:
    """Words cut at spaces inside quoted arguments, so that two different ``python -c`` scripts
    or commit messages do not count as one equal word."""
    return [t for w in words for t in re.findall(r"[^\s\"'`;,(){}\[\]]+", w)]


def _positionals(sc) -> list[str]:
    args = [a for a in sc.args if not a.startswith("-")]
    if _sub(sc) and args and args[0] == _sub(sc):
        args = args[1:]
    return args


def _split(words) -> list[str]:
    return [t for w in _tokens(words) for t in re.split(r"[=:]", w) if t]


def _covered(cmds, other: str) -> bool:
    """Most of the things ``cmds`` act on (their arguments that are not options) appear in
    ``other``, heredocs included."""
    targets = _split(p for sc in cmds for p in _positionals(sc))
    kept = set(_split([other]))
    return not targets or sum(t in kept for t in targets) >= 0.6 * len(targets)


def corrected(failed: str, retry: str) -> bool:
    """True when ``retry`` is ``failed`` corrected: the same program and subcommand acting on
    the same things (most arguments that are not options are in both). Without such arguments
    most words must be the same (half of them when a subcommand matches, 60% otherwise), so
    that ``wrapper --modules`` failing and ``wrapper --status`` working is not a correction;
    neither is ``git checkout feat/x`` failing and ``git checkout main`` working."""
    h1, h2 = head(failed), head(retry)
    if not h1[0] or h1 != h2:
        return False
    a, b = _commands(failed), _commands(retry)
    if not (_covered(a, retry) and _covered(b, failed)):
        return False
    if h1[1] and any(_positionals(sc) for sc in a):
        return True  # same subcommand on the same things: only options or their spelling changed
    wa = _tokens(w for sc in a for w in (_name(sc), *sc.args))
    wb = _tokens(w for sc in b for w in (_name(sc), *sc.args))
    ratio = SequenceMatcher(None, wa, wb, autojunk=False).ratio()
    return ratio >= (0.5 if h1[1] else 0.6)


def named_in(command: str, text: str) -> bool:
    """True when ``text`` spells out the program and subcommand of ``command`` ("git config",
    "git pull"): a command the error message or the agent tied to the failure."""
    prog, sub = head(command)
    if not prog or not sub or not text:
        return False
    return re.search(rf"(?<![\w-]){re.escape(prog)}\s+{re.escape(sub)}(?![\w-])", text) is not None
