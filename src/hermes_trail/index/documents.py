"""What of a session the index holds: the model's turns, commands, edits and tool outputs, never raw rows.

Each :class:`Doc` is one searchable thing a person or an agent would look for. A compaction copy is not
indexed (its archived original is, once); rewound rows are indexed but flagged, so search leaves them out
unless asked; rows Hermes keeps only for bookkeeping (``session_meta``, the review harness) are not indexed.
Text is redacted before it is stored, so neither search nor recall can show a secret.

What hermes-trail itself put into a turn is not indexed (:mod:`hermes_trail.frames`): its recall and fix
frames are cut out of every text, and the output of its own tools and of the ``trail`` reading commands
run in a terminal is left out (the call itself is kept), so a recall never finds an earlier recall.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from hermes_trail.frames import is_own_tool, is_reading_command, strip_injected
from hermes_trail.hermes.decode.tools import call_subject
from hermes_trail.index.cjk import index_text, spaced
from hermes_trail.model import Session, ToolCall, Turn, _Record
from hermes_trail.redact import redact

# A tool output can be megabytes; what matters for finding it is at its start (and an error at its end).
MAX_TEXT = 16_000
_TAIL = 2_000
_SKIPPED_KINDS = frozenset({"session_meta", "review_harness"})


class Doc(_Record):
    """One row of the index's ``docs`` table. (A record written out, not ``@dataclass``: this module is
    imported by every sync that finds a session changed, and ``dataclasses`` with ``inspect`` cost it about
    4.5 ms, a search after one new prompt the most of any.)"""

    _fields: ClassVar[tuple[str, ...]] = (
        "row",
        "part",
        "role",
        "kind",
        "text",
        "time",
        "tool",
        "exit_code",
        "path",
        "moved_to",
        "command",
        "rewound",
        "archived",
        "key",
        "action",
        "added",
        "removed",
        "applied",
    )
    __slots__ = _fields

    row: int
    part: int
    role: str
    kind: str
    text: str
    time: float | None
    tool: str | None
    exit_code: int | None
    path: str | None
    moved_to: str | None
    command: str | None
    rewound: bool
    archived: bool
    key: str | None
    action: str | None
    added: int | None
    removed: int | None
    applied: bool | None

    def __init__(
        self,
        row: int,
        part: int,
        role: str,
        kind: str,
        text: str,
        time: float | None = None,
        tool: str | None = None,
        exit_code: int | None = None,
        path: str | None = None,
        moved_to: str | None = None,
        command: str | None = None,
        rewound: bool = False,
        archived: bool = False,
        key: str | None = None,
        action: str | None = None,
        added: int | None = None,
        removed: int | None = None,
        applied: bool | None = None,
    ) -> None:
        self.row = row
        self.part = part
        self.role = role
        self.kind = kind
        self.text = text
        self.time = time
        self.tool = tool
        self.exit_code = exit_code
        self.path = path
        self.moved_to = moved_to
        self.command = command
        self.rewound = rewound
        self.archived = archived
        self.key = key
        self.action = action
        self.added = added
        self.removed = removed
        self.applied = applied

    @property
    def words(self) -> str | None:
        """:func:`words_of` the text."""
        return words_of(self.text)

    @property
    def cjk(self) -> str | None:
        """Bigrams of the text's CJK runs (already redacted text), for the CJK index."""
        return index_text(self.text)


def words_of(text: str) -> str | None:
    """``text`` as the word index reads it, when that is not the text itself (:func:`spaced`: a run of
    Chinese, Japanese or Korean with words of another script inside it, full-width letters, letters such as
    Turkish ı)."""
    words = spaced(text)
    return None if words == text else words


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return text[: MAX_TEXT - _TAIL] + "\n…\n" + text[-_TAIL:]


def _key_of(*exact: str | None) -> str | None:
    """What the trigram index gets: the exact strings a word index splits (paths, commands, file names)."""
    parts = [e for e in exact if e]
    return redact("\n".join(parts)) if parts else None


