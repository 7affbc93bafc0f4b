"""Replaying rules on the sessions the coding agents already keep on this machine.

Claude Code, Codex CLI and Gemini CLI each write every session to disk (see the reader of each,
:mod:`.claude`, :mod:`.codex`, :mod:`.gemini`). Read back as Claude-shaped tool calls, those
sessions say what a rule would have done had it existed: :mod:`.run` passes every recorded call
through the hook's own engine (:func:`memory_cli.rules.engine.evaluate`). Nothing here writes
to the audit log: a replay is never a decision.
"""
