"""``memory-cli hook <Event>``: read the event, run its handlers, answer; the gate fails closed.

Guarantees, in order of importance:
1. The gate (PreToolUse) fails closed: a call it could not check (a missing, locked, unreadable
   or corrupt store, a config file it cannot read, a malformed payload, a handler that raised,
   the hard deadline) is denied with one line saying what is wrong and the way back; a missing
   store is never recreated by it (see :mod:`.fail_closed`). Every other event fails open:
   any exception, a malformed payload, an unknown event or an unusable database ends in exit 0
   with no decision (the work goes on).
2. Failures are loud: recorded in the audit log (or, without a usable database, in
   ``hook-errors.log``), shown by ``memory-cli doctor``, and the person gets a one-line
   ``systemMessage``. Never a traceback on stderr.
3. A hard deadline: if the process is still running when it passes (a filesystem stall, a
   machine so loaded that the process is not scheduled), an alarm ends it with exit 0: the
   traceback goes to ``hook-errors.log`` (doctor counts it), and when no answer was begun the
   gate denies the call and any other event's person gets a one-line ``systemMessage``. Should
   the alarm not run (the interpreter stuck in C code holding the GIL), faulthandler's C-level
   watchdog ends the process ``WATCHDOG_GRACE_S`` later (exit 1: ``install`` registers the gate
   with ``onFailure: "block"``, so that blocks the call too). It is armed whatever exists on disk.
4. No wait for the write lock. The store is opened with ``write_wait = False``: every write
   transaction takes the lock only if it is free at once (reads in WAL never wait). What a
   hook must write and cannot (another process may hold the lock for seconds, e.g. a bulk
   change from the dashboard) goes to the spool (:mod:`memory_cli.store.spool`) and is written
   later by the next process that gets the lock; nothing is lost or written twice.
5. The answer first: handlers' audit rows wait until the answer is written and flushed, then
   go to the store in one transaction (or the spool); a process that got the lock then drains
   the spool for at most ``DRAIN_BUDGET_S``.
"""

from __future__ import annotations

import os
import sys
import time

from . import fail_closed, protocol

# Seconds after which the watchdog ends the process; below the timeouts `install` registers
# (5 s for the tool events). It bounds stalls (a filesystem that hangs), not slowness: a busy
# machine stretches a hook's wall time, and a deny that arrives before Claude Code's own
# timeout must not be thrown away by an earlier one of ours. Runaway regexes cannot happen in
# process (risky ones run in a child killed at the budget; see rules.safe_regex).
HARD_DEADLINE_S = {
    "PreToolUse": 4.5,
    "PostToolUse": 4.5,
    "PostToolUseFailure": 4.5,
    "PermissionDenied": 4.5,
    "UserPromptSubmit": 6.0,
    "SessionStart": 8.0,
    "Stop": 8.0,
    "PreCompact": 8.0,
    "SessionEnd": 1.2,
}
# The C-level watchdog's delay after the deadline's alarm: only for an interpreter that cannot
# run the alarm's handler (faulthandler exits 1).
WATCHDOG_GRACE_S = 0.5

# Whether this process began writing its answer: the deadline's alarm then adds nothing to it.
_answer = {"begun": False}

# Seconds a hook that got the write lock spends, after its answer, writing what earlier hooks
# spooled (the rest waits for the next process; maintenance, doctor and the CLI drain it all).
DRAIN_BUDGET_S = 0.25


