"""Field checks shared by the journal stores: every text passes the one redaction gate."""

from __future__ import annotations

from ..errors import InvalidInput
from ..redact import redact

MAX_TEXT = 20_000


def text(value, what: str, *, required: bool = False, max_len: int = MAX_TEXT) -> str | None:
    """Strip, bound and redact one stored field; None for an empty optional field."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise InvalidInput(f"{what} is empty")
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text, not {type(value).__name__}")
    s = value.strip()
    if len(s) > max_len:
        raise InvalidInput(f"{what} is {len(s)} characters; the limit is {max_len}")
    return redact(s)[0]


def limit(value, *, default: int = 10, maximum: int = 200) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value).strip())
        except ValueError:
            raise InvalidInput(f"limit must be a whole number, not {value!r}") from None
    if value < 1 or value > maximum:
        raise InvalidInput(f"limit must be between 1 and {maximum}, not {value}")
    return value
