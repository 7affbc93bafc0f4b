"""Memories written by an LLM (or, offline, by an extractive reader) at session end, per-scope
limits and compaction.

Nothing here runs on a hook's clock: the SessionEnd hook only queues the transcript
(:mod:`memory_cli.llm.queue`, standard library only) and starts the detached maintenance job,
which calls :func:`memory_cli.llm.summarize.summarize_pending` and
:func:`memory_cli.llm.compact.compact_all`. ``memory-cli summarize`` and ``memory-cli compact``
run the same functions by hand.

Providers (:mod:`memory_cli.llm.providers`): ``none`` (the default: nothing leaves the machine),
``anthropic`` (the official SDK, an optional extra), ``claude-cli`` (the person's own
``claude -p``) and ``openai-compatible`` (any chat-completions server, local or hosted). Every request is redacted first, counted against a daily cap and audited with its
token counts; every answer is validated strictly (:mod:`memory_cli.llm.validate`) before anything
is applied.
"""
