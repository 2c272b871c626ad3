"""The ``trail`` command line: every command registered once, each in its own module.

Typer turns a function into a click command by reading its signature and evaluating its annotations,
about 5 ms a command, and importing Typer itself costs more than a bare Python process. So a command line
that names a command and only options it knows is read here (:mod:`hermes_trail.cli.params`) and the
command runs without Typer being imported; anything else (``--help``, a usage error, ``--version``, an
install group) goes to the Typer application (:mod:`hermes_trail.cli.typer_app`), which builds only the
command that runs and lists the others from their docstrings. A command's module imports only its option
declarations at load time; what it reads with (the history, the index, rich, numpy) it imports when it
runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_trail.cli.registry import COMMANDS, DEFAULT_LISTING, command_function

if TYPE_CHECKING:
    import typer

    app: typer.Typer

__all__ = ["COMMANDS", "DEFAULT_LISTING", "app", "command_function", "run"]


def __getattr__(name: str) -> Any:
    if name == "app":
        from hermes_trail.cli.typer_app import app

        return app
    raise AttributeError(name)


def _quick(argv: list[str]) -> int | None:
    """Run a command line that needs nothing of Typer's and return its exit code; ``None`` when Typer
    must read it."""
    from hermes_trail.cli import params

    if not argv:
        return params.invoke(command_function("list"), dict(DEFAULT_LISTING))
    if argv[0] not in COMMANDS:
        return None
    target = command_function(argv[0])
    if not callable(target) or not hasattr(target, "__code__"):
        return None  # a group of subcommands
    kwargs = params.parse(target, argv[1:])
    if kwargs is None:
        return None
    return params.invoke(target, kwargs)


# Commands whose words are a search's syntax, where ``-word`` excludes a word.
_EXCLUDING = ("search", "recall")
# Commands whose words are text: a question, an error, what a command did. What each is called.
_TEXT = {"search": "the question", "recall": "the question", "fix": "the error", "how": "the question"}


def _exclusion(argv: list[str]) -> tuple[str, list[str], list[str]] | None:
    """A ``-word`` typed unquoted among a command's words (``trail search migration -docker``, ``trail fix
    -bash: pip: command not found``), which the command line would read as options (``-d``, ``-b``, ...):
    ``params.unquoted_exclusion``."""
    from hermes_trail.cli import params

    if not argv or argv[0] not in _TEXT:
        return None
    return params.unquoted_exclusion(command_function(argv[0]), argv[1:])


def _dashed(argv: list[str]) -> list[str]:
    """``argv`` with text that begins with a dash, quoted whole, read as text (``params.text_after_options``):
    ``trail fix "-bash: pip: command not found"`` was refused as the unknown option ``-b``."""
    if len(argv) < 2 or argv[0] not in _TEXT:
        return argv
    from hermes_trail.cli import params

    if not params.dashed_text(argv[1:]):
        return argv
    return [argv[0], *params.text_after_options(command_function(argv[0]), argv[1:])]


def run(argv: list[str]) -> int:
    """Run the command line on ``argv``; the exit code (usage errors: click's message and 2; Ctrl-C
    while a command runs: 130, as Typer maps it)."""
    argv = _dashed(argv)
    code = _quick(argv)
    if code is not None:
        return code
    if (typed := _exclusion(argv)) is not None:  # what click would call an unknown option "-d"
        import shlex
        import sys

        word, words, options = typed
        given = "".join(" " + shlex.quote(o) for o in options)
        why = "to leave out a word, quote " if argv[0] in _EXCLUDING else "quote "
        sys.stderr.write(
            f"trail: {word} would be read as options; {why}{_TEXT[argv[0]]}:\n"
            f"  trail {argv[0]} {shlex.quote(' '.join(words))}{given}\n"
            f"or put it after --:\n  trail {argv[0]}{given} -- {shlex.join(words)}\n"
        )
        return 2
    from hermes_trail.cli.typer_app import app

    try:
        app(argv, prog_name="trail")
    except SystemExit as done:
        status = done.code
        return status if isinstance(status, int) else (0 if status is None else 1)
    return 0
