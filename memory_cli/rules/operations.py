"""Command rules about an operation, not about one spelling of it.

A rule written as ``rm -rf /`` is meant against deleting ``/`` recursively, whichever program
does it: ``find / -delete``, ``find / -exec rm -rf {} +``, ``shutil.rmtree('/')`` in
``python3 -c``, ``fs.rmSync('/', {recursive: true})`` or ``rimraf`` in ``node -e``. Forbidding a
spelling is not forbidding the operation, so a command rule whose pattern is one of the common
dangerous operations is recognised as that operation when the rule set is built
(:func:`operation_of`) and matched against every spelling this module knows
(:func:`find_operations`):

- ``recursive-delete`` (``rm -r``/``-R``/``--recursive`` of a path): ``rm`` with any recursive
  flag, ``find PATH -delete``, ``find PATH -exec rm -r``, ``rimraf PATH``, and in interpreter
  code ``shutil.rmtree``, ``fs.rmSync``/``rmdirSync``/``rm`` with ``recursive: true``,
  ``rimraf``, ``FileUtils.rm_rf``, ``rmtree``/``remove_tree``. Same path only: a rule on ``/``
  does not stop ``rm -rf build/``; ``PATH/*`` empties PATH and counts as PATH, and a relative
  path after a ``cd`` in the line is also read from there (``cd / && rm -rf *``);
- ``force-push`` (``git push --force``): ``-f``, ``--force``, ``+refspec`` (the pattern already
  reads these), ``--mirror`` (force-updates every ref), and ``--force-with-lease``/``--force-if-includes``, which are asked rather
  than denied (safer, still a force push);
- ``read-file`` (a reader program and one path, ``cat ~/.ssh/id_rsa``): any program that
  prints or copies a file (cat, less, head, tail, base64, xxd, cp, scp, dd ``if=``, curl
  ``@file``, ...), an input redirection ``< PATH``, or interpreter code that names the path;
  the home directory may be written ``~``, ``$HOME``, ``/home/NAME``, ``/Users/NAME`` or
  ``/root``, and a glob that covers the file (``~/.ssh/id_*``) counts;
- ``download-to-shell`` (a pipeline from a downloader into a shell, ``curl | sh``): any
  downloader (curl, wget, fetch, http, aria2c) piped into any shell or interpreter reading its
  input (``| sudo bash``, ``| python3``), ``bash <(curl URL)``, ``sh -c "$(curl URL)"``,
  ``source <(curl URL)``, ``eval "$(curl URL)"``, and a file the line downloads and then runs
  (``curl URL > i.sh && sh i.sh``, ``curl -fsSLo i.sh URL && ./i.sh``).

A person who means the spelling only stores the rule with ``spelling_only`` (``rules add
--spelling-only``). Standard library only: this is on the PreToolUse path, and it runs only for
a rule set holding such rules.
"""

from __future__ import annotations

import re

RECURSIVE_DELETE = "recursive-delete"
FORCE_PUSH = "force-push"
READ_FILE = "read-file"
DOWNLOAD_TO_SHELL = "download-to-shell"

# What each operation is called where a person reads it (rules add, rules test, the deny reason).
DESCRIPTIONS = {
    RECURSIVE_DELETE: "a recursive delete (rm -r, find -delete, find -exec rm, shutil.rmtree, fs.rmSync, rimraf)",
    FORCE_PUSH: "a force push (--force, -f, +refspec; --force-with-lease is asked)",
    READ_FILE: "reading the file (any reader: cat, less, head, tail, base64, xxd, cp, dd, interpreter code)",
    DOWNLOAD_TO_SHELL: 'a download run by a shell (curl/wget piped into a shell, bash <(curl), sh -c "$(curl)")',
}

_READERS = frozenset(
    (
        *("cat", "tac", "less", "more", "head", "tail", "nl", "base64", "base32", "basenc", "xxd", "od"),
        *("hexdump", "strings", "cp", "scp", "rsync", "bat", "batcat", "view", "vi", "vim", "nvim", "nano"),
        *("emacs", "sed", "awk", "gawk", "grep", "egrep", "fgrep", "rg", "sort", "uniq", "cut", "tee", "zip"),
        *("tar", "gzip", "bzip2", "xz", "openssl", "gpg", "diff", "cmp", "paste", "pr", "fold", "column"),
        *("iconv", "dos2unix", "jq", "yq", "sha256sum", "md5sum"),
    )
)
# Words a line must hold for an operation to be possible in it (the engine's no-parse shortcut).
TRIGGERS = {
    RECURSIVE_DELETE: ("rm", "find", "rimraf", "python", "python3", "node", "perl", "ruby", "bun", "deno"),
    FORCE_PUSH: ("git",),
    READ_FILE: (*sorted(_READERS), "dd", "curl", "python", "python3", "node", "perl", "ruby"),
    DOWNLOAD_TO_SHELL: ("curl", "wget", "fetch", "http", "https", "aria2c"),
}

