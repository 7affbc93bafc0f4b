"""Which programs a shell command line actually runs.

A `command` rule such as ``pythonw.exe`` must fire on ``cd app && pythonw.exe main.py`` and
must stay silent on ``grep pythonw.exe notes.md``: a substring search cannot tell the two apart,
and a false block stops a person's work. So we read the command the way a shell would, far
enough to know which word of each simple command is the program:

- lists and pipelines (``|  ||  &&  ;  &  |&`` and newlines) and subshells/groups
  (``( )``, ``{ }``) separate simple commands;
- leading ``NAME=value`` assignments and redirections are not the program;
- reserved words (``if then do ! ...``) are skipped, ``for``/``case`` headers run nothing;
- code hidden in strings is parsed too: ``$( )``, backticks, ``<( )``, ``bash -c '...'``,
  ``eval``, ``watch``, ``su -c``, ``cmd /c``, ``powershell -Command``, a heredoc or here-string
  fed to a shell, and ``echo '...' | sh``;
- wrappers (``sudo env nohup time nice timeout exec xargs watch stdbuf find -exec uv run`` ...)
  run another program: both the wrapper and the wrapped program count as run.

- words the line builds at run time are filled in where they can be known exactly: a variable
  assigned a literal earlier in the line, ``$(echo git)``, an alias (shell or git) defined in
  it, base64 decoded into a shell, words piped into ``xargs``; ``parallel :::``,
  ``script -c``, ``source <(...)`` and ``make -f <(...)`` run what they are given. A word left
  unknown is named in ``SimpleCommand.dynamic``, and the texts it may come from and the code
  handed to an interpreter (``python -c``, ``perl -e``...) in :func:`runtime_of`, so that a
  gate can tell a rule's words built at run time from words that are not there (:mod:`dynamic`).

It is a reader, not an interpreter: nothing is run, and only what is certain is expanded.
Malformed input (unbalanced quotes, stray parentheses) is read leniently instead of being
refused, because a hook must decide on whatever Claude proposed, and ``simple_commands``
never raises. Standard library only: this
runs inside every PreToolUse hook.
"""

from __future__ import annotations

import re
from functools import lru_cache
from time import perf_counter as _perf_counter

__all__ = ["SimpleCommand", "Runtime", "simple_commands", "read_commands", "runtime_of", "program_name", "split_words"]

# How deep strings-inside-strings are followed (bash -c "bash -c '...'"), and how many simple
# commands one input may yield: both only bound the work on adversarial input.
_MAX_DEPTH = 8
_MAX_COMMANDS = 5000


class SimpleCommand:
    """One program invocation found in a command line.

    ``program``: the program word as written (quotes removed, Windows backslashes kept);
    ``name``: its basename ("pythonw.exe" for C:\\Python\\pythonw.exe, "python3" for
    /usr/bin/python3); ``args``: the remaining words, quotes removed; ``via``: the wrappers that
    ran it, outermost first ("sudo", "bash -c", "$( )", ...).
    (A plain class, not a dataclass: importing dataclasses costs a hook several ms.)"""

    __slots__ = ("program", "name", "args", "via", "dynamic")

    def __init__(self, program: str, name: str, args: list[str] | None = None, via: tuple[str, ...] = (), dynamic=()):
        self.program = program
        self.name = name
        self.args = list(args) if args else []
        self.via = tuple(via)
        # Words (as they read in program/args) that the shell fills in at run time and the
        # reading could not: `$G`, `$(which git)`. Empty for a command whose words are all known.
        self.dynamic = tuple(dynamic)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, SimpleCommand)
            and self.program == other.program
            and self.name == other.name
            and self.args == other.args
            and self.via == other.via
        )

    def __repr__(self) -> str:
        return f"SimpleCommand(program={self.program!r}, name={self.name!r}, args={self.args!r}, via={self.via!r})"

    @property
    def words(self) -> list[str]:
        return [self.program, *self.args]


def program_name(program: str) -> str:
    """Basename of a program path, for both POSIX and Windows separators."""
    stripped = program.rstrip("/\\")
    if not stripped:
        return program
    return re.split(r"[/\\]", stripped)[-1]


# --------------------------------------------------------------------------------------------
# Lexer
# --------------------------------------------------------------------------------------------

_SEPARATORS = {"|", "||", "&&", ";", "&", "|&", "\n", "(", ")", ";;", ";&", ";;&"}
_REDIRECTS = ("&>>", "<<<", "<<-", "&>", ">>", "<<", "<>", ">|", ">&", "<&", "<", ">")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


class _Word:
    """value: POSIX reading (quotes removed, escapes applied); win: the same but an unquoted
    backslash before a letter/digit is kept (a Windows path); raw: the source text; subs:
    bodies of $( ), backticks and <( ) inside the word. dyn: the parts of the word a shell
    fills in at run time (None: none), each (index in chunks, kind, name or body, inside
    double quotes), kind "var" ($NAME, ${NAME}), "param" (${...} with an operator, $1, $@)
    or "sub" ($( ), backticks); chunks: the pieces ``value`` was joined from (with dyn only)."""

    __slots__ = ("value", "win", "raw", "subs", "quoted", "dyn", "chunks")

    def __init__(self, value: str, win: str, raw: str, subs: list[str], quoted: bool, dyn=None, chunks=None):
        self.value, self.win, self.raw, self.subs, self.quoted = value, win, raw, subs, quoted
        self.dyn, self.chunks = dyn, chunks


class _Heredoc:
    __slots__ = ("delimiter", "strip_tabs", "expands", "body")

    def __init__(self, delimiter: str, strip_tabs: bool, expands: bool):
        self.delimiter = delimiter
        self.strip_tabs = strip_tabs
        self.expands = expands  # unquoted delimiter: $( ) in the body runs
        self.body = ""


class _Tok:
    __slots__ = ("kind", "text", "word", "heredoc")

    def __init__(self, kind: str, text: str = "", word: _Word | None = None):
        self.kind = kind  # "w" word, "op" separator, "r" redirection
        self.text = text
        self.word = word
        self.heredoc: _Heredoc | None = None


_BALANCED_STOPS: dict[tuple[str, str], re.Pattern[str]] = {}


def _read_balanced(s: str, i: int, open_ch: str = "(", close_ch: str = ")") -> tuple[str, int]:
    """Body of a construct opened just before ``i``; returns (body, index after the closer).

    Quotes and nested substitutions are respected; an unclosed construct extends to the end of
    the input (lenient reading)."""
    stops = _BALANCED_STOPS.get((open_ch, close_ch))
    if stops is None:
        stops = re.compile("[\\\\'\"`" + re.escape(open_ch + close_ch) + "]")
        _BALANCED_STOPS[(open_ch, close_ch)] = stops
    depth = 1
    start = i
    n = len(s)
    while True:
        m = stops.search(s, i)
        if m is None:
            return s[start:], n
        i = m.start()
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "'":
            j = s.find("'", i + 1)
            i = n if j < 0 else j + 1
        elif c == '"':
            i = _skip_double(s, i + 1)
        elif c == "`":
            j = s.find("`", i + 1)
            i = n if j < 0 else j + 1
        elif c == open_ch:
            depth += 1
            i += 1
        else:
            depth -= 1
            if depth == 0:
                return s[start:i], i + 1
            i += 1


_DQ_STOPS = re.compile(r'["\\$`]')


