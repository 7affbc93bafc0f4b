"""Turning a rule written in words into a pattern a hook can check.

``memory-cli add --type rule --content "Never use pythonw.exe"`` gives no pattern; the person
expects the rule to work anyway. We derive one only when the sentence names something concrete
(a program, a flag, a file, a piece of code) and return None otherwise ("be more careful"):
a vague rule stays an injected reminder rather than becoming a gate that guesses.

Derived patterns prefer the structure-aware ``command`` type for programs, so a rule about
``npm`` cannot fire on ``pnpm install`` or on ``grep npm notes.md``; regexes are used for code
in written files and for files named in git commands, with word boundaries so
``console.log`` does not match ``myconsole.logger``.

A choice worth knowing: "never commit .env files" becomes a Bash regex over
``git add|commit|stage ... .env``, not a rule on written file paths, because writing a local
``.env`` is normal and only committing it is the mistake. "Never edit/modify/touch X" is the
form that guards file paths of Write and Edit.
"""

from __future__ import annotations

import re

__all__ = ["derive_rule"]

WRITE_TOOLS = ["Write", "Edit", "MultiEdit"]
CONTENT_FIELDS = ["content", "new_string"]
# A rule about a code construct: in written files, and in code handed to an interpreter on the
# command line (``python -c "..."``; see conditions.inline_code), never in a command that only
# mentions it (``grep os.system``).
CODE_TOOLS = WRITE_TOOLS + ["Bash"]
CODE_FIELDS = CONTENT_FIELDS + ["inline_code"]

# Bare words taken as program names without backticks. Words that are also common English
# (less, more, time, make, find, sort, watch, kill, top, head, touch, open, start...) are left
# out: they count as programs only when quoted or followed by a flag.
_KNOWN_PROGRAMS = frozenset(
    [
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "bunx",
        "npx",
        "deno",
        "node",
        "nodejs",
        "tsc",
        "tsx",
        "eslint",
        "prettier",
        "jest",
        "vitest",
        "mocha",
        "webpack",
        "vite",
        "python",
        "python2",
        "python3",
        "pythonw",
        "py",
        "pip",
        "pip3",
        "pipx",
        "uv",
        "uvx",
        "poetry",
        "pipenv",
        "conda",
        "mamba",
        "pytest",
        "tox",
        "nox",
        "black",
        "ruff",
        "flake8",
        "mypy",
        "pylint",
        "isort",
        "coverage",
        "django-admin",
        "gunicorn",
        "uvicorn",
        "celery",
        "jupyter",
        "git",
        "gh",
        "hub",
        "svn",
        "hg",
        "docker",
        "docker-compose",
        "podman",
        "kubectl",
        "helm",
        "minikube",
        "kind",
        "terraform",
        "tofu",
        "ansible",
        "ansible-playbook",
        "vagrant",
        "packer",
        "aws",
        "gcloud",
        "az",
        "heroku",
        "vercel",
        "netlify",
        "firebase",
        "flyctl",
        "cargo",
        "rustc",
        "rustup",
        "go",
        "gofmt",
        "java",
        "javac",
        "mvn",
        "gradle",
        "gradlew",
        "kotlin",
        "scala",
        "sbt",
        "dotnet",
        "msbuild",
        "nuget",
        "ruby",
        "gem",
        "bundle",
        "bundler",
        "rails",
        "rake",
        "irb",
        "php",
        "composer",
        "artisan",
        "perl",
        "cpan",
        "lua",
        "luarocks",
        "swift",
        "xcodebuild",
        "xcrun",
        "pod",
        "carthage",
        "flutter",
        "dart",
        "adb",
        "fastlane",
        "gcc",
        "g++",
        "clang",
        "clang++",
        "cmake",
        "ninja",
        "meson",
        "bazel",
        "buck",
        "curl",
        "wget",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "ftp",
        "telnet",
        "nc",
        "netcat",
        "nmap",
        "ping",
        "traceroute",
        "dig",
        "nslookup",
        "sudo",
        "su",
        "doas",
        "chmod",
        "chown",
        "chgrp",
        "rm",
        "rmdir",
        "mv",
        "cp",
        "ln",
        "mkdir",
        "dd",
        "mkfs",
        "fdisk",
        "parted",
        "mount",
        "umount",
        "tar",
        "zip",
        "unzip",
        "gzip",
        "gunzip",
        "xz",
        "7z",
        "bzip2",
        "zstd",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "sed",
        "awk",
        "gawk",
        "jq",
        "yq",
        "xargs",
        "brew",
        "apt",
        "apt-get",
        "dpkg",
        "yum",
        "dnf",
        "pacman",
        "snap",
        "flatpak",
        "choco",
        "winget",
        "scoop",
        "systemctl",
        "service",
        "journalctl",
        "launchctl",
        "crontab",
        "psql",
        "mysql",
        "mysqldump",
        "pg_dump",
        "pg_restore",
        "sqlite3",
        "mongo",
        "mongosh",
        "redis-cli",
        "vim",
        "vi",
        "nvim",
        "nano",
        "emacs",
        "code",
        "powershell",
        "pwsh",
        "cmd",
        "bash",
        "sh",
        "zsh",
        "fish",
        "dash",
        "ffmpeg",
        "convert",
        "magick",
        "eval",
        "exec",
        "nohup",
        "pkill",
        "killall",
        "shutdown",
        "reboot",
    ]
)

