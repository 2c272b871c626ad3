"""Reading side stores never writes and never reads a credential.

Every new command (``timeline`` in both formats and to a directory, ``list --deleted``, ``show`` of a session
recovered from a snapshot and from a divert, ``index --include-recovered`` and a search over it) runs against
a copy of the forensic home (in this process, as ``trail_here`` runs it; ``search`` and ``list --deleted`` in
a process of their own, as a person starts them) (``tests/forensic.py``, every side store); every file under
the home and under the user's home (the desktop app's directory) keeps its bytes and ``mtime_ns``, nothing
is created or removed. The same commands run in this process under an audit hook that records every file
opened: no credential file (``.env``, ``auth.json``, a pending pairing code, the desktop ``connection.json``)
is ever opened, and no output holds their secret, nor the desktop registry's token or header.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import forensic as fx
from hermes_trail.cli.app import app
from test_readonly import snapshot

COMMANDS = {
    "timeline": ["timeline"],
    "timeline-csv-dir": ["timeline", "--format", "csv", "-o", "{out}/case/"],
    "timeline-filtered": ["timeline", "--include-thinking", "-m", "WAL", "--profile", "default"],
    "list-deleted": ["list", "--deleted"],
    "list-deleted-json": ["list", "--deleted", "--json"],
    "show-snapshot": ["show", fx.CODING_ID],
    "show-divert-json": ["show", fx.DIVERT_ONLY_ID, "--json"],
    "index-recovered": ["index", "--include-recovered"],
    "search": ["search", "vault rotate"],
}


@pytest.fixture(scope="module")
def copied(forensic, tmp_path_factory):
    """A writable copy of the forensic root (a read-only file would hide a write)."""
    root = tmp_path_factory.mktemp("forensic-copy") / "root"
    shutil.copytree(forensic.root, root, symlinks=True)
    copy_writable_tree(root)
    return root


def copy_writable_tree(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_leaves_every_file_untouched(copied, command, run_trail, trail_here, tmp_path):
    home, user = copied / "home", copied / "user"
    args = [a.format(out=tmp_path) for a in COMMANDS[command]]
    before = {**snapshot(home), **{f"~/{k}": v for k, v in snapshot(user).items()}}
    # trail's own files (its index, its cache: the compiled dictionary) are kept where a person's trail
    # keeps them, outside the homes audited.
    env = {
        "TRAIL_HERMES_HOME": str(home),
        "HOME": str(user),
        "TRAIL_INDEX": str(tmp_path / "index" / "i.db"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    if command == "search":
        assert trail_here("index", "--include-recovered", env=env).returncode in (0, 3)
        before = {**snapshot(home), **{f"~/{k}": v for k, v in snapshot(user).items()}}
    result = (run_trail if command in ("search", "list-deleted") else trail_here)(*args, env=env)
    after = {**snapshot(home), **{f"~/{k}": v for k, v in snapshot(user).items()}}
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, 3), result.stderr
    assert sorted(after) == sorted(before), "files were created or removed"
    assert [p for p in before if before[p] != after[p]] == []
    for secret in (fx.SECRET, fx.TOKEN, fx.HEADER):
        assert secret not in result.stdout and secret not in result.stderr
    if command == "search":
        assert fx.DIVERT_ONLY_ID in result.stdout and "trail show" in result.stdout


_OPENED: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    watched = event in ("open", "sqlite3.connect", "os.listdir", "os.scandir")
    if _OPENED is not None and watched and args and isinstance(args[0], str | bytes | Path):
        _OPENED.append(str(args[0]))


sys.addaudithook(_audit)


def test_credential_files_are_never_opened(forensic, monkeypatch, tmp_path):
    global _OPENED
    monkeypatch.setenv("TRAIL_HERMES_HOME", str(forensic.home))
    monkeypatch.setenv("HOME", str(forensic.user_home))
    monkeypatch.setenv("TRAIL_INDEX", str(tmp_path / "i.db"))
    runner = CliRunner()
    _OPENED = []
    try:
        outputs = [
            runner.invoke(app, [a.format(out=tmp_path) for a in args], catch_exceptions=False)
            for args in COMMANDS.values()
        ]
        opened = list(_OPENED)
    finally:
        _OPENED = None
    credentials = {str(p) for p in forensic.credential_files}
    assert credentials and len(credentials) == 5
    assert not credentials & set(opened), sorted(credentials & set(opened))
    assert not [p for p in opened if p.endswith(("-pending.json", "/.env", "/auth.json", "connection.json"))]
    assert any(p.endswith(".hermes_history") for p in opened)  # the hook does see the side files read
    for result in outputs:
        for secret in (fx.SECRET, fx.TOKEN, fx.HEADER):
            assert secret not in result.stdout and secret not in result.stderr
