"""Passage vectors (index/vectors.py): passages made from a session's docs, the vector stage that fills
them in behind the word index, and the search that finds a session through its nearest passage."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hermes_trail.index import behind, encoder, schema, vectors
from hermes_trail.index import search as search_module
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index
from hermes_trail.service import Trail
from hermesdb import chat, write_home

hermes_state = pytest.importorskip("hermes_state")

LAPTOP, BREAD, DEPLOY, HOSE = (
    "20261101_090000_aaaaaa",
    "20261101_120000_bbbbbb",
    "20261102_090000_cccccc",
    "20261103_090000_dddddd",
)
# Shares no word with any session; what it is about is only in the hose session's reply, which its gist
# (a vector of what was asked) never saw.
ASKED = "dripping outdoor pipe fitting"


def _home(root: Path) -> Path:
    sessions = [
        (
            LAPTOP,
            "My laptop battery drains overnight during sleep, find what keeps it awake.",
            "A USB wake source kept it awake; disabled it in /proc/acpi/wakeup.",
        ),
        (BREAD, "Give me a sourdough bread recipe with a rye starter.", "Mix 100 g starter with flour."),
        (DEPLOY, "Deploy the billing service to staging.", "Deployed billing 1.4 to staging."),
        (
            HOSE,
            "look at this for me",
            "The garden hose leaks at the tap; replace the washer inside the connector.",
        ),
    ]
    start = 1_800_000_000.0
    specs = [
        chat(sid, (prompt, reply), start=start + n * 1000, cwd="/home/dev/notes")
        for n, (sid, prompt, reply) in enumerate(sessions)
    ]
    return write_home(root, specs)


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    root = _home(tmp_path / "hermes")
    monkeypatch.setenv("HERMES_HOME", str(root))
    return root


def _passages(index: Path) -> dict[str, int]:
    with sqlite3.connect(index) as conn:
        return dict(
            conn.execute(
                "SELECT s.session_id, count(p.id) FROM sessions s "
                "JOIN passages p ON p.sess = s.id GROUP BY s.id"
            ).fetchall()
        )


def test_passages_take_prompts_and_summaries_first_then_replies_then_tool_output():
    docs = [
        (1, "prompt", "first question"),
        (2, "tool", "output " * 10),
        (3, "reply", "an answer"),
        (4, "summary", "what was kept"),
        (5, "notice", "never"),
        (6, "prompt", "second question"),
    ]
    made = vectors.passages(docs)
    assert made == [
        (1, "first question\nwhat was kept\nsecond question"),
        (3, "an answer"),
        (2, ("output " * 10).strip()),
    ]


def test_a_long_doc_is_cut_into_passages_and_a_session_gives_a_bounded_number():
    words = " ".join(f"word{n}" for n in range(2000))  # about 17,000 characters
    made = vectors.passages([(7, "reply", words)], limit=100)
    assert len(made) > 10 and all(len(text) <= vectors.PASSAGE_CHARS for _, text in made)
    assert {doc for doc, _ in made} == {7}
    assert " ".join(text for _, text in made) == words  # cut at spaces, nothing lost
    assert len(vectors.passages([(7, "reply", words)], limit=3)) == 3


def test_the_bound_spreads_a_budget_of_passages_over_every_session(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    with sqlite3.connect(index) as conn:
        assert vectors.bound(conn) == vectors.MAX_PASSAGES  # a small history is encoded whole
        assert vectors.bound(conn, budget=8) == vectors.MAX_PASSAGES  # four sessions of two passages
        assert vectors.bound(conn, budget=7) == vectors.MIN_PASSAGES
        conn.execute("UPDATE docs SET chars = 10000 WHERE kind = 'reply'")  # as if replies were long: 11 each
        assert vectors.bound(conn, budget=4 * 5) == 5


def test_a_paraphrase_finds_its_session_through_passages_where_the_gist_does_not(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    before = [h.session_id for h in search(index, ASKED).hits]
    assert HOSE not in before[:1]  # today's gist: only what was asked, "look at this for me"
    report = vectors.encode_pending(index)
    assert report.sessions == 4 and report.pending == 0
    hits = search(index, ASKED).hits
    assert hits and hits[0].session_id == HOSE
    assert hits[0].kind == "reply"  # reported on the passage that matched


def test_the_vector_stage_is_incremental(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    first = vectors.encode_pending(index)
    assert first.sessions == 4 and first.passages == 8  # a prompt passage and a reply passage each
    assert vectors.encode_pending(index).sessions == 0  # nothing changed: nothing encoded
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message(BREAD, "user", "And a rye crispbread?", timestamp=1_800_000_100.0)
    db.delete_session(DEPLOY)
    db.close()
    sync_index(index, homes=[home])
    found = _passages(index)
    assert DEPLOY not in found and BREAD not in found  # gone with the session; replaced, not encoded yet
    again = vectors.encode_pending(index)
    assert again.sessions == 1
    assert _passages(index) == {LAPTOP: 2, BREAD: 2, HOSE: 2}
    with sqlite3.connect(index) as conn:
        assert (
            conn.execute(
                "SELECT count(*) FROM passages WHERE sess NOT IN (SELECT id FROM sessions)"
            ).fetchone()[0]
            == 0
        )


def test_worker_processes_make_the_same_vectors(home, tmp_path):
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    for index, workers in ((one, 1), (two, 2)):
        sync_index(index, homes=[home])
        assert vectors.encode_pending(index, workers=workers).passages == 8

    def stored(index: Path) -> list[tuple[str, int, bytes]]:
        sql = (
            "SELECT s.session_id, d.row, p.vec FROM passages p JOIN sessions s ON s.id = p.sess "
            "JOIN docs d ON d.id = p.doc ORDER BY 1, 2"
        )
        with sqlite3.connect(index) as conn:
            return conn.execute(sql).fetchall()

    assert stored(one) == stored(two)


def test_a_querys_sync_never_encodes(home, tmp_path, monkeypatch):
    index = tmp_path / "index.db"
    made: list[int] = []
    real = encoder.Encoder.encode

    def counted(self, texts):
        made.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(encoder.Encoder, "encode", counted)
    sync_index(index, homes=[home])
    search(index, ASKED)
    assert made == []  # no passages yet: not even the query is encoded
    assert _passages(index) == {}
    vectors.encode_pending(index)
    made.clear()
    sync_index(index, homes=[home])
    search(index, ASKED)
    assert made == [1]  # the query, nothing else


def test_a_query_works_with_no_vectors_at_all(home, tmp_path, monkeypatch):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    assert search(index, "notebook runs out of charge while suspended").hits[0].session_id == LAPTOP
    monkeypatch.setattr(search_module.encoder, "available", lambda: False)
    vectors.encode_pending(index)  # without the encoder: nothing made, nothing fails
    assert _passages(index) == {}
    assert search(index, "notebook runs out of charge while suspended").hits[0].session_id == LAPTOP


def test_sessions_without_vectors_fall_back_to_their_gists(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    vectors.encode_pending(index)
    with sqlite3.connect(index) as conn:  # as if the laptop session changed and waits for the next run
        conn.execute(
            "DELETE FROM passages WHERE sess = (SELECT id FROM sessions WHERE session_id = ?)", (LAPTOP,)
        )
        conn.execute(
            "DELETE FROM encoded WHERE sess = (SELECT id FROM sessions WHERE session_id = ?)", (LAPTOP,)
        )
        conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'passages_version'")
    assert search(index, "notebook runs out of charge while suspended").hits[0].session_id == LAPTOP
    assert search(index, ASKED).hits[0].session_id == HOSE


def test_while_the_stage_fills_in_the_gists_give_as_many_sessions_as_the_passages(
    home, tmp_path, monkeypatch
):
    """Sessions without passages yet stand by their gists, the nearest SEMANTIC_TOP of them, as the
    passages give their nearest SEMANTIC_TOP: every session without passages that the gists' pass looked
    at (as many more as have passages) stood, so a tenth of a large history encoded put 300 gists beside
    the passages' 20."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    vectors.encode_pending(index, workers=1, most=2)  # the two newest: HOSE and DEPLOY
    assert set(_passages(index)) == {HOSE, DEPLOY}
    monkeypatch.setattr(search_module, "SEMANTIC_TOP", 1)
    monkeypatch.setattr(search_module, "SEMANTIC_FLOOR", -1.0)
    monkeypatch.setattr(search_module.vectors, "PASSAGE_FLOOR", -1.0)
    with sqlite3.connect(index) as conn:
        names = dict(conn.execute("SELECT id, session_id FROM sessions"))
        standing = search_module.meaning_standing(
            conn,
            "sourdough rye bread and a laptop battery asleep",
            search_module._on_sessions(SearchFilters()),
        )
    by_gist = [names[sess] for sess, (_, doc) in standing.items() if doc is None]
    by_passages = [names[sess] for sess, (_, doc) in standing.items() if doc is not None]
    assert len(by_passages) == 1 and len(by_gist) == 1, (by_passages, by_gist)
    assert by_gist[0] in (LAPTOP, BREAD)


