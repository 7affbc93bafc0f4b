"""What a handler knows about the call: the payload, the project, the store, the settings."""

from __future__ import annotations

import os
import time

from .. import scope as scopes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..settings import Settings
    from ..store.db import Store


class HookContext:
    def __init__(self, event: str, payload: dict, store: Store, settings: Settings, *, started: float | None = None):
        self.event = event
        self.payload = payload
        self.store = store
        self.settings = settings
        self.started = started if started is not None else time.perf_counter()
        self.session_id: str = payload.get("session_id") or ""
        self.cwd: str | None = payload.get("cwd")
        self.agent: str | None = payload.get("agent_type") or payload.get("agent_id")
        self.project_root = scopes.find_project_root(self.cwd)
        self.project = scopes.project_name(self.project_root)
        self.errors: list[str] = []
        # Audit rows waiting for the answer to be sent (see runner); None: write at once.
        self.pending_audit: list | None = None
        # The coding agent that called (claude, codex, gemini), named in every audit row.
        self.client: str | None = None

    @property
    def tool_name(self) -> str | None:
        return self.payload.get("tool_name")

    @property
    def tool_input(self) -> dict:
        ti = self.payload.get("tool_input")
        return ti if isinstance(ti, dict) else {}

    @property
    def files(self) -> list[str]:
        """Paths the tool call touches, absolute where Claude Code gave them so."""
        ti = self.tool_input
        out = []
        for key in ("file_path", "notebook_path", "path"):
            v = ti.get(key)
            if isinstance(v, str) and v:
                out.append(v)
        return out

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0

    def audit(self, action: str, **kw) -> None:
        """Audit from a handler; never raises (the hook must not fail because of its log).

        Inside the hook runner the row is written after Claude Code has its answer, so a
        decision never waits on the store's write lock."""
        kw.setdefault("session_id", self.session_id or None)
        kw.setdefault("hook_event", self.event)
        if self.client:
            kw.setdefault("agent", self.client)
        if self.pending_audit is not None:
            self.pending_audit.append((action, kw))
            return
        from ..audit import record_safely

        record_safely(self.store, action, **kw)

    def scope_applies(self, scope: str) -> bool:
        return scopes.applies(scope, self.project, self.files, self.project_root)

    def env(self, name: str, default: str | None = None) -> str | None:
        return os.environ.get(name, default)
