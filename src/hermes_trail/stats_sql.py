"""``trail stats`` counted by the store: the figures :mod:`hermes_trail.stats` gets by reading every session
through the model, summed by SQLite in one pass over the messages wherever that gives the same answer.

Reading 10,000 sessions through the model took seven seconds (issue 15), most of it decoding rows whose
only use was to be counted. Here the store counts, per session:

- **turns**: its rows; **tool calls**: the objects in each row's ``tool_calls`` array;
- **prompts**: its ``user`` rows without a ``display_kind``; a row whose first characters could make it
  something else once decoded (structured content, a leading ``<`` or ``[`` that may be a recalled memory
  block, a model-switch marker, a summary, a review prompt, or more leading whitespace than is looked at)
  is decoded here with the model's own functions and judged by the model's rules;
- **commands**: each ``terminal`` call's result is found as Hermes pairs it (the first later row of the
  session that is a ``user`` row, which ends the pairing, or a ``tool`` row naming one of the call's ids)
  and read as the terminal rule reads a result that is one JSON object; any other result (a note after the
  object, a stored preview) is read here by the terminal rule itself;
- **active time**: its span less what each gap between its rows (in time order) has past its cap; the
  store finds the long gaps over the ``(session_id, timestamp)`` index, and each is measured here to the
  microsecond and capped by the role of the row that ends it, as :func:`hermes_trail.stats.active_seconds`
  adds the gaps.

A session the store cannot count the same way is read the long way (``History.load`` and
:func:`hermes_trail.stats.measure`): one with a row kept aside (rewound, archived) or a role the model
reads specially (``session_meta``), a compaction summary or a review prompt among its rows, a
``tool_calls`` cell that Python's JSON reader and SQLite's might read differently, a ``tool`` row with calls
of its own, a divert file, or a call id a pairing could read two ways (an id with a ``|`` or spaces, a
later call sharing it before its result, a result whose id is not the call's own spelling). So the counts
are the model's, whatever the store holds. Session rows are read the same way: only the columns a report
groups, filters and sums by, each decoded by the model's own function, and a session whose project may
come from its parent (a sub-agent or continuation with no workspace of its own) decoded and linked with
its family as the whole catalog links it.

Even so, a store of 10,000 sessions takes seconds to count, every time. So the rows of a report
(:data:`hermes_trail.stats.Row`, one a session) are kept in trail's cache directory, never in a Hermes
home (:func:`cached_rows`, :func:`save_rows`), under a fingerprint of everything they were read from: each
store's file, its WAL and its WAL index (identity, size, times, the header bytes SQLite changes on a
commit or a WAL restart), each home's divert files, what locating passed over, and this code's version.
A store that changed, by a byte or a second, is counted again, but only for the sessions that changed
(:func:`report_rows` with the rows counted before, :func:`earlier_rows`): those with rows above the newest
message id counted then, or whose row's digest changed, and those below them; a PostgreSQL store, which
has no such fingerprint, is counted every time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_trail.stats import R_ID, R_STORE, Figures, Row, SessionKey, measure_all, row_of

if TYPE_CHECKING:
    from hermes_trail.hermes.locate import Discovery
    from hermes_trail.history import Entry, History
    from hermes_trail.model import Session, Store, Usage
    from hermes_trail.stats import Report

# Python's whitespace (str.isspace), which str.strip() removes: SQLite's ltrim is given the same set.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# How much of a row's content the store looks at: enough for every prefix the rules look for, after
# leading whitespace; a row with less text left in it than _ENOUGH (and more content after) is decoded.
_WINDOW = 128
_ENOUGH = 60


class Brief:
    """A session as a report counts it, read from a few columns of its row (:func:`counted_sessions`):
    what :func:`~hermes_trail.stats.aggregate`, :func:`~hermes_trail.stats.estimate_costs` and a
    :class:`~hermes_trail.listing.SessionFilter` read of a :class:`~hermes_trail.model.Session`."""

    __slots__ = ("_row", "_usage", "entry", "model", "project", "raw")

    def __init__(self, entry: Entry, model: str | None, project: str, row: dict[str, Any]) -> None:
        self.entry = entry
        self.model = model
        self.project = project
        self.raw = {"billing_provider": row.get("billing_provider")}
        self._row = row
        self._usage: Usage | None = None

    @property
    def key(self) -> SessionKey:
        return (self.entry.store.key, self.entry.id)

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def store(self) -> Store:
        return self.entry.store

    @property
    def profile(self) -> str:
        return self.entry.profile

    @property
    def source(self) -> str | None:
        return self.entry.source

    @property
    def usage(self) -> Usage:
        if self._usage is None:
            from hermes_trail.hermes.decode.usage import session_usage

            self._usage = session_usage(self._row)
        return self._usage

    @property
    def last_activity_at(self) -> datetime | None:
        return self.entry.last_activity_at

    @property
    def started_at(self) -> datetime | None:
        return self.entry.started_at


# The columns a Brief reads; a store without one reads it as NULL, as a missing key reads as None.
_BRIEF_COLUMNS = (
    "model",
    "cwd",
    "git_repo_root",
    "git_branch",
    "parent_session_id",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "api_call_count",
    "actual_cost_usd",
    "estimated_cost_usd",
    "cost_status",
    "cost_source",
    "billing_provider",
)


def counted_sessions(history: History, entries: list[Entry] | None = None) -> list[Brief | Session]:
    """Every session of a history opened with ``catalog=PAGE`` (or those of ``entries``), newest activity
    first, as a report counts it: a :class:`Brief` for a row of a SQLite store, the decoded session where
    the entry holds one."""
    history.read_profiles()
    chosen = history.entries if entries is None else entries
    out: list[Brief | Session] = []
    briefs: dict[str, dict[str, Brief]] = {}
    for key in dict.fromkeys(e.store.key for e in chosen if e.session is None):
        briefs[key] = _store_briefs(history, [e for e in chosen if e.store.key == key and e.session is None])
    for entry in chosen:
        out.append(entry.session if entry.session is not None else briefs[entry.store.key][entry.id])
    return out


def _store_briefs(history: History, entries: list[Entry]) -> dict[str, Brief]:
    """The briefs of one SQLite store's entries."""
    from hermes_trail.hermes.decode.classes import worktree_of
    from hermes_trail.hermes.decode.sessions import project_of
    from hermes_trail.hermes.decode.values import text

    reader: Any = history.reader(entries[0].store)
    have = set(reader.columns("sessions"))
    picked = ", ".join(f'"{c}"' if c in have else f'NULL AS "{c}"' for c in _BRIEF_COLUMNS)
    sql = f"SELECT rowid AS _rowid, {picked} FROM sessions"
    if len(entries) <= FEW_SESSIONS:  # a count of what changed since the last: those rows only
        sql += f" WHERE rowid IN ({', '.join(str(int(e.rowid)) for e in entries)})"
    rows = {r.pop("_rowid"): r for r in reader.rows(sql)}
    out: dict[str, Brief] = {}
    bare: set[str] = set()  # children with no workspace of their own: they may take their parent's project
    for entry in entries:
        row = rows[entry.rowid]
        cwd = text(row["cwd"], "cwd")[0]
        repo = text(row["git_repo_root"], "git_repo_root")[0]
        project = project_of(cwd, repo, entry.profile)
        tree = worktree_of(cwd, text(row["git_branch"], "git_branch")[0])
        if tree is not None:
            project = tree[1]
        parent = text(row["parent_session_id"], "parent_session_id")[0]
        if parent and not (cwd or "").strip() and not (repo or "").strip():
            bare.add(entry.id)
        out[entry.id] = Brief(entry, text(row["model"], "model")[0], project, row)
    if bare:  # decoded and linked with their families (History.page), as the whole catalog links them
        for session in history.page([e for e in entries if e.id in bare]):
            out[session.id].project = session.project
    return out


