"""Which handlers run for which event, in order, as "module:function" strings.

Only the modules an event needs are imported, so a PreToolUse call never pays for capture or
retrieval code. Order matters where two handlers speak to Claude about the same prompt
(a captured correction is stated before related memories).
"""

HANDLERS: dict[str, list[str]] = {
    "SessionStart": [
        "memory_cli.sharing.hook:session_start",  # before injection, so shared memories are in it
        "memory_cli.retrieval.hook:session_start",
        "memory_cli.reports.hook:session_start",
        "memory_cli.embeddings.hook:session_start",
        "memory_cli.team.hook:session_start",
        "memory_cli.llm.hook:session_start",  # the one-time offer of a model for session memories
        # Last: the detached maintenance it starts takes the write lock at once (the spool, the
        # backup), and this hook's own writes (loading the repository file) never wait for it.
        "memory_cli.maintenance.hook:session_start",
        # What changed rules, hooks or the rule cache outside memory-cli: said to the person
        "memory_cli.rules.tamper:session_start",
    ],
    "UserPromptSubmit": [
        "memory_cli.capture.hook:user_prompt_submit",
        "memory_cli.rules.hook:user_prompt_submit",  # imported hookify `event: prompt` rules
        "memory_cli.retrieval.hook:user_prompt_submit",
    ],
    # memory-cli's own state first: a call that would switch the gate off is asked of the person
    "PreToolUse": [
        "memory_cli.rules.self_protect:pre_tool_use",
        "memory_cli.rules.hook:pre_tool_use",
        "memory_cli.checks.hook:pre_tool_use",  # reminder lessons beside the tools they name
    ],
    "PostToolUse": [
        "memory_cli.rules.hook:post_tool_use",
        "memory_cli.retrieval.hook:post_tool_use",
        "memory_cli.baselines.hook:post_tool_use",
    ],
    "PostToolUseFailure": [
        "memory_cli.retrieval.hook:post_tool_use_failure",
        "memory_cli.incidents.hook:post_tool_use_failure",
    ],
    # A call auto mode's permission check refused: kept as a signal for capture, replay and proof
    "PermissionDenied": ["memory_cli.capture.denied:permission_denied"],
    "PreCompact": ["memory_cli.maintenance.hook:pre_compact"],
    "Stop": ["memory_cli.capture.hook:stop", "memory_cli.rules.hook:stop", "memory_cli.checks.hook:stop"],
    "SessionEnd": ["memory_cli.maintenance.hook:session_end", "memory_cli.team.hook:session_end"],
}

# Handlers that act on some tools' calls only: for any other tool they are not even imported
# (most PostToolUse calls are edits and reads, which pay for neither). Each handler checks the
# tool itself as well; this table only spares the import.
ONLY_FOR_TOOLS: dict[str, frozenset[str]] = {
    "memory_cli.retrieval.hook:post_tool_use": frozenset({"Bash"}),  # a failed command's known fixes
    "memory_cli.baselines.hook:post_tool_use": frozenset({"Bash"}),  # command durations
}
