"""``fix.find_fixes``: past failures matching an error, and what then fixed them, on stores written by
Hermes' ``SessionDB`` and indexed by ``sync_index``."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail.index import fix, schema
from hermes_trail.index.sync import sync_index

PROJECT = "/home/dev/project"
TRACEBACK = """Traceback (most recent call last):
  File "{cwd}/app.py", line {line}, in <module>
    import {module}
ModuleNotFoundError: No module named '{module}'"""


class Conversation:
    """Messages of one session as Hermes writes them: typed prompts, terminal calls and their results."""

    def __init__(self, session_id: str, start: float, cwd: str = PROJECT, **spec: Any) -> None:
        self.id, self.t, self.cwd, self.spec_kw = session_id, start, cwd, spec
        self.start = start
        self.messages: list[dict[str, Any]] = []

    def prompt(self, text: str) -> Conversation:
        self.messages.append(hermesdb.user(text, timestamp=self.t))
        self.t += 10
        return self

    def run(self, command: str, output: str = "", exit_code: int = 0) -> Conversation:
        call_id = f"call_{len(self.messages)}"
        ask, result = hermesdb.terminal_exchange(call_id, command, output, exit_code)
        ask["timestamp"], result["timestamp"] = self.t, self.t + 2
        self.messages += [ask, result]
        self.t += 10
        return self

    def patch(self, path: str, old: str, new: str, applied: bool = True) -> Conversation:
        """A ``patch`` call (replace mode) and its result as Hermes' tool returns it."""
        call_id = f"call_{len(self.messages)}"
        ask = hermesdb.call(call_id, "patch", mode="replace", path=path, old_string=old, new_string=new)
        result = (
            {"success": True, "diff": f"-{old}\n+{new}\n", "files_modified": [path]}
            if applied
            else {"success": False, "error": f"Could not find a match for old_string in {path}"}
        )
        self.messages += [
            hermesdb.assistant("", ask, timestamp=self.t),
            hermesdb.tool(call_id, "patch", result, timestamp=self.t + 2),
        ]
        self.t += 10
        return self

    def say(self, text: str) -> Conversation:
        self.messages.append(hermesdb.assistant(text, timestamp=self.t))
        self.t += 10
        return self

    def spec(self) -> hermesdb.SessionSpec:
        kw = {"started_at": self.start, "ended_at": self.t, **self.spec_kw}
        return hermesdb.SessionSpec(self.id, self.messages, cwd=self.cwd, **kw)


def missing(module: str, cwd: str = PROJECT, line: int = 3) -> str:
    return TRACEBACK.format(cwd=cwd, line=line, module=module)


def open_index(tmp_path: Path, sessions: list[Conversation]) -> sqlite3.Connection:
    """Write the sessions through SessionDB, index them, and open the index read-only."""
    home = hermesdb.write_home(tmp_path / "home", [c.spec() for c in sessions])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={})
    return sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)


def sid(n: int) -> str:
    return f"20261102_{n:02d}0000_{n:06x}"


def hour(n: int) -> float:
    return hermesdb.T0 + 3600 * n


def fixed_by(n: int, fix_command: str, module: str = "requests", **kw: Any) -> Conversation:
    """A conversation where ``python app.py`` fails on a missing module, ``fix_command`` succeeds, and the
    rerun passes."""
    return (
        Conversation(sid(n), hour(n), **kw)
        .prompt("Run the app")
        .run("python app.py", missing(module, line=n), exit_code=1)
        .say(f"{module} is missing; installing it.")
        .run(fix_command, f"Successfully installed {module}-2.31.0")
        .run("python app.py", "ok")
        .say("It runs now.")
    )


def noise(n: int) -> Conversation:
    """Ordinary work that fails and succeeds with nothing to do with the error."""
    return (
        Conversation(sid(n), hour(n))
        .prompt("Commit the work")
        .run("git commit -m wip", "fatal: not a git repository (or any of the parent directories): .git", 128)
        .run("git init", "Initialized empty Git repository in /home/dev/project/.git/")
        .run("git commit -m wip", "[main (root-commit) 1a2b3c4] wip")
        .prompt("Show me the log")
        .run("git log --oneline", "1a2b3c4 wip")
    )


@pytest.fixture
def conn(tmp_path):
    sessions = [
        fixed_by(1, "pip install requests"),
        # Where the fix ran and how it was spaced do not make it another fix.
        fixed_by(2, f"cd {PROJECT} &&  pip install   requests  "),
        fixed_by(3, "pip install requests"),
        fixed_by(4, "uv add requests"),
        # A similar error about another module, fixed another way.
        fixed_by(5, "pip install numpy", module="numpy"),
        noise(6),
        noise(7),
    ]
    c = open_index(tmp_path, sessions)
    yield c
    c.close()


