"""A time a question names ("yesterday", "last week's", "3 days ago", 昨天, gestern): read as a window of
local time, the rest of the question searched within it first, or, when the rest asks for nothing in
particular, the window's conversations listed. The stores are written by Hermes' own SessionDB, dated from
today."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from hermes_trail.index import when
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index
from hermesdb import chat, errands, write_home

# Saturday 5 December 2026, 09:30 local time.
NOW = datetime(2026, 12, 5, 9, 30).timestamp()


def _dm(month: int, day: int) -> float:
    """Midnight of a day of 2026, local time."""
    return datetime(2026, month, day).timestamp()


def _d(day: int, hour: int = 0, minute: int = 0) -> float:
    """A local time of December 2026 (a day of 0 or less: of November)."""
    month, day = (12, day) if day > 0 else (11, day + 30)
    return datetime(2026, month, day, hour, minute).timestamp()


@pytest.mark.parametrize(
    ("question", "words", "since", "until", "rest", "listing"),
    [
        ("what did I work on yesterday", "yesterday", _d(4), _d(5), "what did I work", True),
        ("yesterday's deploy", "yesterday's", _d(4), _d(5), "deploy", False),
        ("Yesterday evening the alerts", "Yesterday evening", _d(4, 17), _d(5), "the alerts", False),
        ("the day before yesterday", "the day before yesterday", _d(3), _d(4), "", True),
        ("last night's restic run", "last night's", _d(4, 18), _d(5, 6), "restic run", False),
        ("what did we discuss this morning", "this morning", _d(5), _d(5, 12), "what did we discuss", True),
        ("last week's deploy failure", "last week's", _d(-7), _d(0), "deploy failure", False),
        ("this week", "this week", _d(0), _d(7), "", True),
        ("invoices last month", "last month", _d(-29), _d(1), "invoices", False),
        ("last friday standup notes", "last friday", _d(4), _d(5), "standup notes", False),
        ("2 days ago", "2 days ago", _d(3), _d(4), "", True),
        ("an hour ago", "an hour ago", _d(5, 7, 30), _d(5, 9, 30), "", True),
        ("retries in the last 3 days", "in the last 3 days", _d(2, 9, 30), _d(5, 9, 31), "retries", False),
        ("我昨天做了什么", "昨天", _d(4), _d(5), "我 做了什么", True),
        ("上周的部署", "上周", _d(-7), _d(0), "的部署", False),
        ("三天前的数据库迁移", "三天前", _d(2), _d(3), "的数据库迁移", False),
        ("was habe ich gestern gemacht", "gestern", _d(4), _d(5), "was habe ich gemacht", True),
        ("der Fehler von letzter Woche", "letzter Woche", _d(-7), _d(0), "der Fehler von", False),
        ("qu'est-ce que j'ai fait hier", "hier", _d(4), _d(5), "qu'est-ce que j'ai fait", True),
        ("¿qué hice ayer?", "ayer", _d(4), _d(5), "¿qué hice ?", True),
        ("la migración de la semana pasada", "la semana pasada", _d(-7), _d(0), "la migración de", False),
        # Italian, Portuguese and Dutch, the other languages the index holds words of
        ("cosa ho fatto ieri", "ieri", _d(4), _d(5), "cosa ho fatto", True),
        ("il deploy della settimana scorsa", "settimana scorsa", _d(-7), _d(0), "il deploy della", False),
        ("fatture il mese scorso", "il mese scorso", _d(-29), _d(1), "fatture", False),
        ("il backup di 2 giorni fa", "2 giorni fa", _d(3), _d(4), "il backup di", False),
        ("o que fiz ontem", "ontem", _d(4), _d(5), "o que fiz", True),
        ("faturas do mês passado", "mês passado", _d(-29), _d(1), "faturas do", False),
        ("o backup de há 2 dias", "há 2 dias", _d(3), _d(4), "o backup de", False),
        ("wat heb ik gisteren gedaan", "gisteren", _d(4), _d(5), "wat heb ik gedaan", True),
        ("de storing van vorige week", "vorige week", _d(-7), _d(0), "de storing van", False),
        ("facturen van 2 dagen geleden", "2 dagen geleden", _d(3), _d(4), "facturen van", False),
        # The weekend: the one under way on a Saturday, "last weekend" the one before it
        ("what did I do over the weekend", "over the weekend", _d(5), _d(7), "what did I do", True),
        ("what happened last weekend", "last weekend", _d(-2), _d(0), "what happened", True),
        ("the deploy failure this weekend", "this weekend", _d(5), _d(7), "the deploy failure", False),
        ("was habe ich am Wochenende gemacht", "am Wochenende", _d(5), _d(7), "was habe ich gemacht", True),
        ("le déploiement du week-end dernier", "week-end dernier", _d(-2), _d(0), "le déploiement du", False),
        ("qué hice el fin de semana pasado", "el fin de semana pasado", _d(-2), _d(0), "qué hice", True),
        ("wat heb ik afgelopen weekend gedaan", "afgelopen weekend", _d(-2), _d(0), "wat heb ik gedaan",
         True),
        ("我上周末做了什么", "上周末", _d(-2), _d(0), "我 做了什么", True),
        # "since": from the time named until now, not that time alone
        ("what did I do since Monday", "since Monday", _d(0), _d(5, 9, 31), "what did I do", True),
        ("errors since yesterday", "since yesterday", _d(4), _d(5, 9, 31), "errors", False),
        ("was ist seit gestern passiert", "seit gestern", _d(4), _d(5, 9, 31), "was ist passiert", True),
        # a time of day said with the day: the hours around it ("3pm" was a word missing from every turn)
        ("what was I doing yesterday at 3pm", "yesterday at 3pm", _d(4, 14), _d(4, 16), "what was I doing",
         True),
        ("the deploy yesterday around 14:30", "yesterday around 14:30", _d(4, 13, 30), _d(4, 15, 30),
         "the deploy", False),
        ("was habe ich gestern um 15 Uhr gemacht", "gestern um 15 Uhr", _d(4, 14), _d(4, 16),
         "was habe ich gemacht", True),
        ("2 errors yesterday", "yesterday", _d(4), _d(5), "2 errors", False),  # a count, no time of day
        ("python 3.12 yesterday", "yesterday", _d(4), _d(5), "python 3.12", False),
        # a count without its article, "earlier" this week, the week or weekend before last, a part of a
        # named day: each was left out, or read as another time ("the weekend before last": this one)
        ("what did I do last two weeks", "last two weeks", _d(-9, 9, 30), _d(5, 9, 31), "what did I do",
         True),
        ("what did I do earlier this week", "earlier this week", _d(0), _d(7), "what did I do", True),
        ("what did I do on the weekend before last", "on the weekend before last", _d(-9), _d(-7),
         "what did I do", True),
        ("the deploy the week before last", "the week before last", _d(-14), _d(-7), "the deploy", False),
        ("what did I do last tuesday morning", "last tuesday morning", _d(1), _d(1, 12), "what did I do",
         True),
        # a span between two times, each said as an option's value is; its rest searched within it
        ("what did I do between monday and wednesday?", "between monday and wednesday", _d(0), _d(3),
         "what did I do", True),
        ("deploys from Monday to Wednesday", "from Monday to Wednesday", _d(0), _d(3), "deploys", False),
        ("was habe ich zwischen Montag und Mittwoch gemacht", "zwischen Montag und Mittwoch", _d(0), _d(3),
         "was habe ich gemacht", True),
        ("qu'ai-je fait du lundi au mercredi", "du lundi au mercredi", _d(0), _d(3), "qu'ai-je fait", True),
        ("errors between 14.3. and 16.3.", "between 14.3. and 16.3.", _dm(3, 14), _dm(3, 17), "errors",
         False),
        # "last Friday" in the other languages read: a time even beside a subject, as in English
        ("der Fehler vom letzten Freitag", "letzten Freitag", _d(4), _d(5), "der Fehler vom", False),
        ("la réunion de vendredi dernier", "vendredi dernier", _d(4), _d(5), "la réunion de", False),
        ("el despliegue del lunes pasado", "lunes pasado", _d(0), _d(1), "el despliegue del", False),
        ("il backup di venerdì scorso", "venerdì scorso", _d(4), _d(5), "il backup di", False),
        ("o deploy da sexta-feira passada", "sexta-feira passada", _d(4), _d(5), "o deploy da", False),
        ("de storing van afgelopen vrijdag", "afgelopen vrijdag", _d(4), _d(5), "de storing van", False),
        # after "since" a weekday's or a month's name is a time beside a subject, or alone (it was read in
        # "what did I do since Monday" alone, and "errors since Tuesday" searched for "tuesday")
        ("errors since Tuesday", "since Tuesday", _d(1), _d(5, 9, 31), "errors", False),
        ("since monday", "since monday", _d(0), _d(5, 9, 31), "", True),
        ("what changed since october", "since october", _dm(10, 1), _d(5, 9, 31), "what changed", False),
        # Korean, its particle joined to the time ("지난주에": last week, in) left out of the words to find
        ("어제 뭐 했어?", "어제", _d(4), _d(5), "뭐 했어?", True),
        ("지난주에 nginx 설정", "지난주", _d(-7), _d(0), "nginx 설정", False),
        ("어제의 서버 재시작", "어제", _d(4), _d(5), "서버 재시작", False),
        ("3일 전 배포", "3일 전", _d(2), _d(3), "배포", False),
        ("이번 달에 뭐 했어요?", "이번 달", _d(1), _dm(12, 31) + 86400, "뭐 했어요?", True),
        ("지난 금요일에 nginx 배포", "지난 금요일", _d(4), _d(5), "nginx 배포", False),
        # a calendar quarter: this or last beside any subject, "Q3" only in a question that asks for nothing
        # else (as a month's name: "the Q3 roadmap" is a subject)
        ("what did we ship last quarter", "last quarter", _dm(7, 1), _dm(10, 1), "what did we ship", False),
        ("deploys this quarter", "this quarter", _dm(10, 1), _dm(12, 31) + 86400, "deploys", False),
        ("what did I do in Q3", "in Q3", _dm(7, 1), _dm(10, 1), "what did I do", True),
        ("was haben wir im letzten Quartal gemacht", "im letzten Quartal", _dm(7, 1), _dm(10, 1),
         "was haben wir gemacht", True),
        ("월요일에 뭐 했어?", "월요일", _d(0), _d(1), "뭐 했어?", True),
    ],
)  # fmt: skip
def test_a_time_counted_back_from_now_is_read_as_a_window(question, words, since, until, rest, listing):
    window = when.read(question, NOW)
    assert window is not None
    assert (window.words, window.since, window.until) == (words, since, until)
    assert (window.rest, window.listing) == (rest, listing)


@pytest.mark.parametrize(
    "question",
    [
        "road trip through asturias in september",  # a month's name: the subject
        "guest wifi for weekend visitors expiring monday",  # a weekday's name alone
        "electricity meter reading compared to last year",  # a year
        "hier ist der Fehler im Parser",  # German "here", not French "yesterday"
        "todays_report.csv is empty",  # part of a name
        "this is the last step of the pipeline",
        "the yest",  # a word being typed
        "docker compose healthcheck",
    ],
)
def test_a_month_a_weekday_a_year_or_a_word_that_only_looks_like_a_time_is_not_read(question):
    assert when.read(question, NOW) is None


@pytest.mark.parametrize(
    ("question", "words", "since", "until"),
    [
        ("what did I work on in November", "in November", _d(-29), _d(1)),
        ("what did I do on Monday", "on Monday", _d(0), _d(1)),
        ("what did we discuss on friday", "on friday", _d(4), _d(5)),
        ("what happened on 2026-11-24", "2026-11-24", _d(-6), _d(-5)),
        ("what did we do in may", "in may", datetime(2026, 5, 1).timestamp(),
         datetime(2026, 6, 1).timestamp()),
        ("what did I do in March 2025", "in March 2025", datetime(2025, 3, 1).timestamp(),
         datetime(2025, 4, 1).timestamp()),
        ("我11月做了什么", "11月", _d(-29), _d(1)),
        ("我周一做了什么", "周一", _d(0), _d(1)),
        ("what did I do on Monday at 10am", "on Monday at 10am", _d(0, 9), _d(0, 11)),
        # a time of day alone: today's, or yesterday's when it has not come yet today (it is 09:30)
        ("what was I doing at 3pm", "at 3pm", _d(4, 14), _d(4, 16)),
        ("what did I do at 8am", "at 8am", _d(5, 7), _d(5, 9)),
        # a day of a month is that day, not the month ("March 14" read as all March); the latest begun
        ("what did I do on march 14", "march 14", _dm(3, 14), _dm(3, 15)),
        ("what did I do on Dec 1st", "Dec 1st", _d(1), _d(2)),
        ("what happened on the 14th of March", "the 14th of March", _dm(3, 14), _dm(3, 15)),
        ("what did I do on 24 December 2025", "24 December 2025", datetime(2025, 12, 24).timestamp(),
         datetime(2025, 12, 25).timestamp()),
        ("was habe ich am 14. März gemacht", "14. März", _dm(3, 14), _dm(3, 15)),
        ("qué hice el 14 de marzo", "14 de marzo", _dm(3, 14), _dm(3, 15)),
        ("我3月14日做了什么", "3月14日", _dm(3, 14), _dm(3, 15)),
        # a month's or a weekday's name in the other languages read, as in English
        ("was habe ich am Montag gemacht", "Montag", _d(0), _d(1)),
        ("qu'est-ce que j'ai fait lundi", "lundi", _d(0), _d(1)),
        ("qué hice el viernes", "viernes", _d(4), _d(5)),
        ("cosa ho fatto venerdì", "venerdì", _d(4), _d(5)),
        ("o que fiz na sexta-feira", "sexta-feira", _d(4), _d(5)),
        ("wat heb ik op maandag gedaan", "maandag", _d(0), _d(1)),
        ("was habe ich im November gemacht", "November", _d(-29), _d(1)),
        ("qu'ai-je fait en mai", "en mai", _dm(5, 1), _dm(6, 1)),
        # a day and a month in digits as German and Dutch write them, with their dots
        ("was habe ich am 14.3. gemacht", "14.3.", _dm(3, 14), _dm(3, 15)),
        ("was haben wir am 14.03.2026 besprochen", "14.03.2026", _dm(3, 14), _dm(3, 15)),
        ("wat heb ik op 1.12. gedaan", "1.12.", _d(1), _d(2)),
        # a year alone ("compared to last year" keeps its words)
        ("what did I do last year", "last year", datetime(2025, 1, 1).timestamp(),
         datetime(2026, 1, 1).timestamp()),
        ("wat heb ik in mei gedaan", "in mei", _dm(5, 1), _dm(6, 1)),
    ],
)  # fmt: skip
def test_a_month_a_weekday_or_a_date_is_a_time_in_a_question_that_asks_for_nothing_else(
    question, words, since, until
):
    window = when.read(question, NOW)
    assert window is not None and window.listing
    assert (window.words, window.since, window.until) == (words, since, until)


@pytest.mark.parametrize(
    "question",
    [
        "invoices in november",
        "the 2026-11-24 log",
        "monday",
        "november",
        "what may I do",
        "on 2026-02-30",
        "the deploy at 3pm",  # a time of day with a subject and no day
        "port 8080",
        "march 14",  # a date alone, as 2026-11-24 alone
        "the deploy on march 14",
        "what did I discuss with marco",  # a name, not Portuguese March typed without its cedilla
        "what did I talk about with mei",  # Dutch May is a month only after "in"
        "what did I do on feb 30",
        "python 3.12",  # a version, not the third of December
        "was ist neu in 3.12",
        "ip 10.0.0.1",
        "move the files from src to lib",  # no times at its ends
        "what did I do between wednesday and monday",  # an end before its start
        "the Q3 roadmap",
        "the last quarter of the year",
    ],
)
def test_a_month_a_weekday_or_a_date_with_a_subject_or_alone_is_a_word_to_find(question):
    assert when.read(question, NOW) is None


def test_a_time_since_is_said_as_since():
    window = when.read("errors since yesterday", NOW)
    assert window is not None
    assert window.explained() == (
        "Nothing since yesterday (Fri 4 Dec 00:00 – Sat 5 Dec 09:31) has the words; showing other times."
    )


def test_a_window_is_said_in_local_time():
    said = {q: when.read(q, NOW).said() for q in ("yesterday", "last week", "last night", "this morning")}
    assert said == {
        "yesterday": "Fri 4 Dec",
        "last week": "Mon 23 Nov – Sun 29 Nov",
        "last night": "Fri 4 Dec 18:00 – Sat 5 Dec 06:00",
        "this morning": "Sat 5 Dec 00:00 – 12:00",
    }


# The store's days, counted back from today at noon (its day before and ten days before are past, whatever
# the hour): a question's "yesterday" is the clock's.
TODAY = datetime.now().replace(hour=12, minute=0, second=0, microsecond=0)
YESTERDAY = (TODAY - timedelta(days=1)).timestamp()
OLD = (TODAY - timedelta(days=10)).timestamp()
DEPLOY_OLD = "20261101_090000_de01d0"
DEPLOY_NEW = "20261102_090000_de02d0"
HAIKU = "20261102_100000_a1ku00"
BREAD = "20261103_090000_b4ead0"


def dated_sessions() -> list:
    """Ten days ago, a long deploy conversation (it outranks any other on "deploy"); yesterday, a short one
    and a haiku; errands long ago make the words rare."""
    return [
        chat(
            DEPLOY_OLD,
            ("Deploy the shop to production", "Deployed: the deploy took 4 minutes."),
            ("Is the deploy healthy?", "The deploy is healthy; deploy logs are clean."),
            start=OLD,
            title="Production deploy",
        ),
        chat(
            DEPLOY_NEW, ("The deploy to staging failed, why?", "A missing env var: fixed."), start=YESTERDAY
        ),
        chat(HAIKU, ("Write a haiku about rain.", "Soft rain on the roof."), start=YESTERDAY + 3600),
        chat(BREAD, ("What's a good hydration for sourdough?", "Start at 70%."), start=OLD - 86400),
        *errands(OLD - 30 * 86400, "20261001", "e7e7e7"),
    ]


@pytest.fixture(scope="module")
def dated(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("dated")
    home = write_home(tmp / "hermes", dated_sessions())
    index = tmp / "index.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp)})
    return home, index


def _ids(result) -> list[str]:
    return [c.hits[0].session_id for c in result.conversations]


def test_what_the_time_held_comes_first_and_the_rest_after(dated):
    """On words, the long deploy conversation of ten days ago leads; asked about yesterday's deploy, the one
    of yesterday does, and the other still follows. The time's own word is not said missing."""
    _, index = dated
    assert _ids(search(index, "deploy"))[:2] == [DEPLOY_OLD, DEPLOY_NEW]
    result = search(index, "yesterday's deploy")
    assert _ids(result)[:2] == [DEPLOY_NEW, DEPLOY_OLD]
    assert result.when is not None and result.when.within == 1 and result.when.rest == "deploy"
    assert result.missing == [] and result.query == "yesterday's deploy"


