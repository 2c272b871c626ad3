"""An Agent Session Format reader for the tests, written from RFC 0001 (draft 0.10) apart from the writer.

It checks what the RFC requires of a file (header and envelope members, each entry's content hash and
envelope hash recomputed, parents before children, no reserved names in a body, one spelling of ``ts``),
what the Open Responses profile requires of the items this converter writes, the rules about calls
(unique ``call_id``, an output or a decision naming a call on its path), and the compaction, decision,
link and label members; then it builds the context of the leaf as the RFC's context algorithm says.
Its canonical JSON is its own, enough for the values a session holds: strings, integers, booleans, null
and doubles written by Python's shortest form.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:[0-5]\d:[0-5]\d(\.\d{0,8}[1-9])?Z$")
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
ENVELOPE = ("id", "type", "parent", "parents", "ts")
RESERVED = {"id", "type", "parent", "parents", "ts", "content"}
CORE = {
    "item",
    "response",
    "config",
    "compaction",
    "branch_summary",
    "run",
    "dispatch",
    "decision",
    "queued",
    "label",
    "info",
    "env",
    "outcome",
    "link",
    "custom",
}
NAME = re.compile(r"^[a-zA-Z0-9_-]+$")


class Invalid(AssertionError):
    """The file breaks a rule; the message says which line and rule."""


def _number(value: float) -> str:
    """ECMAScript's form of a double: plain between 1e-6 and 1e21, else d.ddde±n."""
    if value == 0:
        return "0"
    if 1e-6 <= abs(value) < 1e21:
        text = format(Decimal(repr(value)), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa, _, exponent = f"{value:e}".partition("e")
    digits = repr(value).partition("e")[0] if "e" in repr(value) else mantissa
    return f"{digits}e{'+' if int(exponent) > 0 else '-'}{abs(int(exponent))}"


def _canon(value: Any) -> str:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _canon(v) for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_canon(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def sha(value: Any) -> str:
    return "sha256:" + hashlib.sha256(_canon(value).encode("utf-8")).hexdigest()


def _content(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ENVELOPE}


def entry_id(entry: dict[str, Any]) -> str:
    envelope = {
        "type": entry["type"],
        "parent": entry["parent"],
        "ts": entry["ts"],
        "content": sha(_content(entry)),
    }
    if entry.get("parents"):
        envelope["parents"] = entry["parents"]
    return sha(envelope)


def _text_parts(parts: Any, allowed: set[str], where: str) -> None:
    if isinstance(parts, str):
        return
    if not isinstance(parts, list) or not parts:
        raise Invalid(f"{where}: content must be a string or a list of parts")
    for part in parts:
        if not isinstance(part, dict) or part.get("type") not in allowed:
            raise Invalid(f"{where}: content part {part!r} is not one of {sorted(allowed)}")
        if part["type"] in ("input_text", "output_text", "summary_text", "reasoning_text") and not isinstance(
            part.get("text"), str
        ):
            raise Invalid(f"{where}: a text part needs its text")


def check_item(item: Any, where: str) -> None:
    """An Open Responses item of the kinds a Hermes session becomes."""
    if not isinstance(item, dict):
        raise Invalid(f"{where}: an item is an object")
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        if role == "assistant":
            _text_parts(item.get("content"), {"output_text", "refusal"}, where)
        elif role in ("user", "system", "developer"):
            allowed = {"input_text", "input_image", "input_file"} if role == "user" else {"input_text"}
            _text_parts(item.get("content"), allowed, where)
        else:
            raise Invalid(f"{where}: message role {role!r}")
    elif kind == "function_call":
        call_id, name = item.get("call_id"), item.get("name")
        if not isinstance(call_id, str) or not 1 <= len(call_id) <= 64:
            raise Invalid(f"{where}: call_id must be 1 to 64 characters")
        if not isinstance(name, str) or not 1 <= len(name) <= 64 or not NAME.match(name):
            raise Invalid(f"{where}: function name {name!r}")
        if not isinstance(item.get("arguments"), str):
            raise Invalid(f"{where}: arguments must be a JSON string")
    elif kind == "function_call_output":
        if not isinstance(item.get("call_id"), str) or not item["call_id"]:
            raise Invalid(f"{where}: an output names its call")
        if not isinstance(item.get("output"), str | list):
            raise Invalid(f"{where}: output must be a string or parts")
    elif kind == "reasoning":
        if not isinstance(item.get("summary"), list):
            raise Invalid(f"{where}: reasoning needs a summary list")
        if "content" in item and item["content"] is not None:
            if not isinstance(item.get("id"), str):
                raise Invalid(f"{where}: reasoning with content is the output form, which has an id")
            _text_parts(item["content"], {"reasoning_text"}, where)
    elif kind == "item_reference":
        raise Invalid(f"{where}: a writer must not write an item_reference")
    else:
        raise Invalid(f"{where}: unknown item type {kind!r}")


@dataclass
class Session:
    header: dict[str, Any]
    entries: list[dict[str, Any]]
    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    leaf: str | None = None

    def path(self, entry_id: str | None) -> list[dict[str, Any]]:
        """Root to ``entry_id``, following ``parent`` alone."""
        out = []
        while entry_id is not None:
            entry = self.by_id[entry_id]
            out.append(entry)
            entry_id = entry["parent"]
        return out[::-1]

    def context(self, leaf: str | None = None) -> list[dict[str, Any]]:
        """The item list of the request the leaf's path rebuilds (the RFC's context building, steps 1-4)."""
        path = self.path(leaf or self.leaf)
        last = max((i for i, e in enumerate(path) if e["type"] == "compaction"), default=None)

        def items(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for entry in entries:
                if entry["type"] == "item":
                    out.append(entry["item"])
                elif entry["type"] == "branch_summary":
                    out.append(entry["summary"])
            return out

        if last is None:
            return items(path)
        fold = path[last]
        first = next(i for i, e in enumerate(path) if e["id"] == fold["first_kept"])
        return [fold["summary"], *fold.get("pinned", []), *items(path[first:last]), *items(path[last + 1 :])]


def read(text: str) -> Session:
    """Parse and check a whole file; raise :class:`Invalid` naming the first rule broken."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise Invalid("empty file")
    header = json.loads(lines[0])
    for name in ("type", "format", "id", "created_at", "payload"):
        if name not in header:
            raise Invalid(f"header: {name} is required")
    if header["type"] != "session" or not re.match(r"^agentsession/\d+\.\d+$", header["format"]):
        raise Invalid("header: type must be session and format agentsession/<major>.<minor>")
    if not RFC3339.match(header["created_at"]) or not header["payload"].startswith("openresponses/"):
        raise Invalid("header: created_at must be RFC 3339 and payload openresponses/<date>")
    session = Session(header, [])
    calls: dict[str, str] = {}  # call_id -> entry holding the function_call
    for number, line in enumerate(lines[1:], start=2):
        entry = json.loads(line)
        where = f"line {number} ({entry.get('type')})"
        for name in ("type", "id", "parent", "ts"):
            if name not in entry:
                raise Invalid(f"{where}: {name} is required")
        if entry["type"] not in CORE and ":" not in entry["type"]:
            raise Invalid(f"{where}: unknown core type")
        if not TS.match(entry["ts"]):
            raise Invalid(f"{where}: ts {entry['ts']!r} is not the one spelling")
        if RESERVED & set(_content(entry)):
            raise Invalid(f"{where}: body carries a reserved name")
        if entry_id(entry) != entry["id"]:
            raise Invalid(f"{where}: id does not verify")
        if entry["parent"] is not None and entry["parent"] not in session.by_id:
            raise Invalid(f"{where}: parent does not appear earlier")
        if entry["id"] in session.by_id:
            raise Invalid(f"{where}: the same entry twice")
        session.by_id[entry["id"]] = entry
        session.entries.append(entry)
        on_path = {e["id"] for e in session.path(entry["id"])}
        kind = entry["type"]
        if kind == "item":
            check_item(entry["item"], where)
            item = entry["item"]
            if item["type"] == "function_call":
                if item["call_id"] in calls:
                    raise Invalid(f"{where}: call_id {item['call_id']!r} repeated")
                calls[item["call_id"]] = entry["id"]
            if item["type"] == "function_call_output" and calls.get(item["call_id"]) not in on_path:
                raise Invalid(f"{where}: output for a call not on its path")
        elif kind == "compaction":
            for name in ("first_kept", "summary", "config"):
                if name not in entry:
                    raise Invalid(f"{where}: {name} is required")
            if entry["first_kept"] not in on_path or entry["first_kept"] == entry["id"]:
                raise Invalid(f"{where}: first_kept must name an entry on the path")
            check_item(entry["summary"], where)
            for pinned in entry.get("pinned", []):
                check_item(pinned, where)
            if not isinstance(entry["config"], dict) or any(
                k in entry["config"] for k in ("tools_added", "replace")
            ):
                raise Invalid(f"{where}: config is a full checkpoint")
        elif kind == "decision":
            if entry.get("verdict") not in ("proceed", "reject", "hold", "answer"):
                raise Invalid(f"{where}: verdict")
            target = session.by_id.get(entry.get("target", ""))
            if (
                target is None
                or target["id"] not in on_path
                or target.get("item", {}).get("call_id") != entry.get("call_id")
            ):
                raise Invalid(f"{where}: target must be the call's function_call on the path")
            if entry["verdict"] == "reject" and not entry.get("reason"):
                raise Invalid(f"{where}: a reject carries its reason")
            if "by" in entry and entry["by"] not in ("human", "policy", "agent"):
                raise Invalid(f"{where}: by")
        elif kind == "link":
            if entry.get("rel") not in ("subsession", "fork_of", "continued_in") or not entry.get("session"):
                raise Invalid(f"{where}: link rel and session")
        elif kind == "label":
            if entry.get("target") not in session.by_id:
                raise Invalid(f"{where}: label target")
        elif kind == "custom" and "ns" not in entry:
            raise Invalid(f"{where}: custom needs ns")
    session.leaf = _leaf(session)
    return session


def _leaf(session: Session) -> str | None:
    """The resume rule: the newest entry after the last leaf label in force that descends from its target."""
    labels = [e for e in session.entries if e["type"] == "label" and e.get("label") == "leaf"]
    if not labels:
        return session.entries[-1]["id"] if session.entries else None
    label = labels[-1]
    after = session.entries[session.entries.index(label) + 1 :]
    for entry in reversed(after):
        if label["target"] in {e["id"] for e in session.path(entry["id"])}:
            return entry["id"]
    return label["target"]
