"""Remove secrets from text before memory-cli stores any of it.

Everything memory-cli keeps (a prompt the person typed, a transcript excerpt, a marker the
agent wrote, a tool call used as context) passes through :func:`redact` first, because a
memory store is copied into backups, exports and injected context: a key that reaches it
leaks everywhere after that. The rules favour recall on things that are unambiguously
secrets (provider key formats, private key blocks, credentials in URLs, values assigned to
password/token/secret names) and precision elsewhere, so that ordinary prose, code, paths,
git SHAs and UUIDs come through untouched.

Standard library only and compiled on first use: this runs inside the UserPromptSubmit and
Stop hooks on every prompt and turn.

Redaction is idempotent: every replacement has the form ``[REDACTED:<kind>]`` (credentials
in URLs become ``[REDACTED]``), and no rule matches its own or another rule's replacement.
"""

from __future__ import annotations

from ..util import entropy


class _LazyRe:
    """``re`` imported on first use: it costs a hook process several ms, and most hook calls
    store only short, trivially clean values that never reach a regular expression. The first
    attribute looked up replaces this stand-in with the module itself."""

    def __getattr__(self, name):
        import re as module

        globals()["re"] = module
        return getattr(module, name)


re = _LazyRe()

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs ~3 ms of imports on every hook process
    from collections.abc import Callable

__all__ = ["redact", "contains_secret", "REDACTED_PREFIX", "clean", "cut", "redact_cut", "gate_params"]

REDACTED_PREFIX = "[REDACTED"

# (kind, compiled pattern, replacement builder); built lazily by _rules().
_RULES: list | None = None

# Names whose assigned value is a secret whatever it looks like. Matched against the
# segments of a key name (split on _ - . and camelCase), so "DB_PASSWORD", "apiKey",
# "client-secret" qualify but "max_tokens", "tokenizer" and "author" do not.
_SECRET_SEGMENTS = {
    "password": "password",
    "passwd": "password",
    "passphrase": "password",
    "pwd": "password",
    "pass": "password",
    "secret": "secret",
    "secrets": "secret",
    "credential": "secret",
    "credentials": "secret",
    "token": "token",
    "apikey": "api-key",
    "bearer": "token",
}
_SECRET_PAIRS = {
    ("api", "key"): "api-key",
    ("access", "key"): "api-key",
    ("private", "key"): "secret",
    ("secret", "key"): "secret",
    ("auth", "token"): "token",
    ("client", "secret"): "secret",
    ("session", "key"): "secret",
    ("signing", "key"): "secret",
    ("encryption", "key"): "secret",
    ("master", "key"): "secret",
    ("auth", "key"): "api-key",
    ("license", "key"): "api-key",
}
# A segment like these means the name describes a property of a secret, not the secret:
# max_tokens=4096, token_type=bearer, password_file=/run/secrets/db.
_DESCRIPTIVE_SEGMENTS = {
    "count",
    "max",
    "min",
    "limit",
    "limits",
    "type",
    "len",
    "length",
    "size",
    "usage",
    "budget",
    "file",
    "path",
    "dir",
    "url",
    "uri",
    "endpoint",
    "env",
    "name",
    "hint",
    "policy",
    "prompt",
    "field",
    "label",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "timeout",
    "id",
    "ids",
    "index",
    "format",
    "header",
    "regex",
    "pattern",
    "rotation",
    "manager",
    "store",
    "reset",
    "strength",
    "required",
    "encoding",
    "estimate",
    "estimator",
    "counter",
    "total",
    "per",
    "ratio",
}
# Names that hold generic key material only when the value also looks random.
_KEYLIKE_SEGMENTS = {"key", "keys", "sig", "signature", "salt", "cookie", "auth", "hmac", "dsn"}

_CODE_VALUE_WORDS = {
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "yes",
    "no",
    "self",
    "this",
    "os",
    "required",
    "optional",
    "string",
    "str",
    "int",
    "bool",
    "env",
    "secret",
    "password",
    "token",
}


