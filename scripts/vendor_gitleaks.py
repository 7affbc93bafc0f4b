#!/usr/bin/env python3
"""Turn gitleaks' rule set (``config/gitleaks.toml``, MIT) into memory-cli's secret formats.

The redactor (``memory_cli/privacy/redact.py``) recognises provider token formats from a well-kept
secret scanner's rules, kept as data in ``memory_cli/privacy/secret_formats.json``. This script writes
that file from a gitleaks checkout, so updating the formats is a re-run, not a hand edit:

    python scripts/vendor_gitleaks.py /path/to/gitleaks            # a git checkout or bare repo
    python scripts/vendor_gitleaks.py /path/to/gitleaks --check    # exit 1 if the file differs

What it does to each rule:
- Go (RE2) syntax is rewritten where Python's ``re`` spells it differently: ``(?i)`` in the
  middle of a pattern becomes a scoped ``(?i:...)`` up to the end of its group, ``\\z`` becomes
  ``\\Z``, ``[[:alnum:]]``-style classes are spelled out, ``(?<name>`` becomes ``(?P<name>``;
- a leading optional context run (``[\\w.-]{0,50}?``) is dropped: it never holds the secret,
  and Python's backtracking engine pays for it at every position of a text;
- the two curl rules stop each try at the next ``curl`` (``REWRITES``), which keeps them
  linear on a line that repeats it;
- the secret is the rule's ``secretGroup``, else its first non-empty group, else the match (as
  in gitleaks); ``entropy``, ``keywords`` and the rule's allowlists (regexes on the secret, the
  match or the line, stopwords) are kept, and so are the global allowlist's regexes and stopwords;
- rules left out are listed with why: path-only rules (nothing to find in text), patterns
  Python cannot compile after the rewrite, and ``generic-api-key``, whose keywords ("key",
  "api", "token", "auth") occur in most prompts: the redactor's own assignment rules cover
  secrets named that way with fewer false alarms.
Standard library only (``tomllib``: Python 3.11+).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "memory_cli" / "privacy" / "secret_formats.json"
LICENCE_OUT = ROOT / "memory_cli" / "privacy" / "secret_formats.LICENSE"
LEFT_OUT = {
    "generic-api-key": "keywords (key, api, token, auth, ...) occur in most prompts; named secrets are "
    "caught by the redactor's assignment rules",
}
_POSIX = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "lower": "a-z",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
    "space": r"\s",
    "punct": r"!-/:-@\[-`{-~",
    "word": r"\w",
}


def _group_end(rx: str, start: int) -> int:
    """Index of the ")" closing the group that holds position ``start`` (len(rx) at top level)."""
    depth = 0
    i = start
    in_class = False
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if rx.startswith("[^]", i) or rx.startswith("[]", i):
                i += 2 if rx[i + 1] == "]" else 3
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return len(rx)


def to_python(rx: str) -> str:
    """A Go RE2 pattern as Python ``re`` reads it with the same meaning."""
    rx = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", rx)
    rx = re.sub(r"\[:(\w+):\]", lambda m: _POSIX.get(m.group(1), m.group(0)), rx)
    rx = rx.replace(r"\z", r"\Z")
    while True:
        p = rx.find("(?i)", 1)
        if p < 0:
            break
        end = _group_end(rx, p + 4)
        rx = rx[:p] + "(?i:" + rx[p + 4 : end] + ")" + rx[end:]
    return rx


# A leading optional run of name characters ("[\w.-]{0,50}?", often twice, once inside a
# leading "(?i:"): it only widens a match to the left of the keyword, never the secret, and
# under a backtracking engine it multiplies the work at every position of a text by its
# length (seconds on 4 KB of a repeated keyword). RE2, which gitleaks runs, does not care.
_LEADING_CONTEXT = re.compile(r"^((?:\(\?i\)|\(\?i:)*)\[\\w\.-\]\{0,\d+\}\??")


# Patterns rewritten for a backtracking engine, each with the same meaning but for one edge
# named here. The curl rules look for `-u`/`-H` anywhere after `curl` on up to six lines: tried
# from every `curl` of a long line that repeats it, that is quadratic (9 s on 20 KB of
# "curl "). Stopping each try at the next `curl` makes it linear; a `-u` after a second `curl`
# belongs to that one, whose own try finds it.
_TEMPERED = r"(?:(?!\bcurl\b).)"
REWRITES = {
    "curl-auth-user": (
        r"\bcurl\b(?:.*|.*(?:[\r\n]{1,2}.*){1,5})",
        r"\bcurl\b" + _TEMPERED + r"*(?:[\r\n]{1,2}" + _TEMPERED + r"*){0,5}",
    ),
    "curl-auth-header": (
        r"\bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})",
        r"\bcurl\b" + _TEMPERED + r"*?(?:[\r\n]{1,2}" + _TEMPERED + r"*?){0,5}",
    ),
}


def rewritten(rule_id: str, rx: str) -> str:
    if rule_id not in REWRITES:
        return rx
    old, new = REWRITES[rule_id]
    if old not in rx:
        raise SystemExit(f"{rule_id}: the pattern changed upstream; review REWRITES")
    return rx.replace(old, new, 1)


def without_leading_context(rx: str) -> str:
    """The pattern without its leading optional context runs (same secrets found)."""
    while True:
        out = _LEADING_CONTEXT.sub(r"\1", rx, count=1)
        if out == rx:
            return rx
        rx = out


def _allow(entry: dict) -> dict | None:
    target = entry.get("regexTarget", "secret")
    if entry.get("paths") and not entry.get("regexes") and not entry.get("stopwords"):
        return None  # path allowlists have no meaning for text
    if entry.get("condition") == "AND" and entry.get("paths"):
        return None  # only with a path: never applies to text
    out = {"target": target}
    if entry.get("regexes"):
        out["regexes"] = [to_python(r) for r in entry["regexes"]]
    if entry.get("stopwords"):
        out["stopwords"] = [w.lower() for w in entry["stopwords"]]
    return out


def convert(config: dict) -> tuple[list[dict], list[dict], dict]:
    rules, left = [], []
    for r in config.get("rules", []):
        rid = r["id"]
        if rid in LEFT_OUT:
            left.append({"id": rid, "why": LEFT_OUT[rid]})
            continue
        if "regex" not in r:
            left.append({"id": rid, "why": "matches file paths only"})
            continue
        rx = rewritten(rid, without_leading_context(to_python(r["regex"])))
        try:
            compiled = re.compile(rx)
            allows = [a for a in map(_allow, r.get("allowlists", [])) if a]
            for a in allows:
                for x in a.get("regexes", []):
                    re.compile(x)
        except re.error as e:
            left.append({"id": rid, "why": f"does not compile in Python: {e}"})
            continue
        rule = {"id": rid, "regex": rx, "keywords": sorted({k.lower() for k in r.get("keywords", [])})}
        group = int(r.get("secretGroup", 0) or 0)
        if group:
            rule["group"] = group
        elif compiled.groups:
            rule["group"] = -1  # the first non-empty group, as gitleaks takes it
        if r.get("entropy"):
            rule["entropy"] = float(r["entropy"])
        if allows:
            rule["allow"] = allows
        rules.append(rule)
    glob = config.get("allowlist", {})
    global_allow = {
        "regexes": [to_python(x) for x in glob.get("regexes", [])],
        "stopwords": [w.lower() for w in glob.get("stopwords", [])],
    }
    return rules, left, global_allow


def _git_show(repo: Path, spec: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", spec], check=True, capture_output=True, text=True).stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", help="a gitleaks checkout or bare repository")
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--check", action="store_true", help="exit 1 when the vendored file differs")
    args = ap.parse_args()
    repo = Path(args.repo)
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", args.commit], check=True, capture_output=True, text=True
    ).stdout.strip()
    config = tomllib.loads(_git_show(repo, f"{commit}:config/gitleaks.toml"))
    licence = _git_show(repo, f"{commit}:LICENSE")
    rules, left, global_allow = convert(config)
    data = {
        "source": {
            "repository": "https://github.com/gitleaks/gitleaks",
            "path": "config/gitleaks.toml",
            "commit": commit,
            "licence": "MIT (memory_cli/privacy/secret_formats.LICENSE)",
            "min_version": config.get("minVersion"),
        },
        "rules": rules,
        "allow": global_allow,
        "left_out": left,
    }
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("up to date" if same else f"stale: run scripts/vendor_gitleaks.py {repo}")
        return 0 if same else 1
    OUT.write_text(text)
    LICENCE_OUT.write_text(licence)
    print(f"wrote {OUT.relative_to(ROOT)}: {len(rules)} rules, {len(left)} left out", file=sys.stderr)
    for x in left:
        print(f"  left out {x['id']}: {x['why']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