_EXEC_EXT = re.compile(r"\.(exe|bat|cmd|com|ps1|msi)$", re.IGNORECASE)
_FILE_EXT = re.compile(r"\.[A-Za-z0-9]{1,8}$")

_NEG = (
    r"(?:never|don'?t|do\s+not|dont|avoid|stop|quit|no\s+more|must\s+not|mustn'?t|"
    r"should\s+not|shouldn'?t|cannot|can'?t|may\s+not|not\s+allowed\s+to|forbidden\s+to|"
    r"refrain\s+from|you\s+must\s+never|we\s+never|please\s+don'?t|please\s+never)"
)
_RUN_VERBS = (
    r"use|using|run|running|call|calling|invoke|invoking|execute|executing|launch|"
    r"launching|start|starting|type|typing|do|doing|install|installing"
)
_COMMIT_VERBS = r"commit|committing|add|adding|stage|staging|check\s+in|checking\s+in|push|pushing"
_WRITE_VERBS = (
    r"write|writing|put|putting|leave|leaving|include|including|hardcode|"
    r"hardcoding|hard-code|add|adding|insert|inserting|use|using|import|importing"
)
_EDIT_VERBS = (
    r"edit|editing|modify|modifying|touch|touching|change|changing|overwrite|"
    r"overwriting|write\s+to|writing\s+to|update|updating"
)

_STOP_WORDS = frozenset(
    [
        "in",
        "on",
        "for",
        "when",
        "while",
        "because",
        "unless",
        "since",
        "to",
        "with",
        "from",
        "inside",
        "at",
        "as",
        "or",
        "and",
        "but",
        "instead",
        "rather",
        "anymore",
        "again",
        "please",
        "ever",
        "it",
        "here",
        "there",
        "without",
        "if",
        "so",
        "then",
        "than",
        "unless",
        "until",
        "before",
        "after",
        "by",
        "via",
        "through",
        "outside",
        "into",
        "onto",
        "the",
        "a",
        "an",
        "any",
        "this",
        "that",
        "these",
        "those",
        "my",
        "your",
        "our",
        "their",
        "its",
        "anything",
        "everything",
        "stuff",
        "things",
        "ever",
    ]
)
_DETERMINERS = ("the ", "a ", "an ", "any ", "this ", "that ", "these ", "those ", "my ", "your ", "our ")