def _segments(name: str) -> list[str]:
    """Split an identifier into lower-case words: 'dbPassword' -> ['db', 'password']."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [s for s in re.split(r"[\s_.\-]+", spaced.lower()) if s]


def _secret_kind_for_name(name: str) -> str | None:
    segs = _segments(name.strip("\"'"))
    if not segs or any(s in _DESCRIPTIVE_SEGMENTS for s in segs):
        return None
    for a, b in zip(segs, segs[1:]):
        if (a, b) in _SECRET_PAIRS:
            return _SECRET_PAIRS[(a, b)]
    for s in segs:
        if s in _SECRET_SEGMENTS:
            return _SECRET_SEGMENTS[s]
    for s in segs:
        if s.endswith(("password", "passwd")):
            return "password"  # PGPASSWORD, ROOTPASSWORD, dbpassword
    return None


def _is_keylike_name(name: str) -> bool:
    segs = _segments(name.strip("\"'"))
    if not segs or any(s in _DESCRIPTIVE_SEGMENTS for s in segs):
        return False
    return segs[-1] in _KEYLIKE_SEGMENTS or any(s in _KEYLIKE_SEGMENTS for s in segs)


_HEX_DIGEST_RE = r"[0-9a-fA-F]{7,64}"
_UUID_RE = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


def _looks_random(value: str) -> bool:
    """A long token mixing letters and digits with high character entropy."""
    if len(value) < 16 or " " in value:
        return False
    if re.fullmatch(_UUID_RE, value) or (re.fullmatch(_HEX_DIGEST_RE, value) and len(value) in (7, 40, 64)):
        return False  # identifiers (UUIDs, git/sha256 digests), not credentials
    if not (re.search(r"[A-Za-z]", value) and re.search(r"\d", value)):
        return False
    if "/" in value and not re.search(r"[A-Z]", value):
        return False  # a path
    return entropy(value) >= 3.5


def _looks_secretish(value: str) -> bool:
    """A single word that could be a password: has a digit or symbol, no path/URL shape."""
    if len(value) < 6 or "://" in value or value.startswith(("/", "~", "./")):
        return False
    has_letter = re.search(r"[A-Za-z]", value) is not None
    has_other = re.search(r"[\d\W_]", value) is not None
    return has_letter and has_other


def _is_placeholder(value: str) -> bool:
    v = value.strip()
    if not v or v.startswith(REDACTED_PREFIX):
        return True
    if v[0] in "$<%{" or v.startswith("{{"):
        return True  # ${VAR}, $VAR, <your-token>, %(x)s, {{ secrets.X }}
    if set(v) <= set("*x.X-_#•"):
        return True  # ****, xxxx, ...
    return v.lower() in ("changeme", "your-password", "yourpassword", "redacted", "<redacted>")


def _looks_like_code(value: str) -> bool:
    """Calls, subscripts, attribute access: values that name a secret instead of holding it."""
    if re.search(r"[()\[\]{}]", value):
        return True
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value) is not None


def _assignment_value(m: re.Match[str], lead: str) -> str | None:
    """Replacement for NAME=value / NAME: value / "name": "value" / --name value."""
    name, sep, quote, value = m.group("name"), m.group("sep"), m.group("q") or "", m.group("val")
    at_line_start = m.groupdict().get("bol") is not None
    bol = m.groupdict().get("bol") or ""
    kind = _secret_kind_for_name(name)
    generic = False
    if kind is None:
        if not _is_keylike_name(name):
            return None
        generic = True
    if _is_placeholder(value):
        return None
    if not quote:
        # Unquoted: distinguish config values from code and prose.
        if re.search(r"[()\[\]{}]", value) or value.lower().rstrip(",;") in _CODE_VALUE_WORDS:
            return None
        if re.fullmatch(r"\d{1,5}", value):
            return None  # a count or port, not a secret
        spaced = sep.strip() != sep or sep.strip() == ""
        if spaced and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value):
            return None  # attribute access in code: token = self.token
        if spaced and sep.strip() == "=" and not _looks_secretish(value):
            return None  # code assignment of a plain identifier: password = pw
        if sep.strip() == ":" and not at_line_start and not _looks_secretish(value):
            return None  # prose: "the token: it expires daily"
    if generic and not _looks_random(value):
        return None
    label = "generic-secret" if generic else kind
    return f"{bol}{lead}{name}{sep}{quote}[REDACTED:{label}]{quote}"


def _prose_value(m: re.Match[str]) -> str | None:
    """'the password is hunter2!' -> the value only when it looks like a secret."""
    value = m.group("val").rstrip(".,;:!?")
    if _is_placeholder(value) or not _looks_secretish(value) or _looks_like_code(value):
        return None
    kind = _secret_kind_for_name(m.group("name").replace(" ", "_")) or "secret"
    return m.group(0)[: m.start("val") - m.start(0)] + f"[REDACTED:{kind}]" + m.group("val")[len(value) :]


def _const(label: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f"[REDACTED:{label}]"


def _keep_prefix(label: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f"{m.group('pre')}[REDACTED:{label}]"


# The options whose value is a password, by program (az only in `az login`).
_PASSWORD_OPTIONS = {"ssh-keygen": ("-N", "-P"), "az": ("-p",), "sqlcmd": ("-P",), "bcp": ("-P",), "osql": ("-P",)}


def _program_passwords(m: re.Match[str]) -> str | None:
    """Every value of the program's password options in one command (``ssh-keygen -P OLD -N
    NEW`` has two); an empty, variable or placeholder value is left alone."""
    prog, rest = m.group("prog"), m.group("rest")
    if prog == "az" and not re.match(r"[ \t]+login\b", rest):
        return None
    opts = "|".join(re.escape(o) for o in _PASSWORD_OPTIONS[prog])
    value = r"(?P<val>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+)"
    hit = False

    def one(v: re.Match[str]) -> str:
        nonlocal hit
        val = v.group("val")
        if val.startswith(("-", "$", REDACTED_PREFIX)) or _is_placeholder(val.strip("'\"")):
            return v.group(0)
        hit = True
        return v.group("pre") + "[REDACTED:password]"

    out = re.sub(rf"(?P<pre>(?<!\S)(?:{opts})[ \t]*){value}", one, rest)
    return m.group(0)[: m.start("rest") - m.start(0)] + out if hit else None


def _connection_password(m: re.Match[str]) -> str | None:
    if m.group("val").startswith(REDACTED_PREFIX) or _is_placeholder(m.group("val")):
        return None
    return f"{m.group('pre')}[REDACTED:password]"


def _aws_secret(m: re.Match[str]) -> str | None:
    """A 40-character run is an AWS secret key only when it looks random: upper and lower case
    and digits mixed, at most two slashes (not a path), high entropy (not a word or a digest)."""
    v = m.group(0)
    if v.count("/") > 2 or v.startswith("/") or re.fullmatch(r"[0-9a-fA-F]{40}", v):
        return None
    uppers = sum(c.isupper() for c in v)
    lowers = sum(c.islower() for c in v)
    digits = sum(c.isdigit() for c in v)
    if uppers < 4 or lowers < 4 or digits < 1 or entropy(v) < 4.0:
        return None
    return "[REDACTED:aws-secret-key]"


def _url_credentials(m: re.Match[str]) -> str | None:
    if m.group("pw").startswith(REDACTED_PREFIX):
        return None
    return f"{m.group('scheme')}{m.group('user')}:[REDACTED]@"


def _rules() -> list:
    global _RULES
    if _RULES is not None:
        return _RULES
    # Compiled through the regex cache: parsing these patterns in every hook process that
    # stores text cost more than the rest of its redaction.
    from ..files import regex_cache

    compile = regex_cache.compile
    key_chars = r"[A-Za-z0-9_\-]"
    rules = [
        # Private key blocks, with or without the END line (a truncated paste still leaks).
        (
            "private-key",
            compile(
                r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
                r"|(?:\s+(?:[A-Za-z0-9+/=]{16,}|[A-Za-z][A-Za-z-]*:[^\n]*))*)"
            ),
            _const("private-key"),
        ),
        ("anthropic-key", compile(rf"\bsk-ant-(?=[A-Za-z0-9_\-]*\d){key_chars}{{20,}}"), _const("anthropic-key")),
        (
            "openai-key",
            compile(
                rf"\bsk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z]){key_chars}{{20,}}"
            ),
            _const("openai-key"),
        ),
        (
            "github-token",
            compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
            _const("github-token"),
        ),
        ("slack-token", compile(r"\bxox[abposre]-(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]{10,}"), _const("slack-token")),
        (
            "slack-webhook",
            compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
            _const("slack-webhook"),
        ),
        ("stripe-key", compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"), _const("stripe-key")),
        ("google-api-key", compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), _const("google-api-key")),
        (
            "aws-access-key",
            compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
            _const("aws-access-key"),
        ),
        (
            "aws-secret-key",
            compile(
                r"(?P<pre>(?i:aws_?secret_?(?:access_?)?key|aws_?secret)[\"']?\s*[:=]\s*[\"']?)"
                r"(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
            ),
            _keep_prefix("aws-secret-key"),
        ),
        # A bare AWS secret access key: 40 characters of base64 that look random (see
        # _aws_secret: mixed case, digits, few slashes, high entropy; hex digests never).
        ("aws-secret-key", compile(r"(?<![A-Za-z0-9/+=_.\-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_.\-])"), _aws_secret),
        ("jwt", compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), _const("jwt")),
        (
            "url-credentials",
            compile(
                r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://)(?P<user>[^\s:/?#@\[\]\"'<>]*):"
                r"(?P<pw>[^\s/?#@\"'<>]+)@(?=[A-Za-z0-9\[])"
            ),
            _url_credentials,
        ),
        (
            "bearer-token",
            compile(
                r"(?P<pre>(?i:\bauthorization\b[\"']?\s*[:=]\s*[\"']?\s*(?:bearer|token|basic|digest)?\s*))"
                r"(?P<val>(?!\[REDACTED)[A-Za-z0-9\-._~+/]{8,}=*)"
            ),
            _keep_prefix("bearer-token"),
        ),
        (
            "bearer-token",
            compile(r"(?P<pre>\b[Bb]earer\s+)(?P<val>(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{16,}=*)"),
            _keep_prefix("bearer-token"),
        ),
        # mysql -pSECRET (the password glued to -p; `-p` alone prompts, `-P 3306` is a port)
        (
            "mysql-password",
            compile(
                r"(?P<pre>\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh"
                r"|mariadb|mariadb-dump|mariadb-admin)(?:\.exe)?\b[^\n;|&]*?(?<!\S)-p)"
                r"(?P<val>(?!\[REDACTED)(?:'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+))"
            ),
            _keep_prefix("password"),
        ),
        (
            "discord-webhook",
            compile(
                r"https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/[A-Za-z0-9_\-]{20,}"
            ),
            _const("discord-webhook"),
        ),
        # sshpass -p SECRET, docker/podman login -p SECRET, redis-cli -a SECRET: the option's
        # value is the password (`--password-stdin`, `-p 8080:80` of `docker run` are not).
        (
            "cli-password",
            compile(
                r"(?P<pre>\b(?:sshpass(?:\.exe)?\b[^\n;|&]*?(?<!\S)-p"
                r"|(?:docker|podman|nerdctl|buildah|skopeo)(?:\.exe)?\b[^\n;|&]*?\blogin\b[^\n;|&]*?(?<!\S)-p"
                r"|redis-cli(?:\.exe)?\b[^\n;|&]*?(?<!\S)-a)[ \t]*)"
                r"(?P<val>(?!\[REDACTED)(?![-$])(?:'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+))"
            ),
            _keep_prefix("password"),
        ),
        # ssh-keygen -N NEW / -P OLD passphrase, az login -p SECRET, sqlcmd/bcp -P SECRET: the
        # option's value is the password in these programs only (-P is a port elsewhere).
        (
            "cli-password",
            compile(r"\b(?P<prog>ssh-keygen|az|sqlcmd|bcp|osql)(?:\.exe|\.cmd)?(?P<rest>[ \t][^\n;|&]*)"),
            _program_passwords,
        ),
        # lftp -u USER,SECRET and smbclient -U USER%SECRET: the password after the separator.
        (
            "cli-password",
            compile(
                r"(?P<pre>\b(?:lftp(?:\.exe)?\b[^\n;|&]*?(?<!\S)(?:-u|--user)[ \t]+['\"]?[^\s,'\"]+,"
                r"|(?:smbclient|rpcclient|smbmap|smbget)(?:\.exe)?\b[^\n;|&]*?(?<!\S)(?:-U|--user(?:=|[ \t]))"
                r"[ \t]*['\"]?[^\s%'\"]+%)"
                r")(?P<val>(?!\[REDACTED)[^\s'\"]+)"
            ),
            _keep_prefix("password"),
        ),
        # echo SECRET | sudo -S: the password handed to sudo on its standard input.
        (
            "sudo-password",
            compile(
                r"(?P<pre>\b(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?)"
                r"(?P<val>(?!\[REDACTED)(?![$<{])(?:'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"|;&]+))"
                r"(?=[ \t]*\|[ \t]*sudo\b[^\n|;&]*?(?<!\S)(?:-S|--stdin)\b)"
            ),
            _keep_prefix("password"),
        ),
        # rclone config create|update NAME TYPE key value ...: the secret keys' values, and
        # rclone obscure SECRET.
        (
            "rclone-secret",
            compile(
                r"(?P<pre>\brclone(?:\.exe)?\b[^\n;|&]*?(?:(?<!\S)(?:secret_access_key|pass|password|password2"
                r"|client_secret|token|key|account_key|sas_url|service_account_credentials|bearer_token)"
                r"(?:=|[ \t]+)|\bobscure[ \t]+))"
                r"(?P<val>(?!\[REDACTED)(?![-$])(?:'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+))"
            ),
            _keep_prefix("secret"),
        ),
        # HashiCorp Vault tokens: service, batch and recovery (hvs. / hvb. / hvr.).
        ("vault-token", compile(r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}"), _const("vault-token")),
        # A connection string's password runs to the next ';' (it may hold spaces): after a ';',
        # to the next ';', quote or line end; at a line's start, only when a ';' follows.
        (
            "connection-string-password",
            compile(
                r"(?P<pre>;[ \t]*(?i:password|pwd)[ \t]*=[ \t]*)"
                r"(?P<val>(?![$<{*])[^;\"'\n]*[^;\"'\n \t])(?=[ \t]*(?:;|[\"']|$))",
                re.M,
            ),
            _connection_password,
        ),
        (
            "connection-string-password",
            compile(
                r"(?P<pre>^[ \t]*(?i:password|pwd)[ \t]*=[ \t]*)(?P<val>(?![$<{*])[^;\"'\n]*[^;\"'\n \t])(?=[ \t]*;)",
                re.M,
            ),
            _connection_password,
        ),
        # htpasswd -b[c] FILE USER SECRET, htpasswd -nb USER SECRET
        ("htpasswd", compile(r"\bhtpasswd(?:\.exe)?(?P<rest>[ \t]+[^\n;|&]*)"), _htpasswd),
        # .netrc: machine HOST login USER password SECRET (on one line or several)
        (
            "netrc",
            compile(
                r"(?P<pre>(?<!\S)(?:machine[ \t]+\S+|default)\s+(?:(?:login|account|port)[ \t]+\S+\s+)*"
                r"password[ \t]+)(?P<val>(?!\[REDACTED)(?![$<{])\S+)"
            ),
            _keep_prefix("password"),
        ),
        # .pgpass: HOST:PORT:DATABASE:USER:SECRET, one entry a line
        (
            "pgpass",
            compile(
                r"^(?P<pre>[ \t]*(?:\*|[A-Za-z0-9_.\-]*[A-Za-z.][A-Za-z0-9_.\-]*):(?:\d{1,5}|\*)"
                r":(?:\*|[^\s:/]*[A-Za-z_][^\s:/]*):(?:\*|[^\s:/]*[A-Za-z_][^\s:/]*):)"
                r"(?P<val>(?!\[REDACTED)(?![$<{])(?:\\:|[^\s:])+)[ \t]*$",
                re.M,
            ),
            _keep_prefix("password"),
        ),
        # NAME=value, NAME: value, "name": "value" (env, JSON, YAML, INI, code).
        (
            "assignment",
            compile(
                r"(?P<bol>^[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?)?(?<![A-Za-z0-9_.\-])(?P<lead>(?:--)?)"
                r"(?P<name>[\"']?[A-Za-z_][A-Za-z0-9_.\-]*[\"']?)"
                r"(?P<sep>[ \t]*[:=][ \t]*)"
                r"(?P<q>[\"'`])?(?P<val>(?(q)[^\"'`\n]+|[^\s\"'`,;]+))(?(q)(?P=q))",
                re.M,
            ),
            _assignment,
        ),
        # --password hunter2, --token=abc (the "=" form is also caught above).
        (
            "flag",
            compile(
                r"(?<![A-Za-z0-9_\-])--(?P<name>[A-Za-z][A-Za-z0-9_\-]*)(?P<sep>[ \t]+)"
                r"(?P<q>[\"'])?(?P<val>(?(q)[^\"'\n]+|[^\s\"'`,;]+))(?(q)(?P=q))"
            ),
            _flag,
        ),
        (
            "prose",
            compile(
                r"(?i)\b(?P<name>password|passphrase|passwd|api key|api token|access token|token|secret)"
                r"\s+(?:is|was|:)\s+(?P<val>\S+)"
            ),
            _prose_value,
        ),
        # "use the password hunter2!": a password word directly followed by a secret-looking word
        ("prose", compile(r"(?i)\b(?P<name>password|passphrase|passwd)\s+(?P<val>(?!is\b|was\b)\S+)"), _prose_value),
    ]
    _RULES = rules
    return rules


def _htpasswd(m: re.Match[str]) -> str | None:
    """The password word of ``htpasswd -b``: after FILE and USER, or after USER with ``-n``."""
    rest = m.group("rest")
    words = list(re.finditer(r"\S+", rest))
    flags, k = "", 0
    while k < len(words) and words[k].group().startswith("-"):
        flags += words[k].group()[1:]
        k += 2 if words[k].group() in ("-C", "-r") else 1
    if "b" not in flags:
        return None
    at = k + (1 if "n" in flags else 2)
    if at >= len(words) or _is_placeholder(words[at].group().strip("'\"")):
        return None
    w = words[at]
    return m.group(0)[: m.start("rest") - m.start(0)] + rest[: w.start()] + "[REDACTED:password]" + rest[w.end() :]


def _assignment(m: re.Match[str]) -> str | None:
    return _assignment_value(m, lead=m.group("lead"))


def _flag(m: re.Match[str]) -> str | None:
    if not m.group("q") and m.group("val").startswith("-"):
        return None  # the next flag, not a value
    return _assignment_value(m, lead="--")


def redact(text: str) -> tuple[str, list[str]]:
    """Return ``text`` with secrets replaced, and the sorted kinds of secret found.

    Safe on any string; never raises for ordinary input. Idempotent.
    """
    if not text or not isinstance(text, str):
        return text, []
    known = _SEEN.get(text)
    if known is not None:
        return known[0], list(known[1])
    out, kinds = _redact(text)
    global _seen_chars
    if len(text) <= _SEEN_TEXT_CHARS:
        if len(_SEEN) >= _SEEN_MAX or _seen_chars > _SEEN_ALL_CHARS:
            _SEEN.clear()
            _seen_chars = 0
        _SEEN[text] = (out, tuple(kinds))
        _seen_chars += len(text) + len(out)
    return out, kinds


# Texts this process has redacted, with their results. The same text reaches redaction many
# times on its way to the store (an entry's content when it is checked, then at the store's
# gate for each row that carries it; a repository file's origin and path on every row of its
# load): a thousand-entry load redacted about nine texts per entry, only one of them new.
# Exact (the rules do not change within a process) and bounded (a few MB at most in a
# long-lived process: emptied when full).
_SEEN: dict[str, tuple[str, tuple]] = {}
_SEEN_MAX = 4096
_SEEN_TEXT_CHARS = 16384
_SEEN_ALL_CHARS = 2_000_000
_seen_chars = 0


def _redact(text: str) -> tuple[str, list[str]]:
    found: set[str] = set()
    out = text
    for kind, pattern, build in _rules():
        hit_kinds: list[str] = []
        out = _substitute(pattern, build, kind, out, hit_kinds)
        found.update(hit_kinds)
    out = _redact_formats(out, found)
    return out, sorted(found)


# Characters of nested values one rule may search again in one text (about 0.1 s of work).
_NESTED_CHARS = 16_000_000


def _substitute(pattern, build, kind: str, text: str, hit_kinds: list) -> str:
    """``pattern.sub`` with ``build``, where the value of a harmless name is read again on its
    own ("note: password=x", "env: API_KEY=x", "url: https://h/?token=x": the value of a
    harmless name can hold an assignment of its own).

    Values inside values nest as deep as the text goes (``x=x=x=...``, a URL's 600
    parameters, a Java classpath of ``a.jar:b.jar:...``), so the nesting is walked with a
    list of frames instead of recursion: a text of any shape is redacted, never a
    RecursionError that loses the capture. Each nested value is searched again in full, so a
    long chain costs the square of its length: past ``_NESTED_CHARS`` characters searched so,
    further values are left as they are (provider formats are still found in them after)."""
    nested = kind in ("assignment", "flag")
    budget = _NESTED_CHARS
    # frame: [text, where the next search starts, output parts, end of the text copied so far,
    #         (text before the value, text after it) in the parent's match, or None at the top]
    stack: list[list] = [[text, 0, [], 0, None]]
    while True:
        frame = stack[-1]
        s, at = frame[0], frame[1]
        m = pattern.search(s, at) if at <= len(s) else None
        if m is None:
            frame[2].append(s[frame[3] :])
            done = "".join(frame[2])
            stack.pop()
            if frame[4] is None:
                return done
            before, after = frame[4]
            stack[-1][2].append(before + done + after)
            continue
        start, end = m.span()
        frame[1] = end if end > start else end + 1
        replacement = build(m)
        if replacement is None or replacement == m.group(0):
            if nested and m.group("val") and budget > 0:
                vs, ve = m.span("val")
                budget -= ve - vs
                frame[2].append(s[frame[3] : start])
                frame[3] = end
                stack.append([s[vs:ve], 0, [], 0, (s[start:vs], s[ve:end])])
            continue
        if kind in ("assignment", "flag", "prose", "cli-password", "htpasswd", "netrc", "pgpass"):
            hit_kinds.append(replacement.rsplit("[REDACTED:", 1)[1].split("]", 1)[0])
        else:
            hit_kinds.append(kind)
        frame[2].append(s[frame[3] : start])
        frame[2].append(replacement)
        frame[3] = end


def _redact_formats(text: str, found: set) -> str:
    """Provider token formats from the vendored scanner rules (:mod:`secret_formats`): the
    secret part of each match becomes ``[REDACTED:<rule id>]``."""
    from . import secret_formats

    spans = secret_formats.find(text)
    if not spans:
        return text
    parts, at = [], 0
    for start, end, kind in spans:
        parts.append(text[at:start])
        parts.append(f"[REDACTED:{kind}]")
        found.add(kind)
        at = end
    parts.append(text[at:])
    return "".join(parts)


def contains_secret(text: str) -> bool:
    """True when :func:`redact` would change ``text``."""
    return bool(redact(text)[1])


# -- the store-write gate ----------------------------------------------------------------------
# Every INSERT/UPDATE that memory_cli.store.db.Store runs passes its text parameters through
# gate_params(): redacted first, then cut to the column's limit, with a marker saying how much
# was cut. Being at the store level, it covers every surface (CLI, hooks, import, daemon, and any
# later web/MCP/LLM writer) without each one remembering to call redact().

#: Longest text kept in a column (characters) unless FIELD_LIMITS says otherwise.
DEFAULT_LIMIT = 20_000
#: Per-column limits, "table.column" -> characters. Documented in the README ("Privacy").
FIELD_LIMITS = {
    "memory_entries.content": 100_000,
    "memory_entries.tags": 2_000,
    "memory_entries.subject": 500,
    "memory_entries.scope": 1_000,
    "memory_audit_log.action": 100,
    "memory_audit_log.context": 2_000,
    "memory_audit_log.result": 200,
    "memory_audit_log.details": 16_000,
    "memory_audit_log.session_id": 200,
    "memory_audit_log.hook_event": 100,
    "memory_audit_log.agent": 40,
    "corrections.user_message": 4_000,
    "corrections.session_id": 200,
    "enforcement_rules.pattern": 10_000,
    "enforcement_rules.message": 4_000,
    "kv.value": 64_000,
    "session_injections.session_id": 200,
    "capture_marker_seen.session_id": 200,
}
#: Columns stored exactly as given (still bounded): a rule's pattern is code, and redacting it
#: would silently change what the rule matches.
VERBATIM = {
    "enforcement_rules.pattern",
    "enforcement_rules.conditions",
    "enforcement_rules.analysis",
    "schema_migrations.name",
}
#: JSON text columns: redacted string by string so the JSON stays valid.
#: Any other value that starts with "{" or "[" and parses as JSON is treated the same way.
CUT_MARKER = "…[cut {n} chars]"
_JSON_STRING_LIMIT = 4_000


def cut(text: str, limit: int) -> str:
    """``text`` bounded to ``limit`` characters, ending with a marker naming what was cut."""
    if len(text) <= limit:
        return text
    cut_n = len(text) - limit
    marker = CUT_MARKER.format(n=cut_n)
    keep = max(0, limit - len(marker))
    return text[:keep] + CUT_MARKER.format(n=len(text) - keep)


def redact_cut(text: str, limit: int) -> str:
    """Redact, then cut: a secret is never left half-visible by the cut.

    Only a prefix (``limit`` plus a margin longer than any secret format) is redacted, so a
    20 MB value costs no more than a short one.
    """
    if not isinstance(text, str):
        return text
    head = text[: limit + 1024]
    out = redact(head)[0]
    if len(text) <= len(head):
        return cut(out, limit)
    keep = max(0, limit - len(CUT_MARKER.format(n=len(text))))
    out = out[:keep]
    return out + CUT_MARKER.format(n=len(text) - len(out))


def _valid_text(text: str) -> str:
    """Lone surrogates (from JSON like "\\udc80") cannot be stored as UTF-8: replace them."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _trivially_clean(text: str) -> bool:
    """Short single words and UUIDs: no secret format fits, so skip the regexes (hook path)."""
    n = len(text)
    if n <= 16:
        return text.replace("_", "").replace("-", "").replace(".", "").isalnum() or not text
    if n == 36 and text[8:9] == text[13:14] == text[18:19] == text[23:24] == "-":
        return all(c in "0123456789abcdefABCDEF-" for c in text)
    return False


