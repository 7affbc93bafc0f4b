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
it. Any other command given to the launcher runs the full CLI. Finding the modules without
``site`` is :mod:`memory_cli.interpreter_paths`'s (``memory-cli install`` shares it).
"""

import sys

from memory_cli.interpreter_paths import apsw_importable, prepare


def main(argv: list, here: str) -> None:
    """Run ``[--path DIR]... [--db PATH] hook EVENT`` (or any other command) from ``here``,
    the package folder of the launcher script. ``--probe`` (after the paths) prints how the
    start went, for ``memory-cli doctor``."""
    argv = prepare(argv, here)
    fell_back = False
    if not apsw_importable():
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
