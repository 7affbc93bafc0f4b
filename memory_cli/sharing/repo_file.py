"""The shared file's format: TOML, one ``[[memory]]`` table per entry, rule fields in
``[memory.rule]``.

TOML because it is what a reviewer reads best in a diff: one key per line, no quoting of
plain words, comments allowed, multi-line strings kept readable; the standard library reads it
(``tomllib``), so SessionStart can load it without a dependency, and ``tomli-w`` writes it.
Entries are sorted by id and keys written in a fixed order, so sharing one entry is a diff of
one block.
"""

from __future__ import annotations

import os

from ..entries import TYPES
from ..errors import InvalidInput
from ..ids import check_id
from ..rules.api import PORTABLE_FIELDS

HEADER = (
    "# Memory shared with everyone who works in this repository, loaded by memory-cli (its\n"
    "# docs/sharing.md says how). Review changes like code: the rules below are\n"
    "# enforced in every teammate's Claude Code sessions. Edit with `memory-cli share ID` and\n"
    "# `memory-cli unshare ID`, or by hand.\n\n"
)
ENTRY_KEYS = ("id", "type", "content", "category", "subject", "tags")
# A rule's portable fields; whether it is switched on is each store's own choice.
RULE_KEYS = tuple(k for k in PORTABLE_FIELDS if k != "enabled")


#: A shared file larger than this is not read (a reviewed file of a few hundred entries is
#: well under it; ``/dev/zero`` or a generated file would stall every session start).
MAX_BYTES = 512 * 1024
#: Nor one with more entries than this: each is checked and applied at session start.
MAX_ENTRIES = 1000


