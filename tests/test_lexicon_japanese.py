"""Japanese read word by word through JMdict (the ``japanese`` extra, installed with the tests): a question
with kana about a conversation held in English, and an English question about one held in Japanese. The
stores are written by Hermes' own SessionDB; no passage is encoded (as before the vector stage has run), so
what finds the conversation is the dictionary, not the sentence model."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.index import cjk, lexicon
from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermesdb import chat, write_home

pytest.importorskip("hermes_state")
if lexicon.japanese_source() is None:  # in the test extra: missing only in a broken environment
    pytest.fail("the Japanese dictionary package (jamdict-data) is not installed", pytrace=False)

T = 1_800_000_000.0


@pytest.fixture
def fresh_table():
    """The dictionary compiled anew for one test (into its own HOME's cache), and forgotten after it."""
    lexicon.table.cache_clear()
    yield
    lexicon.table.cache_clear()


def _index(tmp_path: Path, sessions: list) -> Path:
    home = write_home(tmp_path / "hermes", sessions)
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    return path


def test_katakana_reads_as_the_english_it_was_borrowed_from():
    runs = cjk.question_runs(["データベースのマイグレーションでテーブルをロックしない"])
    assert lexicon.translate(runs)[:3] == [["database"], ["migration"], ["table"]]
    assert ["lock"] in lexicon.translate(runs)


def test_a_question_with_kana_reads_its_kanji_words_in_japanese():
    """手紙 is a letter in Japanese and toilet paper in Chinese: a question with kana is Japanese."""
    letter, write = lexicon.translate(cjk.question_runs(["手紙を書く"]))
    assert "letter" in letter and "toilet" not in letter
    assert "write" in write
    assert lexicon.translate(["手紙"]) == [["toilet", "paper"]]  # no kana: read as Chinese, as before


def test_an_english_word_reads_as_its_japanese_words_too():
    takoyaki, database = lexicon.chinese(["takoyaki", "database"])
    assert "たこ焼き" in takoyaki
    assert "データベース" in database and "数据库" in database  # both languages: the index says which


def test_short_hiragana_is_no_word():
    """した and ない end a question's verbs; as headwords they are a tongue and an absence."""
    assert lexicon.translate(["した"]) == [] and lexicon.translate(["ない"]) == []


LOCKS = "20261201_090000_a1b2c3"
ENGLISH = [
    chat(
        LOCKS,
        (
            "How do I run the schema migration without locking the orders table?",
            "Add the column without a default first: the migration then takes the table lock for a moment.",
        ),
        start=T,
    ),
    chat("20261201_100000_b1b2c3", ("Back up the database before Friday", "Scheduled."), start=T + 60),
    chat("20261201_110000_c1b2c3", ("Which table in the sales report is wrong?", "Table 3."), start=T + 120),
    chat(
        "20261201_120000_d1b2c3", ("The front door lock needs a new battery", "Ordered one."), start=T + 180
    ),
    chat("20261201_130000_e1b2c3", ("Plan the office migration to the new floor", "Done."), start=T + 240),
]


def test_a_japanese_question_finds_the_english_session_it_asks_about(tmp_path):
    """マイグレーション, テーブル and ロック are katakana, which CC-CEDICT cannot read: before JMdict the
    question had no English words and no conversation came first for them."""
    path = _index(tmp_path, ENGLISH)
    result = search(path, "マイグレーションでテーブルがロックされる")
    assert {"migration", "table", "lock"} <= set(result.read_as), result.read_as
    assert result.conversations[0].hits[0].session_id == LOCKS, [
        c.hits[0].session_id for c in result.conversations
    ]


def test_without_the_japanese_dictionary_katakana_is_read_as_typed(fresh_table, monkeypatch):
    monkeypatch.setattr(lexicon, "japanese_source", lambda: None)
    assert lexicon.translate(cjk.question_runs(["マイグレーションでテーブルがロックされる"])) == []
    (read,) = lexicon.translate(cjk.question_runs(["手紙を書く"]))  # 書く is JMdict's alone
    assert "toilet" in read  # kanji as CC-CEDICT reads them


TAKOYAKI = "20261202_090000_f1e2d3"
JAPANESE = [
    chat(
        TAKOYAKI,
        ("たこ焼きの生地のレシピを教えてください", "小麦粉200g、卵2個、だし600mlで生地を作ります。"),
        start=T,
    ),
    chat(
        "20261202_100000_f2e2d3", ("Pancake batter for Sunday breakfast", "Flour, milk, eggs."), start=T + 60
    ),
    chat(
        "20261202_110000_f3e2d3", ("A recipe for sourdough bread", "Feed the starter first."), start=T + 120
    ),
    chat("20261202_120000_f4e2d3", ("Who is the best batter on the team?", "Ana, .312."), start=T + 180),
]


def test_an_english_question_finds_the_japanese_session_it_asks_about(tmp_path):
    """Each English conversation has one of the words; the Japanese one has all three, read through JMdict
    (CC-CEDICT reads "recipe" as 食谱, which Japanese does not write, and has no takoyaki)."""
    path = _index(tmp_path, JAPANESE)
    result = search(path, "takoyaki batter recipe")
    first = result.conversations[0].hits[0]
    assert first.session_id == TAKOYAKI, [c.hits[0].session_id for c in result.conversations]
    assert "«たこ焼き»" in first.snippet or "«レシピ»" in first.snippet, first.snippet
    # takoyaki is in no English turn, but it was found: not said to be missing, and said what it was read as.
    assert "takoyaki" not in result.missing, result.missing
    assert {"たこ焼き", "レシピ"} <= set(result.read_as_cjk), result.read_as_cjk


def test_compiling_both_dictionaries_holds_little_in_memory(tmp_path):
    """Compiling happens inside the MCP server's warm-up and the stage behind the queries, beside the
    sentence model: read as it comes and sorted by SQLite, not held in lists (which took 256 MB)."""
    import os
    import subprocess
    import sys

    if not Path("/proc/self/status").is_file():
        pytest.skip("reads a process's peak memory from Linux's /proc")
    # The peak of this process's own memory (VmHWM; ru_maxrss after a fork keeps the test worker's peak).
    probe = (
        "import re; from hermes_trail.index import lexicon; "
        "assert lexicon.table().execute('SELECT count(*) FROM ja').fetchone()[0] > 100_000; "
        "print(int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1]) // 1024)"
    )
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 150, f"{done.stdout.strip()} MB at most while compiling"  # lists: 256
    assert list((tmp_path / "cache").rglob("lexicon-*-ja*.db"))


def test_without_the_japanese_dictionary_a_kana_question_says_how_to_have_it(tmp_path, monkeypatch):
    """The extra is optional: a person asking in kana without it is told what would read the words."""
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    home = write_home(tmp_path / "hermes", ENGLISH)
    where = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    runner = CliRunner()
    asked = ["search", "マイグレーションでテーブルがロックされる", *where]
    with_it = runner.invoke(app, asked)
    assert with_it.exit_code == 0, with_it.output
    assert "hermes-trail[japanese]" not in with_it.output
    assert "Also read as English: migration" in with_it.output
    monkeypatch.setattr(lexicon, "japanese_source", lambda: None)
    lexicon.table.cache_clear()
    try:
        without = runner.invoke(app, asked)
    finally:
        lexicon.table.cache_clear()
    assert "pip install 'hermes-trail[japanese]'" in without.output, without.output
    english = runner.invoke(app, ["search", "schema migration", *where])
    assert "hermes-trail[japanese]" not in english.output  # no kana, no word about it


def test_a_japanese_dictionary_that_cannot_be_read_leaves_the_chinese_one(fresh_table, tmp_path, monkeypatch):
    """A damaged JMdict file (or another version's tables) is no reason to read no question: CC-CEDICT is
    compiled alone, once, and the kana are read as typed."""
    from hermes_trail.stats_sql import cache_dir

    damaged = tmp_path / "jamdict.db"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    monkeypatch.setattr(lexicon, "japanese_source", lambda: damaged)
    assert lexicon.translate(["证书"]) == [["credentials", "certificate"]]
    assert lexicon.translate(cjk.question_runs(["データベース"])) == []
    (compiled,) = cache_dir().glob("lexicon-*.db")
    assert "-ja" not in compiled.name
    assert not list(cache_dir().glob(".lexicon-*")), "no draft left behind"


def test_the_terminal_lists_only_the_readings_an_answer_shown_has(tmp_path):
    """An English question is read as Japanese whenever its words find few conversations: "pancake batter
    recipe" reads as 生地 and レシピ, which only the takoyaki session has. Asked for one answer (the
    pancake session), the terminal does not say the question was read as Japanese; asked for more, where
    the takoyaki session is shown by those words, it does. ``read_as_cjk`` (the JSON) lists every word
    looked for either way."""
    import io

    from hermes_trail.cli.tables import print_search
    from hermes_trail.cli.term import Printer

    path = _index(tmp_path, JAPANESE)
    for limit, said in ((1, False), (10, True)):
        result = search(path, "pancake batter recipe", limit=limit)
        assert {"生地", "レシピ"} <= set(result.read_as_cjk), result.read_as_cjk
        stream = io.StringIO()
        print_search(Printer(stream), result)
        printed = stream.getvalue()
        assert ("Also read as Chinese or Japanese: 生地, レシピ" in printed) is said, printed
