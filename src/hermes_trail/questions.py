"""The questions trail answers, each declared once: its name, what it does, and its arguments with their
words and bounds. The surfaces are made from these declarations: the MCP tools' schemas
(``mcp/tools.py``), the web's ``/api/ask/<question>`` route (:func:`arguments`) and the command line's
options (``cli/params.asked``), so one question is never described twice in different words, nor bounded
differently in two places. Where a person on a terminal is served differently from an agent (more rows by
default, no upper bound, a paging argument a pager does better), the argument's :class:`Cli` says so here.

Standard library only: the command line reads it at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from hermes_trail.model import _Frozen

# The longest a string argument may be, in characters: a name, a path or a filter; words to look for; an
# error (the end of a failing output). Longer is refused before anything is read (docs/mcp.md).
NAME_CHARS = 500
QUERY_CHARS = 2000
ERROR_CHARS = 8000

# What stats groups by and the formats of an export, named here for the questions' choices and taken from
# here by ``stats`` and ``export`` (too heavy for the command line's start to import for a list of names).
BY = ("project", "model", "profile", "source", "day")
FORMATS = ("md", "html", "jsonl", "asf")

_WHEN = (
    "a duration back from now (7d, 12h, 30m), an ISO date (2026-11-01) or a time in words (yesterday, "
    "'last week', monday: since its start, until its end)"
)


class _Same:
    """The agent's value, kept on the command line (:data:`SAME`)."""

    def __repr__(self) -> str:
        return "SAME"


SAME: Any = _Same()


# The three classes below are written out on the model's frozen record (what ``@dataclass(frozen=True)``
# would make, without compiling its methods at every start of ``trail``: model._Record).
class Cli(_Frozen):
    """How the command line offers an argument, where a person is served differently from an agent
    (:data:`SAME` where not): another ``default``; other bounds (``None``: none the option enforces, the
    command may check its own); a ``note`` said after the help, for what only the command line does."""

    _fields: ClassVar[tuple[str, ...]] = ("default", "least", "most", "note")
    __slots__ = _fields
    default: Any
    least: Any
    most: Any
    note: str

    def __init__(self, default: Any = SAME, least: Any = SAME, most: Any = SAME, note: str = "") -> None:
        for name, value in zip(self._fields, (default, least, most, note), strict=True):
            object.__setattr__(self, name, value)


_PLAIN = Cli()  # offered as an agent is


class Param(_Frozen):
    """One argument: ``text`` (a string of at most ``chars``), ``count`` (an integer from ``least`` to
    ``most``) or ``flag``; ``default`` is an agent's. ``cli`` is how the command line offers it (``None``:
    it does not, as for a model's paging through a session, which a person's pager does)."""

    _fields: ClassVar[tuple[str, ...]] = (
        "name",
        "kind",
        "help",
        "default",
        "least",
        "most",
        "chars",
        "choices",
        "cli",
    )
    __slots__ = _fields
    name: str
    kind: Literal["text", "count", "flag"]
    help: str
    default: Any
    least: int
    most: int | None
    chars: int
    choices: tuple[str, ...]
    cli: Cli | None

    def __init__(
        self,
        name: str,
        kind: Literal["text", "count", "flag"],
        help: str,
        default: Any = None,
        least: int = 1,
        most: int | None = None,
        chars: int = NAME_CHARS,
        choices: tuple[str, ...] = (),
        cli: Cli | None = _PLAIN,
    ) -> None:
        values = (name, kind, help, default, least, most, chars, choices, cli)
        for field, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, field, value)

    @property
    def cli_default(self) -> Any:
        """The option's default on the command line."""
        return self.default if self.cli is None or self.cli.default is SAME else self.cli.default

    @property
    def cli_bounds(self) -> tuple[int | None, int | None]:
        """The least and most values the command line's option takes (a count's; ``None``: no bound)."""
        if self.kind != "count":
            return None, None
        cli = self.cli or Cli()
        return (
            self.least if cli.least is SAME else cli.least,
            self.most if cli.most is SAME else cli.most,
        )

    @property
    def cli_help(self) -> str:
        """The option's help on the command line: the words an agent is given, and the command line's own
        note after them."""
        note = self.cli.note if self.cli is not None else ""
        return f"{self.help} {note}" if note else self.help


