"""Recovered sessions in the index (``trail index --include-recovered``).

Each home whose snapshots or diverts hold sessions gone from its live ``state.db`` is one pseudo-store of
the index, keyed ``recovered:<home>``. Its identity is the size and mtime of the live store and of every
snapshot and divert file, so it is read again only when one of them changed (a new snapshot, a delete),
and then whole: recovered sessions are few. Once an index includes them, later syncs keep them fresh
until ``--include-recovered`` is turned off (``trail index --rebuild`` without it, or
``sync_index(include_recovered=False)``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from hermes_trail.errors import StoreUnreadable
from hermes_trail.hermes import locate
from hermes_trail.model import Stray, _Frozen

if TYPE_CHECKING:
    from hermes_trail.index.writer import SyncReport

PREFIX = "recovered:"


def is_recovered(store_key: str) -> bool:
    """Whether an index's store key is a home's recovered sessions, not a store Hermes reads."""
    return store_key.startswith(PREFIX)


def indexes_recovered(store_keys: Iterable[str]) -> bool:
    """Whether an index whose stores have these keys indexes recovered sessions."""
    return any(is_recovered(key) for key in store_keys)


# Written out as the model's classes are (``model._Record``): what ``@dataclass`` made, without generating
# and compiling its methods at every start of a ``trail`` command that syncs or searches.
class RecoveredHome(_Frozen):
    _fields: ClassVar[tuple[str, ...]] = ("home", "profile", "live", "identity")
    __slots__ = _fields

    home: Path
    profile: str
    live: Path | None
    identity: str

    def __init__(self, home: Path, profile: str, live: Path | None, identity: str) -> None:
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "live", live)
        object.__setattr__(self, "identity", identity)


def recovered_homes(
    env: Mapping[str, str],
    homes: Iterable[str | Path],
    dbs: Iterable[str | Path],
    identity_of: Callable[[Path], str],
) -> dict[str, RecoveredHome]:
    """Per index key, each home that has snapshots or diverts, with what tells that they changed."""
    from hermes_trail.hermes.locate import DATABASE_NAME

    out: dict[str, RecoveredHome] = {}
    for home, profile in locate.homes_of(locate.discover(env, homes=homes, dbs=dbs)):
        copies = [f for f in locate.side_files(home, profile) if f.kind in ("snapshot", "divert")]
        if not copies:
            continue
        live = home / DATABASE_NAME
        live_path = live if live.is_file() else None
        parts = [identity_of(live) if live_path else "-"]
        parts.extend(f"{f.path.parent.name}/{f.path.name}={identity_of(f.path)}" for f in copies)
        out[PREFIX + str(home.resolve())] = RecoveredHome(home, profile, live_path, "|".join(parts))
    return out


def sync_recovered(
    conn: sqlite3.Connection,
    key: str,
    found: RecoveredHome,
    report: SyncReport,
    begin: Callable[[sqlite3.Connection, str, SyncReport], bool],
) -> None:
    """Index one home's recovered sessions anew, in one transaction."""
    from hermes_trail.index.writer import Writer, delete_session, prepare

    if not begin(conn, key, report):
        return
    try:
        for (sess,) in conn.execute("SELECT id FROM sessions WHERE store = ?", (key,)).fetchall():
            delete_session(conn, sess)
        from hermes_trail.recovery import recover_home  # only when a home has copies to read

        recovered = recover_home(found.home, found.profile, found.live)
        report.strays.extend(recovered.strays)
        writer = Writer(conn)
        with recovered:
            for session, sess in writer.number(recovered.sessions):
                try:
                    recovered.load(session)
                except StoreUnreadable as exc:
                    report.strays.append(Stray(where=exc.path, reason=exc.reason, kind="store"))
                    continue
                report.docs += writer.replace(key, session, None, sess, prepare(session, sess))
                report.sessions_indexed += 1
                report.messages_read += len(session.turns) + len(session.hidden)
        writer.flush()
        conn.execute(
            "INSERT OR REPLACE INTO stores (key, name, path, profile, identity, watermark, synced_at) "
            "VALUES (?, ?, ?, ?, ?, 0, strftime('%s','now'))",
            (key, f"{found.profile}@recovered", str(found.home), found.profile, found.identity),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
