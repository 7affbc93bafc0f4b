"""What memory-cli protects of its own state, and how a shell command or a file write would
touch it: the checks :mod:`.self_protect` runs on the few calls that name any of it.

A command is read with :func:`.shellparse.read_commands` (which sees through ``bash -c``,
``sudo``, ``env``, ``xargs``), one simple command at a time, plus the output redirections of the
whole line. Reading programs (``cat``, ``grep``, ``jq``, ``sqlite3`` with reading SQL, Python
code on the line that provably only reads: :mod:`.python_effects`) are left alone. A file
written is judged by its path, and a script or Python file by what it would plainly do when
run, never by the names its text merely mentions. Standard library only.
"""

from __future__ import annotations

import os

from .sql_words import SQL_WRITE_WORDS
from .weakening import rule_lookup, weakening

_RM = frozenset({"rm", "unlink", "shred", "rmdir", "truncate", "srm", "trash", "trash-put", "gio"})
_MODE = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl"})
_MOVE = frozenset({"mv"})
_COPY = frozenset({"cp", "install", "rsync", "ln", "scp"})
_INPLACE = frozenset({"sed", "gsed", "perl", "ruby"})
_EDITORS = frozenset({"vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "code"})
_TEE = frozenset({"tee", "sponge"})
_SQLITE = frozenset({"sqlite3", "sqlite", "litecli", "sqlite-utils"})
_INTERPRETERS = ("python", "pypy", "perl", "node", "ruby", "php", "bun", "deno", "osascript", "lua")
_GIT_WRITES = frozenset({"rm", "mv", "checkout", "restore", "clean", "reset", "stash", "apply"})

# SQL that changes a database (a write through sqlite3 or an interpreter's text): the SQL words
# that write, a pragma that sets a value, and the sqlite3 shell's own commands that write.
_SQL_WRITE = (
    *sorted(SQL_WRITE_WORDS),
    "pragma",
    ".restore",
    ".import",
    ".read",
    ".load",
    ".shell",
    ".system",
    ".recover",
    ".clone",
)
# What an interpreter's text does to a file it names: write, remove, move, change mode.
_FILE_WRITE = (
    "write",
    "unlink",
    "remove",
    "rmtree",
    "rename",
    "replace",
    "truncate",
    "chmod",
    "chown",
    "'w'",
    '"w"',
    "'a'",
    '"a"',
    "'wb'",
    '"wb"',
    "w+",
    "r+",
    "dump(",
    "fs.",
    "execute",
    "exec(",
    "system(",
)


class Target:
    """One protected thing: an exact file, or a folder and everything under it."""

    __slots__ = ("path", "label", "folder")

    def __init__(self, path: str, label: str, folder: bool = False):
        self.path = path
        self.label = label
        self.folder = folder


# Files protected wherever they are (any project's settings and repository file).
_SUFFIXES = (
    ("/.claude/settings.json", "Claude Code settings (memory-cli's hooks)"),
    ("/.claude/settings.local.json", "Claude Code local settings (memory-cli's hooks, environment)"),
    ("/.claude/memory-cli.toml", "the repository's memory-cli file"),
    ("/.codex/hooks.json", "Codex hooks (memory-cli's entries)"),
    ("/.codex/config.toml", "Codex config (memory-cli's entries)"),
    ("/.gemini/settings.json", "Gemini settings (memory-cli's hooks)"),
)


def targets(store_path: str | None) -> list[Target]:
    """What is protected for this store, as absolute paths."""
    from .. import paths

    out: list[Target] = []
    if store_path and store_path != ":memory:" and not store_path.startswith("file:"):
        db = os.path.abspath(store_path)
        out.append(Target(db, "the memory-cli store"))
        for suffix in ("-wal", "-shm", "-journal"):
            out.append(Target(db + suffix, "the memory-cli store's " + suffix[1:] + " file"))
        out.append(Target(db + ".rules-cache", "the memory-cli rule cache"))
        out.append(Target(db + ".spool", "the memory-cli spool folder", folder=True))
        out.append(Target(db + ".audit-pending", "the memory-cli spool"))
    memory_dirs = {os.path.abspath(paths.memory_dir_str())}
    claude_dirs = {os.path.abspath(paths.claude_dir_str())}
    codex_dirs = {os.path.abspath(os.path.expanduser(os.environ.get("CODEX_HOME") or "~/.codex"))}
    homes = {os.path.abspath(os.path.expanduser("~"))}
    # A repository's settings `env` can set HOME or CODEX_HOME for the hook: the account's own
    # home (from the password database) is protected whatever the environment says.
    real_home = _account_home()
    if real_home:
        homes.add(real_home)
        codex_dirs.add(os.path.join(real_home, ".codex"))
        claude_dirs.add(os.path.join(real_home, ".claude"))
        memory_dirs.add(os.path.join(real_home, ".claude", "memory"))
    for memory_dir in sorted(memory_dirs):
        out.append(Target(os.path.join(memory_dir, "cache"), "the memory-cli compiled-regex cache", folder=True))
    out.append(Target(os.path.abspath(paths.config_file()), "the memory-cli config file"))
    from ..seals import code as code_seal
    from ..seals import config as config_seal

    out.append(Target(os.path.abspath(config_seal.seal_path()), "the memory-cli config seal"))
    out.append(Target(os.path.abspath(code_seal.seal_path()), "the memory-cli code seal"))
    from ..seals import installed

    out.append(Target(os.path.abspath(installed.record_path()), "memory-cli's record of its installed hooks"))
    package = code_seal.package_dir()
    if not code_seal.in_checkout(package):  # a development checkout is the person's to edit
        out.append(Target(package, "memory-cli's code (the package its hooks run)", folder=True))
    for claude in sorted(claude_dirs):
        out.append(Target(os.path.join(claude, "settings.json"), "Claude Code user settings (memory-cli's hooks)"))
        out.append(
            Target(os.path.join(claude, "settings.local.json"), "Claude Code user settings (memory-cli's hooks)")
        )
    for codex in sorted(codex_dirs):
        out.append(Target(os.path.join(codex, "config.toml"), "Codex config (memory-cli's entries)"))
        out.append(Target(os.path.join(codex, "hooks.json"), "Codex hooks (memory-cli's entries)"))
        # The native copies of the rules: a file removed, or another rule file beside it (a Gemini
        # allow at a higher priority), would let through what the copy stops with every hook off.
        out.append(Target(os.path.join(codex, "rules"), "Codex rules (memory-cli's native copy)", folder=True))
    for home in sorted(homes):
        gemini_policies = os.path.join(home, ".gemini", "policies")
        out.append(Target(gemini_policies, "Gemini CLI policies (memory-cli's native copy)", folder=True))
    return out


def _account_home() -> str | None:
    """This account's home as the system records it (not ``$HOME``), or None."""
    try:
        import pwd

        return os.path.abspath(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, OSError):
        return None


def _memory_cli_args(c) -> list[str] | None:
    """The arguments given to memory-cli when this simple command runs it, else None."""
    name = c.name.lower()
    if name in ("memory-cli", "memory-cli.exe"):
        return c.args
    if name.startswith(("python", "pypy", "uv", "pipx")):
        args = c.args
        for i, a in enumerate(args):
            if a == "-m" and i + 1 < len(args) and args[i + 1].split(".")[0] == "memory_cli":
                return args[i + 2 :]
            if a.endswith(("fasthook.py", "memory_cli/__main__.py", "memory_cli")):
                rest = args[i + 1 :]
                while len(rest) >= 2 and rest[0] == "--path":
                    rest = rest[2:]
                return rest
    if c.program.endswith("fasthook.py"):
        return c.args
    return None


class Checker:
    """The protected set of one store, and the questions asked of one call."""

    def __init__(self, store_path: str | None, cwd: str | None, store=None):
        self.is_rule = rule_lookup(store) if store is not None else None
        self.tlist = targets(store_path)
        self.cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
        self.home = os.path.expanduser("~")

    # -- paths --------------------------------------------------------------------------------
    def resolve(self, word: str) -> str | None:
        if not word or word.startswith("-") and "=" not in word:
            return None
        w = word
        if w.startswith("~/") or w == "~":
            w = self.home + w[1:]
        for var in ("$HOME", "${HOME}"):
            if w.startswith(var):
                w = self.home + w[len(var) :]
        for var in ("$CLAUDE_CONFIG_DIR", "${CLAUDE_CONFIG_DIR}"):
            if w.startswith(var):
                from .. import paths

                w = paths.claude_dir_str() + w[len(var) :]
        if "$" in w or "`" in w:
            return None
        if not os.path.isabs(w):
            w = os.path.join(self.cwd, w)
        return os.path.normpath(w)

    def touched(self, word: str, *, ancestors: bool = False) -> Target | None:
        """The protected thing ``word`` names (or, with ``ancestors``, a folder holding one)."""
        p = self.resolve(word)
        if p is None:
            return None
        glob = any(ch in p for ch in "*?[")
        if glob:
            from fnmatch import fnmatchcase

        for t in self.tlist + self._suffix_target(p):
            if glob:
                if fnmatchcase(t.path, p) or (ancestors and _any_parent(t.path, lambda d: fnmatchcase(d, p))):
                    return t
                continue
            if p == t.path or (t.folder and p.startswith(t.path + os.sep)):
                return t
            if ancestors and t.path.startswith(p.rstrip(os.sep) + os.sep):
                return t
        if not glob:
            try:  # a link or another spelling of a protected file
                real = os.path.realpath(p)
            except (OSError, ValueError):
                return None
            if real != p:
                for t in self.tlist:
                    if real == os.path.realpath(t.path) and os.path.exists(real):
                        return t
        return None

    def _suffix_target(self, p: str) -> list[Target]:
        low = p.replace("\\", "/")
        for suffix, label in _SUFFIXES:
            if low.endswith(suffix):
                return [Target(p, label)]
        return []

    def names_protected(self, text: str) -> Target | None:
        """A protected file named anywhere in ``text`` (an interpreter's program text)."""
        low = text.replace("\\", "/")
        for t in self.tlist:
            if t.path in low or (self.home and t.path.replace(self.home, "~", 1) in low):
                return t
        for suffix, label in _SUFFIXES:
            if suffix[1:] in low:
                return Target(suffix[1:], label)
        return None

    # -- calls --------------------------------------------------------------------------------
    def check_script(self, path: str, text: str):
        """(what, target) when the text a Write/Edit puts in a script or program would, run
        later, change protected state (``rm`` of the store in a shell script, a ``DELETE`` on it
        in Python); prose is never a program."""
        from .written import kind_of

        kind = kind_of(path, text)
        if kind == "prose":
            return None
        t = self.names_protected(text)
        if kind == "code" and path.lower().endswith((".py", ".pyw")):
            if t is None and not _builds_home_path(text):
                return None  # names no protected file, not even from the home folder down
            from .python_effects import changes_when_run

            hit_t = changes_when_run(text, self)
            return None if hit_t is None else ("writes a program that changes", hit_t)
        if t is None and kind != "shell":
            return None
        if kind == "shell":
            hit = self.check_command(text)
            if hit is not None:
                what, target = hit
                return (f"writes a script that {what}", target)
            return None
        if t is None:
            return None
        if t.path.startswith("."):
            return None  # a settings file's name with no folder: whose it is depends on where it runs
        low = text.lower()
        if _writes_sql(text) or any(w in low for w in _FILE_WRITE):
            return ("writes a program that changes", t)
        return None

    def check_file(self, path) -> Target | None:
        if not isinstance(path, str) or not path:
            return None
        return self.touched(path)

    def check_command(self, command: str) -> tuple[str, Target | None] | None:
        """(what the call does, what it touches) when a shell command changes protected state."""
        if not isinstance(command, str) or not command:
            return None
        from .shellparse import read_commands

        cmds, _complete = read_commands(command)
        start = self.cwd
        for c in cmds:
            if c.name == "cd" and c.args and not c.via:  # `cd DIR && rm memory.db`
                d = self.resolve(c.args[-1])
                if d is not None:
                    self.cwd = d
                continue
            hit = self._simple(c, command)
            if hit is not None:
                return hit
        self.cwd = start
        for target_word in _redirect_targets(command):
            t = self.touched(target_word)
            if t is not None:
                return ("writes with a redirection onto", t)
        return None

    def _simple(self, c, raw: str):
        name = c.name.lower()
        if name.endswith(".exe"):
            name = name[:-4]
        mc = _memory_cli_args(c)
        if mc is not None:
            w = weakening(mc, self.is_rule)
            if w is not None:
                return (f"runs `{w}`", None)
            return None
        args = [a for a in c.args]
        files = [a for a in args if not a.startswith("-")]
        if name in _RM or name in _MODE:
            if name in _MODE and files:
                files = files[1:]  # the mode or owner
            if name == "gio" and (not files or files[0] not in ("trash", "remove", "move")):
                return None
            for a in files:
                t = self.touched(a, ancestors=True)
                if t is not None:
                    return (f"runs {name} on", t)
        elif name in _MOVE:
            for a in files:
                t = self.touched(a, ancestors=True)
                if t is not None:
                    return (f"runs {name} on", t)
        elif name in _COPY:
            dest = _option_value(args, ("-t", "--target-directory"))
            # a link to a protected file is a way to write it later under another name
            for a in files if name == "ln" else [dest] if dest else files[-1:]:
                t = self.touched(a)
                if t is not None:
                    return (f"runs {name} onto", t)
        elif name in _TEE or name in _EDITORS:
            for a in files:
                t = self.touched(a)
                if t is not None:
                    return (f"runs {name} on", t)
        elif name in _INPLACE:
            if _in_place(name, args):
                for a in files:
                    t = self.touched(a)
                    if t is not None:
                        return (f"edits in place with {name}", t)
            if name in ("perl", "ruby"):
                return self._interpreter(name, raw)
        elif name == "find" and _find_changes(args):
            for a in args:
                if a.startswith(("-", "(", "!")):
                    break  # the paths come before the expression
                t = self.touched(a, ancestors=True)
                if t is not None:
                    return ("runs find -delete/-exec on", t)
        elif name == "dd":
            for a in args:
                if a.startswith("of="):
                    t = self.touched(a[3:])
                    if t is not None:
                        return ("runs dd onto", t)
        elif name == "git" and args:
            sub = next((a for a in args if not a.startswith("-")), "")
            if sub in _GIT_WRITES:
                for a in files[1:]:
                    t = self.touched(a, ancestors=sub in ("rm", "mv", "clean"))
                    if t is not None:
                        return (f"runs git {sub} on", t)
        elif name in _SQLITE:
            return self._sqlite(args)
        elif name.startswith(("python", "pypy")):
            return self._python(c, name, raw)
        elif name.startswith(_INTERPRETERS):
            return self._interpreter(name, _own_text(args, raw))
        return None

    def _python(self, c, name: str, raw: str):
        """Python code that names protected state is asked unless it provably only reads
        (:func:`.python_effects.reads_only`); code not given on the line is judged by its words."""
        from .python_effects import changes_when_run, code_run_by, reads_only

        text = _own_text(c.args, raw)
        codes = code_run_by(c, raw)
        # code on the line is judged in full wherever the line names protected state (its
        # environment too: `PAGER='rm -f <store>' python3 -c "help(str)"`)
        t = self.names_protected(text) or (self.names_protected(raw) if codes is not None else None)
        if t is None:  # a path the code builds itself: asked where it plainly writes there
            for code in codes or ():
                found = changes_when_run(code, self)
                if found is not None:
                    return (f"runs {name} code that changes", found)
            return None
        if codes is None:
            return self._interpreter(name, text)
        if all(reads_only(code, self) for code in codes):
            return None
        return (f"runs {name} code that changes", t)

    def _sqlite(self, args: list[str]):
        db_index = None
        readonly = False
        for i, a in enumerate(args):
            if a.startswith("-"):
                if a in ("-readonly", "--readonly", "-safe"):
                    readonly = True
                continue
            db_index = i
            break
        if db_index is None:
            return None
        t = self.touched(args[db_index])
        if t is None or readonly:
            return None
        sql = args[db_index + 1 :]
        if not sql:
            return ("opens with sqlite3 (what it runs comes from its input)", t)
        if any(_writes_sql(s) for s in sql):
            return ("changes with sqlite3", t)
        return None

    def _interpreter(self, name: str, raw: str):
        t = self.names_protected(raw)
        if t is None:
            return None
        low = raw.lower()
        if _writes_sql(raw) or any(w in low for w in _FILE_WRITE):
            return (f"runs {name} code that changes", t)
        return None


# The options that give an interpreter its code as the next word.
_CODE_OPTIONS = frozenset({"-c", "-e", "-E", "-r", "-p", "--eval", "--print", "-x"})


def _own_text(args: list[str], raw: str) -> str:
    """What an interpreter's run may do, as text: its code and arguments when the line gives it
    (``-c``, ``-e`` ...) or its own words when it runs a module or a script (``python3 -m json.tool``, whose words
    hold no code); the whole line when it reads its code from standard input (a heredoc, a pipe),
    since that code is somewhere in the line. So `cat settings.json | python3 -m json.tool | grep
    write` reads the file and changes nothing."""
    for i, a in enumerate(args):
        if a in _CODE_OPTIONS and i + 1 < len(args):
            return " ".join(args[i + 1 :])  # the code and the arguments it is given
        if a == "-m" or (not a.startswith("-") and a != "-"):
            return " ".join(args)
        if a == "-":
            break
    return raw


def _builds_home_path(text: str) -> bool:
    """Whether code may build a protected path from the home folder (``Path.home() /
    ".claude"``, ``expanduser("~")``): it names the home folder and one of the agents' folders."""
    low = text.lower()
    return ("~" in low or "home" in low) and any(seg in low for seg in (".claude", ".codex", ".gemini"))


def _any_parent(path: str, pred) -> bool:
    d = os.path.dirname(path)
    while d and d != os.path.dirname(d):
        if pred(d):
            return True
        d = os.path.dirname(d)
    return False


def _find_changes(args: list[str]) -> bool:
    """``find ... -delete``, or ``-exec``/``-execdir``/``-ok`` of a program that changes files."""
    for i, a in enumerate(args):
        if a == "-delete":
            return True
        if a in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(args):
            prog = args[i + 1].rsplit("/", 1)[-1].lower()
            if prog in _RM or prog in _MODE or prog in _MOVE or prog in _COPY or prog in _INPLACE or prog in _TEE:
                return True
    return False


def _option_value(args: list[str], names: tuple[str, ...]) -> str | None:
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
        for n in names:
            if n.startswith("--") and a.startswith(n + "="):
                return a[len(n) + 1 :]
    return None


def _in_place(name: str, args: list[str]) -> bool:
    for a in args:
        if a.startswith("--in-place"):
            return True
        if a.startswith("-") and not a.startswith("--") and "i" in a[1:]:
            if name in ("sed", "gsed") and a[1:2] in ("e", "f") and len(a) == 2:
                continue
            return True
    return False


def _writes_sql(text: str) -> bool:
    import re

    low = text.lower()
    if not any(w in low for w in _SQL_WRITE):
        return False
    for w in _SQL_WRITE:
        if w.startswith("."):
            if re.search(r"(^|\s|;)" + re.escape(w) + r"\b", low):
                return True
        elif re.search(r"\b" + w + r"\b", low):
            if w == "pragma" and not re.search(r"\bpragma\s+[\w.]+\s*=", low):
                continue
            if w == "replace" and not re.search(r"\b(insert\s+or\s+replace|replace\s+into)\b", low):
                continue
            return True
    return False


def _redirect_targets(command: str) -> list[str]:
    """The files output redirections write (``>``, ``>>``, ``>|``, ``&>``, ``2>``), as words."""
    import re

    out = []
    for m in re.finditer(r"(?<![<>])(?:&|\d)?>>?\|?\s*(\"[^\"]*\"|'[^']*'|[^\s;|&<>()]+)", command):
        word = m.group(1)
        if word[:1] in "\"'":
            word = word[1:-1]
        if word.startswith("&") or word == "/dev/null":
            continue
        out.append(word)
    return out
