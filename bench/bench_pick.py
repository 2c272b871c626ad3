"""How fast ``trail pick`` opens, as a ratio to the interpreter floor.

Usage::

    python bench/bench_pick.py HERMES_HOME [--runs 9]

Each run starts ``python -m hermes_trail pick`` in a pseudo-terminal (120 x 30) on ``HERMES_HOME`` and
times, from the start of the process, the first frame (the list on the screen: the status line's
"sessions"), prompt_toolkit's first frame (from then on keys are read) and the preview shown ("$ hermes"
or "cannot resume"), then presses Esc.
The floor, ``python -c "import sqlite3, json"`` started in the same kind of terminal and timed to its exit,
runs in turn with it (floor, pick, floor, pick ...) so a machine that slows down mid-run moves both.
Prints the medians in milliseconds and their ratios to the floor.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import termios
import time

FLOOR = [sys.executable, "-c", "import sqlite3, json"]
PICK = [sys.executable, "-m", "hermes_trail", "pick"]


def _spawn(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int, float]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    return proc, master, started


def _read(master: int, seconds: float) -> bytes:
    ready, _, _ = select.select([master], [], [], seconds)
    if not ready:
        return b""
    try:
        return os.read(master, 65536)
    except OSError:
        return b""


def time_floor(env: dict[str, str]) -> float:
    proc, master, started = _spawn(FLOOR, env)
    proc.wait()
    elapsed = time.perf_counter() - started
    os.close(master)
    return elapsed


def time_pick(env: dict[str, str], timeout: float = 30.0) -> tuple[float, float, float]:
    """Seconds to the first frame, to prompt_toolkit's first frame (it turns bracketed paste on as it
    starts: keys are read from then on) and to the preview shown."""
    proc, master, started = _spawn(PICK, env)
    screen, first, drawn, up = b"", 0.0, 0.0, 0.0
    deadline = started + timeout
    while not up and time.perf_counter() < deadline:
        screen += _read(master, 0.005)
        now = time.perf_counter() - started
        if not first and b"sessions" in screen:
            first = now
        if not drawn and b"\x1b[?2004h" in screen:
            drawn = now
        if b"$ hermes" in screen or b"cannot resume" in screen:
            up = now
    os.write(master, b"\x1b")
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    os.close(master)
    if not up:
        raise SystemExit(f"the picker never came up; it drew: {screen[-500:]!r}")
    return first, drawn or up, up


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", help="the Hermes home to pick from")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    env = {**os.environ, "HERMES_HOME": args.home, "TERM": "xterm-256color"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # installed packages have bytecode: the warm-up writes it
    time_floor(env), time_pick(env)  # warm the page cache and the bytecode
    floors: list[float] = []
    firsts: list[float] = []
    drawns: list[float] = []
    ups: list[float] = []
    for _ in range(args.runs):
        floors.append(time_floor(env))
        first, drawn, up = time_pick(env)
        firsts.append(first)
        drawns.append(drawn)
        ups.append(up)
    floor = statistics.median(floors)
    print(f"floor (python -c 'import sqlite3, json'): {floor * 1000:.0f} ms")
    for name, values in (("first frame", firsts), ("picker reads keys", drawns), ("preview shown", ups)):
        median = statistics.median(values)
        print(
            f"{name}: {median * 1000:.0f} ms, {median / floor:.1f}x the floor "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
