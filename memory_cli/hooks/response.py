"""One hook answer assembled from several handlers, rendered exactly as the protocol wants.

Handlers add facts for Claude (``context``), notes for the person (``notice``) and, only when a
rule deliberately says so, a decision. Rendering knows which event uses which channel:
``systemMessage`` reaches only the person, ``additionalContext`` reaches Claude, a PreToolUse
``deny`` reason reaches Claude, and an "allow" is expressed by *no* permission decision at all,
so that memory-cli never silently approves a call the person's permission settings would ask about.
"""

from __future__ import annotations

MAX_OUTPUT_CHARS = 9500  # Claude Code replaces strings over 10,000 characters with a file path

_CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PreToolUse")
_RANK = {None: 0, "allow": 0, "ask": 1, "defer": 2, "deny": 3}  # Claude Code: deny > defer > ask


class Response:
    def __init__(self) -> None:
        self.context: list[str] = []
        self.notices: list[str] = []
        self.decision: str | None = None  # PreToolUse: "deny" | "ask" | "defer" (Claude Code, headless)
        self.reasons: list[str] = []
        self.block_reason: str | None = None  # PostToolUse feedback / Stop continuation
        # An ask that an agent unable to ask must answer with deny, not turn into a warning.
        self.ask_or_deny = False
        self.updated_input: dict | None = None  # PreToolUse ask: the call rewritten

    def add_context(self, text: str) -> None:
        if text and text.strip():
            self.context.append(text.strip())

    def notify(self, text: str) -> None:
        if text and text.strip():
            self.notices.append(text.strip())

    def decide(self, decision: str, reason: str) -> None:
        """Deny wins over ask wins over no decision, as across parallel hooks in Claude Code."""
        if decision not in ("deny", "ask", "defer"):
            raise ValueError(decision)
        if _RANK[decision] > _RANK[self.decision]:
            self.decision = decision
        self.reasons.append(reason)

    def block(self, reason: str) -> None:
        self.block_reason = reason if not self.block_reason else self.block_reason + "\n" + reason

    def render(self, event: str) -> dict | None:
        out: dict = {}
        specific: dict = {}
        if self.context and event in _CONTEXT_EVENTS:
            specific["additionalContext"] = _cap("\n\n".join(self.context))
        if event == "PreToolUse" and self.decision:
            specific["permissionDecision"] = self.decision
            specific["permissionDecisionReason"] = _cap("\n".join(self.reasons))
            if self.decision == "ask" and self.updated_input is not None:
                specific["updatedInput"] = self.updated_input
        if specific:
            out["hookSpecificOutput"] = {"hookEventName": event, **specific}
        if self.block_reason and event in ("PostToolUse", "Stop"):
            out["decision"] = "block"
            out["reason"] = _cap(self.block_reason)
        if self.notices and event != "SessionEnd":
            out["systemMessage"] = _cap("\n".join(self.notices))
        return out or None


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[: MAX_OUTPUT_CHARS - 40].rstrip() + "\n[... trimmed by memory-cli]"
