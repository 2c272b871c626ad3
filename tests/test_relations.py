"""Lineage: each session's relation to its parent, the parents' children and the continuation chains.

Stores are written by Hermes' own code: ``SessionDB`` calls in the order Hermes' handlers make them, the
CLI's own ``/branch`` handler, the gateway's ``SessionStore``, and Hermes' own answers
(``get_compression_lineage``, ``resolve_resume_session_id``, its lineage SQL) are the oracle. The few
hand-made rows each say why Hermes cannot write them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.hermes.decode import relations
from hermes_trail.model import Session

VERSIONS = ("corpus-v22", "corpus-v31")
DATABASES = (
    ("state.db", "state.db.json"),
    ("profiles/oracle-work/state.db", "profiles__oracle-work__state.db.json"),
)


# -- writing and reading ---------------------------------------------------------------------------------
def _write(tmp_path: Path, build: Callable[[Any], Any]) -> tuple[Path, Any]:
    """A store written by ``build(db)`` through Hermes' ``SessionDB``; its path and what ``build`` gave."""
    path = tmp_path / "state.db"
    with hermesdb.hermes_env(tmp_path):
        db = hermesdb.session_db(path)
        try:
            result = build(db)
        finally:
            db.close()
    return path, result


def _read(path: Path) -> dict[str, Session]:
    with open_history(dbs=[path]) as history:
        assert not history.strays
        return {s.id: s for s in history.sessions}


def _set_times(db: Any, sid: str, started: float | None = None, ended: float | None = None) -> None:
    # SessionDB stamps started_at/ended_at with time.time() and has no method to set them (as hermesdb).
    db._execute_write(
        lambda conn: conn.execute(
            "UPDATE sessions SET started_at = coalesce(?, started_at), ended_at = coalesce(?, ended_at)"
            " WHERE id = ?",
            (started, ended, sid),
        )
    )


def _say(db: Any, sid: str, text: str = "hello") -> None:
    db.append_message(sid, "user", text)
    db.append_message(sid, "assistant", "ok")


def _compress(db: Any, parent: str, child: str, *, source: str = "cli", config: Any = None) -> None:
    """A compression rotation as ``agent/conversation_compression.py`` writes it: end, then the child row
    with the agent's own ``model_config`` (inherited markers and all) and the parent link."""
    db.end_session(parent, "compression")
    db.create_session(child, source, model="m", model_config=config, parent_session_id=parent)


def _branch(db: Any, parent: str, history: list[dict[str, Any]]) -> str:
    """Run Hermes' own CLI ``/branch`` handler on ``parent``; returns the branch's session id.

    The handler is a method of the CLI object; the stand-in carries only the attributes it reads.
    """
    from hermes_cli.cli_commands_mixin import CLICommandsMixin

    class Cli(CLICommandsMixin):
        pass

    cli = Cli.__new__(Cli)
    cli.conversation_history = history
    cli._session_db, cli.session_id, cli.agent = db, parent, None
    cli.max_turns, cli.model, cli.reasoning_config = 12, "m", None
    cli._transfer_session_yolo = lambda old, new: None
    cli._handle_branch_command("/branch")
    assert cli.session_id != parent, "Hermes' /branch handler did not branch"
    return str(cli.session_id)


# -- the corpus (corpusgen.py): Hermes' own answers ----------------------------------------------------------
@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("db", "expect_name"), DATABASES)
def test_corpus_chains_are_hermes_compression_lineage(corpus_dir, version, db, expect_name):
    base = corpus_dir / version
    expect = json.loads((base / "expect" / expect_name).read_text())
    sessions = _read(base / "hermes_home" / db)
    assert set(sessions) == set(expect["sessions"])
    for sid, answers in expect["sessions"].items():
        assert sessions[sid].chain == answers["get_compression_lineage"], sid
        assert sessions[sid].chain[-1] == answers["resolve_resume_session_id"], sid


