"""``memory-cli serve``: the web dashboard and REST API (FastAPI loads only here)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import db_path, open_store, settings


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback unless a token is given).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="Port (0: any free port).")] = 8765,
    token_file: Annotated[
        str | None,
        typer.Option(
            "--token-file",
            help="File holding the access token (- reads stdin; or set MEMORY_CLI_TOKEN). "
            "Default: a new random token per run.",
        ),
    ] = None,
    token: Annotated[str | None, typer.Option("--token", hidden=True)] = None,
    open_: Annotated[bool, typer.Option("--open", help="Open the dashboard in the browser.")] = False,
    allow_host: Annotated[
        list[str] | None,
        typer.Option("--allow-host", help="Another name the server is reached by (Host header), e.g. behind a proxy."),
    ] = None,
):
    """Serve the web dashboard and the REST API; prints a one-time URL for the browser."""
    import socket

    from ..errors import InvalidInput, MemoryCliError
    from ..web.server import read_token, resolve_token
    from ..web.server import serve as run

    if token is not None:
        raise InvalidInput(
            "--token shows the token to every local user in the process list: put it in a file "
            "(--token-file FILE, - reads stdin) or in MEMORY_CLI_TOKEN"
        )
    chosen = read_token(token_file)
    tok = resolve_token(host, chosen)
    from ..web.security import is_loopback

    if not is_loopback(host):
        import sys

        sys.stderr.write(
            f"warning: serving on {host} over plain HTTP: the token, the session cookie and every "
            "memory cross the network in clear text (prefer an SSH tunnel to 127.0.0.1)\n"
        )
    with open_store():  # refuse a corrupt or foreign store now, with its exit code
        pass
    if open_ and not _browser_available():
        import sys

        sys.stderr.write(
            "memory-cli: --open: no browser found here (none on PATH, no display, BROWSER unset): "
            "open the dashboard URL below yourself\n"
        )
        open_ = False
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:  # fail with one line, not a server log, when the port is taken
        try:
            s.bind((host, port))
        except OSError as e:
            raise MemoryCliError(
                f"cannot serve on {host}:{port}: {e.strerror or e}" + ("; pick another with --port" if port else "")
            ) from None
        port = s.getsockname()[1]
    try:
        floor = _injection_floor()
    except Exception:
        floor = 0.3
    try:
        run(
            str(db_path()),
            host=host,
            port=port,
            token=tok,
            show_token=chosen is None,
            open_browser=open_,
            injection_floor=floor,
            allow_hosts=tuple(allow_host or ()),
        )
    except KeyboardInterrupt:
        pass


def _browser_available() -> bool:
    """Whether Python's webbrowser module can start anything (``BROWSER``, a graphical browser
    with a display, or a text one such as w3m)."""
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def _injection_floor() -> float:
    from ..maintenance.decay_store import policy_from

    return float(policy_from(settings()).injection_floor)
