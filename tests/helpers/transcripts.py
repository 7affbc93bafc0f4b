"""Transcripts shaped like the ones Claude Code writes, for the hooks that read the session."""

from __future__ import annotations

import json
from pathlib import Path


def agent_turn_transcript(
    path, said: str, *, tools=("Edit", "Bash"), error: bool = False, asked_before: str = "fix the login redirect"
):
    """Write a transcript shaped like Claude Code's: the person's request ``asked_before``, then
    one agent turn that called ``tools`` (each answered by a tool result, the last one failing
    when ``error``) and ended by saying ``said``. Returns the path as a string."""
    records = [{"type": "user", "message": {"role": "user", "content": asked_before}, "userType": "external"}]
    for i, name in enumerate(tools):
        tool_input = {"command": "pytest -q"} if name == "Bash" else {"file_path": "/home/u/proj/app.py"}
        records.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"m{i}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{i}", "name": name, "input": tool_input}],
                },
            }
        )
        failing = error and i == len(tools) - 1
        records.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{i}",
                            "content": "exit 1" if failing else "ok",
                            "is_error": failing,
                        }
                    ],
                },
            }
        )
    records.append(
        {"type": "assistant", "message": {"id": "mz", "role": "assistant", "content": [{"type": "text", "text": said}]}}
    )
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)
