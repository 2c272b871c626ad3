"""Benchmark ``trail list`` and ``trail show`` against a raw SQLite-to-JSON dump of the same rows.

Usage::

    python bench/bench_reader.py [--store-dir bench/out/store] [--repeat 5] [--quick]

Builds the synthetic store with ``bench/synthetic_store.py`` when it is missing, checks once that both
``trail`` commands exit 0 and print valid, non-empty JSON, then times, as subprocesses (so interpreter
startup is paid by both sides), alternating trail and baseline runs:

- ``trail list --json --db STATE_DB --limit 0`` vs. ``SELECT * FROM sessions`` dumped with ``json.dumps``;
- ``trail show BIG_ID --json --db STATE_DB`` vs. ``SELECT * FROM messages WHERE session_id = ? ORDER BY id``.

Each figure is the median wall-clock time of ``--repeat`` runs, output sent to ``/dev/null``. The last
line printed is one JSON object with every figure, for machines.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
GENERATOR = BENCH_DIR / "synthetic_store.py"
FULL = {"dir": BENCH_DIR / "out" / "store", "sessions": 10_000, "messages": 1_000_000, "big": 5_000}
QUICK = {"dir": BENCH_DIR / "out" / "quick", "sessions": 200, "messages": 20_000, "big": 1_000}

# The baselines: what the reader does, minus everything trail adds (decoding, shaping, locating stores).
RAW_LIST = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], uri=True)
conn.row_factory = sqlite3.Row
sys.stdout.write(json.dumps([dict(r) for r in conn.execute("SELECT * FROM sessions")]))
"""
RAW_SHOW = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], uri=True)
conn.row_factory = sqlite3.Row
rows = conn.execute("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (sys.argv[2],))
sys.stdout.write(json.dumps([dict(r) for r in rows]))
"""


@dataclass
class Case:
    """One side-by-side comparison: trail's command and its raw baseline."""

    name: str
    trail: list[str]
    raw: list[str]
    trail_s: float = 0.0
    raw_s: float = 0.0
    trail_bytes: int = 0
    raw_bytes: int = 0
    items: int | None = None  # sessions listed / turns shown by trail
    ok: bool = True  # trail's check run succeeded (else only the baseline is timed)

    @property
    def ratio(self) -> float:
        """trail time over raw time."""
        return self.trail_s / self.raw_s if self.raw_s else float("nan")


def trail_command() -> list[str]:
    """The ``trail`` executable: beside this interpreter, else on PATH, else ``python -m hermes_trail``."""
    beside = Path(sys.executable).parent / "trail"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("trail")
    return [found] if found else [sys.executable, "-m", "hermes_trail"]


def ensure_store(store_dir: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """The store's ``meta.json``, generating the store first when it is missing."""
    meta_path = store_dir / "meta.json"
    db_path = store_dir / "hermes_home" / "state.db"
    if not (meta_path.exists() and db_path.exists()):
        print(f"building the synthetic store in {store_dir} ...", flush=True)
        cmd = [sys.executable, str(GENERATOR), str(store_dir), "--sessions", str(spec["sessions"])]
        cmd += ["--messages", str(spec["messages"]), "--big-session", str(spec["big"])]
        subprocess.run(cmd, check=True)
    return json.loads(meta_path.read_text())


def make_cases(db_path: Path, big_id: str) -> list[Case]:
    """The two comparisons, ``list`` and ``show``."""
    trail = trail_command()
    uri = db_path.resolve().as_uri() + "?immutable=1"
    py = [sys.executable, "-c"]
    return [
        Case("list", [*trail, "list", "--json", "--db", str(db_path), "--limit", "0"], [*py, RAW_LIST, uri]),
        Case("show", [*trail, "show", big_id, "--json", "--db", str(db_path)], [*py, RAW_SHOW, uri, big_id]),
    ]


def check_output(cmd: list[str]) -> tuple[int, Any]:
    """Run ``cmd`` once; return its output's size and parsed JSON, or raise naming what went wrong."""
    done = subprocess.run(cmd, capture_output=True, check=False)
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip()[-600:]
        raise RuntimeError(f"`{' '.join(cmd[:3])} ...` exited {done.returncode}: {err}")
    if not done.stdout.strip():
        raise RuntimeError(f"`{' '.join(cmd[:3])} ...` printed nothing")
    try:
        return len(done.stdout), json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"`{' '.join(cmd[:3])} ...` printed invalid JSON: {exc}") from exc


def count_items(doc: Any) -> int | None:
    """How many sessions (``list``) or turns (``show``) a trail JSON document holds, if recognisable."""
    if isinstance(doc, list):
        return len(doc)
    if isinstance(doc, dict):
        for key in ("sessions", "turns", "messages"):
            if isinstance(doc.get(key), list):
                return len(doc[key])
    return None


def wall_time(cmd: list[str]) -> float:
    """Seconds one run of ``cmd`` takes, its output discarded; raises if it fails."""
    began = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - began


def measure(case: Case, repeat: int) -> None:
    """Median times of ``case``, trail and baseline runs alternating so drift hits both alike."""
    trail_times: list[float] = []
    raw_times: list[float] = []
    for _ in range(repeat):
        if case.ok:
            trail_times.append(wall_time(case.trail))
        raw_times.append(wall_time(case.raw))
    case.raw_s = statistics.median(raw_times)
    case.trail_s = statistics.median(trail_times) if trail_times else float("nan")


def mb(n: float) -> str:
    """Bytes as megabytes."""
    return f"{n / 1e6:.1f} MB"


def rounded(x: float, digits: int) -> float | None:
    """``x`` rounded, or None for NaN (a figure that could not be measured)."""
    return None if math.isnan(x) else round(x, digits)


def report(cases: list[Case], meta: dict[str, Any], db_path: Path, repeat: int, quick: bool) -> None:
    """The aligned table, then one JSON line with every figure."""
    size = db_path.stat().st_size
    print(f"store     {db_path}  {mb(size)}, {meta['sessions']} sessions, {meta['messages']} messages")
    print(f"big       {meta['big_session_id']} ({meta['big_session_messages']} messages)")
    print(f"timing    median of {repeat} runs, wall-clock, subprocesses (interpreter startup included)\n")
    print(f"{'case':<6}{'trail s':>10}{'raw s':>10}{'ratio':>9}{'trail out':>12}{'raw out':>12}{'items':>8}")
    for c in cases:
        items = "-" if c.items is None else str(c.items)
        row = f"{c.name:<6}{c.trail_s:>10.3f}{c.raw_s:>10.3f}{c.ratio:>8.2f}x"
        print(f"{row}{mb(c.trail_bytes):>12}{mb(c.raw_bytes):>12}{items:>8}")
    figures: dict[str, Any] = {f"{c.name}_ratio": rounded(c.ratio, 3) for c in cases}
    for c in cases:
        figures[f"{c.name}_trail_s"] = rounded(c.trail_s, 4)
        figures[f"{c.name}_raw_s"] = rounded(c.raw_s, 4)
        figures[f"{c.name}_trail_bytes"], figures[f"{c.name}_raw_bytes"] = c.trail_bytes, c.raw_bytes
    figures.update(store_bytes=size, sessions=meta["sessions"], messages=meta["messages"])
    figures.update(big_session_messages=meta["big_session_messages"], repeat=repeat, quick=quick)
    print()
    print(json.dumps(figures))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description="Time trail list/show against a raw SQLite JSON dump.")
    default_dir = "default: bench/out/store, or bench/out/quick with --quick"
    parser.add_argument("--store-dir", type=Path, help=default_dir)
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is shown")
    parser.add_argument("--quick", action="store_true", help="a 20k-message store, for a CI smoke run")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Build the store if needed, check trail's output once, time both sides, print the figures."""
    args = parse_args(argv)
    spec = QUICK if args.quick else FULL
    store_dir = args.store_dir or spec["dir"]
    meta = ensure_store(store_dir, spec)
    db_path = store_dir / "hermes_home" / "state.db"
    cases = make_cases(db_path, meta["big_session_id"])
    repeat = max(1, args.repeat)
    for case in cases:
        case.raw_bytes = check_output(case.raw)[0]
        try:
            case.trail_bytes, doc = check_output(case.trail)
            case.items = count_items(doc)
        except RuntimeError as exc:
            print(f"trail {case.name}: {exc}", file=sys.stderr)
            case.ok = False
    for case in cases:
        measure(case, repeat)
    report(cases, meta, db_path, repeat, args.quick)
    return 0 if all(c.ok for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
