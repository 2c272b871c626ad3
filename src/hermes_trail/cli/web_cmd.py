"""``trail web``: the dashboard and replay viewer, served locally."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from hermes_trail.cli.common import EXIT_OK, DbOption, HomeOption, PgOption, err, fail
from hermes_trail.cli.indexing import IndexOption


def web_cmd(
    host: Annotated[str, typer.Option(help="Address to listen on (not loopback: a token is needed).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port (0: any free one).")] = 8787,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open it in a browser.")] = True,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
) -> None:
    """Serve the dashboard (every session, filters, search, charts) and each session's replay, locally.

    Loopback only by default; bound to another address it prints a URL with a token, and answers
    nothing without it. Read-only, like every trail command.

    \b
    Example:
        trail web
        trail web --host 0.0.0.0 --port 8800 --no-open
    """
    from hermes_trail.cli.indexing import homes_or_demo
    from hermes_trail.index.schema import default_index_path
    from hermes_trail.loopback import is_loopback
    from hermes_trail.web.app import WebApp
    from hermes_trail.web.server import start

    if not 0 <= port <= 65535:
        fail("--port must be between 0 and 65535")
    given, homes, dbs = homes_or_demo(index, home, db, pg)
    # Listen at once: the search index is synced in the background and the page shows how far it is.
    path = given or default_index_path()
    web = WebApp(homes=tuple(homes), dbs=tuple(dbs), pgs=tuple(pg or ()), index=path)
    try:
        server = start(web, host, port)
    except OSError as exc:
        if port and exc.errno in (98, 48, 10048):  # in use: take any free port instead, and say so
            server = start(web, host, 0)
            err(f"port {port} is in use: listening on port {server.server_address[1]} instead")
        else:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    # The build starts (and the page says "building") before the address is printed: whoever opens it
    # must never see "ready" from before the first sync began.
    web.build_index(say=err)
    url = server.url
    sys.stdout.write(f"hermes-trail web: {url}\n")
    sys.stdout.flush()
    if not is_loopback(host):
        err("listening beyond this machine: anyone with the URL above (and its token) can read your history")
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        err("stopped")
    finally:
        server.shutdown()
        web.close()
    raise typer.Exit(EXIT_OK)