_LANG_EXT = {
    "python": r"\.pyw?",
    "py": r"\.pyw?",
    "javascript": r"\.(?:js|jsx|mjs|cjs)",
    "js": r"\.(?:js|jsx|mjs|cjs)",
    "typescript": r"\.(?:ts|tsx|mts|cts)",
    "ts": r"\.(?:ts|tsx|mts|cts)",
    "react": r"\.(?:jsx|tsx)",
    "go": r"\.go",
    "golang": r"\.go",
    "rust": r"\.rs",
    "java": r"\.java",
    "kotlin": r"\.kts?",
    "ruby": r"\.rb",
    "php": r"\.php",
    "c#": r"\.cs",
    "csharp": r"\.cs",
    "swift": r"\.swift",
    "shell": r"\.(?:sh|bash|zsh)",
    "bash": r"\.(?:sh|bash)",
    "css": r"\.(?:css|scss|sass|less)",
    "html": r"\.html?",
    "sql": r"\.sql",
    "yaml": r"\.ya?ml",
    "markdown": r"\.(?:md|markdown)",
    "c": r"\.[ch]",
    "c++": r"\.(?:cc|cpp|cxx|hh|hpp|hxx|h)",
    "cpp": r"\.(?:cc|cpp|cxx|hpp|h)",
}

# Directory names understood without a slash ("never write console.log in src").
_COMMON_DIRS = frozenset(
    [
        "src",
        "lib",
        "app",
        "apps",
        "test",
        "tests",
        "spec",
        "specs",
        "scripts",
        "docs",
        "vendor",
        "build",
        "dist",
        "out",
        "packages",
        "components",
        "pages",
        "api",
        "server",
        "client",
        "frontend",
        "backend",
        "migrations",
        "config",
        "public",
        "static",
        "assets",
        "bin",
        "cmd",
        "internal",
        "pkg",
        "include",
        "node_modules",
        "third_party",
    ]
)

_PHRASES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bforce[\s-]?push(?:es|ing|ed)?\b", re.I), "git push --force"),
    (re.compile(r"\bpush(?:ing)?\s+(?:with\s+)?--force\b", re.I), "git push --force"),
    (
        re.compile(
            r"\b(?:skip|skipping|bypass|bypassing)\s+(?:the\s+)?(?:git\s+)?"
            r"(?:pre-commit\s+)?hooks?\b",
            re.I,
        ),
        "git commit --no-verify",
    ),
    (re.compile(r"\bamend(?:ing)?\s+(?:pushed\s+|published\s+)?commits?\b", re.I), "git commit --amend"),
    (re.compile(r"\bhard[\s-]reset(?:s|ting)?\b", re.I), "git reset --hard"),
]


def _result(
    pattern: str,
    pattern_type: str,
    tools: list[str],
    fields: list[str],
    alternative: str | None,
    message: str,
    conditions: list[dict] | None = None,
) -> dict:
    out: dict = {
        "pattern": pattern,
        "pattern_type": pattern_type,
        "tools": tools,
        "fields": fields,
        "alternative": alternative,
        "message": message,
    }
    if conditions:
        out["conditions"] = conditions
    return out


def _command_rule(cmd: str, alternative: str | None, message: str) -> dict | None:
    from .command_pattern import InvalidCommandPattern, parse_command_pattern

    try:
        parse_command_pattern(cmd)
    except InvalidCommandPattern:
        return None
    return _result(cmd, "command", ["Bash"], ["command"], alternative, message)


# -- reading the object of a sentence ------------------------------------------------------

_CODE_SPAN = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^'\s][^']*[^'\s]|[^'\s])'")


def _strip_token(tok: str) -> str:
    return tok.strip().rstrip(",.;:!?)").lstrip("(")


def _object_phrase(rest: str) -> tuple[str | None, bool, str]:
    """(object, was_quoted, remainder) from the words after a verb."""
    rest = rest.strip()
    m = _CODE_SPAN.match(rest)
    if m:
        obj = next(g for g in m.groups() if g is not None)
        return obj.strip(), True, rest[m.end() :]
    low = rest.lower()
    for det in _DETERMINERS:
        if low.startswith(det):
            rest = rest[len(det) :]
            low = rest.lower()
            m = _CODE_SPAN.match(rest)
            if m:
                obj = next(g for g in m.groups() if g is not None)
                return obj.strip(), True, rest[m.end() :]
            break
    tokens = rest.split()
    taken: list[str] = []
    consumed = 0
    for raw in tokens:
        tok = raw if raw in (".", "./", "*", ":/") and taken else _strip_token(raw)
        if not tok or tok.lower() in _STOP_WORDS:
            break
        taken.append(tok)
        consumed += 1
        if raw != raw.rstrip(",.;:!?") and not re.search(r"\.[A-Za-z0-9]+$", raw) and tok != raw:
            break  # punctuation ends the phrase ("npm, use pnpm"), file names keep their dot
        if raw.endswith((",", ";", "!", "?", ":")):
            break
    if not taken:
        return None, False, rest
    return " ".join(taken), False, " ".join(tokens[consumed:])


