"""Who wrote an entry, and who may change it.

Every entry has an ``origin``: ``person`` (typed, reviewed, captured from the person's own
words), ``repo:<root>`` (loaded from that repository's ``.claude/memory-cli.toml``), ``team``
(pulled from a team store), ``agent`` (MCP ``remember``, ``[MEMORY:...]`` markers), ``session``
(written at session end by a model or the local reader) or ``import`` (rules imported from
other tools' files). The person may change anything; every other source may change only the
entries it created, so a repository file, a teammate or an agent can never weaken what the
person set.

What an agent or a model writes stays in the scope it was written in (its home: the project
of the session). When it asks for more (``global``, another project, a file pattern), it is
stored at home (or, with no home, held back) and its wish waits in ``memory-cli review`` for
the person (:mod:`memory_cli.scope_requests`): nothing unreviewed speaks in every future session.
"""

from __future__ import annotations

from .errors import Conflict

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from .store.db import Store

PERSON = "person"
TEAM = "team"
AGENT = "agent"
SESSION = "session"
IMPORT = "import"
REPO_PREFIX = "repo:"

#: Origins that wrote text no person has read: their reach is their home scope until reviewed.
UNREVIEWED = (AGENT, SESSION)

#: What each stored ``source`` means as an origin (``repo`` entries carry their root).
ORIGIN_OF_SOURCE = {
    "manual": PERSON,
    "user_correction": PERSON,
    "auto_detected": PERSON,
    "promoted": PERSON,
    "migrated": PERSON,
    "imported": IMPORT,
    "marker": AGENT,
    "agent": AGENT,
    "session": SESSION,
    "team": TEAM,
    "repo": REPO_PREFIX,
}

#: How an origin is shown beside an injected line (the person's own entries show nothing).
LABELS = {TEAM: "from the team", AGENT: "by the agent", SESSION: "by a session summary", IMPORT: "imported"}


class NotOwner(Conflict):
    """A source tried to change an entry it did not create."""


def repo(root: str) -> str:
    return REPO_PREFIX + root


def label(origin: str | None) -> str | None:
    """A few words saying where an injected entry came from, or None for the person's own."""
    if not origin or origin == PERSON:
        return None
    if origin.startswith(REPO_PREFIX):
        return "from the repository file"
    return LABELS.get(origin, origin)


def may_change(origin: str | None, by: str) -> bool:
    """The person may change everything; any other source only what it created."""
    return by == PERSON or (origin or PERSON) == by


def check_may_change(store: Store, entry_id: str, by: str, what: str = "change") -> None:
    """Raise :class:`NotOwner` (one line) unless ``by`` may change ``entry_id``."""
    if by == PERSON:
        return
    origin = store.value("SELECT origin FROM memory_entries WHERE id = ?", (entry_id,))
    if origin is None:
        return  # no such entry: the caller's own lookup says so
    if origin != by:
        raise NotOwner(f"{entry_id[:8]} belongs to {describe(origin)}; {describe(by)} may not {what} it")


def describe(origin: str) -> str:
    if origin == PERSON:
        return "you"
    if origin.startswith(REPO_PREFIX):
        return f"the repository file of {origin[len(REPO_PREFIX) :] or 'an unknown root'}"
    return {TEAM: "the team store", AGENT: "the agent", SESSION: "a session summary", IMPORT: "an import"}.get(
        origin, origin
    )


# -- schema (migration 10) -------------------------------------------------------------------
def apply_schema(store: Store) -> None:
    """Add ``origin`` and ``requested_scope`` and back-fill origins from ``source``.

    Entries loaded from repository files get ``repo:<root>`` and the scope of that root (they
    were scoped by folder name, which matched every clone of that name)."""
    from .store import kvstate

    store.execute("ALTER TABLE memory_entries ADD COLUMN origin TEXT NOT NULL DEFAULT 'person'")
    store.execute("ALTER TABLE memory_entries ADD COLUMN requested_scope TEXT")
    for source, origin in ORIGIN_OF_SOURCE.items():
        if source != "repo":
            store.execute("UPDATE memory_entries SET origin = ? WHERE source = ?", (origin, source))
    store.execute("UPDATE memory_entries SET origin = 'repo:' WHERE source = 'repo'")
    for root, state in kvstate.with_prefix(store, "sharing.file:").items():
        try:
            ids = state.get("ids") or []
        except AttributeError:
            continue
        for eid in ids:
            store.execute(
                "UPDATE memory_entries SET origin = ?, scope = ? WHERE id = ? AND source = 'repo'",
                (repo(root), repo(root), eid),
            )
    store.execute(
        "CREATE INDEX IF NOT EXISTS idx_entries_requested ON memory_entries(requested_scope)"
        " WHERE requested_scope IS NOT NULL"
    )
