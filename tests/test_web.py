"""The web viewer's server and answers, over HTTP on loopback (the pages themselves: test_web_browser.py)."""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from pathlib import Path

import pytest

import hermesdb as h
import webhome as w
from hermes_trail.loopback import is_loopback
from hermes_trail.web.app import WebApp
from hermes_trail.web.server import CSP, start
from hermesdb import sigint_as_at_a_terminal


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return w.write_home(tmp_path_factory.mktemp("web") / "hermes")


@pytest.fixture(scope="module")
def server(home, tmp_path_factory):
    app = WebApp(homes=(home,), index=tmp_path_factory.mktemp("web-index") / "index.db")
    srv = start(app, "127.0.0.1", 0)
    yield srv
    srv.shutdown()
    app.close()


def get(server, path: str, headers: dict[str, str] | None = None, method: str = "GET"):
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    conn.request(method, path, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), body


def api(server, path: str, **params: str):
    status, _, body = get(server, f"{path}?{urllib.parse.urlencode(params)}")
    return status, json.loads(body)


def test_pages_and_their_headers(server):
    status, headers, body = get(server, "/")
    assert status == 200 and b'<script src="/static/dashboard.js">' in body
    assert (
        headers["Content-Security-Policy"] == CSP
        and "script-src 'self'" in CSP
        and "img-src 'self' data:" in CSP
    )
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"
    assert get(server, "/session?ref=x")[0] == 200
    status, headers, body = get(server, "/static/replay.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript") and b"textContent" in body
    assert get(server, "/static/../pyproject.toml")[0] == 404
    assert get(server, "/static/%2e%2e/web/app.py")[0] == 404
    assert get(server, "/nothing")[0] == 404
    assert get(server, "/", method="POST")[0] == 405


def test_only_loopback_names_reach_a_loopback_server(server):
    assert get(server, "/", {"Host": "evil.example:8787"})[0] == 421
    assert get(server, "/api/sessions", {"Host": "attacker.test"})[0] == 421
    assert get(server, "/", {"Host": "localhost:1"})[0] == 200
    assert get(server, "/", {"Host": "[::1]:1"})[0] == 200
    assert is_loopback("127.0.0.5") and is_loopback("::1") and not is_loopback("0.0.0.0")


def test_a_token_guards_everything_when_asked(home, tmp_path):
    app = WebApp(homes=(home,), index=tmp_path / "index.db")
    srv = start(app, "127.0.0.1", 0, token="s3cret-token")
    try:
        assert srv.url.endswith("/?token=s3cret-token")
        assert get(srv, "/")[0] == 403
        status, _, body = get(srv, "/api/sessions")
        assert status == 403 and "token" in json.loads(body)["error"]
        assert get(srv, "/?token=wrong")[0] == 403
        status, headers, _ = get(srv, "/?token=s3cret-token")
        assert (
            status == 200
            and "HttpOnly" in headers["Set-Cookie"]
            and "SameSite=Strict" in headers["Set-Cookie"]
        )
        assert get(srv, "/api/sessions", {"Cookie": "trail_token=s3cret-token"})[0] == 200
        assert get(srv, "/static/web.css", {"Cookie": "trail_token=nope"})[0] == 403
    finally:
        srv.shutdown()
        app.close()


def test_beyond_loopback_a_token_is_made(home, tmp_path):
    app = WebApp(homes=(home,), index=tmp_path / "index.db")
    srv = start(app, "0.0.0.0", 0)
    try:
        assert srv.token and len(srv.token) >= 20 and f"?token={srv.token}" in srv.url
        assert get(srv, "/")[0] == 403
        assert get(srv, f"/?token={srv.token}")[0] == 200
    finally:
        srv.shutdown()
        app.close()


