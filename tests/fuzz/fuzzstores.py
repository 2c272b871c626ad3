"""Generated Hermes stores for fuzzing, and the property every one of them must keep.

A store here is built with plain ``sqlite3``, not ``SessionDB``: the point is the shapes Hermes' own code
cannot be made to write (a column missing or untyped, a value of the wrong type, bad JSON, NUL bytes,
invalid UTF-8, timestamps out of range, parents that dangle or loop). The columns are Hermes' own, read
from ``hermes_state.SCHEMA_SQL`` of the installed ``hermes-agent``, so a new Hermes column is fuzzed too.

:func:`check_store` is the property: ``open_history``, ``History.load``, ``session_docs`` and the timeline
never raise, every ``sessions`` row is a session or a stray, and every ``messages`` row is a turn (shown
or hidden) of its session or a stray of the store.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import hermes_state
from hypothesis import strategies as st

from hermes_trail.history import open_history
from hermes_trail.index.documents import session_docs
from hermes_trail.timeline.build import build_timeline


def _columns(table: str) -> list[tuple[str, str]]:
    body = re.search(rf"CREATE TABLE IF NOT EXISTS {table} \((.*?)\n\);", hermes_state.SCHEMA_SQL, re.S)
    assert body is not None, f"no {table} table in hermes_state.SCHEMA_SQL"
    found = re.findall(r"^\s+([a-z_]+) ([A-Z]+)", body.group(1), re.M)
    return [(name, kind) for name, kind in found if name not in ("FOREIGN", "PRIMARY")]


SESSION_COLUMNS = _columns("sessions")
MESSAGE_COLUMNS = _columns("messages")
# A few ids, so parents dangle, loop and repeat; session ids in Hermes' own format among them.
IDS = ["20261102_090000_c4a7f1", "20261102_100000_9b2e55", "a", "b", "c", "", " ", "x\x00y", "ü"]

_JSON_SHAPES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "call_id",
                    "type",
                    "function",
                    "name",
                    "arguments",
                    "text",
                    "content",
                    "role",
                    "output",
                    "exit_code",
                    "error",
                    "diff",
                    "path",
                    "image_url",
                    "url",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
_BAD_JSON = st.sampled_from(
    [
        '{"a":',
        "[",
        "{]",
        "null",
        "[null]",
        '[{"function": 5}]',
        '[{"function": {"name": null, "arguments": "{"}}]',
        '"\\ud800"',
        "NaN",
        '{"type": "image_url", "image_url": {"url": "http://x/y.png"}}',
    ]
)
VALUES = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(),  # nan and +-inf included; timestamps out of range come from here and the integers
    st.sampled_from([0, -1, 1e300, -1e300, 253402300800, 1793610000.0, "2026-11-02T09:00:00", "now"]),
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=10).map(lambda s: s + "\x00" + s),
    st.binary(max_size=40),
    st.sampled_from([b"\xff\xfe\xfa", b"\xc3(", b"caf\xe9"]),
    _JSON_SHAPES.map(json.dumps),
    _BAD_JSON,
    st.integers(min_value=1, max_value=3).map(lambda n: "x" * (70_000 * n)),
)
ROLES = st.sampled_from(["user", "assistant", "tool", "system", "session_meta", "summary", ""]) | VALUES


@st.composite
def stores(draw: st.DrawFn) -> dict[str, Any]:
    """A store's shape and rows: ``{"typed", "sessions": (columns, rows), "messages": (columns, rows)}``."""
    typed = draw(st.booleans())
    s_cols = [c for c in SESSION_COLUMNS if c[0] == "id" or draw(st.integers(0, 3)) > 0]
    if draw(st.integers(0, 20)) == 0:
        s_cols = [c for c in s_cols if c[0] != "id"]
    m_cols = [c for c in MESSAGE_COLUMNS if c[0] in ("id", "session_id") or draw(st.integers(0, 3)) > 0]
    sessions = []
    for _ in range(draw(st.integers(0, 6)) if s_cols else 0):
        row: dict[str, Any] = {}
        for name, _kind in s_cols:
            if name in ("id", "parent_session_id"):
                row[name] = draw(st.sampled_from(IDS) | st.none() | VALUES)
            elif draw(st.integers(0, 2)) > 0:
                row[name] = draw(VALUES)
        sessions.append(row)
    messages = []
    for _ in range(draw(st.integers(0, 14))):
        row = {}
        for name, _kind in m_cols:
            if name == "id":
                continue  # the rowid: Hermes' AUTOINCREMENT key
            if name == "session_id":
                row[name] = draw(st.sampled_from(IDS) | VALUES)
            elif name == "role":
                row[name] = draw(ROLES)
            elif name in ("active", "compacted"):
                row[name] = draw(st.sampled_from([0, 1, None, 2, "1", "yes"]) | VALUES)
            elif draw(st.integers(0, 2)) > 0:
                row[name] = draw(VALUES)
        messages.append(row)
    return {
        "typed": typed,
        "sessions": (s_cols, sessions),
        "messages": (m_cols, messages),
        "version": draw(st.sampled_from([None, 22, 31, -1, "x"])),
    }