def figures_of(
    history: History,
    sessions: Iterable[Brief | Session],
    progress: Callable[[int, int], None] | None = None,
) -> dict[SessionKey, Figures]:
    """The figures of each session, as :func:`hermes_trail.stats.measure_all` gives them: counted by its
    store where it can (see the module), read and measured otherwise.

    :param progress: called with (done, total) while sessions are read the long way.
    """
    chosen = list(sessions)
    out: dict[SessionKey, Figures] = {}
    slow: list[Brief | Session] = []
    by_store: dict[str, list[Brief]] = {}
    for item in chosen:
        if isinstance(item, Brief):
            by_store.setdefault(item.entry.store.key, []).append(item)
        else:
            slow.append(item)
    for key, briefs in by_store.items():
        store = briefs[0].entry.store
        counted, passed = store_figures(history.reader(store), store.home, {b.id for b in briefs})
        for brief in briefs:
            if brief.id in passed:
                slow.append(brief)
            else:
                out[(key, brief.id)] = counted.get(brief.id, Figures())
    if slow:
        entries = [s.entry for s in slow if isinstance(s, Brief)]
        decoded = iter(history.page(entries))
        loaded = [next(decoded) if isinstance(s, Brief) else s for s in slow]
        out.update(measure_all(history.load, loaded, progress=progress))
    return out


# Per SQLite store key: its newest ``messages.id`` and each session's row digest, as a count read them.
State = dict[str, tuple[int, dict[str, str]]]