def test_sessions_filters_pages_and_facets(server):
    status, data = api(server, "/api/sessions")
    assert status == 200 and data["total"] == data["all"] == 7
    assert data["sessions"][0]["id"] == w.WORK_ID, "newest activity first"
    assert dict(data["facets"]["profile"]) == {"default": 6, "work": 1}
    assert api(server, "/api/sessions", profile="work")[1]["total"] == 1
    assert api(server, "/api/sessions", project="/home/dev/web")[1]["sessions"][0]["id"] == w.HOSTILE_ID
    assert api(server, "/api/sessions", **{"from": "2026-11-08", "to": "2026-11-08"})[1]["total"] == 2
    assert api(server, "/api/sessions", text="plan #2")[1]["sessions"][0]["id"] == w.CHILD_ID
    page = api(server, "/api/sessions", limit="2", offset="2")[1]
    assert len(page["sessions"]) == 2 and page["offset"] == 2
    hostile = api(server, "/api/sessions", project="/home/dev/web")[1]["sessions"][0]
    assert hostile["cost"] == 0.25 and hostile["title"].startswith("Hostile <script>")
    coding = next(s for s in data["sessions"] if s["id"] == w.CODING_ID)
    assert coding["cost"] is None and coding["cost_text"] == "unknown"
    # an untitled session is shown by its first prompt, as `trail list` shows it; a titled one by its title
    assert data["sessions"][0]["title"] is None and data["sessions"][0]["opening"] == "Standup notes?"
    assert "opening" not in hostile
    assert api(server, "/api/sessions", **{"from": "yesterday"})[0] == 400


