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
    cost = {"usd": 0.25, "known": 1, "unknown": 6, "estimated_usd": None, "estimated": 0}
    assert data["overall"]["cost"] == cost
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


def test_a_project_too_long_for_its_column_keeps_its_last_folders(tmp_path):
    """A project is a path: cut to fit a narrow terminal it keeps its end, which says which project it is
    ("…/projects/weather-cli"), where it kept its start ("/home/dev/src/clien…") and lost its name."""
    import hermesdb as h

    deep = "/home/dev/src/clients/acme/projects/weather-cli"
    home = h.write_home(tmp_path / "hermes", [h.coding("20261108_090000_d00d00", cwd=deep)])
    result = CliRunner().invoke(app, ["stats", "--home", str(home)], env={"COLUMNS": "50"})
    assert result.exit_code == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "weather-cli" in line)
    assert line.startswith("…") and line.split()[0].endswith("/weather-cli"), result.stdout
    assert all(len(line) <= 50 for line in result.stdout.splitlines())
    by_model = CliRunner().invoke(app, ["stats", "--by", "model", "--home", str(home)], env={"COLUMNS": "50"})
    assert by_model.stdout.splitlines()[1].startswith("anthropic/")  # another grouping: cut as it was


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


# -- issue 19: estimates by trail, and a budget ------------------------------------------------------------
@pytest.fixture(scope="module")
def priced_home(tmp_path_factory) -> Path:
    """Three sessions: one Hermes priced, one of a model Hermes' table prices but recorded no cost for, one
    of a model no table knows."""
    import hermesdb as h

    tokens = {"input_tokens": 1_000_000, "output_tokens": 100_000}
    known = {
        **tokens,
        "estimated_cost_usd": 0.25,
        "cost_status": "estimated",
        "cost_source": "provider_models_api",
    }
    return h.write_home(
        tmp_path_factory.mktemp("priced") / "hermes",
        [
            h.chat("20261120_090000_c05701", ("a", "b"), model="anthropic/claude-sonnet-4-5", tokens=known),
            h.chat("20261120_100000_c05702", ("c", "d"), model="anthropic/claude-sonnet-4-5", tokens=tokens),
            h.chat("20261120_110000_c05703", ("e", "f"), model="local/llama-7b", tokens=tokens),
        ],
    )


def test_estimate_prices_unknown_costs_apart_from_hermes_figures(priced_home):
    code, out, err = run("stats", "--home", str(priced_home), "--json", "--estimate")
    assert code == 0, err
    cost = json.loads(out)["overall"]["cost"]
    # Hermes' table: claude-sonnet-4-5 at $3 in / $15 out per million tokens
    assert cost == {"usd": 0.25, "known": 1, "unknown": 2, "estimated_usd": 4.5, "estimated": 1}
    assert {"estimated_usd", "estimated", "budget"} <= DOCUMENTED
    code, out, _ = run("stats", "--home", str(priced_home), "--json")
    assert json.loads(out)["overall"]["cost"]["estimated_usd"] is None, "no estimate unless asked"
    code, out, _ = run("stats", "--home", str(priced_home), "--estimate")
    assert "$0.25 + ~$4.50 est. + 1 unknown" in out and "estimated by trail" in out


def test_budget_exits_4_when_spending_passes_it(priced_home):
    code, out, err = run("stats", "--home", str(priced_home), "--budget", "1")
    assert code == 0, "$0.25 known is under $1"
    code, out, err = run("stats", "--home", str(priced_home), "--budget", "1", "--estimate", "--json")
    assert code == 4 and "over budget: $4.75 (of which $4.50 estimated by trail) spent" in err
    assert json.loads(out)["budget"] == {"usd": 1.0, "spent": 4.75, "over": True}