def _skip_double(s: str, i: int) -> int:
    """Index after the closing double quote that matches an opening one before ``i``."""
    n = len(s)
    while True:
        m = _DQ_STOPS.search(s, i)
        if m is None:
            return n
        i = m.start()
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "`":
            j = s.find("`", i + 1)
            i = n if j < 0 else j + 1
        elif s.startswith("$(", i):
            _, i = _read_balanced(s, i + 2)
        else:
            i += 1


_ANSI_C_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _ansi_c(s: str, i: int) -> tuple[str, int]:
    """Read a $'...' string starting after the opening quote."""
    out = []
    n = len(s)
    while i < n:
        c = s[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n:
            e = s[i + 1]
            if e in _ANSI_C_ESCAPES:
                out.append(_ANSI_C_ESCAPES[e])
                i += 2
                continue
            m = re.match(r"x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})", s[i + 1 : i + 10])
            if m:
                digits = m.group(1) or m.group(2) or m.group(3)
                try:
                    out.append(chr(int(digits, 16)) if digits else chr(int(m.group(4), 8)))
                except (ValueError, OverflowError):
                    pass
                i += 1 + m.end()
                continue
            out.append(e)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), n


class OutOfTime(Exception):
    """Reading a command line passed the deadline it was given."""


class _Lexer:
    def __init__(self, s: str, deadline: float | None = None):
        self.s = s
        self.n = len(s)
        self.i = 0
        self.toks: list[_Tok] = []
        self.pending: list[_Heredoc] = []
        self.deadline = deadline
        self.dyn: list = []  # run-time parts of the word being read (see _Word.dyn)

    def run(self) -> list[_Tok]:
        s, n = self.s, self.n
        deadline = self.deadline
        steps = 0
        while self.i < n:
            if deadline is not None:
                steps += 1
                if steps & 1023 == 0 and _perf_counter() > deadline:
                    raise OutOfTime
            c = s[self.i]
            if c in " \t\r":
                self.i += 1
            elif c == "\n":
                self._newline()
            elif c == "\\" and s.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#":
                j = s.find("\n", self.i)
                self.i = n if j < 0 else j
            elif c in "|&;()":
                self._operator()
            elif c in "<>" and not s.startswith("(", self.i + 1):
                self._redirect()
            else:
                self._word()
        return self.toks

    def _newline(self) -> None:
        self.toks.append(_Tok("op", "\n"))
        self.i += 1
        for doc in self.pending:
            self._read_heredoc(doc)
        self.pending = []

    def _read_heredoc(self, doc: _Heredoc) -> None:
        s = self.s
        lines = []
        while self.i < self.n:
            j = s.find("\n", self.i)
            line = s[self.i :] if j < 0 else s[self.i : j]
            self.i = self.n if j < 0 else j + 1
            check = line.lstrip("\t") if doc.strip_tabs else line
            if check == doc.delimiter:
                break
            lines.append(check)
        doc.body = "\n".join(lines)

    def _operator(self) -> None:
        s, i = self.s, self.i
        if s.startswith("&>", i):
            self._redirect()
            return
        for op in (";;&", "||", "&&", "|&", ";;", ";&"):
            if s.startswith(op, i):
                self.toks.append(_Tok("op", op))
                self.i += len(op)
                return
        self.toks.append(_Tok("op", s[i]))
        self.i += 1

    def _redirect(self) -> None:
        s, i = self.s, self.i
        for op in _REDIRECTS:
            if s.startswith(op, i):
                break
        else:  # pragma: no cover - callers only come here on '<', '>' or '&>'
            op = s[i]
        self.i += len(op)
        tok = _Tok("r", op)
        self.toks.append(tok)
        if op in ("<<", "<<-"):
            # The delimiter word follows; quoting it (even partly) disables expansion.
            while self.i < self.n and s[self.i] in " \t":
                self.i += 1
            word = self._read_word()
            if word is not None:
                doc = _Heredoc(word.value, op == "<<-", not word.quoted)
                tok.heredoc = doc
                self.pending.append(doc)

    def _word(self) -> None:
        word = self._read_word()
        if word is None:
            return
        # "2>" "10>&": a word of digits glued to a redirection is a file descriptor, not a word.
        if word.raw.isdigit() and self.i < self.n and self.s[self.i] in "<>":
            self._redirect()
            return
        self.toks.append(_Tok("w", word.value, word))

    def _read_word(self) -> _Word | None:
        s, n = self.s, self.n
        start = i = self.i
        value: list[str] = []
        win: list[str] = []
        subs: list[str] = []
        quoted = False
        self.dyn = dyn = []
        while i < n:
            m = _WORD_STOPS.search(s, i)
            j = n if m is None else m.start()
            if j > i:  # a run of ordinary characters
                value.append(s[i:j])
                win.append(s[i:j])
                i = j
                if i >= n:
                    break
            c = s[i]
            if c in " \t\r\n|&;()":
                break
            if c in "<>":
                if not s.startswith("(", i + 1):
                    break
                body, j = _read_balanced(s, i + 2)  # process substitution <( ) >( )
                subs.append(body)
                value.append(s[i:j])
                win.append(s[i:j])
                i = j
            elif c == "\\":
                if i + 1 >= n:
                    i += 1
                    continue
                e = s[i + 1]
                if e != "\n":
                    value.append(e)
                    # An escaped letter means nothing to a POSIX shell, so a backslash before
                    # one is almost certainly a Windows path separator: keep it for `win`.
                    win.append("\\" + e if (e.isalnum() or e == "_") else e)
                i += 2
            elif c == "'":
                quoted = True
                j = s.find("'", i + 1)
                j = n if j < 0 else j
                value.append(s[i + 1 : j])
                win.append(s[i + 1 : j])
                i = j + 1
            elif c == '"':
                quoted = True
                i = self._read_double(i + 1, value, win, subs)
            elif c == "`":
                i = self._read_backtick(i, value, win, subs, False)
            else:  # "$"
                nxt = s[i + 1] if i + 1 < n else ""
                if nxt == "'":
                    quoted = True
                    chunk, i = _ansi_c(s, i + 2)
                    value.append(chunk)
                    win.append(chunk)
                    continue
                if nxt == '"':  # $"..." (locale translation) reads like "..."
                    i += 1
                    continue
                j = self._dollar(i, subs, len(value), False)
                value.append(s[i:j])
                win.append(s[i:j])
                i = j
        self.i = i
        if i == start:
            self.i += 1  # never stall on a character no branch consumed
            return None
        if dyn:
            return _Word("".join(value), "".join(win), s[start:i], subs, quoted, dyn, value)
        return _Word("".join(value), "".join(win), s[start:i], subs, quoted)

    def _dollar(self, i: int, subs: list[str], chunk: int = 0, in_dq: bool = False) -> int:
        """Read a $-expansion at ``i``; returns the index after it. $( ) bodies go to subs;
        what it fills in at run time goes to ``self.dyn`` as the chunk ``chunk`` of the word."""
        s, n = self.s, self.n
        if s.startswith("$((", i):  # arithmetic: runs nothing, gives a number
            _, j = _read_balanced(s, i + 3)
            return j + 1 if j < n and s[j] == ")" else j
        if s.startswith("$(", i):
            body, j = _read_balanced(s, i + 2)
            subs.append(body)
            self.dyn.append((chunk, "sub", body, in_dq))
            return j
        if s.startswith("${", i):
            body, j = _read_balanced(s, i + 2, "{", "}")
            plain = body and (body[0].isalpha() or body[0] == "_") and body.replace("_", "a").isalnum()
            self.dyn.append((chunk, "var" if plain else "param", body, in_dq))
            return j
        j = i + 1
        if j < n:
            c = s[j]
            if c.isalpha() or c == "_":
                while j < n and (s[j].isalnum() or s[j] == "_") and s[j].isascii():
                    j += 1
                self.dyn.append((chunk, "var", s[i + 1 : j], in_dq))
            elif c.isdigit() or c in "@*#?$!-":
                j += 1
                self.dyn.append((chunk, "param", s[i + 1 : j], in_dq))
        return j

    def _read_backtick(self, i: int, value: list, win: list, subs: list, in_dq: bool) -> int:
        """A `...` command substitution at ``i`` (quoted or not): its text runs as a command."""
        s, n = self.s, self.n
        j = s.find("`", i + 1)
        j = n if j < 0 else j
        subs.append(s[i + 1 : j])
        self.dyn.append((len(value), "sub", s[i + 1 : j], in_dq))
        value.append(s[i : j + 1])
        win.append(s[i : j + 1])
        return j + 1

    def _read_double(self, i: int, value: list[str], win: list[str], subs: list[str]) -> int:
        s, n = self.s, self.n
        while i < n:
            m = _DQ_STOPS.search(s, i)
            j = n if m is None else m.start()
            if j > i:
                value.append(s[i:j])
                win.append(s[i:j])
                i = j
                if i >= n:
                    break
            c = s[i]
            if c == '"':
                return i + 1
            if c == "\\":
                e = s[i + 1] if i + 1 < n else ""
                if e in ('"', "\\", "$", "`"):
                    value.append(e)
                    win.append(e)
                elif e != "\n":
                    value.append("\\" + e)
                    win.append("\\" + e)
                i += 2
            elif c == "`":
                i = self._read_backtick(i, value, win, subs, True)
            else:  # "$"
                j = self._dollar(i, subs, len(value), True)
                value.append(s[i:j])
                win.append(s[i:j])
                i = j
        return n


