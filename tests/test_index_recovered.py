"""``trail index --include-recovered``: sessions only a snapshot or a divert holds, searchable, kept fresh."""

from __future__ import annotations

import sqlite3
import time

import hermesdb as h
import hermesside as hs
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index


def _home(tmp_path):
    home = tmp_path / "home"
    h.write_home(
        home,
        [
            h.chat(h.CHAT_ID, ("What is WAL?", "A write-ahead log.")),
            h.chat(h.WORK_ID, ("Rotate the vault keys", "Rotated."), start=h.T0 + 60),
        ],
    )
    hs.run_plan(
        home, [{"op": "snapshot"}, {"op": "delete", "session": h.WORK_ID}], env={"HOME": str(tmp_path)}
    )
    return home


def _stores(index):
    conn = sqlite3.connect(index)
    try:
        return [r[0] for r in conn.execute("SELECT key FROM stores ORDER BY key")]
    finally:
        conn.close()


def test_recovered_sessions_are_indexed_once_asked_for(tmp_path):
    home, index = _home(tmp_path), tmp_path / "idx" / "index.db"
    sync_index(index, homes=[home])
    assert search(index, "vault", SearchFilters()).conversations == []
    first = sync_index(index, homes=[home], include_recovered=True)
    assert first.sessions_indexed == 1
    [conversation] = search(index, "vault", SearchFilters()).conversations
    hit = conversation.hits[0]
    assert hit.session_id == h.WORK_ID and hit.store.startswith("recovered:")
    assert hit.resume == f"trail show {hit.ref}" and hit.ref.endswith(f":{h.WORK_ID}")
    # Later syncs keep them, and read nothing when nothing changed.
    again = sync_index(index, homes=[home])
    assert (again.sessions_indexed, again.changed_stores) == (0, 0)
    assert search(index, "vault", SearchFilters()).conversations
    # A new snapshot changes the home's identity: its recovered sessions are read again.
    time.sleep(1.1)  # snapshot ids have a resolution of one second
    hs.run_plan(home, [{"op": "snapshot", "label": "later"}], env={"HOME": str(tmp_path)})
    assert sync_index(index, homes=[home]).sessions_indexed == 1
    # Turned off: they leave the index.
    gone = sync_index(index, homes=[home], include_recovered=False)
    assert gone.sessions_removed == 1 and not any(k.startswith("recovered:") for k in _stores(index))
    assert search(index, "vault", SearchFilters()).conversations == []
