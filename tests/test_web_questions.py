"""Every question of ``questions.py`` answered over HTTP at ``/api/ask/<name>``: the web's route made from
the same declaration as the MCP tools and the command line, bounded by it, answered by the same
``Trail`` call."""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from pathlib import Path

import pytest

import webhome as w
from hermes_trail.questions import QUESTIONS, arguments
from hermes_trail.service import Trail
from hermes_trail.web.app import WebApp
from hermes_trail.web.server import start

pytest.importorskip("hermes_state")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return w.write_home(tmp_path_factory.mktemp("webq") / "hermes")


@pytest.fixture(scope="module")
def served(home, tmp_path_factory):
    index = tmp_path_factory.mktemp("webq-index") / "index.db"
    app = WebApp(homes=(home,), index=index)
    srv = start(app, "127.0.0.1", 0)
    yield srv, Trail(index=index, homes=(home,))
    srv.shutdown()
    app.close()


def ask(srv, name: str, **params: object) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=60)
    conn.request("GET", f"/api/ask/{name}?{urllib.parse.urlencode(params)}")
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, json.loads(body)


def _ready(srv, name: str, **params: object) -> dict:
    """The answer once the first index build is done (until then the route says how far it is)."""
    for _ in range(600):
        status, body = ask(srv, name, **params)
        assert status == 200, body
        if "indexing" not in body:
            return body
        time.sleep(0.05)
    raise AssertionError("the first index build never finished")


def test_every_question_has_a_route_that_answers_as_the_service_does(served):
    srv, trail = served
    shown = _ready(srv, "show", session_id=w.CODING_ID)
    assert shown["session"]["id"] == w.CODING_ID
    assert shown == json.loads(json.dumps(trail.show(session_id=w.CODING_ID)))
    listed = _ready(srv, "sessions", limit=2)
    assert [s["id"] for s in listed["sessions"]] == [s["id"] for s in trail.sessions(limit=2)["sessions"]]
    found = _ready(srv, "search", query="sign is wrong")
    assert any(c["hits"][0]["session_id"] == w.CODING_ID for c in found["conversations"])
    blamed = _ready(srv, "blame", path="app.py")
    assert {e["session_id"] for e in blamed["edits"]} == {w.CODING_ID}
    page = _ready(srv, "recall", query="the sign is wrong in add")
    assert isinstance(page["page"], str) and w.CODING_ID in page["page"]
    for name in QUESTIONS:  # no question is left without its route
        status, _ = ask(srv, name)
        assert status in (200, 400), name


def test_a_persons_questions_have_their_routes_too(served):
    """stats and export are no MCP tools, but the web asks them from the same declaration, answered by
    the same Trail call as the command line's --json."""
    srv, trail = served
    counted = _ready(srv, "stats", by="profile")
    assert counted == json.loads(json.dumps(trail.stats(by="profile")))
    assert counted["by"] == "profile" and counted["overall"]["sessions"] >= 3 and counted["budget"] is None
    status, body = ask(srv, "stats", by="planet")
    assert status == 400 and "by must be one of: project, model" in body["error"]
    exported = _ready(srv, "export", session_id=w.CODING_ID, format="md")
    assert exported["session_id"] == w.CODING_ID and exported["name"].endswith(".md")
    assert exported == trail.export(w.CODING_ID, format="md") and "app.py" in exported["text"]
    status, body = ask(srv, "export", session_id=w.CODING_ID, format="pdf")
    assert status == 400 and "format must be one of: md, html" in body["error"]
    status, body = ask(srv, "export", session_id="20200101_000000_000000")
    assert status == 404


def test_arguments_are_bounded_by_the_declaration(served):
    srv, _ = served
    status, body = ask(srv, "sessions", limit=10_000)
    assert status == 400 and "limit must be from" in body["error"]
    status, body = ask(srv, "sessions", nonsense="1")
    assert status == 400 and "takes no argument 'nonsense'" in body["error"]
    status, body = ask(srv, "search")
    assert status == 400 and "needs query" in body["error"]
    status, body = ask(srv, "search", query="x" * 3000)
    assert status == 400 and "longer than" in body["error"]
    status, body = ask(srv, "nothing")
    assert status == 404 and "the questions are" in body["error"]
    status, body = ask(srv, "show", session_id="20200101_000000_000000")
    assert status == 404


@pytest.mark.parametrize(
    ("given", "expected"),
    [({"limit": "3"}, {"limit": 3}), ({"limit": "0"}, ValueError), ({"limit": "three"}, ValueError)],
)
def test_arguments_read_from_text(given, expected):
    question = QUESTIONS["sessions"]
    if expected is ValueError:
        with pytest.raises(ValueError):
            arguments(question, given)
    else:
        assert arguments(question, given) == expected