def _is_flag(tok: str) -> bool:
    return bool(re.match(r"^--?[A-Za-z0-9][\w-]*(=\S+)?$", tok))


def _command_from_phrase(phrase: str, quoted: bool) -> str | None:
    """The command part of a phrase if it names a program: 'git push --force', 'pythonw.exe'."""
    words = phrase.split()
    if not words:
        return None
    prog = words[0]
    bare = re.sub(r"\.(exe|cmd|bat|com)$", "", prog.lower())
    is_prog = (
        bare in _KNOWN_PROGRAMS
        or bool(_EXEC_EXT.search(prog))
        or (("/" in prog or "\\" in prog) and not prog.endswith("/"))
        or (quoted and re.match(r"^[A-Za-z0-9_.+\\/:-]+$", prog) is not None and not _looks_like_code(prog))
        or (len(words) > 1 and _is_flag(words[1]))
    )
    if not is_prog or _is_flag(prog):
        return None
    if quoted:
        return phrase.strip()
    keep = [prog]
    for w in words[1:]:
        if _is_flag(w) or re.match(r"^[\w./:+@=-]+$", w):
            if not _is_flag(w) and w.lower() in {
                "command",
                "commands",
                "cli",
                "binary",
                "executable",
                "tool",
                "anymore",
            }:
                break
            keep.append(w)
        else:
            break
    return " ".join(keep[:8])


def _looks_like_code(tok: str) -> bool:
    return bool(re.search(r"[()\[\]{}=<>]|::|->|\w\.\w+\(|^\w+\.\w+$|^\w+_\w+$|^@\w+", tok)) and not _EXEC_EXT.search(
        tok
    )


def _looks_like_file(tok: str) -> bool:
    t = tok.strip()
    return bool(t) and (
        t.startswith(".")
        and len(t) > 1
        or "*" in t
        or t.endswith("/")
        or ("/" in t)
        or bool(
            re.search(
                r"\w\.(?:json|lock|ya?ml|toml|ini|env|"
                r"pem|key|crt|cfg|conf|txt|md|sqlite|"
                r"db|log|csv|xml|sh|py|js|ts)$",
                t,
            )
        )
    )


def _code_regex(code: str) -> str:
    body = re.escape(code)
    if re.match(r"\w", code):
        body = r"\b" + body
    if re.search(r"\w$", code):
        body = body + r"\b"
    return body


def _glob_to_regex(glob: str) -> str:
    """A file-name glob or path as a regex over absolute or relative paths."""
    g = glob.strip().strip("'\"`")
    directory = g.endswith("/")
    g = g.rstrip("/")
    parts = []
    for ch in g:
        if ch == "*":
            parts.append("[^/]*")
        elif ch == "?":
            parts.append("[^/]")
        else:
            parts.append(re.escape(ch))
    body = "".join(parts)
    if g.startswith("/"):
        prefix = "^"
    else:
        prefix = r"(?:^|/)"
    return prefix + body + ("/" if directory else "$")


