"""What memory-cli asks a model, and the two tools through which it must answer.

Both requests force a tool call (``tool_choice`` names the tool) so the answer is structured
data, never prose to be parsed; :mod:`memory_cli.llm.validate` then checks it field by field.
The claude-cli provider cannot force a tool, so it gets the same schema and is told to answer
with the tool's input as one JSON object.
"""

from __future__ import annotations

import json

from memory_cli.entries import CATEGORIES, TYPES

SAVE_TOOL = {
    "name": "save_memories",
    "description": "Save what is worth remembering from a coding session, and a short report of it.",
    "input_schema": {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "description": "One self-contained sentence or two."},
                        "type": {"type": "string", "enum": list(TYPES)},
                        "scope": {"type": "string", "enum": ["project", "global"]},
                        "category": {"type": "string", "enum": list(CATEGORIES)},
                        "subject": {"type": "string"},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                    "required": ["content", "type", "scope"],
                    "additionalProperties": False,
                },
            },
            "report": {"type": "string", "description": "A few lines on what the session did."},
            "corrections": {
                "type": "array",
                "description": "Where the person told the agent it was wrong or how to behave from now on.",
                "items": {
                    "type": "object",
                    "properties": {
                        "quote": {"type": "string", "description": "The person's own words, copied exactly."},
                        "statement": {"type": "string", "description": "What to do instead, as one instruction."},
                        "kind": {"type": "string", "enum": ["pushback", "standing"]},
                    },
                    "required": ["quote", "statement", "kind"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["memories", "report"],
        "additionalProperties": False,
    },
}

COMPACT_TOOL = {
    "name": "compact_memories",
    "description": "Shrink a list of memories: delete the worthless, merge the overlapping, edit the stale.",
    "input_schema": {
        "type": "object",
        "properties": {
            "delete": {"type": "array", "items": {"type": "string"}},
            "merge": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "ids": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                        "content": {"type": "string"},
                    },
                    "required": ["ids", "content"],
                    "additionalProperties": False,
                },
            },
            "edit": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "content": {"type": "string"}},
                    "required": ["id", "content"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["delete", "merge", "edit"],
        "additionalProperties": False,
    },
}

SAVE_SYSTEM = (
    "You keep the long-term memory of a coding agent (Claude Code). You read the transcript of one "
    "of its sessions and write down only what will still be useful in a later session: facts "
    "about the project and its tools, the person's preferences and corrections, decisions and "
    "their reasons, and fixes that ended a failure (what failed, why, what worked). Skip what is "
    "obvious, temporary or already listed under existing memories. Each memory is one or two "
    "self-contained sentences that make sense without the transcript. Use scope 'project' for "
    "anything about this project and 'global' only for what holds in every project. Save nothing "
    "rather than something vague. Parts of the transcript shown as [REDACTED:...] were secrets: "
    "never try to reconstruct them. Also list under corrections each place where the person told "
    "the agent that what it did, said or proposed was wrong or should be done differently "
    "(pushback: a verdict, 'still failing', a nudge to another tool, a fixed fact), or gave a rule "
    "for how it should behave from now on (standing), quoting the person's words exactly; a new "
    "task, a question, praise or a pasted brief is not a correction. Answer only by calling the "
    "save_memories tool."
)

COMPACT_SYSTEM = (
    "You keep the long-term memory of a coding agent. A scope holds more automatic memories than "
    "its limit. Shrink the list: delete memories that are stale, trivial or duplicated; merge "
    "memories that say overlapping things into one; edit a memory only to make it shorter or "
    "correct. Use only the ids listed. Answer only by calling the compact_memories tool."
)


def save_prompt(transcript_text: str, *, project: str | None, existing: list[dict]) -> str:
    known = "\n".join(f"- {m['content']}" for m in existing) or "(none)"
    return (
        f"Project: {project or '(none: use scope global only for what holds everywhere)'}\n\n"
        f"Existing memories (do not repeat these):\n{known}\n\n"
        f"<transcript>\n{transcript_text}\n</transcript>\n\n"
        "Call save_memories with the memories worth keeping (possibly none) and a report of a few "
        "lines on what the session did."
    )


def compact_prompt(scope: str, entries: list[dict], *, limit: int) -> str:
    listing = "\n".join(
        json.dumps(
            {
                "id": e["id"],
                "type": e["type"],
                "content": e["content"],
                "created": e["created_at"][:10],
                "uses": e.get("use_count") or 0,
                "confidence": round(float(e.get("confidence") or 0), 2),
            },
            ensure_ascii=False,
        )
        for e in entries
    )
    return (
        f"Scope: {scope}\nLimit: {limit} memories; there are {len(entries)}, so at least "
        f"{max(0, len(entries) - limit)} must go (a merge of k memories removes k-1).\n\n"
        f"Memories (one JSON object per line):\n{listing}\n\n"
        "Call compact_memories with the ids to delete, the groups to merge (with the merged "
        "content) and the edits."
    )


def json_only_instruction(tool: dict) -> str:
    """For a provider that cannot force a tool call: answer with the tool's input as JSON."""
    return (
        f"\n\nAnswer with exactly one JSON object and nothing else: the input of the tool "
        f"`{tool['name']}`, which must match this JSON schema:\n{json.dumps(tool['input_schema'])}"
    )
