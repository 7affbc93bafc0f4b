"""The ``command`` pattern type: a rule about a program being run, not about a string.

A pattern is written like the command it forbids: ``pythonw.exe``, ``npm``,
``git push --force``, ``rm -rf /``. It matches one simple command found by
:mod:`shellparse` when

- the program names agree: compared case-insensitively on the basename, with a Windows
  executable suffix optional on either side (``pythonw.exe`` matches ``pythonw``,
  ``PYTHONW.EXE`` and ``C:\\Python\\pythonw.exe``; ``python`` does not match ``python3``,
  ``npm`` does not match ``pnpm``). A pattern program with a directory
  (``venv/bin/python``) must match the end of the program path;
- every flag of the pattern is present anywhere among the arguments. Short flags are letters:
  ``-rf`` is satisfied by ``-rf``, ``-fr``, ``-r -f`` or ``-Rf`` (for rm/cp). Long and short
  spellings of the same flag are equivalent only where the program documents it (table
  ``_FLAG_ALIASES``): for git ``-f`` is ``--force``, so ``git push --force`` matches
  ``git push -f`` and the force-refspec form ``git push origin +main``, but not
  ``--force-with-lease``, which is the safe alternative people are told to use;
- the positional words of the pattern appear in order among the positional arguments. For
  programs with subcommands (git, npm, docker, ...) the pattern's first positional must be the
  subcommand itself, so ``git push`` does not match ``git commit -m push``. Words compare
  exactly (no globbing: ``rm -rf /*`` must not turn into "any absolute path"), except that
  trailing and doubled slashes are ignored (``build/`` is ``build``).

Standard library only; used by the PreToolUse hook.
"""

from __future__ import annotations

import re

from .shellparse import SimpleCommand, simple_commands

__all__ = ["CommandPattern", "InvalidCommandPattern", "parse_command_pattern", "normalize_program", "match_command"]

_EXE_SUFFIX = re.compile(r"\.(exe|com|bat|cmd)$", re.IGNORECASE)
_SHORT_CLUSTER = re.compile(r"^-[A-Za-z0-9]{1,3}$")
_LONG = re.compile(r"^--[A-Za-z0-9][A-Za-z0-9_.-]*(=.*)?$")

# Programs whose first positional argument is a subcommand.
_SUBCOMMAND_PROGRAMS = frozenset(
    {
        "git",
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
        "pipenv",
        "pdm",
        "hatch",
        "conda",
        "mamba",
        "brew",
        "apt",
        "apt-get",
        "dnf",
        "yum",
        "pacman",
        "snap",
        "systemctl",
        "journalctl",
        "gh",
        "terraform",
        "tofu",
        "dotnet",
        "gcloud",
        "aws",
        "az",
        "heroku",
        "flyctl",
        "fly",
        "vercel",
        "netlify",
        "firebase",
        "svn",
        "hg",
        "make",
        "just",
        "rails",
        "bundle",
        "gem",
        "composer",
        "mix",
        "rustup",
        "nvm",
        "volta",
        "docker-compose",
        "kind",
        "minikube",
        "ollama",
        "wrangler",
    }
)

# Programs that spell long options with one dash (find -delete, java -jar): for them a
# pattern flag like -name is a whole word, never a cluster of letters.
_SINGLE_DASH_LONG = frozenset(
    {
        "find",
        "java",
        "javac",
        "gcc",
        "g++",
        "clang",
        "clang++",
        "ffmpeg",
        "ffprobe",
        "xcodebuild",
        "qemu-system-x86_64",
        "openssl",
        "convert",
        "magick",
        "tclsh",
        "wish",
    }
)

