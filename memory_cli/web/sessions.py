"""Browser sessions of one running dashboard: one-time login codes and session cookies.

The server token must never reach a browser's cookie jar, address bar or history, nor a
process's command line: a cookie for 127.0.0.1 goes to every port on that address (another
local user's server receives it), history keeps every URL visited, and ``ps`` shows every
argument. So the browser gets in with a *one-time code* (printed in the URL, or handed to the
browser by ``--open`` through a page only this user can read, see :mod:`memory_cli.web.opener`),
spent on its first use, or by posting the token in the login form; either yields a random
*session id* that lives only in this server's memory: it is not the token, it is worthless to
any other server or after this one stops, and it ends after half an hour unused, after eight
hours in any case, or when the person logs out. A cookie another local user's server receives
is refused when replayed: :mod:`memory_cli.web.peer` tells whose process a connection comes
from.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time

#: A session ends after this long without a request (each request starts the wait again) ...
IDLE_SECONDS = 30 * 60
#: ... and after this long whatever happens; then the person logs in again (or logs out sooner).
SESSION_SECONDS = 8 * 3600
CODE_SECONDS = 24 * 3600  # an unused one-time code expires too
MAX_SESSIONS = 64  # the oldest is dropped beyond this (a loop cannot grow memory)
#: Failed logins (wrong token, unknown one-time code) allowed to one client in
#: :data:`FAILURE_WINDOW` seconds; beyond that that client's login attempts are refused until its
#: oldest failure is that old. A client is a local user (the uid owning a loopback connection) or
#: a remote address, so another local user's bad guesses never lock the person out.
MAX_FAILURES = 10
FAILURE_WINDOW = 60
MAX_CLIENTS = 256  # clients whose failures are remembered (the oldest forgotten beyond that)


class Sessions:
    """Thread-safe: uvicorn runs the middleware on one loop, tests may call from others."""

    def __init__(self) -> None:
        self._codes: dict[str, float] = {}
        self._sessions: dict[str, tuple[float, float]] = {}  # sid: (idle until, ends at)
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def failed(self, client: str = "*") -> None:
        """A wrong token or an unknown code was tried by ``client``."""
        now = time.monotonic()
        with self._lock:
            kept = [t for t in self._failures.pop(client, []) if t > now - FAILURE_WINDOW][-MAX_FAILURES:]
            self._failures[client] = kept + [now]  # re-inserted: the most recent client last
            while len(self._failures) > MAX_CLIENTS:
                del self._failures[next(iter(self._failures))]

    def locked_for(self, client: str = "*") -> int:
        """Seconds until ``client`` may try a login again (0: now). Guessing a token the person
        chose gets :data:`MAX_FAILURES` tries a minute per client."""
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._failures.get(client, []) if t > now - FAILURE_WINDOW]
        if len(recent) < MAX_FAILURES:
            return 0
        return max(1, int(recent[-MAX_FAILURES] + FAILURE_WINDOW - now + 0.999))

    def new_code(self) -> str:
        """A one-time login code, valid until used once (or a day passes)."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = time.monotonic() + CODE_SECONDS
        return code

    def pending(self, code: str) -> bool:
        """Whether ``code`` is still waiting for its one use."""
        with self._lock:
            until = self._codes.get(code)
        return until is not None and until >= time.monotonic()

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
            for old, (idle, ends) in list(self._sessions.items()):
                if min(idle, ends) < now:
                    del self._sessions[old]
            while len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[min(self._sessions, key=lambda k: self._sessions[k][0])]
            self._sessions[sid] = (now + IDLE_SECONDS, now + SESSION_SECONDS)
        return sid

    def valid(self, sid: str | None) -> bool:
        """Whether ``sid`` is a live session; using it starts its idle wait again."""
        if not sid:
            return False
        now = time.monotonic()
        with self._lock:
            found = self._sessions.get(sid)
            if found is None:
                return False
            idle, ends = found
            if min(idle, ends) < now:
                del self._sessions[sid]
                return False
            self._sessions[sid] = (now + IDLE_SECONDS, ends)
            return True

    def close(self, sid: str | None) -> None:
        """Log out: the session is gone from this server."""
        if sid:
            with self._lock:
                self._sessions.pop(sid, None)
