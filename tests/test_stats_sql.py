"""``stats_sql.py`` (issue 15): ``trail stats`` counted by the store gives what reading every session through
the model gives, figure for figure, on stores Hermes' own ``SessionDB`` wrote (and a few hand-made shapes
Hermes cannot write, each said where it is made)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import hermesdb as h
import webhome as w
from hermes_trail.hermes.decode.values import epoch
from hermes_trail.history import PAGE, micros, open_history
from hermes_trail.stats import GROUPINGS, aggregate, measure_all
from hermes_trail.stats_sql import WHITESPACE, counted_sessions, figures_of, store_figures

REPO = Path(__file__).parents[1]
MARKER = (
    "[System: The active model for this chat has changed to openai/gpt-5 via provider openai. From now on"
)
DAY = 86400.0


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Days are local dates: pin the zone so they are the same on every machine."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def full_read(**where) -> tuple[dict, dict]:
    """The old way: every session read through the model and measured; (figures by key, reports)."""
    with open_history(**where) as history:
        figures = measure_all(history.load, history.sessions)
        reports = {by: aggregate(history.sessions, by, figures).as_json() for by in GROUPINGS}
    return figures, reports


def counted(**where) -> tuple[dict, dict]:
    """The new way: the store counts what it can (``stats_sql``)."""
    with open_history(catalog=PAGE, **where) as history:
        sessions = counted_sessions(history)
        figures = figures_of(history, sessions)
        reports = {by: aggregate(sessions, by, figures).as_json() for by in GROUPINGS}
    return figures, reports


def assert_same(**where) -> None:
    old_figures, old_reports = full_read(**where)
    new_figures, new_reports = counted(**where)
    assert new_figures == old_figures
    assert new_reports == old_reports


def terminal(call_id: str, result: object, t: float, command: str = "make") -> list[dict]:
    return [
        h.assistant("", h.call(call_id, "terminal", command=command), timestamp=t),
        h.tool(call_id, "terminal", result, timestamp=t + 2),
    ]


def edge_sessions() -> list[h.SessionSpec]:
    """Sessions each holding one shape the store's count must get right (or pass to the long way)."""
    t = h.T0
    ok = {"output": "", "exit_code": 0, "error": None}
    commands = [
        h.user("run everything", timestamp=t),
        *terminal("call_ok", ok, t + 1),
        *terminal("call_fail", {"output": "boom", "exit_code": 2, "error": None}, t + 5),
        *terminal("call_to", {"output": "[Command timed out after 60s]", "exit_code": 124}, t + 9),
        *terminal("call_kill", {"output": "", "exit_code": -9, "error": None}, t + 13),
        *terminal("call_int", {"output": "x\n[Command interrupted]", "exit_code": 130}, t + 17),
        *terminal("call_real", {"output": "", "exit_code": 3.0}, t + 21),
        *terminal("call_bool", {"output": "", "exit_code": True}, t + 25),
        *terminal("call_bg", {"output": "", "exit_code": 0, "session_id": "proc_1", "pid": 9}, t + 29),
        *terminal(
            "call_block",
            {"output": "", "exit_code": -1, "status": "blocked", "error": "BLOCKED by smart approval"},
            t + 33,
        ),
        *terminal("call_pend", {"status": "pending_approval", "description": "rm -rf"}, t + 37),
        *terminal("call_err", {"error": "no such environment"}, t + 41),
        *terminal("call_note", '{"output": "", "exit_code": 5}\n\n[Tool loop warning: slow down]', t + 45),
        *terminal("call_preview", "<persisted-output>too large</persisted-output>", t + 49),
        *terminal("call_noexit", {"output": "hi"}, t + 53),
        h.assistant("", h.call("call_lost", "terminal", command="ls"), timestamp=t + 57),
        h.user("never mind", timestamp=t + 900),
        h.tool("call_lost", "terminal", {"output": "", "exit_code": 1}, timestamp=t + 901),
        h.assistant(
            "",
            h.call("call_a", "terminal", command="a"),
            h.call("call_b", "terminal", command="b"),
            timestamp=t + 2000,
        ),
        h.tool("call_b", "terminal", {"output": "", "exit_code": 1}, timestamp=t + 2001),
        h.tool("call_a", "terminal", {"output": "", "exit_code": 0}, timestamp=t + 2002),
        h.assistant("done", timestamp=t + 4000),
        h.user("thanks", timestamp=t + 4400),
    ]
    prompts = [
        h.user(MARKER, timestamp=t),
        h.user("  \n\u3000" + MARKER, timestamp=t + 1),
        h.user("<memory-context>old facts</memory-context>\n" + MARKER, timestamp=t + 2),
        h.user("<memory-context>old facts</memory-context> a real question", timestamp=t + 3),
        h.user("[not a marker] but a prompt", timestamp=t + 4),
        h.user("Really?", timestamp=t + 5),
        h.user("", timestamp=t + 6),
        h.user([{"type": "text", "text": MARKER}], timestamp=t + 7),
        h.user([{"type": "text", "text": "structured prompt"}], timestamp=t + 8),
        h.user(" " * 200 + MARKER, timestamp=t + 9),
        h.assistant("[CONTEXT notes] are not a summary", timestamp=t + 10),
    ]
    harness = [
        h.user("a question", timestamp=t),
        h.assistant("an answer", timestamp=t + 5),
        h.user("Review the conversation above and consider saving to memory anything", timestamp=t + 6),
        h.assistant("Saved.", timestamp=t + 7),
    ]
    summary = [
        h.user("[CONTEXT COMPACTION] Earlier turns were compacted: the user wants a parser.", timestamp=t),
        h.assistant("Continuing.", timestamp=t + 5),
        h.user("go on", timestamp=t + 6),
    ]
    shadow = [
        h.user("two calls, one id", timestamp=t),
        h.assistant(
            "",
            h.call("call_dup", "terminal", command="first"),
            h.call("call_dup", "terminal", command="second"),
            timestamp=t + 1,
        ),
        h.tool("call_dup", "terminal", {"output": "", "exit_code": 1}, timestamp=t + 2),
    ]
    pipe = [
        h.user("a bridge id", timestamp=t),
        h.assistant("", {**h.call("call_x", "terminal", command="a"), "id": "call_x|fc_y"}, timestamp=t + 1),
        h.tool("call_x", "terminal", {"output": "", "exit_code": 1}, timestamp=t + 2),
    ]
    spaced = [
        h.user("an id with spaces", timestamp=t),
        h.assistant("", h.call("call_s", "terminal", command="a"), timestamp=t + 1),
        h.tool(" call_s ", "terminal", {"output": "", "exit_code": 1}, timestamp=t + 2),
    ]
    gaps = [
        h.user("start", timestamp=t),
        h.assistant("thinking", timestamp=t + 2000),  # an agent gap over its cap
        h.user("later", timestamp=t + 2600),  # a human gap over its cap
        h.assistant("same moment", timestamp=t + 2600),
        h.assistant("a microsecond on", timestamp=t + 2600.0000004),
        h.user("an hour on", timestamp=t + 6200.0078125),
    ]
    return [
        h.coding("20261102_100000_edge01", start=t),
        h.SessionSpec("20261102_110000_edge02", commands, cwd="/srv/cmds"),
        h.SessionSpec("20261102_120000_edge03", prompts, cwd="/srv/prompts"),
        h.SessionSpec("20261102_130000_edge04", harness, cwd="/srv/harness"),
        h.SessionSpec(
            "20261102_140000_edge05", summary, cwd=None, parent_session_id="20261102_130000_edge04"
        ),
        h.SessionSpec("20261102_150000_edge06", shadow),
        h.SessionSpec("20261102_160000_edge07", pipe),
        h.SessionSpec("20261102_170000_edge08", spaced),
        h.SessionSpec("20261102_180000_edge09", gaps, cwd="/srv/gaps"),
        h.SessionSpec("20261102_190000_edge10", [], cwd="/srv/empty"),
        h.SessionSpec(
            "20261102_200000_edge11",
            [h.user("delegated", timestamp=t), h.assistant("ok", timestamp=t + 1)],
            source="subagent",
            cwd=None,
            parent_session_id="20261102_180000_edge09",
        ),
        h.SessionSpec(
            "20261102_210000_edge12",
            [h.user("one", timestamp=t), h.assistant("a", timestamp=t + 1), h.user("two", timestamp=t + 2)],
            rewind_to=2,
        ),
    ]


