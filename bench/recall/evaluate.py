"""Recall benchmark: hit@1, hit@5 and MRR per kind of query, for Hermes' own search and for hermes-trail's.

Usage::

    python bench/recall/evaluate.py [--store-dir DIR] [--misses] [--details FILE]

The store (``DIR/hermes_home``, default ``bench/out/recall``) is built by ``build_store.py`` if it is
missing; the queries are ``bench/recall/queries.jsonl``. A query hits at k when any of its target
sessions is among the first k distinct sessions a system returns; its reciprocal rank is 1/rank of the
first target (0 when none is returned).

Systems:

- ``hermes``: ``SessionDB.search_messages(query, limit=300)`` (hermes-agent 0.19.0): FTS5/BM25 over every
  message (tool rows included), sessions ranked by their first appearance. Hermes searches one profile, so
  a ``profile`` query runs on that profile's store and every other query on the root store. A read-only
  ``SessionDB`` never enables FTS, so it runs on a writable copy of each store, made here.
- ``hermes-tool``: what the agent's ``session_search`` tool does with the same query (Hermes'
  ``tools/session_search_tool.session_search``): user and assistant rows only, sub-agent sessions hidden,
  cron demoted, a title match first, at most 10 sessions.
- ``trail``: :func:`trail_rank`, hermes-trail's index (``hermes_trail.index``) over the whole home, every
  profile at once (the query's profile is not passed). Skipped, with a message, while that API is missing.

The last line printed is JSON with every figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_STORE = HERE.parent / "out" / "recall"
KINDS = ("keyword", "paraphrase", "error", "path", "tool_output", "cjk", "updated_fact", "profile")
HERMES_SCAN = 300  # rows Hermes' session_search scans before it dedupes by session (_DISCOVER_SCAN_LIMIT)
TRAIL_LIMIT = 20


# -- the store and the queries ---------------------------------------------------------------------------
def fingerprint() -> str:
    """The fingerprint ``build_store.py`` writes into ``meta.json`` (a hash of the code that writes it)."""
    digest = hashlib.sha1()
    for name in ("catalog.py", "scenarios.py", "build_store.py"):
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()[:16]


def ensure_store(store_dir: Path, queries: Path) -> Path:
    """The store's home, (re)built when it is missing or was written by other code."""
    home = store_dir / "hermes_home"
    meta = store_dir / "meta.json"
    built = json.loads(meta.read_text()).get("fingerprint") if meta.exists() else None
    if not (home / "state.db").exists() or built != fingerprint():
        print(f"building the recall store in {store_dir} ...", file=sys.stderr)
        subprocess.run(
            [sys.executable, str(HERE / "build_store.py"), str(store_dir)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    if (store_dir / "queries.jsonl").read_bytes() != queries.read_bytes():
        print(
            f"warning: {queries} differs from the queries the store was built with; rewrite it with "
            "`build_store.py --queries bench/recall/queries.jsonl`",
            file=sys.stderr,
        )
    return home


def db_path(home: Path, profile: str | None) -> Path:
    return home / "profiles" / profile / "state.db" if profile else home / "state.db"


def load_queries(path: Path, home: Path) -> list[dict[str, Any]]:
    queries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids: dict[str | None, set[str]] = {}
    for profile in {q.get("profile") for q in queries}:
        conn = sqlite3.connect(f"{db_path(home, profile).resolve().as_uri()}?mode=ro", uri=True)
        try:
            ids[profile] = {r[0] for r in conn.execute("SELECT id FROM sessions")}
        finally:
            conn.close()
    stale = [q["id"] for q in queries if not set(q["targets"]) <= ids[q.get("profile")]]
    if stale:
        raise SystemExit(
            f"targets of {len(stale)} queries ({', '.join(stale[:5])} ...) are not in {home}: the store or "
            "queries.jsonl is stale; delete the store, or rewrite the queries with "
            "`build_store.py --queries bench/recall/queries.jsonl`"
        )
    return queries


# -- metrics ---------------------------------------------------------------------------------------------
def rank_of(ranked: list[str], targets: Iterable[str]) -> int | None:
    """1-based rank of the first target among distinct sessions, or None."""
    wanted = set(targets)
    for i, sid in enumerate(ranked, 1):
        if sid in wanted:
            return i
    return None


def score(queries: list[dict[str, Any]], ranks: list[int | None]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[int | None]] = {}
    for q, r in zip(queries, ranks, strict=True):
        groups.setdefault(q["kind"], []).append(r)
    groups["overall"] = list(ranks)
    out = {}
    for kind in [*KINDS, "overall"]:
        rs = groups.get(kind, [])
        n = len(rs)
        if not n:
            continue
        out[kind] = {
            "n": n,
            "hit@1": round(sum(r == 1 for r in rs) / n, 4),
            "hit@5": round(sum(r is not None and r <= 5 for r in rs) / n, 4),
            "mrr": round(sum(1 / r for r in rs if r) / n, 4),
        }
    return out


def stale_first(queries: list[dict[str, Any]], rankings: list[list[str]]) -> int:
    """Updated-fact queries where a superseded session ranks above the current one (or alone)."""
    n = 0
    for q, ranked in zip(queries, rankings, strict=True):
        old = q.get("superseded")
        if not old:
            continue
        r_new, r_old = rank_of(ranked, q["targets"]), rank_of(ranked, old)
        if r_old is not None and (r_new is None or r_old < r_new):
            n += 1
    return n


def dedupe(session_ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(session_ids))


# -- Hermes ----------------------------------------------------------------------------------------------
class HermesCopies:
    """Writable copies of the home's stores, opened with Hermes' ``SessionDB`` (FTS enabled)."""

    def __init__(self, home: Path) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="recall-hermes-"))
        self.home = self.tmp / "hermes_home"
        os.environ["HERMES_HOME"] = str(self.home)  # Hermes reads it at import; never the user's ~/.hermes
        from hermes_state import SessionDB

        self.dbs: dict[str | None, Any] = {}
        for profile in (None, "work"):
            src, dst = db_path(home, profile), db_path(self.home, profile)
            dst.parent.mkdir(parents=True, exist_ok=True)
            with (
                sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True) as s,
                sqlite3.connect(dst) as d,
            ):
                s.backup(d)
            db = SessionDB(db_path=dst)
            fts = db._conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0]
            if not db._fts_enabled or not fts:
                raise SystemExit(f"{src}: Hermes' FTS is empty or disabled; rebuild the store")
            self.dbs[profile] = db

    def search_messages(self, query: str, profile: str | None) -> list[str]:
        rows = self.dbs[profile].search_messages(query, limit=HERMES_SCAN)
        return dedupe(r["session_id"] for r in rows)

    def session_search(self, query: str, profile: str | None) -> list[str]:
        from tools.session_search_tool import session_search

        out = json.loads(session_search(query=query, limit=10, db=self.dbs[profile]))
        return dedupe(r["session_id"] for r in out.get("results", []))

    def close(self) -> None:
        for db in self.dbs.values():
            db.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


