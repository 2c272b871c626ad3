"""Reading never writes, for the two long-running surfaces: ``trail mcp`` (stdio) and ``trail web``.

The same homes as ``test_readonly.py`` (one closed, one with a ``SessionDB`` writer holding WAL frames);
each server is started in its own process, asked for what a client asks for (every MCP tool once; every
page and API of the web viewer), and stopped; every file under the home keeps its bytes and mtime.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys

import pytest

import hermesdb as h
from hermesdb import CODING_ID, sigint_as_at_a_terminal
from test_mcp import over_stdio, text_of
from test_readonly import LIVE_ID, snapshot


@pytest.fixture(params=["closed", "live"])
def home_case(request, hermes_home):
    if request.param == "closed":
        yield hermes_home, CODING_ID
        return
    with h.LiveWriter(hermes_home / "state.db") as writer:
        writer.create(LIVE_ID, cwd="/home/dev/live")
        writer.append(LIVE_ID, [h.user("status?"), *h.terminal_exchange("call_s1", "git status", "clean")])
        assert (hermes_home / "state.db-wal").stat().st_size > 0
        yield hermes_home, LIVE_ID


def test_mcp_leaves_the_home_untouched(home_case, tmp_path):
    home, session_id = home_case
    env = {**os.environ, "TRAIL_HERMES_HOME": str(home), "TRAIL_INDEX": str(tmp_path / "index.db")}

    async def check(session):
        tools = [t.name for t in (await session.list_tools()).tools]
        answers = {}
        for name in tools:
            args = {"query": "git"} if name in ("recall", "search", "fix", "how") else {}
            if name == "blame":
                args = {"path": "hello.py"}
            if name == "show":
                args = {"session_id": session_id}
            answers[name] = text_of(await session.call_tool(name, args))
        return answers

    before = snapshot(home)
    answers, _init = over_stdio([], check, env=env)
    assert snapshot(home) == before
    assert {"recall", "show"} <= set(answers) and session_id in answers["show"]


def test_web_leaves_the_home_untouched(home_case, tmp_path):
    home, session_id = home_case
    env = {**os.environ, "TRAIL_HERMES_HOME": str(home), "TRAIL_INDEX": str(tmp_path / "index.db")}
    before = snapshot(home)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_trail", "web", "--port", "0", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().rsplit(":", 1)[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for path in (
            "/",
            "/session?ref=x",
            "/api/sessions",
            "/api/stats?by=day",
            "/api/search?q=git",
            f"/api/session?ref=default:{session_id}",
            "/static/replay.js",
        ):
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            assert response.status == 200, (path, body[:200])
        conn.request("GET", "/api/sessions")
        assert session_id in json.dumps(json.loads(conn.getresponse().read()))
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert snapshot(home) == before
