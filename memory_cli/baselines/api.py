"""Metric samples and the baseline question: is this value normal for this metric?

A value is judged only once the metric has ``MIN_SAMPLES`` samples; until then it is called
normal and the answer says why. Past that, the baseline is the last ``WINDOW`` samples: a value
is abnormal when it is above both 1.5 x their p95 and 2 x their average (slow runs stand out, a
noisy metric does not cry wolf), or below half their minimum.
"""

from __future__ import annotations

import math
import re

from .. import audit, fields
from .. import scope as scopes
from ..errors import InvalidInput
from ..util import now_iso

MIN_SAMPLES = 5
WINDOW = 100
HIGH_P95 = 1.5
HIGH_AVG = 2.0
LOW_MIN = 0.5


def _name(value) -> str:
    name = fields.text(None, value, "name", required=True, max_len=200)
    return re.sub(r"\s+", " ", name)


def _number(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput(f"value must be a finite number, got {value!r}")
    return float(value)


def record(store, name, value, *, unit=None, scope=None, session_id=None, audited: bool = True) -> dict:
    """Add one sample. ``audited=False`` for samples the hooks record on every command run."""
    n, v = _name(name), _number(value)
    u = fields.text(store, unit, "unit", max_len=20)
    sc = scopes.parse(scope)
    with store.transaction():
        store.execute(
            "INSERT INTO metric_samples(name, value, unit, scope, session_id, recorded_at) VALUES (?,?,?,?,?,?)",
            (n, v, u, sc, session_id, now_iso()),
        )
        if audited:
            audit.record(
                store,
                "metric_record",
                context=n,
                result=str(v),
                details={"unit": u, "scope": sc},
                session_id=session_id,
            )
    return {"name": n, "value": v, "unit": u, "scope": sc}


def apply_spooled(store, op_id: str, at: str | None, args: dict) -> None:
    """A sample a hook took while another process held the write lock (see memory_cli.spool)."""
    record(
        store,
        args.get("name"),
        args.get("value"),
        unit=args.get("unit"),
        scope=args.get("scope"),
        session_id=args.get("session_id"),
        audited=False,
    )


def baseline(store, name, *, scope=None) -> dict:
    """``{"n", "avg", "p95", "min", "max", "unit"}`` over the last ``WINDOW`` samples."""
    n = _name(name)
    where, params = "name = ?", [n]
    if scope:
        where += " AND scope = ?"
        params.append(scopes.parse(scope))
    rows = store.rows(
        f"SELECT value, unit FROM metric_samples WHERE {where} ORDER BY recorded_at DESC, id DESC LIMIT ?",
        [*params, WINDOW],
    )
    values = sorted(r["value"] for r in rows)
    if not values:
        return {"n": 0, "avg": None, "p95": None, "min": None, "max": None, "unit": None}
    p95 = values[min(len(values) - 1, math.ceil(0.95 * len(values)) - 1)]
    return {
        "n": len(values),
        "avg": round(sum(values) / len(values), 6),
        "p95": p95,
        "min": values[0],
        "max": values[-1],
        "unit": rows[0]["unit"],
    }


def check(store, name, value, *, scope=None) -> dict:
    """``{"normal", "baseline", "why"}`` for ``value`` of metric ``name``."""
    v = _number(value)
    b = baseline(store, name, scope=scope)
    unit = f" {b['unit']}" if b.get("unit") else ""
    if b["n"] < MIN_SAMPLES:
        return {
            "normal": True,
            "baseline": b,
            "why": f"only {b['n']} sample(s) of {_name(name)!r}; {MIN_SAMPLES} are needed before "
            "a value is called abnormal",
        }
    ratio = v / b["avg"] if b["avg"] else math.inf
    if v > HIGH_P95 * b["p95"] and v > HIGH_AVG * b["avg"]:
        return {
            "normal": False,
            "baseline": b,
            "why": f"{v:g}{unit} is {ratio:.1f}x the average of {b['n']} samples "
            f"(avg {b['avg']:g}{unit}, p95 {b['p95']:g}{unit})",
        }
    if b["min"] > 0 and v < LOW_MIN * b["min"]:
        return {
            "normal": False,
            "baseline": b,
            "why": f"{v:g}{unit} is below half the lowest of {b['n']} samples ({b['min']:g}{unit})",
        }
    return {
        "normal": True,
        "baseline": b,
        "why": f"{v:g}{unit} is within the usual range of {b['n']} samples "
        f"(avg {b['avg']:g}{unit}, p95 {b['p95']:g}{unit})",
    }


def list_metrics(store, *, scope=None) -> list[dict]:
    where, params = "", []
    if scope:
        where, params = "WHERE scope = ?", [scopes.parse(scope)]
    return store.rows(
        f"SELECT name, count(*) AS n, max(recorded_at) AS last_recorded, min(unit) AS unit"
        f" FROM metric_samples {where} GROUP BY name ORDER BY last_recorded DESC",
        params,
    )
