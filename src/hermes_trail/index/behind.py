"""The vector stage behind the queries: sessions a query's sync brought in get their passages without anyone
running ``trail index``.

Until a session has passages it is compared by its gist alone, which finds a paraphrase less often and a
question in another language rarely (bench/recall/README.md). Most people, and every agent behind the MCP
server or the Hermes plugin, never run ``trail index``; without this stage their newest sessions, the ones
asked about most, would stay gist-only for good.

So a sync that leaves the index's sessions in a state no stage was started for (sessions came in, by this
sync or by one in a Python without the model: the Hermes plugin's; or a stage before made some of those
still without passages) starts (:func:`start`) a detached process
that encodes the newest sessions without passages, at most :data:`MOST_SESSIONS` of them, on one core at
the lowest scheduling priority: the query that started it does not wait, and queries meanwhile keep both
their speed and their answers (the passages of a session appear when its batch is committed). Only one runs
per index (the vector stage's lock); sessions synced while it runs (a conversation going on) are its too.
One a person starts (``trail index``) takes over from it after the batch under way.
``TRAIL_ENCODE_BEHIND=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_trail.index.vectors import VectorReport

# Sessions a stage behind the queries encodes at most, newest first: under two minutes of one core at worst
# (at most 32 passages a session, about 85 a second), usually seconds. Older ones wait for the next such
# stage (the next sync that finds fewer awaiting starts it) or for `trail index`.
MOST_SESSIONS = 300
# The file beside the index that holds the state of its sessions (``sync.sessions_state``) the last stage was
# started for, or that `trail index` encoded itself: a query's sync that leaves that state starts none.
STARTED = ".vectors-behind"
# The stages this process started, reaped when the next is considered (a child left unwaited for would
# linger as a zombie in a long-running server).
_started: list[tuple[Path, Any]] = []


def enabled() -> bool:
    """Whether a sync may start a stage here: not turned off, a platform with detached processes and
    advisory locks, and the sentence encoder installed (not in Hermes' own Python)."""
    if os.environ.get("TRAIL_ENCODE_BEHIND", "1").strip().lower() in ("0", "no", "false", "off"):
        return False
    if sys.platform == "win32" or not sys.executable:  # an embedding interpreter may not know its own
        return False
    from hermes_trail.index import encoder

    return encoder.available()


def start(path: Path, state: str, awaiting: int | None = None) -> bool:
    """Start a stage behind the queries for the index at ``path``, whose sessions a sync left in ``state``
    with ``awaiting`` of them still without passages (``schema.awaiting_passages``), unless none is, one was
    started for that state and count, or one runs; whether one was started. A stage makes at most
    :data:`MOST_SESSIONS`: the next sync after it finds fewer awaiting, and starts the next, so a history
    is encoded whole at the pace it is searched. It never fails the query: a stage that cannot be started
    leaves the sessions to a later sync or to ``trail index``."""
    from hermes_trail.index import schema

    if awaiting == 0:
        return False
    if schema.marked(path.with_name(path.name + STARTED), _marked(state, awaiting)):
        return False
    _started[:] = [(index, child) for index, child in _started if child.poll() is None]
    if not enabled() or any(index == path for index, _ in _started):  # ours, maybe not at the lock yet
        return False
    from hermes_trail.index import vectors

    if vectors.held(path):  # the one at work takes what came in (and a later sync starts one if it did not)
        return False
    import subprocess

    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_trail.index.behind", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,  # not ended by the terminal's Ctrl-C, nor waited for by the command
            env=environment(),
        )
    except OSError:
        return False
    _started.append((path, child))
    settle(path, state, awaiting)
    return True


def settle(path: Path, state: str, awaiting: int | None = None) -> None:
    """Say that the sessions of the index at ``path`` in ``state``, ``awaiting`` of them without passages,
    need no stage behind the queries: one was started for them, or the caller encodes them itself
    (``trail index``)."""
    from hermes_trail.index import schema

    schema.mark(path.with_name(path.name + STARTED), _marked(state, awaiting))


def _marked(state: str, awaiting: int | None) -> str:
    """What :data:`STARTED` holds for ``state``: with the format passages are made by, so the first sync
    after an upgrade that makes them another way starts a stage, which makes them again; and how many
    sessions awaited passages, so a sync after a stage that left some (it makes at most
    :data:`MOST_SESSIONS`) starts the next, and one after a stage that could make none starts none."""
    from hermes_trail.index import schema

    return f"{state} passages {schema.PASSAGES_FORMAT} awaiting {awaiting}"


def environment() -> dict[str, str]:
    """A stage's environment: this process's, every BLAS library on one thread (one core: the other stays
    the queries')."""
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    return env


def run(path: Path, limit: int | None = None) -> VectorReport:
    """The stage itself, as the process :func:`start` starts runs it (``bench_vectors.py --behind`` too):
    at the lowest scheduling priority, in this process, the newest :data:`MOST_SESSIONS` sessions without
    passages (``limit``: passages a session at most, default the index's own bound)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(19)
    from hermes_trail.index import search, vectors

    report = vectors.encode_pending(path, limit=limit, workers=1, behind=True, most=MOST_SESSIONS)
    search.prepare_dictionary()  # with time to spare: what a question in another language, or a typo, needs
    return report


def main(argv: list[str]) -> int:
    """``python -m hermes_trail.index.behind INDEX``: :func:`run` in the process :func:`start` started."""
    if len(argv) != 1:
        print("usage: python -m hermes_trail.index.behind INDEX", file=sys.stderr)
        return 2
    run(Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
