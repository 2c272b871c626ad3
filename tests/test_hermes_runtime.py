"""The guarantees the plugin and the provider rest on (runtime.py), and the service options they use: the
asker's conversation left out, the index read as it stands, statements stopped at a deadline."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import trailhome
from hermes_trail.integrations.hermes import configured, runtime
from hermes_trail.integrations.hermes.runtime import Recaller, Settings
from hermes_trail.service import Trail


@pytest.fixture
def trail(tmp_path: Path) -> Trail:
    home = trailhome.write(tmp_path / "hermes")
    trail = Trail(index=tmp_path / "index.db", homes=(home,), parallel=False)
    trail.sync(force=True)
    return trail


LONG_PROMPT = (
    "Why does src/app.py fail with ConnectionRefusedError on port 5432 when the staging deploy runs again? "
    "It worked yesterday, and nobody changed the compose file or the database settings since then, I think. "
    "Can you look at the logs of the last two runs and tell me what differs between them?"
)


@pytest.mark.parametrize(
    ("prompt", "query"),
    [
        # A question of one line is asked as it is: the search reads "now", "my" and its meaning.
        (
            "How did we run the zebracorn migration on staging?",
            "How did we run the zebracorn migration on staging?",
        ),
        ("where does the shop's redis run now?", "where does the shop's redis run now?"),
        ("ok", ""),
        ("thanks!", ""),
        ("/model gpt-5", ""),
        ("/help", ""),
        ("/var/log full journald cap", "/var/log full journald cap"),  # a path, not a command
        ("", ""),
        # A long prompt, or one of several lines (a pasted log), gives its six most telling words.
        (LONG_PROMPT, "src/app.py ConnectionRefusedError 5432 yesterday database settings"),
        # One line, but more words that may say what it is about than a question has: the six telling ones.
        (
            "docker compose staging deploy failing retry logic payments webhook timeout nginx config",
            "compose staging failing payments webhook timeout",
        ),
        (
            "Fix this:\nTraceback (most recent call last):\nKeyError: 'zebracorn_id'",
            "Fix Traceback recent call KeyError zebracorn_id",
        ),
        ("数据库备份脚本 在哪里", "数据库备份脚本 在哪里"),
        # What the search would read as its syntax is taken out: a prompt is words, not a query.
        ('fix "OR" -flag NOT the build*', "fix flag the build"),
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


PUSH_TO = "postgresql://laptop:s3cret-pw@db.example/trail"
READ_FROM = "postgresql://reader@db.example/trail"


@pytest.mark.parametrize("which", ["hermes", "newer"])
def test_the_shared_index_settings_come_from_the_homes_config_as_hermes_writes_them(
    tmp_path, offline, which, request
):
    """``hermes config set plugins.entries.hermes-trail.settings.share DSN`` (Hermes' own writer, both
    versions): the plugin pushes there, as often as ``share_every`` says, and recalls from ``fleet``; an
    environment variable still wins over the file."""
    hermes = (
        Path(sys.executable).parent / "hermes"
        if which == "hermes"
        else Path(request.getfixturevalue("newer_hermes")).parent / "hermes"
    )
    home = tmp_path / "hermes"
    home.mkdir()
    (home / "config.yaml").write_text("model:\n  default: some/model  # mine\n", encoding="utf-8")
    env = {**os.environ, "HERMES_HOME": str(home), "HOME": str(tmp_path)}
    for key, value in (("share", PUSH_TO), ("share_every", "30"), ("fleet", READ_FROM)):
        done = subprocess.run(
            [*offline, str(hermes), "config", "set", "--force", f"{configured.WHERE}.{key}", value],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    assert Settings.load({}, home) == Settings(share=READ_FROM, push=PUSH_TO, push_every=30.0)
    said = {"TRAIL_HERMES_PUSH": "postgresql://other@elsewhere/trail", "TRAIL_HERMES_PUSH_EVERY": "5"}
    assert Settings.load(said, home) == Settings(
        share=READ_FROM, push="postgresql://other@elsewhere/trail", push_every=5.0
    )
    assert Settings.load({}, tmp_path / "no-home-here") == Settings()


def test_a_setting_of_the_wrong_kind_is_left_out_and_said_without_its_value(tmp_path, caplog):
    home = tmp_path / "hermes"
    home.mkdir()
    config = home / "config.yaml"
    config.write_text(
        "plugins:\n  entries:\n    hermes-trail:\n      config:\n        share: postgresql://old@db/trail\n"
        "        fleet: postgresql://kept@db/trail\n      settings:\n"
        f"        share: {PUSH_TO}\n        share_every: -3\n",
        encoding="utf-8",
    )
    found = configured.read(home)  # ``settings`` wins over the legacy ``config`` key by key
    assert (found.share, found.fleet, found.share_every) == (PUSH_TO, "postgresql://kept@db/trail", None)
    assert found.problems == [f"{configured.WHERE}.share_every is not a positive number of seconds; 60 it is"]
    config.write_text(
        "plugins:\n  entries:\n    hermes-trail:\n      settings:\n        share: [s3cret-pw]\n",
        encoding="utf-8",
    )
    with caplog.at_level("WARNING", logger="hermes_trail.hermes"):
        assert Settings.load({}, home) == Settings()
    assert f"{configured.WHERE}.share is not a text" in caplog.text and "s3cret" not in caplog.text
    config.write_text(
        "plugins:\n  entries:\n    hermes-trail: [oops\n", encoding="utf-8"
    )  # broken YAML: said, nothing taken
    [problem] = configured.read(home).problems
    assert problem.startswith(f"{config} is not YAML that can be read (")
    config.write_text("plugins:\n  enabled: [hermes-trail]\n", encoding="utf-8")  # only listed: not read
    assert configured.read(home) == configured.Configured()


def test_the_home_is_hermes_own_inside_hermes_else_hermes_home(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "hermes_constants", raising=False)
    assert configured.hermes_home({"HERMES_HOME": str(tmp_path / "h")}) == tmp_path / "h"
    assert configured.hermes_home({}) == Path.home() / ".hermes"

    class Loaded:  # the Hermes this runs in has its own resolver loaded (a profile's context included)
        @staticmethod
        def get_hermes_home() -> Path:
            return tmp_path / "profiles" / "work"

    monkeypatch.setitem(sys.modules, "hermes_constants", Loaded)
    assert configured.hermes_home({"HERMES_HOME": str(tmp_path / "h")}) == tmp_path / "profiles" / "work"


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


def test_a_chinese_prompt_recalls_the_english_conversation_it_asks_about(trail, monkeypatch):
    """What the plugin recalls for a prompt in Chinese ("how do we run the database migration"): the
    English conversation it asks about, through the dictionary's English words (no passage is encoded)."""
    prompt = "数据库迁移要怎么跑"
    assert trailhome.MIGRATION_ID in trail.recall(prompt, exclude_session=trailhome.CURRENT_ID)
    from hermes_trail.index import lexicon

    monkeypatch.setattr(lexicon, "table", lambda: None)  # without the dictionary: nothing to recall
    assert trailhome.MIGRATION_ID not in trail.recall(prompt, exclude_session=trailhome.CURRENT_ID)


