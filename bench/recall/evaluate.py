"""Recall benchmark: hit@1, hit@5 and MRR per kind of query, for Hermes' own search, plain baselines and
hermes-trail's, side by side in one run.

Usage::

    python bench/recall/evaluate.py [--store-dir DIR]
                                    [--split legacy,tune,held,engineer,fresh,...,tasks]
                                    [--kinds K,...] [--systems S,...] [--misses] [--held-out-misses]
                                    [--details FILE]

The store (``DIR/hermes_home``, default ``bench/out/recall``) is built by ``build_store.py`` if it is
missing or stale. The queries are ``bench/recall/queries.jsonl`` (written with the store by its author:
the set ``legacy``) and, when present, ``bench/recall/queries-blind.jsonl`` (written by someone who read
only the sessions' summaries; each line's ``split`` puts it in the set ``tune`` or ``held``), and
``bench/recall/queries-engineer.jsonl`` (the set ``engineer``: questions the engineer who tuned a rule
wrote for it after reading the sessions, tuning data like ``tune``, never the held-out half), and
``bench/recall/queries-fresh.jsonl`` (the set ``fresh``: questions written later, again from the summaries
alone, scored once untouched before they became tuning data like ``tune``), and
``bench/recall/queries-reworded.jsonl`` (the set ``reworded``: a third writing from the summaries alone, in
every kind, scored untouched the same way), and ``bench/recall/queries-styled.jsonl`` (the set ``styled``:
a fourth, half as terse search-box fragments, half as long questions put to the agent), and
``bench/recall/queries-recalled.jsonl`` (the set ``recalled``: a fifth, half as a person who half-remembers
asks, half as an agent asks its recall tool), and ``bench/recall/queries-languages.jsonl`` (the set
``languages``: a sixth, half typed in a hurry with typos, half in another language than the session's), and
``bench/recall/queries-tasks.jsonl`` (the set ``tasks``: a seventh, the message that starts a new piece of
work the item is the context of, as the Hermes plugin recalls for it). A target is
a Hermes session id, ``memory:<profile>:MEMORY.md``/``USER.md`` or ``skill:<profile>:<name>``.

A query hits at k when any of its targets is among the first k distinct items a system returns; its
reciprocal rank is 1/rank of the first target (0 when none is returned). Every figure is reported per set
(legacy, tune, held), per kind and overall. Misses of the held-out set are printed only when asked for by
name (``--held-out-misses``): whoever tunes search must not see them.

Systems (see ``README.md``): ``hermes`` (``SessionDB.search_messages``), ``hermes-tool`` (the agent's
``session_search`` tool), ``bm25``, ``grep`` and ``hybrid`` (plain baselines, :mod:`baselines`), and
``trail`` (:func:`trail_rank`). Named only: ``fleet`` (the shared index on PostgreSQL), ``rerank``
(trail's first hits reranked by MiniLM, :func:`baselines.rerank`: the reranking stage tried and not
kept) and ``gists`` (trail before its vector stage ran: sessions compared by their gists alone). The
last line printed is JSON with every figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
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

# One BLAS thread, set before anything loads numpy: the MiniLM forward pass of the hybrid baseline is
# mostly small products (a query is a dozen tokens), which threaded OpenBLAS runs ten times slower on a
# busy machine. Set the variables yourself to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import baselines  # noqa: E402

DEFAULT_STORE = HERE.parent / "out" / "recall"
DEFAULT_CACHE = HERE.parent / "out" / "cache"
LEGACY_QUERIES = HERE / "queries.jsonl"
BLIND_QUERIES = HERE / "queries-blind.jsonl"
ENGINEER_QUERIES = HERE / "queries-engineer.jsonl"
FRESH_QUERIES = HERE / "queries-fresh.jsonl"
REWORDED_QUERIES = HERE / "queries-reworded.jsonl"
STYLED_QUERIES = HERE / "queries-styled.jsonl"
RECALLED_QUERIES = HERE / "queries-recalled.jsonl"
LANGUAGES_QUERIES = HERE / "queries-languages.jsonl"
TASKS_QUERIES = HERE / "queries-tasks.jsonl"
# The sets written after the blind one, each a file of its own, in the order they were written.
LATER_SETS = (
    ("engineer", ENGINEER_QUERIES),
    ("fresh", FRESH_QUERIES),
    ("reworded", REWORDED_QUERIES),
    ("styled", STYLED_QUERIES),
    ("recalled", RECALLED_QUERIES),
    ("languages", LANGUAGES_QUERIES),
    ("tasks", TASKS_QUERIES),
)
SETS = ("legacy", "tune", "held", *(name for name, _ in LATER_SETS))
KINDS = (
    "keyword",
    "paraphrase",
    "cross_lingual",
    "cjk",
    "error",
    "path",
    "tool_output",
    "update",
    "updated_fact",
    "profile",
    "memory_skill",
)
SYSTEMS = ("hermes", "hermes-tool", "bm25", "grep", "hybrid", "trail")
# Run only when named in --systems: the shared index needs a PostgreSQL server (fleet_system.py).
# ``rerank``: trail's first hits reordered by the hybrid's MiniLM passages (baselines.rerank), not kept.
# ``gists``: trail on an index whose vector stage has not run (what a session without passages gets).
# ``page``: the recall page an agent is given (``trail recall``, the Hermes plugin, the MCP tool): the
# sessions in the order its lines name them, so hit@1 is "the page's first line is the answer".
# ``plugin``: that page as the Hermes plugin asks for it before a prompt (the prompt's query, runtime.py).
OPTIONAL = ("fleet", "rerank", "gists", "page", "plugin")
HERMES_SCAN = 300  # rows Hermes' session_search scans before it dedupes by session (_DISCOVER_SCAN_LIMIT)
TRAIL_LIMIT = 20
ROOT_PROFILE = "default"
SESSIONS_ONLY = "sessions_only"  # the overall of a set without its memory_skill queries
_NAME = re.compile(r"[^a-z0-9]+")


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
    written = store_dir / "queries.jsonl"
    if written.exists() and written.read_bytes() != queries.read_bytes():
        print(
            f"warning: {queries} differs from the queries the store was built with; rewrite it with "
            "`build_store.py --queries bench/recall/queries.jsonl`",
            file=sys.stderr,
        )
    return home


def store_fingerprint(store_dir: Path) -> str:
    meta = store_dir / "meta.json"
    return str(json.loads(meta.read_text()).get("fingerprint") or "none") if meta.exists() else "none"


def profile_key(profile: str | None) -> str:
    return profile or ROOT_PROFILE


def db_path(home: Path, profile: str | None) -> Path:
    key = profile_key(profile)
    return home / "state.db" if key == ROOT_PROFILE else home / "profiles" / key / "state.db"


def profile_home(home: Path, profile: str) -> Path:
    return home if profile == ROOT_PROFILE else home / "profiles" / profile


class Targets:
    """Every item of the home a query can target, and the one spelling of each (``canonical``)."""

    def __init__(self, home: Path) -> None:
        self.sessions: dict[str, str] = {}  # session id -> profile
        self.skills: dict[tuple[str, str], str] = {}  # (profile, name as typed, normalized) -> target
        self.memory: set[str] = set()
        for profile, db in baselines.stores(home):
            conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
            try:
                self.sessions.update({r[0]: profile for r in conn.execute("SELECT id FROM sessions")})
            finally:
                conn.close()
            base = profile_home(home, profile)
            for name in ("MEMORY.md", "USER.md"):
                if (base / "memories" / name).is_file():
                    self.memory.add(f"memory:{profile}:{name}")
            skills = base / "skills"
            for skill in sorted(skills.rglob("SKILL.md")) if skills.is_dir() else []:
                target = f"skill:{profile}:{skill.parent.name}"
                for alias in (
                    skill.parent.name,
                    skill.parent.relative_to(skills).as_posix(),
                    _front_name(skill),
                ):
                    if alias:
                        self.skills.setdefault((profile, _NAME.sub("-", alias.lower()).strip("-")), target)

    def canonical(self, item: str) -> str:
        """A target or a ranked item as this class spells it: a skill by its directory's name, whichever
        name (front matter, directory, path under ``skills/``) it came by; the root profile ``default``."""
        kind, _, rest = item.partition(":")
        if kind not in ("memory", "skill") or ":" not in rest:
            return item
        profile, _, name = rest.partition(":")
        profile = profile_key(profile if profile not in ("", "root") else None)
        if kind == "memory":
            return f"memory:{profile}:{name}"
        return self.skills.get((profile, _NAME.sub("-", name.lower()).strip("-")), f"skill:{profile}:{name}")

    def profile_of(self, q: dict[str, Any]) -> str:
        """The profile Hermes searches for ``q``: the one it names, else its first target's (Hermes searches
        one profile; the person asking is taken to be in the right one)."""
        if q.get("profile"):
            return profile_key(str(q["profile"]))
        target: str = q["targets"][0]
        if target.startswith(("memory:", "skill:")):
            return target.split(":")[1]
        return self.sessions.get(target, ROOT_PROFILE)

    def known(self, target: str) -> bool:
        if target.startswith(("memory:", "skill:")):
            return target in self.memory or target in self.skills.values()
        return target in self.sessions


def _front_name(skill_md: Path) -> str:
    """The ``name:`` of a SKILL.md's front matter, or empty."""
    try:
        text = skill_md.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    if not text.startswith("---"):
        return ""
    for line in text.splitlines()[1:40]:
        if line.strip() == "---":
            break
        key, _, value = line.partition(":")
        if key.strip() == "name":
            return value.strip().strip("'\"")
    return ""


