"""What every command shares: where to read from, ``--json``, and how problems become exit codes.

Exit codes: 0 everything was read; 1 the command could not do what was asked (unknown session, bad
option value, nothing readable); 2 usage error (from click); 3 the output is complete for what could be
read, but something was passed over (a store, a row, a directory), each named on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

from hermes_trail.cli.params import Exit, Option

if TYPE_CHECKING:  # imported where used: a command's start-up pays only for what it reads
    from hermes_trail.cli.term import Printer
    from hermes_trail.history import History
    from hermes_trail.model import Stray
    from hermes_trail.recovery import Finder
    from hermes_trail.service import Trail

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_SKIPPED = 3
EXIT_OVER_BUDGET = 4  # trail stats --budget: spending passed the budget

# The variables of locate.NAMING_VARIABLES that name a path, with what kind: one that is set but names no
# such place is an error, said with the kind (the DSN one names no path).
_PATH_VARIABLES = (
    ("TRAIL_HERMES_DB", "file"),
    ("TRAIL_HERMES_HOME", "directory"),
    ("HERMES_HOME", "directory"),
)

HomeOption = Annotated[
    list[Path] | None,
    Option(
        "--home",
        help="A Hermes home or root to read (repeatable). Default: resolved as Hermes resolves HERMES_HOME.",
        show_default=False,
    ),
]
DbOption = Annotated[
    list[Path] | None,
    Option("--db", help="Read only this state.db (repeatable).", show_default=False),
]
PgOption = Annotated[
    list[str] | None,
    Option(
        "--pg",
        metavar="DSN",
        help="Read only this PostgreSQL database, by DSN (repeatable; combines with --db). Its password is "
        "never printed.",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, Option("--json", help="Print JSON (keys documented in docs/json.md).")]


def err(message: str) -> None:
    """One line on stderr, for a person."""
    sys.stderr.write(f"trail: {message}\n")


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    err(message)
    raise Exit(code)


def like_it(finder: Finder, session_id: str) -> str:
    """What to add to "no session" for a name no session has: the sessions whose id is like it (a
    character or two typed wrong), each on a line, or nothing (:meth:`~hermes_trail.recovery.Finder.near`)."""
    near = finder.near(session_id)
    return "; sessions like it:\n  " + "\n  ".join(near) if near else ""


def load(
    homes: list[Path] | None,
    dbs: list[Path] | None,
    pgs: list[str] | None = None,
    catalog: bool | Literal["page"] = True,
) -> History:
    """Open every store, telling the user on stderr about the demo and anything passed over.

    :param catalog: read every session row (a listing); a command about one session looks it up instead;
        ``"page"``: order every row, decode only what is shown (``History.page``).
    """
    from hermes_trail.history import open_history

    check_locations(homes, dbs, pgs)
    history = open_history(
        homes=homes or (),
        dbs=dbs or (),
        pgs=pgs or (),
        demo_fallback=True,  # open_history asks the same rule (locate.named_by_environment)
        catalog=catalog,
    )
    if history.demo:
        err("no Hermes home found; reading the demo home bundled with hermes-trail")
    for stray in history.strays:
        if stray.kind in ("store", "directory"):
            err(f"skipped {stray.kind} {stray.where}: {stray.reason}")
    report_rows([s for s in history.strays if s.kind not in ("store", "directory")])
    if not history.stores and not history.demo and not history.strays:
        err("no Hermes store found (looked at: " + ", ".join(str(h) for h, _ in _homes(homes)) + ")")
    return history


def store_door(homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None = None) -> Trail:
    """The front door over the stores ``--home``, ``--db`` and ``--pg`` name, for a command that reads them
    rather than the index (``list``, ``show``): it asks its question of a history :func:`load` opened."""
    from hermes_trail.service import Trail

    return Trail(homes=tuple(homes or ()), dbs=tuple(dbs or ()), pgs=tuple(pgs or ()))


def named(homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None) -> bool:
    """Whether a flag or a variable names what to read (then the demo home never stands in)."""
    from hermes_trail.hermes import locate

    return bool(homes or dbs or pgs) or locate.named_by_environment(os.environ)


def check_locations(homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None = None) -> None:
    """Fail (exit 2, one line) when a ``--home``, a ``--db`` or a variable names a place that is not there:
    a typo must not quietly read something else."""
    for path in homes or ():
        if not path.exists():
            fail(f"--home {path}: no such directory", EXIT_USAGE)
    for path in dbs or ():
        if not path.exists():
            fail(f"--db {path}: no such file", EXIT_USAGE)
    if homes or dbs or pgs:
        return
    for name, kind in _PATH_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value and not Path(value).expanduser().exists():
            fail(f"{name}={value}: no such {kind}", EXIT_USAGE)


def report_rows(strays: list[Stray], shown: int = 10) -> None:
    """Rows that could not be read: one line each, the first ``shown`` of them, then a count."""
    for stray in strays[:shown]:
        err(f"unreadable row {stray.where}: {stray.reason}")
    if len(strays) > shown:
        from hermes_trail.formatting import counted

        err(f'... and {counted(len(strays) - shown, "more row")} (see --json "strays")')


def _homes(homes: list[Path] | None) -> list[tuple[Path, str]]:
    from hermes_trail.hermes import locate

    return locate.resolve_roots(os.environ, homes=homes or ())


def exit_code(history: History) -> int:
    return EXIT_SKIPPED if history.skipped else EXIT_OK


def print_json(value: Any) -> None:
    from hermes_trail.formatting import json_safe

    sys.stdout.write(json_safe(json.dumps(value, ensure_ascii=False, indent=None)))
    sys.stdout.write("\n")


def since_option(value: str | None, name: str) -> float | None:
    """A ``--since``/``--until`` value as a timestamp; a value it cannot read fails the command."""
    if value is None:
        return None
    from hermes_trail.errors import TrailError
    from hermes_trail.listing import since_timestamp

    try:
        return since_timestamp(value, name)
    except TrailError as exc:
        fail(str(exc))


def window_options(since: str | None, until: str | None) -> tuple[float | None, float | None]:
    """``--since`` and ``--until`` as timestamps; one it cannot read, or a ``--since`` after the
    ``--until``, fails the command (``listing.window_timestamps``)."""
    from hermes_trail.errors import TrailError
    from hermes_trail.listing import window_timestamps

    try:
        return window_timestamps(since, until)
    except TrailError as exc:
        fail(str(exc))


def role_option(value: str | None) -> None:
    """A ``--role`` no turn can have fails the command, saying which there are (it matched nothing)."""
    from hermes_trail.service import ServiceError, role_asked

    try:
        role_asked(value)
    except ServiceError as exc:
        fail(f"--role {value!r}: no turn has that role or kind ({exc.hint})")


def answer(
    found: bool, json_output: bool, as_json: Callable[[], Any], render: Callable[[Printer], None]
) -> NoReturn:
    """Print a query's result (JSON, or for people) and exit ``1`` when a person got nothing."""
    if json_output:
        print_json(as_json())
    else:
        from hermes_trail.cli.term import Printer

        render(Printer())
    raise Exit(EXIT_OK if found or json_output else EXIT_ERROR)


