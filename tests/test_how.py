"""``how.how``: the commands a project really ran that match, by sessions and success, on stores written by
Hermes' ``SessionDB`` and indexed by ``sync_index``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail.index import how, query
from hermes_trail.index.sync import sync_index

PROJECT = "/home/dev/project"
OTHER = "/home/dev/other"
PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


class Session:
    """A session's terminal calls as Hermes writes them (``{"output", "exit_code", "error"}`` results)."""

    def __init__(self, n: int, cwd: str = PROJECT, **spec: Any) -> None:
        self.id = f"20261102_{n:02d}0000_{n:06x}"
        self.start = self.t = hermesdb.T0 + 3600 * n
        self.cwd, self.spec_kw = cwd, spec
        self.messages: list[dict[str, Any]] = [hermesdb.user("Work on it", timestamp=self.t)]

    def run(self, command: str, output: str = "", exit_code: int = 0) -> Session:
        ask, result = hermesdb.terminal_exchange(f"call_{len(self.messages)}", command, output, exit_code)
        ask["timestamp"], result["timestamp"] = self.t, self.t + 1
        self.messages += [ask, result]
        self.t += 10
        return self

    def ask(self, prompt: str) -> Session:
        self.messages.append(hermesdb.user(prompt, timestamp=self.t))
        self.t += 10
        return self

    def intend(self, text: str, command: str, output: str = "", exit_code: int = 0) -> Session:
        """An assistant row saying what it is about to do, and calling ``terminal`` for it in the same row."""
        ask, result = hermesdb.terminal_exchange(f"call_{len(self.messages)}", command, output, exit_code)
        ask["content"], ask["timestamp"], result["timestamp"] = text, self.t, self.t + 1
        self.messages += [ask, result]
        self.t += 10
        return self

    def blocked(self, command: str) -> Session:
        call_id = f"call_{len(self.messages)}"
        result = {
            "output": "",
            "exit_code": -1,
            "status": "blocked",
            "error": "BLOCKED: User denied this command. Do NOT retry.",
        }
        self.messages.append(
            hermesdb.assistant("", hermesdb.call(call_id, "terminal", command=command), timestamp=self.t)
        )
        self.messages.append(hermesdb.tool(call_id, "terminal", result, timestamp=self.t + 1))
        self.t += 10
        return self

    def spec(self) -> hermesdb.SessionSpec:
        kw = {"started_at": self.start, "ended_at": self.t, **self.spec_kw}
        return hermesdb.SessionSpec(self.id, self.messages, cwd=self.cwd, **kw)


def open_index(tmp_path: Path, sessions: list[Session]) -> sqlite3.Connection:
    home = hermesdb.write_home(tmp_path / "home", [s.spec() for s in sessions])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={})
    return sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)


def most_words(
    conn: sqlite3.Connection, question: str, limit: int = 10, respell: bool = False
) -> list[how.HowEntry]:
    """:func:`how.most_words` of ``question`` over the index open on ``conn``: its words counted there and,
    with ``respell``, a word typed wrong asked for as the history writes it (as `trail how` asks)."""
    return how.most_words(
        lambda asked: how.how(conn, asked),
        question,
        lambda words: how.local_counts(conn, words),
        limit,
        (lambda word: how.local_respelled(conn, word)) if respell else None,
    )


@pytest.fixture
def conn(tmp_path):
    sessions = [
        Session(1)
        .run("cat pyproject.toml", PYPROJECT)
        .run("pytest -q", "1 failed", 1)
        .run("pytest -q", "4 passed"),
        Session(2).run("cat pyproject.toml", PYPROJECT).run(f"cd {PROJECT} &&  pytest   -q", "4 passed"),
        Session(3).run("cat pyproject.toml", PYPROJECT).run("pytest -q", "4 passed"),
        Session(4).run("cat pyproject.toml", PYPROJECT).run("python -m pytest", "4 passed"),
        Session(5).run("python manage.py migrate", "Applying app.0001_initial... OK"),
        Session(6).run("python manage.py migrate --fake", "OK").run("python manage.py migrate", "", -9),
        Session(7)
        .blocked("rm -rf build && pytest -q")
        .run("pytest -x", "[Command timed out after 60s]", 124),
        Session(8, cwd=OTHER).run("pytest -q", "ok").run("cat pyproject.toml", PYPROJECT),
        Session(9, cwd=f"{PROJECT}/sub").run("pytest -q", "ok"),
    ]
    c = open_index(tmp_path, sessions)
    yield c
    c.close()


