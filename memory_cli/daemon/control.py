"""Starting, stopping and inspecting the embedding daemon from outside it.

Used by ``memory-cli daemon start|stop|status``, ``reindex`` and the SessionStart hook, so it is
kept lean (no threads, no model): the daemon process itself lives in :mod:`.server`.

Why it is built this way:

* **One per user, by a lock.** ``daemon.lock`` in the private run directory is held with
  ``flock`` for the daemon's whole life. :func:`start` takes the lock *before* it spawns, hands
  the locked descriptor to the daemon, and spawns nothing when the lock is taken; so twenty
  sessions starting at once spawn one daemon, not twenty that race. The kernel drops an flock
  when its holder dies, even by ``kill -9``, so the lock itself never goes stale; whoever takes
  it next knows any socket or pid file lying around is debris and removes it.
* **Start returns at once.** The daemon is double-forked into its own session (no zombie, no
  controlling terminal, re-parented to init), its output goes to ``daemon.log``, and it binds
  its socket before loading the model.
* **Stop leaves nothing behind**: ask politely, then SIGTERM, then SIGKILL, then remove debris.
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import sys
import time

from . import client, protocol

LOG_MAX_BYTES = 1_000_000


def ensure_private_dir(path: str) -> str:
    """Create ``path`` (mode 0700) and refuse it when another user owns it."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.getuid():
        raise PermissionError(f"{path} is not a directory owned by this user")
    if st.st_mode & 0o777 != 0o700:
        os.chmod(path, 0o700)
    return path


def _rundir(rundir: str | None) -> str:
    return os.path.abspath(rundir or protocol.run_dir())


