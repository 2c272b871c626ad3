"""Where the work, tokens, money and time went: sessions grouped by project, model, profile, source or day.

Two kinds of figure, read at two costs. What the session row holds (tokens by kind, cost, the session
itself) comes with the catalog. What only the messages tell (turns, tool calls, failing commands, active
time) needs every session read, so :func:`measure_all` reads them one at a time, keeps a session's
:class:`Figures` and lets its turns go, and a :class:`Report` says how many sessions were measured.

Counting rules, each the model's own:

- **Tokens** are summed kind by kind (input, output, cache read, cache write, reasoning), never into one
  figure; a counter the store lacks adds nothing.
- **Cost** is the sum of the known costs, with the number of sessions whose cost is known and unknown
  beside it: an unknown cost (a subscription's placeholder zero, an unpriced route) is never a $0. Asked
  for (``estimates``), sessions of unknown cost are priced from Hermes' own pricing table
  (``pricing.py``): that sum is kept apart, labelled "estimated by trail", never added to Hermes' own.
- **Turns** are the rows Hermes recorded, rewound and archived ones included, each compaction copy
  counted once (its original is the turn); **prompts** are the turns a person typed.
- **Tool calls** and **commands** are counted on the same turns; a failing command ran and ended
  ``failed``, ``killed`` or ``timeout``; a blocked command never ran (a denial, a policy).
- **Active time** is the session's own (``hermes/decode/durations.py``): its rows' gaps, each capped,
  added up in whole microseconds (the rows' times are kept to the microsecond), so the sum is exact and
  the same whether Python adds the gaps or the store does (:mod:`hermes_trail.stats_sql`).
- **Day** is the local date a session started (else its last activity).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Protocol

from hermes_trail.model import Session, Turn, Usage, _Frozen, _Record
from hermes_trail.questions import BY


class Counted(Protocol):
    """What a report reads of a session: a :class:`~hermes_trail.model.Session`, or a
    :class:`~hermes_trail.stats_sql.Brief` read from a few columns of its row."""

    @property
    def key(self) -> tuple[str, str]: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def project(self) -> str: ...
    @property
    def model(self) -> str | None: ...
    @property
    def profile(self) -> str: ...
    @property
    def source(self) -> str | None: ...
    @property
    def started_at(self) -> datetime | None: ...
    @property
    def last_activity_at(self) -> datetime | None: ...
    @property
    def raw(self) -> dict[str, Any]: ...


GROUPINGS = BY  # the choices of the stats question
TOKEN_KINDS = ("input", "output", "cache_read", "cache_write", "reasoning")
FAILING = frozenset({"failed", "killed", "timeout"})
UNKNOWN_KEY = "(unknown)"

SessionKey = tuple[str, str]


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Figures(_Frozen):
    """What one session's messages tell; ``active_seconds`` is ``None`` when no row has a time."""

    _fields: ClassVar[tuple[str, ...]] = (
        "turns",
        "prompts",
        "tool_calls",
        "commands",
        "failing_commands",
        "blocked_commands",
        "active_seconds",
    )
    __slots__ = _fields
    turns: int
    prompts: int
    tool_calls: int
    commands: int
    failing_commands: int
    blocked_commands: int
    active_seconds: float | None

    def __init__(
        self,
        turns: int = 0,
        prompts: int = 0,
        tool_calls: int = 0,
        commands: int = 0,
        failing_commands: int = 0,
        blocked_commands: int = 0,
        active_seconds: float | None = None,
    ) -> None:
        object.__setattr__(self, "turns", turns)
        object.__setattr__(self, "prompts", prompts)
        object.__setattr__(self, "tool_calls", tool_calls)
        object.__setattr__(self, "commands", commands)
        object.__setattr__(self, "failing_commands", failing_commands)
        object.__setattr__(self, "blocked_commands", blocked_commands)
        object.__setattr__(self, "active_seconds", active_seconds)


def _counted(session: Session) -> list[Turn]:
    """Every row that happened once: replayed, rewound and archived, without compaction copies."""
    return [t for t in (*session.turns, *session.hidden) if t.copy_of is None]


