"""The one normalized shape every use consumes: stores, sessions, turns, tool calls, strays.

Nothing here knows SQLite or how Hermes spells a column; the decode layer builds these objects and the
uses (transcripts, listings, exports, the index) read them. Identity is stable across reads: a session is
``(store key, session id)`` and a turn is ``<store key>/<session id>/<messages.id>``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Self

Role = str  # "user", "assistant", "tool", "system", "summary"

# A row read from a divert file beside a live session's rows is numbered past every ``messages.id`` (SQLite's
# rowids of a store Hermes writes stay far below it): its line plus this.
DIVERT_ROW_BASE = 1 << 40


class _Record:
    """What ``@dataclass`` would make of a model class's ``repr`` and ``==``, written once.

    The model's classes are made at every start of ``trail``; ``@dataclass`` generates and compiles their
    methods each time, about half a millisecond a class. Written out here, each class costs nothing but its
    definition, and behaves as its dataclass did: the same ``__init__`` (fields in order, defaults, a new
    list or dict for each), ``__repr__`` and ``__eq__``; mutable ones are unhashable, and
    the frozen ones (``_Frozen``) hash by their fields and refuse assignment.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    # The fields the repr leaves out (a dataclass's ``field(repr=False)``).
    _hidden: ClassVar[tuple[str, ...]] = ()

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self._fields if name not in self._hidden
        )
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Record) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass that is not frozen

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def _replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` made (what ``dataclasses.replace`` does for a dataclass).

        :raises TypeError: for a name that is not a field.
        """
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__qualname__} has no field {sorted(unknown)[0]!r}")
        values = {name: changes.get(name, getattr(self, name)) for name in self._fields}
        return type(self)(**values)  # each record's own __init__ takes its fields


class _Frozen(_Record):
    """A frozen record: hashable by its fields, no attribute assignable after ``__init__``."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> list[Any]:
        return list(self._values())

    def __setstate__(self, state: list[Any]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, name, value)


class Store(_Frozen):
    """One Hermes database.

    :param key: stable identity of the store: its resolved path (or DSN).
    :param name: a short name unique within one read (the profile, made unique when two homes share it).
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "key",
        "name",
        "path",
        "profile",
        "home",
        "schema_version",
        "kind",
    )
    __slots__ = _fields

    key: str
    name: str
    path: str
    profile: str
    home: str | None
    schema_version: int | None
    kind: str

    def __init__(
        self,
        key: str,
        name: str,
        path: str,
        profile: str,
        home: str | None,
        schema_version: int | None,
        kind: str = "sqlite",
    ) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "schema_version", schema_version)
        object.__setattr__(self, "kind", kind)


class Stray(_Record):
    """A row or line that could not be read as Hermes writes it: where it is and why. Never raised."""

    _fields: ClassVar[tuple[str, ...]] = (
        "where",
        "reason",
        "kind",
        "store",
        "session_id",
        "row",
        "table",
        "value",
    )
    __slots__ = _fields

    where: str
    reason: str
    kind: str  # "store", "directory", "session", "message"; side files: "file", "line", "record"
    store: str | None
    session_id: str | None
    row: int | None  # messages.id, or a side file's line or entry number
    table: str | None
    value: Any  # what was stored, for a side file's bad line or record (never a secret's file)

    def __init__(
        self,
        where: str,
        reason: str,
        kind: str = "message",
        store: str | None = None,
        session_id: str | None = None,
        row: int | None = None,
        table: str | None = None,
        value: Any = None,
    ) -> None:
        self.where = where
        self.reason = reason
        self.kind = kind
        self.store = store
        self.session_id = session_id
        self.row = row
        self.table = table
        self.value = value


class ToolResult(_Record):
    """A ``tool`` row's result, paired to its call the way Hermes pairs them.

    ``orphan`` is set when no call in the conversation answers to its ``tool_call_id``.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "call_id",
        "tool_name",
        "text",
        "source_row",
        "time",
        "orphan",
        "output",
        "data",
    )
    __slots__ = _fields

    call_id: str | None
    tool_name: str | None
    text: str
    source_row: int
    time: datetime | None
    orphan: bool
    output: str | None
    data: Any

    def __init__(
        self,
        call_id: str | None,
        tool_name: str | None,
        text: str,
        source_row: int,
        time: datetime | None,
        orphan: bool = False,
        output: str | None = None,
        data: Any = None,
    ) -> None:
        self.call_id = call_id
        self.tool_name = tool_name
        self.text = text
        self.source_row = source_row
        self.time = time
        self.orphan = orphan
        self.output = output
        self.data = data


class Permission(_Record):
    """How a command's approval went, as the terminal tool's result records it.

    :param outcome: ``approved`` (by the user), ``auto_approved`` (by smart approval), ``blocked`` (refused:
        by a person, smart approval, a hardline rule or policy; ``by`` says which), ``pending`` (waiting
        for an approval that may never come).
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "outcome",
        "by",
        "message",
        "description",
        "user_summary",
        "pattern_key",
        "smart_denied",
    )
    __slots__ = _fields

    outcome: str
    by: str | None
    message: str | None
    description: str | None
    user_summary: str | None
    pattern_key: str | None
    smart_denied: bool

    def __init__(
        self,
        outcome: str,
        by: str | None = None,
        message: str | None = None,
        description: str | None = None,
        user_summary: str | None = None,
        pattern_key: str | None = None,
        smart_denied: bool = False,
    ) -> None:
        self.outcome = outcome
        self.by = by
        self.message = message
        self.description = description
        self.user_summary = user_summary
        self.pattern_key = pattern_key
        self.smart_denied = smart_denied


class Command(_Record):
    """A ``terminal`` call that ran, with what came of it.

    A call whose exit code is ``-1`` never ran (denied, blocked, awaiting approval) and has no Command; its
    :class:`Permission` stays on the :class:`ToolCall`. Any other negative code is a process killed by a
    signal after it started (``signal`` names it).

    :param status: ``ok``, ``failed``, ``killed``, ``timeout``, ``background`` or ``unknown``.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "command",
        "exit_code",
        "status",
        "output",
        "error",
        "signal",
        "background",
        "workdir",
    )
    __slots__ = _fields

    command: str
    exit_code: int | None
    status: str
    output: str
    error: str | None
    signal: int | None
    background: bool
    workdir: str | None

    def __init__(
        self,
        command: str,
        exit_code: int | None,
        status: str,
        output: str,
        error: str | None = None,
        signal: int | None = None,
        background: bool = False,
        workdir: str | None = None,
    ) -> None:
        self.command = command
        self.exit_code = exit_code
        self.status = status
        self.output = output
        self.error = error
        self.signal = signal
        self.background = background
        self.workdir = workdir


class FileEdit(_Record):
    """One file a call changed.

    :param action: ``add``, ``update``, ``delete``, ``move`` (V4A patch), ``write`` (``write_file``) or
        ``replace`` (``patch`` in replace mode).
    :param applied: whether the tool reported it applied (``None`` when the result does not say).
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "path",
        "action",
        "moved_to",
        "removed",
        "added",
        "applied",
    )
    __slots__ = _fields

    path: str
    action: str
    moved_to: str | None
    removed: list[str]
    added: list[str]
    applied: bool | None

    def __init__(
        self,
        path: str,
        action: str,
        moved_to: str | None = None,
        removed: list[str] | None = None,
        added: list[str] | None = None,
        applied: bool | None = None,
    ) -> None:
        self.path = path
        self.action = action
        self.moved_to = moved_to
        self.removed = [] if removed is None else removed
        self.added = [] if added is None else added
        self.applied = applied


class ToolCall(_Record):
    """One entry of an assistant row's ``tool_calls``.

    :param id: the id Hermes pairs by (``call_id`` before ``id``, the part before ``|`` of a bridge id).
    :param aliases: every spelling that names the call (``call_id``, ``id``, ``response_item_id``, each side
        of ``a|b``).
    :param arguments: the decoded arguments object, or ``None`` when ``arguments_text`` is not a JSON object.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "id",
        "aliases",
        "name",
        "arguments_text",
        "arguments",
        "result",
        "raw",
        "command",
        "permission",
        "edits",
        "reads",
        "duration",
    )
    __slots__ = _fields

    id: str | None
    aliases: tuple[str, ...]
    name: str
    arguments_text: str
    arguments: dict[str, Any] | None
    result: ToolResult | None
    raw: dict[str, Any]
    command: Command | None
    permission: Permission | None
    edits: list[FileEdit]
    reads: list[str]
    duration: float | None

    def __init__(
        self,
        id: str | None,
        aliases: tuple[str, ...],
        name: str,
        arguments_text: str,
        arguments: dict[str, Any] | None,
        result: ToolResult | None = None,
        raw: dict[str, Any] | None = None,
        command: Command | None = None,
        permission: Permission | None = None,
        edits: list[FileEdit] | None = None,
        reads: list[str] | None = None,
        duration: float | None = None,
    ) -> None:
        self.id = id
        self.aliases = aliases
        self.name = name
        self.arguments_text = arguments_text
        self.arguments = arguments
        self.result = result
        self.raw = {} if raw is None else raw
        self.command = command
        self.permission = permission
        self.edits = [] if edits is None else edits
        self.reads = [] if reads is None else reads
        self.duration = duration


class Image(_Frozen):
    """An image part of a message, kept as stored: a ``data:`` URL (or a link, for a remote image).

    :param media_type: what the URL says it is (``image/png``); ``None`` when it does not say.
    :param size: the image's size in bytes (decoded from the URL's base64); ``None`` for a link.
    :param url: the URL itself, which holds the image when it is a ``data:`` URL.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "media_type",
        "size",
        "url",
    )
    __slots__ = _fields

    media_type: str | None
    size: int | None
    url: str

    def __init__(
        self,
        media_type: str | None,
        size: int | None,
        url: str,
    ) -> None:
        object.__setattr__(self, "media_type", media_type)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "url", url)

    @property
    def label(self) -> str:
        """The placeholder a terminal shows instead of the picture: ``[image: image/png, 12 KB]``."""
        what = self.media_type or "image"
        if not self.url.lower().startswith("data:"):
            return f"[image: {self.url}]"
        if self.size is None:
            return f"[image: {what}]"
        from hermes_trail.formatting import byte_size  # "2.4 MB" where it said "2457.6 KB"

        return f"[image: {what}, {byte_size(self.size)}]"


class Turn(_Record):
    """One message row in Hermes' order.

    Rows a reader does not replay are still kept, flagged: ``rewound`` (``active = 0`` from a rewind) and
    ``compacted`` (archived by in-place compaction). ``problems`` names cells that do not hold what
    Hermes writes (a timestamp outside its window, text that is not UTF-8), each kept as read.

    :param role: Hermes' role, except ``summary`` for a compaction summary (never a prompt).
    :param kind: why a row is not what its role suggests: ``display_kind`` (``model_switch``, notices),
        ``compaction_summary``, ``session_meta``, ``review_harness``; ``None`` for ordinary turns.
    :param copy_of: for a row an in-place compaction copied, the ``messages.id`` of the archived original
        (the content is read once: from the original).
    :param part: ``1`` for the second turn of a row that holds two (a summary merged into a message).
    :param diverted: for a row found in the session's divert file (``sessions/<id>.jsonl``) and not in its
        store, that file; ``divert_line`` is its line there, and ``source_row`` the line past
        :data:`DIVERT_ROW_BASE`, so it sorts after the store's rows and never takes a ``messages.id``.
    :param images: the image parts of its content, in order (the text holds each one's ``label``).
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "role",
        "text",
        "source_row",
        "time",
        "store",
        "session_id",
        "reasoning",
        "tool_calls",
        "result",
        "content",
        "kind",
        "finish_reason",
        "rewound",
        "compacted",
        "copy_of",
        "part",
        "problems",
        "raw",
        "diverted",
        "divert_line",
        "images",
    )
    __slots__ = _fields

    role: Role
    text: str
    source_row: int
    time: datetime | None
    store: str
    session_id: str
    reasoning: str | None
    tool_calls: list[ToolCall]
    result: ToolResult | None
    content: Any
    kind: str | None
    finish_reason: str | None
    rewound: bool
    compacted: bool
    copy_of: int | None
    part: int
    problems: list[str]
    raw: dict[str, Any]
    diverted: str | None
    divert_line: int | None
    images: list[Image]

    def __init__(
        self,
        role: Role,
        text: str,
        source_row: int,
        time: datetime | None,
        store: str,
        session_id: str,
        reasoning: str | None = None,
        tool_calls: list[ToolCall] | None = None,
        result: ToolResult | None = None,
        content: Any = None,
        kind: str | None = None,
        finish_reason: str | None = None,
        rewound: bool = False,
        compacted: bool = False,
        copy_of: int | None = None,
        part: int = 0,
        problems: list[str] | None = None,
        raw: dict[str, Any] | None = None,
        diverted: str | None = None,
        divert_line: int | None = None,
        images: list[Image] | None = None,
    ) -> None:
        self.role = role
        self.text = text
        self.source_row = source_row
        self.time = time
        self.store = store
        self.session_id = session_id
        self.reasoning = reasoning
        self.tool_calls = [] if tool_calls is None else tool_calls
        self.result = result
        self.content = content
        self.kind = kind
        self.finish_reason = finish_reason
        self.rewound = rewound
        self.compacted = compacted
        self.copy_of = copy_of
        self.part = part
        self.problems = [] if problems is None else problems
        self.raw = {} if raw is None else raw
        self.diverted = diverted
        self.divert_line = divert_line
        self.images = [] if images is None else images

    @property
    def uid(self) -> str:
        """``<store>/<session id>/<messages.id>``, and ``.<part>`` for the second part of a split row."""
        base = f"{self.store}/{self.session_id}/{self.source_row}"
        return f"{base}.{self.part}" if self.part else base

    @property
    def found_in(self) -> str | None:
        """For a diverted row, where it was found: ``sessions/<id>.jsonl line 3`` (``None`` otherwise)."""
        if self.diverted is None:
            return None
        parts = self.diverted.replace("\\", "/").rsplit("/", 2)
        return f"{'/'.join(parts[-2:])} line {self.divert_line}"

    @property
    def row_label(self) -> str:
        """How a person finds the row again: ``#<messages.id>``, or the divert file and line it is in."""
        return f"#{self.source_row}" if self.diverted is None else f"{self.found_in}"

    @property
    def typed(self) -> bool:
        """Whether a person typed this: a user turn that is no summary, marker or injected notice."""
        return self.role == "user" and self.kind is None


class Usage(_Record):
    """Token counters and cost as Hermes recorded them, by kind, kept apart.

    :param cost_usd: ``actual_cost_usd`` when positive, else ``estimated_cost_usd`` when positive, else
        ``None`` (unknown): a subscription's or an unknown route's literal zero is never a reconstructed $0.
    :param cost_kind: ``actual``, ``estimated``, ``zero`` (a known, real zero) or ``None`` when unknown.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "api_calls",
        "cost_usd",
        "cost_kind",
        "cost_status",
        "cost_source",
    )
    __slots__ = _fields

    input_tokens: int | None
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    reasoning_tokens: int | None
    api_calls: int | None
    cost_usd: float | None
    cost_kind: str | None
    cost_status: str | None
    cost_source: str | None

    def __init__(
        self,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        reasoning_tokens: int | None = None,
        api_calls: int | None = None,
        cost_usd: float | None = None,
        cost_kind: str | None = None,
        cost_status: str | None = None,
        cost_source: str | None = None,
    ) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cache_read_tokens = cache_read_tokens
        self.cache_write_tokens = cache_write_tokens
        self.reasoning_tokens = reasoning_tokens
        self.api_calls = api_calls
        self.cost_usd = cost_usd
        self.cost_kind = cost_kind
        self.cost_status = cost_status
        self.cost_source = cost_source


class ModelUsage(_Record):
    """One row of ``session_model_usage``: a model's share of a session, main loop or an auxiliary task.

    :param task: empty for the main agent loop; ``title_generation``, ``compression``, ``vision``, ... for
        auxiliary calls.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "model",
        "provider",
        "task",
        "usage",
        "first_seen",
        "last_seen",
    )
    __slots__ = _fields

    model: str
    provider: str | None
    task: str
    usage: Usage
    first_seen: datetime | None
    last_seen: datetime | None

    def __init__(
        self,
        model: str,
        provider: str | None,
        task: str,
        usage: Usage,
        first_seen: datetime | None = None,
        last_seen: datetime | None = None,
    ) -> None:
        self.model = model
        self.provider = provider
        self.task = task
        self.usage = usage
        self.first_seen = first_seen
        self.last_seen = last_seen

    @property
    def auxiliary(self) -> bool:
        return bool(self.task)


class ModelChange(_Record):
    """A mid-session model switch, from a model-switch marker row."""

    _fields: ClassVar[tuple[str, ...]] = (
        "model",
        "provider",
        "time",
        "source_row",
    )
    __slots__ = _fields

    model: str
    provider: str | None
    time: datetime | None
    source_row: int

    def __init__(
        self,
        model: str,
        provider: str | None,
        time: datetime | None,
        source_row: int,
    ) -> None:
        self.model = model
        self.provider = provider
        self.time = time
        self.source_row = source_row


class CompactionEvent(_Record):
    """One compaction: an in-place batch (``in_place``) or a continuation into a child (``continuation``).

    :param summary_row: the summary's ``messages.id``, when the summary is a row of this session.
    :param archived: how many rows the event archived.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "kind",
        "time",
        "summary_row",
        "archived",
    )
    __slots__ = _fields

    kind: str
    time: datetime | None
    summary_row: int | None
    archived: int

    def __init__(
        self,
        kind: str,
        time: datetime | None,
        summary_row: int | None = None,
        archived: int = 0,
    ) -> None:
        self.kind = kind
        self.time = time
        self.summary_row = summary_row
        self.archived = archived


class Messaging(_Record):
    """Who and where a messaging-gateway session talked to: from the row and its ``origin_json``."""

    _fields: ClassVar[tuple[str, ...]] = (
        "platform",
        "chat_id",
        "chat_name",
        "chat_type",
        "user_id",
        "user_name",
        "thread_id",
    )
    __slots__ = _fields

    platform: str
    chat_id: str | None
    chat_name: str | None
    chat_type: str | None
    user_id: str | None
    user_name: str | None
    thread_id: str | None

    def __init__(
        self,
        platform: str,
        chat_id: str | None = None,
        chat_name: str | None = None,
        chat_type: str | None = None,
        user_id: str | None = None,
        user_name: str | None = None,
        thread_id: str | None = None,
    ) -> None:
        self.platform = platform
        self.chat_id = chat_id
        self.chat_name = chat_name
        self.chat_type = chat_type
        self.user_id = user_id
        self.user_name = user_name
        self.thread_id = thread_id


class ImportOrigin(_Record):
    """A session Hermes imported from another agent's transcript (``origin_json``)."""

    _fields: ClassVar[tuple[str, ...]] = (
        "tool",
        "path",
        "original_id",
    )
    __slots__ = _fields

    tool: str
    path: str | None
    original_id: str | None

    def __init__(
        self,
        tool: str,
        path: str | None = None,
        original_id: str | None = None,
    ) -> None:
        self.tool = tool
        self.path = path
        self.original_id = original_id


class Recovery(_Record):
    """Where a session that is gone from its live ``state.db`` was found again.

    :param kind: ``snapshot`` (a ``state-snapshots/<id>/state.db`` copy) or ``divert`` (the
        ``sessions/<id>.jsonl`` lines a replaced database never received).
    :param path: the file it was read from.
    :param taken_at: the snapshot's time, from its id (UTC); ``None`` for a divert.
    :param also_in: other files that hold a copy of it (older snapshots, a divert).
    :param deleted_at: when the live store's deletion fence says it was deleted, if it kept one.
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "kind",
        "path",
        "snapshot",
        "taken_at",
        "also_in",
        "deleted_at",
        "swept",
    )
    __slots__ = _fields

    kind: str
    path: str
    snapshot: str | None
    taken_at: datetime | None
    also_in: list[str]
    deleted_at: datetime | None
    swept: bool

    def __init__(
        self,
        kind: str,
        path: str,
        snapshot: str | None = None,
        taken_at: datetime | None = None,
        also_in: list[str] | None = None,
        deleted_at: datetime | None = None,
        swept: bool = False,
    ) -> None:
        self.kind = kind
        self.path = path
        self.snapshot = snapshot
        self.taken_at = taken_at
        self.also_in = [] if also_in is None else also_in
        self.deleted_at = deleted_at
        self.swept = swept


class Session(_Record):
    """One session of one store, with its transcript once read.

    :param project: ``cwd``, else ``git_repo_root``, else ``profiles/<profile>``, else ``hermes``.
    :param turns: the transcript Hermes replays (active rows, in ``messages.id`` order); empty until the
        session's messages are read (``loaded``).
    :param hidden: rows kept but not replayed (rewound, archived by compaction, Hermes' own filtered rows).
    """

    _fields: ClassVar[tuple[str, ...]] = (
        "id",
        "store",
        "source",
        "title",
        "model",
        "cwd",
        "git_branch",
        "git_repo_root",
        "profile",
        "project",
        "started_at",
        "ended_at",
        "last_activity_at",
        "end_reason",
        "parent_id",
        "message_count",
        "usage",
        "archived",
        "pinned",
        "hidden_flag",
        "relation",
        "relation_marked",
        "kind",
        "messaging",
        "imported",
        "yolo",
        "worktree",
        "compactions",
        "compaction_events",
        "model_changes",
        "model_usage",
        "active_seconds",
        "chain",
        "children",
        "row_stats",
        "raw",
        "problems",
        "loaded",
        "turns",
        "hidden",
        "strays",
        "recovered",
    )
    __slots__ = _fields

    id: str
    store: Store
    source: str | None
    title: str | None
    model: str | None
    cwd: str | None
    git_branch: str | None
    git_repo_root: str | None
    profile: str
    project: str
    started_at: datetime | None
    ended_at: datetime | None
    last_activity_at: datetime | None
    end_reason: str | None
    parent_id: str | None
    message_count: int | None
    usage: Usage
    archived: bool
    pinned: bool
    hidden_flag: bool
    relation: str | None
    relation_marked: bool
    kind: str
    messaging: Messaging | None
    imported: ImportOrigin | None
    yolo: bool
    worktree: str | None
    compactions: int
    compaction_events: list[CompactionEvent]
    model_changes: list[ModelChange]
    model_usage: list[ModelUsage]
    active_seconds: float | None
    chain: list[str]
    children: list[tuple[str, str]]
    row_stats: tuple[int, Any, int] | None
    raw: dict[str, Any]
    problems: list[str]
    loaded: bool
    turns: list[Turn]
    hidden: list[Turn]
    strays: list[Stray]
    recovered: Recovery | None

    def __init__(
        self,
        id: str,
        store: Store,
        source: str | None,
        title: str | None,
        model: str | None,
        cwd: str | None,
        git_branch: str | None,
        git_repo_root: str | None,
        profile: str,
        project: str,
        started_at: datetime | None,
        ended_at: datetime | None,
        last_activity_at: datetime | None,
        end_reason: str | None,
        parent_id: str | None,
        message_count: int | None,
        usage: Usage | None = None,
        archived: bool = False,
        pinned: bool = False,
        hidden_flag: bool = False,
        relation: str | None = None,
        relation_marked: bool = False,
        kind: str = "interactive",
        messaging: Messaging | None = None,
        imported: ImportOrigin | None = None,
        yolo: bool = False,
        worktree: str | None = None,
        compactions: int = 0,
        compaction_events: list[CompactionEvent] | None = None,
        model_changes: list[ModelChange] | None = None,
        model_usage: list[ModelUsage] | None = None,
        active_seconds: float | None = None,
        chain: list[str] | None = None,
        children: list[tuple[str, str]] | None = None,
        row_stats: tuple[int, Any, int] | None = None,
        raw: dict[str, Any] | None = None,
        problems: list[str] | None = None,
        loaded: bool = False,
        turns: list[Turn] | None = None,
        hidden: list[Turn] | None = None,
        strays: list[Stray] | None = None,
        recovered: Recovery | None = None,
    ) -> None:
        self.id = id
        self.store = store
        self.source = source
        self.title = title
        self.model = model
        self.cwd = cwd
        self.git_branch = git_branch
        self.git_repo_root = git_repo_root
        self.profile = profile
        self.project = project
        self.started_at = started_at
        self.ended_at = ended_at
        self.last_activity_at = last_activity_at
        self.end_reason = end_reason
        self.parent_id = parent_id
        self.message_count = message_count
        self.usage = Usage() if usage is None else usage
        self.archived = archived
        self.pinned = pinned
        self.hidden_flag = hidden_flag
        self.relation = relation
        self.relation_marked = relation_marked
        self.kind = kind
        self.messaging = messaging
        self.imported = imported
        self.yolo = yolo
        self.worktree = worktree
        self.compactions = compactions
        self.compaction_events = [] if compaction_events is None else compaction_events
        self.model_changes = [] if model_changes is None else model_changes
        self.model_usage = [] if model_usage is None else model_usage
        self.active_seconds = active_seconds
        self.chain = [] if chain is None else chain
        self.children = [] if children is None else children
        self.row_stats = row_stats
        self.raw = {} if raw is None else raw
        self.problems = [] if problems is None else problems
        self.loaded = loaded
        self.turns = [] if turns is None else turns
        self.hidden = [] if hidden is None else hidden
        self.strays = [] if strays is None else strays
        self.recovered = recovered

    @property
    def key(self) -> tuple[str, str]:
        return (self.store.key, self.id)

    @property
    def ref(self) -> str:
        """How a person names this session when a bare id is ambiguous: ``<store name>:<id>``."""
        return f"{self.store.name}:{self.id}"

    @property
    def orphan_results(self) -> list[ToolResult]:
        return [t.result for t in self.turns if t.result is not None and t.result.orphan]
