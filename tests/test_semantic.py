"""Static sentence vectors (index/semantic.py), and the search pass that finds a session asked in other
words."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermes_trail.index import search as search_module
from hermes_trail.index import semantic
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index

hermes_state = pytest.importorskip("hermes_state")

# Token ids that the reference BERT uncased WordPiece tokenizer (Hugging Face ``tokenizers`` with the
# model's own tokenizer.json) gives for these texts, without [CLS]/[SEP].
REFERENCE_IDS = {
    "laptop battery drains during sleep": [12191, 6046, 18916, 2076, 3637],
    "Café naïve": [7668, 15743],
    "pytest -q tests/test_app.py": [
        1052,
        17250,
        3367,
        1011,
        1053,
        5852,
        1013,
        3231,
        1035,
        10439,
        1012,
        1052,
        2100,
    ],
    "东京": [100, 1755],  # 东 is not in the vocabulary: [UNK]
}

LAPTOP, BREAD, DEPLOY = "20261101_090000_aaaaaa", "20261101_120000_bbbbbb", "20261102_090000_cccccc"


def test_the_table_ships_and_loads():
    assert semantic.available()
    vector = semantic.embed("laptop battery drains during sleep")
    assert vector is not None and vector.shape == (256,)
    assert abs(float(vector @ vector) - 1.0) < 1e-4


@pytest.mark.parametrize("text", sorted(REFERENCE_IDS))
def test_tokenizer_agrees_with_the_reference_wordpiece(text):
    assert semantic.token_ids(text) == REFERENCE_IDS[text]


def test_unknown_and_empty_text_have_no_vector():
    assert semantic.embed("") is None
    assert semantic.embed("   \n\t") is None
    assert semantic.gist_blob(["", ""]) is None
    assert semantic.pieces("x" * 500) == (semantic._table().unknown,)


def test_a_paraphrase_is_nearer_than_an_unrelated_text():
    asked = semantic.embed("notebook runs out of charge while suspended")
    same = semantic.embed("laptop battery drains during sleep")
    other = semantic.embed("bake sourdough bread with a rye starter")
    assert asked is not None and same is not None and other is not None
    assert float(asked @ same) > float(asked @ other) + 0.2


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    root = tmp_path / "hermes"
    root.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(root))
    db = hermes_state.SessionDB(db_path=root / "state.db")
    sessions = [
        (
            LAPTOP,
            "My laptop battery drains overnight during sleep, find what keeps it awake.",
            "A USB wake source kept it awake; disabled it in /proc/acpi/wakeup.",
        ),
        (BREAD, "Give me a sourdough bread recipe with a rye starter.", "Mix 100 g starter with..."),
        (DEPLOY, "Deploy the billing service to staging.", "Deployed billing 1.4 to staging."),
    ]
    for n, (sid, prompt, reply) in enumerate(sessions):
        db.create_session(sid, "cli", cwd="/home/dev/notes")
        db.append_message(sid, "user", prompt, timestamp=1_800_000_000.0 + n * 1000)
        db.append_message(sid, "assistant", reply, timestamp=1_800_000_010.0 + n * 1000)
    db.close()
    return root


def test_every_session_gets_a_gist_of_what_was_asked(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    with sqlite3.connect(index) as conn:
        rows = conn.execute("SELECT session_id, length(gist) FROM sessions ORDER BY session_id").fetchall()
    assert rows == [(LAPTOP, 512), (BREAD, 512), (DEPLOY, 512)]


def test_a_question_in_other_words_finds_the_session(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    result = search(index, "notebook runs out of charge while suspended")
    assert result.conversations
    first = result.hits[0]
    assert first.session_id == LAPTOP
    assert first.kind == "prompt"  # reported on the prompt the gist mostly says
    assert "laptop battery" in first.snippet.replace("\u00ab", "").replace("\u00bb", "").lower()


def test_all_the_words_still_outrank_meaning(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    result = search(index, "billing staging")
    assert result.hits[0].session_id == DEPLOY
    assert all(h.score < result.hits[0].score for h in result.hits[1:])


def test_filters_on_docs_turn_the_semantic_pass_off(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    asked = "notebook runs out of charge while suspended"
    assert not search(index, asked, SearchFilters(role="tool")).hits
    assert not search(index, asked, SearchFilters(project="elsewhere")).hits


def test_without_numpy_search_stays_lexical(home, tmp_path, monkeypatch):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    monkeypatch.setattr(search_module.semantic, "available", lambda: False)
    assert LAPTOP not in {h.session_id for h in search(index, "notebook charge suspended").hits}
    assert search(index, "laptop battery").hits[0].session_id == LAPTOP
