"""``trail pick``: the list, the preview, and the picker driven by keys, in-process through prompt_toolkit's
pipe input and end to end in a pseudo-terminal with a fake ``hermes`` that records how it was run."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

import hermesdb
from hermes_trail import open_history, pick
from hermesdb import T0

ROOT_ID = "20261102_090000_aa0001"  # the newest root session: first in the list
WAL_ID = "20261101_090000_bb0002"
WORK_ID = "20261030_090000_cc0003"
INSIDE_WORD = "quokkaflange"  # said in a reply only: no title, prompt or id holds it


def write(tmp_path: Path) -> tuple[Path, Path]:
    """A home with two root sessions and one in the profile ``work``, each run in ``tmp_path/proj``."""
    proj = tmp_path / "proj"
    proj.mkdir(parents=True)
    home = hermesdb.write_home(
        tmp_path / "hermes",
        [
            hermesdb.chat(
                ROOT_ID,
                ("Plan the release notes", f"Sure; the {INSIDE_WORD} goes last."),
                start=T0 + 2 * 86400,
                title="Release notes",
                cwd=str(proj),
            ),
            hermesdb.chat(
                WAL_ID, ("What is WAL in SQLite?", "A write-ahead log."), start=T0 + 86400, cwd=str(proj)
            ),
        ],
        profiles={
            "work": [
                hermesdb.chat(WORK_ID, ("Standup notes for Monday?", "Three items."), start=T0, cwd=str(proj))
            ]
        },
    )
    return home, proj


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    found, _ = write(tmp_path)
    monkeypatch.setenv("HERMES_HOME", str(found))
    return found


# -- the list -----------------------------------------------------------------------------------------
def test_lists_every_profile_newest_first_with_first_prompts(home):
    with open_history(catalog=False) as history:
        choices = pick.list_choices(history)
        first = pick.list_choices(history, limit=1)
    assert [c.id for c in choices] == [ROOT_ID, WAL_ID, WORK_ID]
    labels = ["Release notes", "What is WAL in SQLite?", "Standup notes for Monday?"]
    assert [c.label for c in choices] == labels
    assert choices[2].store.profile == "work" and choices[2].ref == f"work:{WORK_ID}"
    assert {c.id for c in first} == {ROOT_ID, WORK_ID}  # the newest of each store, for the first frame


def test_narrow_matches_every_word_anywhere():
    store = pick.Store("k", "default", "/x/state.db", "default", None, None)
    choices = [
        pick.Choice(store, "20261101_a", "Fix the parser", "why does it fail", "cli", "/src/api", 1.0, 2.0),
        pick.Choice(store, "20261102_b", "", "deploy the api", "telegram", "", 1.0, 1.0),
    ]
    assert pick.narrow(choices, "") == choices
    assert [c.id for c in pick.narrow(choices, "API")] == ["20261101_a", "20261102_b"]  # directory, prompt
    assert [c.id for c in pick.narrow(choices, "parser fail")] == ["20261101_a"]
    assert [c.id for c in pick.narrow(choices, "telegram deploy")] == ["20261102_b"]
    assert pick.narrow(choices, "parser deploy") == []


def test_text_from_the_store_cannot_reach_the_terminal():
    assert pick.one_line("a\x1b]52;c;ZXZpbA==\x07b\n\tc\x9b2J") == "a ]52;c;ZXZpbA== b c 2J"


def test_first_frame_lists_rows_and_keys():
    store = pick.Store("k", "default", "/x/state.db", "default", None, None)
    rows = [pick.Choice(store, f"id{n}", f"Title {n}", "", "cli", "", None, None) for n in range(50)]
    frame = pick.first_frame(rows, 120, 10, "abc")
    assert frame.startswith("\x1b[?1049h")  # the alternate screen, as the picker uses
    assert "Title 0" in frame and "Title 6" in frame and "Title 7" not in frame  # 10 lines: 7 rows
    assert pick.KEYS_HELP in frame and frame.endswith("\x1b[1;6H")  # the cursor after "> abc"
    narrow = pick.first_frame(rows, 80, 10, "abc")  # the preview below: the list in the upper half
    assert "Title 2" in narrow and "Title 3" not in narrow and "─" * 80 in narrow


def test_preview_shows_the_resume_command_and_first_turns(home):
    with open_history(catalog=False) as history:
        choice = pick.list_choices(history)[0]
        lines = "".join(text for _, text in pick.preview(history, choice))
    assert f"$ hermes --resume {ROOT_ID}" in lines
    assert "Plan the release notes" in lines and INSIDE_WORD in lines


# -- the picker, driven through prompt_toolkit's pipe input -------------------------------------------
def drive(history, keys: list[str], index: Path | None = None, wait=None, query: str = ""):
    """Run the picker on ``keys`` (sent one by one once it runs, after ``wait(picker)`` for the last)."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    choices = pick.list_choices(history)
    with create_pipe_input() as pipe:

        def ready(picker):
            def typing():
                for n, key in enumerate(keys):
                    if wait is not None and n == len(keys) - 1:
                        wait(picker)
                    pipe.send_text(key)
                    time.sleep(0.05)

            threading.Thread(target=typing, daemon=True).start()

        return pick.run_picker(
            history,
            choices,
            full=True,
            index=index,
            query=query,
            input=pipe,
            output=DummyOutput(),
            ready=ready,
        )


