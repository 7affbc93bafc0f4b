"""Where a hook interpreter started without ``site`` finds its modules.

The lean launcher (``memory_cli/fasthook.py``, run as ``<python> -I -S``) skips ``site`` to save
milliseconds on every tool call, so it must put on ``sys.path`` by itself what ``site`` would
have: the folder holding this package, each ``--path`` folder given on the command line, and
the environment's own site-packages. ``memory-cli install`` asks the same questions when it
writes that command line (which folders the launcher finds alone, which it must be given).

Standard library only, imported lazily: this runs before anything else in a hook process.
"""

import sys

# The ``--path`` folders this process was started with (see :func:`prepare`), for its children.
_given: list = []


def site_packages(prefix: str) -> str:
    """The environment's own site-packages, computed as ``site`` would, without importing it."""
    import os

    if os.name == "nt":
        return os.path.join(prefix, "Lib", "site-packages")
    v = sys.version_info
    return os.path.join(prefix, "lib", f"python{v[0]}.{v[1]}", "site-packages")


def env_prefix() -> str:
    """The environment this interpreter belongs to. Without ``site`` (``-S``), ``sys.prefix`` is
    the base installation's even inside a virtualenv (``site`` is what switches it), so look for
    the virtualenv's ``pyvenv.cfg`` beside the interpreter's folder, as ``site`` does."""
    import os

    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    for candidate in (os.path.dirname(exe_dir), exe_dir):  # bin/.. (POSIX), Scripts/.. or the folder (Windows)
        if os.path.isfile(os.path.join(candidate, "pyvenv.cfg")):
            return candidate
    return sys.prefix


def prepare(argv: list, here: str) -> list:
    """Set ``sys.path`` from our own location and the ``--path`` options; return the rest."""
    import os

    if sys.path and sys.path[0] and os.path.abspath(sys.path[0]) == here:
        del sys.path[0]  # started without -I: never let our modules shadow the stdlib
    wanted = [os.path.dirname(here)]
    while len(argv) >= 2 and argv[0] == "--path":
        wanted.append(argv[1])
        _given.append(argv[1])
        argv = argv[2:]
    wanted.append(site_packages(env_prefix()))
    for p in wanted:
        if p not in sys.path:
            sys.path.append(p)
    return argv


def apsw_importable() -> bool:
    try:
        import apsw  # noqa: F401
    except ImportError:
        return False
    return True


def child_env(env=None) -> dict:
    """The environment of a process memory-cli starts as ``<python> -m memory_cli...`` (the
    detached maintenance, the team sync, the daemon): this package's folder and the ``--path``
    folders this process was given go before anything on ``PYTHONPATH``, so the child runs the
    code its parent ran (the installed copy the hooks run), not another copy ``site`` finds
    first, such as an editable install of the same environment."""
    import os

    out = dict(os.environ if env is None else env)
    mine = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *_given]
    out["PYTHONPATH"] = os.pathsep.join(p for p in (*mine, out.get("PYTHONPATH")) if p)
    return out
