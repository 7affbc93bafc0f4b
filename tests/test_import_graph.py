"""The package's import structure stays as docs/ARCHITECTURE.md draws it.

``scripts/import_graph.py`` counts import cycles and imports that run up the layers (imports
inside functions included); the import-linter contract in ``pyproject.toml`` checks the same
layers in ``make test``. Both tables must say the same thing, or one of them checks nothing.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import import_graph  # noqa: E402


def test_import_cycles_and_upward_imports_stay_within_their_bounds():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "import_graph.py"), "--fail-over", "0,0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_import_linter_contract_and_the_script_place_every_module_in_the_same_layer():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]
    names = ["edges", "domain", "store and shared helpers"]  # top first, as import-linter lists them
    owner = {}
    for name, layer in zip(names, contract["layers"], strict=True):
        for tail in layer.split(":"):
            owner["memory_cli." + tail.strip()] = name
    for mod in import_graph.modules():
        listed = [m for m in owner if mod == m or mod.startswith(m + ".")]
        if not listed and any(m.startswith(mod + ".") for m in owner):
            continue  # a package split across layers (its modules are listed one by one)
        assert listed, f"{mod} is in no layer of the import-linter contract"
        assert owner[max(listed, key=len)] == import_graph.layer_of(mod), mod
