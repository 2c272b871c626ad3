"""Hermes' memory and skills in the index, so search and recall find what Hermes keeps as knowledge too.

Each home (the root and each ``profiles/<name>/``) with memory files or skills is one pseudo-store of the
index, keyed ``knowledge:<home>``; it is never a store of sessions, and nothing that lists sessions reads
it. In it, each memory file and each skill is one ``sessions`` row (``kind`` and ``source`` ``memory`` or
``skill``; ``session_id`` ``MEMORY.md``, ``USER.md`` or ``skill/<directory under skills/>``; ``ref``
``<profile>:MEMORY.md`` or ``<profile>:<skill name>``) and each memory entry or skill section one ``docs``
row (``role`` and ``kind`` ``memory`` or ``skill``, its time the file's mtime), redacted like every doc.

Change detection is by size and mtime: the pseudo-store's identity is every file's, so a sync that finds
them unchanged reads nothing; otherwise only a file whose own size or mtime moved is read again (its
``sessions.fingerprint``), and a file that is gone leaves the index. A skill Hermes did not write (an
unchanged bundled copy, a hub install: :mod:`hermes_trail.hermes.sidefiles.memory`) is kept as a row
without docs, so it is not hashed again on the next change.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from hermes_trail.hermes import locate
from hermes_trail.hermes.sidefiles import memory
from hermes_trail.index import semantic
from hermes_trail.model import _Frozen, _Record

if TYPE_CHECKING:
    from hermes_trail.index.documents import Doc
    from hermes_trail.index.writer import SyncReport

PREFIX = "knowledge:"
KINDS = ("memory", "skill")
_TITLES = {"MEMORY.md": "MEMORY.md (the agent's notes)", "USER.md": "USER.md (about the user)"}


def is_knowledge(store_key: str) -> bool:
    """Whether an index's store key is a home's memory and skills, not a store of sessions."""
    return store_key.startswith(PREFIX)


def origin_of(store_key: str, session_kind: str) -> str:
    """What a hit was found in: ``session``, ``memory`` or ``skill``."""
    return session_kind if is_knowledge(store_key) and session_kind in KINDS else "session"


# Written out as the model's classes are (``model._Record``): what ``@dataclass`` made, without generating
# and compiling its methods at every start of a ``trail`` command that syncs or searches.
class KnowledgeHome(_Frozen):
    _fields: ClassVar[tuple[str, ...]] = ("home", "profile", "files", "provenance", "identity")
    __slots__ = _fields

    home: Path
    profile: str
    files: list[memory.KnowledgeFile]
    provenance: str  # size and mtime of the files that say which skills Hermes did not write
    identity: str

    def __init__(
        self, home: Path, profile: str, files: list[memory.KnowledgeFile], provenance: str, identity: str
    ) -> None:
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "files", files)
        object.__setattr__(self, "provenance", provenance)
        object.__setattr__(self, "identity", identity)


def knowledge_homes(discovery: locate.Discovery) -> dict[str, KnowledgeHome]:
    """Per index key, each home of ``discovery`` that has memory files or skills, with what tells that
    they changed (``stat`` calls only)."""
    out: dict[str, KnowledgeHome] = {}
    for home, profile in locate.homes_of(discovery):
        files = memory.knowledge_files(home)
        if not files:
            continue
        provenance = ",".join(f"{f.name}={f.fingerprint}" for f in memory.provenance_files(home))
        parts = [f"{f.kind}:{f.name}={f.fingerprint}" for f in files]
        identity = "|".join([*parts, provenance])
        out[PREFIX + str(home.resolve())] = KnowledgeHome(home, profile, files, provenance, identity)
    return out


def _session_id(file: memory.KnowledgeFile) -> str:
    return file.name if file.kind == "memory" else f"skill/{file.name}"


def _fingerprint(file: memory.KnowledgeFile, found: KnowledgeHome) -> str:
    """A memory file's size and mtime; a skill's also the provenance files' (which decide whether it is
    indexed), so a change of the manifest reads the skills again."""
    if file.kind == "memory":
        return file.fingerprint
    digest = hashlib.blake2b(found.provenance.encode(), digest_size=6).hexdigest()
    return f"{file.fingerprint}:{digest}"


class _Read(_Record):
    _fields: ClassVar[tuple[str, ...]] = ("ref", "title", "docs")
    __slots__ = _fields

    ref: str
    title: str
    docs: list[Doc]

    def __init__(self, ref: str, title: str, docs: list[Doc]) -> None:
        self.ref = ref
        self.title = title
        self.docs = docs


def _read(file: memory.KnowledgeFile, found: KnowledgeHome, provenance: memory.Provenance) -> _Read:
    """One file's row and docs (no docs for a skill Hermes did not write, or a file that cannot be read)."""
    from hermes_trail.index.documents import Doc, _clip  # only for a file that changed
    from hermes_trail.redact import redact

    when = file.mtime
    if file.kind == "memory":
        entries, _ = memory.read_memory(file.path)
        docs = [
            Doc(n, 0, "memory", "memory", redact(_clip(e)), when, key=redact(_clip(e)))
            for n, e in enumerate(entries, start=1)
        ]
        return _Read(f"{found.profile}:{file.name}", _TITLES.get(file.name, file.name), docs)
    skill, _ = memory.read_skill(file.path)
    name = skill.name if skill is not None else file.path.parent.name
    ref = f"{found.profile}:{name}"
    if skill is None or provenance.not_written(file.path.parent):
        return _Read(ref, name, [])
    title = f"{name}: {skill.description}" if skill.description else name
    head = "\n".join(p for p in (name, skill.description) if p)
    texts = [head, *skill.sections]
    docs = [Doc(n, 0, "skill", "skill", redact(_clip(t)), when) for n, t in enumerate(texts) if t]
    return _Read(ref, title, docs)