def _scenario(corpus_dir: Path, version: str, name: str) -> list[str]:
    manifest = json.loads((corpus_dir / version / "manifest.json").read_text())
    (ids,) = [s["session_ids"] for s in manifest["scenarios"] if s["scenario"] == name]
    return list(ids)


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_a_continuation_or_subagent_without_a_workspace_keeps_its_parents_project(corpus_dir, version):
    """Hermes 0.19 records no cwd on a compression child; the conversation stays in one project."""
    sessions = _read(corpus_dir / version / "hermes_home" / "state.db")
    for scenario in ("compression_child", "delegate_subagent"):
        parent_id, child_id = _scenario(corpus_dir, version, scenario)
        parent, child = sessions[parent_id], sessions[child_id]
        assert child.project == parent.project != "hermes", scenario
    # The branch child records its own cwd, and keeps it.
    _, branch_id = _scenario(corpus_dir, version, "branch_child")
    assert sessions[branch_id].project == sessions[branch_id].cwd


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_relations_of_compression_branch_and_subagent(corpus_dir, version):
    sessions = _read(corpus_dir / version / "hermes_home" / "state.db")
    children = {}
    for scenario, relation, marked in (
        ("compression_child", "continuation", False),
        ("branch_child", "branch", True),
        ("delegate_subagent", "delegate", True),
    ):
        parent_id, child_id = _scenario(corpus_dir, version, scenario)
        parent, child = sessions[parent_id], sessions[child_id]
        assert (parent.relation, parent.relation_marked) == ("root", False), scenario
        assert (child.relation, child.relation_marked) == (relation, marked), scenario
        assert parent.children == [(relation, child_id)], scenario
        children[child_id] = parent_id
    for sid, session in sessions.items():
        if sid not in children:
            assert session.relation == "root" and session.parent_id is None, sid
        assert not session.problems, sid


# -- Hermes' own answers on stores written in the test ---------------------------------------------------
def _lineage_store(db: Any) -> dict[str, Any]:
    """A store of every shape Hermes 0.19.0's lineage functions and ours read alike, plus Hermes' answers."""
    # Two compressions: a -> b -> c.
    db.create_session("a", "cli", model="m", model_config={"max_iterations": 12}, cwd="/w")
    _say(db, "a")
    _compress(db, "a", "b", config={"max_iterations": 12})
    _say(db, "b")
    _compress(db, "b", "c", config={"max_iterations": 12})
    _say(db, "c")
    # A rotation race: x is the live continuation, y a stale sibling closed by the orphan reaper.
    db.create_session("r", "cli", model="m")
    _say(db, "r")
    _compress(db, "r", "x")
    _compress(db, "r", "y")
    _say(db, "y")
    db.end_session("y", "ws_orphan_reap")
    _say(db, "x", "the real continuation")
    # /branch through Hermes' own handler.
    db.create_session("p", "cli", model="m")
    _say(db, "p")
    branch = _branch(db, "p", [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "ok"}])
    _say(db, branch)
    # A sub-agent run as delegate_tool records it, and a tool session under the same parent.
    db.create_session("d", "cli", model="m")
    _say(db, "d")
    db.create_session("s", "subagent", model="m", model_config={"_delegate_from": "d"}, parent_session_id="d")
    _say(db, "s")
    db.end_session("s", "agent_close")
    db.create_session("t", "tool", model="m", parent_session_id="d")
    _say(db, "t")
    ids = [row["id"] for row in db._conn.execute("SELECT id FROM sessions")]

    def where(predicate: str) -> set[str]:
        sql = f"SELECT id FROM sessions s WHERE s.parent_session_id IS NOT NULL AND ({predicate})"
        return {row["id"] for row in db._conn.execute(sql)}

    import hermes_state

    return {
        "branch": branch,
        "lineage": {sid: db.get_compression_lineage(sid) for sid in ids},
        "resume": {sid: db.resolve_resume_session_id(sid) for sid in ids},
        "branch_children": where(hermes_state._BRANCH_CHILD_SQL.format(a="s")),
        "compression_children": where(hermes_state._COMPRESSION_CHILD_SQL.format(a="s")),
        "ephemeral_children": where(hermes_state._ephemeral_child_sql("s")),
    }


def test_chains_and_relations_agree_with_hermes_own_lineage(tmp_path):
    path, hermes = _write(tmp_path, _lineage_store)
    sessions = _read(path)
    for sid, lineage in hermes["lineage"].items():
        if sid != "y":  # the stale sibling: see test_second_continuation_has_its_own_path
            assert sessions[sid].chain == lineage, sid
        assert sessions[sid].chain[-1] == hermes["resume"][sid], sid
    by_relation: dict[str, set[str]] = {}
    for sid, session in sessions.items():
        by_relation.setdefault(session.relation or "", set()).add(sid)
    assert by_relation["branch"] == hermes["branch_children"] == {hermes["branch"]}
    assert by_relation["continuation"] == hermes["compression_children"] == {"b", "c", "x", "y"}
    assert by_relation["delegate"] | by_relation["tool"] == hermes["ephemeral_children"] == {"s", "t"}
    assert by_relation["tool"] == {"t"}
    assert by_relation["root"] == {"a", "r", "p", "d"}