_FORCE = {"-f": "--force"}
_RECURSIVE = {"-r": "--recursive", "-R": "--recursive"}
# program -> {spelling: canonical spelling}. Deliberately per program: -f means --force for
# git and rm but "file" for tar and "follow" for tail.
_FLAG_ALIASES: dict[str, dict[str, str]] = {
    "git": {**_FORCE, "-n": "--dry-run", "-a": "--all", "-d": "--delete", "-u": "--set-upstream"},
    "rm": {**_FORCE, **_RECURSIVE, "-i": "--interactive", "-v": "--verbose"},
    "cp": {**_FORCE, **_RECURSIVE, "-v": "--verbose"},
    "mv": {**_FORCE, "-v": "--verbose"},
    "ln": {**_FORCE, "-s": "--symbolic"},
    "chmod": {"-R": "--recursive"},
    "chown": {"-R": "--recursive"},
    "chgrp": {"-R": "--recursive"},
    "npm": {"-g": "--global", "-D": "--save-dev", "-f": "--force", "-S": "--save"},
    "pnpm": {"-g": "--global", "-D": "--save-dev"},
    "yarn": {"-D": "--dev"},
    "pip": {"-U": "--upgrade", "-r": "--requirement", "-e": "--editable"},
    "pip3": {"-U": "--upgrade", "-r": "--requirement", "-e": "--editable"},
    "docker": {**_FORCE, "-v": "--volumes", "-a": "--all"},
    "kubectl": {"-A": "--all-namespaces", "-n": "--namespace"},
    "terraform": {},
}


# program -> {subcommand as typed: the subcommand it stands for}: ``npm i`` is ``npm install``.
_SUBCOMMAND_ALIASES: dict[str, dict[str, str]] = {
    "npm": {
        "i": "install",
        "add": "install",
        "in": "install",
        "isntall": "install",
        "rm": "uninstall",
        "un": "uninstall",
        "remove": "uninstall",
        "r": "uninstall",
        "t": "test",
        "tst": "test",
        "run-script": "run",
        "c": "config",
        "ci": "clean-install",
    },
    "pnpm": {"i": "install", "rm": "remove", "un": "remove", "uninstall": "remove", "t": "test", "run-script": "run"},
    "yarn": {"rm": "remove"},
    "docker": {"rmi": "image", "ps": "ps"},
    "kubectl": {},
}


class InvalidCommandPattern(ValueError):
    """A command pattern that cannot describe a program invocation."""


def normalize_program(name: str) -> str:
    """The comparison key of a program basename: lowercase, without a Windows exe suffix.
    pip's versioned names are pip itself (``pip3``, ``pip3.11``, ``pip-3.11``); Python's are
    not (``python`` and ``python3`` can be different interpreters)."""
    from .program_names import versionless

    return versionless(_EXE_SUFFIX.sub("", name.strip()).lower())


# Interpreter options that take no value and may come before ``-m`` (python -u -m pip ...).
_PY_FLAGS = {"-b", "-bb", "-B", "-d", "-E", "-i", "-I", "-O", "-OO", "-P", "-q", "-s", "-S", "-u", "-v", "-x"}


def module_invocation(command: SimpleCommand) -> SimpleCommand | None:
    """``python -m pip install x`` runs pip: the same call as ``pip install x``, so rules about
    the module's program see it. None when the command is not an interpreter running a module."""
    name = _EXE_SUFFIX.sub("", command.name).lower()
    if not (name in ("py", "pythonw") or name.startswith("python")):
        return None
    args = command.args
    for i, word in enumerate(args):
        if word == "-m" and i + 1 < len(args):
            module, rest = args[i + 1], args[i + 2 :]
        elif word.startswith("-m") and len(word) > 2:
            module, rest = word[2:], args[i + 1 :]
        elif word in _PY_FLAGS or (word.startswith("-3") and name == "py"):
            continue
        else:
            return None  # a script, -c code, or an option that takes a value: not a module run
        return SimpleCommand(module, module, rest, command.via + (f"{command.name} -m",))
    return None


def _norm_path(p: str) -> str:
    return re.sub(r"/{2,}", "/", p.replace("\\", "/"))


