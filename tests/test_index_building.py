"""Building the index: beside the old one and swapped in, one build at a time, each doc in the full-text
indexes exactly once however the docs were written (a worker pool's batches, ids given out again); a build
cut short, even killed, is taken up where it stopped by the next."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_trail.errors import TrailError
from hermes_trail.index import opening, schema, sync, writer
from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermes_trail.index.writer import FTS_INDEXES

hermes_state = pytest.importorskip("hermes_state")

SESSIONS = 30


def _write_store(db_path: Path, sessions: int = SESSIONS, start: int = 0) -> list[str]:
    db = hermes_state.SessionDB(db_path=db_path)
    ids = []
    for n in range(start, start + sessions):
        sid = f"20261101_{n:06d}_abcdef"
        ids.append(sid)
        db.create_session(sid, "cli", cwd=f"/src/project{n % 3}")
        base = 1_800_000_000.0 + n * 1000
        db.append_message(sid, "user", f"Question {n}: why does the widget{n} deploy fail?", timestamp=base)
        db.append_message(sid, "assistant", f"Because widget{n} lost its port.", timestamp=base + 10)
        if n % 2:  # a command (for the trigram index) and CJK text (for the bigram index)
            call = {
                "id": f"c{n}",
                "type": "function",
                "function": {"name": "terminal", "arguments": json.dumps({"command": f"make w{n}"})},
            }
            db.append_message(sid, "assistant", "", tool_calls=[call], timestamp=base + 20)
            result = json.dumps({"output": f"built w{n}", "exit_code": 0, "error": None})
            db.append_message(
                sid, "tool", result, tool_name="terminal", tool_call_id=f"c{n}", timestamp=base + 30
            )
            db.append_message(sid, "user", f"部署第{n}号", timestamp=base + 40)
    db.close()
    return ids


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "hermes"
    root.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(root))
    _write_store(root / "state.db")
    return root


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return tmp_path / "index" / "index.db"


def _check_full_text(index: Path) -> None:
    """Every full-text index holds exactly the docs that have its column: SQLite's own check against the
    docs (for the word index, where every doc has text), its docs counted, and each doc's words found."""
    with sqlite3.connect(index) as conn:
        conn.execute("INSERT INTO docs_fts (docs_fts, rank) VALUES ('integrity-check', 1)")
        for table, column, _given in FTS_INDEXES:
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
            indexed = conn.execute(f"SELECT count(*) FROM {table}_docsize").fetchone()[0]
            has = conn.execute(f"SELECT count(*) FROM docs WHERE {column} IS NOT NULL").fetchone()[0]
            assert indexed == has, table
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _hold_build_lock(index: Path):
    import fcntl

    index.parent.mkdir(parents=True, exist_ok=True)
    handle = index.with_name(index.name + ".lock").open("a")
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return handle


def test_a_first_build_is_made_beside_and_ends_in_wal_mode(home, index):
    report = sync_index(index, homes=[home])
    assert report.sessions_indexed == SESSIONS and report.rebuilt is None
    assert not list(index.parent.glob("index.db.new-*"))
    with sqlite3.connect(index) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    _check_full_text(index)
    assert search(index, "widget7").hits


def test_an_index_built_before_builds_ended_merged_is_merged_once(home, index, monkeypatch):
    """An index an earlier trail built is in as many segments as its build left: its first sync merges it
    whole once it is in more than MERGE_SEGMENTS, and no later sync looks again."""
    monkeypatch.setattr(schema, "BUILDING_FTS", {**schema.BUILDING_FTS, "hashsize": 2_000})
    monkeypatch.setattr(writer, "FTS_BATCH", 7)
    monkeypatch.setattr(schema, "merge_whole", lambda conn: None)  # as builds ended before
    sync_index(index, homes=[home])
    monkeypatch.undo()
    left = _segments(index)["docs_fts"]
    assert left > 4 and _query(index, "SELECT value FROM meta WHERE key = 'words_merged'") == []
    monkeypatch.setattr(sync, "MERGE_SEGMENTS", left)  # as many as it may keep: looked at, left so
    sync_index(index, homes=[home])
    assert _segments(index)["docs_fts"] == left
    assert _query(index, "SELECT value FROM meta WHERE key = 'words_merged'") == [("1",)]
    with sqlite3.connect(index) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'words_merged'")  # as an earlier trail left it
    monkeypatch.setattr(sync, "MERGE_SEGMENTS", left - 1)
    looked: list[int] = []
    real = schema.segments
    monkeypatch.setattr(schema, "segments", lambda conn: looked.append(1) or real(conn))
    sync_index(index, homes=[home])
    assert max(_segments(index).values()) == 1
    assert looked == [1] and _query(index, "SELECT value FROM meta WHERE key = 'words_merged'") == [("1",)]
    sync_index(index, homes=[home])  # merged: no sync looks again
    assert looked == [1]
    _check_full_text(index)
    assert search(index, "widget7").hits


