"""Doctor checks that the hooks keep their speed: how they start, bytecode, the rule cache.

Each tool call starts a hook process, and several set-ups silently make every one of them
slower without breaking anything: hooks registered through the console script instead of the
lean launcher, a launcher whose folders no longer find ``apsw`` (it then runs ``site`` on every
start), modules without bytecode (compiled from source on every start, e.g. under
``PYTHONDONTWRITEBYTECODE=1`` in a folder the hook cannot write), a rule cache that cannot be
written (every hook rebuilds the rule set). Each check says the fix in one line.
"""

from __future__ import annotations

import os
import shlex
import sys
import time


def _check(name: str, status: str, detail: str) -> dict:
    return {"name": name, "status": status, "detail": detail}


def command_prefix(command: str) -> list[str] | None:
    """The words of a registered hook command before ``[--db PATH] [--config PATH] hook EVENT``."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if "hook" not in words:
        return None
    prefix = words[: words.index("hook")]
    for option in ("--db", "--config"):
        if option in prefix:
            i = prefix.index(option)
            prefix = prefix[:i] + prefix[i + 2 :]
    return [w for w in prefix if not w.startswith(("--db=", "--config="))]


def _launcher_parts(prefix: list[str]) -> tuple[str, str, list[str]] | None:
    """(python, script, --path folders) when ``prefix`` is the lean launcher, else None."""
    from ..install import is_launcher_script

    script_at = next((i for i, w in enumerate(prefix) if is_launcher_script(w)), None)
    if script_at is None or script_at == 0:
        return None
    rest = prefix[script_at + 1 :]
    folders = [rest[i + 1] for i in range(len(rest) - 1) if rest[i] == "--path"]
    return prefix[0], prefix[script_at], folders


def probe(prefix: list[str]) -> dict | None:
    """Start the launcher as a hook would and ask how its imports were found."""
    import json
    import subprocess

    try:
        proc = subprocess.run(
            prefix + ["--probe"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except Exception:
        return None


def entry_checks(commands: dict[str, list[str]]) -> list[dict]:
    """``commands``: settings file -> registered memory-cli hook commands."""

    out = []
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for where, cmds in commands.items():
        prefixes = []
        for cmd in cmds:
            p = command_prefix(cmd)
            if p is not None and p not in prefixes:
                prefixes.append(p)
        for prefix in prefixes:
            shown = " ".join(shlex.quote(w) for w in prefix)
            parts = _launcher_parts(prefix)
            if parts is None:
                out.append(
                    _check(
                        "hook start",
                        "warn",
                        f"{where}: hooks start through {shown}, which loads `site` and "
                        "the console-script wrapper on every tool call; the lean "
                        "launcher starts about twice as fast: run `memory-cli install`",
                    )
                )
                continue
            python, script, folders = parts
            missing = [p for p in [python, script, *folders] if not os.path.exists(p)]
            if missing:
                out.append(
                    _check(
                        "hook start",
                        "fail",
                        f"{where}: {missing[0]} no longer exists, hooks cannot start: run `memory-cli install` again",
                    )
                )
                continue
            info = probe(prefix)
            if info is None:
                out.append(
                    _check(
                        "hook start", "fail", f"{where}: {shown} --probe did not answer: run `memory-cli install` again"
                    )
                )
            elif info.get("site_fallback") or not info.get("apsw"):
                out.append(
                    _check(
                        "hook start",
                        "warn",
                        f"{where}: the launcher's folders no longer hold apsw, so every "
                        "hook runs `site` to find it (slower): run `memory-cli install` "
                        "again",
                    )
                )
            elif os.path.abspath(info.get("package") or "") != here:
                out.append(
                    _check(
                        "hook start",
                        "warn",
                        f"{where}: hooks run memory-cli from {info.get('package')}, "
                        f"this command is {here}: run `memory-cli install` from the "
                        "environment you mean to use",
                    )
                )
            else:
                out.append(
                    _check(
                        "hook start",
                        "ok",
                        f"{where}: lean launcher ({os.path.basename(python)} -I -S {script}; apsw found without site)",
                    )
                )
    return out


def _bytecode_state(source: str) -> str:
    """ "ok", "missing" or "stale" for the cached bytecode of one module."""
    import importlib.util

    try:
        cached = importlib.util.cache_from_source(source)
        with open(cached, "rb") as f:
            head = f.read(16)
        st = os.stat(source)
    except OSError:
        return "missing"
    except (NotImplementedError, ValueError):
        return "ok"  # an interpreter without a bytecode cache: nothing to check
    if len(head) < 16 or head[:4] != importlib.util.MAGIC_NUMBER:
        return "stale"
    flags = int.from_bytes(head[4:8], "little")
    if flags & 1:
        return "ok"  # hash-based bytecode: validity is not a matter of timestamps
    mtime = int.from_bytes(head[8:12], "little")
    size = int.from_bytes(head[12:16], "little")
    if mtime != (int(st.st_mtime) & 0xFFFFFFFF) or size != (st.st_size & 0xFFFFFFFF):
        return "stale"
    return "ok"


def bytecode_check() -> dict:
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sources = []
    for folder, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        sources += [os.path.join(folder, f) for f in files if f.endswith(".py")]
    # The launcher script runs as __main__, which Python never caches: it is kept tiny.
    sources = [s for s in sources if os.path.basename(s) != "fasthook.py" or os.path.dirname(s) != package]
    bad = [s for s in sources if _bytecode_state(s) != "ok"]
    if not bad:
        return _check("hook bytecode", "ok", f"{len(sources)} modules compiled and current")
    writable = os.access(os.path.dirname(bad[0]), os.W_OK)
    fix = f"{shlex.quote(sys.executable)} -m compileall -q {shlex.quote(package)}"
    why = (
        "the lean launcher writes it on first use, the console script does not under PYTHONDONTWRITEBYTECODE"
        if writable
        else "the hook cannot write it there"
    )
    return _check(
        "hook bytecode",
        "warn",
        f"{len(bad)} of {len(sources)} modules have no current bytecode "
        f"(e.g. {os.path.relpath(bad[0], os.path.dirname(package))}): every process "
        f"importing one, hooks included, compiles it from source ({why}): run `{fix}`",
    )


def rule_cache_check(store) -> dict:
    """Whether a hook finds the compiled rule set ready to read, rebuilding it if it is not."""
    from ..rules import ruleset

    path = ruleset.cache_path(store)
    if path is None:
        return _check("rule cache", "ok", "in-memory store: no cache file")
    try:
        key = ruleset._read_key(store)
    except Exception as e:  # doctor reports, never raises
        return _check("rule cache", "fail", f"cannot read the rule-set label: {type(e).__name__}: {e}")
    state = _cache_state(path, key)
    note = ""
    if state != "current":
        ruleset.forget()
        t0 = time.perf_counter()
        try:
            ruleset.load(store)
        except Exception as e:
            return _check("rule cache", "fail", f"cannot build the rule set: {type(e).__name__}: {e}")
        built_ms = (time.perf_counter() - t0) * 1000.0
        if _cache_state(path, key) != "current":
            return _check(
                "rule cache",
                "warn",
                f"{path} cannot be written, so every hook rebuilds the rule set "
                f"({built_ms:.0f} ms here): make {os.path.dirname(path)} writable",
            )
        note = f" (was {state}: rebuilt now in {built_ms:.0f} ms, as the next hook would have)"
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        rs = ruleset.RuleSet(f.read())
    read_ms = (time.perf_counter() - t0) * 1000.0
    size_kb = os.path.getsize(path) / 1024.0
    return _check("rule cache", "ok", f"{len(rs)} rules, {size_kb:.0f} KB, opened in {read_ms:.1f} ms{note}")


def doctor_checks(store, settings) -> list[dict]:
    """Area checks with a store (run before the rules area, which rebuilds the cache)."""
    return [rule_cache_check(store)]


def _cache_state(path: str, key: tuple) -> str:
    from ..rules.ruleset import RuleSet

    try:
        with open(path, "rb") as f:
            rs = RuleSet(f.read())
    except FileNotFoundError:
        return "missing"
    except Exception:
        return "unreadable"
    return "current" if rs.key == key else "stale"
