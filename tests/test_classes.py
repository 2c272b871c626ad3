"""Session classes: kind (and its precedence), messaging origin, import origin, /yolo and worktrees.

Stores are written by Hermes' own code (``SessionDB``, the gateway's ``SessionStore``, and with a newer
Hermes at hand its importer, ``set_session_yolo`` and ``set_session_hidden``); the rows Hermes 0.19.0
cannot write each say why.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.model import ImportOrigin, Messaging, Session

VERSIONS = ("corpus-v22", "corpus-v31")


def _write(tmp_path: Path, build: Callable[[Any], Any]) -> Path:
    path = tmp_path / "state.db"
    with hermesdb.hermes_env(tmp_path):
        db = hermesdb.session_db(path)
        try:
            build(db)
        finally:
            db.close()
    return path


def _read(path: Path) -> dict[str, Session]:
    with open_history(dbs=[path]) as history:
        assert not history.strays
        return {s.id: s for s in history.sessions}


def _peer(db: Any, sid: str, source: str, origin: dict[str, Any], **row: Any) -> None:
    """The gateway's routing peer and serialized origin, as ``SessionStore`` records them (every routing
    column is written: those not given become NULL)."""
    db.record_gateway_session_peer(
        sid, source=source, session_key=f"agent:main:{source}:{sid}", origin_json=json.dumps(origin), **row
    )


# -- the corpus (corpusgen.py) -------------------------------------------------------------------------------
def _scenarios(corpus_dir: Path, version: str) -> dict[str, list[str]]:
    manifest = json.loads((corpus_dir / version / "manifest.json").read_text())
    return {s["scenario"]: s["session_ids"] for s in manifest["scenarios"]}


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_kinds(corpus_dir, version):
    scenarios = _scenarios(corpus_dir, version)
    sessions = _read(corpus_dir / version / "hermes_home" / "state.db")
    expected = {sid: "interactive" for sid in sessions}
    (cron,) = scenarios["cron_session"]
    (empty_cwd_cron,) = scenarios["rawsql_cron_empty_cwd"]
    (discord,) = scenarios["discord_gateway"]
    _parent, subagent = scenarios["delegate_subagent"]
    expected.update({cron: "cron", empty_cwd_cron: "cron", discord: "messaging", subagent: "subagent"})
    assert {sid: s.kind for sid, s in sessions.items()} == expected
    (archived,) = scenarios["archived"]
    assert sessions[archived].archived
    for session in sessions.values():
        assert session.imported is None and session.worktree is None and not session.yolo, session.id
        assert (session.messaging is None) == (session.id != discord), session.id
        assert not session.problems, session.id
    (work,) = _read(corpus_dir / version / "hermes_home" / "profiles" / "oracle-work" / "state.db").values()
    assert work.kind == "interactive"


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_discord_session_names_platform_chat_thread_and_user(corpus_dir, version):
    (discord,) = _scenarios(corpus_dir, version)["discord_gateway"]
    expect = json.loads((corpus_dir / version / "expect" / "state.db.json").read_text())
    row = expect["sessions"][discord]["get_session"]
    origin = json.loads(row["origin_json"])
    session = _read(corpus_dir / version / "hermes_home" / "state.db")[discord]
    assert session.messaging == Messaging(
        platform="discord",
        chat_id=row["chat_id"],
        chat_name=row["display_name"],
        chat_type="thread",
        user_id=row["user_id"],
        user_name=origin["user_name"],
        thread_id=row["thread_id"],
    )
    assert session.project == "hermes"  # no workspace: the generic bucket, as before


# -- messaging ---------------------------------------------------------------------------------------------
def test_gateway_session_store_session_is_messaging(monkeypatch, hermes_sandbox):
    import hermes_state
    from gateway.config import GatewayConfig, Platform
    from gateway.session import SessionSource, SessionStore

    # SessionStore opens SessionDB() at hermes_state's DEFAULT_DB_PATH, fixed from HERMES_HOME when
    # hermes_state was first imported (by an earlier test): point it at this test's home.
    monkeypatch.setattr(hermes_state, "DEFAULT_DB_PATH", hermes_sandbox / "state.db")
    store = SessionStore(hermes_sandbox / "sessions", GatewayConfig())
    source = SessionSource(
        platform=Platform.TELEGRAM,
        chat_id="555",
        chat_name="Ada",
        chat_type="dm",
        user_id="42",
        user_name="ada",
    )
    entry = store.get_or_create_session(source)
    store._db.close()
    session = _read(hermes_sandbox / "state.db")[entry.session_id]
    assert session.kind == "messaging"
    assert session.messaging == Messaging(
        platform="telegram", chat_id="555", chat_name="Ada", chat_type="dm", user_id="42", user_name="ada"
    )


def test_row_columns_come_before_origin_json(tmp_path):
    def build(db: Any) -> None:
        db.create_session("s", "slack", user_id="U1", chat_id="C1", chat_type="thread", thread_id="T1")
        origin = {
            "platform": "slack",
            "chat_id": "C-old",
            "chat_name": "#ops (old)",
            "chat_type": "channel",
            "user_id": "U-old",
            "user_name": "kim",
            "thread_id": "T-old",
        }
        _peer(
            db,
            "s",
            "slack",
            origin,
            display_name="#ops",
            chat_id="C1",
            user_id="U1",
            chat_type="thread",
            thread_id="T1",
        )

    session = _read(_write(tmp_path, build))["s"]
    assert session.messaging == Messaging(
        platform="slack",
        chat_id="C1",
        chat_name="#ops",
        chat_type="thread",
        user_id="U1",
        user_name="kim",
        thread_id="T1",
    )


def test_origin_json_fills_what_the_row_lacks(tmp_path):
    def build(db: Any) -> None:
        db.create_session("s", "matrix")
        origin = {
            "platform": "matrix",
            "chat_id": "!room:hs",
            "chat_name": "Ops",
            "chat_type": "group",
            "user_id": 7,
            "user_name": "kim",
            "thread_id": None,
        }
        _peer(db, "s", "matrix", origin)

    session = _read(_write(tmp_path, build))["s"]
    assert session.messaging == Messaging(
        platform="matrix",
        chat_id="!room:hs",
        chat_name="Ops",
        chat_type="group",
        user_id="7",
        user_name="kim",
    )


def test_plugin_platform_chat_is_messaging_but_local_and_api_server_are_not(tmp_path):
    def build(db: Any) -> None:
        db.create_session("irc", "irc", chat_id="#hermes", chat_type="channel", user_id="ada")
        db.create_session("api", "api_server", chat_id="conv-1")
        db.create_session("local", "local", chat_id="conv-2")
        db.create_session("cli", "cli", chat_id="conv-3")

    sessions = _read(_write(tmp_path, build))
    assert sessions["irc"].kind == "messaging"
    assert sessions["irc"].messaging == Messaging(
        platform="irc", chat_id="#hermes", chat_type="channel", user_id="ada"
    )
    for sid in ("api", "local", "cli"):
        assert (sessions[sid].kind, sessions[sid].messaging) == ("interactive", None), sid


# -- Bot Chat, cron, sub-agents, tools ---------------------------------------------------------------------
def test_bot_chat_is_the_session_titled_exactly_bot_chat(tmp_path):
    def build(db: Any) -> None:
        db.create_session("bot", "cli", profile_name="helper")
        db.set_session_title("bot", "Bot Chat")
        db.create_session("numbered", "cli", profile_name="helper")
        db.set_session_title("numbered", "Bot Chat #2")
        db.create_session("lower", "cli", profile_name="helper")
        db.set_session_title("lower", "bot chat")

    sessions = _read(_write(tmp_path, build))
    assert {sid: s.kind for sid, s in sessions.items()} == {
        "bot": "bot_chat",
        "numbered": "interactive",
        "lower": "interactive",
    }


def test_cron_runs_are_told_by_source_id_or_end_reason(tmp_path):
    def build(db: Any) -> None:
        # As cron/scheduler.py writes a run: platform 'cron', id cron_<job>_<stamp>, no cwd.
        db.create_session("cron_job1_20261102_090000", "cron", model="m")
        db.end_session("cron_job1_20261102_090000", "cron_complete")
        # Each sign alone tells a cron run.
        db.create_session("by_source", "cron", cwd="/w")
        db.create_session("cron_job2_20261102_090000", "cli", cwd="/w")
        db.create_session("by_end", "cli", cwd="/w")
        db.end_session("by_end", "cron_complete")
        db.create_session("by_failed_end", "cli", cwd="/w")
        db.end_session("by_failed_end", "cron_incomplete_no_output")
        # An empty cwd is no sign: gateway and Bot Chat sessions have none either.
        db.create_session("no_cwd", "cli", cwd="")

    sessions = _read(_write(tmp_path, build))
    assert {sid: s.kind for sid, s in sessions.items()} == {
        "cron_job1_20261102_090000": "cron",
        "by_source": "cron",
        "cron_job2_20261102_090000": "cron",
        "by_end": "cron",
        "by_failed_end": "cron",
        "no_cwd": "interactive",
    }


def test_subagent_and_tool_sessions(tmp_path):
    def build(db: Any) -> None:
        db.create_session("parent", "cli")
        db.create_session(
            "sub", "subagent", model_config={"_delegate_from": "parent"}, parent_session_id="parent"
        )
        db.create_session("untagged_sub", "subagent", parent_session_id="parent")
        # Hermes' schema 16 migration tags an orphaned sub-agent run '__orphaned__' and leaves no parent.
        db.create_session("orphaned", "cli", model_config={"_delegate_from": "__orphaned__"})
        db.create_session("driven", "tool", cwd="/w")  # hermes chat --source tool, another agent driving

    sessions = _read(_write(tmp_path, build))
    assert {sid: s.kind for sid, s in sessions.items()} == {
        "parent": "interactive",
        "sub": "subagent",
        "untagged_sub": "subagent",
        "orphaned": "subagent",
        "driven": "tool",
    }
    assert sessions["orphaned"].relation == "root"


# -- imported sessions --------------------------------------------------------------------------------------
def test_imported_session_names_tool_path_and_original_id(tmp_path):
    origin = {
        "imported_from": {
            "tool": "claude-code",
            "path": "/home/ada/.claude/projects/app/c0ffee.jsonl",
            "foreign_session_id": "c0ffee-1",
        }
    }

    def build(db: Any) -> None:
        db.create_session("imp", "claude-code", cwd="/home/ada/app")
        db.append_message("imp", "user", "Why does the build fail?")
        db.set_session_title("imp", "Imported from Claude Code: Why does the build fail?")
        db.create_session("codex", "codex-cli", cwd="/home/ada/app")

    path = _write(tmp_path, build)
    # Hermes 0.19.0 has no importer and its create_session takes no origin_json; the newer importer
    # (hermes_cli/foreign_sessions.py) creates the row with this origin_json (see the test below).
    hermesdb.sql(path, "UPDATE sessions SET origin_json = ? WHERE id = 'imp'", (json.dumps(origin),))
    sessions = _read(path)
    assert sessions["imp"].kind == "imported"
    assert sessions["imp"].imported == ImportOrigin(
        tool="claude-code", path="/home/ada/.claude/projects/app/c0ffee.jsonl", original_id="c0ffee-1"
    )
    assert (sessions["codex"].kind, sessions["codex"].imported) == (
        "imported",
        ImportOrigin(tool="codex-cli"),
    )


@pytest.mark.parametrize(
    ("origin_json", "problem"),
    [
        ('{"imported_from": "claude-code"}', None),
        ("not json", "origin_json is not valid JSON"),
        ('["imported_from"]', "origin_json is a JSON array, not an object"),
    ],
)
def test_an_origin_that_names_no_import_is_no_import(tmp_path, origin_json, problem):
    path = _write(tmp_path, lambda db: db.create_session("s", "cli", cwd="/w"))
    # Hermes writes origin_json with json.dumps of a dict; these shapes are damaged rows.
    hermesdb.sql(path, "UPDATE sessions SET origin_json = ? WHERE id = 's'", (origin_json,))
    session = _read(path)["s"]
    assert (session.kind, session.imported, session.messaging) == ("interactive", None, None)
    assert session.problems == ([problem] if problem else [])


# -- /yolo ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "yolo"),
    [
        ({"yolo_mode": True}, True),
        ({"yolo_mode": False}, False),
        ({"max_iterations": 12}, False),
        (None, False),
    ],
)
def test_yolo_is_model_config_yolo_mode(tmp_path, config, yolo):
    # The session row records /yolo at creation (agent/agent_init.py puts yolo_mode in the model_config
    # it creates the row with); 0.19.0's create_session writes that model_config as Hermes passes it.
    path = _write(tmp_path, lambda db: db.create_session("s", "cli", model_config=config))
    assert _read(path)["s"].yolo is yolo


def test_a_model_config_that_is_no_json_object_reads_as_empty(tmp_path):
    path = _write(tmp_path, lambda db: db.create_session("s", "cli"))
    # Hermes writes model_config with json.dumps of a dict; text that does not parse is a damaged row.
    hermesdb.sql(path, "UPDATE sessions SET model_config = ? WHERE id = 's'", ('{"yolo_mode": true',))
    session = _read(path)["s"]
    assert (session.yolo, session.problems) == (False, ["model_config is not valid JSON"])


# -- worktrees -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cwd", "branch", "worktree", "project"),
    [
        # hermes -w (TUI): the row's cwd is the tree Hermes made, or a directory inside it.
        (
            "/home/ada/app/.worktrees/fix-login",
            "hermes/fix-login",
            "/home/ada/app/.worktrees/fix-login",
            "/home/ada/app",
        ),
        (
            "/home/ada/app/.worktrees/fix-login/src/pkg",
            "hermes/fix-login",
            "/home/ada/app/.worktrees/fix-login",
            "/home/ada/app",
        ),
        # A delegated sub-agent's tree (tools/subagent_worktree.py).
        (
            "/home/ada/app/.worktrees/subagent-1a2b3c4d",
            "hermes-subagent/subagent-1a2b3c4d",
            "/home/ada/app/.worktrees/subagent-1a2b3c4d",
            "/home/ada/app",
        ),
        # The innermost tree wins when a repository sits inside another's worktree.
        (
            "/home/ada/app/.worktrees/a/vendor/lib/.worktrees/b",
            "hermes/b",
            "/home/ada/app/.worktrees/a/vendor/lib/.worktrees/b",
            "/home/ada/app/.worktrees/a/vendor/lib",
        ),
        (
            "C:\\Users\\ada\\app\\.worktrees\\x",
            "hermes/x",
            "C:\\Users\\ada\\app\\.worktrees\\x",
            "C:\\Users\\ada\\app",
        ),
        # Not a tree Hermes made: a user's own branch, a classic -w row (the repository root), no tree.
        ("/home/ada/app/.worktrees/fix-login", "main", None, "/home/ada/app/.worktrees/fix-login"),
        ("/home/ada/app", "hermes/fix-login", None, "/home/ada/app"),
        ("/home/ada/app/worktrees/x", "hermes/x", None, "/home/ada/app/worktrees/x"),
    ],
)
def test_worktree_sessions_belong_to_their_repository(tmp_path, cwd, branch, worktree, project):
    def build(db: Any) -> None:
        db.create_session("s", "tui")
        db.update_session_cwd("s", cwd, git_branch=branch)

    session = _read(_write(tmp_path, build))["s"]
    assert (session.cwd, session.git_branch) == (cwd, branch)
    assert (session.worktree, session.project) == (worktree, project)


# -- precedence ----------------------------------------------------------------------------------------------
_DISCORD = {"platform": "discord", "chat_id": "1", "chat_type": "dm", "user_id": "2"}


def _imported_bot_chat(db: Any) -> None:
    db.create_session("s", "claude-code")
    db.set_session_title("s", "Bot Chat")


def _bot_chat_cron(db: Any) -> None:
    db.create_session("s", "cli")
    db.set_session_title("s", "Bot Chat")
    db.end_session("s", "cron_complete")


def _cron_subagent(db: Any) -> None:
    db.create_session("s", "cron", model_config={"_delegate_from": "x"})


def _subagent_tool(db: Any) -> None:
    db.create_session("s", "tool", model_config={"_delegate_from": "x"})


def _tool_messaging(db: Any) -> None:
    db.create_session("s", "tool")
    _peer(db, "s", "tool", _DISCORD)


def _subagent_messaging(db: Any) -> None:
    db.create_session("s", "subagent")
    _peer(db, "s", "subagent", _DISCORD)


@pytest.mark.parametrize(
    ("build", "kind"),
    [
        (_imported_bot_chat, "imported"),
        (_bot_chat_cron, "bot_chat"),
        (_cron_subagent, "cron"),
        (_subagent_tool, "subagent"),
        (_tool_messaging, "tool"),
        (_subagent_messaging, "subagent"),
    ],
)
def test_kind_precedence(tmp_path, build, kind):
    """Rows that show two classes at once, each pinning one step of the documented order: imported, Bot
    Chat, cron, sub-agent, tool, messaging. Hermes writes no such row in one flow; each is made with its
    own SessionDB calls."""
    session = _read(_write(tmp_path, build))["s"]
    assert session.kind == kind


def test_detail_is_filled_whatever_kind_won(tmp_path):
    def build(db: Any) -> None:
        _imported_bot_chat(db)
        db.create_session("t", "tool")
        _peer(db, "t", "tool", _DISCORD)

    sessions = _read(_write(tmp_path, build))
    assert sessions["s"].imported == ImportOrigin(tool="claude-code")
    assert sessions["t"].messaging == Messaging(platform="discord", chat_id="1", chat_type="dm", user_id="2")


# -- a newer Hermes, when one is at hand -------------------------------------------------------------------
_NEXT_WRITERS = r"""
import json, sys
from pathlib import Path
from hermes_cli.foreign_sessions import import_foreign_session
from hermes_state import SessionDB