_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "aria2c", "lwp-download"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh", "busybox"})
_INTERPRETERS = ("python", "perl", "ruby", "node", "php", "bun", "deno")
_GLOB = re.compile(r"[*?\[]")
_HOME = re.compile(r"^(?:\$HOME|\$\{HOME\}|/home/[^/]+|/Users/[^/]+|/root)(?=/|$)")


def _key(name: str) -> str:
    from .command_pattern import normalize_program

    return normalize_program(name)


def _interpreter(key: str) -> bool:
    return key.startswith(_INTERPRETERS)


def _norm_path(p: str) -> str:
    """A path as compared: home spelled ``~``, ``//``, ``/./`` and ``dir/..`` folded, no
    trailing slash (``/.`` is ``/``)."""
    import posixpath

    p = _HOME.sub("~", p.strip())
    if not p:
        return p
    return posixpath.normpath(re.sub(r"/{2,}", "/", p))


def _in_dir(cwd: str | None, path: str) -> list[str]:
    """``path`` as written and, after a ``cd`` earlier in the line, joined to that directory."""
    if cwd is None or not path or path.startswith(("/", "~", "$")):
        return [path]
    return [path, cwd.rstrip("/") + "/" + path]


def _recursive_flags(key: str, args: list[str]) -> bool:
    for a in args:
        if a == "--":
            return False
        if a == "--recursive" or (a.startswith("-") and not a.startswith("--") and ("r" in a or "R" in a)):
            return True
    return False


def _positionals(args: list[str]) -> list[str]:
    out, only = [], False
    for a in args:
        if not only and a == "--":
            only = True
        elif only or not a.startswith("-") or a == "-":
            out.append(a)
    return out


def operation_of(compiled: tuple) -> tuple[str, str] | None:
    """(operation, target) a command rule's pattern is, or None: ``rm -rf /`` is
    (recursive-delete, "/"), ``git push --force`` (force-push, ""), ``cat ~/.ssh/id_rsa``
    (read-file, "~/.ssh/id_rsa"), ``curl | sh`` (download-to-shell, "")."""
    _text, program, _path, flags, positionals = compiled[:5]
    pipe = compiled[5] if len(compiled) > 5 else ()
    if pipe:
        last = pipe[-1][1]
        if program in _DOWNLOADERS and (last in _SHELLS or _interpreter(last)):
            return DOWNLOAD_TO_SHELL, ""
        return None
    if program == "rm" and _recursive_flags("rm", list(flags)) and len(positionals) <= 1:
        return RECURSIVE_DELETE, _norm_path(positionals[0]) if positionals else ""
    if program == "find" and "-delete" in flags and len(positionals) <= 1:
        return RECURSIVE_DELETE, _norm_path(positionals[0]) if positionals else ""
    if program == "git" and positionals[:1] == ("push",):
        from .command_pattern import _analyze

        if "--force" in _analyze("git", [*flags, *positionals]).atoms:
            return FORCE_PUSH, ""
    if program in _READERS and len(positionals) == 1 and not flags:
        return READ_FILE, _norm_path(positionals[0])
    return None


def _same_target(want: str, got: str) -> bool:
    if not want:
        return True
    got = _norm_path(got)
    if got == want:
        return True
    if got.endswith("/*") and _norm_path(got[:-2] or "/") == want:
        return True  # PATH/* empties PATH
    if _GLOB.search(got):
        from fnmatch import fnmatchcase

        return fnmatchcase(want, got)
    return False


