"""Builds the forensic timeline of every home read: sessions with their snapshot and divert copies, side
stores, and the rows no session holds, sorted by time in bounded memory.

Per home, each session is read once from the live ``state.db`` and then from every snapshot and divert
that holds it; a copy's row that equals a row already given (same type, ``messages.id``, text, time and
tool ids) is the same row and is dropped, so identical snapshots collapse to the live rows and several
snapshots of a pruned session to the first, while a row that changed since (rewound later, a new title)
is kept from both. A snapshot whose session row and message statistics equal the live ones is not read at
all. Divert lines pair on type, text and time (the line's own, when it has one).
"""

from __future__ import annotations

import functools
import getpass
import os
import re
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from hermes_trail.errors import StoreUnreadable
from hermes_trail.hermes import locate
from hermes_trail.hermes.decode.conversation import read_conversation
from hermes_trail.hermes.decode.sessions import decode_session, session_id_of
from hermes_trail.hermes.sidefiles import config_yaml, state_tables
from hermes_trail.hermes.sidefiles.common import zone_named
from hermes_trail.hermes.sidefiles.response_store import store_problem
from hermes_trail.hermes.sidefiles.snapshots import snapshot_time
from hermes_trail.hermes.store import SqliteStore
from hermes_trail.history import History, read_messages
from hermes_trail.model import Recovery, Session, Store
from hermes_trail.recovery import divert_session, snapshot_store
from hermes_trail.timeline import sides
from hermes_trail.timeline.pairing import Matcher
from hermes_trail.timeline.rows import Row, SessionRows, ts_of
from hermes_trail.timeline.sort import ExternalSort

FIELDS = (
    "timestamp_utc",
    "host",
    "user",
    "agent",
    "session_id",
    "project_path",
    "git_branch",
    "turn_type",
    "model",
    "tool_name",
    "tool_use_id",
    "text",
    "source_file",
    "source_line",
    "profile",
)
AGENT = "hermes"


@dataclass(frozen=True, slots=True)
class TimelineOptions:
    """Which rows to keep.

    :param since: epoch seconds; rows before it are left out (and so are undated rows).
    :param until: epoch seconds; rows at or after it are left out (and so are undated rows).
    :param patterns: a row is kept when any of them matches its text (all rows when there is none).
    :param profile: only this profile's rows.
    :param include_thinking: also a ``thinking`` row for each assistant message's reasoning.
    """

    since: float | None = None
    until: float | None = None
    patterns: tuple[re.Pattern[str], ...] = ()
    profile: str | None = None
    include_thinking: bool = False

    def accepts(self, row: Row) -> bool:
        if self.since is not None or self.until is not None:
            if row.ts is None:
                return False
            if self.since is not None and row.ts < self.since:
                return False
            if self.until is not None and row.ts >= self.until:
                return False
        if self.profile is not None and row.profile != self.profile:
            return False
        return not self.patterns or any(p.search(row.text) for p in self.patterns)