def _norm_positional(word: str) -> str:
    if len(word) > 1 and "/" in word:
        word = re.sub(r"/{2,}", "/", word)
        if word.endswith("/.") and len(word) > 2:
            word = word[:-2]
        if len(word) > 1:
            word = word.rstrip("/") or "/"
    return word


def _is_long(word: str) -> bool:
    return bool(_LONG.match(word))


def _is_flag(word: str) -> bool:
    return len(word) > 1 and word.startswith("-") and not _is_negative_number(word)


def _is_negative_number(word: str) -> bool:
    return bool(re.fullmatch(r"-\d+(\.\d+)?", word))


class _Args:
    """atoms: canonical flags present ("--force", "-x", whole words like "-delete"); words:
    flag-looking arguments as written; after_flag[i]: positional i directly follows a flag (so
    it may be that flag's value)."""

    __slots__ = ("atoms", "words", "positionals", "after_flag")

    def __init__(self, atoms: set[str], words: set[str], positionals: list[str], after_flag: list[bool]):
        self.atoms, self.words = atoms, words
        self.positionals, self.after_flag = positionals, after_flag


def _analyze(program: str, args: list[str]) -> _Args:
    aliases = _FLAG_ALIASES.get(program, {})
    single_dash_long = program in _SINGLE_DASH_LONG
    atoms: set[str] = set()
    words: set[str] = set()
    positionals: list[str] = []
    after_flag: list[bool] = []
    prev_flag = False
    only_positionals = False
    for a in args:
        if not only_positionals and a == "--":
            only_positionals = True
            prev_flag = False
            continue
        if not only_positionals and _is_flag(a):
            # ``--force\;`` hands git ``--force;``: an escaped separator glued to a flag is
            # read as the flag, since the line is written to look like the flag alone.
            a = a.rstrip(";&|") or a
            words.add(a)
            if a.startswith("--"):
                name = a.split("=", 1)[0]
                atoms.add(aliases.get(name, name))
            elif single_dash_long or not re.fullmatch(r"-[A-Za-z0-9]+", a):
                atoms.add(aliases.get(a, a))
            else:
                atoms.add(a)
                for ch in a[1:]:
                    short = "-" + ch
                    atoms.add(aliases.get(short, short))
            prev_flag = True
            continue
        positionals.append(_norm_positional(a))
        after_flag.append(prev_flag)
        prev_flag = False
    if (
        program == "git"
        and positionals[:1] == ["push"]
        and any(p.startswith("+") and len(p) > 1 for p in positionals[1:])
    ):
        atoms.add("--force")  # git push origin +main is a force push of main
    _canonical_positionals(program, positionals, atoms)
    return _Args(atoms, words, positionals, after_flag)


def _canonical_positionals(program: str, positionals: list[str], atoms: set[str]) -> None:
    """Spellings that mean the same invocation, made equal in place: a subcommand alias
    (``npm i``), the branch a git refspec pushes to (``HEAD:main``, ``+main`` and
    ``refs/heads/main`` push ``main``), and the three ways of staging everything
    (``git add .``, ``-A``, ``--all``)."""
    aliases = _SUBCOMMAND_ALIASES.get(program)
    if aliases and positionals and positionals[0] in aliases:
        positionals[0] = aliases[positionals[0]]
    if program != "git" or not positionals:
        return
    if positionals[0] == "push":
        for i in range(2, len(positionals)):
            p = positionals[i].split(":")[-1].lstrip("+")
            positionals[i] = re.sub(r"^refs/heads/", "", p) or positionals[i]
    elif positionals[0] == "add":
        paths = positionals[1:]
        everything = paths in ([], ["."], ["*"], [":/"], ["-A"]) and (bool(paths) or "--all" in atoms or "-A" in atoms)
        if everything:
            atoms.update(("--all", "-A"))
            if "." not in paths:
                positionals.append(".")


