"""The library's front door: every store found, read into the model, with what could not be read.

``open_history()`` locates the stores, opens each read-only and decodes its catalog; a session's messages
are read when it is first asked for (:meth:`History.load`). Nothing raises for bad data: an unreadable
store, a session row with no id or a message row with no session is a :class:`~hermes_trail.model.Stray`
on the result, and the rest is still read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar, Final, Literal

from hermes_trail.errors import AmbiguousSession, SessionNotFound, StoreUnreadable
from hermes_trail.hermes import locate
from hermes_trail.hermes.decode import relations, usage
from hermes_trail.hermes.decode.sessions import decode_session, newest_of, session_id_of
from hermes_trail.hermes.decode.values import EPOCH_MAX, EPOCH_MIN, text
from hermes_trail.hermes.reader import MessageStats, StoreReader, open_store
from hermes_trail.model import Session, Store, Stray, _Record

# Sessions with no time at all sort last in a newest-first listing.
_EPOCH_ZERO = 0.0
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# open_history(catalog=PAGE): every session row as an Entry, decoded only when shown (History.page).
PAGE: Final = "page"
Catalog = bool | Literal["page"]


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class History(_Record):
    """What was read: stores, sessions (newest activity first), strays and the notes from locating."""

    _fields: ClassVar[tuple[str, ...]] = (
        "stores",
        "sessions",
        "strays",
        "notes",
        "demo",
        "locations",
        "catalog_read",
        "entries",
        "_readers",
        "_stats",
        "_positions",
        "_located",
        "_families",
    )
    __slots__ = _fields
    stores: list[Store]
    sessions: list[Session]
    strays: list[Stray]
    notes: list[locate.Note]
    demo: bool
    locations: list[locate.StoreLocation]
    catalog_read: bool
    entries: list[Entry]
    _readers: dict[str, StoreReader]
    _stats: dict[str, dict[Any, MessageStats]]
    _positions: dict[str, dict[str, int]]
    _located: dict[str, locate.StoreLocation]
    _families: dict[str, dict[str, Session]]

    def __init__(
        self,
        stores: list[Store] | None = None,
        sessions: list[Session] | None = None,
        strays: list[Stray] | None = None,
        notes: list[locate.Note] | None = None,
        demo: bool = False,
        locations: list[locate.StoreLocation] | None = None,
        catalog_read: bool = True,
        entries: list[Entry] | None = None,
        _readers: dict[str, StoreReader] | None = None,
        _stats: dict[str, dict[Any, MessageStats]] | None = None,
        _positions: dict[str, dict[str, int]] | None = None,
        _located: dict[str, locate.StoreLocation] | None = None,
        _families: dict[str, dict[str, Session]] | None = None,
    ) -> None:
        self.stores = [] if stores is None else stores
        self.sessions = [] if sessions is None else sessions
        self.strays = [] if strays is None else strays
        self.notes = [] if notes is None else notes
        self.demo = demo
        self.locations = [] if locations is None else locations
        self.catalog_read = catalog_read
        self.entries = [] if entries is None else entries
        self._readers = {} if _readers is None else _readers
        self._stats = {} if _stats is None else _stats
        self._positions = {} if _positions is None else _positions
        self._located = {} if _located is None else _located
        self._families = {} if _families is None else _families

    @property
    def skipped(self) -> bool:
        """Whether anything was passed over: a store, a row, a directory."""
        return bool(self.strays)

    def find(self, query: str) -> Session:
        """The one session a person means by ``query``: an id, ``<store>:<id>``, or a unique prefix.

        :raises SessionNotFound: nothing matches.
        :raises AmbiguousSession: more than one session matches; its ``candidates`` name them.
        """
        query = query.strip()
        store_name, bare = split_ref(query, {s.name for s in self.stores})
        if not bare:
            raise SessionNotFound(query)
        pool = self.sessions if self.catalog_read else self._lookup(store_name, bare)
        pool = [s for s in pool if not store_name or s.store.name == store_name]
        matches = [s for s in pool if s.id == bare] or [s for s in pool if s.id.startswith(bare)]
        if not matches and ":" in query:
            matches = self._by_profile(*query.split(":", 1))
        if not matches:
            raise SessionNotFound(query)
        if len(matches) > 1:
            raise AmbiguousSession(query, [s.ref for s in matches])
        return matches[0]

    def ids_starting(self, store_name: str, prefix: str) -> list[tuple[str, str]]:
        """The (ref, id) of the live sessions whose id starts with ``prefix`` (of the store ``store_name``
        names, when it names one), from each store's index of ids, nothing decoded."""
        found: list[tuple[str, str]] = []
        for store in self.stores:
            if store_name and store.name != store_name:
                continue
            try:
                rows = self._readers[store.key].sessions_by_prefix(prefix)
            except StoreUnreadable:
                continue  # said where the session was looked for
            found += [(f"{store.name}:{sid}", sid) for row in rows if (sid := session_id_of(row)) is not None]
        return found

    def _by_profile(self, profile: str, bare: str) -> list[Session]:
        """``<profile>:<id>`` as a listing shows it: a session whose profile is that, in whichever store (a
        copy of a profile's store at a home root lists its sessions under their ``profile_name``)."""
        if not profile or not bare:
            return []
        pool = self.sessions if self.catalog_read else self._lookup("", bare)
        pool = [s for s in pool if s.profile == profile]
        return [s for s in pool if s.id == bare] or [s for s in pool if s.id.startswith(bare)]

    def _lookup(self, store_name: str, bare: str) -> list[Session]:
        """Sessions whose id is ``bare`` or starts with it, read straight from each store's index."""
        found: list[Session] = []
        for store in self.stores:
            if store_name and store.name != store_name:
                continue
            reader = self._readers[store.key]
            try:
                rows = reader.sessions_by_prefix(bare)
                found.extend(
                    decode_session(row, store, reader.message_stats_of(row["id"]))
                    for row in rows
                    if session_id_of(row) is not None
                )
            except StoreUnreadable as exc:
                self.strays.append(Stray(where=store.path, reason=exc.reason, kind="store", store=store.name))
        return found

    def family(self, session: Session) -> dict[str, Session]:
        """The sessions linked with ``session`` (its store's, by id): relations, children, chains.

        ``session`` itself gets its ``relation``, ``children``, ``chain`` and inherited ``project``. With a
        catalog that is the whole store, linked once; without one, each family is read by walking its
        parent links (no system prompts, no message statistics) and linked with the families read before.
        """
        key = session.store.key
        family = self._families.setdefault(key, {})
        if session.id not in family:
            if self.catalog_read:
                members = [s for s in self.sessions if s.store.key == key]
            else:
                rows = _family_rows(self._readers[key], session.id)
                members = [decode_session(r, session.store) for r in rows if session_id_of(r) is not None]
            for member in members:
                family.setdefault(member.id, member)
            if not self.catalog_read:
                relations.link(list(family.values()))
        twin = family.get(session.id)
        if twin is not None and twin is not session:
            session.relation, session.relation_marked = twin.relation, twin.relation_marked
            session.children, session.chain = twin.children, twin.chain
            session.project, session.worktree = twin.project, twin.worktree
        return family

    def reader(self, store: Store) -> StoreReader:
        """The open reader of one of this history's stores."""
        return self._readers[store.key]

    def location(self, store: Store) -> locate.StoreLocation:
        """Where one of this history's stores is, to open it again (in another process)."""
        return self._located[store.key]

    def read_catalog(self, store: Store) -> list[Session]:
        """Read one store's whole catalog now (for a History opened without one), linked."""
        reader = self._readers[store.key]
        start = len(self.sessions)
        _read_catalog(self, store, reader)
        members = self.sessions[start:]
        relations.link(members)
        return members

    def first_prompts(
        self, refs: Iterable[tuple[Store, str]], chars: int = 200, redacted: bool = False
    ) -> dict[tuple[str, str], str]:
        """The first prompt of each session named by ``(store, id)``, on one line and cut to ``chars``, by
        ``(store key, id)``: what a list shows for a session without a title, as Hermes' own list does (its
        first live ``user`` row, decoded). ``redacted``: its secrets replaced first, in the whole prompt (a
        private key cut short, or on one line, is no longer one the redactor knows). One query a store; a
        store that cannot be read now gives none."""
        from hermes_trail.hermes.decode.content import decode_content
        from hermes_trail.redact import redact

        wanted: dict[str, list[str]] = {}
        for store, sid in refs:
            wanted.setdefault(store.key, []).append(sid)
        out: dict[tuple[str, str], str] = {}
        for key, ids in wanted.items():
            reader = self._readers.get(key)
            if reader is None:
                continue
            try:
                found = reader.first_prompts(ids)
            except StoreUnreadable:
                continue
            for sid, raw in found.items():
                text = decode_content(raw, "user").text
                text = " ".join((redact(text) if redacted else text).split())
                if text:
                    out[(key, sid)] = text[:chars]
        return out

    def conversation(self, session: Session) -> list[Session]:
        """The continuation chain ``session`` belongs to, root to tip, each session loaded."""
        family = self.family(session)
        ids = session.chain or [session.id]
        parts = [session if sid == session.id else family.get(sid) for sid in ids]
        return [self.load(part) for part in parts if part is not None]

    def load(self, session: Session, *, diverts: bool = True) -> Session:
        """Read a session's messages into its transcript (once), with the rows only its divert file holds
        (``diverts``; the timeline reads that file on its own)."""
        if session.loaded:
            return session
        reader = self._readers.get(session.store.key)
        if reader is None:
            raise StoreUnreadable(session.store.path, "store is closed")
        divert = locate.divert_file(session.store.home, session.id) if diverts else None
        return read_messages(session, reader, divert)

    def page(self, entries: Sequence[Entry]) -> list[Session]:
        """The sessions of ``entries`` (a history opened with ``catalog=PAGE``), in their order, decoded as
        the whole catalog decodes them and linked with their families as the whole store would link them
        (:func:`_family_rows`: the connected sessions, in the store's row order), so a listing of a page
        says what a listing of every session says about it."""
        wanted = [e for e in entries if e.session is None]
        decoded: dict[tuple[str, str], Session] = {}
        for key in dict.fromkeys(e.store.key for e in wanted):
            reader = self._readers[key]
            mine = [e for e in wanted if e.store.key == key]
            rows = _rows_by_rowid(reader, [e.rowid for e in mine])
            stats = self._stats.get(key, {})
            for entry in mine:
                row = rows[entry.rowid]
                decoded[(key, entry.id)] = _decoded(entry.store, reader, row, stats.get(row.get("id")))
            linked: set[str] = set()
            positions = self._positions.get(key, {})
            for entry in mine:
                if entry.id in linked:
                    continue
                members = []
                for row in _family_rows(reader, entry.id):
                    sid = session_id_of(row)
                    if sid is None or sid not in positions:
                        continue
                    members.append(decoded.get((key, sid)) or decode_session(row, entry.store))
                if not any(s is decoded[(key, entry.id)] for s in members):
                    members.append(decoded[(key, entry.id)])  # a row its own id does not find
                members.sort(key=lambda s: positions.get(s.id, -1))
                relations.link(members)
                linked.update(s.id for s in members)
        return [e.session or decoded[(e.store.key, e.id)] for e in entries]

    def read_profiles(self) -> None:
        """Give every entry its profile (``profile_name`` of a home's own store, read now)."""
        for key in dict.fromkeys(e.store.key for e in self.entries if e.known_profile is None):
            reader: Any = self._readers[key]
            names = _column_by_rowid(reader, "profile_name", None)
            for entry in self.entries:
                if entry.store.key == key and entry.known_profile is None:
                    name, _ = text(names.get(entry.rowid), "profile_name")
                    entry.known_profile = name or locate.DEFAULT_PROFILE

    def close(self) -> None:
        for reader in self._readers.values():
            reader.close()
        self._readers.clear()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def split_ref(query: str, store_names: Iterable[str]) -> tuple[str, str]:
    """``<store>:<id>`` as ``(store name, id)``; ``("", query)`` when no known store name leads it (a colon
    may be inside an id: only a known store name qualifies, the longest that does)."""
    query = query.strip()
    for name in sorted(set(store_names), key=len, reverse=True):
        if name and query.startswith(f"{name}:"):
            return name, query[len(name) + 1 :]
    return "", query


