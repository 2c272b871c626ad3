"""The gateway's approved users, written by Hermes' ``PairingStore``; pending codes are never read."""

from __future__ import annotations

import time

import hermesside as hs
from hermes_trail.hermes import locate
from hermes_trail.hermes.sidefiles.pairing import read_approved


def test_approved_users(tmp_path):
    home = tmp_path / "home"
    before = time.time()
    hs.run_plan(
        home,
        [{"op": "pairing", "platform": "telegram", "user_id": "42", "user_name": "ada", "pending": ["43"]}],
        env={"HOME": str(tmp_path)},
    )
    sides = [s for s in locate.side_files(home, "default") if s.kind == "pairing"]
    assert [(s.path.parent.name, s.name) for s in sides] == [("pairing", "telegram")]
    assert not any("pending" in str(s.path) for s in locate.side_files(home, "default"))
    users, strays = read_approved(sides[0].path, "telegram")
    assert strays == [] and [(u.user_id, u.user_name) for u in users] == [("42", "ada")]
    assert before - 1 <= users[0].approved_at.timestamp() <= time.time() + 1


def test_bad_files(tmp_path):
    path = tmp_path / "x-approved.json"
    path.write_text('{"1": {"user_name": "a", "approved_at": 1}, "2": "nope"}')
    users, strays = read_approved(path, "x")
    assert [u.user_id for u in users] == ["1"]
    assert strays[0].reason == "unparseable record 2 (not an object)" and strays[0].value == '{"2":"nope"}'
    path.write_text("[1]")
    assert read_approved(path, "x")[1][0].reason == "unparseable file (not a JSON object keyed by user id)"
    path.write_text("{")
    assert read_approved(path, "x")[1][0].reason.startswith("unparseable file (not JSON")