class CommandPattern:
    """A parsed ``command`` rule pattern; see the module docstring for its meaning.

    ``program``: comparison key of the basename (see normalize_program); ``path``: normalized
    directory-qualified program, or "" when only a name was given; ``flags`` and
    ``positionals`` as written in the pattern. Plain data, so a compiled rule set can store
    ``to_tuple()`` and rebuild it without re-parsing."""

    __slots__ = ("text", "program", "path", "flags", "positionals", "pipe", "_reqs")

    def __init__(
        self,
        text: str,
        program: str,
        path: str,
        flags: tuple[str, ...],
        positionals: tuple[str, ...],
        pipe: tuple = (),
    ):
        self.text = text
        self.program = program
        self.path = path
        self.flags = tuple(flags)
        self.positionals = tuple(positionals)
        # A pipeline pattern (``curl | sh``): the patterns of the commands after the first, each
        # reading what the one before it writes; this pattern is then the pipeline's first stage.
        self.pipe: tuple[CommandPattern, ...] = tuple(
            p if isinstance(p, CommandPattern) else CommandPattern.from_tuple(p) for p in pipe
        )
        self._reqs: list[tuple[str, ...]] | None = None

    def to_tuple(self) -> tuple:
        head = (self.text, self.program, self.path, self.flags, self.positionals)
        return head + (tuple(p.to_tuple() for p in self.pipe),) if self.pipe else head

    @classmethod
    def from_tuple(cls, t) -> CommandPattern:
        pipe = tuple(t[5]) if len(t) > 5 and t[5] else ()
        return cls(t[0], t[1], t[2], tuple(t[3]), tuple(t[4]), pipe)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CommandPattern) and self.to_tuple() == other.to_tuple()

    def __hash__(self) -> int:
        return hash(self.to_tuple())

    def __repr__(self) -> str:
        return (
            f"CommandPattern(text={self.text!r}, program={self.program!r}, "
            f"path={self.path!r}, flags={self.flags!r}, positionals={self.positionals!r})"
        )

    @property
    def key(self) -> str:
        """What to index a rule set by: simple commands are looked up by normalize_program."""
        return self.program

    def _flag_requirements(self) -> list[tuple[str, ...]]:
        """For each pattern flag, the canonical atoms that must all be present."""
        if self._reqs is not None:
            return self._reqs
        aliases = _FLAG_ALIASES.get(self.program, {})
        single_dash_long = self.program in _SINGLE_DASH_LONG
        reqs: list[tuple[str, ...]] = []
        for f in self.flags:
            if f.startswith("--"):
                name, eq, _ = f.partition("=")
                reqs.append((("=" + f) if eq else aliases.get(name, name),))
            elif not single_dash_long and _SHORT_CLUSTER.match(f):
                reqs.append(tuple(aliases.get("-" + ch, "-" + ch) for ch in f[1:]))
            else:
                reqs.append((aliases.get(f, f),))
        self._reqs = reqs
        return reqs

    def matches(self, command: SimpleCommand) -> bool:
        """Whether one simple command is what this pattern describes (a pipeline pattern
        describes no single command: see :meth:`matches_pipes`)."""
        if self.pipe:
            return False
        return self.matches_stage(command)

    def matches_pipes(self, pipes) -> str | None:
        """For a pipeline pattern, the words of a pipeline of the line (``pipes``: its (writer,
        reader) pairs) whose commands match the stages in order; None when none does."""
        stages = (self.matches_stage, *(p.matches_stage for p in self.pipe))
        chains = {id(w): [w] for w, _r in pipes if stages[0](w)}
        for stage in stages[1:]:
            chains = {id(r): [*chains[id(w)], r] for w, r in pipes if id(w) in chains and stage(r)}
        if not chains:
            return None
        chain = next(iter(chains.values()))
        return " | ".join(" ".join([c.program, *c.args]) for c in chain)[:200]

    def matches_stage(self, command: SimpleCommand) -> bool:
        from .program_names import versionless

        if normalize_program(command.name) != versionless(self.program):
            return False
        if self.path:
            prog = _norm_path(command.program).lower()
            prog = _EXE_SUFFIX.sub("", prog)
            if not (prog == self.path or prog.endswith("/" + self.path)):
                return False
        if not self.flags and not self.positionals:
            return True
        info = _analyze(self.program, command.args)
        for req in self._flag_requirements():
            for atom in req:
                if atom.startswith("="):  # --name=value: that exact word, or --name value
                    want = atom[1:]
                    name, _, val = want.partition("=")
                    if want in info.words:
                        continue
                    if name in info.atoms and val in info.positionals:
                        continue
                    return False
                if atom not in info.atoms:
                    return False
        return self._positionals_match(info)

    def _positionals_match(self, info: _Args) -> bool:
        want = [_norm_positional(p) for p in self.positionals]
        if not want:
            return True
        aliases = _SUBCOMMAND_ALIASES.get(self.program)
        if aliases and want[0] in aliases:
            want[0] = aliases[want[0]]
        have = info.positionals
        start = 0
        if self.program in _SUBCOMMAND_PROGRAMS:
            # The first pattern word must be the subcommand: skip only words that may be the
            # values of options given before it (git -C repo push).
            k = 0
            while k < len(have) and have[k] != want[0]:
                if not info.after_flag[k]:
                    return False
                k += 1
            if k == len(have):
                return False
            start = k + 1
            want = want[1:]
        for w in want:
            while start < len(have) and have[start] != w:
                start += 1
            if start == len(have):
                return False
            start += 1
        return True

    def find(self, command_line: str) -> list[SimpleCommand]:
        """The simple commands of a command line that this pattern matches."""
        return [sc for sc in simple_commands(command_line) if self.matches(sc)]


