"""Sessions that are gone from their live ``state.db`` but a side store still holds: recovery.

Hermes' deletes, prunes and replaced databases leave two whole copies behind: quick snapshots
(``state-snapshots/<id>/state.db``, each the entire database at that moment) and diverts
(``sessions/<id>.jsonl``, the messages a replaced database never received). A session is *recovered* when
its id is in a snapshot or a divert of a home and not in that home's live ``state.db``, which was read: a home
whose live store could not be read (a writer holding it locked, damage) recovers nothing, and says so, since
every session it holds would look deleted. Several snapshots
that hold it collapse to one: the copy with the most rows (the newest, on a tie), the others named in
``also_in``; a divert of the same id is named there too. A divert whose id no snapshot holds is a session
of its own, built from its lines. The live store's deletion fence, when it kept one, says when the session
was deleted; a fence whose session no copy holds is listed as such (``fences_without_copy``).

Nothing here writes: snapshots are opened with the same read-only reader as ``state.db``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from hermes_trail.errors import AmbiguousSession, SessionNotFound, StoreUnreadable
from hermes_trail.hermes import locate
from hermes_trail.hermes.decode import relations
from hermes_trail.hermes.decode.conversation import read_conversation
from hermes_trail.hermes.decode.sessions import decode_session, project_of, session_id_of
from hermes_trail.hermes.decode.values import epoch
from hermes_trail.hermes.reader import StoreReader
from hermes_trail.hermes.sidefiles import diverts, state_tables
from hermes_trail.hermes.sidefiles.snapshots import snapshot_time
from hermes_trail.hermes.store import SqliteStore
from hermes_trail.history import History, read_messages, split_ref
from hermes_trail.model import Recovery, Session, Store, Stray, _Frozen, _Record


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class FenceOnly(_Record):
    """A deletion fence whose session no snapshot or divert holds: its id and when it was deleted."""

    _fields: ClassVar[tuple[str, ...]] = ("session_id", "profile", "store_path", "deleted_at", "swept")
    __slots__ = _fields
    session_id: str
    profile: str
    store_path: str
    deleted_at: datetime | None
    swept: bool

    def __init__(
        self, session_id: str, profile: str, store_path: str, deleted_at: datetime | None, swept: bool
    ) -> None:
        self.session_id = session_id
        self.profile = profile
        self.store_path = store_path
        self.deleted_at = deleted_at
        self.swept = swept


class Recoveries(_Record):
    """The recovered sessions of every home read (newest activity first), and what could not be read."""

    _fields: ClassVar[tuple[str, ...]] = ("sessions", "fences_without_copy", "strays", "_readers")
    __slots__ = _fields
    sessions: list[Session]
    fences_without_copy: list[FenceOnly]
    strays: list[Stray]
    _readers: dict[str, SqliteStore]

    def __init__(
        self,
        sessions: list[Session] | None = None,
        fences_without_copy: list[FenceOnly] | None = None,
        strays: list[Stray] | None = None,
        _readers: dict[str, SqliteStore] | None = None,
    ) -> None:
        self.sessions = [] if sessions is None else sessions
        self.fences_without_copy = [] if fences_without_copy is None else fences_without_copy
        self.strays = [] if strays is None else strays
        self._readers = {} if _readers is None else _readers

    def matches(self, query: str) -> list[Session]:
        """The recovered sessions ``query`` names: its id exactly, else every one it is a prefix of."""
        store_name, bare = split_ref(query, {s.store.name for s in self.sessions})
        pool = [s for s in self.sessions if not store_name or s.store.name == store_name]
        return [s for s in pool if s.id == bare] or [s for s in pool if bare and s.id.startswith(bare)]

    def find(self, query: str) -> Session:
        """A recovered session by id, ``<store>:<id>`` or unique prefix (as :meth:`History.find`)."""
        matches = self.matches(query)
        if not matches:
            raise SessionNotFound(query.strip())
        if len(matches) > 1:
            raise AmbiguousSession(query.strip(), [s.ref for s in matches])
        return matches[0]

    def family(self, session: Session) -> dict[str, Session]:
        """The recovered sessions of ``session``'s copy, by id (its relations were linked within it)."""
        return {s.id: s for s in self.sessions if s.store.key == session.store.key}

    def load(self, session: Session) -> Session:
        """Read a recovered session's messages (from its snapshot, or its divert's lines), once."""
        if session.loaded or session.recovered is None:
            return session
        if session.recovered.kind == "divert":
            rows, strays = diverts.read_divert(Path(session.recovered.path), session.id)
            read_conversation(session, rows, diverts.COLUMNS)
            session.strays.extend(strays)
            return session
        reader = self._readers.get(session.store.key)
        if reader is None:
            raise StoreUnreadable(session.store.path, "snapshot is closed")
        return read_messages(session, reader)

    def close(self) -> None:
        for reader in self._readers.values():
            reader.close()
        self._readers.clear()

    def __enter__(self) -> Recoveries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _real(path: Path | str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return str(path)


def snapshot_store(
    path: Path, profile: str, home: Path | None, snapshot_id: str, version: int | None
) -> Store:
    """The :class:`Store` a snapshot's sessions belong to: named ``<profile>@<snapshot id>``."""
    return Store(
        key=_real(path),
        name=f"{profile}@{snapshot_id}",
        path=str(path),
        profile=profile,
        home=str(home) if home else None,
        schema_version=version,
        kind="snapshot",
    )


def divert_session(path: Path, session_id: str, profile: str, home: Path | None) -> Session:
    """A session known only from its divert lines: its times are the lines' first and last timestamps."""
    rows, _strays = diverts.read_divert(path, session_id)
    times = [t for t in (epoch(r.get("timestamp"), "timestamp")[0] for r in rows) if t is not None]
    store = Store(
        key=_real(path),
        name=f"{profile}@divert",
        path=str(path),
        profile=profile,
        home=str(home) if home else None,
        schema_version=None,
        kind="divert",
    )
    return Session(
        id=session_id,
        store=store,
        source=None,
        title=None,
        model=None,
        cwd=None,
        git_branch=None,
        git_repo_root=None,
        profile=profile,
        project=project_of(None, None, profile),
        started_at=min(times) if times else None,
        ended_at=None,
        last_activity_at=max(times) if times else None,
        end_reason=None,
        parent_id=None,
        message_count=len(rows),
        relation="root",
        recovered=Recovery(kind="divert", path=str(path)),
    )


Live = tuple[Store, set[str], StoreReader]


class Unread(_Frozen):
    """A home's live store that could not be read: where it is and why."""

    _fields: ClassVar[tuple[str, ...]] = ("where", "reason")
    __slots__ = _fields
    where: str
    reason: str

    def __init__(self, where: str, reason: str) -> None:
        object.__setattr__(self, "where", where)
        object.__setattr__(self, "reason", reason)


def _live_ids(history: History) -> dict[str, Live | Unread]:
    """Per home (resolved): its live store, the session ids of every live store it has (a ``state.db``, a
    PostgreSQL database its config names), and a reader (a ``state.db``'s first, for its fences); or why
    one of them could not be read."""
    out: dict[str, Live | Unread] = {}
    opened = {store.key: store for store in history.stores}
    for location in history.locations:
        if location.home is None:
            continue
        home = _real(location.home)
        if isinstance(out.get(home), Unread):
            continue
        store = opened.get(location.key)
        if store is None:  # it could not even be opened: its stray says why
            why = next(
                (s.reason for s in history.strays if s.kind == "store" and s.where == location.where),
                "not read",
            )
            out[home] = Unread(location.where, why)
            continue
        reader = history.reader(store)
        try:
            ids = {sid for r in reader.session_rows(light=True) if (sid := session_id_of(r))}
        except StoreUnreadable as exc:
            out[home] = Unread(store.path, exc.reason)
            continue
        known = out.get(home)
        if known is None:
            out[home] = (store, ids, reader)
        else:
            assert not isinstance(known, Unread)
            first = (
                known
                if isinstance(known[2], SqliteStore) or not isinstance(reader, SqliteStore)
                else (store, known[1], reader)
            )
            out[home] = (first[0], first[1] | ids, first[2])
    return out


def _unread_stray(home: Path, unread: Unread) -> Stray:
    why = f"{unread.reason}; nothing recovered from {home}: without its live sessions every copy would look"
    return Stray(where=unread.where, reason=f"{why} deleted", kind="store")


def _recover_home(found: Recoveries, home: Path, profile: str, live: Live | Unread | None) -> None:
    if isinstance(live, Unread):
        found.strays.append(_unread_stray(home, live))
        return
    live_ids = live[1] if live else set()
    notes = locate.side_notes(home)
    found.strays.extend(Stray(where=n.path, reason=n.reason, kind="directory") for n in notes)
    files = locate.side_files(home, profile)
    chosen: dict[str, tuple[int, Session]] = {}  # id -> (rows, session)
    copies: dict[str, list[str]] = {}
    for side in (f for f in files if f.kind == "snapshot"):
        try:
            reader = SqliteStore(side.path)
        except StoreUnreadable as exc:
            found.strays.append(Stray(where=str(side.path), reason=exc.reason, kind="store"))
            continue
        store = snapshot_store(side.path, profile, home, side.name, reader.schema_version)
        kept = False
        try:
            for row in reader.session_rows(light=True):
                sid = session_id_of(row)
                if sid is None or sid in live_ids:
                    continue
                stats = reader.message_stats_of(sid)
                copies.setdefault(sid, []).append(str(side.path))
                if sid in chosen and chosen[sid][0] > stats[0]:
                    continue
                session = decode_session(row, store, stats)
                session.recovered = Recovery(
                    kind="snapshot",
                    path=str(side.path),
                    snapshot=side.name,
                    taken_at=snapshot_time(side.name),
                )
                chosen[sid] = (stats[0], session)
                kept = True
        except StoreUnreadable as exc:
            found.strays.append(Stray(where=str(side.path), reason=exc.reason, kind="store"))
        if kept:
            found._readers[store.key] = reader
        else:
            reader.close()
    for side in (f for f in files if f.kind == "divert"):
        if side.name in live_ids:
            continue
        if side.name in chosen:
            copies[side.name].append(str(side.path))
            continue
        chosen[side.name] = (0, divert_session(side.path, side.name, profile, home))
        copies[side.name] = [str(side.path)]
    fences = {}
    if live is not None and isinstance(live[2], SqliteStore):  # fences are read from state.db only
        listed, strays = state_tables.read_fences(live[2])
        found.strays.extend(strays)
        fences = {f.session_id: f for f in listed}
    for sid, (_, session) in chosen.items():
        assert session.recovered is not None
        session.recovered.also_in = [p for p in copies.get(sid, []) if p != session.recovered.path]
        fence = fences.pop(sid, None)
        if fence is not None:
            session.recovered.deleted_at, session.recovered.swept = fence.retired_at, fence.swept
        found.sessions.append(session)
    for fence in fences.values():
        if fence.session_id not in live_ids and live is not None:
            found.fences_without_copy.append(
                FenceOnly(fence.session_id, profile, live[0].path, fence.retired_at, fence.swept)
            )


def recover(
    history: History,
    *,
    homes: Iterable[str | Path] = (),
    dbs: Iterable[str | Path] = (),
    env: Mapping[str, str] | None = None,
) -> Recoveries:
    """Every recovered session of the homes ``history`` was read from (the same ``homes``/``dbs``/``env``).

    Recovered sessions are read lazily: :meth:`Recoveries.load` reads one's messages.
    """
    env = os.environ if env is None else env
    if history.demo:
        from hermes_trail.history import demo_home

        homes, dbs, env = [demo_home()], [], {}
    discovery = locate.discover(env, homes=homes, dbs=dbs)
    live = _live_ids(history)
    found = Recoveries()
    for home, profile in locate.homes_of(discovery):
        _recover_home(found, home, profile, live.get(_real(home)))
    _link(found)
    found.sessions.sort(
        key=lambda s: (s.last_activity_at.timestamp() if s.last_activity_at else 0.0, s.id), reverse=True
    )
    return found


def _link(found: Recoveries) -> None:
    """Relations within each copy, so a recovered session has its chain as a live one does."""
    by_store: dict[str, list[Session]] = {}
    for session in found.sessions:
        by_store.setdefault(session.store.key, []).append(session)
    for members in by_store.values():
        relations.link(members)


def recover_home(home: Path, profile: str, live_path: Path | None) -> Recoveries:
    """The recovered sessions of one home, against its live store at ``live_path`` (for the index, which
    reads a home at a time without a :class:`History`)."""
    found = Recoveries()
    live: Live | None = None
    reader: SqliteStore | None = None
    if live_path is not None:
        try:
            reader = SqliteStore(live_path)
            ids = {sid for r in reader.rows("SELECT id FROM sessions") if (sid := session_id_of(r))}
            store = Store(
                key=_real(live_path),
                name=profile,
                path=str(live_path),
                profile=profile,
                home=str(home),
                schema_version=reader.schema_version,
            )
            live = (store, ids, reader)
        except StoreUnreadable as exc:
            found.strays.append(_unread_stray(home, Unread(str(live_path), exc.reason)))
            if reader is not None:
                reader.close()
            return found
    try:
        _recover_home(found, home, profile, live)
    finally:
        if reader is not None:
            reader.close()
    _link(found)
    return found


# For a session name nothing matches: at most this many like it are offered, each this alike (a ratio
# of matching characters: one character of a 22-character id wrong is 0.95), found among the ids that
# start with at least this many of its characters (a day: ``20261130``).
NEAR_MOST = 3
NEAR_RATIO = 0.85
NEAR_START = 8
# A name longer than this is no session id mistyped (Hermes' ids are 22 to 40 characters).
NEAR_LONGEST = 80


class Finder:
    """Sessions as a person names them, wherever they were found: every surface that takes a session id
    (show, export, handoff, resume, the web's replay, the MCP server's ``show``) asks here.

    A name is looked up in the live stores first; the recovered sessions of the same homes are read only
    when no live session has that name, or when it is only a prefix (a prefix that starts a live and a
    deleted session names both, and is ambiguous).

    :param homes: the ``homes``/``dbs``/``env`` ``history`` was opened with, to find the same homes' copies.
    """

    def __init__(
        self,
        history: History,
        *,
        homes: Iterable[str | Path] = (),
        dbs: Iterable[str | Path] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.history = history
        self._where = (list(homes), list(dbs), env)
        self._recovered: Recoveries | None = None
        self.recovered_found: Session | None = None  # the last recovered session found, to say where from

    @property
    def recoveries(self) -> Recoveries:
        """The recovered sessions of the history's homes (read on first use)."""
        if self._recovered is None:
            homes, dbs, env = self._where
            self._recovered = recover(self.history, homes=homes, dbs=dbs, env=env)
        return self._recovered

    def find(self, query: str) -> Session:
        """The one session ``query`` names (an id, ``<store>:<id>``, a unique prefix), live or recovered.

        :raises SessionNotFound: nothing matches.
        :raises AmbiguousSession: more than one matches; its ``candidates`` name each.
        """
        try:
            live = self.history.find(query)
        except SessionNotFound:
            self.recovered_found = self.recoveries.find(query)
            return self.recovered_found
        if live.id == split_ref(query, {s.name for s in self.history.stores})[1]:
            return live
        deleted = self.recoveries.matches(query)
        if deleted:
            raise AmbiguousSession(query.strip(), [live.ref, *(s.ref for s in deleted)])
        return live

    def near(self, query: str, most: int = NEAR_MOST) -> list[str]:
        """The sessions whose id is like ``query`` (a character or two typed wrong, ``…d86e3e`` for
        ``…d86e3d``), most alike first, for a name no session has: what to say instead of nothing. Looked
        for among the ids that start as it does, the longest start that any id has (an index range
        each), live and recovered."""
        store_name, bare = split_ref(query.strip(), {s.name for s in self.history.stores})
        if not NEAR_START <= len(bare) <= NEAR_LONGEST:
            return []  # too short to be like one id, or no id at all (a pasted page)
        found: list[tuple[str, str]] = []
        for cut in range(len(bare) - 1, NEAR_START - 1, -1):
            start = bare[:cut]
            found = self.history.ids_starting(store_name, start)
            found += [
                (s.ref, s.id)
                for s in self.recoveries.matches(f"{store_name}:{start}" if store_name else start)
            ]
            if found:
                break
        alike = []
        for ref, sid in dict(found).items():
            ratio = difflib.SequenceMatcher(None, bare, sid, autojunk=False).ratio()
            if ratio >= NEAR_RATIO:
                alike.append((-ratio, ref))
        return [ref for _, ref in sorted(alike)[:most]]

    def load(self, session: Session) -> Session:
        """Read a session's messages (from its store, or from the copy it was recovered from)."""
        if session.recovered is not None:
            return self.recoveries.load(session)
        return self.history.load(session)

    def family(self, session: Session) -> dict[str, Session]:
        """The sessions linked with ``session``, by id (a recovered one's: those of its copy)."""
        if session.recovered is not None:
            return self.recoveries.family(session)
        return self.history.family(session)

    def conversation(self, session: Session) -> list[Session]:
        """The continuation chain ``session`` belongs to, root to tip, each loaded."""
        if session.recovered is None:
            return self.history.conversation(session)
        family = self.recoveries.family(session)
        parts = [family.get(sid) for sid in (session.chain or [session.id])]
        return [self.recoveries.load(p) for p in parts if p is not None]

    @property
    def recovery_strays(self) -> list[Stray]:
        """What could not be read among the copies (nothing when they were not read)."""
        return list(self._recovered.strays) if self._recovered is not None else []

    def close(self) -> None:
        """Close the copies it opened (the history stays with whoever opened it)."""
        if self._recovered is not None:
            self._recovered.close()

    def __enter__(self) -> Finder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
