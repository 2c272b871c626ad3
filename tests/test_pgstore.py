"""PgStore: Hermes' tables in PostgreSQL read exactly as the SQLite original.

Every store here is real: the corpus (written by Hermes' own agent loop) and stores written in the
test through Hermes' ``SessionDB``, copied into a PostgreSQL server the tests start (``tests/pgserver.py``)
in both layouts a provider may use. Every command's ``--json`` must then be the same on PostgreSQL as on
the SQLite file, but for the fields that name the store itself (its path or DSN, and its kind).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import hermesdb
import pgserver
from hermes_trail.cli.app import app
from hermes_trail.errors import StoreUnreadable
from hermes_trail.hermes.pgstore import COUNTS, PgStore
from hermes_trail.hermes.store import SqliteStore

pytestmark = pytest.mark.pg

VERSIONS = ("corpus-v22", "corpus-v31")
DATABASES = ("state.db", "profiles/oracle-work/state.db")
# A hit's resume command names the home of a file store (HERMES_HOME=...) but a profile for a database.
STORE_FIELDS = ("store_path", "store_kind", "seconds", "resume")
# Index queries with hits in the corpus (its commands, errors and edited files).
INDEX_QUERIES = (
    ("search", "exit code"),
    ("search", "hello"),
    ("search", "patch hello.py"),
    ("search", "nonexistent_oracle_dir"),
    ("fix", "ls: cannot access '/nonexistent_oracle_dir': No such file or directory"),
    ("blame", "hello.py"),
    ("blame", "missing.txt"),
    ("how", "list files"),
    ("how", "echo hello"),
)


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, Any, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False, env=env)
    try:
        data = json.loads(result.stdout)
    except ValueError:
        data = result.stdout
    return result.exit_code, data, result.stderr


def normalized(value: Any, names: tuple[str, ...]) -> Any:
    """``value`` with the store's own identity (its path or DSN, its kind, timings) taken out."""
    if isinstance(value, dict):
        return {k: normalized(v, names) for k, v in value.items() if k not in STORE_FIELDS}
    if isinstance(value, list | tuple):
        return [normalized(v, names) for v in value]
    if isinstance(value, str):
        for name in names:
            value = value.replace(name, "<store>")
    return value


def shown(dsn: str) -> str:
    from hermes_trail.hermes.dsn import shown as show_dsn

    return show_dsn(dsn)


def _answered(data: Any) -> bool:
    """Whether an index command found something (so that comparing its answers means something)."""
    if isinstance(data, dict):
        return any(data.get(k) for k in ("conversations", "fixes", "edits", "commands"))
    return bool(str(data).strip())


def home_naming(tmp_path: Path, profile: str, dsn: str) -> Path:
    """A Hermes home whose profile ``profile`` keeps its sessions in PostgreSQL (its ``config.yaml``)."""
    home = tmp_path / "pg-home"
    config = home / "profiles" / profile / "config.yaml" if profile != "default" else home / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f"model:\n  default: x\nsessiondb:\n  provider: postgresql\n  postgresql:\n"
        f"    dsn: {json.dumps(dsn)}\n    pool_size: 5\n"
    )
    return home


