"""A real PostgreSQL server for the tests: initdb + pg_ctl into a temporary directory, on
127.0.0.1 and a free port, with password (SCRAM) authentication over TCP as in production.

PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` system user
that Debian's ``postgresql`` package creates (``scripts/setup_postgres.sh`` installs it).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ADMIN_PASSWORD = "admin-pw"
#: The team members' logins in the tests: alice and carol are members, bob a maintainer.
PASSWORDS = {"alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw"}


def find_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    return candidates[-1] if candidates else None


def missing_reason() -> str | None:
    if not (find_bin("initdb") and find_bin("pg_ctl")):
        return "no PostgreSQL server binaries (initdb, pg_ctl): run scripts/setup_postgres.sh"
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and no 'postgres' user to run the server as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed: pip install -e '.[team]'"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="memory-cli-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres")

    def _run(self, *args, check=True):
        cmd = (["runuser", "-u", "postgres", "--"] if self.as_root else []) + list(args)
        return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=120)

    def init(self) -> PgServer:
        pw = self.dir / "pw"
        pw.write_text(ADMIN_PASSWORD + "\n")
        if self.as_root:
            shutil.chown(pw, "postgres")
        self._run(
            find_bin("initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={pw}",
            "--no-sync",
            "-E",
            "UTF8",
        )
        return self

    def start(self) -> PgServer:
        self._run(
            find_bin("pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off",
            "start",
        )
        return self

    def stop(self) -> None:
        self._run(find_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, user: str = "postgres", db: str = "postgres", password: str | None = None) -> str:
        auth = f"{user}:{password}@" if password else f"{user}@"
        return f"postgresql://{auth}127.0.0.1:{self.port}/{db}"

    def sql(self, statement: str, db: str = "postgres", autocommit: bool = True):
        import psycopg

        with psycopg.connect(self.url(db=db, password=ADMIN_PASSWORD), autocommit=autocommit) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else None

    def wait_down(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) != 0:
                    return
            time.sleep(0.05)


class Team:
    """One team database on the test server and the members' stores beside it."""

    def __init__(self, pg, name, tmp_path):
        self.pg, self.name, self.tmp = pg, name, tmp_path

    def url(self, user):
        return self.pg.url(user=user, db=self.name)

    def db(self, user):
        return self.tmp / f"{user}.db"

    def cli(self, user, *args, **kw):
        from .cli import run_cli

        return run_cli(*args, db=self.db(user), **kw)

    def join(self, user):
        r = self.cli(user, "team", "join", self.url(user))
        assert r.returncode == 0, r.stderr
        return r

    def sync(self, user):
        r = self.cli(user, "team", "sync", "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def share(self, user, entry_id):
        from memory_cli.store.db import Store
        from memory_cli.team import api

        with Store.open(self.db(user)) as s:
            return api.mark_shared(s, entry_id)

    def row(self, user, sql, params=()):
        from memory_cli.store.db import Store

        with Store.open(self.db(user)) as s:
            return s.row(sql, params)

    def shared_by(self, user, content, type_="fact"):
        """``user`` joins, adds an entry, shares it and syncs: the usual start of a scenario."""
        entry = json.loads(self.cli(user, "add", content, "--type", type_, "--json").stdout)
        self.join(user)
        self.share(user, entry["id"])
        self.sync(user)
        return entry

    def status(self, user, entry_id):
        return self.row(user, "SELECT status FROM memory_entries WHERE id = ?", (entry_id,))["status"]

    def server_row(self, entry_id):
        rows = self.pg.sql(
            f"SELECT content, version, deleted, confirmed, author, rule::text FROM memory_cli.entries"
            f" WHERE id = '{entry_id}'",
            db=self.name,
        )
        return rows[0] if rows else None
