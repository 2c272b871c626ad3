"""The meaning server (issue 15): a one-shot ``trail search`` that needs the model asks a server that keeps
it loaded, and gets exactly the ranking it would have computed itself; the server is private to its user
and stops when asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_trail.history import demo_home
from hermes_trail.index import encoder, meaning_client

pytestmark = pytest.mark.skipif(not encoder.available(), reason="no sentence encoder in this environment")

QUERY = "my editor takes ages to open"  # words no session has together: the meaning pass runs


def trail(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_trail", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )


def ranking(done: subprocess.CompletedProcess[str]) -> list[tuple[str, int, float]]:
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    return [
        (c["hits"][0]["session_id"], c["hits"][0]["row"], round(c["score"], 6)) for c in data["conversations"]
    ]


@pytest.fixture
def short_tmp():
    """A temp folder with a short path: a Unix socket's path must stay under about 100 bytes, which a
    test's ``tmp_path`` (longer under ``pytest -n``) can exceed."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="trail-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_search_through_the_server_ranks_as_one_computed_in_process(tmp_path, short_tmp):
    sockets = short_tmp / "run"
    index = tmp_path / "index.db"
    where = ["--home", str(demo_home()), "--index", str(index)]
    env = {"TRAIL_MEANING_SOCKET_DIR": str(sockets)}
    built = trail("index", *where, env={**env, "TRAIL_MEANING_SERVER": "0"})
    assert built.returncode == 0, built.stderr
    alone = ranking(trail("search", QUERY, "--json", *where, env={**env, "TRAIL_MEANING_SERVER": "0"}))
    assert alone, "the meaning pass finds something in the demo home"
    assert not sockets.exists() or not list(sockets.iterdir()), "no server without being asked"
    try:
        first = ranking(trail("search", QUERY, "--json", *where, env={**env, "TRAIL_MEANING_SERVER": "1"}))
        served = list(sockets.glob("meaning-*.sock"))
        assert len(served) == 1, "the first search started one server"
        assert oct(sockets.stat().st_mode & 0o777) == "0o700"
        again = ranking(trail("search", QUERY, "--json", *where, env={**env, "TRAIL_MEANING_SERVER": "1"}))
        assert first == alone and again == alone
    finally:
        stopped = trail("index", "--stop-server", "--json", env=env)
    assert json.loads(stopped.stdout) == {"stopped": True}
    deadline = time.monotonic() + 10
    while list(sockets.glob("meaning-*.sock")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list(sockets.glob("meaning-*.sock")), "the stopped server removed its socket"


def test_a_folder_others_can_enter_is_never_used(short_tmp, monkeypatch):
    shared = short_tmp / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    monkeypatch.setenv("TRAIL_MEANING_SOCKET_DIR", str(shared))
    assert meaning_client.socket_path() is None
    shared.chmod(0o700)
    path = meaning_client.socket_path()
    assert path is not None and path.parent == shared and path.name.startswith("meaning-")


def test_off_outside_a_served_block_and_when_turned_off(monkeypatch):
    monkeypatch.setenv("TRAIL_MEANING_SERVER", "1")
    assert not meaning_client.enabled()
    with meaning_client.served():
        assert meaning_client.enabled()
        monkeypatch.setenv("TRAIL_MEANING_SERVER", "0")
        assert not meaning_client.enabled()


def test_an_unreachable_server_leaves_the_search_to_the_process(tmp_path, monkeypatch):
    """A socket path nobody listens on, and a server that cannot start: ``standing`` says "compute it
    yourself" (None) within the start timeout, never an error."""
    monkeypatch.setenv("TRAIL_MEANING_SOCKET_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("TRAIL_MEANING_SERVER", "1")
    monkeypatch.setattr(meaning_client, "START_SECONDS", 0.3)
    monkeypatch.setattr(meaning_client, "_start", lambda where: None)
    import sqlite3

    from hermes_trail.index.search import SearchFilters

    conn = sqlite3.connect(tmp_path / "some.db")
    with meaning_client.served():
        assert meaning_client.standing(conn, "anything", SearchFilters()) is None
    conn.close()
    assert Path(tmp_path / "run").is_dir()
    with meaning_client.served():
        assert meaning_client.vector("anything") is None


def test_the_server_encodes_a_question_exactly_as_the_process_would(short_tmp, monkeypatch):
    """What a search of the shared index compares with its passages (``trail search --fleet``): the
    question's vector from the server, the very float32 values the model gives in this process."""
    import numpy as np

    from hermes_trail.index import meaning_server

    monkeypatch.setenv("TRAIL_MEANING_SOCKET_DIR", str(short_tmp / "run"))
    monkeypatch.setenv("TRAIL_MEANING_SERVER", "1")
    assert meaning_client.vector(QUERY) is None, "outside a served block the process encodes"
    try:
        with meaning_client.served():
            served = meaning_client.vector(QUERY)
            again = meaning_client.vector("数据库备份")
    finally:
        assert meaning_client.stop()
    model = encoder.model()
    assert served is not None and again is not None
    assert np.array_equal(np.asarray(served, dtype=np.float32), model.encode([QUERY])[0])
    assert np.array_equal(np.asarray(again, dtype=np.float32), model.encode(["数据库备份"])[0])
    assert meaning_server.answer({"encode": 7}) == {"error": "an encode request names a text"}