def test_typing_then_enter_resumes_the_match(home):
    with open_history(catalog=False) as history:
        picked = drive(history, ["stand", "up", "\r"])
    assert picked is not None and picked.action == pick.RESUME and picked.choice.id == WORK_ID


def test_moving_then_keys_choose_what_to_do(home):
    with open_history(catalog=False) as history:
        down = drive(history, ["\x1b[B", "\x0f"])  # down, ctrl-o
        up = drive(history, ["\x1b[B", "\x1b[B", "\x1b[A", "\x18"])  # down, down, up, ctrl-x
        copy = drive(history, ["\x0e", "\x0e", "\x0e", "\x19"])  # ctrl-n past the end stays on the last
    assert (down.action, down.choice.id) == (pick.SHOW, WAL_ID)
    assert (up.action, up.choice.id) == (pick.EXPORT, WAL_ID)
    assert (copy.action, copy.choice.id) == (pick.COPY, WORK_ID)


def test_escape_leaves_and_ctrl_c_interrupts(home):
    with open_history(catalog=False) as history:
        assert drive(history, ["x", "\x1b"]) is None
        with pytest.raises(KeyboardInterrupt):
            drive(history, ["\x03"])


def test_the_rest_of_a_long_history_is_read_while_the_picker_runs(tmp_path, monkeypatch):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    specs = [
        hermesdb.chat(f"20261101_{n:06d}_ee{n:04d}", (f"Question q{n:02d}x", "Answer."), start=T0 + n * 60)
        for n in range(40)
    ]
    monkeypatch.setenv("HERMES_HOME", str(hermesdb.write_home(tmp_path / "long", specs)))

    def typing(picker):
        def later():
            deadline = time.monotonic() + 10
            while not picker.full and time.monotonic() < deadline:  # the worker has read every session
                time.sleep(0.02)
            pipe.send_text("q07x\r")

        threading.Thread(target=later, daemon=True).start()

    with open_history(catalog=False) as history, create_pipe_input() as pipe:
        first = pick.list_choices(history, limit=5)  # the first screen: the five newest
        assert [c.prompt for c in first] == [f"Question q{n}x" for n in (39, 38, 37, 36, 35)]
        picked = pick.run_picker(history, first, input=pipe, output=DummyOutput(), ready=typing)
    assert picked is not None and picked.choice.prompt == "Question q07x"


def test_search_hits_from_the_index_join_the_list(home, tmp_path):
    from hermes_trail.index.sync import sync_index

    index = tmp_path / "index.db"
    sync_index(index, parallel=False)

    def found(picker):
        deadline = time.monotonic() + 10
        while not any(c.hit for c in picker.shown) and time.monotonic() < deadline:
            time.sleep(0.05)

    with open_history(catalog=False) as history:
        typed = drive(history, [INSIDE_WORD, "\r"], index=index, wait=found)
        given = drive(history, ["\r"], index=index, wait=found, query=INSIDE_WORD[:6])  # trail pick WORD
    assert typed is not None and typed.choice.id == ROOT_ID and INSIDE_WORD in typed.choice.hit
    assert given is not None and given.choice.id == ROOT_ID and "quokkaflange" in given.choice.hit


def test_resume_runs_what_trail_resume_prints_in_the_session_directory(home, tmp_path):
    from hermes_trail.resume import plan_for

    ran = []
    with open_history(catalog=False) as history:
        choice = next(c for c in pick.list_choices(history) if c.id == WORK_ID)
        plan, cwd = pick.resume_target(history, choice)
        pick.resume(plan, cwd, execute=lambda argv, env, where: ran.append((argv, where)))
        expected = plan_for(history.find(WORK_ID)).argv
    assert ran == [(expected, tmp_path / "proj")]
    assert expected[1:3] == ["-p", "work"]


