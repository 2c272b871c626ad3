"""``trail stats`` from its cache (issue 15): the rows kept in trail's cache directory, and the reports made
from them, say what reading every session through the model says, on stores Hermes' own ``SessionDB``
wrote; a store that changes between two runs is counted again; nothing is written into a Hermes home."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb as h
import webhome as w
from hermes_trail.cli.app import app
from hermes_trail.history import PAGE, open_history
from hermes_trail.listing import SessionFilter, parse_since
from hermes_trail.stats import GROUPINGS, RowSession, aggregate, aggregate_rows, estimate_costs, measure_all
from hermes_trail.stats_sql import cache_dir, report_rows

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


def full_read(flt: SessionFilter | None = None, **where) -> dict[str, dict]:
    """The old way, the reference: every session read through the model and measured; reports by grouping."""
    with open_history(**where) as history:
        sessions = [s for s in history.sessions if flt is None or flt.accepts(s)]
        figures = measure_all(history.load, sessions)
        return {by: aggregate(sessions, by, figures).as_json() for by in GROUPINGS}


def stats(*args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(app, ["stats", *args], catch_exceptions=False)
    return done.exit_code, done.stdout, done.stderr


def stats_json(*args: str) -> dict:
    code, out, _ = stats("--json", *args)
    assert code in (0, 3), out
    return json.loads(out)


def no_counting(monkeypatch) -> None:
    """From here on a report that counts the stores fails the test: it must come from the cache."""

    def refuse(*args, **kwargs):
        raise AssertionError("counted again; the cache was not used")

    monkeypatch.setattr("hermes_trail.stats_sql.report_rows", refuse)


def files_of(home: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(home.rglob("*")) if p.is_file()}


def a_session(sid: str, start: float, chat: bool = False) -> h.SessionSpec:
    if chat:
        return h.chat(sid, ("hello", "hi"), start=start)
    return h.coding(sid, start=start, started_at=start, cwd="/home/dev/changing")


def test_the_cached_report_is_the_full_read_by_every_grouping(tmp_path, monkeypatch):
    home = w.write_home(tmp_path / "hermes")
    expected = full_read(homes=[home])
    for by in GROUPINGS:  # the first run counts and keeps the rows
        out = stats_json("--by", by, "--home", str(home))
        assert {k: out[k] for k in expected[by]} == expected[by]
    assert list(cache_dir().glob("stats-*.marshal")), "the rows were kept"
    no_counting(monkeypatch)
    for by in GROUPINGS:
        out = stats_json("--by", by, "--home", str(home))
        assert {k: out[k] for k in expected[by]} == expected[by]


def test_filters_on_cached_rows_are_the_full_read_filtered(tmp_path, monkeypatch):
    home = w.write_home(tmp_path / "hermes")
    stats_json("--home", str(home))
    no_counting(monkeypatch)
    with open_history(homes=[home]) as history:
        profiles = sorted({s.profile for s in history.sessions})
        sources = sorted({s.source or "" for s in history.sessions})
        projects = sorted({s.project for s in history.sessions})
    cases = [("--profile", p) for p in profiles] + [("--source", s) for s in sources if s]
    cases += [("--project", p) for p in projects] + [("--since", "2026-11-03"), ("--since", "2020-01-01")]
    for option, value in cases:
        flt = SessionFilter(
            value if option == "--profile" else None,
            value if option == "--project" else None,
            value if option == "--source" else None,
            parse_since(value) if option == "--since" else None,
        )
        expected = full_read(flt, homes=[home])
        for by in ("project", "day"):
            out = stats_json("--by", by, option, value, "--home", str(home))
            assert {k: out[k] for k in expected[by]} == expected[by], (option, value, by)


def test_rows_make_the_reports_sessions_make_with_estimates(forensic):
    """``aggregate_rows`` over rows against ``aggregate`` over the counted sessions, estimates included
    (a made-up price for every model: the sums must be the same floats, added in the same order)."""

    def rates_for(pairs, env=None):
        from hermes_trail.pricing import Rates

        return {pair: Rates(input=1.25, output=10.0, cache_read=0.125, cache_write=None) for pair in pairs}

    with open_history(catalog=PAGE, homes=[forensic.home]) as history:
        from hermes_trail.stats_sql import counted_sessions, figures_of

        sessions = counted_sessions(history)
        figures = figures_of(history, sessions)
        rows, _ = report_rows(history)
    estimates = estimate_costs(sessions, rates_for=rates_for)
    assert estimate_costs([RowSession(r) for r in rows], rates_for=rates_for) == estimates
    for by in GROUPINGS:
        old = aggregate(sessions, by, figures, estimates).as_json()
        assert aggregate_rows(rows, by, estimates).as_json() == old
        assert aggregate_rows(rows, by).as_json() == aggregate(sessions, by, figures).as_json()


def test_a_store_that_changes_between_two_runs_is_counted_again(tmp_path):
    home = h.write_home(tmp_path / "hermes", [a_session("20261102_090000_aaaa01", h.T0)])
    first = stats_json("--home", str(home))
    assert first["overall"]["sessions"] == 1
    with h.hermes_env(home):  # Hermes writes a second session (checkpointed on close: the db file changes)
        db = h.session_db(home / "state.db")
        try:
            h.write_session(db, a_session("20261102_100000_aaaa02", h.T0 + 3600, chat=True))
        finally:
            db.close()
    second = stats_json("--home", str(home))
    assert second["overall"]["sessions"] == 2
    expected = full_read(homes=[home])["project"]
    assert {k: second[k] for k in expected} == expected


def test_a_running_hermes_writing_to_its_wal_is_counted_again(tmp_path):
    """Frames that stay in ``state.db-wal`` (a Hermes still running) change the report as they come."""
    home = h.write_home(tmp_path / "hermes", [a_session("20261102_090000_bbbb01", h.T0)])
    with h.LiveWriter(home / "state.db") as hermes:
        hermes.create("20261102_100000_bbbb02", cwd="/home/dev/live")
        hermes.append("20261102_100000_bbbb02", [h.user("first", timestamp=h.T0 + 10)])
        before = stats_json("--home", str(home))
        hermes.append(
            "20261102_100000_bbbb02",
            [h.assistant("ok", timestamp=h.T0 + 20), h.user("second", timestamp=h.T0 + 30)],
        )
        after = stats_json("--home", str(home))
        expected = full_read(homes=[home])["project"]
    assert before["overall"]["turns"] + 2 == after["overall"]["turns"]
    assert {k: after[k] for k in expected} == expected


def test_the_cache_is_never_in_a_hermes_home_and_a_broken_one_is_recounted(tmp_path, monkeypatch):
    home = w.write_home(tmp_path / "hermes")
    before = files_of(home)
    first = stats("--home", str(home))
    assert files_of(home) == before, "nothing written into the Hermes home"
    (kept,) = cache_dir().glob("stats-*.marshal")
    assert Path(os.environ["HOME"]) in kept.parents
    kept.write_bytes(b"\x00not marshal")
    assert stats("--home", str(home)) == first  # an unreadable cache is counted again, and rewritten
    no_counting(monkeypatch)
    assert stats("--home", str(home)) == first


def test_what_was_passed_over_is_said_again_from_the_cache(tmp_path, monkeypatch):
    """A message row whose session has no row: the same lines on stderr and the same exit code, counted
    or cached."""
    home = h.write_home(tmp_path / "hermes", [a_session("20261102_090000_dddd01", h.T0)])
    # Hermes' writer never leaves a message without its session (a deletion half done by another tool):
    # made here by SQL.
    h.sql(
        home / "state.db",
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('gone', 'user', 'hi', ?)",
        (h.T0,),
    )
    first = stats("--home", str(home))
    assert first[0] == 3 and "unreadable row" in first[2]
    no_counting(monkeypatch)
    assert stats("--home", str(home)) == first
    assert stats("--by", "day", "--since", "2020-01-01", "--home", str(home))[0] == 3


def test_beside_a_store_that_could_not_be_opened_nothing_is_kept(tmp_path):
    """A store skipped now may open next time without a byte changing (a lock, a permission)."""
    home = h.write_home(tmp_path / "hermes", [a_session("20261102_090000_eeee01", h.T0)])
    broken = home / "profiles" / "broken" / "state.db"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"this is not a database" * 100)
    first = stats("--home", str(home))
    assert first[0] == 3 and "skipped store" in first[2]
    assert not list(cache_dir().glob("stats-*.marshal"))
    assert stats("--home", str(home)) == first


def test_two_homes_keep_their_own_rows(tmp_path, monkeypatch):
    one = h.write_home(tmp_path / "one", [a_session("20261102_090000_cccc01", h.T0)])
    two = h.write_home(tmp_path / "two", [a_session("20261102_090000_cccc02", h.T0 + DAY, chat=True)])
    counts = {str(home): stats_json("--home", str(home))["overall"]["turns"] for home in (one, two)}
    no_counting(monkeypatch)
    assert {str(home): stats_json("--home", str(home))["overall"]["turns"] for home in (one, two)} == counts


@pytest.mark.parametrize(
    "zone",
    ["UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "Europe/Dublin"],
)
def test_a_rows_local_day_is_the_day_a_session_falls_on(monkeypatch, zone):
    """``--by day`` over rows reads the local date with ``time.localtime``; a session reads it with
    ``astimezone``: the same date in zones with odd offsets and around their changes."""
    import random
    import time
    from datetime import UTC, datetime, timedelta

    from hermes_trail.stats import _local_day, group_key

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    rng = random.Random(zone)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    moments = [rng.randrange(-(10**15), 4 * 10**15) for _ in range(3000)]
    for year in (2024, 2025, 2026):  # each side of midnight and of the usual changes of offset
        for month in (1, 3, 4, 9, 10, 11):
            for day in (1, 5, 6, 7, 26, 27, 28, 31):
                for hour in (0, 1, 2, 3, 12, 13, 14, 23):
                    with contextlib.suppress(ValueError):
                        at = datetime(year, month, day, hour, tzinfo=UTC)
                        base = (at - epoch) // timedelta(microseconds=1)
                        moments += [base + d for d in (-1, 0, 1, 1_800_000_000 - 1, 2_700_000_000)]
    for us in moments:
        row = (None,) * 7 + (us, None) + (None,) * 11
        assert _local_day(row) == group_key(RowSession(row), "day"), (zone, us)
    assert _local_day((None,) * 20) == group_key(RowSession((None,) * 20), "day")


def test_the_demo_home_is_said_from_the_cache_too(monkeypatch):
    """No Hermes home and nothing named: the demo home is read, and said so, counted or cached."""
    first = stats("--json")
    assert first[0] == 0 and "demo home" in first[2]
    no_counting(monkeypatch)
    assert stats("--json") == first


def test_after_a_hermes_turn_only_what_changed_is_counted_and_the_report_is_the_full_reads(
    tmp_path, monkeypatch
):
    """A store that changed is counted again only for its sessions that changed: new rows, a row Hermes
    changed (a title), a child whose parent was deleted (its project was its parent's), a new session;
    a deleted one leaves. Every grouping's report is still the full read's."""
    import hermes_trail.stats_sql as stats_sql

    home = w.write_home(tmp_path / "hermes")
    counted: list[int] = []
    count = stats_sql.figures_of

    def counting(history, sessions, progress=None):
        chosen = list(sessions)
        counted.append(len(chosen))
        return count(history, chosen, progress)

    monkeypatch.setattr(stats_sql, "figures_of", counting)
    first = stats_json("--home", str(home))
    every = first["overall"]["sessions"]
    assert counted == [every]
    with h.hermes_env(home):  # a turn, a title, a deleted parent and a new session, as Hermes writes them
        db = h.session_db(home / "state.db")
        try:
            db.append_message(h.CODING_ID, "user", "One more thing.", timestamp=h.T0 + 7200)
            db.append_message(h.CODING_ID, "assistant", "Done.", timestamp=h.T0 + 7210)
            db.set_session_title(w.HOSTILE_ID, "Renamed")
            db.delete_session(w.PARENT_ID)
            h.write_session(db, a_session("20261110_090000_cccc01", h.T0 + 9 * DAY, chat=True))
        finally:
            db.close()
    expected = full_read(homes=[home])
    for by in GROUPINGS:
        out = stats_json("--by", by, "--home", str(home))
        assert {k: out[k] for k in expected[by]} == expected[by], by
    # The turn's session, the retitled one, the orphaned child and the new one: not the other sessions.
    assert counted[1:] == [4]
    assert out["overall"]["sessions"] == every
