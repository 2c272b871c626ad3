"""The Typer application behind ``trail``: help, usage errors and everything the quick path of
:mod:`hermes_trail.cli.commands` leaves to it.

The root group builds only the command that runs (:class:`_OnDemandGroup`), from its function with its
option declarations turned into Typer's (:func:`hermes_trail.cli.params.typer_function`), and
``trail --help`` lists the commands from their docstrings without building any.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from hermes_trail.cli.params import typer_function
from hermes_trail.cli.registry import COMMANDS, DEFAULT_LISTING, command_function


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
                single.command(cmd_name)(typer_function(target))
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
        ctx.invoke(listing, **DEFAULT_LISTING)