def test_a_time_with_nothing_of_the_words_says_so_and_answers_from_other_times(dated):
    _, index = dated
    result = search(index, "sourdough hydration yesterday")
    assert _ids(result)[:1] == [BREAD]
    assert result.when is not None and result.when.within == 0
    assert result.when.explained().startswith("Nothing from yesterday (")


def test_a_question_that_asks_only_what_happened_lists_the_times_conversations(dated):
    """ "What did I work on yesterday" names no subject: yesterday's conversations, the latest first, each
    by its prompts then; nothing of other days, and "work" is not searched for."""
    _, index = dated
    result = search(index, "what did I work on yesterday")
    assert _ids(result) == [HAIKU, DEPLOY_NEW]
    assert result.when is not None and result.when.listing and result.when.within == 2
    assert [h.kind for c in result.conversations for h in c.hits] == ["prompt", "prompt"]
    assert result.conversations[0].hits[0].snippet == "Write a haiku about rain."
    assert _ids(search(index, "我昨天做了什么")) == [HAIKU, DEPLOY_NEW]
    korean = search(index, "어제 뭐 했어?")  # Korean: it was searched for as words, "No match"
    assert _ids(korean) == [HAIKU, DEPLOY_NEW] and korean.missing == []
    empty = search(index, "what happened the day before yesterday")
    assert empty.conversations == [] and empty.when is not None and empty.when.within == 0
    assert empty.when.explained().startswith("Nothing recorded the day before yesterday (")