def clean(value, limit: int = DEFAULT_LIMIT, *, verbatim: bool = False):
    """One stored text field: valid UTF-8, secrets redacted, bounded. Other types pass."""
    if not isinstance(value, str):
        return value
    value = _valid_text(value)
    if verbatim:
        return cut(value, limit)
    if value[:1] in ("{", "[") and len(value) <= 64 * limit:
        as_json = _clean_json_text(value, limit)
        if as_json is not None:
            return as_json
    if _trivially_clean(value):
        return value
    return redact_cut(value, limit)


def _clean_json_text(text: str, limit: int) -> str | None:
    # fastjson: the json package would cost a hook process that stores a row about 1.5 ms.
    from ..fastjson import dumps, loads

    try:
        obj = loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, (dict, list)):
        return None
    try:
        cleaned = _clean_obj(obj, min(limit, _JSON_STRING_LIMIT), 0)
        if cleaned == obj and len(text) <= limit:
            return text  # nothing to hide: keep the writer's exact text
        out = dumps(cleaned, ensure_ascii=False, compact=True)
    except (RecursionError, ValueError, TypeError):
        return None
    if len(out) > limit:
        # Still valid JSON, and says it was cut.
        out = dumps(
            {"cut": True, "chars": len(out), "preview": cut(out, max(0, limit - 200))},
            ensure_ascii=False,
            compact=True,
        )
    return out