def test_commands_rank_by_sessions_then_success(conn):
    entries = how.how(conn, "pytest")
    top = entries[0]
    assert top.command == "pytest -q"
    assert top.matched_in == "command"
    # Sessions 1, 2, 3, 8 and 9 (the `cd ... &&` run and its spacing are the same command).
    assert (top.sessions, top.runs, top.ok, top.failed) == (5, 6, 5, 1)
    assert top.success_rate == pytest.approx(5 / 6)
    assert top.last_ref.endswith("20261102_090000_000009")
    assert top.last_exit_code == 0
    assert top.example == "pytest -q"


def test_a_command_matching_only_in_its_output_comes_after(conn):
    entries = how.how(conn, "pytest")
    kinds = [e.matched_in for e in entries]
    assert kinds == sorted(kinds)  # every "command" before every "output"
    cat = next(e for e in entries if e.command == "cat pyproject.toml")
    assert cat.matched_in == "output"
    assert cat.sessions == 5  # more sessions than some pytest runs, still after them
    assert [e.command for e in entries if e.matched_in == "command"] == [
        "pytest -q",
        "python -m pytest",
        "pytest -x",
    ]


def test_blocked_commands_never_ran_and_timeouts_failed(conn):
    entries = how.how(conn, "pytest")
    assert all("rm -rf" not in e.command for e in entries)
    timed_out = next(e for e in entries if e.command == "pytest -x")
    assert (timed_out.runs, timed_out.ok, timed_out.failed, timed_out.success_rate) == (1, 0, 1, 0.0)
    assert timed_out.last_exit_code == 124


def test_project_is_the_project_or_a_path_under_it(conn):
    here = how.how(conn, "pytest", project=PROJECT)
    top = here[0]
    assert (top.command, top.sessions) == ("pytest -q", 4)  # 1, 2, 3 and sub/ (9); not the other project
    assert top.projects == [PROJECT, f"{PROJECT}/sub"]
    assert how.how(conn, "pytest", project="/home/dev/project/")[0].sessions == 4
    assert how.how(conn, "pytest", project="other")[0].sessions == 1  # trailing parts name a project
    assert how.how(conn, "pytest", project="/home/dev/proj") == []  # a prefix that is no path boundary


def test_a_command_fragment_is_found_as_a_substring(conn):
    entries = how.how(conn, "manage.py migrate")
    assert [e.command for e in entries] == ["python manage.py migrate", "python manage.py migrate --fake"]
    migrate = entries[0]
    assert (migrate.sessions, migrate.runs, migrate.ok, migrate.failed) == (2, 2, 1, 1)  # one killed
    # The start of a word finds nothing in the word index; the trigram index has it.
    assert [e.command for e in how.how(conn, "migrat")][:1] == ["python manage.py migrate"]
    assert [e.command for e in how.how(conn, "--fake")] == ["python manage.py migrate --fake"]


def test_query_syntax_is_the_search_boxs(conn):
    assert [e.command for e in how.how(conn, "migrate -fake")] == ["python manage.py migrate"]
    assert {e.command for e in how.how(conn, "migrate OR pytest")} >= {
        "pytest -q",
        "python manage.py migrate",
    }
    assert how.how(conn, "") == []
    assert how.how(conn, '"unclosed') == []
    assert how.how(conn, "NEAR(") == []


