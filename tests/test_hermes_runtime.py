"""The guarantees the plugin and the provider rest on (runtime.py), and the service options they use: the
asker's conversation left out, the index read as it stands, statements stopped at a deadline."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest

import trailhome
from hermes_trail.integrations.hermes import runtime
from hermes_trail.integrations.hermes.runtime import Recaller, Settings
from hermes_trail.service import Trail


@pytest.fixture
def trail(tmp_path: Path) -> Trail:
    home = trailhome.write(tmp_path / "hermes")
    trail = Trail(index=tmp_path / "index.db", homes=(home,), parallel=False)
    trail.sync(force=True)
    return trail


@pytest.mark.parametrize(
    ("prompt", "query"),
    [
        ("How did we run the zebracorn migration on staging?", "run zebracorn migration staging"),
        ("ok", ""),
        ("/model gpt-5", ""),
        ("", ""),
        (
            "Why does src/app.py fail with ConnectionRefusedError on port 5432 "
            "when staging deploy runs again?",
            "src/app.py fail ConnectionRefusedError 5432 staging deploy",
        ),
        ("数据库备份脚本 在哪里", "数据库备份脚本 在哪里"),
        ('fix "OR" -flag NOT the build', "fix flag build"),
    ],
)
def test_prompt_query(prompt, query):
    assert runtime.prompt_query(prompt) == query


def test_settings_from_the_environment():
    assert Settings.from_env({}) == Settings()
    env = {
        "TRAIL_HERMES_RECALL": "no",
        "TRAIL_HERMES_FIX": "1",
        "TRAIL_HERMES_DEADLINE": "0.25",
        "TRAIL_HERMES_BUDGET": "100",
        "TRAIL_HERMES_SYNC_EVERY": "bad",
    }
    assert Settings.from_env(env) == Settings(
        recall=False, fix=True, deadline=0.25, budget=256, sync_every=10.0
    )


@pytest.mark.parametrize(
    ("result", "error"),
    [
        (json.dumps({"output": "boom", "exit_code": 2, "error": None}), "make test\nboom"),
        (
            json.dumps({"output": "boom", "exit_code": 2, "error": None}) + "\n\n[Tool loop warning: x]",
            "make test\nboom",
        ),
        (json.dumps({"output": "", "exit_code": -9, "error": "killed"}), "make test\nkilled"),
        (json.dumps({"output": "ok", "exit_code": 0, "error": None}), None),
        (json.dumps({"output": "", "exit_code": -1, "error": "denied"}), None),
        (json.dumps({"output": "", "exit_code": 1, "error": "x", "status": "pending_approval"}), None),
        (json.dumps({"output": "", "exit_code": True}), None),
        ("<persisted-output> 12 MB", None),
        (None, None),
    ],
)
def test_failed_terminal(result, error):
    assert runtime.failed_terminal({"command": "make test"}, result) == error


def test_within_gives_the_value_or_nothing():
    assert runtime.within(1.0, lambda: 42) == 42
    assert runtime.within(1.0, lambda: 1 / 0) is None
    release = threading.Event()
    started = time.monotonic()
    assert runtime.within(0.1, lambda: release.wait(5)) is None
    assert time.monotonic() - started < 1.0
    release.set()


def test_within_never_piles_up_threads():
    release = threading.Event()
    for _ in range(runtime.MAX_THREADS):
        assert runtime.within(0.01, lambda: release.wait(5)) is None
    started = time.monotonic()
    assert runtime.within(5.0, lambda: 1) is None, "all stuck: refused at once"
    assert time.monotonic() - started < 0.5
    release.set()
    time.sleep(0.2)
    assert runtime.within(1.0, lambda: 1) == 1


def test_recall_leaves_the_askers_conversation_out(trail):
    with_current = trail.recall(trailhome.WORD)
    assert trailhome.CURRENT_ID in with_current and trailhome.MIGRATION_ID in with_current
    without = trail.recall(trailhome.WORD, exclude_session=trailhome.CURRENT_ID)
    assert trailhome.CURRENT_ID not in without and trailhome.MIGRATION_ID in without


def test_fix_leaves_a_fix_seen_only_in_the_askers_conversation_out(trail):
    assert [f["command"] for f in trail.fix(trailhome.ERROR)["fixes"]] == ["pip install quagga"]
    assert trail.fix(trailhome.ERROR, exclude_session=trailhome.FIX_ID)["fixes"] == []


def test_read_as_it_stands_or_synced(tmp_path, trail):
    fresh = Trail(index=tmp_path / "new.db", homes=trail.homes)
    with pytest.raises(sqlite3.OperationalError):
        fresh.recall(trailhome.WORD, fresh=False)  # no index yet, and none is built
    assert not (tmp_path / "new.db").exists()
    assert trailhome.MIGRATION_ID in fresh.recall(trailhome.WORD)


def test_a_statement_past_its_deadline_is_stopped(trail):
    conn = trail._read(fresh=False, timeout=0.05)
    slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="interrupted"):
        conn.execute(slow).fetchone()
    assert time.monotonic() - started < 1.0
    conn.close()


def test_the_recaller_syncs_in_the_background_once_at_a_time(tmp_path):
    home = trailhome.write(tmp_path / "hermes")
    recaller = Recaller(
        Settings(sync_every=3600), Trail(index=tmp_path / "index.db", homes=(home,), parallel=False)
    )
    assert recaller.recall("zebracorn migration", trailhome.CURRENT_ID) == "", (
        "no index yet: nothing, at once"
    )
    assert recaller.sync_soon() is False, "the recall started one; no second before sync_every"
    assert recaller.wait_for_sync(30)
    assert trailhome.MIGRATION_ID in recaller.recall("zebracorn migration", trailhome.CURRENT_ID)


def test_fix_note_shape():
    report = {
        "fixes": [
            {
                "command": "pip install quagga",
                "worked": 3,
                "confirmed": 2,
                "examples": [{"time": "2026-11-03T09:00:00Z", "session_id": "s1"}],
            },
            {"command": "x" * 5000, "worked": 1, "confirmed": 0, "examples": []},
        ]
    }
    note = runtime.fix_note(report)
    assert note.startswith("<trail-fix>\n") and note.endswith("</trail-fix>")
    assert (
        "`pip install quagga`: worked in 3 conversation(s), after which the failing command passed (2); last "
        "2026-11-03 in session s1" in note
    )
    assert len(note.encode()) <= runtime.NOTE_BUDGET
    assert runtime.fix_note({"fixes": []}) == ""