_WORD_STOPS = re.compile(r"[ \t\r\n|&;()<>\\'\"`$]")


def split_words(text: str) -> list[str]:
    """Shell-style word splitting of one simple command (quotes removed); never raises.

    Used to read rule patterns such as ``git commit -m "wip"`` token by token."""
    try:
        return [t.text for t in _Lexer(text).run() if t.kind == "w"]
    except Exception:  # pragma: no cover - lexer is lenient; belt and braces
        return text.split()


# --------------------------------------------------------------------------------------------
# From tokens to simple commands
# --------------------------------------------------------------------------------------------

_LEADING_KEYWORDS = {
    "!",
    "{",
    "}",
    "then",
    "do",
    "else",
    "elif",
    "if",
    "while",
    "until",
    "coproc",
    "fi",
    "done",
    "esac",
}
_HEADER_KEYWORDS = {"for", "select", "case", "in"}
_SHELLS = {
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "yash",
    "tcsh",
    "csh",
    "busybox-sh",
    "git-bash",
    "rbash",
}
_EXE_SUFFIX = re.compile(r"\.(exe|com|bat|cmd)$", re.IGNORECASE)


def _bare(name: str) -> str:
    return _EXE_SUFFIX.sub("", name).lower()


class _Raw:
    __slots__ = ("words", "redirect_words", "heredocs", "herestrings", "pipe_in", "inputs", "outputs")

    def __init__(self, words, redirect_words, heredocs, herestrings, pipe_in: bool):
        self.words: list[_Word] = words
        self.redirect_words: list[_Word] = redirect_words
        self.inputs: list[_Word] = []  # the files of ``< FILE`` and ``<> FILE``
        self.outputs: list[_Word] = []  # the files of ``> FILE``, ``>> FILE``, ``&> FILE``
        self.heredocs: list[_Heredoc] = heredocs
        self.herestrings: list[str] = herestrings
        self.pipe_in = pipe_in


class _Reading:
    """What one reading of a command line shares across its nested parts: the deadline it
    must keep (None: none) and whether it had to leave commands out (past ``_MAX_COMMANDS``
    or ``_MAX_DEPTH``), so that a caller knows the list it got is not the whole line."""

    __slots__ = (
        "deadline",
        "truncated",
        "vars",
        "aliases",
        "git_aliases",
        "sources",
        "carriers",
        "filling",
        "outputs",
        "assigned",
        "pipes",
        "inputs",
        "writes",
    )

    def __init__(self, deadline: float | None = None):
        self.deadline = deadline
        self.truncated = False
        # Run-time words (see Runtime): variables assigned in the line (None: not one known
        # value), shell and git aliases defined in it, the texts words may come from, and code
        # handed to an interpreter.
        self.vars: dict[str, str | None] = {}
        self.aliases: dict[str, str] = {}
        self.git_aliases: dict[str, str] = {}
        self.sources: list[str] = []
        self.carriers: list[tuple[str, str]] = []
        self.filling = 0  # substitutions being filled in, one inside another
        self.outputs: dict = {}  # (text, strict, assignments so far) -> what it writes (None: not known)
        self.assigned: list[str] = []  # every variable assignment read, in order
        self.pipes: list[tuple[SimpleCommand, SimpleCommand]] = []  # (writer, reader) of each pipe
        self.inputs: list[str] = []  # files redirected into a command (``< FILE``)
        self.writes: list[tuple[SimpleCommand, str]] = []  # (command, file its output goes to)

    def runtime(self) -> Runtime:
        return Runtime(
            tuple(self.sources), tuple(self.carriers), tuple(self.pipes), tuple(self.inputs), tuple(self.writes)
        )


class Runtime:
    """What a command line builds at run time beyond its words: ``sources``, the texts a word
    left unknown may come from (values assigned, substitution bodies, loop lists, alias
    definitions); ``carriers``, code run by something that is not a shell, as (how, text):
    ``python3 -c``, ``perl -e``, a script sourced from a substitution whose output is unknown;
    ``pipes``, (writer, reader) for each ``|`` between two commands of the line (a wrapper and
    what it runs are both the writer or reader: ``curl URL | sudo bash``); ``inputs``, the files
    redirected into a command (``wc -l < FILE``); ``writes``, (command, file) for each output
    redirection (``curl URL > FILE``)."""

    __slots__ = ("sources", "carriers", "pipes", "inputs", "writes")

    def __init__(
        self, sources: tuple = (), carriers: tuple = (), pipes: tuple = (), inputs: tuple = (), writes: tuple = ()
    ):
        self.sources, self.carriers, self.pipes = sources, carriers, pipes
        self.inputs, self.writes = inputs, writes


# Variables whose value a line can rely on without assigning them: ``$IFS`` is blank space
# (``rm${IFS}-rf${IFS}/`` runs ``rm -rf /``), ``$HOME`` is the home directory ``~`` names.
_ENVIRONMENT_DEFAULTS = {"IFS": " \t\n", "HOME": "~"}

_BLANKS = re.compile(r"[ \t\n]+")
_FIELD_BREAK = "\ue000"  # a private-use character marks where an expansion splits the word

# A program word read as a Windows path (its backslashes kept) only when it looks like one: a
# drive, a UNC or relative prefix, an executable suffix; ``g\it`` is ``git`` to bash.
_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:|\\\\|\.{1,2}\\)|\.(?:exe|com|bat|cmd|ps1)$|\\.*\\", re.IGNORECASE)


