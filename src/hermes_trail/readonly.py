"""Opening an SQLite file for reading only: by URI (``mode=ro``), so that a reader can never write, create
or lock out what it reads. One helper, because the URI is easy to get subtly wrong (a relative path, a
name with ``?`` or ``#`` in it: ``Path.as_uri`` quotes them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def connect(path: Path | str, params: str = "mode=ro", **kwargs: Any) -> sqlite3.Connection:
    """``path`` opened with the URI ``params`` (read-only by default); ``kwargs`` go to
    :func:`sqlite3.connect`.

    :raises sqlite3.OperationalError: the file cannot be opened (absent, unreadable).
    """
    conn: sqlite3.Connection = sqlite3.connect(
        f"{Path(path).resolve().as_uri()}?{params}", uri=True, **kwargs
    )
    return conn
