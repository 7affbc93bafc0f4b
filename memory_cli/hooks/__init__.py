"""The Claude Code hook adapter: the only part of memory-cli that knows the hook protocol.

Everything below is standard library plus apsw, because Claude Code starts a fresh process for
every hook call (see docs/performance.md).
"""
