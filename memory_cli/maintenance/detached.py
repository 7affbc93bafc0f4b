"""Daily maintenance in a detached process: SessionEnd (and SessionStart) return at once.

Claude Code gives SessionEnd 1.5 s in all, and SessionStart sits in front of the person's first
prompt, so neither may wait for decay, a backup or audit-log pruning. They call
:func:`spawn_maintenance`, which costs a file read when maintenance already ran today, and
otherwise a non-blocking lock plus one ``fork``/``exec``.

Never lingering, never piling up:

* ``run/maintenance-<db key>.lock`` is locked (non-blocking) by the spawner and the locked
  descriptor is handed to the child, which holds it until it exits. While it runs, every other
  spawner sees the lock held and returns without spawning; the kernel drops the lock when the
  child dies, whatever way it dies.
* ``run/maintenance-<db key>.stamp`` holds the UTC date of the last completed run; it is
  checked before and again after taking the lock, so maintenance runs at most once a day.
* The child runs in its own session with stdin on /dev/null and output in
  ``run/maintenance-<db key>.log`` (never the hook's pipes, which Claude Code waits on), and has an
  overall time limit after which it exits.

Standard library only at import time; tasks import what they need when they run.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from memory_cli.store.locks import open_lock_file, try_lock_fd

LOG_MAX_BYTES = 256 * 1024
DEFAULT_TIME_LIMIT_S = 120
HARD_KILL_GRACE_S = 10
CHILD_MODULE = "memory_cli.maintenance.detached"

SPAWNED = "spawned"
SPAWNED_SUMMARIES = "spawned-summaries"  # only the session-summary step: the daily part ran today
RAN_TODAY = "ran-today"
BUSY = "busy"

TYPE_CHECKING = False  # typing costs ~15 ms to import; SessionStart/SessionEnd import this module
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Task = tuple[str, Callable[[], object]]


class MaintenanceTimeout(BaseException):
    """The child's overall time limit passed (BaseException: tasks must not swallow it)."""


def db_key(db_path: Path | str) -> str:
    """Lock and stamp are per database: a second store (``--db``) gets its own daily run.

    FNV-1a over the absolute path: stable across processes (unlike ``hash()``) and free of the
    ~3 ms ``hashlib`` import on the SessionStart/SessionEnd path.
    """
    h = 0xCBF29CE484222325
    for byte in os.path.abspath(os.fspath(db_path)).encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"[:10]


def stamp_path(run_dir: Path, key: str) -> Path:
    return Path(run_dir) / f"maintenance-{key}.stamp"


def lock_path(run_dir: Path, key: str) -> Path:
    return Path(run_dir) / f"maintenance-{key}.lock"


def log_path(run_dir: Path, key: str) -> Path:
    """Per store, like the lock and the stamp: stores sharing a Claude directory (``--db``)
    share its run directory, and ``maintenance status`` must show only its own store's runs."""
    return Path(run_dir) / f"maintenance-{key}.log"


def _run_dir(run_dir: Path | None) -> Path:
    if run_dir is not None:
        return Path(run_dir)
    from memory_cli.paths import run_dir as default_run_dir

    return default_run_dir()


def _today(now: datetime | None) -> str:
    now = now or datetime.now(timezone.utc)
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    return now.astimezone(timezone.utc).date().isoformat()


def ran_today(run_dir: Path, key: str, now: datetime | None = None) -> bool:
    """True when a maintenance run for this database completed on today's UTC date."""
    try:
        with open(stamp_path(run_dir, key), encoding="ascii") as fh:
            return fh.read(10) == _today(now)
    except (OSError, ValueError):
        return False


def last_run(run_dir: Path, key: str) -> str | None:
    try:
        return stamp_path(run_dir, key).read_text(encoding="ascii").split()[1]
    except (OSError, ValueError, IndexError):
        return None


def write_stamp(run_dir: Path, key: str, now: datetime | None = None) -> None:
    now = now or datetime.now(timezone.utc)
    path = stamp_path(run_dir, key)
    from ..files.safe_write import write_file

    write_file(path, f"{_today(now)} {now.isoformat()}\n", new_mode=0o600)


def _ensure_run_dir(run_dir: Path) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(run_dir, 0o700)
    except OSError:  # pragma: no cover
        pass


def _open_log(run_dir: Path, key: str) -> int:
    path = log_path(run_dir, key)
    try:
        if path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except FileNotFoundError:
        pass
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)


