"""Benchmark ``trail timeline`` against a raw ``SELECT`` of the same messages written as JSON lines.

Usage::

    python bench/bench_timeline.py [--store-dir bench/out/store] [--quick]

Builds the synthetic store with ``bench/synthetic_store.py`` when it is missing (the same store as
``bench_reader.py``: 1M messages, or 20k with ``--quick``), then runs once each, as subprocesses, output to
a file in a temporary directory:

- ``trail timeline --db STATE_DB -o OUT``: every row of the store, sorted, through the model;
- the raw floor: ``SELECT * FROM messages ORDER BY timestamp, id`` on an ``immutable=1`` connection, each
  row ``json.dumps``-ed on its own line. It decodes nothing, pairs nothing and reads no side file.

For each: wall-clock seconds, rows written, rows per second and peak RSS (``ru_maxrss`` of that process,
from ``os.wait4``). The ratio is trail's seconds over the raw floor's. The last line is one JSON object with
every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_reader import FULL, QUICK, ensure_store, trail_command

RAW = """
import json, sqlite3, sys
conn = sqlite3.connect(f"file:{sys.argv[1]}?immutable=1", uri=True)
conn.row_factory = sqlite3.Row
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for row in conn.execute("SELECT * FROM messages ORDER BY timestamp, id"):
        out.write(json.dumps(dict(row), ensure_ascii=False) + "\\n")
"""


def run(cmd: list[str]) -> tuple[float, int, int]:
    """Wall seconds, exit status and peak RSS (KiB on Linux) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 3):
        assert proc.stderr is not None
        sys.stderr.write(proc.stderr.read().decode(errors="replace")[-2000:])
    if proc.stderr is not None:
        proc.stderr.close()
    return seconds, proc.returncode, int(usage.ru_maxrss)


def lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store-dir", type=Path)
    parser.add_argument("--quick", action="store_true", help="the 20k-message store")
    args = parser.parse_args(argv)
    spec = QUICK if args.quick else FULL
    meta = ensure_store(args.store_dir or spec["dir"], spec)
    db = Path(meta["db"])
    figures: dict[str, object] = {"messages": meta["messages"], "sessions": meta["sessions"]}
    figures["quick"] = args.quick
    with tempfile.TemporaryDirectory(prefix="bench-timeline-") as tmp:
        out = Path(tmp) / "timeline.jsonl"
        t_s, code, t_rss = run([*trail_command(), "timeline", "--db", str(db), "-o", str(out)])
        t_rows = lines(out) if out.exists() else 0
        out.unlink(missing_ok=True)
        raw_out = Path(tmp) / "raw.jsonl"
        r_s, _, r_rss = run([sys.executable, "-c", RAW, str(db), str(raw_out)])
        r_rows = lines(raw_out)
    ok = code in (0, 3)
    print(f"store      {db}  {meta['messages']:,} messages, {meta['sessions']:,} sessions")
    print(f"{'':10} {'seconds':>9} {'rows':>11} {'rows/s':>9} {'peak RSS':>10}")
    for name, s, rows, rss in (("trail", t_s, t_rows, t_rss), ("raw", r_s, r_rows, r_rss)):
        print(f"{name:10} {s:9.2f} {rows:11,} {rows / s:9,.0f} {rss / 1024:8.1f} MB")
    ratio = t_s / r_s if r_s and ok else None
    shown = f"{ratio:.2f}x (trail seconds / raw seconds)" if ratio else "- (trail failed)"
    print(f"ratio      {shown}")
    figures.update(
        trail_s=round(t_s, 3),
        trail_rows=t_rows,
        trail_rows_per_s=round(t_rows / t_s),
        trail_peak_rss_kb=t_rss,
        raw_s=round(r_s, 3),
        raw_rows=r_rows,
        raw_rows_per_s=round(r_rows / r_s),
        raw_peak_rss_kb=r_rss,
        ratio=round(ratio, 3) if ratio else None,
    )
    print(json.dumps(figures))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
