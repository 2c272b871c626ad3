"""``blame.blame``: every edit that touched a file, following moves, with the prompt behind each, on stores
written by Hermes' ``SessionDB`` (``write_file`` and ``patch`` calls with Hermes' results) and indexed by
``sync_index``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail.index import blame
from hermes_trail.index.sync import sync_index

PROJECT = "/home/dev/project"
OTHER = "/home/dev/other"


class Session:
    """Messages of one session as Hermes writes them: typed prompts and file-tool calls with their results."""

    def __init__(self, n: int, cwd: str = PROJECT, **spec: Any) -> None:
        self.id = f"20261102_{n:02d}0000_{n:06x}"
        self.start = self.t = hermesdb.T0 + 3600 * n
        self.cwd, self.spec_kw = cwd, spec
        self.messages: list[dict[str, Any]] = []

    def _call(self, name: str, result: dict[str, Any], **arguments: Any) -> Session:
        call_id = f"call_{len(self.messages)}"
        self.messages.append(
            hermesdb.assistant("", hermesdb.call(call_id, name, **arguments), timestamp=self.t)
        )
        self.messages.append(hermesdb.tool(call_id, name, result, timestamp=self.t + 1))
        self.t += 10
        return self

    def prompt(self, text: str) -> Session:
        self.messages.append(hermesdb.user(text, timestamp=self.t))
        self.t += 10
        return self

    def write(self, path: str, content: str) -> Session:
        return self._call(
            "write_file", {"bytes_written": len(content), "dirs_created": False}, path=path, content=content
        )

    def replace(self, path: str, old: str, new: str) -> Session:
        diff = f"--- a/{path}\n+++ b/{path}\n-{old}\n+{new}\n"
        return self._call(
            "patch",
            {"success": True, "diff": diff, "files_modified": [path]},
            mode="replace",
            path=path,
            old_string=old,
            new_string=new,
        )

    def v4a(self, patch: str, modified: list[str]) -> Session:
        return self._call(
            "patch", {"success": True, "diff": "", "files_modified": modified}, mode="patch", patch=patch
        )

    def spec(self) -> hermesdb.SessionSpec:
        kw = {"started_at": self.start, "ended_at": self.t, **self.spec_kw}
        return hermesdb.SessionSpec(self.id, self.messages, cwd=self.cwd, **kw)


def open_index(tmp_path: Path, sessions: list[Session]) -> sqlite3.Connection:
    home = hermesdb.write_home(tmp_path / "home", [s.spec() for s in sessions])
    path = tmp_path / "index.db"
    sync_index(path, homes=[home], env={})
    return sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)


MOVE = """*** Begin Patch
*** Move File: src/old.py -> src/new.py
*** Update File: src/new.py
@@
-VALUE = 1
+VALUE = 2
*** End Patch
"""


@pytest.fixture
def history() -> list[Session]:
    return [
        Session(1).prompt("Create the module").write(f"{PROJECT}/src/old.py", "VALUE = 1\n\ndef f():\n"),
        Session(2)
        .prompt("Rename old.py to new.py and bump VALUE")
        .v4a(MOVE, ["src/old.py -> src/new.py", "src/new.py"]),
        (
            Session(3)
            .prompt("Look at new.py")
            .prompt("Fix the bug in f")
            .replace(f"{PROJECT}/src/new.py", "def f():", "def f(x):")
            .prompt("Also document it")
            .replace(f"{PROJECT}/src/new.py", "def f(x):", 'def f(x):\n    """Do f."""')
        ),
        # Another file that happens to end the same way, and one in another checkout.
        Session(4).prompt("Edit mysrc").write(f"{PROJECT}/mysrc/new.py", "x\n"),
        Session(5, cwd=OTHER).prompt("Start the other project").write("src/new.py", "y = 1\n"),
        # After the move a new file is made at the old name: another file.
        Session(6).prompt("Recreate old.py as a stub").write(f"{PROJECT}/src/old.py", "# stub\n"),
    ]


@pytest.fixture
def conn(tmp_path, history):
    c = open_index(tmp_path, history)
    yield c
    c.close()


def test_blame_follows_the_move_newest_first(conn):
    entries = blame.blame(conn, f"{PROJECT}/src/new.py")
    got = [(e.session_id[-2:], e.action, e.path) for e in entries]
    assert got == [
        ("03", "replace", f"{PROJECT}/src/new.py"),
        ("03", "replace", f"{PROJECT}/src/new.py"),
        ("02", "update", "src/new.py"),
        ("02", "move", "src/old.py"),
        ("01", "write", f"{PROJECT}/src/old.py"),
    ]
    move = entries[3]
    assert move.moved_to == "src/new.py"
    assert move.resolved == f"{PROJECT}/src/old.py"
    assert entries[4].via == f"{PROJECT}/src/old.py"  # found under its earlier name
    assert entries[0].via == f"{PROJECT}/src/new.py"


def test_each_edit_carries_the_prompt_that_led_to_it(conn):
    entries = blame.blame(conn, f"{PROJECT}/src/new.py")
    assert [e.prompt for e in entries] == [
        "Also document it",
        "Fix the bug in f",
        "Rename old.py to new.py and bump VALUE",
        "Rename old.py to new.py and bump VALUE",
        "Create the module",
    ]
    assert all(e.prompt_time is not None and e.time is not None and e.prompt_time <= e.time for e in entries)
    first = entries[-1]
    assert first.ref.endswith(first.session_id)
    assert first.project == PROJECT
    assert first.tool == "write_file"


def test_a_suffix_matches_on_a_slash_boundary_in_every_checkout(conn):
    entries = blame.blame(conn, "src/new.py")
    sessions = {e.session_id[-2:] for e in entries}
    assert sessions == {"01", "02", "03", "05"}  # not mysrc/new.py (04)
    other = next(e for e in entries if e.session_id.endswith("05"))
    assert other.path == "src/new.py" and other.resolved == f"{OTHER}/src/new.py"
    assert blame.blame(conn, "new.py") != []
    assert {e.session_id[-2:] for e in blame.blame(conn, "mysrc/new.py")} == {"04"}


def test_the_old_name_is_its_own_file_after_the_move(conn):
    entries = blame.blame(conn, f"{PROJECT}/src/old.py")
    # Every edit of old.py: its creation, the move away, and the stub made later at that name.
    assert [(e.session_id[-2:], e.action) for e in entries] == [
        ("06", "write"),
        ("02", "move"),
        ("01", "write"),
    ]
    # The stub is not blamed on new.py.
    assert all(not e.session_id.endswith("06") for e in blame.blame(conn, f"{PROJECT}/src/new.py"))


def test_limit_and_unknown_paths(conn):
    assert len(blame.blame(conn, f"{PROJECT}/src/new.py", limit=2)) == 2
    assert blame.blame(conn, f"{PROJECT}/src/missing.py") == []
    assert blame.blame(conn, "") == []
    assert blame.blame(conn, "./src/../src/new.py") == blame.blame(conn, "src/new.py")
    assert blame.blame(conn, f"{PROJECT}/src/new.py/") == blame.blame(conn, f"{PROJECT}/src/new.py")


@pytest.mark.parametrize(
    ("pasted", "path"),
    [
        ("src/new.py:12", "src/new.py"),  # grep -n, a stack frame of most languages
        (f"{PROJECT}/src/new.py:12:5:", f"{PROJECT}/src/new.py"),  # a compiler's or a linter's message
        ("src/new.py(12,5)", "src/new.py"),  # TypeScript's and MSBuild's
        (f'  File "{PROJECT}/src/new.py", line 12, in f', f"{PROJECT}/src/new.py"),  # Python's traceback
    ],
)
def test_a_path_pasted_with_its_line_is_the_file(conn, pasted, path):
    """A path is pasted as a compiler, a linter, grep or a traceback writes it, with the line (and column)
    after it, and was "No edit of src/new.py:12 on record". It is the file's edits."""
    edits = [e.doc for e in blame.blame(conn, path)]
    assert edits and [e.doc for e in blame.blame(conn, pasted)] == edits
    assert blame.without_position("src/new.py") is None and blame.without_position("f(x)") is None


