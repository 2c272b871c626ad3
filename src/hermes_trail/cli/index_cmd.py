"""``trail index``: bring the search index up to date, then fill in its meaning vectors."""

import sys
from pathlib import Path
from typing import Annotated

import typer

from hermes_trail import readonly
from hermes_trail.cli.common import (
    EXIT_OK,
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    err,
    print_json,
)
from hermes_trail.cli.indexing import IndexOption, synced_index


def index(
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
        typer.Option(
            "--vectors/--no-vectors",
            help="Then encode the passages of sessions that have none yet (search by meaning).",
        ),
    ] = True,
    stop_server: Annotated[
        bool,
        typer.Option("--stop-server", help="Stop the meaning server searches started, and do nothing else."),
    ] = False,
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
    if stop_server:
        from hermes_trail.index import meaning_client

        stopped = meaning_client.stop()
        if json_output:
            print_json({"stopped": stopped})
        else:
            err("the meaning server was stopped" if stopped else "no meaning server was running")
        raise typer.Exit(EXIT_OK)

    # A rebuild is made beside the old index and swapped in: searches meanwhile still read the old one.
    skipped: list[object] = []  # a store or directory passed over: exit 3, as every other command
    # It encodes itself (or was told not to): no stage behind the queries is started for it.
    path = synced_index(index, home, db, pg, include_recovered, rebuild, skipped, encode_behind=False)
    if vectors:
        _encode_passages(path)
    from hermes_trail.index.search import prepare_dictionary

    prepare_dictionary()  # for a question in another language, or with a word typed wrong
    with readonly.connect(path) as conn:
        stores = conn.execute("SELECT count(*) FROM stores").fetchone()[0]
        # Hermes' memory files and skills are rows of their own pseudo-stores, not sessions.
        own = "SELECT count(*) FROM sessions WHERE store NOT LIKE 'knowledge:%'"
        sessions = conn.execute(own).fetchone()[0]
        docs = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
        passages = conn.execute("SELECT count(*) FROM passages").fetchone()[0]
    from hermes_trail.index.schema import index_bytes
    from hermes_trail.index.scoped import others

    size = index_bytes(path)

    beside = [(other, bytes_) for other, bytes_ in others() if other.resolve() != Path(path).resolve()]
    facts = {
        "path": str(path),
        "stores": stores,
        "sessions": sessions,
        "docs": docs,
        "passages": passages,
        "bytes": size,
        "others": [{"path": str(other), "bytes": bytes_} for other, bytes_ in beside],
    }
    if json_output:
        print_json(facts)
    else:
        from hermes_trail.formatting import byte_size

        shown = {key: f"{value:,}" if isinstance(value, int) else value for key, value in facts.items()}
        del shown["bytes"], shown["others"]
        shown["size"] = byte_size(size)
        for key, value in shown.items():
            sys.stdout.write(f"{key:>9}: {value}\n")
        if beside:  # made for the demo or for stores named: derived data, deleted without loss
            sys.stdout.write("beside it (the demo's and other stores' own; delete any to free its space):\n")
            for other, bytes_ in beside:
                sys.stdout.write(f"  {byte_size(bytes_):>8}  {other}\n")
    raise typer.Exit(EXIT_SKIPPED if skipped else EXIT_OK)


def _encode_passages(path: Path) -> None:
    """The vector stage after the words (:func:`hermes_trail.index.vectors.encode_pending`): a bar on a
    terminal; Ctrl-C keeps what was committed, and the next ``trail index`` goes on from there."""
    from hermes_trail.cli.progress import progress_bar
    from hermes_trail.index.vectors import claimed, encode_pending, held

    if held(path) and not claimed(path):  # a stage behind the queries (index/behind.py): it hands over
        err("waiting for the passages being encoded in the background to stop after their batch")
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
