"""The embedding daemon process: one socket, one model, one thread that runs the model.

Started by :func:`memory_cli.daemon.control.start` (double-forked, holding the per-user lock),
or in the foreground with ``python -m memory_cli.daemon.server run``. Why it works this way:

* It binds its socket (mode 0600, in the 0700 run directory) *before* loading the model, so
  ``status`` and ``ping`` answer at once and ``embed`` answers ``cold`` at once until the model
  is ready: a hook never waits for PyTorch.
* Every model call runs on one worker thread: calls are serialised and PyTorch's thread pool
  stays warm. Connection threads only parse, queue and wait.
* Between requests the same worker drains the embedding queue of the databases it knows (those
  named at start, the default one, and any named by an ``index`` request), a small batch at a
  time so hooks' requests are never stuck behind a long backfill.
* It exits after ``idle_timeout_s`` without work (counted from when the model finished
  loading), on SIGTERM/SIGINT and on a ``shutdown`` request, removing its socket and pid file
  (only if they are still its own) and then dropping the lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import queue
import signal
import socket
import sys
import threading
import time

from . import control, protocol

DEFAULT_IDLE_TIMEOUT_S = 900
MAX_CONNECTIONS = 32
CONNECTION_TIMEOUT_S = 30.0
EMBED_JOB_TIMEOUT_S = 120.0
DRAIN_BATCH = 16  # texts per backfill step (~50-150 ms of model time on 2 cores)
DB_POLL_S = 60.0  # how often known databases are checked for queued entries
MAX_KNOWN_DBS = 32


def rss_bytes() -> int:
    """Resident memory now (Linux ``VmRSS``); peak resident memory where /proc is missing."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _log(msg: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    try:
        sys.stderr.write(f"{stamp} [{os.getpid()}] {msg}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Daemon:
    """The resident process: a listening socket, a model worker thread, one thread per client."""

    def __init__(self, rundir: str, model: str, idle_timeout_s: float, lock_fd: int, dbs=()):
        self.rundir = rundir
        self.model_name = model
        self.idle_timeout_s = idle_timeout_s
        self.lock_fd = lock_fd
        self.socket_path = protocol.socket_path(rundir)
        self.state = "starting"
        self.error: str | None = None
        self.embedder = None
        self.model_path: str | None = None
        self.dim: int | None = None
        self.started_wall = time.time()
        self.started = time.monotonic()
        self.loaded_after_s: float | None = None
        self.last_activity = time.monotonic()
        self.requests = 0
        self.texts = 0
        self.backfilled = 0
        self.active_embeds = 0
        self._counter = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._jobs: queue.Queue = queue.Queue()
        self.known_dbs: list[str] = []
        self.pending_dbs: set[str] = set()
        self._dbs_lock = threading.Lock()
        for db in dbs:
            self.add_db(db)
        self.stopping = threading.Event()
        self.exit_reason = "?"
        self._listener: socket.socket | None = None
        self._sock_ino: int | None = None

    # ---- lifecycle
    def bind(self) -> None:
        control.ensure_private_dir(self.rundir)
        sock_dir = os.path.dirname(self.socket_path)
        if sock_dir != self.rundir:
            control.ensure_private_dir(sock_dir)
        try:
            os.unlink(self.socket_path)  # we hold the lock: any socket file here is stale
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(self.socket_path)
        finally:
            os.umask(old)
        os.chmod(self.socket_path, 0o600)
        listener.listen(64)
        listener.settimeout(0.2)  # how soon a signal or shutdown is noticed
        self._listener = listener
        self._sock_ino = os.stat(self.socket_path).st_ino
        control._write_pid(self.rundir, os.getpid())

    def run(self) -> int:
        self.bind()
        _log(f"listening on {self.socket_path} (model {self.model_name}, idle timeout {self.idle_timeout_s:g}s)")
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        threading.Thread(target=self.model_worker, name="model", daemon=True).start()
        try:
            self._accept_loop()
        finally:
            self.cleanup()
        return 0

    def _on_signal(self, signum, _frame) -> None:
        self.exit_reason = signal.Signals(signum).name
        self.stopping.set()

    def _idle(self) -> bool:
        return (
            self.state in ("ready", "failed")
            and self.active_embeds == 0
            and not (self.pending_dbs and self.state == "ready")
            and time.monotonic() - self.last_activity > self.idle_timeout_s
        )

    def _accept_loop(self) -> None:
        while not self.stopping.is_set():
            if self._idle():
                self.exit_reason = f"idle for {self.idle_timeout_s:g}s"
                return
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError as e:
                if e.errno in (errno.EINTR, errno.ECONNABORTED):
                    continue
                raise
            if not self._slots.acquire(blocking=False):
                try:
                    conn.settimeout(0.2)
                    conn.sendall(protocol.encode(protocol.error(protocol.E_BUSY, "too many clients")))
                except OSError:
                    pass
                conn.close()
                continue
            threading.Thread(target=self._serve_conn, args=(conn,), daemon=True).start()

    def cleanup(self) -> None:
        """Remove our socket and pid file (only if they are still ours), then drop the lock."""
        if self._listener is not None:
            self._listener.close()
        try:
            if self._sock_ino is not None and os.stat(self.socket_path).st_ino == self._sock_ino:
                os.unlink(self.socket_path)
        except OSError:
            pass
        if control.read_pid(self.rundir) == os.getpid():
            try:
                os.unlink(protocol.pid_path(self.rundir))
            except OSError:
                pass
        _log(
            f"exiting ({self.exit_reason}) after {self.requests} requests, "
            f"{self.texts} texts embedded, {self.backfilled} entries backfilled"
        )
        try:
            os.close(self.lock_fd)
        except OSError:
            pass

    # ---- the model thread
    def model_worker(self) -> None:
        """Load the model, then run every embedding and every backfill step on this thread.

        One thread for all model calls serialises them and keeps PyTorch's thread pool warm;
        calling the model from a fresh connection thread each time costs a few ms more per call.
        """
        self.state = "loading"
        t0 = time.monotonic()
        try:
            from .. import settings as settings_mod
            from ..embeddings.model import Embedder

            emb = Embedder(self.model_name, settings_mod.value(settings_mod.load(), "embedding.backend"))
            self.model_path = emb.path
            emb.load()
            _single_threaded_model()
            emb.embed(["warm up"])  # the first call pays one-off costs; not a user's request
            self.embedder, self.dim = emb, emb.dim
            self.state = "ready"
            self.loaded_after_s = round(time.monotonic() - t0, 3)
            _log(
                f"model {self.model_name} ({emb.backend}) ready in {self.loaded_after_s}s "
                f"(dim {self.dim}, rss {rss_bytes() // 2**20} MB)"
            )
        except BaseException as e:  # noqa: BLE001 - report any failure through status
            self.error = f"{type(e).__name__}: {e}"
            self.state = "failed"
            _log(f"model {self.model_name} failed to load: {self.error}")
            return
        finally:
            self.last_activity = time.monotonic()  # idle time counts from here
        next_poll = time.monotonic()
        while True:
            if time.monotonic() >= next_poll:
                with self._dbs_lock:
                    self.pending_dbs.update(self.known_dbs)
                next_poll = time.monotonic() + DB_POLL_S
            try:
                job = self._jobs.get(timeout=0 if self.pending_dbs else 1.0)
            except queue.Empty:
                job = None
            if job is not None:
                try:
                    job["vectors"] = self.embedder.embed(job["texts"])
                except Exception as e:  # noqa: BLE001
                    job["error"] = f"{type(e).__name__}: {e}"
                job["done"].set()
                continue
            if self.pending_dbs:
                self._backfill_step()

    def _embed(self, texts: list[str]) -> list[bytes]:
        job = {"texts": texts, "done": threading.Event()}
        self._jobs.put(job)
        if not job["done"].wait(EMBED_JOB_TIMEOUT_S):
            raise TimeoutError("the model did not answer in time")
        if "error" in job:
            raise RuntimeError(job["error"])
        return job["vectors"]

    def add_db(self, path: str) -> bool:
        path = os.path.abspath(path)
        with self._dbs_lock:
            if path not in self.known_dbs:
                if len(self.known_dbs) >= MAX_KNOWN_DBS:
                    self.known_dbs.pop(0)
                self.known_dbs.append(path)
            self.pending_dbs.add(path)
        return True

    def _backfill_step(self) -> None:
        """Embed one small batch of one database's queue (runs on the model thread)."""
        with self._dbs_lock:
            path = next(iter(self.pending_dbs), None)
        if path is None:
            return
        done = True
        try:
            if os.path.exists(path):  # never create a database by looking at it
                from ..embeddings import vectors
                from ..store.db import Store

                store = Store.open(path)
                try:
                    res = vectors.drain(
                        store, self.embedder.embed, model=self.model_name, batch=DRAIN_BATCH, max_batches=1
                    )
                finally:
                    store.close()
                n = res["embedded"] + res["removed"]
                if n:
                    self.backfilled += n
                    self.last_activity = time.monotonic()
                done = res["remaining"] == 0 or n == 0
        except Exception as e:  # noqa: BLE001 - a bad database must not kill the daemon
            _log(f"backfill of {path} stopped: {type(e).__name__}: {e}")
            with self._dbs_lock:  # do not retry (and log) every minute; a nudge brings it back
                if path in self.known_dbs:
                    self.known_dbs.remove(path)
        if done:
            with self._dbs_lock:
                self.pending_dbs.discard(path)

    # ---- requests
    def _serve_conn(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(CONNECTION_TIMEOUT_S)
            reader = conn.makefile("rb")
            while not self.stopping.is_set():
                line = reader.readline(protocol.MAX_LINE + 1)
                if not line:
                    break
                if not line.endswith(b"\n") and len(line) > protocol.MAX_LINE:
                    conn.sendall(protocol.encode(protocol.error(protocol.E_BAD_REQUEST, "request too large")))
                    break
                answer, stop_after = self.answer(line)
                conn.sendall(protocol.encode(answer))
                if stop_after:
                    self.exit_reason = "shutdown request"
                    self.stopping.set()
                    break
        except (OSError, ValueError):
            pass
        finally:
            try:
                conn.close()
            finally:
                self._slots.release()

    def answer(self, line: bytes) -> tuple[dict, bool]:
        """The answer to one request line, and whether the daemon should stop after sending it."""
        try:
            msg = protocol.decode(line.strip())
        except (ValueError, UnicodeDecodeError):
            return protocol.error(protocol.E_BAD_REQUEST, "a request is one JSON object per line"), False
        problem = protocol.check_request(msg)
        if problem is None and msg["op"] == "status":
            return protocol.ok(**self.status()), False  # watching is not served work
        with self._counter:
            self.requests += 1
        if problem is not None:
            return problem, False
        op = msg["op"]
        if op == "shutdown":
            return protocol.ok(stopping=True), True
        self.last_activity = time.monotonic()
        if op == "ping":
            return protocol.ok(state=self.state), False
        if op == "index":
            self.add_db(msg["db"])
            return protocol.ok(state=self.state), False
        # op == "embed"
        if self.state == "failed":
            return protocol.error(protocol.E_MODEL_FAILED, self.error or "model failed"), False
        if self.state != "ready":
            return protocol.error(protocol.E_COLD, "the model is still loading"), False
        texts = [t[: protocol.MAX_TEXT_CHARS] for t in msg["texts"]]
        with self._counter:
            self.active_embeds += 1
        try:
            vectors = self._embed(texts)
        except Exception as e:  # noqa: BLE001
            _log(f"embed failed: {type(e).__name__}: {e}")
            return protocol.error(protocol.E_INTERNAL, f"{type(e).__name__}: {e}"), False
        finally:
            with self._counter:
                self.active_embeds -= 1
                self.texts += len(texts)
            self.last_activity = time.monotonic()
        return protocol.ok(vectors=protocol.encode_vectors(vectors), dim=self.dim, model=self.model_name), False

    def status(self) -> dict:
        now = time.monotonic()
        rss = rss_bytes()
        from .. import __version__

        return {
            "pid": os.getpid(),
            "state": self.state,
            "model": self.model_name,
            "model_path": self.model_path,
            "backend": getattr(self.embedder, "backend", None),
            "dim": self.dim,
            "error": self.error,
            "uptime_s": round(now - self.started, 1),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started_wall)),
            "model_load_s": self.loaded_after_s,
            "rss_bytes": rss,
            "rss_mb": round(rss / 2**20, 1),
            "requests_served": self.requests,
            "texts_embedded": self.texts,
            "entries_backfilled": self.backfilled,
            "databases": list(self.known_dbs),
            "idle_s": round(now - self.last_activity, 1),
            "idle_timeout_s": self.idle_timeout_s,
            "socket": self.socket_path,
            "protocol": protocol.VERSION,
            "version": __version__,
        }


