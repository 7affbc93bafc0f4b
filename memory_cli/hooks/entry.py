"""The lean start of a hook process, behind the launcher script ``memory_cli/fasthook.py``.

``memory-cli install`` registers, with absolute paths::

    <python> -I -S <package>/memory_cli/fasthook.py [--path DIR]... [--db PATH] [--config PATH] hook [--agent NAME] <Event>

Claude Code starts a fresh process for every tool call, so start-up is most of a hook's cost.
Started this way the interpreter skips what a console script pays for on every call:
``site`` (scanning site-packages, running ``.pth`` files and ``sitecustomize``: ~4 ms) and
environment variables that could redirect or slow it (``-I``: no ``PYTHONPATH``, no user
site-packages, no script directory on ``sys.path``, and bytecode is written even under
``PYTHONDONTWRITEBYTECODE``). ``sys.path`` gets exactly what a hook needs: the folder holding
this package, each ``--path`` folder (where ``apsw`` is installed, when elsewhere) and the
environment's own site-packages. Then the same hook runner as ``memory-cli hook`` runs, and
the process ends without interpreter teardown (``os._exit`` after flushing its output; the
store is already closed and every write committed), which saves a few more ms.

Fail-safe: when ``apsw`` is still not importable (a moved virtualenv, a changed Python, a
package reached only through a ``.pth`` file), ``site`` runs after all and the import is
retried, so a stale command line costs speed, never function; ``memory-cli doctor`` reports
it. Any other command given to the launcher runs the full CLI.
"""

import sys


def _site_packages(prefix: str) -> str:
    """The environment's own site-packages, computed as ``site`` would, without importing it."""
    import os

    if os.name == "nt":
        return os.path.join(prefix, "Lib", "site-packages")
    v = sys.version_info
    return os.path.join(prefix, "lib", f"python{v[0]}.{v[1]}", "site-packages")


def _env_prefix() -> str:
    """The environment this interpreter belongs to. Without ``site`` (``-S``), ``sys.prefix`` is
    the base installation's even inside a virtualenv (``site`` is what switches it), so look for
    the virtualenv's ``pyvenv.cfg`` beside the interpreter's folder, as ``site`` does."""
    import os

    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    for candidate in (os.path.dirname(exe_dir), exe_dir):  # bin/.. (POSIX), Scripts/.. or the folder (Windows)
        if os.path.isfile(os.path.join(candidate, "pyvenv.cfg")):
            return candidate
    return sys.prefix


def _prepare(argv: list, here: str) -> list:
    """Set ``sys.path`` from our own location and the ``--path`` options; return the rest."""
    import os

    if sys.path and sys.path[0] and os.path.abspath(sys.path[0]) == here:
        del sys.path[0]  # started without -I: never let our modules shadow the stdlib
    wanted = [os.path.dirname(here)]
    while len(argv) >= 2 and argv[0] == "--path":
        wanted.append(argv[1])
        argv = argv[2:]
    wanted.append(_site_packages(_env_prefix()))
    for p in wanted:
        if p not in sys.path:
            sys.path.append(p)
    return argv


def _apsw_importable() -> bool:
    try:
        import apsw  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list, here: str) -> None:
    """Run ``[--path DIR]... [--db PATH] hook EVENT`` (or any other command) from ``here``,
    the package folder of the launcher script. ``--probe`` (after the paths) prints how the
    start went, for ``memory-cli doctor``."""
    argv = _prepare(argv, here)
    fell_back = False
    if not _apsw_importable():
        import site  # the slow way: every site-packages folder and .pth file

        site.main()
        fell_back = True
    if argv[:1] == ["--probe"]:
        _probe(here, fell_back)
        return
    from memory_cli.__main__ import hook_call
    from memory_cli.__main__ import main as dispatch

    hook = hook_call(argv)
    if hook is None:  # any other command works too, at the full CLI's speed
        sys.exit(dispatch(argv))
    from memory_cli.hooks.runner import main as run_hook

    event, db, agent, config = hook
    code = run_hook(event, db, agent=agent, config_override=config)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed pipe: Claude Code has gone, nothing left to tell it
            pass
    import os

    os._exit(code or 0)


def _probe(here: str, fell_back: bool) -> None:
    from memory_cli.fastjson import dumps

    try:
        import apsw

        apsw_file = apsw.__file__
    except ImportError:
        apsw_file = None
    sys.stdout.write(
        dumps(
            {
                "package": here,
                "apsw": apsw_file,
                "site_fallback": fell_back,
                "python": sys.executable,
                "isolated": bool(sys.flags.isolated),
                "no_site": bool(sys.flags.no_site),
            }
        )
        + "\n"
    )
