"""``trail timeline``: every row Hermes left behind, in time order, as JSON lines or CSV."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import IO, Annotated

import typer

from hermes_trail.cli.common import EXIT_ERROR, DbOption, HomeOption, PgOption, err, exit_code, fail, load


def _pattern(value: str, ignore_case: bool) -> re.Pattern[str]:
    try:
        return re.compile(value, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        fail(f"--match {value!r} is not a regular expression: {exc}")


def _open_new(path: Path) -> IO[str]:
    """``path`` opened for writing (created or emptied), never through a symbolic link at its name: a
    link planted there could point anywhere, a Hermes home included."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    return os.fdopen(fd, "w", encoding="utf-8", newline="")


def _inside_a_home(path: Path, homes: list[Path] | None, dbs: list[Path] | None) -> Path | None:
    """The Hermes home ``path`` would land in, if any: trail never writes into one."""
    from hermes_trail.hermes import locate

    target = path.resolve()
    discovery = locate.discover(os.environ, homes=homes or (), dbs=dbs or ())
    for home, _ in locate.homes_of(discovery):
        try:
            target.relative_to(home.resolve())
        except (ValueError, OSError):
            continue
        return home
    return None


def _nothing_said(since: str | None, until: str | None, match: list[str] | None, profile: str | None) -> str:
    """Why a timeline has no row, in the words of what was asked (on stderr: the stream stays empty)."""
    asked = [
        *([f"of profile {profile!r}"] if profile else []),
        *([f"since {since!r}"] if since else []),
        *([f"until {until!r}"] if until else []),
        *(["matching --match"] if match else []),
    ]
    return "no row Hermes left behind" + (f" {' '.join(asked)}" if asked else "") + ": nothing written"


def timeline_cmd(
    since: Annotated[
        str | None, typer.Option(help="Only rows from this time on (7d, 12h, a date, yesterday).")
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Only rows up to this time (7d, 12h, a date; yesterday: to its end).")
    ] = None,
    match: Annotated[
        list[str] | None,
        typer.Option("--match", "-m", help="Only rows whose text matches this regex (repeatable: any)."),
    ] = None,
    ignore_case: Annotated[bool, typer.Option("--ignore-case", "-i", help="--match ignores case.")] = False,
    profile: Annotated[str | None, typer.Option(help="Only this profile ('default' for the root).")] = None,
    include_thinking: Annotated[
        bool, typer.Option("--include-thinking", help="Also a row for each reply's reasoning.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
    output_arg: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="A file, or a directory (an existing one, or ending in /) for "
            "timeline.<format> and sessions.jsonl.",
        ),
    ] = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
) -> None:
    """Every row Hermes left behind, sorted by time: messages, tool calls, permissions, deletions, snapshots,
    diverts, prompt history, cron runs, API responses, trajectories and settings (docs/timeline.md).

    \b
    Example:
        trail timeline --since 7d -m 'rm -rf' -i --format csv -o case/
    """
    from hermes_trail.cli.common import window_options
    from hermes_trail.serialize import session_json
    from hermes_trail.timeline import TimelineOptions, build_timeline
    from hermes_trail.timeline.output import FORMATS, write_rows

    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}")
    start, end = window_options(since, until)
    options = TimelineOptions(
        since=start,
        until=end,
        patterns=tuple(_pattern(m, ignore_case) for m in match or ()),
        profile=profile,
        include_thinking=include_thinking,
    )
    target, sessions_path = None, None
    if output_arg:
        output = Path(output_arg).expanduser()
        inside = _inside_a_home(output, home, db)
        if inside is not None:
            fail(f"{output} is inside the Hermes home {inside}; trail never writes there")
        if output.is_dir() or output_arg.endswith(("/", os.sep)):
            output.mkdir(parents=True, exist_ok=True)
            target, sessions_path = output / f"timeline.{fmt}", output / "sessions.jsonl"
        else:
            target = output
        try:  # a file in a folder not made yet, as the directory form above makes its folder
            target.parent.mkdir(parents=True, exist_ok=True)
            _open_new(target).close()
        except OSError as exc:
            why = "it is a symbolic link" if target.is_symlink() else exc.strerror or exc
            fail(f"cannot write {target}: {why}")
    try:
        sessions_file = _open_new(sessions_path) if sessions_path is not None else None
    except OSError as exc:
        fail(f"cannot write {sessions_path}: {exc.strerror or exc}")

    def on_session(session: object) -> None:
        if sessions_file is not None:
            from hermes_trail.model import Session

            assert isinstance(session, Session)
            sessions_file.write(json.dumps(session_json(session), ensure_ascii=False) + "\n")

    try:
        with load(home, db, pg) as history:
            tl = build_timeline(
                history,
                homes=home or (),
                dbs=db or (),
                options=options,
                on_session=on_session if sessions_file is not None else None,
            )
            if target is None:
                written = write_rows(tl.rows(), sys.stdout, fmt)
            else:
                with _open_new(target) as stream:
                    written = write_rows(tl.rows(), stream, fmt)
            code = exit_code(history)
            profiles = sorted({store.profile for store in history.stores})
        if not written:  # an empty stream is right for a program; a person is told why it is empty
            if profile and profile not in profiles:  # a typo, not a profile that left nothing behind
                code = EXIT_ERROR
                err(f"no profile {profile!r} in the homes read (profiles: {', '.join(profiles) or 'none'})")
            else:
                err(_nothing_said(since, until, match, profile))
    finally:
        if sessions_file is not None:
            sessions_file.close()
    raise typer.Exit(code)
