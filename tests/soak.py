"""A live Hermes writing while hermes-trail syncs and searches: the soak shared by the test and the bench.

A child process runs Hermes' own ``SessionDB`` on a store and, until told to stop, appends user and
assistant rows (each with a unique word), rewinds a session now and then (``rewind_to_message``) and
compacts one in place (``archive_and_compact``); after each commit it prints the ids it committed. This
process meanwhile runs ``sync_index`` and ``search`` in a loop. After each sync every row committed
before it began must be in the index, once; no call may raise, and "database is locked" never shows.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index

_WRITER = r"""
import json, sys, time
from pathlib import Path
from hermes_state import SessionDB

db = SessionDB(db_path=Path(sys.argv[1]))
sessions = [f"20261102_0900{i:02d}_50a{i:03d}" for i in range(4)]
for sid in sessions:
    db.create_session(sid, "cli", cwd="/home/dev/soak")
n = 0
deadline = time.monotonic() + float(sys.argv[2])
while time.monotonic() < deadline:
    sid = sessions[n % len(sessions)]
    u = db.append_message(sid, role="user", content=f"question soakword{n} please")
    a = db.append_message(sid, role="assistant", content=f"answer soakword{n} done", finish_reason="stop")
    print(json.dumps({"sid": sid, "ids": [u, a], "word": f"soakword{n}"}), flush=True)
    if n % 13 == 12:
        db.rewind_to_message(sid, u)  # the last exchange is rewound: kept, inactive
        print(json.dumps({"op": "rewind"}), flush=True)
    if n % 29 == 28:
        db.archive_and_compact(sid, [{"role": "user", "content": f"summary of soak {n}"}])
        print(json.dumps({"op": "compact"}), flush=True)
    n += 1
    time.sleep(0.005)
db.close()
"""


@dataclass
class SoakReport:
    seconds: float = 0.0
    writes: int = 0
    rewinds: int = 0
    compactions: int = 0
    syncs: int = 0
    searches: int = 0
    rows_checked: int = 0
    problems: list[str] = field(default_factory=list)


def run_soak(home: Path, index: Path, seconds: float) -> SoakReport:
    """Write for ``seconds`` in a child while syncing and searching here; the figures and the problems."""
    report = SoakReport()
    committed: list[tuple[str, int, str]] = []
    lock = threading.Lock()
    env = {**os.environ, "HERMES_HOME": str(home)}
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(home / "state.db"), str(seconds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )

    def pump() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            event = json.loads(line)
            with lock:
                if "ids" in event:
                    report.writes += 2
                    committed.extend((event["sid"], i, event["word"]) for i in event["ids"])
                elif event["op"] == "rewind":
                    report.rewinds += 1
                else:
                    report.compactions += 1

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    while not (home / "state.db").exists():
        time.sleep(0.01)
    try:
        while True:
            done = child.poll() is not None and not reader.is_alive()
            with lock:
                before = list(committed)
            try:
                synced = sync_index(index, homes=[home], env={}, parallel=False)
                if before:
                    search(index, before[-1][2])  # may be rewound or archived by now: only must answer
                    report.searches += 1
            except Exception as exc:
                report.problems.append(f"{type(exc).__name__}: {exc} ({_raised_at(exc)})")
                continue
            report.syncs += 1
            said = [f"{stray.where}: {stray.reason}" for stray in synced.strays]
            report.rows_checked += _check(index, before, report.problems, said)
            if done:
                break
    finally:
        child.wait(timeout=seconds + 60)
        reader.join(timeout=10)
    assert child.stderr is not None
    err = child.stderr.read()
    if child.returncode != 0:
        report.problems.append(f"writer failed: {err[-2000:]}")
    if "locked" in err:
        report.problems.append("the writer saw 'database is locked'")
    report.seconds = round(time.monotonic() - started, 1)
    return report


def _raised_at(exc: BaseException) -> str:
    """Where in hermes-trail an exception was raised (file:line, innermost first), so a soak that fails
    once in many runs says which read let it through."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "hermes_trail" in f.filename]
    return " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(frames[-3:])) or "?"


def _check(index: Path, committed: list[tuple[str, int, str]], problems: list[str], said: list[str]) -> int:
    """Every committed row is in the index; none is there twice. Returns the rows checked. ``said``: what
    the sync reported passing over, which a missing row's problem repeats (it is most often why)."""
    conn = sqlite3.connect(index)
    try:
        docs = conn.execute(
            "SELECT s.session_id, d.row, d.part, d.role, d.kind, count(*) FROM docs d"
            " JOIN sessions s ON s.id = d.sess GROUP BY s.session_id, d.row, d.part, d.role, d.kind"
        ).fetchall()
        twice = conn.execute(
            "SELECT store, session_id FROM sessions GROUP BY store, session_id HAVING count(*) > 1"
        ).fetchall()
    finally:
        conn.close()
    indexed = {(sid, row) for sid, row, _part, _role, _kind, _n in docs}
    problems.extend(f"indexed twice: {d}" for d in docs if d[5] > 1)
    problems.extend(f"session indexed twice: {t}" for t in twice)
    missing = [(sid, row) for sid, row, _w in committed if (sid, row) not in indexed]
    if missing:
        why = f" (the sync said: {'; '.join(said)})" if said else ""
        problems.append(f"{len(missing)} committed rows not found by the next sync, e.g. {missing[:3]}{why}")
    return len(committed)
