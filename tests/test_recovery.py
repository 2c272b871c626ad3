"""Recovery of sessions gone from ``state.db``: from Hermes' own snapshots and from diverts."""

from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

import forensic as fx
import hermesdb as h
import hermesside as hs
from hermes_trail.cli.app import app
from hermes_trail.history import open_history
from hermes_trail.recovery import recover, recover_home


def test_deleted_sessions_come_back_from_snapshots_and_diverts(forensic):
    with open_history(homes=[forensic.home]) as history:
        found = recover(history, homes=[forensic.home])
    by_id = {s.id: s for s in found.sessions}
    gone_cron = forensic.cron_sessions["gone01"]
    assert set(by_id) == {fx.CODING_ID, fx.PRUNED_ID, fx.DIVERT_ONLY_ID}
    assert gone_cron not in by_id  # deleted after every snapshot: only its cron document remains
    coding = by_id[fx.CODING_ID]
    a, b = forensic.snapshots
    # Both snapshots hold it with the same rows: the newer copy is read, the older named.
    assert coding.recovered.kind == "snapshot" and coding.recovered.snapshot == b
    assert [p.split("/")[-2] for p in coding.recovered.also_in] == [a]
    assert coding.recovered.deleted_at.timestamp() == h.T0 + 7200.5 and not coding.recovered.swept
    assert by_id[fx.PRUNED_ID].recovered.swept and by_id[fx.PRUNED_ID].title == "Prune me"
    divert = by_id[fx.DIVERT_ONLY_ID]
    assert divert.recovered.kind == "divert" and divert.store.name == "default@divert"
    assert [f.session_id for f in found.fences_without_copy] == [fx.FENCE_ONLY_ID]
    found.load(coding)
    assert [t.role for t in coding.turns][:3] == ["user", "assistant", "tool"] and coding.turns[2].result
    found.load(divert)
    assert [t.text for t in divert.turns] == ["rotate the keys", ""] and len(divert.strays) == 2
    assert coding.chain == [fx.CODING_ID]
    found.close()


def test_a_session_in_the_live_store_is_never_recovered(tmp_path):
    home = tmp_path / "home"
    h.write_home(home, [h.chat(h.CHAT_ID, ("a", "b"))])
    hs.run_plan(home, [{"op": "snapshot"}], env={"HOME": str(tmp_path)})
    found = recover_home(home, "default", home / "state.db")
    assert found.sessions == []
    shutil.move(home / "state.db", tmp_path / "elsewhere.db")  # a replaced, lost state.db
    found = recover_home(home, "default", None)
    assert [s.id for s in found.sessions] == [h.CHAT_ID]


def test_list_deleted_and_show(forensic, monkeypatch):
    monkeypatch.setenv("TRAIL_HERMES_HOME", str(forensic.home))
    runner = CliRunner()
    result = runner.invoke(app, ["list", "--deleted", "--json"], catch_exceptions=False)
    assert result.exit_code == 3  # complete, but the fence that is not JSON was passed over, and named
    assert "state_meta.value: not JSON" in result.stderr
    data = json.loads(result.stdout)
    assert [s["table"] for s in data["strays"]] == ["state_meta"]
    assert {s["id"]: s["recovered"]["kind"] for s in data["sessions"]} == {
        fx.CODING_ID: "snapshot",
        fx.PRUNED_ID: "snapshot",
        fx.DIVERT_ONLY_ID: "divert",
    }
    assert data["total"] == 3 and data["fences_without_copy"][0]["session_id"] == fx.FENCE_ONLY_ID
    text = runner.invoke(app, ["list", "--deleted"], catch_exceptions=False)
    assert f"{fx.CODING_ID}: recovered from snapshot {forensic.snapshots[1]}" in text.stdout
    assert f"{fx.FENCE_ONLY_ID}: deleted" in text.stdout and "no copy found" in text.stdout
    shown = runner.invoke(app, ["show", fx.CODING_ID[:12], "--json"], catch_exceptions=False)
    assert shown.exit_code == 0, shown.stderr
    transcript = json.loads(shown.stdout)
    assert transcript["session"]["recovered"]["snapshot"] == forensic.snapshots[1]
    assert transcript["turns"][0]["text"] == "Run the tests and fix what fails."
    assert "recovered from snapshot" in shown.stderr
    divert = runner.invoke(app, ["show", fx.DIVERT_ONLY_ID], catch_exceptions=False)
    assert divert.exit_code == 3 and "rotate the keys" in divert.stdout  # its bad lines are reported
    missing = runner.invoke(app, ["show", "19990101_000000"], catch_exceptions=False)
    assert missing.exit_code == 1 and "trail list --deleted" in missing.stderr
    live = json.loads(runner.invoke(app, ["list", "--json", "-n", "0"], catch_exceptions=False).stdout)
    assert all(s["recovered"] is None for s in live["sessions"])
    assert fx.CODING_ID not in {s["id"] for s in live["sessions"]}
