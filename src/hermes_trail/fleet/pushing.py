"""Pushing to the shared index from a process that runs on (the Hermes plugin, ``trail mcp --push``): what
the local index gained since the last push is sent, at most every so many seconds, in a background thread
of the caller's, never in an answer; a failure is kept and logged, and the next push tries again."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("hermes_trail.fleet")


class Pusher:
    """Pushes ``index`` to the shared index at ``dsn`` (a pushing login's DSN, docs/fleet.md), at most every
    ``every`` seconds. :attr:`last` is what the last push did (``fleet.push.PushReport``) or the error it
    met (its message hides the DSN's password)."""

    def __init__(self, dsn: str, every: float = 60.0) -> None:
        self.dsn = dsn
        self.every = every
        self.last: Any = None
        self._pushed_at = -1e9
        self._lock = threading.Lock()

    def due(self) -> bool:
        return time.monotonic() - self._pushed_at >= self.every

    def push(self, index: Path) -> Any:
        """Push now unless the last push was less than ``every`` seconds ago (or one runs); what it did,
        or ``None`` when it did not push. Never raises."""
        if not self.due() or not self._lock.acquire(blocking=False):
            return None
        try:
            self._pushed_at = time.monotonic()
            from hermes_trail.fleet.push import push

            self.last = push(index, self.dsn)
            log.debug("hermes-trail: pushed to the shared index (%s)", self.last)
        except Exception as exc:  # psycopg missing, the server, the login: kept, tried again next time
            self.last = exc
            log.debug("hermes-trail: push to the shared index failed: %s", exc)
        finally:
            self._lock.release()
        return self.last


def push_in_background(
    pusher: Pusher, sync: Callable[[], Path], stop: threading.Event | None = None
) -> threading.Thread:
    """A daemon thread that, every ``pusher.every`` seconds, brings the local index up to date (``sync``,
    which returns its path) and pushes it (``trail mcp --push``). ``stop`` ends it."""
    stop = stop or threading.Event()

    def run() -> None:
        while not stop.is_set():
            try:
                pusher.push(sync())
            except Exception as exc:  # a sync that failed: the next round tries again
                pusher.last = exc
                log.debug("hermes-trail: sync before a push failed: %s", exc)
            stop.wait(pusher.every)

    thread = threading.Thread(target=run, name="trail-fleet-push", daemon=True)
    thread.start()
    return thread