class Found:
    """One spelling of an operation found in a line: what, on which path, the words that show
    it, and whether it is to be asked rather than denied (``--force-with-lease``)."""

    __slots__ = ("op", "targets", "snippet", "ask", "unknown")

    def __init__(self, op: str, targets: list[str], snippet: str, ask: bool = False, unknown=()):
        self.op, self.targets, self.snippet, self.ask = op, targets, snippet, ask
        self.unknown = unknown  # the words of the command left to run time (SimpleCommand.dynamic)

    def covers(self, target: str) -> bool:
        return not target or any(_same_target(target, t) for t in self.targets if t not in self.unknown)

    def may_cover(self, target: str) -> str | None:
        """A path left to run time that may be ``target``: its known parts fit around it
        (``$DIR/*`` may be ``/*``, ``~/.ssh/$KEY`` may be ``~/.ssh/id_rsa``). A word with no
        known part (``$DIR``) fits anything and is passed, as before."""
        if not target:
            return None
        for t in self.targets:
            if t in self.unknown:
                glob = _RUN_TIME_PART.sub("*", t)
                if glob.strip("*/") or (target == "/" and "/" in glob):
                    from fnmatch import fnmatchcase

                    if fnmatchcase(target, _norm_path(glob)) or fnmatchcase(target + "/", glob):
                        return t
        return None


_RUN_TIME_PART = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]")


_PY_RMTREE = re.compile(r"\b(?:shutil\.)?rmtree\(\s*(?:path\s*=\s*)?[rbf]?(['\"])(.*?)\1")
_NODE_RM = re.compile(
    r"\b(?:rmSync|rmdirSync|rm|rmdir|promises\.rm)\(\s*(['\"`])(.*?)\1\s*,\s*\{[^}]*recursive\s*:\s*(?:true|1|!0)"
)
_RIMRAF = re.compile(r"\brimraf(?:\.sync|Sync)?\(\s*(['\"`])(.*?)\1")
_RUBY_RM = re.compile(r"\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?)\(?\s*(['\"])(.*?)\1")
_PERL_RM = re.compile(r"\b(?:rmtree|remove_tree)\(\s*(['\"])(.*?)\1")
_CODE_DELETES = (_PY_RMTREE, _NODE_RM, _RIMRAF, _RUBY_RM, _PERL_RM)
_STRINGS = re.compile(r"(['\"`])(.*?)\1")
_DL_SUB = re.compile(r"(?:\$\(|`|<\()\s*(?:sudo\s+)?(?:[\w./-]*/)?(curl|wget|fetch|http|https|aria2c)\b")


def _snippet(sc) -> str:
    return " ".join([sc.program, *sc.args])[:200]


def _runs_stdin(sc) -> bool:
    """A shell or interpreter reading its program from standard input (``sh``, ``bash -s``,
    ``python3 -``), not one running a file or ``-c`` code."""
    key = _key(sc.name)
    if key not in _SHELLS and not _interpreter(key):
        return False
    for a in sc.args:
        if a in ("-s", "-"):
            return True
        if a in ("-c", "-e", "-m", "-p", "-E", "--eval", "--print") or (
            key in _SHELLS and a.startswith("-") and "c" in a[1:] and not a.startswith("--")
        ):
            return False
        if not a.startswith("-"):
            return False
    return True


def _deletes(sc, key: str) -> Found | None:
    args = sc.args
    if key == "rm" and _recursive_flags(key, args):
        return Found(RECURSIVE_DELETE, _positionals(args), _snippet(sc), unknown=sc.dynamic)
    if key == "find":
        paths = []
        for a in args:
            if a.startswith("-") or a in ("(", "!", ")"):
                break
            paths.append(a)
        execs = [k for k, a in enumerate(args) if a in ("-exec", "-execdir", "-ok", "-okdir")]
        if "-delete" in args or any(
            k + 1 < len(args) and _key(args[k + 1]) == "rm" and _recursive_flags("rm", args[k + 2 :]) for k in execs
        ):
            return Found(RECURSIVE_DELETE, paths or ["."], _snippet(sc), unknown=sc.dynamic)
    if key == "rimraf" or (key in ("npx", "bunx", "pnpx") and args[:1] == ["rimraf"]):
        return Found(RECURSIVE_DELETE, _positionals(args if key == "rimraf" else args[1:]), _snippet(sc))
    return None