class Question(_Frozen):
    """One question: its name, a title, what it answers, its arguments (``required`` first), the
    ``trail`` command that asks it (``command``: its name unless said), whether agents are offered it as
    an MCP tool (``tool``) and whether its answer comes from the search index (``indexed``; else from the
    stores themselves, so a surface need not wait for the index's first build)."""

    _fields: ClassVar[tuple[str, ...]] = (
        "name",
        "title",
        "description",
        "params",
        "required",
        "command",
        "tool",
        "indexed",
    )
    __slots__ = _fields
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    required: tuple[str, ...]
    command: str
    tool: bool
    indexed: bool

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        params: tuple[Param, ...],
        required: tuple[str, ...] = (),
        command: str = "",
        tool: bool = True,
        indexed: bool = True,
    ) -> None:
        values = (name, title, description, params, required, command, tool, indexed)
        for field, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, field, value)

    @property
    def cli_command(self) -> str:
        """The ``trail`` command that asks this question."""
        return self.command or self.name

    def param(self, name: str) -> Param:
        """The argument ``name`` (a ``KeyError`` for a name the question does not take)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def help(self, name: str) -> str:
        return self.param(name).help


# A person may ask a terminal for more rows than an agent's budget holds: no upper bound on the command line.
_MORE = Cli(most=None)


def _project() -> Param:
    said = "Only this project: its directory and those under it, or its end ('api', 'work/api')."
    return Param("project", "text", said)


def _profile() -> Param:
    return Param("profile", "text", "Only this Hermes profile ('default' is the root profile).")


def _source() -> Param:
    return Param(
        "source", "text", "Only sessions from this front end: cli, tui, cron, telegram, discord, slack, ..."
    )


QUESTIONS: dict[str, Question] = {
    q.name: q
    for q in (
        Question(
            "recall",
            "Recall past sessions",
            "What past Hermes sessions said or did about something: a compact page of the best-matching "
            "prompts, replies, commands (with exit codes) and edits, each with its session id and time. "
            "Start here for background on a task.",
            (
                Param(
                    "query",
                    "text",
                    "What to remember, in plain words: 'how we deploy staging', 'the flaky test', "
                    "'what we did yesterday'.",
                    chars=QUERY_CHARS,
                ),
                _project(),
                _profile(),
                Param("limit", "count", "Conversations to draw from.", 8, most=20),
            ),
            ("query",),
        ),
        Question(
            "search",
            "Search the history",
            "Full-text search of everything Hermes recorded (prompts, replies, summaries, commands, edits, "
            "tool output), grouped by conversation, best first; each hit has a snippet with matches between "
            "« and », and the command that resumes its session.",
            (
                Param(
                    "query",
                    "text",
                    'Words, "exact phrases", OR, -word to exclude, prefix*, paths or any text; a time '
                    '("yesterday", "last week") says when to look; a front end, profile or project named '
                    'alone ("telegram") lists its conversations.',
                    chars=QUERY_CHARS,
                ),
                _project(),
                _profile(),
                _source(),
                Param("since", "text", f"Only from this time on: {_WHEN}."),
                Param("until", "text", f"Only before this time: {_WHEN}."),
                Param(
                    "role",
                    "text",
                    "Only turns of this role.",
                    choices=("user", "assistant", "tool", "summary"),
                ),
                Param("tool", "text", "Only calls of this tool: terminal, patch, write_file, read_file, ..."),
                Param("session", "text", "Only this session: its id or the start of it."),
                Param("include_rewound", "flag", "Also turns the user rewound (undid).", False),
                Param("limit", "count", "Conversations to return.", 10, most=50, cli=_MORE),
            ),
            ("query",),
        ),
        Question(
            "fix",
            "What fixed this error",
            "What fixed an error before: past commands that failed with the same error, and the commands "
            "that then worked, most often first. An error told in other words is answered from the "
            "conversations nearest it in meaning ('by_meaning': true).",
            (
                Param(
                    "error",
                    "text",
                    "The error message or the failing output (its last lines are enough).",
                    chars=ERROR_CHARS,
                    cli=Cli(note="Or pipe it in."),
                ),
                _project(),
                Param("limit", "count", "Fixes and failures to return.", 5, most=20, cli=_MORE),
            ),
            ("error",),
        ),
        Question(
            "blame",
            "Who changed this file",
            "Every edit Hermes made to a file, following renames, newest first: the session, what changed "
            "(lines added and removed) and the typed prompt behind it.",
            (
                Param(
                    "path",
                    "text",
                    "The file: its full path, or the end of it ('src/app.py'; 'src/app.py:42' as an error "
                    "gives it).",
                ),
                Param("limit", "count", "Edits to return.", 20, most=200, cli=Cli(default=50, most=None)),
                Param("include_rewound", "flag", "Also edits the user rewound (undid).", False),
            ),
            ("path",),
        ),
        Question(
            "how",
            "How this was done before",
            "The commands really run to do something, ranked by how many sessions ran them and how often "
            "they succeeded, with an example run of each. When no command or request has its words, the "
            "commands run after the requests nearest in meaning ('matched_in': 'meaning').",
            (
                Param(
                    "what",
                    "text",
                    "What to do ('run the migrations') or a command fragment ('alembic').",
                    chars=QUERY_CHARS,
                ),
                _project(),
                Param("limit", "count", "Commands to return.", 10, most=50, cli=_MORE),
            ),
            ("what",),
        ),
        Question(
            "show",
            "Read a session",
            "One session: its details and a page of its turns (prompts, replies, reasoning, tool calls with "
            "their results). Long sessions come a page at a time: next_offset is where the next page starts "
            "(null at the end).",
            (
                Param(
                    "session_id",
                    "text",
                    "A session id from another answer, a unique start of one, or <store>:<id>.",
                ),
                Param(
                    "offset",
                    "count",
                    "The first turn to return (0 is the first).",
                    0,
                    least=0,
                    most=1_000_000,
                    cli=None,
                ),
                Param(
                    "limit",
                    "count",
                    "Turns to return at most; long turns make the page shorter.",
                    40,
                    most=200,
                    cli=None,
                ),
            ),
            ("session_id",),
            indexed=False,
        ),
        Question(
            "sessions",
            "List sessions",
            "Sessions of every profile, newest activity first: id, title, project, profile, source, model, "
            "times, messages, tokens and cost.",
            (
                _profile(),
                _project(),
                _source(),
                Param("since", "text", f"Only sessions active since: {_WHEN}."),
                Param(
                    "limit",
                    "count",
                    "Sessions to return.",
                    20,
                    most=200,
                    # 0 is every session; a negative count is refused by the command, in its words.
                    cli=Cli(default=50, least=None, most=None, note="0: all of them."),
                ),
            ),
            command="list",
            indexed=False,
        ),
        # A person's questions: not offered to agents as tools (every tool's description is read by the
        # model at each turn, and Hermes answers its own usage with /insights); the web asks them.
        Question(
            "stats",
            "Where the work went",
            "Sessions, turns, tool calls, failing commands, tokens by kind, cost (the sum of the known, and "
            "how many are unknown) and active time, by project, model, profile, source or day.",
            (
                Param("by", "text", "Group by: project, model, profile, source or day.", BY[0], choices=BY),
                Param("since", "text", f"Only sessions active since: {_WHEN}."),
                _profile(),
                _project(),
                _source(),
                Param(
                    "estimate",
                    "flag",
                    "Also price the sessions of unknown cost from Hermes' own pricing table, shown apart "
                    "from Hermes' figures (estimated by trail).",
                    False,
                ),
            ),
            tool=False,
            indexed=False,
        ),
        Question(
            "export",
            "Export a session",
            "A session as Markdown, a self-contained HTML replay, JSON Lines of the model or the Agent "
            "Session Format (agentsession RFC 0001), secrets redacted; a deleted session too, from the copy "
            "that holds it.",
            (
                Param(
                    "session_id",
                    "text",
                    "A session id, a unique start of one, or <store>:<id>.",
                    cli=Cli(note="Several may be named; or --all."),
                ),
                Param("format", "text", "md, html, jsonl or asf.", "md", choices=FORMATS),
            ),
            ("session_id",),
            tool=False,
            indexed=False,
        ),
    )
}


def schema(question: Question) -> dict[str, Any]:
    """The question's arguments as a JSON Schema object (what an MCP client is shown and checked with)."""
    properties: dict[str, Any] = {}
    for p in question.params:
        if p.kind == "text":
            prop: dict[str, Any] = {"type": "string", "description": p.help, "maxLength": p.chars}
            if p.choices:
                prop["enum"] = list(p.choices)
        elif p.kind == "count":
            prop = {"type": "integer", "description": p.help, "default": p.default, "minimum": p.least}
            if p.most is not None:
                prop["maximum"] = p.most
        else:
            prop = {"type": "boolean", "description": p.help, "default": bool(p.default)}
        properties[p.name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": list(question.required),
        "additionalProperties": False,
    }


