"""The reliability harness in --quick mode finds no defect.

It drives real processes: concurrent CLI, library and hook writers on one store, kill -9 during
write batches, fuzzed payloads for every registered hook event, the embedding daemon frozen and
killed while hooks run, and a full disk. Its limits are the hooks' hard deadlines (seconds),
so it runs beside the other tests. The gate-under-load row is measured by the full run
(and asserted by the enforcement tests), not here: its busy loops would slow the whole suite.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.semantic
def test_quick_reliability_run_finds_no_defect():
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "reliability.py"),
            "--quick",
            "--only",
            "concurrency,kill9,fuzz,daemon,disk",
        ],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    table = proc.stdout
    assert table.startswith("| check | figures | result |"), proc.stderr[-2000:]
    rows = [ln for ln in table.splitlines()[2:] if ln.startswith("|")]
    assert len(rows) >= 13, table  # 1 + 1 + 8 events + store + daemon + disk
    failed = [ln for ln in rows if not ln.rstrip().endswith("| ok |")]
    assert failed == [], table
    assert proc.returncode == 0, table + proc.stderr[-2000:]
