"""Handing the browser its one-time login code without putting it on a command line.

``webbrowser.open(url)`` starts the browser with the URL in its arguments, and every local user
can read a process's arguments (``ps``, ``/proc/PID/cmdline``): another user could redeem the
code first. So the browser is given the address of a small page instead, written in a folder
only this user can enter (``0700``, the page itself ``0600``); the page sends the browser on to
the dashboard with the code. The page is removed as soon as the code is spent, or after
:data:`PAGE_SECONDS` if it never is, and when the server stops.
"""

from __future__ import annotations

import html
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

#: How long the page waits for the browser (a cold browser start can take a while).
PAGE_SECONDS = 120


def _private_parent() -> str | None:
    """``$XDG_RUNTIME_DIR`` when it is this user's private folder, else the system default."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        try:
            st = os.stat(runtime)
        except OSError:
            return None
        if st.st_uid == os.getuid() and not st.st_mode & 0o077:
            return runtime
    return None


def write_page(url: str) -> Path:
    """A page, readable by this user only, that sends the browser to ``url``."""
    folder = Path(tempfile.mkdtemp(prefix="memory-cli-open-", dir=_private_parent()))  # 0700
    page = folder / "open.html"
    target = html.escape(url, quote=True)
    text = (
        "<!doctype html><meta charset=utf-8><meta name=referrer content=no-referrer>"
        f"<meta http-equiv=refresh content='0;url={target}'>"
        "<title>memory-cli</title><p style='font-family:sans-serif'>Opening the memory-cli dashboard…</p>"
    )
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return page


def remove_page(page: Path) -> None:
    shutil.rmtree(page.parent, ignore_errors=True)


def open_browser(url: str, spent) -> Path:
    """Open ``url`` in the browser through a private page; ``spent()`` says when the code in it
    was used, which removes the page. Returns the page's path."""
    import webbrowser

    page = write_page(url)

    def tidy():
        until = time.monotonic() + PAGE_SECONDS
        while time.monotonic() < until and not spent():
            time.sleep(0.2)
        remove_page(page)

    threading.Thread(target=tidy, name="memory-cli-open-page", daemon=True).start()
    webbrowser.open(page.as_uri())
    return page