home = Path(sys.argv[1])
db = SessionDB(db_path=home / "state.db")
ids = {
    "claude": import_foreign_session("claude", home / "claude.jsonl", db=db),
    "codex": import_foreign_session("codex", home / "rollout-1.jsonl", db=db),
}
db.create_session("yolo", "cli", cwd="/w")
db.set_session_yolo("yolo", True)
db.create_session("bot", "cli", profile_name="helper")
db.set_session_title("bot", "Bot Chat")
db.set_session_hidden("bot", True)
db.close()
print(json.dumps(ids))
"""

_CLAUDE_JSONL = [
    {
        "type": "user",
        "sessionId": "c0ffee-1",
        "cwd": "/home/ada/app",
        "message": {"role": "user", "content": "Why does the build fail?"},
    },
    {
        "type": "assistant",
        "sessionId": "c0ffee-1",
        "cwd": "/home/ada/app",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "A missing import."}]},
    },
]
_CODEX_JSONL = [
    {"type": "session_meta", "payload": {"id": "rollout-abc", "cwd": "/home/ada/app"}},
    {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "List the files."}],
        },
    },
    {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Two files."}],
        },
    },
]


def test_newer_hermes_importer_yolo_and_hidden_bot_chat(tmp_path, newer_hermes):
    home = tmp_path / "home"
    home.mkdir()
    for name, lines in (("claude.jsonl", _CLAUDE_JSONL), ("rollout-1.jsonl", _CODEX_JSONL)):
        (home / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = subprocess.run(
        [newer_hermes, "-c", _NEXT_WRITERS, str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HERMES_HOME": str(home)},
        check=True,
    )
    ids = json.loads(out.stdout.strip().splitlines()[-1])
    sessions = _read(home / "state.db")
    claude, codex = sessions[ids["claude"]], sessions[ids["codex"]]
    assert (claude.kind, codex.kind) == ("imported", "imported")
    assert claude.imported == ImportOrigin(
        tool="claude-code", path=str(home / "claude.jsonl"), original_id="c0ffee-1"
    )
    assert codex.imported == ImportOrigin(
        tool="codex-cli", path=str(home / "rollout-1.jsonl"), original_id="rollout-abc"
    )
    assert claude.project == codex.project == "/home/ada/app"
    assert (sessions["yolo"].yolo, sessions["yolo"].kind) == (True, "interactive")
    assert (sessions["bot"].kind, sessions["bot"].hidden_flag) == ("bot_chat", True)
