"""``pastes/pending.json``, written by Hermes' ``_record_pending`` (``hermes debug share``)."""

from __future__ import annotations

import time

import hermesside as hs
from hermes_trail.hermes.sidefiles.pastes import read_pastes


def test_uploads_with_their_time(tmp_path):
    home = tmp_path / "home"
    before = time.time()
    hs.run_plan(
        home,
        [{"op": "paste", "urls": ["https://paste.rs/Xq3vT", "https://dpaste.com/NOPE"]}],
        env={"HOME": str(tmp_path)},
    )
    found, strays = read_pastes(home / "pastes" / "pending.json")
    assert strays == [] and [p.url for p in found] == ["https://paste.rs/Xq3vT"]  # dpaste is never recorded
    assert before - 1 <= found[0].uploaded_at.timestamp() <= time.time() + 1


def test_bad_entries(tmp_path):
    path = tmp_path / "pending.json"
    path.write_text('[{"url": "https://paste.rs/a", "expire_at": 1793289600.5}, {"expire_at": 1}, 7]')
    found, strays = read_pastes(path)
    assert found[0].uploaded_at.timestamp() == 1793289600.5 - 21600
    assert [(s.reason, s.value) for s in strays] == [
        ("unparseable record 2 (not an object with a url)", '{"expire_at":1}'),
        ("unparseable record 3 (not an object with a url)", "7"),
    ]
    path.write_text('{"url": 1}')
    assert read_pastes(path)[1][0].reason == "unparseable file (not a JSON list)"
