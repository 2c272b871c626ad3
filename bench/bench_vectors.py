"""Benchmark the vector stage and search by meaning at scale (issue 14): how long passages of a million
messages take to encode on this machine, the memory it takes, whether queries wait for it, and how fast a
query that needs the model answers, side by side with the floors of the same run.

Usage::

    python bench/bench_vectors.py [--quick] [--queries 100] [--out-dir bench/out/vectors]

Uses the synthetic store of ``bench_reader.py`` / ``bench_index.py`` (built when missing), indexes its words
into ``OUT_DIR/index.db`` when that is missing or of another format, then, in one run:

1. **The vector stage** (``vectors.encode_pending``) in a subprocess over a fresh copy of the word index:
   seconds, passages, passages a second, and peak RSS of the stage and of its workers. Target: at most
   30 minutes for a million messages on two cores, at most 300 MB a process.
2. **Queries while it runs**: word queries timed in this process during the stage, against the same
   queries timed before it started (the stage must never block a query). ``--behind`` runs the stage as a
   query's sync starts it (``index/behind.py``: one core at nice 19, the newest sessions only).
3. **Queries that need the model** (words no index holds, so the meaning pass runs: query encoding
   included), p50/p95, against word queries (the words answer) and against the raw FTS5 floor.
4. **Size**: the index with its passages against the store.
5. **A kept matrix**: what a long-lived process pays when a stage commits a batch while it answers: the
   passage matrix read in full, against the kept one grown by the batch.

Prints an aligned table, then one JSON line with every figure. The load average is printed first and
last: rerun when it is high.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench_index import db_bytes, percentile
from bench_reader import FULL, QUICK, ensure_store
from hermes_trail.index import behind, schema
from hermes_trail.index.search import search
from hermes_trail.index.vectors import PASSAGE_BUDGET

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIRS = {False: BENCH_DIR / "out" / "vectors", True: BENCH_DIR / "out" / "vectors-quick"}
TARGET_S = 30 * 60
TARGET_RSS_MB = 300
RAW_SQL = "SELECT rowid, bm25(docs_fts) FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rank LIMIT 20"
# Words the synthetic store does not hold: with one of them a query has a missing word, which sends it
# to the meaning pass.
ABSENT = ("teapot", "violin", "glacier", "saffron", "lighthouse", "origami", "meadow", "harbour")

WORDS_CHILD = """
import sys
from pathlib import Path
from hermes_trail.index.sync import sync_index
sync_index(Path(sys.argv[1]), dbs=[sys.argv[2]], env={"HOME": "/nonexistent"})
"""
STAGE_CHILD = """
import json, resource, sys, time
from pathlib import Path
from hermes_trail.index import behind
from hermes_trail.index.vectors import encode_pending
began = time.perf_counter()
limit = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "0" else None
if sys.argv[3:] == ["behind"]:  # as index/behind.py runs it: one core, nice 19, its newest sessions
    r = behind.run(Path(sys.argv[1]), limit)
else:
    r = encode_pending(Path(sys.argv[1]), limit=limit)
