"""Bringing existing flat-file memory (CLAUDE.md, MEMORY.md, the seed's logs) into the store.

Parsing is kept apart from storing so a dry run can show exactly what an import would add.
"""