def test_fix_leaves_a_fix_seen_only_in_the_askers_conversation_out(trail):
    assert [f["command"] for f in trail.fix(trailhome.ERROR)["fixes"]] == ["pip install quagga"]
    assert trail.fix(trailhome.ERROR, exclude_session=trailhome.FIX_ID)["fixes"] == []


def test_only_an_error_typed_by_someone_has_its_slips_mended(trail):
    """An agent asking ``trail_fix`` with an error typed from memory ("quaga" for "quagga") is answered as
    the history writes it; the fix note on a command's own output never reads its words as other words."""
    typed = "ModuleNotFoundError quaga"
    asked = trail.fix(typed)
    assert asked["spelled"] == {"quaga": ["quagga"]}
    assert [f["command"] for f in asked["fixes"]] == ["pip install quagga"]
    as_output = trail.fix(typed, respell=False)
    assert as_output["spelled"] == {} and as_output["fixes"] == []
    recaller = Recaller(Settings(sync_every=3600), trail)
    assert recaller.fix(typed, "someone-else") == ""
    assert "pip install quagga" in recaller.fix(trailhome.ERROR, "someone-else")


def test_read_as_it_stands_or_synced(tmp_path, trail):
    fresh = Trail(index=tmp_path / "new.db", homes=trail.homes)
    with pytest.raises(sqlite3.OperationalError):
        fresh.recall(trailhome.WORD, fresh=False)  # no index yet, and none is built
    assert not (tmp_path / "new.db").exists()
    assert trailhome.MIGRATION_ID in fresh.recall(trailhome.WORD)


def test_a_statement_past_its_deadline_is_stopped(trail):
    slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    started = time.monotonic()
    with (
        pytest.raises(sqlite3.OperationalError, match="interrupted"),
        trail._reading(fresh=False, timeout=0.05) as conn,
    ):
        conn.execute(slow).fetchone()
    assert time.monotonic() - started < 1.0
    assert trail._readers == []  # the connection a question failed on is not kept
    with trail._reading(fresh=False) as conn:  # the next question has no deadline left over
        assert conn.execute("SELECT count(*) FROM (SELECT 1 FROM sessions)").fetchone()[0] > 0


def test_a_door_keeps_its_connection_between_questions_until_the_index_is_rebuilt(tmp_path):
    """One connection for question after question (a schema read and a page cache each, saved); a rebuilt
    index is a new file at the same path: its next question reads the new file, not the old one it kept."""
    home = trailhome.write(tmp_path / "hermes")
    index = tmp_path / "index.db"
    trail = Trail(index=index, homes=(home,), parallel=False)
    first = trail.search_result(trailhome.WORD)
    assert first.conversations[0].hits[0].session_id == trailhome.MIGRATION_ID
    assert len(trail._readers) == 1
    with trail._reading() as conn:
        kept = conn
        assert trail._readers == []  # taken while a question is asked, given back after
    with trail._reading() as conn:
        assert conn is kept
    assert trail.search_result(trailhome.WORD).conversations[0].hits[0].session_id == trailhome.MIGRATION_ID

    rebuilt = tmp_path / "rebuilt.db"  # what a rebuild does: a new file put in the old one's place
    with (
        contextlib.closing(sqlite3.connect(index)) as src,
        contextlib.closing(sqlite3.connect(rebuilt)) as dst,
    ):
        src.backup(dst)
        dst.execute("CREATE TABLE rebuilt_here (x)")
        dst.commit()
    rebuilt.replace(index)
    with trail._reading(fresh=False) as conn:
        assert conn is not kept
        assert (
            conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'rebuilt_here'").fetchone()[0] == 1
        )
    assert len(trail._readers) == 1


def test_questions_at_once_each_get_a_connection_of_their_own(trail):
    seen: list[int] = []
    gate = threading.Barrier(3)

    def ask() -> None:
        with trail._reading(fresh=False) as conn:
            seen.append(id(conn))
            gate.wait(timeout=10)  # all three hold theirs at once
            assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] > 0

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(set(seen)) == 3 and len(trail._readers) == 3


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
        "`pip install quagga`: worked in 3 conversations, after which the failing command passed (2); last "
        "2026-11-03 in session s1" in note
    )
    assert len(note.encode()) <= runtime.NOTE_BUDGET
    assert runtime.fix_note({"fixes": []}) == ""
