"""Timeline rows of the side stores: past use that no session row holds, standing permissions, uploads.

Each function reads one side file through its reader (:mod:`hermes_trail.hermes.sidefiles`) and returns the
rows it always gives, the copies that are shown only when no session row pairs with them
(:mod:`.pairing`), and its bad lines as parser rows. Row texts are documented in docs/timeline.md; the
``(from <file>, <time basis>)`` part says where a row's time came from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import Any

from hermes_trail.hermes.decode.content import decode_content
from hermes_trail.hermes.decode.toolcalls import decode_tool_calls
from hermes_trail.hermes.sidefiles import (
    config_yaml,
    cron_output,
    desktop,
    pairing,
    pastes,
    prompt_history,
    response_store,
    state_tables,
    trajectories,
)
from hermes_trail.hermes.sidefiles.common import compact, file_mtime
from hermes_trail.model import Stray
from hermes_trail.timeline.pairing import LOCAL_TOLERANCE, TOLERANCE, Pending, normalized
from hermes_trail.timeline.rows import Row, call_subject, ts_of

_THINK = re.compile(r"\A\s*<think>.*?</think>\s*", re.DOTALL)
# What a ShareGPT turn is on the timeline.
_TRAJECTORY_TYPES = {"human": "user", "gpt": "assistant", "tool": "tool_result"}


@dataclass(frozen=True, slots=True)
class Place:
    """Where side rows come from: the home (its path), its profile, the user who owns it."""

    home: str
    profile: str
    user: str


@dataclass(slots=True)
class SideRows:
    rows: list[Row]
    pending: list[Pending]


def row(
    place: Place,
    ts: float | None,
    turn_type: str,
    text: str,
    source: str | Path,
    *,
    line: int | None = None,
    session_id: str = "",
    project: str = "",
    branch: str = "",
    model: str = "",
    tool_name: str = "",
    tool_use_id: str = "",
) -> Row:
    return Row(
        ts,
        place.user,
        session_id,
        project,
        branch,
        turn_type,
        model,
        tool_name,
        tool_use_id,
        text,
        str(source),
        line,
        place.profile,
    )


def stray_row(place: Place, stray: Stray, source: str | Path | None = None) -> Row:
    """A bad line, record or file as a ``parser:`` row (undated; the value as stored when there is one)."""
    text = f"parser: {stray.reason}"
    if stray.value is not None:
        text += f": {compact(stray.value)}"
    where = source if source is not None else stray.where.split("#")[0]
    if stray.kind == "line" and source is None:
        where = stray.where.rsplit(":", 1)[0]
    return row(place, None, "system", text, where, line=stray.row, session_id=stray.session_id or "")


def prompt_history_rows(place: Place, path: Path, zone: tzinfo | None) -> SideRows:
    entries, strays = prompt_history.read_prompt_history(path, zone)
    out = SideRows([stray_row(place, s, path) for s in strays], [])
    for entry in entries:
        ts = ts_of(entry.time)
        if entry.is_command:
            out.rows.append(row(place, ts, "system", f"slash command: {entry.text}", path, line=entry.line))
            continue
        window = TOLERANCE if entry.writer == prompt_history.WRITER_TUI else LOCAL_TOLERANCE
        made = row(place, ts, "user", entry.text, path, line=entry.line)
        out.pending.append(Pending(made, normalized(entry.text), window=window, home=place.home))
    return out


def cron_rows(place: Place, path: Path, job_id: str, zone: tzinfo | None) -> SideRows:
    run, strays = cron_output.read_cron_run(path, job_id, zone)
    out = SideRows([stray_row(place, s, path) for s in strays], [])
    if run is None:
        return out
    ts = ts_of(run.time)
    if run.prompt is None:
        out.rows.append(row(place, ts, "system", f"cron run output: {run.document}", path))
        return out
    out.rows.append(
        row(
            place,
            ts,
            "system",
            f"cron run: job {job_id} (from cron/output, file name time, host-local)",
            path,
        )
    )
    for turn_type, text in (("user", run.prompt), ("assistant", run.response)):
        if text is None:
            continue
        made = row(place, ts, turn_type, text, path)
        out.pending.append(
            Pending(made, normalized(text), window=LOCAL_TOLERANCE, home=place.home, cron_only=True)
        )
    if run.rest:
        out.rows.append(row(place, ts, "system", f"cron run output: {run.rest}", path))
    return out


def _message_rows(message: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(turn type, text, tool name, tool use id) of one chat-completions message, read as a messages row."""
    role = message.get("role")
    role = role if isinstance(role, str) else ""
    content = message.get("content")
    raw = content if content is None or isinstance(content, str) else "\x00json:" + json.dumps(content)
    text = decode_content(raw, role).text
    out: list[tuple[str, str, str, str]] = []
    if role == "assistant":
        if text:
            out.append(("assistant", text, "", ""))
        for call in decode_tool_calls(message.get("tool_calls")).calls:
            out.append(("tool_use", call_subject(call), call.name, call.id or ""))
    elif role == "tool":
        name = message.get("name") or message.get("tool_name")
        call_id = message.get("tool_call_id")
        out.append(
            (
                "tool_result",
                text,
                name if isinstance(name, str) else "",
                call_id if isinstance(call_id, str) else "",
            )
        )
    elif role == "user":
        out.append(("user", text, "", ""))
    else:
        out.append(("system", f"{role or 'message'}: {text}", "", ""))
    return out


