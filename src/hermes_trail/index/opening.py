"""Opening the index file, or building a new one beside it and swapping it in.

An index of this format is opened as it is. Anything else (no index yet, another format, a damaged file,
``trail index --rebuild``) gets a new file built beside it, ``index.db.new-<pid>``, which takes the place
of the old one only when complete: a search in another process meanwhile still finds the old index where
it can read one, and an interrupted build leaves the old file as it was.

The new file is seen by no other process while it is built, so it is written without a journal and
without syncs (each page once, where the shared index's write-ahead log would write it twice). Where there
is no index yet it is made durable and renamed into place; an index that is there, which other processes
may have open, is overwritten through SQLite instead, in one transaction they see commit. A damaged file
is moved aside, never deleted; a database that is not an index (a Hermes store named by mistake) is
refused untouched.

One build at a time: a lock file beside the index is held from the decision to build until the swap. A
process that finds it held waits a while, then opens the index as it stands, or says the first build is
still under way when there is none to open.
"""

from __future__ import annotations

import contextlib
import glob
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from hermes_trail.durable import fsync_directory
from hermes_trail.errors import TrailError
from hermes_trail.index import schema

# How long a process waits for another's build of the index before going on without it.
BUILD_WAIT_SECONDS = 10.0
_SIDECARS = ("-wal", "-shm", "-journal")


@dataclass
class OpenedIndex:
    """The index to sync: the file in place, or a new one being built beside it (then :meth:`finish`
    swaps it in, :meth:`abandon` throws it away)."""

    path: Path
    conn: sqlite3.Connection
    rebuilt: str | None = None  # why a new index is being built, for the one line that says so
    building: Path | None = None
    lock: IO[str] | None = None

    def finish(self) -> None:
        """Put the new file in the old one's place: renamed there when there is none (made durable first,
        switched to write-ahead logging), else copied into it (:meth:`_copy_over`)."""
        if self.building is None:
            self.conn.close()
            return
        try:
            self.conn.execute("PRAGMA journal_mode = WAL")
            if self.path.exists() and self._copy_over():
                return
            self.conn.close()
            with self.building.open("rb+") as handle:
                os.fsync(handle.fileno())
            for suffix in _SIDECARS:  # a removed index's sidecars must not be read as the new one's
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{self.path}{suffix}").unlink()
            self.building.replace(self.path)
            fsync_directory(self.path.parent)
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            self._unlock()

    def _copy_over(self) -> bool:
        """Copy the new index into the old file through SQLite (its backup API, one write transaction):
        another process may have the old index open, and a database renamed over while in use is one its
        connections can corrupt (a connection closing on the old file deletes the write-ahead log by name).
        Readers keep reading the old index until the copy commits. ``False`` when the old file cannot take
        it (another page size): the new one is then renamed over it."""
        assert self.building is not None
        target = schema.connect(self.path)
        try:
            target.execute(f"PRAGMA busy_timeout = {int(BUILD_WAIT_SECONDS * 1000)}")
            self.conn.backup(target)
            target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            return False
        finally:
            target.close()
        self.conn.close()
        _remove(self.building)
        return True

    def abandon(self) -> None:
        """Close; a new file half built is deleted, and the old index stays as it was."""
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        if self.building is not None:
            _remove(self.building)
            self._unlock()

    def _unlock(self) -> None:
        if self.lock is not None:
            _release(self.lock)
            self.lock = None


def open_index(path: Path, rebuild: bool = False) -> OpenedIndex:
    """The index at ``path`` to sync, or a new one beside it when it is missing, of another format or
    damaged, or ``rebuild`` is asked.

    :raises TrailError: ``path`` is a database that is not an index; or another process is building an
        index there and did not finish within :data:`BUILD_WAIT_SECONDS`, while this one has none it can
        read or was asked to rebuild.
    """
    found = schema.inspect(path)
    if found == schema.FOREIGN:  # checked before the lock file, which would land beside it
        raise _foreign(path)
    if found == schema.FORMAT and not rebuild:
        return OpenedIndex(path, schema.connect(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = _acquire(path, BUILD_WAIT_SECONDS)
    if lock is None:  # another process is building: use what is in place, if this process can read it
        if not rebuild and schema.inspect(path) == schema.FORMAT:
            return OpenedIndex(path, schema.connect(path))
        raise TrailError(
            f"the search index {path} is being built by another trail process; try again when it is done"
        )
    try:
        found = schema.inspect(path)  # as it is now that this process holds the lock
        if found == schema.FORMAT and not rebuild:
            _release(lock)
            return OpenedIndex(path, schema.connect(path))
        return _build_beside(path, found, rebuild, lock)
    except BaseException:
        _release(lock)
        raise


def _foreign(path: Path) -> TrailError:
    return TrailError(f"{path} is a database but not a hermes-trail index; refusing to touch it")


def _build_beside(path: Path, found: str | None, rebuild: bool, lock: IO[str]) -> OpenedIndex:
    if found == schema.FOREIGN:  # it became one while this process waited for the lock
        raise _foreign(path)
    reason: str | None = None
    if found == schema.DAMAGED:
        aside = path.with_name(f"{path.name}.damaged-{int(time.time())}")
        path.replace(aside)
        reason = f"the index was damaged (kept as {aside.name})"
    elif rebuild and found is not None:
        reason = "asked to rebuild it"
    elif found is not None:
        reason = f"index format {found} is not {schema.FORMAT}"
    # Holding the lock, no other build is under way: a new file left beside is from one that was killed.
    for stale in path.parent.glob(f"{glob.escape(path.name)}.new-*"):
        if not stale.name.endswith(_SIDECARS):
            _remove(stale)
    fresh = path.with_name(f"{path.name}.new-{os.getpid()}")
    _remove(fresh)
    conn = sqlite3.connect(fresh, isolation_level=None, check_same_thread=False)
    try:
        # Nobody else sees this file until it is complete; a failed build deletes it.
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(f"PRAGMA cache_size = {schema.CACHE_SIZE}")
        schema.create(conn)
    except BaseException:
        conn.close()
        _remove(fresh)
        raise
    return OpenedIndex(path, conn, reason, fresh, lock)


def _remove(db: Path) -> None:
    for suffix in ("", *_SIDECARS):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{db}{suffix}").unlink()


def _acquire(path: Path, wait: float) -> IO[str] | None:
    """The build lock beside ``path``, waiting up to ``wait`` seconds; ``None`` when another holds it."""
    handle = path.with_name(path.name + ".lock").open("a")
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; SQLite's own locking still keeps writes whole
        return handle
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() >= deadline:
                handle.close()
                return None
            time.sleep(0.05)
        except BaseException:
            handle.close()
            raise


def _release(handle: IO[str]) -> None:
    try:
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_UN)
    except ImportError:
        pass
    finally:
        handle.close()