def _clean_obj(obj, limit: int, depth: int):
    if depth > 64:
        return "[cut: nested too deep]"
    if isinstance(obj, str):
        return clean(obj, limit)
    if isinstance(obj, dict):
        return {clean(str(k), 200): _clean_obj(v, limit, depth + 1) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_clean_obj(v, limit, depth + 1) for v in obj]
    return obj


_COLUMNS_CACHE: dict = {}
_WHERE = "<where>"


def _skip_column(col: str | None) -> bool:
    """Columns written only by code: ids, timestamps (never person- or payload-derived)."""
    if col is None:
        return False
    name = col.rsplit(".", 1)[-1]
    if name in ("id", "timestamp", "embedding") or name.endswith("_at"):
        return True
    return name.endswith("_id") and name not in ("session_id",)


def _param_columns(sql: str) -> list:
    """For each positional ``?`` of a simple INSERT/UPDATE, its "table.column" (None: unknown)."""
    cached = _COLUMNS_CACHE.get(sql)
    if cached is not None:
        return cached
    cols = _plain_insert_columns(sql)
    if cols is not None:
        if len(_COLUMNS_CACHE) < 512:
            _COLUMNS_CACHE[sql] = cols
        return cols
    cols = []
    text = " ".join(sql.split())
    head, tail = text, ""
    conflict = re.search(r"(?i)\sON\s+CONFLICT\b", text)
    if conflict:
        head, tail = text[: conflict.start()], text[conflict.start() :]
    m = re.match(
        r'(?i)(?:INSERT|REPLACE)(?:\s+OR\s+\w+)?\s+INTO\s+"?(\w+)"?\s*\(([^)]*)\)\s*VALUES\s*\((.*)\)\s*$', head
    )
    if m:
        table = m.group(1)
        names = [c.strip().strip('"') for c in m.group(2).split(",")]
        values = _split_top(m.group(3))
        if len(values) == len(names):
            for name, v in zip(names, values):
                cols.extend([f"{table}.{name}"] * v.count("?"))
        cols.extend([None] * tail.count("?"))
    else:
        m = re.match(r'(?i)UPDATE\s+"?(\w+)"?\s+SET\s+(.*?)(?:\s+WHERE\s+(.*))?$', text)
        if m:
            table = m.group(1)
            for item in _split_top(m.group(2)):
                name = item.split("=", 1)[0].strip().strip('"')
                cols.extend([f"{table}.{name}"] * item.count("?"))
            cols.extend([_WHERE] * (m.group(3) or "").count("?"))  # keys to match: unchanged
    if len(cols) != sql.count("?"):
        cols = []
    if len(_COLUMNS_CACHE) < 512:
        _COLUMNS_CACHE[sql] = cols
    return cols


