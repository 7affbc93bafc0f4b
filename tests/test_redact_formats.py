"""Every kind of secret the vendored scanner rules name is redacted, and so are the command-line
forms people type (PGPASSWORD=, mysql -pPASS, curl -u user:pass); ordinary code and text in
this repository stays as it is.

The corpus is one planted secret per vendored rule, written from the rule's own regex
(``secret_examples``) and placed in a line of prose, so adding rules to the data file adds
cases here without anyone writing examples by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.secret_examples import candidates

from memory_cli.privacy import secret_formats
from memory_cli.privacy.redact import redact

ROOT = Path(__file__).resolve().parent.parent


def _secret_of(rule: dict, text: str) -> str | None:
    """What this rule alone takes for the secret in ``text`` (its group, past its entropy)."""
    m = re.search(rule["regex"], text)
    if m is None:
        return None
    group = rule.get("group", 0)
    if group > 0:
        secret = m.group(group)
    elif group < 0:
        secret = next((g for g in m.groups() if g), m.group(0))
    else:
        secret = m.group(0)
    if not secret or (rule.get("entropy") and secret_formats.entropy(secret) < rule["entropy"]):
        return None
    return secret


def _example(rule: dict) -> tuple[str, str] | None:
    """A text with one secret of this kind, and the secret, that the vendored rules find (by
    this rule, or by another rule with the same pattern: gitleaks has such twins)."""
    keywords = rule["keywords"]
    for cand in candidates(rule["regex"]):
        text = f"the value is {cand}\nthanks"
        if keywords and not any(k in text.lower() for k in keywords):
            text = f"the {keywords[0]} value is {cand}\nthanks"  # the keyword as context
        secret = _secret_of(rule, text)
        if secret is None:
            continue
        at = text.find(secret)
        if any(s <= at and at + len(secret) <= e for s, e, _k in secret_formats.find(text)):
            return text, secret
    return None


RULES = secret_formats.rules()


def test_the_vendored_rules_name_their_source_and_licence():
    src = secret_formats.source()
    assert src["repository"] == "https://github.com/gitleaks/gitleaks" and re.fullmatch(r"[0-9a-f]{40}", src["commit"])
    licence = (ROOT / "memory_cli" / "privacy" / "secret_formats.LICENSE").read_text()
    assert "MIT License" in licence
    data = json.loads((ROOT / "memory_cli" / "privacy" / "secret_formats.json").read_text())
    assert len(RULES) >= 200 and all(x["why"] for x in data["left_out"])


@pytest.mark.parametrize("rule", RULES, ids=[r["id"] for r in RULES])
def test_a_secret_of_every_vendored_kind_is_redacted(rule):
    example = _example(rule)
    assert example is not None, f"no example could be written for {rule['id']}"
    text, secret = example
    cleaned, kinds = redact(text)
    assert secret not in cleaned, (rule["id"], text, cleaned)
    assert "[REDACTED" in cleaned and kinds
    assert redact(cleaned) == (cleaned, [])  # idempotent


NAMED = [
    ("PGPASSWORD=Xk8s2mPq9z psql -h db.internal -U app", "Xk8s2mPq9z"),
    ("export PGPASSWORD='Xk8s2mPq9z'", "Xk8s2mPq9z"),
    ("mysql -u root -pXk8s2mPq9z shop < dump.sql", "Xk8s2mPq9z"),
    ("mysqldump -h db -u admin -p'Xk8s2 mPq9z' shop", "Xk8s2 mPq9z"),
    ("curl -u deploy:Xk8s2mPq9z https://ci.example.com/api", "Xk8s2mPq9z"),
    ("curl -s --user 'deploy:Xk8s2mPq9z' https://ci.example.com/api", "Xk8s2mPq9z"),
    ("npm config set //registry.npmjs.org/:_authToken npm_4f9Kq2ZxW8mR1tY6uP3sV7bN0cL5hJ2gD9aE", "npm_4f9Kq2ZxW8m"),
    ("HF token 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 for the model", "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"),
    ("git clone https://oauth2:glpat-9xK2mQ7pL4vN8rT1wZ3c@gitlab.com/x/y", "glpat-9xK2mQ7pL4vN8rT1wZ3c"),
    (
        "SENDGRID_KEY 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 ok",
        "SG.nG7kP2xQ9mR4tV1wZ8cL5b",
    ),
    ("doctl auth init -t dop_v1_" + "3f9a1c7e5b2d8046" * 4, "dop_v1_3f9a1c7e5b2d8046"),
    ("sshpass -p Xk8s2mPq9z ssh deploy@web1", "Xk8s2mPq9z"),
    ("sshpass -p 'plain words' scp a.tgz web1:", "plain words"),
    ("docker login -u ci -p plainsecret registry.example.com", "plainsecret"),
    ("docker login --password plainsecret ghcr.io", "plainsecret"),
    ("redis-cli -h cache -a letmein99 ping", "letmein99"),
    ("htpasswd -bc /etc/nginx/.htpasswd admin plainsecret", "plainsecret"),
    ("htpasswd -nbB admin plainsecret", "plainsecret"),
    ("machine api.heroku.com login me@example.com password plainsecret", "plainsecret"),
    ("machine ftp.example.com\n  login anna\n  password plainsecret\n", "plainsecret"),
    ("db.internal:5432:shop:app:plainsecret", "plainsecret"),
    ("*:*:*:postgres:plainsecret", "plainsecret"),
    (
        "curl -X POST https://discord.com/api/webhooks/112233445566778899/"
        "Zq3xW9vK2mN8pL4tR7yB1cF6hJ0gD5sA-_eU3iO9kM2nQ8wE4rT7yU1iO5pA3sD6fG",
        "Zq3xW9vK2mN8pL4tR7yB1cF6hJ0gD5sA",
    ),
]


@pytest.mark.parametrize("text,secret", NAMED, ids=[t.split()[0] for t, _s in NAMED])
def test_command_line_and_provider_secrets_are_redacted(text, secret):
    cleaned, kinds = redact(text)
    assert secret not in cleaned, cleaned
    assert kinds and redact(cleaned) == (cleaned, [])


KEPT = [
    "mysql -u root -p shop",  # -p alone: mysql prompts for the password
    "mysql -h db -P 3306 -u app shop",
    "curl -u $USER:$TOKEN https://ci.example.com",
    "PGPASSWORD=$DB_PASSWORD psql -h db",
    "npm install --save-dev typescript",
    "see the hf_hub_download function and SG.send()",
    "git push origin main && git status",
    "sshpass -p $SSHPASS ssh deploy@web1",
    "docker login -u ci --password-stdin ghcr.io",
    "docker run -p 8080:80 nginx",
    "redis-cli -h cache ping",
    "htpasswd -c .htpasswd admin",
    "I can not login and password reset does also not work",
    "aa:11:22:33:44:55",
    "fe80:0:0:0:1",
    "src/app.py:42:10:E501:line",
    "see https://discord.com/developers/docs/resources/webhook",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_of_those_secrets_are_kept(text):
    assert redact(text) == (text, [])


def test_no_vendored_rule_fires_on_this_repositorys_own_code_and_docs():
    """Ordinary code and prose: the package, the docs, the scripts (not the test fixtures,
    which plant secrets on purpose, nor the vendored data itself)."""
    files = [
        p
        for pattern in ("memory_cli/**/*.py", "docs/*.md", "scripts/*.py", "README.md")
        for p in ROOT.glob(pattern)
        if "secret_formats" not in p.name
    ]
    assert len(files) > 100
    hits = []
    for p in files:
        for _start, _end, kind in secret_formats.find(p.read_text(encoding="utf-8", errors="replace")):
            hits.append((p.relative_to(ROOT).as_posix(), kind))
    assert hits == []


def test_command_line_and_provider_secrets_never_reach_the_store_files(db_path):
    """Through the real hook process (the audit row of a denied call) and the CLI (a memory):
    none of the secrets is in the database or its write-ahead log."""
    from helpers.cli import run_cli
    from helpers.hooks import payload, run_hook

    secrets = [s for _t, s in NAMED]
    line = "\n".join(t for t, _s in NAMED)  # .netrc and .pgpass entries are lines of their own
    rule = ["rules", "add", "no psql", "--pattern", "psql", "--pattern-type", "command", "--action", "block"]
    assert run_cli(*rule, db=db_path).returncode == 0
    denied = run_hook(
        "PreToolUse", payload("PreToolUse", tool_input={"command": line, "description": line}), db=db_path
    )
    assert denied.decision == "deny"
    assert run_cli("add", "deploy notes: " + line, "--scope", "global", db=db_path).returncode == 0
    files = [p for p in (db_path, db_path.with_name(db_path.name + "-wal")) if p.exists()]
    data = b"".join(p.read_bytes() for p in files)
    assert b"deploy notes" in data
    assert [s for s in secrets if s.encode() in data] == []


COMMAND_LINE_KINDS = (
    "discord-webhook",
    "cli-password",
    "htpasswd",
    "netrc",
    "pgpass",
    "sudo-password",
    "rclone-secret",
    "vault-token",
    "connection-string-password",
    "aws-secret-key",
)


def test_the_command_line_password_forms_find_nothing_in_real_sessions():
    """Every text of the real sessions, prompts and transcripts in tests/fixtures/real: the
    sshpass/docker/redis-cli/ssh-keygen/az/sqlcmd/lftp/smbclient/htpasswd/.netrc/.pgpass/Discord,
    sudo -S, rclone, Vault, connection-string and bare AWS secret forms match none of them."""
    import json

    from memory_cli.privacy.redact import _rules

    patterns = [(kind, pattern) for kind, pattern, _build in _rules() if kind in COMMAND_LINE_KINDS]
    assert {kind for kind, _pattern in patterns} == set(COMMAND_LINE_KINDS)

    def strings(o):
        if isinstance(o, str):
            yield o
        elif isinstance(o, dict):
            for v in o.values():
                yield from strings(v)
        elif isinstance(o, list):
            for v in o:
                yield from strings(v)

    hits, seen = [], 0
    for path in sorted((ROOT / "tests/fixtures/real").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            for text in strings(obj):
                seen += 1
                for kind, pattern in patterns:
                    for m in pattern.finditer(text):
                        if redact(m.group(0))[0] != m.group(0):
                            hits.append((path.name, kind, m.group(0)[:80]))
    assert seen > 50_000
    assert hits == []
