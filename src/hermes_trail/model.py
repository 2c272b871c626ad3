"""The one normalized shape every use consumes: stores, sessions, turns, tool calls, strays.

Nothing here knows SQLite or how Hermes spells a column; the decode layer builds these objects and the
uses (transcripts, listings, exports, the index) read them. Identity is stable across reads: a session is
``(store key, session id)`` and a turn is ``<store key>/<session id>/<messages.id>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

Role = str  # "user", "assistant", "tool", "system", "summary"

# A row read from a divert file beside a live session's rows is numbered past every ``messages.id`` (SQLite's
# rowids of a store Hermes writes stay far below it): its line plus this.
DIVERT_ROW_BASE = 1 << 40


@dataclass(frozen=True, slots=True)
class Store:
    """One Hermes database.

    :param key: stable identity of the store: its resolved path (or DSN).
    :param name: a short name unique within one read (the profile, made unique when two homes share it).
    """

    key: str
    name: str
    path: str
    profile: str
    home: str | None
    schema_version: int | None
    kind: str = "sqlite"


@dataclass(slots=True)
class Stray:
    """A row or line that could not be read as Hermes writes it: where it is and why. Never raised."""

    where: str
    reason: str
    kind: str = "message"  # "store", "directory", "session", "message"; side files: "file", "line", "record"
    store: str | None = None
    session_id: str | None = None
    row: int | None = None  # messages.id, or a side file's line or entry number
    table: str | None = None
    value: Any = None  # what was stored, for a side file's bad line or record (never a secret's file)


@dataclass(slots=True)
class ToolResult:
    """A ``tool`` row's result, paired to its call the way Hermes pairs them.

    ``orphan`` is set when no call in the conversation answers to its ``tool_call_id``.
    """

    call_id: str | None
    tool_name: str | None
    text: str
    source_row: int
    time: datetime | None
    orphan: bool = False
    output: str | None = None
    data: Any = None


@dataclass(slots=True)
class Permission:
    """How a command's approval went, as the terminal tool's result records it.

    :param outcome: ``approved`` (by the user), ``auto_approved`` (by smart approval), ``blocked`` (refused:
        by a person, smart approval, a hardline rule or policy; ``by`` says which), ``pending`` (waiting
        for an approval that may never come).
    """

    outcome: str
    by: str | None = None
    message: str | None = None
    description: str | None = None
    user_summary: str | None = None
    pattern_key: str | None = None
    smart_denied: bool = False


@dataclass(slots=True)
class Command:
    """A ``terminal`` call that ran, with what came of it.

    A call whose exit code is ``-1`` never ran (denied, blocked, awaiting approval) and has no Command; its
    :class:`Permission` stays on the :class:`ToolCall`. Any other negative code is a process killed by a
    signal after it started (``signal`` names it).

    :param status: ``ok``, ``failed``, ``killed``, ``timeout``, ``background`` or ``unknown``.
    """

    command: str
    exit_code: int | None
    status: str
    output: str
    error: str | None = None
    signal: int | None = None
    background: bool = False
    workdir: str | None = None


@dataclass(slots=True)
class FileEdit:
    """One file a call changed.

    :param action: ``add``, ``update``, ``delete``, ``move`` (V4A patch), ``write`` (``write_file``) or
        ``replace`` (``patch`` in replace mode).
    :param applied: whether the tool reported it applied (``None`` when the result does not say).
    """

    path: str
    action: str
    moved_to: str | None = None
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    applied: bool | None = None


@dataclass(slots=True)
class ToolCall:
    """One entry of an assistant row's ``tool_calls``.

    :param id: the id Hermes pairs by (``call_id`` before ``id``, the part before ``|`` of a bridge id).
    :param aliases: every spelling that names the call (``call_id``, ``id``, ``response_item_id``, each side
        of ``a|b``).
    :param arguments: the decoded arguments object, or ``None`` when ``arguments_text`` is not a JSON object.
    """

    id: str | None
    aliases: tuple[str, ...]
    name: str
    arguments_text: str
    arguments: dict[str, Any] | None
    result: ToolResult | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    command: Command | None = None
    permission: Permission | None = None
    edits: list[FileEdit] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    duration: float | None = None


@dataclass(frozen=True, slots=True)
class Image:
    """An image part of a message, kept as stored: a ``data:`` URL (or a link, for a remote image).

    :param media_type: what the URL says it is (``image/png``); ``None`` when it does not say.
    :param size: the image's size in bytes (decoded from the URL's base64); ``None`` for a link.
    :param url: the URL itself, which holds the image when it is a ``data:`` URL.
    """

    media_type: str | None
    size: int | None
    url: str

    @property
    def label(self) -> str:
        """The placeholder a terminal shows instead of the picture: ``[image: image/png, 12.3 KB]``."""
        what = self.media_type or "image"
        if not self.url.lower().startswith("data:"):
            return f"[image: {self.url}]"
        if self.size is None:
            return f"[image: {what}]"
        size = f"{self.size} bytes" if self.size < 1024 else f"{self.size / 1024:.1f} KB"
        return f"[image: {what}, {size}]"


@dataclass(slots=True)
class Turn:
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

    role: Role
    text: str
    source_row: int
    time: datetime | None
    store: str
    session_id: str
    reasoning: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    result: ToolResult | None = None
    content: Any = None
    kind: str | None = None
    finish_reason: str | None = None
    rewound: bool = False
    compacted: bool = False
    copy_of: int | None = None
    part: int = 0
    problems: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    diverted: str | None = None
    divert_line: int | None = None
    images: list[Image] = field(default_factory=list)

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


@dataclass(slots=True)
class Usage:
    """Token counters and cost as Hermes recorded them, by kind, kept apart.

    :param cost_usd: ``actual_cost_usd`` when positive, else ``estimated_cost_usd`` when positive, else
        ``None`` (unknown): a subscription's or an unknown route's literal zero is never a reconstructed $0.
    :param cost_kind: ``actual``, ``estimated``, ``zero`` (a known, real zero) or ``None`` when unknown.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    api_calls: int | None = None
    cost_usd: float | None = None
    cost_kind: str | None = None
    cost_status: str | None = None
    cost_source: str | None = None