def _plain_insert_columns(sql: str) -> list | None:
    """The common ``INSERT INTO t(a, b) VALUES (?, ?)`` read with string methods, so a hook's
    audit row does not pay for importing ``re``; None for anything else."""
    text = " ".join(sql.split())
    if not text.upper().startswith("INSERT INTO ") or text.count("(") != 2 or text.count(")") != 2:
        return None
    head, sep, values = text[len("INSERT INTO ") :].partition(") VALUES (")
    table, paren, names = head.partition("(")
    table = table.strip().strip('"')
    if not sep or not paren or not values.endswith(")") or not table.replace("_", "").isalnum():
        return None
    slots = [v.strip() for v in values[:-1].split(",")]
    names_list = [n.strip().strip('"') for n in names.split(",")]
    if len(slots) != len(names_list) or any(v != "?" for v in slots):
        return None
    return [f"{table}.{n}" for n in names_list]


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def gate_params(sql: str, params):
    """The parameters of one INSERT/UPDATE with every text value made safe to store."""
    if not params:
        return params
    if isinstance(params, dict):
        return {k: clean(v) for k, v in params.items()}
    if not any(isinstance(v, str) for v in params):
        return params
    cols = _param_columns(sql)
    out = []
    for i, v in enumerate(params):
        if not isinstance(v, str):
            out.append(v)
            continue
        col = cols[i] if i < len(cols) else None
        if col == _WHERE:
            out.append(v)
            continue
        if _skip_column(col):
            out.append(_valid_text(v))
            continue
        limit = FIELD_LIMITS.get(col, DEFAULT_LIMIT) if col else DEFAULT_LIMIT
        out.append(clean(v, limit, verbatim=col in VERBATIM))
    return out