_GERMAN_MONTHS = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
                  "Oktober", "November", "Dezember")  # fmt: skip
_GERMAN_DAYS = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")


def test_a_day_named_by_its_date_or_its_name_in_german_lists_that_days_conversations(dated):
    """Yesterday named as a day of its month ("am 4. Dezember"), or by its weekday's German name: its
    conversations, not the whole month's nor a search for the words "4" and "Dezember"."""
    _, index = dated
    day = datetime.fromtimestamp(YESTERDAY)
    for question in (
        f"was habe ich am {day.day}. {_GERMAN_MONTHS[day.month - 1]} gemacht",
        f"what did I do on {day:%B} {day.day}",
        f"was habe ich am {_GERMAN_DAYS[day.weekday()]} gemacht",
    ):
        result = search(index, question)
        assert _ids(result) == [HAIKU, DEPLOY_NEW], question
        assert result.when is not None and result.when.listing and result.missing == []


def test_the_options_narrow_the_time_and_one_they_leave_no_time_of_is_not_read(dated):
    _, index = dated
    project = search(index, "what did I work on yesterday", SearchFilters(project="/nowhere"))
    assert project.conversations == []
    before = SearchFilters(until=OLD + 86400)  # --until ten days ago: yesterday is outside it
    result = search(index, "yesterday's deploy", before)
    assert result.when is None and _ids(result)[:1] == [DEPLOY_OLD]