def _program_word(w: _Word) -> str:
    if w.win != w.value and _WINDOWS_PATH.search(w.win):
        return w.win
    return w.value


def _runs_text(how: str) -> bool:
    """Whether a ``via`` step runs a text (a substitution, ``-c`` code, a script read from its
    input) rather than wrap the command (``sudo``, ``env``, ``xargs``)."""
    return any(k in how for k in ("$(", "<(", "stdin", " -c", " -e", "recipe", "alias", "decoded"))


class _Builder:
    def __init__(self, depth: int, out: list[SimpleCommand], via: tuple[str, ...], reading: _Reading | None = None):
        self.depth = depth
        self.out = out
        self.via = via
        self.reading = reading if reading is not None else _Reading()
        self.unknown: frozenset = frozenset()  # words of the command being read left unknown

    # -- entry ---------------------------------------------------------------------------
    def parse(self, text: str) -> None:
        if not text.strip():
            return
        if self.depth > _MAX_DEPTH or len(self.out) >= _MAX_COMMANDS:
            self.reading.truncated = True
            return
        toks = _Lexer(text, self.reading.deadline).run()
        raws = self._group(toks)
        piped: str | None = None
        writers: list[SimpleCommand] = []
        for k, raw in enumerate(raws):
            start = len(self.out)
            self._emit(raw, piped if raw.pipe_in else None)
            depth = len(self.via)
            members = [c for c in self.out[start:] if not any(map(_runs_text, c.via[depth:]))]
            if raw.pipe_in and writers:
                self.reading.pipes.extend((w, r) for w in writers for r in members)
            writers = members
            for w in raw.outputs:
                path = self._fill(w) if w.dyn else w.value
                self.reading.writes.extend((c, path) for c in members if path)
            # what this command writes into the pipe, when the next one reads it and it is known
            piped = (
                self._output(raw, piped if raw.pipe_in else None) if k + 1 < len(raws) and raws[k + 1].pipe_in else None
            )

    def _group(self, toks: list[_Tok]) -> list[_Raw]:
        raws: list[_Raw] = []
        cur = _Raw([], [], [], [], False)
        i = 0
        n = len(toks)
        while i < n:
            t = toks[i]
            if t.kind == "w":
                assert t.word is not None
                if not cur.words and t.word.value == "[[" and not t.word.quoted:
                    # [[ ... ]] is one conditional expression: &&, ||, <, ( ) are inside it.
                    cur.words.append(t.word)
                    i += 1
                    while i < n:
                        u = toks[i]
                        if u.kind == "w" and u.word is not None:
                            cur.words.append(u.word)
                            if u.word.value == "]]":
                                break
                        i += 1
                    i += 1
                    continue
                cur.words.append(t.word)
                i += 1
                continue
            if t.kind == "r":
                target = toks[i + 1] if i + 1 < n and toks[i + 1].kind == "w" else None
                if t.heredoc is not None:
                    cur.heredocs.append(t.heredoc)
                    # the delimiter word was consumed by the lexer
                elif target is not None:
                    assert target.word is not None
                    cur.redirect_words.append(target.word)
                    if t.text in ("<", "<>"):
                        cur.inputs.append(target.word)
                    elif t.text in (">", ">>", ">|", "&>", "&>>"):
                        cur.outputs.append(target.word)
                    if t.text == "<<<":
                        cur.herestrings.append(target.word.value)
                    i += 1
                i += 1
                continue
            # separator
            op = t.text
            if op == "(" and len(cur.words) == 1 and i + 1 < n and toks[i + 1].kind == "op" and toks[i + 1].text == ")":
                # name() { ...; } defines a function: the name is not run here.
                cur.words = []
                i += 2
                continue
            if cur.words or cur.redirect_words or cur.heredocs:
                raws.append(cur)
            cur = _Raw([], [], [], [], op in ("|", "|&"))
            i += 1
        if cur.words or cur.redirect_words or cur.heredocs:
            raws.append(cur)
        return raws

    # -- one simple command ----------------------------------------------------------------
    def _emit(self, raw: _Raw, piped_text: str | None) -> None:
        for w in raw.words + raw.redirect_words:
            for sub in w.subs:
                self._nested(sub, "$( )")
        for doc in raw.heredocs:
            if doc.expands:
                for sub in _substitutions(doc.body):
                    self._nested(sub, "$( )")
        for w in raw.inputs:
            path = self._fill(w) if w.dyn else w.value
            self.reading.inputs.append(path if path is not None else w.value)
        words = list(raw.words)
        # Reserved words and headers.
        while words and not words[0].quoted and words[0].value in _LEADING_KEYWORDS:
            words.pop(0)
            if words and not words[0].quoted and words[0].value == "function":
                # `function f { body; }`: the body runs when f is called; read it as run.
                words = words[2:]
                while words and words[0].value in ("()", "{"):
                    words.pop(0)
        if words and not words[0].quoted and words[0].value == "function":
            words = words[2:]
            while words and words[0].value in ("()", "{"):
                words.pop(0)
        while words and not words[0].quoted and words[0].value in _LEADING_KEYWORDS:
            words.pop(0)
        if words and not words[0].quoted and words[0].value in _HEADER_KEYWORDS:
            if words[0].value in ("for", "select") and len(words) > 1:
                # the loop variable takes each word of the list in turn: not one known value
                self._set(words[1].value, None)
                if len(words) > 3 and words[2].value == "in":
                    self.reading.sources.append(" ".join(w.value for w in words[3:]))
            return
        if words and not words[0].quoted and words[0].value == "time":
            words.pop(0)
            while words and words[0].value == "-p":
                words.pop(0)
        # Leading assignments: FOO=1 BAR=2 cmd (for cmd only); alone, for what follows.
        assigns = []
        while words and _ASSIGNMENT.match(words[0].raw):
            assigns.append(words.pop(0))
        if not words:
            for w in assigns:
                self._assign(w)
            return
        if any(w.dyn for w in words):
            values, unknown = self._expand(words)
            self.unknown = frozenset(unknown)
            if not values:
                return
            program = values[0]
        else:
            program = _program_word(words[0])
            values = [w.value for w in words]
            self.unknown = frozenset()
        stdin_script = None
        if raw.heredocs:
            stdin_script = raw.heredocs[-1].body
        elif raw.herestrings:
            stdin_script = raw.herestrings[-1]
        elif piped_text is not None:
            stdin_script = piped_text
        self._command(program, values[1:], self.via, stdin_script)
        self.unknown = frozenset()

    # -- words filled in at run time --------------------------------------------------------
    def _fill(self, w: _Word) -> str | None:
        """The word's value with each run-time part filled in, when every part is known: a
        variable assigned one literal value earlier in the line, ``$(echo git)``; else None
        (the texts an unknown part may come from are kept as sources)."""
        chunks = self._fill_chunks(w)
        return None if chunks is None else "".join(chunks)

    def _fill_chunks(self, w: _Word) -> list[str] | None:
        """The pieces of the word with each run-time part filled in (see :meth:`_fill`)."""
        chunks = list(w.chunks or (w.value,))
        known = True
        for idx, kind, payload, _dq in w.dyn or ():
            value = None
            if kind == "var":
                value = self.reading.vars.get(payload)
                if value is None and payload not in self.reading.vars:
                    value = _ENVIRONMENT_DEFAULTS.get(payload)
            elif kind == "sub":
                out = self._known_output(payload, strict=True)
                value = None if out is None else out.rstrip("\n")
                if value is None:
                    self.reading.sources.append(payload)
            else:
                self.reading.sources.append(payload)
            if value is None:
                known = False
            else:
                chunks[idx] = value
        return chunks if known else None

    def _expand(self, words: list[_Word]) -> tuple[list[str], list[str]]:
        """The words' values with known run-time parts filled in (an unquoted one split into
        words, as the shell splits it), and the values of those left unknown."""
        out: list[str] = []
        unknown: list[str] = []
        for _k, w in enumerate(words):
            if not w.dyn:
                out.append(_program_word(w) if not out else w.value)
                continue
            chunks = self._fill_chunks(w)
            if chunks is None:
                out.append(w.value)
                unknown.append(w.value)
                continue
            # What an unquoted expansion gives is split at blanks (``$IFS`` itself is one);
            # quoted text and the word's literal parts are not.
            unquoted = {idx for idx, _kind, _payload, dq in w.dyn if not dq}
            marked = "".join(_BLANKS.sub(_FIELD_BREAK, c) if k in unquoted else c for k, c in enumerate(chunks))
            fields = [f for f in marked.split(_FIELD_BREAK) if f]
            if fields or len(unquoted) < len(w.dyn):
                out.extend(fields or [""])
        return out, unknown

    def _set(self, name: str, value: str | None) -> None:
        """A variable assigned in the line; two different values leave it unknown (which one
        holds depends on the path the script takes)."""
        vars_ = self.reading.vars
        self.reading.assigned.append(name)
        if name in vars_ and vars_[name] != value:
            value = None
        vars_[name] = value

    def _assign(self, w: _Word) -> None:
        name, _, raw_value = w.raw.partition("=")
        self.reading.sources.append(raw_value)
        text = self._fill(w) if w.dyn else w.value
        value = text.partition("=")[2] if text is not None else None
        if name.endswith("+") or "[" in name:  # appended to, or an array element
            value = None
        self._set(name.rstrip("+").split("[", 1)[0], value)

    def _known_output(self, text: str, strict: bool = False) -> str | None:
        """What a command text writes, when it is one pipeline of commands whose output is
        known from their words (echo, printf, cat of a heredoc, base64 -d of a known text).
        ``strict``: None when a word of it is left unknown (the output stands for a word);
        otherwise the unknown word is kept as written (the output is read as a script, where
        it is read again as a word left to run time)."""
        reading = self.reading
        key = (text, strict, len(reading.assigned))
        if key in reading.outputs:
            return reading.outputs[key]
        if reading.filling > _MAX_DEPTH or not text.strip() or len(text) > 64 * 1024:
            return None
        reading.outputs[key] = out = self._read_output(text, strict)
        return out

    def _read_output(self, text: str, strict: bool) -> str | None:
        reading = self.reading
        try:
            reading.filling += 1
            raws = self._group(_Lexer(text, reading.deadline).run())
            if not raws or any(not r.pipe_in for r in raws[1:]):
                return None
            out = None
            for r in raws:
                out = self._output(r, out, strict)
                if out is None:
                    return None
            return out
        finally:
            reading.filling -= 1

    def _output(self, raw: _Raw, stdin: str | None, strict: bool = False) -> str | None:
        """What one simple command writes to its standard output, if its words say it."""
        if not raw.words or raw.words[0].dyn:
            return None
        name = _bare(program_name(raw.words[0].value))
        if name not in _OUTPUT_PROGRAMS:
            return None
        args = []
        for w in raw.words[1:]:
            value = self._fill(w) if w.dyn else w.value
            if value is None:
                if strict:
                    return None
                value = w.value
            args.append(value)
        if raw.heredocs:
            stdin = raw.heredocs[-1].body
        elif raw.herestrings:
            stdin = raw.herestrings[-1]
        return _output_of(name, args, stdin)

    def _command(self, program: str, args: list[str], via: tuple[str, ...], stdin_script: str | None) -> None:
        if len(self.out) >= _MAX_COMMANDS:
            self.reading.truncated = True
            return
        name = program_name(program)
        unknown = self.unknown
        dynamic = [w for w in (program, *args) if w in unknown] if unknown else ()
        self.out.append(SimpleCommand(program, name, list(args), via, dynamic))
        aliases = self.reading.aliases
        if aliases and program in aliases and "alias" not in via and program not in unknown:
            self._nested(" ".join([aliases[program], *map(_quote, args)]), "alias", via)
            return
        self._unwrap(_bare(name), name, args, via, stdin_script)

    def _nested(self, text: str, how: str, via: tuple[str, ...] | None = None) -> None:
        base = self.via if via is None else via
        _Builder(self.depth + 1, self.out, base + ((how,) if how else ()), self.reading).parse(text)

    # -- wrappers ---------------------------------------------------------------------------
    def _run_rest(
        self, rest: list[str], via: tuple[str, ...], stdin_script: str | None = None, allow_assignments: bool = False
    ) -> None:
        if allow_assignments:
            while rest and _ASSIGNMENT.match(rest[0]):
                rest = rest[1:]
        if rest:
            self._command(rest[0], rest[1:], via, stdin_script)

    def _unwrap(self, bare: str, name: str, args: list[str], via: tuple[str, ...], stdin_script: str | None) -> None:
        if self.depth > _MAX_DEPTH:
            return
        via2 = via + (name,)
        spec = _WRAPPERS.get(bare)
        if spec is not None:
            takes_value, positionals, flags_meaning_no_run = spec
            rest = _skip_options(args, takes_value)
            if rest is None:
                return
            if any(a in flags_meaning_no_run for a in args[: len(args) - len(rest)]):
                return
            if bare == "env":
                split = _env_split_string(args)
                if split is not None:
                    self._nested(split, "", via2)
                    return
            rest = rest[positionals:]
            if bare == "xargs" and stdin_script and rest:
                rest = _xargs_filled(args[: len(args) - len(rest)], rest, stdin_script)
            self._run_rest(rest, via2, stdin_script, allow_assignments=bare in ("env", "sudo", "doas"))
            return
        if bare in _SUBCOMMAND_RUNNERS and args:
            sub = args[0]
            if sub in _SUBCOMMAND_RUNNERS[bare]:
                rest = _skip_options(args[1:], _SUBCOMMAND_RUNNERS[bare][sub])
                if rest:
                    self._run_rest(rest, via + (f"{name} {sub}",))
            return
        if bare in _SHELLS or (bare == "busybox" and args and _bare(args[0]) in _SHELLS):
            if bare == "busybox":
                args = args[1:]
            self._shell(args, via, stdin_script, name)
            return
        if bare == "busybox" and args:
            self._run_rest(args, via2)
            return
        if bare == "eval":
            self._nested(" ".join(args), "eval", via)
            return
        if bare in _RUNTIME_PROGRAMS:
            self._runtime(bare, name, args, via, stdin_script)
            return
        if bare in _INTERPRETERS or bare.startswith(("python", "pypy")):
            self._interpreter(bare, name, args, stdin_script)
            return
        if bare == "watch":
            rest = _skip_options(args, {"-n", "--interval", "-q", "--equexit"})
            if rest:
                if any(a in ("-x", "--exec") for a in args[: len(args) - len(rest)]):
                    self._run_rest(rest, via2)
                else:
                    self._nested(" ".join(rest), "watch", via)
            return
        if bare in ("su", "runuser"):
            script = _option_value(args, ("-c", "--command"))
            if script is not None:
                self._nested(script, f"{name} -c", via)
            return
        if bare == "find":
            self._find_exec(args, via2)
            return
        if bare in ("fd", "fdfind"):
            for k, a in enumerate(args):
                if a in ("-x", "--exec", "-X", "--exec-batch"):
                    self._run_rest(args[k + 1 :], via2)
                    return
            return
        if bare == "parallel":
            rest = _skip_options(
                args, {"-j", "--jobs", "-S", "--sshlogin", "--joblog", "--delay", "--timeout", "-a", "--arg-file"}
            )
            if rest:
                end = next((k for k, a in enumerate(rest) if a in (":::", "::::", ":::+")), len(rest))
                if end:
                    self._nested(" ".join(rest[:end]), "parallel", via)
                # each argument after ::: runs: as the command itself, or filled into the
                # command's {} (appended when it has none)
                template = rest[:end]
                for a in [a for a in rest[end + 1 :] if a not in (":::", "::::", ":::+")][:64]:
                    if not template:
                        self._nested(a, "parallel :::", via)
                    elif any("{}" in t for t in template):
                        self._nested(" ".join(t.replace("{}", a) for t in template), "parallel :::", via)
                    else:
                        self._nested(" ".join([*template, a]), "parallel :::", via)
            return
        if bare == "cmd":
            for k, a in enumerate(args):
                if a.lower() in ("/c", "/k", "/r"):
                    self._nested(" ".join(args[k + 1 :]), "cmd /c", via)
                    return
            return
        if bare in ("powershell", "pwsh"):
            self._powershell(args, via, name)
            return
        if bare == "start" and args:
            # Windows `start ["title"] [/opts] program args`: a title is quoted, often empty.
            rest = [a for a in args if not a.startswith("/")]
            while rest and (not rest[0] or " " in rest[0]):
                rest.pop(0)
            if rest:
                self._run_rest(rest, via2)
            return

    def _runtime(self, bare: str, name: str, args: list[str], via: tuple[str, ...], stdin_script: str | None) -> None:
        """Commands that define words used later in the line, or run a script from somewhere."""
        reading = self.reading
        if bare == "git":
            self._git(args, via)
        elif bare == "alias":
            for a in args:
                alias, eq, value = a.partition("=")
                if eq and alias and not alias.startswith("-"):
                    reading.aliases[alias] = value
                    reading.sources.append(value)
        elif bare == "unalias":
            for a in args:
                reading.aliases.pop(a, None)
        elif bare in ("export", "declare", "typeset", "local", "readonly"):
            for a in args:
                if _ASSIGNMENT.match(a):
                    var, _, value = a.partition("=")
                    reading.sources.append(value)
                    known = a not in self.unknown and not var.endswith("+") and "[" not in var
                    self._set(var.rstrip("+").split("[", 1)[0], value if known else None)
        elif bare in ("read", "mapfile", "readarray", "unset"):
            for a in args:
                if a[:1] != "-" and _ASSIGNMENT.match(a + "="):
                    self._set(a, None)
        elif bare in ("source", "."):
            if args and _is_process_substitution(args[0]):
                self._sourced(args[0][2:-1], f"{name} <( )", via)
            elif args and args[0] in ("/dev/stdin", "-") and stdin_script:
                self._nested(stdin_script, f"{name} <stdin", via)
        elif bare == "script":
            for k, a in enumerate(args):
                if k + 1 < len(args) and (a == "--command" or (a[:1] == "-" and a[1:2] != "-" and a.endswith("c"))):
                    self._nested(args[k + 1], "script -c", via)
                    break
                if a.startswith("--command="):
                    self._nested(a.partition("=")[2], "script -c", via)
                    break
        elif bare in ("make", "gmake"):
            makefile = _option_value(args, ("-f", "--file", "--makefile"))
            text = None
            if makefile is not None and _is_process_substitution(makefile):
                text = self._known_output(makefile[2:-1])
                if text is None:
                    reading.carriers.append((f"{name} -f <( )", makefile[2:-1]))
            elif makefile == "-" and stdin_script:
                text = stdin_script
            if text:
                for line in text.split("\n"):
                    recipe = line[1:] if line.startswith("\t") else line.partition(";")[2] if ":" in line else ""
                    recipe = recipe.lstrip().lstrip("@-+")
                    if recipe.strip():
                        self._nested(recipe, f"{name} recipe", via)

    def _git(self, args: list[str], via: tuple[str, ...]) -> None:
        """git aliases defined in the line (``git -c alias.p='push --force' p``, ``git config
        alias.p ...`` before ``git p``) run what they stand for."""
        local: dict[str, str] = {}
        k = 0
        while k < len(args):
            a = args[k]
            if a == "-c" and k + 1 < len(args):
                key, eq, value = args[k + 1].partition("=")
                if eq and key.lower().startswith("alias."):
                    local[key[6:].lower()] = value
                    self.reading.sources.append(value)
                k += 2
            elif a in _GIT_VALUE_OPTIONS:
                k += 2
            elif a.startswith("-"):
                k += 1
            else:
                break
        if k >= len(args):
            return
        sub, rest = args[k], args[k + 1 :]
        if sub == "config":
            words = [w for w in rest if not w.startswith("-")]
            if words[:1] == ["set"]:
                words = words[1:]
            if len(words) >= 2 and words[0].lower().startswith("alias."):
                self.reading.git_aliases[words[0][6:].lower()] = words[1]
                self.reading.sources.append(words[1])
            return
        if "git alias" in via:
            return
        value = local.get(sub.lower())
        if value is None:
            value = self.reading.git_aliases.get(sub.lower())
        if value is None:
            return
        if value.startswith("!"):
            self._nested(" ".join([value[1:], *map(_quote, rest)]), "git alias", via)
        else:
            self._command("git", [*split_words(value), *rest], via + ("git alias",), None)

    def _sourced(self, body: str, how: str, via: tuple[str, ...]) -> None:
        """A script read from a process substitution: run as parsed when its output is known,
        kept as run-time code otherwise."""
        text = self._known_output(body)
        if text is not None:
            self._nested(text, how, via)
        else:
            self.reading.carriers.append((how, body))

    def _interpreter(self, bare: str, name: str, args: list[str], stdin_script: str | None) -> None:
        """Code an interpreter runs from its command line or its standard input: kept as
        run-time code, since what it runs is known only when it runs."""
        options = _INTERPRETERS.get(bare, ("-c",))
        code = None
        how = name
        for k, a in enumerate(args):
            if a in options and k + 1 < len(args):
                code, how = args[k + 1], f"{name} {a}"
                break
            if not options and not a.startswith("-"):
                code = a  # awk, tclsh: the first word that is not an option is the program
                break
            if options and not a.startswith("-"):
                break  # a script file
        if code is None and stdin_script and (not args or args[-1] == "-" or all(a.startswith("-") for a in args)):
            code, how = stdin_script, f"{name} <stdin"
        if code:
            self.reading.carriers.append((how, code))

    def _shell(self, args: list[str], via: tuple[str, ...], stdin_script: str | None, name: str) -> None:
        k = 0
        command_mode = False
        while k < len(args):
            a = args[k]
            if a == "--":
                k += 1
                break
            if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                k += 2
                continue
            if a.startswith("--"):
                k += 1
                continue
            if len(a) > 1 and a[0] in "-+":
                if "c" in a[1:] and a[0] == "-":
                    command_mode = True
                k += 1
                continue
            break
        if command_mode:
            if k < len(args):
                self._nested(args[k], f"{name} -c", via)
            return
        if k < len(args) and args[k] != "-":
            if _is_process_substitution(args[k]):
                self._sourced(args[k][2:-1], f"{name} <( )", via)
            return  # a script file: not ours to read
        if stdin_script:
            self._nested(stdin_script, f"{name} <stdin", via)

    def _find_exec(self, args: list[str], via: tuple[str, ...]) -> None:
        k = 0
        while k < len(args):
            if args[k] in ("-exec", "-execdir", "-ok", "-okdir"):
                end = k + 1
                while end < len(args) and args[end] not in (";", "+"):
                    end += 1
                self._run_rest(args[k + 1 : end], via)
                k = end + 1
            else:
                k += 1

    def _powershell(self, args: list[str], via: tuple[str, ...], name: str) -> None:
        for k, a in enumerate(args):
            low = a.lower()
            if low in ("-command", "-c", "/command", "/c", "-com", "-comm", "-comma", "-comman"):
                self._nested(" ".join(args[k + 1 :]), f"{name} -Command", via)
                return
            if low in ("-encodedcommand", "-enc", "-e", "-ec", "/encodedcommand") and k + 1 < len(args):
                try:
                    import base64

                    text = base64.b64decode(args[k + 1]).decode("utf-16-le")
                except Exception:
                    return
                self._nested(text, f"{name} -EncodedCommand", via)
                return
            if not a.startswith(("-", "/")):
                return  # a script file


