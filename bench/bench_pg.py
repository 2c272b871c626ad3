"""Benchmark trail on a Hermes store kept in PostgreSQL against the same store in SQLite (issue 8).

Usage::

    python bench/bench_pg.py [--store-dir bench/out/store] [--quick] [--repeat 3] [--layout typed]

Builds the synthetic store with ``bench/synthetic_store.py`` when it is missing (as ``bench_reader.py``
does; the store itself is only read), starts a throwaway PostgreSQL server on loopback
(``tests/pgserver.py``), copies the store's ``sessions``, ``messages`` and ``session_model_usage`` into it
(``typed`` layout by default: ``timestamptz`` times, ``boolean`` flags, ``jsonb`` content), then times, side
by side in one run:

1. ``trail list --json --limit 0`` (every session), a whole process, ``--db STATE_DB`` vs ``--pg DSN``;
2. ``trail show BIG_ID --json``, the big session, likewise;
3. a **full index build** (``sync_index`` into a fresh index, in a subprocess, worker processes included);
4. a **sync that finds nothing new** (median of several, in this process), with the PostgreSQL queries and
   rows it took.

Before timing, each command's output on both is checked to be the same but for the store's own fields.
Prints an aligned table, then one JSON line with every figure; exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_reader import FULL, QUICK, ensure_store, trail_command

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent / "tests"))  # the throwaway server and loader the tests use

import pgserver  # noqa: E402
from hermes_trail.hermes.dsn import shown  # noqa: E402
from hermes_trail.hermes.pgstore import COUNTS  # noqa: E402
from hermes_trail.index.sync import sync_index  # noqa: E402

NOCHANGE_RUNS = 10
STORE_FIELDS = ("store_path", "store_kind")

# The build, run as a subprocess so each side starts cold in its own process (workers included).
BUILD_CHILD = """
import json, sys
from pathlib import Path
from hermes_trail.index.sync import sync_index
kind, where, index = sys.argv[1:4]
r = sync_index(Path(index), dbs=[where] if kind == "sqlite" else [], pgs=[where] if kind == "pg" else [])
print(json.dumps({"seconds": r.seconds, "messages": r.messages_read, "docs": r.docs,
                  "sessions": r.sessions_indexed, "strays": [s.reason for s in r.strays]}))
