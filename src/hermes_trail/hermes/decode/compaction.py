"""Compaction: summaries, the rows an in-place compaction archived, and the copies it wrote.

Follows Hermes' in-place compaction (``compression.in_place``; ``agent/conversation_compression.py``
hands ``ContextCompressor.compress`` output to ``SessionDB.archive_and_compact``):

* ``archive_and_compact`` (``hermes_state.py`` in 0.19.0) flips every live row to ``active = 0,
  compacted = 1`` and inserts the compressor's list as one batch of live rows: the kept head, the
  summary, the kept tail. ``_insert_message_rows`` stamps the batch from one ``time.time()``, a
  microsecond further for each row, unless a message dict carries its own ``timestamp`` (a resumed
  conversation's do), so a copy carries either the batch's time (the summary's, give or take those
  microseconds) or its original's.
* Schema 31 (``hermes_state_messages.py`` of the 0.22 fork: ``archive_and_compact``,
  ``_archive_named_rows``, ``_carry_parent_timestamps``) gives the originals of the carried tail, and of
  rows cloned after the batch, the rewind flags ``active = 0, compacted = 0`` ("superseded duplicates", so
  search does not return them twice), keeps each copy's original timestamp, and keeps its
  ``message_uid``: minted once per logical message and written by every later insert of it
  (``agent/message_metadata.py`` ``stamp_message_uid``). Such a row was not taken back by the user, so it
  is flagged ``compacted``, not ``rewound``: it is a superseded row when a later row of the session has
  its ``message_uid``.
* The summary (``agent/context_compressor.py``): ``SUMMARY_PREFIX`` (``[CONTEXT COMPACTION …``, and the
  older prefixes kept in ``_HISTORICAL_SUMMARY_PREFIXES``), the older ``LEGACY_SUMMARY_PREFIX``
  ``[CONTEXT SUMMARY]:``, ended by ``_SUMMARY_END_MARKER``. When no standalone role alternates, Hermes
  merges it into the first tail message (``_merge_summary_into_tail``; ``_merge_summary_into_tail_row``
  in the fork): ``[PRIOR CONTEXT …]`` + the message's text + ``[END OF PRIOR CONTEXT …]`` + summary + end
  marker, or summary + end marker + the message's text; ``_compressed_summary = 1`` marks the row. The
  message's part is what ``_strip_context_summary_handoff_message`` unwraps: the text before the
  delimiter, or after the end marker.
* The compressor's stubs: ``_prune_old_tool_results`` replaces old tool output with
  ``_PRUNED_TOOL_PLACEHOLDER``, ``[Duplicate tool output …]``, a one-line ``_summarize_tool_result``
  (``[<tool name>] …``) or ``[screenshot removed …]``; ``_sanitize_tool_pairs`` leaves ``(tool call
  removed)``; ``_strip_historical_media`` leaves ``[Attached image — stripped after compression]`` where an
  image was; the system prompt gets a ``[Note: Some earlier conversation turns have been compacted …]``.

The rule. Every summary row becomes a ``summary`` turn (``kind = "compaction_summary"``), never a
prompt. A carrier (a summary merged into a message) is split into two turns with the same
``source_row``: the summary (part 0), then the message's own text under the row's role (part 1), with
the row's tool calls and result. ``session.turns`` then has one entry more per carrier than Hermes'
``get_messages_as_conversation``, and otherwise the same rows in the same order. Each summary anchors
one batch: head rows just before it that repeat the start of what was archived, and tail rows just after
it (the carrier's message first) that repeat its end, each carrying the batch's time, its original's, or
its original's ``message_uid``, get ``copy_of`` = the original's ``messages.id`` (followed to the first
original when the original is itself a copy) and are read once, from the original. A tool result that
is neither the archived one nor a stub is not a copy, and neither is the same request made later (its
own time, its own uid). What a compaction archived runs from the start of the previous batch (the
session's first row) to the start of its own; a second compaction's archive of the first batch is read
once too, its copies being marked in ``hidden`` as well. A store without the ``compacted`` column (older
Hermes, which never compacted in place) falls back to the markers: the inactive rows a batch's summary
anchors are taken as archived. ``session.compactions`` counts compaction events, the boundaries between
archived runs, one per batch, not rows; a summary that anchors no archive counts only in a session with
no parent (a child's summary is the continuation's handoff, which ``relations`` counts), and archived
rows no summary anchors count one event per run.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from datetime import datetime
from typing import ClassVar

from hermes_trail.hermes.decode.content import IMAGE_LABEL
from hermes_trail.hermes.decode.values import flag
from hermes_trail.model import CompactionEvent, Session, Turn, _Frozen, _Record

ROLE_SUMMARY = "summary"
KIND_SUMMARY = "compaction_summary"
KIND_IN_PLACE = "in_place"
SUMMARY_PREFIXES = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")
# _MERGED_PRIOR_CONTEXT_HEADER and _MERGED_SUMMARY_DELIMITER, matched up to their bracket so a reworded
# tail of either still reads.
_PRIOR_HEADER = re.compile(r"\[PRIOR CONTEXT\b[^\]\n]*\]")
_PRIOR_DELIMITER = re.compile(r"\[END OF PRIOR CONTEXT\b[^\]\n]*\]")
_END_MARKER = re.compile(r"--- END OF CONTEXT SUMMARY\b[^\n]*?---")
_SYSTEM_NOTE = re.compile(r"\s*\[Note: Some earlier conversation turns have been compacted[^\]]*\]")
_IMAGE_PLACEHOLDERS = (
    "[Attached image — stripped after compression]",
    "[screenshot removed to save context]",
)
_TOOL_STUB_PREFIXES = (
    "[Old tool output cleared to save context space]",
    "[Duplicate tool output",
    "[screenshot removed",
)
_CALL_REMOVED = "(tool call removed)"
# ``_summarize_tool_result`` is one line shorter than the output it replaces (only output over 200
# characters is pruned); a longer line is the tool's own output.
_ONE_LINE_STUB_MAX = 400
# ``_insert_message_rows`` stamps a batch's rows that carry no time of their own one microsecond apart
# (``now_ts = max(now_ts, row time) + 1e-6``); a step is 1e-6 give or take a float's rounding at today's
# epoch, so a row ``n`` rows from the summary is at most ``(n + 1) * 2e-6`` seconds from it.
_STAMP_STEP = 2e-6
_FILTERED_KINDS = ("session_meta", "review_harness")
_ROLE_SESSION_META = "session_meta"


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Handoff(_Frozen):
    """A summary row read apart: the summary, and the text of the message it was merged into.

    :param merged: the summary shares its row with a message of the kept tail (either merged form).
    """

    _fields: ClassVar[tuple[str, ...]] = ("summary", "message", "merged")
    __slots__ = _fields
    summary: str
    message: str
    merged: bool

    def __init__(self, summary: str, message: str, merged: bool) -> None:
        object.__setattr__(self, "summary", summary)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "merged", merged)


def parse_handoff(text: str, flagged: bool = False) -> Handoff | None:
    """The summary a row holds, or ``None``; ``flagged`` is the row's ``_compressed_summary``."""
    body = text.strip()
    if not flagged and not body.startswith(("[PRIOR CONTEXT", *SUMMARY_PREFIXES)):
        return None
    own_before = ""
    header = _PRIOR_HEADER.match(body)
    delimiter = _PRIOR_DELIMITER.search(body)
    merged = False
    if delimiter is not None and (header is not None or flagged):
        own_before = body[header.end() if header else 0 : delimiter.start()].strip()
        rest = body[delimiter.end() :].strip()
        merged = True
    elif body.startswith(SUMMARY_PREFIXES):
        rest = body
    elif flagged:
        found = [i for i in (body.find(p) for p in SUMMARY_PREFIXES) if i >= 0]
        start = min(found) if found else 0
        own_before, rest = body[:start].strip(), body[start:]
        merged = bool(own_before)
    else:
        return None
    end = _END_MARKER.search(rest)
    summary, after = (rest[: end.end()].strip(), rest[end.end() :].strip()) if end else (rest, "")
    message = "\n\n".join(part for part in (own_before, after) if part)
    return Handoff(summary=summary, message=message, merged=merged or bool(after))


