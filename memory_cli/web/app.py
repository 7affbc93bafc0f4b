"""The FastAPI application: security middleware, the JSON API, the pages and static files."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from . import api_admin, api_journal, api_memories, api_rules, deps, pages
from .security import SecurityMiddleware, allowed_hosts, csrf_token
from .sessions import Sessions

HERE = Path(__file__).parent


@dataclass
class ServerConfig:
    db_path: str
    token: str
    host: str = "127.0.0.1"
    port: int = 8765
    extra_hosts: tuple = ()
    injection_floor: float = 0.3
    refresh_seconds: int = 5
    hosts: set = field(default_factory=set)


def create_app(config: ServerConfig) -> FastAPI:
    """Build the app for one store. ``extra_hosts`` adds accepted Host headers (tests use
    ``testserver``)."""

    @asynccontextmanager
    async def lifespan(app):
        yield
        app.state.pool.close()

    app = FastAPI(
        title="memory-cli",
        lifespan=lifespan,
        version=_version(),
        description="The memory-cli store over HTTP: memories, rules, review, stats, audit. "
        "Every request needs the server's token (Authorization: Bearer TOKEN).",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    config.hosts = allowed_hosts(config.host, config.port, config.extra_hosts)
    app.state.config = config
    app.state.pool = deps.StorePool(config.db_path)
    app.state.csrf = csrf_token(config.token)
    app.state.sessions = Sessions()
    deps.install_error_handlers(app)
    app.include_router(api_memories.router)
    app.include_router(api_rules.router)
    app.include_router(api_admin.router)
    app.include_router(api_journal.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.add_middleware(
        SecurityMiddleware, token=config.token, hosts=config.hosts, port=config.port, sessions=app.state.sessions
    )

    return app


def _version() -> str:
    from .. import __version__

    return __version__