def test_a_flag_typed_after_its_command_is_asked_for_not_excluded(conn):
    """A dash right after a word was read as an exclusion, so a command pasted with its flags ("pytest
    -x", "python -m pytest") excluded the very command it asks for. Where the history writes the word
    with that flag, the flag is asked for; elsewhere ("migrate -fake": the history says --fake) and with
    NOT, it still excludes."""
    assert [e.command for e in how.how(conn, "pytest -x")] == ["pytest -x"]
    assert [e.command for e in how.how(conn, "python -m pytest")] == ["python -m pytest"]
    assert "pytest -x" not in [e.command for e in how.how(conn, "pytest NOT x")]
    assert [e.command for e in how.how(conn, "migrate -fake")] == ["python manage.py migrate"]


def test_a_name_typed_with_its_version_finds_the_name_run_without(conn):
    """ "python3 manage.py migrate" found nothing ("No command on record does ...") where the history runs
    ``python manage.py migrate``: a name with its version joined is looked for as the name alone when the
    history has no such version, and said ("searched for python")."""
    asked = "python3 manage.py migrate"
    assert how.how(conn, asked) == []
    entries = most_words(conn, asked, respell=True)
    assert entries and entries[0].command == "python manage.py migrate"
    assert entries[0].spelled == {"python3": ["python"]}


def test_limit(conn):
    assert len(how.how(conn, "pytest", limit=1)) == 1


def test_rewound_runs_do_not_count(tmp_path):
    rewound = Session(2, rewind_to=0).run("make deploy", "done")
    conn = open_index(tmp_path, [Session(1).run("make deploy", "done"), rewound])
    entries = how.how(conn, "deploy")
    assert [(e.command, e.sessions) for e in entries] == [("make deploy", 1)]


@pytest.mark.parametrize(
    ("command", "normalized"),
    [
        ("  pytest   -q \n", "pytest -q"),
        ("cd /x && pytest -q", "pytest -q"),
        ('cd "/a b" && cd sub && make', "make"),
        ("cd /x", "cd /x"),
        ("pytest\t-q\n-x", "pytest -q -x"),
    ],
)
def test_normalize_command(command, normalized):
    assert how.normalize_command(command) == normalized


# --------------------------------------------------------------------------- what led to the command

HEX = "printf '%x\\n' 255"


@pytest.fixture
def asked(tmp_path):
    sessions = [
        Session(1)
        .ask("convert this number to hexadecimal")
        .run(HEX, "ff")
        .ask("now show the files here")
        .run("ls -la", "total 0"),
        Session(2)
        .ask("What is listening on this box?")
        .intend(
            "I'll list the listening ports.",
            "ss -ltnp",
            "State Recv-Q Local Address:Port\nLISTEN 0 127.0.0.1:5432",
        ),
        *(
            Session(n).ask("show me file.bin as a hexdump").run("xxd file.bin", "00000000: 7f45")
            for n in (3, 4, 5)
        ),
        Session(6).run("hexdump -C file.bin", "00000000  7f 45"),
        Session(7).run("cat NOTES", "look at it with hexdump -C"),
        Session(8, cwd=OTHER).ask("convert the image to png").run("magick a.jpg a.png", ""),
    ]
    c = open_index(tmp_path, sessions)
    yield c
    c.close()


def test_the_prompt_that_led_to_a_command_finds_it(asked):
    entries = how.how(asked, "convert this number to hexadecimal")
    assert [e.command for e in entries] == [HEX]  # not `ls -la`, which the next prompt led to
    top = entries[0]
    assert (top.matched_in, top.sessions, top.runs, top.ok) == ("prompt", 1, 1, 1)
    assert top.prompt == "convert this number to hexadecimal"
    assert [e.command for e in how.how(asked, "how do I convert a number to hexadecimal?")] == [HEX]
    assert [e.command for e in how.how(asked, "hexadecimal", project=OTHER)] == []


def test_a_possessive_asks_for_the_word_alone(asked):
    """A question with a possessive ("what is listening on the box's"): the prompt said "listening on this
    box", never "box's"; read as typed, the tokenizer asked for "box" then "s" and found nothing."""
    assert [e.command for e in how.how(asked, "what is listening on the box's")] == ["ss -ltnp"]
    box = how.content(query.parse("the box’s ports").root)
    assert box == query.And((query.Term("box"), query.Term("ports")))


