"""What a search answers with: each matching turn (:class:`Hit`), the conversations they are grouped into
(:class:`Conversation`) and the whole answer (:class:`SearchResult`). The local index and the shared one on
PostgreSQL answer with the same records, so every surface prints and serialises them one way."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from hermes_trail.model import _Record

if TYPE_CHECKING:
    from hermes_trail.index.plan import Places
    from hermes_trail.index.when import Window

MARK_OPEN, MARK_CLOSE = "\u00ab", "\u00bb"


# Hit, Conversation and SearchResult are written out on the model's record (what ``@dataclass`` made, without
# importing ``dataclasses`` at every start of ``trail search``: model._Record).
class Hit(_Record):
    """One matching doc, with the session it belongs to."""

    _fields: ClassVar[tuple[str, ...]] = (
        "doc",
        "store",
        "session_id",
        "ref",
        "profile",
        "project",
        "source",
        "session_kind",
        "root",
        "title",
        "row",
        "part",
        "role",
        "kind",
        "tool",
        "time",
        "exit_code",
        "path",
        "rewound",
        "score",
        "snippet",
    )
    __slots__ = _fields
    doc: int
    store: str
    session_id: str
    ref: str
    profile: str
    project: str
    source: str | None
    session_kind: str
    root: str
    title: str | None
    row: int
    part: int
    role: str
    kind: str
    tool: str | None
    time: float | None
    exit_code: int | None
    path: str | None
    rewound: bool
    score: float
    snippet: str

    def __init__(
        self,
        doc: int,
        store: str,
        session_id: str,
        ref: str,
        profile: str,
        project: str,
        source: str | None,
        session_kind: str,
        root: str,
        title: str | None,
        row: int,
        part: int,
        role: str,
        kind: str,
        tool: str | None,
        time: float | None,
        exit_code: int | None,
        path: str | None,
        rewound: bool,
        score: float,
        snippet: str = "",
    ) -> None:
        self.doc = doc
        self.store = store
        self.session_id = session_id
        self.ref = ref
        self.profile = profile
        self.project = project
        self.source = source
        self.session_kind = session_kind
        self.root = root
        self.title = title
        self.row = row
        self.part = part
        self.role = role
        self.kind = kind
        self.tool = tool
        self.time = time
        self.exit_code = exit_code
        self.path = path
        self.rewound = rewound
        self.score = score
        self.snippet = snippet

    @property
    def resume(self) -> str:
        """The command that reopens the conversation in Hermes (see :mod:`hermes_trail.resume`): empty when
        Hermes cannot be pointed at its store; ``trail show`` for a session only trail still holds."""
        from hermes_trail.index.recovered import is_recovered
        from hermes_trail.resume import resume_line

        if is_recovered(self.store):
            return f"trail show {self.ref}"
        if self.origin != "session":  # a memory entry or a skill: no conversation to reopen
            return ""

        return resume_line(self.session_id, self.store, self.profile)

    @property
    def origin(self) -> str:
        """What the hit was found in: ``session``, or Hermes' ``memory`` or a ``skill`` (not a session)."""
        from hermes_trail.index.knowledge import origin_of

        return origin_of(self.store, self.session_kind)

    @property
    def label(self) -> str:
        """Where the hit is, for people: ``memory <profile>:MEMORY.md``, ``skill <profile>:<name>``, else the
        session's ref."""
        return self.ref if self.origin == "session" else f"{self.origin} {self.ref}"


class Conversation(_Record):
    """The hits of one conversation (a continuation chain), best first. ``opening``: when the best hit's
    session has no title, its first prompt on one line (what a list shows instead, as Hermes' own does).
    ``superseded_by``: the session of a later conversation that says what this one said changed, which
    the rule of the newest fact put before it (:func:`~hermes_trail.index.newest.newest_first`)."""

    _fields: ClassVar[tuple[str, ...]] = ("store", "root", "hits", "opening", "superseded_by")
    __slots__ = _fields
    store: str
    root: str
    hits: list[Hit]
    opening: str | None
    superseded_by: str | None

    def __init__(
        self,
        store: str,
        root: str,
        hits: list[Hit] | None = None,
        opening: str | None = None,
        superseded_by: str | None = None,
    ) -> None:
        self.store = store
        self.root = root
        self.hits = [] if hits is None else hits
        self.opening = opening
        self.superseded_by = superseded_by

    @property
    def score(self) -> float:
        return self.hits[0].score if self.hits else 0.0


