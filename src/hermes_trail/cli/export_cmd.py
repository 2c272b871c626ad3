"""``trail export``: sessions as Markdown, a self-contained HTML replay, JSON Lines or the Agent Session
Format, written to standard output, a file or a directory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hermes_trail.cli.common import (
    EXIT_OK,
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    PgOption,
    err,
    fail,
    like_it,
    load,
)
from hermes_trail.cli.params import asked
from hermes_trail.formatting import counted
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["export"]  # its arguments: words and defaults shared with the web's /api/ask/export

if TYPE_CHECKING:
    from hermes_trail.model import Session
    from hermes_trail.recovery import Finder


def export_cmd(
    session_id: Annotated[list[str] | None, asked(_Q, "session_id")] = None,
    export_all: Annotated[bool, typer.Option("--all", help="Every session (with the filters).")] = False,
    format: Annotated[str, asked(_Q, "format", "-f")] = _Q.param("format").cli_default,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="A file (one session), a directory, or - (standard output).",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(help="With --all: active since 7d, 12h, a date or a time in words (yesterday)."),
    ] = None,
    profile: Annotated[str | None, typer.Option(help="With --all: only this profile.")] = None,
    project: Annotated[str | None, typer.Option(help="With --all: only this project.")] = None,
    source: Annotated[str | None, typer.Option(help="With --all: only this source.")] = None,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Keep secrets as recorded.")] = False,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
) -> None:
    """Export sessions: Markdown, one self-contained HTML replay each, JSON Lines of the model, or the
    Agent Session Format (agentsession RFC 0001). Secrets are redacted unless --no-redact.

    \b
    Example:
        trail export 20261124_0915 --format html -o replay.html
        trail export --all --since 30d --format asf -o exports/
    """
    from hermes_trail.errors import AmbiguousSession, SessionNotFound, TrailError
    from hermes_trail.export import STREAMABLE, ExportError, inside
    from hermes_trail.history import open_history
    from hermes_trail.questions import FORMATS
    from hermes_trail.service import Trail

    session_ids, fmt = session_id, format
    if fmt not in FORMATS:
        fail(f"--format {fmt!r}: one of {', '.join(FORMATS)}")
    if bool(session_ids) == export_all:
        fail("name the sessions to export, or give --all")
    if not export_all and (since or profile or project or source):
        fail("--since, --profile, --project and --source go with --all")
    from hermes_trail.recovery import Finder

    with (
        load(home, db, pg, catalog=export_all) as listing,
        open_history(
            homes=home or (), dbs=db or (), pgs=pg or (), demo_fallback=listing.demo, catalog=False
        ) as reader,
        Finder(listing, homes=home or (), dbs=db or ()) as finder,
    ):
        chosen = _choose(finder, session_ids or [], export_all, since, profile, project, source)
        if not chosen:
            fail("no session to export")
        roots = [r for s in listing.stores for r in _roots(s.path, s.home)]
        mode, target = _target(output, len(chosen), export_all)
        if target is not None and (found := inside(target, roots)) is not None:
            fail(f"refusing to write into a Hermes home ({found}); name a place outside it")
        if mode == "stdout" and fmt not in STREAMABLE and len(chosen) > 1:
            fail(f"{len(chosen)} sessions as {fmt} need a directory: add -o DIR")

        door = Trail(homes=tuple(home or ()), dbs=tuple(db or ()), pgs=tuple(pg or ()))
        from hermes_trail.cli.progress import progress_bar

        written: list[Path] = []
        redactions = 0
        try:
            with progress_bar("exporting") as progress:
                stream = door.exports(reader, finder, chosen, fmt, redacting=not no_redact, progress=progress)
                for index, (_, name, rendered) in enumerate(stream):
                    redactions += rendered.redactions
                    path = _emit(mode, target, name, rendered.text, fmt, index)
                    if path is not None:
                        written.append(path)
        except (AmbiguousSession, SessionNotFound, ExportError) as exc:
            fail(str(exc))
        except TrailError as exc:
            fail(str(exc))
        if target is not None:
            where = written[0] if mode == "file" else target
            err(
                f"exported {counted(len(written), 'session')} as {fmt} to {where}"
                + ("" if no_redact else " (secrets redacted)")
            )
        code = EXIT_SKIPPED if listing.skipped or reader.skipped else EXIT_OK
    raise typer.Exit(code)


def _roots(path: str, home: str | None) -> list[Path]:
    """Where a store lives: its directory and its home (never written to)."""
    out = [Path(path).parent]
    if home:
        out.append(Path(home))
    return out


def _choose(
    finder: Finder,
    ids: list[str],
    every: bool,
    since: str | None,
    profile: str | None,
    project: str | None,
    source: str | None,
) -> list[Session]:
    from hermes_trail.errors import AmbiguousSession, SessionNotFound, TrailError
    from hermes_trail.listing import SessionFilter, parse_since

    if every:
        try:
            flt = SessionFilter(profile, project, source, parse_since(since) if since else None)
        except TrailError as exc:
            fail(str(exc))
        return [s for s in finder.history.sessions if flt.accepts(s)]
    chosen: list[Session] = []
    for query in ids:
        try:
            session = finder.find(query)  # a live session, else a deleted one a snapshot or divert holds
        except AmbiguousSession as exc:
            fail(f"{query!r} is ambiguous; it could be:\n  " + "\n  ".join(exc.candidates))
        except SessionNotFound:
            fail(f"no session {query!r} (trail list shows the sessions){like_it(finder, query)}")
        if all(session.key != s.key for s in chosen):
            chosen.append(session)
    return chosen


def _target(output: Path | None, count: int, every: bool) -> tuple[str, Path | None]:
    """Where to write: ``stdout``; ``file`` (one session named to a path that is not a directory); else
    ``dir``, a directory (created when missing) that gets one file per session. ``-o -`` is standard
    output, as the shell convention has it (never a file named ``-``)."""
    if output is None or str(output) == "-":
        return "stdout", None
    many = count > 1 or every
    if output.is_dir() or str(output).endswith(("/", "\\")):
        return "dir", output
    if many:
        if output.exists():
            fail(f"{output} is a file; many sessions go into a directory")
        return "dir", output
    return "file", output


def _emit(mode: str, target: Path | None, name: str, text: str, fmt: str, index: int) -> Path | None:
    from hermes_trail.export import encode, write_into, write_new

    if mode == "stdout" or target is None:
        if index and fmt == "md":
            sys.stdout.write("\n---\n\n")
        sys.stdout.flush()
        from hermes_trail.formatting import json_safe

        # JSON lines to a terminal: C1 controls as escapes (the same JSON); Markdown is already plain
        sys.stdout.buffer.write(encode(json_safe(text) if fmt in ("jsonl", "asf") else text))
        sys.stdout.buffer.flush()
        return None
    if mode == "file":
        target.parent.mkdir(parents=True, exist_ok=True)
        return write_new(target, encode(text))
    target.mkdir(parents=True, exist_ok=True)
    return write_into(target, name, encode(text))