def read_messages(session: Session, reader: StoreReader, divert: Path | None = None) -> Session:
    """Decode ``session``'s message rows (and its per-model usage) from ``reader`` into its transcript.

    :param divert: the session's divert file: the lines its store lacks are replayed after its rows
        (:mod:`~hermes_trail.hermes.decode.diverted`).
    """
    # The message decoders are imported here: a listing reads session rows only, and never pays for them.
    from hermes_trail.hermes.decode import diverted
    from hermes_trail.hermes.decode.conversation import read_conversation
    from hermes_trail.hermes.sidefiles import diverts

    rows = reader.message_rows(session.id)
    strays: list[Stray] = []
    if divert is not None:
        lines, strays = diverts.read_divert(divert, session.id)
        rows = diverted.merge_rows(rows, lines)
    read_conversation(session, rows, reader.columns("messages"))
    if divert is not None:
        diverted.mark(session, divert)
        session.strays.extend(strays)
    if reader.has_table("session_model_usage"):
        session.model_usage = usage.model_usage(reader.model_usage_rows(session.id))
    times = (t.time for t in [*session.turns, *session.hidden])
    session.last_activity_at = newest_of(session.last_activity_at, *times)
    return session


def demo_home() -> Path:
    """The small demo Hermes home shipped with the package, read when the user has none."""
    from hermes_trail.demo import demo_home as shipped

    return shipped()


