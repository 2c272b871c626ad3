"""What the side-file readers share: reading a file without failing, strays, and host-local times."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from hermes_trail.model import Stray

# A file larger than this is not read whole (a side file is small; a huge one is not Hermes' doing).
MAX_FILE_BYTES = 512 * 1024 * 1024


def read_text(path: Path) -> tuple[str | None, Stray | None]:
    """A file's text, UTF-8 with bad bytes as U+FFFD (as prompt_toolkit reads its history), or why not."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, file_stray(path, f"unreadable file ({size} bytes is too large for a side file)")
        data = path.read_bytes()
    except IsADirectoryError:
        return None, file_stray(path, "unreadable file (a directory)")
    except PermissionError:
        return None, file_stray(path, "unreadable file (permission denied)")
    except OSError as exc:
        return None, file_stray(path, f"unreadable file ({exc.strerror or exc})")
    return data.decode("utf-8", errors="replace"), None


def read_json(path: Path, shape: type, described: str) -> tuple[Any, list[Stray]]:
    """A JSON side file's document when it is a ``shape`` (dict or list), else ``None`` and why."""
    text, problem = read_text(path)
    if text is None:
        return None, [problem] if problem else []
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return None, [file_stray(path, f"unparseable file (not JSON: {exc})")]
    if not isinstance(data, shape):
        return None, [file_stray(path, f"unparseable file (not {described})")]
    return data, []


def json_lines(
    path: Path, strays: list[Stray], session_id: str | None = None
) -> Iterator[tuple[int, str, Any]]:
    """Each non-blank line of a JSON-lines side file as ``(line number, text, value)``. Why the file cannot
    be read, or that a line is not JSON, is added to ``strays`` as it is met, so they stay in line order
    with the reader's own; what the value must be is the reader's to check."""
    text, problem = read_text(path)
    if text is None:
        strays.extend([problem] if problem else [])
        return
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as exc:
            strays.append(line_stray(path, number, f"unparseable line (not JSON: {exc})", line, session_id))
            continue
        yield number, line, value


def file_stray(path: Path, reason: str, value: Any = None) -> Stray:
    return Stray(where=str(path), reason=reason, kind="file", value=value)


def line_stray(path: Path, line: int, reason: str, value: Any = None, session_id: str | None = None) -> Stray:
    return Stray(
        where=f"{path}:{line}", reason=reason, kind="line", row=line, value=value, session_id=session_id
    )


def record_stray(
    path: Path | str,
    number: int | str,
    reason: str,
    value: Any = None,
    *,
    table: str | None = None,
    session_id: str | None = None,
) -> Stray:
    """An entry that is not what Hermes writes: ``unparseable record <number> (<reason>)``."""
    row = number if isinstance(number, int) else None
    return Stray(
        where=f"{path}#{number}",
        reason=f"unparseable record {number} ({reason})",
        kind="record",
        row=row,
        table=table,
        value=value,
        session_id=session_id,
    )


def compact(value: Any) -> str:
    """A value as stored, for a bad-line row: text as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return repr(value)


def file_mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except (OSError, OverflowError, ValueError):
        return None


def zone_named(name: str | None) -> tzinfo | None:
    """An IANA zone by name, or ``None`` (the host's own) when there is none or it is unknown, as Hermes'
    clock falls back to server-local time."""
    if not name:
        return None
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):
        return None
    except Exception:  # ZoneInfoNotFoundError and friends: never fail a read over a zone name
        return None


def local_to_utc(naive: datetime, zone: tzinfo | None) -> datetime:
    """A wall-clock time Hermes wrote without an offset, in ``zone`` (else this host's zone), as UTC."""
    aware = naive.replace(tzinfo=zone) if zone is not None else naive.astimezone()
    return aware.astimezone(UTC)


def epoch_time(value: Any) -> datetime | None:
    """Epoch seconds as Hermes writes them (``time.time()``), or ``None`` outside its window."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 <= value <= 4.2e9:
        return None
    return datetime.fromtimestamp(float(value), tz=UTC)
