"""Native copies of the person's rules, in each agent's own rule format.

A hook is one line of defence, and hooks fail in ways memory-cli cannot see (a release where
PreToolUse does not fire, hooks switched off, Codex hooks behind a feature flag). Each agent
also has rules it enforces without any hook: Claude Code's ``permissions``, Codex's execpolicy
``.rules`` files, Gemini CLI's policy engine. This package renders the confirmed rules that
these formats can hold exactly (:mod:`.select`) into each format (:mod:`.claude`,
:mod:`.codex`, :mod:`.gemini`), writes and removes them exactly (:mod:`.files`,
:mod:`.claude`), and keeps them following the store (:mod:`.sync`).
"""
