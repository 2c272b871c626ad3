"""``.hermes_history``: both of Hermes' writers, their stamps told apart, and bad lines."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import hermesside as hs
from hermes_trail.hermes.sidefiles.prompt_history import (
    WRITER_CLI,
    WRITER_TUI,
    parse_stamp,
    read_prompt_history,
)


def test_tui_writer_stamps_utc_milliseconds(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    before = time.time()
    hs.tui_history(home, ["first prompt", "  trimmed  ", "two\nlines", "/model openrouter/x"])
    after = time.time()
    entries, strays = read_prompt_history(home / ".hermes_history")
    assert strays == []
    assert [e.text for e in entries] == ["first prompt", "trimmed", "two\nlines", "/model openrouter/x"]
    for entry in entries:
        assert entry.writer == WRITER_TUI
        assert len(entry.stamp.split(".")[1]) == 3
        assert before - 0.01 <= entry.time.timestamp() <= after + 0.01
    assert [e.is_command for e in entries] == [False, False, False, True]


def test_classic_writer_stamps_host_local_microseconds(tmp_path, monkeypatch):
    """prompt_toolkit's ``FileHistory`` writes ``datetime.now()``: read back in the writer's zone, the time is
    the moment it was written, whatever the zone."""
    home = tmp_path / "home"
    before = time.time()
    hs.run_plan(
        home, [{"op": "cli_history", "entries": ["classic one", "/yolo"]}], env={"TZ": "Asia/Kolkata"}
    )
    after = time.time()
    entries, strays = read_prompt_history(home / ".hermes_history", ZoneInfo("Asia/Kolkata"))
    assert strays == [] and [e.text for e in entries] == ["classic one", "/yolo"]
    for entry in entries:
        assert entry.writer == WRITER_CLI
        assert len(entry.stamp.split(".")[1]) == 6
        assert before - 1 <= entry.time.timestamp() <= after + 1
    # The same file read as if it were UTC is off by the zone's offset: the zone matters.
    as_utc, _ = read_prompt_history(home / ".hermes_history", ZoneInfo("UTC"))
    assert abs(as_utc[0].time.timestamp() - entries[0].time.timestamp()) == 5.5 * 3600


def test_both_writers_in_one_file(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    hs.tui_history(home, ["from the tui"])
    hs.run_plan(home, [{"op": "cli_history", "entries": ["from the cli"]}])
    hs.tui_history(home, ["tui again"])
    entries, strays = read_prompt_history(home / ".hermes_history")
    assert strays == []
    assert [(e.text, e.writer) for e in entries] == [
        ("from the tui", WRITER_TUI),
        ("from the cli", WRITER_CLI),
        ("tui again", WRITER_TUI),
    ]


def test_stamp_forms():
    utc = ZoneInfo("UTC")
    assert parse_stamp("2026-10-29 09:30:16.400", utc) == (
        datetime(2026, 10, 29, 9, 30, 16, 400000, UTC),
        WRITER_TUI,
    )
    moment, writer = parse_stamp("2026-10-29 10:02:44.918203", ZoneInfo("Europe/Berlin"))
    assert writer == WRITER_CLI and moment == datetime(2026, 10, 29, 9, 2, 44, 918203, UTC)
    # datetime.now() prints no fraction when the microsecond is zero: still the classic writer.
    assert parse_stamp("2026-10-29 10:02:44", utc)[1] == WRITER_CLI
    assert parse_stamp("yesterday", utc) == (None, None)


def test_bad_lines_are_strays_and_nothing_else_is_lost(tmp_path):
    """Hand-built: lines neither writer produces (a stray line, an entry with no stamp, a bad stamp)."""
    path = tmp_path / ".hermes_history"
    path.write_bytes(
        b"\n# 2026-10-29 09:30:16.400\n+ok\nnot a history line\n+no stamp\n\n# garbage stamp\n"
        b"+undated\n\n# 2026-10-29 09:30:17.000\n+bad \xff byte\n"
    )
    entries, strays = read_prompt_history(path)
    assert [e.text for e in entries] == ["ok", "no stamp", "undated", "bad \ufffd byte"]
    assert [e.time is None for e in entries] == [False, True, True, False]
    assert [(s.row, s.reason, s.value) for s in strays] == [
        (4, "unparseable line (not a FileHistory line)", "not a history line"),
    ]


def test_missing_file_is_one_stray(tmp_path):
    entries, strays = read_prompt_history(tmp_path / "nope")
    assert entries == [] and len(strays) == 1 and strays[0].kind == "file"
