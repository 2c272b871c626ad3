"""``trail resume``: the command that reopens a session, on homes written by Hermes' ``SessionDB``; the
commands it prints are run through the real ``hermes`` (``hermes-agent``) to see that they resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb
from hermes_trail.cli.app import app
from hermes_trail.resume import plan_resume
from hermesdb import CHAT_ID, CODING_ID, WORK_ID

pytest.importorskip("hermes_state")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def write(root: Path, profiles: dict[str, list[hermesdb.SessionSpec]] | None = None) -> Path:
    """A home at ``root``: the chat and the coding session, and the ``work`` profile's standup."""
    profiles = (
        profiles
        if profiles is not None
        else {"work": [hermesdb.chat(WORK_ID, ("Standup notes?", "Three items."), start=hermesdb.T0 + 86400)]}
    )
    return hermesdb.write_home(
        root,
        [
            hermesdb.chat(CHAT_ID, ("What is WAL?", "A write-ahead log."), title="About WAL"),
            hermesdb.coding(CODING_ID, start=hermesdb.T0 + 3600),
        ],
        profiles=profiles,
    )


@pytest.fixture
def root(isolated_env) -> Path:
    """Hermes' own home, ``~/.hermes`` (``HOME`` is a tmp directory)."""
    return write(isolated_env / ".hermes")


def test_a_root_session_resumes_plainly(root):
    code, out, err = run("resume", CHAT_ID)
    assert (code, out, err) == (0, f"hermes --resume {CHAT_ID}\n", "")


def test_a_unique_prefix_is_enough_and_the_full_id_is_printed(root):
    code, out, _ = run("resume", CODING_ID[:12])
    assert code == 0 and out == f"hermes --resume {CODING_ID}\n"


def test_a_profile_session_names_its_profile(root):
    code, out, _ = run("resume", WORK_ID)
    assert code == 0 and out == f"hermes -p work --resume {WORK_ID}\n"


def test_a_root_session_under_an_active_profile_gets_p_default(root):
    (root / "active_profile").write_text("work\n")
    code, out, _ = run("resume", CHAT_ID)
    assert code == 0 and out == f"hermes -p default --resume {CHAT_ID}\n"
    code, out, _ = run("resume", WORK_ID)  # the profile's own session keeps its -p all the same
    assert code == 0 and out == f"hermes -p work --resume {WORK_ID}\n"


