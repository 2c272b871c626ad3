"""Quick snapshots, taken by Hermes' ``create_quick_snapshot``, read with the store reader."""

from __future__ import annotations

from datetime import UTC, datetime

import hermesdb as h
import hermesside as hs
from hermes_trail.hermes import locate
from hermes_trail.hermes.sidefiles.snapshots import snapshot_time
from hermes_trail.hermes.store import SqliteStore


def test_snapshot_ids_carry_their_utc_time():
    assert snapshot_time("20261130-080044-before") == datetime(2026, 11, 30, 8, 0, 44, tzinfo=UTC)
    assert snapshot_time("20261130-080044") == datetime(2026, 11, 30, 8, 0, 44, tzinfo=UTC)
    assert snapshot_time("manual") is None and snapshot_time("20261399-999999") is None


def test_a_snapshot_is_a_store_with_the_live_rows(tmp_path):
    home = tmp_path / "home"
    h.write_home(home, [h.chat(h.CHAT_ID, ("a", "b"))], profiles={"work": [h.chat(h.WORK_ID, ("c", "d"))]})
    before = datetime.now(UTC).replace(microsecond=0)
    [taken] = hs.run_plan(home, [{"op": "snapshot", "label": "x"}])
    [work] = hs.run_plan(home / "profiles" / "work", [{"op": "snapshot"}])
    sides = [s for s in locate.side_files(home, "default") if s.kind == "snapshot"]
    assert [(s.name, s.path.relative_to(home).as_posix()) for s in sides] == [
        (taken, f"state-snapshots/{taken}/state.db")
    ]
    assert before <= snapshot_time(taken) <= datetime.now(UTC)
    with SqliteStore(home / "state.db") as live, SqliteStore(sides[0].path) as copy:
        assert copy.message_rows(h.CHAT_ID) == live.message_rows(h.CHAT_ID)
    profile = [s for s in locate.side_files(home / "profiles" / "work", "work") if s.kind == "snapshot"]
    assert [s.name for s in profile] == [work]