def _session_row(
    sess: int, key: str, sid: str, file: memory.KnowledgeFile, found: KnowledgeHome, read: _Read, fp: str
) -> tuple[Any, ...]:
    from hermes_trail.redact import redact

    gist = None
    if read.docs and semantic.can_gist():
        gist = semantic.gist_blob([redact(read.title), *(d.text for d in read.docs)])
    return (
        sess,
        key,
        sid,
        read.ref,
        found.profile,
        _project(found.profile),
        file.kind,
        file.kind,
        None,
        sid,
        redact(read.title),
        None,
        file.mtime,
        file.mtime,
        fp,
        gist,
    )


def sync_knowledge(
    conn: sqlite3.Connection,
    key: str,
    found: KnowledgeHome,
    report: SyncReport,
    begin: Callable[[sqlite3.Connection, str, SyncReport], bool],
) -> None:
    """Bring one home's memory and skills up to date in one transaction: files whose size or mtime moved
    are read again, files that are gone leave the index."""
    from hermes_trail.index.writer import Writer, delete_session, doc_rows

    if not begin(conn, key, report):
        return
    try:
        indexed = {
            sid: (sess, fp)
            for sess, sid, fp in conn.execute(
                "SELECT id, session_id, fingerprint FROM sessions WHERE store = ?", (key,)
            )
        }
        current = {_session_id(f): f for f in found.files}
        for sid in set(indexed) - set(current):
            delete_session(conn, indexed[sid][0])
        writer = Writer(conn)
        provenance: memory.Provenance | None = None
        for sid, file in current.items():
            fp = _fingerprint(file, found)
            old = indexed.get(sid)
            if old is not None and old[1] == fp:
                continue
            if provenance is None:
                provenance = memory.read_provenance(found.home)
            read = _read(file, found, provenance)
            sess = writer.next_id()
            row = _session_row(sess, key, sid, file, found, read, fp)
            report.docs += writer.write(old[0] if old else None, row, doc_rows(sess, read.docs))
        writer.flush()
        conn.execute(
            "INSERT OR REPLACE INTO stores (key, name, path, profile, identity, watermark, synced_at) "
            "VALUES (?, ?, ?, ?, ?, 0, ?)",
            (key, f"{found.profile}@knowledge", str(found.home), found.profile, found.identity, time.time()),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _project(profile: str) -> str:
    """The project of a home's memory and skills, as a session of that profile with no workspace has it
    (imported only when a file changed: the decoders are no part of a search's start)."""
    from hermes_trail.hermes.decode.sessions import project_of

    return project_of(None, None, profile)
