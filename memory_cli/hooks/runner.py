"""``memory-cli hook <Event>``: read the event, run its handlers, answer, and fail open.

Guarantees, in order of importance:
1. Nothing but a rule's deliberate decision blocks. Any exception, a malformed payload, an
   unknown event or an unusable database ends in exit 0 with no decision (the call proceeds).
2. Failures are loud: recorded in the audit log (or, without a usable database, in
   ``hook-errors.log``), shown by ``memory-cli doctor``, and the person gets a one-line
   ``systemMessage``. Never a traceback on stderr.
3. A hard deadline: if the process is still running when it passes (a runaway regex, a
   filesystem stall), a C-level watchdog ends it with exit 1, which Claude Code treats as a
   non-blocking error: the call proceeds and the person sees a hook-error notice.
"""

from __future__ import annotations

import os
import sys
import time

from . import protocol

# Seconds after which the watchdog ends the process; below the timeouts `install` registers.
HARD_DEADLINE_S = {"PreToolUse": 3.0, "PostToolUse": 3.0, "PostToolUseFailure": 3.0,
                   "UserPromptSubmit": 6.0, "SessionStart": 8.0, "Stop": 8.0,
                   "PreCompact": 8.0, "SessionEnd": 1.2}


def main(event: str, db_override: str | None = None, stdin=None, stdout=None) -> int:
    started = time.perf_counter()
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    debug = bool(os.environ.get("MEMORY_CLI_HOOK_DEBUG"))
    store = None
    errlog = None
    try:
        from .. import settings as settings_mod

        if settings_mod.memory_disabled(db_override):
            return 0  # MEMORY_CLI_DB="": a silent no-op that allows everything
        errlog = _arm_watchdog(event)
        if _is_tty(stdin):
            sys.stderr.write("memory-cli hook: Claude Code sends the event JSON on stdin; nothing to do\n")
            return 0
        raw = _read(stdin)
        settings = settings_mod.load()
        db_path = settings_mod.database_path(db_override, settings)
        try:
            payload = protocol.parse(event, raw)
        except protocol.HookInputError as e:
            store = _open_store_quietly(db_path)
            _record_error(store, event, "invalid_input", str(e), started, raw_payload=raw)
            return 0
        from ..db import Store

        store = Store.open(db_path)
        response = _run_handlers(event, payload, store, settings, started, debug)
        rendered = response.render(event)
        if rendered:
            import json

            stdout.write(json.dumps(rendered, ensure_ascii=False))
            stdout.flush()
        return 0
    except BrokenPipeError:
        return 0
    except BaseException as e:  # noqa: BLE001 - fail open on everything, KeyboardInterrupt too
        if debug:
            raise
        message = f"{type(e).__name__}: {e}".strip().rstrip(":")
        _record_error(store, event, "internal_error", message, started)
        _notice(stdout, event, f"memory-cli: the {event} hook failed open ({_first_line(message)}); "
                               "run `memory-cli doctor`")
        return 0
    finally:
        _disarm_watchdog(errlog)
        if store is not None:
            store.close()


def _run_handlers(event, payload, store, settings, started, debug):
    from importlib import import_module

    from ..audit import record_safely
    from .context import HookContext
    from .registry import HANDLERS
    from .response import Response

    ctx = HookContext(event, payload, store, settings, started=started)
    response = Response()
    failed = []
    for spec in HANDLERS.get(event, []):
        module_name, _, func_name = spec.partition(":")
        try:
            handler = getattr(import_module(module_name), func_name)
            handler(ctx, response)
        except Exception as e:  # one broken handler must not stop the others, nor block
            if debug:
                raise
            failed.append(f"{spec}: {type(e).__name__}: {e}")
    tool = payload.get("tool_name")
    details = {"handler_errors": failed} if failed else None
    if getattr(settings, "problems", None):
        details = dict(details or {}, config_problems=settings.problems)
    if failed:
        # A deliberate decision survives; a half-built context does not hide the failure.
        response.notify(f"memory-cli: part of the {event} hook failed open; run `memory-cli doctor`")
    recorded = record_safely(store, "hook_error" if failed else "hook", context=tool or payload.get("source"),
                             result="error" if failed else (response.decision or "ok"), details=details,
                             session_id=payload.get("session_id"), hook_event=event,
                             elapsed_ms=(time.perf_counter() - started) * 1000.0)
    if failed and not recorded:
        _append_error_log(event, "handler_error", "; ".join(failed))
    return response


def _read(stdin) -> bytes:
    buf = getattr(stdin, "buffer", None)
    if buf is not None:
        return buf.read()
    data = stdin.read()
    return data.encode("utf-8", errors="replace") if isinstance(data, str) else data


def _is_tty(stdin) -> bool:
    try:
        return stdin.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _open_store_quietly(db_path):
    try:
        from ..db import Store

        return Store.open(db_path)
    except Exception:
        return None


def _record_error(store, event, kind, message, started, raw_payload: bytes | None = None) -> None:
    """Audit the failure; without a usable store, append to hook-errors.log for doctor."""
    elapsed = (time.perf_counter() - started) * 1000.0
    details = {"error": message}
    if raw_payload is not None:
        try:
            from ..redact import redact_cut

            # Redact first, cut after: a secret is never left half-visible by the cut.
            preview = redact_cut(raw_payload[:4096].decode("utf-8", errors="replace"), 300)
        except Exception:
            preview = "(preview withheld)"
        details["stdin_preview"] = preview
    from ..audit import record_safely

    if record_safely(store, "hook_error", context=kind, result="allowed", details=details,
                     hook_event=event, elapsed_ms=elapsed):
        return
    _append_error_log(event, kind, message)


def _append_error_log(event, kind, message) -> None:
    """hook-errors.log (0600): the record doctor shows when the audit log cannot take one."""
    try:
        from .. import paths
        from ..redact import clean
        from ..util import now_iso

        log = paths.error_log_file()
        paths.ensure_private_dir(os.path.dirname(log))
        try:
            if os.path.getsize(log) > 1_000_000:  # bounded: keep one previous generation
                os.replace(log, log + ".1")
        except OSError:
            pass
        # Redact the whole message first, cut after.
        line = f"{clean(str(event), 100)}\t{kind}\t{_first_line(clean(str(message), 4000))}"
        line = " ".join(line.split("\n"))
        with paths.open_private(log, "a") as f:
            f.write(f"{now_iso()}\t{line}\n")
    except Exception:
        pass


def _notice(stdout, event, text) -> None:
    if event == "SessionEnd":
        return
    try:
        import json

        stdout.write(json.dumps({"systemMessage": text}))
        stdout.flush()
    except Exception:
        pass


def _first_line(text: str) -> str:
    return (text.splitlines() or [""])[0][:300]


def _arm_watchdog(event: str):
    """faulthandler's watchdog is a C thread: it fires even while a regex holds the GIL."""
    try:
        import faulthandler

        from .. import paths

        log = paths.error_log_file()
        if not os.path.isdir(os.path.dirname(log)):
            return None
        f = open(log, "a", encoding="utf-8")
        f.write("")
        faulthandler.dump_traceback_later(HARD_DEADLINE_S.get(event, 5.0), exit=True, file=f)
        return f
    except Exception:
        return None


def _disarm_watchdog(f) -> None:
    if f is None:
        return
    try:
        import faulthandler

        faulthandler.cancel_dump_traceback_later()
        f.close()
    except Exception:
        pass