WINDOWS = "C:\\Users\\dev\\shop"


@pytest.mark.parametrize(
    "asked",
    [
        "src\\app.py",
        "src/app.py",
        "app.py",
        f"{WINDOWS}\\src\\app.py",
        "c:/users/dev/shop/src/app.py",  # Windows reads a path in any case, with either separator
        "shop\\SRC\\app.py",
    ],
)
def test_a_path_of_windows_is_resolved_and_matched_as_windows_does(tmp_path, asked):
    """Hermes runs natively on Windows and resolves a file tool's path there as Windows does: relative to
    the session's directory (``C:\\Users\\dev\\shop``) with either separator, Git Bash's ``/c/Users``
    as the drive. Blame read such a path as POSIX: "src\\app.py" was "No edit on record", and a relative
    one was never joined to its project."""
    sessions = [
        Session(1, cwd=WINDOWS).prompt("Create the app").write("src\\app.py", "x = 1\n"),
        Session(2, cwd=WINDOWS).prompt("Fix it").replace(f"{WINDOWS}\\src\\app.py", "x = 1", "x = 2"),
        Session(3, cwd=WINDOWS).prompt("From Git Bash").write("/c/Users/dev/shop/src/app.py", "x = 3\n"),
        Session(4, cwd=WINDOWS).prompt("Another file").write("src\\myapp.py", "y = 1\n"),
    ]
    conn = open_index(tmp_path, sessions)
    try:
        entries = blame.blame(conn, asked)
        assert [e.session_id[-2:] for e in entries] == ["03", "02", "01"], asked
        assert {e.resolved for e in entries} == {f"{WINDOWS}\\src\\app.py"}
    finally:
        conn.close()