def _substitutions(text: str) -> list[str]:
    """Bodies of $( ) and backticks in text that undergoes expansion (an unquoted heredoc)."""
    subs: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("$((", i):
            _, i = _read_balanced(text, i + 3)
        elif text.startswith("$(", i):
            body, i = _read_balanced(text, i + 2)
            subs.append(body)
        elif text[i] == "`":
            j = text.find("`", i + 1)
            j = n if j < 0 else j
            subs.append(text[i + 1 : j])
            i = j + 1
        elif text[i] == "\\":
            i += 2
        else:
            i += 1
    return subs


_OUTPUT_PROGRAMS = frozenset({"echo", "printf", "cat", "base64", "xxd"})


def _output_of(name: str, args: list[str], stdin: str | None) -> str | None:
    """What ``echo``/``printf`` write, ``cat`` passes on from a heredoc or its input, and
    ``base64 -d``/``xxd -r -p`` decode from a known input (a script hidden from a plain
    reading and piped to a shell); None when it is not known."""
    if name == "printf":
        return _printf(args)
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return " ".join(args).replace("\\n", "\n").replace("\\t", "\t")
    if name == "cat":
        return stdin if not args else None
    if stdin is None or (args and args[-1][:1] not in ("-", "")):
        return None  # reads a file
    try:
        if name == "base64" and any(a in ("-d", "-D", "--decode") for a in args):
            import base64

            return base64.b64decode("".join(stdin.split())).decode("utf-8")
        if name == "xxd" and "-r" in args and "-p" in args:
            return bytes.fromhex("".join(stdin.split())).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return None


