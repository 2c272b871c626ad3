"""A deleted session that a snapshot still holds is a session wherever one can be named (issue 16, 3), a
prefix that starts a live and a deleted session names both (7), and a live store that could not be read
recovers nothing instead of reporting its live sessions deleted (2).

Homes are written by Hermes' own code: ``SessionDB`` for the sessions, ``create_quick_snapshot`` for the
snapshot and ``SessionDB.delete_session`` for the delete (``hermesside.run_plan``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb as h
import hermesside as hs
from hermes_trail import open_history
from hermes_trail.cli.app import app
from hermes_trail.hermes import store as store_module
from hermes_trail.recovery import Finder, recover, recover_home
from hermes_trail.service import Trail

KEPT_ID = "20261102_090000_aa11aa"
GONE_ID = "20261102_093000_bb22bb"
GONE_WORDS = "wombatlantern migration"


def _write(home: Path, journal: str = "wal") -> Path:
    h.write_store(
        home / "state.db",
        [
            h.chat(KEPT_ID, ("What is WAL?", "A write-ahead log.")),
            h.chat(
                GONE_ID,
                (f"Plan the {GONE_WORDS}.", "Three steps, then a check."),
                start=h.T0 + 1800,
                title="Wombat plan",
            ),
        ],
        journal=journal,
    )
    return home


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Both sessions snapshotted, then ``GONE_ID`` deleted with ``hermes sessions delete``'s code."""
    home = _write(tmp_path / "hermes")
    hs.run_plan(home, [{"op": "snapshot"}, {"op": "delete", "session": GONE_ID}], env={"HOME": str(tmp_path)})
    return home


def run(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _ref(home: Path) -> str:
    with open_history(homes=[home]) as history, recover(history, homes=[home]) as found:
        [session] = found.sessions
        return session.ref


# -- 3: a recovered session, wherever a session is named -----------------------------------------------
def test_export_reads_it(home):
    code, out, err = run("export", GONE_ID, "--format", "md", "--home", home)
    assert code == 0, err
    assert GONE_WORDS in out and "Three steps" in out


def test_handoff_briefs_it_and_says_why_it_cannot_resume(home):
    code, out, err = run("handoff", GONE_ID, "--home", home)
    assert code == 0, err
    assert GONE_WORDS in out
    assert "cannot resume" in out and f"trail show {_ref(home)}" in out


def test_resume_says_why_and_how_to_replay_it(home):
    code, out, err = run("resume", GONE_ID, "--home", home)
    assert code == 1 and out == ""
    assert "cannot resume" in err and "snapshot" in err
    assert f"trail show {_ref(home)}" in err
    code, out, err = run("show", _ref(home), "--json", "--home", home)  # the command it gives works
    assert code == 0, err
    assert json.loads(out)["session"]["id"] == GONE_ID


def test_the_web_replays_it(home):
    from hermes_trail.web.app import WebApp

    web = WebApp(homes=(home,))
    try:
        view = web.session({"ref": GONE_ID})
        assert GONE_WORDS in " ".join(t["text"] for t in view["turns"])
        assert web.session({"ref": _ref(home)})["session"]["id"] == GONE_ID
    finally:
        web.close()


def test_mcp_show_reads_it(home, tmp_path):
    from hermes_trail.mcp import tools

    trail = Trail(index=tmp_path / "index.db", homes=(home,), parallel=False)
    answer = tools.answer(trail, "show", {"session_id": GONE_ID})
    assert not answer.error, answer.text
    assert GONE_WORDS in answer.text
    shown = trail.show(GONE_ID)
    assert shown["session"]["recovered"]["kind"] == "snapshot"


def test_refs_from_search_after_include_recovered_name_it(home, tmp_path):
    from hermes_trail.index.sync import sync_index

    index = tmp_path / "index.db"
    sync_index(index, homes=[home], include_recovered=True, parallel=False)
    trail = Trail(index=index, homes=(home,), parallel=False)
    hits = [hit for c in trail.search("wombatlantern")["conversations"] for hit in c["hits"]]
    assert {hit["session_id"] for hit in hits} == {GONE_ID}
    ref = hits[0]["ref"]
    assert trail.show(ref)["session"]["id"] == GONE_ID
    for args in (("show", ref), ("export", ref, "--format", "jsonl"), ("handoff", ref)):
        code, out, err = run(*args, "--home", home)
        assert code == 0, (args, err)
        assert "wombatlantern" in out


# -- 7: a prefix of a live and a deleted session -------------------------------------------------------
def test_a_prefix_of_a_live_and_a_deleted_session_names_both(home):
    code, _, err = run("show", "20261102_09", "--home", home)
    assert code == 1
    assert "ambiguous" in err and KEPT_ID in err and GONE_ID in err
    with open_history(homes=[home], catalog=False) as history, Finder(history, homes=[home]) as finder:
        assert finder.find(KEPT_ID).id == KEPT_ID  # a whole id is never ambiguous
        assert finder.find("20261102_090").id == KEPT_ID  # a prefix only a live session has


# -- 2: a live store a writer holds locked ---------------------------------------------------------------
@pytest.fixture
def locked_home(tmp_path, monkeypatch):
    """A rollback-journal store (as schema 31 runs where WAL is refused) with a snapshot holding both of its
    live sessions, held by ``BEGIN EXCLUSIVE`` in another process."""
    monkeypatch.setattr(store_module, "LOCK_WAIT_SECONDS", 0.1)
    home = _write(tmp_path / "hermes", journal="delete")
    hs.run_plan(home, [{"op": "snapshot"}], env={"HOME": str(tmp_path)})
    with h.LockHolder(home / "state.db"):
        yield home


def test_a_locked_live_store_recovers_nothing(locked_home):
    with open_history(homes=[locked_home]) as history, recover(history, homes=[locked_home]) as found:
        assert found.sessions == []
        [stray] = found.strays
    assert stray.where == str(locked_home / "state.db") and "locked" in stray.reason
    assert "nothing recovered" in stray.reason
    with recover_home(locked_home, "default", locked_home / "state.db") as found:  # the index's way
        assert found.sessions == [] and "nothing recovered" in found.strays[0].reason


def test_list_deleted_does_not_report_live_sessions_while_locked(locked_home):
    code, out, err = run("list", "--deleted", "--json", "--home", locked_home)
    assert code == 3
    data = json.loads(out)
    assert data["sessions"] == [] and data["total"] == 0
    assert any("nothing recovered" in s["reason"] for s in data["strays"])
    code, _, err = run("show", GONE_ID, "--home", locked_home)
    assert code == 1 and "locked" in err
