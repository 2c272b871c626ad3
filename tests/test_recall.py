"""The recall page is for the answer (recall.py): a question asked in many sessions and answered in one
keeps the answer on the page; copies of the question are one line; Hermes' compaction preamble and hits
that only share a word stay off. Histories written by Hermes' own ``SessionDB``; the page read through
``Trail.recall``, the one call behind ``trail recall``, the plugin, the provider and the MCP tool."""

from __future__ import annotations

from pathlib import Path

import pytest

import hermesdb
from hermesdb import T0

QUESTION = "How do I rotate the grafana admin password on the monitoring box?"
ANSWER = "Run `grafana-cli admin reset-admin-password` with the new one, then restart grafana-server."
ANSWERED = "20261012_090000_bb0001"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    compressor = pytest.importorskip("agent.context_compressor")
    specs = [hermesdb.chat(ANSWERED, (QUESTION, ANSWER), start=T0 - 20 * 86400)]
    for i in range(10):  # asked again and again later, never answered again
        asked = QUESTION if i % 2 else QUESTION.lower().rstrip("?") + " ?"
        specs.append(
            hermesdb.chat(
                f"202611{i + 1:02d}_090000_aa00{i:02d}",
                (asked, "Let me look into that."),
                start=T0 + i * 86400,
            )
        )
    summary = f"{compressor.SUMMARY_PREFIX}\nThe user moved the grafana dashboards to the new folder."
    specs.append(hermesdb.chat("20261125_090000_cc0001", (summary, "ok"), start=T0 + 23 * 86400))
    return hermesdb.write_home(tmp_path / "hermes", specs)


def recall(home: Path, query: str) -> str:
    """The page ``trail recall`` prints and the plugin injects (``Trail.recall``, which both call)."""
    from hermes_trail.service import Trail

    return Trail(index=home.parent / "index.db", homes=(home,), parallel=False).recall(query, budget=2000)


def test_the_answer_stays_when_the_question_was_asked_again_and_again(home):
    page = recall(home, "rotate grafana admin password")
    assert "grafana-cli admin reset-admin-password" in page and ANSWERED in page
    prompts = [line for line in page.splitlines() if ", prompt):" in line]
    assert len(prompts) == 1 and "the same in 10 more sessions" in prompts[0], page
    lines = [line for line in page.splitlines() if line.startswith("- ")]
    assert lines.index(next(x for x in lines if ANSWERED in x)) < lines.index(prompts[0]), "answers first"


def test_hermes_compaction_preamble_stays_off_the_page(home):
    page = recall(home, "grafana dashboards folder")
    assert "moved the grafana dashboards" in page
    assert "CONTEXT COMPACTION" not in page and "avoid repeating" not in page
    assert recall(home, "narrating tools remain fully active").strip() == "", "only the preamble matched"


def test_neighbours_that_share_a_word_stay_off_the_page(tmp_path):
    pytest.importorskip("hermes_state")
    chess = ("Who is the admin of the chess club mailing list?", "Marta runs it.")
    wifi = ("Change the wifi password at the office", "Done via the router page.")
    specs = [
        hermesdb.chat(ANSWERED, (QUESTION, ANSWER), start=T0),
        hermesdb.chat("20261013_090000_bb0002", chess, start=T0 + 86400),
        hermesdb.chat("20261014_090000_bb0003", wifi, start=T0 + 2 * 86400),
    ]
    page = recall(hermesdb.write_home(tmp_path / "hermes", specs), "grafana admin password")
    assert ANSWERED in page and "grafana-cli" in page
    assert "chess club" not in page and "wifi" not in page, page


def test_a_session_of_another_profile_is_named_with_its_profile(hermes_home):
    """A page of one hit from the profile ``work`` names it ``work:<id>``: a bare id may also be the root
    profile's (issue 16, 7)."""
    page = recall(hermes_home, "standup notes")
    assert f"work:{hermesdb.WORK_ID}" in page