def arguments(question: Question, given: Mapping[str, str]) -> dict[str, Any]:
    """A question's arguments from text (a web request's query string), read and bounded by its
    declaration as the MCP schema bounds them: what a surface that receives strings asks the service.
    Raises :class:`ValueError` with a sentence a person can act on: an argument the question does not
    take, a required one missing, a number out of its bounds, a text too long or not one of its choices."""
    out: dict[str, Any] = {}
    known = {p.name: p for p in question.params}
    for name, raw in given.items():
        param = known.get(name)
        if param is None:
            raise ValueError(f"{question.name} takes no argument {name!r} (it takes: {', '.join(known)})")
        if param.kind == "text":
            if len(raw) > param.chars:
                raise ValueError(f"{name} is longer than {param.chars} characters")
            if param.choices and raw not in param.choices:
                raise ValueError(f"{name} must be one of: {', '.join(param.choices)}")
            out[name] = raw
        elif param.kind == "count":
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"{name} must be a whole number, not {raw[:40]!r}") from None
            if value < param.least or (param.most is not None and value > param.most):
                bound = (
                    f"from {param.least} to {param.most}" if param.most is not None else f">= {param.least}"
                )
                raise ValueError(f"{name} must be {bound}")
            out[name] = value
        else:
            if raw.lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off", ""):
                raise ValueError(f"{name} is a yes/no flag (1 or 0), not {raw[:40]!r}")
            out[name] = raw.lower() in ("1", "true", "yes", "on")
    missing = [name for name in question.required if not str(out.get(name, "")).strip()]
    if missing:
        raise ValueError(f"{question.name} needs {', '.join(missing)}")
    return out
