"""Which index a command that names its stores (``--home``, ``--db``, ``--pg``) reads and writes.

An index mirrors the stores of the last sync: a store the sync does not find is taken out with its
sessions, docs and passages. So a look at another home (a backup copy, a colleague's export) through the
default index took the machine's own home out of it, and the next plain ``trail search`` read every
session of it again and encoded every passage again: 40 s and half an hour for a million messages.

A command that names its stores therefore writes the default index only when that loses nothing: when
the default index holds no store outside what was named that is still there. Otherwise it gets an index of
its own, beside the default one (``scoped/<digest>.db``, the digest of the stores named), kept for the next
look at the same stores. ``--index`` is always taken as given, and a command that names nothing keeps the
default index, whose stores are Hermes' own.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from hermes_trail import readonly
from hermes_trail.hermes import locate
from hermes_trail.index import schema


def index_for(
    index: Path | None,
    homes: Iterable[str | Path] = (),
    dbs: Iterable[str | Path] = (),
    pgs: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
) -> Path | None:
    """The index to sync the named stores into: ``index`` when given; ``None`` (the default index) when
    nothing is named or the default index would lose nothing; else the named stores' own index."""
    homes, dbs, pgs = list(homes), list(dbs), list(pgs)
    if index is not None or not (homes or dbs or pgs):
        return index
    env = os.environ if env is None else env
    default = schema.default_index_path(env)
    held = _held(default)
    if not held:
        return None
    named = {store.key for store in locate.discover(env, homes=homes, dbs=dbs, pgs=pgs).stores}
    if not any(key not in named and _still_there(path) for key, path in held):
        return None
    digest = hashlib.sha256("\n".join(sorted(named)).encode()).hexdigest()[:16]
    return default.with_name("scoped") / f"{digest}.db"


def _held(index: Path) -> list[tuple[str, str]]:
    """The stores of sessions ``index`` holds (key, path): not its memory and skills, nor its recovered
    sessions, which follow the homes their stores are in."""
    if not index.is_file():
        return []
    from hermes_trail.index import knowledge, recovered  # the sync after this loads them anyway

    try:
        conn = readonly.connect(index)
        try:
            rows = conn.execute("SELECT key, path FROM stores").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:  # another kind of file, or one being replaced: the sync says what it is
        return []
    return [
        (str(key), str(path or ""))
        for key, path in rows
        if not str(key).startswith((knowledge.PREFIX, recovered.PREFIX))
    ]


def _still_there(path: str) -> bool:
    """Whether a store the index holds is still there to lose: its file (a PostgreSQL store, which has no
    file, counts as there)."""
    if not path or "://" in path or "=" in path:
        return True
    return Path(path).exists()


def others(env: Mapping[str, str] | None = None) -> list[tuple[Path, int]]:
    """The indexes beside the default one that commands made for what they were given (the demo's,
    :func:`~hermes_trail.index.schema.demo_index_path`, and those of stores named, :func:`index_for`),
    with their size on disk: what ``trail index`` lists, so they are found and can be deleted."""
    env = os.environ if env is None else env
    scoped = schema.default_index_path(env).with_name("scoped")
    found = [schema.demo_index_path(env), *sorted(scoped.glob("*.db"))]
    return [(path, schema.index_bytes(path)) for path in found if path.is_file()]
