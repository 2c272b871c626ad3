"""How long a ``trail`` command takes as a whole process, against the interpreter floor (issue 15).

Usage::

    python bench/bench_cli.py [--quick] [--repeat 7] [--out-dir bench/out/cli]

A history tool is run dozens of times a day from the shell, so what counts is the whole process: start-up,
imports, reading, printing. Each command runs on the bundled demo home and on a synthetic store of 10,000
sessions (``synthetic_store.py``; ``--quick``: the demo home only), alternately with the floor
``python -c "import sqlite3, json"`` in the same run, so a busy machine slows both alike; the ratio is
the median of the pairs' ratios.

Targets: ``--help``, ``list``, ``show``, ``stats`` and a ``search`` the words answer at most 4x the
floor; a ``search`` that needs the meaning model at most 5x; ``list`` of 10k sessions at most 8x.

Each home gets its index (words and vectors) built once before timing (``trail index``), as a person's
would be after the first search. The meaning search is timed warm: its first run (untimed) starts the
meaning server (``index/meaning_server.py``) that later commands reuse.

``search (a turn)``: the words search on a copy of the home into which Hermes' own ``SessionDB`` writes a
new prompt before each run (untimed), as a person meets a search after talking to Hermes: the sync reads
that session again. Its target is the words search's, twice (8x). ``stats (a turn)``: ``trail stats`` on
the same copy, after a new prompt each run: the cache counts that session again and keeps the others'
rows. Its target is 20x (half a second on this machine's floor).

Prints the load average, an aligned table (command, trail ms, floor ms, ratio, CPU-time ratio, target) and
one JSON line. The ratio is of wall-clock times; the CPU-time ratio (user + system time of the process
itself, a search's meaning server left out) moves less when other work shares the cores.
Exits 1 when a command fails, never on a ratio (the figures are for people to read).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench_reader import trail_command

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
GENERATOR = BENCH_DIR / "synthetic_store.py"
DEMO_HOME = REPO / "src" / "hermes_trail" / "demo" / "hermes_home"
FLOOR = [sys.executable, "-c", "import sqlite3, json"]
BIG = {"sessions": 10_000, "messages": 120_000, "big": 2_000}


@dataclass
class Case:
    """One command on one home, with its target ratio."""

    home: str
    name: str
    argv: list[str]
    target: float
    warm: bool = False  # run once untimed first (starts what later runs reuse)
    before: Callable[[], None] | None = None  # done before each run, untimed
    trail_ms: float = 0.0
    floor_ms: float = 0.0
    ratio: float = 0.0
    cpu_ratio: float = 0.0  # the same of CPU time: what a busy shared machine changes least


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds one run takes (wall clock, and the CPU time of the process itself: user + system), output
    discarded; raises naming the command when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
    took = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: a search that found nothing, which is still an answer
        raise RuntimeError(f"{' '.join(argv[1:4])} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def ensure_big(out: Path) -> Path:
    """The 10k-session store's Hermes home, generated once."""
    home = out / "big" / "hermes_home"
    if not (home / "state.db").exists():
        print(f"building a store of {BIG['sessions']:,} sessions in {out / 'big'} ...", flush=True)
        cmd = [
            sys.executable,
            str(GENERATOR),
            str(out / "big"),
            "--sessions",
            str(BIG["sessions"]),
            "--messages",
            str(BIG["messages"]),
            "--big-session",
            str(BIG["big"]),
        ]
        subprocess.run(cmd, check=True)
    return home


def first_session(trail: list[str], home: Path, env: dict[str, str]) -> str:
    """The newest session's id: what ``show`` replays."""
    done = subprocess.run(
        [*trail, "list", "--json", "-n", "1", "--home", str(home)], env=env, capture_output=True, check=True
    )
    return str(json.loads(done.stdout)["sessions"][0]["id"])


def cases_for(name: str, home: Path, index: Path, trail: list[str], env: dict[str, str]) -> list[Case]:
    """The commands timed on one home; its index is built (words, then vectors) first."""
    where = ["--home", str(home)]
    print(f"indexing {name} ...", flush=True)
    subprocess.run(
        [*trail, "index", "--index", str(index), *where], env=env, check=True, stdout=subprocess.DEVNULL
    )
    sid = first_session(trail, home, env)
    indexed = [*where, "--index", str(index)]
    cases = [
        Case(name, "--help", [*trail, "--help"], 4.0),
        Case(name, "list", [*trail, "list", *where], 8.0 if name == "10k" else 4.0),
        Case(name, "show", [*trail, "show", sid, *where], 4.0),
        Case(name, "stats", [*trail, "stats", *where], 4.0),
        # A word both homes' indexes answer ("error" is in no demo session: its search went on to the
        # meaning pass, and was no search the words answer).
        Case(name, "search (words)", [*trail, "search", "test", *indexed], 4.0),
        # Words no session has together: the meaning pass runs (and the model encodes the query).
        Case(
            name,
            "search (meaning)",
            [*trail, "search", "my editor takes ages to open", *indexed],
            5.0,
            warm=True,
        ),
    ]
    if name == "10k":
        cases = [c for c in cases if c.name != "--help"]  # --help reads no home: timed once, on the demo
    return cases


