"""A session's last activity is the newest of its ``last_activity_at`` and its messages (issue 16, 4).

Schema 31 stamps ``sessions.last_activity_at``, and a store of that schema was seen with the column older
than the session's newest message. hermes-agent 0.19 (schema 22) has no such column, so the store is
written by its ``SessionDB`` and the column added and stamped behind the rows by hand, the one shape here
Hermes 0.19 cannot write.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

import hermesdb as h
from hermes_trail import open_history
from hermes_trail.cli.app import app

SID = "20261102_090000_1a57ac"
NEWEST = h.T0 + 60 * 4 + 5  # the last reply of four exchanges a minute apart


def _home(tmp_path):
    pairs = [(f"step {i}?", f"done {i}") for i in range(5)]
    home = h.write_home(tmp_path / "hermes", [h.chat(SID, *pairs)])
    h.sql(home / "state.db", "ALTER TABLE sessions ADD COLUMN last_activity_at REAL")
    h.sql(home / "state.db", "UPDATE sessions SET last_activity_at = ? WHERE id = ?", (h.T0 + 65, SID))
    return home


def test_the_newest_of_the_column_and_the_messages(tmp_path):
    home = _home(tmp_path)
    with open_history(homes=[home]) as history:  # a listing
        [session] = history.sessions
        assert session.last_activity_at.timestamp() == NEWEST
    with open_history(homes=[home], catalog=False) as history:  # one session looked up
        session = history.find(SID)
        assert session.last_activity_at.timestamp() == NEWEST
        assert history.load(session).last_activity_at.timestamp() == NEWEST


def test_list_json_says_it(tmp_path):
    home = _home(tmp_path)
    result = CliRunner().invoke(app, ["list", "--json", "--home", str(home)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    [session] = json.loads(result.stdout)["sessions"]
    assert session["last_activity_at"].startswith("2026-11-02T09:04:05")


def test_a_newer_column_still_wins(tmp_path):
    home = _home(tmp_path)
    h.sql(home / "state.db", "UPDATE sessions SET last_activity_at = ? WHERE id = ?", (NEWEST + 600, SID))
    with open_history(homes=[home]) as history:
        assert history.sessions[0].last_activity_at.timestamp() == NEWEST + 600