def test_a_compression_chain_reads_as_one_conversation(tmp_path):
    path, _ = _write(tmp_path, _lineage_store)
    sessions = _read(path)
    assert [sessions[s].chain for s in "abc"] == [["a", "b", "c"]] * 3
    for sid in "bc":
        assert (sessions[sid].relation, sessions[sid].relation_marked) == ("continuation", False)
    assert sessions["a"].children == [("continuation", "b")]
    assert sessions["b"].children == [("continuation", "c")]
    assert sessions["c"].children == []


def test_second_continuation_has_its_own_path(tmp_path):
    path, hermes = _write(tmp_path, _lineage_store)
    sessions = _read(path)
    # The earliest-started continuation carries the chain, as get_compression_lineage walks it ...
    assert sessions["r"].chain == sessions["x"].chain == ["r", "x"] == hermes["lineage"]["r"]
    # ... and the stale sibling reads as the conversation it is (Hermes' lineage gives it alone).
    assert sessions["y"].chain == ["r", "y"] and hermes["lineage"]["y"] == ["y"]
    assert sessions["r"].children == [("continuation", "x"), ("continuation", "y")]


def test_branch_delegate_and_tool_children_are_marked(tmp_path):
    path, hermes = _write(tmp_path, _lineage_store)
    sessions = _read(path)
    branch = sessions[hermes["branch"]]
    assert (branch.relation, branch.relation_marked, branch.chain) == ("branch", True, [branch.id])
    assert sessions["p"].children == [("branch", branch.id)]
    assert sessions["p"].end_reason == "branched"
    assert (sessions["s"].relation, sessions["s"].relation_marked) == ("delegate", True)
    assert (sessions["t"].relation, sessions["t"].relation_marked) == ("tool", True)
    assert sessions["d"].children == [("delegate", "s"), ("tool", "t")]
    assert sessions["d"].chain == ["d"]


# -- markers ------------------------------------------------------------------------------------------------
def test_markers_count_only_when_they_name_the_parent(tmp_path):
    """A continuation inherits its parent's model_config, markers included; an inherited marker names the
    grandparent and must not turn the continuation into a fork (hermes_state_messages, schema 31)."""

    def build(db: Any) -> str:
        db.create_session("p", "cli", model="m")
        _say(db, "p")
        branch = _branch(db, "p", [{"role": "user", "content": "hello"}])
        config = db.get_session(branch)["model_config"]
        _compress(db, branch, "b2", config=json.loads(config))
        # A sub-agent's continuation carries the agent's _delegate_from, naming the sub-agent's parent.
        db.create_session("s1", "subagent", model_config={"_delegate_from": "p"}, parent_session_id="p")
        _compress(db, "s1", "s2", source="subagent", config={"_delegate_from": "p"})
        return branch

    path, branch = _write(tmp_path, build)
    sessions = _read(path)
    assert json.loads(sessions["b2"].raw["model_config"])["_branched_from"] == "p"
    assert (sessions["b2"].relation, sessions["b2"].relation_marked) == ("continuation", False)
    assert sessions[branch].chain == sessions["b2"].chain == [branch, "b2"]
    assert (sessions["s1"].relation, sessions["s1"].relation_marked) == ("delegate", True)
    assert (sessions["s2"].relation, sessions["s2"].relation_marked) == ("continuation", False)
    assert sessions["s2"].chain == ["s1", "s2"]
    assert sessions["p"].children == [("branch", branch), ("delegate", "s1")]


@pytest.mark.parametrize(
    ("marker", "relation"),
    [("_branched_from", "branch"), ("_delegate_from", "delegate"), ("_reset_from", "reset")],
)
def test_a_marker_naming_the_parent_beats_its_compression_end(tmp_path, marker, relation):
    """A fork of a compression-ended parent is its own conversation, not the continuation (#114271)."""

    def build(db: Any) -> None:
        db.create_session("p", "cli")
        _compress(db, "p", "c")
        db.create_session("f", "cli", model_config={marker: "p"}, parent_session_id="p")

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    assert (sessions["f"].relation, sessions["f"].relation_marked) == (relation, True)
    assert sessions["p"].chain == sessions["c"].chain == ["p", "c"]
    assert sessions["f"].chain == ["f"]


