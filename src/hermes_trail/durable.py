"""Making a rename survive a power cut: a file is flushed to disk before it takes another's name, and its
directory after, so the new name is on disk too. Shared by what writes files the user relies on: the
installer's edits of a Hermes home, the index swapped into place, the dictionary compiled into the cache."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path


def fsync_directory(directory: Path) -> None:
    """Flush a directory's entries to disk (POSIX; Windows cannot open a directory and needs no such step)."""
    if sys.platform == "win32":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``path`` so that it is at every moment either its old content or ``data``, never a part. A new
    file gets the permissions the umask gives (a temporary file would be private)."""
    with atomic_path(path, mode) as draft, draft.open("wb") as out:
        out.write(data)


@contextlib.contextmanager
def atomic_path(path: Path, mode: int | None = None) -> Iterator[Path]:
    """An empty file beside ``path`` to write as the block likes (a database built in it): when the block
    ends, flushed to disk and renamed over ``path``; when it fails, removed. ``path`` is at every moment its
    old content or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        mode = mode_of(path) or 0o666 & ~_umask()
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.trail-", suffix=".tmp", dir=path.parent)
    os.close(fd)
    draft = Path(name)
    try:
        yield draft
        with draft.open("rb+") as written:
            os.fsync(written.fileno())
        draft.chmod(mode)
        draft.replace(path)
    except BaseException:
        draft.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def mode_of(path: Path) -> int | None:
    """The permission bits of ``path``, or None when it is not there."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return None


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
