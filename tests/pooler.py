"""A throwaway PgBouncer in transaction mode in front of a test server (``tests/pgserver.py``), as a managed
PostgreSQL is often reached (Supabase's and Neon's pooled endpoints, PgBouncer beside RDS): each transaction
of a client, or each statement outside one, runs on whichever server connection is free, shared with the
other clients.

Debian's ``pgbouncer`` package (1.18 on Debian 12: no prepared statements across server connections) is
the binary; ``.ci/run`` installs it. It refuses to run as root, so under root it runs as the server's user.
Logins are trusted: a role must be named to it (:meth:`Bouncer.allow`) before it may connect, and a
database may be given a pool of its own size (:meth:`Bouncer.route`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pgserver


def find() -> Path | None:
    """The ``pgbouncer`` binary (Debian installs it in ``/usr/sbin``), or ``None``."""
    found = shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin:/usr/local/sbin")
    return Path(found) if found else None


class Bouncer:
    """A running PgBouncer: :meth:`dsn` names a database through it; :meth:`stop` ends it."""

    def __init__(self, binary: Path, cluster: pgserver.Cluster, pool_size: int) -> None:
        self.cluster = cluster
        self.pool_size = pool_size
        self.users: dict[str, str] = {pgserver.SUPERUSER: ""}
        self.routes: dict[str, tuple[str, int]] = {}
        self.base = Path(tempfile.mkdtemp(prefix="trail-pgbouncer-"))
        if cluster.user is not None:
            os.chown(self.base, cluster.user.pw_uid, cluster.user.pw_gid)
        self.port = 0
        last = ""
        for _ in range(5):  # the port is free when chosen; another process may take it first
            self.port = pgserver._free_port()
            self._write()
            extra: dict[str, Any] = {}
            if cluster.user is not None:
                extra = {"user": cluster.user.pw_uid, "group": cluster.user.pw_gid, "extra_groups": []}
            self.process = subprocess.Popen(
                [str(binary), str(self.base / "pgbouncer.ini")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                **extra,
            )
            if self._answers():
                return
            self.process.kill()
            last = self.process.communicate(timeout=10)[1].decode(errors="replace") + self._log()
        self.stop()
        raise RuntimeError(f"PgBouncer did not start: {last}")

    def _write(self) -> None:
        """Its settings and logins, readable by the user it runs as."""
        server = f"host=127.0.0.1 port={self.cluster.port}"
        routes = [
            f"{alias} = {server} dbname={db} pool_size={size}" for alias, (db, size) in self.routes.items()
        ]
        settings = {
            "listen_addr": "127.0.0.1",
            "listen_port": str(self.port),
            "unix_socket_dir": "",
            "auth_type": "trust",
            "auth_file": str(self.base / "users.txt"),
            "pool_mode": "transaction",
            "default_pool_size": str(self.pool_size),
            "max_client_conn": "200",
            "ignore_startup_parameters": "extra_float_digits",
            "logfile": str(self.base / "pgbouncer.log"),
            "pidfile": str(self.base / "pgbouncer.pid"),
        }
        text = "[databases]\n" + "\n".join([*routes, f"* = {server}"]) + "\n\n[pgbouncer]\n"
        text += "".join(f"{key} = {value}\n" for key, value in settings.items())
        files = {
            "pgbouncer.ini": text,
            "users.txt": "".join(f'"{user}" "{password}"\n' for user, password in self.users.items()),
        }
        for name, content in files.items():
            path = self.base / name
            path.write_text(content)
            if self.cluster.user is not None:
                os.chown(path, self.cluster.user.pw_uid, self.cluster.user.pw_gid)

    def _log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.base / "pgbouncer.log").read_text()[-2000:]
        return ""

    def _answers(
        self, user: str = pgserver.SUPERUSER, password: str = "", database: str = "postgres"
    ) -> bool:
        """Whether a login as ``user`` to ``database`` through it succeeds within a few seconds."""
        import psycopg

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with psycopg.connect(self.dsn(database, user=user, password=password), connect_timeout=2):
                    return True
            except psycopg.Error:
                time.sleep(0.1)
        return False

    def _reload(self, user: str, password: str, database: str) -> None:
        self._write()
        self.process.send_signal(signal.SIGHUP)
        if not self._answers(user, password, database):
            raise RuntimeError(f"PgBouncer did not take its new settings: {self._log()}")

    def allow(self, user: str, password: str, database: str = pgserver.DATABASE) -> None:
        """Let ``user`` log in (to ``database``, where it is checked)."""
        self.users[user] = password
        self._reload(user, password, database)

    def route(self, alias: str, database: str, pool_size: int) -> None:
        """Make ``alias`` a name of the server's ``database`` with a pool of ``pool_size`` server connections
        (every other name is a database of its own name, with the default pool)."""
        self.routes[alias] = (database, pool_size)
        self._reload(pgserver.SUPERUSER, "", alias)

    def dsn(self, database: str, *, user: str = pgserver.SUPERUSER, password: str = "") -> str:
        auth = quote(user) + (":" + quote(password, safe="") if password else "")
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
            self.process.wait(timeout=10)
        shutil.rmtree(self.base, ignore_errors=True)


def start(cluster: pgserver.Cluster, pool_size: int = 4) -> Bouncer:
    """PgBouncer in transaction mode in front of ``cluster``, ``pool_size`` server connections a database
    and login.

    :raises FileNotFoundError: PgBouncer is not installed.
    """
    binary = find()
    if binary is None:
        raise FileNotFoundError("no PgBouncer: apt-get install pgbouncer")
    return Bouncer(binary, cluster, pool_size)
