"""Metric samples and baselines computed from them on read.

A baseline is the last ``WINDOW`` samples of a metric in a scope: n, avg, p95, min, max.
``check`` calls a value abnormal only once ``MIN_SAMPLES`` samples exist, and only when it is
above both ``FACTOR`` x the average and the p95 (or below avg / FACTOR and the minimum): a
single slow run in a noisy series is not an alarm. Pure standard library (the PostToolUse hook
records durations through it).
"""

from __future__ import annotations

import math
import re

from .. import audit
from .. import scope as scopes
from ..db import Store
from ..errors import InvalidInput, NotFound
from ..journal import fields
from ..util import new_id, now_iso

MIN_SAMPLES = 5
WINDOW = 50
FACTOR = 2.0
SOURCES = ("manual", "agent", "hook", "imported")
_NAME = re.compile(r"^[\w.:/@+\- ]{1,200}$")


def check_name(name) -> str:
    n = name.strip() if isinstance(name, str) else ""
    if not n:
        raise InvalidInput("metric name is empty")
    if not _NAME.match(n):
        raise InvalidInput(f"metric name {name!r} must be 1-200 letters, digits, spaces or . : / @ + - _")
    return fields.text(n, "metric name", required=True, max_len=200)


def check_value(value) -> float:
    if isinstance(value, bool):
        raise InvalidInput("value must be a number, not a boolean")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"value must be a number, not {value!r}") from None
    if not math.isfinite(v):
        raise InvalidInput(f"value must be a finite number, not {value!r}")
    return v


def record(store: Store, name, value, *, unit=None, scope="global", source: str = "manual",
           session_id: str | None = None, audit_write: bool = True) -> dict:
    """Store one sample and return it."""
    n = check_name(name)
    v = check_value(value)
    u = fields.text(unit, "unit", max_len=40)
    sc = scopes.parse(scope)
    src = (source or "").strip().lower()
    if src not in SOURCES:
        raise InvalidInput(f"unknown metric source {source!r}: use one of {', '.join(SOURCES)}")
    sid, now = new_id(), now_iso()
    with store.transaction():
        store.execute("INSERT INTO metric_samples(id, name, value, unit, scope, source, session_id,"
                      " recorded_at) VALUES (?,?,?,?,?,?,?,?)", (sid, n, v, u, sc, src, session_id, now))
        if audit_write:
            audit.record(store, "metric_record", entry_id=sid, context=n, result=str(v),
                         details={"scope": sc, "unit": u, "source": src}, session_id=session_id)
    return {"id": sid, "name": n, "value": v, "unit": u, "scope": sc, "source": src,
            "session_id": session_id, "recorded_at": now}


