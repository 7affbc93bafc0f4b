"""Upkeep that keeps memory trustworthy: pinning into CLAUDE.md, decay, backups, session end.

Nothing is imported here on purpose: SessionStart and SessionEnd reach into this package on
their fast path, and each submodule pulls in only what it needs.
"""