def owner_of(path: Path) -> str:
    """The user who owns a home (its files are that user's record), else the user running trail."""
    try:
        import pwd

        return pwd.getpwuid(path.stat().st_uid).pw_name
    except (ImportError, KeyError, OSError):
        try:
            return getpass.getuser()
        except Exception:  # no user name on this platform: an empty field, not a crash
            return ""


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _real(path: Path | str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return str(path)


def _full_key(row: Row) -> tuple[Any, ...]:
    return (row.turn_type, row.source_line, row.text, row.ts, row.tool_use_id, row.tool_name)


def _loose_key(row: Row) -> tuple[Any, ...]:
    return (row.turn_type, row.text, row.ts, row.tool_use_id)


@dataclass(slots=True)
class _Copy:
    """One snapshot of a home, opened."""

    side: locate.SideFile
    reader: SqliteStore
    store: Store
    rows: dict[str, int]  # session id -> fingerprint of its row (the row is read again when needed)
    stats: dict[Any, tuple[int, Any, int]]


@dataclass
class Timeline:
    """A timeline being built: rows go into the sorter through :meth:`emit`; iterate to get them sorted."""

    options: TimelineOptions
    on_session: Callable[[Session], None] | None = None
    host: str = field(default_factory=socket.gethostname)
    sorter: ExternalSort = field(default_factory=ExternalSort)
    matcher: Matcher = field(default_factory=Matcher)
    _seq: int = 0

    def emit(self, row: Row) -> None:
        if not self.options.accepts(row):
            return
        self._seq += 1
        undated = row.ts is None
        key = (
            undated,
            0.0 if undated else row.ts,
            row.source_file,
            -1 if row.source_line is None else row.source_line,
            self._seq,
        )
        self.sorter.add(key, tuple(row), len(row.text))

    def emit_all(self, rows: Iterable[Row]) -> None:
        for row in rows:
            self.emit(row)

    def rows(self) -> Iterator[dict[str, Any]]:
        """The rows in time order (undated last), as dicts with :data:`FIELDS`."""
        for values in self.sorter:
            row = Row(*values)
            yield {
                "timestamp_utc": iso(row.ts),
                "host": self.host,
                "user": row.user,
                "agent": AGENT,
                "session_id": row.session_id,
                "project_path": row.project_path,
                "git_branch": row.git_branch,
                "turn_type": row.turn_type,
                "model": row.model,
                "tool_name": row.tool_name,
                "tool_use_id": row.tool_use_id,
                "text": row.text,
                "source_file": row.source_file,
                "source_line": row.source_line,
                "profile": row.profile,
            }


class _HomeReader:
    """One home's sessions, their copies, and the rows of its state tables."""

    def __init__(
        self,
        tl: Timeline,
        history: History,
        home: Path,
        place: sides.Place,
        live: Store | None,
        files: list[locate.SideFile],
    ) -> None:
        self.tl = tl
        self.history = history
        self.home = home
        self.place = place
        self.live = live
        self.files = files
        self.seen_tables: set[tuple[Any, ...]] = set()
        self.fences: dict[str, state_tables.Fence] = {}

    def offer(self, row: Row, session: Session) -> None:
        self.tl.emit(row)
        if self.tl.matcher and row.turn_type in ("user", "assistant", "tool_result"):
            self.tl.matcher.offer(row, self.place.home, session.kind == "cron")

    def session_rows(self, session: Session, source: str, messages_only: bool = False) -> list[Row]:
        thinking = self.tl.options.include_thinking
        maker = SessionRows(session, source, self.place.user, str(self.home), thinking)
        if messages_only:
            maker.messages()
            return maker.out
        return maker.build()

    def run(self) -> None:
        copies = self._open_snapshots()
        diverts = {f.name: f for f in self.files if f.kind == "divert"}
        live_sessions: list[Session] = []
        if self.live is not None:
            live_sessions = [s for s in self.history.sessions if s.store.key == self.live.key]
        order: dict[str, None] = dict.fromkeys(s.id for s in live_sessions)
        for copy in copies:
            order.update(dict.fromkeys(copy.rows))
        order.update(dict.fromkeys(diverts))
        live_by_id = {s.id: s for s in live_sessions}
        live_reader = self.history.reader(self.live) if self.live is not None else None
        # Fences, generations and room events are read from a state.db (a PostgreSQL store has no rowid).
        live_file = live_reader if isinstance(live_reader, SqliteStore) else None
        if live_file is not None:
            self.fences = {f.session_id: f for f in state_tables.read_fences(live_file)[0]}
        for sid in order:
            self._session(sid, live_by_id.get(sid), copies, diverts.get(sid))
        if live_file is not None and self.live is not None:
            self._tables(live_file, self.live.path)
        for copy in copies:
            ts = ts_of(snapshot_time(copy.side.name))
            text = f"state snapshot {copy.side.name}: older copy of state.db"
            self.tl.emit(sides.row(self.place, ts, "system", text, copy.side.path))
            self._tables(copy.reader, str(copy.side.path))
            copy.reader.close()

    def _open_snapshots(self) -> list[_Copy]:
        copies: list[_Copy] = []
        for side in (f for f in self.files if f.kind == "snapshot"):
            try:
                reader = SqliteStore(side.path)
            except StoreUnreadable as exc:
                self.tl.emit(
                    sides.row(self.place, None, "system", f"parser: {store_problem(exc.reason)}", side.path)
                )
                continue
            try:
                light = reader.session_rows(light=True)
                rows = {sid: _fingerprint(r) for r in light if (sid := session_id_of(r))}
                stats = reader.message_stats()
            except StoreUnreadable as exc:
                self.tl.emit(
                    sides.row(self.place, None, "system", f"parser: {store_problem(exc.reason)}", side.path)
                )
                reader.close()
                continue
            store = snapshot_store(side.path, self.place.profile, self.home, side.name, reader.schema_version)
            copies.append(_Copy(side, reader, store, rows, stats))
        return copies

    def _session(
        self, sid: str, live: Session | None, copies: list[_Copy], divert: locate.SideFile | None
    ) -> None:
        holders = [c for c in copies if sid in c.rows]
        seen: set[tuple[Any, ...]] | None = set() if holders or divert is not None else None
        previous: tuple[int, Any] | None = None
        if live is not None:
            # The divert's lines are read below, as rows of the divert file.
            load = functools.partial(self.history.load, diverts=False)
            self._emit_session(live, load, str(live.store.path), seen)
            previous = (_fingerprint(live.raw), live.row_stats)
        first = live is None
        for copy in holders:
            version = (copy.rows[sid], copy.stats.get(sid))
            if previous is not None and version == previous:
                continue  # the same session row and message statistics: the same rows
            previous = version
            found = copy.reader.session_rows_by("id", [sid])
            if not found:
                continue
            session = decode_session(found[0], copy.store, copy.stats.get(sid))
            if first:  # a session only snapshots hold: say where it was found, as trail list --deleted does
                held = [str(c.side.path) for c in holders] + ([str(divert.path)] if divert else [])
                session.recovered = self._recovery(sid, "snapshot", copy.side, held)
            load = functools.partial(read_messages, reader=copy.reader)
            self._emit_session(session, load, str(copy.side.path), seen, report=first)
            first = False
        if divert is not None:
            session = divert_session(divert.path, sid, self.place.profile, self.home)
            if live is None and not holders and self.tl.on_session is not None:
                session.recovered = self._recovery(sid, "divert", divert, [])
                self.tl.on_session(session)  # a session only this divert holds
            self._emit_divert(session, divert, seen or set())

    def _recovery(self, sid: str, kind: str, side: locate.SideFile, copies: list[str]) -> Recovery:
        """Where a session no live store holds was found, and when its fence says it was deleted."""
        found = Recovery(kind=kind, path=str(side.path), also_in=[p for p in copies if p != str(side.path)])
        if kind == "snapshot":
            found.snapshot, found.taken_at = side.name, snapshot_time(side.name)
        fence = self.fences.get(sid)
        if fence is not None:
            found.deleted_at, found.swept = fence.retired_at, fence.swept
        return found

    def _emit_session(
        self,
        session: Session,
        load: Callable[[Session], Any],
        source: str,
        seen: set[tuple[Any, ...]] | None,
        report: bool = True,
    ) -> None:
        try:
            load(session)
        except StoreUnreadable as exc:
            self.tl.emit(
                sides.row(
                    self.place,
                    None,
                    "system",
                    f"parser: {store_problem(exc.reason)}",
                    source,
                    session_id=session.id,
                )
            )
            return
        if report and self.tl.on_session is not None:
            self.tl.on_session(session)
        for row in self.session_rows(session, source):
            if seen is not None:
                key = _full_key(row)
                if key in seen:
                    continue
                seen.add(key)
                seen.add(("~", *_loose_key(row)))
                seen.add(("~~", row.turn_type, row.text, row.tool_use_id))
            self.offer(row, session)
        session.turns, session.hidden, session.strays, session.loaded = [], [], [], False

    def _emit_divert(self, session: Session, divert: locate.SideFile, seen: set[tuple[Any, ...]]) -> None:
        from hermes_trail.hermes.sidefiles import diverts

        rows, strays = diverts.read_divert(divert.path, session.id)
        read_conversation(session, rows, diverts.COLUMNS)
        for stray in strays:
            self.tl.emit(sides.stray_row(self.place, stray, divert.path))
        timed = {r["id"] for r in rows if r.get("timestamp") is not None}
        for row in self.session_rows(session, str(divert.path), messages_only=True):
            row = row._replace(project_path="", git_branch="")
            if row.source_line in timed:
                key: tuple[Any, ...] = ("~", *_loose_key(row))
            else:
                key = ("~~", row.turn_type, row.text, row.tool_use_id)
            if key in seen:
                continue
            self.offer(row, session)

    def _tables(self, reader: SqliteStore, source: str) -> None:
        fences, strays = state_tables.read_fences(reader)
        fresh = [f for f in fences if self._new(("fence", f.session_id, ts_of(f.retired_at), f.swept))]
        self.tl.emit_all(sides.fence_rows(self.place, source, fresh))
        gens = [
            g
            for g in state_tables.read_generations(reader)
            if self._new(("generation", g.source, g.session_key, g.generation))
        ]
        self.tl.emit_all(sides.generation_rows(self.place, source, gens))
        events, more = state_tables.read_room_events(reader)
        fresh_events = [e for e in events if self._new(("room", e.room_id, e.seq, e.kind))]
        self.tl.emit_all(sides.room_rows(self.place, source, fresh_events))
        for stray in [*strays, *more]:
            if self._new(("stray", stray.where.split("#")[-1], stray.reason, str(stray.value))):
                self.tl.emit(sides.stray_row(self.place, stray, source))

    def _new(self, key: tuple[Any, ...]) -> bool:
        if key in self.seen_tables:
            return False
        self.seen_tables.add(key)
        return True


def _fingerprint(row: dict[str, Any]) -> int:
    """What tells two copies of a session row apart (kept instead of the rows of every snapshot)."""
    return hash(repr(sorted(row.items())))


def _zone(home: Path, files: list[locate.SideFile]) -> tzinfo | None:
    """Hermes' clock zone for a home: ``HERMES_TIMEZONE`` is the process's and unknown here, so the
    ``timezone`` of its ``config.yaml``, else this host's zone."""
    config = next((f.path for f in files if f.kind == "config"), None)
    return zone_named(config_yaml.read_timezone(config)) if config is not None else None


def build_timeline(
    history: History,
    *,
    homes: Iterable[str | Path] = (),
    dbs: Iterable[str | Path] = (),
    env: Mapping[str, str] | None = None,
    options: TimelineOptions | None = None,
    on_session: Callable[[Session], None] | None = None,
) -> Timeline:
    """Read every home ``history`` was opened on (the same ``homes``/``dbs``/``env``) into a timeline.

    ``history`` must hold its catalog (``open_history(catalog=True)``). Sessions are read one at a time and
    released, and the rows gather in an external sort: iterate :meth:`Timeline.rows` for them in order.

    :param on_session: called with each session read (live, or only in a snapshot or divert), for a
        ``sessions.jsonl`` beside the timeline.
    """
    env = os.environ if env is None else env
    options = options or TimelineOptions()
    tl = Timeline(options=options, on_session=on_session)
    if history.demo:
        from hermes_trail.history import demo_home

        homes, dbs, env = [demo_home()], [], {}
    discovery = locate.discover(env, homes=homes, dbs=dbs)
    live_by_home = {_real(s.home): s for s in history.stores if s.home is not None}
    for stray in history.strays:
        source = stray.where.split(":messages/")[0].split(":sessions/")[0]
        place = sides.Place("", "", "")
        if stray.kind == "store":
            text = f"parser: {store_problem(stray.reason)}"
            if "no messages" in stray.reason or "no sessions" in stray.reason:
                continue  # a state.db with no messages table gives no rows
        elif stray.kind == "directory":
            continue
        else:
            text = f"parser: {stray.reason}"
        tl.emit(
            sides.row(place, None, "system", text, source, line=stray.row, session_id=stray.session_id or "")
        )
    readers: list[_HomeReader] = []
    sessions_facts = {
        s.id: (s.cwd or s.git_repo_root or "", s.git_branch or "", s.model or "") for s in history.sessions
    }
    for home, profile in locate.homes_of(discovery):
        files = locate.side_files(home, profile)
        place = sides.Place(str(home), profile, owner_of(home))
        zone = _zone(home, files)
        for side in files:
            _side_rows(tl, place, side, zone, sessions_facts)
        readers.append(_HomeReader(tl, history, home, place, live_by_home.get(_real(home)), files))
    projects: dict[str, str] = {}
    for session in history.sessions:
        for directory in (session.cwd, session.git_repo_root):
            if directory:
                projects.setdefault(directory, session.profile)
    for side in locate.project_side_files(projects, projects):
        home_place = sides.Place(str(side.path.parent), side.profile, owner_of(side.path))
        found = sides.trajectory_rows(home_place, side.path, None)
        tl.emit_all(found.rows)
        for pending in found.pending:
            tl.matcher.want(pending)
    for reader in readers:
        reader.run()
    if options.profile is None:
        for side in locate.desktop_side_files(env):
            place = sides.Place(str(side.path.parent), "", owner_of(side.path))
            tl.emit_all(sides.desktop_rows(place, side.path))
    tl.emit_all(tl.matcher.unpaired())
    return tl


def _side_rows(
    tl: Timeline,
    place: sides.Place,
    side: locate.SideFile,
    zone: tzinfo | None,
    sessions: dict[str, tuple[str, str, str]],
) -> None:
    """The rows of one home side file; copies that may pair with a session row wait in the matcher."""
    found: sides.SideRows | None = None
    if side.kind == "prompt_history":
        found = sides.prompt_history_rows(place, side.path, zone)
    elif side.kind == "cron_run":
        found = sides.cron_rows(place, side.path, side.name, zone)
    elif side.kind == "response_store":
        found = sides.response_store_rows(place, side.path, sessions)
    elif side.kind == "config":
        tl.emit_all(sides.allowlist_rows(place, side.path))
    elif side.kind == "pairing":
        tl.emit_all(sides.pairing_rows(place, side.path, side.name))
    elif side.kind == "pastes":
        tl.emit_all(sides.pastes_rows(place, side.path))
    if found is not None:
        tl.emit_all(found.rows)
        for pending in found.pending:
            if tl.options.accepts(pending.row):
                tl.matcher.want(pending)
