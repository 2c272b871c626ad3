"""The sync's progress bar, on a real terminal (a pseudo-terminal as stderr): shown by a first build and a
rebuild, with the line that says what was indexed; silent for the syncs before ordinary queries."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

hermes_state = pytest.importorskip("hermes_state")


def _write_home(root: Path) -> None:
    db = hermes_state.SessionDB(db_path=root / "state.db")
    for n in range(12):
        sid = f"20261101_{n:06d}_abcdef"
        db.create_session(sid, "cli", cwd="/src/app")
        db.append_message(sid, "user", f"Why does gadget{n} fail?", timestamp=1_800_000_000.0 + n * 100)
        db.append_message(sid, "assistant", "Its port moved.", timestamp=1_800_000_010.0 + n * 100)
    db.close()


def _trail_on_a_terminal(*args: str, env: dict[str, str]) -> tuple[int, str]:
    """Run ``trail`` with stderr on a pseudo-terminal; its exit code and all it wrote there."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hermes_trail", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the terminal closed: the process is done writing
                break
            if not data:
                break
            chunks.append(data)
        code = proc.wait(timeout=60)
    finally:
        os.close(leader)
    return code, b"".join(chunks).decode(errors="replace")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    root = tmp_path / "hermes"
    root.mkdir()
    _write_home(root)
    return {
        **os.environ,
        "HERMES_HOME": str(root),
        "TRAIL_INDEX": str(tmp_path / "index.db"),
        "COLUMNS": "120",
        "TERM": "xterm",
    }


def test_a_first_build_shows_its_progress_then_later_syncs_are_silent(env):
    code, shown = _trail_on_a_terminal("index", env=env)
    assert code == 0
    assert "indexing" in shown and "indexed 24 messages of 12 sessions" in shown
    code, shown = _trail_on_a_terminal("search", "gadget3", env=env)
    assert code == 0 and shown == ""  # nothing new: not a word on the terminal


def test_a_rebuild_shows_why_and_its_progress(env):
    assert _trail_on_a_terminal("index", env=env)[0] == 0
    code, shown = _trail_on_a_terminal("index", "--rebuild", env=env)
    assert code == 0
    assert "rebuilding the search index: asked to rebuild it" in shown
    assert "indexed 24 messages of 12 sessions" in shown


def test_a_rebuild_for_another_format_shows_its_progress_too(env):
    import sqlite3

    assert _trail_on_a_terminal("index", env=env)[0] == 0
    with sqlite3.connect(env["TRAIL_INDEX"]) as conn:
        conn.execute("UPDATE meta SET value = 'trail-index-0' WHERE key = 'format'")
    code, shown = _trail_on_a_terminal("search", "gadget3", env=env)
    assert code == 0
    assert "index format trail-index-0 is not" in shown and "indexed 24 messages of 12 sessions" in shown
