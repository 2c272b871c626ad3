"""Text for people and for JSON, shared by every surface: untrusted text made inert, and local times.

Kept apart from the transcript (which needs rich and the decoders) so a listing can use it cheaply.
"""

from __future__ import annotations

import re
from datetime import datetime

# C0 and C1 controls but newline and tab; and the bidirectional controls (embeddings, overrides,
# isolates, marks), which reorder what follows them on screen, so a title could show as something else.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_JSON_RAW = re.compile(r"[\x7f-\x9f\u2028\u2029]")


# ESC-introduced sequences a terminal acts on: CSI (colours, cursor), OSC (titles, links; its terminator
# optional), nF (a character set chosen: ``tput sgr0``'s "\x1b(B"), the short two-character ones, and the
# 8-bit CSI. Formatting, never content: what is shown (the viewer, an export) and what is asked (a question
# piped with its colours) leave them out.
TERMINAL_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]+[0-~]|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)


def safe(text: str) -> str:
    """Text with every control character but newline and tab shown as an escape (``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def json_safe(text: str) -> str:
    """JSON text (``ensure_ascii=False``) with DEL and the C1 controls written as ``\\u`` escapes too:
    JSON escapes only C0, and a terminal reads a raw U+009B as CSI. The same JSON, decoded."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def clock(value: datetime | None, with_date: bool = False) -> str:
    """A time in the machine's zone: ``HH:MM:SS``, with the date before it when asked."""
    if value is None:
        return "--:--:--"
    local = value.astimezone()
    return local.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


def minute(value: datetime | float) -> str:
    """A time (or epoch seconds) in the machine's zone, to the minute: ``YYYY-MM-DD HH:MM``."""
    local = datetime.fromtimestamp(value) if isinstance(value, float | int) else value.astimezone()
    return local.strftime("%Y-%m-%d %H:%M")


def counted(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and its noun, singular for one: "1 session", "3 sessions" ("2 entries" with ``many``)."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


# How much of a question a message quotes back.
MOST_QUOTED = 80


def shortened(text: str, most: int) -> str:
    """``text`` when it has at most ``most`` characters, else its first ones and "…" in ``most``."""
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def quoted(text: str, most: int = MOST_QUOTED) -> str:
    """A question as a message quotes it back (``repr``'s quotes, terminal-safe), its first ``most``
    characters and an ellipsis when longer: an error pasted whole was printed back whole."""
    return repr(safe(shortened(" ".join(text.split()), most)))


# How many words a line names before it says how many more there are, and how much of each.
MOST_LISTED = 12
MOST_QUOTED_WORD = 40


def listed(words: list[str], most: int = MOST_LISTED) -> str:
    """``words`` joined by commas, up to ``most`` of them and how many more, each cut at
    :data:`MOST_QUOTED_WORD` characters: the words a question pasted whole (a traceback, a base64 blob)
    does not find run to hundreds, or one to thousands of characters, which a line or an agent's page
    should not."""
    shown = ", ".join(shortened(w, MOST_QUOTED_WORD) for w in words[:most])
    return shown if len(words) <= most else f"{shown} and {len(words) - most:,} more"


def byte_size(count: int) -> str:
    """A size for people: "820 bytes", "176 KB", "1.3 GB" (1,024 a step; a tenth below ten)."""
    if count < 1024:
        return counted(count, "byte")
    value = float(count)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            break
    return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"


def dollars(amount: float) -> str:
    """A known cost for people: cents for a dollar amount, the first digits of a smaller one (``$0.0009``,
    never a known cost rounded to ``$0.00``)."""
    if 0 < abs(amount) < 0.01:
        return f"${amount:.4f}" if abs(amount) >= 0.0001 else f"${amount:.2g}"
    return f"${amount:,.2f}"
