"""Small edits to a Hermes ``config.yaml`` that leave everything else as the user wrote it.

An edit is made on the text: ``ruamel.yaml`` (round-trip mode) parses the file and says on which line and
column each key and item sits, and the new lines go in there, indented like their neighbours; nothing else
is rewritten, so comments, key order, quoting, blank lines and odd indentation all stay. Every result is
checked by parsing it again: it must hold exactly the old data plus the change. When a shape is not one of
those handled on the text (a flow mapping with entries, a ``null`` spelled out, a document that is not a
mapping), the whole file is written by ``ruamel.yaml``'s round trip instead, which keeps comments, key
order and quoting but may re-indent; that result is checked the same way.
"""

from __future__ import annotations

import copy
import io
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from hermes_trail.errors import TrailError


class ConfigEditError(TrailError):
    """A ``config.yaml`` that cannot be edited safely (unreadable YAML, not a mapping, a key in the way)."""


def _yaml_rt() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long line
    return yaml


def load_data(text: str) -> Any:
    """The plain data of a YAML text (what Hermes reads), for comparisons."""
    from ruamel.yaml import YAML

    try:
        return YAML(typ="safe", pure=True).load(text) if text.strip() else None
    except Exception as exc:
        raise ConfigEditError(f"config.yaml is not valid YAML: {exc}") from exc


def load_rt(text: str) -> Any:
    try:
        return _yaml_rt().load(text) if text.strip() else None
    except Exception as exc:
        raise ConfigEditError(f"config.yaml is not valid YAML: {exc}") from exc


def dump_rt(doc: Any) -> str:
    out = io.StringIO()
    _yaml_rt().dump(doc, out)
    return out.getvalue()


# Strings YAML reads back unchanged when written plain; anything else is double-quoted.
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def scalar(value: Any) -> str:
    """A value as YAML on one line: names plain, other strings double-quoted (JSON's escapes are YAML's),
    lists in flow style."""
    if isinstance(value, list):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name) else scalar(name)


def block(key: str, value: Any, indent: int, step: int) -> list[str]:
    """``key: value`` as block lines at ``indent``; a dict nests by ``step``."""
    pad = " " * indent
    if isinstance(value, dict):
        lines = [f"{pad}{_key(key)}:"]
        for k, v in value.items():
            lines += block(k, v, indent + step, step)
        return lines
    return [f"{pad}{_key(key)}: {scalar(value)}"]


# -- locating things in the text -------------------------------------------------------------------------
class _Text:
    """The file as lines, edited by line number; ``ends_nl`` keeps the last line's newline as it was."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def insert(self, at: int, new: Sequence[str]) -> None:
        if at >= len(self.lines) and self.lines and not self.lines[-1].endswith(("\n", "\r")):
            self.lines[-1] += self.newline
        self.lines[at:at] = [line + self.newline for line in new]

    def text(self) -> str:
        return "".join(self.lines)


def _rest_is_empty(line: str, col: int) -> bool:
    """Nothing but blanks or a comment from ``col`` on."""
    rest = line[col:].strip()
    return not rest or rest.startswith("#")


def _after_key(line: str, col: int) -> int:
    """The column just after ``key:`` that starts at ``col``."""
    colon = line.find(":", col)
    return colon + 1 if colon >= 0 else len(line)


def _key_at(mapping: Any, key: Any) -> tuple[int, int]:
    """Line and column of a key of a round-trip mapping."""
    line, col = mapping.lc.key(key)
    return int(line), int(col)


def _item_at(seq: Any, index: int) -> tuple[int, int]:
    line, col = seq.lc.item(index)
    return int(line), int(col)


def _at(node: Any) -> tuple[int, int]:
    """Line and column where a round-trip node starts."""
    return int(node.lc.line), int(node.lc.col)


def _starts(lines: list[str], node: Any, char: str) -> bool:
    """Whether the node's text starts with ``char`` (``{`` or ``[``: a flow collection)."""
    line, col = _at(node)
    return line < len(lines) and lines[line][col : col + 1] == char


def _node_at(doc: Any, path: Sequence[str]) -> Any:
    node = doc
    for name in path:
        if not isinstance(node, dict) or name not in node:
            return None
        node = node[name]
    return node