def test_the_assistants_stated_intent_finds_the_command(asked):
    entries = how.how(asked, "list the listening ports")
    assert [(e.command, e.matched_in) for e in entries] == [("ss -ltnp", "intent")]
    assert entries[0].prompt == "I'll list the listening ports."


# The agent says once what it is about to do, runs it, fixes something, and runs it again without saying.
RERUNS = (
    Session(9)
    .ask("The forecast test fails since yesterday, find out why")
    .intend("Let me run the test suite first.", "python -m pytest -q tests/test_forecast.py", "1 failed", 1)
    .run("sed -i 's/- 32/+ 0/' weather/units.py")
    .run("python -m pytest -q", "6 passed")
    .run("git status", "nothing to commit")
    .ask("and the docs build?")
    .run("python -m pytest -q --doctest-modules", "ok")
)


def test_a_rerun_of_what_a_stated_intent_ran_counts_as_led_by_it(tmp_path):
    """``python -m pytest -q``, run after the fix in the same prompt's work, is the run the agent's "let me
    run the test suite" led to, though no text came with it: it answers the question, the one that worked
    first. What else ran there (``sed``, ``git status``) is not led by it, nor a run after the next
    prompt."""
    conn = open_index(tmp_path, [RERUNS])
    entries = how.how(conn, "how do I run the test suite")
    assert [(e.command, e.matched_in, e.runs, e.ok) for e in entries] == [
        ("python -m pytest -q", "intent", 1, 1),
        ("python -m pytest -q tests/test_forecast.py", "intent", 1, 0),
    ]
    assert entries[0].prompt == "Let me run the test suite first."


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("python -m pytest -q", "python -m pytest -q tests/test_x.py", True),
        ("cd /x && pytest -q", "pytest  -q", True),
        ("make test", "make build", False),
        ("ls", "ls -la /etc", False),  # one word says too little
        ("pytest -q", "pytest -x", False),
    ],
)
def test_same_run(one, other, same):
    assert how.same_run(one, other) is same
    assert how.same_run(other, one) is same


def test_a_match_in_the_command_ranks_above_one_in_its_prompt_then_output(asked):
    entries = how.how(asked, "hexdump")
    # xxd ran in three sessions, hexdump in one: the command's own words still rank first.
    assert [(e.command, e.matched_in) for e in entries] == [
        ("hexdump -C file.bin", "command"),
        ("xxd file.bin", "prompt"),
        ("cat NOTES", "output"),
    ]
    assert entries[0].prompt is None
    assert entries[1].sessions == 3
    assert entries[1].prompt == "show me file.bin as a hexdump"


def test_stop_words_do_not_make_a_prompt_match(asked):
    assert [e.command for e in how.how(asked, "how do I convert this to hexadecimal")] == [HEX]
    assert how.how(asked, "how do I do this") == []  # every prompt here has some of these words
    assert how.how(asked, "how to convert this to a gif") == []  # convert, this and to: no gif
    # Alternatives and exclusions: a stop-word alternative does not match everything, an exclusion holds.
    assert [e.command for e in how.how(asked, "hexadecimal OR the")] == [HEX]
    assert how.how(asked, "convert -png") and all(
        "png" not in e.command for e in how.how(asked, "convert -png")
    )


def test_a_question_with_a_word_no_prompt_said_finds_the_commands_of_the_others(asked):
    """People ask in the words of the task, and one word the prompt before the command did not say left
    nothing at all: the commands that match all but one word answer, each saying the word it lacks."""
    import io

    from hermes_trail.cli.tables import print_how
    from hermes_trail.cli.term import Printer

    question = "convert this huge number to hexadecimal"
    assert how.how(asked, question) == []  # no prompt says huge
    entries = most_words(asked, question)
    assert [(e.command, e.matched_in, e.lacks) for e in entries] == [(HEX, "prompt", ["huge"])]
    stream = io.StringIO()
    print_how(Printer(stream), question, entries)
    assert "Nothing on record does all of" in stream.getvalue() and "without: huge" in stream.getvalue()
    # Matched as asked: nothing is left out.
    assert [e.lacks for e in most_words(asked, "convert number hexadecimal")] == [[]]
    # Two words (one alone would be left), a phrase or an exclusion: what was asked, or nothing.
    assert most_words(asked, "how to convert this to a gif") == []
    assert most_words(asked, '"convert this huge number"') == []
    assert most_words(asked, "convert huge number -png") == []