def test_a_tool_session_is_a_tool_child_whatever_its_parent_ended(tmp_path):
    def build(db: Any) -> None:
        db.create_session("p", "cli")
        db.end_session("p", "compression")
        db.create_session("t", "tool", parent_session_id="p")
        db.create_session("lone", "tool")

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    assert (sessions["t"].relation, sessions["t"].relation_marked) == ("tool", True)
    assert sessions["p"].chain == ["p"]
    assert sessions["lone"].relation == "root"


# -- resets --------------------------------------------------------------------------------------------------
def _gateway_peer(db: Any, sid: str, key: str) -> None:
    db.record_gateway_session_peer(sid, source="telegram", user_id="42", session_key=key, chat_id="555")


def test_reset_marker_as_the_gateway_writes_it(tmp_path):
    """Schema 31's gateway ends the old row with promote_to_session_reset and creates the new one with its
    parent and ``_reset_from`` in one INSERT (gateway/session_recovery.py); 0.19.0's SessionDB does both."""
    key = "agent:main:telegram:dm:555"

    def build(db: Any) -> None:
        db.create_session("old", "telegram", user_id="42", chat_id="555", chat_type="dm", session_key=key)
        _gateway_peer(db, "old", key)
        db.promote_to_session_reset("old", "session_reset")
        db.create_session(
            "new", "telegram", session_key=key, parent_session_id="old", model_config={"_reset_from": "old"}
        )

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    assert sessions["old"].end_reason == "session_reset"
    assert (sessions["new"].relation, sessions["new"].relation_marked) == ("reset", True)
    assert sessions["old"].children == [("reset", "new")]
    assert sessions["new"].chain == ["new"] and sessions["old"].chain == ["old"]


# hermes_state_common._RESET_END_REASONS (schema 31), written out so a wrong set in the reader shows.
@pytest.mark.parametrize(
    "reason", ["session_reset", "session_switch", "idle", "daily", "suspended", "resume_pending_expired"]
)
def test_legacy_reset_child_rides_the_parent_routing_key(tmp_path, reason):
    """Before the marker, a reset child is a parent ended at a reset boundary on the child's exact key."""
    key = "agent:main:telegram:dm:555"

    def build(db: Any) -> None:
        db.create_session("old", "telegram", session_key=key)
        db.end_session("old", reason)
        db.create_session("same_key", "telegram", session_key=key, parent_session_id="old")
        db.create_session("other_key", "telegram", session_key=key + ":x", parent_session_id="old")
        db.create_session("no_key", "telegram", parent_session_id="old")

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    assert (sessions["same_key"].relation, sessions["same_key"].relation_marked) == ("reset", False)
    assert sessions["other_key"].relation == "delegate"
    assert sessions["no_key"].relation == "delegate"


def test_a_child_on_the_same_key_of_a_parent_closed_otherwise_is_no_reset(tmp_path):
    key = "agent:main:telegram:dm:555"

    def build(db: Any) -> None:
        for reason in ("agent_close", "new_session", "cli_close"):
            db.create_session(reason, "telegram", session_key=key)
            db.end_session(reason, reason)
            db.create_session(f"child_of_{reason}", "telegram", session_key=key, parent_session_id=reason)

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    for reason in ("agent_close", "new_session", "cli_close"):
        assert sessions[f"child_of_{reason}"].relation == "delegate", reason


def test_gateway_reset_in_hermes_0_19_starts_a_new_root(monkeypatch, hermes_sandbox):
    """0.19.0's gateway SessionStore ends the old row ``session_reset`` and starts an unlinked one."""
    import hermes_state
    from gateway.config import GatewayConfig, Platform
    from gateway.session import SessionSource, SessionStore

    # SessionStore opens SessionDB() at hermes_state's DEFAULT_DB_PATH, fixed from HERMES_HOME when
    # hermes_state was first imported (by an earlier test): point it at this test's home.
    monkeypatch.setattr(hermes_state, "DEFAULT_DB_PATH", hermes_sandbox / "state.db")
    store = SessionStore(hermes_sandbox / "sessions", GatewayConfig())
    source = SessionSource(platform=Platform.TELEGRAM, chat_id="555", chat_type="dm", user_id="42")
    first = store.get_or_create_session(source)
    second = store.reset_session(first.session_key)
    assert second is not None
    store._db.close()
    sessions = _read(hermes_sandbox / "state.db")
    assert sessions[first.session_id].end_reason == "session_reset"
    assert [sessions[s.session_id].relation for s in (first, second)] == ["root", "root"]


