"""The short text that teaches the agent to write memory markers (seed 000's "Memory
Recording" section). Injection includes it at session start and `memory-cli instructions`
prints it, so an agent without the hooks can be taught by hand.

Kept short on purpose: it is paid for in context tokens every session. The examples are the
made up; :mod:`.markers` ignores markers identical to them, so an agent that echoes these
instructions never stores an example as a memory.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "text", "CATEGORY_HELP"]

CATEGORY_HELP = (
    ("timing", "how long something takes, or when to wait before checking"),
    ("dependency", "what must run or exist before something else works"),
    ("behavior", "how something behaves, including quirks and misleading signals"),
    ("remediation", "what fixed (or did not fix) a known problem"),
    ("maintenance", "recurring upkeep something needs"),
)

# (category, subject or None, observation). Deliberately not the seed's scenario texts: those
# are real observations an agent may make, and markers equal to an example are ignored.
EXAMPLES = (
    ("timing", "postgres", "Accepts connections about 15s after the container reports started"),
    ("dependency", "nextcloud", "Needs redis running first -- login hangs otherwise"),
    ("behavior", "grafana", "Health endpoint returns 200 even while the datasource is down"),
    ("remediation", None, "Stale NFS handles clear after a remount; restarting the service alone does not"),
    ("maintenance", "backups", "Snapshot volume fills in about three weeks -- prune old snapshots monthly"),
)


def _marker(category: str, subject: str | None, observation: str) -> str:
    head = f"[MEMORY:{category}:{subject}]" if subject else f"[MEMORY:{category}]"
    return f"{head} {observation}"


def text() -> str:
    """The marker instructions, as Markdown."""
    categories = "\n".join(f"- {name}: {help_}" for name, help_ in CATEGORY_HELP)
    examples = "\n".join(_marker(*e) for e in EXAMPLES)
    return (
        "## Memory Recording\n"
        "When you learn something about this environment that a later session would need, "
        "write it as a memory marker on its own line in your reply (plain text, not in a code "
        "block, quote or tool call, where markers are ignored):\n\n"
        "[MEMORY:<category>] <observation>\n"
        "[MEMORY:<category>:<subject>] <observation>\n\n"
        f"Categories (others are rejected):\n{categories}\n\n"
        "<subject> is the service, tool or component it is about: one word of letters, digits, "
        "'-' or '_'. Leave it out for general observations.\n\n"
        f"Examples:\n{examples}\n\n"
        "Record only what you observed, one fact per marker, no secrets. Restating a known "
        "memory reinforces it; stating the opposite lowers the old memory's confidence."
    )