def _reads(sc, key: str) -> Found | None:
    args = sc.args
    if key in _READERS:
        return Found(READ_FILE, _positionals(args), _snippet(sc), unknown=sc.dynamic)
    if key == "dd":
        return Found(READ_FILE, [a[3:] for a in args if a.startswith("if=")], _snippet(sc))
    if key == "curl":
        paths = [a.split("@", 1)[1] for a in args if "@" in a and not a.startswith("http")]
        paths += [args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-T", "--upload-file")]
        if paths:
            return Found(READ_FILE, paths, _snippet(sc))
    return None


def _in_code(runtime, wanted) -> list[Found]:
    """Deletes and reads in code handed to an interpreter (``python3 -c``, ``node -e``, a
    heredoc read by ``python3 -``)."""
    found = []
    for how, text in runtime.carriers:
        if RECURSIVE_DELETE in wanted:
            for rx in _CODE_DELETES:
                for m in rx.finditer(text):
                    end = text.find(")", m.end(), m.end() + 80)
                    call = text[m.start() : end + 1 if end >= 0 else m.end()]
                    found.append(Found(RECURSIVE_DELETE, [m.group(2)], f"{how} … {call}"[:200]))
        if READ_FILE in wanted:
            paths = [m.group(2) for m in _STRINGS.finditer(text)]
            if paths:
                found.append(Found(READ_FILE, paths, f"{how}: {text}"[:200]))
    return found


_SCRIPT_OPTIONS = frozenset({"-c", "-e", "-r", "--eval", "-E"})


def _script_arg(sc, key: str) -> str | None:
    """The code a shell, interpreter, ``source`` or ``eval`` runs: the value of ``-c``/``-e``,
    else its first positional (a script), else None."""
    args = sc.args
    if key == "eval":
        return " ".join(args)
    for k, a in enumerate(args):
        if a in _SCRIPT_OPTIONS or (key in _SHELLS and a.startswith("-") and not a.startswith("--") and "c" in a[1:]):
            return args[k + 1] if k + 1 < len(args) else None
        if not a.startswith("-") or a == "-":
            return a
    return None


def _downloaded_files(cmds, runtime) -> set[str]:
    """Files a downloader of the line writes: ``-o FILE``, ``-O FILE``, ``--output[-document]``,
    ``> FILE``, and wget's own choice (the URL's last part)."""
    files: set[str] = set()
    for sc in cmds:
        key = _key(sc.name)
        if key not in _DOWNLOADERS:
            continue
        args = sc.args
        named = remote = False
        # curl -o FILE (-O: the URL's name), wget -O FILE (-o is its log); -fsSLo FILE clusters
        takes = "o" if key == "curl" else "O"
        for k, a in enumerate(args):
            short = a.startswith("-") and not a.startswith("--") and len(a) > 1
            if (short and a[-1] == takes or a in ("--output", "--output-document")) and k + 1 < len(args):
                files.add(args[k + 1])
                named = True
            elif a.startswith(("--output=", "--output-document=")):
                files.add(a.partition("=")[2])
                named = True
            elif (short and "O" in a and key == "curl") or a == "--remote-name":
                remote = True
        if not named and (key == "wget" or remote):
            files.update(a.rstrip("/").rsplit("/", 1)[-1] for a in args if "://" in a)
    files.update(path for sc, path in runtime.writes if _key(sc.name) in _DOWNLOADERS)
    return {_norm_path(f) for f in files if f and f != "-"}


def _runs_download(sc, key: str, downloaded: set[str]) -> bool:
    """A shell, an interpreter, ``source``/``.`` or ``eval`` running code a downloader gives
    (``bash <(curl URL)``, ``sh -c "$(curl URL)"``), or a file the line downloaded."""
    if _norm_path(sc.program) in downloaded:
        return True  # chmod +x i.sh && ./i.sh
    if key not in _SHELLS and not _interpreter(key) and key not in ("source", ".", "eval"):
        return False
    code = _script_arg(sc, key)
    if code is None:
        return False
    return bool(_DL_SUB.search(code)) or _norm_path(code) in downloaded


def find_operations(cmds, runtime, command: str, wanted) -> list[Found]:
    """The spellings of the ``wanted`` operations in a read line: ``cmds`` its simple commands,
    ``runtime`` what it builds at run time (:class:`shellparse.Runtime`), ``command`` its text."""
    found: list[Found] = []
    downloaded = _downloaded_files(cmds, runtime) if DOWNLOAD_TO_SHELL in wanted else set()
    cwd: str | None = None
    for sc in cmds:
        key = _key(sc.name)
        if key == "cd" and not sc.via:
            where = _positionals(sc.args)[:1] or ["~"]
            cwd = _in_dir(cwd, where[0])[-1]
            continue
        for hit in (
            _deletes(sc, key) if RECURSIVE_DELETE in wanted else None,
            _reads(sc, key) if READ_FILE in wanted else None,
        ):
            if hit is not None:
                hit.targets = [p for t in hit.targets for p in _in_dir(cwd, t)]
                found.append(hit)
        if FORCE_PUSH in wanted and key == "git" and "push" in sc.args:
            if "--mirror" in sc.args:
                found.append(Found(FORCE_PUSH, [], _snippet(sc)))  # force-updates every ref
            elif any(a.startswith(("--force-with-lease", "--force-if-includes")) for a in sc.args):
                found.append(Found(FORCE_PUSH, [], _snippet(sc), ask=True))
        if DOWNLOAD_TO_SHELL in wanted and _runs_download(sc, key, downloaded):
            found.append(Found(DOWNLOAD_TO_SHELL, [], _snippet(sc)))
    if DOWNLOAD_TO_SHELL in wanted:
        for writer, reader in runtime.pipes:
            if _key(writer.name) in _DOWNLOADERS and _runs_stdin(reader):
                found.append(Found(DOWNLOAD_TO_SHELL, [], f"{_snippet(writer)} | {_snippet(reader)}"))
    if RECURSIVE_DELETE in wanted or READ_FILE in wanted:
        found += _in_code(runtime, wanted)
    if READ_FILE in wanted and runtime.inputs:
        found.append(Found(READ_FILE, list(runtime.inputs), command[:200]))
    return found


# ``Match.field`` of a rule matched by another spelling of its operation, and of one whose
# operation's path is filled in at run time and may be the rule's (asked).
OPERATION_FIELD = "operation"
UNKNOWN_PATH_FIELD = "run_time_path"


def match_rules(rs, v, cmds, command: str, tool: str, usable, matched: dict, make_match) -> None:
    """Match the rule set's pipeline rules and operation rules against a read Bash line:
    ``make_match(rule, field, snippet)`` builds the engine's Match."""
    from .command_pattern import CommandPattern
    from .shellparse import runtime_of

    rule = rs.rule
    runtime = runtime_of(command)

    def fits(i: int) -> bool:
        if i in matched or not usable(i):
            return False
        tools = rule(i)[rs.TOOLS]
        return not tools or tool in tools

    for i in rs.meta.get("pipes") or ():
        if fits(i):
            v.checked += 1
            hit = CommandPattern.from_tuple(rule(i)[rs.COMPILED]).matches_pipes(runtime.pipes)
            if hit is not None:
                matched[i] = make_match(rule(i), "command", hit)
    ops = rs.meta.get("ops") or {}
    if not ops:
        return
    spellings = find_operations(cmds, runtime, command, set(ops))
    for op, idxs in ops.items():
        for i in idxs:
            if not fits(i):
                continue
            target = rule(i)[rs.COMPILED][6][1]
            for f in spellings:
                if f.op == op and f.covers(target):
                    m = matched[i] = make_match(rule(i), OPERATION_FIELD, f.snippet)
                    if f.ask and m.action == "block":
                        m.action = "ask"
                    break
            else:
                for f in spellings:
                    word = f.may_cover(target) if f.op == op else None
                    if word is not None:
                        how = f"`{f.snippet}` gets its path {word} only when it runs, and it may be {target}"
                        matched[i] = make_match(rule(i), UNKNOWN_PATH_FIELD, how)
                        matched[i].action = "ask"
                        break


def describe(op_target) -> str:
    """How ``rules add``/``rules test`` name what a rule stands for."""
    op, target = op_target
    text = DESCRIPTIONS[op]
    return f"{text} of {target}" if target else text


def stands_for(pattern: str, spelling_only: bool = False) -> dict | None:
    """What a command rule's pattern is recognised as, for ``rules add``/``rules test`` and the
    rule's JSON: {"operation", "target", "description"}; None for a spelling-only rule or a
    pattern that is no known operation."""
    if spelling_only:
        return None
    from .command_pattern import InvalidCommandPattern, parse_command_pattern

    try:
        op = operation_of(parse_command_pattern(pattern).to_tuple())
    except InvalidCommandPattern:
        return None
    if op is None:
        return None
    return {"operation": op[0], "target": op[1], "description": describe(op)}