"""


def _normalized(value: Any, names: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _normalized(v, names) for k, v in value.items() if k not in STORE_FIELDS}
    if isinstance(value, list):
        return [_normalized(v, names) for v in value]
    if isinstance(value, str):
        for name in names:
            value = value.replace(name, "<store>")
    return value


def _run_json(cmd: list[str]) -> Any:
    done = subprocess.run(cmd, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... exited {done.returncode}: {done.stderr.decode()[-600:]}")
    return json.loads(done.stdout)


def _timed(cmd: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def time_command(name: str, args: list[str], db: Path, dsn: str, repeat: int) -> dict[str, Any]:
    """Check that ``trail ARGS`` prints the same on both stores, then time each (alternating, median)."""
    trail = trail_command()
    on_sqlite = [*trail, *args, "--db", str(db)]
    on_pg = [*trail, *args, "--pg", dsn]
    names = (str(db.resolve()), str(db), shown(dsn))
    same = _normalized(_run_json(on_sqlite), names) == _normalized(_run_json(on_pg), names)
    sqlite_s: list[float] = []
    pg_s: list[float] = []
    for _ in range(repeat):
        sqlite_s.append(_timed(on_sqlite))
        pg_s.append(_timed(on_pg))
    a, b = statistics.median(sqlite_s), statistics.median(pg_s)
    return {"case": name, "sqlite_s": a, "pg_s": b, "ratio": b / a if a else None, "same": same}


def time_build(db: Path, dsn: str, work: Path) -> tuple[dict[str, Any], Path, Path]:
    """A full index build of each store, each in a fresh subprocess; returns the figures and the indexes."""
    results = {}
    indexes = {}
    for kind, where in (("sqlite", str(db)), ("pg", dsn)):
        index = work / f"index-{kind}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index}{suffix}").unlink(missing_ok=True)
        started = time.perf_counter()
        cmd = [sys.executable, "-c", BUILD_CHILD, kind, where, str(index)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
        results[kind] = {**json.loads(out.stdout.strip().splitlines()[-1]), "wall": wall}
        indexes[kind] = index
    a, b = results["sqlite"], results["pg"]
    same = (a["docs"], a["messages"], a["sessions"]) == (b["docs"], b["messages"], b["sessions"])
    same = same and not a["strays"] and not b["strays"]
    figures = {
        "case": "index build",
        "sqlite_s": a["wall"],
        "pg_s": b["wall"],
        "ratio": b["wall"] / a["wall"],
        "same": same,
        "docs": a["docs"],
        "messages": a["messages"],
    }
    return figures, indexes["sqlite"], indexes["pg"]


def time_nochange(db: Path, dsn: str, sqlite_index: Path, pg_index: Path) -> dict[str, Any]:
    """Syncs that find nothing new, in this process: medians, and what the PostgreSQL one asked the server."""
    runs: dict[str, list[float]] = {"sqlite": [], "pg": []}
    queries = rows = 0
    for _ in range(NOCHANGE_RUNS):
        runs["sqlite"].append(sync_index(sqlite_index, dbs=[db]).seconds)
        before = dict(COUNTS)
        report = sync_index(pg_index, pgs=[dsn])
        runs["pg"].append(report.seconds)
        queries, rows = COUNTS["queries"] - before["queries"], COUNTS["rows"] - before["rows"]
        assert report.sessions_indexed == 0, "a sync found changes in a store nothing wrote to"
    a, b = statistics.median(runs["sqlite"]), statistics.median(runs["pg"])
    return {
        "case": "sync, nothing new",
        "sqlite_s": a,
        "pg_s": b,
        "ratio": b / a if a else None,
        "same": True,
        "pg_queries": queries,
        "pg_rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store-dir", type=Path, help="the synthetic store (built when missing)")
    parser.add_argument("--quick", action="store_true", help="the small store (20k messages): a smoke run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each command (median)")
    parser.add_argument("--layout", choices=pgserver.LAYOUTS, default="typed")
    args = parser.parse_args()
    spec = QUICK if args.quick else FULL
    store_dir = args.store_dir or spec["dir"]
    meta = ensure_store(store_dir, spec)
    db = store_dir / "hermes_home" / "state.db"
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="trail-bench-pg-") as tmp:
        work = Path(tmp)
        print("starting PostgreSQL ...", flush=True)
        with pgserver.running(work / "server", shared_buffers="128MB" if args.quick else "1GB") as cluster:
            started = time.perf_counter()
            log = None if args.quick else lambda m: print(m, flush=True)
            dsn = pgserver.load_store(cluster, db, "bench", args.layout, batch=20_000, log=log)
            load_s = time.perf_counter() - started
            print(
                f"loaded {meta['messages']:,} messages into PostgreSQL ({args.layout}) in {load_s:.1f} s",
                flush=True,
            )
            results.append(time_command("list", ["list", "--json", "--limit", "0"], db, dsn, args.repeat))
            show = ["show", meta["big_session_id"], "--json"]
            results.append(time_command("show", show, db, dsn, args.repeat))
            build, sqlite_index, pg_index = time_build(db, dsn, work)
            results.append(build)
            results.append(time_nochange(db, dsn, sqlite_index, pg_index))
            with cluster.connect() as conn:
                pg_bytes = conn.execute("SELECT pg_database_size('hermes')").fetchone()[0]
    print(f"\n{'case':<20}{'sqlite s':>10}{'postgres s':>12}{'ratio':>9}  same output")
    for r in results:
        ratio = r["ratio"] or 0.0
        print(f"{r['case']:<20}{r['sqlite_s']:>10.3f}{r['pg_s']:>12.3f}{ratio:>8.2f}x  {r['same']}")
    nochange = results[-1]
    print(
        f"\nno-change sync on PostgreSQL: {nochange['pg_queries']} queries, "
        f"{nochange['pg_rows']} rows read (the table catalog and one marker row)"
    )
    summary = {
        "quick": args.quick,
        "layout": args.layout,
        "messages": meta["messages"],
        "sessions": meta["sessions"],
        "load_s": round(load_s, 2),
        "pg_bytes": pg_bytes,
        "store_bytes": db.stat().st_size,
        **{
            f"{r['case'].split(',')[0].replace(' ', '_')}_{k}": (round(v, 4) if isinstance(v, float) else v)
            for r in results
            for k, v in r.items()
            if k != "case"
        },
    }
    print(json.dumps(summary))
    return 0 if all(r["same"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
