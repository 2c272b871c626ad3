"""The reader against stores Hermes' own code wrote, held to Hermes' own answers (``expect/``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hermes_trail import open_history
from hermes_trail.hermes.decode.content import structured_text
from hermes_trail.history import History
from hermes_trail.model import Session

VERSIONS = ("corpus-v22", "corpus-v31")
DATABASES = (
    ("state.db", "state.db.json"),
    ("profiles/oracle-work/state.db", "profiles__oracle-work__state.db.json"),
)
CASES = [(v, db, exp) for v in VERSIONS for db, exp in DATABASES]


def _open(corpus_dir: Path, version: str, db: str) -> tuple[History, dict[str, Any]]:
    base = corpus_dir / version
    expect_name = dict(DATABASES)[db]
    expect = json.loads((base / "expect" / expect_name).read_text())
    return open_history(dbs=[base / "hermes_home" / db]), expect


def _content_text(content: Any) -> str:
    return content if isinstance(content, str) else structured_text(content)


def _by_id(history: History) -> dict[str, Session]:
    return {s.id: s for s in history.sessions}


@pytest.mark.corpus
@pytest.mark.parametrize(("version", "db", "expect_name"), CASES)
def test_every_session_is_listed_with_hermes_catalog_values(corpus_dir, version, db, expect_name):
    history, expect = _open(corpus_dir, version, db)
    with history:
        sessions = _by_id(history)
        assert set(sessions) == set(expect["sessions"])
        assert not history.strays and not history.notes
        for sid, answers in expect["sessions"].items():
            row = answers["get_session"]
            got = sessions[sid]
            assert got.title == row["title"]
            assert got.source == row["source"]
            assert got.model == row["model"]
            assert got.message_count == row["message_count"]
            assert got.parent_id == row["parent_session_id"]
            assert got.store.schema_version == expect["schema_version_table"][0]


def _rows_of(turns: list) -> list[list]:
    """Turns grouped by the row they came from: a row holding a merged summary gives two turns."""
    rows: list[list] = []
    for turn in turns:
        if turn.part and rows and rows[-1][0].source_row == turn.source_row:
            rows[-1].append(turn)
        else:
            rows.append([turn])
    return rows


@pytest.mark.corpus
@pytest.mark.parametrize(("version", "db", "expect_name"), CASES)
def test_transcript_holds_exactly_hermes_conversation(corpus_dir, version, db, expect_name):
    """Each transcript is Hermes' ``get_messages_as_conversation``: the same rows, in order, with the same
    role and text; only a compaction summary reads as ``summary`` (its text still Hermes' own)."""
    history, expect = _open(corpus_dir, version, db)
    with history:
        sessions = _by_id(history)
        for sid, answers in expect["sessions"].items():
            session = history.load(sessions[sid])
            conversation = answers["get_messages_as_conversation"]
            rows = _rows_of(session.turns)
            assert [r[0].raw["role"] for r in rows] == [m["role"] for m in conversation], sid
            for parts, message in zip(rows, conversation, strict=True):
                want = _content_text(message["content"])
                if any(p.role == "summary" for p in parts):
                    assert all(p.text.strip() in want for p in parts), sid
                else:
                    (turn,) = parts
                    assert (turn.role, turn.text) == (message["role"], want), sid
            want_calls = [[c["function"]["name"] for c in m.get("tool_calls") or []] for m in conversation]
            got_calls = [[c.name for p in parts for c in p.tool_calls] for parts in rows]
            assert got_calls == want_calls, sid
            want_reasoning = [m.get("reasoning") or m.get("reasoning_content") or None for m in conversation]
            assert [parts[-1].reasoning for parts in rows] == want_reasoning, sid


@pytest.mark.corpus
@pytest.mark.parametrize(("version", "db", "expect_name"), CASES)
def test_every_row_is_in_the_transcript_or_kept_flagged(corpus_dir, version, db, expect_name):
    history, _ = _open(corpus_dir, version, db)
    path = corpus_dir / version / "hermes_home" / db
    with sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True) as raw:
        stored = raw.execute("SELECT session_id, id, active, compacted FROM messages ORDER BY id").fetchall()
    with history:
        for session in history.sessions:
            history.load(session)
            rows = {r[1]: r for r in stored if r[0] == session.id}
            read = [t.source_row for t in session.turns + session.hidden if not t.part]
            assert sorted(read) == sorted(rows), session.id
            for turn in session.hidden:
                _, _, active, compacted = rows[turn.source_row]
                assert active == 0
                if compacted:
                    assert turn.compacted and not turn.rewound
                elif turn.compacted:  # superseded by a compaction copy (schema 31), not rewound
                    uid = turn.raw.get("message_uid")
                    assert uid and any(t.raw.get("message_uid") == uid for t in session.turns), session.id
                else:
                    assert turn.rewound or turn.kind == "model_switch", session.id
            assert all(rows[t.source_row][2] == 1 for t in session.turns)
            assert [t.source_row for t in session.turns] == sorted(t.source_row for t in session.turns)


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_every_tool_result_pairs_with_its_call(corpus_dir, version):
    history, _expect = _open(corpus_dir, version, "state.db")
    with history:
        for session in history.sessions:
            history.load(session)
            results = [t.result for t in session.turns if t.result is not None]
            assert all(not r.orphan for r in results), session.id
            paired = [c.result for t in session.turns for c in t.tool_calls if c.result is not None]
            assert sorted(r.source_row for r in paired) == sorted(r.source_row for r in results)


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_rewound_rows_are_not_prompts(corpus_dir, version):
    history, expect = _open(corpus_dir, version, "state.db")
    scenario = next(s for s in expect["scenarios"] if s["scenario"] == "rewind")
    with history:
        session = history.load(history.find(scenario["session_ids"][0]))
        rewound = [t for t in session.hidden if t.rewound]
        assert len(rewound) == 4
        prompts = [t.text for t in session.turns if t.role == "user"]
        assert not {t.text for t in rewound if t.role == "user"} & set(prompts[1:])


@pytest.mark.corpus
@pytest.mark.parametrize("version", VERSIONS)
def test_json_prefixed_multimodal_content(corpus_dir, version):
    history, _ = _open(corpus_dir, version, "state.db")
    with history:
        session = history.load(history.find("20261130_045850_mm0json"))
        user, assistant = session.turns
        assert user.text == "What colour is this pixel?\n[image: image/png, 70 bytes]"
        assert [(i.media_type, i.size) for i in user.images] == [("image/png", 70)]
        assert isinstance(user.content, list) and user.content[1]["type"] == "image_url"
        assert assistant.text == "A transparent pixel."


@pytest.mark.corpus
def test_the_same_id_in_two_stores_is_two_sessions(corpus_dir):
    """Ids are unique per store, not across stores: both copies are listed and a bare id is ambiguous."""
    from hermes_trail.errors import AmbiguousSession

    dbs = [corpus_dir / v / "hermes_home" / "state.db" for v in VERSIONS]
    with open_history(dbs=dbs) as history:
        twins = [s for s in history.sessions if s.id == "20261130_045850_mm0json"]
        assert len(twins) == 2 and twins[0].store.key != twins[1].store.key
        with pytest.raises(AmbiguousSession) as info:
            history.find("20261130_045850_mm0json")
        assert sorted(info.value.candidates) == sorted(s.ref for s in twins)
        assert history.find(twins[1].ref) is twins[1]