def report_rows(
    history: History,
    progress: Callable[[int, int], None] | None = None,
    earlier: Earlier | None = None,
) -> tuple[list[Row], State]:
    """Every session of a history opened with ``catalog=PAGE`` as a report row, newest activity first
    (:func:`counted_sessions` with their :func:`figures_of`), and the state of each SQLite store they were
    counted at, for the next count.

    :param earlier: what a count of the same stores gave before they changed: a session of a SQLite store
        that has no row above the newest message id counted then, whose row's digest is the same, and
        whose parent (whose project a child without a workspace of its own takes) was not counted again,
        keeps its row; the others are counted. After a Hermes turn, a report of 10,000 sessions counts
        the one that changed, not all of them.
    """
    from hermes_trail.errors import StoreUnreadable
    from hermes_trail.hermes.changes import row_digest
    from hermes_trail.hermes.decode.sessions import id_text

    state: State = {}
    again: set[SessionKey] = set()
    for key, store in {e.store.key: e.store for e in history.entries if e.session is None}.items():
        reader: Any = history.reader(store)
        try:
            top = reader.max_message_id()
            digests = {sid: row_digest(m) for v, m in reader.session_marks() if (sid := id_text(v))}
        except StoreUnreadable:
            continue  # counted whole, and not kept for a later count
        state[key] = (top, digests)
        if earlier is None or key not in earlier.state:
            continue
        before_top, before = earlier.state[key]
        if top < before_top:  # rows gone from the top: another file in its place (a restore), counted whole
            again.update((key, sid) for sid in digests)
            continue
        fresh = {id_text(v) for v in reader.sessions_with_messages_after(before_top)}
        changed = {sid for sid, digest in digests.items() if sid in fresh or before.get(sid) != digest}
        again.update((key, sid) for sid in _with_children(reader, changed))
    if earlier is None:
        kept: dict[SessionKey, Row] = {}
    else:
        kept = {
            (row[R_STORE], row[R_ID]): row
            for row in earlier.rows
            if row[R_STORE] in state
            and row[R_ID] in state[row[R_STORE]][1]
            and (row[R_STORE], row[R_ID]) not in again
        }
    chosen = [e for e in history.entries if e.session is not None or (e.store.key, e.id) not in kept]
    sessions = counted_sessions(history, chosen)
    figures = figures_of(history, sessions, progress=progress)
    counted = {s.key: row_of(s, figures.get(s.key)) for s in sessions}
    return [counted.get((e.store.key, e.id)) or kept[(e.store.key, e.id)] for e in history.entries], state


def _with_children(reader: Any, changed: set[str]) -> set[str]:
    """``changed`` and every session below one of them (children, their children), found through the
    store's ``parent_session_id`` index: a child with no workspace of its own takes its parent's project."""
    from hermes_trail.hermes.decode.sessions import session_id_of

    out, below = set(changed), sorted(changed)
    while below:
        found = {
            sid for row in reader.session_rows_by("parent_session_id", below) if (sid := session_id_of(row))
        }
        below = sorted(found - out)
        out.update(below)
    return out


class Earlier:
    """What a cache file of the same stores holds from before one of them changed: the rows, and the state
    of each SQLite store they were counted at."""

    __slots__ = ("rows", "state")

    def __init__(self, rows: list[Row], state: State) -> None:
        self.rows = rows
        self.state = state


# What a cache file holds besides its rows. Change CACHE_FORMAT whenever a counting rule changes what a
# row says: rows counted by the old rule are then counted again.
CACHE_FORMAT = 4  # 4: each store's state, for counting only what changed


class Cached:
    """The report rows of every session, and what reading them told the user; from a cache file, the rows
    are read from it only when asked for (a report of every session by project, model, profile or source
    is kept whole beside them, :attr:`reports`)."""

    __slots__ = ("_rest", "_rows", "reports", "skipped", "stores", "strays")

    def __init__(
        self,
        rows: list[Row] | None,
        strays: list[tuple[str, str, str]],
        skipped: bool,
        stores: int,
        reports: dict[str, Report] | None = None,
        rest: Any = None,
    ) -> None:
        self._rows = rows
        self._rest = rest  # the cache file's bytes of the rows
        self.strays = strays  # (kind, where, reason) of what was passed over while opening the stores
        self.skipped = skipped  # whether anything was passed over by the end (the exit code)
        self.stores = stores
        self.reports = reports or {}  # the report of every session, by grouping (never by day: time zones)

    @property
    def rows(self) -> list[Row]:
        if self._rows is None:
            import marshal

            self._rows = marshal.loads(self._rest)
        return self._rows


# The groupings whose report of every session is kept whole in a cache file (a day is local: the same
# rows make other days in another time zone).
_KEPT = ("project", "model", "profile", "source")


def fingerprint(discovery: Discovery) -> tuple[Any, ...] | None:
    """What the rows of every store of ``discovery`` were read from, in a form that changes whenever they
    may (see the module); ``None`` when a store has no such form (PostgreSQL)."""
    import sys

    from hermes_trail import __version__
    from hermes_trail.hermes import locate
    from hermes_trail.hermes.changes import file_mark, store_marks

    parts: list[Any] = [CACHE_FORMAT, __version__, sys.version_info[:2], _code_mark()]
    parts.append(tuple((n.path, n.reason) for n in discovery.notes))
    files: list[Any] = []
    homes: dict[str, None] = {}
    for location in discovery.stores:
        if location.path is None:
            return None
        parts.append((location.key, location.profile, str(location.home), location.origin))
        files.extend(store_marks(location.path))  # what the search index's sync reads too
        if location.home is not None:
            homes.setdefault(str(location.home))
    for home in homes:
        parts.append(tuple((str(p), file_mark(str(p))) for p in locate.divert_files(home)))
    # What was counted from (the stores, the code, the divert files) first, then the stores' files: a
    # count whose first part is the same counts again only the sessions that changed (:func:`earlier_rows`).
    return (tuple(parts), tuple(files))


def _code_mark() -> int:
    """The newest modification time of the modules a row is counted by (this package's, Hermes' reading
    rules'): a row counted by code since edited is counted again, whatever :data:`CACHE_FORMAT` says."""
    import os

    root = Path(__file__).parent
    newest = 0
    for folder in (root, root / "hermes", root / "hermes" / "decode", root / "hermes" / "sidefiles"):
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".py"):
                        newest = max(newest, entry.stat().st_mtime_ns)
        except OSError:
            continue
    return newest