def is_tool_stub(text: str, tool_name: str | None) -> bool:
    """Whether a tool row's text is what the compressor left in place of the tool's output."""
    value = text.strip()
    if value.startswith(_TOOL_STUB_PREFIXES):
        return True
    if "\n" in value or len(value) > _ONE_LINE_STUB_MAX:
        return False
    return any(value.startswith(f"[{name}]") for name in (tool_name, "unknown") if name)


def drop_image_placeholders(text: str) -> str:
    """Text without the placeholders compaction leaves where it stripped an image: they are not text."""
    if not any(p in text for p in _IMAGE_PLACEHOLDERS):
        return text
    kept = "\n".join(line for line in text.split("\n") if line.strip() not in _IMAGE_PLACEHOLDERS)
    for placeholder in _IMAGE_PLACEHOLDERS:
        kept = kept.replace(placeholder, "")
    return kept.strip()


class _Row(_Record):
    """One row as the matching sees it; ``key`` is its comparable text."""

    _fields: ClassVar[tuple[str, ...]] = (
        "turn",
        "index",
        "role",
        "key",
        "tool_call_id",
        "calls",
        "timestamp",
        "uid",
        "stub",
        "live",
        "archivable",
        "handoff",
        "own",
        "original",
    )
    __slots__ = _fields
    turn: Turn
    index: int
    role: str
    key: str
    tool_call_id: str | None
    calls: frozenset[str]
    timestamp: float | None
    uid: str | None
    stub: bool
    live: bool
    archivable: bool
    handoff: Handoff | None
    own: _Row | None  # a carrier's message part, the first tail row of its batch
    original: _Row | None  # the archived row this one copies

    def __init__(
        self,
        turn: Turn,
        index: int,
        role: str,
        key: str,
        tool_call_id: str | None,
        calls: frozenset[str],
        timestamp: float | None,
        uid: str | None,
        stub: bool,
        live: bool,
        archivable: bool,
        handoff: Handoff | None = None,
        own: _Row | None = None,
        original: _Row | None = None,
    ) -> None:
        self.turn = turn
        self.index = index
        self.role = role
        self.key = key
        self.tool_call_id = tool_call_id
        self.calls = calls
        self.timestamp = timestamp
        self.uid = uid
        self.stub = stub
        self.live = live
        self.archivable = archivable
        self.handoff = handoff
        self.own = own
        self.original = original


