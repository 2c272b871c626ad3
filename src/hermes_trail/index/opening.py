"""Opening the index file, or building a new one beside it and swapping it in.

An index of this format is opened as it is. Anything else (no index yet, another format, a damaged file,
``trail index --rebuild``) gets a new file built beside it, ``index.db.building``, which takes the place
of the old one only when complete: a search in another process meanwhile still finds the old index where
it can read one, and an interrupted build leaves the old file as it was.

A build is cut short more often than not on a large history (a one-shot ``hermes chat -q`` ends, a laptop
sleeps, Ctrl-C), so it commits what it wrote every few seconds (``sync.COMMIT_SECONDS``) into that file,
under a rollback journal: a build killed at any point leaves the file as of its last commit (the journal
a kill leaves hot is rolled back when the file is next opened). The next build takes it up where it stopped
instead of starting over: the file already holds what the incremental sync needs to skip what is done (each
session's fingerprint, and a ``stores`` row per store, complete or, with an empty identity, begun). The
name is the same for every build, so nothing piles up beside the index. A rollback journal rather than
the shared index's write-ahead log: a build mostly appends, and pages added after a commit are not
journaled, where a write-ahead log would write each page twice.

Nobody else reads the file while it is built, so its commits are not synced to disk: what a killed process
wrote is the kernel's to write, and a clean shutdown writes it. Syncing at each commit (and before each
spill of the page cache) made a build on a busy disk a third slower. Only a power cut or a crash of the
machine can leave the file damaged, so a build left over from an earlier boot of the machine is checked
(``PRAGMA quick_check``) before it is taken up, and built anew when it fails. The finished file is synced
before it takes the index's place.

Where there is no index yet the finished file is made durable and renamed into place; an index that is
there, which other processes may have open, is overwritten through SQLite instead, in one transaction they
see commit. A damaged file is moved aside, never deleted; a database that is not an index (a Hermes store
named by mistake) is refused untouched.

One build at a time: a lock file beside the index is held from the decision to build until the swap (the
operating system lets it go when a build is killed). A process that finds it held waits a while, then
opens the index as it stands, or says the first build is still under way when there is none to open.
"""

from __future__ import annotations

import contextlib
import glob
import os
import sqlite3
import time
from pathlib import Path
from typing import IO

from hermes_trail import readonly
from hermes_trail.durable import fsync_directory
from hermes_trail.errors import TrailError
from hermes_trail.index import schema

# How long a process waits for another's build of the index before going on without it.
BUILD_WAIT_SECONDS = 10.0
# The name a build's file gets beside the index (``index.db`` + this), the same for every build.
BUILDING = ".building"
# ``meta`` keys of a file being built: the messages read into it so far (an estimate of what is done, for
# the line that says a build is taken up again and for ``trail install``'s estimate of what is left), and
# the boot of the machine it was last written in (:func:`_boot_id`).
BUILD_MESSAGES = "build_messages"
BUILD_BOOT = "build_boot"
_SIDECARS = ("-wal", "-shm", "-journal")


