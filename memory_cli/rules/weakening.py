"""memory-cli's own commands that weaken enforcement (``rules disable``, ``purge``, ``uninstall``...).

Asked of the person when an agent's shell runs them (:mod:`.protected_state` reads them in a
command line) and refused by the CLI itself when it runs in an agent's shell (``memory-cli``'s
own start). Standard library only; the store is asked only through :func:`rule_lookup`.
"""

from __future__ import annotations

# memory-cli commands that switch enforcement off or remove what it enforces:
# command -> subcommands (None: the command itself), "replace": only with --on-conflict replace.
WEAKENING: dict[str, tuple[str, ...] | str | None] = {
    "rules": ("edit", "disable", "delete", "accept-changes"),
    "uninstall": None,
    "install": None,
    "purge": None,
    "delete": None,
    "archive": None,
    "supersede": None,
    "update": None,
    "restore": None,
    "unshare": None,
    "team": ("leave",),
    "import": "replace",
    # a setting can switch the gate off or send sessions to a model: the person's call
    "config": ("set", "unset"),
    "serve": None,  # hands out a bearer token to the dashboard and API
    "review": "approve",  # only with --approve: the person's word on a correction or request
}
_GLOBAL_WITH_VALUE = ("--db",)


# Commands that change one memory: they weaken enforcement only when that memory is a rule
# (archiving a note, as the plugin's /forget does, is the agent's ordinary work).
ENTRY_COMMANDS = frozenset({"delete", "archive", "supersede", "update"})


def rule_lookup(store):
    """``is_rule(word)`` for :func:`weakening`: whether ``word`` is (a prefix of) the id of a rule
    in ``store``; when the store cannot say, it is taken for one."""

    def is_rule(word: str) -> bool:
        w = word.lower()
        if not 4 <= len(w) <= 64 or not all(c in "0123456789abcdef-" for c in w):
            return False
        try:
            sql = "SELECT 1 FROM enforcement_rules WHERE substr(id, 1, ?) = ? LIMIT 1"
            return store.value(sql, (len(w), w)) is not None
        except Exception:
            return True

    return is_rule


def weakening(args: list[str], is_rule=None) -> str | None:
    """``memory-cli ARGS`` as a command that weakens enforcement ("memory-cli rules disable"),
    or None for one that only reads or adds. ``is_rule`` (see :func:`rule_lookup`) lets a
    command on one memory through when none of its ids is a rule; without it, it counts."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        opt = rest.pop(0)
        if opt in _GLOBAL_WITH_VALUE and rest:
            rest.pop(0)
    if not rest:
        return None
    cmd = rest[0]
    if cmd not in WEAKENING:
        return None
    if any(a in ("-h", "--help") for a in rest[1:]):
        return None
    subs = WEAKENING[cmd]
    if subs is None:
        if (
            cmd in ENTRY_COMMANDS
            and is_rule is not None
            and not any(is_rule(a) for a in rest[1:] if not a.startswith("-"))
        ):
            return None
        return f"memory-cli {cmd}"
    if subs == "approve":
        if any(a == "--approve" or a.startswith("--approve=") for a in rest[1:]):
            return f"memory-cli {cmd} --approve"
        return None
    if subs == "replace":
        joined = " ".join(rest[1:])
        if "--on-conflict replace" in joined or "--on-conflict=replace" in joined:
            return f"memory-cli {cmd} --on-conflict replace"
        return None
    sub = next((a for a in rest[1:] if not a.startswith("-")), None)
    if sub in subs:
        return f"memory-cli {cmd} {sub}"
    return None