def cache_dir(env: Any = None) -> Path:
    """trail's cache directory: what ``platformdirs.user_cache_dir`` names, found with the standard
    library (platformdirs costs its import, and Hermes' own Python lacks it)."""
    import os
    import sys

    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "hermes-trail"
    if sys.platform == "win32":
        return Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local") / "hermes-trail" / "Cache"
    return Path(env.get("XDG_CACHE_HOME", "").strip() or home / ".cache") / "hermes-trail"


def _cache_file(discovery: Discovery) -> Path:
    """The cache file of one set of stores (one a set, so two homes read in turn keep theirs)."""
    from zlib import crc32

    named = "\n".join(f"{s.key}\t{s.profile}\t{s.home}" for s in discovery.stores)
    return cache_dir() / f"stats-{crc32(named.encode()):08x}.marshal"  # the file says which stores it is


def saved_rows(discovery: Discovery, mark: tuple[Any, ...]) -> Cached | Earlier | None:
    """What was saved for ``discovery``, read once: the report itself (:class:`Cached`) when its
    fingerprint is still ``mark``; the rows of a count whose :func:`fingerprint` differs from ``mark`` only
    in the stores' files (a Hermes turn since), with the state they were counted at (:class:`Earlier`),
    from which only what changed is counted; else ``None``.

    The file holds three :mod:`marshal` objects (the format Python reads its ``.pyc`` files in, from the
    user's own cache directory), each of the first two with its length ahead of it: what a report of every
    session needs, then the rows, which a filtered report reads too, then each store's state
    (:func:`report_rows`), which only a count of what changed reads. Where JSON would take tens of
    milliseconds on 10,000 rows, this takes a few.
    """
    import marshal

    from hermes_trail.stats import Group, Report

    try:
        found = _read_cache(discovery)
        if found is None:
            return None
        head, rows, state = found
        if head[0] == mark:
            _, strays, skipped, stores, kept = head
            reports = {
                by: Report(by=by, groups=[Group(*g) for g in groups], overall=Group(*overall))
                for by, (groups, overall) in kept.items()
            }
            return Cached(None, strays, skipped, stores, reports, rows)
        if head[0][0] == mark[0]:
            return Earlier(marshal.loads(rows), marshal.loads(state))
    except (OSError, ValueError, EOFError, TypeError, IndexError, RuntimeError):  # see _read_cache
        return None
    return None


def _read_cache(discovery: Discovery) -> tuple[tuple[Any, ...], memoryview, memoryview] | None:
    """The cache file of ``discovery`` (:func:`save_rows`): its head read, and the bytes of its rows and of
    its stores' state, to read when wanted; ``None`` for a head of another shape.

    :raises OSError, ValueError, EOFError, TypeError, IndexError, RuntimeError: no file, a damaged one, no
        home directory to find it in."""
    import marshal

    data = memoryview(_cache_file(discovery).read_bytes())
    size = int.from_bytes(data[:8], "little")
    head = marshal.loads(data[8 : 8 + size])
    if not (isinstance(head, tuple) and len(head) == 5 and isinstance(head[0], tuple)):
        return None
    end = 16 + size + int.from_bytes(data[8 + size : 16 + size], "little")
    return head, data[16 + size : end], data[end:]


