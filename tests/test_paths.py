"""Issue 9, point 5: ``-o`` paths and symbolic links never let ``trail export`` or ``trail timeline`` write
outside the place the user named, nor into a Hermes home; a profile that is a symbolic link is read, never
written. (Names from hostile session ids and a link at an export's file name: ``tests/test_export.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb as h
from hermes_trail.cli.app import app
from test_readonly import snapshot

pytest.importorskip("hermes_state")

ID = "20261122_090000_9a7e51"
PROFILE_ID = "20261122_100000_9a7e52"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout + result.stderr


@pytest.fixture
def root(tmp_path) -> Path:
    """A home whose profile ``work`` is a symbolic link to a store kept elsewhere, and a place outside."""
    home = h.write_home(tmp_path / "home", [h.chat(ID, ("hi", "hello"))])
    h.write_home(tmp_path / "elsewhere", [h.chat(PROFILE_ID, ("work?", "work."))])
    (home / "profiles").mkdir()
    (home / "profiles" / "work").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "out").mkdir()
    return tmp_path


def test_a_symlinked_profile_is_read_and_never_written(root, isolated_env, monkeypatch):
    monkeypatch.setenv("TRAIL_INDEX", str(isolated_env / "index.db"))
    home, target = root / "home", root / "elsewhere"
    before = (snapshot(home), snapshot(target))
    code, out = run("list", "--json", "--home", str(home))
    assert code == 0 and PROFILE_ID in out and ID in out, "the linked profile's sessions are listed"
    for args in (
        ["show", PROFILE_ID],
        ["search", "work"],
        ["timeline", "-o", str(root / "out" / "t.jsonl")],
        ["export", "--all", "-o", str(root / "out" / "x")],
        ["handoff", PROFILE_ID],
        ["stats"],
    ):
        code, out = run(*args, "--home", str(home))
        assert code in (0, 3), (args, out)
    assert (snapshot(home), snapshot(target)) == before


@pytest.mark.parametrize("command", ["export", "timeline"])
def test_a_link_into_a_home_is_refused(root, command):
    """``-o`` through a symbolic link that points into a Hermes home (the profile's real folder too)."""
    home = root / "home"
    (root / "out" / "to-home").symlink_to(home, target_is_directory=True)
    (root / "out" / "to-profile").symlink_to(root / "elsewhere", target_is_directory=True)
    before = (snapshot(home), snapshot(root / "elsewhere"))
    for link in ("to-home", "to-profile"):
        for name in ("", "x.md" if command == "export" else "t.jsonl"):
            target = root / "out" / link / name if name else root / "out" / link
            args = [command, ID, "-o", str(target)] if command == "export" else [command, "-o", str(target)]
            code, out = run(*args, "--home", str(home))
            assert code == 1 and "home" in out.lower(), (args, out)
    assert (snapshot(home), snapshot(root / "elsewhere")) == before


def test_timeline_does_not_write_through_a_link_at_its_file_name(root):
    outside = root / "keep.txt"
    outside.write_text("keep me")
    (root / "out" / "t.jsonl").symlink_to(outside)
    code, out = run("timeline", "-o", str(root / "out" / "t.jsonl"), "--home", str(root / "home"))
    assert code == 1 and "symbolic link" in out
    assert outside.read_text() == "keep me"
    (root / "out" / "dir").mkdir()
    (root / "out" / "dir" / "sessions.jsonl").symlink_to(outside)
    code, out = run("timeline", "-o", str(root / "out" / "dir"), "--home", str(root / "home"))
    assert code == 1 and outside.read_text() == "keep me", out


def test_export_names_stay_in_the_directory_named(root, tmp_path):
    """Odd but legal ids (dots, separators, spaces, control characters): every file lands in ``-o``."""
    ids = ["..", "../../up", "a/b/../../../c", " lead", "tab\there", "nl\nx", "\x1b[2Jesc", "é/ü", "x" * 300]
    home = h.write_home(
        tmp_path / "odd", [h.chat(sid, ("hi", "hello"), start=h.T0 + i) for i, sid in enumerate(ids)]
    )
    out = root / "out" / "odd"
    code, text = run("export", "--all", "-o", str(out), "--home", str(home))
    assert code == 0, text
    written = list(out.iterdir())
    assert len(written) == len(ids) and all(p.parent == out and p.is_file() for p in written)
    assert all(len(p.name.encode()) <= 255 and not p.name.startswith(".") for p in written)
    assert sorted(p.name for p in (root / "out").iterdir()) == ["odd"], "nothing beside it"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "home", "odd", "out"], "nothing else"
