"""Reading and changing one key of the config file: ``memory-cli config get|set|unset|list``.

A person turns session memories on with one command (``config set llm.provider claude-cli``)
instead of editing JSON by hand. Every key and value is checked against ``settings.FIELDS``
(the one table of keys) before anything is written, and the whole file is validated again
after the change, so a typo never reaches the file the hooks read. The file is replaced
atomically (a reader sees the old file or the new one) with mode 0600, since it can name
servers and key variables.
"""

from __future__ import annotations

import json
import os
from typing import Any

from . import paths
from . import settings as settings_mod
from .errors import InvalidInput
from .files import private_file
from .seals import config as config_seal

# Settings the environment can override, and by which variable (shown by `config list`).
_ENV_OVERRIDES = {"injection.max_tokens": "MEMORY_CLI_BUDGET", "database_path": "MEMORY_CLI_DB"}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def field(name: str) -> tuple:
    """The ``FIELDS`` row of ``name`` (``section.key``); InvalidInput for an unknown key."""
    for row in settings_mod.FIELDS:
        section, key = row[0], row[1]
        if (key if section is None else f"{section}.{key}") == name:
            return row
    near = sorted(n for n in names() if n.split(".")[0] == name.split(".")[0])
    hint = f" (keys of that section: {', '.join(near)})" if near else " (see `memory-cli config list`)"
    raise InvalidInput(f"unknown config key {name!r}{hint}")


def names() -> list[str]:
    return [k if s is None else f"{s}.{k}" for s, k, *_ in settings_mod.FIELDS]


def parse(name: str, text: str) -> Any:
    """``text`` as typed on the command line, read as the key's type and checked against its
    constraint; InvalidInput naming the key and what it accepts otherwise."""
    _s, _k, type_, _d, constraint, _h = field(name)
    base = type_.rstrip("?")
    raw = text.strip()
    value: Any
    if type_.endswith("?") and raw.lower() in ("null", "none", ""):
        value = None
    elif base == "bool":
        low = raw.lower()
        if low not in _TRUE | _FALSE:
            raise InvalidInput(f"{name} must be true or false, got {text!r}")
        value = low in _TRUE
    elif base == "int":
        try:
            value = int(raw)
        except ValueError:
            raise InvalidInput(f"{name} must be a whole number, got {text!r}") from None
    elif base == "float":
        try:
            value = float(raw)
        except ValueError:
            raise InvalidInput(f"{name} must be a number, got {text!r}") from None
    elif base == "list[str]":
        if raw.startswith("["):
            try:
                value = json.loads(raw)
            except ValueError:
                raise InvalidInput(f"{name} must be a JSON list of strings or comma-separated words") from None
        else:
            value = [w.strip() for w in raw.split(",") if w.strip()]
    else:
        value = text
    err = settings_mod.check_value(type_, constraint, value)
    if err:
        raise InvalidInput(f"{name} {err}")
    if name == "llm.base_url" and value is not None:
        # The check the provider makes before sending, made before the file is written.
        from .llm.answers import LLMError
        from .llm.openai_compat import check_base_url

        try:
            check_base_url(value)
        except LLMError as e:
            raise InvalidInput(str(e)) from None
    return value


def _read_raw(path: str) -> dict:
    """The config file as it is (an absent file is empty); InvalidInput when it is not a valid
    config, so a change never builds on a file the hooks would partly ignore."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise InvalidInput(f"cannot read config {path}: {e.strerror}") from None
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        raise InvalidInput(f"config {path} is not valid JSON ({e}); fix it first, nothing was written") from None
    settings_mod.validate(data, path)  # raises InvalidInput naming every bad key
    return data


def _write(path: str, data: dict) -> None:
    settings_mod.validate(data, path)
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, mode=0o700, exist_ok=True)
    private_file.replace(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _split(name: str) -> tuple[str | None, str]:
    section, key = field(name)[:2]
    return section, key


def get(name: str, path: str | None = None) -> dict:
    """The value in force for ``name`` and where it comes from."""
    for row in listing(path):
        if row["key"] == name:
            return row
    field(name)  # raises for an unknown key
    raise InvalidInput(f"unknown config key {name!r}")


def set_value(name: str, text: str, path: str | None = None) -> dict:
    """Write ``name = text`` (parsed and checked) into the config file; returns the new row."""
    p = path or paths.config_file()
    value = parse(name, text)
    data = _read_raw(p)
    section, key = _split(name)
    if section is None:
        data[key] = value
    else:
        target = data.setdefault(section, {})
        if not isinstance(target, dict):
            raise InvalidInput(f"config {p}: {section} must be an object")
        target[key] = value
    _write(p, data)
    config_seal.seal(p, keys=(name,))
    return get(name, p)


def unset(name: str, path: str | None = None) -> dict:
    """Remove ``name`` from the config file (its default applies again); returns the row."""
    p = path or paths.config_file()
    section, key = _split(name)
    data = _read_raw(p)
    holder = data if section is None else data.get(section)
    if isinstance(holder, dict) and key in holder:
        del holder[key]
        if section is not None and not holder:
            del data[section]
        _write(p, data)
    config_seal.seal(p, keys=(name,))
    return get(name, p)


def listing(path: str | None = None) -> list[dict]:
    """Every key: its value in force and its source (``config`` file, ``environment`` variable
    or ``default``)."""
    p = path or paths.config_file()
    data = _read_raw(p)
    rows = []
    for section, key, _t, default, _c, help_ in settings_mod.FIELDS:
        name = key if section is None else f"{section}.{key}"
        holder = data if section is None else data.get(section)
        if isinstance(holder, dict) and key in holder:
            value, source = holder[key], f"config {p}"
        else:
            value, source = default, "default"
        env = _ENV_OVERRIDES.get(name)
        if env and os.environ.get(env):
            value, source = os.environ[env], f"environment {env}"
        rows.append({"key": name, "value": value, "source": source, "help": help_})
    return rows