def test_the_fix_that_worked_most_often_ranks_first(conn):
    report = fix.find_fixes(conn, missing("requests", cwd="/home/someone/else", line=99))
    commands = [f.command for f in report.fixes]
    assert commands[0] == "pip install requests"
    top = report.fixes[0]
    assert (top.worked, top.confirmed, top.tried) == (3, 3, 3)
    assert "uv add requests" in commands
    assert commands.index("uv add requests") == 1
    assert report.fixes[1].worked == 1
    # The noise sessions' failures are other errors: their fixes are not offered.
    assert "git init" not in commands
    # The rerun of the failing command confirms a fix; it is not one.
    assert "python app.py" not in commands


def test_examples_name_the_failure_and_its_session(conn):
    report = fix.find_fixes(conn, missing("requests"))
    top = report.fixes[0]
    assert len(top.examples) == 3
    newest = top.examples[0]
    assert newest.session_id == sid(3)
    assert newest.ref.endswith(sid(3))
    assert newest.failed_command == "python app.py"
    assert newest.exit_code == 1
    assert newest.confirmed
    assert newest.time is not None and newest.failed_time is not None and newest.time > newest.failed_time
    # The example keeps the command exactly as typed; the fix is its normalized form.
    raw = {e.session_id: e.command for e in top.examples}
    assert raw[sid(2)] == f"cd {PROJECT} &&  pip install   requests  "


def test_failures_are_ranked_by_how_much_of_the_error_they_show(conn):
    report = fix.find_fixes(conn, missing("requests"))
    assert report.failures_total >= 4
    assert {f.session_id for f in report.failures[:4]} == {sid(1), sid(2), sid(3), sid(4)}
    assert report.failures[0].coverage == pytest.approx(1.0)
    assert all(f.command == "python app.py" and f.exit_code == 1 for f in report.failures)
    assert report.conversations == report.failures_total  # one failure in each
    words = [t.word for t in report.terms]
    assert "modulenotfounderror" in words and "requests" in words
    # Line numbers, paths and Python's frame lines are not terms.
    assert not any(w.isdigit() or "/" in w for w in words)
    assert "traceback" not in words


def test_an_unrelated_error_finds_nothing(conn):
    report = fix.find_fixes(conn, 'ERROR: relation "users" does not exist at character 15')
    assert report.fixes == []
    assert report.failures == []


def test_an_error_made_of_words_no_doc_has_finds_nothing(conn):
    report = fix.find_fixes(conn, "Zyxxyq flumbergast 0xdeadbeef /tmp/a/b.c:12:3")
    assert report.terms == []
    assert report.fixes == [] and report.failures == []


def test_a_name_in_the_error_that_the_history_lacks_is_said(conn):
    """An error about a module the history never saw finds the failures of errors like it (another module's)
    and their fixes, and said nothing of it: "pip install requests" read as the fix of "No module named
    'tomli'". The error's words no doc has are said (``missing``, "Not found anywhere:" on the terminal),
    in the error's order; an error whose every word is on record says none."""
    from hermes_trail.cli.tables import print_fixes

    report = fix.find_fixes(conn, "ModuleNotFoundError: No module named 'tomli' (zqxv)")
    assert report.failures and report.fixes
    assert report.missing == ["tomli", "zqxv"]
    assert fix.find_fixes(conn, "ModuleNotFoundError: No module named 'numpy'").missing == []
    out = _printed(lambda printer: print_fixes(printer, report))
    assert out.splitlines()[0] == "Not found anywhere: tomli, zqxv"
    # The Hermes plugin's note tells the agent the fix was another failure's, like it.
    from hermes_trail.integrations.hermes.runtime import fix_note
    from hermes_trail.serialize import record_json

    note = fix_note(record_json(report))
    assert "a failure like this one (none named tomli, zqxv) was seen before" in note
    assert "this failure was seen before" in fix_note(record_json(fix.find_fixes(conn, missing("requests"))))


def _printed(draw: Any) -> str:
    from hermes_trail.cli.term import Printer

    buffer = io.StringIO()  # not a terminal: no colours
    draw(Printer(buffer))
    return buffer.getvalue()


def test_the_git_error_finds_its_own_fix(conn):
    report = fix.find_fixes(conn, "fatal: not a git repository (or any of the parent directories): .git")
    assert [f.command for f in report.fixes][:1] == ["git init"]
    assert report.fixes[0].worked == 2
    # ``git log`` came after the next prompt (and only looks around): not a fix.
    assert all(f.command != "git log --oneline" for f in report.fixes)


def test_project_filter_keeps_that_projects_failures(tmp_path):
    sessions = [
        fixed_by(1, "pip install requests"),
        fixed_by(2, "pip3 install requests", cwd="/home/dev/other"),
        fixed_by(3, "pip3 install requests", cwd="/home/dev/other"),
    ]
    conn = open_index(tmp_path, sessions)
    everywhere = fix.find_fixes(conn, missing("requests"))
    assert [f.command for f in everywhere.fixes][:2] == ["pip3 install requests", "pip install requests"]
    here = fix.find_fixes(conn, missing("requests"), project=PROJECT)
    assert [f.command for f in here.fixes] == ["pip install requests"]
    by_name = fix.find_fixes(conn, missing("requests"), project="other")
    assert [f.command for f in by_name.fixes] == ["pip3 install requests"]
    assert fix.find_fixes(conn, missing("requests"), project="/home/dev").fixes[0].worked == 2