def _store_name(profile: str, taken: set[str]) -> str:
    name, n = profile, 2
    while name in taken:
        name, n = f"{profile}~{n}", n + 1
    taken.add(name)
    return name


def _read_store(history: History, location: locate.StoreLocation, taken: set[str], catalog: Catalog) -> None:
    try:
        reader = open_store(location)
    except StoreUnreadable as exc:
        history.strays.append(Stray(where=location.where, reason=exc.reason, kind="store"))
        return
    store = Store(
        key=location.key,
        name=_store_name(location.profile, taken),
        path=location.where,
        profile=location.profile,
        home=str(location.home) if location.home else None,
        schema_version=reader.schema_version,
        kind=location.kind,
    )
    history.stores.append(store)
    history._readers[store.key] = reader
    history._located[store.key] = location
    if catalog == PAGE:
        _read_entries(history, store, reader)
    elif catalog:
        _read_catalog(history, store, reader)


def _read_catalog(history: History, store: Store, reader: StoreReader) -> None:
    """Every session row of a store, and a stray for each message row whose session has none.

    The catalog leaves out ``system_prompt``, the one large column (kilobytes a session, and no listing
    shows it); a session found by :meth:`History.find` without a catalog has its whole row.
    """
    try:
        stats = reader.message_stats()
        rows = reader.session_rows(light=True)
    except StoreUnreadable as exc:
        history.strays.append(Stray(where=store.path, reason=exc.reason, kind="store", store=store.name))
        return
    known: set[str] = set()
    for index, row in enumerate(rows, start=1):
        sid = session_id_of(row)
        if sid is None or sid in known:
            history.strays.append(_row_stray(store, index, sid))
            continue
        known.add(sid)
        history.sessions.append(_decoded(store, reader, row, stats.get(row.get("id"))))
    _orphan_strays(history, store, reader, stats, known)