def _printf(args: list[str]) -> str:
    """What ``printf FORMAT ARGS`` writes: ``--`` ends its options, ``%s``/``%b`` take the
    arguments in turn (the format repeats while some are left), ``%%`` is a percent sign; a
    format with other directives is written with its arguments after it, space-separated."""
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        return ""
    fmt, rest = args[0], args[1:]
    fmt = fmt.replace("\\n", "\n").replace("\\t", "\t")
    if not re.fullmatch(r"(?:[^%]|%[sb%])*", fmt):
        return " ".join([fmt, *rest])
    slots = len(re.findall(r"%[sb]", fmt))
    out = []
    while True:
        taken, rest = rest[:slots], rest[slots:]
        pieces = re.split(r"(%[sb%])", fmt)
        k = 0
        for j in range(1, len(pieces), 2):
            if pieces[j] == "%%":
                pieces[j] = "%"
            else:
                pieces[j] = taken[k] if k < len(taken) else ""
                k += 1
        out.append("".join(pieces))
        if not rest or not slots:
            return "".join(out)


_SAFE_WORD = re.compile(r"[A-Za-z0-9@%+=:,./_-]+")


def _quote(word: str) -> str:
    return word if _SAFE_WORD.fullmatch(word) else "'" + word.replace("'", "'\"'\"'") + "'"