def assert_same_everywhere(
    sqlite_path: Path, dsn: str, tmp_path: Path, *, queries=INDEX_QUERIES
) -> tuple[int, int]:
    """``list``, ``show`` (every session, and ``--lineage``) and the index commands give the same JSON on
    both; returns how many sessions were compared and how many queries found something.

    A profile's store is named on the PostgreSQL side as Hermes names it, by the profile's ``config.yaml``
    (``--db`` tells the profile by the file's place; ``--pg`` has no profile to tell)."""
    # The index names a file by its resolved path (the store's key), a listing by the path given.
    names = (str(sqlite_path.resolve()), str(sqlite_path), shown(dsn))
    profile = sqlite_path.parent.name if sqlite_path.parent.parent.name == "profiles" else "default"
    pg_args = ("--pg", dsn) if profile == "default" else ("--home", str(home_naming(tmp_path, profile, dsn)))
    code_a, listing_a, err_a = run("list", "--json", "--limit", "0", "--db", str(sqlite_path))
    code_b, listing_b, err_b = run("list", "--json", "--limit", "0", *pg_args)
    assert (code_a, err_a) == (code_b, err_b.replace(shown(dsn), str(sqlite_path)))
    assert normalized(listing_b, names) == normalized(listing_a, names)
    assert {s["store_kind"] for s in listing_b["sessions"]} <= {"postgresql"}
    assert {s["store_path"] for s in listing_b["sessions"]} <= {shown(dsn)}
    for session in listing_a["sessions"]:
        for extra in ((), ("--lineage",)):
            a = run("show", session["id"], "--json", *extra, "--db", str(sqlite_path))
            b = run("show", session["id"], "--json", *extra, *pg_args)
            assert normalized(b, names) == normalized(a, names), (session["id"], extra)
    answered = 0
    for command, text in queries:
        json_flag = ("--json",) if command != "recall" else ()
        a = run(command, text, *json_flag, "--index", str(tmp_path / "a.db"), "--db", str(sqlite_path))
        b = run(command, text, *json_flag, "--index", str(tmp_path / "b.db"), *pg_args)
        assert normalized(b, names) == normalized(a, names), (command, text)
        if command == "search" and isinstance(b[1], dict):  # Hermes reopens a database's session by profile
            for hit in (h for c in b[1]["conversations"] for h in c["hits"]):
                flag = "" if hit["profile"] == "default" else f" -p {hit['profile']}"
                assert hit["resume"] == f"hermes{flag} --resume {hit['session_id']}"
        answered += _answered(a[1])
    return len(listing_a["sessions"]), answered


@pytest.mark.corpus
@pytest.mark.parametrize("layout", pgserver.LAYOUTS)
@pytest.mark.parametrize("database", DATABASES)
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_reads_the_same_on_postgres(corpus_dir, pg_load, tmp_path, version, database, layout):
    sqlite_path = corpus_dir / version / "hermes_home" / database
    dsn = pg_load(sqlite_path, layout)
    queries = (*INDEX_QUERIES, ("recall", "ls"))
    sessions, answered = assert_same_everywhere(sqlite_path, dsn, tmp_path, queries=queries)
    assert sessions == (22 if database == "state.db" else 1)
    assert answered >= (8 if database == "state.db" else 0)


@pytest.mark.parametrize("layout", pgserver.LAYOUTS)
def test_stores_written_by_sessiondb_read_the_same(hermes_home, pg_load, tmp_path, layout):
    """Hermes' own writer: a titled chat, a coding session with commands and edits, a rewind."""
    for db in (hermes_home / "state.db", hermes_home / "profiles" / "work" / "state.db"):
        dsn = pg_load(db, layout)
        queries = (
            ("search", "WAL"),
            ("search", "pytest"),
            ("fix", "1 failed, 3 passed"),
            ("blame", "app.py"),
            ("how", "run the tests"),
        )
        sessions, answered = assert_same_everywhere(db, dsn, tmp_path / db.parent.name, queries=queries)
        assert sessions >= 1 and answered >= (4 if db.parent == hermes_home else 0)