def _row_stray(store: Store, index: int, sid: str | None) -> Stray:
    """The stray of the ``index``-th session row (from 1), which has no id or repeats one."""
    why = "session row has no id" if sid is None else f"duplicate session id {sid!r}"
    return Stray(
        where=f"{store.path}:sessions/#{index}",
        reason=why,
        kind="session",
        store=store.name,
        table="sessions",
    )


def _decoded(store: Store, reader: StoreReader, row: dict[str, Any], stats: MessageStats | None) -> Session:
    """A catalog row as its session, with the compaction events of one that has archived rows."""
    session = decode_session(row, store, stats)
    if stats and stats[2] and _may_have_compacted(reader, session.id):
        # Compaction events are counted by the compaction rule itself, which needs the rows; only the
        # few sessions with archived rows pay for it, and the rows are not kept.
        from hermes_trail.hermes.decode.conversation import read_conversation

        probe = decode_session(row, store, stats)
        read_conversation(probe, reader.message_rows(session.id), reader.columns("messages"))
        session.compactions, session.compaction_events = probe.compactions, probe.compaction_events
    return session


def _orphan_strays(
    history: History, store: Store, reader: StoreReader, stats: Mapping[Any, MessageStats], known: set[str]
) -> None:
    """A stray for each message row whose session has no ``sessions`` row."""
    for orphan_id in stats:
        if isinstance(orphan_id, str) and orphan_id in known:
            continue
        try:
            ids = reader.message_ids_of(orphan_id)
        except StoreUnreadable as exc:
            history.strays.append(Stray(where=store.path, reason=exc.reason, kind="store", store=store.name))
            return
        for found in ids:
            history.strays.append(
                Stray(
                    where=f"{store.path}:messages/{found}",
                    reason=f"message row of session {orphan_id!r}, which has no sessions row",
                    store=store.name,
                    session_id=orphan_id if isinstance(orphan_id, str) else None,
                    row=found,
                    table="messages",
                )
            )


