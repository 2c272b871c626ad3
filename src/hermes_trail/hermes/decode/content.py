"""Message content as Hermes stores it and reads it back.

Hermes binds structured content (multimodal part lists, dicts) as ``"\\x00json:" + json.dumps(value)``
(``SessionDB._encode_content``) and decodes it on read; a reserved prefix with invalid JSON behind it
stays the raw string it is (``_decode_content`` fails closed). When it loads a conversation it cleans
user and assistant text with ``sanitize_context`` (recalled ``<memory-context>`` blocks and their system
note removed) and strips it: the transcript is compared through the same lens.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from hermes_trail.hermes.decode.values import text as text_cell

CONTENT_PREFIX = "\x00json:"
IMAGE_PLACEHOLDER = "[image]"
_IMAGE_PART_TYPES = frozenset({"image_url", "image", "input_image"})
_TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})

_MEMORY_BLOCK = re.compile(r"<\s*memory-context\s*>[\s\S]*?</\s*memory-context\s*>", re.IGNORECASE)
_MEMORY_NOTE = re.compile(
    r"\[System note:\s*The following is recalled memory context,\s*NOT new user input\.\s*Treat as "
    r"(?:informational background data|authoritative reference data[^\]]*)\.\]\s*",
    re.IGNORECASE,
)
_MEMORY_TAG = re.compile(r"</?\s*memory-context\s*>", re.IGNORECASE)


@dataclass(slots=True)
class Content:
    """A content cell decoded: its text, the structured value when it had one, and any problems."""

    text: str
    structured: Any = None
    null: bool = False
    problems: list[str] = field(default_factory=list)


def sanitize_context(value: str) -> str:
    """Remove injected recall blocks the way Hermes does before it replays a turn."""
    value = _MEMORY_BLOCK.sub("", value)
    value = _MEMORY_NOTE.sub("", value)
    return _MEMORY_TAG.sub("", value)


def part_text(part: Any) -> str | None:
    """The text one content part contributes: its text, ``[image]`` for an image, nothing otherwise."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind in _IMAGE_PART_TYPES:
        return IMAGE_PLACEHOLDER
    value = part.get("text")
    if isinstance(value, str) and (kind in _TEXT_PART_TYPES or kind is None):
        return value
    return None


def structured_text(value: Any) -> str:
    """The text of decoded structured content: text parts joined by newlines, a dict's own text."""
    if isinstance(value, list):
        return "\n".join(t for t in (part_text(p) for p in value) if t is not None)
    if isinstance(value, dict):
        inner = part_text(value)
        if inner is not None:
            return inner
        for key in ("content", "output", "message"):
            found = value.get(key)
            if isinstance(found, str):
                return found
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def decode_content(value: Any, role: str | None = None) -> Content:
    """Decode a ``messages.content`` cell as Hermes' conversation loader does.

    :param role: user and assistant text is sanitized and stripped, as Hermes replays it.
    """
    if value is None:
        return Content(text="", null=True)
    raw, problem = text_cell(value, "content")
    problems = [problem] if problem else []
    assert raw is not None
    if raw.startswith(CONTENT_PREFIX):
        try:
            structured = json.loads(raw[len(CONTENT_PREFIX):])
        except (ValueError, RecursionError):
            problems.append("content has the \\x00json: prefix but no valid JSON after it; kept as text")
            return Content(text=raw, problems=problems)
        return Content(text=structured_text(structured), structured=structured, problems=problems)
    if role in ("user", "assistant"):
        raw = sanitize_context(raw).strip()
    return Content(text=raw, problems=problems)
