"""An assistant row's ``tool_calls`` and the ids that pair a ``tool`` row's result to its call.

Hermes stores ``tool_calls`` as a JSON array of OpenAI-style calls (``{id, call_id, response_item_id,
type, function: {name, arguments}}``); a lone object is read as a list of one (``_as_list``). A result
names its call by ``tool_call_id``, and Hermes matches every spelling of both sides
(``tool_call_id_variants``): ``call_id``, ``id`` and ``response_item_id``, trimmed, and each part of a
bridge id ``"<call_id>|<item id>"``. The id it pairs by is ``call_id`` before ``id``
(``coalesce_tool_call_id``), the part before the bar of a bridge id.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from hermes_trail.model import ToolCall, _Record


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class DecodedCalls(_Record):
    """The calls that decoded, and why each part that did not was left out."""

    _fields: ClassVar[tuple[str, ...]] = ("calls", "problems")
    __slots__ = _fields
    calls: list[ToolCall]
    problems: list[str]

    def __init__(self, calls: list[ToolCall] | None = None, problems: list[str] | None = None) -> None:
        self.calls = [] if calls is None else calls
        self.problems = [] if problems is None else problems


def id_variants(value: Any) -> list[str]:
    """Every spelling a single id answers to: itself trimmed, and each side of ``a|b``."""
    if not isinstance(value, str):
        return []
    value = value.strip()
    if not value:
        return []
    out = [value]
    if "|" in value:
        out.extend(part.strip() for part in value.split("|") if part.strip())
    return out


_JSON_TYPES = {dict: "object", list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages a person reads."""
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _aliases(entry: dict[str, Any]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for key in ("call_id", "id", "response_item_id"):
        for variant in id_variants(entry.get(key)):
            seen.setdefault(variant, None)
    return tuple(seen)


def pairing_id(entry: dict[str, Any]) -> str | None:
    """The id Hermes pairs a call by: ``call_id`` before ``id``, the part before ``|`` of a bridge id."""
    for key in ("call_id", "id"):
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().split("|", 1)[0].strip() or value.strip()
    return None


def _arguments(raw: Any) -> tuple[str, dict[str, Any] | None]:
    if raw is None:
        return "{}", {}
    if isinstance(raw, dict):
        return json.dumps(raw, ensure_ascii=False), raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):
            return raw, None
        return raw, value if isinstance(value, dict) else None
    return json.dumps(raw, ensure_ascii=False), None


def decode_call(entry: dict[str, Any]) -> ToolCall:
    """One call object; a Responses-style entry with ``name``/``arguments`` at the top is read too."""
    function = entry.get("function")
    source = function if isinstance(function, dict) else entry
    name = source.get("name")
    text, args = _arguments(source.get("arguments"))
    return ToolCall(
        id=pairing_id(entry),
        aliases=_aliases(entry),
        name=name if isinstance(name, str) else "",
        arguments_text=text,
        arguments=args,
        raw=entry,
    )


def decode_tool_calls(value: Any) -> DecodedCalls:
    """Decode a ``tool_calls`` cell. Bad JSON, a non-list and non-object entries are named, never raised;
    the valid entries still count."""
    out = DecodedCalls()
    if value is None or value == "":
        return out
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            out.problems.append("tool_calls is not valid JSON")
            return out
    else:
        parsed = value
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        out.problems.append(f"tool_calls is a JSON {json_type(parsed)}, not a list of calls")
        return out
    for index, entry in enumerate(parsed):
        if isinstance(entry, dict):
            out.calls.append(decode_call(entry))
        else:
            out.problems.append(f"tool_calls[{index}] is a JSON {json_type(entry)}, not a call object")
    return out
