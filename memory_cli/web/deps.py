"""What every route shares: the store (one connection per worker thread), the settings, the
error mapping, and per-field validation so a 422 names the field that was wrong."""

from __future__ import annotations

import threading
from contextlib import contextmanager

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .. import entries
from .. import scope as scopes
from ..errors import Conflict, InvalidInput, MemoryCliError, NotFound, StoreRefused

# The ranked search the ``q`` filter uses: imported here and nowhere else in the web package.
from ..retrieval.search import query as ranked_query  # noqa: F401
from ..store.db import Store


class FieldError(InvalidInput):
    """Invalid input known to come from one named field."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class StorePool:
    """Open store connections reused across requests, each used by one request at a time.

    Opening a store checks its schema, too slow to do per request. A request checks a
    connection out for its whole duration (FastAPI may run a dependency and the route in
    different worker threads, so connections are handed out, not bound to threads). WAL lets
    each see every commit (from the CLI or hooks too) at its next statement."""

    def __init__(self, path: str):
        self.path = path
        self._free: list[Store] = []
        self._lock = threading.Lock()
        self._closed = False

    def acquire(self) -> Store:
        with self._lock:
            s = self._free.pop() if self._free else None
        if s is None:
            s = Store.open(self.path)
        s.warnings.clear()
        return s

    def release(self, s: Store) -> None:
        with self._lock:
            if not self._closed and s._depth == 0:
                self._free.append(s)
                return
        s.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            free, self._free = self._free, []
        for s in free:
            s.close()


def get_store(request: Request):
    pool = request.app.state.pool
    store = pool.acquire()
    try:
        yield store
    finally:
        pool.release(store)


@contextmanager
def field(name: str):
    """Name the field when a domain check inside this block refuses the value."""
    try:
        yield
    except FieldError:
        raise
    except Conflict:
        raise
    except InvalidInput as e:
        raise FieldError(name, str(e)) from None


def check_entry_fields(store: Store, values: dict) -> None:
    """Run the domain's own check for each given entry field, naming the one that fails."""
    checks = {
        "content": lambda v: entries.check_content(store, v),
        "type": entries.check_type,
        "scope": scopes.parse,
        "source": entries.check_source,
        "status": entries.check_status,
        "category": entries.check_category,
        "confidence": lambda v: entries.clamp_confidence(store, v),  # clamped with a warning, as in the CLI
        "min_confidence": lambda v: _number_0_1(v, "min_confidence"),
    }
    for name, value in values.items():
        if value is None or name not in checks:
            continue
        with field(name):
            checks[name](value)
    store.warnings.clear()


def _number_0_1(value, name: str) -> None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"{name} must be a number between 0.0 and 1.0, got {value!r}") from None
    if v != v or not 0.0 <= v <= 1.0:
        raise InvalidInput(f"{name} must be between 0.0 and 1.0, got {value!r}")


def _respond(request, status: int, payload: dict):
    """JSON for the API and htmx fragments; a small HTML page for a page a person opened."""
    path = request.url.path
    if path.startswith("/api") or path.startswith("/ui") or request.headers.get("hx-request"):
        return JSONResponse(payload, status_code=status)
    from html import escape

    from fastapi.responses import HTMLResponse

    return HTMLResponse(
        f"<!doctype html><meta charset=utf-8><title>memory-cli: {status}</title>"
        f"<link rel=stylesheet href=/static/app.css><main class=page><h1>{status}</h1>"
        f"<p>{escape(payload['detail'])}</p><p><a href=/>Back to the overview</a></p></main>",
        status_code=status,
    )


def install_error_handlers(app) -> None:
    def body(message: str, field_name: str | None = None, **extra) -> dict:
        out = {"detail": " ".join(message.split())}
        if field_name:
            out["field"] = field_name
        out.update(extra)
        return out

    @app.exception_handler(FieldError)
    async def _field(request, exc: FieldError):
        return _respond(request, 422, body(f"{exc.field}: {exc}", exc.field))

    @app.exception_handler(Conflict)
    async def _conflict(request, exc: Conflict):
        return _respond(request, 409, body(str(exc)))

    @app.exception_handler(NotFound)
    async def _not_found(request, exc: NotFound):
        return _respond(request, 404, body(str(exc)))

    @app.exception_handler(StoreRefused)
    async def _refused(request, exc: StoreRefused):
        return _respond(request, 503, body(str(exc)))

    @app.exception_handler(MemoryCliError)
    async def _invalid(request, exc: MemoryCliError):
        return _respond(request, 422, body(str(exc)))

    @app.exception_handler(RequestValidationError)
    async def _validation(request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
        name = ".".join(loc) or None
        msg = first.get("msg", "invalid request")
        return _respond(
            request,
            422,
            body(
                f"{name}: {msg}" if name else msg,
                name,
                errors=[
                    {"field": ".".join(str(p) for p in e.get("loc", ())[1:]) or None, "message": e.get("msg")}
                    for e in errors
                ],
            ),
        )
