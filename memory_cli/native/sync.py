"""Export, write, follow and remove the native copies; report drift.

``memory-cli rules export --to AGENT`` prints what the confirmed rules become in that agent's
format, and which rules stay with the hook and why. ``--write`` writes it where the agent reads
it; from then on the native copies of that agent follow every rule change (:func:`follow`,
called by the commands that change rules, where pinned CLAUDE.md blocks are rewritten too), and
``uninstall`` for that agent removes them exactly (:func:`remove`). ``doctor`` reports a copy
that no longer matches the store (:func:`drift`).
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..store import kvstate
from . import claude, codex, files, gemini, select

FORMATS = {"claude": claude, "codex": codex, "gemini": gemini}
OWN_KEY = "native.file."  # + agent: {"path", "created_dirs"} of a file memory-cli owns


def check_agent(agent: str) -> str:
    if agent not in FORMATS:
        raise InvalidInput(f"unknown agent {agent!r}: use claude, codex or gemini")
    return agent


def export(store, agent: str) -> dict:
    """What the rules become for ``agent``: the native text, the rules in it, the hook-only ones."""
    fmt = FORMATS[check_agent(agent)]
    native, hook_only = select.plan(store)
    return {
        "agent": agent,
        "path": str(fmt.path()),
        "text": fmt.render(native),
        "native": [
            {"id": r.id, "prefix": r.prefix, "decision": r.decision, "note": r.note, "entry": _entry(agent, r)}
            for r in native
        ],
        "hook_only": [{"id": h.id, "rule": h.summary, "why": h.why} for h in hook_only],
    }


def _entry(agent: str, r: select.NativeRule) -> str:
    if agent == "claude":
        return claude.entry(r)
    if agent == "codex":
        return f"prefix_rule {list(r.tokens)} {codex.DECISION[r.decision]}"
    return f"commandPrefix {r.prefix!r} {gemini.DECISION[r.decision]}"


ENABLED_KEY = "native.enabled."  # + agent: written on request; followed until uninstall


def written_agents(store) -> list[str]:
    """Agents whose native copies the person asked for (``--write``), and so are followed, even
    while no rule is native (the copy then holds nothing and comes back with the next rule)."""
    out = [a for a in FORMATS if kvstate.get(store, ENABLED_KEY + a)]
    if kvstate.get(store, claude.STATE_KEY) and "claude" not in out:
        out.append("claude")
    return out + [a for a in ("codex", "gemini") if a not in out and kvstate.get(store, OWN_KEY + a)]


def enable(store, agent: str) -> dict:
    """``rules export --to AGENT --write``: write the copy now and follow the store from now on."""
    out = write(store, agent)
    with store.transaction():
        kvstate.put(store, ENABLED_KEY + check_agent(agent), True)
    return out


def write(store, agent: str, *, dry_run: bool = False, rules=None, backup: bool = True) -> dict:
    """Write (or, with no native rules left, remove) ``agent``'s native copy."""
    fmt = FORMATS[check_agent(agent)]
    native = select.plan(store)[0] if rules is None else rules
    if agent == "claude":
        planned = claude.plan(store, native)
        if dry_run:
            before, after = planned["before"] or "", planned["after"] or ""
            return {
                "path": str(planned["path"]),
                "changed": before != after,
                "diff": files.diff(planned["path"], before, after),
            }
        return claude.apply(store, planned, backup=backup)
    key = OWN_KEY + agent
    out = files.write(fmt.path(), fmt.render(native), agent, dry_run=dry_run)
    if dry_run:
        return out
    state = kvstate.get(store, key) or {}
    with store.transaction():
        if out["action"] == "remove" or (not native and not out["changed"]):
            files.remove_dirs(state.get("created_dirs"))
            kvstate.delete(store, key)
        else:
            dirs = list(dict.fromkeys((state.get("created_dirs") or []) + out["created_dirs"]))
            kvstate.put(store, key, {"path": out["path"], "created_dirs": dirs})
    return out


def remove(store, agent: str, *, dry_run: bool = False) -> dict | None:
    """Take ``agent``'s native copy out again (``uninstall``); None when there was none."""
    check_agent(agent)
    if agent not in written_agents(store):
        return None
    out = write(store, agent, dry_run=dry_run, rules=[])
    if not dry_run:
        with store.transaction():
            kvstate.delete(store, ENABLED_KEY + agent)
    return out


def follow(store) -> list[str]:
    """Rewrite the native copies of every agent they were written for; one warning line per
    copy that could not be written (the rule change itself is stored either way)."""
    agents = written_agents(store)
    if not agents:
        return []
    from ..rules.confirmed import changes

    if changes(store) is not None:  # never follow a tampered store: the copies keep the confirmed rules
        return [
            "native rule copies kept as they were: the rules were changed outside memory-cli; "
            "run `memory-cli rules accept-changes` if you made that change"
        ]
    native = select.plan(store)[0]
    out = []
    for agent in agents:
        try:
            edited = _edited(store, agent)
            if edited:
                out.append(f"native {agent} rules not updated: {edited}; see `memory-cli doctor`")
                continue
            write(store, agent, rules=native, backup=False)
        except Exception as err:  # a bad settings file: said, never a lost rule change
            out.append(f"native {agent} rules not updated: {err}")
    return out


def _edited(store, agent: str) -> str | None:
    """A change by hand (or a file in the way) that a rewrite must not silently undo."""
    if agent == "claude":
        problem = claude.drift(store, None)
        return problem if problem and "by hand" in problem else None
    st = files.read(FORMATS[agent].path())
    if st.problem:
        return st.problem
    return f"{st.path} was edited by hand" if st.edited else None


def drift(store, agent: str, native=None) -> str | None:
    """Why ``agent``'s native copy differs from the store (edited by hand, or stale), or None."""
    fmt = FORMATS[check_agent(agent)]
    native = select.plan(store)[0] if native is None else native
    if agent == "claude":
        return claude.drift(store, native)
    state = kvstate.get(store, OWN_KEY + agent)
    if not state:
        return None
    st = files.read(fmt.path())
    if st.problem:
        return st.problem
    if not st.exists:
        return f"{fmt.path()} was deleted"
    if st.edited:
        return f"{fmt.path()} was edited by hand"
    if _core(st.body) != _core(fmt.render(native)):
        return f"{fmt.path()} is out of date with the store"
    return None


def _core(text: str | None) -> str:
    """A rule file without its ``match`` examples, which grow with every call the hook stops
    (replayed from the audit log) without the rules changing."""
    return "".join(line for line in (text or "").splitlines(True) if not line.startswith("    match = "))


def drift_report(store) -> list[tuple[str, str]]:
    """(agent, problem and how to restore) for each native copy that drifted."""
    out = []
    native = None
    for agent in written_agents(store):
        if native is None:
            native = select.plan(store)[0]
        problem = drift(store, agent, native)
        if problem:
            out.append((agent, f"{problem}; restore it with `memory-cli rules export --to {agent} --write`"))
    return out
