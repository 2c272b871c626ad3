"""What tells cheaply that a SQLite store changed, for every cache of what was read from one (the search
index's sync, ``trail stats``' rows): each file's identity, size and times, and the header bytes a commit
changes. Only read, never locked or written.

Sizes and times alone miss commits: a file's time moves in clock ticks, and after a checkpoint the WAL is
written again from its start at the same size. So a mark also holds the database header's change counter
and page count (a commit in rollback mode bumps them), the WAL's header (a restart changes its checkpoint
sequence and salts), and the WAL index header at the start of ``-shm`` (its change counter, last frame and
salts: a commit in WAL mode bumps them).

The WAL and its index are marked without their change time. SQLite running as root gives both files the
database's owner on every connection it opens (``fchown``, even to the owner they have, even for a
reader), which moves their change time and nothing else: a mark with it changed whenever anything, trail's
own read included, opened the store, so every command read every store again. Their size, modification
time and headers still move with every commit.

Within a store that changed, what tells which sessions changed besides their new rows is a digest of each
``sessions`` row as its reader marks it (:func:`row_digest`), which the index's fingerprints and the stats
cache's both hold.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

# (offset, length) of the bytes a change moves: the database's change counter and page count, the WAL's
# header, the WAL index header.
DB_HEADER = (24, 8)
WAL_HEADER = (0, 32)
SHM_HEADER = (0, 48)
# Each part: its suffix, its header, and whether its change time counts (not for the files SQLite
# re-owns on every open as root; see the module).
_PARTS = (("", DB_HEADER, True), ("-wal", WAL_HEADER, False), ("-shm", SHM_HEADER, False))

Mark = tuple[Any, ...]


def file_mark(path: str, header: tuple[int, int] | None = None, changed: bool = True) -> Mark | None:
    """A file's identity (device, inode), size, modification and change times (0 for the change time
    unless ``changed``), and its bytes at ``header`` (offset, length); ``None`` for a file that is not there
    or cannot be read."""
    try:
        with open(path, "rb") as handle:
            found = os.fstat(handle.fileno())
            head = b""
            if header is not None:
                handle.seek(header[0])
                head = handle.read(header[1])
    except OSError:
        return None
    ctime = found.st_ctime_ns if changed else 0
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, ctime, head)


def store_marks(path: str | os.PathLike[str]) -> tuple[Mark | None, Mark | None, Mark | None]:
    """The marks of a store's database, its WAL and its WAL index (``None`` for one not there)."""
    base = os.fspath(path)
    db, wal, shm = (file_mark(base + suffix, header, ctime) for suffix, header, ctime in _PARTS)
    return db, wal, shm


# What opens a fingerprint made by :func:`row_digest`, which tells it from one of the earlier form.
MARK_FORM = "2:"


def row_digest(mark: bytes, divert: str = "") -> str:
    """What tells that a session changed besides new rows: a digest of its ``sessions`` row, as its store's
    reader marks it (:meth:`~hermes_trail.hermes.reader.StoreReader.session_marks`), and of its divert
    file's identity when it has one. Hermes updates the row whenever it changes old rows: a rewind bumps
    ``rewind_count`` and ``message_count``; compaction and model switches also add rows, which the
    watermark catches."""
    digest = hashlib.blake2b(mark, digest_size=12)
    if divert:
        digest.update(divert.encode())
    return MARK_FORM + digest.hexdigest()