def main(
    event: str,
    db_override: str | None = None,
    stdin=None,
    stdout=None,
    agent: str | None = None,
    config_override: str | None = None,
    own_process: bool | None = None,
) -> int:
    """Answer one hook call. ``agent`` names the coding agent calling (``claude`` when None);
    for another agent ``event`` is that agent's own event name (see :mod:`.agents`).
    ``db_override``/``config_override`` are what the installed command pins (see :mod:`.pinning`).
    ``own_process``: this call is the whole process (a hook started by the agent), so its hard
    deadline may end it; by default, when it answers on the process's own stdin and stdout. A
    caller that hands it streams (a test, an embedding program) keeps its process whatever the
    hook's clock says."""
    if own_process is None:
        own_process = stdin is None and stdout is None
    started = time.perf_counter()
    _answer.update(
        begun=False, audited=False, db=None, session_id=None, pending=None, agent=agent or "claude", native=event
    )
    agent = agent or "claude"
    native = event
    if agent != "claude":
        from .. import agent_calls

        event = agent_calls.event_for(agent, native) or native
    # an agent memory-cli does not know could not read a refusal: its calls are recorded, not decided
    gate = fail_closed.guards(event) and (agent == "claude" or agent in agent_calls.AGENTS)
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    debug = bool(os.environ.get("MEMORY_CLI_HOOK_DEBUG"))
    store = None
    errlog = None
    pending: list = []
    _answer["pending"] = pending  # what the deadline's alarm spools if it ends the process first
    try:
        from .. import settings as settings_mod
        from .pinning import resolve

        pin = resolve(event, db_override, config_override)
        if pin.skip:
            return 0  # MEMORY_CLI_DB="": a silent no-op (a pinned command still enforces its rules)
        db_override = pin.db or db_override
        _answer["db"] = db_override  # known before the payload when the command pins it
        errlog = _arm_watchdog(event, stdout) if own_process else None
        if _is_tty(stdin):
            sys.stderr.write("memory-cli hook: Claude Code sends the event JSON on stdin; nothing to do\n")
            return 0
        raw = _read(stdin)
        if pin.notice and pin.quiet:  # memory is off: the line saying what was ignored, nothing else
            _say(stdout, pin.notice, agent, native, event)
            return 0
        if pin.notice:
            earlier = os.environ.get("MEMORY_CLI_HOOK_NOTICE")
            os.environ["MEMORY_CLI_HOOK_NOTICE"] = f"{earlier}; {pin.notice}" if earlier else pin.notice
        settings = settings_mod.load()
        db_path = settings_mod.database_path(db_override, settings)
        _answer["db"] = db_path
        fail_closed.check_before_open(gate, db_path, settings)  # the gate: before anything is created
        try:
            payloads = _payloads(agent, native, event, raw)
        except protocol.HookInputError as e:
            store = _open_store_quietly(db_path)
            _record_error(store, event, "invalid_input", str(e), started, raw_payload=raw, agent=agent)
            if gate:  # a call the rules cannot check is decided, never let through
                _deny_unchecked(stdout, str(e), agent, native)
                return 0
            if event in protocol.EVENTS:  # an event from a newer Claude Code is skipped quietly
                _notice(
                    stdout,
                    event,
                    f"memory-cli: the {event} hook got a malformed payload "
                    f"({_first_line(str(e))[:160]}); nothing was checked or blocked; "
                    "run `memory-cli doctor`",
                )
            return 0
        if payloads and isinstance(payloads[0], dict):
            _answer["session_id"] = payloads[0].get("session_id")
        store = _open_store(db_path, gate)
        store.write_wait = False
        from ..files import cache_seal

        cache_seal.store = store  # the compiled-regex cache is trusted only as this store sealed it
        responses = [
            _run_handlers(event, payload, store, settings, started, debug, pending, agent) for payload in payloads
        ]
        if agent == "claude":
            rendered = responses[0].render(event)
        else:
            from . import agents

            response = agents.merge(responses) if len(responses) > 1 else responses[0]
            rendered = agents.render(agent, native, event, response)
        if rendered:
            from ..fastjson import dumps  # json.dumps without importing json (and re)

            _answer["begun"] = True
            stdout.write(dumps(rendered, ensure_ascii=False))
            stdout.flush()
        _flush_audit(store, pending)
        _answer["audited"] = True
        _drain(store, event)
        cache = sys.modules.get("memory_cli.files.regex_cache")
        if cache is not None:  # patterns this process compiled, kept for the next hook process
            cache.save()
        return 0
    except BrokenPipeError:
        return 0
    except BaseException as e:  # noqa: BLE001 - the gate denies, the rest fails open; KeyboardInterrupt too
        if debug:
            raise
        _on_fault(e, store, event, started, agent, stdout, gate)
        return 0
    finally:
        if pending:  # a handler failed after queueing rows: they are still written
            _flush_audit(store, pending)
        _disarm_watchdog(errlog)
        if store is not None:
            seal = sys.modules.get("memory_cli.files.cache_seal")
            if seal is not None and seal.store is store:
                seal.store = None
            store.close()