def run(
    model: str,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    rundir: str | None = None,
    lock_fd: int | None = None,
    dbs=(),
) -> int:
    """Run the daemon in this process until it stops. Exit status 3 if another one holds the lock."""
    rd = control.ensure_private_dir(control._rundir(rundir))
    if lock_fd is None:
        lock_fd = control._try_lock(rd)
        if lock_fd is None:
            _log("another daemon holds the lock; not starting")
            return 3
    else:
        # The descriptor inherited from start(): same open file, so this re-lock succeeds.
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.set_inheritable(lock_fd, False)
    return Daemon(rd, model, idle_timeout_s, lock_fd, dbs).run()


def _default_db() -> str | None:
    try:
        from .. import settings

        if settings.memory_disabled():
            return None
        return str(settings.database_path(None, settings.load()))
    except Exception:  # noqa: BLE001
        return None


def _single_threaded_model() -> None:
    """One PyTorch thread. The daemon embeds a few short texts per hook call; with a thread per
    core, every call is a parallel region whose threads wait for each other, and on a busy
    machine one of them is always descheduled: measured here under load (load average 25 on 2
    cores), 2 texts took a median 916 ms with 2 threads and 101 ms with one. Idle, one thread is
    as fast for such batches. ``MEMORY_CLI_DAEMON_THREADS`` overrides (bulk reindexing on an
    idle many-core machine)."""
    torch = sys.modules.get("torch")  # the numpy back end never imports it; BLAS is set at spawn
    if torch is None:
        return
    try:
        n = int(os.environ.get("MEMORY_CLI_DAEMON_THREADS") or 1)
        torch.set_num_threads(max(1, n))
    except Exception:  # only speed
        pass


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m memory_cli.daemon.server")
    ap.add_argument("command", choices=("run", "start", "stop", "status"))
    ap.add_argument("--run-dir")
    ap.add_argument("--model")
    ap.add_argument("--idle-timeout", type=float)
    ap.add_argument("--lock-fd", type=int)
    ap.add_argument("--db", action="append", default=[])
    ap.add_argument("--wait", type=float, default=0.0)
    args = ap.parse_args(argv)
    if args.command == "run":
        code = 1
        try:
            model, idle = control._defaults(args.model, args.idle_timeout)
            dbs = list(args.db)
            default = _default_db()
            if default and default not in dbs:
                dbs.append(default)
            code = run(model, idle, args.run_dir, args.lock_fd, dbs)
        except BaseException as e:  # noqa: BLE001
            _log(f"daemon crashed: {type(e).__name__}: {e}")
        finally:
            sys.stderr.flush()
            # Skip interpreter teardown: a model loader thread may still be inside an import.
            os._exit(code)
    if args.command == "start":
        out = control.start(args.model, args.idle_timeout, args.run_dir, args.wait, args.db)
    elif args.command == "stop":
        out = control.stop(args.run_dir)
    else:
        out = control.status(args.run_dir)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