def test_the_cli_json_and_a_recall_page_say_which_time(dated):
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    home, index = dated
    runner = CliRunner()
    where = ["--index", str(index), "--home", str(home)]
    out = runner.invoke(app, ["search", "yesterday's deploy", *where], env={"COLUMNS": "100"})
    assert out.exit_code == 0, out.output
    assert "Read 'yesterday' as " in out.output and "the conversation from then first" in out.output
    assert out.output.index(DEPLOY_NEW) < out.output.index(DEPLOY_OLD)
    listed = runner.invoke(app, ["search", "what did I work on yesterday", *where], env={"COLUMNS": "100"})
    assert "Conversations of yesterday (" in listed.output and "2 prompts at that time" in listed.output
    data = json.loads(runner.invoke(app, ["search", "what did I work on yesterday", "--json", *where]).output)
    window = data["when"]
    assert window["words"] == "yesterday" and window["listing"] is True and window["within"] == 2
    assert window["since"].endswith("Z") and window["explained"].startswith("Conversations of yesterday (")
    assert [c["hits"][0]["session_id"] for c in data["conversations"]] == [HAIKU, DEPLOY_NEW]
    plain = json.loads(runner.invoke(app, ["search", "deploy", "--json", *where]).output)
    assert plain["when"] is None
    page = runner.invoke(app, ["recall", "what did we talk about yesterday", *where]).output
    assert "Conversations of yesterday (" in page and HAIKU in page and BREAD not in page


