"""Cell values as Hermes writes them: epoch seconds, counters, flags and text.

Each reader returns the value and, when the cell does not hold what Hermes writes, a problem to keep on
the row; none of them raises.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from hermes_trail.hermes.store import InvalidText

# Hermes accepts epoch seconds in this window (hermes_cli.timefmt's EPOCH_MIN and EPOCH_MAX); a value
# outside it is a damaged or foreign cell, not a time.
EPOCH_MIN = 0.0
EPOCH_MAX = 4.2e9


def epoch(value: Any, column: str) -> tuple[datetime | None, str | None]:
    """A REAL epoch-seconds cell as an aware UTC time, or ``None`` and the problem with it."""
    if type(value) is float and EPOCH_MIN <= value <= EPOCH_MAX:  # the common case, first
        return datetime.fromtimestamp(value, tz=UTC), None
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"{column} is not a number ({type(value).__name__} {_short(value)})"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{column} is not finite ({value})"
    if not EPOCH_MIN <= value <= EPOCH_MAX:
        return None, f"{column} {value} is outside the epoch window Hermes accepts (0 to 4.2e9 s)"
    return datetime.fromtimestamp(float(value), tz=UTC), None


def integer(value: Any) -> int | None:
    """A counter cell; ``None`` when absent or not an integer (a REAL holding a whole number counts)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def flag(row: dict[str, Any], column: str, default: bool = False) -> bool:
    """An integer flag column: true when non-zero; ``default`` when the column is absent or null."""
    value = row.get(column)
    if value is None:
        return default
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        return value.strip() not in ("", "0", "false", "False")
    return bool(value)


def text(value: Any, column: str) -> tuple[str | None, str | None]:
    """A TEXT cell as ``str``; other storage classes are kept as text with a problem named."""
    if type(value) is str or value is None:  # the common case, first; InvalidText is a subclass
        return value, None
    if isinstance(value, InvalidText):
        return str(value), f"{column} is not valid UTF-8 (bad bytes shown as U+FFFD)"
    if isinstance(value, str):
        return value, None
    if isinstance(value, bytes):
        decoded = value.decode("utf-8", errors="replace")
        return decoded, f"{column} is a blob, read as UTF-8 text"
    return str(value), None


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."