def test_stats_are_measured_in_the_background(server):
    deadline = time.monotonic() + 30
    while True:
        status, stats = api(server, "/api/stats", by="profile")
        assert status == 200
        if stats["complete"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert stats["complete"] and stats["measuring"] == {"done": 7, "total": 7}
    assert [g["key"] for g in stats["groups"]] == ["default", "work"]
    assert stats["overall"]["cost"] == {
        "usd": 0.25,
        "known": 1,
        "unknown": 6,
        "estimated_usd": None,
        "estimated": 0,
    }
    assert stats["overall"]["failing_commands"] == 1 and stats["overall"]["active_seconds"] > 0
    assert api(server, "/api/stats", by="colour")[0] == 400


def test_search_answers_redacted_with_marks(server):
    status, result = api(server, "/api/search", q="deploy")
    assert status == 200 and result["conversations"]
    hits = [hit for c in result["conversations"] for hit in c["hits"]]
    assert hits[0]["session_id"] == w.HOSTILE_ID and "\u00ab" in hits[0]["snippet"]
    assert all(w.SECRET not in hit["snippet"] for hit in hits)
    assert api(server, "/api/search", q="deploy", profile="work")[1]["conversations"] == []
    assert api(server, "/api/search", q="")[1]["conversations"] == []
    assert result["conversations"][0]["opening"] is None  # titled: its title says what it is
    standup = api(server, "/api/search", q="standup")[1]["conversations"][0]
    assert standup["hits"][0]["title"] is None and standup["opening"] == "Standup notes?"
    typing = api(server, "/api/search", q="deplo")[1]  # the word is still being typed
    assert typing["prefix"] == "deplo" and typing["conversations"][0]["hits"][0]["session_id"] == w.HOSTILE_ID


def test_a_chinese_question_is_marked_by_the_english_words_it_was_read_as(server):
    """部署脚本 ("deploy script") reads as English through the dictionary: the English session it asks about
    is a match with its words marked (the page lists it among the matches, not folded away as meaning)."""
    status, result = api(server, "/api/search", q="部署脚本")
    assert status == 200 and {"deploy", "script"} <= set(result["read_as"])
    best = result["conversations"][0]["hits"][0]
    assert best["session_id"] == w.HOSTILE_ID
    assert any(marked and text.lower() in result["read_as"] for text, marked in best["snippet_parts"])


def test_a_word_typed_wrong_is_marked_by_the_word_searched_for_in_its_place(server):
    """The word "scirpt" is read as the history's "script": the session is a match with the word marked
    (the page lists it among the matches, not folded away as meaning), and the page is told what was read."""
    status, result = api(server, "/api/search", q="scirpt deploy")
    assert status == 200 and result["spelled"] == {"scirpt": ["script"]} and not result["missing"]
    hits = result["conversations"][0]["hits"]
    assert hits[0]["session_id"] == w.HOSTILE_ID
    parts = [part for hit in hits for part in hit["snippet_parts"]]
    assert any(marked and text.lower() == "script" for text, marked in parts), parts


def test_one_session_view(server):
    status, view = api(server, "/api/session", ref=f"default:{w.HOSTILE_ID}")
    assert status == 200 and view["session"]["id"] == w.HOSTILE_ID
    text = json.dumps(view)
    assert w.SECRET not in text and "\x1b" not in text
    assert view["turns"][0]["text"].startswith("Render this please: <script>"), (
        "kept as text; the page escapes"
    )
    assert view["lineage"] == {"parent": None, "chain": [], "children": []}
    status, child = api(server, "/api/session", ref=w.CHILD_ID[:12])
    assert status == 200 and child["lineage"]["parent"]["title"] == "The plan"
    assert [c["title"] for c in child["lineage"]["chain"]] == ["The plan", "The plan #2"]
    assert api(server, "/api/session", ref="default:nope")[0] == 404
    assert api(server, "/api/session")[0] == 400
    # A link with a slip in its id: the answer names the session like it.
    status, body = api(server, "/api/session", ref=w.CHILD_ID[:-1] + ("0" if w.CHILD_ID[-1] != "0" else "1"))
    assert status == 404 and body["error"].endswith(f"sessions like it: default:{w.CHILD_ID}")


def test_new_sessions_appear_without_a_restart(tmp_path):
    home = h.write_home(tmp_path / "hermes", [h.chat("20261101_090000_000001", ("one", "two"))])
    app = WebApp(homes=(home,), index=tmp_path / "index.db")
    srv = start(app, "127.0.0.1", 0)
    try:
        assert api(srv, "/api/sessions")[1]["total"] == 1
        h.write_store(
            home / "state.db", [h.chat("20261101_100000_000002", ("three", "four"), start=h.T0 + 60)]
        )
        time.sleep(1.1)
        assert api(srv, "/api/sessions")[1]["total"] == 2
    finally:
        srv.shutdown()
        app.close()


def test_answering_every_page_writes_nothing_in_the_home(home, server):
    from test_readonly import snapshot

    before = snapshot(home)
    for path in (
        "/",
        "/api/sessions?profile=work",
        "/api/stats?by=day",
        "/api/search?q=plan",
        f"/api/session?ref=default:{w.PARENT_ID}",
    ):
        assert get(server, path)[0] == 200
    assert snapshot(home) == before


def test_trail_web_prints_its_url_and_serves_until_interrupted(home, tmp_path):
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "TRAIL_INDEX": str(tmp_path / "index.db")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_trail", "web", "--port", "0", "--no-open", "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("hermes-trail web: http://127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/sessions")
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["total"] == 7
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_methods_it_does_not_answer_get_405_with_allow_and_its_headers(server):
    """Issue 19, defect 8: a 405 names what is allowed; OPTIONS, TRACE and WebDAV verbs get the same
    answer with the security headers, never the standard library's bare 501 page."""
    for method in ("POST", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "BREW"):
        status, headers, body = get(server, "/", method=method)
        assert status == 405, (method, status)
        assert headers.get("Allow") == "GET, HEAD", method
        assert headers["Content-Security-Policy"] == CSP and headers["X-Content-Type-Options"] == "nosniff"
        assert b"Unsupported method" not in body and b"Error response" not in body
    status, headers, body = get(server, "/api/sessions", method="PROPFIND")
    assert status == 405 and json.loads(body)["error"].startswith("read-only")


def test_a_wildcard_bind_prints_an_address_another_machine_can_use(home, tmp_path):
    """Issue 19, defect 8: ``--host 0.0.0.0`` is not reached at 127.0.0.1 from elsewhere."""
    app = WebApp(homes=(home,), index=tmp_path / "index.db")
    srv = start(app, "0.0.0.0", 0)
    try:
        host = urllib.parse.urlsplit(srv.url).hostname or ""
        assert host and not is_loopback(host), srv.url
    finally:
        srv.shutdown()
        app.close()


def test_trail_web_listens_at_once_and_says_when_its_port_is_busy(home, tmp_path):
    """Issue 19, defect 7: the URL is printed before the index is built (which is said on stderr, even
    with no terminal), and a busy --port is said, not silently replaced."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    taken = busy.getsockname()[1]
    index = tmp_path / "index.db"
    env = {**os.environ, "TRAIL_INDEX": str(index)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_trail", "web", "--port", str(taken), "--no-open", "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("hermes-trail web: http://127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        assert port != taken
        deadline = time.monotonic() + 30
        while True:  # the index is built in the background; the page says how far it is
            status, ix = api(type("S", (), {"server_address": ("127.0.0.1", port)})(), "/api/index")
            assert status == 200 and ix["state"] in ("building", "ready")
            if ix["state"] == "ready" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert ix["state"] == "ready" and index.exists()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        busy.close()
    assert proc.returncode == 0, err
    assert f"port {taken} is in use: listening on port {port} instead" in err
    assert "search index ready" in err or "indexing for search" in err, err


def test_a_replay_can_be_asked_for_its_first_turns(server):
    """The page asks for the first turns (answered once the session is read), then for the whole view."""
    status, head = api(server, "/api/session", ref=f"default:{w.CODING_ID}", head="2")
    assert status == 200 and head["partial"] is True
    assert len([t for t in head["turns"] if not t["hidden"]]) == 2
    status, whole = api(server, "/api/session", ref=f"default:{w.CODING_ID}")
    assert status == 200 and whole["partial"] is False
    assert whole["turns"][:2] == head["turns"] and whole["turn_counts"] == head["turn_counts"]
    assert whole["turn_counts"]["shown"] == len(whole["turns"])


def test_the_replay_page_preloads_its_first_request(server):
    """The page's first request is asked for by the page itself (a preload), before its script loads; the
    URL must be the one replay.js writes, or the browser asks twice."""
    import re

    from hermes_trail.web.server import REPLAY_HEAD

    status, _, body = get(server, "/session?ref=default%3A2026%20x%22%3C")
    assert status == 200
    link = re.search(rb'<link rel="preload" as="fetch" crossorigin href="([^"]+)">', body)
    assert link is not None
    assert link.group(1) == f"/api/session?ref=default%3A2026%20x%22%3C&amp;head={REPLAY_HEAD}".encode()
    _, _, script = get(server, "/static/replay.js")
    assert f"var HEAD = {REPLAY_HEAD};".encode() in script, "replay.js asks for as many first turns"
    assert b"<script" not in body.split(b"<body")[0], "no script in the head: the policy allows none inline"


def test_the_dashboard_preloads_its_first_page_of_sessions(server):
    """The dashboard asks for its first page of sessions itself, with its address's query as it came, as
    dashboard.js writes that URL; the answer names the view it is, so the page can tell a stale one."""
    import re

    from hermes_trail.web.server import DASHBOARD_PAGE

    status, _, body = get(server, "/?profile=work&offset=0&text=a%20b%22%3C")
    assert status == 200
    link = re.search(rb'<link rel="preload" as="fetch" crossorigin href="([^"]+)">', body)
    assert link is not None
    url = f"/api/sessions?profile=work&amp;offset=0&amp;text=a%20b%22%3C&amp;limit={DASHBOARD_PAGE}"
    assert link.group(1) == url.encode()
    _, _, script = get(server, "/static/dashboard.js")
    assert f"var PAGE = {DASHBOARD_PAGE};".encode() in script
    assert b'"limit=" + PAGE' in script, "dashboard.js writes the preloaded URL the same way"
    _, _, plain = get(server, "/")
    assert f'href="/api/sessions?limit={DASHBOARD_PAGE}"'.encode() in plain
    fragment = w.WORK_ID[-6:].upper()  # echoed as sent, matched without case
    status, view = api(server, "/api/sessions", profile="work", text=fragment, estimate="1")
    assert status == 200 and view["total"] == 1
    want = dict.fromkeys(("profile", "project", "source", "model", "from", "to"), "")
    want.update(profile="work", text=fragment)
    assert view["view"] == {"filters": want, "offset": 0, "estimate": True}


FIRST_ROWS_ID = "20261120_090000_f1a501"
REWOUND_LONG_ID = "20261120_100000_f1a502"


def first_rows_home(root: Path) -> Path:
    """A long session that opens with one prompt answered by 25 calls (their results follow the call row),
    with a model switch and a background review (rows kept aside) at its end; and a long one rewound."""
    calls = [h.call(f"call_{i}", "terminal", command=f"echo {i}") for i in range(25)]
    opening = [h.user("Run them all.", timestamp=h.T0), h.assistant("Running.", *calls, timestamp=h.T0 + 1)]
    opening += [
        h.tool(
            f"call_{i}", "terminal", {"output": f"out {i}", "exit_code": 0, "error": None}, timestamp=h.T0 + 2
        )
        for i in range(25)
    ]
    opening.append(h.assistant("All ran.", timestamp=h.T0 + 3))
    long = h.long_chat(FIRST_ROWS_ID, turns=40, start=h.T0 + 60, title="First rows")
    late = h.T0 + 7200
    long.messages = [
        *opening,
        *long.messages,
        h.user(
            "[System: The active model for this chat has changed to big-model via provider acme. "
            "From this point forward, answer as big-model.]",
            timestamp=late,
        ),
        h.user("Review the conversation above and consider saving to memory.", timestamp=late + 1),
        h.assistant("Nothing to save.", timestamp=late + 2),
    ]
    rewound = h.long_chat(REWOUND_LONG_ID, turns=40, start=h.T0 + 9000, rewind_to=70)
    return h.write_home(root, [long, rewound])


def first_and_whole(server, ref: str, head: int) -> tuple[dict, dict]:
    status, first = api(server, "/api/session", ref=ref, head=str(head))
    assert status == 200 and first["partial"] is True
    status, whole = api(server, "/api/session", ref=ref)
    assert status == 200 and whole["partial"] is False and whole["counted"] is True
    assert whole["turns"][: len(first["turns"])] == first["turns"], (
        "the first turns as the whole view shows them"
    )
    return first, whole


def test_a_long_replay_answers_its_first_turns_from_its_first_rows(tmp_path):
    """Issue 19: the first turns of a long session come from its first rows alone, each as the whole view
    shows it (a call with every result, read up to the next prompt); what only every row tells is left to
    the whole view. A session with rows kept aside by a rewind is read whole, counts and all."""
    home = first_rows_home(tmp_path / "hermes")
    app = WebApp(homes=(home,), index=tmp_path / "index.db")
    srv = start(app, "127.0.0.1", 0)
    try:
        for head in (1, 2, 3, 5):
            first, whole = first_and_whole(srv, f"default:{FIRST_ROWS_ID}", head)
            assert first["counted"] is False and len([t for t in first["turns"] if not t["hidden"]]) == head
            assert first["turn_counts"] is None and first["hidden_counts"] is None and first["strays"] is None
            facts = first["session"]
            assert (
                facts["replayed"] is None and facts["kept_aside"] is None and facts["model_changes"] is None
            )
            assert facts["message_count"] == whole["session"]["message_count"] == 28 + 80 + 3
            assert {k: v for k, v in facts.items() if v is not None}.items() <= whole["session"].items()
        outputs = [c["output"] for c in first["turns"][1]["calls"]]
        assert outputs == [f"out {i}" for i in range(25)], "every result, though they follow the call"
        assert whole["session"]["kept_aside"] == 2 and whole["hidden_counts"] == {"review_harness": 2}
        assert [c["model"] for c in whole["session"]["model_changes"]] == ["big-model"]
        first, whole = first_and_whole(srv, f"default:{REWOUND_LONG_ID}", 2)
        assert first["counted"] is True and first["turn_counts"] == whole["turn_counts"]
        assert whole["hidden_counts"]["rewound"] == 10
    finally:
        srv.shutdown()
        app.close()


def test_a_session_id_asked_is_that_conversation_and_the_page_is_told(server):
    """A session id pasted in the box: that conversation, by its prompts, and ``session`` names it (the page
    lists it as a match; with no word to mark, it folded it away as only near in meaning)."""
    status, result = api(server, "/api/search", q=w.HOSTILE_ID)
    assert status == 200 and result["session"] == w.HOSTILE_ID
    assert [c["hits"][0]["session_id"] for c in result["conversations"]] == [w.HOSTILE_ID]
    assert api(server, "/api/search", q="deploy")[1]["session"] is None


def test_a_word_marked_in_another_form_is_a_mark_on_the_page():
    """The search marks "Authorization" for authorized (their common stem): the page took such a mark for
    the text's own guillemets, since it held no word of the query as typed, and folded the answer away as
    only near in meaning. A pair holding a word of another stem is still text."""
    from hermes_trail.web.app import snippet_parts

    assert snippet_parts("Added the \u00abAuthorization\u00bb header", "authorized") == [
        ["Added the ", False],
        ["Authorization", True],
        [" header", False],
    ]
    assert snippet_parts("the \u00abcities\u00bb list", "city") == [
        ["the ", False],
        ["cities", True],
        [" list", False],
    ]
    assert snippet_parts("he said \u00abBonjour\u00bb", "authorized") == [
        ["he said \u00abBonjour\u00bb", False]
    ]
