"""The ``--json`` contract: every key the serializers emit is documented in docs/json.md."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from hermes_trail import serialize
from hermes_trail.hermes.locate import Note
from hermes_trail.model import (
    Command,
    CompactionEvent,
    FileEdit,
    ImportOrigin,
    Messaging,
    ModelChange,
    ModelUsage,
    Permission,
    Recovery,
    Session,
    Store,
    Stray,
    ToolCall,
    ToolResult,
    Turn,
    Usage,
)

DOC = (Path(__file__).parents[1] / "docs" / "json.md").read_text()
DOCUMENTED = set(re.findall(r"^\| `([a-z_0-9]+)` \|", DOC, flags=re.MULTILINE))


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _sample() -> Session:
    store = Store(
        key="/x/state.db", name="default", path="/x/state.db", profile="default", home="/x", schema_version=22
    )
    now = datetime.now(UTC)
    session = Session(
        id="s",
        store=store,
        source="cli",
        title=None,
        model=None,
        cwd=None,
        git_branch=None,
        git_repo_root=None,
        profile="default",
        project="hermes",
        started_at=now,
        ended_at=None,
        last_activity_at=now,
        end_reason=None,
        parent_id=None,
        message_count=1,
    )
    session.messaging = Messaging(platform="discord")
    session.imported = ImportOrigin(tool="codex")
    session.children = [("branch", "b")]
    session.compaction_events = [CompactionEvent(kind="in_place", time=now)]
    session.model_changes = [ModelChange(model="m", provider=None, time=now, source_row=1)]
    session.model_usage = [ModelUsage(model="m", provider=None, task="", usage=Usage())]
    result = ToolResult(call_id="c", tool_name="terminal", text="ok", source_row=2, time=now)
    call = ToolCall(
        id="c",
        aliases=("c",),
        name="terminal",
        arguments_text="{}",
        arguments={},
        result=result,
        command=Command(command="ls", exit_code=0, status="ok", output=""),
        permission=Permission(outcome="approved"),
        edits=[FileEdit(path="p", action="write")],
    )
    session.turns = [
        Turn(
            role="assistant",
            text="",
            source_row=1,
            time=now,
            store="default",
            session_id="s",
            tool_calls=[call],
        ),
        Turn(role="tool", text="ok", source_row=2, time=now, store="default", session_id="s", result=result),
    ]
    session.strays = [Stray(where="w", reason="r", value="v")]
    session.recovered = Recovery(kind="snapshot", path="p", snapshot="s", taken_at=now, also_in=["q"])
    return session


def test_every_show_key_is_documented():
    keys = _keys(serialize.transcript_json(_sample()))
    assert keys - DOCUMENTED == set()


def test_every_list_key_is_documented():
    listing = {
        "sessions": [serialize.session_json(_sample())],
        "total": 1,
        "strays": [serialize.stray_json(Stray(where="w", reason="r"))],
        "notes": [serialize.note_json(Note("p", "r"))],
        "demo": False,
    }
    assert _keys(listing) - DOCUMENTED == set()


def test_every_index_result_key_is_documented():
    import dataclasses

    from hermes_trail.index import blame, fix, how
    from hermes_trail.index.results import Hit
    from hermes_trail.serialize import hit_json

    classes = [fix.FixReport, fix.Term, fix.Failure, fix.Fix, fix.FixExample, blame.BlameEntry, how.HowEntry]
    names = {f.name for cls in classes for f in dataclasses.fields(cls)}
    hit = Hit(
        1,
        "s",
        "id",
        "r",
        "p",
        "proj",
        None,
        "interactive",
        "id",
        None,
        1,
        0,
        "user",
        "prompt",
        None,
        None,
        None,
        None,
        False,
        1.0,
    )
    names |= set(hit_json(hit)) | {"path", "edits", "what", "commands", "stores", "sessions", "docs", "bytes"}
    names |= {"query", "matches", "windowed", "seconds", "conversations", "store", "root", "score", "hits"}
    assert names - DOCUMENTED == set()


def test_every_install_key_is_documented(tmp_path, monkeypatch):
    from hermes_trail.cli.install import _report
    from hermes_trail.integrations.hermes import install

    home = tmp_path / "home"
    home.mkdir()
    plan = install.plan_install(install.Target(home, "default"))
    keys = {"homes"} | set(_report(plan, [tmp_path / "b"], True, "would install"))
    assert keys - DOCUMENTED == set()


def test_every_recovery_and_timeline_key_is_documented(forensic, monkeypatch):
    import json

    from typer.testing import CliRunner

    from hermes_trail.cli.app import app
    from hermes_trail.timeline import FIELDS

    monkeypatch.setenv("TRAIL_HERMES_HOME", str(forensic.home))
    listing = json.loads(CliRunner().invoke(app, ["list", "--deleted", "--json"]).stdout)
    assert listing["sessions"] and listing["fences_without_copy"]
    assert _keys(listing) - DOCUMENTED == set()
    assert set(FIELDS) - DOCUMENTED == set()


def test_every_resume_key_is_documented(tmp_path):
    from hermes_trail.resume import plan_resume

    session = _sample()
    plan = plan_resume("s", tmp_path, "default", env={"HOME": str(tmp_path)})
    assert set(serialize.resume_json(plan, session)) - DOCUMENTED == set()