def _untouched(session: Session) -> bool:
    """Whether a session can hold nothing of compaction's: no row kept aside and no summary-like row."""
    if session.hidden:
        return False
    prefixes = ("[PRIOR CONTEXT", *SUMMARY_PREFIXES)
    return not any(
        t.text.lstrip().startswith(prefixes) or flag(t.raw, "_compressed_summary") for t in session.turns
    )


def apply(session: Session, has_compacted_column: bool) -> None:
    """Mark summaries and compaction copies, flag what compactions archived, and count the events."""
    if _untouched(session):  # most sessions: nothing to read twice, nothing to mark
        return
    rows = _rows(session, has_compacted_column)
    touched = any(r.handoff is not None or r.turn.compacted for r in rows)
    events: list[tuple[int, CompactionEvent]] = []
    assigned: set[int] = set()
    region = 0
    summary_uids: set[str] = set()
    summary_keys: set[str] = set()
    for s, row in enumerate(rows):
        if row.handoff is None:
            continue
        copied = (row.uid is not None and row.uid in summary_uids) or row.key in summary_keys
        if row.uid is not None:
            summary_uids.add(row.uid)
        summary_keys.add(row.key)
        if copied:  # a summary carried in a later batch's head anchors nothing
            continue
        archivable = [i for i in range(region, s) if rows[i].archivable]
        batch = _batch(rows, archivable, s)
        if batch is None:
            # Nothing archived to stand for: Hermes rewrote the transcript in place (or the store does
            # not say), so the marker is the event; in a child it is the continuation's handoff.
            if session.parent_id is None and not archivable:
                events.append((s, _event(row, [], [])))
            continue
        start, pairs, archive = batch
        for copy, original in pairs:
            copy.turn.copy_of = original.turn.copy_of or original.turn.source_row
            copy.original = original
        for index in archive:
            rows[index].turn.compacted, rows[index].turn.rewound = True, False
            assigned.add(index)
        events.append((s, _event(row, [c for c, _ in pairs], [rows[i] for i in archive])))
        region = start
    for run in _unassigned_runs(rows, assigned):
        events.append((run[0], _event(None, [], [rows[i] for i in run])))
    for row in rows:
        _clean_text(row, touched)
    for row in rows:
        if row.handoff is not None:
            _mark_summary(session, row)
    events.sort(key=lambda e: e[0])
    kept = [e for e in session.compaction_events if e.kind != KIND_IN_PLACE]
    session.compaction_events = kept + [e for _, e in events]
    session.compactions = len(session.compaction_events)


def _rows(session: Session, has_compacted_column: bool) -> list[_Row]:
    """Every conversation row, live and kept aside, in ``messages.id`` order."""
    live = {id(t) for t in session.turns}
    turns = sorted(
        (
            t
            for t in [*session.turns, *session.hidden]
            if id(t) in live or (t.kind not in _FILTERED_KINDS and t.role != _ROLE_SESSION_META)
        ),
        key=lambda t: t.source_row,
    )
    rows = [_row(t, i, id(t) in live) for i, t in enumerate(turns)]
    later_uids: set[str] = set()
    for row in reversed(rows):
        if row.live:
            row.archivable = False
        elif not has_compacted_column:
            row.archivable = True  # no flag tells a rewind from an archive: the markers decide
        else:
            superseded = row.uid is not None and row.uid in later_uids
            if superseded:  # schema 31's flags for a carried row's original: archived, not rewound
                row.turn.compacted, row.turn.rewound = True, False
            row.archivable = row.turn.compacted
        if row.uid is not None:
            later_uids.add(row.uid)
    return rows