def test_export_writes_markdown_and_refuses_a_hermes_home(home, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with open_history(catalog=False) as history:
        choice = pick.list_choices(history)[0]
        path = pick.export_markdown(history, choice, out)
        with pytest.raises(pick_errors()):
            pick.export_markdown(history, choice, home)
    assert path.parent == out and path.suffix == ".md"
    assert "Plan the release notes" in path.read_text()


def pick_errors():
    from hermes_trail.export import ExportError

    return ExportError


def test_importing_the_cli_does_not_import_prompt_toolkit():
    code = (
        "import sys, hermes_trail, hermes_trail.cli.app, hermes_trail.cli.commands, hermes_trail.pick, "
        "hermes_trail.cli.pick_cmd; assert 'prompt_toolkit' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- end to end, in a pseudo-terminal -----------------------------------------------------------------
class Terminal:
    """``trail`` run in a pseudo-terminal of 30 x 120: what it drew, keys sent, its exit."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hermes_trail", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        os.close(slave)
        self.screen = b""

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # the child closed its side
                    return
                if not data:
                    return
                self.screen += data

    def until(self, text: bytes, seconds: float = 20) -> float:
        """Read until ``text`` shows; the seconds since start."""
        end = time.monotonic() + seconds
        while text not in self.screen:
            assert time.monotonic() < end, f"{text!r} never drawn; got {self.screen[-2000:]!r}"
            self.read(0.05)
        return time.perf_counter() - self.started

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())
        self.read(0.3)

    def exit(self, seconds: float = 20) -> int:
        end = time.monotonic() + seconds
        while self.proc.poll() is None and time.monotonic() < end:
            self.read(0.05)
        self.read(0.1)
        os.close(self.master)
        if self.proc.poll() is None:
            self.proc.kill()
        return self.proc.wait()


@pytest.fixture
def terminal(tmp_path, monkeypatch):
    home, _ = write(tmp_path / "t")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "hermes-ran.txt"
    fake = bin_dir / "hermes"
    fake.write_text(f'#!/bin/sh\npwd > "{record}"\nprintf "%s\\n" "$@" >> "{record}"\n')
    fake.chmod(0o755)
    here = tmp_path / "here"
    here.mkdir()
    env = {
        **os.environ,
        "HERMES_HOME": str(home),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "TERM": "xterm-256color",
        "TRAIL_INDEX": str(tmp_path / "no-index.db"),
    }
    env.pop("NO_COLOR", None)

    def start(*args: str) -> Terminal:
        return Terminal(["pick", *args], env, here)

    start.record, start.here, start.proj = record, here, tmp_path / "t" / "proj"  # type: ignore[attr-defined]
    return start


def test_in_a_terminal_enter_runs_hermes_resume_in_the_session_directory(terminal):
    term = terminal()
    term.until(b"Release notes")  # the first frame
    term.until(b"$ hermes --resume")  # the preview: the picker is up
    term.send("standup")
    term.send("\r")
    assert term.exit() == 0
    ran = terminal.record.read_text().splitlines()
    assert ran == [str(terminal.proj), "-p", "work", "--resume", WORK_ID]


def test_in_a_terminal_other_keys_show_copy_and_export(terminal):
    shown = terminal("wal")
    shown.until(b"$ hermes --resume")
    shown.send("\x0f")
    assert shown.exit() == 0
    assert b"A write-ahead log." in shown.screen.split(b"\x1b[?1049l")[-1]  # trail show, after the picker
    copied = terminal("release")
    copied.until(b"$ hermes --resume")
    copied.send("\x19")
    assert copied.exit() == 0
    after = copied.screen.split(b"\x1b[?1049l")[-1]
    assert ROOT_ID.encode() in after and b"\x1b]52;c;" in after
    exported = terminal()
    exported.until(b"$ hermes --resume")
    exported.send("\x18")
    assert exported.exit() == 0
    assert [p.suffix for p in terminal.here.iterdir()] == [".md"]
    assert not terminal.record.exists()  # nothing resumed


def test_in_a_terminal_escape_leaves_and_ctrl_c_exits_130(terminal):
    left = terminal()
    left.until(b"$ hermes --resume")
    left.send("\x1b")
    assert left.exit() == 0
    interrupted = terminal()
    interrupted.until(b"$ hermes --resume")
    interrupted.send("\x03")
    assert interrupted.exit() == 130
    assert b"Traceback" not in interrupted.screen


def test_without_a_terminal_it_says_so_and_exits_2(home):
    done = subprocess.run(
        [sys.executable, "-m", "hermes_trail", "pick"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "needs a terminal" in done.stderr


def test_a_rewound_first_prompt_is_not_the_preview_in_the_picker_nor_the_list(tmp_path, monkeypatch):
    """The picker and `trail list` show an untitled session by its first live prompt (the one rule,
    History.first_prompts): a prompt the user rewound is not it (Hermes' own rewind_to_message)."""
    import subprocess
    import sys

    hermes_state = pytest.importorskip("hermes_state")
    home = tmp_path / "hermes"
    home.mkdir()
    db = hermes_state.SessionDB(db_path=home / "state.db")
    sid = "20261105_090000_abcdef"
    db.create_session(sid, "cli")
    undone = db.append_message(sid, "user", "delete the production database", timestamp=1_800_000_000.0)
    db.append_message(sid, "assistant", "Are you sure?", timestamp=1_800_000_005.0)
    db.rewind_to_message(sid, undone)
    db.append_message(sid, "user", "list the staging tables instead", timestamp=1_800_000_060.0)
    db.close()
    monkeypatch.setenv("HERMES_HOME", str(home))
    with open_history(catalog=False) as history:
        (choice,) = pick.list_choices(history)
    assert choice.prompt.startswith("list the staging tables")
    listed = subprocess.run(
        [sys.executable, "-m", "hermes_trail", "list", "--home", str(home)],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "COLUMNS": "200"},
        check=True,
    )
    assert "list the staging tables" in listed.stdout and "delete the production" not in listed.stdout