def test_window_ends_at_the_next_prompt_and_skips_looking_around(tmp_path):
    sessions = [
        Conversation(sid(1), hour(1))
        .prompt("Run the app")
        .run("python app.py", missing("requests"), exit_code=1)
        .run("ls -la", "app.py")
        .run("cat requirements.txt | grep -i req", "")
        .run("pip install requests", "Successfully installed requests")
        .prompt("Now deploy it")
        .run("./deploy.sh", "deployed"),
    ]
    conn = open_index(tmp_path, sessions)
    report = fix.find_fixes(conn, missing("requests"))
    assert [f.command for f in report.fixes] == ["pip install requests"]
    # Never rerun: the fix worked by the record, but nothing confirmed it.
    assert report.fixes[0].confirmed == 0


def test_a_fix_that_failed_somewhere_counts_where_it_was_tried(tmp_path):
    flaky = (
        Conversation(sid(3), hour(3))
        .prompt("Run the app")
        .run("python app.py", missing("requests"), exit_code=1)
        .run("pip install requests", "ERROR: Could not find a version that satisfies the requirement", 1)
        .run("conda install requests", "done")
        .run("python app.py", "ok")
    )
    conn = open_index(
        tmp_path, [fixed_by(1, "pip install requests"), fixed_by(2, "conda install requests"), flaky]
    )
    report = fix.find_fixes(conn, missing("requests"))
    by_command = {f.command: f for f in report.fixes}
    assert by_command["conda install requests"].worked == 2
    assert by_command["pip install requests"].worked == 1
    assert by_command["pip install requests"].tried == 2
    assert report.fixes[0].command == "conda install requests"


def test_timeouts_and_kills_are_failures_too(tmp_path):
    timeout = (
        "npm ERR! code ETIMEDOUT\nnpm ERR! network request to https://registry.npmjs.org/left-pad failed"
    )
    sessions = [
        Conversation(sid(n), hour(n))
        .prompt("Install the dependencies")
        .run("npm install", timeout + "\n[Command timed out after 300s]", exit_code=124 if n % 2 else -9)
        .run("npm config set registry https://registry.npmmirror.com", "")
        .run("npm install", "added 120 packages")
        for n in (1, 2)
    ]
    conn = open_index(tmp_path, sessions)
    report = fix.find_fixes(conn, "npm ERR! code ETIMEDOUT")
    assert {f.exit_code for f in report.failures} == {124, -9}
    assert report.fixes[0].command == "npm config set registry https://registry.npmmirror.com"
    assert (report.fixes[0].worked, report.fixes[0].confirmed) == (2, 2)


def test_rewound_failures_and_fixes_are_left_out(tmp_path):
    rewound = (
        Conversation(sid(2), hour(2), rewind_to=0)
        .prompt("Run the app")
        .run("python app.py", missing("requests"), exit_code=1)
        .run("pip install requests==0.1", "ok")
        .run("python app.py", "ok")
    )
    conn = open_index(tmp_path, [fixed_by(1, "pip install requests"), rewound])
    report = fix.find_fixes(conn, missing("requests"))
    assert [f.command for f in report.fixes] == ["pip install requests"]
    assert {f.session_id for f in report.failures} == {sid(1)}


def test_a_fix_in_the_continuation_of_a_compressed_conversation(tmp_path):
    parent = (
        Conversation(sid(1), hour(1), end_reason="compression")
        .prompt("Run the app")
        .run("python app.py", missing("requests"), exit_code=1)
    )
    child = Conversation(sid(2), parent.t + 5, parent_session_id=sid(1))
    child.run("poetry add requests", "Installing requests").run("python app.py", "ok")
    conn = open_index(tmp_path, [parent, child])
    report = fix.find_fixes(conn, missing("requests"))
    assert [(f.command, f.worked, f.confirmed) for f in report.fixes] == [("poetry add requests", 1, 1)]
    assert report.fixes[0].examples[0].session_id == sid(2)


def test_limit(conn):
    report = fix.find_fixes(conn, missing("requests"), limit=1)
    assert len(report.fixes) == 1 and len(report.failures) == 1
    assert report.failures_total >= 4


def test_error_words_drop_what_differs_between_occurrences():
    words = fix._error_words(
        "Error at 0x7ffdeadbeef in /usr/lib/python3.11/site-packages/foo/bar.py:123 (id 9f8e7d6c5b4a) "
        "request 3fa85f64-5717-4562-b3fc-2c963f66afa6 took 60s, see https://example.com/docs?x=1 E501"
    )
    assert "bar" in words and "py" in words  # a path keeps its file name
    assert "e501" in words and "error" in words and "request" in words
    for noise_word in (
        "usr",
        "lib",
        "python3",
        "site",
        "packages",
        "foo",
        "0x7ffdeadbeef",
        "60s",
        "123",
        "example",
        "docs",
        "3fa85f64",
        "9f8e7d6c5b4a",
        "7ffdeadbeef",
    ):
        assert noise_word not in words


