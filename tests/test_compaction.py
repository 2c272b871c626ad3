"""Compaction: summaries, archived rows and the copies an in-place compaction writes.

Stores come from Hermes' own code: the corpus (``/compress`` run by Hermes 0.19.0 and the schema-31
fork), and stores written here by ``ContextCompressor.compress`` (its summary call stubbed) handing its
list to ``SessionDB.archive_and_compact``, exactly as ``agent/conversation_compression.py`` does in place.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.hermes.decode.compaction import is_tool_stub, parse_handoff
from hermes_trail.model import Session, Turn

VERSIONS = ("corpus-v22", "corpus-v31")
SID = "20261102_090000_c0mp01"
END = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"


# -- reading ---------------------------------------------------------------------------------------------
def _load(path: Path, session_id: str) -> Session:
    with open_history(dbs=[path]) as history:
        return history.load(history.find(session_id))


def _every(session: Session) -> list[Turn]:
    return sorted([*session.turns, *session.hidden], key=lambda t: (t.source_row, t.part))


def _read_once(session: Session) -> list[str]:
    """Prompts a person typed, each row read once: copies are read from their original."""
    return [t.text for t in _every(session) if t.typed and t.copy_of is None and not t.rewound]


def _summaries(session: Session) -> list[Turn]:
    return [t for t in _every(session) if t.role == "summary"]


def _assert_copies_point_at_originals(session: Session) -> None:
    rows = {t.source_row: t for t in _every(session) if t.part == 0}
    for turn in _every(session):
        if turn.copy_of is not None:
            original = rows[turn.copy_of]
            assert original.copy_of is None, turn.uid
            assert original.compacted and not original.rewound, turn.uid


# -- the corpus (corpusgen.py) -------------------------------------------------------------------------------
def _scenario(corpus_dir: Path, version: str, name: str) -> list[str]:
    manifest = json.loads((corpus_dir / version / "manifest.json").read_text())
    return next(s["session_ids"] for s in manifest["scenarios"] if s["scenario"] == name)


def _corpus_db(corpus_dir: Path, version: str) -> Path:
    return corpus_dir / version / "hermes_home" / "state.db"


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_in_place_compaction(corpus_dir, version):
    """``/compress`` in place: 14 rows archived, head of 3 and tail of 9 copied, the summary between."""
    (sid,) = _scenario(corpus_dir, version, "compaction_in_place")
    session = _load(_corpus_db(corpus_dir, version), sid)
    archived = sorted(t.source_row for t in session.hidden)
    assert len(archived) == 14
    assert all(t.compacted and not t.rewound for t in session.hidden)  # v31's superseded tail too
    (summary,) = _summaries(session)
    assert summary.kind == "compaction_summary" and summary.copy_of is None
    assert summary.text.startswith("[CONTEXT COMPACTION — REFERENCE ONLY]")
    assert summary.text.endswith(END)
    live = [t for t in session.turns if t.role != "summary"]
    head, tail = live[:3], live[3:12]
    assert [t.copy_of for t in head] == archived[:3]
    assert [t.copy_of for t in tail] == archived[5:]
    # and nothing else: the prompt after the compaction, and its answer, are new
    assert [t.copy_of is None for t in live[12:]] == [True, True]
    assert [t.text for t in live[12:] if t.typed] == ["Remind me what we did before the compaction."]
    assert _read_once(session).count("What does exit code 2 mean for ls?") == 1
    assert session.compactions == 1
    (event,) = session.compaction_events
    assert (event.kind, event.summary_row, event.archived) == ("in_place", summary.source_row, 14)
    _assert_copies_point_at_originals(session)


@pytest.mark.corpus
def test_corpus_v31_carrier_is_split_and_superseded_rows_are_not_rewound(corpus_dir):
    """Schema 31 merges the summary into the first tail message and flags that tail's originals as if
    rewound (``active = 0, compacted = 0``); they share ``message_uid`` with their copies."""
    (sid,) = _scenario(corpus_dir, "corpus-v31", "compaction_in_place")
    path = _corpus_db(corpus_dir, "corpus-v31")
    session = _load(path, sid)
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)) as raw:
        sql = "SELECT id, compacted FROM messages WHERE session_id = ? AND active = 0"
        flags = dict(raw.execute(sql, (sid,)))
    superseded = [t for t in session.hidden if flags[t.source_row] == 0]
    assert len(superseded) == 9
    assert all(t.compacted and not t.rewound for t in superseded)
    carrier = [t for t in session.turns if t.raw.get("_compressed_summary")]
    assert [(t.role, t.part) for t in carrier] == [("summary", 0), ("assistant", 1)]
    summary, message = carrier
    assert summary.source_row == message.source_row and message.uid.endswith(".1")
    assert "[PRIOR CONTEXT" not in summary.text and summary.text.startswith("[CONTEXT COMPACTION")
    assert message.text == "" and [c.name for c in message.tool_calls] == ["terminal"]
    assert message.tool_calls[0].result is not None  # the next row's result pairs to the carried call
    assert message.copy_of == superseded[0].source_row and summary.copy_of is None


@pytest.mark.corpus
def test_corpus_v31_a_different_uid_is_a_different_message(corpus_dir, tmp_path):
    """Schema 31 writes a message's ``message_uid`` with every copy of it, so a row with another uid is
    another message even with the same words at the same time. Hermes never writes that beside a batch;
    a copy of the v31 store gets one by hand (the head's first row given a fresh uid)."""
    (sid,) = _scenario(corpus_dir, "corpus-v31", "compaction_in_place")
    path = tmp_path / "state.db"
    path.write_bytes(_corpus_db(corpus_dir, "corpus-v31").read_bytes())
    session = _load(path, sid)
    first = session.turns[0]
    assert first.copy_of is not None
    hermesdb.sql(path, "UPDATE messages SET message_uid = 'fresh' WHERE id = ?", (first.source_row,))
    session = _load(path, sid)
    assert session.turns[0].copy_of is None
    assert session.turns[-3].copy_of is not None and session.compactions == 1


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_no_prompt_is_a_summary(corpus_dir, version):
    with open_history(dbs=[_corpus_db(corpus_dir, version)]) as history:
        for session in history.sessions:
            history.load(session)
            for turn in _every(session):
                if turn.typed:
                    assert parse_handoff(turn.text) is None, turn.uid
                    assert "CONTEXT COMPACTION" not in turn.text, turn.uid


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_continuation_summary_is_no_in_place_event(corpus_dir, version):
    """A compression child opens with the handoff: a summary turn, but the event is the parent's rotation."""
    parent, child = _scenario(corpus_dir, version, "compression_child")
    path = _corpus_db(corpus_dir, version)
    for sid, summaries in ((parent, 0), (child, 1)):
        session = _load(path, sid)
        assert len(_summaries(session)) == summaries
        assert session.compactions == 0 and not session.hidden
        assert all(t.copy_of is None for t in session.turns)


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_rewind_stays_rewound(corpus_dir, version):
    (sid,) = _scenario(corpus_dir, version, "rewind")
    session = _load(_corpus_db(corpus_dir, version), sid)
    assert len(session.hidden) == 4
    assert all(t.rewound and not t.compacted for t in session.hidden)
    assert session.compactions == 0 and not session.compaction_events


# -- stores written here by Hermes' compressor and SessionDB -----------------------------------------------
@pytest.fixture
def compressor(monkeypatch, hermes_sandbox):
    """Hermes' ``ContextCompressor`` on a small window, its summary LLM call answering a numbered summary."""
    context_compressor = pytest.importorskip("agent.context_compressor")
    answered: list[int] = []

    def summarise(**_: Any) -> Any:
        answered.append(1)
        body = f"## Goal\nSummary number {len(answered)}."
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=body))])

    monkeypatch.setattr(context_compressor, "call_llm", summarise)
    return context_compressor.ContextCompressor(
        model="test/model", quiet_mode=True, config_context_length=4000, protect_first_n=3, protect_last_n=4
    )