def _location_condition(where: str) -> dict | None:
    """'src', 'src/', '*.py files', 'Python files', 'tests' -> a file_path condition."""
    w = where.strip().strip(".,;").strip("`'\"")
    w = re.sub(r"^(?:the\s+|any\s+|our\s+|my\s+)", "", w, flags=re.I)
    w = re.sub(r"\s+(?:files?|code|sources?|directory|dir|folder|modules?)$", "", w, flags=re.I)
    if not w or " " in w:
        return None
    low = w.lower()
    if low in _LANG_EXT:
        return {"field": "file_path", "operator": "regex_match", "pattern": _LANG_EXT[low] + "$"}
    if w.startswith("*") or (w.startswith(".") and len(w) > 1 and "/" not in w):
        ext = w.lstrip("*")
        return {"field": "file_path", "operator": "regex_match", "pattern": re.escape(ext) + "$"}
    if "/" not in w and low not in _COMMON_DIRS:
        return None
    if re.match(r"^[\w.@-]+(/[\w.@*-]+)*/?$", w):
        d = w.rstrip("/")
        if _FILE_EXT.search(d) and "/" not in w.rstrip("/") and not w.endswith("/"):
            return {"field": "file_path", "operator": "regex_match", "pattern": _glob_to_regex(d)}
        return {"field": "file_path", "operator": "regex_match", "pattern": r"(?:^|/)" + re.escape(d) + "/"}
    return None


# -- sentence shapes ------------------------------------------------------------------------

_LEAD = re.compile(
    r"^\s*(?:no|nope|stop|wrong|again|please|remember|rule|important|note)\s*"
    r"[,:!.-]+\s*",
    re.I,
)

_PREFER = [
    # use A instead of B / use A rather than B / use A over B / use A, not B
    re.compile(
        r"(?:always\s+)?(?:use|prefer|run|call|choose)\s+(?P<good>.+?)\s*,?\s*"
        r"(?:instead\s+of|rather\s+than|over|and\s+not|but\s+not|not)\s+"
        r"(?P<bad>.+?)(?:(?<=\S)[.!])?$",
        re.I,
    ),
    # don't use B, use A (instead) / never use B; prefer A
    re.compile(
        _NEG + r"\s+(?:use|run|call)\s+(?P<bad>.+?)\s*(?:[,;:.!]|\s-+|\s—)\s*"
        r"(?:always\s+|instead\s+|just\s+)?(?:use|prefer|run|call)\s+(?P<good>.+?)"
        r"(?:\s+instead)?\s*[.!]?$",
        re.I,
    ),
    # replace B with A / swap B for A
    re.compile(r"(?:replace|swap)\s+(?P<bad>.+?)\s+(?:with|for)\s+(?P<good>.+?)\s*[.!]?$", re.I),
    # B -> A
    re.compile(r"^(?P<bad>\S+)\s*(?:->|→|=>)\s*(?P<good>\S+)\s*$"),
]

_TRAILING_ALT = re.compile(
    r"(?:[,;:.(]|\s[-—]+)\s*(?:always\s+|instead\s*,?\s*|just\s+)?"
    r"(?:use|prefer|run|try|call)\s+(?P<alt>[^.;)]+?)"
    r"(?:\s+instead)?\s*\)?\s*[.!]?$",
    re.I,
)


def _first_clause(text: str) -> str:
    return re.split(r"(?<=[^.\w])\.\s|[;\n]", text, maxsplit=1)[0]


def derive_rule(content: str) -> dict | None:
    """A rule spec derived from a sentence, or None when it names nothing concrete.

    Returns {"pattern", "pattern_type", "tools", "fields", "alternative", "message"} and,
    for rules limited to some files, "conditions" (hookify-style, all must match)."""
    if not isinstance(content, str):
        return None
    message = content.strip()
    text = " ".join(message.split())
    if not text or len(text) > 2000:
        return None
    text = _LEAD.sub("", text)
    return _derive_preference(text, message) or _derive_phrase(text, message) or _derive_prohibition(text, message)


def _derive_preference(text: str, message: str) -> dict | None:
    for rx in _PREFER:
        m = rx.search(_first_clause(text)) or rx.search(text)
        if not m:
            continue
        bad_raw, good_raw = m.group("bad"), m.group("good")
        bad, bad_q, _ = _object_phrase(bad_raw)
        good, good_q, _ = _object_phrase(good_raw)
        if not bad or not good:
            continue
        cmd = _command_from_phrase(bad, bad_q)
        good_cmd = _command_from_phrase(good, good_q) or good
        if cmd:
            return _command_rule(cmd, f"use {good_cmd}", message)
        if _looks_like_code(bad) or bad_q:
            return _result(_code_regex(bad), "regex", list(CODE_TOOLS), list(CODE_FIELDS), f"use {good}", message)
    return None


