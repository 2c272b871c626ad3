"""The ``trail`` command line: one Typer application, each command registered once from its own module.

Typer turns a function into a click command by reading its signature and evaluating its annotations,
about 5 ms a command; doing that for all of them on every run cost more than the rest of ``trail
list``. So the group builds only the command that runs (:class:`_OnDemandGroup`), and ``trail --help``
lists the commands from their docstrings without building any. A command's module imports only Typer
and the option types at load time; what it reads with (the history, the index, rich, numpy) it imports
when it runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

# Every command, once, in the order `trail --help` lists them: (module, function) under hermes_trail.cli.
# A value naming a Typer instance (install, uninstall) is a group of subcommands.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("list_cmd", "list_sessions"),
    "show": ("show_cmd", "show"),
    "search": ("search_cmd", "search"),
    "recall": ("recall_cmd", "recall"),
    "fix": ("fix_cmd", "fix"),
    "blame": ("blame_cmd", "blame"),
    "how": ("how_cmd", "how"),
    "timeline": ("timeline", "timeline_cmd"),
    "stats": ("stats_cmd", "stats_cmd"),
    "export": ("export_cmd", "export_cmd"),
    "handoff": ("handoff_cmd", "handoff"),
    "resume": ("resume_cmd", "resume"),
    "pick": ("pick_cmd", "pick"),
    "index": ("index_cmd", "index"),
    "web": ("web_cmd", "web_cmd"),
    "mcp": ("mcp_cmd", "mcp"),
    "install": ("install", "install_app"),
    "uninstall": ("install", "uninstall_app"),
    "doctor": ("doctor_cmd", "doctor"),
}


def command_function(name: str) -> Any:
    """The function (or Typer group) behind command ``name``."""
    module, attribute = COMMANDS[name]
    return getattr(import_module(f"hermes_trail.cli.{module}"), attribute)


class _OnDemandGroup(TyperGroup):
    """The root group: a command is built from its function when it is asked for, not before."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            target = command_function(cmd_name)
            built: Any
            if isinstance(target, typer.Typer):
                built = typer.main.get_group(target)
            else:
                single = typer.Typer(
                    add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None
                )
                single.command(cmd_name)(target)
                built = typer.main.get_command(single)
            built.name = cmd_name
            self.commands[cmd_name] = built
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list of ``trail --help``: each command's first docstring line, none built."""
        rows = []
        for name in self.list_commands(ctx):
            target = command_function(name)
            doc = (target.info.help if isinstance(target, typer.Typer) else target.__doc__) or ""
            first = doc.strip().split("\n\n")[0].replace("\n", " ")
            rows.append((name, _shorten(first, formatter.width - 6 - max(map(len, COMMANDS)))))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _shorten(text: str, limit: int) -> str:
    """A help line cut at a word to fit ``limit`` characters, marked with "…" when cut."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 1)].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return cut + "…"


app = typer.Typer(
    name="trail",
    cls=_OnDemandGroup,
    help="Read everything Hermes Agent recorded: list and replay its sessions, faithfully and read-only.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from hermes_trail import __version__

        sys.stdout.write(f"trail (hermes-trail) {__version__}\n")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_version, help="Print the version and exit."),
    ] = False,
) -> None:
    """With no command, list the most recent sessions."""
    if ctx.invoked_subcommand is None:
        listing: Callable[..., None] = command_function("list")
        ctx.invoke(listing, limit=20)


def run(argv: list[str]) -> int:
    """Run the command line on ``argv``; the exit code (usage errors: click's message and 2; Ctrl-C
    while a command runs: 130, as Typer maps it)."""
    try:
        app(argv, prog_name="trail")
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
