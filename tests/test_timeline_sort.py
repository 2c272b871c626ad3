"""The timeline's external sort: any number of rows in bounded memory, in the same order as in memory."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from hermes_trail.cli.app import app
from hermes_trail.timeline import sort
from hermes_trail.timeline.sort import ExternalSort


def test_spilled_runs_merge_into_the_in_memory_order():
    rng = random.Random(7)
    records = [
        (
            (rng.random() < 0.1, rng.random() * 100, f"f{rng.randrange(3)}", rng.randrange(-1, 5), i),
            (i, "x" * rng.randrange(50)),
        )
        for i in range(5000)
    ]
    small = ExternalSort(chunk_rows=97)
    whole = ExternalSort()
    for key, row in records:
        small.add(key, row, len(row[1]))
        whole.add(key, row, len(row[1]))
    tmp = small._dir
    assert small.spilled > 40 and whole.spilled == 0
    assert list(small) == list(whole) == [row for _, row in sorted(records)]
    assert tmp is not None and not Path(tmp).exists()  # the runs are gone once read
    assert not any(Path(tempfile.gettempdir()).glob(f"{Path(tmp).name}*"))


def test_a_spilled_timeline_equals_the_in_memory_one(forensic, monkeypatch):
    monkeypatch.setenv("HOME", str(forensic.user_home))
    monkeypatch.setenv("TRAIL_HERMES_HOME", str(forensic.home))
    whole = CliRunner().invoke(app, ["timeline"], catch_exceptions=False).stdout
    monkeypatch.setattr(sort, "CHUNK_ROWS", 7)
    spilled = CliRunner().invoke(app, ["timeline"], catch_exceptions=False).stdout
    assert spilled == whole and len(whole.splitlines()) > 100
    assert all(json.loads(line) for line in spilled.splitlines())