# -- legacy branches and untagged children ------------------------------------------------------------------
def test_legacy_branch_is_a_child_started_after_its_parent_ended_branched(tmp_path):
    def build(db: Any) -> None:
        db.create_session("p", "cli")
        db.end_session("p", "branched")
        db.create_session("after", "cli", parent_session_id="p")
        db.create_session("before", "cli", parent_session_id="p")
        # A child started before its parent's end, and a parent ended 'branched' at a time Hermes never
        # stamps otherwise: fixed by SQL (SessionDB stamps both with time.time()).
        _set_times(db, "p", started=1000.0, ended=2000.0)
        _set_times(db, "after", started=2000.0)
        _set_times(db, "before", started=1999.0)

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    assert (sessions["after"].relation, sessions["after"].relation_marked) == ("branch", False)
    assert (sessions["before"].relation, sessions["before"].relation_marked) == ("delegate", False)
    assert sessions["p"].children == [("delegate", "before"), ("branch", "after")]


def test_untagged_children_are_subagent_runs(tmp_path):
    """Hermes' _ephemeral_child_sql takes every other child for a sub-agent run; a ``subagent`` source
    says so itself, unless its parent is a sub-agent that ended ``compression``."""

    def build(db: Any) -> None:
        db.create_session("p", "cli")
        db.end_session("p", "cli_close")
        db.create_session("plain", "cli", parent_session_id="p")
        db.create_session("sub", "subagent", parent_session_id="p")
        db.create_session("nested", "subagent", parent_session_id="sub")
        db.create_session("q", "cli")
        db.end_session("q", "compression")
        db.create_session("sub_of_compressed", "subagent", parent_session_id="q")

    path, _ = _write(tmp_path, build)
    sessions = _read(path)
    assert (sessions["plain"].relation, sessions["plain"].relation_marked) == ("delegate", False)
    assert (sessions["sub"].relation, sessions["sub"].relation_marked) == ("delegate", True)
    assert (sessions["nested"].relation, sessions["nested"].relation_marked) == ("delegate", True)
    assert (sessions["sub_of_compressed"].relation, sessions["sub_of_compressed"].relation_marked) == (
        "delegate",
        True,
    )
    assert sessions["q"].chain == ["q"]


# -- damaged links ------------------------------------------------------------------------------------------
def _drop_parent(path: Path, sid: str) -> None:
    """Remove a parent row behind Hermes' back. Hermes cannot leave a dangling link: its foreign key on
    parent_session_id is enforced, and its own deletes cascade or null out the children."""
    conn = sqlite3.connect(path)
    try:
        with conn:
            conn.execute("DELETE FROM messages WHERE session_id = ?", (sid,))
            conn.execute("DELETE FROM sessions WHERE id = ?", (sid,))
    finally:
        conn.close()


def test_a_dangling_parent_tells_only_what_the_child_row_says(tmp_path):
    def build(db: Any) -> None:
        db.create_session("gone", "cli")
        db.end_session("gone", "compression")
        db.create_session("untagged", "cli", parent_session_id="gone")
        db.create_session("branch", "cli", model_config={"_branched_from": "gone"}, parent_session_id="gone")
        db.create_session("sub", "subagent", parent_session_id="gone")
        db.create_session("reset", "telegram", model_config={"_reset_from": "gone"}, parent_session_id="gone")

    path, _ = _write(tmp_path, build)
    _drop_parent(path, "gone")
    sessions = _read(path)
    assert set(sessions) == {"untagged", "branch", "sub", "reset"}
    got = {sid: (s.relation, s.relation_marked) for sid, s in sessions.items()}
    # Its parent's 'compression' end is gone with the row: no continuation can be told.
    assert got == {
        "untagged": ("delegate", False),
        "branch": ("branch", True),
        "sub": ("delegate", True),
        "reset": ("reset", True),
    }
    for session in sessions.values():
        assert session.chain == [session.id]
        assert session.problems == ["parent_session_id 'gone' names no session of this store"]