KAFKA = "kafka-consumer-groups --bootstrap-server kafka:9092 --describe --group billing"
REPLICA = "psql -c 'select replay_lag from pg_stat_replication'"


def test_a_question_with_two_words_no_prompt_said_finds_the_commands_of_the_others(tmp_path):
    """ "check kafka consumer lag", where the prompt before the command said "is the billing consumer
    keeping up": two of its words are nowhere near that command, and leaving out one found nothing, so
    `trail how` said "No command on record". All but two (of four or more) answer now, the most common
    left out first, each command saying which words it lacks; a word no doc has at all is left out before
    any other, as a search leaves it out; never down to one word."""
    import io

    from hermes_trail.cli.tables import print_how
    from hermes_trail.cli.term import Printer

    sessions = [
        Session(1).ask("Is the billing consumer keeping up?").run(KAFKA, "billing invoices 3 884120 7487"),
        Session(2).ask("check lag on the replica").run(REPLICA),
        *(Session(n).ask(f"check the disk on web-0{n}").run(f"ssh web-0{n} df -h", "/ 41%") for n in (3, 4)),
        Session(5).ask("Add an alarm for 5xx on the load balancer.").run("terraform validate", "Success!"),
    ]
    conn = open_index(tmp_path, sessions)
    question = "check kafka consumer lag"
    assert most_words(conn, question.replace("lag", "").strip())[0].lacks == ["check"]
    entries = most_words(conn, question)
    assert [(e.command, e.lacks) for e in entries] == [
        (KAFKA, ["check", "lag"]),
        (REPLICA, ["kafka", "consumer"]),
    ]
    stream = io.StringIO()
    print_how(Printer(stream), question, entries)
    assert "leaving out 2 words:" in stream.getvalue() and "without: check, lag" in stream.getvalue()
    # A word no doc has ("offsets") is left out first, then the most common of the others.
    entries = most_words(conn, "check kafka consumer offsets")
    assert (entries[0].command, entries[0].lacks) == (KAFKA, ["offsets", "check"])
    # A command whose prompt and text together say every word lacks none, and comes first: no one doc
    # has "validate terraform load balancer alarm", the command and what led to it do.
    entries = most_words(conn, "validate the terraform for the load balancer alarm")
    assert (entries[0].command, entries[0].lacks) == ("terraform validate", [])
    # Never down to one word: "kafka" alone would be left of "replica kafka offsets".
    assert most_words(conn, "replica kafka offsets") == []
    conn.close()


def test_half_a_question_found_only_in_a_command_s_output_is_no_answer(tmp_path):
    """ "check which process uses a port", where no command answers it: leaving out "check" and "port"
    found a training run whose output says "the process uses 9 GB", and `trail how` gave it as the way to
    do the task. With two words left out a command is an answer only where it or what led to it says the
    rest; one found by its output alone is not (a question asked in other words goes to meaning)."""
    sessions = [
        Session(1).ask("Train the model.").run("python train.py", "the process uses 9 GB of memory"),
        Session(2).ask("Which port does the admin use?").run("grep -n listen nginx.conf", "listen 8080;"),
        Session(3).ask("check the disk").run("df -h", "/ 41%"),
        Session(4).ask("check the memory").run("free -m", "Mem: 15842"),
    ]
    conn = open_index(tmp_path, sessions)
    found = most_words(conn, "check which process uses a port")
    assert "python train.py" not in [e.command for e in found], [(e.command, e.lacks) for e in found]
    # Leaving out one word, the output still answers: "which process uses the memory".
    found = most_words(conn, "which process uses memory now")
    assert found and found[0].command == "python train.py", [(e.command, e.lacks) for e in found]
    conn.close()


