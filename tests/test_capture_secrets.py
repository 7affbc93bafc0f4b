"""Secrets typed by the person, seen in the transcript or written in a marker never reach the
database (any table, the raw files), the audit log or an export."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.hooks import payload

GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
ANTHROPIC = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEF_xyzAA"
AWS = "AKIAIOSFODNN7EXAMPLE"
URL_PW = "s3cr3tUrlPw"
DB_PW = "Sup3rS3cretDb"
PLAIN_PW = "hunter2xyz!"
STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
PRIVATE_KEY_BODY = "MIIEpAIBAAKCAQEA1234567890abcdefghijKLMNOPQRSTUV"
SECRETS = [GITHUB, ANTHROPIC, AWS, URL_PW, DB_PW, PLAIN_PW, STRIPE, PRIVATE_KEY_BODY]


def _transcript(tmp_path: Path) -> str:
    t = tmp_path / "secret-session.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": f"deploy it, the key is {AWS}"}},
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Using {ANTHROPIC} to call the API."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {
                            "command": f"curl -H 'Authorization: Bearer {ANTHROPIC}' https://deploy:{URL_PW}@ci.example.com/run"
                        },
                    },
                ],
            },
        },
    ]
    t.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return str(t)


def _everything_in_db(db_path: Path, store) -> str:
    parts = []
    for t in store.rows("SELECT name FROM sqlite_master WHERE type = 'table'"):
        for row in store.rows(f'SELECT * FROM "{t["name"]}"'):
            for v in row.values():
                parts.append(v.decode("latin-1") if isinstance(v, (bytes, bytearray)) else str(v))
    for f in db_path.parent.glob(db_path.name + "*"):
        parts.append(f.read_bytes().decode("latin-1"))
    return "\n".join(parts)


def test_no_secret_reaches_database_audit_or_export(hook, cli, store, db_path, tmp_path):
    transcript = _transcript(tmp_path)
    prompts = [
        f"No, never use the token {GITHUB}, use the GH_TOKEN env var instead",
        f"stop using https://admin:{URL_PW}@internal.example.com/api",
        f"Don't put DB_PASSWORD={DB_PW} in the compose file",
        f"use {STRIPE}, not the test key",
        f"never use the password {PLAIN_PW} again",
        "don't paste keys like this one:\n-----BEGIN RSA PRIVATE KEY-----\n"
        f"{PRIVATE_KEY_BODY}\n-----END RSA PRIVATE KEY-----",
    ]
    for i, prompt in enumerate(prompts):
        r = hook(
            "UserPromptSubmit",
            payload("UserPromptSubmit", prompt=prompt, session_id=f"s{i % 2}", transcript_path=transcript),
        )
        assert r.returncode == 0
        assert store.value("SELECT sum(occurrence_count) FROM corrections") == i + 1, prompt
        assert not any(s in r.stdout for s in SECRETS)
    # the same correction again, so it is promoted (a rule and an entry get written)
    for sid in ("s7", "s8"):
        hook(
            "UserPromptSubmit",
            payload(
                "UserPromptSubmit", prompt=f"never use the token {GITHUB}", session_id=sid, transcript_path=transcript
            ),
        )
    hook(
        "Stop",
        payload(
            "Stop",
            session_id="s1",
            transcript_path=transcript,
            last_assistant_message=(
                f"[MEMORY:remediation:api] Rotate {AWS} when calls fail with 403\n"
                f"[MEMORY:behavior:db] Connects with postgres://app:{DB_PW}@db:5432/x only\n"
                f"[MEMORY:misc] password={PLAIN_PW}"
            ),
        ),
    )
    r = cli("capture", "--user-message", f"never send {GITHUB} to the logs", "--context", f"export AWS_KEY={AWS}")
    assert r.returncode == 0 and not any(s in r.stdout for s in SECRETS)
    queue = json.loads(cli("review", "--list", "--json").stdout)
    corrections = [q for q in queue if q.get("item") != "scope"]  # not the markers' scope requests
    r = cli("review", "--approve", corrections[-1]["id"], "--message", f"token {GITHUB} is not for logs")
    assert r.returncode == 0, r.stderr

    assert store.value("SELECT count(*) FROM corrections") >= 6
    assert store.value("SELECT count(*) FROM memory_entries WHERE source = 'marker'") == 2
    stored = _everything_in_db(db_path, store)
    leaked = [s for s in SECRETS if s in stored]
    assert leaked == []
    assert "[REDACTED:github-token]" in stored and "[REDACTED]@internal.example.com" in stored

    audit = cli("audit", "--json", "--limit", "1000")
    assert audit.returncode == 0 and not [s for s in SECRETS if s in audit.stdout]
    out = tmp_path / "export.jsonl"
    exported = cli("export", "--output", str(out)) if "--output" in cli("export", "--help").stdout else cli("export")
    assert exported.returncode == 0, exported.stderr
    text = out.read_text() if out.exists() else exported.stdout
    assert "corrections" in text
    assert not [s for s in SECRETS if s in text]