def _doc_step(doc: Any, lines: list[str]) -> int:
    """How far this file indents a mapping's children: the first nested block mapping's step, else 2."""
    for name in doc:
        child = doc[name]
        if isinstance(child, dict) and child and not _starts(lines, child, "{"):
            col = _key_at(child, next(iter(child)))[1]
            if col > 0:
                return int(col)
    return 2


def _split_newline(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body) :]


# -- the edits, on the text ------------------------------------------------------------------------------
def _put_key(text: str, path: Sequence[str], key: str, value: Any) -> str | None:
    """``text`` with ``path.key: value`` added to a mapping that lacks ``key``, creating the missing
    mappings of ``path``; ``None`` when the shape is not one handled on the text."""
    doc = load_rt(text)
    lines = _Text(text)
    if doc is None:  # empty, or only comments: the entry goes at the end
        lines.insert(len(lines.lines), block_path([*path, key], value, 0, 2))
        return lines.text()
    if not isinstance(doc, dict) or _is_flow(text, doc):
        return None
    step = _doc_step(doc, lines.lines)
    node: Any = doc
    key_line, key_col = -1, -step  # where the key of ``node`` is (none for the top level)
    for depth, name in enumerate(path):
        rest = [*path[depth + 1 :], key]
        if name not in node:
            return _insert_entry(lines, node, key_line, key_col, step, [*path[depth:], key], value)
        child = node[name]
        key_line, key_col = _key_at(node, name)
        body, newline = _split_newline(lines.lines[key_line])
        if child is None:
            if not _rest_is_empty(body, _after_key(body, key_col)):
                return None  # "mcp_servers: ~" or "null", spelled out: left to the round trip
            lines.insert(key_line + 1, block_path(rest, value, key_col + step, step))
            return lines.text()
        if not isinstance(child, dict):
            raise ConfigEditError(f"{'.'.join(path[: depth + 1])} in config.yaml is not a mapping")
        if _starts(lines.lines, child, "{"):
            line, col = _at(child)
            end = body.find("}", col)
            if child or line != key_line or end < 0:
                return None  # a flow mapping with entries, or over several lines
            # "mcp_servers: {}": the braces go, and the entry goes under the key as a block.
            tail = body[end + 1 :].strip()
            lines.lines[key_line] = body[:col].rstrip() + (f"  {tail}" if tail else "") + newline
            lines.insert(key_line + 1, block_path(rest, value, key_col + step, step))
            return lines.text()
        node = child
    if key in node:
        raise ConfigEditError(f"{'.'.join([*path, key])} is already in config.yaml")
    return _insert_entry(lines, node, key_line, key_col, step, [key], value)


def block_path(path: Sequence[str], value: Any, indent: int, step: int) -> list[str]:
    """Nested block lines for ``a.b.c: value``."""
    if len(path) == 1:
        return block(path[0], value, indent, step)
    return [f"{' ' * indent}{_key(path[0])}:", *block_path(path[1:], value, indent + step, step)]


def _insert_entry(
    lines: _Text, mapping: Any, key_line: int, key_col: int, step: int, keys: list[str], value: Any
) -> str | None:
    """Put ``keys: value`` into the block ``mapping`` whose own key is at ``key_line``/``key_col``: at the
    end of the file for the top level, else first, just under its key (comments above a child stay with
    it), at its children's column."""
    if not mapping:
        return None
    if key_line < 0:
        lines.insert(len(lines.lines), block_path(keys, value, 0, step))
        return lines.text()
    first_col = _key_at(mapping, next(iter(mapping)))[1]
    lines.insert(key_line + 1, block_path(keys, value, first_col, step))
    return lines.text()


def _is_flow(text: str, doc: Any) -> bool:
    stripped = re.sub(r"(?m)^\s*#.*$", "", text).lstrip()
    return stripped.startswith("{")