def read_queries(path: Path, blind: bool, name: str = "legacy") -> list[dict[str, Any]]:
    queries = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        q = json.loads(line)
        if blind:
            if q.get("split") not in ("tune", "held"):
                raise SystemExit(f"{path}:{n}: split must be 'tune' or 'held', not {q.get('split')!r}")
            q["set"] = q["split"]
        else:
            q["set"] = name
        queries.append(q)
    return queries


def load_queries(
    home: Path, targets: Targets, legacy: Path, blind: Path | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The queries of both files (each with its ``set``) with targets in canonical spelling, and the blind
    queries left out because a target is not in the store (reported, never scored)."""
    queries = read_queries(legacy, blind=False)
    for name, path in LATER_SETS:
        if path.exists():
            queries += read_queries(path, blind=False, name=name)
    stale = [q["id"] for q in queries if not all(targets.known(t) for t in q["targets"])]
    if stale:
        raise SystemExit(
            f"targets of {len(stale)} queries ({', '.join(stale[:5])} ...) are not in {home}: the store or "
            "queries.jsonl is stale; delete the store, or rewrite the queries with "
            "`build_store.py --queries bench/recall/queries.jsonl`"
        )
    skipped: list[dict[str, Any]] = []
    if blind is not None and blind.exists():
        for q in read_queries(blind, blind=True):
            q["targets"] = [targets.canonical(t) for t in q["targets"]]
            q["superseded"] = [targets.canonical(t) for t in q.get("superseded") or []]
            if all(targets.known(t) for t in q["targets"]):
                queries.append(q)
            else:
                skipped.append(q)
    return queries, skipped


# -- metrics ---------------------------------------------------------------------------------------------
def rank_of(ranked: list[str], targets: Iterable[str]) -> int | None:
    """1-based rank of the first target among distinct items, or None."""
    wanted = set(targets)
    for i, item in enumerate(ranked, 1):
        if item in wanted:
            return i
    return None


def kinds_of(queries: list[dict[str, Any]]) -> list[str]:
    present = {q["kind"] for q in queries}
    return [k for k in KINDS if k in present] + sorted(present - set(KINDS))


def score(queries: list[dict[str, Any]], ranks: list[int | None]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[int | None]] = {}
    for q, r in zip(queries, ranks, strict=True):
        groups.setdefault(q["kind"], []).append(r)
    # Without memory and skills, which only trail reads: the systems compared on sessions alone.
    if "memory_skill" in groups and len(groups) > 1:
        groups[SESSIONS_ONLY] = [
            r for q, r in zip(queries, ranks, strict=True) if q["kind"] != "memory_skill"
        ]
    out = {}
    for kind in [*kinds_of(queries), "overall", SESSIONS_ONLY]:
        if kind == SESSIONS_ONLY and kind not in groups:
            continue
        rs = list(ranks) if kind == "overall" else groups[kind]
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
    """Queries with superseded sessions where one ranks above the current one (or alone)."""
    n = 0
    for q, ranked in zip(queries, rankings, strict=True):
        old = q.get("superseded")
        if not old:
            continue
        r_new, r_old = rank_of(ranked, q["targets"]), rank_of(ranked, old)
        if r_old is not None and (r_new is None or r_old < r_new):
            n += 1
    return n


def dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# -- Hermes ----------------------------------------------------------------------------------------------
class HermesCopies:
    """Writable copies of the home's stores, opened with Hermes' ``SessionDB`` (FTS enabled)."""

    def __init__(self, home: Path) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="recall-hermes-"))
        self.home = self.tmp / "hermes_home"
        os.environ["HERMES_HOME"] = str(self.home)  # Hermes reads it at import; never the user's ~/.hermes
        from hermes_state import SessionDB  # type: ignore[import-untyped]

        self.dbs: dict[str, Any] = {}
        for profile, src in baselines.stores(home):
            dst = db_path(self.home, profile)
            dst.parent.mkdir(parents=True, exist_ok=True)
            with (
                sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True) as s,
                sqlite3.connect(dst) as d,
            ):
                s.backup(d)
            db = SessionDB(db_path=dst)
            messages = db._conn.execute("SELECT count(*) FROM messages").fetchone()[0]
            fts = db._conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0]
            if not db._fts_enabled or fts != messages:
                raise SystemExit(f"{src}: Hermes' FTS is incomplete or disabled; rebuild the store")
            self.dbs[profile] = db

    def search_messages(self, query: str, profile: str | None) -> list[str]:
        rows = self.dbs[profile_key(profile)].search_messages(query, limit=HERMES_SCAN)
        return dedupe(r["session_id"] for r in rows)

    def session_search(self, query: str, profile: str | None) -> list[str]:
        from tools.session_search_tool import session_search  # type: ignore[import-untyped]

        out = json.loads(session_search(query=query, limit=10, db=self.dbs[profile_key(profile)]))
        return dedupe(r["session_id"] for r in out.get("results", []))

    def close(self) -> None:
        for db in self.dbs.values():
            db.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


# -- hermes-trail ----------------------------------------------------------------------------------------
_INDEXES: dict[tuple[Path, bool], Path] = {}


def trail_index(store_dir: Path, passages: bool = True) -> Path:
    """hermes-trail's index of ``store_dir/hermes_home`` (every profile), built fresh once per run; without
    ``passages``, as it is before its vector stage runs."""
    store_dir = store_dir.resolve()
    if (store_dir, passages) not in _INDEXES:
        from hermes_trail.index.sync import sync_index

        index = store_dir / ("trail-index" if passages else "trail-index-gists") / "index.db"
        shutil.rmtree(index.parent, ignore_errors=True)
        index.parent.mkdir(parents=True)
        t0 = time.perf_counter()
        report = sync_index(index, homes=[store_dir / "hermes_home"])
        print(f"trail: indexed in {time.perf_counter() - t0:.2f} s: {report}", file=sys.stderr)
        if passages:  # the vector stage, as `trail index` runs it after the words: what meaning reads
            from hermes_trail.index.vectors import encode_pending

            t0 = time.perf_counter()
            vectors = encode_pending(index)
            took = time.perf_counter() - t0
            print(f"trail: {vectors.passages} passages encoded in {took:.2f} s", file=sys.stderr)
        _INDEXES[store_dir, passages] = index
    return _INDEXES[store_dir, passages]


def trail_target(hit: Any) -> str:
    """What a trail hit is, in the queries' spelling. A hit from Hermes' memory or a skill
    (``session_kind`` ``memory``/``skill`` in a knowledge store: ``session_id`` ``MEMORY.md``, ``USER.md``
    or ``skill/<directory>``, ``ref`` ``<profile>:<name>``) is ``memory:<profile>:<file>`` or
    ``skill:<profile>:<name>``; anything else is its session id."""
    origin = getattr(hit, "origin", None)
    kind = getattr(hit, "session_kind", None)
    if origin is None:
        origin = kind if kind in ("memory", "skill") else "session"
    if origin not in ("memory", "skill"):
        return str(hit.session_id)
    profile = profile_key(getattr(hit, "profile", None))
    ref = str(getattr(hit, "ref", "") or "")
    sid = str(hit.session_id or "")
    if origin == "memory":
        for candidate in (sid, ref, str(getattr(hit, "title", "") or "")):
            for name in ("MEMORY.md", "USER.md"):
                if name in candidate:
                    return f"memory:{profile}:{name}"
        return f"memory:{profile}:{sid}"
    # A skill: the directory in the session id, else the name after the ref's profile.
    name = sid.removeprefix("skill/").rstrip("/").rsplit("/", 1)[-1] if sid else ""
    if not name and ":" in ref:
        name = ref.split(":", 1)[1]
    return f"skill:{profile}:{name or ref}"


def trail_rank(query: str, store_dir: Path, passages: bool = True) -> list[str]:
    """What hermes-trail's search returns for ``query``, best first, over every profile."""
    from hermes_trail.index.search import SearchFilters, search

    index = trail_index(store_dir, passages)
    result = search(index, query, SearchFilters(profile=None), limit=TRAIL_LIMIT)
    return dedupe(trail_target(hit) for hit in result.hits)


def page_rank(query: str, store_dir: Path) -> list[str]:
    """The sessions (and memory entries, skills) a recall page names for ``query``, in the order of its
    lines: what ``Trail.recall_page`` gives an agent, without the frame."""
    from hermes_trail.index.search import SearchFilters, search
    from hermes_trail.recall import _chosen, complete

    index = trail_index(store_dir)
    with sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True) as conn:
        result = search(conn, query, SearchFilters(profile=None), limit=PAGE_CONVERSATIONS * 3)
        complete(conn, result, query.split())
    return dedupe(trail_target(hit) for hit, _ in _chosen(result, PAGE_CONVERSATIONS))