def test_hermes_memory_changed_then_is_no_conversation_of_that_time(tmp_path):
    """A memory entry's time is its file's, when it last changed: Hermes' memory written yesterday about
    deploys is no conversation of yesterday, and does not stand before the one that was."""
    import os

    from tools import memory_tool

    import hermesdb

    home = write_home(
        tmp_path / "hermes",
        [
            chat(DEPLOY_OLD, ("Deploy the shop to production", "Deployed."), start=OLD),
            chat(
                DEPLOY_NEW,
                ("The deploy to staging failed, why?", "A missing env var: fixed."),
                start=YESTERDAY,
            ),
            *errands(OLD - 30 * 86400, "20261001", "e9e9e9"),
        ],
    )
    with hermesdb.hermes_env(home):
        store = memory_tool.MemoryStore()
        store.load_from_disk()
        assert store.add("memory", "Deploys to staging need the deploy key of the release manager.")[
            "success"
        ]
    os.utime(home / "memories" / "MEMORY.md", (YESTERDAY + 600, YESTERDAY + 600))
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(tmp_path)})
    plain = search(index, "staging deploy")
    assert any(h.origin == "memory" for h in plain.hits), "the memory entry answers on words"
    result = search(index, "yesterday's staging deploy")
    assert result.when is not None and result.when.within == 1
    assert result.conversations[0].hits[0].session_id == DEPLOY_NEW