class Entry(_Record):
    """A session row as a listing orders and filters it, before it is decoded (:meth:`History.page`).

    Its times are those the decoded session would have (:func:`micros`), as microseconds since 1970;
    ``last_activity_at`` and ``started_at`` give them as the session's datetimes, so a
    :class:`~hermes_trail.listing.SessionFilter` without ``project`` reads an entry as it reads a session.
    ``session`` is set when the row was decoded already (a store that is not SQLite, or whose rows have
    strays).
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "store",
        "id",
        "source",
        "known_profile",
        "last_us",
        "start_us",
        "rowid",
        "session",
    )
    __slots__ = _fields
    store: Store
    id: str
    source: str | None
    known_profile: str | None  # None until read (History.read_profiles)
    last_us: int | None
    start_us: int | None
    rowid: Any
    session: Session | None

    def __init__(
        self,
        store: Store,
        id: str,
        source: str | None,
        known_profile: str | None,
        last_us: int | None,
        start_us: int | None,
        rowid: Any = None,
        session: Session | None = None,
    ) -> None:
        self.store = store
        self.id = id
        self.source = source
        self.known_profile = known_profile
        self.last_us = last_us
        self.start_us = start_us
        self.rowid = rowid
        self.session = session

    @property
    def profile(self) -> str:
        if self.known_profile is None:
            raise ValueError("a root store's entry knows its profile once read (History.read_profiles)")
        return self.known_profile

    @property
    def key(self) -> tuple[float, float, str]:
        """:func:`_activity_key` of the decoded session."""
        if self.session is not None:
            return _activity_key(self.session)
        last = self.last_us / 1_000_000 if self.last_us else _EPOCH_ZERO
        start = self.start_us / 1_000_000 if self.start_us else _EPOCH_ZERO
        return (last, start, self.id)

    @property
    def project(self) -> str:
        if self.session is None:
            raise ValueError("an entry's project is known once it is decoded (History.page)")
        return self.session.project

    @property
    def last_activity_at(self) -> datetime | None:
        if self.session is not None:
            return self.session.last_activity_at
        return None if self.last_us is None else _EPOCH + timedelta(microseconds=self.last_us)

    @property
    def started_at(self) -> datetime | None:
        if self.session is not None:
            return self.session.started_at
        return None if self.start_us is None else _EPOCH + timedelta(microseconds=self.start_us)


def micros(value: Any) -> int | None:
    """What :func:`~hermes_trail.hermes.decode.values.epoch` makes of a cell, as whole microseconds since
    1970 (``None`` where it gives none): the same window, and the same rounding to the microsecond as
    ``datetime.fromtimestamp`` (half to even), without making a datetime."""
    if type(value) is not float:
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            return None
        value = float(value)  # an int, or a float subclass, as epoch() converts it
    if not EPOCH_MIN <= value <= EPOCH_MAX:  # NaN fails this too
        return None
    whole = int(value)
    return int(whole * 1_000_000 + round((value - whole) * 1e6))


def _read_entries(history: History, store: Store, reader: StoreReader) -> None:
    """Every session row of a store as an :class:`Entry`, with the strays a catalog read gives.

    A SQLite store answers the few columns an entry needs (:func:`_entry_rows`); the rows are read whole
    (light) when shown. A store of another kind, or one with rows a catalog passes over, is read as the
    catalog reads it (:func:`_read_catalog`), each session an entry already decoded.
    """
    from hermes_trail.hermes.store import SqliteStore

    try:
        found = _entry_rows(reader) if isinstance(reader, SqliteStore) else None
    except StoreUnreadable as exc:
        history.strays.append(Stray(where=store.path, reason=exc.reason, kind="store", store=store.name))
        return
    rows, stats, started = found if found is not None else ([], {}, {})
    ids = [session_id_of(r) for r in rows]
    if found is None or None in ids or len(set(ids)) != len(ids):
        start = len(history.sessions)
        _read_catalog(history, store, reader)
        members = history.sessions[start:]
        del history.sessions[start:]
        relations.link(members)
        history.entries.extend(
            Entry(store, s.id, s.source, s.profile, None, None, session=s) for s in members
        )
        return
    history._stats[store.key] = stats
    positions: dict[str, int] = {}
    history._positions[store.key] = positions
    # A profile's own store names its sessions' profile; a home's root store reads each row's
    # profile_name, a late column, only when asked (History.read_profiles).
    profile = store.profile if store.profile != locate.DEFAULT_PROFILE else None
    append = history.entries.append
    undated: list[Entry] = []
    for row, sid in zip(rows, ids, strict=True):  # a few microseconds a row: a store may hold 100k
        assert sid is not None
        positions[sid] = len(positions)
        last = micros(row["last_activity_at"])
        newest = micros(row["newest"])
        if newest is not None and (last is None or newest > last):
            last = newest
        source = row["source"]
        if type(source) is not str and source is not None:
            source = text(source, "source")[0]
        rowid = row["_rowid"]
        entry = Entry(store, sid, source, profile, last, micros(started.get(rowid)), rowid)
        append(entry)
        if last is None:
            undated.append(entry)
    if undated:  # no activity recorded: the last is the end, else the start (as decode_session has it)
        ended = _column_by_rowid(reader, "ended_at", [e.rowid for e in undated])
        for entry in undated:
            stamp = micros(ended.get(entry.rowid))
            entry.last_us = stamp if stamp is not None else entry.start_us
    _orphan_strays(history, store, reader, stats, set(positions))


def _entry_rows(reader: Any) -> tuple[list[dict[str, Any]], dict[Any, MessageStats], dict[Any, Any]]:
    """A SQLite store's session rows in table order with only what an entry needs (``id``, ``source``,
    ``last_activity_at``, its newest message time), every session's message statistics, and
    ``started_at`` by rowid.

    No column past the system prompt (kilobytes a row, often in overflow pages) is read unless it has to
    be: ``last_activity_at`` (schema 31) is; ``started_at`` comes from its own index where Hermes made
    one; ``ended_at`` is read later for the few sessions without a newer time.
    """
    columns = set(reader.columns("sessions"))
    last = '"last_activity_at"' if "last_activity_at" in columns else "NULL"
    source = '"source"' if "source" in columns else "NULL"
    stats = reader.message_stats()
    started = _column_by_rowid(reader, "started_at", None)
    sql = f'SELECT rowid AS _rowid, "id", {source} AS source, {last} AS last_activity_at FROM sessions'
    rows = reader.rows(sql + " ORDER BY rowid")
    for row in rows:
        found = stats.get(row["id"])
        row["newest"] = found[1] if found else None
    return rows, stats, started


def _column_by_rowid(reader: Any, column: str, rowids: list[Any] | None) -> dict[Any, Any]:
    """One column of session rows by rowid: those of ``rowids``, or every row's (``None``)."""
    if column not in reader.columns("sessions"):
        return {}
    if rowids is None:
        sql = f'SELECT rowid AS _rowid, "{column}" AS value FROM sessions'
        return {r["_rowid"]: r["value"] for r in reader.rows(sql)}
    out: dict[Any, Any] = {}
    for start in range(0, len(rowids), 500):  # SQLite's bound parameters, in chunks
        chunk = rowids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        sql = f'SELECT rowid AS _rowid, "{column}" AS value FROM sessions WHERE rowid IN ({marks})'
        out.update((r["_rowid"], r["value"]) for r in reader.rows(sql, tuple(chunk)))
    return out