def test_looking_around_is_not_a_fix():
    assert fix.is_looking("ls -la")
    assert fix.is_looking("cd /x && git status && cat a.txt | grep b")
    assert fix.is_looking("LC_ALL=C git diff")
    assert not fix.is_looking("cd /x && pip install y")
    assert not fix.is_looking("git checkout main")
    assert not fix.is_looking("sed -i s/a/b/ f")


def test_a_near_miss_drops_out_when_the_very_error_is_on_record(tmp_path):
    """Where ``requests`` is rare and the rest of the message common (as in a real history), a failure
    about another module lacks the error's most distinctive word and is not taken for it."""

    def quiet(n: int, module: str, fix_command: str) -> Conversation:
        return (
            Conversation(sid(n), hour(n))
            .prompt("Run the app")
            .run("python app.py", missing(module), exit_code=1)
            .run(fix_command, "done")
            .run("python app.py", "ok")
        )

    chatter = [
        Conversation(sid(10 + n), hour(10 + n))
        .prompt(f"What does 'No module named' mean for import {n}?")
        .say("No module named X means the import found no module of that name.")
        for n in range(8)
    ]
    sessions = [
        quiet(1, "requests", "pip install -r requirements.txt"),
        quiet(2, "numpy", "pip install numpy"),
    ]
    conn = open_index(tmp_path, [*sessions, *chatter])
    report = fix.find_fixes(conn, missing("requests"))
    assert [f.session_id for f in report.failures] == [sid(1)]
    assert [f.command for f in report.fixes] == ["pip install -r requirements.txt"]
    # With the very error not on record, the closest failure is taken.
    closest = fix.find_fixes(conn, missing("pandas"))
    assert {f.session_id for f in closest.failures} == {sid(1), sid(2)}


def test_a_long_traceback_matches_on_its_message_not_the_users_code(conn):
    error = """Traceback (most recent call last):
  File "/srv/acme/billing/run.py", line 812, in <module>
    main(parse_args())
  File "/srv/acme/billing/run.py", line 17, in main
    from acme.billing.export import export_quarterly_invoices
  File "/srv/acme/billing/export.py", line 4, in <module>
    import requests
    ^^^^^^^^^^^^^^^
ModuleNotFoundError: No module named 'requests'"""
    words = fix._error_words(error)
    assert not {"main", "parse", "args", "acme", "billing", "export", "quarterly", "invoices"} & set(words)
    report = fix.find_fixes(conn, error)
    assert report.failures[0].coverage == pytest.approx(1.0)
    assert report.fixes[0].command == "pip install requests"


def test_common_words_are_looked_for_among_failures_holding_a_rare_one(conn, monkeypatch):
    # As in a big history, where most of the message's words are in more docs than are counted.
    monkeypatch.setattr(fix, "DF_CAP", 6)
    report = fix.find_fixes(conn, missing("requests"))
    common = {t.word for t in report.terms if t.docs >= 6}
    assert "requests" in common and len(common) < len(report.terms)
    assert report.fixes[0].command == "pip install requests" and report.fixes[0].worked == 3


def test_an_error_of_common_words_only_needs_them_all(conn, monkeypatch):
    monkeypatch.setattr(fix, "DF_CAP", 1)
    report = fix.find_fixes(conn, "fatal: not a git repository")
    assert all(t.docs >= 1 for t in report.terms)
    assert {f.command for f in report.failures} == {"git commit -m wip"}
    assert report.fixes[0].command == "git init"