def test_compaction_rewind_lineage_and_strays_read_the_same(tmp_path, pg_load):
    """The shapes that lean hardest on row order and flags: rewound rows, a continuation chain,
    model usage rows, and a message row whose session has no ``sessions`` row (a stray)."""
    specs = [
        hermesdb.coding(hermesdb.CODING_ID),
        hermesdb.chat(hermesdb.CHAT_ID, ("One", "1"), ("Two", "2"), ("Three", "3"), rewind_to=2),
        hermesdb.chat(
            "20261102_120000_aaaaaa",
            ("Plan the release", "Three steps."),
            end_reason="compression",
            start=hermesdb.T0 + 7200,
        ),
        hermesdb.chat(
            "20261102_130000_bbbbbb",
            ("Continue", "Step two done."),
            start=hermesdb.T0 + 7300,
            parent_session_id="20261102_120000_aaaaaa",
        ),
    ]
    db = hermesdb.write_store(tmp_path / "state.db", specs)
    # A row Hermes cannot be made to write: its session is gone.
    hermesdb.sql(
        db,
        "INSERT INTO messages (session_id, role, content, timestamp) "
        "VALUES ('gone_session', 'user', 'orphan', 1793610000.0)",
    )
    dsn = pg_load(db)
    assert assert_same_everywhere(db, dsn, tmp_path, queries=(("search", "release"),)) == (4, 1)
    code, listing, err = run("list", "--json", "--pg", dsn)
    assert code == 3 and "which has no sessions row" in err
    assert [s["where"] for s in listing["strays"]] == [f"{shown(dsn)}:messages/{_max_id(db)}"]


def _max_id(db: Path) -> int:
    return hermesdb.message_ids(db, "gone_session")[-1]