def _open_store(db_path, gate: bool):
    from ..store.db import Store

    if gate:  # reading the rules waits on no one: a held lock refuses the call at once
        return Store.open(db_path, busy_timeout_ms=fail_closed.GATE_BUSY_TIMEOUT_MS)
    # the other events fail open after a short wait, well inside their deadlines, rather than
    # hold the person's session for seconds on every hook
    return Store.open(db_path, busy_timeout_ms=fail_closed.HOOK_BUSY_TIMEOUT_MS)


def _on_fault(e: BaseException, store, event: str, started: float, agent: str, stdout, gate: bool) -> None:
    """memory-cli's own fault: the gate denies the call with the reason; any other event says
    it failed open. Either way it is recorded (audit log, spool or hook-errors.log)."""
    message = f"{type(e).__name__}: {e}".strip().rstrip(":")
    if isinstance(e, fail_closed.StoreGone) or (not gate and type(e).__name__ == "StoreReplaced"):
        # said to the person (and to the agent at SessionStart); the gate denies with it below
        _append_error_log(event, "store_gone", str(e))
        _say(stdout, str(e).removeprefix("memory-cli's "), agent, _answer.get("native") or event, event, context=True)
        return
    if gate:
        reason = fail_closed.reason_for(e, _answer.get("db"))
        _record_error(store, event, "gate_fault", reason, started, agent=agent, result="denied")
        _deny(stdout, agent, reason)
        return
    _record_error(store, event, "internal_error", message, started, agent=agent)
    _notice(
        stdout, event, f"memory-cli: the {event} hook failed open ({_first_line(message)}); run `memory-cli doctor`"
    )


def _payloads(agent: str, native: str, event: str, raw) -> list[dict]:
    """The checked Claude-shaped payloads of this call (several for a patch of several files)."""
    if agent == "claude":
        return [_shaped(protocol.parse(event, raw))]
    from .. import agent_calls

    if agent not in agent_calls.AGENTS:
        raise protocol.HookInputError(f"unknown agent {agent!r}: use one of {', '.join(agent_calls.AGENTS)}")
    if agent_calls.event_for(agent, native) is None:
        raise protocol.HookInputError(f"unknown {agent} hook event {native!r}")
    return [_shaped(protocol.check(event, p)) for p in agent_calls.translate(agent, event, protocol.load(raw))]


def _shaped(payload: dict) -> dict:
    """A shell call whose command is not a string (an argv array, a ``cmd`` field) read as the
    command line it runs (see :mod:`.shapes`); every other payload as it came."""
    ti = payload.get("tool_input")
    if isinstance(ti, dict) and payload.get("tool_name") == "Bash" and not isinstance(ti.get("command"), str):
        from .shapes import normalise

        return normalise(payload)
    return payload


def _run_handlers(event, payload, store, settings, started, debug, pending=None, agent=None):
    from .context import HookContext
    from .registry import HANDLERS, ONLY_FOR_TOOLS
    from .response import Response

    ctx = HookContext(event, payload, store, settings, started=started)
    ctx.pending_audit = pending
    ctx.client = agent
    response = Response()
    failed = []
    deferred = []
    specs = HANDLERS.get(event, [])
    if event == "UserPromptSubmit":  # the person's words: only from the agent that owns the session
        from .speaker import screened

        specs = screened(ctx, response, specs)
    tool = payload.get("tool_name")
    for spec in specs:
        only = ONLY_FOR_TOOLS.get(spec)
        if only is not None and tool not in only:
            continue
        module_name, _, func_name = spec.partition(":")
        try:
            # __import__ rather than importlib.import_module: importing importlib costs more.
            handler = getattr(__import__(module_name, fromlist=[func_name]), func_name)
            handler(ctx, response)
        except Exception as e:  # one broken handler must not stop the others, nor block
            if debug:
                raise
            if type(e).__name__ == "LockBusy":  # a write that waits for no one: done next time
                deferred.append(spec)
                continue
            failed.append(f"{spec}: {type(e).__name__}: {e}")
    notice = os.environ.get("MEMORY_CLI_HOOK_NOTICE")
    if notice:  # set by the plugin's launcher when it had something to say (its first use)
        response.notify("memory-cli: " + notice[:300])
    details = {"handler_errors": failed} if failed else None
    if deferred:
        details = dict(details or {}, deferred_by_write_lock=deferred)
    if getattr(settings, "problems", None):
        details = dict(details or {}, config_problems=settings.problems)
    if failed and fail_closed.guards(event):  # a check that did not run cannot let the call through
        first = failed[0].split(": ", 1)[-1]
        response.decide(
            "deny",
            fail_closed.refusal(f"part of memory-cli's gate failed ({first[:200]}): {fail_closed.DOCTOR}"),
        )
        response.notify(
            f"memory-cli: part of the {event} hook failed, so the call was refused; run `memory-cli doctor`"
        )
    elif failed:
        # A deliberate decision survives; a half-built context does not hide the failure.
        response.notify(f"memory-cli: part of the {event} hook failed open; run `memory-cli doctor`")
    ctx.audit(
        "hook_error" if failed else "hook",
        context=tool or payload.get("source"),
        result="error" if failed else (response.decision or "ok"),
        details=details,
        session_id=payload.get("session_id"),
        hook_event=event,
        elapsed_ms=(time.perf_counter() - started) * 1000.0,
    )
    return response