def response_store_rows(place: Place, path: Path, sessions: dict[str, tuple[str, str, str]]) -> SideRows:
    """:param sessions: session id -> (project, branch, model) of the sessions the stores know."""
    responses, strays = response_store.read_response_store(path)
    out = SideRows([stray_row(place, s, path) for s in strays], [])
    held: dict[str, int] = {}  # per session: how many history positions earlier responses held
    for stored in responses:
        conversation = ",".join(stored.conversations) or "-"
        out.rows.append(
            row(
                place,
                ts_of(stored.created_at),
                "system",
                f"api server response {stored.response_id} status={stored.status or '-'} "
                f"model={stored.model or '-'} conversation={conversation} "
                "(from response_store.db responses, created_at)",
                path,
                line=stored.row,
                session_id=stored.session_id or "",
            )
        )
        sid = stored.session_id or f"#{stored.row}"
        start = held.get(sid, 0)
        held[sid] = max(start, len(stored.history))
        project, branch, model = sessions.get(stored.session_id or "", ("", "", ""))
        for message in stored.history[start:]:
            if message is None:
                continue
            for turn_type, text, tool, use_id in _message_rows(message):
                made = row(
                    place,
                    None,
                    turn_type,
                    text,
                    path,
                    line=stored.row,
                    session_id=stored.session_id or "",
                    project=project,
                    branch=branch,
                    model=model,
                    tool_name=tool,
                    tool_use_id=use_id,
                )
                if turn_type == "system":
                    out.rows.append(made)
                else:
                    out.pending.append(Pending(made, normalized(text), session_id=stored.session_id or ""))
    return out


def trajectory_rows(place: Place, path: Path, zone: tzinfo | None) -> SideRows:
    runs, strays = trajectories.read_trajectories(path, zone)
    out = SideRows([stray_row(place, s, path) for s in strays], [])
    project = str(path.parent)
    for run in runs:
        completed = "-" if run.completed is None else str(run.completed).lower()
        out.rows.append(
            row(
                place,
                ts_of(run.time),
                "system",
                f"trajectory: model={run.model or '-'} "
                f"completed={completed} (from {path.name}, timestamp host-local)",
                path,
                line=run.line,
                project=project,
                model=run.model or "",
            )
        )
        for origin, value in run.turns:
            if origin == "system":
                out.rows.append(
                    row(
                        place,
                        None,
                        "system",
                        f"trajectory system prompt: {value}",
                        path,
                        line=run.line,
                        project=project,
                        model=run.model or "",
                    )
                )
                continue
            turn_type = _TRAJECTORY_TYPES.get(origin)
            if turn_type is None:
                out.rows.append(
                    row(
                        place,
                        None,
                        "system",
                        f"trajectory {origin}: {value}",
                        path,
                        line=run.line,
                        project=project,
                        model=run.model or "",
                    )
                )
                continue
            made = row(
                place, None, turn_type, value, path, line=run.line, project=project, model=run.model or ""
            )
            # A gpt turn opens with the reasoning Hermes wraps in <think> tags; the reply follows it.
            reply = _THINK.sub("", value, count=1) if origin == "gpt" else value
            out.pending.append(Pending(made, normalized(reply), project=project))
    return out


