"""``cli/registry.py``: every command once, in the order ``trail --help`` lists them, each found without
importing Typer (issue 15)."""

from __future__ import annotations

import subprocess
import sys

from hermes_trail.cli.registry import COMMANDS, DEFAULT_LISTING, command_function


def test_every_command_names_a_function_or_a_group():
    for name in COMMANDS:
        target = command_function(name)
        assert callable(target) or hasattr(target, "registered_commands"), name
        assert target.__doc__ or getattr(getattr(target, "info", None), "help", None), name


def test_trail_alone_lists_as_trail_list_with_its_default_limit():
    import inspect

    listing = inspect.signature(command_function("list"))
    assert set(DEFAULT_LISTING) <= set(listing.parameters)


def test_looking_up_the_everyday_commands_imports_no_typer():
    probe = (
        "import sys; from hermes_trail.cli.registry import command_function;"
        "[command_function(n) for n in ('list', 'show', 'search', 'stats')];"
        "print('typer' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