def parse_command_pattern(text: str) -> CommandPattern:
    """Read a pattern such as ``git push --force``; raises InvalidCommandPattern."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidCommandPattern("a command pattern needs at least a program name")
    stages = _pipeline_stages(text)
    if stages is not None:
        head, *rest = (parse_command_pattern(stage) for stage in stages)
        return CommandPattern(text.strip(), head.program, head.path, head.flags, head.positionals, tuple(rest))
    found = simple_commands(text)
    top = [c for c in found if not c.via]
    if len(top) != 1:
        raise InvalidCommandPattern(
            f"a command pattern describes one program invocation; {text!r} reads as "
            f"{len(top)} commands (write one rule per command)"
        )
    program = top[0].program
    if program.startswith("-"):
        raise InvalidCommandPattern(f"{program!r} is a flag, not a program name")
    name = normalize_program(top[0].name)
    if not name:
        raise InvalidCommandPattern(f"{text!r} has no program name")
    path = ""
    if "/" in program or "\\" in program:
        path = re.sub(r"^(\./)+|^/+", "", _EXE_SUFFIX.sub("", _norm_path(program).lower()))
    flags = tuple(a for a in top[0].args if _is_flag(a))
    positionals = tuple(a for a in top[0].args if not _is_flag(a))
    return CommandPattern(text.strip(), name, path, flags, positionals)


def _pipeline_stages(text: str) -> list[str] | None:
    """The stages of a pattern written as one pipeline (``curl | sh``), or None when it is not
    one (no ``|``, or other separators between its commands)."""
    if "|" not in text or any(op in text for op in ("||", "&&", ";", "\n", "&", "`", "$(")):
        return None
    stages = [s.strip() for s in text.split("|")]
    return stages if len(stages) > 1 and all(stages) else None


def match_command(pattern: CommandPattern | str, command_line: str) -> list[SimpleCommand]:
    """Convenience: the simple commands of ``command_line`` that ``pattern`` matches."""
    pat = parse_command_pattern(pattern) if isinstance(pattern, str) else pattern
    return pat.find(command_line)