# The NAS's uptime asked for, a Django check "--check --dry-run" and the running containers checked.
NAS_UPTIME = [
    Session(1).ask("How long has the NAS been up?").run("ssh nas-01 uptime", "up 213 days"),
    Session(2).ask("Are the migrations in order?").run("python manage.py makemigrations --check --dry-run"),
    Session(3).ask("Check the running containers.").run("docker ps", "web Up 2 hours"),
]


def test_a_word_of_another_languages_function_words_is_asked_for_among_english_ones(tmp_path):
    """ "check how long the nas has been running": "nas" is the machine (Portuguese "in the" only beside
    another Portuguese function word). Dropped, "check running" found a Django check whose command says
    "--check --dry-run", first with one word left out, before the NAS's uptime its prompt asked for."""
    conn = open_index(tmp_path, NAS_UPTIME)
    found = most_words(conn, "check how long the nas has been running")
    conn.close()
    assert found and found[0].command == "ssh nas-01 uptime", [(e.command, e.lacks) for e in found]


def test_a_word_typed_wrong_is_asked_for_as_the_word_the_history_has(asked):
    """The word "hexadecmal" (a letter left out) found nothing, and two words are too few to leave one out:
    the history's "hexadecimal" is asked for in its place, and the commands say so."""
    import io

    from hermes_trail.cli.tables import print_how
    from hermes_trail.cli.term import Printer

    assert how.how(asked, "convert hexadecmal") == [] == most_words(asked, "convert hexadecmal")
    entries = most_words(asked, "convert hexadecmal", respell=True)
    assert [(e.command, e.spelled) for e in entries] == [(HEX, {"hexadecmal": ["hexadecimal"]})]
    stream = io.StringIO()
    print_how(Printer(stream), "convert hexadecmal", entries)
    assert "Not found: hexadecmal; searched for hexadecimal." in stream.getvalue()
    # A word the history has, or a word of English it lacks, is asked for as typed.
    assert how.local_respelled(asked, "hexadecimal") == [] == how.local_respelled(asked, "zeppelin")
    assert [e.spelled for e in most_words(asked, "convert hexadecimal", respell=True)] == [{}]
    # A word the history writes with other spacing ("hex-dump" for its hexdump) is asked for as it does.
    assert how.how(asked, "file.bin hex-dump") == []
    spaced = most_words(asked, "file.bin hex-dump", respell=True)
    assert spaced and all(e.spelled == {"hex-dump": ["hexdump"]} for e in spaced)
    assert "xxd file.bin" in [e.command for e in spaced]


# A backup asked for in German, which writes "backup copy" as one word (Sicherungskopie).
IN_COMPOUNDS = [
    Session(1).ask("Erstelle eine Sicherungskopie der Datenbank").run("pg_dump shop > shop.sql", ""),
    Session(2).ask("Zeig mir die Tabellen der Datenbank").run("psql shop -c '\\dt'", "orders"),
]


def test_a_compounds_first_part_is_asked_for_as_the_compound(tmp_path):
    """German writes "backup copy" as one word: "Sicherung Datenbank" asked for a word no prompt has, and
    two words are too few to leave one out, so nothing was found. The history's compound that starts with
    it is asked for in its place, and the command says so (as a search reads it)."""
    conn = open_index(tmp_path, IN_COMPOUNDS)
    try:
        entries = most_words(conn, "Sicherung Datenbank", respell=True)
    finally:
        conn.close()
    assert [(e.command, e.spelled) for e in entries] == [
        ("pg_dump shop > shop.sql", {"Sicherung": ["sicherungskopie"]})
    ]


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("how do I run the tests", "run tests"),
        ("What's this?", None),
        ('"how to"', "how to"),
        ("th*", "th"),
        # Portuguese "in the" only beside another Portuguese function word, as a search reads it.
        ("check how long the nas has been running", "check long nas running"),
        ("os backups nas nuvens", "backups nuvens"),
    ],
)
def test_content_words(typed, kept):
    root = how.content(query.parse(typed).root)
    assert (None if root is None else " ".join(query.terms(query.Query(root)))) == kept