def test_a_note_for_an_error_of_common_words_fixed_in_a_later_session(tmp_path, monkeypatch):
    """As on a million messages: every word of the error is in more docs than are counted, more failures
    hold them all than the window reads, and the fix ran in the continuation of the conversation that
    failed (a later session). The plugin's hook still notes it."""
    from hermes_trail.integrations.hermes.plugin import Plugin
    from hermes_trail.integrations.hermes.runtime import Recaller, Settings
    from hermes_trail.service import Trail

    monkeypatch.setattr(fix, "COUNTED", 2, raising=False)
    monkeypatch.setattr(fix, "COMMON", 3, raising=False)
    monkeypatch.setattr(fix, "DF_CAP", 3)
    monkeypatch.setattr(fix, "WINDOW", 3)
    refused = "could not connect to the server: connection refused"
    older = [
        Conversation(sid(n), hour(n))
        .prompt("Check the server")
        .run("./serve --check", refused, exit_code=1)
        .prompt("Leave it for now")
        for n in range(1, 7)
    ]
    parent = (
        Conversation(sid(7), hour(7), end_reason="compression")
        .prompt("Start the server")
        .run("./serve --check", refused, exit_code=1)
    )
    child = Conversation(sid(8), parent.t + 5, parent_session_id=sid(7))
    child.run("sudo systemctl start postgresql", "").run("./serve --check", "ok")
    home = hermesdb.write_home(tmp_path / "home", [c.spec() for c in [*older, parent, child]])
    trail = Trail(index=tmp_path / "index.db", homes=(home,), parallel=False)
    trail.sync(force=True)

    with closing(sqlite3.connect(f"{(tmp_path / 'index.db').as_uri()}?mode=ro", uri=True)) as conn:
        report = fix.find_fixes(conn, f"./serve --check\n{refused}")
    assert report.terms and all(t.docs >= fix.DF_CAP for t in report.terms), "common words only"
    assert report.failures_total == fix.WINDOW
    assert [(f.command, f.worked, f.confirmed) for f in report.fixes] == [
        ("sudo systemctl start postgresql", 1, 1)
    ]
    assert report.fixes[0].examples[0].session_id == sid(8)

    failing = json.dumps({"output": refused, "exit_code": 1, "error": None})
    hook = Plugin(Recaller(Settings(sync_every=3600), trail)).transform_tool_result
    changed = hook(tool_name="terminal", args={"command": "./serve --check"}, result=failing, session_id="x")
    assert changed is not None and changed.startswith(failing + "\n\n<trail-fix>\n")
    assert "`sudo systemctl start postgresql`" in changed and sid(8) in changed


def test_a_word_in_more_failures_than_the_window_is_looked_for_among_the_newest(tmp_path, monkeypatch):
    """Each term's newest WINDOW failures are read, and every term among failures as new as those: the
    cost is bounded however many failures hold a word, and the coverage of those read stays exact."""
    monkeypatch.setattr(fix, "WINDOW", 3)
    conn = open_index(tmp_path, [fixed_by(n, "pip install requests") for n in range(1, 6)])
    report = fix.find_fixes(conn, missing("requests"))
    assert report.failures_total == 3
    assert {f.session_id for f in report.failures} == {sid(3), sid(4), sid(5)}
    assert all(f.coverage == pytest.approx(1.0) for f in report.failures)
    assert (report.fixes[0].command, report.fixes[0].worked) == ("pip install requests", 3)


def test_the_failures_index_follows_sessions_rewritten(tmp_path):
    """``fails`` and ``fails_fts`` are kept by triggers on ``docs``: a session indexed again (here rewound)
    takes its old failures with it, and a rewound failure is not one."""
    home = hermesdb.write_home(
        tmp_path / "home", [fixed_by(1, "pip install requests").spec(), noise(2).spec()]
    )
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={})

    def failures() -> tuple[list[str], int, int]:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
            commands = [c for (c,) in conn.execute("SELECT command FROM fails ORDER BY id")]
            indexed = conn.execute("SELECT count(*) FROM fails_fts_docsize").fetchone()[0]
            found = conn.execute(
                "SELECT count(*) FROM fails_fts WHERE fails_fts MATCH 'requests'"
            ).fetchone()[0]
            assert schema.doc_total(conn) == conn.execute("SELECT count(*) FROM docs").fetchone()[0]
        return commands, indexed, found

    assert failures() == (["python app.py", "git commit -m wip"], 2, 1)
    store = home / "state.db"
    with closing(sqlite3.connect(store)) as conn:
        first = conn.execute(
            "SELECT min(id) FROM messages WHERE session_id = ? AND role = 'user'", (sid(1),)
        ).fetchone()[0]
    with hermesdb.hermes_env(home):
        db = hermesdb.session_db(store)
        try:
            db.rewind_to_message(sid(1), first)
        finally:
            db.close()
    sync_index(path, homes=[home], env={})
    assert failures() == (["git commit -m wip"], 1, 0)


def test_an_index_of_another_format_finds_nothing(tmp_path):
    """An older index has no ``fails_fts``: until the next sync rebuilds it, nothing is found in it, and
    nothing fails."""
    open_index(tmp_path, [fixed_by(1, "pip install requests")]).close()
    with closing(sqlite3.connect(tmp_path / "index.db")) as conn:
        conn.execute("UPDATE meta SET value = 'trail-index-7' WHERE key = 'format'")
        conn.commit()
    with closing(sqlite3.connect(f"{(tmp_path / 'index.db').as_uri()}?mode=ro", uri=True)) as conn:
        report = fix.find_fixes(conn, missing("requests"))
    assert (report.terms, report.failures, report.fixes) == ([], [], [])