class OpenedIndex:
    """The index to sync: the file in place, or a new one being built beside it (then :meth:`finish`
    swaps it in, :meth:`abandon` leaves it for the next build to take up). A plain class: a dataclass
    would be made (its methods generated and compiled) at every start of a command that searches."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        rebuilt: str | None = None,
        building: Path | None = None,
        lock: IO[str] | None = None,
        resumed: tuple[int, int] | None = None,
    ) -> None:
        self.path = path
        self.conn = conn
        self.rebuilt = rebuilt  # why a new index is being built, for the one line that says so
        self.building = building
        self.lock = lock
        self.resumed = resumed  # (sessions, messages) a build cut short had committed

    def __repr__(self) -> str:
        return f"OpenedIndex(path={self.path!r}, rebuilt={self.rebuilt!r}, building={self.building!r})"

    def finish(self) -> None:
        """Put the new file in the old one's place: renamed there when there is none (made durable first,
        switched to write-ahead logging), else copied into it (:meth:`_copy_over`)."""
        if self.building is None:
            self.conn.close()
            return
        try:
            self.conn.execute("DELETE FROM meta WHERE key IN (?, ?)", (BUILD_MESSAGES, BUILD_BOOT))
            schema.merge_whole(self.conn)
            schema.tune_fts(self.conn, schema.IN_USE_FTS)
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
            _remove(self.building)  # its closed journal, if one was left
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

    def abandon(self, discard: bool = False) -> None:
        """Close, leaving the old index as it was. A new file half built stays for the next build to take
        up from its last commit, unless ``discard`` (it cannot be built on: damaged)."""
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        if self.building is not None:
            if discard:
                _remove(self.building)
            self._unlock()

    def _unlock(self) -> None:
        if self.lock is not None:
            _release(self.lock)
            self.lock = None


def open_index(path: Path, rebuild: bool = False) -> OpenedIndex:
    """The index at ``path`` to sync, or a new one beside it when it is missing, of another format or
    damaged, or ``rebuild`` is asked (taking up the one a build cut short left, when there is one).

    :raises TrailError: ``path`` is a database that is not an index, or a directory; or another process is
        building an index there and did not finish within :data:`BUILD_WAIT_SECONDS`, while this one has
        none it can read or was asked to rebuild.
    """
    if path.is_dir():  # read as a damaged index, it was moved aside, the user's folder with it
        raise TrailError(
            f"{path} is a directory, not a search index file; name the file (for example {path / 'index.db'})"
        )
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


def building_path(path: Path) -> Path:
    """The file a build of the index at ``path`` writes, and a build cut short leaves."""
    return path.with_name(path.name + BUILDING)


def build_under_way(path: Path) -> bool:
    """Whether another process holds the build lock of the index at ``path`` now (without waiting)."""
    if not path.with_name(path.name + ".lock").exists():
        return False
    lock = _acquire(path, 0.0)
    if lock is None:
        return True
    _release(lock)
    return False


def build_progress(path: Path) -> tuple[int, int] | None:
    """The (sessions, messages) a build of the index at ``path`` cut short has committed; ``None`` when
    there is no such build to take up (or it cannot be read). When no build is under way, what a killed
    one had not committed is rolled back first, as the next build would (read-only, SQLite refuses to read
    past a journal left hot); one under way is read as it has committed so far."""
    building = building_path(path)
    if not building.is_file():
        return None
    lock = _acquire(path, 0.0)
    try:
        if lock is not None:
            conn = sqlite3.connect(building, timeout=1.0)
        else:
            conn = readonly.connect(building, timeout=1.0)
        try:
            if schema.format_of(conn) != schema.FORMAT:
                return None
            sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            done = _meta(conn, BUILD_MESSAGES)
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    finally:
        if lock is not None:
            _release(lock)
    return int(sessions), int(done or 0)


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
    # Holding the lock, no other build is under way: a file left beside under the name each build gave
    # its own (``index.db.new-<pid>``, before builds were taken up again) is from one that was killed.
    for stale in path.parent.glob(f"{glob.escape(path.name)}.new-*"):
        if not stale.name.endswith(_SIDECARS):
            _remove(stale)
    building = building_path(path)
    conn, resumed = _take_up(building)
    return OpenedIndex(path, conn, reason, building, lock, resumed)


def _take_up(building: Path) -> tuple[sqlite3.Connection, tuple[int, int] | None]:
    """The file a build cut short left, to go on with, and what it holds (sessions, messages); else a new
    one. A file that is not an index of this format (an older trail's, damaged) is built anew."""
    boot = _boot_id()
    if building.exists():
        conn = None
        try:
            conn = _connect_building(building)  # rolls back what a killed build had not committed
            if schema.format_of(conn) == schema.FORMAT and (
                _meta(conn, BUILD_BOOT) == boot != "" or _sound(conn)
            ):
                sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
                done = _meta(conn, BUILD_MESSAGES)  # none: cut short when complete, before the swap
                conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?), (?, ?)",
                    (BUILD_MESSAGES, done or 0, BUILD_BOOT, boot),
                )
                return conn, (int(sessions), int(done or 0))
        except sqlite3.DatabaseError:
            pass
        if conn is not None:
            conn.close()
    _remove(building)
    conn = _connect_building(building)
    try:  # a file cut short while made has no format yet, and is made anew
        schema.create(conn)
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, 0), (?, ?)", (BUILD_MESSAGES, BUILD_BOOT, boot)
        )
    except BaseException:
        conn.close()
        _remove(building)
        raise
    return conn, None


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _boot_id() -> str:
    """This boot of the machine (Linux); empty where it cannot be told, and then every build left is
    checked before it is taken up."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _sound(conn: sqlite3.Connection) -> bool:
    """Whether a file written without syncs, in an earlier boot of the machine, came through whole."""
    return bool(conn.execute("PRAGMA quick_check").fetchone()[0] == "ok")


def _connect_building(building: Path) -> sqlite3.Connection:
    """A connection to a file being built: seen by no other process until complete, so its commits need
    to survive the build being killed (a rollback journal), not a power cut (no syncs)."""
    conn = sqlite3.connect(building, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode = TRUNCATE")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(f"PRAGMA cache_size = {schema.CACHE_SIZE}")
    except BaseException:
        conn.close()
        raise
    return conn


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
