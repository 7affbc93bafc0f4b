"""Secrets planted through every entry point never reach a file memory-cli writes, and no
stored field grows without bound.

Each planted secret carries a distinctive fragment; after driving the real CLI and the real
hook processes, the raw bytes of the database, its WAL, the export, hook-errors.log and the
audit log are searched for every fragment.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess

from helpers.cli import run_cli
from helpers.hooks import payload, run_hook

# Distinctive fragments that must never appear in any file.
AWS = "AKIAPLANTED7ZQ9XK2W4"
GH = "ghp_Pl4nt3dTok3nAbCdEfGhIjKlMnOpQrStUv12"
ANT = "sk-ant-api03-Pl4nt3dAnthropicKey0123456789abcdef"
PW = "Hunt3r2PlantedPw"
FRAGMENTS = ["PLANTED7ZQ9XK2W4", "Pl4nt3dTok3n", "Pl4nt3dAnthropic", "Hunt3r2Planted"]

# Shapes a person or a payload really uses, each holding one of the secrets.
FORMS = [
    f"password={PW}1",
    f"note: password={PW}2",
    f"env: API_KEY={PW}3abc",
    f'{{"password": "{PW}4"}}',
    f'{{"cmd": "login password={PW}5"}}',
    f"callback https://example.com/cb?access_token={PW}6xyz",
    f"postgres://app:{PW}7@db.internal/prod",
    f"aws key {AWS}",
    f"token {GH}",
    ANT,
]


def _files(db, extra=()):
    out = [db, db.with_name(db.name + "-wal")] + list(extra)
    return [p for p in out if p.exists()]


def _leaks(files):
    found = []
    for p in files:
        data = p.read_bytes()
        for frag in FRAGMENTS:
            if frag.encode() in data:
                found.append((p.name, frag))
    return found


def test_redactor_catches_secrets_inside_other_assignments_and_urls():
    from memory_cli.privacy.redact import redact

    for form in FORMS:
        out, kinds = redact(form)
        assert kinds, form
        assert not any(f in out for f in FRAGMENTS), (form, out)
    # ordinary text keeps its shape
    assert redact("note: run the tests first")[0] == "note: run the tests first"


def test_redact_first_then_cut_never_leaves_part_of_a_key():
    from memory_cli.privacy.redact import redact_cut

    text = "x" * 290 + " " + AWS + " tail"
    out = redact_cut(text, 300)
    assert len(out) <= 300
    assert "PLANTED" not in out and "AKIA" not in out


def test_secrets_from_every_cli_entry_point_never_reach_the_files(tmp_path, db_path):
    secret_text = " | ".join(FORMS)
    r = run_cli(
        "add",
        "--type",
        "fact",
        "--content",
        f"deploy notes {secret_text}",
        "--tags",
        f"ops,password={PW}t,{AWS}",
        "--subject",
        f"token={PW}s",
        db=db_path,
    )
    assert r.returncode == 0, r.stderr
    eid = json.loads(run_cli("--json", "list", db=db_path).stdout)
    eid = (eid[0] if isinstance(eid, list) else eid["entries"][0])["id"]
    r = run_cli("update", eid, "--tags", f"api_key={PW}u9", "--subject", f"secret: {GH}", db=db_path)
    assert r.returncode == 0, r.stderr
    r = run_cli(
        "rules",
        "add",
        "Never print the deploy key",
        "--pattern",
        "print-deploy-key",
        "--pattern-type",
        "regex",
        "--action",
        "block",
        "--name",
        f"token={PW}n",
        "--message",
        f"blocked: {ANT}",
        db=db_path,
    )
    assert r.returncode == 0, r.stderr + r.stdout

    # import: tags, subject, session ids, audit rows and kv, not only content
    export = tmp_path / "in.jsonl"
    from memory_cli.store.migrations import LATEST

    lines = [
        json.dumps(
            {
                "format": "memory-cli-export",
                "version": 1,
                "schema_version": LATEST,
                "tables": ["memory_entries", "memory_audit_log", "kv"],
            }
        )
    ]
    lines.append(
        json.dumps(
            {
                "table": "memory_entries",
                "row": {
                    "id": "11111111-2222-4333-8444-555555555555",
                    "content": f"imported {FORMS[1]}",
                    "type": "fact",
                    "scope": "global",
                    "source": "imported",
                    "confidence": 0.8,
                    "tags": json.dumps([f"password={PW}it", AWS]),
                    "subject": f"{FORMS[2]}",
                    "created_at": "2026-01-01T00:00:00.000000Z",
                    "updated_at": "2026-01-01T00:00:00.000000Z",
                },
            }
        )
    )
    lines.append(
        json.dumps(
            {
                "table": "memory_audit_log",
                "row": {
                    "id": "21111111-2222-4333-8444-555555555555",
                    "timestamp": "2026-01-01T00:00:00.000000Z",
                    "action": "hook",
                    "context": FORMS[5],
                    "result": "ok",
                    "details": json.dumps({"cmd": FORMS[0], "k": GH}),
                    "session_id": f"session password={PW}x",
                    "hook_event": "PreToolUse",
                },
            }
        )
    )
    lines.append(
        json.dumps(
            {
                "table": "kv",
                "row": {
                    "key": "note",
                    "value": json.dumps({"v": FORMS[6]}),
                    "updated_at": "2026-01-01T00:00:00.000000Z",
                },
            }
        )
    )
    export.write_text("\n".join(lines) + "\n")
    r = run_cli("import", str(export), db=db_path)
    assert r.returncode == 0, r.stderr

    out = tmp_path / "out.jsonl"
    r = run_cli("export", "-o", str(out), db=db_path)
    assert r.returncode == 0, r.stderr
    audit = run_cli("--json", "audit", "--limit", "1000", db=db_path)
    assert audit.returncode == 0
    (tmp_path / "audit.json").write_text(audit.stdout)

    assert _leaks(_files(db_path, [out, tmp_path / "audit.json"])) == []
    # and the memory is still there, with its harmless parts intact
    text = out.read_text()
    assert "deploy notes" in text and "[REDACTED" in text and "ops" in text


HOOK_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "PreCompact",
    "SessionEnd",
]


def test_secrets_in_every_hook_field_never_reach_the_files(tmp_path, db_path, claude_dir):
    secret = " ".join(FORMS)
    r = run_cli(
        "rules",
        "add",
        "Never use pythonw",
        "--pattern",
        "pythonw",
        "--pattern-type",
        "regex",
        "--action",
        "block",
        db=db_path,
    )
    assert r.returncode == 0, r.stderr
    for event in HOOK_EVENTS:
        body = payload(event, session_id=f"s-{AWS}")
        for key in ("source", "prompt", "last_assistant_message", "error", "reason", "custom_instructions"):
            if key in body:
                body[key] = f"{body[key]} {secret}"
        if "tool_input" in body:
            body["tool_input"] = {"command": f"pythonw {secret}", "description": secret}
            body["tool_name"] = f"Bash {GH}"
        res = run_hook(event, body, db=db_path)
        assert res.returncode == 0, res
        # a wrong hook_event_name and a wrong-typed field end in an error record
        bad = dict(body, hook_event_name=f"Evil {ANT}", source=["not", "a", f"string {GH}"])
        res = run_hook(event, bad, db=db_path)
        assert res.returncode == 0, res
    # Without a usable store the record goes to hook-errors.log: secrets stay out of it too.
    broken = tmp_path / "not-a-db"
    broken.write_text("plain text, not SQLite\n")
    res = run_hook(
        "SessionStart",
        dict(payload("SessionStart"), hook_event_name=f"X {ANT}", session_id=f"password={PW}z"),
        db=broken,
    )
    assert res.returncode == 0
    log = claude_dir / "memory" / "hook-errors.log"
    assert log.exists()
    rows = run_cli("--json", "audit", "--limit", "1000", db=db_path)
    (tmp_path / "audit.json").write_text(rows.stdout)
    assert "hook_error" in rows.stdout  # the bad payloads left error records
    assert _leaks(_files(db_path, [log, tmp_path / "audit.json"])) == []


def test_every_stored_field_is_bounded_with_a_marker(db_path):
    """20 SessionStart payloads with a 5 MB source keep the store small."""
    big = "s" * (5 * 1024 * 1024)
    for _ in range(4):
        res = run_hook("SessionStart", payload("SessionStart", source=big), db=db_path)
        assert res.returncode == 0, res
        res = run_hook("SessionStart", dict(payload("SessionStart"), source=big, hook_event_name=big), db=db_path)
        assert res.returncode == 0, res
    size = sum(p.stat().st_size for p in _files(db_path))
    assert size < 3 * 1024 * 1024, size
    rows = json.loads(run_cli("--json", "audit", "--limit", "100", db=db_path).stdout)
    rows = rows if isinstance(rows, list) else rows.get("events") or rows.get("rows")
    longest = max(len(json.dumps(r)) for r in rows)
    assert longest < 40_000
    assert any("[cut" in json.dumps(r) for r in rows)

    from memory_cli.privacy.redact import FIELD_LIMITS
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        s.execute("INSERT INTO kv(key, value, updated_at) VALUES (?,?,?)", ("k", "v" * 10_000_000, "t"))
        stored = s.value("SELECT value FROM kv WHERE key='k'")
    assert len(stored) <= FIELD_LIMITS["kv.value"] and "[cut" in stored


def test_store_files_are_private_under_umask_022(tmp_path, claude_dir):
    """The store, its WAL/SHM, the export, hook-errors.log and the memory dir: 0600/0700."""
    db = claude_dir / "memory" / "memory.db"
    script = f"""