def test_a_common_word_is_told_from_one_bunched_at_one_end(monkeypatch):
    """A word counted to COUNTED is estimated from both ends of the index: dense at both, common without
    being counted; bunched at the oldest end (the first sessions' subject) or the newest, not."""
    monkeypatch.setattr(fix, "COUNTED", 4)
    monkeypatch.setattr(fix, "COMMON", 50)
    monkeypatch.setattr(fix, "DF_CAP", 40)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE docs_fts USING fts5(text)")
    for i in range(1, 1001):
        words = ["filler"]
        words += ["alpha"] if i <= 8 else []
        words += ["beta"] if i % 10 == 0 else []
        words += ["gamma"] if i > 992 else []
        conn.execute("INSERT INTO docs_fts (rowid, text) VALUES (?, ?)", (i, " ".join(words)))
    ids = (1, 1000)

    def estimate(word: str) -> tuple[int, bool]:
        n, last = fix._counted(conn, word, fix.COUNTED)
        assert n == fix.COUNTED and last is not None
        return fix._estimate(conn, word, last, ids)

    assert estimate("beta") == (fix.DF_CAP, True)  # in 100 docs, both ends
    assert estimate("alpha") == (fix.COUNTED, False)  # 8 docs, the oldest
    assert estimate("gamma") == (fix.COUNTED, False)  # 8 docs, the newest


def test_the_terms_do_not_depend_on_what_the_process_remembers(conn, monkeypatch):
    """Common words' estimates and counts are remembered per index; the terms chosen are the same whether
    they were remembered or not."""
    monkeypatch.setattr(fix, "COUNTED", 2)
    errors = [missing("requests"), missing("numpy"), "fatal: not a git repository", missing("requests")]
    cold = []
    for error in errors:
        fix.forget()
        cold.append([(t.word, t.docs) for t in fix.distinctive_terms(conn, error)])
    warm = [[(t.word, t.docs) for t in fix.distinctive_terms(conn, error)] for error in errors]
    assert warm == cold


def test_the_failures_naming_the_error_are_read_at_any_age(tmp_path, monkeypatch):
    """A term in more failures than the window narrows to the newest only the failures that lack every
    rarer term: the old failures holding the error's own word (``requests``) are still read whole."""
    monkeypatch.setattr(fix, "WINDOW", 3)
    sessions = [fixed_by(n, "pip install requests") for n in (1, 2)]
    sessions += [fixed_by(n, "pip install numpy", module="numpy") for n in range(3, 8)]
    conn = open_index(tmp_path, sessions)
    report = fix.find_fixes(conn, missing("requests"))
    assert {f.session_id for f in report.failures} == {sid(1), sid(2)}
    assert all(f.coverage == pytest.approx(1.0) for f in report.failures)
    assert [(f.command, f.worked) for f in report.fixes] == [("pip install requests", 2)]


def test_a_failure_nothing_fixed_is_still_shown_where_it_happened(tmp_path):
    """Nothing fixed it, but it failed before: the terminal says where and how (what was tried is worth
    seeing), not only how many, and what the agent said at the end of that turn (it said "Nothing on record
    fixed this" where the agent's reply told how it was fixed without a command: a role's password reset
    in SQL, a process killed by hand); an error that never failed says so."""
    import io

    from hermes_trail.cli.tables import print_fixes
    from hermes_trail.cli.term import Printer
    from hermes_trail.integrations.hermes.runtime import fix_note
    from hermes_trail.serialize import record_json

    unfixed = (
        Conversation(sid(1), hour(1))
        .prompt("Run the app")
        .run("python app.py", missing("requests"), exit_code=1)
        .say("requests is missing and there is no network here.")
    )
    conn = open_index(tmp_path, [unfixed, noise(2)])
    try:
        report = fix.find_fixes(conn, missing("requests"))
        nothing = fix.find_fixes(conn, 'ERROR: relation "users" does not exist at character 15')
    finally:
        conn.close()
    assert report.fixes == [] and report.failures_total == 1
    said = "requests is missing and there is no network here."
    assert report.failures[0].said == said and record_json(report)["failures"][0]["said"] == said
    stream = io.StringIO()
    print_fixes(Printer(stream), report)
    lines = stream.getvalue().splitlines()
    assert lines[:2] == [
        "No command or edit on record fixed this; what was said after each failure:",
        "1 matching failure in 1 conversation:",
    ]
    assert sid(1) in lines[2] and "python app.py (exit 1)" in lines[2]
    assert lines[3].strip() == f"then said: {said}"
    # The plugin's note on the same failure says it too, where it said nothing.
    note = fix_note(record_json(report))
    assert "no command or edit on record fixed it" in note and said in note, note
    stream = io.StringIO()
    print_fixes(Printer(stream), nothing)
    assert stream.getvalue() == "Nothing on record failed this way.\n"


