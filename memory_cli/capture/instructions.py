"""The short text that teaches the agent to write memory markers (the "Memory Recording"
section). Injection includes it at session start and `memory-cli instructions`
prints it, so an agent without the hooks can be taught by hand.

Kept to five lines on purpose: it is paid for in context tokens every session, and must not
outweigh the memories themselves. The examples are made up; :mod:`.markers` ignores markers identical to them, so an agent that echoes these
instructions never stores an example as a memory.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "text", "lessons_text", "CATEGORY_HELP"]

CATEGORY_HELP = (
    ("timing", "how long something takes, or when to wait before checking"),
    ("dependency", "what must run or exist before something else works"),
    ("behavior", "how something behaves, including quirks and misleading signals"),
    ("remediation", "what fixed (or did not fix) a known problem"),
    ("maintenance", "recurring upkeep something needs"),
)

# (category, subject or None, observation). Deliberately different from the observations of the
# WhisperClick example session: those are real observations an agent may make, and markers
# equal to an example are ignored.
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


def lessons_text() -> str:
    """How the agent records a lesson it was taught (:mod:`.lessons`): three lines, paid once
    per session. The marker is shown in inline code, so an agent echoing it records nothing."""
    return (
        "## Lessons\n"
        "When the person corrects how you work, states a standing rule, or repeats an instruction on how "
        'to work, even for this turn ("commit and push"; not a new task, question or praise), call '
        "memory-cli's `record_correction` once per instruction (two in one prompt: two calls) with "
        "`quote` (their words for it, verbatim), `lesson` (one line: "
        "what to do instead), if clear `wrong`, `right`, `kind` (pushback or standing), and for a "
        "recorded lesson said again, its id as `same_as` (each time).\n"
        'Without that tool, write on a line of its own: `[LESSON: "<their words>" -> <what to do instead>]`.'
    )


def text(lessons: bool = True) -> str:
    """The marker instructions, as Markdown: five lines, paid for in context every session, and
    with ``lessons`` the lesson instructions after them."""
    return _memory_text() + ("\n\n" + lessons_text() if lessons else "")


def _memory_text() -> str:
    category, subject, observation = EXAMPLES[0]
    return (
        "## Memory Recording\n"
        "To record what a later session needs, write a marker on its own line of your reply "
        "(never in code blocks, quotes or tool calls): `[MEMORY:<category>:<subject>] <observation>` "
        "or `[MEMORY:<category>] <observation>`.\n"
        f"Categories: {', '.join(name for name, _help in CATEGORY_HELP)}. "
        "<subject> is the service or tool it is about (one word).\n"
        f"Example: {_marker(category, subject, observation)}\n"
        "One observed fact per marker, no secrets; restating a memory reinforces it, contradicting it weakens it."
    )