def test_a_full_window_of_prompts_is_scored_without_reading_them(asked, monkeypatch):
    # Common words: only the newest PROMPTS matching prompts are read, scored by their length.
    monkeypatch.setattr(how, "PROMPTS", 2)
    entries = how.how(asked, "hexdump")
    assert [(e.command, e.matched_in, e.sessions) for e in entries] == [
        ("hexdump -C file.bin", "command", 1),
        ("xxd file.bin", "prompt", 2),  # sessions 5 and 4, the newest two of the three
        ("cat NOTES", "output", 1),
    ]


# Prompts in Chinese and Japanese, the commands they led to, and the questions that find them (or not).
ASKED_IN_CJK = [
    Session(1)
    .ask("查看8080端口被谁占用了")
    .run("lsof -i :8080", "node 1234 dev 21u IPv4 TCP *:8080 (LISTEN)"),
    Session(2)
    .ask("ポート3000を使っているプロセスを確認して")
    .run("ss -ltnp 'sport = :3000'", 'LISTEN 0 511 *:3000 users:(("vite",pid=99))'),
    Session(3).ask("把日志压缩一下").run("gzip -9 app.log", ""),
    Session(4).ask("show what uses port 8080").run("fuser 8080/tcp", "8080/tcp: 1234"),
]
CJK_QUESTIONS = [
    ("端口被谁占用", "lsof -i :8080"),  # a run of the prompt's
    ("谁占用了端口", "lsof -i :8080"),  # its words in another order, cut at the question's particles
    ("8080 端口", "lsof -i :8080"),  # a number the run held, and a word of it: both say it
    ("使っているプロセス", "ss -ltnp 'sport = :3000'"),
    ("压缩日志", None),  # not what the prompt said, in that order: no bigram phrase of it holds
    ("日志", "gzip -9 app.log"),
]


@pytest.fixture
def asked_in_cjk(tmp_path):
    c = open_index(tmp_path, ASKED_IN_CJK)
    yield c
    c.close()


@pytest.mark.parametrize(("question", "expected"), CJK_QUESTIONS)
def test_a_question_in_chinese_or_japanese_finds_the_prompt_that_led_to_a_command(
    asked_in_cjk, question, expected
):
    """Chinese and Japanese are written without spaces: the word index holds "查看8080端口被谁占用了" as the
    words 查看, 8080 and 端口被谁占用了, so a question asking for 端口被谁占用 (or 端口 and 占用) found no
    prompt, and ``trail how`` said no command on record does it, where a search (and the shared index's
    ``how``) finds it inside the run. Its words are now found in the bigram index too, as there."""
    entries = how.how(asked_in_cjk, question)
    assert [e.command for e in entries][:1] == ([expected] if expected else []), question
    if expected:
        assert entries[0].matched_in == "prompt" and entries[0].sessions == 1
    # A word of the run left out leaves the command its prompt led to out too.
    assert "lsof -i :8080" not in [e.command for e in how.how(asked_in_cjk, "端口 -占用")]


def encoded(tmp_path: Path, sessions: list[Any]) -> sqlite3.Connection:
    """:func:`open_index` with every session's passages encoded (the vector stage run whole): ``sessions``
    are anything with a ``spec()`` (this module's ``Session``, ``test_fix.Conversation``)."""
    home = hermesdb.write_home(tmp_path / "home", [s.spec() for s in sessions])
    return sqlite3.connect(hermesdb.encoded_index(tmp_path / "index.db", home, env={}))


CHORES = [
    Session(1).ask("find the biggest files in my home directory").run("du -ah ~ | sort -rh | head", "4G ~/v"),
    Session(2)
    .ask("the disk is full, clean up docker")
    .run("docker system prune -af --volumes", "Total reclaimed space: 12GB")
    .ask("and how much memory does the box have")
    .run("free -h", "Mem: 16Gi"),
    Session(3)
    .ask("convert the video to a smaller mp4")
    .run("ffmpeg -i in.mov -crf 28 out.mp4", "frame=1200"),
    Session(4).ask("copy my ssh key to the server").run("ssh-copy-id dev@10.0.0.5", "key(s) added: 1"),
    Session(5, cwd=OTHER).ask("zip the logs folder").run("tar -czf logs.tar.gz logs/", ""),
]