def write(path: Path, spec: dict[str, Any]) -> None:
    """Write ``spec`` as an SQLite file; untyped columns keep every value as generated."""
    con = sqlite3.connect(path)
    con.text_factory = bytes
    try:
        for table, (cols, rows) in (("sessions", spec["sessions"]), ("messages", spec["messages"])):
            if not cols:
                continue  # a store without this table at all
            defs = []
            for name, kind in cols:
                if table == "messages" and name == "id":
                    defs.append("id INTEGER PRIMARY KEY AUTOINCREMENT")
                elif table == "sessions" and name == "id" and spec["typed"]:
                    defs.append("id TEXT")  # no PRIMARY KEY: duplicate ids are a shape to survive
                else:
                    defs.append(f'"{name}" {kind if spec["typed"] else ""}'.strip())
            con.execute(f"CREATE TABLE {table} ({', '.join(defs)})")
            for row in rows:
                names = list(row)
                marks = ", ".join("?" for _ in names)
                quoted = ", ".join(f'"{n}"' for n in names)
                sql = f"INSERT INTO {table} ({quoted}) VALUES ({marks})"
                if not names:
                    sql = f"INSERT INTO {table} DEFAULT VALUES"
                con.execute(sql, [row[n] for n in names])
        if spec["version"] is not None:
            con.execute("CREATE TABLE schema_version (version INTEGER)")
            con.execute("INSERT INTO schema_version VALUES (?)", (spec["version"],))
        con.commit()
    finally:
        con.close()


def check_store(path: Path, spec: dict[str, Any], tmp: Path) -> None:
    """The property: nothing raises, and every row is in the model or a stray, and the count adds up."""
    with open_history(dbs=[path], env={}) as history:
        store_broken = any(s.kind == "store" for s in history.strays)
        session_strays = [s for s in history.strays if s.table == "sessions"]
        orphan_rows = [s for s in history.strays if s.table == "messages"]
        n_sessions = len(spec["sessions"][1])
        n_messages = len(spec["messages"][1])
        if not store_broken:
            assert len(history.sessions) + len(session_strays) == n_sessions
        seen_rows = 0
        for session in list(history.sessions):
            history.load(session)
            docs = session_docs(session)
            assert all(isinstance(d.text, str) for d in docs)
            rows = {(t.source_row, t.part) for t in [*session.turns, *session.hidden]}
            seen_rows += len({row for row, part in rows if part == 0})
        if not store_broken:
            assert seen_rows + len(orphan_rows) == n_messages, (seen_rows, len(orphan_rows), n_messages)
        timeline = build_timeline(history, dbs=[path], env={})
        for row in timeline.rows():
            json.dumps(row)