def save_rows(
    discovery: Discovery, mark: tuple[Any, ...], cached: Cached, state: State | None = None
) -> None:
    """Keep ``cached`` for the next report on these stores, with the report of every session by each
    grouping but day, and ``state`` (:func:`report_rows`), from which a later count of changed stores
    counts only what changed; a cache that cannot be written is no error."""
    import marshal
    import os
    import tempfile

    from hermes_trail.stats import Group, aggregate_rows

    def values(group: Group) -> tuple[Any, ...]:
        return tuple(getattr(group, name) for name in Group.__slots__)

    kept = {}
    for by in _KEPT:
        report = cached.reports.get(by) or aggregate_rows(cached.rows, by)
        kept[by] = ([values(g) for g in report.groups], values(report.overall))
    try:
        path = _cache_file(discovery)
        path.parent.mkdir(parents=True, exist_ok=True)
        head = marshal.dumps((mark, cached.strays, cached.skipped, cached.stores, kept))
        rows = marshal.dumps(cached.rows)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=".stats-", suffix=".tmp")
        temporary = Path(name)
        try:  # written aside, then renamed: a report running beside this one reads a whole file or none
            with os.fdopen(handle, "wb") as out:
                out.write(len(head).to_bytes(8, "little"))
                out.write(head)
                out.write(len(rows).to_bytes(8, "little"))
                out.write(rows)
                out.write(marshal.dumps(state or {}))  # last: only a count of what changed reads it
            temporary.replace(path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    except (OSError, ValueError, RuntimeError):  # RuntimeError: no home directory to keep a cache in
        return


def store_figures(reader: Any, home: str | None, wanted: set[str]) -> tuple[dict[str, Figures], set[str]]:
    """``(figures, passed)`` of the sessions ``wanted`` of one SQLite store: the figures it counted by
    session id (a session with no row has none), and the sessions to read the long way."""
    from hermes_trail.errors import StoreUnreadable

    columns = set(reader.columns("messages"))
    if not {"id", "session_id", "role", "content", "tool_calls", "tool_call_id", "timestamp"} <= columns:
        return {}, set(wanted)
    try:
        return _counted(reader, home, wanted, columns)
    except StoreUnreadable:  # a store without SQLite's JSON functions, a read that failed: the long way
        return {}, set(wanted)


def _counted(
    reader: Any, home: str | None, wanted: set[str], columns: set[str]
) -> tuple[dict[str, Figures], set[str]]:
    from hermes_trail.history import micros

    passed: set[str] = set()
    sums = _sums(reader, columns, wanted)
    for sid, row in sums.items():
        if sid in wanted and row[3]:
            passed.add(sid)
    if home is not None:
        from hermes_trail.hermes import locate

        passed.update(p.name[: -len(".jsonl")] for p in locate.divert_files(home))
    counted = {sid: row for sid, row in sums.items() if sid in wanted and sid not in passed}
    special: list[int] = []
    terminal: list[tuple[int, int]] = []
    for row in counted.values():
        special.extend(_ids(row[5]))
        terminal.extend((i, row[1]) for i in _ids(row[6]))
    typed = _special_prompts(reader, special, columns, passed)
    commands = _commands(reader, terminal, passed)
    spans = {sid: row for sid, row in counted.items() if row[7] and row[9] - row[8] > _BIG_GAP}
    excess = _excess(reader, spans) if spans else {}
    out: dict[str, Figures] = {}
    for sid, row in counted.items():
        if sid in passed:
            continue
        count, _, users, _, calls, _, _, points, first, last = row
        ran, failing, blocked = commands.get(sid, (0, 0, 0))
        active = None
        if points:
            span = (micros(last) or 0) - (micros(first) or 0)
            active = (span - excess.get(sid, 0)) / 1_000_000
        out[sid] = Figures(
            turns=count,
            prompts=int(users) + typed.get(sid, 0),
            tool_calls=int(calls),
            commands=ran,
            failing_commands=failing,
            blocked_commands=blocked,
            active_seconds=active,
        )
    return out, passed & wanted


def _ids(joined: str | None) -> list[int]:
    return [int(i) for i in joined.split(",")] if joined else []


# Up to this many sessions wanted, their rows are found through Hermes' ``session_id`` index instead of one
# pass over every row (a count after a Hermes turn wants the one or two sessions that changed).
FEW_SESSIONS = 500


def _sums(reader: Any, columns: set[str], wanted: set[str] | None = None) -> dict[str, tuple[Any, ...]]:
    """Per session, one scan of ``messages`` (or of the rows of ``wanted``, when they are few): (rows,
    newest id, plain user rows, rows the store cannot count, tool calls, ids of rows to decode here, ids of
    rows with a terminal call, rows with a time, the earliest time, the latest)."""
    live = "(active IS NULL OR (typeof(active) IN ('integer', 'real') AND active <> 0))"
    plain_kind = "NOT (typeof(display_kind) = 'text' AND display_kind <> '')"
    summary_flag = (
        "(_compressed_summary IS NOT NULL AND "
        "NOT (typeof(_compressed_summary) IN ('integer', 'real') AND _compressed_summary = 0))"
    )
    calls_ok = "(typeof(tool_calls) = 'text' AND json_valid(tool_calls) AND json_type(tool_calls) = 'array')"
    bad = f"""(NOT {live if "active" in columns else "1"}
        OR {summary_flag if "_compressed_summary" in columns else "0"}
        OR typeof(role) <> 'text' OR role NOT IN ('user', 'assistant', 'tool', 'system'))"""
    # One expression a row: its tool calls, or a large negative number when the store cannot count the
    # row (so a session's sum is negative exactly when one of its rows cannot be counted).
    calls = f"""CASE WHEN {bad} THEN -1e12
        WHEN tool_calls IS NULL OR tool_calls = '' THEN 0
        WHEN role = 'tool' OR NOT {calls_ok} THEN -1e12
        ELSE (SELECT count(*) FROM json_each(tool_calls) WHERE type = 'object') END"""
    # Each row is reduced to a few numbers before the rows are sorted into sessions (the subquery, which
    # LIMIT keeps from being merged into the grouping): sorting whole rows would move every content.
    sql = f"""
        SELECT session_id, count(*), max(id), total(user), total(calls), group_concat(special),
          group_concat(terminal), count(stamp), min(stamp), max(stamp)
        FROM (
          SELECT session_id, id,
            role = 'user' AND {plain_kind if "display_kind" in columns else "1"} AS user,
            {calls} AS calls,
            CASE WHEN {_SPECIAL} THEN id END AS special,
            CASE WHEN tool_calls IS NOT NULL AND instr(tool_calls, 'terminal') > 0 THEN id END AS terminal,
            CASE WHEN {_VALID} THEN timestamp END AS stamp
          FROM messages {{where}} LIMIT -1
        ) GROUP BY session_id"""
    if wanted is not None and len(wanted) <= FEW_SESSIONS:
        names = {f"s{n}": sid for n, sid in enumerate(sorted(wanted))}
        marks = ", ".join(f":{name}" for name in names) or "NULL"
        where = f"WHERE session_id IN ({marks})"
        found = reader.rows(sql.replace("{where}", where), {"ws": WHITESPACE, **names})
    else:
        found = reader.rows(sql.replace("{where}", "NOT INDEXED"), {"ws": WHITESPACE})
    out = {}
    for row in found:
        sid, count, last, users, calls, *rest = row.values()
        if isinstance(sid, str):
            out[sid] = (count, last, users, calls < 0, max(calls, 0), *rest)
    return out


def _check(head: str) -> str:
    """SQL telling whether a row whose text starts with ``head`` (an SQL expression) is one to decode."""
    return f"""CASE substr({head}, 1, 1)
        WHEN '[' THEN ({head} GLOB '[[]CONTEXT COMPACTION*' OR {head} GLOB '[[]CONTEXT SUMMARY]:*'
          OR {head} GLOB '[[]PRIOR CONTEXT*'
          OR (role = 'user' AND {head} GLOB '[[]System: The active model for this chat has changed to *')
          OR (role IN ('user', 'assistant') AND {head} LIKE '[system note%'))
        WHEN '<' THEN role IN ('user', 'assistant')
        WHEN 'R' THEN role IN ('user', 'system') AND {head} GLOB 'Review the conversation above and *'
        ELSE 0 END"""


_TRIMMED = f"ltrim(substr(content, 1, {_WINDOW}), :ws)"
# A row's text may be something other than it seems only when it starts (after whitespace) with a bracket
# (a summary, a marker, a memory note), "<" (a memory block), "R" (a review prompt) or NUL (structured
# content): only a row whose first character is one of these, or whitespace, is looked at closer.
_LEADS = ", ".join(f"char({ord(c)})" for c in "[<R" + WHITESPACE)
_SPECIAL = f"""(CASE
    WHEN typeof(content) <> 'text' THEN content IS NOT NULL
    WHEN substr(content, 1, 1) NOT IN ({_LEADS}, '') THEN 0
    WHEN content = '' THEN 0
    WHEN substr(content, 1, 1) = '' THEN 1  -- SQLite's text functions stop at a NUL: structured content
    WHEN instr(:ws, substr(content, 1, 1)) = 0 THEN {_check(f"substr(content, 1, {_WINDOW})")}
    WHEN length({_TRIMMED}) < {_ENOUGH} AND substr(content, {_WINDOW + 1}, 1) <> '' THEN 1
    ELSE {_check(_TRIMMED)} END)"""


# A timestamp cell values.epoch() reads as a time.
_VALID = "(typeof(timestamp) IN ('integer', 'real') AND timestamp >= 0 AND timestamp <= 4.2e9)"
# Gaps this long (in seconds, a little under the human cap) are looked at to the microsecond.
_BIG_GAP = 299.999


def _excess(reader: Any, spans: dict[str, tuple[Any, ...]]) -> dict[str, int]:
    """Per session of ``spans``, the microseconds its capped gaps lose: its active time is its span less
    these (a sum of gaps, each capped, is the span less what each gap has past its cap).

    The store finds the gaps longer than :data:`_BIG_GAP` between rows in time order (the
    ``(session_id, timestamp)`` index); each is then measured here as ``stats.active_seconds`` measures
    it, between the times rounded to the microsecond, and capped by the role of the row that ends it: of
    the rows at that microsecond, the first in ``messages.id`` order, as the model orders equal times.
    """
    from hermes_trail.hermes.decode.durations import AGENT_GAP_CAP, HUMAN_GAP_CAP
    from hermes_trail.history import micros

    human, agent = round(HUMAN_GAP_CAP * 1_000_000), round(AGENT_GAP_CAP * 1_000_000)
    sql = f"""
        SELECT session_id, timestamp, previous FROM (
          SELECT session_id, timestamp, lag(timestamp) OVER win AS previous FROM messages
          WHERE {_VALID} AND session_id IN (SELECT value FROM json_each(:sessions))
          WINDOW win AS (PARTITION BY session_id ORDER BY timestamp)
        ) WHERE timestamp - previous > {_BIG_GAP}"""
    gaps = []
    for row in reader.rows(sql, {"sessions": json.dumps(sorted(spans))}):
        sid, ended, began = row.values()
        at, since = micros(ended), micros(began)
        if at is not None and since is not None and at - since > human:
            gaps.append((sid, ended, at, at - since))
    if not gaps:
        return {}
    sql = """
        SELECT g.k, m.id, m.timestamp, m.role
        FROM (SELECT json_extract(value, '$[0]') AS k, json_extract(value, '$[1]') AS sid,
                     json_extract(value, '$[2]') AS at FROM json_each(:gaps)) g
        JOIN messages m ON m.session_id = g.sid AND m.timestamp BETWEEN g.at - 0.000002 AND g.at + 0.000002"""
    first: dict[int, tuple[int, Any]] = {}
    for row in reader.rows(sql, {"gaps": json.dumps([[k, g[0], g[1]] for k, g in enumerate(gaps)])}):
        k, rid, stamp, role = row.values()
        if micros(stamp) == gaps[k][2] and (k not in first or rid < first[k][0]):
            first[k] = (rid, role)
    out: dict[str, int] = {}
    for k, (sid, _, _, gap) in enumerate(gaps):
        cap = human if first[k][1] == "user" else agent
        out[sid] = out.get(sid, 0) + max(gap - cap, 0)
    return out


def _by_ids(reader: Any, columns: str, ids: list[int]) -> list[dict[str, Any]]:
    if not ids:
        return []
    sql = f"SELECT {columns} FROM messages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"
    return list(reader.rows(sql, (json.dumps(ids),)))


def _special_prompts(reader: Any, ids: list[int], columns: set[str], passed: set[str]) -> dict[str, int]:
    """Per session, what the rows the store would not judge change in its count of prompts (every plain
    ``user`` row): decoded here and judged by the model's rules, a model-switch marker is no prompt. A
    session with a summary or review prompt among them joins ``passed``."""
    from hermes_trail.hermes.decode.compaction import SUMMARY_PREFIXES
    from hermes_trail.hermes.decode.content import decode_content
    from hermes_trail.hermes.decode.conversation import _REVIEW_HARNESS_PREFIXES
    from hermes_trail.hermes.decode.usage import MARKER_PREFIX

    kind = "display_kind" if "display_kind" in columns else "NULL AS display_kind"
    typed: dict[str, int] = {}
    for row in _by_ids(reader, f"id, session_id, role, content, {kind}", ids):
        sid, role = row["session_id"], row["role"]
        text = decode_content(row["content"], role).text.lstrip()
        if text.startswith(("[PRIOR CONTEXT", *SUMMARY_PREFIXES)) or (
            role in ("user", "system") and text.startswith(_REVIEW_HARNESS_PREFIXES)
        ):
            passed.add(sid)
            continue
        display = row["display_kind"]
        if role == "user" and not (isinstance(display, str) and display) and text.startswith(MARKER_PREFIX):
            typed[sid] = typed.get(sid, 0) - 1  # the store counted it as a prompt; it is a marker
    return typed


def _alias(key: str) -> str:
    """SQL: one of a call entry's ids, when it is a string (else NULL)."""
    return f"CASE WHEN json_type(e.value, '$.{key}') = 'text' THEN json_extract(e.value, '$.{key}') END"


def _plain(alias: str) -> str:
    """SQL: whether an id is its only spelling: no ``|`` to split at, no whitespace to strip (an id with any
    character outside printable ASCII is taken as not plain, and its session read the long way)."""
    return f"({alias} IS NULL OR ({alias} <> '' AND NOT {alias} GLOB '*[^!-{{}}-~]*'))"


def _names(alias: str) -> str:
    return f"(c.{alias} IS NOT NULL AND instr(m.tool_call_id, c.{alias}) > 0)"


_REFUSALS = ("approval_required", "blocked", "degraded", "disabled", "error", "pending_approval")
_EXIT = "json_extract(content, '$.exit_code')"
# Each terminal call in the rows :rows ([row id, the session's last row id], ...), its result found as
# Hermes pairs it, and what the terminal rule reads of it; `odd`: the pairing could read two ways (the
# session is read the long way); `python`: a result that is not one clean JSON object (read in Python).
_TERMINAL = f"""
WITH calls AS (
  SELECT r.id AS row, r.session_id AS sid, json_extract(j.value, '$[1]') AS last, e.key AS pos,
    {_alias("call_id")} AS a1, {_alias("id")} AS a2, {_alias("response_item_id")} AS a3,
    json_array_length(r.tool_calls) > 1 AS many
  FROM json_each(:rows) j
    JOIN messages r NOT INDEXED ON r.id = json_extract(j.value, '$[0]'), json_each(r.tool_calls) e
  WHERE e.type = 'object' AND instr(e.value, 'terminal') > 0
    AND (CASE WHEN json_type(e.value, '$.function') = 'object' THEN json_extract(e.value, '$.function.name')
         ELSE json_extract(e.value, '$.name') END) = 'terminal'
),
answered AS MATERIALIZED (
  SELECT c.*, (
    SELECT m.id FROM messages m NOT INDEXED
    WHERE m.id > c.row AND m.id <= c.last AND m.session_id = c.sid
      AND (m.role = 'user' OR (m.role = 'tool' AND ({_names("a1")} OR {_names("a2")} OR {_names("a3")})))
    ORDER BY m.id LIMIT 1) AS result
  FROM calls c
),
paired AS MATERIALIZED (
  SELECT a.sid, a.row, a.pos, a.result, coalesce(m.role = 'tool', 0) AS paired,
    CASE
      WHEN NOT ({_plain("a.a1")} AND {_plain("a.a2")} AND {_plain("a.a3")}) THEN 1
      WHEN a.many AND EXISTS (SELECT 1 FROM json_each(r.tool_calls) e2 WHERE e2.key > a.pos AND (
        instr(e2.value, a.a1) > 0 OR instr(e2.value, a.a2) > 0 OR instr(e2.value, a.a3) > 0)) THEN 1
      WHEN m.role IS NOT 'tool' THEN 0
      WHEN m.tool_call_id IS NOT a.a1 AND m.tool_call_id IS NOT a.a2 AND m.tool_call_id IS NOT a.a3 THEN 1
      WHEN EXISTS (SELECT 1 FROM messages b NOT INDEXED WHERE b.id > a.row AND b.id < a.result
                   AND b.session_id = a.sid AND typeof(b.tool_calls) = 'text'
                   AND instr(b.tool_calls, m.tool_call_id) > 0) THEN 1
      ELSE 0
    END AS odd
  FROM answered a JOIN messages r NOT INDEXED ON r.id = a.row
    LEFT JOIN messages m NOT INDEXED ON m.id = a.result
),
clean AS MATERIALIZED (
  SELECT p.*, m.content AS content,
    CASE WHEN p.paired AND typeof(m.content) = 'text' AND unicode(m.content) <> 0 AND json_valid(m.content)
         THEN json_type(m.content) = 'object' ELSE 0 END AS clean
  FROM paired p LEFT JOIN messages m NOT INDEXED ON m.id = p.result AND p.paired
),
judged AS MATERIALIZED (
  SELECT sid, row, pos, result, paired, coalesce(odd, 0) AS odd,
    CASE WHEN NOT paired THEN 0 WHEN NOT clean THEN 1
         WHEN json_type(content, '$.exit_code') = 'real' THEN abs({_EXIT}) >= 9e15 ELSE 0 END AS python,
    CASE WHEN clean THEN CASE json_type(content, '$.exit_code')
      WHEN 'integer' THEN {_EXIT}
      WHEN 'real' THEN CASE WHEN {_EXIT} = CAST({_EXIT} AS INTEGER) THEN CAST({_EXIT} AS INTEGER) END
    END END AS exit_code,
    CASE WHEN clean AND json_type(content, '$.status') = 'text' THEN json_extract(content, '$.status') END
      AS status,
    CASE WHEN clean THEN json_type(content, '$.exit_code') IS NOT NULL ELSE 0 END AS has_exit,
    CASE WHEN clean AND json_type(content, '$.error') = 'text' THEN json_extract(content, '$.error') <> ''
         ELSE 0 END AS error
  FROM clean
),
never AS (
  SELECT *, coalesce(paired AND (exit_code = -1 OR status IN ({", ".join(f"'{x}'" for x in _REFUSALS)})
                                 OR (NOT has_exit AND error)), 0) AS never
  FROM judged
)
SELECT sid, row, pos, result, odd, python, NOT never AS ran,
  coalesce(NOT never AND paired AND exit_code <> 0, 0) AS failing,
  coalesce(paired AND status = 'blocked', 0) AS blocked
FROM never"""


def _commands(reader: Any, ids: list[tuple[int, int]], passed: set[str]) -> dict[str, tuple[int, int, int]]:
    """Per session: (commands that ran, failing ones, blocked ones) of the terminal calls in the rows
    ``ids`` (each with its session's last row id),
    each paired to its result as Hermes pairs them (``pair_results``) and read by the terminal rule; a
    session whose pairing could read two ways joins ``passed``.

    The store reads a result that is one JSON object (what Hermes' terminal tool writes) the way
    ``interpret_terminal`` does: a call ran unless its exit code is -1, its status a refusal, or it has no
    exit code beside an error; it failed when it ran with an exit code other than 0; it was blocked when
    its status says so. Any other result (a note after the object, a stored preview) is read here by
    ``interpret_terminal`` itself.
    """
    from hermes_trail.hermes.decode.terminal import REFUSED_STATUSES

    assert set(REFUSED_STATUSES) == set(_REFUSALS), "the SQL spells the refusals out"
    if not ids:
        return {}
    params = {"rows": json.dumps(ids)}
    out: dict[str, tuple[int, int, int]] = {}
    python: list[dict[str, Any]] = []
    for row in reader.rows(_TERMINAL, params):
        sid = row["sid"]
        if row["odd"]:
            passed.add(sid)
            continue
        if row["python"]:
            python.append(row)
            continue
        ran, failing, blocked = out.get(sid, (0, 0, 0))
        out[sid] = (ran + row["ran"], failing + row["failing"], blocked + row["blocked"])
    for row in python:
        ran, failing, blocked = _read_terminal(reader, row)
        was = out.get(row["sid"], (0, 0, 0))
        out[row["sid"]] = (was[0] + ran, was[1] + failing, was[2] + blocked)
    return out


def _read_terminal(reader: Any, row: dict[str, Any]) -> tuple[int, int, int]:
    """(ran, failing, blocked) of one terminal call whose result the store does not read, by the rule."""
    from hermes_trail.hermes.decode.content import decode_content
    from hermes_trail.hermes.decode.terminal import interpret_terminal
    from hermes_trail.hermes.decode.toolcalls import decode_call
    from hermes_trail.model import ToolResult
    from hermes_trail.stats import FAILING

    (calls,) = _by_ids(reader, "tool_calls", [row["row"]])
    call = decode_call(json.loads(calls["tool_calls"])[row["pos"]])
    (answer,) = _by_ids(reader, "id, tool_call_id, tool_name, content", [row["result"]])
    tool_call_id, tool_name = answer["tool_call_id"], answer["tool_name"]
    call.result = ToolResult(
        call_id=tool_call_id if isinstance(tool_call_id, str) and tool_call_id else None,
        tool_name=tool_name if isinstance(tool_name, str) and tool_name else None,
        text=decode_content(answer["content"], "tool").text,
        source_row=answer["id"],
        time=None,
    )
    interpret_terminal(call)
    command, permission = call.command, call.permission
    if command is not None:
        return 1, int(command.status in FAILING), 0
    return 0, 0, int(permission is not None and permission.outcome == "blocked")