class Conversation:
    """A session as Hermes' agent loop keeps it: each message appended through ``SessionDB`` (here at a
    fixed time a minute apart, as a real conversation's rows are) and kept in memory without a time, the
    list the compressor is given."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sid = SID
        self.db = hermesdb.session_db(path)
        self.db.create_session(SID, "cli", model="test/model")
        self.messages: list[dict[str, Any]] = []
        self.clock = hermesdb.T0

    def add(self, *messages: dict[str, Any]) -> list[int]:
        ids = []
        for message in messages:
            self.clock += 60
            ids.append(self.db.append_message(self.sid, **message, timestamp=self.clock))
            self.messages.append(dict(message))
        return ids

    def exchange(self, i: int, call_id: str | None = None) -> list[int]:
        """A request, a terminal call with long output, and the answer."""
        call_id = call_id or f"call_{i}"
        return self.add(
            hermesdb.user(f"question {i} " + "x" * 300),
            hermesdb.assistant("", hermesdb.call(call_id, "terminal", command=f"echo {i}")),
            hermesdb.tool(call_id, "terminal", {"output": "y" * 400, "exit_code": 0, "error": None}),
            hermesdb.assistant(f"answer {i}"),
        )

    def compact(self, compressor: Any, edit: Any = None) -> list[dict[str, Any]]:
        """``/compress`` in place: the compressor's list becomes the session's live rows."""
        compacted = compressor.compress(self.messages, force=True)
        if edit is not None:
            compacted = edit(compacted)
        self.db.archive_and_compact(self.sid, compacted)
        self.messages = compacted
        return compacted

    def close(self) -> Path:
        self.db.close()
        return self.path


@pytest.fixture
def conversation(tmp_path, hermes_sandbox):
    pytest.importorskip("hermes_state")
    conv = Conversation(tmp_path / "state.db")
    yield conv
    conv.db.close()


def _live_conversation(path: Path) -> list[dict[str, Any]]:
    db = hermesdb.session_db(path)
    try:
        return list(db.get_messages_as_conversation(SID))
    finally:
        db.close()


def test_a_double_compaction_reads_every_row_once(conversation, compressor):
    for i in range(6):
        conversation.exchange(i)
    conversation.compact(compressor)
    for i in range(6, 10):
        conversation.exchange(i)
    second = conversation.compact(compressor)
    assert second[0]["content"].startswith("[PRIOR CONTEXT")  # Hermes merged the summary into the tail
    path = conversation.close()
    session = _load(path, SID)

    assert session.compactions == 2
    first_summary, second_summary = _summaries(session)
    assert first_summary.compacted and "Summary number 1." in first_summary.text
    assert "Summary number 2." in second_summary.text and not second_summary.compacted
    # The first archived the 24 rows written before it; the second, everything since: the first batch
    # and the 16 rows after it.
    archived = len({t.source_row for t in session.hidden})
    assert [(e.summary_row, e.archived) for e in session.compaction_events] == [
        (first_summary.source_row, 24),
        (second_summary.source_row, archived - 24),
    ]
    # The second compaction archived the first batch: its copies are marked in hidden too.
    assert any(t.copy_of is not None for t in session.hidden)
    assert sorted(_read_once(session)) == sorted(f"question {i} " + "x" * 300 for i in range(10))
    _assert_copies_point_at_originals(session)
    # The carrier: the summary, then the message it was merged into, under its own role; one turn more
    # than Hermes replays.
    hermes = _live_conversation(path)
    assert len(session.turns) == len(hermes) + 1
    assert [t.role for t in session.turns[:2]] == ["summary", "assistant"]
    assert [t.source_row for t in session.turns[:2]] == [second_summary.source_row] * 2
    assert session.turns[1].part == 1 and session.turns[1].tool_calls[0].result is not None
    assert [t.raw["role"] for t in session.turns[1:]] == [m["role"] for m in hermes]


def test_compressor_stubs_are_dropped(conversation, compressor):
    for i in range(6):
        conversation.exchange(i)
    conversation.compact(compressor)
    session = _load(conversation.close(), SID)
    stubs = [t for t in session.turns if t.role == "tool" and str(t.raw["content"]).startswith("[Duplicate")]
    assert stubs
    assert all(t.text == "" and t.result is not None and t.result.text == "" for t in stubs)
    assert all(t.copy_of is not None for t in stubs)
    originals = {t.source_row: t for t in session.hidden}
    assert all(originals[t.copy_of].text.startswith('{"output": "yyy') for t in stubs)


def test_the_same_request_later_counts_again(conversation, compressor):
    for i in range(6):
        conversation.exchange(i)
    compacted = conversation.compact(compressor)
    assert compacted[-1]["content"] == "answer 5"
    # The user asks the last request again, word for word, and gets the same answer: a new run.
    repeated = conversation.exchange(5, call_id="call_5b")
    session = _load(conversation.close(), SID)
    assert _read_once(session).count("question 5 " + "x" * 300) == 2
    assert all(t.copy_of is None for t in session.turns if t.source_row in repeated)
    assert session.compactions == 1


def test_the_same_short_reply_later_is_not_the_batch_copy(conversation, compressor):
    """Short turns repeat ("ok", "done"): a later "ok" lines up with the archive as well as the copy does,
    but it does not carry the batch's time, nor its original's."""
    for i in range(6):
        conversation.exchange(i)
    for _ in range(3):
        conversation.add(hermesdb.user("ok"), hermesdb.assistant("done"))
    compacted = conversation.compact(compressor)
    assert [m["content"] for m in compacted[-2:]] == ["ok", "done"]
    later = conversation.add(hermesdb.user("ok"), hermesdb.assistant("done"))
    session = _load(conversation.close(), SID)
    assert [t.copy_of for t in session.turns if t.source_row in later] == [None, None]
    assert _read_once(session).count("ok") == 4


def test_a_continuation_that_compacts_in_place_counts_once(conversation, compressor):
    """A compression child opens with its handoff (Hermes' rotation writes the compressor's list with
    ``replace_messages``); when the child later compacts in place, the handoff is archived with the rest:
    one in-place event, and the handoff anchors none."""
    for i in range(6):
        conversation.exchange(i)
    handoff = compressor.compress(conversation.messages, force=True)
    child = "20261102_093000_c0mp02"
    conversation.db.end_session(SID, "compression")
    conversation.db.create_session(child, "cli", parent_session_id=SID)
    conversation.db.replace_messages(child, handoff)
    conversation.sid, conversation.messages = child, list(handoff)
    for i in range(6, 10):
        conversation.exchange(i)
    conversation.compact(compressor)
    session = _load(conversation.close(), child)
    handoff_summary, summary = _summaries(session)
    assert handoff_summary.compacted and not summary.compacted
    assert session.compactions == 1
    (event,) = session.compaction_events
    assert (event.summary_row, event.archived) == (summary.source_row, len(session.hidden))
    prompts = _read_once(session)
    assert len(prompts) == len(set(prompts))
    assert {f"question {i} " + "x" * 300 for i in range(6, 10)} <= set(prompts)


def test_a_tool_result_that_is_neither_the_original_nor_a_stub_is_new(conversation, compressor):
    """Hermes keeps a tail result verbatim or stubs it; any other text there is not the archived output.
    (The compressor's list is edited before ``archive_and_compact`` writes it: Hermes has no path that
    changes a kept result, so this shape is made by hand.)"""
    for i in range(6):
        conversation.exchange(i)

    def rerun(compacted: list[dict[str, Any]]) -> list[dict[str, Any]]:
        last_tool = max(i for i, m in enumerate(compacted) if m["role"] == "tool")
        compacted[last_tool] = {**compacted[last_tool], "content": '{"output": "changed", "exit_code": 0}'}
        return compacted

    conversation.compact(compressor, edit=rerun)
    session = _load(conversation.close(), SID)
    changed = next(t for t in session.turns if t.text.startswith('{"output": "changed"'))
    assert changed.copy_of is None
    tail = session.turns[session.turns.index(changed) - 2 :]
    assert [t.copy_of is not None for t in tail] == [True, True, False, True]


def test_a_resumed_conversation_copies_keep_their_original_time(conversation, compressor):
    """Loaded back from the store (a resume), each message carries its row's time and the copies keep it."""
    for i in range(6):
        conversation.exchange(i)
    conversation.messages = _live_conversation(conversation.path)
    conversation.compact(compressor)
    session = _load(conversation.close(), SID)
    copies = [t for t in session.turns if t.copy_of is not None]
    assert len(copies) == len(session.turns) - 1
    originals = {t.source_row: t for t in session.hidden}
    assert all(t.time == originals[t.copy_of].time for t in copies)
    assert sorted(_read_once(session)) == sorted(f"question {i} " + "x" * 300 for i in range(6))


