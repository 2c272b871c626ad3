"""What tells cheaply that a SQLite store changed, for every cache of what was read from one (the search
index's sync, ``trail stats``' rows): each file's identity, size and times, and the header bytes a commit
changes. Only read, never locked or written.

Sizes and times alone miss commits: a file's time moves in clock ticks, and after a checkpoint the WAL is
written again from its start at the same size. So a mark also holds the database header's change counter
and page count (a commit in rollback mode bumps them), the WAL's header (a restart changes its checkpoint
sequence and salts), and the WAL index header at the start of ``-shm`` (its change counter, last frame and
salts: a commit in WAL mode bumps them).
"""

from __future__ import annotations

import os
from typing import Any

# (offset, length) of the bytes a change moves: the database's change counter and page count, the WAL's
# header, the WAL index header.
DB_HEADER = (24, 8)
WAL_HEADER = (0, 32)
SHM_HEADER = (0, 48)
_PARTS = (("", DB_HEADER), ("-wal", WAL_HEADER), ("-shm", SHM_HEADER))

Mark = tuple[Any, ...]


def file_mark(path: str, header: tuple[int, int] | None = None) -> Mark | None:
    """A file's identity (device, inode), size, modification and change times, and its bytes at
    ``header`` (offset, length); ``None`` for a file that is not there or cannot be read."""
    try:
        with open(path, "rb") as handle:
            found = os.fstat(handle.fileno())
            head = b""
            if header is not None:
                handle.seek(header[0])
                head = handle.read(header[1])
    except OSError:
        return None
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns, head)


def store_marks(path: str | os.PathLike[str]) -> tuple[Mark | None, Mark | None, Mark | None]:
    """The marks of a store's database, its WAL and its WAL index (``None`` for one not there)."""
    db, wal, shm = (file_mark(f"{os.fspath(path)}{suffix}", header) for suffix, header in _PARTS)
    return db, wal, shm