@pytest.fixture(scope="module")
def edge_home(tmp_path_factory) -> Path:
    home = h.write_home(tmp_path_factory.mktemp("stats-sql") / "hermes", edge_sessions())
    # The one shape here Hermes' writer cannot make: a tool_calls cell that Python reads (NaN) and SQLite's
    # JSON reader refuses; such a session is read the long way.
    h.sql(
        home / "state.db",
        "UPDATE messages SET tool_calls = ? WHERE id = (SELECT min(id) FROM messages WHERE tool_calls IS NOT"
        " NULL AND session_id = '20261102_100000_edge01')",
        (json.dumps([{**h.call("call_t1", "terminal", command="pytest -q"), "weight": float("nan")}]),),
    )
    return home


def test_edge_shapes_count_as_the_model_counts_them(edge_home):
    assert_same(homes=[edge_home])


def test_the_store_counts_the_plain_sessions_and_passes_the_others(edge_home):
    with open_history(catalog=PAGE, homes=[edge_home]) as history:
        store = history.stores[0]
        ids = {e.id for e in history.entries}
        counted_here, passed = store_figures(history.reader(store), store.home, ids)
    assert passed == {
        "20261102_100000_edge01",  # tool_calls SQLite's JSON reader refuses
        "20261102_130000_edge04",  # a review prompt
        "20261102_140000_edge05",  # a compaction summary
        "20261102_150000_edge06",  # two calls of one row with one id
        "20261102_160000_edge07",  # an id with a bar
        "20261102_170000_edge08",  # a result id with spaces
        "20261102_210000_edge12",  # rewound rows
    }
    commands = counted_here["20261102_110000_edge02"]
    assert (commands.commands, commands.failing_commands, commands.blocked_commands) == (14, 7, 1)
    assert counted_here["20261102_120000_edge03"].prompts == 5  # four markers (one structured), five prompts
    assert counted_here["20261102_180000_edge09"].active_seconds == pytest.approx(900 + 300 + 300, abs=0.01)


