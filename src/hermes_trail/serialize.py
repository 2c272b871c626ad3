"""The model as JSON-ready dicts: the ``--json`` contract documented in ``docs/json.md``.

Keys only ever get added. Times are ISO 8601 in UTC (``...Z``) or ``null``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from hermes_trail.hermes.locate import Note
from hermes_trail.model import (
    Command,
    FileEdit,
    Image,
    ImportOrigin,
    Messaging,
    Permission,
    Recovery,
    Session,
    Stray,
    ToolCall,
    ToolResult,
    Turn,
    Usage,
)

if TYPE_CHECKING:
    from hermes_trail.index.plan import Places
    from hermes_trail.index.results import Hit, SearchResult
    from hermes_trail.index.when import Window
    from hermes_trail.resume import ResumePlan
    from hermes_trail.stats import StatsAnswer


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.isoformat(timespec="microseconds").replace("+00:00", "Z")


def stray_json(stray: Stray) -> dict[str, Any]:
    return {
        "where": stray.where,
        "reason": stray.reason,
        "kind": stray.kind,
        "store": stray.store,
        "session_id": stray.session_id,
        "row": stray.row,
        "table": stray.table,
        "value": None if stray.value is None else str(stray.value),
    }


def note_json(note: Note) -> dict[str, Any]:
    return {"where": note.path, "reason": note.reason}


def session_json(session: Session) -> dict[str, Any]:
    usage = session.usage
    return {
        "id": session.id,
        "ref": session.ref,
        "store": session.store.name,
        "store_path": session.store.path,
        "store_kind": session.store.kind,
        "schema_version": session.store.schema_version,
        "profile": session.profile,
        "project": session.project,
        "source": session.source,
        "title": session.title,
        "model": session.model,
        "cwd": session.cwd,
        "git_branch": session.git_branch,
        "git_repo_root": session.git_repo_root,
        "started_at": iso(session.started_at),
        "ended_at": iso(session.ended_at),
        "last_activity_at": iso(session.last_activity_at),
        "end_reason": session.end_reason,
        "parent_id": session.parent_id,
        "message_count": session.message_count,
        "tokens": tokens_json(usage),
        "archived": session.archived,
        "pinned": session.pinned,
        "hidden": session.hidden_flag,
        "problems": list(session.problems),
        "api_calls": usage.api_calls,
        "cost": cost_json(usage),
        "kind": session.kind,
        "relation": session.relation,
        "relation_marked": session.relation_marked,
        "chain": list(session.chain),
        "children": [{"relation": rel, "id": child} for rel, child in session.children],
        "compactions": session.compactions,
        "messaging": _messaging_json(session.messaging),
        "imported": _imported_json(session.imported),
        "worktree": session.worktree,
        "yolo": session.yolo,
        "recovered": recovery_json(session.recovered),
    }


def recovery_json(recovery: Recovery | None) -> dict[str, Any] | None:
    """Where a session gone from its live store was found again (``null`` for a live session)."""
    if recovery is None:
        return None
    return {
        "kind": recovery.kind,
        "path": recovery.path,
        "snapshot": recovery.snapshot,
        "taken_at": iso(recovery.taken_at),
        "also_in": list(recovery.also_in),
        "deleted_at": iso(recovery.deleted_at),
        "swept": recovery.swept,
    }


def cost_json(usage: Usage) -> dict[str, Any]:
    return {
        "usd": usage.cost_usd,
        "kind": usage.cost_kind,
        "status": usage.cost_status,
        "source": usage.cost_source,
    }


def _messaging_json(messaging: Messaging | None) -> dict[str, Any] | None:
    if messaging is None:
        return None
    return {
        "platform": messaging.platform,
        "chat_id": messaging.chat_id,
        "chat_name": messaging.chat_name,
        "chat_type": messaging.chat_type,
        "user_id": messaging.user_id,
        "user_name": messaging.user_name,
        "thread_id": messaging.thread_id,
    }


def _imported_json(imported: ImportOrigin | None) -> dict[str, Any] | None:
    if imported is None:
        return None
    return {"tool": imported.tool, "path": imported.path, "original_id": imported.original_id}


def tokens_json(usage: Usage) -> dict[str, Any]:
    return {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "cache_read": usage.cache_read_tokens,
        "cache_write": usage.cache_write_tokens,
        "reasoning": usage.reasoning_tokens,
    }


def session_detail_json(session: Session) -> dict[str, Any]:
    """The session with what only reading its messages tells."""
    out = session_json(session)
    out["active_seconds"] = session.active_seconds
    out["compaction_events"] = [
        {"kind": e.kind, "time": iso(e.time), "summary_row": e.summary_row, "archived": e.archived}
        for e in session.compaction_events
    ]
    out["model_changes"] = [
        {"model": c.model, "provider": c.provider, "time": iso(c.time), "row": c.source_row}
        for c in session.model_changes
    ]
    out["model_usage"] = [
        {
            "model": m.model,
            "provider": m.provider,
            "task": m.task,
            "auxiliary": m.auxiliary,
            "tokens": tokens_json(m.usage),
            "api_calls": m.usage.api_calls,
            "cost": cost_json(m.usage),
            "first_seen": iso(m.first_seen),
            "last_seen": iso(m.last_seen),
        }
        for m in session.model_usage
    ]
    return out


def result_json(result: ToolResult) -> dict[str, Any]:
    """A result without its raw text, which is the ``text`` of the ``tool`` turn at ``row``: a transcript
    carries each tool output once as stored, once as kept."""
    return {
        "row": result.source_row,
        "call_id": result.call_id,
        "tool_name": result.tool_name,
        "time": iso(result.time),
        "orphan": result.orphan,
        "output": result.output,
    }


def permission_json(permission: Permission | None) -> dict[str, Any] | None:
    if permission is None:
        return None
    return {
        "outcome": permission.outcome,
        "by": permission.by,
        "message": permission.message,
        "description": permission.description,
        "user_summary": permission.user_summary,
        "pattern_key": permission.pattern_key,
        "smart_denied": permission.smart_denied,
    }


def command_json(command: Command | None) -> dict[str, Any] | None:
    if command is None:
        return None
    return {
        "command": command.command,
        "exit_code": command.exit_code,
        "status": command.status,
        "output": command.output,
        "error": command.error,
        "signal": command.signal,
        "background": command.background,
        "workdir": command.workdir,
    }


def edit_json(edit: FileEdit) -> dict[str, Any]:
    return {
        "path": edit.path,
        "action": edit.action,
        "moved_to": edit.moved_to,
        "removed": list(edit.removed),
        "added": list(edit.added),
        "applied": edit.applied,
    }


def call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "aliases": list(call.aliases),
        "name": call.name,
        "arguments": call.arguments,
        "arguments_text": call.arguments_text,
        "result": result_json(call.result) if call.result is not None else None,
        "command": command_json(call.command),
        "permission": permission_json(call.permission),
        "edits": [edit_json(e) for e in call.edits],
        "reads": list(call.reads),
        "duration": call.duration,
    }


def turn_json(turn: Turn) -> dict[str, Any]:
    return {
        "uid": turn.uid,
        "row": turn.source_row,
        "role": turn.role,
        "text": turn.text,
        "time": iso(turn.time),
        "reasoning": turn.reasoning,
        "kind": turn.kind,
        "finish_reason": turn.finish_reason,
        "structured": turn.content is not None,
        "tool_calls": [call_json(c) for c in turn.tool_calls],
        "result": result_json(turn.result) if turn.result is not None else None,
        "rewound": turn.rewound,
        "compacted": turn.compacted,
        "copy_of": turn.copy_of,
        "part": turn.part,
        "problems": list(turn.problems),
        "divert": divert_json(turn),
        "images": [image_json(i) for i in turn.images],
    }


def divert_json(turn: Turn) -> dict[str, Any] | None:
    """Where a row found only in its session's divert file is (``None`` for a row of the store)."""
    if turn.diverted is None:
        return None
    return {"path": turn.diverted, "line": turn.divert_line}


