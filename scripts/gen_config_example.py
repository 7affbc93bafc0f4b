#!/usr/bin/env python3
"""Regenerate config.example.json from memory_cli.settings.FIELDS (the single source of truth).

Each section carries a "_help" object explaining its keys; the loader ignores keys that start
with an underscore, so the example can be copied as it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_cli.settings import FIELDS, defaults  # noqa: E402


def build() -> dict:
    data = defaults()
    out: dict = {"_help": {}}
    for section, key, _t, _d, _c, help_ in FIELDS:
        if section is None:
            out[key] = data[key]
            out["_help"][key] = help_
        else:
            sec = out.setdefault(section, {"_help": {}})
            sec[key] = data[section][key]
            sec["_help"][key] = help_
    return out


def render() -> str:
    return json.dumps(build(), indent=2) + "\n"


if __name__ == "__main__":
    target = ROOT / "config.example.json"
    if "--check" in sys.argv:
        sys.exit(0 if target.read_text() == render() else 1)
    target.write_text(render())
    print(f"wrote {target}")