def test_the_older_context_summary_marker(conversation, compressor):
    """Before ``[CONTEXT COMPACTION …`` Hermes wrote ``[CONTEXT SUMMARY]:`` (``LEGACY_SUMMARY_PREFIX``, still
    read by the compressor); the compressor here writes the new prefix, so the summary is put back in
    the old form before ``archive_and_compact`` writes the list."""
    for i in range(6):
        conversation.exchange(i)

    def legacy(compacted: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for message in compacted:
            if message.get("_compressed_summary"):
                body = compressor._strip_summary_prefix(message["content"])
                message = {"role": message["role"], "content": f"[CONTEXT SUMMARY]: {body}"}
            out.append(message)
        return out

    conversation.compact(compressor, edit=legacy)
    session = _load(conversation.close(), SID)
    (summary,) = _summaries(session)
    assert summary.text.startswith("[CONTEXT SUMMARY]: ") and "Summary number 1." in summary.text
    assert not any(t.typed and "CONTEXT SUMMARY" in t.text for t in _every(session))
    assert session.compactions == 1
    assert sorted(_read_once(session)) == sorted(f"question {i} " + "x" * 300 for i in range(6))


def test_a_summary_leading_its_message_keeps_the_message_role(conversation, compressor):
    """The fork's other merge (``_merge_summary_into_tail_row`` for a provider that needs a user turn
    first): summary, end marker, then the message's own text. 0.19.0 does not write it, so the first
    tail message of the compressor's list is merged that way by hand."""
    for i in range(8):
        conversation.add(hermesdb.user(f"question {i} " + "x" * 300), hermesdb.assistant(f"answer {i}"))
    merged: list[dict[str, Any]] = []

    def lead(compacted: list[dict[str, Any]]) -> list[dict[str, Any]]:
        at = next(i for i, m in enumerate(compacted) if m.get("_compressed_summary"))
        summary = compacted.pop(at)["content"]
        assert summary.endswith(END)
        merged.append(dict(compacted[at]))
        content = f"{summary}\n\n{compacted[at]['content']}"
        compacted[at] = {**compacted[at], "content": content, "_compressed_summary": True}
        return compacted

    conversation.compact(compressor, edit=lead)
    session = _load(conversation.close(), SID)
    summary, message = (t for t in session.turns if t.raw["content"].startswith("[CONTEXT COMPACTION"))
    assert (summary.role, summary.part, message.part) == ("summary", 0, 1)
    assert (message.role, message.text) == (merged[0]["role"], merged[0]["content"])
    assert message.copy_of is not None and summary.copy_of is None
    assert summary.text.endswith(END)
    assert sorted(_read_once(session)) == sorted(f"question {i} " + "x" * 300 for i in range(8))


def test_an_image_compaction_stripped_is_not_text(conversation, compressor):
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    conversation.add(hermesdb.user([{"type": "text", "text": "look at this"}, image]))
    conversation.add(hermesdb.assistant("A cat."))
    for i in range(5):
        conversation.exchange(i)
    conversation.add(hermesdb.user([{"type": "text", "text": "and this"}, image]))
    conversation.add(hermesdb.assistant("A dog."))
    compacted = conversation.compact(compressor)
    assert "stripped after compression" in json.dumps(compacted[0]["content"])
    session = _load(conversation.close(), SID)
    head = session.turns[0]
    assert head.text == "look at this" and head.copy_of == session.hidden[0].source_row


def test_a_store_without_the_compacted_column_falls_back_to_the_markers(conversation, compressor):
    """Only Hermes before in-place compaction (#38763) wrote ``messages`` without ``compacted``, and
    ``SessionDB`` adds the column to any store it opens, so the column is dropped here by rebuilding the
    table. The archived rows then read ``active = 0`` like a rewind; the summary says what they are."""
    for i in range(6):
        conversation.exchange(i)
    conversation.compact(compressor)
    conversation.exchange(6)
    (target, *_) = conversation.exchange(7)
    conversation.db.rewind_to_message(SID, target)
    path = conversation.close()
    _drop_column(path, "messages", "compacted")

    session = _load(path, SID)
    assert session.compactions == 1
    (summary,) = _summaries(session)
    archived = [t for t in session.hidden if t.source_row < summary.source_row]
    rewound = [t for t in session.hidden if t.source_row > summary.source_row]
    assert len(archived) == 24 and all(t.compacted and not t.rewound for t in archived)
    assert len(rewound) == 4 and all(t.rewound and not t.compacted for t in rewound)
    assert sorted(_read_once(session)) == sorted(f"question {i} " + "x" * 300 for i in range(7))


def _drop_column(path: Path, table: str, column: str) -> None:
    """Rebuild ``table`` without ``column`` (its indexes and triggers go with the old table)."""
    conn = sqlite3.connect(path)
    try:
        names = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] != column]
        kept = ", ".join(f'"{n}"' for n in names)
        with conn:
            conn.execute(f"CREATE TABLE {table}_rebuilt AS SELECT {kept} FROM {table} ORDER BY id")
            conn.execute(f"DROP TABLE {table}")
            conn.execute(f"ALTER TABLE {table}_rebuilt RENAME TO {table}")
    finally:
        conn.close()