def test_a_search_kept_to_a_time_reads_the_full_text_index_within_its_docs_span(dated, monkeypatch):
    """A time window bounds the full-text match by the doc ids its sessions span (what makes a common word
    fast there); the answer is the one the time condition alone gives."""
    from hermes_trail.index import search as search_module

    _, index = dated
    asked = ["deploy", "rain", "order printer paper", "deploy OR haiku", "staging -production"]
    windows = [SearchFilters(since=YESTERDAY - 3600), SearchFilters(since=OLD - 3600, until=YESTERDAY)]
    windows.append(SearchFilters(since=time.time() + 3600))  # nothing since: an empty span
    bounded = [[(c.store, c.root) for c in search(index, q, f).conversations] for q in asked for f in windows]
    assert any(bounded) and not all(bounded)
    spans = []
    real = search_module._time_span
    monkeypatch.setattr(search_module, "_time_span", lambda conn, f: spans.append(real(conn, f)) or None)
    unbounded = [
        [(c.store, c.root) for c in search(index, q, f).conversations] for q in asked for f in windows
    ]
    assert bounded == unbounded
    assert (0, -1) in spans and any(lo <= hi for lo, hi in spans)


def test_a_window_that_fills_the_answer_asks_nothing_of_other_times(dated, monkeypatch):
    """Asked for one conversation about yesterday's deploy, the window gives it: the search at any time,
    whose conversations would all come after it, is not run."""
    from hermes_trail.index import search as search_module

    _, index = dated
    asked: list[str] = []
    real = search_module._search
    monkeypatch.setattr(
        search_module, "_search", lambda conn, text, *a: asked.append(text) or real(conn, text, *a)
    )
    result = search(index, "yesterday's deploy", limit=1)
    assert _ids(result) == [DEPLOY_NEW] and result.when is not None and result.when.within == 1
    assert asked == ["deploy"] and result.query == "yesterday's deploy"
    asked.clear()
    assert _ids(search(index, "yesterday's deploy", limit=2)) == [DEPLOY_NEW, DEPLOY_OLD]
    assert asked == ["deploy", "yesterday's deploy"]


