"""Tool durations and active time, from rows Hermes' own ``SessionDB`` wrote with the given timestamps."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hermes_trail import open_history
from hermes_trail.hermes.decode import durations
from hermes_trail.model import Session, Store, ToolCall, ToolResult, Turn

hermes_state = pytest.importorskip("hermes_state")

SID = "20261102_090000_dd11ee"
T0 = 1793610000.0


def _call(call_id: str, name: str = "terminal") -> dict[str, Any]:
    return {
        "id": call_id,
        "call_id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps({"command": "make"})},
    }


def _write(
    path: Path, rows: list[tuple[float, str, dict[str, Any]]], rewind_to: int | None = None
) -> list[int]:
    """Rows ``(seconds after T0, role, append_message keywords)`` through ``SessionDB``, in order."""
    db = hermes_state.SessionDB(db_path=path)
    db.create_session(SID, "cli", model="m")
    ids = [db.append_message(SID, role, timestamp=T0 + at, **kw) for at, role, kw in rows]
    if rewind_to is not None:
        db.rewind_to_message(SID, ids[rewind_to])
    db.close()
    return ids


def _result(call_id: str, text: str = '{"output": "", "exit_code": 0}') -> dict[str, Any]:
    return {"content": text, "tool_call_id": call_id, "tool_name": "terminal"}


def _load(path: Path) -> Session:
    with open_history(dbs=[path]) as history:
        return history.load(history.find(SID))


def _durations(session: Session) -> dict[str | None, float | None]:
    return {c.id: c.duration for t in [*session.turns, *session.hidden] for c in t.tool_calls}


@pytest.fixture
def db_path(hermes_sandbox: Path) -> Path:
    return hermes_sandbox / "state.db"


def test_parallel_calls_each_get_their_own_duration(db_path):
    _write(
        db_path,
        [
            (0, "user", {"content": "Build both."}),
            (1, "assistant", {"content": "", "tool_calls": [_call("call_a"), _call("call_b")]}),
            (3.5, "tool", _result("call_a")),
            (5, "tool", _result("call_b")),
            (6, "assistant", {"content": "Both built."}),
        ],
    )
    got = _durations(_load(db_path))
    assert got == {"call_a": pytest.approx(2.5), "call_b": pytest.approx(1.5)}


def test_calls_of_one_row_are_timed_from_the_previous_result(db_path):
    """Three calls in one assistant row whose results came 0.4, 1.4 and 2.4 s after it: each ran about
    0.4, 1.0 and 1.0 s, not 0.4, 1.4 and 2.4 (issue 16, defect 5)."""
    _write(
        db_path,
        [
            (0, "user", {"content": "Check three things."}),
            (1, "assistant", {"content": "", "tool_calls": [_call(f"call_{c}") for c in "abc"]}),
            (1.4, "tool", _result("call_a")),
            (2.4, "tool", _result("call_b")),
            (3.4, "tool", _result("call_c")),
            (4, "assistant", {"content": "All three pass."}),
        ],
    )
    got = _durations(_load(db_path))
    assert got == {"call_a": pytest.approx(0.4), "call_b": pytest.approx(1.0), "call_c": pytest.approx(1.0)}


def test_a_gap_is_execution_only_within_the_bound(db_path):
    """600 s is the terminal tool's foreground cap and counts; past 900 s the gap is no execution."""
    rows: list[tuple[float, str, dict[str, Any]]] = [(0, "user", {"content": "Go."})]
    at = 10.0
    for call_id, gap in [("cap", 600.0), ("edge", 900.0), ("over", 900.5), ("skew", -2.0)]:
        rows.append((at, "assistant", {"content": "", "tool_calls": [_call(call_id)]}))
        rows.append((at + gap, "tool", _result(call_id)))
        at += 1000
    rows.append((at, "assistant", {"content": "", "tool_calls": [_call("unanswered")]}))
    _write(db_path, rows)
    got = _durations(_load(db_path))
    assert got == {
        "cap": pytest.approx(600.0),
        "edge": pytest.approx(900.0),
        "over": None,
        "skew": None,
        "unanswered": None,
    }


def test_a_rewound_call_keeps_its_duration(db_path):
    _write(
        db_path,
        [
            (0, "user", {"content": "Run it."}),
            (1, "assistant", {"content": "", "tool_calls": [_call("call_r")]}),
            (8, "tool", _result("call_r")),
            (9, "assistant", {"content": "Ran."}),
        ],
        rewind_to=0,
    )
    session = _load(db_path)
    assert session.turns == []
    assert _durations(session) == {"call_r": pytest.approx(7.0)}


# (seconds since the previous row, role, what the gap adds to the active time)
STEPS = [
    (0, "user", 0),
    (10, "assistant", 10),
    (700, "tool", 700),  # a long command: all of it work
    (10, "assistant", 10),
    (7200, "user", 300),  # two hours away count as five minutes of reading and typing
    (5, "assistant", 5),
    (200, "user", 200),
    (2000, "assistant", 900),  # an agent gap past the bound counts as the bound
    (700, "user", 300),  # the same 700 s before a prompt is mostly idle
]