def _row(turn: Turn, index: int, live: bool) -> _Row:
    raw = turn.raw
    role = turn.role
    handoff = parse_handoff(turn.text, flag(raw, "_compressed_summary"))
    stamp = raw.get("timestamp")
    timestamp = float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else None
    uid = raw.get("message_uid")
    tool_call_id = raw.get("tool_call_id")
    row = _Row(
        turn=turn,
        index=index,
        role=role,
        key=_comparable(turn.text, role),
        tool_call_id=tool_call_id if isinstance(tool_call_id, str) and tool_call_id else None,
        calls=frozenset(c.id for c in turn.tool_calls if c.id),
        timestamp=timestamp,
        uid=uid if isinstance(uid, str) and uid else None,
        stub=role == "tool" and is_tool_stub(turn.text, _tool_name(turn)),
        live=live,
        archivable=False,
        handoff=handoff,
    )
    if handoff is not None:
        row.key = _comparable(handoff.summary, role) + "\x00" + _comparable(handoff.message, role)
        if handoff.merged:
            row.own = _Row(
                turn=turn,
                index=index,
                role=role,
                key=_comparable(handoff.message, role),
                tool_call_id=row.tool_call_id,
                calls=row.calls,
                timestamp=timestamp,
                uid=row.uid,
                stub=role == "tool" and is_tool_stub(handoff.message, _tool_name(turn)),
                live=live,
                archivable=False,
            )
    return row


def _tool_name(turn: Turn) -> str | None:
    return turn.result.tool_name if turn.result is not None else None


def _comparable(text: str, role: str) -> str:
    """Text as a copy and its original share it: stubs, image placeholders and spacing aside."""
    value = IMAGE_LABEL.sub("", drop_image_placeholders(text))
    if role == "system":
        value = _SYSTEM_NOTE.sub("", value)
    if role == "assistant" and value.strip() == _CALL_REMOVED:
        value = ""
    return " ".join(value.split())


def _same_message(copy: _Row, original: _Row, summary: _Row) -> bool:
    """Whether ``copy``, in the batch of ``summary``, is a compaction's copy of ``original``.

    The same ``message_uid`` is the same message, and two different ones are two messages (schema 31).
    Without uids: the same role and call, the same text (or a stub for a tool's output), a subset of the
    original's calls (``_sanitize_tool_pairs`` strips orphans), and the batch's time or the original's.
    """
    if copy.uid is not None and original.uid is not None:
        return copy.uid == original.uid
    if copy.role != original.role or copy.tool_call_id != original.tool_call_id:
        return False
    if copy.timestamp is None or not (copy.timestamp == original.timestamp or _batch_time(copy, summary)):
        return False
    if not copy.calls <= original.calls:
        return False
    return copy.key == original.key or (copy.role == "tool" and copy.stub)


def _batch_time(row: _Row, summary: _Row) -> bool:
    """Whether ``row`` carries the time of the batch ``summary`` was written in."""
    if row.timestamp is None or summary.timestamp is None:
        return False
    return abs(row.timestamp - summary.timestamp) <= (abs(row.index - summary.index) + 1) * _STAMP_STEP


def _batch(
    rows: list[_Row], archivable: list[int], s: int
) -> tuple[int, list[tuple[_Row, _Row]], list[int]] | None:
    """The batch the summary at ``s`` anchors: ``(first row, (copy, original) pairs, archived rows)``.

    ``archivable`` are the rows since the previous batch a compaction may have archived. The head is
    aligned on its first row repeating the first of them, the tail on its last row repeating the last;
    where several alignments do, the one with the most copies wins. ``None`` when the summary anchors
    no archive: it has no copy and is not live after archived rows (a live summary follows everything
    its compaction archived, since every row live then was archived).
    """
    summary = rows[s]
    head: list[tuple[_Row, _Row]] = []
    start = s
    if archivable:
        first = rows[archivable[0]]
        for b in range(archivable[0] + 1, s):
            archive = archivable[: bisect.bisect_left(archivable, b)]
            if len(archive) < s - b or not _same_message(rows[b], first, summary):
                continue
            pairs = [(rows[b + i], rows[archive[i]]) for i in range(s - b)]
            pairs = [(c, o) for c, o in pairs if _same_message(c, o, summary)]
            if pairs and len(pairs) >= len(head):  # a tie goes to the shorter head, more of it copied
                head, start = pairs, b
    archive = archivable[: bisect.bisect_left(archivable, start)]
    tail = _tail(rows, s, archive)
    pairs = head + tail
    if not archive or not (pairs or summary.live):
        return None
    return start, pairs, archive