import os, subprocess, sys
os.umask(0o022)
mc = {json.dumps(run_cli.__globals__["_cmd"]())}
env = dict(os.environ)
subprocess.run(mc + ["add", "--type", "fact", "--content", "private"], env=env, check=True)
subprocess.run(mc + ["export", "-o", {json.dumps(str(tmp_path / "exp.jsonl"))}], env=env, check=True)
bad = dict(env, MEMORY_CLI_DB={json.dumps(str(tmp_path / "junk"))})
subprocess.run(mc + ["hook", "SessionStart"], input=b"not json", env=bad)
# keep a connection open so -wal and -shm exist while modes are read
sys.path.insert(0, {json.dumps(os.getcwd())})
from memory_cli.store.db import Store
s = Store.open({json.dumps(str(db))})
s.execute("INSERT INTO kv(key, value, updated_at) VALUES ('a','b','c')")
for p in [{json.dumps(str(db))}, {json.dumps(str(db))} + "-wal", {json.dumps(str(db))} + "-shm",
          {json.dumps(str(tmp_path / "exp.jsonl"))}, {json.dumps(str(claude_dir / "memory" / "hook-errors.log"))},
          {json.dumps(str(claude_dir / "memory"))}]:
    print(p, oct(os.stat(p).st_mode & 0o777))
