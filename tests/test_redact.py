"""Secrets never survive redaction; ordinary text, code, paths and identifiers do."""

from __future__ import annotations

import pytest

from memory_cli.privacy.redact import contains_secret, redact

# (text with a planted secret, the secret itself, the kind reported)
PLANTED = [
    ("my key is AKIAIOSFODNN7EXAMPLE ok", "AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws-secret-key",
    ),
    (
        '{"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}',
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws-secret-key",
    ),
    (
        "push with ghp_16C7e42F292c6912E7710c838347Ae178B4a please",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "github-token",
    ),
    ("gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "github-token"),
    ("ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "github-token"),
    (
        "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ here",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
        "github-token",
    ),
    (
        "ANTHROPIC_API_KEY is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEF_xyzAA",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEF_xyzAA",
        "anthropic-key",
    ),
    (
        "use sk-proj-abc123DEF456ghi789JKL012mno345pqr678 for openai",
        "sk-proj-abc123DEF456ghi789JKL012mno345pqr678",
        "openai-key",
    ),
    (
        "old key sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
        "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
        "openai-key",
    ),
    (
        "slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "slack-token",
    ),
    ("xoxp-123456789012-123456789012-abcdef0123", "xoxp-123456789012-123456789012-abcdef0123", "slack-token"),
    ("charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
    ("restricted rk_live_abcdefghijklmnop1234", "rk_live_abcdefghijklmnop1234", "stripe-key"),
    (
        "maps key AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI in config",
        "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
        "google-api-key",
    ),
    (
        "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "jwt",
    ),
    (
        'curl -H "Authorization: Bearer abcdef123456ghijkl" https://api.example.com',
        "abcdef123456ghijkl",
        "bearer-token",
    ),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "bearer-token"),
    ("headers = {'Authorization': 'token 0123456789abcdefXYZ'}", "0123456789abcdefXYZ", "bearer-token"),
    ("git clone https://alice:s3cr3tpw@github.com/org/repo.git", "s3cr3tpw", "url-credentials"),
    ("DATABASE_URL=postgres://app:hunter2@localhost:5432/db", "hunter2", "url-credentials"),
    ("DB_PASSWORD=hunter2", "hunter2", "password"),
    ("export DB_PASSWORD='correct horse battery'", "correct horse battery", "password"),
    ("password: correcthorse", "correcthorse", "password"),
    ('{"api_key": "abcd1234efgh"}', "abcd1234efgh", "api-key"),
    ("  client_secret: 'zz9-top-secret'", "zz9-top-secret", "secret"),
    ("token=abc123xyz", "abc123xyz", "token"),
    ("mytool --password hunter2 --verbose", "hunter2", "password"),
    ("mytool --api-key=k3y-value-123", "k3y-value-123", "api-key"),
    ("X-Api-Key: 9f8e7d6c5b4a", "9f8e7d6c5b4a", "api-key"),
    ("dbPassword = 'Sup3r$ecret'", "Sup3r$ecret", "password"),
    ("the password is Tr0ub4dor&3, use it", "Tr0ub4dor&3", "password"),
    ("never use the password hunter2xyz! again", "hunter2xyz!", "password"),
    ("STRIPE_KEY=Zx8f7Gh2Kp9Lm3Qr5Tv1Wy6", "Zx8f7Gh2Kp9Lm3Qr5Tv1Wy6", "generic-secret"),
    ('signature: "q8Zr2LmX7vKp4TnW9sYb"', "q8Zr2LmX7vKp4TnW9sYb", "generic-secret"),
    # command lines whose option carries the password in that program only
    ("ssh-keygen -t ed25519 -N 'Sup3r S3cret!' -f ~/.ssh/deploy", "Sup3r S3cret!", "password"),
    ("ssh-keygen -p -P 0ldPassw0rd -N n3wPassw0rd -f key", "0ldPassw0rd", "password"),
    ("az login -u me@example.com -p Hunter2pass!", "Hunter2pass!", "password"),
    ("sqlcmd -S db01 -U sa -P 'P@ssw0rd123' -Q 'select 1'", "P@ssw0rd123", "password"),
    ("lftp -u deploy,Secr3tPw sftp://files.example.com", "Secr3tPw", "password"),
    ("smbclient //fs/share -U alice%Secr3tPw -c ls", "Secr3tPw", "password"),
    ("echo 'Hunter2 pass' | sudo -S apt-get install -y jq", "Hunter2 pass", "sudo-password"),
    (
        "rclone config create s3r s3 secret_access_key Zx8f7Gh2Kp9Lm3Qr5Tv1Wy6",
        "Zx8f7Gh2Kp9Lm3Qr5Tv1Wy6",
        "rclone-secret",
    ),
    ("rclone obscure Secr3tPw", "Secr3tPw", "rclone-secret"),
    ('"Server=db;User ID=sa;Password=my s3cret pass"', "s3cret pass", "connection-string-password"),
    (
        "the key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws-secret-key",
    ),
    ("vault login hvs.CAESIJ2x7rGqk1m3n5p7r9t1v3x5z7b9d1f3h5", "CAESIJ2x7rGqk1m3n5p7r9t1v3x5z7b9d1f3h5", "vault-token"),
]

PRIVATE_KEY = """here is the key
-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA1234567890abcdefghijKLMNOPQRSTUV
abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL
-----END RSA PRIVATE KEY-----
and the rest stays"""

INNOCENT = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "short sha 3f78685 and sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "token = tokens[0]",
    "password = getpass.getpass()",
    "secret = os.environ['SECRET']",
    "token = self.token",
    "password = pw",
    "max_tokens=4096",
    "tokenizer=bert-base-uncased",
    "token_type=bearer",
    "password_file=/run/secrets/db",
    "author=Alice",
    "oauth_provider=github",
    "api_key: str = Field(default=None)",
    "the bearer of bad news",
    "scikit-learn is sometimes called sk-learn",
    "the task-management-system-overview document",
    "git@github.com:user/repo.git",
    "https://example.com:8080/path?q=1",
    "mail user@example.com about it",
    "ssh://git@github.com/org/repo",
    "/home/user/.ssh/id_rsa.pub and src/memory_cli/redact.py",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----",
    "the password is wrong",
    "reset the password field and the password reset flow",
    "the token: it expires daily",
    "password: ${DB_PASSWORD}",
    'token: "{{ secrets.GH_TOKEN }}"',
    "password=<your-password>",
    "password=********",
    "primary_key=id",
    "sort_key: created_at",
    "never use pythonw.exe, use python.exe instead",
    "def check(token: str, password: str) -> bool:",
    "AKIA is the prefix of AWS access key ids",
    "Please stop using npm; use pnpm install --frozen-lockfile",
    "for i in range(10): print(i)",
    "Read the file at C:\\Users\\me\\AppData\\Local\\app.log",
    # look-alikes of the command-line forms: no password given, or not that program's option
    "ssh-keygen -t ed25519 -N '' -f ~/.ssh/deploy",
    "sqlcmd -S db01 -E -Q 'select 1'",
    "echo $DEPLOY_PW | sudo -S systemctl restart app",
    "smbclient -L //fs -N",
    "rclone copy ./build remote:site --progress",
    "Server=db;Database=app;Integrated Security=true;",
    "src/memory_cli/rules/engine/Matcher1.py",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn",
]


@pytest.mark.parametrize("text,secret,kind", PLANTED, ids=[p[2] + str(i) for i, p in enumerate(PLANTED)])
def test_planted_secret_is_removed_and_named(text, secret, kind):
    cleaned, kinds = redact(text)
    assert secret not in cleaned
    assert kind in kinds
    assert "[REDACTED" in cleaned


@pytest.mark.parametrize("text", INNOCENT)
def test_innocent_text_is_untouched(text):
    assert redact(text) == (text, [])
    assert not contains_secret(text)


def test_private_key_block_is_removed_whole_and_surrounding_text_kept():
    cleaned, kinds = redact(PRIVATE_KEY)
    assert kinds == ["private-key"]
    assert "MIIEpAIBAAKCAQEA" not in cleaned and "abcdefghijklmnopqrstuvwxyz0123456789" not in cleaned
    assert cleaned.startswith("here is the key\n[REDACTED:private-key]")
    assert cleaned.endswith("and the rest stays")


def test_truncated_private_key_without_end_line_is_still_removed():
    text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    cleaned, kinds = redact(text)
    assert kinds == ["private-key"]
    assert "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE" not in cleaned


def test_url_credentials_keep_user_and_host():
    assert redact("https://user:pass123@host.example/x")[0] == "https://user:[REDACTED]@host.example/x"


def test_assignment_keeps_name_and_quotes():
    assert redact('{"password": "hunter2"}')[0] == '{"password": "[REDACTED:password]"}'
    assert redact("DB_PASSWORD=hunter2")[0] == "DB_PASSWORD=[REDACTED:password]"
    assert redact("- token: abc123def")[0] == "- token: [REDACTED:token]"


def test_many_secrets_in_one_text():
    text = "\n".join(p[0] for p in PLANTED) + "\n" + PRIVATE_KEY
    cleaned, kinds = redact(text)
    for _, secret, _ in PLANTED:
        assert secret not in cleaned
    assert {p[2] for p in PLANTED} | {"private-key"} <= set(kinds)


@pytest.mark.parametrize("text", [p[0] for p in PLANTED] + [PRIVATE_KEY] + INNOCENT)
def test_redaction_is_idempotent(text):
    once, _ = redact(text)
    twice, kinds = redact(once)
    assert twice == once
    assert kinds == []


def test_empty_and_non_text_inputs():
    assert redact("") == ("", [])
    assert redact(None) == (None, [])  # type: ignore[arg-type]


# Texts whose values nest as deep as the text goes: each used to raise RecursionError, and the
# capture that redacts before storing lost the person's words.
NESTED = [
    ("x=" * 500 + "password=hunter22!", "hunter22!"),
    ("https://h.example.com/api?" + "&".join(f"p{i}={i}" for i in range(600)) + "&token=Xk8s2mPq9zQ", "Xk8s2mPq9zQ"),
    (
        "java -cp " + ":".join(f"/opt/lib/jar{i}.jar" for i in range(800)) + " Main  db_password=Xk8s2mPq9z",
        "Xk8s2mPq9z",
    ),
]


@pytest.mark.parametrize("text,secret", NESTED, ids=["assignments-500-deep", "url-600-parameters", "java-classpath"])
def test_deeply_nested_values_are_redacted_without_recursion_error(text, secret):
    cleaned, kinds = redact(text)
    assert secret not in cleaned and kinds
    assert cleaned.split("[REDACTED")[0] == text.split(secret)[0]  # everything before it kept


def test_a_value_nested_fifty_thousand_deep_is_stored_quickly():
    import time

    text = "x=" * 50_000
    t0 = time.perf_counter()
    assert redact(text) == (text, [])
    assert time.perf_counter() - t0 < 3.0