def _derive_phrase(text: str, message: str) -> dict | None:
    if not re.search(_NEG + r"|\bno\b", text, re.I):
        return None
    for rx, cmd in _PHRASES:
        if rx.search(text):
            alt = _TRAILING_ALT.search(text)
            return _command_rule(cmd, f"use {alt.group('alt').strip()}" if alt else None, message)
    return None


_PIPE_INTO = re.compile(
    _NEG + r"\s+(?:ever\s+)?pip(?:e|es|ing)\s+(?:the\s+)?(?:output\s+of\s+)?`?(?P<src>[\w.+-]+)`?"
    r"(?:\s+output)?\s+(?:in)?to\s+(?:a\s+|the\s+)?`?(?P<dst>[\w.+-]+(?:\s+(?!(?:and|or|but|use|instead)\b)[\w.+-]+)?)`?",
    re.I,
)
_SHELLS = {"bash", "sh", "zsh", "shell", "dash", "fish", "ksh"}
# Places named in words that a command argument can be.
_TARGETS = [
    (
        re.compile(r"^(?:the\s+|your\s+|my\s+|a\s+user'?s\s+)?home(?:\s+(?:directory|dir|folder))?\b", re.I),
        r"(?:~|\$HOME|\$\{HOME\}|/home/[\w.-]+|/Users/[\w.-]+)/?",
    ),
    (
        re.compile(
            r"^(?:the\s+)?(?:root(?:\s+(?:directory|dir|folder|of\s+the\s+disk))?|whole\s+(?:disk|drive|filesystem))\b",
            re.I,
        ),
        r"/\*?",
    ),
]


def _pipeline_rule(text: str, alternative: str | None, message: str) -> dict | None:
    """ "never pipe curl into bash": a regex over the command for that pipeline shape."""
    m = _PIPE_INTO.search(text)
    if not m:
        return None
    src = m.group("src")
    dst = m.group("dst").split()
    if dst[0].lower() in _SHELLS:
        tail = r"(?:bash|sh|zsh|dash|fish|ksh)\b"
    else:
        tail = r"\s+".join(re.escape(w) for w in dst) + r"\b"
    rx = (
        r"(?:^|[;&|(]\s*|\s)" + re.escape(src) + r"\b[^;&|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?"
        r"(?:\S*/)?" + tail
    )
    return _result(rx, "regex", ["Bash"], ["command"], alternative, message)


def _targeted_command(cmd: str, remainder: str, alternative: str | None, message: str) -> dict | None:
    """ "never rm -rf the home directory": the command with a place named in words as its
    argument, as a regex; None when the words name no place we know."""
    for rx, arg in _TARGETS:
        if rx.match(remainder.strip()):
            words = cmd.split()
            prog = re.escape(words[0])
            flags = [w for w in words[1:] if w.startswith("-")]
            need = "".join(r"(?=(?:[^;&|\n]*\s)?" + re.escape(f) + r"\b)" for f in flags)
            return _result(
                r"(?:^|[;&|(]\s*|\s)" + prog + r"\s" + need + r"(?:[^;&|\n]*\s)?" + arg + r"(?=$|[\s;&|)])",
                "regex",
                ["Bash"],
                ["command"],
                alternative,
                message,
            )
    return None


# Each form of prohibition, tried in order on the sentence (its trailing "use X instead" cut off):
# (name, pattern searched case-insensitively, or None for a form that reads the whole sentence;
# builder(body, match, alternative, message)). A builder returns _NEXT to let the next form try;
# anything else is the answer, None included: a form that recognised the sentence but cannot
# turn it into a rule stops there, so no later form guesses a broader rule from it.
_NEXT = object()


def _pipeline_form(body: str, m, alternative, message):
    # never pipe curl into sh / don't curl | bash
    return _pipeline_rule(body, alternative, message) or _NEXT


