"""The quick command-line reader (``cli/params.py``, issue 15): for every command line it reads, it calls
the command with exactly what Typer would; what it does not read goes to Typer, whose answer stands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from hermes_trail.cli import params
from hermes_trail.cli.commands import command_function

QUICK = ["list", "show", "search", "stats", "recall", "fix", "blame", "how"]

# Command lines and whether the quick reader must take them (True) or leave them to Typer (False).
LINES: dict[str, list[tuple[list[str], bool]]] = {
    "list": [
        ([], True),
        (["--json"], True),
        (["-n", "3", "--json", "-n", "7"], True),
        (["--limit=0", "--source", "cli", "--profile=work", "--project", "--weird"], True),
        (["--home", "/a", "--home", "", "--db", "x.db", "--pg", "postgresql://u@h/db"], True),
        (["--since", "7d", "--deleted"], True),
        (["-n", " 12 "], True),
        (["-n", "x"], False),
        (["-n"], False),
        (["-n5"], False),
        (["--help"], False),
        (["--json=1"], False),
        (["--nope"], False),
        (["extra"], False),
        (["--", "extra"], False),
    ],
    "show": [
        (["abc"], True),
        (["abc", "--json", "--all", "--full", "--reasoning", "--lineage"], True),
        (["--json", "abc", "--home", "h"], True),
        (["--", "-abc"], True),
        (["-"], True),
        ([], False),
        (["a", "b"], False),
        (["-abc"], False),
        (["abc", "--help"], False),
    ],
    "search": [
        (["error"], True),
        (["connection refused", "--project", "api", "--since", "30d", "-n", "3", "--index", "i.db"], True),
        (["x", "--limit", "1", "--include-rewound", "--role", "user", "--tool", "terminal"], True),
        (["x", "--limit", "0"], False),  # below its least value: Typer's error
        (["x", "--until", "2026-01-01", "--session", "s", "--json"], True),
        (["connection", "refused", "-n", "2"], True),  # several words, unquoted: one question
        (["connection refused", "docker", "--json"], True),
        (["--project", "api", "deploy", "staging"], True),
        (["--", "-x", "y"], True),
        ([], False),
    ],
    # The question commands whose options are made from questions.py (cli/params.asked): read as Typer does.
    "recall": [
        (["how we deploy", "-n", "3", "--budget", "512", "--project", "api"], True),
        (["how", "we", "deploy"], True),
        (["x", "--limit", "21"], False),  # above the most the declaration gives: Typer's error
        (["x", "--budget", "10"], False),
    ],
    "fix": [
        (["boom", "--limit", "50", "--json"], True),
        ([], True),  # the error comes from standard input
        (["ModuleNotFoundError:", "No", "module", "named", "yaml"], True),
        (["boom", "-n", "0"], False),
    ],
    "blame": [
        (["src/app.py", "--include-rewound", "-n", "500"], True),
        (["src/app.py", "--limit", "0"], False),
    ],
    "how": [
        (["run the migrations", "--project", "api", "-n", "2"], True),
        (["run", "the", "migrations"], True),
        ([], False),
    ],
    "stats": [
        ([], True),
        (["--by", "day", "--since", "30d", "--estimate", "--budget", "50"], True),
        (["--budget", "0.5", "--json", "--project", "p", "--source", "cron"], True),
        (["--budget", "-1"], False),
        (["--budget", "lots"], False),
        (["--by"], False),
    ],
}


def typer_kwargs(name: str, argv: list[str]) -> dict[str, Any] | None:
    """What Typer calls command ``name`` with for ``argv``; ``None`` when it refuses the line."""
    got: dict[str, Any] = {}
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    single.command(name)(params.typer_function(command_function(name), call=lambda **kw: got.update(kw)))
    done = CliRunner().invoke(single, argv, catch_exceptions=False)
    return got if done.exit_code == 0 and got else None


@pytest.mark.parametrize(
    ("name", "argv", "quick"), [(n, a, q) for n, lines in LINES.items() for a, q in lines]
)
def test_quick_reader_calls_as_typer_does_or_leaves_the_line_to_it(name, argv, quick):
    parsed = params.parse(command_function(name), argv)
    assert (parsed is not None) == quick, parsed
    if parsed is not None:
        assert parsed == typer_kwargs(name, argv)


def test_the_hot_commands_are_read_without_typer():
    for name in QUICK:
        assert (
            params.parse(command_function(name), ["--json"] if name in ("list", "stats") else ["x"])
            is not None
        )


def test_exit_is_a_system_exit_with_its_code():
    with pytest.raises(SystemExit) as done:
        raise params.Exit(3)
    assert done.value.code == 3 and done.value.exit_code == 3


def test_a_listing_imports_no_typer(tmp_path: Path):
    demo = Path(__file__).parents[1] / "src" / "hermes_trail" / "demo" / "hermes_home"
    probe = (
        "import sys; from hermes_trail.cli.commands import run;"
        f"code = run(['list', '--json', '--home', {str(demo)!r}]);"
        "print(code, 'typer' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.stderr.strip().splitlines()[-1] == "0 False", done.stderr


def test_every_commands_parameters_are_read_as_inspect_reads_them():
    """The quick reader takes a command's parameters off its code object (no ``inspect`` at start-up):
    the same names, order and defaults as ``inspect.signature``, for every command and for the shapes a
    function can take."""
    import inspect

    from hermes_trail.cli.registry import COMMANDS

    def shapes(a, b=1, *, c, d=None):  # positional with and without defaults, keyword-only
        return a, b, c, d

    functions = [f for f in map(command_function, COMMANDS) if inspect.isfunction(f)]
    assert len(functions) >= 15
    for func in [*functions, shapes]:
        expected = [
            (p.name, params._NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
            for p in inspect.signature(func).parameters.values()
        ]
        assert params._parameters(func) == expected, func.__name__