def test_a_chain_of_moves_and_a_short_name(tmp_path):
    history = [
        Session(1).prompt("make a").write(f"{PROJECT}/a", "1\n"),
        Session(2)
        .prompt("a to b")
        .v4a("*** Begin Patch\n*** Move File: a -> b\n*** End Patch\n", ["a -> b"]),
        Session(3)
        .prompt("b to c")
        .v4a("*** Begin Patch\n*** Move File: b -> c\n*** End Patch\n", ["b -> c"]),
        Session(4).prompt("edit c").replace(f"{PROJECT}/c", "1", "2"),
    ]
    conn = open_index(tmp_path, history)
    entries = blame.blame(conn, "c")
    assert [(e.session_id[-2:], e.action, e.prompt) for e in entries] == [
        ("04", "replace", "edit c"),
        ("03", "move", "b to c"),
        ("02", "move", "a to b"),
        ("01", "write", "make a"),
    ]


def test_a_path_with_accents_is_one_path_composed_or_decomposed(tmp_path):
    """macOS names files with their accents apart from their letters ("Über" as U and a diaeresis): a path
    pasted from its Finder, or recorded from its file system, spells them so, and a blame of the same file
    in the other form said "no edit on record". Each form finds the edits of both."""
    import unicodedata

    composed, decomposed = "docs/Über uns.md", unicodedata.normalize("NFD", "docs/Über uns.md")
    assert composed != decomposed
    history = [
        Session(1).prompt("write the about page").write(f"{PROJECT}/{composed}", "Wir sind\n"),
        Session(2)
        .prompt("fix the about page")
        .replace(f"{PROJECT}/{decomposed}", "Wir sind", "Wir sind ein Team"),
        Session(3).prompt("short names too").write(f"{PROJECT}/é", "x\n"),
    ]
    conn = open_index(tmp_path, history)
    for asked in (composed, decomposed, "Über uns.md", unicodedata.normalize("NFD", "Über uns.md")):
        assert [e.session_id[-2:] for e in blame.blame(conn, asked)] == ["02", "01"], asked
    assert [e.session_id[-2:] for e in blame.blame(conn, unicodedata.normalize("NFD", "é"))] == ["03"]