def test_an_error_typed_from_memory_has_its_slip_mended(conn):
    """ "repostory" (a letter left out) is in no turn, so nothing failed so: the error is looked for with
    "repository", as the history writes it, and the report says so (the CLI too)."""
    import io

    from hermes_trail.cli.tables import print_fixes
    from hermes_trail.cli.term import Printer
    from hermes_trail.index.how import local_respelled

    def find(error: str) -> fix.FixReport:
        return fix.find_fixes(conn, error)

    typed = "git repostory"
    assert find(typed).failures_total == 0
    report = fix.respelled_fixes(find, typed, lambda word: local_respelled(conn, word))
    assert report.spelled == {"repostory": ["repository"]}
    assert report.error == typed
    assert [f.command for f in report.fixes][:1] == ["git init"]
    stream = io.StringIO()
    print_fixes(Printer(stream), report)
    assert "Not found: repostory; searched for repository." in stream.getvalue()
    # A word typed as one that the history writes as two ("gitinit"... "git init" ran) is mended alike.
    spaced = fix.respelled_fixes(find, "repostory not found by gitinit", lambda w: local_respelled(conn, w))
    assert spaced.spelled.get("gitinit") == ["git init"], spaced.spelled
    # A pasted error that matches as it is keeps its words: a module misspelled in the code ("reqeusts")
    # is what failed, not a slip to mend.
    pasted = missing("reqeusts")
    as_pasted = fix.respelled_fixes(find, pasted, lambda word: local_respelled(conn, word))
    assert as_pasted.spelled == {} and as_pasted.failures_total == find(pasted).failures_total > 0
    # Nothing one slip away either: the report of the error as typed.
    assert fix.respelled_fixes(find, "zyxxyq flumbergast", lambda w: local_respelled(conn, w)).spelled == {}


UNITS = f"{PROJECT}/weather/units.py"
CONVERSION = "FAILED tests/test_units.py::test_fahrenheit - assert 50.0 == 10.0"


def edited_then_passed(n: int, path: str = UNITS, **kw: Any) -> Conversation:
    """The failing test, a change to ``path``, and the same test passing: an agent's usual fix."""
    return (
        Conversation(sid(n), hour(n), **kw)
        .prompt("The unit test fails, fix it.")
        .run("pytest -q tests/test_units.py", CONVERSION, exit_code=1)
        .patch(path, "fahrenheit * 5 / 9 - 32", "(fahrenheit - 32) * 5 / 9")
        .run("pytest -q tests/test_units.py", "3 passed")
        .say("Fixed the conversion.")
    )


def test_the_file_changed_before_the_failing_command_passed_is_what_fixed_it(tmp_path):
    """Fail, edit, the same command passes: no command in between fixed it, and "nothing on record fixed
    this" was the answer. The change is: the files edited between the failure and its passing, counted by
    conversation as commands are, an edit that did not apply left out, and an edit after it passed too."""
    untouched = (
        Conversation(sid(3), hour(3))
        .prompt("The unit test fails again.")
        .run("pytest -q tests/test_units.py", CONVERSION, exit_code=1)
        .patch(f"{PROJECT}/README.md", "no such text", "other", applied=False)
        .patch(f"{PROJECT}/weather/cli.py", "print(", "echo(")
        .run("pytest -q tests/test_units.py", "3 passed")
        .patch(f"{PROJECT}/CHANGELOG.md", "## 0.1", "## 0.2")
    )
    conn = open_index(tmp_path, [edited_then_passed(1), edited_then_passed(2), untouched])
    report = fix.find_fixes(conn, "assert 48.0 == 9.0 in test_fahrenheit")
    assert report.failures_total == 3 and report.fixes == []
    assert [(e.path, e.worked) for e in report.edits] == [(UNITS, 2), (f"{PROJECT}/weather/cli.py", 1)]
    example = report.edits[0].examples[0]
    assert example.session_id == sid(2) and example.failed_command == "pytest -q tests/test_units.py"
    assert example.failed_time is not None and example.time is not None and example.passed_time is not None
    assert example.failed_time < example.time < example.passed_time
    assert example.change == "- fahrenheit * 5 / 9 - 32\n+ (fahrenheit - 32) * 5 / 9"


def test_what_an_edit_changed_is_its_first_line_removed_and_added():
    """From the edit's doc: the path, the path it moved to, the lines removed, the lines added."""
    assert fix.change_of("/p/a.py\n\nkeep\nx = a - b\nkeep\nx = a + b", 2, 2) == "- x = a - b\n+ x = a + b"
    assert fix.change_of("/p/new.py\n\nimport os\nprint(1)", 0, 2) == "+ import os"  # a file written
    assert fix.change_of("/p/a.py\n\nx = 1\ny = 2\nx = 1", 2, 1) == "- y = 2"  # a line taken out
    assert fix.change_of("/p/a.py\n\n" + "z" * 300, 1, 0) == "- " + "z" * 119 + "…"
    assert fix.change_of("/p/a.py", None, None) == "" == fix.change_of("/p/a.py\n\nsame\nsame", 1, 1)


