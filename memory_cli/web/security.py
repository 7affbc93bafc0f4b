"""Who may talk to the server: a token, the right Host, and for writes the right Origin and a
CSRF token.

A port on 127.0.0.1 is reachable by every local user and, through the browser, by every web
page the person visits. So:

- every request carries the token (``Authorization: Bearer T``, scripts) or a session cookie
  (the browser), and a session cookie counts only on a connection from a process of the user
  who started the server (:mod:`memory_cli.web.peer`): cookies ignore ports, so another local
  user's server on 127.0.0.1 may receive it. ``POST /logout`` ends the session. After
  :data:`~memory_cli.web.sessions.MAX_FAILURES` failed logins in a minute every login attempt
  (token, code, form) is refused with 429 for the rest of that minute. The browser gets the session by opening the printed one-time URL
  (``?code=C``, spent on first use, then redirected to the clean address) or by posting the
  token in the login form; the cookie holds a random session id of this server, never the
  token (see :mod:`memory_cli.web.sessions`). A token in a URL is refused: history keeps it;
- the ``Host`` header must name the address the server was started for, so a hostile domain
  that re-resolves to 127.0.0.1 (DNS rebinding) is refused;
- state-changing requests (POST, PUT, PATCH, DELETE) must come from the dashboard's own
  origin when they carry an ``Origin`` header, and when authenticated by the cookie they must
  also carry an ``Origin`` and the CSRF token the pages embed (header ``X-CSRF-Token``). A
  bearer header cannot be attached by another site's page, so API scripts need no CSRF token.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import time
from urllib.parse import parse_qsl, urlencode

from . import peer

COOKIE = "memory_cli_session"
LOGIN_PATH = "/login"
LOGOUT_PATH = "/logout"
CSRF_HEADER = "x-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_NAMES = ("localhost",)


def cookie_name(port: int) -> str:
    """One cookie per port: cookies ignore ports, and two servers must not clobber each other."""
    return f"{COOKIE}_{port}"


def is_loopback(host: str) -> bool:
    h = host.strip("[]")
    if h in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def _own_names() -> set[str]:
    import socket

    names = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        if not name:
            continue
        names.add(name)
        try:
            for info in socket.getaddrinfo(name, None):
                addr = info[4][0]
                names.add(f"[{addr}]" if ":" in addr else addr)
        except OSError:
            pass
    return names


def csrf_token(token: str) -> str:
    """Derived from the server token, so it is stable across restarts with the same token and
    worthless without it."""
    return hmac.new(token.encode(), b"memory-cli csrf", hashlib.sha256).hexdigest()


def allowed_hosts(host: str, port: int, extra=()) -> set[str]:
    """Host header values accepted: the bound address with its port, and the loopback names
    when bound to loopback (a browser may show ``localhost`` for ``127.0.0.1``)."""
    names = {host}
    if is_loopback(host) or host in ("0.0.0.0", "::"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    if host in ("0.0.0.0", "::"):  # every interface: the machine's own names and addresses
        names |= _own_names()
    if ":" in host and not host.startswith("["):
        names.add(f"[{host}]")
    out = set()
    for n in names:
        out.add(f"{n}:{port}".lower())
        if port == 80:
            out.add(n.lower())
    out |= {e.lower() for e in extra}
    return out


class SecurityMiddleware:
    """Pure ASGI middleware (no per-request task overhead) applying the rules above."""

    def __init__(self, app, *, token: str, hosts: set[str], port: int, sessions):
        self.app = app
        self.cookie = cookie_name(port)
        self.token = token
        self.sessions = sessions
        self.hosts = hosts
        self.origins = {f"http://{h}" for h in hosts} | {f"https://{h}" for h in hosts}
        self.csrf = csrf_token(token)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope.get("path", "")
        is_api = path.startswith("/api")
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            return await _refuse(send, 400, f"host {host or '(none)'!r} is not one this server was started for", is_api)
        query = scope.get("query_string", b"").decode("latin-1")
        params = parse_qsl(query, keep_blank_values=True)
        bearer = None
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            bearer = auth[7:].strip()
        session = _cookie(headers.get("cookie", ""), self.cookie)
        method = scope["method"]

        if any(k == "token" for k, _ in params):
            return await _refuse(
                send,
                401,
                "the token does not go in a URL (the browser's history keeps it): open the one-time "
                "URL `memory-cli serve` printed, or give the token in the login form",
                is_api,
            )
        code = next((v for k, v in params if k == "code"), None)
        if path == LOGOUT_PATH and method == "POST":
            return await self._logout(send, headers, session)
        login = (code is not None and method == "GET") or (path == LOGIN_PATH and method == "POST" and bearer is None)
        client = peer.client_key(scope.get("client"), scope.get("server"))
        if (login or bearer is not None) and self.sessions.locked_for(client):
            wait = self.sessions.locked_for(client)
            return await _refuse(
                send,
                429,
                f"too many failed logins: try again in {wait} s",
                is_api,
                [(b"retry-after", str(wait).encode())],
            )
        if login and peer.from_another_user(scope.get("client"), scope.get("server")):
            return await _refuse(send, 403, _OTHER_USER, is_api)
        if code is not None and method == "GET":
            sid = self.sessions.redeem(code)
            if sid is None:
                self.sessions.failed(client)
                return await _refuse(send, 401, "this one-time link was already used or is unknown", is_api)
            # The code is spent; show the clean URL with the session in a cookie.
            rest = urlencode([(k, v) for k, v in params if k != "code"])
            return await self._start_session(send, sid, path + ("?" + rest if rest else ""))
        if path == LOGIN_PATH and method == "POST" and bearer is None:
            return await self._login(scope, receive, send, headers)

        if bearer is not None:
            # the token is the person's: from another local user's process it is refused even
            # when right (a token file left readable, a leaked environment)
            if peer.from_another_user(scope.get("client"), scope.get("server")):
                return await _refuse(send, 403, _OTHER_USER, is_api)
            if not _same(bearer, self.token):
                self.sessions.failed(client)
                return await _refuse(send, 401, "wrong bearer token", is_api)
            via_cookie = False
        elif self.sessions.valid(session):
            # The cookie reaches every port on this address; it is worth something only from
            # the person's own processes.
            if peer.from_another_user(scope.get("client"), scope.get("server")):
                return await _refuse(send, 403, _OTHER_USER, is_api)
            via_cookie = True
        else:
            return await _refuse(
                send,
                401,
                "a token is required: open the one-time URL `memory-cli serve` printed, log in with the "
                "token, or send Authorization: Bearer TOKEN",
                is_api,
            )

        if method in UNSAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and origin.lower() not in self.origins:
                return await _refuse(send, 403, f"origin {origin!r} may not change this store", is_api)
            if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
                return await _refuse(send, 403, "cross-site requests may not change this store", is_api)
            if via_cookie:
                if origin is None:
                    return await _refuse(
                        send, 403, "a state-changing request from a browser needs an Origin header", is_api
                    )
                if not _same(headers.get(CSRF_HEADER, ""), self.csrf):
                    return await _refuse(send, 403, "missing or wrong CSRF token (reload the page)", is_api)

        started = time.perf_counter()

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                took = f"app;dur={(time.perf_counter() - started) * 1000:.1f}".encode()
                message["headers"] = list(message["headers"]) + _HARDENING + [(b"server-timing", took)]
            await send(message)

        return await self.app(scope, receive, send_with_headers)

    async def _start_session(self, send, sid: str, location: str):
        # No Max-Age: the browser forgets it when it closes; the server ends it sooner (sessions.py).
        cookie = f"{self.cookie}={sid}; Path=/; HttpOnly; SameSite=Strict"
        headers = [(b"location", location.encode()), (b"set-cookie", cookie.encode()), *_HARDENING]
        return await _send(send, 303, b"", "text/plain", headers)

    async def _logout(self, send, headers, session):
        """End the session here and clear the cookie. From this origin only (a page elsewhere
        has no business ending it); no CSRF token needed, since logging out gives nothing away."""
        origin = (headers.get("origin") or "").lower()
        same = origin in self.origins or (origin in ("", "null") and headers.get("sec-fetch-site") == "same-origin")
        if not same:
            return await _refuse(send, 403, "log out from the dashboard's own page", False)
        self.sessions.close(session)
        cookie = f"{self.cookie}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
        out = [(b"location", b"/"), (b"set-cookie", cookie.encode()), *_HARDENING]
        return await _send(send, 303, b"", "text/plain", out)

    async def _login(self, scope, receive, send, headers):
        """The login form's POST: the token in the body (never the URL), from this origin only."""
        # A form on a no-referrer page posts ``Origin: null``; fetch metadata still names it.
        origin = (headers.get("origin") or "").lower()
        same = origin in self.origins or (origin in ("", "null") and headers.get("sec-fetch-site") == "same-origin")
        if not same:
            return await _refuse(send, 403, "log in from the dashboard's own page", False)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > 4096:
                return await _refuse(send, 413, "login form too large", False)
            if not message.get("more_body"):
                break
        given = next((v for k, v in parse_qsl(body.decode("latin-1")) if k == "token"), "")
        if not _same(given.strip(), self.token):
            self.sessions.failed(peer.client_key(scope.get("client"), scope.get("server")))
            return await _refuse(send, 401, "wrong token", False)
        return await self._start_session(send, self.sessions.open(), "/")