def test_a_question_in_other_words_than_any_prompt_finds_what_the_nearest_prompt_ran(tmp_path):
    """`trail how` matched words only: "largest files" found nothing where the prompt said "find the
    biggest files", nor "passwordless ssh login" the ``ssh-copy-id`` run after "copy my ssh key to the
    server". When no command has the words (every one, or all but one), the commands after the prompt
    nearest in meaning answer, said so; in a session of several tasks, the one the question's words name."""
    import io

    from hermes_trail.cli.tables import print_how
    from hermes_trail.cli.term import Printer

    conn = encoded(tmp_path, CHORES)
    try:
        for question, command in (
            ("largest files", "du -ah ~ | sort -rh | head"),
            ("passwordless ssh login", "ssh-copy-id dev@10.0.0.5"),
            ("free up disk space used by docker", "docker system prune -af --volumes"),
            ("compress a movie", "ffmpeg -i in.mov -crf 28 out.mp4"),
        ):
            assert how.how(conn, question) == [], question  # no prompt or command has the words
            entries = how.by_meaning(conn, question)
            assert entries and entries[0].command == command, question
            assert entries[0].matched_in == "meaning" and entries[0].prompt, question
        # of a session's two tasks, the one the question's words name, else the one nearest in meaning
        assert [e.command for e in how.by_meaning(conn, "check available memory")] == ["free -h"]
        assert [e.command for e in how.by_meaning(conn, "how much ram is installed")] == ["free -h"]
        assert how.by_meaning(conn, "bake a sourdough loaf") == []  # near nothing on record
        assert how.by_meaning(conn, "largest files", project=OTHER) == []  # the du run is another project's
        # the command asks the words, then all but one, then the meaning (``Trail.how_commands``)
        cli = [sys.executable, "-m", "hermes_trail", "how", "largest", "files", "--json"]
        cli += ["--home", str(tmp_path / "home"), "--index", str(tmp_path / "index.db")]
        env = {**os.environ, "HOME": str(tmp_path), "TRAIL_ENCODE_BEHIND": "0"}
        done = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        shown = json.loads(done.stdout)["commands"][0]
        assert (shown["command"], shown["matched_in"]) == ("du -ah ~ | sort -rh | head", "meaning")
        stream = io.StringIO()
        print_how(Printer(stream), "largest files", how.by_meaning(conn, "largest files"))
        shown = stream.getvalue()
        assert "nearest in meaning" in shown and "asked: find the biggest files in my home directory" in shown
    finally:
        conn.close()


def test_meant_follows_the_nearest_and_those_about_as_near():
    standing = [("a", 4.0, 1), ("b", 3.5, 2), ("c", 2.5, 3), ("d", 3.9, 4), ("e", 3.8, 5)]
    assert [s for s, _, _ in how.meant(standing)] == ["a", "d", "e"]
    assert how.meant([]) == []


def test_the_prompt_meant_is_the_one_with_the_questions_words_else_the_nearest_in_meaning():
    prompts = [(10, "set up the vpn"), (20, "clean up docker images"), (30, "check the memory")]
    assert how.nearest_prompt("docker cleanup", prompts, 10) == 20
    assert how.nearest_prompt("something else entirely", prompts, 25) == 20
    assert how.nearest_prompt("something else entirely", prompts, None) == 10

    def nearness(question: str, texts: list[str]) -> list[float]:
        return [1.0 if "memory" in t else 0.0 for t in texts]

    assert how.nearest_prompt("how much ram is installed", prompts, 10, nearness) == 30
    # the words first: a prompt with the question's word is not passed over for a nearer one
    assert how.nearest_prompt("docker cleanup", prompts, 10, nearness) == 20