def test_a_hermes_home_with_every_feature_counts_the_same(tmp_path):
    assert_same(homes=[w.write_home(tmp_path / "hermes")])


def test_the_fidelity_corpus_counts_the_same(corpus_dir):
    for version in ("corpus-v22", "corpus-v31"):
        assert_same(homes=[corpus_dir / version / "hermes_home"])


def test_a_home_with_diverts_snapshots_and_damaged_rows_counts_the_same(forensic):
    assert_same(homes=[forensic.home])


def test_a_synthetic_store_counts_the_same(tmp_path):
    """The benchmark's generator (Hermes' schema, bulk rows with terminal calls, rewinds, sub-agents)."""
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "synthetic_store.py"),
            str(tmp_path),
            "--sessions",
            "120",
            "--messages",
            "4000",
            "--big-session",
            "300",
            "--seed",
            "3",
        ],
        check=True,
        capture_output=True,
    )
    home = tmp_path / "hermes_home"
    assert_same(homes=[home])
    with open_history(catalog=PAGE, homes=[home]) as history:
        store = history.stores[0]
        ids = {e.id for e in history.entries}
        _, passed = store_figures(history.reader(store), store.home, ids)
    assert len(passed) < len(ids) / 10, "most sessions are counted by the store"


def test_trail_stats_prints_what_the_full_read_prints(edge_home):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    _, reports = full_read(homes=[edge_home])
    for by in GROUPINGS:
        done = CliRunner().invoke(app, ["stats", "--json", "--by", by, "--home", str(edge_home)])
        out = json.loads(done.stdout)
        assert {k: out[k] for k in reports[by]} == reports[by]


def test_micros_is_what_a_datetime_keeps():
    rng = random.Random(5)
    values = [0, 1, 0.0, 4.2e9, 4.2e9 + 1, -1.0, float("nan"), float("inf"), True, "1", None, 1793610000]
    values += [1793610000.0078125, 1793610000.0234375, 0.5e-6, 1.5e-6, 2.5e-6, 1699999999.9999995]
    values += [rng.uniform(0, 4.2e9) for _ in range(2000)] + [rng.uniform(1.7e9, 1.8e9) for _ in range(2000)]
    epoch_start = datetime(1970, 1, 1, tzinfo=UTC)
    for value in values:
        when, _ = epoch(value, "t")
        expected = None if when is None else (when - epoch_start) // (when - when + (when - when).resolution)
        assert micros(value) == expected, value


def test_whitespace_is_what_python_strips():
    assert set(WHITESPACE) == {chr(c) for c in range(0x110000) if chr(c).isspace()}
