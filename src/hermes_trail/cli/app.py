"""The ``trail`` command: each subcommand parses, makes one library call, and maps errors."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from hermes_trail.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    exit_code,
    fail,
    load,
    print_json,
    report_rows,
)
from hermes_trail.cli.indexing import IndexOption, synced_index
from hermes_trail.errors import AmbiguousSession, SessionNotFound, TrailError

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    name="trail",
    help="Read everything Hermes Agent recorded: list and replay its sessions, faithfully and read-only.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback(invoke_without_command=True)
def _root(ctx: typer.Context) -> None:
    """With no command, list the most recent sessions."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_sessions, limit=20)


@app.command("list")
def list_sessions(
    profile: Annotated[str | None, typer.Option(help="Only this profile ('default' for the root).")] = None,
    project: Annotated[
        str | None, typer.Option(help="Only this project (a path, or its last parts).")
    ] = None,
    source: Annotated[str | None, typer.Option(help="Only this source (cli, cron, telegram, ...).")] = None,
    since: Annotated[str | None, typer.Option(help="Active since: 7d, 12h, 30m or an ISO date.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="At most this many (0: all).")] = 50,
    deleted: Annotated[
        bool, typer.Option("--deleted", help="Sessions gone from state.db that a snapshot or divert holds.")
    ] = False,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """List every session of every store, newest activity first (--deleted: recovered ones).

    \b
    Example:
        trail list --since 7d --project hermes-trail
    """
    from hermes_trail.listing import SessionFilter, parse_since, select
    from hermes_trail.serialize import note_json, session_json, stray_json

    try:
        flt = SessionFilter(profile, project, source, parse_since(since) if since else None)
    except TrailError as exc:
        fail(str(exc))
    if limit < 0:
        fail("--limit must be 0 (all) or more")
    if deleted:
        from hermes_trail.cli.recovered import list_deleted

        with load(home, db, pg) as history:
            skipped = list_deleted(history, home, db, flt, limit, json_output)
            code = EXIT_SKIPPED if skipped else exit_code(history)
        raise typer.Exit(code)
    with load(home, db, pg) as history:
        chosen = select(history.sessions, flt, limit)
        if json_output:
            print_json(
                {
                    "sessions": [session_json(s) for s in chosen],
                    "total": sum(1 for s in history.sessions if flt.accepts(s)),
                    "strays": [stray_json(s) for s in history.strays],
                    "notes": [note_json(n) for n in history.notes],
                    "demo": history.demo,
                }
            )
        else:
            from hermes_trail.cli.tables import print_sessions

            print_sessions(chosen, total=len(history.sessions))
        code = exit_code(history)
    raise typer.Exit(code)


@app.command("show")
def show(
    session_id: Annotated[str, typer.Argument(help="A session id, a unique prefix, or <store>:<id>.")],
    reasoning: Annotated[bool, typer.Option("--reasoning", help="Unfold reasoning.")] = False,
    full: Annotated[bool, typer.Option("--full", help="Show whole tool outputs.")] = False,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also show rewound and archived rows, marked.")
    ] = False,
    lineage: Annotated[
        bool, typer.Option("--lineage", help="Show the whole conversation: every part of its chain.")
    ] = False,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Replay one session: prompts, replies, reasoning folded, each tool call with what it did.

    \b
    Example:
        trail show 20261130_0458 --lineage
    """
    with load(home, db, pg, catalog=False) as history:
        try:
            try:
                session = history.load(history.find(session_id))
                history.family(session)
                chain = history.conversation(session) if lineage else [session]
            except SessionNotFound:
                from hermes_trail.cli.recovered import show_recovered

                session = show_recovered(history, session_id, home, db)  # a deleted session, recovered
                chain = [session]
        except AmbiguousSession as exc:
            fail(f"{session_id!r} is ambiguous; it could be:\n  " + "\n  ".join(exc.candidates))
        except SessionNotFound:
            fail(f"no session {session_id!r} (trail list shows the sessions, trail list --deleted the "
                 "deleted ones a snapshot or divert holds)")  # fmt: skip
        except TrailError as exc:
            fail(str(exc))
        if json_output:
            from hermes_trail.serialize import transcript_json

            if lineage:
                print_json({"chain": [transcript_json(part) for part in chain]})
            else:
                print_json(transcript_json(session))
        else:
            from hermes_trail.cli.tables import console
            from hermes_trail.transcript import RenderOptions, render, render_lineage

            out = console()
            options = RenderOptions(reasoning=reasoning, full=full, include_hidden=show_all)
            parts = render_lineage(chain, options) if lineage else render(session, options)
            for part in parts:
                out.print(part)
        strays = [stray for part in chain for stray in part.strays]
        report_rows(strays)
        code = EXIT_SKIPPED if strays else exit_code(history)
    raise typer.Exit(code)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)


def _since_option(value: str | None, name: str) -> float | None:
    from hermes_trail.listing import since_timestamp

    try:
        return since_timestamp(value, name)
    except TrailError as exc:
        fail(str(exc))


@app.command("search")
def search_cmd(
    query: Annotated[str, typer.Argument(help='Words, "phrases", OR, NOT/-word, prefix*, paths, any text.')],
    project: Annotated[str | None, typer.Option(help="Only this project (a path, or its end).")] = None,
    profile: Annotated[str | None, typer.Option(help="Only this profile (default: all).")] = None,
    source: Annotated[str | None, typer.Option(help="Only this source (cli, cron, telegram, ...).")] = None,
    since: Annotated[str | None, typer.Option(help="Only from this time on: 7d, 12h or an ISO date.")] = None,
    until: Annotated[str | None, typer.Option(help="Only before this time: 7d, 12h or an ISO date.")] = None,
    role: Annotated[str | None, typer.Option(help="user, assistant, tool (tool output), summary.")] = None,
    tool: Annotated[str | None, typer.Option(help="Only this tool's calls (terminal, patch, ...).")] = None,
    session: Annotated[str | None, typer.Option(help="Only this session (id or prefix).")] = None,
    include_rewound: Annotated[bool, typer.Option("--include-rewound", help="Also rewound rows.")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Conversations to show.")] = 10,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Search everything Hermes recorded: prompts, replies, summaries, commands, edits, tool output.

    \b
    Example:
        trail search "connection refused" --project api --since 30d
    """
    from hermes_trail.index.search import SearchFilters, search

    filters = SearchFilters(
        project=project, profile=profile, source=source, since=_since_option(since, "--since"),
        until=_since_option(until, "--until"), role=role, tool=tool, session=session,
        include_rewound=include_rewound,
    )  # fmt: skip
    from hermes_trail.cli.tables import print_search
    from hermes_trail.serialize import search_json

    result = search(synced_index(index, home, db, pg), query, filters, limit=max(limit, 1))
    _answer(bool(result.conversations), json_output, lambda: search_json(result),
            lambda out: print_search(out, result))  # fmt: skip


@app.command("recall")
def recall_cmd(
    query: Annotated[str, typer.Argument(help="What to remember.")],
    budget: Annotated[int, typer.Option("--budget", help="At most this many bytes.")] = 4096,
    project: Annotated[str | None, typer.Option(help="Only this project.")] = None,
    profile: Annotated[str | None, typer.Option(help="Only this profile.")] = None,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
) -> None:
    """A compact page of past sessions about QUERY, for an agent: framed as untrusted history.

    \b
    Example:
        trail recall "how did we deploy the staging db" --budget 2000
    """
    from hermes_trail.index.search import SearchFilters, search
    from hermes_trail.recall import recall_page

    path = synced_index(index, home, db, pg)
    result = search(path, query, SearchFilters(project=project, profile=profile), limit=8)
    page = recall_page(result, budget=max(budget, 256))
    if page:
        sys.stdout.write(page + "\n")
    raise typer.Exit(EXIT_OK)


@app.command("index")
def index_cmd(
    rebuild: Annotated[
        bool,
        typer.Option("--rebuild", help="Build the index anew (beside the old one, swapped in when done)."),
    ] = False,
    include_recovered: Annotated[
        bool | None,
        typer.Option(
            "--include-recovered/--no-recovered",
            help="Also index deleted sessions a snapshot or divert holds (kept on once set).",
            show_default=False,
        ),
    ] = None,
    vectors: Annotated[
        bool,
        typer.Option("--vectors/--no-vectors",
                     help="Then encode the passages of sessions that have none yet (search by meaning)."),
    ] = True,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Bring the search index up to date and say where it is and what it holds.

    \b
    Example:
        trail index --rebuild
    """
    from hermes_trail.index.schema import default_index_path

    # A rebuild is made beside the old index and swapped in: searches meanwhile still read the old one.
    path = synced_index(index or default_index_path(), home, db, pg, include_recovered, rebuild)
    if vectors:
        _encode_passages(path)
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
        stores = conn.execute("SELECT count(*) FROM stores").fetchone()[0]
        # Hermes' memory files and skills are rows of their own pseudo-stores, not sessions.
        own = "SELECT count(*) FROM sessions WHERE store NOT LIKE 'knowledge:%'"
        sessions = conn.execute(own).fetchone()[0]
        docs = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
        passages = conn.execute("SELECT count(*) FROM passages").fetchone()[0]
    size = sum(Path(f"{path}{s}").stat().st_size for s in ("", "-wal") if Path(f"{path}{s}").exists())
    facts = {"path": str(path), "stores": stores, "sessions": sessions, "docs": docs, "passages": passages,
             "bytes": size}  # fmt: skip
    if json_output:
        print_json(facts)
    else:
        for key, value in facts.items():
            sys.stdout.write(f"{key:>9}: {value}\n")
    raise typer.Exit(EXIT_OK)


def _encode_passages(path: Path) -> None:
    """The vector stage after the words (:func:`hermes_trail.index.vectors.encode_pending`): a bar on a
    terminal; Ctrl-C keeps what was committed, and the next ``trail index`` goes on from there."""
    from hermes_trail.cli.common import err
    from hermes_trail.cli.progress import progress_bar
    from hermes_trail.index.vectors import encode_pending

    try:
        with progress_bar("encoding passages of", unit="sessions") as bar:
            report = encode_pending(path, progress=bar)
    except KeyboardInterrupt:
        err("interrupted: the passages encoded so far are kept; `trail index` goes on from there")
        raise typer.Exit(130) from None
    if report.sessions and sys.stderr.isatty():
        err(f"encoded {report.passages:,} passages of {report.sessions:,} sessions in {report.seconds:.1f} s")
    elif report.skipped and report.pending:
        err(f"passages not encoded: {report.skipped}")


def _answer(
    found: bool, json_output: bool, as_json: Callable[[], Any], render: Callable[[Console], None]
) -> NoReturn:
    """Print an index command's result (JSON, or for people) and exit ``1`` when a person got nothing."""
    if json_output:
        print_json(as_json())
    else:
        from hermes_trail.cli.tables import console

        render(console())
    raise typer.Exit(EXIT_OK if found or json_output else EXIT_ERROR)


def _read_index(
    index: Path | None, home: list[Path] | None, db: list[Path] | None, pg: list[str] | None
) -> sqlite3.Connection:
    path = synced_index(index, home, db, pg)
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


@app.command("fix")
def fix_cmd(
    error: Annotated[str | None, typer.Argument(help="The error text (or pipe the output in).")] = None,
    project: Annotated[str | None, typer.Option(help="Only this project.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Fixes to show.")] = 5,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """What fixed this error before: past commands that failed the same way, and what then worked.

    \b
    Example:
        pytest 2>&1 | tail -20 | trail fix
    """
    from hermes_trail.index.fix import find_fixes

    text = error if error is not None else ("" if sys.stdin.isatty() else sys.stdin.read())
    if not text.strip():
        fail("give the error text as an argument or on standard input")
    from hermes_trail.cli.tables import print_fixes
    from hermes_trail.serialize import record_json

    with _read_index(index, home, db, pg) as conn:
        report = find_fixes(conn, text, project=project, limit=max(limit, 1))
    _answer(bool(report.fixes), json_output, lambda: record_json(report),
            lambda out: print_fixes(out, report))  # fmt: skip


@app.command("blame")
def blame_cmd(
    path: Annotated[str, typer.Argument(help="A file: its full path, or its end (src/app.py).")],
    limit: Annotated[int, typer.Option("--limit", "-n", help="Edits to show.")] = 50,
    include_rewound: Annotated[bool, typer.Option("--include-rewound", help="Also rewound edits.")] = False,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Every session and edit that touched a file, following moves, newest first, with the prompt behind it.

    \b
    Example:
        trail blame src/app.py
    """
    from hermes_trail.cli.tables import print_blame
    from hermes_trail.index.blame import blame
    from hermes_trail.serialize import record_json

    with _read_index(index, home, db, pg) as conn:
        entries = blame(conn, path, limit=max(limit, 1), include_rewound=include_rewound)
    _answer(bool(entries), json_output, lambda: {"path": path, "edits": record_json(entries)},
            lambda out: print_blame(out, path, entries))  # fmt: skip


@app.command("how")
def how_cmd(
    what: Annotated[str, typer.Argument(help="What you want to do: words or a command fragment.")],
    project: Annotated[str | None, typer.Option(help="Only this project (default: all).")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Commands to show.")] = 10,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Real commands that did WHAT, by how many sessions ran them and how often they succeeded.

    \b
    Example:
        trail how "run the migrations" --project api
    """
    from hermes_trail.cli.tables import print_how
    from hermes_trail.index.how import how
    from hermes_trail.serialize import record_json

    with _read_index(index, home, db, pg) as conn:
        entries = how(conn, what, project=project, limit=max(limit, 1))
    _answer(bool(entries), json_output, lambda: {"what": what, "commands": record_json(entries)},
            lambda out: print_how(out, what, entries))  # fmt: skip


def _register_commands() -> None:
    """Commands kept in modules of their own, registered here so ``trail --help`` lists them all."""
    from hermes_trail.cli import export_cmd, handoff_cmd, install, mcp_cmd, resume_cmd, stats_cmd, web_cmd  # noqa: F401  (each registers itself)
    from hermes_trail.cli.timeline import timeline_cmd

    app.command("resume")(resume_cmd.resume)
    app.command("handoff")(handoff_cmd.handoff)
    app.command("mcp")(mcp_cmd.mcp)
    app.command("timeline")(timeline_cmd)


_register_commands()
