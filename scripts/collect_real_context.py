#!/usr/bin/env python3
"""Record, beside each labelled real prompt, what the agent had just done (its last turn).

Reads every session log named in tests/fixtures/real/sources.md from a local mirror of its
repository (``git show <commit>:<path>``, the commit the prompts were read at) and, for each
prompt of tests/fixtures/real/prompts.jsonl, feeds the log's lines before that prompt, newest
first, to ``memory_cli.capture.agent_turn.from_lines``: the function the UserPromptSubmit hook
runs on the live transcript. The agent's last words and its last tool call's input are
redacted like everything memory-cli stores. Writes tests/fixtures/real/context.jsonl, one line per prompt in the same order:
``file``, ``line``, ``repo`` and the turn's fields.

Needs the network once (the mirrors), never in CI: the tests read the file it writes.

    .venv/bin/python scripts/collect_real_context.py --mirrors /work/.mirror
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
REAL = ROOT / "tests" / "fixtures" / "real"

from memory_cli.capture.agent_turn import from_lines  # noqa: E402
from memory_cli.privacy.redact import redact  # noqa: E402

_SOURCE_ROW = re.compile(r"\| (\S+) \| `([^`]+)` \| (\w+) \|")


def sources() -> dict[tuple[str, str], str]:
    out = {}
    for line in (REAL / "sources.md").read_text(encoding="utf-8").splitlines():
        m = _SOURCE_ROW.match(line)
        if m:
            out[(m[1], m[2])] = m[3]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", required=True, help="folder of owner+name/repo git directories")
    args = ap.parse_args()
    commits = sources()
    rows = [json.loads(x) for x in (REAL / "prompts.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    cache: dict[tuple[str, str], list[bytes]] = {}
    out = []
    for r in rows:
        key = (r["repo"], r["file"])
        if key not in cache:
            git_dir = Path(args.mirrors) / r["repo"].replace("/", "+") / "repo"
            blob = subprocess.run(
                ["git", "--git-dir", str(git_dir), "show", f"{commits[key]}:{r['file']}"],
                capture_output=True,
                check=True,
            ).stdout
            cache[key] = blob.split(b"\n")
        lines = cache[key]
        record = json.loads(lines[r["line"] - 1])
        turn = from_lines(reversed(lines[: r["line"] - 1]), None)
        data = turn.as_dict()
        data["text"] = redact(data["text"])[0]
        data["last_input"] = redact(data["last_input"])[0]
        out.append({"file": r["file"], "line": r["line"], "repo": r["repo"], **data})
        assert record.get("type") == "user", (key, r["line"])
    with (REAL / "context.jsonl").open("w", encoding="utf-8") as fh:
        for o in out:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")
    found = sum(1 for o in out if o["found"])
    print(f"{len(out)} prompts, {found} after an agent turn, {len(cache)} session logs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