def _rows_by_rowid(reader: Any, rowids: list[Any]) -> dict[Any, dict[str, Any]]:
    """Whole session rows (without ``system_prompt``, as the catalog reads them) by rowid."""
    columns = reader.columns("sessions")
    picked = (
        ", ".join(f'"{c}"' for c in columns if c != "system_prompt") if "system_prompt" in columns else "*"
    )
    out: dict[Any, dict[str, Any]] = {}
    for start in range(0, len(rowids), 500):  # SQLite's bound parameters, in chunks
        chunk = rowids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        sql = f"SELECT rowid AS _rowid, {picked} FROM sessions WHERE rowid IN ({marks})"
        for row in reader.rows(sql, tuple(chunk)):
            out[row.pop("_rowid")] = row
    return out


# A family larger than this is read whole instead of by walking its links one level at a time.
_FAMILY_WALK_LIMIT = 2000


def _family_rows(reader: StoreReader, session_id: str) -> list[dict[str, Any]]:
    """The rows of a session's family: its ancestors up to the root, then every descendant of that root.

    Walks ``parent_session_id`` through Hermes' index on it, so showing one session of a large store does
    not read every session row; a family too large to walk is read with the whole table.
    """
    rows: dict[str, dict[str, Any]] = {}
    current: str | None = session_id
    while current is not None and current not in rows:  # up, stopping at a cycle or a dangling parent
        found = reader.session_rows_by("id", [current])
        if not found:
            break
        rows[current] = found[0]
        parent = found[0].get("parent_session_id")
        current = parent if isinstance(parent, str) and parent else None
    frontier = [sid for sid in rows if rows[sid].get("parent_session_id") not in rows] or list(rows)
    walked: set[str] = set()
    while frontier and len(rows) < _FAMILY_WALK_LIMIT:  # down from the top, breadth first
        children = reader.session_rows_by("parent_session_id", frontier)
        walked.update(frontier)
        frontier = []
        for child in children:
            cid = session_id_of(child)
            if cid is not None and cid not in walked:
                rows.setdefault(cid, child)
                frontier.append(cid)
    if len(rows) >= _FAMILY_WALK_LIMIT:
        return reader.session_rows(light=True)
    return list(rows.values())