def allowlist_rows(place: Place, path: Path) -> list[Row]:
    found, problem = config_yaml.read_allowlist(path)
    if problem is not None:
        return [row(place, None, "system", f"parser: {problem}", path)]
    ts = ts_of(file_mtime(path))
    basis = "(from config.yaml, file mtime)"
    out = [
        row(place, ts, "system", f"permission setting: command_allowlist={entry} {basis}", path, line=line)
        for entry, line in found.entries
    ]
    if found.problem is not None:
        text = f"parser: config.yaml command_allowlist is not a flat list ({found.problem})"
        out.append(row(place, None, "system", text, path, line=found.problem_line))
    return out


def pairing_rows(place: Place, path: Path, platform: str) -> list[Row]:
    users, strays = pairing.read_approved(path, platform)
    where = "platforms/pairing" if path.parent.parent.name == "platforms" else "pairing"
    out = [stray_row(place, s, path) for s in strays]
    for user in users:
        text = (
            f"permission setting: pairing.{platform}.{user.user_id} user_name={user.user_name or '-'} "
            f"(from {where}/{platform}-approved.json, approved_at)"
        )
        out.append(row(place, ts_of(user.approved_at), "system", text, path, line=user.number))
    return out


def desktop_rows(place: Place, path: Path) -> list[Row]:
    registry, strays = desktop.read_connections(path)
    out = [stray_row(place, s, path) for s in strays]
    ts = ts_of(file_mtime(path))
    for conn in registry.connections:
        if conn.kind == "local":
            continue
        text = f"remote backend: {conn.kind} {conn.label or '-'} {conn.where} "
        text += "(from connections.json, file mtime)"
        for key, value in (("org", conn.org), ("name", conn.name), ("profile", conn.remote_profile)):
            if value:
                text += f" {key}={value}"
        out.append(row(place, ts, "system", text, path, line=conn.number))
    for reason in registry.quarantined:
        out.append(
            row(
                place,
                ts,
                "system",
                f"remote backend quarantined by the app: {reason} (from connections.json, file mtime)",
                path,
            )
        )
    return out


def pastes_rows(place: Place, path: Path) -> list[Row]:
    found, strays = pastes.read_pastes(path)
    out = [stray_row(place, s, path) for s in strays]
    for paste in found:
        text = f"debug report uploaded: {paste.url} (from pastes/pending.json, expire_at minus 6 hours)"
        out.append(row(place, ts_of(paste.uploaded_at), "system", text, path, line=paste.number))
    return out


def fence_rows(place: Place, source: str, fences: list[state_tables.Fence]) -> list[Row]:
    return [
        row(
            place,
            ts_of(f.retired_at),
            "system",
            f"session deleted: {f.session_id}{' sweep' if f.swept else ''} (from state.db state_meta "
            "gateway.retired_session.v1, retired_at)",
            source,
            session_id=f.session_id,
        )
        for f in fences
    ]


def generation_rows(place: Place, source: str, generations: list[state_tables.Generation]) -> list[Row]:
    return [
        row(
            place,
            None,
            "system",
            f"relay peer: {g.source} {g.session_key} generation {g.generation} "
            "(from state.db conversation_generations)",
            source,
        )
        for g in generations
    ]


def room_rows(place: Place, source: str, events: list[state_tables.RoomEvent]) -> list[Row]:
    out = []
    for event in events:
        actor = event.actor
        who = f"{actor.get('kind', '-')}:{actor.get('id', '-')}"
        if actor.get("display_name"):
            who += f" ({actor['display_name']})"
        if event.kind in ("message.user", "message.member"):
            body = event.payload.get("text")
            said = body if isinstance(body, str) else compact(event.payload)
        else:
            said = compact(event.payload)
        out.append(
            row(
                place,
                ts_of(event.created_at),
                "system",
                f"bot mode room {event.room_name or '-'} ({event.room_id}) seq {event.seq} "
                f"{event.kind} actor {who}: {said}",
                source,
            )
        )
    return out
