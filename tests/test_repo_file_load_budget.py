"""A repository file at its caps (1,000 entries) loads within SessionStart's budget: its rules
hold and its memories are injected; on a loaded machine the load goes on at the next session
start from where the budget stopped it."""

import io
import json
import subprocess

from helpers.hooks import payload, run_hook
from helpers.waiting import wait_for_maintenance

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


def _loaded(db) -> int:
    from memory_cli.store.db import Store

    with Store.open(db) as s:
        return s.value("SELECT count(*) FROM memory_entries WHERE origin LIKE 'repo:%' AND status = 'active'")


def test_a_thousand_entry_repository_file_is_loaded_and_injected_at_session_start(tmp_path):
    """At its caps the file takes about 1.5 s of CPU to load: on an idle machine one session start
    loads it whole; on a loaded one each start loads what its budget allows, rules first, keeps
    it, injects, and the next start goes on. Either way it is all in, and its rules hold."""
    db = tmp_path / "me.db"
    root = _repo(tmp_path)
    env = {"CLAUDE_PROJECT_DIR": str(root)}
    said, contexts = [], []
    for _ in range(12):
        start = run_hook("SessionStart", payload("SessionStart", cwd=str(root)), db=db, env=env)
        assert start.returncode == 0, start.stderr
        said.append(start.system_message or "")
        contexts.append(start.context or "")
        if _loaded(db) == MAX_ENTRIES and "left for the next session start" not in said[-1]:
            break
    assert _loaded(db) == MAX_ENTRIES, said
    assert any("billing service" in c for c in contexts), said
    assert all("removed" not in m for m in said), said  # nothing archived from a file read in part
    deny = run_hook(
        "PreToolUse", payload("PreToolUse", cwd=str(root), tool_input={"command": "tool999 --danger"}), db=db, env=env
    )
    assert deny.decision == "deny", (said, deny)


def test_a_load_its_budget_ends_keeps_its_part_rules_first_and_goes_on_next_time(tmp_path, monkeypatch):
    from memory_cli.hooks import runner
    from memory_cli.sharing import hook as sharing_hook

    root = _repo(tmp_path)
    db = str(tmp_path / "me.db")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    monkeypatch.setattr(sharing_hook, "LOAD_BUDGET_S", 0.0)  # one part per session start
    body = json.dumps(payload("SessionStart", cwd=str(root)))

    def start() -> str:
        out = io.StringIO()
        assert runner.main("SessionStart", db, stdin=io.StringIO(body), stdout=out) == 0
        # the maintenance this start began holds the store's write lock a moment: the next
        # start's load would find it busy (and fail open, going on at the start after)
        wait_for_maintenance(db)
        return json.loads(out.getvalue() or "{}").get("systemMessage", "")

    first = start()
    assert "100 added" in first and "900 of 1000 entries left for the next session start" in first, first
    from memory_cli.store.db import Store

    with Store.open(db) as s:  # the part loaded is the rules'
        kinds = s.rows("SELECT type, count(*) AS n FROM memory_entries GROUP BY type")
    assert {r["type"]: r["n"] for r in kinds} == {"rule": 100}
    said = [first] + [start() for _ in range(9)]
    assert "left for the next" not in said[-1] and _loaded(db) == MAX_ENTRIES, said
    assert start() == ""  # loaded: nothing to do at the next start
    assert all("removed" not in m for m in said), said


def test_a_load_redacts_each_text_once(tmp_path, monkeypatch):
    """Why the load used to overrun: every text was redacted again for each row carrying it
    (about nine redactions per entry, most of them of the same origin, path and content)."""
    from memory_cli.hooks import runner
    from memory_cli.privacy import redact

    root = _repo(tmp_path)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    texts: list[str] = []
    real = redact._redact  # the redaction itself, behind what remembers its results

    def counted(text, *a, **kw):
        if isinstance(text, str) and text:
            texts.append(text)
        return real(text, *a, **kw)

    from memory_cli.sharing import hook as sharing_hook

    monkeypatch.setattr(sharing_hook, "LOAD_BUDGET_S", None)  # the whole file in one load, however slow
    monkeypatch.setattr(redact, "_redact", counted)
    monkeypatch.setattr(redact, "_SEEN", {})  # what earlier tests in this process redacted
    monkeypatch.setattr(redact, "_seen_chars", 0)
    out = io.StringIO()
    body = json.dumps(payload("SessionStart", cwd=str(root)))
    assert runner.main("SessionStart", str(tmp_path / "me.db"), stdin=io.StringIO(body), stdout=out) == 0
    assert f"{MAX_ENTRIES} added" in json.loads(out.getvalue())["systemMessage"]
    assert len(texts) == len(set(texts)) and len(texts) < 2 * MAX_ENTRIES, (len(texts), len(set(texts)))