def _xargs_filled(options: list[str], command: list[str], stdin: str) -> list[str]:
    """The command xargs runs with the words it reads from a known input: appended, or put
    in place of ``-I``'s replace string (``echo --force | xargs git push`` pushes by force)."""
    words = stdin.split()[:256]
    replace = None
    for k, a in enumerate(options):
        if a in ("-I", "--replace") and k + 1 < len(options):
            replace = options[k + 1]
        elif a.startswith("-I") and len(a) > 2:
            replace = a[2:]
        elif a.startswith("--replace="):
            replace = a.partition("=")[2]
        elif a == "-i":
            replace = "{}"
    if replace:
        line = stdin.strip().split("\n")[0]
        return [w.replace(replace, line) for w in command]
    return [*command, *words]


def _is_process_substitution(word: str) -> bool:
    return word.startswith("<(") and word.endswith(")")


# Programs whose words define or run other words: aliases, variables, a script read from
# somewhere, git's own aliases (see _Builder._runtime).
_RUNTIME_PROGRAMS = frozenset(
    {
        "git",
        "alias",
        "unalias",
        "export",
        "declare",
        "typeset",
        "local",
        "readonly",
        "read",
        "mapfile",
        "readarray",
        "unset",
        "source",
        ".",
        "script",
        "make",
        "gmake",
    }
)
# Interpreter -> the options whose value is code it runs (python* and pypy* are read as python).
_INTERPRETERS: dict[str, tuple[str, ...]] = {
    "python": ("-c",),
    "py": ("-c",),
    "perl": ("-e", "-E"),
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "bun": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "ruby": ("-e",),
    "php": ("-r",),
    "lua": ("-e",),
    "luajit": ("-e",),
    "rscript": ("-e",),
    "julia": ("-e", "--eval"),
    "osascript": ("-e",),
    "tclsh": (),
    "awk": (),
    "gawk": (),
    "mawk": (),
    "nawk": (),
}
# git's global options that take a value in the next word.
_GIT_VALUE_OPTIONS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"})


def _skip_options(args: list[str], takes_value: set[str] | frozenset[str]) -> list[str] | None:
    """The words after a wrapper's own options (``--`` ends them)."""
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--":
            return args[k + 1 :]
        if len(a) > 1 and a.startswith("-"):
            key = a.split("=", 1)[0]
            if "=" not in a and key in takes_value:
                k += 2
            else:
                k += 1
            continue
        break
    return args[k:]


def _option_value(args: list[str], names: tuple[str, ...]) -> str | None:
    for k, a in enumerate(args):
        if a in names and k + 1 < len(args):
            return args[k + 1]
        for nm in names:
            if nm.startswith("--") and a.startswith(nm + "="):
                return a[len(nm) + 1 :]
    return None


def _env_split_string(args: list[str]) -> str | None:
    """``env -S 'prog args'`` splits its argument into a command line."""
    for k, a in enumerate(args):
        if a in ("-S", "--split-string") and k + 1 < len(args):
            return " ".join(args[k + 1 :])
        if a.startswith("--split-string="):
            return " ".join([a.split("=", 1)[1], *args[k + 1 :]])
        if a.startswith("-S") and len(a) > 2:
            return " ".join([a[2:], *args[k + 1 :]])
        if not a.startswith("-") and not _ASSIGNMENT.match(a):
            return None
    return None