print(json.dumps({"seconds": time.perf_counter() - began, "passages": r.passages, "sessions": r.sessions,
                  "skipped": r.skipped, "rss_self_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "rss_children_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def word_index(out: Path, store: Path) -> Path:
    """The words of the store indexed (kept between runs while its format is current)."""
    path = out / "words.db"
    if schema.inspect(path) != schema.FORMAT:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        print(f"indexing the words of {store} ...", flush=True)
        subprocess.run([sys.executable, "-c", WORDS_CHILD, str(path), str(store)], check=True)
    return path


def vocabulary(index: Path, count: int, seed: int = 7) -> list[str]:
    """Words of middling frequency from the index's own vocabulary."""
    conn = sqlite3.connect(index)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, docs_fts, 'row')")
        rows = conn.execute(
            "SELECT term FROM temp.v WHERE term GLOB '[a-z][a-z][a-z]*' ORDER BY doc DESC LIMIT 600"
        ).fetchall()
    finally:
        conn.close()
    words = [r[0] for r in rows[100:]]
    rng = random.Random(seed)
    return [rng.choice(words) for _ in range(count)]


def timed(conn: sqlite3.Connection, queries: list[str]) -> list[float]:
    out = []
    for text in queries:
        began = time.perf_counter()
        search(conn, text)
        out.append((time.perf_counter() - began) * 1000)
    return out


def kept_matrix(conn: sqlite3.Connection, rounds: int = 5) -> dict[str, Any]:
    """What a long-lived process (MCP server, web viewer, meaning server) pays when a vector stage commits a
    batch while it answers: its passage matrix read again in full, against the kept one grown by the batch
    (``vectors.matrix``). The newest sessions' passages, about a batch of them, are taken out and put back
    as a stage writes them; the median of ``rounds``."""
    from hermes_trail.index import vectors

    newest = [r[0] for r in conn.execute("SELECT sess FROM encoded ORDER BY sess DESC LIMIT 4")]
    marks = ", ".join("?" for _ in newest)
    batch = conn.execute(f"SELECT sess, doc, vec FROM passages WHERE sess IN ({marks})", newest).fetchall()
    bump = "UPDATE meta SET value = value + 1 WHERE key = 'passages_version'"
    full, grown = [], []
    for _ in range(rounds):
        conn.execute(f"DELETE FROM passages WHERE sess IN ({marks})", newest)
        conn.execute(bump)
        conn.commit()
        vectors._MATRICES.clear()
        began = time.perf_counter()
        loaded = vectors.matrix(conn, "1", [])
        full.append((time.perf_counter() - began) * 1000)
        conn.executemany("INSERT INTO passages (sess, doc, vec) VALUES (?, ?, ?)", batch)
        conn.execute(bump)
        conn.commit()
        began = time.perf_counter()
        made = vectors.matrix(conn, "1", [])
        grown.append((time.perf_counter() - began) * 1000)
        assert made.rows == loaded.rows + len(batch) and len(made.blocks) > made.base, "not grown"
    return {
        "matrix_rows": made.rows,
        "matrix_batch_rows": len(batch),
        "matrix_full_ms": round(percentile(full, 0.5), 1),
        "matrix_grown_ms": round(percentile(grown, 0.5), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 20k-message store, for a CI smoke run")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--passages",
        type=int,
        help="a session's passages at most (default: the index's own bound; 8 with --quick, so the CI smoke "
        "run encodes a third of them: passages a second, and so the projection, do not depend on it)",
    )
    parser.add_argument(
        "--behind",
        action="store_true",
        help="run the stage as a query's sync starts it behind the queries (index/behind.py): one core at "
        "nice 19, one BLAS thread, its newest sessions only",
    )
    parser.add_argument("--out-dir", type=Path)
    args = parser.parse_args(argv)
    spec = QUICK if args.quick else FULL
    out = args.out_dir or OUT_DIRS[args.quick]
    out.mkdir(parents=True, exist_ok=True)
    print(f"load average {load()}", flush=True)
    meta = ensure_store(spec["dir"], spec)
    store = spec["dir"] / "hermes_home" / "state.db"
    words = word_index(out, store)
    index = out / "index.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    shutil.copy(words, index)

    vocab = vocabulary(index, args.queries * 2)
    word_queries = vocab[: args.queries]  # one word of middling frequency: the words answer
    rng = random.Random(11)
    model_queries = [f"{w} {rng.choice(ABSENT)}" for w in vocab[: args.queries]]

    conn = sqlite3.connect(index)
    timed(conn, word_queries[:10])
    before = timed(conn, word_queries)

    # 1 and 2: the stage in a subprocess, word queries timed here meanwhile.
    during: list[float] = []
    done = threading.Event()
    result: dict[str, Any] = {}

    def stage() -> None:
        limit = args.passages or (8 if args.quick else None)
        command = [sys.executable, "-c", STAGE_CHILD, str(index), str(limit or 0)]
        if args.behind:
            command.append("behind")
        env = behind.environment() if args.behind else None  # its BLAS on one thread, as start() gives it
        run = subprocess.run(command, capture_output=True, text=True, env=env)
        result.update(json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else {})
        result["returncode"] = run.returncode
        result["stderr"] = run.stderr[-2000:]
        done.set()

    worker = threading.Thread(target=stage)
    worker.start()
    while not done.is_set():
        during += timed(conn, word_queries[:20])
        time.sleep(0.2)
    worker.join()
    if result.get("returncode") != 0:
        print(result.get("stderr", ""), file=sys.stderr)
        return 1
    after = timed(conn, word_queries)  # the machine's drift: "during" is compared with both sides

    # 3: queries that need the model (one load, then warm), word queries and the raw floor, in turn.
    began = time.perf_counter()
    search(conn, model_queries[0])
    first_model_s = time.perf_counter() - began
    model_ms, words_ms, raw_ms = [], [], []
    for mq, wq in zip(model_queries, word_queries, strict=False):
        model_ms += timed(conn, [mq])
        words_ms += timed(conn, [wq])
        began = time.perf_counter()
        conn.execute(RAW_SQL, (" ".join(f'"{w}"' for w in wq.split()),)).fetchall()
        raw_ms.append((time.perf_counter() - began) * 1000)
    # This process answered the model queries: the model and the passage matrix are in its peak.
    query_rss_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    kept = kept_matrix(conn)  # after the peak is read: its rounds hold a matrix while the next is read
    conn.close()

    # 4: size.
    store_bytes, index_bytes = store.stat().st_size, db_bytes(index)
    messages = meta.get("messages", spec["messages"])
    # A million messages get about the index's passage budget (fewer when its sessions are small).
    rate = result["passages"] / max(result["seconds"], 1e-9)
    projected = min(PASSAGE_BUDGET, result["passages"] * 1_000_000 / max(messages, 1)) / max(rate, 1e-9)
    f = {
        "messages": messages,
        "sessions": meta.get("sessions", spec["sessions"]),
        "behind": args.behind,
        "stage_s": round(result["seconds"], 1),
        "stage_passages": result["passages"],
        "stage_passages_per_s": round(result["passages"] / max(result["seconds"], 1e-9), 1),
        "stage_projected_1m_s": round(projected, 1),
        "stage_target_s": TARGET_S,
        "stage_rss_mb": round(result["rss_self_kb"] / 1024, 1),
        "stage_worker_rss_mb": round(result["rss_children_kb"] / 1024, 1),
        "rss_target_mb": TARGET_RSS_MB,
        "words_before_p50_ms": round(percentile(before, 0.5), 2),
        "words_before_p95_ms": round(percentile(before, 0.95), 2),
        "words_during_p50_ms": round(percentile(during, 0.5), 2),
        "words_during_p95_ms": round(percentile(during, 0.95), 2),
        "words_during_n": len(during),
        "words_after_p50_ms": round(percentile(after, 0.5), 2),
        "words_during_ratio_p50": round(
            percentile(during, 0.5) / max((percentile(before, 0.5) + percentile(after, 0.5)) / 2, 1e-9), 2
        ),
        "model_first_s": round(first_model_s, 3),
        "model_p50_ms": round(percentile(model_ms, 0.5), 2),
        "model_p95_ms": round(percentile(model_ms, 0.95), 2),
        "words_p50_ms": round(percentile(words_ms, 0.5), 2),
        "words_p95_ms": round(percentile(words_ms, 0.95), 2),
        "raw_p50_ms": round(percentile(raw_ms, 0.5), 2),
        "query_process_rss_mb": query_rss_mb,
        "index_bytes": index_bytes,
        "store_bytes": store_bytes,
        "index_store_ratio": round(index_bytes / store_bytes, 3),
        **kept,
    }
    rows = [
        (
            "stage behind" if args.behind else "vector stage",
            f"{f['stage_s']:,.0f} s for {f['stage_passages']:,} passages "
            f"({f['stage_passages_per_s']:,.0f}/s)",
            f"1M messages ~{projected / 60:.1f} min",
            f"target {TARGET_S // 60} min",
        ),
        (
            "peak RSS",
            f"stage {f['stage_rss_mb']} MB, workers {f['stage_worker_rss_mb']} MB",
            f"queries {f['query_process_rss_mb']} MB",
            f"target {TARGET_RSS_MB} MB",
        ),
        (
            "word queries",
            f"before / after p50 {f['words_before_p50_ms']} / {f['words_after_p50_ms']} ms",
            f"during p50 {f['words_during_p50_ms']} ms p95 {f['words_during_p95_ms']}",
            f"{f['words_during_ratio_p50']}x; never blocked",
        ),
        (
            "model queries",
            f"p50 {f['model_p50_ms']} ms p95 {f['model_p95_ms']} ms",
            f"first {f['model_first_s']} s (load)",
            "target p95 60 ms",
        ),
        ("word / raw", f"p50 {f['words_p50_ms']} ms / {f['raw_p50_ms']} ms", "", ""),
        (
            "kept matrix",
            f"full load {f['matrix_full_ms']} ms ({f['matrix_rows']:,} rows)",
            f"grown by a batch {f['matrix_grown_ms']} ms",
            f"{f['matrix_full_ms'] / max(f['matrix_grown_ms'], 1e-9):.0f}x less",
        ),
        (
            "size",
            f"index {index_bytes / 1e6:,.0f} MB",
            f"store {store_bytes / 1e6:,.0f} MB",
            f"{f['index_store_ratio']}x (target 1.5x)",
        ),
    ]
    for row in rows:
        print("  ".join(f"{c:<34}" if i else f"{c:<14}" for i, c in enumerate(row)).rstrip())
    print(f"load average {load()}")
    print(json.dumps(f))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