@pytest.mark.parametrize(
    ("said", "since", "until"),
    [
        ("yesterday", _d(4), _d(5)),
        ("last week", _d(-7), _d(0)),
        ("3 days ago", _d(2), _d(3)),
        ("gestern", _d(4), _d(5)),
        ("monday", _d(0), _d(1)),  # a weekday's name alone: a time, as an option's value
        ("November", _d(-29), _d(1)),
        ("14 march", _dm(3, 14), _dm(3, 15)),
    ],
)
def test_a_time_given_to_an_option_is_read_as_its_window(said, since, until):
    """``--since yesterday``, ``--since "last week"``, ``--until monday``: refused ("give a duration like
    7d"), though a question with those words was read so. Since its start, until its end."""
    from hermes_trail.listing import parse_since

    assert when.span_of(said, NOW) == (since, until)
    now = datetime.fromtimestamp(NOW).astimezone()
    assert parse_since(said, now).timestamp() == since
    assert parse_since(said, now, end=True).timestamp() == until


@pytest.mark.parametrize("said", ["deploy yesterday", "bogus", "", "march madness"])
def test_words_that_are_no_time_alone_are_no_option_value(said):
    assert when.span_of(said, NOW) is None


def test_the_cli_takes_a_time_in_words_for_since_and_until(dated, tmp_path):
    """``trail search deploy --since yesterday`` keeps to yesterday's conversations; ``--until`` a time in
    words ends with it."""
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app

    home, index = dated
    asked = ["search", "deploy", "--json", "--home", str(home), "--index", str(index)]
    recent = CliRunner().invoke(app, [*asked, "--since", "yesterday"], env={"HOME": str(tmp_path)})
    assert recent.exit_code == 0, recent.output
    assert [c["hits"][0]["session_id"] for c in json.loads(recent.output)["conversations"]] == [DEPLOY_NEW]
    older = CliRunner().invoke(app, [*asked, "--until", "3 days ago"], env={"HOME": str(tmp_path)})
    assert older.exit_code == 0, older.output
    assert [c["hits"][0]["session_id"] for c in json.loads(older.output)["conversations"]] == [DEPLOY_OLD]
    bad = CliRunner().invoke(app, [*asked, "--since", "bogus"], env={"HOME": str(tmp_path)})
    assert bad.exit_code != 0 and "a time like yesterday" in bad.output