def _comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with ``tool_calls`` parsed: ``jsonb`` keeps the JSON, not its spelling (key order, spaces)."""
    return [{k: json.loads(v) if k == "tool_calls" and v else v for k, v in row.items()} for row in rows]


def test_rows_keep_sqlite_storage_classes_in_both_layouts(hermes_home, pg_load):
    db = hermes_home / "state.db"
    with SqliteStore(db) as sqlite:
        expected = {sid: sqlite.message_rows(sid) for sid in (hermesdb.CHAT_ID, hermesdb.CODING_ID)}
        sessions = sqlite.session_rows(light=True)
        stats = sqlite.message_stats()
        columns = sqlite.columns("messages")
    for layout in pgserver.LAYOUTS:
        with PgStore(pg_load(db, layout)) as pg:
            assert pg.columns("messages") == columns
            assert pg.session_rows(light=True) == sessions
            assert pg.message_stats() == stats
            for sid, rows in expected.items():
                assert _comparable(pg.message_rows(sid)) == _comparable(rows)
                assert all(
                    type(a) is type(b)
                    for x, y in zip(pg.message_rows(sid), rows, strict=True)
                    for a, b in zip(x.values(), y.values(), strict=True)
                )
            assert pg.sessions_by_prefix("20261102_") == [
                r for r in pg.session_rows() if r["id"].startswith("20261102_")
            ]
            assert pg.schema_version == 22 and pg.has_table("session_model_usage")


def test_structured_content_survives_both_layouts(tmp_path, pg_load):
    """Hermes' ``\\x00json:`` content (a multimodal message) cannot be PostgreSQL text: ``jsonb`` holds
    it as JSON and ``bytea`` as Hermes' bytes; both read back as Hermes' marked text."""
    parts = [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    messages = [
        hermesdb.user(parts, timestamp=hermesdb.T0),
        hermesdb.assistant("A cat.", timestamp=hermesdb.T0 + 1),
    ]
    spec = hermesdb.SessionSpec("20261105_100000_abcdef", messages)
    db = hermesdb.write_store(tmp_path / "state.db", [spec])
    with SqliteStore(db) as sqlite:
        rows = sqlite.message_rows(spec.id)
    assert rows[0]["content"].startswith("\x00json:")
    for layout in pgserver.LAYOUTS:
        with PgStore(pg_load(db, layout)) as pg:
            content = pg.message_rows(spec.id)[0]["content"]
        assert content.startswith("\x00json:")
        assert json.loads(content.removeprefix("\x00json:")) == json.loads(rows[0]["content"][6:])


# -- bad input: one clear line, the other stores still read -----------------------------------------------
def test_a_dsn_that_does_not_connect_is_skipped_and_its_password_never_shown(hermes_home, tmp_path):
    dsn = "postgresql://hermes:s3cret-pw@127.0.0.1:1/hermes"
    code, listing, err = run("list", "--json", "--pg", dsn, "--db", str(hermes_home / "state.db"))
    assert code == 3
    assert [s["id"] for s in listing["sessions"]] == [hermesdb.CODING_ID, hermesdb.CHAT_ID]
    (stray,) = listing["strays"]
    assert stray["kind"] == "store" and stray["where"] == "postgresql://hermes:***@127.0.0.1:1/hermes"
    assert stray["reason"].startswith("cannot connect (")
    assert err.count("\n") == 1 and err.startswith(
        "trail: skipped store postgresql://hermes:***@127.0.0.1:1/"
    )
    assert "s3cret" not in err + json.dumps(listing)
    code, out, err = run(
        "search",
        "WAL",
        "--json",
        "--index",
        str(tmp_path / "i.db"),
        "--pg",
        dsn,
        "--db",
        str(hermes_home / "state.db"),
    )
    assert code == 0 and out["conversations"] and "s3cret" not in err + json.dumps(out)
    assert "skipped store postgresql://hermes:***@127.0.0.1:1/hermes: cannot connect" in err


def test_a_database_without_hermes_tables_is_not_a_store(pg_cluster, hermes_home):
    with pg_cluster.connect() as conn:
        conn.execute("DROP SCHEMA IF EXISTS nothermes CASCADE")
        conn.execute("CREATE SCHEMA nothermes")
        conn.execute("CREATE TABLE nothermes.sessions (id text primary key)")
    dsn = pg_cluster.dsn("nothermes")
    code, listing, err = run("list", "--json", "--pg", dsn, "--db", str(hermes_home / "state.db"))
    assert code == 3 and len(listing["sessions"]) == 2
    reason = "not a Hermes store: no messages table (search_path: nothermes)"
    assert listing["strays"][0]["reason"] == reason
    assert err == f"trail: skipped store {dsn}: {reason}\n"


def test_a_role_that_may_not_read_messages_is_told_so(pg_cluster, pg_load, hermes_home):
    dsn = pg_load(hermes_home / "state.db")
    schema = dsn.rsplit("%3D", 1)[1]
    peek = pg_cluster.reader(schema, "hermes_peek", ["sessions"])
    code, listing, err = run("list", "--json", "--pg", peek, "--db", str(hermes_home / "state.db"))
    assert code == 3 and len(listing["sessions"]) == 2
    reason = "permission denied: role 'hermes_peek' may not read table messages"
    assert listing["strays"][0]["reason"] == reason
    assert "peek-pw" not in err + json.dumps(listing) and ":***@" in listing["strays"][0]["where"]
    with pg_cluster.connect() as conn:  # sessions readable, one optional table not: it reads as absent
        conn.execute(f"GRANT SELECT ON {schema}.messages TO hermes_peek")
    with PgStore(peek) as store:
        assert not store.has_table("session_model_usage") and store.has_table("messages")
        assert store.model_usage_rows(hermesdb.CHAT_ID) == []


def test_reads_are_read_only_transactions_and_the_session_is_left_as_it_was(pg_load, hermes_home):
    """Every read is a read-only transaction of its own; the server's session is not made read-only (through
    a pooler it would stay so for the pooler's next client: the next test)."""
    import psycopg

    with PgStore(pg_load(hermes_home / "state.db")) as store:
        conn = store._conn
        assert conn is not None
        assert store._scalar("SELECT current_setting('transaction_read_only')") == "on"
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), conn.transaction():
            conn.execute("UPDATE sessions SET title = 'x'")
        assert store.message_rows(hermesdb.CHAT_ID)
        with conn.transaction():  # the cursor's read too
            assert conn.execute("SHOW transaction_read_only").fetchone()[0] == "on"
        assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "off"