def _link_cycle(path: Path, links: dict[str, str]) -> None:
    """Point parent_session_id into a cycle. Hermes cannot write one: the foreign key needs the parent
    first, and SessionDB.import_sessions drops the edge that would close a cycle."""
    conn = sqlite3.connect(path)
    try:
        with conn:
            for child, parent in links.items():
                conn.execute("UPDATE sessions SET parent_session_id = ? WHERE id = ?", (parent, child))
    finally:
        conn.close()


def test_a_parent_cycle_is_cut_at_its_earliest_member(tmp_path):
    def build(db: Any) -> None:
        for sid in ("a", "b", "c", "tail"):
            db.create_session(sid, "cli")
        for sid in ("a", "b", "c"):
            db.end_session(sid, "compression")
        _set_times(db, "a", started=1000.0)
        _set_times(db, "b", started=2000.0)
        _set_times(db, "c", started=3000.0)
        _set_times(db, "tail", started=4000.0)

    path, _ = _write(tmp_path, build)
    _link_cycle(path, {"a": "c", "b": "a", "c": "b", "tail": "c"})
    sessions = _read(path)
    assert sessions["a"].relation == "root"
    assert sessions["a"].problems == ["parent_session_id 'c' closes a cycle (a → c → b → a); read as a root"]
    assert [sessions[s].relation for s in ("b", "c", "tail")] == ["continuation"] * 3
    assert sessions["c"].children == [("continuation", "tail")]
    assert sessions["a"].chain == ["a", "b", "c", "tail"]
    assert sessions["tail"].chain == ["a", "b", "c", "tail"]
    assert not any(s.problems for sid, s in sessions.items() if sid != "a")


def test_a_session_that_is_its_own_parent_is_a_root(tmp_path):
    def build(db: Any) -> None:
        db.create_session("self", "cli")
        db.end_session("self", "compression")

    path, _ = _write(tmp_path, build)
    _link_cycle(path, {"self": "self"})
    (session,) = _read(path).values()
    assert (session.relation, session.chain, session.children) == ("root", ["self"], [])
    assert "closes a cycle (self → self)" in session.problems[0]


# -- order and repeat ---------------------------------------------------------------------------------------
def test_children_are_in_start_order_and_link_is_repeatable(tmp_path):
    def build(db: Any) -> None:
        db.create_session("p", "cli")
        for sid, start in (("late", 3000.0), ("early", 1000.0), ("middle", 2000.0)):
            db.create_session(sid, "subagent", parent_session_id="p")
            _set_times(db, sid, started=start)  # insertion order differs from start order on purpose

    path, _ = _write(tmp_path, build)
    with open_history(dbs=[path]) as history:
        sessions = {s.id: s for s in history.sessions}
        expected = [("delegate", "early"), ("delegate", "middle"), ("delegate", "late")]
        assert sessions["p"].children == expected
        relations.link(history.sessions)
        assert sessions["p"].children == expected
        assert sessions["early"].problems == []


def test_classify_a_session_with_no_parent_is_root(tmp_path):
    path, _ = _write(tmp_path, lambda db: db.create_session("solo", "subagent"))
    (session,) = _read(path).values()
    assert relations.classify(session, None) == ("root", False)
    assert (session.relation, session.chain, session.children) == ("root", ["solo"], [])


# -- a newer Hermes, when one is at hand -------------------------------------------------------------------
_NEXT_RESET = r"""
import sys
from pathlib import Path
from gateway.config import GatewayConfig, Platform
from gateway.session import SessionSource, SessionStore
from hermes_state import SessionDB

home = Path(sys.argv[1])
store = SessionStore(home / "sessions", GatewayConfig())
first = store.get_or_create_session(SessionSource(platform=Platform.TELEGRAM, chat_id="555", chat_type="dm"))
second = store.reset_session(first.session_key)
print(first.session_id, second.session_id)
"""


def test_newer_gateway_reset_is_a_marked_reset_child(tmp_path, newer_hermes):
    home = tmp_path / "home"
    home.mkdir()
    out = subprocess.run(
        [newer_hermes, "-c", _NEXT_RESET, str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HERMES_HOME": str(home)},
        check=True,
    )
    first, second = out.stdout.split()
    sessions = _read(home / "state.db")
    assert sessions[second].parent_id == first
    assert (sessions[second].relation, sessions[second].relation_marked) == ("reset", True)
    assert sessions[first].children == [("reset", second)]
