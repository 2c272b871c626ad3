"""A live Hermes ``SessionDB`` appends, rewinds and compacts while the index syncs and searches (issue 9).

Bounded to about 20 s here; ``bench/soak.py`` runs it longer. See ``soak.py`` for what is checked.
"""

from __future__ import annotations

import pytest

from soak import run_soak


@pytest.mark.slow
def test_every_committed_row_is_indexed_once_while_hermes_writes(tmp_path):
    home = tmp_path / "hermes_home"
    home.mkdir()
    report = run_soak(home, tmp_path / "index" / "index.db", seconds=15)
    assert report.problems == []
    assert report.writes > 100 and report.rewinds >= 1 and report.compactions >= 1
    assert report.syncs >= 3 and report.rows_checked > report.writes
