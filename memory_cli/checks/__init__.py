"""Every approved lesson's form of enforcement, and the checks that run when the agent stops.

A gate before a tool call holds only a lesson that names a command or a file. The rest of what
people teach ("commit before you finish", "state your confidence") is behaviour, seen when the
turn ends. Each approved lesson gets a form (``forms``): a rule (the gate), a reminder beside
the calls of the tools it names, a Stop check, or advice. A Stop check is compiled
(``compile``) into the cheapest check that sees its evidence: a deterministic check over the
turn's own calls read from the transcript (``turn``), run by memory-cli's Stop hook (``hook``),
or a judgement by Claude Code's own evaluator through a ``prompt`` hook that memory-cli keeps in
the settings in step with the lessons in force (``claude_settings``, ``judge``). Every verdict
is audited and counted per lesson (``verdicts``).
"""
