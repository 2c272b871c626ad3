"""Message content as Hermes stores it and reads it back.

Hermes binds structured content (multimodal part lists, dicts) as ``"\\x00json:" + json.dumps(value)``
(``SessionDB._encode_content``) and decodes it on read; a reserved prefix with invalid JSON behind it
stays the raw string it is (``_decode_content`` fails closed). When it loads a conversation it cleans
user and assistant text with ``sanitize_context`` (recalled ``<memory-context>`` blocks and their system
note removed) and strips it: the transcript is compared through the same lens.

An image part is read as Hermes' adapters read it (``run_agent``, ``agent/anthropic_adapter.py``): the URL
of an ``image_url``/``input_image`` part is ``image_url.url``, or ``image_url`` itself when it is a string;
an Anthropic ``image`` part holds a ``source`` (base64 ``data`` and ``media_type``, or a ``url``). The part
is kept whole (:class:`~hermes_trail.model.Image`: media type, size, the URL) and the text holds a label
naming it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, ClassVar

from hermes_trail.hermes.decode.values import text as text_cell
from hermes_trail.model import Image, _Record

CONTENT_PREFIX = "\x00json:"
IMAGE_PLACEHOLDER = "[image]"
# The placeholder an image leaves in a turn's text: ``[image]`` when the part names nothing, else its label.
IMAGE_LABEL = re.compile(r"\[image(?:: [^\]\n]*)?\]")
_IMAGE_PART_TYPES = frozenset({"image_url", "image", "input_image"})
_TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})

_MEMORY_BLOCK = re.compile(r"<\s*memory-context\s*>[\s\S]*?</\s*memory-context\s*>", re.IGNORECASE)
_MEMORY_NOTE = re.compile(
    r"\[System note:\s*The following is recalled memory context,\s*NOT new user input\.\s*Treat as "
    r"(?:informational background data|authoritative reference data[^\]]*)\.\]\s*",
    re.IGNORECASE,
)
_MEMORY_TAG = re.compile(r"</?\s*memory-context\s*>", re.IGNORECASE)


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Content(_Record):
    """A content cell decoded: its text, the structured value when it had one, and any problems."""

    _fields: ClassVar[tuple[str, ...]] = ("text", "structured", "null", "problems", "images")
    __slots__ = _fields
    text: str
    structured: Any
    null: bool
    problems: list[str]
    images: list[Image]

    def __init__(
        self,
        text: str,
        structured: Any = None,
        null: bool = False,
        problems: list[str] | None = None,
        images: list[Image] | None = None,
    ) -> None:
        self.text = text
        self.structured = structured
        self.null = null
        self.problems = [] if problems is None else problems
        self.images = [] if images is None else images


def sanitize_context(value: str) -> str:
    """Remove injected recall blocks the way Hermes does before it replays a turn."""
    value = _MEMORY_BLOCK.sub("", value)
    value = _MEMORY_NOTE.sub("", value)
    return _MEMORY_TAG.sub("", value)


_DATA_URL = re.compile(r"\Adata:([^;,]*)((?:;[^;,]*)*),", re.IGNORECASE)


def _data_size(url: str) -> tuple[str | None, int | None]:
    """A ``data:`` URL's media type and the size of what it holds (``None`` when it cannot tell)."""
    found = _DATA_URL.match(url)
    if found is None:
        return None, None
    media = found.group(1).strip().lower() or None
    payload = url[found.end() :]
    if ";base64" not in found.group(2).lower():
        return media, len(payload.encode())
    try:
        return media, len(base64.b64decode(payload + "=" * (-len(payload) % 4), validate=False))
    except (binascii.Error, ValueError):
        return media, None


def _part_type(part: dict[str, Any]) -> str | None:
    """A content part's ``type``; one that is no name (a list, an object: a damaged row) is an unknown
    type, ``""``, never an error."""
    kind = part.get("type")
    return kind if kind is None or isinstance(kind, str) else ""


def image_of(part: Any) -> Image | None:
    """The image an image content part holds, by the rule in the module docstring; ``None`` for others."""
    if not isinstance(part, dict) or _part_type(part) not in _IMAGE_PART_TYPES:
        return None
    value = part.get("image_url")
    url = value.get("url") if isinstance(value, dict) else value
    media: str | None = None
    source = part.get("source")
    if not isinstance(url, str) and isinstance(source, dict):
        media = source.get("media_type") if isinstance(source.get("media_type"), str) else None
        if isinstance(source.get("data"), str):
            url = f"data:{media or 'application/octet-stream'};base64,{source['data']}"
        elif isinstance(source.get("url"), str):
            url = source["url"]
    if not isinstance(url, str) or not url:
        return Image(media_type=media, size=None, url="")
    if url.lower().startswith("data:"):
        found, size = _data_size(url)
        return Image(media_type=media or found, size=size, url=url)
    return Image(media_type=media, size=None, url=url)


def part_text(part: Any) -> str | None:
    """The text one content part contributes: its text, an image's label, nothing otherwise."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind = _part_type(part)
    if kind in _IMAGE_PART_TYPES:
        image = image_of(part)
        return image.label if image is not None and image.url else IMAGE_PLACEHOLDER
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


def images_of(value: Any) -> list[Image]:
    """The images of decoded structured content, in order (a part list's, or a single part's)."""
    parts = value if isinstance(value, list) else [value]
    return [image for image in (image_of(p) for p in parts) if image is not None and image.url]


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
            structured = json.loads(raw[len(CONTENT_PREFIX) :])
        except (ValueError, RecursionError):
            problems.append("content has the \\x00json: prefix but no valid JSON after it; kept as text")
            return Content(text=raw, problems=problems)
        return Content(
            text=structured_text(structured),
            structured=structured,
            problems=problems,
            images=images_of(structured),
        )
    if role in ("user", "assistant"):
        raw = sanitize_context(raw).strip()
    return Content(text=raw, problems=problems)