def test_a_root_session_when_hermes_home_points_into_a_profile(root, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", str(root / "profiles" / "work"))
    code, out, _ = run("resume", CHAT_ID)
    assert code == 0 and out == f"hermes -p default --resume {CHAT_ID}\n"


def test_a_home_hermes_does_not_open_is_named_with_hermes_home(root, tmp_path):
    other = write(tmp_path / "backup")
    code, out, _ = run("resume", CHAT_ID, "--home", str(other))
    assert code == 0 and out == f"HERMES_HOME={other} hermes --resume {CHAT_ID}\n"
    code, out, _ = run("resume", WORK_ID, "--home", str(other))
    assert code == 0 and out == f"HERMES_HOME={other / 'profiles' / 'work'} hermes --resume {WORK_ID}\n"


def test_json(root):
    code, out, _ = run("resume", WORK_ID, "--json")
    assert code == 0
    assert json.loads(out) == {
        "session_id": WORK_ID,
        "ref": f"work:{WORK_ID}",
        "profile": "work",
        "home": str(root / "profiles" / "work"),
        "hermes_home": None,
        "argv": ["hermes", "-p", "work", "--resume", WORK_ID],
        "command": f"hermes -p work --resume {WORK_ID}",
    }


@pytest.mark.parametrize("profile", ["tmp", "Caps", "default"])
def test_a_profile_hermes_will_not_take_by_name_is_refused(isolated_env, profile):
    session = "20261104_120000_0d0d0d"
    write(isolated_env / ".hermes", {profile: [hermesdb.chat(session, ("hi", "hello"))]})
    code, out, err = run("resume", session)
    assert code == 1 and out == ""
    store = "'default~2" if profile == "default" else profile  # beside the root store, also "default"
    assert f"'{profile}'" in err and f"trail show {store}:{session}" in err


def test_a_deleted_session_is_refused(root):
    with hermesdb.hermes_env(root):
        db = hermesdb.session_db(root / "state.db")
        assert db.delete_session(CODING_ID)  # what `hermes sessions delete` does
        db.close()
    code, out, err = run("resume", CODING_ID)
    assert code == 1 and out == ""
    assert "deleted, or never there" in err and "trail list" in err


def test_a_deleted_session_with_a_deletion_fence_says_when(root):
    with hermesdb.hermes_env(root):
        db = hermesdb.session_db(root / "state.db")
        db.delete_session(CODING_ID)
        db.close()
    # Hermes 0.19 leaves no trace of a delete; newer Hermes writes this fence before it deletes
    # (hermes_state_mutation_retirement.py), which 0.19's SessionDB has no method to write.
    fence = json.dumps({"retired_at": hermesdb.T0, "own": True})
    hermesdb.sql(
        root / "state.db",
        "INSERT INTO state_meta (key, value) VALUES (?, ?)",
        (f"gateway.retired_session.v1.{CODING_ID}", fence),
    )
    code, _, err = run("resume", CODING_ID)
    assert code == 1
    assert f"{CODING_ID} was deleted with hermes sessions delete on 2026-11-02 09:00 UTC" in err


def test_an_unknown_or_ambiguous_id_is_refused(root):
    code, _, err = run("resume", "19990101")
    assert code == 1 and "no session '19990101'" in err
    code, _, err = run("resume", "2026110")
    assert code == 1 and "ambiguous" in err and f"work:{WORK_ID}" in err


def test_the_demo_home_has_nothing_to_resume(isolated_env):
    code, out, err = run("resume", "20261124_091502")
    assert code == 1 and out == ""
    assert "demo home" in err and "trail show default:20261124_091502_a1b2c3" in err


def test_an_id_that_looks_like_an_option_stays_the_flags_value(tmp_path):
    plan = plan_resume("-x1", tmp_path, "default", env={"HOME": str(tmp_path)})
    assert plan.argv == ["hermes", "--resume=-x1"]


def test_search_hits_carry_the_same_command(root, tmp_path):
    (root / "active_profile").write_text("work\n")
    code, out, _ = run("search", "write-ahead", "--json", "--index", str(tmp_path / "index.db"))
    assert code == 0
    hit = json.loads(out)["conversations"][0]["hits"][0]
    assert hit["session_id"] == CHAT_ID and hit["resume"] == f"hermes -p default --resume {CHAT_ID}"


def test_a_page_of_hits_finds_the_way_into_each_store_once_and_says_the_same(root, tmp_path, monkeypatch):
    """``many_lines`` (a page of search hits) asks Hermes' profile settings once per store, and every line
    is the one found alone: a root session under an active profile, a profile's, an id that looks like an
    option, the demo home's (refused: no line)."""
    from hermes_trail import resume
    from hermes_trail.history import demo_home

    (root / "active_profile").write_text("work\n")
    asked = [
        (CHAT_ID, root / "state.db", "default"),
        (CODING_ID, root / "state.db", "default"),
        ("-x1", root / "state.db", "default"),
        (WORK_ID, root / "profiles" / "work" / "state.db", "work"),
        ("20261124_091502_a1b2c3", demo_home() / "state.db", "default"),
    ]
    alone = [resume.resume_line(*a) for a in asked]
    assert alone[0] == f"hermes -p default --resume {CHAT_ID}"
    assert alone[2] == "hermes -p default --resume=-x1"
    assert alone[3] == f"hermes -p work --resume {WORK_ID}" and alone[4] == ""
    looked: list[object] = []
    real = resume.profiles.opened_home
    monkeypatch.setattr(resume.profiles, "opened_home", lambda *a: looked.append(a) or real(*a))
    with resume.many_lines():
        first = [resume.resume_line(*asked[0])]
        once = len(looked)
        first += [resume.resume_line(*a) for a in asked[1:]]
        again = len(looked)
        second = [resume.resume_line(*a) for a in asked]
    assert first == second == alone
    assert once > 0 and len(looked) == again, "a store's way is looked for once, not per session"
    assert resume._WAYS is None  # the scope ends with the block


def test_exec_without_hermes_on_path_says_what_to_run(root, run_trail):
    done = run_trail("resume", WORK_ID, "--exec", env={"PATH": "/nonexistent"})
    assert done.returncode == 1
    assert f"the command is: hermes -p work --resume {WORK_ID}" in done.stderr


# -- the real hermes ---------------------------------------------------------------------------------
def resume_in_hermes(offline: list[str], session_id: str, env: dict[str, str]) -> str:
    """``trail resume <id> --exec``: trail replaces itself with the real ``hermes``, which starts, reopens
    the session and, its standard input closed, leaves; what it printed is returned."""
    child_env = {
        **env,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "OPENROUTER_API_KEY": "sk-test-not-a-key",
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        [*offline, sys.executable, "-m", "hermes_trail", "resume", session_id, "--exec"],
        capture_output=True,
        text=True,
        env=child_env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    return done.stdout + done.stderr


def test_hermes_resumes_a_profile_session_with_the_command(root, offline):
    output = resume_in_hermes(offline, WORK_ID, dict(os.environ))
    assert f"Resumed session {WORK_ID}" in output


def test_hermes_resumes_a_root_session_under_an_active_profile(root, offline):
    (root / "active_profile").write_text("work\n")
    output = resume_in_hermes(offline, CHAT_ID, dict(os.environ))
    assert f"Resumed session {CHAT_ID}" in output and "Session not found" not in output
    # Without the -p default that trail adds, Hermes looks in the active profile and finds nothing.
    env = {**os.environ, "OPENROUTER_API_KEY": "sk-test-not-a-key", "NO_COLOR": "1"}
    hermes = str(Path(sys.executable).parent / "hermes")
    bare = subprocess.run(
        [*offline, hermes, "--resume", CHAT_ID],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert f"Session not found: {CHAT_ID}" in bare.stdout + bare.stderr