def _may_have_compacted(reader: StoreReader, session_id: str) -> bool:
    """Whether a session with inactive rows holds archived ones (always, for a store without the column)."""
    if "compacted" not in reader.columns("messages"):
        return True
    return any(reader.compacted_flags(session_id))


def _activity_key(session: Session) -> tuple[float, float, str]:
    last = session.last_activity_at.timestamp() if session.last_activity_at else _EPOCH_ZERO
    start = session.started_at.timestamp() if session.started_at else _EPOCH_ZERO
    return (last, start, session.id)


def open_history(
    *,
    homes: Iterable[str | Path] = (),
    dbs: Iterable[str | Path] = (),
    pgs: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    demo_fallback: bool = False,
    catalog: Catalog = True,
    select: Callable[[locate.StoreLocation], bool] | None = None,
) -> History:
    """Locate and read every Hermes store.

    :param homes: homes or roots to read instead of the resolved one (``--home``).
    :param dbs: database files to read instead of any home (``--db``).
    :param pgs: PostgreSQL DSNs to read instead of any home (``--pg``); combine with ``dbs``.
    :param env: environment to resolve homes from; ``os.environ`` by default.
    :param demo_fallback: when no store and no explicit location is found, read the bundled demo home.
    :param catalog: read every session row now; without it ``sessions`` stays empty and :meth:`History.find`
        looks sessions up in the stores' indexes, which is what showing one session needs. :data:`PAGE`:
        every session row as an :class:`Entry` in ``entries`` (newest activity first), which
        :meth:`History.page` decodes, which is what a listing of a few sessions of many needs.
    :param select: read only the stores it accepts (the index skips stores that did not change).
    """
    env = os.environ if env is None else env
    homes, dbs, pgs = list(homes), list(dbs), list(pgs)
    discovery = locate.discover(env, homes=homes, dbs=dbs, pgs=pgs)
    history = History(notes=list(discovery.notes), catalog_read=catalog is True)
    history.strays.extend(Stray(where=n.path, reason=n.reason, kind="directory") for n in discovery.notes)
    explicit = bool(homes or dbs or pgs or locate.named_by_environment(env))
    if demo_fallback and not discovery.stores and not explicit:
        discovery = locate.discover({}, homes=[demo_home()])
        history.demo = True
    history.locations = list(discovery.stores)
    taken: set[str] = set()
    for location in discovery.stores:
        if select is None or select(location):
            _read_store(history, location, taken, catalog)
    for store in history.stores:
        relations.link([s for s in history.sessions if s.store.key == store.key])
    history.sessions.sort(key=_activity_key, reverse=True)
    history.entries.sort(key=lambda e: e.key, reverse=True)
    return history