"""
    (tmp_path / "junk").write_text("not a database")
    r = subprocess.run([os.sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    modes = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines() if " 0o" in line)
    assert len(modes) == 6, r.stdout
    for path, mode in modes.items():
        want = "0o700" if path.endswith("memory") else "0o600"
        assert mode == want, (path, mode)


def test_an_existing_world_readable_store_is_made_private(db_path):
    from memory_cli.store.db import Store

    Store.open(db_path).close()
    os.chmod(db_path, 0o644)
    Store.open(db_path).close()
    assert stat.S_IMODE(os.stat(db_path).st_mode) == 0o600


def test_gate_keeps_rule_patterns_verbatim_and_json_valid(store):
    """A rule's pattern is code: redacting it would change what it matches."""
    from memory_cli.rules import api

    api.create_rule(
        store,
        "Never put a token on the command line",
        pattern=r"curl .*token=\S+",
        pattern_type="regex",
        action="block",
    )
    got = store.value("SELECT pattern FROM enforcement_rules ORDER BY rowid DESC LIMIT 1")
    assert got == r"curl .*token=\S+"
    from memory_cli import audit

    audit.record(store, "x", details={"cmd": f"login --user u password={PW}9", "n": 3})
    details = store.value("SELECT details FROM memory_audit_log WHERE action='x'")
    assert PW not in details and json.loads(details)["n"] == 3


def test_lone_surrogate_session_id_leaves_a_record(db_path):
    raw = json.dumps(payload("UserPromptSubmit", prompt="hi")).replace('"abc123"', '"\\udc80abc"')
    res = run_hook("UserPromptSubmit", raw, db=db_path)
    assert res.returncode == 0, res
    from memory_cli.store.db import Store

    with Store.open(db_path) as s:
        n = s.value("SELECT count(*) FROM memory_audit_log WHERE hook_event='UserPromptSubmit'")
    assert n >= 1