_HARDENING = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
]


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        k, _, v = part.strip().partition("=")
        if k == name:
            return v
    return None


_LOGIN_FORM = (
    f"<form method=post action={LOGIN_PATH}>"
    "<label for=token>Token</label>"
    "<input id=token type=password name=token autocomplete=off required autofocus>"
    "<button>Log in</button>"
    "<p class=hint>The token is in <code>memory-cli serve</code>'s output, beside the one-time link.</p>"
    "</form>"
)

# The refusal and login page: inline, because the dashboard's own stylesheet is served only after
# login (the security policy allows inline styles, not scripts).
_PAGE_STYLE = (
    "<style>"
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;background:#f5f6f8;color:#1f2328;"
    "margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center}"
    "main{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1.5rem 2rem;max-width:28rem;"
    "box-shadow:0 1px 3px rgba(0,0,0,.06)}"
    "h1{font-size:1.1rem;margin:0 0 .75rem}"
    "p{line-height:1.45;margin:.5rem 0}"
    "form{display:flex;flex-direction:column;gap:.5rem;margin-top:1rem}"
    "input{font:inherit;padding:.45rem .6rem;border:1px solid #d0d7de;border-radius:6px}"
    "button{font:inherit;padding:.45rem .6rem;border:0;border-radius:6px;background:#1f6feb;color:#fff;"
    "cursor:pointer}"
    ".hint{color:#59636e;font-size:.85rem}"
    "code{background:#eff1f3;padding:0 .25rem;border-radius:4px}"
    "</style>"
)


_OTHER_USER = "this dashboard's browser sessions serve only the user who started it"


async def _refuse(send, status: int, message: str, is_api: bool, extra=()):
    if is_api:
        body = json.dumps({"detail": message}).encode()
        return await _send(send, status, body, "application/json", [*_HARDENING, *extra])
    heading = "Log in to memory-cli" if status == 401 else f"memory-cli: {status}"
    html = (
        f"<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>"
        f"<title>memory-cli: {status}</title>{_PAGE_STYLE}<main><h1>{heading}</h1>"
        f"<p>{_escape(message)}</p>" + (_LOGIN_FORM if status == 401 else "") + "</main>"
    ).encode()
    return await _send(send, status, html, "text/html; charset=utf-8", [*_HARDENING, *extra])


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def _send(send, status: int, body: bytes, ctype: str, headers):
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", ctype.encode()),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