def _flush_audit(store, rows: list) -> None:
    """Write queued audit rows in one transaction if the write lock is free at once, else
    spool them (with the ids that keep them from being written twice)."""
    if not rows or store is None:
        return
    from ..audit import record
    from ..store.db import LockBusy

    todo = list(rows)
    rows.clear()
    try:
        with store.transaction(wait=False):
            for action, kw in todo:
                record(store, action, **kw)
        return
    except LockBusy:
        from ..store import spool
        from ..util import now_iso

        at = now_iso()
        try:
            spool.put(store.path, [spool.make("audit", {"action": a, "kw": kw}, at) for a, kw in todo])
        except spool.SpoolError as e:  # the lock was held and the spool cannot be written
            _append_error_log(todo[0][1].get("hook_event"), "audit", f"{len(todo)} audit row(s) lost: {e}")
    except Exception as e:  # not the lock: write what can be written, one row at a time
        from ..audit import record_safely

        lost = [(a, kw) for a, kw in todo if not record_safely(store, a, **kw)]
        for action, kw in lost:  # a failure the audit log could not take still leaves a record
            if action == "hook_error":
                _append_error_log(kw.get("hook_event"), "handler_error", kw.get("details"))
        if lost:
            _append_error_log(
                lost[0][1].get("hook_event"),
                "audit",
                f"{len(lost)} audit row(s) could not be written ({type(e).__name__}: {e})",
            )


def _drain(store, event: str) -> None:
    """Write what earlier hooks spooled, if the lock is free now; never raises, never waits."""
    if event == "SessionEnd" or not _spool_has_work(store):  # SessionEnd: the detached run drains
        return
    try:
        from ..store import spool

        spool.drain(store, wait=False, budget_s=DRAIN_BUDGET_S)
    except Exception as e:  # noqa: BLE001 - the answer is out; the spool stays for the next drain
        _append_error_log(event, "spool", f"the spool could not be drained ({type(e).__name__}: {e})")


def _spool_has_work(store) -> bool:
    """One directory listing, without importing the spool code (most hooks find it empty)."""
    from ..store.db import LEGACY_PENDING_SUFFIX, SPOOL_SUFFIX

    path = getattr(store, "path", None)
    if not path or path == ":memory:" or path.startswith("file:"):
        return False
    try:
        if os.listdir(path + SPOOL_SUFFIX):
            return True
    except OSError:
        pass
    return os.path.isfile(path + LEGACY_PENDING_SUFFIX)


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
        from ..store.db import Store

        return Store.open(db_path)
    except Exception:
        return None


def _record_error(
    store, event, kind, message, started, raw_payload: bytes | None = None, agent=None, result: str = "allowed"
) -> None:
    """Audit the failure; without a usable store, append to hook-errors.log for doctor."""
    elapsed = (time.perf_counter() - started) * 1000.0
    details = {"error": message}
    if raw_payload is not None:
        try:
            from ..privacy.redact import redact_cut

            # Redact first, cut after: a secret is never left half-visible by the cut.
            preview = redact_cut(raw_payload[:4096].decode("utf-8", errors="replace"), 300)
        except Exception:
            preview = "(preview withheld)"
        details["stdin_preview"] = preview
    kw = {
        "context": kind,
        "result": result,
        "details": details,
        "hook_event": event,
        "elapsed_ms": elapsed,
        "agent": agent,
    }
    db = _answer.get("db")
    try:  # at once if the write lock is free, else into the spool: never a wait
        from ..store import spool

        row = [spool.make("audit", {"action": "hook_error", "kw": kw})]
        if store is not None:
            spool.write(store, row)
            return
        if result == "denied" and isinstance(db, str) and os.path.isfile(db):  # a store it could not open
            spool.put(db, row)  # the gate's refusal, audited by the next process that opens it
            _append_error_log(event, kind, message)
            return
    except Exception:
        pass
    _append_error_log(event, kind, message)


