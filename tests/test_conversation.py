"""Turns, flags and pairing built from rows Hermes' own ``SessionDB`` wrote in the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_trail import open_history

hermes_state = pytest.importorskip("hermes_state")


def _call(call_id: str, name: str = "terminal", **extra: str) -> dict:
    return {
        "id": call_id,
        "call_id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps({"command": "echo hi"})},
        **extra,
    }


@pytest.fixture
def store(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes-home"))
    path = tmp_path / "state.db"
    db = hermes_state.SessionDB(db_path=path)
    db.create_session("s1", "cli", model="m")
    db.append_message("s1", "user", "first")
    # A bridge id "<call_id>|<item id>": the result names only the item id.
    db.append_message("s1", "assistant", "", tool_calls=[_call("call_1|fc_1")])
    db.append_message(
        "s1", "tool", '{"output": "hi", "exit_code": 0}', tool_name="terminal", tool_call_id="fc_1"
    )
    # The same provider id reused later in the turn: the later call shadows the earlier one.
    db.append_message("s1", "assistant", "", tool_calls=[_call("dup")])
    db.append_message("s1", "tool", "one", tool_name="terminal", tool_call_id="dup")
    db.append_message("s1", "assistant", "", tool_calls=[_call("dup")])
    db.append_message("s1", "tool", "two", tool_name="terminal", tool_call_id="dup")
    db.append_message("s1", "assistant", "", tool_calls=[_call("late")])
    db.append_message("s1", "user", "second")
    # A result across a user turn never pairs, and one whose call is missing is an orphan.
    db.append_message("s1", "tool", "too late", tool_name="terminal", tool_call_id="late")
    db.append_message("s1", "tool", "nobody asked", tool_name="terminal", tool_call_id="ghost")
    db.append_message("s1", "assistant", "done", reasoning="thinking it over")
    db.close()
    return path


def test_results_pair_as_hermes_pairs_them(store):
    with open_history(dbs=[store]) as history:
        session = history.load(history.find("s1"))
        calls = [c for t in session.turns for c in t.tool_calls]
        assert calls[0].result is not None and calls[0].result.text.startswith('{"output"')
        assert calls[1].result.text == "one" and calls[2].result.text == "two"
        assert calls[3].result is None
        orphans = {r.text for r in session.orphan_results}
        assert orphans == {"too late", "nobody asked"}


def test_orphans_stay_in_the_transcript_and_reasoning_is_kept(store):
    with open_history(dbs=[store]) as history:
        session = history.load(history.find("s1"))
        assert [t.role for t in session.turns].count("tool") == 5
        assert session.turns[-1].reasoning == "thinking it over"
        assert session.turns[-1].text == "done"


def test_rewound_rows_are_kept_flagged_and_out_of_the_transcript(tmp_path, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes-home"))
    path = tmp_path / "state.db"
    db = hermes_state.SessionDB(db_path=path)
    db.create_session("r", "cli")
    db.append_message("r", "user", "one")
    db.append_message("r", "assistant", "1")
    target = db.append_message("r", "user", "two")
    db.append_message("r", "assistant", "2")
    db.rewind_to_message("r", target)
    db.append_message("r", "user", "three")
    db.close()
    with open_history(dbs=[path]) as history:
        session = history.load(history.find("r"))
        assert [t.text for t in session.turns] == ["one", "1", "three"]
        assert [(t.text, t.rewound) for t in session.hidden] == [("two", True), ("2", True)]
