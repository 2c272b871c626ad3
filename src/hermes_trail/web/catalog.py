"""The web viewer's view of the stores: every session, kept fresh, and the figures only messages tell,
measured in the background.

The catalog is read again when a store's files change (checked at most once a :data:`CHECK_EVERY`
seconds), so a running Hermes' new sessions appear on the next page load. A session's messages are read in
a history of their own, opened for the request and closed after it: nothing loaded is shared between
threads. The measurer reads every session once, newest first, in one background thread, and keeps each
session's :class:`~hermes_trail.stats.Figures` until the session changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hermes_trail.history import History, open_history
from hermes_trail.model import Session
from hermes_trail.stats import Figures, SessionKey, measure

CHECK_EVERY = 1.0
Signature = tuple[tuple[str, int, int], ...]


def _fingerprint(session: Session) -> tuple[object, ...]:
    """What changes when a session gains rows: its activity, its row count and ending."""
    return (session.last_activity_at, session.message_count, session.ended_at, session.row_stats)


@dataclass
class Catalog:
    """Every session of the stores named by ``homes``/``dbs`` (none: the ones Hermes' rules find)."""

    homes: tuple[str | Path, ...] = ()
    dbs: tuple[str | Path, ...] = ()
    pgs: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    _history: History | None = field(default=None, init=False, repr=False)
    _signature: Signature = field(default=(), init=False, repr=False)
    _checked: float = field(default=-1e9, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    generation: int = field(default=0, init=False)

    def _files(self, history: History) -> Signature:
        out: list[tuple[str, int, int]] = []
        for location in history.locations:
            for suffix in ("", "-wal"):
                path = Path(f"{location.path}{suffix}")
                try:
                    st = path.stat()
                except OSError:
                    continue
                out.append((str(path), st.st_size, st.st_mtime_ns))
        return tuple(out)

    def history(self) -> History:
        """The catalog, read again when a store changed since it was last read."""
        with self._lock:
            now = time.monotonic()
            if self._history is not None and now - self._checked < CHECK_EVERY:
                return self._history
            self._checked = now
            if self._history is not None and self._files(self._history) == self._signature:
                return self._history
            fresh = open_history(homes=self.homes, dbs=self.dbs, pgs=self.pgs, env=self.env)
            old, self._history = self._history, fresh
            self._signature = self._files(fresh)
            self.generation += 1
            if old is not None:
                old.close()
            return fresh

    def sessions(self) -> list[Session]:
        return list(self.history().sessions)

    def reader(self) -> History:
        """A history of its own for one request (close it after): finds sessions without a catalog."""
        return open_history(homes=self.homes, dbs=self.dbs, pgs=self.pgs, env=self.env, catalog=False)

    def close(self) -> None:
        with self._lock:
            if self._history is not None:
                self._history.close()
                self._history = None


class Measurer:
    """Reads each session of the catalog once, in a background thread, and keeps its figures."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._figures: dict[SessionKey, tuple[tuple[object, ...], Figures]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def figures(self, sessions: list[Session]) -> dict[SessionKey, Figures]:
        """The figures known for these sessions (a changed session's are dropped until measured again)."""
        self._start()
        with self._lock:
            out = {}
            for session in sessions:
                found = self._figures.get(session.key)
                if found is not None and found[0] == _fingerprint(session):
                    out[session.key] = found[1]
            return out

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="trail-measure", daemon=True)
            self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=5)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self._measure_pending()
            except Exception:  # a store that vanished mid-read: the next wake tries again
                time.sleep(1)

    def _measure_pending(self) -> None:
        sessions = self.catalog.sessions()
        with self._lock:
            pending = [s for s in sessions if self._figures.get(s.key, ((), None))[0] != _fingerprint(s)]
        if not pending:
            return
        with self.catalog.reader() as reader:
            for session in pending:
                if self._stop.is_set():
                    return
                try:
                    loaded = reader.load(reader.find(session.ref))
                except Exception:
                    continue
                figures = measure(loaded)
                loaded.turns, loaded.hidden, loaded.loaded = [], [], False
                with self._lock:
                    self._figures[session.key] = (_fingerprint(session), figures)
                time.sleep(0)  # let request threads in between sessions