def test_one_vector_stage_at_a_time(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    # Another person's `trail index` at work: this one says so and leaves it the work.
    held = vectors._lock(index, wait=False, suffix=vectors.CLAIM)
    assert held is not None
    try:
        report = vectors.encode_pending(index)
        assert report.sessions == 0 and report.skipped
    finally:
        vectors._unlock(held)
    # A stage behind the queries at work: another one is not started.
    held = vectors._lock(index, wait=False)
    assert held is not None
    try:
        report = vectors.encode_pending(index, behind=True)
        assert report.sessions == 0 and report.skipped
    finally:
        vectors._unlock(held)
    assert vectors.encode_pending(index).sessions == 4


def test_a_check_of_the_claim_does_not_turn_a_persons_stage_away(home, tmp_path):
    """Whether a person's stage has claimed the index is told by trying the claim file for a moment (the
    stage behind the queries between its batches, `trail index`): a person's `trail index` that tried it
    in that moment was told another trail was encoding, and encoded nothing. It tries a while longer."""
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    probe = vectors._lock(index, wait=False, suffix=vectors.CLAIM)  # a check under way, slowed down
    assert probe is not None
    release = threading.Timer(0.3, vectors._unlock, args=(probe,))
    release.start()
    try:
        report = vectors.encode_pending(index)
    finally:
        release.join()
    assert not report.skipped and report.sessions == 4


def _wait(done: Callable[[], bool], seconds: float = 180.0) -> None:
    stop = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < stop, "the stage behind the queries did not finish"
        time.sleep(0.2)


def test_a_sync_that_brings_sessions_starts_a_stage_behind_the_queries(home, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAIL_ENCODE_BEHIND", "1")
    index = tmp_path / "index.db"
    trail = Trail(index=index, homes=(home,), sync_interval=0)
    first = trail.search_result(ASKED)
    assert trail.encoding_behind  # the query did not wait for it
    assert first.unencoded
    _wait(lambda: _passages(index) == {LAPTOP: 2, BREAD: 2, DEPLOY: 2, HOSE: 2})
    _wait(lambda: not vectors.held(index))
    answer = trail.search_result(ASKED)
    assert answer.conversations[0].hits[0].session_id == HOSE  # found by its reply's passage
    assert not answer.unencoded
    assert not trail.encoding_behind  # that sync changed nothing: nothing to encode
    # While a stage runs, a sync that changes a session starts no other (the running one takes it).
    held = vectors._lock(index, wait=False)
    try:
        db = hermes_state.SessionDB(db_path=home / "state.db")
        db.append_message(BREAD, "user", "And a rye crispbread?", timestamp=1_800_000_100.0)
        db.close()
        trail.sync()
        assert trail.last_sync is not None and trail.last_sync.sessions_indexed == 1
        assert not trail.encoding_behind
    finally:
        vectors._unlock(held)


def test_sessions_a_python_without_the_model_synced_are_encoded_behind_the_next_query(
    home, tmp_path, monkeypatch
):
    monkeypatch.setenv("TRAIL_ENCODE_BEHIND", "1")
    index = tmp_path / "index.db"
    with monkeypatch.context() as hermes_python:  # the Hermes plugin, in Hermes' own Python: no model
        hermes_python.setattr(encoder, "available", lambda: False)
        plugin = Trail(index=index, homes=(home,), parallel=False)
        plugin.sync()
        assert plugin.last_sync is not None and plugin.last_sync.sessions_indexed == 4
        assert not plugin.encoding_behind
    shell = Trail(index=index, homes=(home,))  # then a `trail search`: its sync finds nothing new
    shell.sync()
    assert shell.last_sync is not None and shell.last_sync.sessions_indexed == 0
    assert shell.encoding_behind
    _wait(lambda: _passages(index) == {LAPTOP: 2, BREAD: 2, DEPLOY: 2, HOSE: 2})
    _wait(lambda: not vectors.held(index))
    again = Trail(index=index, homes=(home,))  # a stage was started for this state: none again
    again.sync()
    assert not again.encoding_behind


def test_no_stage_behind_when_turned_off_or_when_the_caller_encodes(home, tmp_path, monkeypatch):
    index = tmp_path / "index.db"
    trail = Trail(index=index, homes=(home,))
    trail.sync()  # the suite's environment: TRAIL_ENCODE_BEHIND=0
    assert trail.last_sync is not None and trail.last_sync.sessions_indexed == 4
    assert not trail.encoding_behind
    monkeypatch.setenv("TRAIL_ENCODE_BEHIND", "1")
    trail = Trail(index=tmp_path / "other.db", homes=(home,), encode_behind=False)  # as `trail index`
    trail.sync()
    assert not trail.encoding_behind
    trail = Trail(index=tmp_path / "other.db", homes=(home,))  # a query after it: `trail index` encodes them
    trail.sync()
    assert not trail.encoding_behind
    monkeypatch.setattr(encoder, "available", lambda: False)  # Hermes' own Python: no model
    trail = Trail(index=tmp_path / "third.db", homes=(home,))
    trail.sync()
    assert not trail.encoding_behind
    assert not [path for path, _ in behind._started if path.parent == tmp_path]
    for path in (index, tmp_path / "other.db", tmp_path / "third.db"):
        assert _passages(path) == {}


def test_a_rebuild_while_a_batch_is_encoded_leaves_no_passage_on_another_session(home, tmp_path, monkeypatch):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    real = encoder.Encoder.encode
    rebuilt: list[bool] = []

    def meanwhile(self, texts):  # a query's sync rebuilds the index while the batch is encoded
        if not rebuilt:
            rebuilt.append(True)
            db = hermes_state.SessionDB(db_path=home / "state.db")
            db.delete_session(DEPLOY)  # the rebuilt index numbers its sessions otherwise
            db.close()
            sync_index(index, homes=[home], rebuild=True)
        return real(self, texts)

    monkeypatch.setattr(encoder.Encoder, "encode", meanwhile)
    report = vectors.encode_pending(index, workers=1, behind=True)
    assert rebuilt and report.sessions == 0 and "rebuilt" in (report.skipped or "")
    with sqlite3.connect(index) as conn:
        assert conn.execute("SELECT count(*) FROM passages").fetchone()[0] == 0
    assert vectors.encode_pending(index, workers=1).sessions == 3  # the next stage encodes them right
    assert _passages(index) == {LAPTOP: 2, BREAD: 2, HOSE: 2}
    with sqlite3.connect(index) as conn:
        sql = "SELECT count(*) FROM passages p JOIN docs d ON d.id = p.doc WHERE d.sess != p.sess"
        assert conn.execute(sql).fetchone()[0] == 0


def test_trail_index_takes_over_from_a_stage_behind_the_queries(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    at_lock, go = threading.Event(), threading.Event()

    def first_batch_waits(done: int, total: int) -> None:
        if done == 0:  # the stage behind holds the lock and has not encoded anything yet
            at_lock.set()
            assert go.wait(60)

    reports: dict[str, vectors.VectorReport] = {}
    stage = threading.Thread(
        target=lambda: reports.update(
            behind=vectors.encode_pending(index, progress=first_batch_waits, workers=1, behind=True)
        )
    )
    stage.start()
    assert at_lock.wait(60)
    person = threading.Thread(target=lambda: reports.update(person=vectors.encode_pending(index)))
    person.start()
    _wait(lambda: vectors.claimed(index), 60)  # the person's stage claimed it and waits for the lock
    go.set()
    stage.join(120)
    person.join(120)
    assert reports["behind"].sessions == 0 and reports["behind"].skipped == "`trail index` took over"
    assert reports["person"].sessions == 4 and reports["person"].pending == 0


def test_a_stage_behind_takes_the_sessions_synced_while_it_runs_up_to_its_most(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])

    def a_conversation_goes_on(done: int, total: int) -> None:
        if done == 0 and total == 4:
            db = hermes_state.SessionDB(db_path=home / "state.db")
            db.append_message(BREAD, "user", "And a rye crispbread?", timestamp=1_800_000_100.0)
            db.close()
            sync_index(index, homes=[home])  # BREAD again, under a new id

    report = vectors.encode_pending(index, progress=a_conversation_goes_on, workers=1, behind=True)
    assert report.pending == 0
    assert _passages(index) == {LAPTOP: 2, BREAD: 2, DEPLOY: 2, HOSE: 2}
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message(LAPTOP, "user", "And on battery?", timestamp=1_800_000_200.0)
    db.append_message(DEPLOY, "user", "And to production?", timestamp=1_800_002_200.0)
    db.close()
    sync_index(index, homes=[home])
    report = vectors.encode_pending(index, workers=1, behind=True, most=1)
    assert report.sessions == 1 and report.pending == 1  # the newest: DEPLOY; LAPTOP waits
    assert set(_passages(index)) == {BREAD, DEPLOY, HOSE}


def test_trail_index_encodes_after_the_words_unless_told_not_to(home, tmp_path):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    runner = CliRunner()
    index = tmp_path / "index.db"
    where = ["--index", str(index), "--home", str(home)]
    facts = json.loads(runner.invoke(app, ["index", "--json", "--no-vectors", *where]).stdout)
    assert facts["passages"] == 0
    facts = json.loads(runner.invoke(app, ["index", "--json", *where]).stdout)
    assert facts["passages"] == 8


def test_trail_index_says_it_waits_for_the_stage_behind_the_queries_then_encodes_all(home, tmp_path):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    behind_stage = vectors._lock(index, wait=False)  # a stage behind the queries at work
    assert behind_stage is not None
    handed_over = threading.Timer(1.0, vectors._unlock, (behind_stage,))  # as it does after its batch
    handed_over.start()
    try:
        done = CliRunner().invoke(app, ["index", "--json", "--index", str(index), "--home", str(home)])
    finally:
        handed_over.join()
    assert done.exit_code == 0, done.output
    assert "waiting for the passages being encoded in the background" in done.stderr
    assert json.loads(done.stdout)["passages"] == 8


def test_a_kept_matrix_grows_by_what_a_stage_adds_and_answers_as_a_full_load(home, tmp_path):
    index = tmp_path / "index.db"
    sync_index(index, homes=[home])
    vectors.encode_pending(index, workers=1, behind=True, most=2)  # the two newest: HOSE and DEPLOY
    conn = sqlite3.connect(index)
    kept = vectors.matrix(conn, "1", [])
    assert sorted(kept.sessions) == sorted(_ids(index, HOSE, DEPLOY))
    vectors.encode_pending(index, workers=1, behind=True)  # a stage behind the queries adds the rest
    grown = vectors.matrix(conn, "1", [])
    assert grown is not kept and len(grown.blocks) > grown.base  # extended, its first blocks shared
    assert grown.blocks[0] is kept.blocks[0] and kept.rows == 4  # the kept one is untouched
    vectors._MATRICES.clear()
    full = vectors.matrix(conn, "1", [])
    query = encoder.model().encode([ASKED])[0]
    assert _standing(grown, query) == _standing(full, query) and len(_standing(full, query)) == 4
    assert search(index, ASKED).hits[0].session_id == HOSE
    # Passages gone some other way than with their session: read again in full, not extended.
    conn.execute("DELETE FROM passages WHERE sess = ?", _ids(index, LAPTOP))
    conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'passages_version'")
    conn.commit()
    again = vectors.matrix(conn, "1", [])
    assert again.base == len(again.blocks) and sorted(again.sessions) == sorted(
        _ids(index, BREAD, DEPLOY, HOSE)
    )
    conn.close()


def _standing(made: vectors.Matrix, query) -> dict[int, tuple[float, int]]:
    """Each session's best cosine and the doc of that passage."""
    best, rows = made.best(query)
    return {
        sess: (round(float(b), 5), int(made.docs[r]))
        for sess, b, r in zip(made.sessions, best, rows, strict=True)
    }


def _ids(index: Path, *session_ids: str) -> list[int]:
    with sqlite3.connect(index) as conn:
        marks = ", ".join("?" for _ in session_ids)
        return [
            r[0] for r in conn.execute(f"SELECT id FROM sessions WHERE session_id IN ({marks})", session_ids)
        ]


def test_stored_vectors_keep_their_cosines():
    import numpy as np

    rng = np.random.default_rng(3)
    unit = rng.normal(size=(50, 384)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    stored = vectors.Matrix([(i, i, blob) for i, blob in enumerate(vectors.quantize(unit))])
    best, _ = stored.best(unit[0])
    exact = unit @ unit[0]
    assert float(np.abs(best - exact).max()) < 0.01


TAP = "20261104_090000_eeeeee"


def test_a_sessions_title_opens_its_first_passage(home, tmp_path):
    docs = [(1, "prompt", "look at this"), (2, "reply", "done")]
    made = vectors.passages(docs, title=" Kitchen tap leaking ")
    assert made == [(1, "Kitchen tap leaking\nlook at this"), (2, "done")]
    assert vectors.passages([(1, "prompt", "look at this")], title=None) == [(1, "look at this")]
    assert vectors.passages([], title="Kitchen tap leaking") == []  # no docs, no passage
    index = tmp_path / "index.db"
    sync_index(index, homes=[write_home(tmp_path / "titled", [_tap()])])
    with sqlite3.connect(index) as conn:
        (sess,) = conn.execute("SELECT id FROM sessions WHERE session_id = ?", (TAP,)).fetchone()
        assert vectors._session_passages(conn, sess, 4)[0][1].startswith("Kitchen tap leaking\n")
        conn.execute("UPDATE sessions SET kind = 'memory' WHERE id = ?", (sess,))  # a memory file's name
        assert not vectors._session_passages(conn, sess, 4)[0][1].startswith("Kitchen")


def _untitled(patch: pytest.MonkeyPatch) -> None:
    """Passages made as they were before a session's title opened them."""
    real = vectors.passages
    patch.setattr(vectors, "passages", lambda docs, limit=vectors.MAX_PASSAGES, title=None: real(docs, limit))


def _tap():
    """A conversation whose words say nothing of what it was about; its title (Hermes') does."""
    return chat(
        TAP,
        ("Look at this.", "Done: it holds now, give it a day."),
        start=1_800_004_000.0,
        title="Kitchen tap leaking",
    )


def test_a_question_finds_a_conversation_by_the_meaning_of_its_title(tmp_path, monkeypatch):
    specs = [
        *(
            chat(sid, (p, r), start=1_800_000_000.0 + n * 1000)
            for n, (sid, p, r) in enumerate(
                [
                    (
                        LAPTOP,
                        "My laptop battery drains overnight during sleep.",
                        "A USB wake source kept it awake.",
                    ),
                    (
                        BREAD,
                        "Give me a sourdough bread recipe with a rye starter.",
                        "Mix 100 g starter with flour.",
                    ),
                    (DEPLOY, "Deploy the billing service to staging.", "Deployed billing 1.4 to staging."),
                ]
            )
        ),
        _tap(),
    ]
    home = write_home(tmp_path / "hermes", specs)
    asked = "fix a dripping faucet"
    found = {}
    for titled in (True, False):
        index = tmp_path / f"index-{titled}.db"
        sync_index(index, homes=[home])
        with monkeypatch.context() as before:
            if not titled:
                _untitled(before)
            vectors.encode_pending(index)
        found[titled] = [h.session_id for h in search(index, asked).hits]
    assert found[True][:1] == [TAP]
    assert found[False][:1] != [TAP]


def test_passages_made_by_an_earlier_format_are_made_again_and_answer_meanwhile(home, tmp_path, monkeypatch):
    write_home(home.parent / "extra", [_tap()])
    homes = [home, home.parent / "extra"]
    index = tmp_path / "index.db"
    sync_index(index, homes=homes)
    with monkeypatch.context() as before:  # an index whose passages were made before titles opened them
        _untitled(before)
        assert vectors.encode_pending(index).sessions == 5
    with sqlite3.connect(index) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'passages_format'")  # as a trail of then left it
    old = search(index, "fix a dripping faucet").hits
    assert [h.session_id for h in old][:1] != [TAP]
    assert search(index, ASKED).hits[0].session_id == HOSE  # its old passages answer

    stage = vectors.encode_pending(index, most=2)  # cut short: the newest two made again
    assert stage.sessions == 2 and stage.pending == 3
    with sqlite3.connect(index) as conn:
        assert vectors.counts(conn) == (5, 5)  # every session still has vectors
        assert conn.execute("SELECT value FROM meta WHERE key = 'passages_format'").fetchone()[0] == str(
            schema.PASSAGES_FORMAT
        )
    assert _passages(index) == {LAPTOP: 2, BREAD: 2, DEPLOY: 2, HOSE: 2, TAP: 2}  # replaced, none twice
    assert search(index, ASKED).hits[0].session_id == HOSE  # an old one still answers
    assert search(index, "fix a dripping faucet").hits[0].session_id == TAP  # a new one answers

    rest = vectors.encode_pending(index)
    assert rest.sessions == 3 and rest.pending == 0
    assert vectors.encode_pending(index).sessions == 0  # made by this format: nothing to do
    assert _passages(index) == {LAPTOP: 2, BREAD: 2, DEPLOY: 2, HOSE: 2, TAP: 2}


def _stages(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The stages behind the queries started from now on, each as its command line (none is run)."""
    started: list[list[str]] = []

    class Child:
        def __init__(self, args, **_):
            started.append(args)

        def poll(self):
            return 0

    monkeypatch.setattr(behind, "enabled", lambda: True)
    monkeypatch.setattr("subprocess.Popen", Child)
    return started


def test_the_first_sync_after_passages_change_format_starts_a_stage(tmp_path, monkeypatch):
    index = tmp_path / "index.db"
    marker = index.with_name(index.name + behind.STARTED)
    started = _stages(monkeypatch)
    marker.write_text("state-1")  # what a trail whose passages were made otherwise marked
    assert behind.start(index, "state-1", 4)  # same sessions, passages of another format: a stage
    assert not behind.start(index, "state-1", 4)  # started for it: not again
    behind.settle(index, "state-2", 4)  # `trail index` encoded them itself
    assert not behind.start(index, "state-2", 4)
    assert len(started) == 1


def test_a_history_larger_than_a_stage_is_encoded_by_the_stages_the_next_syncs_start(
    home, tmp_path, monkeypatch
):
    """A stage makes the passages of at most MOST_SESSIONS sessions; the next sync finds fewer awaiting and
    starts the next, until none is; a stage that could make none is not started again for nothing."""
    index = tmp_path / "index.db"
    started = _stages(monkeypatch)
    trail = Trail(index=index, homes=(home,), sync_interval=0)
    trail.sync()
    assert trail.last_sync is not None and trail.last_sync.awaiting == 4
    assert trail.encoding_behind and len(started) == 1
    trail.sync()  # nothing made since: not started again
    assert not trail.encoding_behind and len(started) == 1
    vectors.encode_pending(index, most=2)  # what the stage made: its share of a larger history
    trail.sync()
    assert trail.last_sync.awaiting == 2 and trail.encoding_behind and len(started) == 2
    vectors.encode_pending(index)
    trail.sync()
    assert trail.last_sync.awaiting == 0 and not trail.encoding_behind and len(started) == 2


@pytest.mark.skipif(not encoder.available(), reason="no sentence encoder in this environment")
def test_a_long_lived_door_loads_the_model_before_its_first_question(home, tmp_path, monkeypatch):
    """The web viewer, the MCP server and the plugin call ``warm_meaning`` after their first sync: the
    first question that needs the meaning pass took 1-2 s more than the rest (the model's load). It loads
    the passages a search without filters compares against; an index without passages loads nothing."""
    monkeypatch.setenv("TRAIL_ENCODE_BEHIND", "0")
    monkeypatch.setenv("TRAIL_MEANING_SERVER", "0")
    index = tmp_path / "index.db"
    trail = Trail(index=index, homes=(home,))
    trail.sync()
    assert not trail.warm_meaning()  # words only so far
    vectors.encode_pending(index)
    vectors._MATRICES.clear()
    assert trail.warm_meaning()
    assert [m.rows for m in vectors._MATRICES.values()] == [8]  # every session's two passages, kept
    kept = next(iter(vectors._MATRICES.values()))
    assert trail.search_result(ASKED).conversations[0].hits[0].session_id == HOSE
    assert next(iter(vectors._MATRICES.values())) is kept  # the question read none again
    assert not Trail(index=index, homes=(home,), fleet="postgresql://nowhere/x").warm_meaning()
