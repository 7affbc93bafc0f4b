"""Metric samples and the baseline question: is this value normal for this metric?

A value is judged only once the metric has ``MIN_SAMPLES`` samples; until then it is called
normal and the answer says why. Past that, the baseline is the last ``WINDOW`` samples, judged
by their median and median absolute deviation (MAD) rather than their average and p95: one hang
among them (61 s among runs of 10 s) moves neither, so it cannot make a later, slower run look
normal. A value is abnormal when it is more than ``HIGH_MEDIAN`` x the median and its robust
z-score, ``0.6745 x (value - median) / MAD``, is above ``Z_LIMIT`` (a noisy metric, with a wide
MAD, does not cry wolf), or below ``LOW_MEDIAN`` x the median with a z-score below
``-Z_LIMIT``. With a MAD of 0 (every sample alike) the ratio to the median decides alone.
"""

from __future__ import annotations

import math
import re

from .. import audit, fields
from .. import scope as scopes
from ..errors import InvalidInput
from ..util import now_iso

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from ..store.db import Store

MIN_SAMPLES = 5
WINDOW = 100
HIGH_MEDIAN = 2.0
LOW_MEDIAN = 0.5
Z_LIMIT = 3.5  # the usual cut-off for the robust (modified) z-score


def _name(value) -> str:
    name = fields.text(None, value, "name", required=True, max_len=200)
    return re.sub(r"\s+", " ", name)


def _number(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput(f"value must be a finite number, got {value!r}")
    return float(value)


def record(store: Store, name, value, *, unit=None, scope=None, session_id=None, audited: bool = True) -> dict:
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


def apply_spooled(store: Store, op_id: str, at: str | None, args: dict) -> None:
    """A sample a hook took while another process held the write lock (see memory_cli.store.spool)."""
    record(
        store,
        args.get("name"),
        args.get("value"),
        unit=args.get("unit"),
        scope=args.get("scope"),
        session_id=args.get("session_id"),
        audited=False,
    )


def _median(values: list[float]) -> float:
    """The median of sorted ``values``."""
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def baseline(store: Store, name, *, scope=None) -> dict:
    """``{"n", "median", "mad", "avg", "p95", "min", "max", "unit"}`` over the last ``WINDOW``
    samples; ``median`` and ``mad`` are what :func:`check` judges by."""
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
        return {"n": 0, "median": None, "mad": None, "avg": None, "p95": None, "min": None, "max": None, "unit": None}
    p95 = values[min(len(values) - 1, math.ceil(0.95 * len(values)) - 1)]
    median = _median(values)
    return {
        "n": len(values),
        "median": round(median, 6),
        "mad": round(_median(sorted(abs(v - median) for v in values)), 6),
        "avg": round(sum(values) / len(values), 6),
        "p95": p95,
        "min": values[0],
        "max": values[-1],
        "unit": rows[0]["unit"],
    }


def check(store: Store, name, value, *, scope=None) -> dict:
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
    median, mad = b["median"], b["mad"]
    ratio = v / median if median else math.inf
    z = 0.6745 * (v - median) / mad if mad else (math.inf if v > median else -math.inf if v < median else 0.0)
    usual = f"median {median:g}{unit}, MAD {mad:g}{unit}"
    if v > HIGH_MEDIAN * median and z > Z_LIMIT:
        return {
            "normal": False,
            "baseline": b,
            "why": f"{v:g}{unit} is {ratio:.1f}x the median of {b['n']} samples ({usual})",
        }
    if median > 0 and v < LOW_MEDIAN * median and z < -Z_LIMIT:
        return {
            "normal": False,
            "baseline": b,
            "why": f"{v:g}{unit} is below half the median of {b['n']} samples ({usual})",
        }
    return {
        "normal": True,
        "baseline": b,
        "why": f"{v:g}{unit} is within the usual range of {b['n']} samples ({usual})",
    }


def list_metrics(store: Store, *, scope=None) -> list[dict]:
    where, params = "", []
    if scope:
        where, params = "WHERE scope = ?", [scopes.parse(scope)]
    return store.rows(
        f"SELECT name, count(*) AS n, max(recorded_at) AS last_recorded, min(unit) AS unit"
        f" FROM metric_samples {where} GROUP BY name ORDER BY last_recorded DESC",
        params,
    )