def test_active_time_caps_idle_gaps(db_path):
    """Agent gaps count up to 900 s, a person's pause before the next prompt up to 300 s."""
    rows: list[tuple[float, str, dict[str, Any]]] = []
    at = 0.0
    for gap, role, _ in STEPS:
        at += gap
        if role == "assistant" and rows and rows[-1][1] == "user":
            kw: dict[str, Any] = {"content": "", "tool_calls": [_call(f"call_{len(rows)}")]}
        elif role == "tool":
            kw = _result(f"call_{len(rows) - 1}")
        else:
            kw = {"content": f"{role} at {at}"}
        rows.append((at, role, kw))
    _write(db_path, rows)
    assert _load(db_path).active_seconds == pytest.approx(sum(added for _, _, added in STEPS))


def test_active_time_follows_the_clock_not_the_row_order(db_path):
    # Hermes' row order is not time order (explicit timestamps, compaction copies): gaps are taken in time.
    _write(
        db_path,
        [
            (0, "user", {"content": "a"}),
            (100, "assistant", {"content": "b"}),
            (50, "assistant", {"content": "c"}),
        ],
    )
    assert _load(db_path).active_seconds == pytest.approx(100.0)


def test_active_time_of_one_row_and_of_none(db_path):
    _write(db_path, [(0, "user", {"content": "only"})])
    assert _load(db_path).active_seconds == 0.0
    store = Store(key="k", name="k", path="k", profile="default", home=None, schema_version=None)
    empty = _session(store, [], [])
    durations.apply(empty)
    assert empty.active_seconds is None


# -- compaction copies ---------------------------------------------------------------------------------
def _session(store: Store, turns: list[Turn], hidden: list[Turn]) -> Session:
    return Session(
        id=SID,
        store=store,
        source="cli",
        title=None,
        model="m",
        cwd=None,
        git_branch=None,
        git_repo_root=None,
        profile="default",
        project="hermes",
        started_at=None,
        ended_at=None,
        last_activity_at=None,
        end_reason=None,
        parent_id=None,
        message_count=None,
        turns=turns,
        hidden=hidden,
    )


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(T0 + seconds, tz=UTC)


def test_a_compaction_copy_takes_the_original_calls_duration():
    """Built by hand: ``copy_of`` is set by the compaction rules, whose copies Hermes stamps at compaction
    time (corpus-v22 writes them microseconds apart), so the copy's own gap says nothing."""
    store = Store(key="k", name="k", path="k", profile="default", home=None, schema_version=None)

    def turn(row: int, role: str, at: float, copy_of: int | None = None) -> Turn:
        return Turn(
            role=role, text="", source_row=row, time=_at(at), store="k", session_id=SID, copy_of=copy_of
        )

    def call(call_id: str, result: Turn) -> ToolCall:
        res = ToolResult(
            call_id=call_id, tool_name="terminal", text="", source_row=result.source_row, time=result.time
        )
        return ToolCall(
            id=call_id, aliases=(call_id,), name="terminal", arguments_text="{}", arguments={}, result=res
        )

    original, original_result = turn(2, "assistant", 1), turn(3, "tool", 4)
    original.tool_calls = [call("c1", original_result)]
    copy, copy_result = turn(10, "assistant", 100.000001, copy_of=2), turn(11, "tool", 100.000002, copy_of=3)
    copy.tool_calls = [call("c1", copy_result)]
    session = _session(store, [copy, copy_result], [original, original_result])
    durations.apply(session)
    assert original.tool_calls[0].duration == pytest.approx(3.0)
    assert copy.tool_calls[0].duration == pytest.approx(3.0)


# -- the corpus (corpusgen.py) -------------------------------------------------------------------------------
@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_corpus_terminal_durations(corpus_dir, version):
    corpus = corpus_dir / version
    manifest = json.loads((corpus / "manifest.json").read_text())
    [sid] = [s["session_ids"][0] for s in manifest["scenarios"] if s["scenario"] == "terminal_exit_codes"]
    rows = json.loads((corpus / "expect" / "state.db.json").read_text())["sessions"][sid][
        "get_messages_all_rows"
    ]
    stamp = {int(r["id"]): float(r["timestamp"]) for r in rows}
    result_row = {r["tool_call_id"]: int(r["id"]) for r in rows if r["role"] == "tool"}
    with open_history(dbs=[corpus / "hermes_home" / "state.db"]) as history:
        session = history.load(history.find(sid))
    calls = [(t, c) for t in session.turns for c in t.tool_calls]
    assert len(calls) == 5
    for turn, call in calls:
        # From the later of the call row and the row's previous result (issue 16, defect 5).
        earlier = [stamp[result_row[c.id]] for c in turn.tool_calls if result_row[c.id] < result_row[call.id]]
        expected = stamp[result_row[call.id]] - max([stamp[turn.source_row], *earlier])
        assert call.duration == pytest.approx(expected, abs=1e-5)
    parallel = [c.duration for t in session.turns if len(t.tool_calls) == 2 for c in t.tool_calls]
    assert len(parallel) == 2 and parallel[0] != parallel[1]
    # The command that timed out after 1 s ran for more than that.
    [timed_out] = [c for _, c in calls if '"timeout": 1' in c.arguments_text]
    assert timed_out.duration is not None and timed_out.duration > 1
    # Every gap is short: active time is the span of the rows.
    assert session.active_seconds == pytest.approx(max(stamp.values()) - min(stamp.values()), abs=1e-5)