def _commit_form(body: str, m, alternative, message):
    # never commit .env files / don't add secrets.json / never push node_modules/
    rest = re.sub(r"^(?:with|using)\s+", "", m.group("rest"), flags=re.I)
    obj, quoted, _ = _object_phrase(rest)
    if obj:
        first = obj.split()[0]
        if _is_flag(first):  # never commit with --no-verify
            return _command_rule("git commit " + first, alternative, message)
        if _looks_like_file(first) or quoted:
            name = first.strip("`'\"")
            path_rx = _glob_to_regex(name)[len(r"(?:^|/)") :] if not name.startswith("/") else _glob_to_regex(name)[1:]
            path_rx = path_rx.rstrip("$").replace("[^/]*", r"[^\s/'\"]*")
            rx = r"\bgit\b[^;&|\n]*\b(?:add|commit|stage)\b[^;&|\n]*(?:^|[\s/\\'\"=])" + path_rx + r"(?=$|[\s'\";&|)])"
            return _result(rx, "regex", ["Bash"], ["command"], alternative, message)
    m2 = re.search(r"\bpush(?:ing)?\s+(?:directly\s+)?to\s+(?:the\s+)?(?P<branch>[\w./-]+)", body, re.I)
    if m2:
        return _command_rule(f"git push {m2.group('branch')}", alternative, message)
    return _NEXT


def _edit_form(body: str, m, alternative, message):
    # never edit files in vendor/ / don't modify package-lock.json
    rest = m.group("rest")
    loc = re.match(
        r"(?:any\s+|the\s+)?(?:files?|anything|code)\s+(?:in|under|inside)\s+"
        r"(?P<where>\S+)",
        rest,
        re.I,
    )
    if loc:
        cond = _location_condition(loc.group("where"))
        if cond:
            return _result(cond["pattern"], "regex", list(WRITE_TOOLS), ["file_path"], alternative, message)
    obj, quoted, _ = _object_phrase(rest)
    if obj and (_looks_like_file(obj.split()[0]) or quoted):
        return _result(_glob_to_regex(obj.split()[0]), "regex", list(WRITE_TOOLS), ["file_path"], alternative, message)
    return _NEXT


def _write_form(body: str, m, alternative, message):
    # never write console.log in src / don't use var in JavaScript files
    obj, quoted, remainder = _object_phrase(m.group("rest"))
    if not obj:
        return _NEXT
    code = obj if quoted else obj.split()[0]
    where = re.match(r"\s*(?:in|inside|into|to|within)\s+(?:the\s+)?(?P<w>.+?)\s*$", remainder or "", re.I)
    cond = _location_condition(where.group("w")) if where else None
    if where and cond is None:
        return None  # a place we cannot turn into paths: broadening it would misfire
    cmd = _command_from_phrase(obj, quoted)
    writing = not re.match(r"us|import|add", m.group("verb"), re.I)
    if cmd and not cond and not writing:
        return _command_rule(cmd, alternative, message)
    is_code = (
        quoted
        or _looks_like_code(code)
        or (cmd is not None)
        or (cond is not None and re.fullmatch(r"[A-Za-z_$][\w$]*", code) is not None)
    )
    if not is_code:
        return _NEXT
    # a place limits it to written files; without one, inline interpreter code too
    return _result(
        _code_regex(code),
        "regex",
        list(WRITE_TOOLS if cond else CODE_TOOLS),
        list(CONTENT_FIELDS if cond else CODE_FIELDS),
        alternative,
        message,
        [cond] if cond else None,
    )