class SearchResult(_Record):
    """What a search found. ``matches`` counts the turns (docs) that matched, not the hits shown."""

    _fields: ClassVar[tuple[str, ...]] = (
        "query",
        "conversations",
        "matches",
        "windowed",
        "seconds",
        "missing",
        "dropped",
        "prefix",
        "unencoded",
        "matches_exact",
        "read_as",
        "unmatched",
        "read_as_cjk",
        "spelled",
        "when",
        "session",
        "places",
    )
    __slots__ = _fields
    query: str
    conversations: list[Conversation]
    matches: int
    windowed: bool
    seconds: float
    # Words typed that no index holds, left out of the match (the answer is what the others found).
    missing: list[str]
    # Function words left out of the match and the ranking ("how", "is", "the").
    dropped: list[str]
    # The last word, read as the start of a word (it is no word of the index as typed).
    prefix: str | None
    # When the meaning pass ran: how many sessions have no passage vectors yet (`trail index` makes them).
    unencoded: int | None
    # Whether ``matches`` is every match; else it is a lower bound (a count cut at COUNT_CAP, or the
    # window of a phrase or prefix that matched more).
    matches_exact: bool
    # The English words a Chinese or Japanese question was also read as (:func:`_translated`).
    read_as: list[str]
    # When nothing was found: the filters no session matches at all, as a person reads them
    # (``filters.unmatched``: a typo in a profile's name is no empty history).
    unmatched: list[str]
    # The Chinese or Japanese words an English question was also read as (:func:`_in_chinese`).
    read_as_cjk: list[str]
    # Words typed that no index holds, each with the words one slip away that the history has and that were
    # searched for in its place (:mod:`~hermes_trail.index.spelling`: "kubernets": kubernetes).
    spelled: dict[str, list[str]]
    # The time the question named ("yesterday", "last week": :mod:`~hermes_trail.index.when`), read as a
    # window of local time, with how many of the conversations came from it (first); ``None`` otherwise.
    when: Window | None
    # The session id the question was, and nothing else: the answer is that conversation, by its prompts
    # (``search.session_named``); ``None`` otherwise.
    session: str | None
    # The profiles, front ends and projects a question of their names alone named ("discord", "work"), no
    # text having the words: the answer is their conversations, newest first, by their first prompts
    # (``plan.naming_places``); ``None`` otherwise.
    places: Places | None

    def __init__(
        self,
        query: str,
        conversations: list[Conversation],
        matches: int,
        windowed: bool,
        seconds: float,
        missing: list[str] | None = None,
        dropped: list[str] | None = None,
        prefix: str | None = None,
        unencoded: int | None = None,
        matches_exact: bool = True,
        read_as: list[str] | None = None,
        unmatched: list[str] | None = None,
        read_as_cjk: list[str] | None = None,
        spelled: dict[str, list[str]] | None = None,
        when: Window | None = None,
        session: str | None = None,
        places: Places | None = None,
    ) -> None:
        self.query = query
        self.conversations = conversations
        self.matches = matches
        self.windowed = windowed
        self.seconds = seconds
        self.missing = [] if missing is None else missing
        self.dropped = [] if dropped is None else dropped
        self.prefix = prefix
        self.unencoded = unencoded
        self.matches_exact = matches_exact
        self.read_as = [] if read_as is None else read_as
        self.unmatched = [] if unmatched is None else unmatched
        self.read_as_cjk = [] if read_as_cjk is None else read_as_cjk
        self.spelled = {} if spelled is None else spelled
        self.when = when
        self.session = session
        self.places = places

    @property
    def hits(self) -> list[Hit]:
        """The best hit of each conversation, in rank order."""
        return [c.hits[0] for c in self.conversations if c.hits]
