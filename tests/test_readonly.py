"""Reading never writes: every command leaves every file of a Hermes home as it was.

Each command runs against a home, and every file under the home (the stores, their
``-wal``/``-shm``/``-journal``, the directories) must keep its bytes and ``mtime_ns``, with nothing created
or removed. The homes: one written through ``SessionDB`` and closed (no ``-wal``); the same while a
``SessionDB`` in another process holds uncheckpointed WAL frames; and the corpus homes (WAL
checkpointed, and rollback journal), copied to tmp and made writable so a write would not be hidden by
read-only files.

Most commands run in this process (``trail_here``: the same code and answers without a start-up per case);
those in ``IN_A_PROCESS`` run as a person starts them, so what only a new process does (its start-up, the
meaning server it asks) is held to the same rule.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

import hermesdb as h
from hermesdb import CODING_ID

LIVE_ID = "20261104_120000_1ea7e0"

COMMANDS = {
    "list": ["list"],
    "list-json": ["list", "--json"],
    "show": ["show", "{id}"],
    "show-json": ["show", "{id}", "--json"],
    "bare": [],
    # The index lives outside the home (TRAIL_INDEX below); reading the home for it writes nothing there.
    "search": ["search", "the"],
    "recall": ["recall", "the"],
    "fix": ["fix", "No such file or directory"],
    "blame": ["blame", "hello.py"],
    "how": ["how", "echo"],
    "index": ["index", "--json", "--no-vectors"],  # the vector stage runs under index-recovered
    # Side stores (issue 6): the forensic home with every side store is covered by test_readonly_sides.py.
    "timeline": ["timeline"],
    "list-deleted": ["list", "--deleted", "--json"],
    "index-recovered": ["index", "--include-recovered"],
    "stats": ["stats", "--json"],
    "export-md": ["export", "{id}"],
    "export-asf": ["export", "--all", "--format", "asf", "-o", "{out}"],
    # Issue 9: every other reading command, each writing its output outside the home.
    "export-html": ["export", "{id}", "--format", "html", "-o", "{out}/one.html"],
    "export-jsonl-all": ["export", "--all", "--format", "jsonl", "-o", "{out}/"],
    "timeline-out": ["timeline", "--include-thinking", "-o", "{out}/timeline.jsonl"],
    "timeline-csv": ["timeline", "--format", "csv"],
    "stats-human": ["stats"],
    "resume": ["resume", "{id}"],
    "handoff": ["handoff", "{id}"],
    "search-json": ["search", "git", "--json"],
    "show-all": ["show", "{id}", "--all"],
}
IN_A_PROCESS = {"bare", "search", "list"}
HOMES = [
    "closed",
    "live",
    pytest.param("corpus-v22", marks=pytest.mark.corpus),
    pytest.param("corpus-v31", marks=pytest.mark.corpus),
]


def snapshot(root: Path) -> dict[str, tuple[str, int, int] | str]:
    """Every path under ``root``: a directory, or a file's sha256, size and mtime_ns."""
    out: dict[str, tuple[str, int, int] | str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel] = "directory"
        else:
            stat = path.stat()
            out[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_size, stat.st_mtime_ns)
    return out


def copy_writable(src: Path, dst: Path) -> Path:
    """Copy a home; the corpus is read-only on disk, and a read-only file would hide a write."""
    shutil.copytree(src, dst)
    for path in [dst, *dst.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dst


@pytest.fixture(params=HOMES)
def home_case(request, tmp_path):
    """``(home, session id to show)``; for ``live`` a writer keeps uncheckpointed frames meanwhile."""
    kind = request.param
    if kind.startswith("corpus"):
        corpus = request.getfixturevalue("corpus_dir") / kind
        manifest = json.loads((corpus / "manifest.json").read_text())
        yield (
            copy_writable(corpus / "hermes_home", tmp_path / kind),
            manifest["scenarios"][0]["session_ids"][0],
        )
        return
    home = request.getfixturevalue("hermes_home")
    if kind == "closed":
        assert not list(home.rglob("*-wal")) and not list(home.rglob("*-shm"))
        yield home, CODING_ID
        return
    with h.LiveWriter(home / "state.db") as writer:
        writer.create(LIVE_ID, cwd="/home/dev/live")
        writer.append(LIVE_ID, [h.user("status?"), *h.terminal_exchange("call_s1", "git status", "clean")])
        assert (home / "state.db-wal").stat().st_size > 0 and (home / "state.db-shm").exists()
        yield home, LIVE_ID


@pytest.mark.parametrize("command", COMMANDS)
def test_command_leaves_the_home_untouched(home_case, command, run_trail, trail_here, tmp_path):
    home, session_id = home_case
    args = [a.format(id=session_id, out=tmp_path / "exports") for a in COMMANDS[command]]
    before = snapshot(home)
    env = {"TRAIL_HERMES_HOME": str(home), "TRAIL_INDEX": str(tmp_path / "index" / "index.db")}
    result = (run_trail if command in IN_A_PROCESS else trail_here)(*args, env=env)
    after = snapshot(home)
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, 1, 3), result.stderr
    if command in ("show", "show-json", "list-json", "export-md"):
        assert session_id in result.stdout
    assert sorted(after) == sorted(before), "files were created or removed"
    changed = [path for path in before if before[path] != after[path]]
    assert changed == [], f"changed: {changed}"