def image_json(image: Image) -> dict[str, Any]:
    """An image part without its bytes: what it is and how big (the HTML export carries the image)."""
    return {
        "media_type": image.media_type,
        "bytes": image.size,
        "label": image.label,
        "url": None if image.url.lower().startswith("data:") else image.url,
    }


def transcript_json(session: Session) -> dict[str, Any]:
    return {
        "session": session_detail_json(session),
        "turns": [turn_json(t) for t in session.turns],
        "hidden": [turn_json(t) for t in session.hidden],
        "strays": [stray_json(s) for s in session.strays],
    }


def hit_json(hit: Hit) -> dict[str, Any]:
    return {
        "store": hit.store,
        "session_id": hit.session_id,
        "ref": hit.ref,
        "title": hit.title,
        "project": hit.project,
        "profile": hit.profile,
        "source": hit.source,
        "session_kind": hit.session_kind,
        "row": hit.row,
        "part": hit.part,
        "role": hit.role,
        "kind": hit.kind,
        "tool": hit.tool,
        "time": iso(datetime.fromtimestamp(hit.time, tz=UTC)) if hit.time is not None else None,
        "exit_code": hit.exit_code,
        "path": hit.path,
        "rewound": hit.rewound,
        "score": round(hit.score, 4),
        "snippet": hit.snippet,
        "resume": hit.resume,
        "origin": hit.origin,
        "label": hit.label,
    }


def search_json(result: SearchResult) -> dict[str, Any]:
    from hermes_trail.resume import many_lines

    with many_lines():  # every hit says how to resume it: the way into each store found once
        return _search_json(result)


def _search_json(result: SearchResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "matches": result.matches,
        "windowed": result.windowed,
        "seconds": round(result.seconds, 4),
        "missing": list(result.missing),
        "dropped": list(result.dropped),
        "prefix": result.prefix,
        "unencoded": result.unencoded,
        "matches_exact": result.matches_exact,
        "read_as": list(result.read_as),
        "unmatched": list(result.unmatched),
        "read_as_cjk": list(result.read_as_cjk),
        "spelled": {typed: list(words) for typed, words in result.spelled.items()},
        "when": _when_json(result.when),
        "session": result.session,
        "places": _places_json(result.places),
        "conversations": [
            {
                "store": c.store,
                "root": c.root,
                "score": round(c.score, 4),
                "hits": [hit_json(h) for h in c.hits],
                "opening": c.opening,
                "superseded_by": c.superseded_by,
            }
            for c in result.conversations
        ],
    }