@dataclass(slots=True)
class ModelUsage:
    """One row of ``session_model_usage``: a model's share of a session, main loop or an auxiliary task.

    :param task: empty for the main agent loop; ``title_generation``, ``compression``, ``vision``, ... for
        auxiliary calls.
    """

    model: str
    provider: str | None
    task: str
    usage: Usage
    first_seen: datetime | None = None
    last_seen: datetime | None = None

    @property
    def auxiliary(self) -> bool:
        return bool(self.task)


@dataclass(slots=True)
class ModelChange:
    """A mid-session model switch, from a model-switch marker row."""

    model: str
    provider: str | None
    time: datetime | None
    source_row: int


@dataclass(slots=True)
class CompactionEvent:
    """One compaction: an in-place batch (``in_place``) or a continuation into a child (``continuation``).

    :param summary_row: the summary's ``messages.id``, when the summary is a row of this session.
    :param archived: how many rows the event archived.
    """

    kind: str
    time: datetime | None
    summary_row: int | None = None
    archived: int = 0


@dataclass(slots=True)
class Messaging:
    """Who and where a messaging-gateway session talked to: from the row and its ``origin_json``."""

    platform: str
    chat_id: str | None = None
    chat_name: str | None = None
    chat_type: str | None = None
    user_id: str | None = None
    user_name: str | None = None
    thread_id: str | None = None


@dataclass(slots=True)
class ImportOrigin:
    """A session Hermes imported from another agent's transcript (``origin_json``)."""

    tool: str
    path: str | None = None
    original_id: str | None = None


@dataclass(slots=True)
class Recovery:
    """Where a session that is gone from its live ``state.db`` was found again.

    :param kind: ``snapshot`` (a ``state-snapshots/<id>/state.db`` copy) or ``divert`` (the
        ``sessions/<id>.jsonl`` lines a replaced database never received).
    :param path: the file it was read from.
    :param taken_at: the snapshot's time, from its id (UTC); ``None`` for a divert.
    :param also_in: other files that hold a copy of it (older snapshots, a divert).
    :param deleted_at: when the live store's deletion fence says it was deleted, if it kept one.
    """

    kind: str
    path: str
    snapshot: str | None = None
    taken_at: datetime | None = None
    also_in: list[str] = field(default_factory=list)
    deleted_at: datetime | None = None
    swept: bool = False


@dataclass(slots=True)
class Session:
    """One session of one store, with its transcript once read.

    :param project: ``cwd``, else ``git_repo_root``, else ``profiles/<profile>``, else ``hermes``.
    :param turns: the transcript Hermes replays (active rows, in ``messages.id`` order); empty until the
        session's messages are read (``loaded``).
    :param hidden: rows kept but not replayed (rewound, archived by compaction, Hermes' own filtered rows).
    """

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
    usage: Usage = field(default_factory=Usage)
    archived: bool = False
    pinned: bool = False
    hidden_flag: bool = False
    relation: str | None = None
    relation_marked: bool = False
    kind: str = "interactive"
    messaging: Messaging | None = None
    imported: ImportOrigin | None = None
    yolo: bool = False
    worktree: str | None = None
    compactions: int = 0
    compaction_events: list[CompactionEvent] = field(default_factory=list)
    model_changes: list[ModelChange] = field(default_factory=list)
    model_usage: list[ModelUsage] = field(default_factory=list)
    active_seconds: float | None = None
    chain: list[str] = field(default_factory=list)
    children: list[tuple[str, str]] = field(default_factory=list)
    row_stats: tuple[int, Any, int] | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    loaded: bool = False
    turns: list[Turn] = field(default_factory=list)
    hidden: list[Turn] = field(default_factory=list)
    strays: list[Stray] = field(default_factory=list)
    recovered: Recovery | None = None

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
