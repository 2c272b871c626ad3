"""The shared index on a server whose administrator set ``statement_timeout`` and ``lock_timeout`` for
the database or a login, as managed services and careful administrators do: a push and a migration are
work the user asked for, bounded by their batches, and are not cut short by them (one batch cut would stop
every later push at the same batch); waiting for another push of the same host, or another migration, is
waiting one's turn, not a stuck statement. A search keeps the administrator's limits.

Each test's shared index is a database of its own on the run's server (Debian's in CI).
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time
from pathlib import Path

import pytest

from hermes_trail.fleet import schema
from hermes_trail.fleet.connection import FleetError, connect
from hermes_trail.fleet.push import push
from hermes_trail.fleet.search import search as fleet_search
from hermes_trail.index.sync import sync_index

pytestmark = pytest.mark.pg

_DATABASES = itertools.count()
HOST = "gamma"
LIMIT = "700ms"  # the administrator's limit: well above any one statement of a search of this index


class Limited:
    """A migrated shared index in a database of its own whose every new session has ``statement_timeout``
    and ``lock_timeout`` at :data:`LIMIT`, set after the migration."""

    def __init__(self, cluster) -> None:
        self.cluster = cluster
        self.database = f"limited{os.getpid()}_{next(_DATABASES)}"
        with cluster.connect("postgres") as conn:
            conn.execute(f"CREATE DATABASE {self.database}")
        self.admin = cluster.dsn(database=self.database)
        with connect(self.admin) as conn:
            schema.migrate(conn, self.admin)
            role = f"{self.database}_{HOST}"
            schema.add_host(conn, HOST, role, f"{role}-pw")
            self.pushing = cluster.dsn(user=role, password=f"{role}-pw", database=self.database)
            reader = f"{self.database}_reader"
            schema.add_reader(conn, reader, f"{reader}-pw")
            self.reading = cluster.dsn(user=reader, password=f"{reader}-pw", database=self.database)
            for setting in ("statement_timeout", "lock_timeout"):
                conn.execute(f"ALTER DATABASE {self.database} SET {setting} = '{LIMIT}'")

    def docs(self) -> int:
        with connect(self.admin) as conn:
            return int(conn.execute("SELECT count(*) FROM trail_fleet.docs").fetchone()[0])


@pytest.fixture(scope="module")
def long_session(tmp_path_factory) -> Path:
    """A local index of one long conversation (600 turns of about 9,000 characters of varied words) that
    the server takes well over :data:`LIMIT` to make the tsvectors of in one batch, and a short one (with
    6,000 characters a turn, a push took 0.99 s on a fast machine: too near the limit to tell)."""
    from hermesdb import chat, write_home

    words = random.Random(7)
    vocabulary = [
        "".join(words.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(words.randint(3, 11)))
        for _ in range(20_000)
    ]

    def turn() -> str:
        return " ".join(words.choice(vocabulary) for _ in range(1_200))

    root = tmp_path_factory.mktemp("long")
    home = write_home(
        root / "hermes",
        [
            chat("20261120_090000_10a900", *((turn(), turn()) for _ in range(300)), start=1_800_000_000.0),
            chat("20261121_090000_5e0a70", ("Is the sauna warm?", "Yes, 80 degrees."), start=1_800_090_000.0),
        ],
    )
    index = root / "index.db"
    sync_index(index, homes=[home], parallel=False)
    return index


def test_a_push_is_not_cut_by_the_servers_statement_timeout(pg_cluster, long_session):
    """The batch of the long conversation takes the server longer than the database's statement_timeout
    to write (its text made two tsvectors): the push still sends every doc, and searching keeps the limit."""
    shared = Limited(pg_cluster)
    started = time.perf_counter()
    report = push(long_session, shared.pushing, HOST, writers=1)
    took = time.perf_counter() - started
    assert report.pushed == 2 and report.docs == shared.docs() == 602
    assert took > 1.0, f"the push took {took:.2f} s: too little to tell whether a limit cut it"
    assert fleet_search(shared.reading, "sauna warm").conversations  # a search under the same limits
    with connect(shared.reading) as conn:
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == LIMIT


def test_a_push_waits_its_turn_past_the_servers_lock_and_statement_timeouts(pg_cluster, long_session):
    """Another push of the same host holds the host's lock longer than the database's limits: this push
    waits its turn and then sends everything, where the limits cancelled its wait."""
    shared = Limited(pg_cluster)
    done: list = []
    failed: list = []

    def pushing() -> None:
        try:
            done.append(push(long_session, shared.pushing, HOST))
        except FleetError as exc:
            failed.append(exc)

    waiting = threading.Thread(target=pushing)
    with connect(shared.admin) as holder, holder.transaction():
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (schema.HOST_LOCK + HOST,))
        waiting.start()
        time.sleep(2.0)
        assert waiting.is_alive() and not done and not failed, failed
    waiting.join(timeout=120)
    assert not failed and done and done[0].docs == 602


def test_a_migration_waits_for_another_past_the_servers_limits(pg_cluster):
    """A second ``trail share --migrate`` waits for the first (the migration's own lock) longer than the
    database's limits, and then finds the shared index at this version."""
    shared = Limited(pg_cluster)
    reports: list = []
    failed: list = []

    def migrating() -> None:
        try:
            with connect(shared.admin) as conn:
                reports.append(schema.migrate(conn, shared.admin))
        except FleetError as exc:
            failed.append(exc)

    waiting = threading.Thread(target=migrating)
    with connect(shared.admin) as holder, holder.transaction():
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended('trail_fleet:migrate', 0))")
        waiting.start()
        time.sleep(2.0)
        assert waiting.is_alive() and not failed, failed
    waiting.join(timeout=60)
    assert (
        not failed and reports and (reports[0].before, reports[0].after) == (schema.VERSION, schema.VERSION)
    )
