"""Running the dashboard: pick the token, refuse unsafe binds, print the URL, serve."""

from __future__ import annotations

import os
import secrets
import sys

from ..errors import InvalidInput
from .security import is_loopback

TOKEN_ENV = "MEMORY_CLI_TOKEN"


def read_token(token_file: str | None, stdin=None) -> str | None:
    """The token the person chose: ``--token-file`` (``-`` reads stdin) or ``$MEMORY_CLI_TOKEN``.

    Never a command-line value: every local user can read a process's arguments.
    """
    if token_file is not None:
        try:
            if token_file == "-":
                text = (stdin or sys.stdin).readline()
            else:
                with open(token_file, encoding="utf-8") as f:
                    _check_private(token_file, os.fstat(f.fileno()))
                    text = f.readline()
        except OSError as e:
            raise InvalidInput(f"cannot read --token-file {token_file}: {e.strerror}") from None
        return text.strip()
    value = os.environ.get(TOKEN_ENV)
    return value.strip() if value else None


def _check_private(path: str, st: os.stat_result) -> None:
    """A token file is the person's alone: owned by them, no access for group or others."""
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise InvalidInput(f"--token-file {path} belongs to another user; use a file of your own (mode 600)")
    if st.st_mode & 0o077:
        raise InvalidInput(
            f"--token-file {path} can be read by other users (mode {st.st_mode & 0o777:o}): run chmod 600 {path}"
        )


def resolve_token(host: str, token: str | None) -> str:
    """A fresh random token unless one was given. Binding beyond loopback exposes the store to
    the network, so it needs a token the person chose (and shares) on purpose."""
    if token is not None:
        token = token.strip()
        if len(token) < 16:
            raise InvalidInput("the token must be at least 16 characters")
        return token
    if not is_loopback(host):
        raise InvalidInput(
            f"refusing to serve on {host} (not loopback) without an explicit token (--token-file or "
            f"{TOKEN_ENV}); anyone who can reach that address could read and change your memory"
        )
    return secrets.token_urlsafe(24)


def url_for(host: str, port: int, code: str) -> str:
    """The dashboard's address with a one-time login code (never the token)."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    return f"http://{shown}:{port}/?code={code}"


def serve(
    db_path: str,
    *,
    host: str,
    port: int,
    token: str,
    show_token: bool = False,
    open_browser: bool = False,
    injection_floor: float = 0.3,
    allow_hosts=(),
) -> None:
    import uvicorn

    from .app import ServerConfig, create_app

    app = create_app(
        ServerConfig(
            db_path=db_path,
            token=token,
            host=host,
            port=port,
            injection_floor=injection_floor,
            extra_hosts=tuple(f"{h}:{port}" for h in allow_hosts),
        )
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        # An open browser tab keeps connections alive: Ctrl-C waits at most this long for them.
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    url = url_for(host, port, app.state.sessions.new_code())

    async def announce():  # printed once the socket is bound, so the URL works when seen
        sys.stdout.write(f"memory-cli dashboard: {url}\n")
        if show_token:  # a generated token: the person's only copy (login form, scripts)
            sys.stdout.write(f"memory-cli token: {token}\n")
        sys.stdout.flush()
        if open_browser:  # its own one-time code, through a private page: not on any command line
            from .opener import open_browser as open_page

            code = app.state.sessions.new_code()
            pages.append(open_page(url_for(host, port, code), lambda: not app.state.sessions.pending(code)))

    original_startup = server.startup

    async def startup(sockets=None):
        await original_startup(sockets=sockets)
        if server.started:
            await announce()

    original_shutdown = server.shutdown

    async def shutdown(sockets=None):  # said at once, so Ctrl-C is seen to be taken
        sys.stdout.write("memory-cli dashboard: stopping...\n")
        sys.stdout.flush()
        await original_shutdown(sockets=sockets)
        sys.stdout.write("memory-cli dashboard: stopped\n")
        sys.stdout.flush()

    server.startup = startup
    server.shutdown = shutdown
    pages: list = []
    try:
        server.run()
    finally:
        from .opener import remove_page

        for page in pages:
            remove_page(page)