def _append_item(text: str, path: Sequence[str], item: str) -> str | None:
    """``text`` with ``item`` added to the sequence at ``path`` (which must exist, as a list or null)."""
    doc = load_rt(text)
    parent = _node_at(doc, path[:-1])
    name = path[-1]
    if not isinstance(parent, dict) or name not in parent:
        return None
    seq = parent[name]
    lines = _Text(text)
    key_line, key_col = _key_at(parent, name)
    if seq is None:
        if not _rest_is_empty(lines.lines[key_line], _after_key(lines.lines[key_line], key_col)):
            return None
        lines.insert(key_line + 1, [f"{' ' * (key_col + 2)}- {scalar(item)}"])
        return lines.text()
    if not isinstance(seq, list):
        raise ConfigEditError(f"{'.'.join(path)} in config.yaml is not a list")
    seq_line, seq_col = _at(seq)
    line = lines.lines[seq_line]
    if line[seq_col : seq_col + 1] == "[":
        end = _closing_bracket(line, seq_col)
        if end is None:
            return None  # a flow list over several lines
        inner = line[seq_col + 1 : end]
        joined = f"{inner.rstrip()}, {scalar(item)}" if inner.strip() else scalar(item)
        lines.lines[seq_line] = line[: seq_col + 1] + joined + line[end:]
        return lines.text()
    if not seq:
        return None
    item_line, item_col = _item_at(seq, len(seq) - 1)
    dash = lines.lines[item_line].rfind("-", 0, item_col)
    if dash < 0:
        return None
    lines.insert(item_line + 1, [f"{' ' * dash}- {scalar(item)}"])  # after the last item, one line long
    return lines.text()


def _closing_bracket(line: str, start: int) -> int | None:
    depth, quote = 0, ""
    for i in range(start, len(line)):
        c = line[i]
        if quote:
            if c == quote:
                quote = ""
            continue
        if c in "\"'":
            quote = c
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i
    return None


def _set_scalar(text: str, path: Sequence[str], value: str) -> str | None:
    """``text`` with the scalar at ``path`` replaced by ``value`` (the key must exist, with a scalar)."""
    doc = load_rt(text)
    parent = _node_at(doc, path[:-1])
    name = path[-1]
    if not isinstance(parent, dict) or name not in parent or isinstance(parent[name], dict | list):
        return None
    lines = _Text(text)
    key_line, key_col = _key_at(parent, name)
    line = lines.lines[key_line]
    start = _after_key(line, key_col)
    body = line[start:]
    m = re.match(r"([ \t]*)('(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|[^#\r\n]*?)([ \t]*(?:#.*)?)(\r?\n?)$", body)
    if m is None:
        return None
    space = m.group(1) or " "
    lines.lines[key_line] = line[:start] + space + scalar(value) + m.group(3) + m.group(4)
    return lines.text()


# -- checked edits ---------------------------------------------------------------------------------------
def _checked(
    text: str, expected: Any, attempt: Callable[[], str | None], fallback: Callable[[Any], None]
) -> tuple[str, bool]:
    """The text edit when it parses to ``expected``, else ruamel's round trip of ``fallback`` applied."""
    try:
        edited = attempt()
    except ConfigEditError:
        raise
    except Exception:  # an unexpected shape: the round trip below handles it
        edited = None
    if edited is not None:
        try:
            if load_data(edited) == expected:
                return edited, False
        except ConfigEditError:
            pass
    doc = load_rt(text)
    if doc is None:
        from ruamel.yaml.comments import CommentedMap

        doc = CommentedMap()
    if not isinstance(doc, dict):
        raise ConfigEditError("config.yaml does not hold a mapping at its top")
    fallback(doc)
    rewritten = dump_rt(doc)
    if load_data(rewritten) != expected:
        raise ConfigEditError("config.yaml could not be edited without changing other settings")
    return rewritten, True


def _walk(data: Any, path: Sequence[str], create: bool) -> Any:
    node = data
    for name in path:
        if node.get(name) is None and create:
            node[name] = {}
        node = node[name]
    return node


def put_key(text: str, path: Sequence[str], key: str, value: Any) -> tuple[str, bool]:
    """Add ``path.key: value``; the mapping must not hold ``key`` yet. Returns the text and whether the
    whole file was rewritten."""
    data = load_data(text) or {}
    if not isinstance(data, dict):
        raise ConfigEditError("config.yaml does not hold a mapping at its top")
    expected = copy.deepcopy(data)
    node = _walk(expected, path, create=True)
    if not isinstance(node, dict):
        raise ConfigEditError(f"{'.'.join(path)} in config.yaml is not a mapping")
    if key in node:
        raise ConfigEditError(f"{'.'.join([*path, key])} is already in config.yaml")
    node[key] = value

    def fallback(doc: Any) -> None:
        from ruamel.yaml.comments import CommentedMap

        target = doc
        for name in path:
            if target.get(name) is None:
                target[name] = CommentedMap()
            target = target[name]
        target[key] = value

    return _checked(text, expected, lambda: _put_key(text, path, key, value), fallback)