def measure(session: Session) -> Figures:
    """The figures of a loaded session (see the module's counting rules)."""
    turns = _counted(session)
    calls = [c for t in turns for c in t.tool_calls]
    ran = [c.command for c in calls if c.command is not None]
    blocked = sum(
        1
        for c in calls
        if c.command is None and c.permission is not None and c.permission.outcome == "blocked"
    )
    return Figures(
        turns=len(turns),
        prompts=sum(1 for t in turns if t.typed),
        tool_calls=len(calls),
        commands=len(ran),
        failing_commands=sum(1 for c in ran if c.status in FAILING),
        blocked_commands=blocked,
        active_seconds=active_seconds(session),
    )


_MICROSECOND = timedelta(microseconds=1)


def active_seconds(session: Session) -> float | None:
    """The session's active time by the rule of ``durations.active_seconds`` (every row read, each gap
    capped by who wrote the row that ends it), its gaps added as whole microseconds; ``None`` when no row
    has a time."""
    from hermes_trail.hermes.decode.durations import AGENT_GAP_CAP, HUMAN_GAP_CAP

    rows = (*session.turns, *session.hidden)
    points = sorted(((t.time, t.role) for t in rows if t.time is not None), key=lambda p: p[0])
    if not points:
        return None
    human, agent = round(HUMAN_GAP_CAP * 1_000_000), round(AGENT_GAP_CAP * 1_000_000)
    total = 0
    previous = points[0][0]
    for when, role in points[1:]:
        total += min((when - previous) // _MICROSECOND, human if role == "user" else agent)
        previous = when
    return total / 1_000_000


def group_key(session: Counted, by: str) -> str:
    """The group a session falls in: its project, model, profile, source, or the local day it started."""
    if by == "day":
        when = session.started_at or session.last_activity_at
        return when.astimezone().date().isoformat() if when else UNKNOWN_KEY
    value = {
        "project": session.project,
        "model": session.model,
        "profile": session.profile,
        "source": session.source,
    }.get(by)
    if by not in GROUPINGS:
        raise ValueError(f"cannot group by {by!r}; one of: {', '.join(GROUPINGS)}")
    return value if value else UNKNOWN_KEY


class Group(_Record):
    """The sums of one group. Message figures cover the ``measured`` sessions only."""

    _fields: ClassVar[tuple[str, ...]] = (
        "key",
        "sessions",
        "measured",
        "turns",
        "prompts",
        "tool_calls",
        "commands",
        "failing_commands",
        "blocked_commands",
        "tokens",
        "cost_usd",
        "cost_known",
        "cost_unknown",
        "estimating",
        "estimated_usd",
        "estimated",
        "active_seconds",
        "active_unknown",
    )
    __slots__ = _fields
    key: str
    sessions: int
    measured: int
    turns: int
    prompts: int
    tool_calls: int
    commands: int
    failing_commands: int
    blocked_commands: int
    tokens: dict[str, int]
    cost_usd: float
    cost_known: int
    cost_unknown: int
    estimating: bool
    estimated_usd: float
    estimated: int
    active_seconds: float
    active_unknown: int

    def __init__(
        self,
        key: str,
        sessions: int = 0,
        measured: int = 0,
        turns: int = 0,
        prompts: int = 0,
        tool_calls: int = 0,
        commands: int = 0,
        failing_commands: int = 0,
        blocked_commands: int = 0,
        tokens: dict[str, int] | None = None,
        cost_usd: float = 0.0,
        cost_known: int = 0,
        cost_unknown: int = 0,
        estimating: bool = False,
        estimated_usd: float = 0.0,
        estimated: int = 0,
        active_seconds: float = 0.0,
        active_unknown: int = 0,
    ) -> None:
        self.key = key
        self.sessions = sessions
        self.measured = measured
        self.turns = turns
        self.prompts = prompts
        self.tool_calls = tool_calls
        self.commands = commands
        self.failing_commands = failing_commands
        self.blocked_commands = blocked_commands
        self.tokens = dict.fromkeys(TOKEN_KINDS, 0) if tokens is None else tokens
        self.cost_usd = cost_usd
        self.cost_known = cost_known
        self.cost_unknown = cost_unknown
        self.estimating = estimating
        self.estimated_usd = estimated_usd
        self.estimated = estimated
        self.active_seconds = active_seconds
        self.active_unknown = active_unknown

    def add(self, session: Counted, figures: Figures | None, estimate: float | None = None) -> None:
        self.sessions += 1
        usage = session.usage
        if usage.cost_usd is None and estimate is not None:
            self.estimated += 1
            self.estimated_usd += estimate
        tokens = self.tokens  # added kind by kind, written out: a report adds every session twice
        tokens["input"] += usage.input_tokens or 0
        tokens["output"] += usage.output_tokens or 0
        tokens["cache_read"] += usage.cache_read_tokens or 0
        tokens["cache_write"] += usage.cache_write_tokens or 0
        tokens["reasoning"] += usage.reasoning_tokens or 0
        if usage.cost_usd is None:
            self.cost_unknown += 1
        else:
            self.cost_known += 1
            self.cost_usd += usage.cost_usd
        if figures is None:
            return
        self.measured += 1
        self.turns += figures.turns
        self.prompts += figures.prompts
        self.tool_calls += figures.tool_calls
        self.commands += figures.commands
        self.failing_commands += figures.failing_commands
        self.blocked_commands += figures.blocked_commands
        if figures.active_seconds is None:
            self.active_unknown += 1
        else:
            self.active_seconds += figures.active_seconds

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "sessions": self.sessions,
            "measured": self.measured,
            "turns": self.turns,
            "prompts": self.prompts,
            "tool_calls": self.tool_calls,
            "commands": self.commands,
            "failing_commands": self.failing_commands,
            "blocked_commands": self.blocked_commands,
            "tokens": dict(self.tokens),
            "cost": {
                "usd": round(self.cost_usd, 6),
                "known": self.cost_known,
                "unknown": self.cost_unknown,
                "estimated_usd": round(self.estimated_usd, 6) if self.estimating else None,
                "estimated": self.estimated,
            },
            "active_seconds": round(self.active_seconds, 3),
            "active_unknown": self.active_unknown,
        }


