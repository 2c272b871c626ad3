"""An external merge sort, so a timeline of any size is sorted in bounded memory.

Rows arrive in whatever order the stores are read (session by session, file by file). They are kept in
memory until about :data:`CHUNK_BYTES` of text has gathered, then sorted and spilled to a temporary file
(``marshal`` records, outside every Hermes home) and the runs merged at the end with :func:`heapq.merge`.
A timeline that fits in one chunk is never written anywhere.
"""

from __future__ import annotations

import heapq
import marshal
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

# Text gathered before a sorted run is spilled (a row's other fields are small; this bounds memory).
CHUNK_BYTES = 64 * 1024 * 1024
# At most this many rows per run, however small their text.
CHUNK_ROWS = 250_000

Record = tuple[Any, ...]


def _read_run(handle: IO[bytes]) -> Iterator[Record]:
    while True:
        try:
            record = marshal.load(handle)
        except EOFError:
            return
        yield record


class ExternalSort:
    """Collects ``(key, row)`` pairs and yields the rows in key order.

    A key must be unique (end it with a sequence number), so two records never compare their rows.
    """

    def __init__(self, chunk_bytes: int | None = None, chunk_rows: int | None = None) -> None:
        self.chunk_bytes = chunk_bytes or CHUNK_BYTES
        self.chunk_rows = chunk_rows or CHUNK_ROWS
        self._buffer: list[Record] = []
        self._size = 0
        self._runs: list[Path] = []
        self._dir: str | None = None
        self.count = 0
        self.spilled = 0  # runs written to disk

    def add(self, key: tuple[Any, ...], row: tuple[Any, ...], size: int) -> None:
        self._buffer.append((*key, row))
        self._size += size
        self.count += 1
        if self._size >= self.chunk_bytes or len(self._buffer) >= self.chunk_rows:
            self._spill()

    def _spill(self) -> None:
        if not self._buffer:
            return
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="trail-timeline-")
        self._buffer.sort()
        path = Path(self._dir) / f"run-{len(self._runs):05d}"
        with path.open("wb") as handle:
            for record in self._buffer:
                marshal.dump(record, handle)
        self._runs.append(path)
        self.spilled += 1
        self._buffer, self._size = [], 0

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """The rows in key order; temporary runs are removed when the iteration ends."""
        try:
            if not self._runs:
                self._buffer.sort()
                for record in self._buffer:
                    yield record[-1]
                return
            self._spill()
            handles = [path.open("rb") for path in self._runs]
            try:
                for record in heapq.merge(*(_read_run(h) for h in handles)):
                    yield record[-1]
            finally:
                for handle in handles:
                    handle.close()
        finally:
            self.close()

    def close(self) -> None:
        self._buffer = []
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
            self._runs = []