def test_a_large_build_says_it_merges_its_word_index(home, index, monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(sync, "MERGE_NOTICE_DOCS", 1)
    report = sync_index(index, homes=[home], notify=said.append)
    assert said == [f"merging the word index of {report.docs:,} docs (a tenth of the build's time)"]
    said.clear()
    sync_index(index, homes=[home], notify=said.append)  # a sync builds nothing: says nothing
    monkeypatch.setattr(sync, "MERGE_NOTICE_DOCS", report.docs + 1)
    sync_index(index, homes=[home], notify=said.append, rebuild=True)
    assert not [line for line in said if "merging" in line], said  # a build of fewer docs says nothing of it


def _fts_settings(db: Path) -> dict[str, dict[str, int]]:
    with sqlite3.connect(db) as conn:
        return {
            table: {
                k: int(v) for k, v in conn.execute(f"SELECT k, v FROM {table}_config WHERE k <> 'version'")
            }
            for table in schema.FTS_TABLES
        }


def test_a_build_merges_its_full_text_segments_less_often_than_the_index_in_use(home, index, monkeypatch):
    building: list[dict[str, dict[str, int]]] = []
    real = sync._sync_store

    def watched(conn, *args, **kwargs):  # what the file being built is set to, while it is built
        building.append(_fts_settings(Path(conn.execute("PRAGMA database_list").fetchone()[2])))
        return real(conn, *args, **kwargs)

    monkeypatch.setattr(sync, "_sync_store", watched)
    sync_index(index, homes=[home])  # a first build: renamed into place
    sync_index(index, homes=[home], rebuild=True)  # over an index in use: copied into it
    assert len(building) == 2
    for seen in building:
        assert all(seen[t] == schema.BUILDING_FTS for t in schema.FTS_TABLES), seen
    finished = _fts_settings(index)
    for table in schema.FTS_TABLES:
        assert {k: finished[table][k] for k in schema.IN_USE_FTS} == schema.IN_USE_FTS, finished
    _check_full_text(index)


def _segments(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        count = "SELECT count(DISTINCT segid) FROM {}_idx"
        return {t: conn.execute(count.format(t)).fetchone()[0] for t in schema.FTS_TABLES}


def test_a_finished_build_leaves_each_full_text_index_in_one_segment(home, index, monkeypatch):
    """A search looks every term up in every segment: a build that wrote many ends with them merged."""
    before: list[dict[str, int]] = []
    real = schema.merge_whole

    def watched(conn):  # the segments the build wrote, as it finishes
        before.append(_segments(Path(conn.execute("PRAGMA database_list").fetchone()[2])))
        real(conn)

    # Segments of a few terms each: the build writes several, as a million messages write over a hundred.
    monkeypatch.setattr(schema, "BUILDING_FTS", {**schema.BUILDING_FTS, "hashsize": 2_000})
    monkeypatch.setattr(writer, "FTS_BATCH", 7)
    monkeypatch.setattr(schema, "merge_whole", watched)
    sync_index(index, homes=[home])
    assert len(before) == 1 and before[0]["docs_fts"] > 4, before  # more than an index in use would keep
    after = _segments(index)
    assert after["docs_fts"] == after["docs_tri"] == 1 and max(after.values()) == 1, after
    _check_full_text(index)
    assert search(index, "widget7").hits


def test_docs_written_in_batches_by_workers_are_each_indexed_once(home, index, monkeypatch):
    monkeypatch.setattr(sync, "PARALLEL_FROM", 1)
    monkeypatch.setattr(sync, "BATCH_MESSAGES", 3)
    monkeypatch.setattr(writer, "FTS_BATCH", 7)  # flushes fall mid-batch and mid-session
    sync_index(index, homes=[home])
    _check_full_text(index)
    for n in (0, 13, SESSIONS - 1):
        assert search(index, f"widget{n}").hits[0].session_id == f"20261101_{n:06d}_abcdef"


def test_ids_given_out_again_after_a_replace_are_indexed(home, index, monkeypatch):
    """The session written last holds the highest doc ids; read again first, its new docs reuse them."""
    monkeypatch.setattr(writer, "FTS_BATCH", 2)
    sync_index(index, homes=[home])
    newest = f"20261101_{SESSIONS - 1:06d}_abcdef"
    with sqlite3.connect(index) as conn:
        top = conn.execute("SELECT max(id) FROM docs").fetchone()[0]
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message(newest, "user", "And the gizmo checksum?", timestamp=1_800_100_000.0)
    db.close()
    assert sync_index(index, homes=[home]).sessions_indexed == 1
    with sqlite3.connect(index) as conn:
        reused = conn.execute("SELECT min(id) FROM docs WHERE sess = (SELECT max(id) FROM sessions)")
        assert reused.fetchone()[0] <= top  # the case this test is about
    _check_full_text(index)
    assert search(index, "gizmo checksum").hits[0].session_id == newest
    assert search(index, f"make w{SESSIONS - 1}").hits[0].session_id == newest
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message("20261101_000003_abcdef", "user", "What about sprockets?", timestamp=1_800_100_001.0)
    db.close()
    _write_store(home / "state.db", sessions=2, start=SESSIONS)
    assert sync_index(index, homes=[home]).sessions_indexed == 3
    _check_full_text(index)
    assert search(index, "sprockets").hits and search(index, f"widget{SESSIONS + 1}").hits


def test_a_rebuild_is_swapped_in_whole_and_searches_meanwhile_read_the_old(home, index, monkeypatch):
    sync_index(index, homes=[home])
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        if not seen:  # mid-rebuild: another reader still finds everything in the old index
            seen.append(len(search(index, "widget").hits))

    lines: list[str] = []
    report = sync_index(index, homes=[home], rebuild=True, progress=progress, notify=lines.append)
    assert seen and seen[0] > 0
    assert report.sessions_indexed == SESSIONS and lines == [
        "rebuilding the search index: asked to rebuild it"
    ]
    _check_full_text(index)
    assert not list(index.parent.glob("index.db.new-*"))


def test_an_interrupted_rebuild_leaves_the_old_index_and_what_it_committed(home, index, monkeypatch):
    sync_index(index, homes=[home])
    before = index.stat().st_ino
    monkeypatch.setattr(sync, "COMMIT_SECONDS", 0.0)  # a commit after every session

    def interrupt(done: int, total: int) -> None:
        if done >= 21:  # sessions of 2 and 5 messages in turn: 6 of them
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sync_index(index, homes=[home], rebuild=True, progress=interrupt)
    assert index.stat().st_ino == before and search(index, "widget3").hits
    assert not list(index.parent.glob("index.db.new-*"))
    assert opening.build_progress(index) == (6, 21)
    lines: list[str] = []
    again = sync_index(index, homes=[home], rebuild=True, notify=lines.append)  # the lock was let go
    assert again.sessions_indexed == SESSIONS - 6
    assert lines[-1] == (
        "taking up the index build that was cut short: 21 messages of 6 sessions are indexed already"
    )
    assert index.stat().st_ino == before and not opening.building_path(index).exists()
    _check_full_text(index)


# Runs in a child: builds the index committing after every session, and stops dead once it has committed
# as many sessions as asked and written one more (still in the journal), for the test to kill it there.
KILLED_BUILD = r"""
import sys, time
from pathlib import Path
from hermes_trail.index import sync, writer

index, home, committed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
sync.COMMIT_SECONDS = 0.0
real = writer.Writer.replace
written = [0]

def replace(self, *args, **kwargs):
    docs = real(self, *args, **kwargs)
    written[0] += 1
    if written[0] > committed:
        print("stopped", flush=True)
        time.sleep(600)
    return docs

writer.Writer.replace = replace
sync.sync_index(index, homes=[home], parallel=False)
"""


def _killed_build(index: Path, home: Path, committed: int) -> None:
    """A build of ``index`` in another process, killed (SIGKILL) after ``committed`` sessions."""
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILD, str(index), str(home), str(committed)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stderr is not None
        stopped = child.stdout.readline()
        assert stopped == "stopped\n", child.stderr.read()[-3000:]
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL


def _contents(index: Path, exact: bool = True) -> dict[str, list[tuple[Any, ...]]]:
    """What an index holds, to compare two; ``exact``: with the ids (else keyed by session id, as a session
    read again gets new ids)."""
    columns = [c for (c,) in _query(index, "SELECT name FROM pragma_table_info('docs')")]
    doc_columns = ", ".join(f"d.{c}" for c in columns if exact or c not in ("id", "sess"))
    sess_columns = "s.*" if exact else "s.store, s.session_id, s.title, s.started, s.fingerprint, s.gist"
    # The count of docs deleted since the word indexes were merged is housekeeping, not what is held.
    skip = ("build", "docs_deleted") if exact else ("build", "sessions_version", "docs_deleted")
    return {
        "sessions": sorted(_query(index, f"SELECT {sess_columns} FROM sessions s")),
        "docs": sorted(
            _query(index, f"SELECT s.session_id, {doc_columns} FROM docs d JOIN sessions s ON s.id = d.sess"),
            key=repr,
        ),
        "stores": sorted(_query(index, "SELECT key, name, path, profile, identity, watermark FROM stores")),
        "meta": sorted(r for r in _query(index, "SELECT key, value FROM meta") if r[0] not in skip),
    }


def _query(index: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_build_killed_mid_way_is_taken_up_where_it_stopped(home, index, tmp_path):
    """A first build killed (a one-shot Hermes ends, a reboot) after ten sessions were committed and one
    more written: the next build reads only the twenty left, and ends with the same index as a build that
    was never stopped."""
    _killed_build(index, home, committed=10)
    building = opening.building_path(index)
    assert not index.exists() and building.is_file()
    assert Path(f"{building}-journal").stat().st_size > 0, "the eleventh session, not committed"
    totals: list[int] = []
    report = sync_index(index, homes=[home], progress=lambda done, total: totals.append(total))
    assert report.sessions_indexed == SESSIONS - 10 and totals[-1] == 70  # 10 sessions of 2, 10 of 5
    assert sorted(p.name for p in index.parent.iterdir()) == ["index.db", "index.db.lock"]
    whole = tmp_path / "whole" / "index.db"
    sync_index(whole, homes=[home])
    assert _contents(index) == _contents(whole)
    _check_full_text(index)
    assert search(index, "widget3").hits[0].session_id == "20261101_000003_abcdef"


def test_what_changed_after_a_build_was_cut_short_is_read_when_it_is_taken_up(
    home, index, tmp_path, monkeypatch
):
    """Between the cut and the next build, Hermes wrote on: a row added to a session committed already,
    another one retitled, one deleted, new sessions. The build taken up reads each of those again, as the
    incremental sync would, and ends as a build made after them."""
    monkeypatch.setattr(sync, "COMMIT_SECONDS", 0.0)

    def interrupt(done: int, total: int) -> None:
        if done >= 35:  # ten sessions
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sync_index(index, homes=[home], progress=interrupt)
    assert opening.build_progress(index) == (10, 35)
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message("20261101_000002_abcdef", "user", "And the gizmo checksum?", timestamp=1_800_100_000.0)
    db.set_session_title("20261101_000006_abcdef", "Flange work")
    db.delete_session("20261101_000004_abcdef")
    db.close()
    _write_store(home / "state.db", sessions=2, start=SESSIONS)
    report = sync_index(index, homes=[home])
    assert report.sessions_removed == 1 and report.sessions_indexed == SESSIONS - 10 + 2 + 2
    whole = tmp_path / "whole" / "index.db"
    sync_index(whole, homes=[home])
    assert _contents(index, exact=False) == _contents(whole, exact=False)
    _check_full_text(index)
    assert search(index, "gizmo checksum").hits[0].session_id == "20261101_000002_abcdef"
    assert ("20261101_000004_abcdef",) not in _query(index, "SELECT session_id FROM sessions")


def test_a_build_left_from_an_earlier_boot_is_checked_before_it_is_taken_up(home, index, monkeypatch):
    """A build's commits are not synced to disk: a power cut can leave its file damaged. One left over from
    an earlier boot of the machine is taken up when SQLite's check finds it whole, else built anew."""
    monkeypatch.setattr(sync, "COMMIT_SECONDS", 0.0)
    building = opening.building_path(index)

    def cut_short_before_a_reboot() -> None:
        def interrupt(done: int, total: int) -> None:
            if done >= 35:  # ten sessions
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            sync_index(index, homes=[home], progress=interrupt)
        with sqlite3.connect(building) as conn:
            conn.execute("UPDATE meta SET value = 'an-earlier-boot' WHERE key = ?", (opening.BUILD_BOOT,))
        conn.close()

    cut_short_before_a_reboot()
    assert sync_index(index, homes=[home]).sessions_indexed == SESSIONS - 10  # whole: taken up
    _check_full_text(index)
    index.unlink()
    cut_short_before_a_reboot()
    with sqlite3.connect(building) as conn:  # a page the power cut left half written
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'docs'").fetchone()[0]
    conn.close()
    with building.open("r+b") as fh:
        fh.seek((root - 1) * size)
        fh.write(b"\xff" * 64)
    assert sync_index(index, homes=[home]).sessions_indexed == SESSIONS  # damaged: built anew
    _check_full_text(index)


def test_a_build_left_by_another_format_or_damaged_is_made_anew(home, index):
    building = opening.building_path(index)
    index.parent.mkdir(parents=True)
    for left in (b"half a database", None):
        if left is None:  # an index file of an older format
            with sqlite3.connect(building) as conn:
                conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                conn.execute("INSERT INTO meta VALUES ('format', 'trail-index-0')")
            conn.close()
        else:
            building.write_bytes(left)
        assert sync_index(index, homes=[home]).sessions_indexed == SESSIONS
        assert not building.exists()
        _check_full_text(index)
        index.unlink()


def test_while_another_process_builds_a_query_uses_the_index_in_place(home, index, monkeypatch):
    sync_index(index, homes=[home])
    monkeypatch.setattr(opening, "BUILD_WAIT_SECONDS", 0.2)
    holder = _hold_build_lock(index)
    try:
        assert sync_index(index, homes=[home]).rebuilt is None  # nothing to build: the lock is not needed
        with sqlite3.connect(index) as conn:
            conn.execute("UPDATE meta SET value = 'trail-index-0' WHERE key = 'format'")
        with pytest.raises(TrailError, match="being built by another trail"):
            sync_index(index, homes=[home])  # no index this process can read, and the build is not its
        with pytest.raises(TrailError, match="being built by another trail"):
            sync_index(index, homes=[home], rebuild=True)
    finally:
        holder.close()
    assert sync_index(index, homes=[home]).rebuilt  # once the other build is gone, this one builds


def test_a_first_build_under_way_elsewhere_is_a_clear_error(home, index, monkeypatch):
    monkeypatch.setattr(opening, "BUILD_WAIT_SECONDS", 0.2)
    holder = _hold_build_lock(index)
    try:
        with pytest.raises(TrailError, match="being built by another trail process; try again"):
            sync_index(index, homes=[home])
        assert not index.exists()
    finally:
        holder.close()


def test_what_a_killed_build_left_beside_is_cleared_by_the_next(home, index):
    index.parent.mkdir(parents=True)
    left = index.with_name("index.db.new-999999")
    left.write_bytes(b"half a database")
    Path(f"{left}-journal").write_bytes(b"x")
    sync_index(index, homes=[home])
    assert not left.exists() and not Path(f"{left}-journal").exists()
    assert search(index, "widget5").hits


def test_when_most_sessions_changed_the_index_is_built_anew(home, index, monkeypatch):
    """After a Hermes upgrade that adds a session column every fingerprint changes: building anew beside
    is cheaper than replacing every doc, and must give the same index."""
    monkeypatch.setattr(sync, "REBUILD_FROM_MESSAGES", 10)
    sync_index(index, homes=[home])
    with sqlite3.connect(index) as conn:
        before = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    with sqlite3.connect(home / "state.db") as store:  # what an upgrade does to every session row
        store.execute("UPDATE sessions SET title = 'Widget work ' || id")
    lines: list[str] = []
    report = sync_index(index, homes=[home], notify=lines.append)
    assert report.rebuilt and "most of it changed" in report.rebuilt
    assert lines == [f"rebuilding the search index: most of it changed ({SESSIONS} sessions to read again)"]
    assert report.sessions_indexed == SESSIONS and not list(index.parent.glob("index.db.new-*"))
    with sqlite3.connect(index) as conn:
        assert conn.execute("SELECT count(*) FROM docs").fetchone()[0] == before
        assert conn.execute("SELECT count(DISTINCT title) FROM sessions").fetchone()[0] == SESSIONS
    _check_full_text(index)
    db = hermes_state.SessionDB(db_path=home / "state.db")  # a few changes stay a few replacements
    db.append_message("20261101_000002_abcdef", "user", "One more thing.", timestamp=1_800_200_000.0)
    db.close()
    again = sync_index(index, homes=[home])
    assert again.rebuilt is None and again.sessions_indexed == 1


def test_a_long_conversation_filling_the_window_does_not_hide_the_others(home, index, monkeypatch):
    """The newest matches of a common word can all sit in one long active conversation; the window then
    looks past its sessions, so the word finds the other conversations that have it. (Here only replies
    have the word: no gist of what was asked can stand in for the word's own matches.)"""
    from hermes_trail.index import search as search_module

    monkeypatch.setattr(search_module, "WINDOW", 10)
    db = hermes_state.SessionDB(db_path=home / "state.db")
    for n in range(6):
        db.append_message(
            f"20261101_{n:06d}_abcdef", "assistant", "The sprocket turned.", timestamp=1_850_000_000.0 + n
        )
    db.create_session("20261201_000000_ffffff", "cli", cwd="/src/long")
    for n in range(40):
        db.append_message("20261201_000000_ffffff", "user", f"Step {n}?", timestamp=1_900_000_000.0 + 2 * n)
        db.append_message(
            "20261201_000000_ffffff", "assistant", f"Sprocket {n} done.", timestamp=1_900_000_001.0 + 2 * n
        )
    db.close()
    sync_index(index, homes=[home])
    found = search(index, "sprocket")
    assert found.windowed and len(found.conversations) == 7
    assert {hit.kind for hit in found.hits} == {"reply"} and all("«" in hit.snippet for hit in found.hits)
    assert found.hits[0].session_id == "20261201_000000_ffffff"  # the newest still leads


def test_a_count_that_reached_the_cap_is_not_counted_again_in_the_trigram_index(home, index, monkeypatch):
    """A path is looked for in the word index and the trigram index; the trigram index's count costs
    several times the word index's (1.5 ms a path at a million messages), and once the words counted up to
    the cap it could not raise the count: it is not run, and the count is the same."""
    from hermes_trail.index import search as search_module

    monkeypatch.setattr(search_module, "WINDOW", 10)
    monkeypatch.setattr(search_module, "COUNT_CAP", 20)
    db = hermes_state.SessionDB(db_path=home / "state.db")
    for n in range(30):
        session, text = f"20261101_{n % 6:06d}_abcdef", f"Edited src/app/store.py ({n})."
        db.append_message(session, "assistant", text, timestamp=1.9e9 + n)
    db.close()
    sync_index(index, homes=[home])
    statements: list[str] = []
    with sqlite3.connect(index) as conn:
        conn.set_trace_callback(statements.append)
        found = search(conn, "src/app/store.py")
    assert found.windowed and found.matches == 20 and not found.matches_exact
    counts = [s for s in statements if s.startswith("SELECT count(*) FROM (SELECT 1 FROM docs_")]
    assert counts and all("docs_tri" not in s for s in counts)


def test_a_rebuild_over_an_index_in_use_is_copied_in_not_renamed_over(home, index):
    """Another process may hold the old index open; a database renamed over while in use can be corrupted
    by its connections (closing one deletes the write-ahead log by name), so a rebuild copies itself in."""
    sync_index(index, homes=[home])
    other = sqlite3.connect(index)  # another process's connection, open across the rebuild
    assert other.execute("SELECT count(*) FROM sessions").fetchone()[0] == SESSIONS
    inode = index.stat().st_ino
    assert sync_index(index, homes=[home], rebuild=True).sessions_indexed == SESSIONS
    assert index.stat().st_ino == inode and not list(index.parent.glob("index.db.new-*"))
    assert other.execute("SELECT count(*) FROM sessions").fetchone()[0] == SESSIONS  # sees the new one
    other.close()
    _check_full_text(index)
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message("20261101_000004_abcdef", "user", "What about the flange?", timestamp=1_800_300_000.0)
    db.close()
    assert sync_index(index, homes=[home]).sessions_indexed == 1
    assert search(index, "flange").hits


def test_a_rebuild_copied_into_the_same_file_is_not_served_the_old_gists(home, index):
    """A long-lived process keeps the gist matrix while the index's sessions stay the same. A rebuild copied
    into the old file keeps its inode, and can end with the same session count of changes; its build id
    still tells the matrix is stale."""
    import numpy as np

    from hermes_trail.index import search as search_module

    sync_index(index, homes=[home])

    def gists() -> tuple[list[int], Any]:
        with sqlite3.connect(index) as conn:
            return search_module._gists(conn, "s.gist IS NOT NULL", [])

    before_ids, _ = gists()
    db = hermes_state.SessionDB(db_path=home / "state.db")  # one session out, another in: as many as before
    db.delete_session("20261101_000004_abcdef")
    db.close()
    _write_store(home / "state.db", sessions=1, start=SESSIONS)
    sync_index(index, homes=[home], rebuild=True)
    ids, matrix = gists()
    with sqlite3.connect(index) as conn:
        rows = conn.execute("SELECT id, gist FROM sessions WHERE gist IS NOT NULL").fetchall()
    assert len(ids) == len(before_ids) == SESSIONS
    assert ids == [r[0] for r in rows]
    assert np.array_equal(matrix, search_module.semantic.matrix([r[1] for r in rows]))


def test_install_says_how_much_of_a_build_cut_short_is_left(home, index, monkeypatch, capsys):
    """``trail install hermes`` estimates the first build from the messages it has to read, at the measured
    rate, less what a build cut short has indexed already; without a terminal it only says how to run it."""
    from types import SimpleNamespace

    from hermes_trail.cli import install as cli_install
    from hermes_trail.integrations.hermes import install as inst

    monkeypatch.setattr(inst, "index_for", lambda home, env=None: index)
    monkeypatch.setattr(inst, "BUILD_SECONDS_PER_MILLION", 4e5)  # 0.4 s a message, to read the figures
    plans = [SimpleNamespace(target=SimpleNamespace(home=home))]
    cli_install._first_builds(plans, None, False)
    said = capsys.readouterr().err.splitlines()
    assert said == [
        f"The search index {index} is not built yet: 105 messages in 30 sessions. `trail index` builds it "
        "in about 42 s; left to Hermes, the plugin starts that build in the background the first time "
        "Hermes runs, and recalls nothing until it is done.",
        f"  to build it later: trail index --index {index} --home {home}",
    ]
    _killed_build(index, home, committed=10)  # its journal left hot: the eleventh session is not counted
    assert inst.first_build(home, index) == {"messages": 105, "sessions": 30, "done": 35, "seconds": 28.0}
    cli_install._first_builds(plans, False, False)
    assert capsys.readouterr().err.splitlines()[0] == (
        f"The search index {index} is not built yet: 105 messages in 30 sessions, 35 of them indexed by a "
        "build that was cut short. `trail index` builds the rest in about 28 s; left to Hermes, the plugin "
        "starts that build in the background the first time Hermes runs, and recalls nothing until it is "
        "done."
    )
    holder = _hold_build_lock(index)
    try:
        cli_install._first_builds(plans, True, False)  # not started twice: the other finishes it
        assert capsys.readouterr().err.splitlines()[1:] == ["  another trail process is building it now"]
    finally:
        holder.close()
    sync_index(index, homes=[home])
    assert inst.first_build(home, index) is None


def test_the_plugin_leaves_a_first_build_under_way_elsewhere_to_finish(home, index, tmp_path):
    """An earlier Hermes started ``trail index``, which is still at it: a new Hermes does not start
    another (it would only wait for the lock and give up), and recalls nothing until it is done."""
    from hermes_trail.integrations.hermes.runtime import Recaller, Settings
    from hermes_trail.service import Trail

    started = tmp_path / "started"
    fake = tmp_path / "trail"
    fake.write_text(f"#!/bin/sh\ntouch {started}\n")
    fake.chmod(0o755)
    recaller = Recaller(Settings(), Trail(index=index, parallel=False), command=str(fake))
    holder = _hold_build_lock(index)
    try:
        assert opening.build_under_way(index)
        assert recaller.recall("why does the widget7 deploy fail") == ""
        assert recaller._building is None
    finally:
        holder.close()
    assert not opening.build_under_way(index)
    assert recaller.recall("why does the widget7 deploy fail") == ""  # now it starts one
    assert recaller._building is not None
    recaller._building.wait(timeout=30)
    assert started.exists()


def _file_bytes(index: Path) -> int:
    return sum(p.stat().st_size for p in (index, Path(f"{index}-wal")) if p.exists())


def test_what_a_store_that_is_gone_took_is_given_back_to_the_disk(home, index, monkeypatch):
    """A profile deleted takes its sessions out of the index; the word indexes' entries for them and the
    pages they filled are given back (not kept for rows that may never come), searches answer as before,
    and a sync that deleted little gives nothing back. When another process is writing the index, the
    sync leaves it for a later one instead of waiting."""
    big = home / "profiles" / "big"
    big.mkdir(parents=True)
    _write_store(big / "state.db", sessions=400, start=100)
    monkeypatch.setattr(sync, "RECLAIM_MIN_BYTES", 1 << 40)  # nothing given back yet
    sync_index(index, homes=[home])
    again = sync_index(index, homes=[home])  # nothing deleted: nothing to give back
    assert again.reclaimed == 0
    before = _file_bytes(index)
    for db in big.iterdir():
        db.unlink()
    big.rmdir()
    gone = sync_index(index, homes=[home])
    assert gone.sessions_removed == 400 and gone.reclaimed == 0
    with sqlite3.connect(index) as conn:  # merged whole: the deleted docs' entries are gone
        words = conn.execute("SELECT sum(length(block)) FROM docs_fts_data").fetchone()[0]
        assert int(conn.execute("SELECT value FROM meta WHERE key = 'docs_deleted'").fetchone()[0]) == 0
    monkeypatch.setattr(sync, "RECLAIM_MIN_BYTES", 0)
    writer_conn = sqlite3.connect(index, isolation_level=None)
    writer_conn.execute("BEGIN IMMEDIATE")  # a vector stage writing: left for a later sync
    try:
        assert sync_index(index, homes=[home]).reclaimed == 0
    finally:
        writer_conn.execute("ROLLBACK")
        writer_conn.close()
    freed = sync_index(index, homes=[home]).reclaimed
    after = _file_bytes(index)
    assert freed > 0 and after < before / 3, (before, after, freed)
    with sqlite3.connect(index) as conn:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
        assert conn.execute("SELECT sum(length(block)) FROM docs_fts_data").fetchone()[0] == words
    _check_full_text(index)
    assert search(index, "widget7").conversations[0].hits[0].session_id == "20261101_000007_abcdef"
    assert search(index, "widget107").missing == ["widget107"]
    assert sync_index(index, homes=[home]).reclaimed == 0


def test_a_sync_that_wrote_much_leaves_no_large_write_ahead_log(home, index, monkeypatch):
    """SQLite reuses a write-ahead log's file and never shrinks it, and deletes it only when the last
    connection closes: while another process had the index open (the MCP server, the plugin, a vector
    stage), a sync that wrote much left a log of its size beside the index. A sync cuts it back when it
    is past the size kept; never by waiting on a process reading the index, whose snapshot the log still
    serves (a later sync cuts it)."""
    monkeypatch.setattr(schema, "LOG_KEEP_BYTES", 64 << 10)
    log = Path(f"{index}-wal")
    sync_index(index, homes=[home])
    other = sqlite3.connect(index, isolation_level=None)  # another process's: the log outlives each sync
    try:
        assert other.execute("SELECT count(*) FROM sessions").fetchone()[0] == SESSIONS
        _write_store(home / "state.db", sessions=200, start=100)
        other.execute("BEGIN")
        other.execute("SELECT count(*) FROM docs").fetchone()  # reading: its snapshot holds the log
        assert sync_index(index, homes=[home]).sessions_indexed == 200
        assert log.stat().st_size > schema.LOG_KEEP_BYTES
        other.execute("COMMIT")
        _write_store(home / "state.db", sessions=200, start=300)
        assert sync_index(index, homes=[home]).sessions_indexed == 200
        assert log.stat().st_size <= schema.LOG_KEEP_BYTES, log.stat().st_size
        assert other.execute("SELECT count(*) FROM sessions").fetchone()[0] == SESSIONS + 400
    finally:
        other.close()
    assert search(index, "widget450").conversations[0].hits[0].session_id == "20261101_000450_abcdef"
    _check_full_text(index)
