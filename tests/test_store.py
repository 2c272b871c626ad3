"""``SqliteStore`` and ``open_history`` on real stores: a live Hermes writer in another process, a locked
store, files that are not Hermes stores, and rows Hermes would not write."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import hermesdb as h
from hermes_trail.errors import StoreLocked, StoreUnreadable
from hermes_trail.hermes import store as store_module
from hermes_trail.hermes.store import SqliteStore
from hermes_trail.history import open_history
from hermesdb import CHAT_ID, CODING_ID, WORK_ID

LIVE_ID = "20261104_120000_1ea7e0"


def files_in(directory: Path) -> dict[str, tuple[int, int, bytes]]:
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_size, p.read_bytes()) for p in directory.iterdir()}


def live_messages(n: int) -> list[dict]:
    """``n`` rounds of prompt, terminal call, result and reply: rows for a live writer to append."""
    out: list[dict] = []
    for i in range(n):
        out.append(h.user(f"round {i}: list the files", timestamp=h.T0 + 100 * i))
        out.extend(h.terminal_exchange(f"call_live{i}", "ls", f"file{i}.txt"))
        out.append(h.assistant(f"There is file{i}.txt.", timestamp=h.T0 + 100 * i + 9))
    return out


def main_file_sessions(db: Path) -> set[str]:
    """Session ids in the main database file alone, ignoring its WAL (read from a copy)."""
    copy = db.with_name("main-only.db")
    shutil.copyfile(db, copy)
    conn = sqlite3.connect(f"{copy.as_uri()}?immutable=1", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}
    finally:
        conn.close()
        copy.unlink()


def stderr_lines(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


# -- (a) a live writer in another process --------------------------------------------------------------
@pytest.fixture
def live_store(tmp_path):
    """A store Hermes wrote and closed, then a ``SessionDB`` in another process that appended a session
    with autocheckpoint off and keeps its connection open: the new rows exist only in ``state.db-wal``."""
    db = h.write_store(tmp_path / "home" / "state.db", [h.chat(CHAT_ID, ("hi", "hello"))])
    writer = h.LiveWriter(db)
    writer.create(LIVE_ID, cwd="/home/dev/live")
    ids = writer.append(LIVE_ID, live_messages(5))
    try:
        yield db, writer, ids
    finally:
        writer.stop()


def test_live_writer_keeps_its_rows_in_the_wal(live_store):
    db, _, ids = live_store
    assert len(ids) == 20
    assert Path(f"{db}-wal").stat().st_size > 0
    assert Path(f"{db}-shm").exists()
    assert LIVE_ID not in main_file_sessions(db)  # not checkpointed: only a WAL-aware read can see it


def test_store_reads_uncheckpointed_rows(live_store):
    db, writer, ids = live_store
    with SqliteStore(db) as store:
        assert store.how_opened == "wal"
        assert [r["id"] for r in store.message_rows(LIVE_ID)] == ids
        assert {r["id"] for r in store.session_rows()} == {CHAT_ID, LIVE_ID}
        assert store.message_stats()[LIVE_ID][0] == 20
        # Rows committed after the store was opened are seen by the next read.
        more = writer.append(LIVE_ID, [h.user("one more"), h.assistant("done")])
        assert [r["id"] for r in store.message_rows(LIVE_ID)] == ids + more


def test_history_reads_uncheckpointed_rows(live_store):
    db, _, ids = live_store
    with open_history(dbs=[db]) as history:
        assert not history.strays
        session = history.load(history.find(LIVE_ID))
    assert [t.source_row for t in session.turns] == ids
    assert session.cwd == "/home/dev/live"
    calls = [c for t in session.turns for c in t.tool_calls]
    assert [c.id for c in calls] == [f"call_live{i}" for i in range(5)]
    assert all(c.result is not None and c.result.text.startswith('{"output": "file') for c in calls)


def test_cli_show_reads_uncheckpointed_rows(live_store, run_trail):
    db, _, ids = live_store
    result = run_trail("show", "--json", "--db", db, LIVE_ID)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [t["row"] for t in data["turns"]] == ids
    assert data["session"]["message_count"] == 20
    assert Path(f"{db}-wal").stat().st_size > 0  # the writer's frames are still uncheckpointed


def test_immutable_read_follows_a_writer_that_appears(tmp_path):
    db = h.write_store(tmp_path / "state.db", [h.chat(CHAT_ID, ("hi", "hello"))])
    with SqliteStore(db) as store:
        assert store.how_opened == "immutable"
        with h.LiveWriter(db) as writer:
            writer.create(LIVE_ID)
            ids = writer.append(LIVE_ID, live_messages(1))
            assert [r["id"] for r in store.message_rows(LIVE_ID)] == ids
            assert store.how_opened == "wal"


def test_a_wal_index_another_process_rebuilds_is_waited_for(live_store, monkeypatch):
    """SQLITE_READONLY_RECOVERY: the ``-shm``'s index must be rebuilt, which a read-only reader cannot do
    and the live writer does on its next transaction (as a Hermes starting after a crash does on its first).
    Here the index is cleared under the writer, as a restart leaves it; the first open meets the error; the
    writer, a real SessionDB in another process, then writes and rebuilds it; the store is read as it is,
    not from a copy of it."""
    db, writer, ids = live_store
    with open(f"{db}-shm", "r+b") as shm:
        shm.write(bytes(96))  # both copies of the WAL index header: not initialised, to be recovered
    waits: list[list[int]] = []

    def writer_recovers() -> None:  # the reader waits; meanwhile the writer goes on
        if not waits:
            waits.append(writer.append(LIVE_ID, [h.user("after the restart"), h.assistant("ok")]))

    monkeypatch.setattr(store_module, "_pause", writer_recovers, raising=False)
    with SqliteStore(db) as store:
        assert waits, "the first open met SQLITE_READONLY_RECOVERY and waited"
        assert store.how_opened == "wal", store.how_opened
        assert [r["id"] for r in store.message_rows(LIVE_ID)] == ids + waits[0]


def test_a_wal_index_nobody_rebuilds_is_read_from_a_private_copy(live_store, monkeypatch):
    db, _, ids = live_store
    with open(f"{db}-shm", "r+b") as shm:
        shm.write(bytes(96))
    monkeypatch.setattr(store_module, "RECOVERY_WAIT_SECONDS", 0.1)
    with SqliteStore(db) as store:
        assert store.how_opened.startswith("copy"), store.how_opened
        assert [r["id"] for r in store.message_rows(LIVE_ID)] == ids


def test_wal_without_shm_is_read_from_a_private_copy(tmp_path, live_store):
    db, _, ids = live_store
    moved = tmp_path / "moved"
    moved.mkdir()
    # What a backup tool or a copy across machines leaves: the database and its WAL, no -shm.
    shutil.copyfile(db, moved / "state.db")
    shutil.copyfile(f"{db}-wal", moved / "state.db-wal")
    before = files_in(moved)
    with SqliteStore(moved / "state.db") as store:
        assert store.how_opened.startswith("copy")
        assert [r["id"] for r in store.message_rows(LIVE_ID)] == ids
    assert files_in(moved) == before


def test_hot_journal_is_read_from_a_private_copy(tmp_path):
    db = h.write_store(tmp_path / "state.db", [h.coding(CODING_ID)], journal="delete")
    committed = h.message_ids(db, CODING_ID)
    # A writer that dies mid-transaction leaves a hot journal: only a writer may roll it back.
    crash = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA cache_size=1')\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "c.execute(\"UPDATE messages SET content = 'uncommitted'\")\n"
        "c.execute('DELETE FROM sessions')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", crash, str(db)], check=True)
    assert Path(f"{db}-journal").stat().st_size > 0
    before = files_in(tmp_path)
    with SqliteStore(db) as store:
        assert store.how_opened.startswith("copy")
        rows = store.message_rows(CODING_ID)
        assert [r["id"] for r in rows] == committed
        assert "uncommitted" not in {r["content"] for r in rows}
    assert files_in(tmp_path) == before


# -- (b) a store locked by a writer --------------------------------------------------------------------
@pytest.fixture
def locked_home(tmp_path):
    """A home whose root store uses a rollback journal and is held by ``BEGIN EXCLUSIVE`` in another
    process; its profile ``work`` is a normal store."""
    home = tmp_path / "home"
    h.write_store(home / "state.db", [h.chat(CHAT_ID, ("hi", "hello"))], journal="delete")
    h.write_store(home / "profiles" / "work" / "state.db", [h.chat(WORK_ID, ("notes?", "three"))])
    with h.LockHolder(home / "state.db"):
        yield home


def test_locked_store_raises_store_locked(locked_home, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_WAIT_SECONDS", 0.1)
    with pytest.raises(StoreLocked, match="locked"):
        SqliteStore(locked_home / "state.db")


def test_locked_store_is_a_stray_and_the_others_are_read(locked_home, monkeypatch):
    monkeypatch.setattr(store_module, "LOCK_WAIT_SECONDS", 0.1)
    with open_history(homes=[locked_home]) as history:
        assert [s.id for s in history.sessions] == [WORK_ID]
        assert len(history.strays) == 1
        stray = history.strays[0]
    assert stray.where == str(locked_home / "state.db")
    assert "locked" in stray.reason
    assert stray.table is None


def test_cli_skips_a_locked_store_with_one_line(locked_home, run_trail):
    result = run_trail("list", "--home", locked_home)  # waits LOCK_WAIT_SECONDS (2 s) for the lock
    assert result.returncode == 3
    assert WORK_ID in result.stdout
    assert CHAT_ID not in result.stdout
    lines = stderr_lines(result)
    assert len(lines) == 1, result.stderr
    assert "locked" in lines[0] and str(locked_home / "state.db") in lines[0]
    assert "Traceback" not in result.stderr


# -- (c) files that are not Hermes stores --------------------------------------------------------------
def _text_file(path: Path, real: Path) -> None:
    path.write_text("model: anthropic/claude-sonnet-4\nterminal: local\n" * 20)


def _empty_file(path: Path, real: Path) -> None:
    path.write_bytes(b"")


def _truncated(path: Path, real: Path) -> None:
    path.write_bytes(real.read_bytes()[: 3 * 4096])  # what an interrupted copy leaves: three pages


def _no_messages_table(path: Path, real: Path) -> None:
    # Hand-built: Hermes always creates both tables; this is another program's database by that name.
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT)")
        conn.execute("INSERT INTO sessions VALUES ('x', 'cli')")
    conn.close()


def _directory(path: Path, real: Path) -> None:
    path.mkdir()


BAD_STORES = {
    "text": (_text_file, "not a SQLite database"),
    "empty": (_empty_file, "empty"),
    "truncated": (_truncated, "damaged"),
    "no-messages": (_no_messages_table, "no messages table"),
    "directory": (_directory, "directory"),
}


@pytest.fixture
def good_home(tmp_path):
    return h.write_home(
        tmp_path / "home",
        [h.chat(CHAT_ID, ("hi", "hello")), h.coding(CODING_ID, start=h.T0 + 600)],
    )


def make_bad(home: Path, kind: str) -> Path:
    profile = home / "profiles" / kind
    profile.mkdir(parents=True)
    BAD_STORES[kind][0](profile / "state.db", home / "state.db")
    return profile / "state.db"


@pytest.mark.parametrize("kind", sorted(set(BAD_STORES) - {"directory"}))
def test_store_rejects_what_is_not_a_hermes_store(good_home, kind):
    bad = make_bad(good_home, kind)
    with pytest.raises(StoreUnreadable) as info:
        SqliteStore(bad).session_rows()
    assert BAD_STORES[kind][1] in info.value.reason
    assert info.value.path == str(bad)


def test_store_rejects_a_directory(tmp_path):
    (tmp_path / "state.db").mkdir()
    with pytest.raises(StoreUnreadable, match="is a directory"):
        SqliteStore(tmp_path / "state.db")


@pytest.mark.parametrize(
    "kind",
    sorted(BAD_STORES),
)
def test_cli_list_names_a_bad_profile_store_and_lists_the_rest(good_home, kind, run_trail):
    bad = make_bad(good_home, kind)
    result = run_trail("list", "--json", "--home", good_home)
    assert "Traceback" not in result.stderr
    assert {s["id"] for s in json.loads(result.stdout)["sessions"]} == {CHAT_ID, CODING_ID}
    lines = stderr_lines(result)
    assert len(lines) == 1, result.stderr
    assert str(bad) in lines[0]
    assert result.returncode == 3


def test_cli_list_of_named_dbs_skips_each_bad_one(good_home, run_trail):
    bad = [make_bad(good_home, kind) for kind in BAD_STORES]
    args = [a for path in [good_home / "state.db", *bad] for a in ("--db", path)]
    result = run_trail("list", *args)
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert CHAT_ID in result.stdout and CODING_ID in result.stdout
    lines = stderr_lines(result)
    assert len(lines) == len(bad), result.stderr
    for path in bad:
        assert sum(str(path) in line for line in lines) == 1, (path, result.stderr)


# -- (d) rows Hermes would not write -------------------------------------------------------------------
def assistant_rows(db: Path, session_id: str) -> list[int]:
    conn = sqlite3.connect(db)
    try:
        return [
            r[0]
            for r in conn.execute(
                "SELECT id FROM messages WHERE session_id = ? AND tool_calls IS NOT NULL ORDER BY id",
                (session_id,),
            )
        ]
    finally:
        conn.close()


def test_bad_tool_calls_cells_are_strays_and_valid_calls_remain(tmp_path, run_trail):
    db = h.write_store(tmp_path / "state.db", [h.coding(CODING_ID)])
    terminal1, read, patch, terminal2 = assistant_rows(db, CODING_ID)
    # Hermes always writes tool_calls with json.dumps of a list of call dicts; these cells are damage or a
    # foreign writer, so they are set by hand.
    h.sql(
        db, "UPDATE messages SET tool_calls = ? WHERE id = ?", ('[{"id": "call_t1", "function": {', terminal1)
    )
    h.sql(db, "UPDATE messages SET tool_calls = ? WHERE id = ?", ('"read_file"', read))
    valid = h.call("call_p1", "patch", mode="replace", path="/home/dev/project/app.py")
    h.sql(db, "UPDATE messages SET tool_calls = ? WHERE id = ?", (json.dumps([valid, 42, "x"]), patch))

    result = run_trail("show", "--json", "--db", db, CODING_ID)
    assert "Traceback" not in result.stderr
    assert result.returncode == 3
    data = json.loads(result.stdout)
    strays = {(s["row"], s["reason"]) for s in data["strays"]}
    assert strays == {
        (terminal1, "tool_calls is not valid JSON"),
        (read, "tool_calls is a JSON string, not a list of calls"),
        (patch, "tool_calls[1] is a JSON number, not a call object"),
        (patch, "tool_calls[2] is a JSON string, not a call object"),
    }
    assert all(s["session_id"] == CODING_ID and s["table"] == "messages" for s in data["strays"])
    calls = {t["row"]: [c["id"] for c in t["tool_calls"]] for t in data["turns"] if t["role"] == "assistant"}
    assert calls[terminal1] == [] and calls[read] == []
    assert calls[patch] == ["call_p1"]
    assert calls[terminal2] == ["call_t2"]
    patch_call = next(t for t in data["turns"] if t["row"] == patch)["tool_calls"][0]
    result = patch_call["result"]
    stored = next(t for t in data["turns"] if t["row"] == result["row"])
    assert '"success": true' in stored["text"] and stored["result"]["call_id"] == result["call_id"]


def test_cli_show_names_row_strays_on_stderr(tmp_path, run_trail):
    db = h.write_store(tmp_path / "state.db", [h.coding(CODING_ID)])
    # Hand-made damage, as above: Hermes always writes valid JSON here.
    h.sql(db, "UPDATE messages SET tool_calls = '[1' WHERE id = ?", (assistant_rows(db, CODING_ID)[0],))
    result = run_trail("show", "--db", db, CODING_ID)
    assert result.returncode == 3
    assert len(stderr_lines(result)) == 1, result.stderr


def test_message_row_without_a_session_row_is_a_stray(tmp_path, run_trail):
    db = h.write_store(tmp_path / "state.db", [h.chat(CHAT_ID, ("hi", "hello"))])
    # Hermes writes with foreign_keys=ON, so it cannot leave a message whose session row is gone; a
    # session deleted by hand or by an older build can. Inserted by hand.
    h.sql(
        db,
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'left behind', ?)",
        ("20261101_000000_deadbe", h.T0),
    )
    (orphan_row,) = h.message_ids(db, "20261101_000000_deadbe")
    result = run_trail("list", "--json", "--db", db)
    assert "Traceback" not in result.stderr
    assert result.returncode == 3
    data = json.loads(result.stdout)
    assert [s["id"] for s in data["sessions"]] == [CHAT_ID]
    (stray,) = data["strays"]
    expected = {
        "where": f"{db}:messages/{orphan_row}",
        "reason": "message row of session '20261101_000000_deadbe', which has no sessions row",
        "store": "default",
        "session_id": "20261101_000000_deadbe",
        "row": orphan_row,
        "table": "messages",
    }
    assert {k: stray.get(k) for k in expected} == expected  # keys are only ever added
    assert len(stderr_lines(result)) == 1


def test_timestamp_outside_hermes_window_is_a_problem_not_a_time(tmp_path, run_trail):
    # SessionDB.append_message stores any float it is given as the timestamp, so a caller passing
    # milliseconds (or worse) writes this through Hermes' own code.
    spec = h.SessionSpec(
        CHAT_ID,
        [h.user("hi", timestamp=h.T0), h.assistant("hello", timestamp=9e12)],
        started_at=h.T0,
    )
    db = h.write_store(tmp_path / "state.db", [spec])
    result = run_trail("show", "--json", "--db", db, CHAT_ID)
    assert "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    first, second = data["turns"]
    assert first["time"] is not None and first["problems"] == []
    assert second["time"] is None
    assert second["text"] == "hello"
    (problem,) = second["problems"]
    assert problem.startswith("timestamp 9000000000000") and "outside" in problem
    assert data["strays"] == []


def test_history_keeps_every_session_of_a_home(hermes_home):
    with open_history(homes=[hermes_home]) as history:
        assert not history.strays and not history.notes
        assert {(s.id, s.profile) for s in history.sessions} == {
            (CHAT_ID, "default"),
            (CODING_ID, "default"),
            (WORK_ID, "work"),
        }
        chat = history.load(history.find(CHAT_ID))
    assert chat.title == "About WAL"
    assert [t.role for t in chat.turns] == ["user", "assistant"]


def test_rewound_rows_are_kept_hidden(tmp_path):
    spec = h.chat(CHAT_ID, ("first try", "answer one"), ("second try", "answer two"), rewind_to=2)
    db = h.write_store(tmp_path / "state.db", [spec])
    with open_history(dbs=[db]) as history:
        session = history.load(history.find(CHAT_ID))
    assert [t.text for t in session.turns] == ["first try", "answer one"]
    assert [(t.text, t.rewound) for t in session.hidden] == [("second try", True), ("answer two", True)]


def test_env_is_isolated():
    for name in ("HERMES_HOME", "TRAIL_HERMES_HOME", "TRAIL_HERMES_DB", "TRAIL_HERMES_PROFILES_ROOT"):
        assert name not in os.environ
    assert not (Path.home() / ".hermes").exists()
