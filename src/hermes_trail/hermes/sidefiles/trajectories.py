"""``trajectory_samples.jsonl`` and ``failed_trajectories.jsonl``: runs saved for training, in a project.

With ``--save-trajectories`` Hermes' ``save_trajectory`` appends one line per run to a file in the working
directory (``trajectory_samples.jsonl`` when the run completed, else ``failed_trajectories.jsonl``):
``{"conversations": [{"from", "value"}, ...], "timestamp": datetime.now().isoformat(), "model",
"completed"}``, ShareGPT-style: ``system`` (the tool-calling system prompt), ``human``, ``gpt`` (a reply, or
a tool-call turn in ``<tool_call>`` markup) and ``tool`` (results in ``<tool_response>`` blocks). The
timestamp is host-local without a zone; no session id is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from hermes_trail.hermes.sidefiles.common import compact, json_lines, line_stray, local_to_utc
from hermes_trail.model import Stray


@dataclass(slots=True)
class Trajectory:
    """One saved run: its line, time (UTC), model, whether it completed, and its turns ``(from, value)``."""

    line: int
    time: datetime | None
    model: str | None
    completed: bool | None
    turns: list[tuple[str, str]] = field(default_factory=list)


def parse_local(value: object, zone: tzinfo | None) -> datetime | None:
    """An ISO 8601 time; one without an offset is host-local (``datetime.now().isoformat()``)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is not None:
        return moment.astimezone(UTC)
    return local_to_utc(moment, zone)


def read_trajectories(path: Path, zone: tzinfo | None = None) -> tuple[list[Trajectory], list[Stray]]:
    """Every run of one trajectory file, and a stray for each line that is not one."""
    runs: list[Trajectory] = []
    strays: list[Stray] = []
    for number, line, record in json_lines(path, strays):
        if not isinstance(record, dict):
            strays.append(line_stray(path, number, "unparseable line (not an object)", line))
            continue
        conversations = record.get("conversations")
        if not isinstance(conversations, list):
            strays.append(line_stray(path, number, "unparseable line (no conversations list)", line))
            continue
        model = record.get("model")
        completed = record.get("completed")
        run = Trajectory(
            number,
            parse_local(record.get("timestamp"), zone),
            model if isinstance(model, str) else None,
            completed if isinstance(completed, bool) else None,
        )
        for index, turn in enumerate(conversations):
            if isinstance(turn, dict) and isinstance(turn.get("from"), str):
                value = turn.get("value")
                run.turns.append((turn["from"], value if isinstance(value, str) else compact(value)))
            else:
                reason = f"unparseable record {index} (conversations entry is not a {{from, value}} object)"
                strays.append(line_stray(path, number, reason, compact(turn)))
        runs.append(run)
    return runs, strays