def turn_cases(name: str, home: Path, out: Path, trail: list[str], env: dict[str, str]) -> list[Case]:
    """``search (a turn)`` and ``stats (a turn)``: a copy of ``home`` (never the home itself, the bundled
    demo among them), its own index, and a new prompt written by Hermes' ``SessionDB`` before each run."""
    from hermes_state import SessionDB

    copy = out / f"turn-{name}" / "hermes_home"
    shutil.rmtree(copy.parent, ignore_errors=True)
    shutil.copytree(home, copy)
    index = out / f"turn-{name}" / "index.db"
    where = ["--home", str(copy)]
    # Its words only: the search timed is one the words answer, and the vector stage of 10,000 sessions
    # would double the benchmark's time.
    subprocess.run(
        [*trail, "index", "--index", str(index), "--no-vectors", *where],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    sid = first_session(trail, copy, env)

    def prompt() -> None:
        db = SessionDB(db_path=copy / "state.db")
        try:
            db.append_message(sid, "user", "And the test that failed after that?")
        finally:
            db.close()

    return [
        Case(name, "search (a turn)", [*trail, "search", "test", *where, "--index", str(index)], 8.0,
             before=prompt),
        Case(name, "stats (a turn)", [*trail, "stats", *where], 20.0, before=prompt),
    ]  # fmt: skip


def measure(case: Case, repeat: int, env: dict[str, str]) -> None:
    """Median of trail's and the floor's runs, alternating; the ratio is the median of pair ratios."""
    if case.warm:
        run(case.argv, env)
    run(case.argv, env)  # page cache, .pyc files
    trail_s, floor_s, ratios, cpu_ratios = [], [], [], []
    for _ in range(repeat):
        if case.before is not None:
            case.before()
        a, a_cpu = run(case.argv, env)
        b, b_cpu = run(FLOOR, env)
        trail_s.append(a)
        floor_s.append(b)
        ratios.append(a / b)
        cpu_ratios.append(a_cpu / b_cpu if b_cpu else 0.0)
    case.trail_ms = statistics.median(trail_s) * 1000
    case.floor_ms = statistics.median(floor_s) * 1000
    case.ratio = statistics.median(ratios)
    case.cpu_ratio = statistics.median(cpu_ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the demo home only, 3 runs a command")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "out" / "cli")
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 7)
    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "TRAIL_"))}
    # Installed code runs from compiled .pyc files; a setting that forbids writing them would have every
    # run compile the sources it imports, which no user's install does.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # The code of this checkout, whatever the environment's install of hermes-trail points at.
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), *filter(None, [env.get("PYTHONPATH")])])
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "src")], check=False, stdout=subprocess.DEVNULL
    )
    env.update(COLUMNS="80", NO_COLOR="1", HOME=str(out / "user"), TRAIL_MEANING_SOCKET_DIR=str(out / "run"))
    env["TRAIL_ENCODE_BEHIND"] = "0"  # no vector stage behind the queries takes a core from what is timed
    trail = trail_command()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}   cores: {os.cpu_count()}")
    homes = [("demo", DEMO_HOME)]
    if not args.quick:
        homes.append(("10k", ensure_big(out)))
    cases: list[Case] = []
    try:
        for name, home in homes:
            cases += cases_for(name, home, out / f"index-{name}.db", trail, env)
            cases += turn_cases(name, home, out, trail, env)
        for case in cases:
            measure(case, repeat, env)
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        print(f"failed: {exc}", file=sys.stderr)
        return 1
    finally:
        subprocess.run(
            [*trail, "index", "--stop-server"],
            env=env,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    print(
        f"\n{'home':<5} {'command':<17} {'trail ms':>9} {'floor ms':>9} {'ratio':>7} {'cpu':>7} {'target':>7}"
    )
    for c in cases:
        mark = "" if c.ratio <= c.target else "  over"
        figures = f"{c.trail_ms:9.0f} {c.floor_ms:9.1f} {c.ratio:6.1f}x {c.cpu_ratio:6.1f}x {c.target:6.0f}x"
        print(f"{c.home:<5} {c.name:<17} {figures}{mark}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    figures = [
        {
            "home": c.home,
            "command": c.name,
            "trail_ms": round(c.trail_ms, 1),
            "floor_ms": round(c.floor_ms, 1),
            "ratio": round(c.ratio, 2),
            "cpu_ratio": round(c.cpu_ratio, 2),
            "target": c.target,
        }
        for c in cases
    ]
    print(json.dumps({"repeat": repeat, "cases": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
