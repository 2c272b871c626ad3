"""``stats.py`` and ``trail stats``: counted from the model, on stores Hermes' ``SessionDB`` wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import webhome as w
from hermes_trail import open_history
from hermes_trail.cli.app import app
from hermes_trail.stats import GROUPINGS, aggregate, measure, measure_all

DOC = (Path(__file__).parents[1] / "docs" / "json.md").read_text()
DOCUMENTED = set(re.findall(r"^\| `([a-z_0-9]+)` \|", DOC, flags=re.MULTILINE))


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return w.write_home(tmp_path_factory.mktemp("stats") / "hermes")


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Days are local dates: pin the zone so they are the same on every machine."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_measure_counts_what_happened(home):
    with open_history(homes=[home]) as history:
        coding = measure(history.load(history.find(w.CODING_ID)))
        denied = measure(history.load(history.find(w.DENIED_ID)))
        rewound = measure(history.load(history.find(w.REWIND_ID)))
    # coding: pytest (exit 1), read_file, patch, pytest (exit 0)
    assert (coding.tool_calls, coding.commands, coding.failing_commands, coding.blocked_commands) == (
        4,
        2,
        1,
        0,
    )
    assert coding.prompts == 1 and coding.turns == 10
    assert coding.active_seconds == pytest.approx(90.0)
    # a denied command never ran: no command, one blocked
    assert (denied.tool_calls, denied.commands, denied.blocked_commands, denied.failing_commands) == (
        1,
        0,
        1,
        0,
    )
    # a rewind's rows happened: counted with the rows that replaced them
    assert rewound.turns == 6 and rewound.prompts == 3


def test_aggregate_by_profile_keeps_cost_unknown_apart(home):
    with open_history(homes=[home]) as history:
        figures = measure_all(history.load, history.sessions)
        report = aggregate(history.sessions, "profile", figures)
        assert all(not s.loaded for s in history.sessions), "turns were let go after measuring"
    default, work = report.groups
    assert (default.key, work.key) == ("default", "work")
    assert default.sessions == 6 and work.sessions == 1
    assert default.cost_known == 1 and default.cost_usd == pytest.approx(0.25)
    assert default.cost_unknown == 5, "a session without a price is unknown, not $0"
    assert work.tokens == {"input": 100, "output": 10, "cache_read": 0, "cache_write": 0, "reasoning": 0}
    assert report.overall.sessions == 7 and report.complete
    assert report.overall.tokens["input"] == 1200 + 500 + 100
    assert report.overall.failing_commands == 1 and report.overall.blocked_commands == 1


def test_aggregate_by_day_is_oldest_first_and_unmeasured_is_said(home):
    with open_history(homes=[home]) as history:
        report = aggregate(history.sessions, "day")
    days = [g.key for g in report.groups]
    assert days == sorted(days) and days[0] == "2026-11-02"
    assert not report.complete and report.overall.measured == 0 and report.overall.turns == 0


@pytest.mark.parametrize("by", GROUPINGS)
def test_trail_stats_json_by_every_grouping(home, by):
    code, out, err = run("stats", "--json", "--by", by, "--home", str(home))
    assert code == 0, err
    data = json.loads(out)
    assert data["by"] == by and data["complete"] is True
    assert sum(g["sessions"] for g in data["groups"]) == data["overall"]["sessions"] == 7
    assert data["overall"]["cost"] == {"usd": 0.25, "known": 1, "unknown": 6}
    assert _keys(data) - DOCUMENTED == set(), "every key of trail stats --json is in docs/json.md"


def test_trail_stats_filters_and_since(home):
    code, out, _ = run("stats", "--json", "--profile", "work", "--home", str(home))
    assert code == 0 and json.loads(out)["overall"]["sessions"] == 1
    code, out, _ = run("stats", "--json", "--since", "2026-11-08", "--by", "day", "--home", str(home))
    data = json.loads(out)
    assert data["since"] == "2026-11-08T00:00:00Z"
    assert [g["key"] for g in data["groups"]] == ["2026-11-08", "2026-11-09", "2026-11-10"]


def test_trail_stats_table_for_people(home):
    code, out, _ = run("stats", "--by", "project", "--home", str(home))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["project", "sessions"]
    assert any(line.startswith("/home/dev/project") for line in lines)
    assert lines[-1].startswith("all") and "$0.25 + 6 unknown" in lines[-1]


def test_trail_stats_rejects_an_unknown_grouping(home):
    code, _, err = run("stats", "--by", "colour", "--home", str(home))
    assert code == 1 and "one of project, model, profile, source, day" in err


@pytest.mark.corpus
def test_corpus_costs_and_failures(corpus_dir):
    with open_history(homes=[corpus_dir / "corpus-v22" / "hermes_home"]) as history:
        report = aggregate(history.sessions, "model", measure_all(history.load, history.sessions))
    # the corpus' cost scenarios: actual and estimated are known; included-at-zero and unknown are not
    assert report.overall.cost_known == 2
    assert report.overall.cost_unknown == report.overall.sessions - 2
    # exit codes 2, -9 (signal) and 124 (timeout), and two denied or blocked commands
    assert report.overall.failing_commands >= 3 and report.overall.blocked_commands == 2
