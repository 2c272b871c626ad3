"""What every store reader offers, whatever holds the rows: the one interface the decode layer, the
history and the index read through.

:class:`~hermes_trail.hermes.store.SqliteStore` reads a ``state.db`` and
:class:`~hermes_trail.hermes.pgstore.PgStore` a PostgreSQL database; both give rows as dicts keyed by
column name, with the values as Hermes' SQLite store holds them (epoch seconds, integer flags, JSON text),
so nothing above this layer knows which one it reads.
"""

from __future__ import annotations

from typing import Any, Protocol

from hermes_trail.hermes.locate import StoreLocation

Row = dict[str, Any]
# A session's (row count, newest timestamp, inactive rows).
MessageStats = tuple[int, Any, int]


class StoreReader(Protocol):
    """One open Hermes store. Every method raises :class:`~hermes_trail.errors.StoreUnreadable` when the
    read fails, naming why; none raises for odd data."""

    how_opened: str

    def has_table(self, name: str) -> bool: ...

    def columns(self, table: str) -> list[str]:
        """A table's columns in table order; empty when there is no such table."""
        ...

    @property
    def schema_version(self) -> int | None: ...

    def session_rows(self, light: bool = False) -> list[Row]:
        """Every ``sessions`` row in insertion order; ``light`` leaves out ``system_prompt``."""
        ...

    def session_marks(self) -> list[tuple[Any, bytes]]:
        """Each ``sessions`` row's ``id`` and bytes that stand for its values but the system prompt, in
        insertion order: the same values give the same bytes, other values other bytes. A sync digests them
        to tell which rows changed, with no value of any row made a Python object."""
        ...

    def session_rows_by(self, column: str, values: list[Any], light: bool = True) -> list[Row]:
        """Session rows whose ``id`` or ``parent_session_id`` is one of ``values``."""
        ...

    def session_row(self, session_id: str) -> Row | None: ...

    def sessions_by_prefix(self, prefix: str) -> list[Row]: ...

    def message_rows(self, session_id: str) -> list[Row]:
        """Every row of one session, inactive ones included, in ``messages.id`` order."""
        ...

    def message_ids_of(self, session_id: Any) -> list[int]:
        """The ``messages.id`` of every row whose ``session_id`` is this value (``None`` included)."""
        ...

    def message_stats_of(self, session_id: Any) -> MessageStats: ...

    def message_stats(self) -> dict[Any, MessageStats]: ...

    def model_usage_rows(self, session_id: str) -> list[Row]: ...

    def meta_rows(self, prefix: str) -> list[Row]:
        """``state_meta`` rows whose key starts with ``prefix`` (deletion fences, for one)."""
        ...

    def max_message_id(self) -> int: ...

    def sessions_with_messages_after(self, message_id: int) -> set[Any]: ...

    def compacted_flags(self, session_id: str) -> list[int]: ...

    def first_prompts(self, session_ids: list[str]) -> dict[str, Any]:
        """Each session's first live ``user`` row's ``content`` (raw, not decoded), by ``timestamp`` then
        ``id`` as Hermes' own list picks its preview; sessions without one are left out."""
        ...

    def close(self) -> None: ...


def open_store(location: StoreLocation) -> StoreReader:
    """Open the store at ``location`` read-only: a PostgreSQL one through psycopg (imported only now, so
    a machine or a Python without it reads its SQLite stores as before).

    :raises StoreUnreadable: the store cannot be opened or is not a Hermes store.
    """
    if location.dsn is not None:
        from hermes_trail.hermes.pgstore import PgStore

        return PgStore(location.dsn)
    from hermes_trail.hermes.store import SqliteStore

    assert location.path is not None
    return SqliteStore(location.path)
