"""Errors that reach a person as one line.

Every failure a user can cause (bad input, a missing id, a database memory-cli must not touch)
is one of these, so the CLI can print a single line and pick an exit code without a traceback,
and hooks can tell a deliberate refusal from a bug.
"""

from __future__ import annotations


class MemoryCliError(Exception):
    """Base class: ``str(err)`` is the one-line message; ``exit_code`` the CLI exit status."""

    exit_code = 1


class InvalidInput(MemoryCliError):
    """The person asked for something malformed (unknown type, empty content, bad JSON)."""

    exit_code = 2


class Conflict(InvalidInput):
    """The request is well formed but the entry's state forbids it (reactivating a memory that
    another one superseded). Same exit code as invalid input; HTTP 409 on the web API."""


class NotFound(MemoryCliError):
    exit_code = 3


class StoreRefused(MemoryCliError):
    """The database cannot be used safely: corrupt, foreign, newer schema, unwritable."""

    exit_code = 4


class StoreReplaced(StoreRefused):
    """An empty database where memory-cli had a store: written over by another process."""


class AgentRefused(MemoryCliError):
    """A command that weakens enforcement was run from a coding agent's shell (its marker is in
    the environment) without the person confirming at a terminal."""

    exit_code = 7


class MemoryDisabled(MemoryCliError):
    """``MEMORY_CLI_DB`` is set but empty: memory is switched off on purpose."""

    exit_code = 5
