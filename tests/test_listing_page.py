"""A listing of a page (issue 15): ``trail list`` orders and counts every session row but decodes only the
sessions it shows (``History.page``), and shows exactly what reading every session shows."""

from __future__ import annotations

import contextlib
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

import hermesdb as h
import webhome as w
from hermes_trail.history import PAGE, open_history
from hermes_trail.listing import SessionFilter, select, unknown_values
from hermes_trail.serialize import session_json, stray_json

FILTERS = [
    SessionFilter(),
    SessionFilter(source="cli"),
    SessionFilter(profile="default"),
    SessionFilter(profile="oracle-work"),
    SessionFilter(since=datetime(2026, 11, 5, tzinfo=UTC)),
]


def listing(page: bool, flt: SessionFilter, limit: int, **where) -> dict:
    """What ``trail list --json`` prints, read the whole way or a page at a time."""
    with open_history(catalog=PAGE if page else True, **where) as history:
        if page and flt.profile is not None:
            history.read_profiles()  # as trail list does: a page reads profiles only to filter by one
        rows = history.entries if page else history.sessions
        chosen = select(rows, flt, limit)
        shown = history.page(chosen) if page else chosen
        return {
            "sessions": [session_json(s) for s in shown],
            "total": sum(1 for s in rows if flt.accepts(s)),
            "all": len(rows),
            "unknown": unknown_values(rows, flt),
            "strays": [stray_json(s) for s in history.strays],
        }


def assert_same_pages(**where) -> None:
    for flt in FILTERS:
        for limit in (1, 3, 50):
            assert listing(True, flt, limit, **where) == listing(False, flt, limit, **where), (flt, limit)


def test_a_page_of_a_hermes_home_is_what_the_whole_listing_shows(tmp_path):
    assert_same_pages(homes=[w.write_home(tmp_path / "hermes")])


def test_a_page_of_the_corpus_is_what_the_whole_listing_shows(corpus_dir):
    for version in ("corpus-v22", "corpus-v31"):
        assert_same_pages(homes=[corpus_dir / version / "hermes_home"])


def test_a_page_of_a_damaged_home_is_what_the_whole_listing_shows(forensic):
    assert_same_pages(homes=[forensic.home])


def test_families_are_linked_as_in_the_whole_store(tmp_path):
    """A chain, a sub-agent without a workspace of its own, ties in start time, a dangling parent: the page
    links each shown session as the whole store's catalog does."""
    t = h.T0
    specs = [
        h.chat("20261102_090000_root01", ("plan", "ok"), start=t, end_reason="compression"),
        h.chat(
            "20261102_090000_cont01",
            ("go on", "ok"),
            start=t + 600,
            cwd=None,
            parent_session_id="20261102_090000_root01",
            end_reason="compression",
        ),
        h.chat(
            "20261102_090000_cont02",
            ("more", "ok"),
            start=t + 1200,
            cwd=None,
            parent_session_id="20261102_090000_cont01",
        ),
        h.chat(
            "20261102_090000_sub001",
            ("sub", "ok"),
            start=t + 1200,
            cwd=None,
            source="subagent",
            parent_session_id="20261102_090000_root01",
        ),
        h.chat(
            "20261102_090000_sub002",
            ("sub", "ok"),
            start=t + 1200,
            cwd="/elsewhere",
            source="subagent",
            parent_session_id="20261102_090000_root01",
        ),
        h.chat("20261102_090000_lone01", ("alone", "ok"), start=t + 1200),
    ]
    home = h.write_home(tmp_path / "hermes", specs)
    # A dangling parent, as a parent deleted with foreign keys off leaves it (plain sqlite3 enforces none).
    h.sql(
        home / "state.db",
        "UPDATE sessions SET parent_session_id = 'gone' WHERE id = '20261102_090000_lone01'",
    )
    assert_same_pages(homes=[home])
    with open_history(catalog=PAGE, homes=[home]) as history:
        (cont,) = history.page([e for e in history.entries if e.id == "20261102_090000_cont02"])
    assert cont.chain == ["20261102_090000_root01", "20261102_090000_cont01", "20261102_090000_cont02"]
    assert cont.project == "/home/dev/project"


def test_trail_list_pages_by_default_and_reads_all_for_a_project(tmp_path, monkeypatch):
    """The command: a page by default; with --project (which needs every family) the whole catalog."""
    import json

    from typer.testing import CliRunner

    from hermes_trail import history as history_module
    from hermes_trail.cli.app import app

    home = w.write_home(tmp_path / "hermes")
    pages: list[int] = []
    real_page = history_module.History.page

    def page(self, entries):
        pages.append(len(entries))
        return real_page(self, entries)

    monkeypatch.setattr(history_module.History, "page", page)
    out = json.loads(CliRunner().invoke(app, ["list", "--json", "-n", "2", "--home", str(home)]).stdout)
    assert len(out["sessions"]) == 2 and pages == [2]
    whole = json.loads(
        CliRunner().invoke(app, ["list", "--json", "--project", "project", "--home", str(home)]).stdout
    )
    assert pages == [2] and whole["sessions"]


@pytest.mark.parametrize("limit", [1, 5])
def test_the_table_for_people_is_the_same(tmp_path, limit):
    from hermes_trail.cli.tables import print_sessions

    home = w.write_home(tmp_path / "hermes")
    outputs = []
    for page in (True, False):
        with open_history(catalog=PAGE if page else True, homes=[home]) as history:
            rows = history.entries if page else history.sessions
            chosen = select(rows, SessionFilter(), limit)
            shown = history.page(chosen) if page else chosen
            buffer = io.StringIO()
            untitled = [s for s in shown if not s.title]
            previews = history.first_prompts((s.store, s.id) for s in untitled)
            with contextlib.redirect_stdout(buffer):
                print_sessions(shown, matched=len(rows), total=len(rows), previews=previews)
            outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[1] and outputs[0].strip()


def test_entries_know_no_project_until_decoded(tmp_path):
    home = w.write_home(tmp_path / "hermes")
    with open_history(catalog=PAGE, homes=[home]) as history:
        with pytest.raises(ValueError, match="decoded"):
            _ = history.entries[0].project
        assert Path(history.page(history.entries[:1])[0].store.path).name == "state.db"
