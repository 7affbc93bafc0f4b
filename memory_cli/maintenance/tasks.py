"""What the daily maintenance run does, in order: back up, write the queued session summaries,
propose the instructions said in several sessions, compact scopes over their limit, decay,
prune the audit log, bring the native rule copies in line with the store.

The backup comes first so that the state before summaries, compaction and decay is always
recoverable. A SessionEnd after today's run starts :func:`summary_tasks` alone (summaries and
recurring instructions). Each task opens
the store itself and closes it at once, so a failing task leaves the next one a clean start and
the database is never held open longer than a task needs it.
"""

from __future__ import annotations

from pathlib import Path


def backups_dir(settings, db_path=None) -> Path:
    """The backup folder of one database.

    The default database's backups sit directly in the folder; any other database gets its own
    subfolder, so that two stores never share a "today's backup" or prune each other's files.
    """
    import hashlib
    import os

    from memory_cli import paths
    from memory_cli.settings import value as setting

    configured = setting(settings, "backup.directory")
    base = paths.expand(configured) if configured else paths.backups_dir()
    if db_path is None:
        return base
    real = os.path.realpath(os.fspath(db_path))
    if real == os.path.realpath(paths.default_db_file()):
        return base
    stem = os.path.splitext(os.path.basename(real))[0] or "memory"
    return base / f"{stem}-{hashlib.sha256(real.encode()).hexdigest()[:8]}"


def backup_task(db_path: Path, settings) -> str:
    from memory_cli.maintenance import backup
    from memory_cli.settings import value as setting

    if not setting(settings, "backup.enabled"):
        return "backups are disabled"
    keep = int(setting(settings, "backup.max_backups"))
    made = backup.backup_if_due(db_path, backups_dir(settings, db_path), keep=keep)
    return f"wrote {made}" if made else "today's backup already exists"


def spool_task(db_path: Path, settings) -> str:
    """Write what hooks spooled while another process held the write lock (waits for it)."""
    from memory_cli.store import spool
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        r = spool.drain(store, wait=True)
    return f"{r['applied']} spooled write(s) applied, {r['skipped']} already written, {r['failed']} failed"


def decay_task(db_path: Path, settings) -> str:
    from memory_cli.maintenance.decay_store import run_decay
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        r = run_decay(store, settings=settings)
    return f"{r['decayed']} decayed, {r['archived']} archived of {r['considered']}"


def retention_task(db_path: Path, settings) -> str:
    from memory_cli.maintenance.retention import prune_audit_log
    from memory_cli.settings import value as setting
    from memory_cli.store.db import Store

    days = int(setting(settings, "audit.retention_days"))
    with Store.open(db_path) as store:
        n = prune_audit_log(store, days)
    return f"removed {n} audit rows older than {days} days"


def summaries_task(db_path: Path, settings) -> str:
    from memory_cli.llm.summarize import summarize_pending
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        done = summarize_pending(store, settings)
    failed = [d for d in done if d.get("error")]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(done)} transcript(s) failed: {failed[0]['error']}")
    return f"{sum(d['stored'] for d in done)} memories from {len(done)} transcript(s)"


def code_seal_task(db_path: Path, settings) -> str:
    """Check memory-cli's own code against the seal ``install`` wrote (seals/code.py): off the
    hook's clock, noted for the next SessionStart."""
    from memory_cli.seals import code
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        found = code.note(store)
    return "code not sealed" if found is None else f"{len(found)} file(s) of memory-cli's code changed since install"


def recurring_task(db_path: Path, settings) -> str:
    """Propose, for review, what the person said in several sessions (capture/recurring.py)."""
    from memory_cli.capture.recurring import propose_recurring
    from memory_cli.capture.semantic import job_embedder
    from memory_cli.store.db import Store

    # Off the hook's clock: the daemon may take its time; when it is down the encoder is loaded
    # here, and only when neither can embed do words alone decide.
    with Store.open(db_path) as store:
        done = propose_recurring(store, embed=job_embedder(5000.0))
    return f"{sum(d['new'] for d in done)} recurring instruction(s) proposed, {sum(not d['new'] for d in done)} grown"


def compaction_task(db_path: Path, settings) -> str:
    from memory_cli.llm.compact import compact_all
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        r = compact_all(store, settings)
    return (
        "; ".join(f"{s['scope']}: {s['before']} -> {s['after']} ({s['method']})" for s in r["scopes"])
        or "no scope over its limit"
    )


def native_task(db_path: Path, settings) -> str:
    """Bring the native rule copies in line with rules changed where no command followed them
    (a team pull in the background, an import)."""
    from memory_cli.native import sync
    from memory_cli.store.db import Store

    with Store.open(db_path) as store:
        problems = sync.follow(store)
    return "; ".join(problems) or "native rule copies up to date"


def record_task(db_path: Path, results: dict) -> str:
    from memory_cli import audit
    from memory_cli.store.db import Store

    with Store.open(db_path) as store, store.transaction():
        audit.record(store, "maintenance", result="done", details=results)
    return "recorded"


def default_tasks(db_path: Path, settings=None) -> list:
    """The tasks the detached child runs; each returns a one-line summary for the log."""
    if settings is None:
        from memory_cli import settings as settings_mod

        settings = settings_mod.load()
    db_path = Path(db_path)
    results: dict = {}

    def run(name, fn):
        def task():
            try:
                results[name] = fn(db_path, settings)
            except Exception as err:
                results[name] = f"failed: {type(err).__name__}: {err}"
                raise
            return results[name]

        return name, task

    if not db_path.exists():
        return []
    return [
        run("spool", spool_task),
        run("backup", backup_task),
        run("session-summaries", summaries_task),
        run("recurring-instructions", recurring_task),
        run("code-seal", code_seal_task),
        run("compaction", compaction_task),
        run("decay", decay_task),
        run("audit-retention", retention_task),
        run("native-rules", native_task),
        ("record", lambda: record_task(db_path, results)),
    ]


def summary_tasks(db_path: Path, settings=None) -> list:
    """The session-summary step alone (a session ended after today's daily run)."""
    if settings is None:
        from memory_cli import settings as settings_mod

        settings = settings_mod.load()
    db_path = Path(db_path)
    if not db_path.exists():
        return []
    return [
        ("spool", lambda: spool_task(db_path, settings)),
        ("session-summaries", lambda: summaries_task(db_path, settings)),
        ("recurring-instructions", lambda: recurring_task(db_path, settings)),
        ("code-seal", lambda: code_seal_task(db_path, settings)),
    ]