def _percentile(sorted_values: list[float], p: float) -> float:
    if len(sorted_values) == 1:
        return sorted_values[0]
    k = (len(sorted_values) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def baseline(store: Store, name, *, scope=None, window: int = WINDOW) -> dict:
    """``{"name", "scope", "unit", "n", "avg", "p95", "min", "max"}`` over the newest samples;
    n = 0 (and None stats) when there are none. ``scope=None``: samples of every scope."""
    n = check_name(name)
    where, params = "name = ?", [n]
    if scope:
        where += " AND scope = ?"
        params.append(scopes.parse(scope))
    rows = store.rows(f"SELECT value, unit FROM metric_samples WHERE {where}"
                      " ORDER BY recorded_at DESC, rowid DESC LIMIT ?", [*params, int(window)])
    vals = sorted(r["value"] for r in rows)
    unit = next((r["unit"] for r in rows if r["unit"]), None)
    if not vals:
        return {"name": n, "scope": scope and scopes.parse(scope), "unit": None, "n": 0,
                "avg": None, "p95": None, "min": None, "max": None}
    return {"name": n, "scope": scope and scopes.parse(scope), "unit": unit, "n": len(vals),
            "avg": round(sum(vals) / len(vals), 6), "p95": round(_percentile(vals, 0.95), 6),
            "min": vals[0], "max": vals[-1]}


def _fmt(v: float, unit: str | None) -> str:
    s = f"{v:.4g}"
    return f"{s} {unit}" if unit else s


def check(store: Store, name, value, *, scope=None, min_samples: int = MIN_SAMPLES,
          factor: float = FACTOR) -> dict:
    """``{"normal": bool, "baseline": {n, avg, p95, min, max}, "why": str, "ratio": x}``."""
    v = check_value(value)
    b = baseline(store, name, scope=scope)
    stats = {k: b[k] for k in ("n", "avg", "p95", "min", "max")}
    out = {"name": b["name"], "value": v, "unit": b["unit"], "normal": True, "baseline": stats,
           "ratio": None, "why": ""}
    if b["n"] < min_samples:
        out["why"] = (f"only {b['n']} sample(s) of {b['name']!r}; at least {min_samples} are needed "
                      "before a value is called abnormal")
        return out
    avg, unit = b["avg"], b["unit"]
    ratio = (v / avg) if avg else None
    out["ratio"] = round(ratio, 3) if ratio is not None else None
    if avg > 0 and v > avg * factor and v > b["p95"]:
        out["normal"] = False
        out["why"] = (f"{_fmt(v, unit)} is {ratio:.1f}x the usual {_fmt(avg, unit)} (avg of {b['n']}"
                      f" samples; p95 {_fmt(b['p95'], unit)}, max {_fmt(b['max'], unit)})")
    elif avg > 0 and v < avg / factor and v < b["min"]:
        out["normal"] = False
        out["why"] = (f"{_fmt(v, unit)} is far below the usual {_fmt(avg, unit)} (min of {b['n']}"
                      f" samples {_fmt(b['min'], unit)})")
    else:
        where = "within" if b["min"] <= v <= b["max"] else "near"
        out["why"] = (f"{_fmt(v, unit)} is {where} the usual range of {b['n']} samples "
                      f"(avg {_fmt(avg, unit)}, p95 {_fmt(b['p95'], unit)}, "
                      f"{_fmt(b['min'], unit)}-{_fmt(b['max'], unit)})")
    return out


def names(store: Store, *, limit: int = 200) -> list[dict]:
    """Every metric with its sample count and latest value, most recently recorded first."""
    return store.rows(
        "SELECT name, count(*) AS n, round(avg(value), 6) AS avg, min(value) AS min, max(value) AS max,"
        " max(recorded_at) AS last_at, max(unit) AS unit FROM metric_samples GROUP BY name"
        " ORDER BY last_at DESC LIMIT ?", (int(limit),))


def samples(store: Store, name, *, limit: int = 20) -> list[dict]:
    n = check_name(name)
    rows = store.rows("SELECT * FROM metric_samples WHERE name = ? ORDER BY recorded_at DESC, rowid DESC"
                      " LIMIT ?", (n, fields.limit(limit, default=20, maximum=10_000)))
    if not rows:
        raise NotFound(f"no samples of metric {n!r}")
    return rows


# ----------------------------------------------------------------------------- commands as metrics

_RECURRING = re.compile(
    r"^(?:(?:uv|poetry|pipenv|pdm|hatch)\s+run\s+)?(?:python3?\s+-m\s+)?"
    r"(pytest|tox|nox|make|cargo|go|npm|pnpm|yarn|bun|npx|gradle|\./gradlew|mvn|dotnet|ruff|mypy|"
    r"jest|vitest|tsc|cmake|ninja|bazel|mix|rake|bundle|composer|phpunit|swift|deno)\b(.*)$")
_NOISE = re.compile(r"(?:^|\s)(?:-k|-m|--filter|-run|-t)\s+\S+|\S*[/\\]\S*::\S+|\s+-{1,2}[\w-]+=?\S*")


def command_metric(command: str) -> str | None:
    """A stable metric name for a recurring command (``cmd:pytest``, ``cmd:npm test``,
    ``cmd:cargo build``), or None for commands that are not test runs or builds.

    Paths, test selections and flags are dropped so that every run of the suite lands in one
    series; the first sub-command word (``test``, ``build``, ``run lint``) is kept.
    """
    if not isinstance(command, str):
        return None
    c = command.strip()
    for sep in ("&&", "||", ";", "|"):
        c = c.split(sep)[-1].strip() if sep == "&&" else c.split(sep)[0].strip()
    c = re.sub(r"^(?:\w+=\S*\s+)+", "", c)  # leading VAR=value
    c = re.sub(r"^(?:timeout\s+\S+\s+|time\s+|nice\s+)", "", c)
    c = re.sub(r"^(?:\S*/)?(\.venv/bin/|bin/)?", "", c, count=0) if c.startswith((".", "/")) else c
    m = _RECURRING.match(c)
    if not m:
        return None
    tool, rest = m.group(1), m.group(2)
    words = [w for w in _NOISE.sub(" ", rest).split() if not w.startswith("-")]
    keep = []
    if tool in ("npm", "pnpm", "yarn", "bun", "cargo", "go", "make", "dotnet", "gradle", "./gradlew",
                "mvn", "mix", "rake", "bundle", "composer", "swift", "deno", "npx"):
        for w in words[:2]:
            if re.fullmatch(r"[A-Za-z][\w:-]*", w):
                keep.append(w)
            else:
                break
        if tool not in ("npm", "pnpm", "yarn", "bun") or (keep and keep[0] != "run"):
            keep = keep[:1]
    return "cmd:" + " ".join([tool.lstrip("./")] + keep)
