"""Sessions written out for people and other tools: Markdown, a self-contained HTML replay, JSON Lines of
the model, and the Agent Session Format (``asf.py``).

Everything exported is redacted unless the caller says otherwise. Files go only where the caller named:
a name derived from a session id keeps letters, digits, ``.``, ``_`` and ``-`` (anything else, a ``/``
or a ``..`` included, is replaced and the name gets a hash of the id), is checked to land in the named
directory, and is opened without following a symbolic link.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from hermes_trail.errors import TrailError
from hermes_trail.model import Session
from hermes_trail.questions import FORMATS

EXTENSIONS = {"md": ".md", "html": ".html", "jsonl": ".jsonl", "asf": ".asf.jsonl"}
# Formats whose documents can follow one another in one stream (standard output, one file).
STREAMABLE = frozenset({"md", "jsonl"})
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_NAME_MAX = 120


class ExportError(TrailError):
    """An export that cannot be written as asked (an output place that is not allowed, a bad format)."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """One session's document, and whether redaction changed anything in it."""

    text: str
    redactions: bool


def render(
    session: Session,
    fmt: str,
    *,
    family: Mapping[str, Session] | None = None,
    redacting: bool = True,
    links: dict[str, str] | None = None,
) -> Rendered:
    """One loaded session as a document of ``fmt``.

    :param family: the sessions linked with it (``History.family``), for lineage titles.
    :param links: for ``html``, the files other sessions of the same export were written to, by ref.
    """
    if fmt == "asf":
        from hermes_trail.export import asf

        lines = list(asf.session_lines(session, redacting=redacting))
        return Rendered("\n".join(lines) + "\n", '"redacted":true' in lines[0])
    if fmt == "jsonl":
        from hermes_trail.export import jsonl

        return Rendered(
            "".join(line + "\n" for line in jsonl.session_lines(session, redacting=redacting)), redacting
        )
    from hermes_trail.export.view import session_view

    view = session_view(session, family, redacting=redacting)
    if fmt == "md":
        from hermes_trail.export import markdown

        return Rendered(markdown.render(view), bool(view["redactions"]))
    if fmt == "html":
        from hermes_trail.export import html

        return Rendered(html.render(view, links), bool(view["redactions"]))
    raise ExportError(f"unknown format {fmt!r}; one of: {', '.join(FORMATS)}")


def safe_name(session: Session, fmt: str) -> str:
    """A file name for the session that cannot leave its directory: ``<store>_<id>`` and the extension."""
    raw = f"{session.store.name}_{session.id}"
    name = _UNSAFE.sub("_", raw).strip("._") or "session"
    if name != raw or len(name) > _NAME_MAX:
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        name = f"{name[:_NAME_MAX]}-{digest}"
    return name + EXTENSIONS[fmt]


def unique_names(sessions: list[Session], fmt: str) -> dict[tuple[str, str], str]:
    """A distinct safe name for each session."""
    taken: set[str] = set()
    out: dict[tuple[str, str], str] = {}
    for session in sessions:
        name = safe_name(session, fmt)
        stem, ext = name[: -len(EXTENSIONS[fmt])], EXTENSIONS[fmt]
        n = 2
        while name.lower() in taken:
            name, n = f"{stem}~{n}{ext}", n + 1
        taken.add(name.lower())
        out[session.key] = name
    return out


def inside(path: Path, roots: list[Path]) -> Path | None:
    """The root ``path`` lies in (or is), if any."""
    resolved = path.resolve()
    for root in roots:
        base = root.resolve()
        if resolved == base or base in resolved.parents:
            return base
    return None


def write_new(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` (created or replaced), never through a symbolic link at its name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        why = "it is a symbolic link" if path.is_symlink() else exc.strerror or str(exc)
        raise ExportError(f"cannot write {path}: {why}") from exc
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


def write_into(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` as ``name`` in ``directory``, refusing any name that would land elsewhere."""
    base = directory.resolve()
    target = base / name
    separators = [sep for sep in (os.sep, os.altsep) if sep]
    if any(sep in name for sep in separators) or name in ("", ".", "..") or target.parent != base:
        raise ExportError(f"refusing to write {name!r} outside {base}")
    return write_new(target, data)


def encode(text: str) -> bytes:
    """UTF-8, with any lone surrogate (from JSON that held one) replaced rather than failing the export."""
    return text.encode("utf-8", "replace")


@dataclass(slots=True)
class Job:
    """What one export run writes: each session's name in the output directory, when there is one."""

    sessions: list[Session]
    fmt: str
    names: dict[tuple[str, str], str]

    def links(self) -> dict[str, str]:
        """For HTML lineage: each exported session's ref and the file it is written to."""
        return {s.ref: self.names[s.key] for s in self.sessions}


def export_each(
    sessions: list[Session],
    fmt: str,
    load: Callable[[Session], tuple[Session, Mapping[str, Session]]],
    *,
    redacting: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[Session, str, Rendered]]:
    """Render each session in turn (loading it with ``load``, which also returns its family) and let its
    turns go once rendered; yields the session, its file name and its document."""
    job = Job(sessions, fmt, unique_names(sessions, fmt))
    links = job.links() if fmt == "html" else None
    for done, session in enumerate(sessions, start=1):
        loaded, family = load(session)
        rendered = render(loaded, fmt, family=family, redacting=redacting, links=links)
        loaded.turns, loaded.hidden, loaded.loaded = [], [], False  # a whole history would not fit in memory
        yield session, job.names[session.key], rendered
        if progress is not None:
            progress(done, len(sessions))