def spawn_maintenance(
    db_path: Path | str,
    *,
    run_dir: Path | None = None,
    now: datetime | None = None,
    force: bool = False,
    time_limit: float = DEFAULT_TIME_LIMIT_S,
    python: str | None = None,
    session_summaries: bool = False,
    daily: bool = True,
) -> str:
    """Start the daily maintenance run of ``db_path`` in the background, unless it ran today
    or is running. With ``session_summaries`` a run that already happened today still starts a
    child for the session-summary step alone (SPAWNED_SUMMARIES).

    Returns SPAWNED, SPAWNED_SUMMARIES, RAN_TODAY or BUSY at once; never waits for the run.
    Raises only OSError (the hook adapter fails open on it).
    """
    rd = _run_dir(run_dir)
    key = db_key(db_path)

    def due() -> bool:
        return daily and (force or not ran_today(rd, key, now))

    if not due() and not session_summaries:
        return RAN_TODAY
    _ensure_run_dir(rd)
    fd = open_lock_file(lock_path(rd, key))
    try:
        if not try_lock_fd(fd):
            return BUSY
        full = due()  # a run may have finished between our check and the lock
        if not full and not session_summaries:
            return RAN_TODAY
        import subprocess

        from memory_cli.interpreter_paths import child_env

        log_fd = _open_log(rd, key)
        try:
            args = [
                python or sys.executable,
                "-m",
                CHILD_MODULE,
                "--db",
                os.path.abspath(os.fspath(db_path)),
                "--lock-fd",
                str(fd),
                "--run-dir",
                str(rd),
                "--time-limit",
                f"{time_limit:g}",
            ]
            if force:
                args.append("--force")
            if not full:
                args += ["--only", "summaries"]
            subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=log_fd,
                stderr=log_fd,
                pass_fds=(fd,),
                close_fds=True,
                start_new_session=True,
                env=child_env(),
                cwd=str(rd),
            )
        finally:
            os.close(log_fd)
        return SPAWNED if full else SPAWNED_SUMMARIES
    finally:
        os.close(fd)  # the child's inherited copy keeps the lock


def _log(msg: str) -> None:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print(f"{stamp} pid={os.getpid()} {msg}", flush=True)


def _arm_time_limit(seconds: float):
    """Raise MaintenanceTimeout in the main thread after ``seconds``; returns a disarm function."""
    import signal

    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - Windows: rely on the tasks' own limits
        return lambda: None

    def on_alarm(signum, frame):  # first alarm: unwind cleanly; second: leave regardless
        signal.signal(signal.SIGALRM, lambda *_: os._exit(124))
        signal.alarm(HARD_KILL_GRACE_S)
        raise MaintenanceTimeout(f"time limit of {seconds:g}s reached")

    try:
        previous = signal.signal(signal.SIGALRM, on_alarm)
    except ValueError:  # not the main thread: no alarm available
        return lambda: None
    signal.alarm(max(1, int(seconds)))

    def disarm():
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

    return disarm


def run_maintenance(
    tasks: Sequence[Task],
    db_path: Path | str,
    *,
    run_dir: Path | None = None,
    lock_fd: int | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT_S,
    force: bool = False,
    now: datetime | None = None,
    stamp: bool = True,
) -> int:
    """Run ``tasks`` once under the maintenance lock; each task's failure is logged, not fatal.

    Returns a process exit status: 0 after a run (or when there was nothing to do), 124 when
    the time limit cut it short, 75 (EX_TEMPFAIL) when another run holds the lock.
    """
    rd = _run_dir(run_dir)
    key = db_key(db_path)
    _ensure_run_dir(rd)
    fd = lock_fd if lock_fd is not None else open_lock_file(lock_path(rd, key))
    try:
        if not try_lock_fd(fd):
            _log("another maintenance run holds the lock; exiting")
            return 75
        if not force and ran_today(rd, key, now):
            _log("maintenance already ran today; exiting")
            return 0
        disarm = _arm_time_limit(time_limit)
        _log(f"maintenance run start for {os.fspath(db_path)}")
        try:
            failed = []
            for name, task in tasks:
                started = time.monotonic()
                try:
                    result = task()
                    _log(f"task {name} ok in {time.monotonic() - started:.2f}s: {result}")
                except Exception as err:  # one failing task must not stop the others
                    failed.append(name)
                    _log(f"task {name} failed: {type(err).__name__}: {err}")
            if failed:
                # No "ran today" stamp: the next session end tries again (every task is idempotent).
                _log(f"maintenance run done; failed: {', '.join(failed)}")
                return 1
            if stamp:
                write_stamp(rd, key, now)
            _log("maintenance run done")
            return 0
        except MaintenanceTimeout as err:
            _log(f"maintenance run stopped: {err}")
            return 124
        finally:
            disarm()
    finally:
        os.close(fd)  # releases the lock (the spawner's copy was closed already)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m " + CHILD_MODULE)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--lock-fd", type=int, default=None)
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT_S)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--only", choices=["summaries"], default=None)
    args = parser.parse_args(argv)
    from memory_cli.maintenance.tasks import default_tasks, summary_tasks

    if args.only == "summaries":  # not the daily run: no "ran today" stamp
        return run_maintenance(
            summary_tasks(args.db),
            args.db,
            run_dir=args.run_dir,
            lock_fd=args.lock_fd,
            time_limit=args.time_limit,
            force=True,
            stamp=False,
        )
    return run_maintenance(
        default_tasks(args.db),
        args.db,
        run_dir=args.run_dir,
        lock_fd=args.lock_fd,
        time_limit=args.time_limit,
        force=args.force,
    )


if __name__ == "__main__":
    sys.exit(main())
