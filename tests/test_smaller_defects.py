"""Issue 16's smaller defects (7), each on a home written by Hermes' own ``SessionDB``: a session listed
under its ``profile_name`` is shown by that name; a known cost below a cent keeps its digits; a JSON tool
result keeps its keys in the replay; an unreadable ``state-snapshots/`` is said; a profile that cannot be
looked into is said on every sync, not only the first. (``show <prefix>`` of a live and a deleted session
is in test_recovered_named.py.)
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

import hermesdb as h
from hermes_trail import open_history
from hermes_trail.cli.app import app
from hermes_trail.export.view import session_view
from hermes_trail.recovery import recover

SID = "20261102_090000_5e11a0"


def run(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_session_listed_under_its_profile_name_is_shown_by_it(tmp_path):
    """A copy of profile ``work``'s store at a home root: its rows say ``profile_name = 'work'``."""
    home = tmp_path / "hermes"
    home.mkdir()
    with h.hermes_env(home):
        db = h.session_db(home / "state.db")
        db.create_session(SID, "cli", profile_name="work")
        db.append_message(SID, "user", content="Where are the standup notes?")
        db.close()
    code, out, _ = run("list", "--json", "--home", home)
    assert code == 0 and json.loads(out)["sessions"][0]["profile"] == "work"
    for name in (f"work:{SID}", f"work:{SID[:12]}"):
        code, out, err = run("show", name, "--json", "--home", home)
        assert code == 0, err
        assert json.loads(out)["session"]["id"] == SID


def test_stats_keeps_a_cost_below_a_cent(tmp_path):
    spec = h.chat(
        SID, ("hi", "hello"), tokens={"input_tokens": 12, "output_tokens": 3, "estimated_cost_usd": 0.0009}
    )
    home = h.write_home(tmp_path / "hermes", [spec])
    code, out, err = run("stats", "--by", "model", "--home", home)
    assert code == 0, err
    assert "$0.0009" in out and "$0.00 " not in out


def test_a_json_result_keeps_its_keys_in_the_replay(tmp_path):
    result = {
        "results": [{"task_index": 0, "status": "completed", "summary": "Found the config."}],
        "count": 1,
    }
    messages = [
        h.user("Look into it.", timestamp=h.T0),
        h.assistant("", h.call("call_d1", "delegate_task", goal="find it"), timestamp=h.T0 + 1),
        h.tool("call_d1", "delegate_task", result, timestamp=h.T0 + 9),
        h.assistant("Found it.", timestamp=h.T0 + 10),
    ]
    home = h.write_home(tmp_path / "hermes", [h.SessionSpec(SID, messages, started_at=h.T0)])
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(SID))
        view = session_view(session, history.family(session))
    [call] = [c for t in view["turns"] for c in t["calls"]]
    assert "count: 1" in call["output"] and "status: completed" in call["output"]
    code, out, _ = run("show", SID, "--home", home)
    assert code == 0 and "count: 1" in out


def test_an_unreadable_snapshots_folder_is_said(tmp_path):
    home = h.write_home(tmp_path / "hermes", [h.chat(SID, ("hi", "hello"))])
    (home / "state-snapshots").symlink_to("state-snapshots")  # a loop: the folder cannot be read
    with open_history(homes=[home]) as history, recover(history, homes=[home]) as found:
        notes = [s for s in found.strays if s.kind == "directory"]
    assert [(n.where, n.reason) for n in notes] == [
        (str(home / "state-snapshots"), "symlink loop, passed over")
    ]


def test_a_profile_passed_over_is_said_on_every_sync(tmp_path):
    from hermes_trail.index.sync import sync_index

    home = h.write_home(tmp_path / "hermes", [h.chat(SID, ("hi", "hello"))])
    (home / "profiles").mkdir()
    (home / "profiles" / "loop").symlink_to("../profiles")  # a profile that is its own parent
    index = tmp_path / "index.db"
    for _ in range(2):  # the second sync finds nothing changed, and still says it
        report = sync_index(index, homes=[home], parallel=False)
        assert [s.where for s in report.strays if s.kind == "directory"] == [str(home / "profiles" / "loop")]


def test_index_exits_3_when_a_store_was_skipped(tmp_path):
    home = h.write_home(tmp_path / "hermes", [h.chat(SID, ("hi", "hello"))])
    (home / "profiles" / "broken").mkdir(parents=True)
    (home / "profiles" / "broken" / "state.db").write_text("not a database\n")
    index = tmp_path / "index.db"
    code, out, err = run("index", "--json", "--index", index, "--home", home)
    assert code == 3 and "profiles/broken/state.db" in err
    assert json.loads(out)["sessions"] == 1
    (home / "profiles" / "broken" / "state.db").unlink()
    code, _, _ = run("index", "--json", "--index", index, "--home", home)
    assert code == 0