def typed_words(words: list[str] | None, phrases: bool = False) -> str | None:
    """A question typed as several words without quotes (``trail search connection refused``) as the one
    text it means: the words joined by spaces. With ``phrases`` (a search's syntax), a word the shell kept
    whole with spaces in it (``trail search "connection refused" docker``) stays a phrase. ``None`` when no
    word was given."""
    if not words:
        return None
    if len(words) == 1 or not phrases:
        return " ".join(words)
    return " ".join(f'"{w}"' if any(c.isspace() for c in w.strip()) and '"' not in w else w for w in words)


def usage_error(message: str) -> NoReturn:
    """End the command as a usage error (exit 2), saying what it wants."""
    fail(message, EXIT_USAGE)


def question(words: list[str] | None, blank: str, phrases: bool = False, piped: bool = False) -> str:
    """The question typed as ``words`` (:func:`typed_words`), else with ``piped`` what standard input holds
    when it is no terminal (``pytest 2>&1 | trail fix``), a terminal's escape sequences left out; a blank
    one is a usage error saying ``blank`` (nothing to look for is no "No match")."""
    text = typed_words(words, phrases)
    if text is None:
        text = sys.stdin.read() if piped and not sys.stdin.isatty() else ""
    if "\x1b" in text or "\x9b" in text:
        # An error piped or pasted with its colours (``cargo build --color=always 2>&1 | trail fix``): read
        # as the words a terminal shows, as Hermes keeps its tools' output ("\x1b[31merror" was the word
        # "31merror", which no turn has).
        from hermes_trail.formatting import TERMINAL_ESCAPES

        text = TERMINAL_ESCAPES.sub("", text)
    if not text.strip():
        usage_error(blank)
    return text
