"""``cli/typer_app.py``: the Typer application behind ``trail`` builds each command on demand from its
declarations (issue 15) with the options, help and errors it always had."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from hermes_trail.cli.registry import COMMANDS
from hermes_trail.cli.typer_app import _shorten, app


def test_every_command_builds_with_its_options():
    group = typer.main.get_command(app)
    for name in COMMANDS:
        command = group.get_command(None, name)
        assert command is not None and command.name == name
        if name in ("list", "show", "search", "stats"):
            flags = {flag for p in command.params for flag in p.opts}
            assert {"--home", "--db", "--pg", "--json"} <= flags, (name, flags)


def test_help_lists_the_commands_in_their_order():
    done = CliRunner().invoke(app, ["--help"], terminal_width=100)
    names = [line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert names == list(COMMANDS)


def test_a_usage_error_is_typers():
    done = CliRunner().invoke(app, ["list", "--limit", "lots"])
    assert done.exit_code == 2 and "lots" in done.output


def test_shorten_cuts_at_a_word_and_marks_it():
    assert _shorten("one two three", 20) == "one two three"
    assert _shorten("one two three four", 12) == "one two…"