class Report(_Record):
    """Groups in their order (days oldest first; others by sessions, most first) and the overall sums."""

    _fields: ClassVar[tuple[str, ...]] = ("by", "groups", "overall")
    __slots__ = _fields
    by: str
    groups: list[Group]
    overall: Group

    def __init__(self, by: str, groups: list[Group], overall: Group) -> None:
        self.by = by
        self.groups = groups
        self.overall = overall

    @property
    def complete(self) -> bool:
        """Whether every session's messages were read (else message figures cover ``measured`` only)."""
        return self.overall.measured == self.overall.sessions

    def as_json(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "complete": self.complete,
            "groups": [g.as_json() for g in self.groups],
            "overall": self.overall.as_json(),
        }


class StatsAnswer(_Frozen):
    """``trail stats``' answer: the report, the time it counts from (``since`` read), and whether trail's
    estimates were asked for but no Hermes was found to price them with (``unpriced``)."""

    _fields: ClassVar[tuple[str, ...]] = ("report", "since", "unpriced")
    __slots__ = _fields
    report: Report
    since: datetime | None
    unpriced: bool

    def __init__(self, report: Report, since: datetime | None, unpriced: bool = False) -> None:
        for name, value in zip(self._fields, (report, since, unpriced), strict=True):
            object.__setattr__(self, name, value)

    @property
    def spent(self) -> float:
        """What the sessions counted cost: Hermes' known costs, and trail's estimates when asked for."""
        overall = self.report.overall
        return overall.cost_usd + (overall.estimated_usd if overall.estimating else 0.0)


def aggregate(
    sessions: Iterable[Counted],
    by: str,
    figures: Mapping[SessionKey, Figures] | None = None,
    estimates: Mapping[SessionKey, float] | None = None,
) -> Report:
    """Group ``sessions`` by ``by`` and sum them; ``figures`` holds the measured sessions, by key.

    :param estimates: trail's estimates of the sessions of unknown cost (:func:`estimate_costs`), summed
        apart from Hermes' costs; ``None``: no estimate asked for.
    """
    if by not in GROUPINGS:
        raise ValueError(f"cannot group by {by!r}; one of: {', '.join(GROUPINGS)}")
    found = figures or {}
    priced = estimates or {}
    estimating = estimates is not None
    groups: dict[str, Group] = {}
    overall = Group(key="all", estimating=estimating)
    for session in sessions:
        measured = found.get(session.key)
        guess = priced.get(session.key)
        key = group_key(session, by)
        groups.setdefault(key, Group(key=key, estimating=estimating)).add(session, measured, guess)
        overall.add(session, measured, guess)
    if by == "day":
        ordered = sorted(groups.values(), key=lambda g: g.key)
    else:
        ordered = sorted(groups.values(), key=lambda g: (-g.sessions, g.key))
    return Report(by=by, groups=ordered, overall=overall)


