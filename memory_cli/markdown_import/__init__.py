"""Bringing existing flat-file memory (CLAUDE.md, MEMORY.md, hot-memory.md and the *-log.md files) into the store.

Parsing is kept apart from storing so a dry run can show exactly what an import would add.
"""