# -- the reading rules on their own --------------------------------------------------------------------
SUMMARY = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted:\n## Goal\nG."


@pytest.mark.parametrize(
    ("text", "flagged", "summary", "message"),
    [
        (f"{SUMMARY}\n\n{END}", False, f"{SUMMARY}\n\n{END}", ""),
        ("[CONTEXT SUMMARY]: old form", False, "[CONTEXT SUMMARY]: old form", ""),
        (
            "[PRIOR CONTEXT — for reference only; not a new message]\nran it\n\n"
            f"[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n{SUMMARY}\n\n{END}",
            True,
            f"{SUMMARY}\n\n{END}",
            "ran it",
        ),
        (f"{SUMMARY}\n\n{END}\n\nwhat now?", True, f"{SUMMARY}\n\n{END}", "what now?"),
        ("what now?", False, None, None),
        ("I pasted [CONTEXT COMPACTION] here", False, None, None),
    ],
)
def test_parse_handoff(text, flagged, summary, message):
    handoff = parse_handoff(text, flagged)
    if summary is None:
        assert handoff is None
    else:
        assert handoff is not None and (handoff.summary, handoff.message) == (summary, message)


@pytest.mark.parametrize(
    ("text", "tool", "stub"),
    [
        ("[Old tool output cleared to save context space]", "terminal", True),
        ("[Duplicate tool output — same content as a more recent call]", "read_file", True),
        ("[terminal] ran `pytest -q` -> exit 1, 40 lines output", "terminal", True),
        ("[screenshot removed] a login form", "browser_vision", True),
        ('{"output": "[terminal] ran", "exit_code": 0}', "terminal", False),
        ("[terminal] ran `ls` -> exit 0, 3 lines output", "read_file", False),
        ("[terminal] line one\nline two", "terminal", False),
    ],
)
def test_is_tool_stub(text, tool, stub):
    assert is_tool_stub(text, tool) is stub