# -- hermes-trail ----------------------------------------------------------------------------------------
_INDEXES: dict[Path, Path] = {}


def trail_index(store_dir: Path) -> Path:
    """hermes-trail's index of ``store_dir/hermes_home`` (every profile), built fresh once per run."""
    store_dir = store_dir.resolve()
    if store_dir not in _INDEXES:
        from hermes_trail.index.sync import sync_index

        index = store_dir / "trail-index" / "index.db"
        shutil.rmtree(index.parent, ignore_errors=True)
        index.parent.mkdir(parents=True)
        t0 = time.perf_counter()
        report = sync_index(index, homes=[store_dir / "hermes_home"])
        print(f"trail: indexed in {time.perf_counter() - t0:.2f} s: {report}", file=sys.stderr)
        _INDEXES[store_dir] = index
    return _INDEXES[store_dir]


def trail_rank(query: str, store_dir: Path) -> list[str]:
    """Session ids hermes-trail's search returns for ``query``, best first, over every profile."""
    from hermes_trail.index.search import SearchFilters, search

    result = search(trail_index(store_dir), query, SearchFilters(profile=None), limit=TRAIL_LIMIT)
    return dedupe(hit.session_id for hit in result.hits)


# -- running ---------------------------------------------------------------------------------------------
def run_system(queries: list[dict[str, Any]], rank: Callable[[dict[str, Any]], list[str]]) -> dict[str, Any]:
    rankings, times = [], []
    for q in queries:
        t0 = time.perf_counter()
        rankings.append(rank(q))
        times.append(time.perf_counter() - t0)
    ranks = [rank_of(r, q["targets"]) for q, r in zip(queries, rankings, strict=True)]
    times.sort()
    return {
        "scores": score(queries, ranks),
        "stale_first": stale_first(queries, rankings),
        "median_ms": round(1000 * times[len(times) // 2], 2),
        "ranks": ranks,
        "rankings": rankings,
    }


def print_table(name: str, result: dict[str, Any]) -> None:
    print(
        f"\n{name}  (median {result['median_ms']} ms per query; updated facts with the old session first: "
        f"{result['stale_first']})"
    )
    print(f"{'kind':<14}{'n':>5}{'hit@1':>9}{'hit@5':>9}{'MRR':>8}")
    for kind, s in result["scores"].items():
        if kind == "overall":
            print("-" * 45)
        print(f"{kind:<14}{s['n']:>5}{s['hit@1']:>9.1%}{s['hit@5']:>9.1%}{s['mrr']:>8.3f}")


def print_misses(name: str, queries: list[dict[str, Any]], result: dict[str, Any]) -> None:
    missed = [(q, r) for q, r in zip(queries, result["ranks"], strict=True) if r is None or r > 5]
    print(f"\n{name}: {len(missed)} queries not in the top 5")
    for q, r in missed:
        print(f"  {q['id']:<16} rank {r or '-':>3}  {q['query'][:90]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recall benchmark: Hermes' search and hermes-trail's.")
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_STORE, help="built here if missing")
    parser.add_argument("--queries", type=Path, default=HERE / "queries.jsonl")
    parser.add_argument("--misses", action="store_true", help="list the queries each system misses at 5")
    parser.add_argument("--details", type=Path, help="write each query's ranks per system (JSON lines)")
    args = parser.parse_args(argv)

    home = ensure_store(args.store_dir, args.queries)
    queries = load_queries(args.queries, home)
    results: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}

    hermes = HermesCopies(home)
    try:
        results["hermes"] = run_system(
            queries, lambda q: hermes.search_messages(q["query"], q.get("profile"))
        )
        try:
            results["hermes-tool"] = run_system(
                queries, lambda q: hermes.session_search(q["query"], q.get("profile"))
            )
        except ImportError as exc:
            errors["hermes-tool"] = f"session_search tool not importable: {exc}"
    finally:
        hermes.close()

    try:
        import hermes_trail.index.search
        import hermes_trail.index.sync  # noqa: F401
    except ImportError:
        errors["trail"] = "index API not available yet"
        print("trail: index API not available yet")
    else:
        try:
            results["trail"] = run_system(queries, lambda q: trail_rank(q["query"], args.store_dir))
        except Exception as exc:
            errors["trail"] = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            print(f"trail: failed: {errors['trail']}")

    for name, result in results.items():
        print_table(name, result)
    if args.misses:
        for name, result in results.items():
            print_misses(name, queries, result)
    if args.details:
        with args.details.open("w", encoding="utf-8") as f:
            for i, q in enumerate(queries):
                row = {
                    **q,
                    "ranks": {n: r["ranks"][i] for n, r in results.items()},
                    "top5": {n: r["rankings"][i][:5] for n, r in results.items()},
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = {k: sum(q["kind"] == k for q in queries) for k in KINDS}
    summary = {
        "queries": len(queries),
        "per_kind": counts,
        "systems": {
            n: {"scores": r["scores"], "stale_first": r["stale_first"], "median_ms": r["median_ms"]}
            for n, r in results.items()
        },
        "errors": errors,
    }
    print()
    print(json.dumps(summary, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
