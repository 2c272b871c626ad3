"""A session's ``messages`` rows as the conversation Hermes replays, with nothing else lost.

Follows ``SessionDB.get_messages_as_conversation``: rows in ``messages.id`` order (never by timestamp,
which is not monotonic), active rows only, content decoded and user/assistant text sanitized, and the
persisted background-review harness (a curator prompt an older build wrote into the real session) left
out together with the assistant reply that answered it. Rows Hermes does not replay are kept on the
session, flagged: rewound rows (``active = 0``; ``compacted = 0`` or no such column), rows archived by
in-place compaction (``active = 0, compacted = 1``), the gateway's ``session_meta`` bookkeeping rows, and
the harness. Results pair to calls as Hermes pairs them (:func:`pair_results`).

Later rules (compaction copies, commands, file edits, usage) read the turns built here; they are added
as modules beside this one, not by changing it.
"""

from __future__ import annotations

from typing import Any

from hermes_trail.hermes.decode import compaction, durations, tools, usage
from hermes_trail.hermes.decode.content import decode_content
from hermes_trail.hermes.decode.toolcalls import decode_tool_calls, id_variants
from hermes_trail.hermes.decode.values import epoch, flag, integer, text
from hermes_trail.model import Session, Stray, ToolCall, ToolResult, Turn

ROLE_SESSION_META = "session_meta"
_REVIEW_HARNESS_PREFIXES = (
    "Review the conversation above and update the skill library",
    "Review the conversation above and consider saving to memory",
)
KIND_SESSION_META = "session_meta"
KIND_REVIEW_HARNESS = "review_harness"


def decode_message(row: dict[str, Any], session: Session, store_name: str) -> Turn:
    """One ``messages`` row as a turn; its problems are kept on it, never raised."""
    problems: list[str] = []
    role_value, problem = text(row.get("role"), "role")
    if problem:
        problems.append(problem)
    role = role_value or "unknown"
    if role_value is None:
        problems.append("role is empty")
    content = decode_content(row.get("content"), role)
    problems.extend(content.problems)
    time, problem = epoch(row.get("timestamp"), "timestamp")
    if problem:
        problems.append(problem)
    reasoning = None
    for column in ("reasoning", "reasoning_content"):
        value, problem = text(row.get(column), column)
        if problem:
            problems.append(problem)
        if value and value.strip():
            reasoning = value
            break
    calls = decode_tool_calls(row.get("tool_calls"))
    problems.extend(calls.problems)
    turn = Turn(
        role=role,
        text=content.text,
        source_row=integer(row.get("id")) or 0,
        time=time,
        store=store_name,
        session_id=session.id,
        reasoning=reasoning,
        tool_calls=calls.calls,
        content=content.structured,
        images=content.images,
        kind=_text_or_none(row.get("display_kind")),
        finish_reason=_text_or_none(row.get("finish_reason")),
        problems=problems,
        raw=row,
    )
    if role == "tool":
        call_id = _text_or_none(row.get("tool_call_id"))
        turn.result = ToolResult(
            call_id=call_id,
            tool_name=_text_or_none(row.get("tool_name")),
            text=content.text,
            source_row=turn.source_row,
            time=time,
        )
    return turn


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def is_review_harness(turn: Turn) -> bool:
    return turn.role in ("user", "system") and turn.text.lstrip().startswith(_REVIEW_HARNESS_PREFIXES)


def pair_results(turns: list[Turn]) -> None:
    """Pair each ``tool`` turn's result to its call as Hermes does.

    A call answers to every spelling of its ids; a result is looked up by every spelling of its
    ``tool_call_id``. A later assistant row's calls shadow an earlier one's with the same id, and a result
    never pairs across a user turn. A result with no call, or whose call already has one, is an orphan.
    """
    index: dict[str, ToolCall] = {}
    for turn in turns:
        if turn.role == "user":
            index.clear()
        for call in turn.tool_calls:
            for alias in call.aliases:
                index[alias] = call
        result = turn.result
        if result is None:
            continue
        answered = next((index[v] for v in id_variants(result.call_id) if v in index), None)
        if answered is None or answered.result is not None:
            result.orphan = True
            reason = "no call answers to its tool_call_id"
            if answered is not None:
                reason = "its call already has a result"
            turn.problems.append(f"orphan tool result: {reason}")
        else:
            answered.result = result


def read_conversation(session: Session, rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Fill ``session.turns``, ``session.hidden`` and ``session.strays`` from its message rows."""
    has_compacted = "compacted" in columns
    store_name = session.store.name
    turns: list[Turn] = []
    hidden: list[Turn] = []
    strays: list[Stray] = []
    skip_reply = False
    for row in rows:
        turn = decode_message(row, session, store_name)
        for problem in turn.problems:
            if problem.startswith("tool_calls"):
                strays.append(
                    Stray(
                        where=f"{session.store.path}:messages/{turn.source_row}",
                        reason=problem,
                        store=store_name,
                        session_id=session.id,
                        row=turn.source_row,
                        table="messages",
                    )
                )
        active = flag(row, "active", default=True)
        if not active:
            if has_compacted and flag(row, "compacted"):
                turn.compacted = True
            else:
                turn.rewound = True
            hidden.append(turn)
            continue
        if turn.role == ROLE_SESSION_META:
            turn.kind = KIND_SESSION_META
            hidden.append(turn)
            continue
        if is_review_harness(turn):
            turn.kind = KIND_REVIEW_HARNESS
            hidden.append(turn)
            skip_reply = True
            continue
        if skip_reply:
            skip_reply = False
            if turn.role == "assistant":
                turn.kind = KIND_REVIEW_HARNESS
                hidden.append(turn)
                continue
        turns.append(turn)
    session.turns = turns
    session.hidden = hidden
    session.strays = strays
    # The rules of meaning, each in its own module, in the order they depend on each other.
    compaction.apply(session, has_compacted)
    pair_results(session.turns)
    pair_results([t for t in session.hidden if t.kind is None])
    tools.interpret(session, session.turns)
    tools.interpret(session, session.hidden)
    usage.apply_markers(session)
    durations.apply(session)
    session.loaded = True
