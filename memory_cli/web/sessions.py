"""Browser sessions of one running dashboard: one-time login codes and session cookies.

The server token must never reach a browser's cookie jar, address bar or history, nor a
process's command line: a cookie for 127.0.0.1 goes to every port on that address (another
local user's server receives it), history keeps every URL visited, and ``ps`` shows every
argument. So the browser gets in with a *one-time code* (printed in the URL, handed to the
browser by ``--open``), spent on its first use, or by posting the token in the login form;
either yields a random *session id* that lives only in this server's memory: it is not the
token, it is worthless to any other server or after this one stops, and it expires.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time

SESSION_SECONDS = 12 * 3600  # a working day; then the person logs in again
CODE_SECONDS = 24 * 3600  # an unused one-time code expires too
MAX_SESSIONS = 64  # the oldest is dropped beyond this (a loop cannot grow memory)


class Sessions:
    """Thread-safe: uvicorn runs the middleware on one loop, tests may call from others."""

    def __init__(self) -> None:
        self._codes: dict[str, float] = {}
        self._sessions: dict[str, float] = {}
        self._lock = threading.Lock()

    def new_code(self) -> str:
        """A one-time login code, valid until used once (or a day passes)."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = time.monotonic() + CODE_SECONDS
        return code

    def redeem(self, code: str) -> str | None:
        """Spend ``code``: a new session id, or None when it is unknown, spent or expired."""
        with self._lock:
            found = None
            for known in list(self._codes):
                if hmac.compare_digest(known.encode(), code.encode()):
                    found = known
            if found is None:
                return None
            expires = self._codes.pop(found)
        if expires < time.monotonic():
            return None
        return self.open()

    def open(self) -> str:
        """A new session (after the token was shown in the login form, or a code spent)."""
        sid = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            for old, until in list(self._sessions.items()):
                if until < now:
                    del self._sessions[old]
            while len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[min(self._sessions, key=self._sessions.get)]
            self._sessions[sid] = now + SESSION_SECONDS
        return sid

    def valid(self, sid: str | None) -> bool:
        if not sid:
            return False
        with self._lock:
            until = self._sessions.get(sid)
            if until is None:
                return False
            if until < time.monotonic():
                del self._sessions[sid]
                return False
            return True