def _tail(rows: list[_Row], s: int, archive: list[int]) -> list[tuple[_Row, _Row]]:
    """The tail's copies: rows after the summary (its carried message first) repeating the archive's end."""
    if not archive:
        return []
    summary, last = rows[s], rows[archive[-1]]
    own = summary.own
    # The tail ends before the next summary: the next batch, and its head, come after it.
    stop = next((i for i in range(s + 1, len(rows)) if rows[i].handoff is not None), len(rows))
    ends = [s] if own is not None else []
    ends += [e for e in range(s + 1, stop) if _same_message(rows[e], last, summary)]
    best: list[tuple[_Row, _Row]] = []
    for e in ends:
        sequence = ([own] if own is not None else []) + rows[s + 1 : e + 1]
        if len(sequence) > len(archive):
            continue
        originals = [rows[i] for i in archive[len(archive) - len(sequence) :]]
        pairs = [(c, o) for c, o in zip(sequence, originals, strict=True) if _same_message(c, o, summary)]
        if len(pairs) > len(best):
            best = pairs
    return best


def _unassigned_runs(rows: list[_Row], assigned: set[int]) -> Iterable[list[int]]:
    """Runs of rows flagged ``compacted`` that no summary anchors: each is one compaction event."""
    run: list[int] = []
    for index, row in enumerate(rows):
        if row.turn.compacted and index not in assigned:
            run.append(index)
            continue
        if run:
            yield run
            run = []
    if run:
        yield run


def _event(summary: _Row | None, copies: list[_Row], archive: list[_Row]) -> CompactionEvent:
    """One in-place event, at the latest time among its summary, copies and archive.

    The batch's own time is the summary's, except where every row keeps its original's (schema 31,
    carrier): then the latest of them bounds the compaction from below.
    """
    involved = [*([summary] if summary else []), *copies, *archive]
    times: list[datetime] = [r.turn.time for r in involved if r.turn.time is not None]
    return CompactionEvent(
        kind=KIND_IN_PLACE,
        time=max(times) if times else None,
        summary_row=summary.turn.source_row if summary else None,
        archived=len(archive),
    )


def _clean_text(row: _Row, compacted_session: bool) -> None:
    """Drop what the compressor wrote that is not the conversation's text (only where it compacted)."""
    turn = row.turn
    if not compacted_session:
        return
    text = drop_image_placeholders(turn.text)
    tool_stub = turn.role == "tool" and row.handoff is None and row.stub
    call_removed = turn.role == "assistant" and not turn.tool_calls and text.strip() == _CALL_REMOVED
    if tool_stub or call_removed:
        text = ""
    elif turn.role == "system":
        text = _SYSTEM_NOTE.sub("", text)
    if text != turn.text:
        turn.text = text
        if turn.result is not None:
            turn.result.text = text


def _mark_summary(session: Session, row: _Row) -> None:
    """Make the row a summary turn, or, for a carrier, a summary turn followed by its message."""
    turn = row.turn
    handoff = row.handoff
    assert handoff is not None
    message = drop_image_placeholders(handoff.message)
    if row.own is not None and row.own.stub:
        message = ""
    if not (message or turn.tool_calls or turn.role == "tool"):
        turn.role, turn.kind, turn.text = ROLE_SUMMARY, KIND_SUMMARY, handoff.summary
        turn.result = None
        return
    summary = Turn(
        role=ROLE_SUMMARY,
        text=handoff.summary,
        source_row=turn.source_row,
        time=turn.time,
        store=turn.store,
        session_id=turn.session_id,
        kind=KIND_SUMMARY,
        rewound=turn.rewound,
        compacted=turn.compacted,
        raw=turn.raw,
    )
    copied = row.own.original if row.own is not None and row.own.original else row.original
    if copied is not None and copied.handoff is not None:  # a carried copy of an earlier summary
        summary.copy_of = turn.copy_of
    turn.text, turn.part = message, 1
    if turn.result is not None:
        turn.result.text = message
    place = session.turns if row.live else session.hidden
    index = next(i for i, t in enumerate(place) if t is turn)
    place.insert(index, summary)