def _places_json(places: Places | None) -> dict[str, Any] | None:
    """The places a question of their names alone named (``plan.naming_places``), or ``None``."""
    if places is None:
        return None
    return {
        "profiles": list(places.profiles),
        "sources": list(places.sources),
        "projects": list(places.projects),
        "words": list(places.words),
        "explained": places.explained(),
    }


def _when_json(window: Window | None) -> dict[str, Any] | None:
    """The time a question named (``index.when``), or ``None``."""
    if window is None:
        return None
    return {
        "words": window.words,
        "since": iso(datetime.fromtimestamp(window.since, tz=UTC)),
        "until": iso(datetime.fromtimestamp(window.until, tz=UTC)),
        "said": window.said(),
        "rest": window.rest,
        "listing": window.listing,
        "within": window.within,
        "explained": window.explained(),
    }


def _same(*keys: str) -> dict[str, str]:
    return {key: key for key in keys}


# The public keys of each result of the index's questions (fix, blame, how), as docs/json.md lists them, each
# with the attribute it is read from. Written out, not derived from the dataclasses: renaming an attribute
# then fails loudly instead of renaming a key of the contract, and a new attribute stays private until it is
# added here (and documented).
RECORD_KEYS: dict[str, dict[str, str]] = {
    "FixReport": _same(
        "error",
        "terms",
        "failures",
        "failures_total",
        "conversations",
        "fixes",
        "spelled",
        "edits",
        "by_meaning",
        "missing",
    ),
    "Term": _same("word", "docs", "weight"),
    "Failure": _same(
        "doc",
        "store",
        "session_id",
        "ref",
        "title",
        "project",
        "root",
        "row",
        "part",
        "time",
        "command",
        "exit_code",
        "coverage",
        "bm25",
        "matched",
        "said",
    ),
    "Fix": _same("command", "worked", "confirmed", "tried", "best_coverage", "last_time", "examples"),
    "FixExample": _same(
        "ref",
        "store",
        "session_id",
        "title",
        "time",
        "command",
        "failed_command",
        "exit_code",
        "failed_time",
        "confirmed",
        "edited",
    ),
    "EditFix": _same("path", "worked", "last_time", "examples"),
    "EditExample": _same(
        "ref",
        "store",
        "session_id",
        "title",
        "time",
        "path",
        "failed_command",
        "exit_code",
        "failed_time",
        "passed_time",
        "change",
    ),
    "BlameEntry": _same(
        "doc",
        "store",
        "session_id",
        "ref",
        "title",
        "project",
        "time",
        "row",
        "tool",
        "path",
        "moved_to",
        "resolved",
        "via",
        "action",
        "added",
        "removed",
        "applied",
        "rewound",
        "prompt",
        "prompt_time",
    ),
    "HowEntry": _same(
        "command",
        "example",
        "matched_in",
        "sessions",
        "runs",
        "ok",
        "failed",
        "success_rate",
        "last_time",
        "last_ref",
        "last_exit_code",
        "projects",
        "prompt",
        "lacks",
        "spelled",
    ),
}


def record_json(value: Any) -> Any:
    """A result of the index (fix, blame, how) as JSON, by :data:`RECORD_KEYS`; times as ISO 8601.

    :raises TypeError: for a result type the map does not name (its keys must be chosen, not guessed).
    """
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        keys = RECORD_KEYS.get(type(value).__name__)
        if keys is None:
            raise TypeError(f"no --json keys are declared for {type(value).__name__} (serialize.RECORD_KEYS)")
        out: dict[str, Any] = {}
        for key, attribute in keys.items():
            item = getattr(value, attribute)
            if (key == "time" or key.endswith("_time")) and isinstance(item, int | float):
                out[key] = iso(datetime.fromtimestamp(item, tz=UTC))
            else:
                out[key] = record_json(item)
        return out
    if isinstance(value, list | tuple):
        return [record_json(v) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


def resume_json(plan: ResumePlan, session: Session) -> dict[str, Any]:
    """``trail resume --json``: the command that reopens a session, as words and as a shell line."""
    return {
        "session_id": plan.session_id,
        "ref": session.ref,
        "profile": plan.profile,
        "home": str(plan.home),
        "hermes_home": plan.env.get("HERMES_HOME"),
        "argv": list(plan.argv),
        "command": plan.command,
    }


def stats_json(answer: StatsAnswer, budget: float | None = None) -> dict[str, Any]:
    """``trail stats --json``: the report, the time it counts from, and the budget when one was given
    (what was spent and whether it passed it)."""
    out = answer.report.as_json()
    out["since"] = answer.since.isoformat().replace("+00:00", "Z") if answer.since else None
    spent = answer.spent
    limit = {"usd": budget, "spent": round(spent, 6), "over": budget is not None and spent > budget}
    out["budget"] = None if budget is None else limit
    return out