def _run_form(body: str, m, alternative, message):
    # never use pythonw.exe / don't run git push --force / avoid sudo
    obj, quoted, remainder = _object_phrase(m.group("rest"))
    if not obj:
        return _NEXT
    cmd = _command_from_phrase(obj, quoted)
    if cmd:
        if remainder and not quoted:
            targeted = _targeted_command(cmd, remainder, alternative, message)
            if targeted:
                return targeted
        return _command_rule(cmd, alternative, message)
    first = obj.split()[0]
    if _is_flag(first):  # "never use --no-verify when committing"
        sub = re.search(
            r"\b(commit|push|merge|rebase|pull|clone|checkout|add|reset)(?:t?ing|s|ed)?\b",
            body[m.end("rest") - len(m.group("rest")) :],
            re.I,
        )
        if sub:
            return _command_rule(f"git {sub.group(1).lower()} {first}", alternative, message)
    if _looks_like_code(first) or (quoted and re.fullmatch(r"[\w.]+\(?\)?", first)):
        return _result(
            _code_regex(first if not first.endswith("()") else first[:-1]),
            "regex",
            list(CODE_TOOLS),
            list(CODE_FIELDS),
            alternative,
            message,
        )
    return _NEXT


def _by_means_form(body: str, m, alternative, message):
    # "don't install packages globally with npm install -g": the command named after with/using
    if not re.search(_NEG, body[: m.start()], re.I):
        return _NEXT
    obj, quoted, _ = _object_phrase(m.group("rest"))
    cmd = _command_from_phrase(obj or "", quoted)
    if cmd and len(cmd.split()) > 1:
        return _command_rule(cmd, alternative, message)
    return _NEXT


def _forbidden_form(body: str, m, alternative, message):
    # "pythonw.exe is forbidden|banned|not allowed"
    obj, quoted, _ = _object_phrase(m.group("obj"))
    cmd = _command_from_phrase(obj or "", quoted)
    return _command_rule(cmd, alternative, message) if cmd else _NEXT


_PROHIBITION_FORMS = (
    ("pipeline", None, _pipeline_form),
    ("commit a file", _NEG + r"\s+(?:ever\s+)?(?:" + _COMMIT_VERBS + r")\s+(?P<rest>.+)$", _commit_form),
    ("edit a file or place", _NEG + r"\s+(?:ever\s+)?(?:" + _EDIT_VERBS + r")\s+(?P<rest>.+)$", _edit_form),
    ("write code", _NEG + r"\s+(?:ever\s+)?(?P<verb>" + _WRITE_VERBS + r")\s+(?P<rest>.+)$", _write_form),
    ("run a command", _NEG + r"\s+(?:ever\s+)?(?:(?:" + _RUN_VERBS + r")\s+)?(?P<rest>.+)$", _run_form),
    ("by means of a command", r"\b(?:with|using|via|by\s+running|through)\s+(?P<rest>.+)$", _by_means_form),
    (
        "is forbidden",
        r"^(?P<obj>`[^`]+`|.+?)\s+(?:is|are)\s+(?:forbidden|banned|prohibited|not\s+allowed|off[\s-]limits)",
        _forbidden_form,
    ),
)


def _derive_prohibition(text: str, message: str) -> dict | None:
    alt_m = _TRAILING_ALT.search(text)
    alternative = f"use {alt_m.group('alt').strip()}" if alt_m else None
    body = text[: alt_m.start()] if alt_m else text
    for _name, pattern, build in _PROHIBITION_FORMS:
        m = None
        if pattern is not None:
            m = re.search(pattern, body, re.I)
            if m is None:
                continue
        rule = build(body, m, alternative, message)
        if rule is not _NEXT:
            return rule
    return None


_PROHIBITIVE = re.compile(
    r"^\s*(?:no\s*[,:!.-]+\s*)?(?:never|don'?t|do\s+not|dont|must\s+not|mustn'?t|cannot|"
    r"can'?t|may\s+not|not\s+allowed|you\s+must\s+never|we\s+never)\b"
    r"|\b(?:is|are)\s+(?:forbidden|banned|prohibited|not\s+allowed)\b"
    r"|^\s*(?:no\s*[,:!.-]+\s*)?(?:always\s+)?use\s+.+?\s*,?\s*(?:instead\s+of|not)\s+",
    re.I,
)


def wording_action(content: str) -> str | None:
    """ "block" when the person's own words forbid something outright ("Never use X",
    "Don't run Y", "X is banned", "use A, not B"); None when the wording is softer ("avoid",
    "prefer") and the configured default action applies."""
    if not isinstance(content, str):
        return None
    return "block" if _PROHIBITIVE.search(" ".join(content.split())) else None