def test_reading_through_a_pooler_leaves_its_server_connection_to_writers(
    pg_cluster, pg_bouncer, pg_load, hermes_home
):
    """Through a pooler in transaction mode, a reader's session settings stay with the server connection for
    whoever the pooler gives it next: the reader made its session read-only, and a write of another client
    of the same login through the pooler's one server connection (Hermes' own, on a shared login) was
    refused ("cannot execute INSERT in a read-only transaction")."""
    import psycopg

    dsn = pg_load(hermes_home / "state.db")
    schema = dsn.rsplit("%3D", 1)[1]  # the pooler passes no startup options: the login's search_path
    with pg_cluster.connect() as admin:
        admin.execute("DROP ROLE IF EXISTS hermes_pooled")
        admin.execute("CREATE ROLE hermes_pooled LOGIN PASSWORD 'pooled-pw'")
        admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO hermes_pooled")
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO hermes_pooled")
        admin.execute(f"CREATE TABLE {schema}.written (x int)")
        admin.execute(f"GRANT INSERT ON {schema}.written TO hermes_pooled")
        admin.execute(f"ALTER ROLE hermes_pooled SET search_path = {schema}")
    pg_bouncer.allow("hermes_pooled", "pooled-pw", pgserver.DATABASE)
    pg_bouncer.route("hermes_one", pgserver.DATABASE, pool_size=1)
    pooled = pg_bouncer.dsn("hermes_one", user="hermes_pooled", password="pooled-pw")
    with PgStore(pooled) as store:
        assert store.message_rows(hermesdb.CHAT_ID)
        assert store.session_rows()
        with psycopg.connect(pooled, autocommit=True) as writer:
            writer.execute("INSERT INTO written VALUES (1)")
            with writer.transaction():
                writer.execute("INSERT INTO written VALUES (2)")
    with pg_cluster.connect() as admin:
        assert admin.execute(f"SELECT count(*) FROM {schema}.written").fetchone()[0] == 2


def test_a_connection_lost_mid_read_is_a_store_problem(pg_cluster, pg_load, hermes_home):
    with PgStore(pg_load(hermes_home / "state.db")) as store:
        pid = store._conn.info.backend_pid  # type: ignore[union-attr]
        with pg_cluster.connect() as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(StoreUnreadable, match="connection lost"):
            store.message_rows(hermesdb.CHAT_ID)


def test_without_psycopg_a_postgres_store_is_skipped_and_sqlite_still_reads(hermes_home, tmp_path):
    """Inside Hermes' own Python (the plugin) psycopg is missing: a PostgreSQL store is a stray."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "psycopg.py").write_text("raise ImportError('no psycopg here')\n")
    script = (
        "import json, sys; from hermes_trail import open_history\n"
        f"h = open_history(dbs=[{str(hermes_home / 'state.db')!r}], pgs=['postgresql://x@127.0.0.1:1/h'])\n"
        "print(json.dumps([len(h.sessions), [s.reason for s in h.strays]]))"
    )
    env = {**os.environ, "PYTHONPATH": f"{blocker}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stdout) == [2, ["psycopg is not installed (pip install 'psycopg[binary]')"]]


def test_listing_sqlite_stores_never_imports_psycopg_or_yaml(hermes_home):
    script = (
        "import sys; from typer.testing import CliRunner; from hermes_trail.cli.app import app\n"
        f"r = CliRunner().invoke(app, ['list', '--home', {str(hermes_home)!r}])\n"
        "print(r.exit_code, 'psycopg' in sys.modules, 'yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False", "False"]


def test_a_child_process_never_touches_the_parents_connection(pg_load, hermes_home):
    """After ``fork`` the child forgets the parent's connections (closing one there would end the
    parent's session); the parent keeps reading."""
    with PgStore(pg_load(hermes_home / "state.db")) as store:
        before = store.message_rows(hermesdb.CHAT_ID)
        pid = os.fork()
        if pid == 0:  # the child: the inherited store is closed to it, and dropping it sends nothing
            code = 0 if store._conn is None else 1
            try:
                store.message_rows(hermesdb.CHAT_ID)
                code = 1
            except StoreUnreadable:
                pass
            del store
            import gc

            gc.collect()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert store.message_rows(hermesdb.CHAT_ID) == before