def test_a_fix_says_which_files_were_changed_before_it(tmp_path):
    """The failing test, an edit, then a wider command that passes: the command is the fix as before, and
    its example names the file changed before it; the edit alone is no fix where the failing command never
    passed."""
    wider = (
        Conversation(sid(1), hour(1))
        .prompt("The unit test fails, fix it.")
        .run("pytest -q tests/test_units.py", CONVERSION, exit_code=1)
        .patch(UNITS, "fahrenheit * 5 / 9 - 32", "(fahrenheit - 32) * 5 / 9")
        .run("pytest -q", "9 passed")
    )
    conn = open_index(tmp_path, [wider])
    report = fix.find_fixes(conn, CONVERSION)
    assert [f.command for f in report.fixes] == ["pytest -q"] and report.edits == []
    assert report.fixes[0].examples[0].edited == [UNITS]
    from hermes_trail.serialize import record_json

    data = record_json(report)
    assert data["edits"] == [] and data["fixes"][0]["examples"][0]["edited"] == [UNITS]


def test_trail_fix_and_the_plugin_s_note_say_what_was_changed(tmp_path):
    """Before: "Nothing on record fixed this." and no note at all for the plugin."""
    from typer.testing import CliRunner

    from hermes_trail.cli.app import app
    from hermes_trail.integrations.hermes.runtime import fix_note
    from hermes_trail.serialize import record_json

    home = hermesdb.write_home(tmp_path / "home", [edited_then_passed(1).spec()])
    where = ["--home", str(home), "--index", str(tmp_path / "index.db")]
    out = CliRunner().invoke(app, ["fix", CONVERSION, *where], env={"COLUMNS": "100"})
    assert out.exit_code == 0, out.output
    assert "Nothing on record fixed this" not in out.output
    assert "Changed before the failing command passed:" in out.output and "weather/units.py" in out.output
    data = json.loads(CliRunner().invoke(app, ["fix", CONVERSION, "--json", *where]).output)
    assert [e["path"] for e in data["edits"]] == [UNITS] and data["edits"][0]["examples"][0]["passed_time"]
    with closing(sqlite3.connect(tmp_path / "index.db")) as conn:
        note = fix_note(record_json(fix.find_fixes(conn, CONVERSION)))
    assert f"changed {UNITS} before the failing command passed: in 1 conversation" in note, note
    assert "it changed `- fahrenheit * 5 / 9 - 32` to `+ (fahrenheit - 32) * 5 / 9`" in note, note
    assert "- fahrenheit * 5 / 9 - 32" in out.output and "+ (fahrenheit - 32) * 5 / 9" in out.output


def pushed_without_a_key(n: int) -> Conversation:
    return (
        Conversation(sid(n), hour(n))
        .prompt("push to github")
        .run("git status", "On branch main")
        .run("git push origin main", "git@github.com: Permission denied (publickey).", 128)
        .run("ssh-add ~/.ssh/id_ed25519", "Identity added: /home/dev/.ssh/id_ed25519")
        .run("git push origin main", "main -> main")
    )


def test_an_error_told_in_other_words_finds_the_failure_nearest_in_meaning(tmp_path):
    """ "ssh push rejected no key" has one word of the failure it means (a ``git push`` that said
    "Permission denied (publickey)"), where a match needs two: nothing was found. The failures of the
    conversations nearest in meaning answer, said so (``by_meaning``), each sharing a word of the error:
    the sentence model reads a command's output poorly, and one sharing none was as often another error."""
    import io

    from hermes_trail.cli.tables import print_fixes
    from hermes_trail.cli.term import Printer
    from test_how import encoded

    conn = encoded(tmp_path, [fixed_by(1, "pip install requests"), pushed_without_a_key(2), noise(3)])
    try:
        told = "ssh push rejected no key"
        assert fix.find_fixes(conn, told).failures_total == 0
        report = fix.by_meaning(conn, told)
        assert report.by_meaning and [f.command for f in report.failures] == ["git push origin main"]
        assert [f.command for f in report.fixes] == ["ssh-add ~/.ssh/id_ed25519"]
        stream = io.StringIO()
        print_fixes(Printer(stream), report)
        assert "nearest in meaning" in stream.getvalue()
        # the command asks the words, then a slip mended, then the meaning (``Trail.fix_report``)
        cli = [sys.executable, "-m", "hermes_trail", "fix", told, "--json"]
        cli += ["--home", str(tmp_path / "home"), "--index", str(tmp_path / "index.db")]
        env = {**os.environ, "HOME": str(tmp_path), "TRAIL_ENCODE_BEHIND": "0"}
        done = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        shown = json.loads(done.stdout)
        assert shown["by_meaning"] is True and shown["fixes"][0]["command"] == "ssh-add ~/.ssh/id_ed25519"
        # near in meaning, but not one word of it in the failure: nothing, not another error's fix
        assert not fix.by_meaning(conn, "the upload was refused").by_meaning
        assert not fix.by_meaning(conn, "bake a sourdough loaf").by_meaning
    finally:
        conn.close()


def test_the_failure_an_error_meant_is_the_one_with_its_words():
    failures = [(10, "npm ci: ERESOLVE unable to resolve"), (20, "Permission denied (publickey)")]
    assert fix.nearest_failure("ssh key denied", failures, 10) == 20
    assert fix.nearest_failure("nothing shared here", failures, 10) is None
