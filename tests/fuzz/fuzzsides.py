"""Generated side files of every kind Hermes keeps beside ``state.db``, and the property they keep.

A home gets one file of each kind (``locate.side_files`` lists them all): a snapshot and a response store
(SQLite, from :mod:`fuzzstores` and a generated ``responses`` table), a divert, the prompt history, a cron
run, ``config.yaml``, a pairing list, the pending pastes, a trajectory file, the desktop connections.
Each file's bytes are generated: near-valid JSON and YAML, broken lines, NUL bytes, invalid UTF-8, huge
lines. :func:`check_home` is the property: each reader and the whole timeline never raise, and a divert's
records are each a row or a stray.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from fuzzstores import _JSON_SHAPES, VALUES, stores, write
from hypothesis import strategies as st

from hermes_trail.hermes.sidefiles import (
    config_yaml,
    cron_output,
    desktop,
    diverts,
    pairing,
    pastes,
    prompt_history,
    response_store,
    trajectories,
)
from hermes_trail.history import open_history
from hermes_trail.timeline.build import build_timeline

_KEYS = [
    "role",
    "content",
    "timestamp",
    "tool_calls",
    "tool_call_id",
    "tool_name",
    "id",
    "session_id",
    "conversations",
    "from",
    "value",
    "completed",
    "model",
    "url",
    "created_at",
    "expires_at",
    "user_name",
    "approved_at",
    "name",
    "token",
    "headers",
    "prompt_index",
    "partial",
]
_RECORD = st.dictionaries(
    st.sampled_from(_KEYS), _JSON_SHAPES | st.sampled_from([1793610000, -1e300]), max_size=6
)
_LINE = st.one_of(
    _RECORD.map(json.dumps),
    _JSON_SHAPES.map(json.dumps),
    st.text(max_size=60),
    st.sampled_from(
        [
            "",
            "{",
            "# 2026-11-02 09:00:00.123456",
            "+ls -la",
            "+",
            "#",
            "\x00",
            "\ufeff{}",
            "---",
            "command_allowlist:",
            "  - rm -rf /",
            "timezone: Mars/Olympus",
            "\x1b[31mred",
        ]
    ),
    st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
)


def _lines(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(_LINE, max_size=12))
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 6)) == 0:
        data += b"\xff\xfe\x00 \xc3("
    if draw(st.integers(0, 10)) == 0:
        data += b"x" * 70_000
    return data


def _json_doc(draw: st.DrawFn, shape: st.SearchStrategy[Any]) -> bytes:
    return draw(
        st.one_of(
            shape.map(lambda v: json.dumps(v).encode()),
            st.binary(max_size=40),
            st.sampled_from([b"", b"{", b"[", b"null", b"\xff"]),
        )
    )


_PASTES = st.lists(_RECORD | _JSON_SHAPES, max_size=5)
_PAIRING = st.dictionaries(st.text(max_size=8), _RECORD | _JSON_SHAPES, max_size=5)
_DESKTOP_KEYS = st.sampled_from(["connections", "quarantine", "version"])
_DESKTOP_VALUES = st.lists(_RECORD | _JSON_SHAPES, max_size=4) | _JSON_SHAPES
_DESKTOP = st.dictionaries(_DESKTOP_KEYS, _DESKTOP_VALUES, max_size=3)


@st.composite
def homes(draw: st.DrawFn) -> dict[str, Any]:
    """Every side file of a home as bytes (``None``: absent), and the specs of its SQLite stores."""
    files: dict[str, bytes | None] = {}
    for rel in [
        "sessions/20261102_090000_c4a7f1.jsonl",
        ".hermes_history",
        "config.yaml",
        "cron/output/job1/2026-11-02_09-00-00.md",
        "project/trajectory_samples.jsonl",
    ]:
        absent = draw(st.integers(0, 8)) == 0
        files[rel] = draw(st.none() | st.just(b"")) if absent else _lines(draw)
    files["pastes/pending.json"] = _json_doc(draw, _PASTES)
    files["pairing/telegram-approved.json"] = _json_doc(draw, _PAIRING)
    files["platforms/pairing/discord-approved.json"] = _json_doc(draw, _PAIRING)
    files["desktop/connections.json"] = _json_doc(draw, _DESKTOP)
    responses = draw(
        st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "response_id": VALUES,
                    "data": _RECORD.map(json.dumps) | VALUES,
                    "accessed_at": VALUES,
                    "created_at": VALUES,
                },
            ),
            max_size=5,
        )
    )
    return {"files": files, "snapshot": draw(stores()), "responses": responses, "store": draw(stores())}


def build(home: Path, spec: dict[str, Any]) -> None:
    """Write ``spec``'s files under ``home`` (a state.db, a snapshot, a response store and the rest)."""
    home.mkdir(parents=True, exist_ok=True)
    write(home / "state.db", spec["store"])
    (home / "state-snapshots" / "20261102-090000-abc").mkdir(parents=True)
    write(home / "state-snapshots" / "20261102-090000-abc" / "state.db", spec["snapshot"])
    con = sqlite3.connect(home / "response_store.db")
    con.execute("CREATE TABLE responses (response_id, data, accessed_at, created_at)")
    for row in spec["responses"]:
        names = list(row) or ["response_id"]
        con.execute(
            f"INSERT INTO responses ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            [row.get(n) for n in names],
        )
    con.commit()
    con.close()
    for rel, data in spec["files"].items():
        if data is not None:
            path = home / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def check_home(home: Path, spec: dict[str, Any]) -> None:
    """The property: every reader and the timeline return; a divert's lines are rows or strays."""
    files = spec["files"]
    divert = home / "sessions" / "20261102_090000_c4a7f1.jsonl"
    if divert.exists():
        rows, strays = diverts.read_divert(divert, "20261102_090000_c4a7f1")
        text = files["sessions/20261102_090000_c4a7f1.jsonl"] or b""
        nonblank = [ln for ln in text.decode("utf-8", "replace").split("\n") if ln.strip()]  # ends at \n only
        if not any(s.kind == "file" for s in strays):
            assert len(rows) + len(strays) >= len(nonblank) > 0 or not nonblank
    if (home / ".hermes_history").exists():
        prompt_history.read_prompt_history(home / ".hermes_history")
    if (home / "cron/output/job1/2026-11-02_09-00-00.md").exists():
        cron_output.read_cron_run(home / "cron/output/job1/2026-11-02_09-00-00.md", "job1")
    if (home / "config.yaml").exists():
        config_yaml.read_allowlist(home / "config.yaml")
        config_yaml.read_timezone(home / "config.yaml")
    if (home / "project/trajectory_samples.jsonl").exists():
        trajectories.read_trajectories(home / "project/trajectory_samples.jsonl")
    pastes.read_pastes(home / "pastes/pending.json")
    pairing.read_approved(home / "pairing/telegram-approved.json", "telegram")
    desktop.read_connections(home / "desktop/connections.json")
    response_store.read_response_store(home / "response_store.db")
    with open_history(homes=[home], env={}) as history:
        for session in list(history.sessions):
            history.load(session)
        timeline = build_timeline(history, homes=[home], env={})
        for row in timeline.rows():
            json.dumps(row)
