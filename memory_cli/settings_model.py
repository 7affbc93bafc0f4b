"""Strict validation of the config file for the CLI, built from ``settings.FIELDS``.

Hooks never import this (pydantic costs ~70 ms per process); they use the lenient loader.
Unknown keys are errors here, so a typo such as ``max_token`` is caught instead of ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from .errors import InvalidInput
from .settings import FIELDS


def _annotation(type_: str, constraint):
    optional = type_.endswith("?")
    base = type_.rstrip("?")
    py = {"str": str, "path": str, "int": int, "float": float, "bool": bool, "list[str]": list[str]}[base]
    if constraint and constraint[0] == "choices":
        py = Literal[tuple(constraint[1])]  # type: ignore[valid-type]
    return Optional[py] if optional else py


def _field(default, constraint, help_):
    kw = {"description": help_}
    if constraint and constraint[0] == "range":
        kw.update(ge=constraint[1], le=constraint[2])
    return Field(default=default, **kw)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _build():
    sections: dict[str, dict] = {}
    top: dict = {}
    for section, key, type_, default, constraint, help_ in FIELDS:
        target = top if section is None else sections.setdefault(section, {})
        target[key] = (_annotation(type_, constraint), _field(default, constraint, help_))
    for name, fields in sections.items():
        model = create_model(f"{name.title()}Config", __base__=_Strict, **fields)
        top[name] = (model, Field(default_factory=model))
    return create_model("MemoryCliConfig", __base__=_Strict, **top)


ConfigModel = _build()


def _strip_help(obj):
    if isinstance(obj, dict):
        return {k: _strip_help(v) for k, v in obj.items() if not k.startswith("_")}
    return obj


def validate_file(path: Path) -> dict:
    """Return the validated config as a dict, or raise InvalidInput naming the key and problem."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ConfigModel().model_dump()
    except OSError as e:
        raise InvalidInput(f"cannot read config {path}: {e.strerror}") from None
    try:
        data = json.loads(raw)
    except ValueError as e:
        raise InvalidInput(f"config {path} is not valid JSON: {e}") from None
    return validate_data(data, str(path))


def validate_data(data, where: str = "config") -> dict:
    try:
        return ConfigModel.model_validate(_strip_help(data)).model_dump()
    except ValidationError as e:
        problems = []
        for err in e.errors():
            key = ".".join(str(p) for p in err["loc"]) or "(top level)"
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            problems.append(f"{key}: {msg}")
        raise InvalidInput(f"{where}: " + "; ".join(problems)) from None