def append_item(text: str, path: Sequence[str], item: str) -> tuple[str, bool]:
    """Add ``item`` to the list at ``path``, creating the list (and its mappings) when missing."""
    data = load_data(text) or {}
    if not isinstance(data, dict):
        raise ConfigEditError("config.yaml does not hold a mapping at its top")
    parent = _node_at(data, path[:-1])
    if parent is None or path[-1] not in parent:
        return put_key(text, path[:-1], path[-1], [item])
    expected = copy.deepcopy(data)
    holder = _walk(expected, path[:-1], create=False)
    current = holder[path[-1]]
    if current is not None and not isinstance(current, list):
        raise ConfigEditError(f"{'.'.join(path)} in config.yaml is not a list")
    holder[path[-1]] = [*(current or []), item]

    def fallback(doc: Any) -> None:
        target = _walk(doc, path[:-1], create=False)
        if target[path[-1]] is None:
            target[path[-1]] = [item]
        else:
            target[path[-1]].append(item)

    return _checked(text, expected, lambda: _append_item(text, path, item), fallback)


def set_scalar(text: str, path: Sequence[str], value: str) -> tuple[str, bool]:
    """Set the scalar at ``path`` (created when missing)."""
    data = load_data(text) or {}
    parent = _node_at(data, path[:-1])
    if parent is None or path[-1] not in parent:
        return put_key(text, path[:-1], path[-1], value)
    expected = copy.deepcopy(data)
    _walk(expected, path[:-1], create=False)[path[-1]] = value

    def fallback(doc: Any) -> None:
        _walk(doc, path[:-1], create=False)[path[-1]] = value

    return _checked(text, expected, lambda: _set_scalar(text, path, value), fallback)


def _empty_list(text: str, path: Sequence[str]) -> str | None:
    """``text`` with the null at ``path`` (``key:`` left with nothing) written ``key: []``."""
    doc = load_rt(text)
    parent = _node_at(doc, path[:-1])
    name = path[-1]
    if not isinstance(parent, dict) or name not in parent or parent[name] is not None:
        return None
    lines = _Text(text)
    key_line, key_col = _key_at(parent, name)
    line, newline = _split_newline(lines.lines[key_line])
    start = _after_key(line, key_col)
    m = re.match(r"[ \t]*(?:~|null|Null|NULL)?([ \t]*(?:#.*)?)$", line[start:])
    if m is None:
        return None
    lines.lines[key_line] = line[:start] + " []" + m.group(1) + newline
    return lines.text()


def empty_list(text: str, path: Sequence[str]) -> tuple[str, bool]:
    """Make a null at ``path`` an empty list (a list setting must stay a list: ``plugins.enabled: []``)."""
    data = load_data(text) or {}
    parent = _node_at(data, path[:-1])
    if not isinstance(parent, dict) or path[-1] not in parent or parent[path[-1]] is not None:
        return text, False
    expected = copy.deepcopy(data)
    _walk(expected, path[:-1], create=False)[path[-1]] = []

    def fallback(doc: Any) -> None:
        _walk(doc, path[:-1], create=False)[path[-1]] = []

    return _checked(text, expected, lambda: _empty_list(text, path), fallback)


def _block_end(lines: list[str], key_line: int, key_col: int) -> int:
    """The index just past the last line of the entry whose key is at ``key_line``/``key_col``: the lines
    indented deeper (and a block list's items at the key's own column), blank lines inside included."""
    end = key_line + 1
    for i in range(key_line + 1, len(lines)):
        body = lines[i].strip()
        if not body:
            continue
        indent = len(lines[i]) - len(lines[i].lstrip(" "))
        if indent < key_col or (indent == key_col and not body.startswith("- ")):
            break
        end = i + 1
    return end


def _delete_key(text: str, path: Sequence[str]) -> str | None:
    """``text`` without the entry at ``path`` (a key of a block mapping), its lines cut out."""
    doc = load_rt(text)
    parent = _node_at(doc, path[:-1])
    lines = _Text(text)
    if not isinstance(parent, dict) or path[-1] not in parent:
        return None
    if path[:-1] and _starts(lines.lines, parent, "{"):
        return None
    key_line, key_col = _key_at(parent, path[-1])
    if lines.lines[key_line][:key_col].strip():
        return None  # not the first thing on its line: a flow or compact form
    del lines.lines[key_line : _block_end(lines.lines, key_line, key_col)]
    return lines.text()


