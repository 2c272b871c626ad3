"""How long each tool call ran, and how long a session was in use, from the rows' own timestamps.

Follows when hermes-agent stamps its rows (``run_agent._flush_messages_to_session_db``: a row's
``timestamp`` is ``time.time()`` when it is written, unless the message carries its own):

* The assistant row holding ``tool_calls`` is flushed *before* any tool runs (``conversation_loop``:
  "Persist the assistant tool-call turn before any tool side effects run"), and each ``tool`` row is
  flushed as soon as its result is appended (``tool_executor._flush_session_db_after_tool_progress``).
  So a call's duration is its result row's timestamp minus its call row's. Calls of one row share
  that row, and each has its own result row: a call is timed from the later of the call row and the
  previous result of the same row (in ``messages.id`` order), since Hermes runs a row's calls one after
  another unless it batches them, and a batch appends its results once it is done. Timed from the call
  row alone, the third of three one-second calls would read three seconds.
* The gap is execution only while it is within what Hermes lets one call take: :data:`TOOL_GAP_MAX`.
  The longest bounded waits inside a call are the terminal tool's foreground cap (600 s,
  ``FOREGROUND_MAX_TIMEOUT``) plus an approval prompt (``approvals.timeout``, 60 s), the concurrent batch
  timeout (420 s, ``HERMES_CONCURRENT_TOOL_TIMEOUT_S``) and the slowest default model call a tool makes
  (900 s: ``local_stream_stale_timeout`` and the mixture-of-agents timeouts). A longer gap is a session
  left and resumed, a crash whose results were written later, or an unbounded wait (``clarify`` waits up
  to an hour for a person; a ``delegate_task`` child has no default cap): the duration is then unknown
  (``None``) rather than a person walking away counted as work. A negative gap (clock moved) is
  unknown too. A compaction copy of a call row is stamped when the compaction wrote it, so a copied call
  takes the duration of the original it copies.
* A session's active time sums the gaps between its rows in time order (every row read: replayed,
  rewound or archived, all of which happened), each gap capped. A gap that ends at a row the agent wrote
  (assistant, tool, summary) is the agent working and is capped at :data:`AGENT_GAP_CAP`, the same bound
  as a tool call. A gap that ends at a ``user`` row is a person reading and writing, capped at
  :data:`HUMAN_GAP_CAP`: five minutes, the idle timeout Hermes' own gateway uses to decide an instance
  is idle (``scale_to_zero.idle_timeout_minutes``, default 5). A longer pause counts as five minutes of
  reading and typing, never as the hours the person was away. ``started_at``/``ended_at`` are not used:
  they bound a window that includes idle time (a session is ended by a reaper long after its last row).
"""

from __future__ import annotations

import itertools
from datetime import datetime

from hermes_trail.model import Session, ToolCall, ToolResult, Turn

TOOL_GAP_MAX = 900.0
AGENT_GAP_CAP = TOOL_GAP_MAX
HUMAN_GAP_CAP = 300.0


def gap_seconds(start: datetime | None, end: datetime | None) -> float | None:
    """Seconds from ``start`` to ``end``; ``None`` when either is unknown."""
    if start is None or end is None:
        return None
    return (end - start).total_seconds()


def tool_duration(call_time: datetime | None, result: ToolResult | None) -> float | None:
    """A call's execution time from its call row's and result row's timestamps, by the module's rule."""
    if result is None:
        return None
    gap = gap_seconds(call_time, result.time)
    if gap is None or gap < 0 or gap > TOOL_GAP_MAX:
        return None
    return gap


def _turns(session: Session) -> list[Turn]:
    return [*session.turns, *session.hidden]


def _apply_tool_durations(session: Session) -> None:
    turns = _turns(session)
    copies = {t.source_row for t in turns if t.copy_of is not None}
    originals: dict[int, list[Turn]] = {}  # every part of a row: a split carrier's calls are on part 1
    for turn in turns:
        if turn.copy_of is None:
            originals.setdefault(turn.source_row, []).append(turn)
    for turn in turns:
        if turn.copy_of is not None:
            continue
        for call in turn.tool_calls:
            call.duration = None
        answered = sorted(
            (c for c in turn.tool_calls if c.result is not None),
            key=lambda c: c.result.source_row if c.result is not None else 0,
        )
        previous: datetime | None = None  # the end of the row's previous call: the next one starts there
        for call in answered:
            result = call.result
            assert result is not None
            # A result row that is a compaction copy carries the compaction's stamp, not the call's end.
            if result.source_row in copies:
                continue
            start = turn.time
            if start is not None and previous is not None and previous > start:
                start = previous
            call.duration = tool_duration(start, result)
            if result.time is not None and (previous is None or result.time > previous):
                previous = result.time
    for turn in turns:
        if turn.copy_of is None:
            continue
        by_id: dict[str, ToolCall] = {}
        for original in originals.get(turn.copy_of, []):
            for call in original.tool_calls:
                for alias in call.aliases:
                    by_id.setdefault(alias, call)
        for call in turn.tool_calls:
            source = next((by_id[a] for a in call.aliases if a in by_id), None)
            call.duration = source.duration if source is not None else None


def active_seconds(session: Session) -> float | None:
    """Seconds a session was in use, by the module's rule; ``None`` when no row has a time."""
    points = sorted(((t.time, t.role) for t in _turns(session) if t.time is not None), key=lambda p: p[0])
    if not points:
        return None
    total = 0.0
    for (previous, _), (current, role) in itertools.pairwise(points):
        cap = HUMAN_GAP_CAP if role == "user" else AGENT_GAP_CAP
        total += min((current - previous).total_seconds(), cap)
    return total


def apply(session: Session) -> None:
    """Set each call's ``duration`` (replayed and hidden turns alike) and the session's ``active_seconds``."""
    _apply_tool_durations(session)
    session.active_seconds = active_seconds(session)
