"""Benchmark trail's search index (issue 4): build, incremental sync, search latency and size, side by side.

Usage::

    python bench/bench_index.py [--store-dir bench/out/store] [--quick] [--queries 200]
                                [--out-dir bench/out/index]

Builds the synthetic store with ``bench/synthetic_store.py`` when it is missing (as ``bench_reader.py``
does), copies its ``state.db`` into ``OUT_DIR/work`` (the store itself is never written to), then, in one
run:

1. **Build**: ``sync_index`` into a fresh index of that copy, in a subprocess (so its peak RSS can be
   read), against a raw floor on the same rows: a plain ``(id, text)`` table of every message's
   ``content`` and ``tool_calls`` JSON, then an external-content FTS5 table with the index's tokenizer
   and ``'rebuild'``. Each side is built ``--build-rounds`` times (2; 1 with ``--quick``) in mirrored
   order (trail, raw, raw, trail): on a shared machine one build alone measured 1.29x to 1.49x.
2. **Sync, nothing changed**: the median of 20 ``sync_index`` calls in this process, and a whole
   ``trail search zzz --index … --db …`` process (start-up included). Target: at most 30 ms.
3. **Sync after 1,000 new messages**, appended to 50 sessions of the copy with Hermes' own
   ``SessionDB.append_message``.
4. **Search**: ``--queries`` deterministic queries of several kinds, their terms drawn from the store's
   own vocabulary (``fts5vocab``), each timed with ``search()`` on an open connection, with a raw FTS5
   BM25 top-20 on the same index (same MATCH expression) and with Hermes' own
   ``SessionDB.search_messages`` on a copy of the store whose ``messages_fts`` was filled (the generator
   leaves it empty); that copy is cached in ``OUT_DIR/hermes_fts``. The engines are interleaved query by
   query, each on a connection of its own; then trail's queries are timed again alone, one after
   another (three rounds, each query's median), as a process that only searches asks them.
5. **Size** of the index against the store.

Prints an aligned table, then one JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_reader import FULL, QUICK, ensure_store, trail_command
from hermes_trail.index import query as trail_query
from hermes_trail.index import schema as trail_schema
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIRS = {False: BENCH_DIR / "out" / "index", True: BENCH_DIR / "out" / "index-quick"}
SEED = 7
NOCHANGE_RUNS = 20
NOCHANGE_TARGET_MS = 30.0
ONE_MESSAGE_RUNS = 5
PROCESS_RUNS = 5
APPEND_MESSAGES = 1_000
APPEND_SESSIONS = 50
VOCAB_SAMPLE_DOCS = 20_000
WARMUP_QUERIES = 10
ALONE_ROUNDS = 3
TOKENIZER = "porter unicode61 remove_diacritics 2"  # docs_fts's, see hermes_trail.index.schema
RAW_SQL = "SELECT rowid, bm25(docs_fts) FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rank LIMIT 20"
# Words no synthetic store holds (its vocabulary is synthetic_store.WORDS and their fragments).
ABSENT = (
    "kubernetes",
    "terraform",
    "segfault",
    "haskell",
    "postgres",
    "webpack",
    "nginx",
    "oauth",
    "deadlock",
    "mutex",
    "zxqvbn",
    "florp",
    "grpc",
    "unicode",
    "quux",
)

# The trail build, run as a subprocess so its peak memory is its own (and its workers').
BUILD_CHILD = """
import json, resource, sys
from pathlib import Path
from hermes_trail.index.sync import sync_index
r = sync_index(Path(sys.argv[1]), dbs=[sys.argv[2]])
print(json.dumps({"seconds": r.seconds, "messages": r.messages_read, "docs": r.docs,
                  "sessions": r.sessions_indexed, "strays": len(r.strays),
                  "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "rss_children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""
# The raw floor: the same message rows into a plain table, and one FTS5 index over it built in bulk.
RAW_CHILD = """
import json, resource, sqlite3, sys, time
out, store_uri, tokenizer = sys.argv[1:4]
began = time.perf_counter()
conn = sqlite3.connect(out, uri=True, isolation_level=None)
for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "temp_store = MEMORY", "cache_size = -65536"):
    conn.execute("PRAGMA " + pragma)
conn.execute("ATTACH DATABASE ? AS store", (store_uri,))
conn.execute("BEGIN")
conn.execute("CREATE TABLE main.t (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
rows = conn.execute("INSERT INTO main.t (id, text) SELECT id, coalesce(content, '') || char(10) || "
                    "coalesce(tool_calls, '') FROM store.messages").rowcount
filled = time.perf_counter()
conn.execute("CREATE VIRTUAL TABLE main.t_fts USING fts5(text, content='t', content_rowid='id', "
             f"tokenize='{tokenizer}')")
conn.execute("INSERT INTO main.t_fts (t_fts) VALUES ('rebuild')")
conn.execute("COMMIT")
conn.execute("DETACH DATABASE store")
conn.close()
done = time.perf_counter()
print(json.dumps({"seconds": done - began, "fill_seconds": filled - began, "fts_seconds": done - filled,
                  "rows": rows, "rss_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""
RSS_UNIT = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux


# ------------------------------------------------------------------------------------------ utilities


def remove_db(path: Path) -> None:
    """Delete a SQLite file and its sidecars."""
    for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def db_bytes(path: Path) -> int:
    """A database's size on disk, its WAL included."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    at = (len(xs) - 1) * q
    lo = int(at)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (at - lo)


def ratio(a: float, b: float) -> float:
    """``a / b``, NaN when ``b`` is zero or either is NaN."""
    return a / b if b and b == b and a == a else float("nan")


def r(x: float | None, digits: int = 4) -> float | None:
    """Rounded for the JSON line; None for NaN or None."""
    return None if x is None or x != x else round(x, digits)


def mb(n: float | None) -> str:
    """Bytes as megabytes."""
    return "-" if n is None else f"{n / 1e6:,.1f} MB"


def _pss(pid: int) -> int:
    """A process's proportional set size (shared pages split between their users), else its RSS."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        return next(int(line.split()[1]) * 1024 for line in text.splitlines() if line.startswith("Pss:"))
    except (OSError, StopIteration, ValueError):
        try:
            return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return 0


def tree_memory(root: int) -> int:
    """The summed PSS of ``root`` and all its descendants (Linux ``/proc``; 0 elsewhere)."""
    children: dict[int, list[int]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return 0
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss(pid)
        todo.extend(children.get(pid, ()))
    return total


def run_child(cmd: list[str]) -> tuple[dict[str, Any], float, int]:
    """Run a child that prints one JSON line; return it, the wall time and the sampled peak tree PSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        began = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, tree_memory(proc.pid))
            time.sleep(0.1)
        wall = time.perf_counter() - began
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            tail = err.read().decode(errors="replace")[-1500:]
            raise RuntimeError(f"`{' '.join(cmd[:2])} …` exited {proc.returncode}: {tail}")
        return json.loads(out.read().decode().strip().splitlines()[-1]), wall, peak


def check_format(index: Path, where: str) -> None:
    """Stop when the index is not of the format this process's code writes: the code was edited while the
    benchmark ran (a subprocess then rebuilds the index), and the figures would mix two versions."""
    conn = sqlite3.connect(index)
    try:
        found = trail_schema.format_of(conn)
    finally:
        conn.close()
    if found != trail_schema.FORMAT:
        raise RuntimeError(
            f"{where}: the index is {found}, this code writes {trail_schema.FORMAT}; "
            "was hermes_trail edited during the run? Run again."
        )


def load_average() -> float | None:
    """The 1-minute load average, when the platform has one."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def copy_db(src: Path, dest: Path) -> None:
    """A fresh copy of a checkpointed store (no sidecars) at ``dest``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_db(dest)
    shutil.copyfile(src, dest)


# ------------------------------------------------------------------------------------- 1. full build


@dataclass
class Build:
    trail_s: float = 0.0
    trail_wall_s: float = 0.0
    messages: int = 0
    docs: int = 0
    sessions: int = 0
    rss_writer: int = 0
    rss_worker: int = 0
    tree_pss: int = 0
    raw_s: float = 0.0
    raw_fill_s: float = 0.0
    raw_fts_s: float = 0.0
    raw_rows: int = 0
    trail_runs: list[float] = field(default_factory=list)
    raw_runs: list[float] = field(default_factory=list)
    raw_rss: int = 0

    @property
    def trail_rate(self) -> float:
        return ratio(self.messages, self.trail_s)

    @property
    def raw_rate(self) -> float:
        return ratio(self.raw_rows, self.raw_s)


def bench_build(index: Path, raw_db: Path, work_db: Path, rounds: int = 2) -> Build:
    """Time trail's full build and the raw floor on the same rows, ``rounds`` times each in mirrored order
    (trail, raw, raw, trail, ...): a load that rises or falls through the run weighs on both sides alike,
    and one disturbed build does not decide the ratio. The figures are the means; every run is kept."""
    b = Build()
    order = [side for i in range(rounds) for side in (("trail", "raw") if i % 2 == 0 else ("raw", "trail"))]
    for side in order:
        if side == "trail":
            _build_trail(b, index, work_db)
        else:
            _build_raw(b, raw_db, work_db)
    b.trail_s, b.raw_s = statistics.fmean(b.trail_runs), statistics.fmean(b.raw_runs)
    return b


def _build_trail(b: Build, index: Path, work_db: Path) -> None:
    remove_db(index)
    got, wall, pss = run_child([sys.executable, "-c", BUILD_CHILD, str(index), str(work_db)])
    if got["strays"]:
        print(f"warning: the build skipped {got['strays']} stray(s)", file=sys.stderr)
    check_format(index, "after the build")
    b.trail_runs.append(got["seconds"])
    b.trail_wall_s = max(b.trail_wall_s, wall)
    b.tree_pss = max(b.tree_pss, pss)
    b.messages, b.docs, b.sessions = got["messages"], got["docs"], got["sessions"]
    b.rss_writer = max(b.rss_writer, got["rss_self"] * RSS_UNIT)
    b.rss_worker = max(b.rss_worker, got["rss_children"] * RSS_UNIT)


def _build_raw(b: Build, raw_db: Path, work_db: Path) -> None:
    remove_db(raw_db)
    uri = work_db.resolve().as_uri() + "?immutable=1"
    got, _, _ = run_child([sys.executable, "-c", RAW_CHILD, str(raw_db), uri, TOKENIZER])
    b.raw_runs.append(got["seconds"])
    b.raw_fill_s, b.raw_fts_s = got["fill_seconds"], got["fts_seconds"]
    b.raw_rows, b.raw_rss = got["rows"], max(b.raw_rss, got["rss_self"] * RSS_UNIT)


# ----------------------------------------------------------------------------- 2. sync, nothing new


@dataclass
class NoChange:
    runs_ms: list[float] = field(default_factory=list)
    process_s: list[float] = field(default_factory=list)
    python_s: list[float] = field(default_factory=list)
    live_ms: list[float] = field(default_factory=list)  # nothing changed, Hermes holding the store open
    one_ms: list[float] = field(default_factory=list)  # one new message each, Hermes holding it open
    one_sessions: int = 0  # sessions those syncs read again, in all

    @property
    def median_ms(self) -> float:
        return statistics.median(self.runs_ms)


def bench_nochange(index: Path, work_db: Path) -> NoChange:
    """In-process syncs of an unchanged store, then whole ``trail search`` processes."""
    nc = NoChange()
    sync_index(index, dbs=[work_db])  # warm-up: imports, page cache
    nc.runs_ms = unchanged_syncs(index, work_db, "a sync of an unchanged store")
    cmd = [*trail_command(), "search", "zzz", "--index", str(index), "--db", str(work_db)]
    floor = [sys.executable, "-c", "import sqlite3"]
    for _ in range(PROCESS_RUNS):  # exits 1: nothing found
        for times, c in ((nc.process_s, cmd), (nc.python_s, floor)):
            began = time.perf_counter()
            subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times.append(time.perf_counter() - began)
    check_format(index, "after `trail search`")
    if (report := sync_index(index, dbs=[work_db])).changed_stores or report.rebuilt:
        raise RuntimeError(f"`trail search` left the index behind the store: {report}")
    bench_live(index, work_db, nc)
    return nc


def unchanged_syncs(index: Path, work_db: Path, what: str) -> list[float]:
    """:data:`NOCHANGE_RUNS` in-process syncs of a store that did not change, in ms; each must do nothing."""
    runs = []
    for _ in range(NOCHANGE_RUNS):
        began = time.perf_counter()
        report = sync_index(index, dbs=[work_db])
        runs.append((time.perf_counter() - began) * 1000)
        if report.changed_stores or report.rebuilt:
            raise RuntimeError(f"{what} did work: {report}")
    return runs


def bench_live(index: Path, work_db: Path, nc: NoChange) -> None:
    """Syncs while Hermes holds the store open, as a running gateway does (its WAL and ``-shm`` beside it):
    with nothing changed, then after each of :data:`ONE_MESSAGE_RUNS` new prompts (``append_message``),
    the common case of a sync before a query."""
    from hermes_state import SessionDB

    conn = sqlite3.connect(work_db)
    sessions = [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY id")]
    conn.close()
    rng = random.Random(SEED)
    live = SessionDB(db_path=work_db)
    try:
        sync_index(index, dbs=[work_db])  # what opening it as Hermes does changed, if anything
        nc.live_ms = unchanged_syncs(index, work_db, "a sync of an unchanged store Hermes holds open")
        for _ in range(ONE_MESSAGE_RUNS):
            live.append_message(rng.choice(sessions), "user", "Can you check the deploy again?")
            began = time.perf_counter()
            report = sync_index(index, dbs=[work_db])
            nc.one_ms.append((time.perf_counter() - began) * 1000)
            nc.one_sessions += report.sessions_indexed
    finally:
        live.close()


# ------------------------------------------------------------------------------ 3. sync after appends


@dataclass
class Append:
    messages: int = 0
    sessions: int = 0
    sync_s: float = 0.0
    messages_read: int = 0
    sessions_indexed: int = 0
    docs: int = 0


def append_messages(work_db: Path, words: list[str], rng: random.Random) -> tuple[int, int]:
    """Append :data:`APPEND_MESSAGES` user/assistant messages to :data:`APPEND_SESSIONS` sessions, as
    Hermes writes them (``SessionDB.append_message``: counters updated, FTS triggers fired)."""
    from hermes_state import SessionDB

    conn = sqlite3.connect(work_db)
    ids = [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY id")]
    chosen = sorted(rng.sample(ids, min(APPEND_SESSIONS, len(ids))))
    marks = ",".join("?" * len(chosen))
    sql = f"SELECT session_id, max(timestamp) FROM messages WHERE session_id IN ({marks}) GROUP BY session_id"
    last = dict(conn.execute(sql, chosen).fetchall())
    conn.close()
    db = SessionDB(db_path=work_db)
    written = 0
    try:
        for i, sid in enumerate(chosen):
            n = APPEND_MESSAGES // len(chosen) + (i < APPEND_MESSAGES % len(chosen))
            ts = float(last.get(sid) or 0.0)
            for k in range(n):
                ts += rng.uniform(1.0, 30.0)
                text = " ".join(rng.choices(words, k=rng.randint(8, 120)))
                db.append_message(sid, "user" if k % 2 == 0 else "assistant", content=text, timestamp=ts)
                written += 1
    finally:
        db.close()
    return written, len(chosen)


def bench_append(index: Path, work_db: Path, words: list[str], rng: random.Random) -> Append:
    """Sync after appending messages to the (copied) store."""
    a = Append()
    a.messages, a.sessions = append_messages(work_db, words, rng)
    began = time.perf_counter()
    report = sync_index(index, dbs=[work_db])
    a.sync_s = time.perf_counter() - began
    if report.rebuilt:
        raise RuntimeError(f"the sync after appending rebuilt the index: {report.rebuilt}")
    a.messages_read, a.sessions_indexed, a.docs = report.messages_read, report.sessions_indexed, report.docs
    return a


# ------------------------------------------------------------------------------------- 4. the queries


@dataclass
class Vocabulary:
    common: list[tuple[str, int]]
    mid: list[tuple[str, int]]
    rare: list[tuple[str, int]]
    texts: list[str]  # sampled doc texts, for phrases
    errors: list[str]  # sampled failing commands' texts
    paths: list[str]
    commands: list[str]
    docs: int  # docs in the index
    sample: int  # docs sampled for frequencies


def vocabulary(index: Path) -> Vocabulary:
    """Surface words (no stemming) with their document frequency in a sample of the index's docs, via an
    ``fts5vocab`` table; paths, commands and texts to draw phrases and error lines from."""
    conn = sqlite3.connect(index)
    try:
        docs, top = conn.execute("SELECT count(*), coalesce(max(id), 0) FROM docs").fetchone()
        step = max(1, top // VOCAB_SAMPLE_DOCS)
        conn.execute(
            "CREATE VIRTUAL TABLE temp.surface USING fts5(text, tokenize='unicode61 remove_diacritics 2')"
        )
        conn.execute("INSERT INTO temp.surface (text) SELECT text FROM docs WHERE id % ? = 0", (step,))
        sample = conn.execute("SELECT count(*) FROM temp.surface").fetchone()[0]
        conn.execute("CREATE VIRTUAL TABLE temp.surface_vocab USING fts5vocab(temp, surface, row)")
        rows = conn.execute("SELECT term, doc FROM temp.surface_vocab ORDER BY doc DESC, term").fetchall()
        texts = [t for (t,) in conn.execute("SELECT text FROM temp.surface ORDER BY rowid LIMIT 2000")]
        failed = "SELECT text FROM docs WHERE kind = 'command' AND exit_code != 0 AND id % ? = 0 LIMIT 500"
        errors = [t for (t,) in conn.execute(failed, (step,))]
        paths = [
            p for (p,) in conn.execute("SELECT DISTINCT path FROM docs WHERE path IS NOT NULL LIMIT 200")
        ]
        commands = [
            c
            for (c,) in conn.execute("SELECT DISTINCT command FROM docs WHERE command IS NOT NULL LIMIT 200")
        ]
    finally:
        conn.close()
    words = [(t, d) for t, d in rows if t.isalpha() and len(t) >= 2]
    n_common = max(3, len(words) // 10)
    n_rare = max(3, len(words) // 4)
    return Vocabulary(
        words[:n_common],
        words[n_common:-n_rare],
        words[-n_rare:],
        texts,
        errors,
        sorted(paths),
        sorted(commands),
        docs,
        sample,
    )


def _tokens(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text)


def _run_of(rng: random.Random, text: str, lo: int, hi: int) -> str:
    words = _tokens(text)
    n = min(len(words), rng.randint(lo, hi))
    start = rng.randrange(len(words) - n + 1)
    return " ".join(words[start : start + n])


def make_queries(v: Vocabulary, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """``n`` (kind, query) pairs, the kinds taken in turn."""
    pick = lambda pool: rng.choice(pool)[0]  # noqa: E731
    words = v.common + v.mid + v.rare

    def two() -> str:
        a, b = rng.sample(words, 2)
        return f"{a[0]} {b[0]}"

    def phrase() -> str:
        return '"' + _run_of(rng, rng.choice(v.texts), 2, 3) + '"'

    def prefix() -> str:
        word = pick([w for w in v.common + v.mid if len(w[0]) >= 5])
        return word[: rng.randint(3, 4)] + "*"

    def path() -> str:
        p = rng.choice(v.paths) if v.paths else "src/app/main.py"
        return p if rng.random() < 0.6 else f"{p} {pick(v.mid or v.common)}"

    def command() -> str:
        parts = (rng.choice(v.commands) if v.commands else "git status").split()
        k = min(len(parts), 2)
        start = rng.randrange(len(parts) - k + 1)
        return " ".join(parts[start : start + k])

    def error() -> str:
        if not v.errors or rng.random() < 0.3:
            return f'"command failed" {(rng.choice(v.commands) if v.commands else "pytest").split()[0]}'
        lines = [ln for ln in rng.choice(v.errors).splitlines()[1:] if len(_tokens(ln)) >= 5]
        return _run_of(rng, rng.choice(lines), 5, 8) if lines else '"command failed"'

    def absent() -> str:
        word = rng.choice(ABSENT)
        return word if rng.random() < 0.5 else f"{word} {pick(v.common)}"

    kinds: list[tuple[str, Callable[[], str]]] = [
        ("common", lambda: pick(v.common)),
        ("rare", lambda: pick(v.rare)),
        ("two-word", two),
        ("phrase", phrase),
        ("or", lambda: f"{pick(v.mid or v.common)} OR {pick(v.rare)}"),
        ("not", lambda: f"{pick(v.common + v.mid)} NOT {pick(v.common)}"),
        ("prefix", prefix),
        ("path", path),
        ("command", command),
        ("error", error),
        ("absent", absent),
    ]
    return [(kinds[i % len(kinds)][0], kinds[i % len(kinds)][1]()) for i in range(n)]


# ------------------------------------------------------------------------------ 4. Hermes' own search


@dataclass
class HermesFts:
    db: Path
    fill_s: float | None = None  # filling messages_fts (None: not timed in this run, or cached)
    optimize_s: float | None = None
    cached: bool = False
    open_s: float = 0.0


def hermes_copy(store_db: Path, out_dir: Path) -> HermesFts:
    """A copy of the store with Hermes' ``messages_fts`` filled as Hermes fills it, cached between runs.

    ``messages_fts`` is a contentful FTS5 table (not external-content), so ``'rebuild'`` would rebuild it
    from its own, empty, content; Hermes fills it from ``messages`` with
    ``SessionDB._rebuild_fts_indexes``, which is used here. The trigram table (``messages_fts_trigram``) is
    left empty: ``search_messages`` reads it only for queries with three or more CJK characters.
    """
    dest = out_dir / "hermes_fts" / "hermes_home" / "state.db"
    marker = dest.parent.parent / "marker.json"
    st = store_db.stat()
    source = {"source": str(store_db.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    if marker.exists() and dest.exists():
        saved = json.loads(marker.read_text())
        if {k: saved.get(k) for k in source} == source:
            return HermesFts(dest, saved.get("fill_seconds"), saved.get("optimize_seconds"), cached=True)
    from hermes_state import SessionDB

    print(f"filling Hermes' messages_fts in a copy of the store ({dest}), once ...", flush=True)
    marker.unlink(missing_ok=True)
    copy_db(store_db, dest)
    conn = sqlite3.connect(dest, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -262144")
    began = time.perf_counter()
    conn.execute("BEGIN")
    SessionDB._rebuild_fts_indexes(conn.cursor(), include_trigram=False)
    conn.execute("COMMIT")
    filled = time.perf_counter()
    # Hermes merges its FTS segments every 1,000 writes, so a long-lived store is this merged, or nearly.
    conn.execute("INSERT INTO messages_fts (messages_fts) VALUES ('optimize')")
    optimized = time.perf_counter()
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    fill_s, optimize_s = filled - began, optimized - filled
    marker.write_text(json.dumps({**source, "fill_seconds": fill_s, "optimize_seconds": optimize_s}) + "\n")
    return HermesFts(dest, fill_s, optimize_s)


# ---------------------------------------------------------------------------------- 4. search timing


@dataclass
class Timed:
    kind: str
    text: str
    trail_ms: float = float("nan")
    raw_ms: float = float("nan")
    hermes_ms: float = float("nan")
    day_ms: float = float("nan")  # trail kept to the store's last day (a time named, --since)
    alone_ms: float = float("nan")  # trail's queries one after another, no other engine's between (median)
    trail_hits: int = 0  # matching docs trail ranked (SearchResult.matches)
    raw_hits: int = 0  # rows of the raw top 20
    hermes_hits: int = 0  # rows search_messages returned (at most 20)


def read_through(path: Path) -> None:
    """Read a file once, so its pages are in the page cache for every side alike."""
    with path.open("rb") as handle:
        while handle.read(1 << 24):
            pass


def bench_search(index: Path, hermes: HermesFts, queries: list[tuple[str, str]]) -> list[Timed]:
    """Each query once per engine, the engines in turn, after warming the page cache and the code paths."""
    from hermes_state import SessionDB

    read_through(index)
    read_through(hermes.db)
    began = time.perf_counter()
    hdb = SessionDB(db_path=hermes.db)
    hermes.open_s = time.perf_counter() - began
    if not getattr(hdb, "_fts_enabled", True):
        print("warning: Hermes' FTS is disabled in this Python; its search finds nothing", file=sys.stderr)
    # Each engine on a connection of its own, as each is used: trail's opened as trail opens its index (its
    # page cache), the raw floor's alike. One connection for both let the floor's reads of a common word
    # (hundreds of milliseconds of bm25) evict trail's pages from a 2 MB cache no trail surface uses.
    conn = trail_schema.connect(index)
    raw = trail_schema.connect(index)
    filters = SearchFilters()
    # The store's last day, as "yesterday" or --since 1d keeps a search to it where the history ends now.
    newest = conn.execute("SELECT max(last_activity) FROM sessions").fetchone()[0] or time.time()
    last_day = SearchFilters(since=newest - 86400)
    out = [Timed(kind, text) for kind, text in queries]
    try:
        for warm in out[:WARMUP_QUERIES]:
            search(conn, warm.text, filters, limit=20)
            hdb.search_messages(warm.text)
            warm_expression = trail_query.to_fts(trail_query.parse(warm.text))
            if warm_expression is not None:
                raw.execute(RAW_SQL, (warm_expression,)).fetchall()
        for t in out:
            began = time.perf_counter()
            res = search(conn, t.text, filters, limit=20)
            t.trail_ms = (time.perf_counter() - began) * 1000
            t.trail_hits = res.matches
            began = time.perf_counter()
            search(conn, t.text, last_day, limit=20)
            t.day_ms = (time.perf_counter() - began) * 1000
            expression = trail_query.to_fts(trail_query.parse(t.text))
            if expression is not None:
                began = time.perf_counter()
                rows = raw.execute(RAW_SQL, (expression,)).fetchall()
                t.raw_ms = (time.perf_counter() - began) * 1000
                t.raw_hits = len(rows)
            began = time.perf_counter()
            found = hdb.search_messages(t.text)
            t.hermes_ms = (time.perf_counter() - began) * 1000
            t.hermes_hits = len(found)
        # Then trail's queries alone, one after another, as a process that searches asks them (the MCP
        # server, the web page, the plugin): above, each follows the other engines' reads of the same words
        # (hundreds of megabytes for a common word), which leave the CPU's caches cold for the next query
        # (measured: 3.4 ms p50 after trail's own last-day query, 5.1-5.5 after Hermes' or the raw floor's).
        alone: list[list[float]] = [[] for _ in out]
        for _ in range(ALONE_ROUNDS):
            for i, t in enumerate(out):
                began = time.perf_counter()
                search(conn, t.text, filters, limit=20)
                alone[i].append((time.perf_counter() - began) * 1000)
        for t, xs in zip(out, alone, strict=True):
            t.alone_ms = statistics.median(xs)
    finally:
        conn.close()
        raw.close()
        hdb.close()
    return out


# ----------------------------------------------------------------------------- 4b. a door's questions


@dataclass
class Door:
    kept_ms: list[float] = field(default_factory=list)  # each query's median, its connection kept
    new_ms: list[float] = field(default_factory=list)  # the same, a new connection a question


def bench_door(index: Path, work_db: Path, queries: list[tuple[str, str]]) -> Door:
    """The queries asked through the front door (``Trail.search_result``, as the MCP server, the web viewer
    and the plugin ask), question after question: on the connection the door keeps, and on a new one a
    question (what every question cost before it kept one), alternating query by query, three rounds."""
    from hermes_trail.service import Trail

    door = Trail(index=index, dbs=(work_db,), sync_interval=1e9, parallel=False, encode_behind=False)
    door.search_result("warm")
    kept: list[list[float]] = [[] for _ in queries]
    new: list[list[float]] = [[] for _ in queries]
    for round_ in range(3):
        for i, (_, text) in enumerate(queries):
            for mode in ("kept", "new") if (i + round_) % 2 == 0 else ("new", "kept"):
                if mode == "new":  # no connection left from the question before
                    for _, _, conn in door._readers:
                        conn.close()
                    door._readers.clear()
                began = time.perf_counter()
                door.search_result(text)
                (kept if mode == "kept" else new)[i].append((time.perf_counter() - began) * 1000)
    return Door([statistics.median(x) for x in kept], [statistics.median(x) for x in new])


# ------------------------------------------------------------------------------------------- 5. size


def table_sizes(index: Path) -> dict[str, int]:
    """Bytes per part of the index (``dbstat``): docs, each FTS index with its shadow tables, the rest."""
    groups = {"docs": "docs", "docs_fts": "docs_fts", "docs_tri": "docs_tri", "docs_cjk": "docs_cjk"}
    conn = sqlite3.connect(index)
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.OperationalError:
        return {}
    finally:
        conn.close()
    sizes = dict.fromkeys([*groups, "other"], 0)
    for name, size in rows:
        group = next((g for g in ("docs_fts", "docs_tri", "docs_cjk") if name.startswith(g)), None)
        if group is None:
            group = "docs" if name in ("docs", "docs_sess", "docs_path", "docs_command") else "other"
        sizes[group] += size
    return sizes


# ------------------------------------------------------------------------------------------ reporting

ENGINES = ("trail", "raw", "hermes")
LABELS = {"trail": "trail search()", "raw": "raw FTS5 bm25 top 20", "hermes": "Hermes search_messages"}


def ms(x: float | None) -> str:
    """Milliseconds for the table."""
    return "-" if x is None or x != x else f"{x:,.1f}"


def latencies(timed: list[Timed], engine: str) -> list[float]:
    """An engine's timings, without the queries it did not run (raw: no MATCH expression)."""
    return [x for t in timed if (x := getattr(t, f"{engine}_ms")) == x]


def zero_hits(timed: list[Timed], engine: str) -> int:
    """How many queries an engine ran and found nothing for."""
    return sum(
        getattr(t, f"{engine}_hits") == 0
        for t in timed
        if getattr(t, f"{engine}_ms") == getattr(t, f"{engine}_ms")
    )


def search_figures(timed: list[Timed]) -> dict[str, Any]:
    """Percentiles and ratios of the three engines, overall and by kind of query."""
    f: dict[str, Any] = {"queries": len(timed), "raw_queries": len(latencies(timed, "raw"))}
    for engine in ENGINES:
        xs = latencies(timed, engine)
        f[f"search_{engine}_p50_ms"] = r(percentile(xs, 0.5), 3)
        f[f"search_{engine}_p95_ms"] = r(percentile(xs, 0.95), 3)
        f[f"zero_hits_{engine}"] = zero_hits(timed, engine)
    paired = [t.trail_ms for t in timed if t.raw_ms == t.raw_ms]  # trail on the queries raw ran too
    for q in (50, 95):
        trail, raw = percentile(paired, q / 100), f[f"search_raw_p{q}_ms"] or float("nan")
        f[f"search_trail_raw_ratio_p{q}"] = r(ratio(trail, raw), 3)
        f[f"search_trail_hermes_ratio_p{q}"] = r(
            ratio(f[f"search_trail_p{q}_ms"] or float("nan"), f[f"search_hermes_p{q}_ms"] or float("nan")), 3
        )
    # The target (p50 <= 5 ms, p95 <= 50 ms) is for the queries the words answer: the absent
    # kind's word is in no doc, so it runs the meaning pass, whose own target is its p95 (60 ms).
    words = [t.trail_ms for t in timed if t.kind != "absent" and t.trail_ms == t.trail_ms]
    f["search_trail_words_p50_ms"] = r(percentile(words, 0.5), 3)
    f["search_trail_words_p95_ms"] = r(percentile(words, 0.95), 3)
    alone = [t.alone_ms for t in timed if t.kind != "absent" and t.alone_ms == t.alone_ms]
    f["search_trail_words_alone_p50_ms"] = r(percentile(alone, 0.5), 3)
    f["search_trail_words_alone_p95_ms"] = r(percentile(alone, 0.95), 3)
    day = [t.day_ms for t in timed if t.day_ms == t.day_ms]
    f["search_trail_day_p50_ms"] = r(percentile(day, 0.5), 3)
    f["search_trail_day_p95_ms"] = r(percentile(day, 0.95), 3)
    # Hermes' p50 is lowered by the queries it answers with nothing (an FTS5 syntax error is an empty list).
    found = [t for t in timed if t.trail_hits and t.raw_hits and t.hermes_hits]
    f["all_found_queries"] = len(found)
    for engine in ENGINES:
        f[f"all_found_{engine}_p50_ms"] = r(percentile(latencies(found, engine), 0.5), 3)
    by_kind: dict[str, Any] = {}
    for kind in dict.fromkeys(t.kind for t in timed):
        ts = [t for t in timed if t.kind == kind]
        row: dict[str, Any] = {"n": len(ts), "example": ts[0].text}
        for engine in ENGINES:
            row[f"{engine}_p50_ms"] = r(percentile(latencies(ts, engine), 0.5), 3)
            row[f"{engine}_zero"] = zero_hits(ts, engine)
        by_kind[kind] = row
    f["search_by_kind"] = by_kind
    return f


def report(
    meta: dict[str, Any],
    paths: dict[str, Path],
    b: Build,
    nc: NoChange,
    a: Append,
    v: Vocabulary,
    hermes: HermesFts,
    timed: list[Timed],
    door: Door,
    quick: bool,
) -> None:
    """The aligned table, then one JSON line with every figure."""
    store_size, index_size = paths["store"].stat().st_size, db_bytes(paths["index"])
    nc_p95 = percentile(nc.runs_ms, 0.95)
    ok = nc.median_ms <= NOCHANGE_TARGET_MS
    scale = v.docs / max(v.sample, 1)
    f: dict[str, Any] = {
        "build_trail_s": r(b.trail_s, 3),
        "build_trail_wall_s": r(b.trail_wall_s, 3),
        "build_trail_msgs_per_s": r(b.trail_rate, 1),
        "build_raw_s": r(b.raw_s, 3),
        "build_raw_fill_s": r(b.raw_fill_s, 3),
        "build_raw_fts_s": r(b.raw_fts_s, 3),
        "build_raw_rows_per_s": r(b.raw_rate, 1),
        "build_ratio": r(ratio(b.trail_s, b.raw_s), 3),
        "build_trail_runs_s": [r(x, 3) for x in b.trail_runs],
        "build_raw_runs_s": [r(x, 3) for x in b.raw_runs],
        "build_messages": b.messages,
        "build_docs": b.docs,
        "build_sessions": b.sessions,
        "build_raw_rows": b.raw_rows,
        "build_rss_writer_bytes": b.rss_writer,
        "build_rss_worker_bytes": b.rss_worker,
        "build_tree_pss_bytes": b.tree_pss,
        "build_raw_rss_bytes": b.raw_rss,
        "nochange_sync_median_ms": r(nc.median_ms, 3),
        "nochange_sync_p95_ms": r(nc_p95, 3),
        "nochange_sync_runs": NOCHANGE_RUNS,
        "nochange_target_ms": NOCHANGE_TARGET_MS,
        "nochange_ok": ok,
        "live_nochange_sync_median_ms": r(statistics.median(nc.live_ms), 3),
        "live_one_message_sync_median_ms": r(statistics.median(nc.one_ms), 3),
        "live_one_message_sessions_read": nc.one_sessions,
        "live_one_message_runs": ONE_MESSAGE_RUNS,
        "search_process_s": r(statistics.median(nc.process_s), 4),
        "python_startup_s": r(statistics.median(nc.python_s), 4),
        "process_runs": PROCESS_RUNS,
        "append_messages": a.messages,
        "append_sessions": a.sessions,
        "append_sync_s": r(a.sync_s, 4),
        "append_messages_read": a.messages_read,
        "append_sessions_indexed": a.sessions_indexed,
        "append_docs": a.docs,
        **search_figures(timed),
        "door_kept_p50_ms": r(percentile(door.kept_ms, 0.5), 3),
        "door_kept_p95_ms": r(percentile(door.kept_ms, 0.95), 3),
        "door_new_p50_ms": r(percentile(door.new_ms, 0.5), 3),
        "door_new_p95_ms": r(percentile(door.new_ms, 0.95), 3),
        "vocab_words": len(v.common) + len(v.mid) + len(v.rare),
        "vocab_common_min_docs": round(v.common[-1][1] * scale) if v.common else None,
        "vocab_rare_docs": [round(v.rare[-1][1] * scale), round(v.rare[0][1] * scale)] if v.rare else None,
        "hermes_fts_fill_s": r(hermes.fill_s, 2),
        "hermes_fts_optimize_s": r(hermes.optimize_s, 2),
        "hermes_fts_cached": hermes.cached,
        "hermes_open_s": r(hermes.open_s, 3),
        "index_bytes": index_size,
        "store_bytes": store_size,
        "index_store_ratio": r(ratio(index_size, store_size), 4),
        "index_parts_bytes": table_sizes(paths["index"]),
        "raw_db_bytes": db_bytes(paths["raw"]),
        "hermes_fts_bytes": db_bytes(hermes.db) - store_size,
        "sessions": meta["sessions"],
        "messages": meta["messages"],
        "docs": v.docs,
        "quick": quick,
        "cpus": os.cpu_count(),
        "load_start": meta.get("load_start"),
        "load_end": load_average(),
    }
    out = [
        f"store     {paths['store']}  {mb(store_size)}, {meta['sessions']:,} sessions, "
        f"{meta['messages']:,} messages",
        f"index     {paths['index']} (of a copy of the store)",
        f"machine   {os.cpu_count()} CPUs, 1-min load average {meta.get('load_start')} at start, "
        f"{f['load_end']} at end (other processes share the CPUs)",
        "",
        f"1. full build          {'trail':>12}{'raw floor':>12}{'ratio':>9}",
        f"   seconds             {b.trail_s:>12.2f}{b.raw_s:>12.2f}{ratio(b.trail_s, b.raw_s):>8.2f}x",
        f"   messages/s          {b.trail_rate:>12,.0f}{b.raw_rate:>12,.0f}",
        f"   rows written        {b.docs:>12,}{b.raw_rows:>12,}   (trail: docs; raw: one per message)",
        f"   peak RSS            {mb(b.rss_writer):>12}{mb(b.raw_rss):>12}   (trail: its writer process)",
        f"   trail: largest worker {mb(b.rss_worker)}, whole process tree {mb(b.tree_pss)} (sampled PSS), "
        f"process wall {b.trail_wall_s:.2f} s",
        f"   raw: table fill {b.raw_fill_s:.2f} s + FTS5 rebuild {b.raw_fts_s:.2f} s (1 FTS index; trail: 3)",
        f"   each run (mirrored order; the means above): trail {', '.join(f'{x:.1f}' for x in b.trail_runs)} "
        f"s, raw {', '.join(f'{x:.1f}' for x in b.raw_runs)} s",
        f"2. sync, no change     median {nc.median_ms:.2f} ms, p95 {nc_p95:.2f} ms over {NOCHANGE_RUNS} runs "
        f"(target <= {NOCHANGE_TARGET_MS:.0f} ms: {'ok' if ok else 'MISSED'})",
        f"   Hermes holding it   median {f['live_nochange_sync_median_ms']:.2f} ms unchanged; "
        f"{f['live_one_message_sync_median_ms']:.0f} ms after one new prompt (median of {ONE_MESSAGE_RUNS}, "
        f"{nc.one_sessions} sessions read again in all)",
        f"   trail search zzz    {f['search_process_s']:.3f} s a process, median of {PROCESS_RUNS} "
        f"(python -c 'import sqlite3': {f['python_startup_s']:.3f} s)",
        f"3. sync after appends  {a.sync_s:.3f} s for {a.messages:,} new messages in {a.sessions} sessions "
        f"(re-read {a.sessions_indexed} sessions: {a.messages_read:,} messages, {a.docs:,} docs)",
        f"4. search, {len(timed)} queries{'p50 ms':>10}{'p95 ms':>9}{'trail/x p50':>13}{'zero hits':>11}",
    ]
    for engine in ENGINES:
        rel = "" if engine == "trail" else f"{f[f'search_trail_{engine}_ratio_p50'] or float('nan'):.2f}x"
        out.append(
            f"   {LABELS[engine]:<24}{ms(f[f'search_{engine}_p50_ms']):>6}"
            f"{ms(f[f'search_{engine}_p95_ms']):>9}{rel:>13}{f[f'zero_hits_{engine}']:>11}"
        )
    out.append(
        f"   {'trail, words only':<24}{ms(f['search_trail_words_p50_ms']):>6}"
        f"{ms(f['search_trail_words_p95_ms']):>9}   (the queries the words answer: target 5 / 50 ms)"
    )
    out.append(
        f"   {'trail, words, alone':<24}{ms(f['search_trail_words_alone_p50_ms']):>6}"
        f"{ms(f['search_trail_words_alone_p95_ms']):>9}   (the same one after another, median of "
        f"{ALONE_ROUNDS} rounds)"
    )
    out.append(
        f"   {'trail, the last day':<24}{ms(f['search_trail_day_p50_ms']):>6}"
        f"{ms(f['search_trail_day_p95_ms']):>9}   (kept to the store's last day: 'yesterday', --since 1d)"
    )
    out.append(
        f"   {'by kind, p50 ms':<17}{'n':>3}{'trail':>8}{'raw':>8}{'hermes':>8}   zero hits t/r/h  example"
    )
    for kind, k in f["search_by_kind"].items():
        example = k["example"] if len(k["example"]) <= 34 else k["example"][:33] + "…"
        zeros = "/".join(str(k[f"{e}_zero"]) for e in ENGINES)
        out.append(
            f"   {kind:<17}{k['n']:>3}{ms(k['trail_p50_ms']):>8}{ms(k['raw_p50_ms']):>8}"
            f"{ms(k['hermes_p50_ms']):>8}   {zeros:<16} {example}"
        )
    out.append(
        f"   {'all 3 found some':<17}{f['all_found_queries']:>3}{ms(f['all_found_trail_p50_ms']):>8}"
        f"{ms(f['all_found_raw_p50_ms']):>8}{ms(f['all_found_hermes_p50_ms']):>8}   (all 3 engines hit)"
    )
    kept, new = (
        (ms(f["door_kept_p50_ms"]), ms(f["door_kept_p95_ms"])),
        (ms(f["door_new_p50_ms"]), ms(f["door_new_p95_ms"])),
    )
    out.append(
        f"   through the door    p50 / p95 {kept[0]} / {kept[1]} ms on the connection it keeps, {new[0]} / "
        f"{new[1]} ms on a new one a question ({ratio(f['door_kept_p50_ms'], f['door_new_p50_ms']):.2f}x)"
    )
    hermes_fill = (
        "cached" if hermes.fill_s is None else f"{hermes.fill_s:.1f} s + optimize {hermes.optimize_s:.1f} s"
    )
    rare = f["vocab_rare_docs"] or [0, 0]
    out += [
        f"   terms: {f['vocab_words']} words; common ones in >= {f['vocab_common_min_docs'] or 0:,} docs, "
        f"rare ones in {rare[0]:,}-{rare[1]:,} (of {v.docs:,}, estimated from {v.sample:,})",
        f"   Hermes: filling messages_fts took {hermes_fill}{' (cached)' if hermes.cached else ''}; "
        f"SessionDB open {hermes.open_s:.2f} s",
        f"5. size                index {mb(index_size)} = {ratio(index_size, store_size):.2f}x the store",
        "   " + ", ".join(f"{part} {mb(n)}" for part, n in f["index_parts_bytes"].items()),
        f"   raw floor {mb(f['raw_db_bytes'])}; Hermes' messages_fts adds {mb(f['hermes_fts_bytes'])} "
        "to the store",
        "",
        json.dumps(f),
    ]
    print("\n".join(out))


# --------------------------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description="Benchmark trail's index: build, sync, search, size.")
    parser.add_argument(
        "--store-dir", type=Path, help="default: bench/out/store, or bench/out/quick with --quick"
    )
    parser.add_argument("--quick", action="store_true", help="a 20k-message store, for a CI smoke run")
    parser.add_argument("--queries", type=int, default=200, help="search queries to time (default 200)")
    parser.add_argument(
        "--build-rounds",
        type=int,
        help="full builds of each side, in mirrored order (default 2, 1 with --quick)",
    )
    out_help = "work files (default: bench/out/index, or bench/out/index-quick with --quick)"
    parser.add_argument("--out-dir", type=Path, help=out_help)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the five measurements in order and print the figures."""
    args = parse_args(argv)
    spec = QUICK if args.quick else FULL
    store_dir = args.store_dir or spec["dir"]
    out_dir = (args.out_dir or OUT_DIRS[args.quick]).resolve()
    meta = {**ensure_store(store_dir, spec), "load_start": load_average()}
    store_db = store_dir / "hermes_home" / "state.db"
    work_db = out_dir / "work" / "hermes_home" / "state.db"
    index, raw_db = out_dir / "index.db", out_dir / "raw.db"
    rng = random.Random(SEED)
    step = lambda text: print(f"... {text}", file=sys.stderr, flush=True)  # noqa: E731

    step("copying the store")
    copy_db(store_db, work_db)
    step("1. full build: trail, then the raw floor")
    rounds = args.build_rounds or (1 if args.quick else 2)
    build = bench_build(index, raw_db, work_db, max(1, rounds))
    step("2. sync with nothing changed")
    nochange = bench_nochange(index, work_db)
    step("drawing queries from the index's vocabulary")
    vocab = vocabulary(index)
    queries = make_queries(vocab, max(1, args.queries), rng)
    step("3. sync after appending messages")
    words = [w for w, _ in vocab.common + vocab.mid]
    append = bench_append(index, work_db, words, rng)
    hermes = hermes_copy(store_db, out_dir)
    step(f"4. search: {len(queries)} queries x 3 engines")
    timed = bench_search(index, hermes, queries)
    step("4b. the same through the front door, question after question")
    door = bench_door(index, work_db, queries)
    (out_dir / "queries.json").write_text(json.dumps([t.__dict__ for t in timed], indent=1) + "\n")
    paths = {"store": store_db, "index": index, "raw": raw_db}
    report(meta, paths, build, nochange, append, vocab, hermes, timed, door, args.quick)
    # The `trail search` processes of step 2 may have started the meaning server: leave none behind.
    subprocess.run([*trail_command(), "index", "--stop-server"], capture_output=True, check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
