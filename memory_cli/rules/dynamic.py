"""Command rules against the words a command line builds only when it runs.

A rule on ``git push --force`` is read against the programs a line runs (:mod:`shellparse`).
Some lines leave those words to run time: ``$CMD push --force``, ``git push $FLAGS``,
``$(which git) push --force``, ``python3 -c "os.system('git push --force')"``, a script
sourced from a substitution. What can be known exactly is filled in by the reading itself (a
variable assigned a literal earlier in the line, ``$(echo git)``, an alias defined in the
line, base64 decoded into a shell), and such a line is decided as if written out. What cannot
be known is not passed over in silence: when every word of a block or ask rule is in the call
(in the command's own words, or in the text its unknown words come from, or in the code an
interpreter is given), the call is asked of the person, with the reason in one line.

"Every word is in the call" keeps ordinary commands free: ``git push origin "$BRANCH"``
meets no ``--force`` anywhere, so it is allowed as before. This runs only for a line that
names a rule's program and holds a word left unknown or code for an interpreter.
Standard library only: this is on the PreToolUse path.
"""

from __future__ import annotations

from . import ruleset as R

# ``Match.field`` of a rule whose words are in a part of the call built at run time.
DYNAMIC_FIELD = "dynamic"

# Characters that separate words in code and assigned texts (quotes, brackets, operators).
_SEPARATORS = str.maketrans({c: " " for c in "'\"()[]{},;`<>|&\\\n\r\t"})


def tokens(text: str) -> set[str]:
    """The words of a text of code or of an assigned value: ``os.system('git push -f')``
    gives ``os.system``, ``git``, ``push``, ``-f``."""
    return set(text.translate(_SEPARATORS).split())


def _program_keys(words: set[str]) -> set[str]:
    from .command_pattern import normalize_program
    from .shellparse import program_name

    return {normalize_program(program_name(w)) for w in words if w.strip("/\\")}


def words_present(cp, static_args: list[str], bag: set[str]) -> bool:
    """Whether every flag and positional word of the pattern ``cp`` is among the command's
    known arguments or the words ``bag`` (what its unknown words may become), in any order."""
    from .command_pattern import _SUBCOMMAND_ALIASES, _analyze, _is_flag, _norm_positional

    info = _analyze(cp.program, static_args)
    atoms, words = set(info.atoms), set(info.words)
    have = set(info.positionals)
    if bag:
        extra = _analyze(cp.program, [t for t in bag if _is_flag(t)])
        atoms |= extra.atoms
        words |= extra.words
        if cp.program == "git" and any(t.startswith("+") and len(t) > 1 for t in bag):
            atoms.add("--force")  # a +refspec pushes by force
        aliases = _SUBCOMMAND_ALIASES.get(cp.program, {})
        have |= {aliases.get(p, p) for p in map(_norm_positional, bag)}
    for req in cp._flag_requirements():
        for atom in req:
            if atom.startswith("="):
                name, _, value = atom[1:].partition("=")
                if atom[1:] in words or (name in atoms and value in have):
                    continue
                return False
            if atom not in atoms:
                return False
    aliases = _SUBCOMMAND_ALIASES.get(cp.program, {})
    return all(aliases.get(p, p) in have for p in map(_norm_positional, cp.positionals))


def _other_subcommand(cp, args: list[str], unknown: set) -> bool:
    """True when the command's subcommand is written out and is not the pattern's
    (``git commit -m "$MSG"`` is not a push, whatever ``$MSG`` holds)."""
    from .command_pattern import _SUBCOMMAND_ALIASES, _SUBCOMMAND_PROGRAMS, _is_flag

    if cp.program not in _SUBCOMMAND_PROGRAMS or not cp.positionals:
        return False
    aliases = _SUBCOMMAND_ALIASES.get(cp.program, {})
    want = aliases.get(cp.positionals[0], cp.positionals[0])
    after_flag = False
    for a in args:
        if a in unknown:
            return False  # the subcommand may be this word
        if _is_flag(a):
            after_flag = True
            continue
        if aliases.get(a, a) == want:
            return False
        if not after_flag:
            return True
        after_flag = False
    return False


def runtime_matches(rs, cmds, runtime, tool: str, usable, matched) -> list[tuple[int, str]]:
    """(rule index, how the call builds the rule's words) for each block or ask command rule,
    not matched already, whose words are all in a part of the call known only at run time."""
    from .command_pattern import CommandPattern, normalize_program
    from .ruleset import effective_action

    keys = rs.cmd
    rule = rs.rule
    found: dict[int, str] = {}

    def consider(key: str, static_args: list[str], bag: set[str], how: str, sc=None) -> None:
        for i in keys.get(key, ()):
            if i in matched or i in found or not usable(i):
                continue
            r = rule(i)
            if effective_action(r) not in ("block", "ask") or (r[R.TOOLS] and tool not in r[R.TOOLS]):
                continue
            cp = CommandPattern.from_tuple(r[R.COMPILED])
            if cp.pipe and not all(p.program in programs or p.program in bag for p in cp.pipe):
                continue  # a pipeline rule: its later programs must be in the call too
            if sc is not None and sc.program not in sc.dynamic and _other_subcommand(cp, sc.args, set(sc.dynamic)):
                continue
            if words_present(cp, static_args, bag):
                found[i] = how

    sources = None
    programs = {normalize_program(sc.name) for sc in cmds}
    for sc in cmds:
        if not sc.dynamic:
            continue
        if sources is None:
            sources = set().union(*map(tokens, runtime.sources)) if runtime.sources else set()
        unknown = set(sc.dynamic)
        static = [a for a in sc.args if a not in unknown]
        shown = ", ".join(sorted(unknown))[:80]
        if sc.program in unknown:
            how = f"its program {shown} is filled in at run time"
            for key in _program_keys(sources):
                consider(key, static, sources, how)
        else:
            consider(normalize_program(sc.name), static, sources, f"{sc.name} gets {shown} at run time", sc)
    for how, text in runtime.carriers:
        words = tokens(text)
        for key in _program_keys(words):
            consider(key, [], words, f"its words are code run by {how}")
    return list(found.items())
