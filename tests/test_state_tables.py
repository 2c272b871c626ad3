"""Deletion fences, routing peers and Bot Mode rooms in ``state.db``.

hermes-agent 0.19 writes none of them (fences came with the unified runtime, the tables with schemas 31
and 32), so they are added by hand to a store Hermes wrote, in the shapes of the newer writers.
"""

from __future__ import annotations

import json
import sqlite3

import hermesdb as h
from hermes_trail.hermes.sidefiles.state_tables import read_fences, read_generations, read_room_events
from hermes_trail.hermes.store import SqliteStore


def test_fences(tmp_path):
    db = h.write_store(tmp_path / "state.db", [h.chat(h.CHAT_ID, ("a", "b"))])
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO state_meta (key, value) VALUES (?, ?)",
            [
                ("gateway.retired_session.v1.s1", json.dumps({"retired_at": 1793229100.25, "own": True})),
                (
                    "gateway.retired_session.v1.s2",
                    json.dumps({"retired_at": 1793229200, "expires": True, "own": True}),
                ),
                ("gateway.retired_session.v1.s3", "{}"),  # the earlier writers' value: no time
                ("gateway.retired_session.v1.s4", "[]"),
                ("gateway.retired_route.v1.x", "{}"),  # not read
            ],
        )
    conn.close()
    with SqliteStore(db) as reader:
        fences, strays = read_fences(reader)
    assert [(f.session_id, f.retired_at and f.retired_at.timestamp(), f.swept) for f in fences] == [
        ("s1", 1793229100.25, False),
        ("s2", 1793229200.0, True),
        ("s3", None, False),
    ]
    assert [(s.session_id, s.reason, s.value) for s in strays] == [
        ("s4", f"unparseable record {strays[0].row} (state_meta.value: not an object)", "[]"),
    ]


def test_generations_and_rooms(tmp_path):
    db = h.write_store(tmp_path / "state.db")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "CREATE TABLE conversation_generations (source TEXT, session_key TEXT, generation INTEGER)"
        )
        conn.execute("INSERT INTO conversation_generations VALUES ('discord', 'agent:main:discord:dm:1', 2)")
        conn.execute("CREATE TABLE hosted_rooms (room_id TEXT PRIMARY KEY, name TEXT)")
        conn.execute(
            "CREATE TABLE hosted_room_events (room_id TEXT, seq INTEGER, event_id TEXT, kind TEXT, "
            "actor_json TEXT, payload_json TEXT, created_at REAL)"
        )
        conn.execute("INSERT INTO hosted_rooms VALUES ('r', 'Launch')")
        conn.executemany(
            "INSERT INTO hosted_room_events VALUES ('r', ?, ?, ?, ?, ?, ?)",
            [
                (
                    2,
                    "e2",
                    "message.member",
                    json.dumps({"kind": "member", "id": "bot"}),
                    json.dumps({"text": "on it"}),
                    1793229201.0,
                ),
                (1, "e1", "message.user", "oops", json.dumps({"text": "go"}), 1793229200.0),
            ],
        )
    conn.close()
    with SqliteStore(db) as reader:
        assert [(g.source, g.session_key, g.generation) for g in read_generations(reader)] == [
            ("discord", "agent:main:discord:dm:1", 2)
        ]
        events, strays = read_room_events(reader)
    assert [(e.seq, e.room_name, e.actor, e.payload["text"]) for e in events] == [
        (1, "Launch", {}, "go"),
        (2, "Launch", {"kind": "member", "id": "bot"}, "on it"),
    ]
    assert (
        strays[0].reason.startswith("unparseable record")
        and "hosted_room_events.actor_json" in strays[0].reason
    )


def test_a_store_without_the_tables(tmp_path):
    with SqliteStore(h.write_store(tmp_path / "state.db")) as reader:
        assert read_generations(reader) == [] and read_room_events(reader) == ([], [])
