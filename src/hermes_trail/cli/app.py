"""The ``trail`` entry point: starts the command line and maps interruptions and broken pipes to exits.

Nothing is imported here at module level but the standard library: a Ctrl-C while the commands load
ends as cleanly as one while they run (exit 130, no traceback). The Typer application is built in
:mod:`hermes_trail.cli.commands`; ``app`` is re-exported from there for tests and embedders.
"""

from __future__ import annotations

import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

    app: typer.Typer

EXIT_INTERRUPTED = 130


def __getattr__(name: str) -> Any:
    if name == "app":
        from hermes_trail.cli.commands import app

        return app
    raise AttributeError(name)


def main() -> None:
    """Console-script entry point."""
    try:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # from here Ctrl-C is handled below
            signal.signal(signal.SIGINT, signal.default_int_handler)
        from hermes_trail.cli.commands import run

        code = run(sys.argv[1:])
    except KeyboardInterrupt:
        _interrupted()
    except BrokenPipeError:
        _quiet_stdout()
        code = 0
    sys.exit(code)


def _interrupted() -> None:
    """Ctrl-C: a newline so the shell prompt starts clean, exit 130, no traceback."""
    try:
        sys.stderr.write("\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    _quiet_stdout()
    sys.exit(EXIT_INTERRUPTED)


def _quiet_stdout() -> None:
    """Stdout is gone (a closed pipe, ``| head``): point it at nothing so the exit flush cannot fail."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