def _append_error_log(event, kind, message) -> None:
    """hook-errors.log (0600): the record doctor shows when the audit log cannot take one."""
    try:
        from .. import paths
        from ..privacy.redact import clean
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
    _answer["begun"] = True
    try:
        import json

        stdout.write(json.dumps({"systemMessage": text}))
        stdout.flush()
    except Exception:
        pass


def _deny(stdout, agent: str, reason: str) -> None:
    """The gate's refusal for a fault of memory-cli's own, unless an answer was begun."""
    if _answer["begun"]:
        return
    _answer["begun"] = True
    try:
        stdout.write(fail_closed.answer(agent, reason))
        stdout.flush()
    except Exception:
        pass


def _deny_unchecked(stdout, why: str, agent: str = "claude", native: str = "PreToolUse") -> None:
    """A tool call no rule can check is denied, said in the calling agent's own words."""
    from ..fastjson import dumps
    from .response import Response

    reason = f"memory-cli refused this tool call: {why}, so the rules cannot check it"
    response = Response()
    response.decide("deny", reason)
    response.notify(reason)
    if agent == "claude":
        out = response.render("PreToolUse")
    else:
        from . import agents

        out = agents.render(agent, native, "PreToolUse", response)
    _answer["begun"] = True
    stdout.write(dumps(out, ensure_ascii=False))
    stdout.flush()


def _say(stdout, text: str, agent: str, native: str, event: str, context: bool = False) -> None:
    """One line for the person (and with ``context``, the same for the agent), in the calling
    agent's own words."""
    from ..fastjson import dumps
    from .response import Response

    response = Response()
    response.notify("memory-cli: " + text)
    if context:
        response.add_context("memory-cli: " + text)
    if agent == "claude":
        out = response.render(event)
    else:
        from . import agents

        out = agents.render(agent, native, event, response)
    if out:
        stdout.write(dumps(out, ensure_ascii=False))
        stdout.flush()


def _first_line(text: str) -> str:
    return (text.splitlines() or [""])[0][:300]


def _arm_watchdog(event: str, stdout=None):
    """At the deadline, an alarm (SIGALRM: it interrupts a blocked read or lock wait) ends the
    process with exit 0; faulthandler's watchdog, a C thread that fires even while the GIL is
    held, is the last resort a moment later."""
    import faulthandler

    f = None
    try:
        from .. import paths

        log = paths.error_log_file()
        os.makedirs(os.path.dirname(log), mode=0o700, exist_ok=True)
        # 0600 whatever the umask: a traceback can quote what the hook was handling
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o600)
        f = os.fdopen(fd, "a", encoding="utf-8")
    except Exception:
        f = None
    if f is None:  # the deadline does not depend on a place to write the traceback
        try:
            f = open(os.devnull, "w")
        except Exception:
            f = sys.__stderr__
    deadline = HARD_DEADLINE_S.get(event, 5.0)
    grace = WATCHDOG_GRACE_S if _arm_alarm(event, deadline, f, stdout) else 0.0
    try:
        faulthandler.dump_traceback_later(deadline + grace, exit=True, file=f)
    except Exception:
        pass
    return f