def test_table_wide_reads_stream_through_a_server_side_cursor(pg_load, hermes_home, monkeypatch):
    import hermes_trail.hermes.pgstore as pgstore

    monkeypatch.setattr(pgstore, "FETCH_ROWS", 1)
    with PgStore(pg_load(hermes_home / "state.db")) as store:
        seen: list[str] = []
        store._conn.add_notice_handler(lambda n: None)  # type: ignore[union-attr]
        original = store._conn.cursor  # type: ignore[union-attr]

        def cursor(*args, **kwargs):
            seen.append(kwargs.get("name", ""))
            return original(*args, **kwargs)

        monkeypatch.setattr(store._conn, "cursor", cursor)
        assert len(store.session_rows()) == 2 and len(store.message_stats()) == 2
    assert seen == ["trail_read", "trail_read"]


def test_counts_are_kept(pg_load, hermes_home):
    dsn = pg_load(hermes_home / "state.db")
    before = dict(COUNTS)
    with PgStore(dsn) as store:
        store.message_rows(hermesdb.CODING_ID)
    assert COUNTS["connections"] == before["connections"] + 1
    assert COUNTS["queries"] >= before["queries"] + 2


def test_trail_finds_a_profiles_postgres_store_without_flags(hermes_home, pg_load, tmp_path, monkeypatch):
    """Hermes' own setting is enough: ``HERMES_HOME`` whose ``work`` profile moved to PostgreSQL (its DSN
    in the home's ``.env``, as Hermes keeps secrets) lists both that store and the files beside it."""
    dsn = pg_load(hermes_home / "profiles" / "work" / "state.db")
    (hermes_home / "profiles" / "work" / "config.yaml").write_text(
        "sessiondb:\n  provider: postgresql\n  postgresql:\n    dsn: ${WORK_PG_DSN}\n"
    )
    (hermes_home / "profiles" / "work" / ".env").write_text(f"WORK_PG_DSN={dsn}\n")
    monkeypatch.setenv("HERMES_HOME", str(hermes_home))
    code, listing, err = run("list", "--json")
    assert (code, err) == (0, "")
    stores = sorted({(s["store"], s["store_kind"], s["profile"]) for s in listing["sessions"]})
    assert stores == [
        ("default", "sqlite", "default"),
        ("work", "sqlite", "work"),
        ("work~2", "postgresql", "work"),
    ]
    code, shown_session, _ = run("show", f"work~2:{hermesdb.WORK_ID}", "--json")
    assert code == 0 and shown_session["session"]["store_path"] == shown(dsn)
    code, found, _ = run("search", "standup", "--json", "--index", str(tmp_path / "i.db"))
    assert code == 0 and {c["store"] for c in found["conversations"]} == {
        str(hermes_home / "profiles" / "work" / "state.db"),
        shown(dsn),
    }


@pytest.mark.parametrize("layout", pgserver.LAYOUTS)
def test_a_sync_reads_again_only_the_postgres_sessions_whose_row_changed(
    pg_cluster, pg_load, hermes_home, tmp_path, layout
):
    """The server digests each session's row (``ROW(...)::text``): a sync of a store that changed reads
    again the session whose row changed, and not the others, in either layout."""
    from hermes_trail.index.sync import sync_index

    dsn = pg_load(hermes_home / "state.db", layout)
    schema = dsn.rsplit("%3D", 1)[1]
    index = tmp_path / "index.db"
    first = sync_index(index, pgs=[dsn])
    assert first.sessions_indexed >= 2
    assert sync_index(index, pgs=[dsn]).sessions_indexed == 0
    with pg_cluster.connect() as admin:
        renamed = ("Renamed", hermesdb.CHAT_ID)
        admin.execute(f'UPDATE "{schema}".sessions SET title = %s WHERE id = %s', renamed)
    report = sync_index(index, pgs=[dsn])
    assert (report.changed_stores, report.sessions_indexed) == (1, 1)
    assert sync_index(index, pgs=[dsn]).sessions_indexed == 0
