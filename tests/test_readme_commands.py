"""The README's "Five minutes in your own project", run as written: its command blocks in order,
through bash, from a fresh HOME, starting in this checkout as the README says."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def five_minutes_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Five minutes in your own project", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, re.S)


def test_five_minutes_commands_work_as_written(claude_dir, tmp_path):
    blocks = five_minutes_blocks()
    setup, first_rule, _review, looking = blocks[:4]
    assert "memory-cli install" in setup and "rules test" in first_rule
    # Everything but `show ID`, whose ID the reader copies from the lines before.
    looking = "\n".join(ln for ln in looking.splitlines() if " ID" not in ln)
    script = "\n".join(["set -e", "shopt -s expand_aliases", "mkdir -p ~/your-project", setup, first_rule, looking])
    r = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "rule: command 'pythonw.exe' -> block" in r.stdout + r.stderr
    assert re.search(r"^blocked: Bash call matches rule", r.stdout, re.M), r.stdout
    settings = (claude_dir / "settings.json").read_text()
    assert "PreToolUse" in settings  # `install` registered the hooks before the first rule
