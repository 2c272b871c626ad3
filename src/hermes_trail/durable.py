"""Making a rename survive a power cut: a file is flushed to disk before it takes another's name, and its
directory after, so the new name is on disk too. Shared by what writes files the user relies on: the
installer's edits of a Hermes home and the index swapped into place."""

from __future__ import annotations

import os
import sys
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