def _try_lock(rundir: str) -> int | None:
    """The lock file's descriptor, locked exclusively, or None when someone holds it."""
    fd = os.open(protocol.lock_path(rundir), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return None
        raise
    return fd


def _try_lock_after_crash(rundir: str, grace_s: float = 2.0) -> int | None:
    """Like :func:`_try_lock`, but when the recorded daemon is already dead, wait briefly:
    a process killed a moment ago still holds its lock until its last thread is gone."""
    fd = _try_lock(rundir)
    if fd is not None:
        return fd
    pid = read_pid(rundir)
    if pid is None or pid_alive(pid):
        return None  # a daemon runs, or one is starting (pid file not written yet)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        time.sleep(0.02)
        fd = _try_lock(rundir)
        if fd is not None:
            return fd
    return None


def lock_held(rundir: str | None = None) -> bool:
    """Whether a daemon (running or starting) holds the lock. Briefly takes it when free."""
    rd = _rundir(rundir)
    if not os.path.exists(protocol.lock_path(rd)):
        return False
    fd = _try_lock(rd)
    if fd is None:
        return True
    os.close(fd)
    return False


def read_pid(rundir: str | None = None) -> int | None:
    try:
        with open(protocol.pid_path(_rundir(rundir)), encoding="ascii") as f:
            return int(f.readline().strip())
    except (OSError, ValueError):
        return None


def pid_alive(pid: int | None) -> bool:
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by a container's init) is not alive; but a killed
    # multi-threaded process shows its main thread as a zombie while other threads are still
    # exiting and its files (socket, lock) are still open, so look at every thread.
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        # Gone since kill(0) (Linux), or no /proc at all (macOS: kill(0) is all there is).
        return not os.path.isdir("/proc/self/task")
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                    return True
        except (OSError, IndexError):
            continue
    return False


def _write_pid(rundir: str, pid: int) -> None:
    path = protocol.pid_path(rundir)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(f"{pid}\n")
    os.replace(tmp, path)


def _remove_stale(rundir: str) -> list[str]:
    """Remove the socket and pid file. Only call while holding the lock: then they are debris."""
    removed = []
    for path in (protocol.socket_path(rundir), protocol.pid_path(rundir)):
        try:
            os.unlink(path)
            removed.append(path)
        except FileNotFoundError:
            pass
    return removed


def _rotate_log(rundir: str) -> str:
    path = protocol.log_path(rundir)
    try:
        if os.path.getsize(path) > LOG_MAX_BYTES:
            os.replace(path, path + ".1")
    except OSError:
        pass
    return path


# --------------------------------------------------------------------------- public API


def _defaults(model: str | None, idle_timeout_s: float | None) -> tuple[str, float]:
    if model is None or idle_timeout_s is None:
        from .. import settings

        s = settings.load()
        if model is None:
            model = settings.value(s, "embedding.model")
        if idle_timeout_s is None:
            idle_timeout_s = settings.value(s, "daemon.idle_timeout_s")
    return model, float(idle_timeout_s)


def _spawn(argv: list[str], lock_fd: int, log_file: str, env: dict) -> int:
    """Double-fork ``argv`` into a new session holding ``lock_fd``; return the daemon's pid."""
    r, w = os.pipe()
    log_fd = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    null_fd = os.open(os.devnull, os.O_RDWR)
    pid = os.fork()
    if pid == 0:  # intermediate child: only os-level calls until exec or _exit
        try:
            os.close(r)
            os.setsid()
            pid2 = os.fork()
            if pid2:
                os.write(w, str(pid2).encode("ascii"))
                os._exit(0)
            os.close(w)
            os.chdir("/")
            os.dup2(null_fd, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.set_inheritable(lock_fd, True)
            os.execve(argv[0], argv, env)
        except BaseException:
            pass
        os._exit(127)
    os.close(w)
    os.close(log_fd)
    os.close(null_fd)
    chunks = []
    while True:
        data = os.read(r, 64)
        if not data:
            break
        chunks.append(data)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        return int(b"".join(chunks) or b"0")
    except ValueError:
        return 0


def _spawn_locked(fd: int, rundir: str, model: str | None, idle_timeout_s: float | None, dbs=()) -> dict:
    """With the lock held on ``fd``: remove debris, spawn the daemon, hand it the lock."""
    cleaned = _remove_stale(rundir)
    model, idle = _defaults(model, idle_timeout_s)
    argv = [
        sys.executable,
        "-m",
        "memory_cli.daemon.server",
        "run",
        "--run-dir",
        rundir,
        "--model",
        model,
        "--idle-timeout",
        f"{idle:g}",
        "--lock-fd",
        str(fd),
    ]
    for db in dbs:
        if db:
            argv += ["--db", os.path.abspath(str(db))]
    from ..interpreter_paths import child_env

    env = child_env()
    # One BLAS thread, for the reason _single_threaded_model gives (numpy reads it at import).
    threads = env.get("MEMORY_CLI_DAEMON_THREADS") or "1"
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, threads)
    pid = _spawn(argv, fd, _rotate_log(rundir), env)
    if pid:
        _write_pid(rundir, pid)
    return {"started": bool(pid), "running": bool(pid), "pid": pid or None, "cleaned": cleaned}


def start(
    model: str | None = None,
    idle_timeout_s: float | None = None,
    rundir: str | None = None,
    wait_s: float = 0.0,
    dbs=(),
) -> dict:
    """Start the daemon in the background unless one runs; returns without waiting for it.

    ``model`` and ``idle_timeout_s`` default to the config (``embedding.model``,
    ``daemon.idle_timeout_s``). With ``wait_s`` > 0, wait that long for the model to be ready.
    ``dbs``: databases whose embedding queue the daemon drains once the model is ready.
    The answer says whether this call ``started`` it, its ``pid`` and any stale files it removed.
    """
    rd = ensure_private_dir(_rundir(rundir))
    fd = _try_lock_after_crash(rd)
    if fd is None:
        result = {"started": False, "running": True, "pid": read_pid(rd), "cleaned": []}
    else:
        try:
            result = _spawn_locked(fd, rd, model, idle_timeout_s, dbs)
        finally:
            os.close(fd)  # the daemon holds its own copy of the locked descriptor
    if wait_s > 0:
        result["status"] = wait_ready(wait_s, rd)
    return result


def wait_ready(timeout_s: float, rundir: str | None = None) -> dict:
    """Poll until the daemon's model is ready (or failed, or the daemon is gone)."""
    rd = _rundir(rundir)
    deadline = time.monotonic() + timeout_s
    st = status(rd)
    while time.monotonic() < deadline:
        if st.get("state") in ("ready", "failed") or not st.get("running"):
            break
        time.sleep(0.05)
        st = status(rd)
    return st


def status(rundir: str | None = None, timeout_ms: float = 1000) -> dict:
    """What ``daemon status`` shows. Never takes the lock (so it cannot disturb a start)."""
    rd = _rundir(rundir)
    sock = protocol.socket_path(rd)
    answer = client.status(timeout_ms, sock)
    if answer is not None:
        out = {k: v for k, v in answer.items() if k not in ("v", "ok")}
        out["running"] = True
        return out
    pid = read_pid(rd)
    if pid_alive(pid) and lock_held(rd):
        # start() writes the pid file before the daemon binds: that is "starting".
        state = "starting" if client.last_failure == "no_daemon" else "unresponsive"
        return {"running": True, "state": state, "pid": pid}
    stale = [p for p in (sock, protocol.pid_path(rd)) if os.path.exists(p)]
    out = {"running": False, "state": "stopped", "pid": None}
    if stale:
        out["stale"] = stale
    return out


def _wait_unlocked(rundir: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while lock_held(rundir):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def stop(rundir: str | None = None, timeout_s: float = 10.0) -> dict:
    """Stop the daemon: ask it, then SIGTERM, then SIGKILL; always leave no debris behind."""
    rd = _rundir(rundir)
    if not os.path.isdir(rd):
        return {"was_running": False, "stopped": False, "pid": None, "how": None, "cleaned": []}
    pid = read_pid(rd)
    was_running = lock_held(rd)
    how = None
    if was_running:
        if client.shutdown(2000, protocol.socket_path(rd)):
            how = "shutdown"
            _wait_unlocked(rd, timeout_s)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if not lock_held(rd):
                break
            if pid_alive(pid):
                try:
                    os.kill(pid, sig)
                    how = sig.name
                except OSError:
                    pass
            _wait_unlocked(rd, 3.0)
        # The lock is dropped a moment before the process ends: return once it has ended.
        deadline = time.monotonic() + 2.0
        while pid_alive(pid) and not lock_held(rd) and time.monotonic() < deadline:
            time.sleep(0.01)
    cleaned: list[str] = []
    fd = _try_lock(rd) if os.path.exists(protocol.lock_path(rd)) else None
    if fd is not None:
        try:
            cleaned = _remove_stale(rd)
        finally:
            os.close(fd)
    return {
        "was_running": was_running,
        "stopped": was_running and fd is not None,
        "pid": pid,
        "how": how,
        "cleaned": cleaned,
    }


def autostart_enabled(settings: dict) -> bool:
    """``MEMORY_CLI_DAEMON_AUTOSTART`` (1/0) beats ``daemon.autostart``.

    The test suite sets it to 0 so that SessionStart hooks run by tests never leave 500 MB
    daemons behind in temporary directories.
    """
    env = os.environ.get("MEMORY_CLI_DAEMON_AUTOSTART", "").strip().lower()
    if env in ("0", "false", "no", "off"):
        return False
    if env in ("1", "true", "yes", "on"):
        return True
    from ..settings import value as setting

    return bool(setting(settings, "daemon.autostart"))


def ensure_started(settings: dict | None = None, db: str | None = None) -> dict | None:
    """SessionStart's call: start the daemon in the background if it should run and does not.

    Returns None without doing anything when autostart is off or the semantic extra is missing
    (no point starting a daemon that cannot load a model). ``db``: a database whose embedding
    queue the new daemon should drain. Never raises.
    """
    try:
        if settings is None:
            from .. import settings as settings_mod

            settings = settings_mod.load()
        if not autostart_enabled(settings):
            return None
        rd = ensure_private_dir(_rundir(None))
        fd = _try_lock(rd)
        if fd is None:
            return {"started": False, "running": True}
        try:
            from ..embeddings.model import semantic_available

            if not semantic_available():
                return None
            from ..settings import value as setting

            return _spawn_locked(
                fd,
                rd,
                setting(settings, "embedding.model"),
                setting(settings, "daemon.idle_timeout_s"),
                [db] if db else [],
            )
        finally:
            os.close(fd)
    except Exception as e:  # fail open: a hook must never break on the daemon
        return {"started": False, "running": False, "error": f"{type(e).__name__}: {e}"}