# A session as a report reads it, flat (:func:`row_of`): its key, what it is grouped and filtered by, its
# times (microseconds since 1970), its usage (``Usage``'s fields in order) and its figures (``Figures``'
# fields in order, or ``None``: not measured). A report of 10,000 sessions is then sums over tuples, and a
# cache of them (``stats_sql.saved_rows``) loads in milliseconds.
Row = tuple[Any, ...]
R_STORE, R_ID, R_PROFILE, R_SOURCE, R_PROJECT, R_MODEL, R_PROVIDER, R_START, R_LAST = range(9)
R_USAGE = 9  # ten slots
R_FIGURES = 19
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(when: datetime | None) -> int | None:
    return None if when is None else (when - _EPOCH) // _MICROSECOND


def row_of(session: Counted, figures: Figures | None) -> Row:
    """A session (and its figures) as a :data:`Row`."""
    usage = session.usage
    store, sid = session.key
    return (
        store,
        sid,
        session.profile,
        session.source,
        session.project,
        session.model,
        _provider(session),
        _micros(session.started_at),
        _micros(session.last_activity_at),
        *(getattr(usage, name) for name in Usage._fields),
        None
        if figures is None
        else (
            figures.turns,
            figures.prompts,
            figures.tool_calls,
            figures.commands,
            figures.failing_commands,
            figures.blocked_commands,
            figures.active_seconds,
        ),
    )


class RowSession:
    """A :data:`Row` read as a :class:`Counted` session: what a
    :class:`~hermes_trail.listing.SessionFilter` and :func:`estimate_costs` read of one."""

    __slots__ = ("row",)

    def __init__(self, row: Row) -> None:
        self.row = row

    @property
    def key(self) -> SessionKey:
        return (self.row[R_STORE], self.row[R_ID])

    @property
    def usage(self) -> Usage:
        return Usage(**dict(zip(Usage._fields, self.row[R_USAGE:R_FIGURES], strict=True)))

    @property
    def project(self) -> str:
        return str(self.row[R_PROJECT])

    @property
    def model(self) -> str | None:
        value: str | None = self.row[R_MODEL]
        return value

    @property
    def profile(self) -> str:
        return str(self.row[R_PROFILE])

    @property
    def source(self) -> str | None:
        value: str | None = self.row[R_SOURCE]
        return value

    @property
    def started_at(self) -> datetime | None:
        value = self.row[R_START]
        return None if value is None else _EPOCH + timedelta(microseconds=value)

    @property
    def last_activity_at(self) -> datetime | None:
        value = self.row[R_LAST]
        return None if value is None else _EPOCH + timedelta(microseconds=value)

    @property
    def raw(self) -> dict[str, Any]:
        return {"billing_provider": self.row[R_PROVIDER]}


def aggregate_rows(rows: list[Row], by: str, estimates: Mapping[SessionKey, float] | None = None) -> Report:
    """:func:`aggregate` of sessions given as rows: the same report, each sum added in the same order (so
    the same floating-point figures), without an object a session."""
    if by not in GROUPINGS:
        raise ValueError(f"cannot group by {by!r}; one of: {', '.join(GROUPINGS)}")
    estimating = estimates is not None
    members: dict[str, list[Row]] = {}
    if by == "day":
        for row in rows:
            members.setdefault(_local_day(row), []).append(row)
    else:
        at = {"project": R_PROJECT, "model": R_MODEL, "profile": R_PROFILE, "source": R_SOURCE}[by]
        for row in rows:
            members.setdefault(row[at] or UNKNOWN_KEY, []).append(row)
    groups = [_summed(Group(key=k, estimating=estimating), m, estimates) for k, m in members.items()]
    overall = _summed(Group(key="all", estimating=estimating), rows, estimates)
    if by == "day":
        ordered = sorted(groups, key=lambda g: g.key)
    else:
        ordered = sorted(groups, key=lambda g: (-g.sessions, g.key))
    return Report(by=by, groups=ordered, overall=overall)


