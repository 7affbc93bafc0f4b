"""A repository file at its caps (1,000 entries) loads within SessionStart's budget: its rules
hold and its memories are injected in the same session start."""

import io
import json
import subprocess
import time

from conftest import payload, run_hook

from memory_cli.sharing.repo_file import MAX_BYTES, MAX_ENTRIES

WORDS = [
    "when",
    "deploying",
    "the",
    "billing",
    "service",
    "remember",
    "that",
    "the",
    "staging",
    "cluster",
    "uses",
    "a",
    "separate",
    "vault",
    "path",
    "and",
    "the",
    "migration",
    "runner",
    "must",
    "be",
    "invoked",
    "with",
    "the",
    "dry",
    "run",
    "flag",
    "before",
    "any",
    "schema",
    "change",
]


def _big_file(root) -> None:
    blocks = []
    for i in range(MAX_ENTRIES):
        eid = f"0190a0a0-0000-7000-8000-{i:012x}"
        content = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(40)) + f" case {i}"
        head = f'[[memory]]\nid = "{eid}"\ncontent = "{content}"\ncategory = "behavior"\nsubject = "billing{i}"\n'
        head += f'tags = ["deploy", "team-{i % 7}"]\n'
        if i % 2:
            blocks.append(
                head + f'type = "rule"\n\n[memory.rule]\npattern = "tool{i}\\\\s+--danger"\n'
                f'pattern_type = "regex"\naction = "block"\nmessage = "Not tool{i} with --danger"\n'
            )
        else:
            blocks.append(head + 'type = "fact"\n')
    (root / ".claude").mkdir()
    text = "\n".join(blocks)
    assert len(text.encode()) <= MAX_BYTES
    (root / ".claude" / "memory-cli.toml").write_text(text)


def _repo(tmp_path):
    root = tmp_path / "shop"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    _big_file(root)
    return root


def test_a_thousand_entry_repository_file_is_loaded_and_injected_by_one_session_start(tmp_path):
    db = tmp_path / "me.db"
    root = _repo(tmp_path)
    env = {"CLAUDE_PROJECT_DIR": str(root)}
    started = time.monotonic()
    start = run_hook("SessionStart", payload("SessionStart", cwd=str(root)), db=db, env=env)
    took = time.monotonic() - started
    assert start.returncode == 0, start.stderr  # the watchdog ends the process with 1
    assert f"{MAX_ENTRIES} added" in start.system_message
    assert "billing service" in start.context
    deny = run_hook(
        "PreToolUse", payload("PreToolUse", cwd=str(root), tool_input={"command": "tool999 --danger"}), db=db, env=env
    )
    assert deny.decision == "deny", (took, deny)


def test_a_load_redacts_each_text_once(tmp_path, monkeypatch):
    """Why the load used to overrun: every text was redacted again for each row carrying it
    (about nine redactions per entry, most of them of the same origin, path and content)."""
    from memory_cli import redact
    from memory_cli.hooks import runner

    root = _repo(tmp_path)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    texts: list[str] = []
    real = redact._redact  # the redaction itself, behind what remembers its results

    def counted(text, *a, **kw):
        if isinstance(text, str) and text:
            texts.append(text)
        return real(text, *a, **kw)

    monkeypatch.setattr(redact, "_redact", counted)
    monkeypatch.setattr(redact, "_SEEN", {})  # what earlier tests in this process redacted
    monkeypatch.setattr(redact, "_seen_chars", 0)
    out = io.StringIO()
    body = json.dumps(payload("SessionStart", cwd=str(root)))
    assert runner.main("SessionStart", str(tmp_path / "me.db"), stdin=io.StringIO(body), stdout=out) == 0
    assert f"{MAX_ENTRIES} added" in json.loads(out.getvalue())["systemMessage"]
    assert len(texts) == len(set(texts)) and len(texts) < 2 * MAX_ENTRIES, (len(texts), len(set(texts)))
