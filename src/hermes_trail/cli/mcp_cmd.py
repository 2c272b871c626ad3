"""``trail mcp``: serve hermes-trail's questions to MCP clients, over stdio or streamable HTTP."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from hermes_trail.cli.common import DbOption, HomeOption, PgOption, err, fail
from hermes_trail.cli.indexing import IndexOption
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.errors import TrailError

DEMO_NOTE = (
    "No Hermes home was found on this machine, so this server reads the small demo home bundled with "
    "hermes-trail: its sessions are examples, not the user's history."
)


def mcp(
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="[HOST:]PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio; HOST is 127.0.0.1 "
            "unless named (another address needs a token).",
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="TRAIL_MCP_TOKEN",
            show_envvar=True,
            help="The bearer token HTTP clients must send. Off loopback one is made up and printed "
            "when none is given.",
        ),
    ] = None,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    fleet: FleetOption = False,
    hosts: HostsOption = None,
    push: Annotated[
        str | None,
        typer.Option(
            "--push",
            metavar="DSN",
            envvar="TRAIL_PUSH",
            show_envvar=True,
            show_default=False,
            help="Also keep the shared index at DSN (a pushing login's) up to date with this machine's: "
            "synced and pushed every TRAIL_PUSH_EVERY seconds (60), as trail share pushes.",
        ),
    ] = None,
) -> None:
    """Serve recall, search, fix, blame, how, show and sessions to MCP clients (stdio unless --http).

    \b
    Example:
        trail mcp                  # for a client that starts it (Hermes, Claude Desktop, ...)
        trail mcp --http 8765      # a server on http://127.0.0.1:8765/mcp
        trail mcp --fleet          # recall, search, fix, blame, how from $TRAIL_FLEET's shared index
    """
    try:
        from hermes_trail.mcp import address
        from hermes_trail.mcp.server import build_server, run_http, run_stdio, warm_up
    except ImportError as exc:
        fail(f"trail mcp needs the MCP SDK ({exc}); install it with: pip install 'mcp>=1.26,<2'")
    from hermes_trail.cli.share_cmd import fleet_dsn, home_settings
    from hermes_trail.service import Trail

    # The home's own settings (config.yaml, plugins.entries.hermes-trail.settings) where neither an option
    # nor the environment says: the shared index recalled from, and the one pushed to (docs/fleet.md).
    found = home_settings(home)
    shared = fleet_dsn(index, fleet) or found.fleet or None  # recall, search, fix, blame, how from it
    if shared is not None:
        index = None
    push = push or found.share or None
    demo = not pg and not shared and _no_hermes_home(home, db)
    if demo:
        err("no Hermes home found; serving the demo home bundled with hermes-trail")
    trail = Trail(
        index=index,
        homes=tuple(home or ()),
        dbs=tuple(db or ()),
        pgs=tuple(pg or ()),
        demo=demo,
        fleet=shared,
        hosts=tuple(hosts or ()),
    )
    server = build_server(trail, DEMO_NOTE if demo else "")
    if push and not demo:  # this machine's index into the shared one, in the background (docs/fleet.md)
        from hermes_trail.fleet.pushing import Pusher, push_in_background
        from hermes_trail.integrations.hermes.configured import seconds

        every = seconds(os.environ.get("TRAIL_PUSH_EVERY"), found.share_every or 60.0)
        push_in_background(Pusher(push, every), lambda: trail.sync(force=True))
    if http is None:
        if _warm_up():
            warm_up(trail)
        run_stdio(server)
        return
    try:
        host, port = address.parse_address(http)
        loopback = address.is_loopback(host)
        if not loopback and not token:
            token = address.new_token()
            given = False
        else:
            given = bool(token)
        if token and given:
            address.check_token(token)
        sock = address.bind(host, port)
    except TrailError as exc:
        fail(str(exc))
    port = sock.getsockname()[1]
    if not loopback:
        err(
            f"warning: {host} is reachable from other machines; anyone with the token can read your "
            "Hermes history (secrets redacted)"
        )
    if token:
        shown = "<the token given with --token or TRAIL_MCP_TOKEN>" if given else token
        err(f"every request must carry the header  Authorization: Bearer {shown}")
    err(f"serving MCP over streamable HTTP at {address.url(host, port, '/mcp')}")
    if _warm_up():
        warm_up(trail)
    run_http(server, sock, loopback=loopback, token=token)


def _warm_up() -> bool:
    """Whether to bring the index up to date as the server starts. ``TRAIL_MCP_WARM_UP=0`` is for a caller
    that only checks the server starts (``trail doctor``), which must write nothing; the first question
    still syncs."""
    return os.environ.get("TRAIL_MCP_WARM_UP", "1").strip() != "0"


def _no_hermes_home(home: list[Path] | None, db: list[Path] | None) -> bool:
    """Whether nothing was named and Hermes has no store here: then the demo home is served."""
    from hermes_trail.hermes import locate

    explicit = home or db or os.environ.get("TRAIL_HERMES_DB") or os.environ.get("TRAIL_HERMES_HOME")
    return not explicit and not locate.discover(os.environ).stores