# wrapper -> (options that take a value, positional words before the program, options that
# mean the program is not run)
_WRAPPERS: dict[str, tuple[frozenset[str], int, frozenset[str]]] = {
    "sudo": (
        frozenset(
            {
                "-u",
                "-g",
                "-h",
                "-p",
                "-C",
                "-D",
                "-r",
                "-t",
                "-U",
                "-T",
                "--user",
                "--group",
                "--host",
                "--prompt",
                "--close-from",
                "--chdir",
                "--role",
                "--type",
                "--other-user",
                "--command-timeout",
            }
        ),
        0,
        frozenset({"-l", "--list", "-v", "--validate", "-k", "-K", "-e", "--edit"}),
    ),
    "doas": (frozenset({"-u", "-C"}), 0, frozenset()),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), 0, frozenset()),
    "nohup": (frozenset(), 0, frozenset()),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0, frozenset()),
    "nice": (frozenset({"-n", "--adjustment"}), 0, frozenset()),
    "ionice": (frozenset({"-c", "--class", "-n", "--classdata", "-t"}), 0, frozenset()),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1, frozenset()),
    "exec": (frozenset({"-a"}), 0, frozenset()),
    "command": (frozenset(), 0, frozenset({"-v", "-V"})),
    "builtin": (frozenset(), 0, frozenset()),
    "xargs": (
        frozenset(
            {
                "-I",
                "-n",
                "-P",
                "-L",
                "-d",
                "-E",
                "-s",
                "-a",
                "--arg-file",
                "--delimiter",
                "--max-args",
                "--max-procs",
                "--max-lines",
                "--replace",
                "--eof",
                "--max-chars",
                "--process-slot-var",
            }
        ),
        0,
        frozenset(),
    ),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0, frozenset()),
    "setsid": (frozenset(), 0, frozenset()),
    "unbuffer": (frozenset(), 0, frozenset()),
    "caffeinate": (frozenset({"-t", "-w"}), 0, frozenset()),
    "strace": (
        frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"}),
        0,
        frozenset(),
    ),
    "ltrace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n", "-l", "-x", "-F"}), 0, frozenset()),
    "flock": (frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), 1, frozenset()),
    "chroot": (frozenset({"--userspec", "--groups"}), 1, frozenset()),
    "taskset": (frozenset(), 1, frozenset()),
    "chrt": (frozenset(), 1, frozenset()),
    "npx": (frozenset({"-p", "--package", "-c", "--call"}), 0, frozenset()),
    "pnpx": (frozenset({"-p", "--package"}), 0, frozenset()),
    "bunx": (frozenset({"-p", "--package"}), 0, frozenset()),
    "uvx": (frozenset({"--from", "--with", "-p", "--python"}), 0, frozenset()),
    "pipx-run": (frozenset(), 0, frozenset()),
    "torsocks": (frozenset(), 0, frozenset()),
    "proxychains": (frozenset({"-f"}), 0, frozenset()),
    "proxychains4": (frozenset({"-f"}), 0, frozenset()),
    "firejail": (frozenset(), 0, frozenset()),
    "dbus-run-session": (frozenset(), 0, frozenset()),
    "winpty": (frozenset(), 0, frozenset()),
}

# program -> {subcommand: options taking a value}: `uv run pytest` runs pytest.
_SUBCOMMAND_RUNNERS: dict[str, dict[str, frozenset[str]]] = {
    "uv": {
        "run": frozenset(
            {
                "--with",
                "--python",
                "-p",
                "--project",
                "--directory",
                "--package",
                "--extra",
                "--group",
                "--env-file",
                "--from",
            }
        )
    },
    "poetry": {"run": frozenset({"-C", "--directory", "-P", "--project"})},
    "pipenv": {"run": frozenset()},
    "pdm": {"run": frozenset({"-p", "--project"})},
    "hatch": {"run": frozenset()},
    "rye": {"run": frozenset()},
    "pixi": {"run": frozenset({"-e", "--environment", "--manifest-path"})},
    "conda": {"run": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"})},
    "mamba": {"run": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"})},
    "micromamba": {"run": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"})},
    "bundle": {"exec": frozenset()},
    "pnpm": {"exec": frozenset({"-C", "--dir", "--filter"}), "dlx": frozenset()},
    "yarn": {"exec": frozenset(), "dlx": frozenset({"-p", "--package"})},
    "npm": {"exec": frozenset({"-c", "--call", "-w", "--workspace", "--package"})},
    "pipx": {"run": frozenset({"--spec", "--python"})},
    "dotenv": {"run": frozenset({"-f", "--file"})},
}


def _lenient_fallback(text: str) -> list[SimpleCommand]:
    out = []
    for part in re.split(r"[;&|\n()`]+", text):
        words = part.split()
        while words and _ASSIGNMENT.match(words[0]):
            words.pop(0)
        if words:
            prog = words[0].strip("'\"")
            out.append(SimpleCommand(prog, program_name(prog), [w.strip("'\"") for w in words[1:]]))
    return out


@lru_cache(maxsize=256)
def _parse_cached(command: str) -> tuple[tuple[SimpleCommand, ...], bool, Runtime]:
    out: list[SimpleCommand] = []
    reading = _Reading()
    try:
        _Builder(0, out, (), reading).parse(command)
    except Exception:
        try:
            return tuple(_lenient_fallback(command)), True, Runtime()
        except Exception:  # pragma: no cover
            return (), False, Runtime()
    return tuple(out), not reading.truncated, reading.runtime()


def runtime_of(command: str) -> Runtime:
    """What the command line builds at run time (see :class:`Runtime`), read as
    :func:`read_commands` reads it (the reading is cached: asking after it costs nothing)."""
    if not isinstance(command, str) or not command:
        return Runtime()
    return _parse_cached(command)[2]


def _copies(cmds) -> list[SimpleCommand]:
    return [SimpleCommand(c.program, c.name, list(c.args), c.via, c.dynamic) for c in cmds]


def simple_commands(command: str) -> list[SimpleCommand]:
    """Every program the command line would run, in reading order; never raises."""
    if not isinstance(command, str) or not command:
        return []
    return _copies(_parse_cached(command)[0])


def read_commands(command: str, deadline: float | None = None) -> tuple[list[SimpleCommand], bool]:
    """The programs the command line runs and whether that list is the whole line.

    ``complete`` is False when the reading had to stop short: past ``_MAX_COMMANDS`` simple
    commands or ``_MAX_DEPTH`` nested strings, or, with ``deadline`` (a
    ``time.perf_counter()`` value), when the line could not be read by then (the commands
    read so far are returned). A gate uses it to tell "no rule matches" from "not all of the
    line was looked at". Never raises."""
    if not isinstance(command, str) or not command:
        return [], True
    if deadline is None:
        cmds, complete, _runtime = _parse_cached(command)
        return _copies(cmds), complete
    out: list[SimpleCommand] = []
    reading = _Reading(deadline)
    try:
        _Builder(0, out, (), reading).parse(command)
    except OutOfTime:
        return out, False
    except Exception:
        try:
            return _lenient_fallback(command), True
        except Exception:  # pragma: no cover
            return out, False
    return out, not reading.truncated