def _arm_alarm(event: str, deadline: float, log, stdout) -> bool:
    """The deadline as SIGALRM (main thread, POSIX only); False where it cannot be set."""
    import _signal as signal  # not signal.py: it imports enum (~10 ms on the hook path)

    if not hasattr(signal, "setitimer"):
        return False

    def at_deadline(_signum, frame):
        import faulthandler

        gate = fail_closed.guards(event)
        try:
            log.write(
                f"Timeout ({deadline:g} s)! the {event} hook ran past its hard deadline and ended "
                + ("with exit 0 (the call was denied)\n" if gate else "with exit 0 (the call proceeds)\n")
            )
            log.flush()
            faulthandler.dump_traceback(file=log, all_threads=False)
            log.flush()
        except Exception:
            pass
        if gate and stdout is not None:
            _deny(
                stdout,
                _answer.get("agent") or "claude",
                f"memory-cli's gate ran past its {deadline:g} s deadline (a busy or stalled machine), so "
                f"this call could not be checked: {fail_closed.DOCTOR}",
            )
        elif not _answer["begun"] and stdout is not None:
            _notice(
                stdout,
                event,
                f"memory-cli: the {event} hook ran past its {deadline:g} s deadline (a busy or stalled "
                "machine); nothing was checked or blocked; run `memory-cli doctor`",
            )
        _spool_at_deadline(event, deadline, log)
        os._exit(0)

    try:
        _answer["previous"] = signal.signal(signal.SIGALRM, at_deadline)
        signal.setitimer(signal.ITIMER_REAL, deadline)
    except (ValueError, OSError):  # not the main thread: faulthandler alone
        return False
    _answer["alarm"] = True
    return True


def _spool_at_deadline(event: str, deadline: float, log=None) -> None:
    """The audit rows of a hook its deadline ends: what it had queued, and a ``hook`` row with
    result ``deadline`` unless its own row was queued, as one spool file (a single file write, no
    lock), so the audit log says the hook ran and was cut short rather than nothing at all."""
    db = _answer.get("db")
    if not db or _answer.get("audited"):
        return
    try:
        rows = list(_answer.get("pending") or [])
        if not any(action in ("hook", "hook_error") for action, _kw in rows):
            rows.append(
                (
                    "hook",
                    {
                        "result": "deadline",
                        "details": {"deadline_s": deadline},
                        "session_id": _answer.get("session_id"),
                        "hook_event": event,
                        "elapsed_ms": deadline * 1000.0,
                        "agent": _answer.get("agent"),
                    },
                )
            )
        from ..store import spool

        spool.put(db, [spool.make("audit", {"action": a, "kw": kw}) for a, kw in rows])
        return
    except Exception as e:  # noqa: BLE001 - e.g. the alarm came while a module was being imported
        first = e
    try:  # the deadline's row alone, written with what this module holds (os, time)
        _spool_deadline_row(db, event, deadline)
    except Exception as e:  # noqa: BLE001 - the process ends now either way: said in the log
        try:
            log.write(
                f"the {event} hook's audit row was lost at its deadline ({type(first).__name__}: {first};"
                f" {type(e).__name__}: {e})\n"
            )
            log.flush()
        except Exception:
            pass


# The spool folder's suffix (db.SPOOL_SUFFIX), here so that the deadline's row can be written
# while the alarm has interrupted an import of db itself; a test holds the two equal.
SPOOL_SUFFIX = ".spool"


def _json_text(value) -> str:
    if value is None:
        return "null"
    text = "".join(c if c >= " " else " " for c in str(value)[:200])
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _spool_deadline_row(db: str, event: str, deadline: float) -> None:
    """One spool file holding the ``hook`` row of a hook its deadline ended, in the spool's own
    format (see :mod:`memory_cli.store.spool`), with no import at all."""
    where = db + SPOOL_SUFFIX
    os.makedirs(where, mode=0o700, exist_ok=True)
    t = time.time()
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int((t % 1) * 1_000_000):06d}Z"
    h = os.urandom(16).hex()
    aid = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"
    kw = (
        f'{{"result":"deadline","details":{{"deadline_s":{deadline!r}}},"session_id":'
        f'{_json_text(_answer.get("session_id"))},"hook_event":{_json_text(event)},'
        f'"elapsed_ms":{deadline * 1000.0!r},"agent":{_json_text(_answer.get("agent"))}}}'
    )
    line = f'{{"id":"{aid}","kind":"audit","at":"{at}","args":{{"action":"hook","kw":{kw}}}}}\n'
    name = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(4).hex()}.jsonl"
    tmp = os.path.join(where, ".tmp-" + name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, line.encode("utf-8", errors="replace"))
    finally:
        os.close(fd)
    os.rename(tmp, os.path.join(where, name))


def _disarm_watchdog(f) -> None:
    if f is None:
        return
    try:
        import faulthandler

        faulthandler.cancel_dump_traceback_later()
        if _answer.pop("alarm", False):
            import _signal as signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, _answer.pop("previous", None) or signal.SIG_DFL)
        if f is not sys.__stderr__:
            f.close()
    except Exception:
        pass