def _local_day(row: Row) -> str:
    """:func:`group_key` by day of a row: the local date its session started (else last active), read
    with ``time.localtime`` where ``astimezone`` would make a datetime a session. The same date: both take
    the zone's offset at the whole second (rounded down), and a day starts at a whole second."""
    import time

    when = row[R_START] if row[R_START] is not None else row[R_LAST]
    if when is None:
        return UNKNOWN_KEY
    try:
        local = time.localtime(when // 1_000_000)
    except (OverflowError, OSError, ValueError):  # out of the C library's range: as a datetime does it
        return group_key(RowSession(row), "day")
    return f"{local.tm_year:04d}-{local.tm_mon:02d}-{local.tm_mday:02d}"


def _summed(group: Group, rows: list[Row], estimates: Mapping[SessionKey, float] | None) -> Group:
    """``group`` with ``rows`` added as :meth:`Group.add` adds them, one by one."""
    priced = estimates or {}
    cost, known, guessed, guesses = 0.0, 0, 0.0, 0
    active, unknown_active, measured = 0.0, 0, 0
    turns = prompts = calls = commands = failing = blocked = 0
    inputs = outputs = cache_reads = cache_writes = reasoning = 0
    at = R_USAGE
    # One pass, each figure unpacked (a report of 10,000 rows by each grouping is done after every count);
    # the floating-point sums (cost, estimates, active time) are added in the rows' order, as before.
    for row in rows:
        inputs += row[at] or 0
        outputs += row[at + 1] or 0
        cache_reads += row[at + 2] or 0
        cache_writes += row[at + 3] or 0
        reasoning += row[at + 4] or 0
        spent = row[at + 6]
        if spent is None:
            guess = priced.get((row[R_STORE], row[R_ID])) if priced else None
            if guess is not None:
                guesses += 1
                guessed += guess
        else:
            known += 1
            cost += spent
        figures = row[R_FIGURES]
        if figures is None:
            continue
        measured += 1
        t, p, c, r, f, b, a = figures
        turns += t
        prompts += p
        calls += c
        commands += r
        failing += f
        blocked += b
        if a is None:
            unknown_active += 1
        else:
            active += a
    counts = [turns, prompts, calls, commands, failing, blocked]
    tokens = group.tokens
    for kind, total in zip(TOKEN_KINDS, (inputs, outputs, cache_reads, cache_writes, reasoning), strict=True):
        tokens[kind] = total
    group.sessions = len(rows)
    group.cost_usd, group.cost_known, group.cost_unknown = cost, known, len(rows) - known
    group.estimated_usd, group.estimated = guessed, guesses
    group.measured, group.active_seconds, group.active_unknown = measured, active, unknown_active
    (
        group.turns,
        group.prompts,
        group.tool_calls,
        group.commands,
        group.failing_commands,
        group.blocked_commands,
    ) = counts
    return group


def estimate_costs(
    sessions: Iterable[Counted],
    env: Mapping[str, str] | None = None,
    rates_for: Callable[..., Mapping[tuple[str, str | None], Any] | None] | None = None,
) -> dict[SessionKey, float] | None:
    """Trail's estimate of each session of unknown cost, from Hermes' own pricing table for its model and
    billing provider (``pricing.py``); a session the table cannot price is left out. ``None`` when no
    Hermes is found to read the table from.

    :param rates_for: looks the rates of (model, provider) pairs up (``pricing.hermes_rates``, or a cache
        of it in a long-lived process).
    """
    from hermes_trail.pricing import estimate, hermes_rates

    unpriced = [s for s in sessions if s.usage.cost_usd is None and s.model]
    pairs = {s.key: (s.model or "", _provider(s)) for s in unpriced}
    rates = (rates_for or hermes_rates)(pairs.values(), env)
    if rates is None:
        return None
    out: dict[SessionKey, float] = {}
    for session in unpriced:
        amount = estimate(session.usage, rates.get(pairs[session.key]))
        if amount is not None:
            out[session.key] = amount
    return out


def _provider(session: Counted) -> str | None:
    value = session.raw.get("billing_provider")
    if not isinstance(value, str):
        return None
    return value.strip() or None


def measure_all(
    load: Callable[[Session], Session],
    sessions: Iterable[Session],
    progress: Callable[[int, int], None] | None = None,
) -> dict[SessionKey, Figures]:
    """Read each session with ``load`` (``History.load``), keep its figures and let its turns go.

    :param progress: called with (done, total) after each session.
    """
    chosen = list(sessions)
    out: dict[SessionKey, Figures] = {}
    for done, session in enumerate(chosen, start=1):
        was_loaded = session.loaded
        out[session.key] = measure(load(session))
        if not was_loaded:  # a whole history's turns would not fit in memory: keep only the figures
            session.turns, session.hidden, session.loaded = [], [], False
        if progress is not None:
            progress(done, len(chosen))
    return out
