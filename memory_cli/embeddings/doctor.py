"""``memory-cli doctor`` checks for semantic search: the vector index and the daemon.

The extension and the extra themselves are checked by the core doctor; these say whether the
vectors are complete and current, and whether the daemon is healthy or left debris behind.
"""

from __future__ import annotations


def _check(name, status, detail):
    return {"name": name, "status": status, "detail": detail}


def doctor_checks(store, settings) -> list[dict]:
    from ..daemon import control
    from ..settings import value as setting
    from . import vectors

    out = []
    st = vectors.stats(store)
    configured = setting(settings, "embedding.model")
    if not st["sqlite_vec"]:
        out.append(_check("vectors", "warn", "sqlite-vec cannot be loaded: keyword search only"))
    else:
        detail = f"{st['vectors']} of {st['active_entries']} active memories have vectors"
        status = "ok"
        if st["queued"]:
            status = "warn"
            detail += (
                f"; {st['queued']} queued (backfilled when the daemon is warm, or run `memory-cli reindex --pending`)"
            )
        if st["failed"]:
            status = "warn"
            detail += f"; {st['failed']} failed to embed (see `memory-cli reindex`)"
        if st["model"] and st["model"] != configured:
            status = "warn"
            detail += (
                f"; vectors were made by {st['model']} but embedding.model is {configured}: run `memory-cli reindex`"
            )
        out.append(_check("vectors", status, detail))

    ds = control.status()
    if ds.get("running"):
        state = ds.get("state")
        if state == "failed":
            out.append(_check("daemon", "fail", f"pid {ds.get('pid')}: model failed to load: {ds.get('error')}"))
        elif state == "unresponsive":
            out.append(
                _check(
                    "daemon",
                    "warn",
                    f"pid {ds.get('pid')} holds the lock but does not answer; `memory-cli daemon stop` ends it",
                )
            )
        elif ds.get("model") and ds["model"] != configured:
            out.append(
                _check(
                    "daemon",
                    "warn",
                    f"pid {ds.get('pid')} runs {ds['model']} but "
                    f"embedding.model is {configured}: `memory-cli daemon "
                    "stop`, then start it again",
                )
            )
        else:
            rss = ds.get("rss_mb")
            out.append(
                _check(
                    "daemon",
                    "ok",
                    f"{state}, pid {ds.get('pid')}, model {ds.get('model')}"
                    + (f", {rss:.0f} MB resident" if rss else ""),
                )
            )
    elif ds.get("stale"):
        out.append(
            _check(
                "daemon",
                "warn",
                f"not running; files left by a crash: {', '.join(ds['stale'])} (the next start removes them)",
            )
        )
    else:
        auto = setting(settings, "daemon.autostart")
        out.append(
            _check(
                "daemon",
                "ok",
                "not running"
                + (" (the next session starts it)" if auto else " (autostart is off: `memory-cli daemon start`)"),
            )
        )
    return out