def test_the_reply_to_the_best_matching_question_stands_with_it(tmp_path):
    """A conversation found by its question (its prompt the best match of the page) whose reply matched
    only weakly: the reply stands with the question, as strong, and leads the page. Left to its own
    score it fell under the page's floor, and the question came after every other conversation's
    answers (on the recall benchmark, 18 of 593 questions' first answer was not the page's first line)."""
    import sqlite3

    from hermes_trail.index.search import search
    from hermes_trail.recall import complete, recall_page
    from hermes_trail.service import Trail

    pytest.importorskip("hermes_state")
    asked = "20261110_090000_0c0001"
    specs = [
        hermesdb.chat(
            asked,
            (
                "How do we catch typos in blog posts automatically?",
                "Add codespell as a step of the pipeline; it fails the build on a misspelled word.",
            ),
            start=T0,
        ),
        *(
            hermesdb.chat(
                f"20261111_{n:02d}0000_0d00{n:02d}",
                (f"Draft {n} for the blog.", f"The blog posts draft {n} is saved."),
                start=T0 + 86400 + n * 600,
            )
            for n in range(8)
        ),
    ]
    home = hermesdb.write_home(tmp_path / "hermes", specs)
    Trail(index=tmp_path / "index.db", homes=(home,), parallel=False).sync()
    with sqlite3.connect(f"{(tmp_path / 'index.db').as_uri()}?mode=ro", uri=True) as conn:
        result = search(conn, "catch typos in blog posts automatically", limit=10)
        first = result.conversations[0]
        assert first.hits[0].session_id == asked and first.hits[0].kind == "prompt"
        # As the fused evidence scores them: the prompt the page's best, the reply (found by one word)
        # far under it, the other conversations' answers in between.
        reply = next(h for h in search(conn, "codespell").conversations[0].hits if h.kind == "reply")
        first.hits = [first.hits[0]._replace(score=0.3), reply._replace(score=0.04)]
        for other in result.conversations[1:]:
            other.hits = [h._replace(score=0.2) for h in other.hits]
        page = recall_page(complete(conn, result, ["catch", "typos", "blog", "posts"]), budget=2000, limit=8)
    lines = [line for line in page.splitlines() if line.startswith("- ")]
    assert asked in lines[0] and "codespell" in lines[0], page


def test_a_page_says_which_words_no_record_has_and_which_it_read_as_spelt_otherwise(home):
    """A question whose subject no record names ("vault") gets the records its other words find: an agent
    told nothing took them for records of that subject. The page says which words no record has, and which
    typed wrong it searched for as the records spell them; a question read as it was asked says neither."""
    page = recall(home, "rotate the vault admin password")
    assert "No record has: vault." in page and "grafana-cli" in page, page
    assert page.index("No record has") < page.index("\n- ")  # before the records it speaks of
    page = recall(home, "rotate the grafana admin pasword")
    assert "Read as the records spell it: pasword as password." in page, page
    assert "No record has" not in page
    page = recall(home, "rotate grafana admin password")
    assert "No record has" not in page and "Read as" not in page
    assert recall(home, "quokka zyxxyq").strip() == ""  # nothing found: still no page at all


def test_a_failed_command_stands_with_what_the_agent_then_said(tmp_path):
    """A conversation found by a failed command (its error the question's words) whose turn ended with the
    agent saying how it was fixed, with no command that shows it: the page gave the failure alone, and an
    agent recalling it learnt that it failed, not what was done. The turn's last reply now stands with it."""
    from hermesdb import SessionSpec, assistant, terminal_exchange, user

    failed = "20261110_090000_0e0001"
    said = "Another node process was holding port 3000; killed it and the dev server came up."
    spec = SessionSpec(
        failed,
        [
            user("start the dev server", timestamp=T0),
            *terminal_exchange(
                "c1", "npm run dev", "Error: listen EADDRINUSE: address already in use :::3000", 1
            ),
            assistant(said, timestamp=T0 + 5),
        ],
        started_at=T0,
        ended_at=T0 + 60,
    )
    errands = hermesdb.errands(T0 + 3600, "20261111", "0f0f0f", count=6)
    page = recall(
        hermesdb.write_home(tmp_path / "hermes", [spec, *errands]), "EADDRINUSE address already in use"
    )
    assert "EADDRINUSE" in page and said in page, page