def read_bytes(path: str) -> bytes | None:
    """The file's bytes, or None when there is none. Only a regular file is read, and only up
    to :data:`MAX_BYTES`: a symlink (to ``/dev/zero``, to a file outside the repository), a
    pipe or a device is refused with one :class:`InvalidInput` line, without reading it."""
    import stat

    where = _where(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as err:
        if os.path.islink(path):
            raise InvalidInput(f"{where}: is a symlink; only a regular file is read (not read)") from None
        raise InvalidInput(f"{where}: cannot be read ({err.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInput(f"{where}: not a regular file (a pipe, device or directory); not read")
        for what, info in (("its folder", os.stat(os.path.dirname(os.path.abspath(path)))), ("the file", st)):
            why = not_trusted(info)
            if why:
                raise InvalidInput(f"{where}: {what} {why}; not read")
        if st.st_size > MAX_BYTES:
            raise InvalidInput(
                f"{where}: {st.st_size:,} bytes, over the {MAX_BYTES:,} a shared file may hold; not read"
            )
        chunks, left = [], MAX_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > MAX_BYTES:  # it grew while being read
            raise InvalidInput(f"{where}: over the {MAX_BYTES:,} bytes a shared file may hold; not read")
        return data
    finally:
        os.close(fd)


def not_trusted(st) -> str | None:
    """Why a file or folder with this ``os.stat`` result may hold what another local user put
    there, or None. A repository found above the working directory can be anyone's: a ``.git``
    and ``.claude/memory-cli.toml`` planted in a shared parent (``/tmp``) by another user would
    otherwise bring their rules into this person's sessions. Trusted: owned by this user or
    root, and writable by no one else (group-writable only for the person's own private
    group, as a umask of 002 makes every file)."""
    import stat

    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is None:  # no owners to compare (Windows)
        return None
    if st.st_uid not in (uid, 0):
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & stat.S_IWOTH:
        return "is writable by every user"
    if st.st_mode & stat.S_IWGRP and not _private_group(st.st_gid, uid):
        return f"is writable by group {st.st_gid}"
    return None


def _private_group(gid: int, uid: int) -> bool:
    """Whether ``gid`` is this user's own group (named like the user, no other members)."""
    try:
        import grp
        import pwd

        user = pwd.getpwuid(uid)
        group = grp.getgrgid(gid)
    except (ImportError, KeyError):
        return False
    return user.pw_gid == gid and group.gr_name == user.pw_name and set(group.gr_mem) <= {user.pw_name}


def _where(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def digest(data: bytes) -> str:
    import hashlib  # ~2.5 ms to import; only a file that exists is hashed

    return hashlib.sha256(data).hexdigest()


def parse(data: bytes, path: str) -> list[dict]:
    """The file's entries, each checked; any problem is one :class:`InvalidInput` line."""
    import tomllib

    where = _where(path)
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidInput(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise InvalidInput(f"{where}: not valid TOML: {err}") from None
    items = doc.get("memory", [])
    if not isinstance(items, list):
        raise InvalidInput(f"{where}: 'memory' must be an array of tables ([[memory]])")
    if len(items) > MAX_ENTRIES:
        raise InvalidInput(
            f"{where}: {len(items):,} entries, over the {MAX_ENTRIES:,} a shared file may hold; not read"
        )
    seen = set()
    out = []
    for n, item in enumerate(items, 1):
        label = f"{where}: memory #{n}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{label}: not a table")
        eid = item.get("id")
        if not isinstance(eid, str) or not eid.strip():
            raise InvalidInput(f"{label}: needs an id")
        check_id(eid, f"{label}: id")
        if eid in seen:
            raise InvalidInput(f"{label}: id {eid} appears twice")
        seen.add(eid)
        if item.get("type", "rule" if "rule" in item else None) not in TYPES:
            raise InvalidInput(f"{label} ({eid[:8]}): type must be one of {', '.join(TYPES)}")
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput(f"{label} ({eid[:8]}): needs content")
        tags = item.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InvalidInput(f"{label} ({eid[:8]}): tags must be a list of strings")
        unknown = set(item) - set(ENTRY_KEYS) - {"rule"}
        if unknown:
            raise InvalidInput(f"{label} ({eid[:8]}): unknown key {sorted(unknown)[0]!r}")
        entry = {k: item.get(k) for k in ENTRY_KEYS}
        entry["type"] = item.get("type", "rule" if "rule" in item else None)
        entry["tags"] = tags
        entry["rule"] = _check_rule(item.get("rule"), f"{label} ({eid[:8]})") if "rule" in item else None
        if entry["type"] == "rule" and entry["rule"] is None:
            raise InvalidInput(f"{label} ({eid[:8]}): a rule needs a [memory.rule] table with a pattern")
        out.append(entry)
    return out


def _check_rule(rule, label: str) -> dict:
    from ..rules import spec

    if not isinstance(rule, dict):
        raise InvalidInput(f"{label}: rule must be a table")
    unknown = set(rule) - set(RULE_KEYS)
    if unknown:
        raise InvalidInput(f"{label}: unknown rule key {sorted(unknown)[0]!r}")
    try:
        ptype = spec.check_pattern_type(rule.get("pattern_type", "regex"))
        out = dict(rule)
        out["pattern_type"] = ptype
        out["pattern"] = spec.check_pattern(
            rule.get("pattern"), ptype, case_sensitive=bool(rule.get("case_sensitive", False))
        )
        out["action"] = spec.check_action(rule.get("action", "warn"))
        out["severity"] = spec.check_severity(rule.get("severity", "medium"))
        out["tools"] = spec.normalize_tools(rule["tools"]) if "tools" in rule else spec.default_tools(ptype)
        out["fields"] = spec.normalize_fields(rule.get("fields"))
        out["conditions"] = spec.normalize_conditions(rule.get("conditions"))
        out["hook_events"] = spec.normalize_hook_events(rule.get("hook_events"))
    except InvalidInput as err:
        raise InvalidInput(f"{label}: {err}") from None
    return out


def render(entries: list[dict]) -> str:
    """The file's text: header, then entries by id with keys in a fixed order, empty ones left out."""
    import tomli_w

    tables = []
    for e in sorted(entries, key=lambda x: x["id"]):
        t = {k: e[k] for k in ENTRY_KEYS if e.get(k) not in (None, "", [])}
        if e.get("rule"):
            t["rule"] = {k: e["rule"][k] for k in RULE_KEYS if e["rule"].get(k) not in (None, "", [], False)}
        tables.append(t)
    return HEADER + tomli_w.dumps({"memory": tables}, multiline_strings=True)
