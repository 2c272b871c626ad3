"""``response_store.db``, written by the API server's own ``ResponseStore``."""

from __future__ import annotations

import json
import sqlite3

import hermesside as hs
from hermes_trail.hermes.sidefiles.response_store import read_response_store


def data(session_id, created, *messages, status="completed"):
    return {
        "response": {
            "id": "r",
            "object": "response",
            "status": status,
            "created_at": created,
            "model": "hermes-agent",
            "output": [],
            "usage": {},
        },
        "conversation_history": list(messages),
        "instructions": None,
        "session_id": session_id,
    }


def test_responses_in_time_order_with_their_conversations(tmp_path):
    home = tmp_path / "home"
    hs.run_plan(
        home,
        [
            {
                "op": "response",
                "id": "resp_2",
                "data": data("s1", 1793266300, {"role": "user", "content": "b"}),
            },
            {
                "op": "response",
                "id": "resp_1",
                "conversation": "ops",
                "data": data("s1", 1793266200, {"role": "user", "content": "a"}, status="incomplete"),
            },
        ],
    )
    found, strays = read_response_store(home / "response_store.db")
    assert strays == []
    assert [(r.response_id, r.status, r.session_id, r.conversations) for r in found] == [
        ("resp_1", "incomplete", "s1", ["ops"]),
        ("resp_2", "completed", "s1", []),
    ]
    assert found[0].created_at.timestamp() == 1793266200 and found[0].history == [
        {"role": "user", "content": "a"}
    ]


def test_bad_records_and_bad_files(tmp_path):
    home = tmp_path / "home"
    hs.run_plan(
        home, [{"op": "response", "id": "ok", "data": data("s1", 1, {"role": "user", "content": "a"}, 7)}]
    )
    db = home / "response_store.db"
    # ResponseStore.put always writes json.dumps of a dict: a bad cell is made by hand.
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("INSERT INTO responses VALUES ('bad', '{nope', 0), ('list', '[1]', 0)")
    conn.close()
    found, strays = read_response_store(db)
    assert [r.response_id for r in found] == ["ok"] and found[0].history[1] is None
    reasons = [s.reason for s in strays]
    assert reasons[0] == "unparseable record 1 (responses.data conversation_history 1: not an object)"
    assert reasons[1].startswith("unparseable record 2 (responses.data: not JSON")
    assert reasons[2] == "unparseable record 3 (responses.data: not an object)" and strays[2].value == "[1]"
    (tmp_path / "junk.db").write_text("not sqlite at all, but long enough to have a header" * 3)
    assert read_response_store(tmp_path / "junk.db")[1][0].reason == "not a SQLite database"
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("CREATE TABLE other (x)").connection.close()
    assert read_response_store(empty)[1][0].reason == "no responses table"
    assert json.loads(json.dumps([s.value for s in strays]))  # values are text
