"""Static sentence vectors (index/semantic.py), and the search pass that finds a session asked in other
words."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    assert semantic.pieces("x" * 500) == (semantic._vocabulary().unknown,)


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


def _float16(blob: bytes) -> Any:
    import numpy as np

    return np.frombuffer(blob, dtype=np.float16).astype(np.float32)


def _same_to_float16(made: bytes | None, expected: bytes | None) -> bool:
    """Whether two gists are the same vector to float16's precision (each value within its last bit)."""
    import numpy as np

    if made is None or expected is None:
        return made is expected
    x, y = _float16(made), _float16(expected)
    return bool(np.all(np.abs(x - y) <= np.abs(y) * 2.0**-10 + 1e-7))


def test_a_gist_made_without_numpy_is_the_numpy_one(home, tmp_path):
    """A ``trail`` command whose sync writes the few sessions Hermes changed makes their gists without
    importing numpy (the import and its table were most of what such a command took): the same vectors to
    float16's precision. A process that has numpy loaded (a build, the plugin, the MCP server) keeps using
    it."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message(
        LAPTOP, "user", "It still wakes at 3 am: is it the network card?", timestamp=1_800_000_500.0
    )
    db.close()
    texts = ["notebook runs out of charge while suspended", "数据库迁移失败了", "x" * 500, "", "Café naïve"]
    probe = (
        "import json, sys; from pathlib import Path;"
        "from hermes_trail.index import semantic; from hermes_trail.index.sync import sync_index;"
        "report = sync_index(Path(sys.argv[1]), homes=[sys.argv[2]]);"
        "gists = [(b.hex() if (b := semantic.gist_blob([t])) else None) for t in json.loads(sys.argv[3])];"
        "print(json.dumps([report.sessions_indexed, 'numpy' in sys.modules, gists]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(index), str(home), json.dumps(texts)],
        capture_output=True,
        text=True,
        check=True,
    )
    indexed, numpy_loaded, gists = json.loads(done.stdout)
    assert indexed == 1 and numpy_loaded is False
    import numpy  # noqa: F401  (this process makes them by numpy)

    for text, made in zip(texts, gists, strict=True):
        expected = semantic.gist_blob([text])
        assert _same_to_float16(bytes.fromhex(made) if made else None, expected), text
    with sqlite3.connect(index) as conn:
        (gist,) = conn.execute("SELECT gist FROM sessions WHERE session_id = ?", (LAPTOP,)).fetchone()
        prompts = [t for (t,) in conn.execute(
            "SELECT d.text FROM docs d JOIN sessions s ON s.id = d.sess WHERE s.session_id = ? "
            "AND d.kind = 'prompt' ORDER BY d.row", (LAPTOP,)
        )]  # fmt: skip
    assert len(prompts) == 2 and _same_to_float16(gist, semantic.gist_blob(["", *prompts]))


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


def test_a_session_no_nearer_in_meaning_than_the_crowd_is_no_answer(tmp_path, monkeypatch):
    """The demo home's six sessions, before their passages are encoded (gists only): "how did we fix the
    flaky test" found the forecast fix by its words, then listed a haiku, a cron digest and an invoice
    question, offered by the meaning pass at or below the crowd's mean (no evidence) as if answers."""
    from hermes_trail.history import demo_home

    monkeypatch.setenv("TRAIL_MEANING_SERVER", "0")  # the meaning pass in this process
    index = tmp_path / "index.db"
    sync_index(index, homes=[demo_home()])
    result = search(index, "how did we fix the flaky test")
    assert result.missing == ["flaky"]
    assert [c.hits[0].session_id for c in result.conversations] == ["20261124_091502_a1b2c3"]
    assert all(c.score > 0 for c in result.conversations)
    # A question the meaning pass alone answers still gets its answer.
    near = search(index, "bread dough water percentage")
    assert near.conversations and near.conversations[0].hits[0].title == "Sourdough hydration"