def _split_flow(inner: str) -> list[str]:
    """The items of a one-line flow list's inside, as written (commas inside quotes or brackets kept)."""
    items, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(inner):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [item for item in items if item.strip()]


def _delete_item(text: str, path: Sequence[str], item: Any) -> str | None:
    """``text`` without the first ``item`` of the list at ``path``."""
    doc = load_rt(text)
    seq = _node_at(doc, path)
    if not isinstance(seq, list) or item not in seq:
        return None
    lines = _Text(text)
    seq_line, seq_col = _at(seq)
    line = lines.lines[seq_line]
    if line[seq_col : seq_col + 1] == "[":
        end = _closing_bracket(line, seq_col)
        if end is None:
            return None
        parts = _split_flow(line[seq_col + 1 : end])
        values = [load_data(f"x: {part.strip()}")["x"] for part in parts]
        if item not in values:
            return None
        del parts[values.index(item)]
        inner = ",".join(parts).strip()
        lines.lines[seq_line] = line[: seq_col + 1] + inner + line[end:]
        return lines.text()
    item_line, _ = _item_at(seq, list(seq).index(item))
    del lines.lines[item_line]
    return lines.text()


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, dict | list) and not value)


def _same(a: Any, b: Any) -> bool:
    """Equal data, an empty list or mapping counting as nothing (``key:`` and ``key: []`` alike)."""
    if _empty(a) and _empty(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _remove_on_text(text: str, edits: Sequence[tuple[str, Sequence[str], Any]]) -> str | None:
    for action, path, value in edits:
        data = load_data(text) or {}
        parent = _node_at(data, path[:-1])
        name = path[-1]
        if not isinstance(parent, dict) or name not in parent:
            continue
        edited: str | None = text
        if action == "key" and parent[name] == value:
            edited = _delete_key(text, path)
        elif action == "item" and isinstance(parent[name], list) and value in parent[name]:
            edited = _delete_item(text, path, value)
        elif action == "scalar":
            edited = _delete_key(text, path) if value is None else _set_scalar(text, path, value)
        elif action == "prune" and _empty(parent[name]):
            edited = _delete_key(text, path)
        if edited is None:
            return None
        text = edited
    return text


def remove(text: str, edits: Sequence[tuple[str, Sequence[str], Any]]) -> str:
    """Undo edits: each ``(action, path, value)`` is ``("key", path, value)`` (delete the key when it still
    holds ``value``), ``("item", path, item)`` (remove the item from the list), ``("scalar", path, before)``
    (put the old value back, or delete the key when there was none), or ``("prune", path, None)`` (delete
    the mapping or list if it is now empty). Made on the text when the result holds what it should, else by
    the round trip, checked the same way."""
    expected = copy.deepcopy(load_data(text))
    if not isinstance(expected, dict):
        return text
    _undo(expected, edits, lambda node: node)
    try:
        edited = _remove_on_text(text, edits)
        if edited is not None and _same(load_data(edited), expected):
            return edited
    except Exception:  # an unexpected shape: the round trip below
        pass
    doc = load_rt(text)
    _undo(doc, edits, lambda node: load_data(dump_rt({"x": node}))["x"])
    rewritten = dump_rt(doc) if doc else ""
    if not _same(load_data(rewritten), expected):
        raise ConfigEditError("config.yaml could not be edited without changing other settings")
    return rewritten


def _undo(doc: Any, edits: Sequence[tuple[str, Sequence[str], Any]], plain: Callable[[Any], Any]) -> None:
    """Apply the undo ``edits`` to ``doc`` (plain data, or ruamel's round-trip nodes read through
    ``plain``)."""
    for action, path, value in edits:
        parent = _node_at(doc, path[:-1])
        name = path[-1]
        if not isinstance(parent, dict) or name not in parent:
            continue
        if action == "key" and plain(parent[name]) == value:
            del parent[name]
        elif action == "item" and isinstance(parent[name], list) and value in parent[name]:
            parent[name].remove(value)
        elif action == "scalar":
            if value is None:
                del parent[name]
            else:
                parent[name] = value
        elif action == "prune" and _empty(parent[name]):
            del parent[name]
