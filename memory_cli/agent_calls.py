"""Other coding agents' hook calls and sessions, read as the Claude Code events and tool calls
the rules know.

One store and one rule set serve every agent: a rule written for ``Bash`` or ``Write`` means
the same action whether Claude Code, Codex CLI or Gemini CLI is about to take it. This module
holds each agent's vocabulary (its event names, its tool names, which tools reach the tool
hooks) and reads a payload in it as Claude-shaped payloads; the hook adapter answers in each
agent's own format (:mod:`memory_cli.hooks.agents`), ``install`` registers the agents' tools and
the session replay reads their sessions through it. It runs on the hook path, so it uses the
standard library only.

What differs (checked against Codex CLI 0.169.0 and Gemini CLI 0.61.0, see docs/agents.md):

* Codex sends Claude's events and fields; its shell tool already arrives as ``Bash`` with
  ``tool_input.command``. ``apply_patch`` arrives with the whole patch text in
  ``tool_input.command``: each file it adds, updates or deletes becomes one ``Write`` or
  ``Edit`` call for the rules, so a file rule sees every file a patch touches.
* Gemini names its events BeforeTool, AfterTool, BeforeAgent, AfterAgent, PreCompress and its
  tools ``run_shell_command``, ``write_file``, ``replace``...
"""

from __future__ import annotations

AGENTS = ("claude", "codex", "gemini")

# agent -> {the agent's event name: the Claude Code event the handlers run for}
EVENTS: dict[str, dict[str, str]] = {
    "codex": {
        e: e
        for e in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop", "SessionEnd")
    },
    "gemini": {
        "SessionStart": "SessionStart",
        "BeforeAgent": "UserPromptSubmit",
        "BeforeTool": "PreToolUse",
        "AfterTool": "PostToolUse",
        "PreCompress": "PreCompact",
        "AfterAgent": "Stop",
        "SessionEnd": "SessionEnd",
    },
}

# agent -> {the agent's tool name: the Claude Code tool it does the work of}
TOOLS: dict[str, dict[str, str]] = {
    "codex": {"exec_command": "Bash", "shell": "Bash", "local_shell": "Bash"},
    "gemini": {
        "run_shell_command": "Bash",
        "write_file": "Write",
        "replace": "Edit",
        "read_file": "Read",
        "read_many_files": "Read",
        "glob": "Glob",
        "search_file_content": "Grep",
        "grep_search": "Grep",
        "list_directory": "LS",
        "web_fetch": "WebFetch",
        "google_web_search": "WebSearch",
    },
}

# The agents' tools whose calls reach the tool hooks (what `install --agent` registers).
TOOL_MATCHERS = {
    "codex": "^(Bash|apply_patch)$",
    "gemini": "^(run_shell_command|write_file|replace)$",
}

PATCH_TOOL = "apply_patch"


def event_for(agent: str, native: str) -> str | None:
    """The Claude Code event an agent's event is handled as; None for one memory-cli ignores."""
    if agent == "claude":
        return native
    return EVENTS.get(agent, {}).get(native)


HOOK_CONTEXT = ("<hook_context>", "</hook_context>")


def typed_prompt(prompt: str) -> str:
    """What the person typed, without the ``<hook_context>...</hook_context>`` blocks Gemini CLI
    puts before it in BeforeAgent's ``prompt`` (the context earlier hooks added, memory-cli's
    own injection among them): capture must judge the person's words, not the injected text."""
    start, end = HOOK_CONTEXT
    text = prompt
    while True:
        stripped = text.lstrip()
        if not stripped.startswith(start):
            return text.strip() if text is not prompt else prompt
        close = stripped.find(end)
        if close < 0:
            return prompt  # not a block Gemini closed: leave the prompt as it came
        text = stripped[close + len(end) :]


def translate(agent: str, event: str, payload: dict) -> list[dict]:
    """The agent's payload as one or more Claude-shaped payloads of ``event`` (an
    ``apply_patch`` touching three files gives three). ``payload`` is the parsed JSON object."""
    if agent == "claude":
        return [payload]
    out = dict(payload)
    out["hook_event_name"] = event
    if agent == "gemini" and event == "UserPromptSubmit" and isinstance(out.get("prompt"), str):
        out["prompt"] = typed_prompt(out["prompt"])
    if agent == "gemini" and event == "Stop" and "last_assistant_message" not in out:
        out["last_assistant_message"] = out.get("prompt_response")
        out.pop("prompt", None)  # AfterAgent repeats the prompt; Stop never carries one
    tool = out.get("tool_name")
    if not isinstance(tool, str):
        return [out]
    if agent == "codex" and tool == PATCH_TOOL:
        ti = out.get("tool_input") if isinstance(out.get("tool_input"), dict) else {}
        calls = patch_calls(ti.get("command") or ti.get("input") or ti.get("patch") or "", out.get("cwd"))
        if calls:
            return [dict(out, tool_name=name, tool_input=tool_input, agent_tool=tool) for name, tool_input in calls]
        return [out]
    mapped = TOOLS.get(agent, {}).get(tool)
    if mapped:
        out["agent_tool"] = tool
        out["tool_name"] = mapped
        ti = out.get("tool_input")
        if mapped in ("Write", "Edit") and isinstance(ti, dict) and isinstance(ti.get("file_path"), str):
            out["tool_input"] = dict(ti, file_path=_absolute(ti["file_path"], out.get("cwd")))
    return [out]


def _absolute(path: str, cwd) -> str:
    import os

    if os.path.isabs(path) or not isinstance(cwd, str) or not cwd:
        return path
    return os.path.normpath(os.path.join(cwd, path))


def patch_calls(patch: str, cwd=None) -> list[tuple[str, dict]]:
    """(tool, tool_input) for each file an ``apply_patch`` text touches: an added file is a
    ``Write`` of its lines, an updated one an ``Edit`` (removed lines as ``old_string``, added
    ones as ``new_string``; a move names the new path), a deleted one an ``Edit`` emptying it."""
    if not isinstance(patch, str):
        return []
    calls: list[list] = []  # [tool, path, old lines, new lines]
    current = None
    for line in patch.splitlines():
        # Codex's parser trims a header line before reading it (`  *** Add File: .env` adds
        # .env), so headers are recognised here the same way; content lines are not trimmed.
        header = line.strip()
        for marker, tool in (("*** Add File: ", "Write"), ("*** Update File: ", "Edit"), ("*** Delete File: ", "Edit")):
            if header.startswith(marker):
                current = [tool, header[len(marker) :].strip(), [], []]
                calls.append(current)
                break
        else:
            if current is None:
                continue
            if header.startswith("*** Move to: "):
                current[1] = header[len("*** Move to: ") :].strip()
            elif header.startswith("*** "):
                current = None if header.startswith(("*** End Patch", "*** Begin Patch")) else current
            elif line.startswith("+"):
                current[3].append(line[1:])
            elif line.startswith("-"):
                current[2].append(line[1:])
    out = []
    for tool, path, old, new in calls:
        if not path:
            continue
        file_path = _absolute(path, cwd)
        if tool == "Write":
            out.append(("Write", {"file_path": file_path, "content": "\n".join(new)}))
        else:
            out.append(("Edit", {"file_path": file_path, "old_string": "\n".join(old), "new_string": "\n".join(new)}))
    return out