PAGE_CONVERSATIONS = 8  # a recall page's conversations (Trail.recall_page's limit)


# -- running ---------------------------------------------------------------------------------------------
def run_system(
    queries: list[dict[str, Any]],
    rank: Callable[[dict[str, Any]], list[str]],
    canonical: Callable[[str], str],
) -> dict[str, Any]:
    rankings: list[list[str]] = []
    times: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        ranked = rank(q)
        times.append(time.perf_counter() - t0)
        rankings.append(dedupe(canonical(item) for item in ranked))
    ranks = [rank_of(r, q["targets"]) for q, r in zip(queries, rankings, strict=True)]
    return {"ranks": ranks, "rankings": rankings, "times": times}


def median_ms(times: list[float]) -> float:
    ordered = sorted(times)
    return round(1000 * ordered[len(ordered) // 2], 2) if ordered else 0.0


def figures(queries: list[dict[str, Any]], result: dict[str, Any]) -> dict[str, Any]:
    """Per set: the scores per kind and overall, superseded-first count and median time."""
    out: dict[str, Any] = {"median_ms": median_ms(result["times"]), "sets": {}}
    for name in SETS:
        idx = [i for i, q in enumerate(queries) if q["set"] == name]
        if not idx:
            continue
        qs = [queries[i] for i in idx]
        out["sets"][name] = {
            "scores": score(qs, [result["ranks"][i] for i in idx]),
            "stale_first": stale_first(qs, [result["rankings"][i] for i in idx]),
            "median_ms": median_ms([result["times"][i] for i in idx]),
        }
    return out


def print_set(name: str, queries: list[dict[str, Any]], summary: dict[str, dict[str, Any]]) -> None:
    systems = [s for s in summary if name in summary[s]["sets"]]
    if not systems:
        return
    count = sum(q["set"] == name for q in queries)
    print(f"\n== {name} ({count} queries)   each system: hit@1 hit@5 MRR")
    width = 19
    print(f"{'kind':<14}{'n':>4}" + "".join(f"{s:>{width}}" for s in systems))
    kinds = list(summary[systems[0]]["sets"][name]["scores"])
    for kind in kinds:
        if kind == "overall":
            print("-" * (18 + width * len(systems)))
        n = summary[systems[0]]["sets"][name]["scores"][kind]["n"]
        cells = []
        for s in systems:
            f = summary[s]["sets"][name]["scores"][kind]
            cells.append(f"{100 * f['hit@1']:6.1f}{100 * f['hit@5']:6.1f}{f['mrr']:7.3f}")
        print(f"{kind:<14}{n:>4}" + "".join(f"{c:>{width}}" for c in cells))
    print(
        f"{'median ms':<18}"
        + "".join(f"{summary[s]['sets'][name]['median_ms']:>{width}.2f}" for s in systems)
    )
    if any(q.get("superseded") for q in queries if q["set"] == name):
        row = "".join(f"{summary[s]['sets'][name]['stale_first']:>{width}}" for s in systems)
        print(f"{'old first':<18}{row}")


def print_misses(
    name: str, queries: list[dict[str, Any]], result: dict[str, Any], sets: Iterable[str]
) -> None:
    wanted = set(sets)
    missed = [
        (q, r)
        for q, r in zip(queries, result["ranks"], strict=True)
        if q["set"] in wanted and (r is None or r > 5)
    ]
    print(f"\n{name}: {len(missed)} queries of {'/'.join(s for s in SETS if s in wanted)} not in the top 5")
    for q, r in missed:
        print(f"  {q['set']:<6} {q['id']:<18} rank {r or '-':>3}  {q['query'][:90]}")


def _csv(text: str, allowed: Iterable[str] | None = None) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if allowed is not None:
        unknown = sorted(set(items) - set(allowed))
        if unknown:
            raise SystemExit(f"unknown: {', '.join(unknown)} (one of {', '.join(allowed)})")
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recall benchmark: Hermes' search, baselines, hermes-trail.")
    parser.add_argument("--store-dir", type=Path, default=DEFAULT_STORE, help="built here if missing")
    parser.add_argument("--queries", type=Path, default=LEGACY_QUERIES, help="the legacy set")
    parser.add_argument(
        "--blind", type=Path, default=BLIND_QUERIES, help="the tune and held sets, if present"
    )
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="the model wheel and passage vectors"
    )
    parser.add_argument("--split", default=",".join(SETS), help=f"sets to run ({','.join(SETS)})")
    parser.add_argument("--kinds", help="kinds to run, comma-separated (default: every kind)")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="systems to run, comma-separated")
    parser.add_argument("--misses", action="store_true", help="list legacy and tune queries missed at 5")
    parser.add_argument("--held-out-misses", action="store_true", help="also list the held-out misses")
    parser.add_argument(
        "--details",
        type=Path,
        help="each query's ranks per system (JSON lines; no held-out queries without --held-out-misses)",
    )
    args = parser.parse_args(argv)
    sets = _csv(args.split, SETS)
    systems = _csv(args.systems, (*SYSTEMS, *OPTIONAL))
    kinds = _csv(args.kinds) if args.kinds else None

    home = ensure_store(args.store_dir, args.queries)
    targets = Targets(home)
    queries, skipped = load_queries(home, targets, args.queries, args.blind)
    for q in skipped:
        missing = [t for t in q["targets"] if not targets.known(t)]
        print(
            f"warning: {q['set']} query {q['id']} skipped: target {missing[0]} is not in the store",
            file=sys.stderr,
        )
    queries = [q for q in queries if q["set"] in sets and (kinds is None or q["kind"] in kinds)]
    if not queries:
        raise SystemExit("no query left after --split/--kinds")
    results: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    notes: dict[str, Any] = {}

    if {"hermes", "hermes-tool"} & set(systems):
        hermes = HermesCopies(home)
        try:
            if "hermes" in systems:
                results["hermes"] = run_system(
                    queries,
                    lambda q: hermes.search_messages(q["query"], targets.profile_of(q)),
                    targets.canonical,
                )
            if "hermes-tool" in systems:
                try:
                    results["hermes-tool"] = run_system(
                        queries,
                        lambda q: hermes.session_search(q["query"], targets.profile_of(q)),
                        targets.canonical,
                    )
                except ImportError as exc:
                    errors["hermes-tool"] = f"session_search tool not importable: {exc}"
        finally:
            hermes.close()

    hybrid: baselines.Hybrid | None = None
    if {"bm25", "grep", "hybrid", "rerank"} & set(systems):
        sessions = baselines.load_sessions(home)
        bm25 = baselines.Bm25(sessions)
        if "bm25" in systems:
            results["bm25"] = run_system(queries, lambda q: bm25.rank(q["query"])[: baselines.LIMIT], str)
        if "grep" in systems:
            grep = baselines.Grep(sessions)
            results["grep"] = run_system(queries, lambda q: grep.rank(q["query"])[: baselines.LIMIT], str)
        if {"hybrid", "rerank"} & set(systems):
            try:
                hybrid = baselines.Hybrid(sessions, bm25, args.cache, store_fingerprint(args.store_dir))
            except (baselines.Unavailable, ImportError) as exc:
                errors["hybrid"] = str(exc)
                print(f"hybrid: skipped: {exc}")
            else:
                notes["hybrid"] = {
                    "passages": hybrid.passages,
                    "cached": hybrid.cached,
                    "encode_s": round(hybrid.encode_seconds, 1),
                    "max_passages_per_session": baselines.MAX_PASSAGES,
                }
                print(
                    f"hybrid: {hybrid.passages} passages, "
                    + (
                        "vectors from the cache"
                        if hybrid.cached
                        else f"encoded in {hybrid.encode_seconds:.1f} s"
                    ),
                    file=sys.stderr,
                )
                if "hybrid" in systems:
                    results["hybrid"] = run_system(queries, lambda q: hybrid.rank(q["query"]), str)

    if "trail" in systems:
        try:
            import hermes_trail.index.search
            import hermes_trail.index.sync  # noqa: F401
        except ImportError:
            errors["trail"] = "index API not available yet"
            print("trail: index API not available yet")
        else:
            try:
                trail_index(args.store_dir)  # built before the clock starts: search time only
                results["trail"] = run_system(
                    queries, lambda q: trail_rank(q["query"], args.store_dir), targets.canonical
                )
            except Exception as exc:
                errors["trail"] = f"{type(exc).__name__}: {exc}"
                traceback.print_exc()
                print(f"trail: failed: {errors['trail']}")

    if "gists" in systems:
        trail_index(args.store_dir, passages=False)
        results["gists"] = run_system(
            queries, lambda q: trail_rank(q["query"], args.store_dir, passages=False), targets.canonical
        )

    if "page" in systems:
        trail_index(args.store_dir)
        results["page"] = run_system(
            queries, lambda q: page_rank(q["query"], args.store_dir), targets.canonical
        )

    if "plugin" in systems:
        from hermes_trail.integrations.hermes.runtime import prompt_query

        trail_index(args.store_dir)
        results["plugin"] = run_system(
            queries, lambda q: page_rank(prompt_query(q["query"]), args.store_dir), targets.canonical
        )

    if "rerank" in systems and hybrid is not None:
        reranker = hybrid
        trail_index(args.store_dir)
        results["rerank"] = run_system(
            queries,
            lambda q: baselines.rerank(
                dedupe(targets.canonical(t) for t in trail_rank(q["query"], args.store_dir)),
                reranker.cosines(q["query"]),
            ),
            targets.canonical,
        )

    if "fleet" in systems:
        from fleet_system import fleet_ranker

        try:
            with fleet_ranker(home, args.store_dir / "fleet", trail_target, TRAIL_LIMIT) as fleet_rank:
                results["fleet"] = run_system(
                    queries, lambda q: dedupe(fleet_rank(q["query"])), targets.canonical
                )
        except Exception as exc:
            errors["fleet"] = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            print(f"fleet: failed: {errors['fleet']}")

    results = {s: results[s] for s in (*SYSTEMS, *OPTIONAL) if s in results}
    summary = {name: figures(queries, result) for name, result in results.items()}
    for name in SETS:
        print_set(name, queries, summary)
    tuning = [name for name in SETS if name != "held"]
    shown = [s for s in tuning if args.misses] + (["held"] if args.held_out_misses else [])
    if shown:
        for name, result in results.items():
            print_misses(name, queries, result, shown)
    if args.details:
        with args.details.open("w", encoding="utf-8") as f:
            for i, q in enumerate(queries):
                if q["set"] == "held" and not args.held_out_misses:
                    continue
                row = {
                    **q,
                    "ranks": {n: r["ranks"][i] for n, r in results.items()},
                    "top5": {n: r["rankings"][i][:5] for n, r in results.items()},
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    per_set = {
        name: {k: sum(q["kind"] == k for q in queries if q["set"] == name) for k in kinds_of(queries)}
        for name in SETS
    }
    out = {
        "queries": len(queries),
        "sets": {
            name: {k: n for k, n in kinds.items() if n}
            for name, kinds in per_set.items()
            if any(kinds.values())
        },
        "skipped": [f"{q['set']}:{q['id']}" for q in skipped],
        "systems": summary,
        "notes": notes,
        "errors": errors,
    }
    print()
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