def test_rewound_edits_are_left_out_unless_asked(tmp_path):
    history = [
        Session(1).prompt("make it").write(f"{PROJECT}/app.py", "a\n"),
        Session(2, rewind_to=1).prompt("keep").prompt("try something").replace(f"{PROJECT}/app.py", "a", "b"),
    ]
    conn = open_index(tmp_path, history)
    assert [e.session_id[-2:] for e in blame.blame(conn, "app.py")] == ["01"]
    with_rewound = blame.blame(conn, "app.py", include_rewound=True)
    assert [(e.session_id[-2:], e.rewound) for e in with_rewound] == [("02", True), ("01", False)]
    assert with_rewound[0].prompt == "try something"


def test_the_prompt_of_a_continuation_is_in_the_part_before(tmp_path):
    parent = Session(1, end_reason="compression").prompt("Refactor app.py").write(f"{PROJECT}/app.py", "a\n")
    child = Session(2, parent_session_id=parent.id)
    child.start = child.t = parent.t + 5
    child.replace(f"{PROJECT}/app.py", "a", "b")
    conn = open_index(tmp_path, [parent, child])
    entries = blame.blame(conn, "app.py")
    assert [(e.session_id, e.prompt) for e in entries] == [
        (child.id, "Refactor app.py"),
        (parent.id, "Refactor app.py"),
    ]


def test_counts_action_and_outcome_come_from_the_index(conn):
    entry = blame.blame(conn, f"{PROJECT}/src/new.py")[0]
    assert (entry.action, entry.added, entry.removed, entry.applied) == ("replace", 2, 1, True)


def test_a_path_typed_or_remembered_wrong_offers_the_files_edited_under_paths_like_it(conn):
    """A blame that finds nothing names the edited files whose path ends like the one asked (a letter
    swapped, another directory), most alike first, to blame instead; a path like none names nothing."""
    assert blame.blame(conn, "src/nwe.py") == []
    assert blame.local_near_paths(conn, "src/nwe.py")[:2] == [f"{PROJECT}/src/new.py", f"{OTHER}/src/new.py"]
    assert f"{PROJECT}/mysrc/new.py" in blame.local_near_paths(conn, "src/nwe.py")
    # Another directory: the file of that name where it was edited.
    assert blame.local_near_paths(conn, "lib/old.py")[0] == f"{PROJECT}/src/old.py"
    # What the blame finds is never offered as like it, nor is a path like no edited one.
    assert f"{PROJECT}/src/new.py" not in blame.local_near_paths(conn, "src/new.py")
    assert blame.local_near_paths(conn, "docs/README.md") == []
    # A path of another case only ("Dockerfile" typed "dockerfile") is no match on POSIX: it is offered.
    assert blame.blame(conn, "SRC/NEW.py") == []
    assert blame.local_near_paths(conn, "SRC/NEW.py")[:2] == [f"{PROJECT}/src/new.py", f"{OTHER}/src/new.py"]


def test_the_terminal_and_the_json_offer_the_paths_like_the_one_asked(tmp_path, history, trail_here):
    """``trail blame`` of a path typed wrong says there is no edit of it and names the files to blame
    instead, on the terminal and in ``near`` of its JSON (the MCP tool's too)."""
    from hermes_trail.service import Trail

    home = hermesdb.write_home(tmp_path / "home", [s.spec() for s in history])
    index = tmp_path / "index.db"
    where = ["--home", home, "--index", index]
    done = trail_here("blame", "src/nwe.py", *where, env={"COLUMNS": "80"})
    assert done.returncode == 1
    assert "No edit of src/nwe.py on record." in done.stdout
    assert "Edited files by a name like it:" in done.stdout and f"{PROJECT}/src/new.py" in done.stdout
    done = trail_here("blame", "src/nwe.py", "--json", *where)
    document = json.loads(done.stdout)
    assert document["edits"] == []  # (a JSON answer exits 0: it is the answer either way)
    assert document["near"][0] == f"{PROJECT}/src/new.py"
    done = trail_here("blame", "src/new.py", "--json", *where)
    assert done.returncode == 0 and json.loads(done.stdout)["near"] == []
    trail = Trail(index=index, homes=(home,), parallel=False)
    assert trail.blame("src/nwe.py")["near"][0] == f"{PROJECT}/src/new.py"
    assert trail.blame("src/new.py")["near"] == []