def _turn_kind(turn: Turn) -> str | None:
    if turn.role == "summary":
        return "summary"
    if turn.role == "user":
        return "prompt" if turn.kind is None else "notice"
    if turn.role == "assistant":
        return "reply"
    if turn.role == "system":
        return "system"
    return None


def _call_docs(call: ToolCall, turn: Turn, base: Doc) -> Iterator[Doc]:
    time = base.time
    if call.command is not None:
        cmd = call.command
        output, error = strip_injected(cmd.output), strip_injected(cmd.error or "")
        if is_reading_command(cmd.command):
            output, error = "", ""
        body = "\n".join(p for p in (cmd.command, output, error) if p)
        yield Doc(
            turn.source_row,
            turn.part,
            "tool",
            "command",
            redact(_clip(body)),
            time,
            "terminal",
            cmd.exit_code,
            None,
            None,
            redact(cmd.command),
            base.rewound,
            base.archived,
            _key_of(cmd.command),
        )
        return
    if call.permission is not None and call.name == "terminal":
        command = str((call.arguments or {}).get("command") or call.arguments_text)
        reason = call.permission.message or call.permission.outcome
        yield Doc(
            turn.source_row,
            turn.part,
            "tool",
            "blocked",
            redact(f"{command}\n{reason}"),
            time,
            "terminal",
            -1,
            None,
            None,
            redact(command),
            base.rewound,
            base.archived,
            _key_of(command),
        )
        return
    for edit in call.edits:
        body = "\n".join([edit.path, edit.moved_to or "", *edit.removed, *edit.added]).strip()
        yield Doc(
            turn.source_row,
            turn.part,
            "tool",
            "edit",
            redact(_clip(body)),
            time,
            call.name,
            None,
            edit.path,
            edit.moved_to,
            None,
            base.rewound,
            base.archived,
            _key_of(edit.path, edit.moved_to),
            edit.action,
            len(edit.added),
            len(edit.removed),
            edit.applied,
        )
    if call.edits:
        return
    # A call of hermes-trail's own tools keeps its name only: its arguments are a question asked of the index
    # (indexed, the calling session's call in flight would be the best match of the recall it makes) and
    # its answer is history already.
    subject = "" if is_own_tool(call.name) else call_subject(call) or ""
    output = ""
    if call.result is not None and not is_own_tool(call.name):
        output = strip_injected(call.result.output if call.result.output is not None else call.result.text)
    body = "\n".join(p for p in (call.name, subject, output) if p)
    path = subject if call.reads or call.name == "read_file" else None
    yield Doc(
        turn.source_row,
        turn.part,
        "tool",
        "tool",
        redact(_clip(body)),
        time,
        call.name,
        None,
        path,
        None,
        None,
        base.rewound,
        base.archived,
        _key_of(subject),
    )


def session_docs(session: Session) -> list[Doc]:
    """Every doc of a loaded session, in row order."""
    docs: list[Doc] = []
    turns = sorted([*session.turns, *session.hidden], key=lambda t: (t.source_row, t.part))
    for turn in turns:
        if turn.copy_of is not None or turn.kind in _SKIPPED_KINDS:
            continue
        time = turn.time.timestamp() if turn.time else None
        base = Doc(
            turn.source_row, turn.part, turn.role, "", "", time, rewound=turn.rewound, archived=turn.compacted
        )
        kind = _turn_kind(turn)
        own_text = strip_injected(turn.text)
        if kind is not None and own_text.strip():
            text = _clip(own_text)
            docs.append(
                Doc(
                    turn.source_row,
                    turn.part,
                    turn.role,
                    kind,
                    redact(text),
                    time,
                    rewound=turn.rewound,
                    archived=turn.compacted,
                )
            )
        for call in turn.tool_calls:
            docs.extend(_call_docs(call, turn, base))
        if turn.result is not None and turn.result.orphan and not is_own_tool(turn.result.tool_name):
            text = _clip(strip_injected(turn.result.output if turn.result.output is not None else turn.text))
            docs.append(
                Doc(
                    turn.source_row,
                    turn.part,
                    "tool",
                    "tool",
                    redact(text),
                    time,
                    turn.result.tool_name,
                    rewound=turn.rewound,
                    archived=turn.compacted,
                )
            )
    return docs
