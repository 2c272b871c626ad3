"""Each ``--json`` shape against its own table in docs/json.md (issue 16): the keys a serializer really
prints for a shape are exactly the keys documented under that shape's heading, not merely somewhere in the
document. A key added without its line in the table, or documented but never printed, fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hermes_trail import serialize
from hermes_trail.fleet.machines import Machine, machine_json
from hermes_trail.hermes.locate import Note
from hermes_trail.model import Stray
from test_docs import _sample

DOC = (Path(__file__).parents[1] / "docs" / "json.md").read_text()


def tables() -> dict[str, list[str]]:
    """Each heading's first key table: heading text (``### Session``, ``## `trail fix <error> --json```) to
    its keys, in order."""
    out: dict[str, list[str]] = {}
    heading = None
    for line in DOC.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            continue
        found = re.match(r"^\| `([a-z_0-9]+)` \|", line)
        if heading is not None and found:
            out.setdefault(heading, []).append(found.group(1))
    return out


TABLES = tables()


def documented(heading: str) -> set[str]:
    keys = TABLES.get(heading)
    assert keys, f"docs/json.md has no key table under {heading!r}"
    assert len(keys) == len(set(keys)), f"a key listed twice under {heading!r}"
    return set(keys)


def shapes() -> list[tuple[str, dict[str, Any]]]:
    """Every shape the serializers print, as printed for a session that has each part."""
    session = _sample()
    turn = session.turns[0]
    call = turn.tool_calls[0]
    assert call.result is not None and call.command is not None
    detail = serialize.session_detail_json(session)
    return [
        ("Session", serialize.session_json(session)),
        ("SessionDetail", {k: v for k, v in detail.items() if k not in serialize.session_json(session)}),
        ("Turn", serialize.turn_json(turn)),
        ("ToolCall", serialize.call_json(call)),
        ("ToolResult", serialize.result_json(call.result)),
        ("Command", serialize.command_json(call.command) or {}),
        ("Permission", serialize.permission_json(call.permission) or {}),
        ("FileEdit", serialize.edit_json(call.edits[0])),
        ("Stray", serialize.stray_json(Stray(where="w", reason="r", value="v"))),
        ("Note", serialize.note_json(Note("p", "r"))),
        ("Cost", serialize.cost_json(session.usage)),
        ("Tokens", serialize.tokens_json(session.usage)),
        ("Recovered", serialize.recovery_json(session.recovered) or {}),
        ("Host", machine_json(Machine("laptop", True, None, 1, 2, 0, "0.1.0"))),
    ]


@pytest.mark.parametrize(("heading", "printed"), shapes(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_shape_prints_exactly_its_documented_keys(heading, printed):
    assert printed, f"the sample prints no {heading}"
    assert set(printed) == documented(heading), heading


@pytest.mark.parametrize("name", sorted(serialize.RECORD_KEYS))
def test_each_index_result_prints_exactly_its_documented_keys(name):
    heading = "`trail fix <error> --json`" if name == "FixReport" else name
    assert set(serialize.RECORD_KEYS[name]) == documented(heading)


def test_a_result_type_without_declared_keys_is_refused():
    from dataclasses import dataclass

    @dataclass
    class Unheard:
        secret: str = "x"

    with pytest.raises(TypeError, match="RECORD_KEYS"):
        serialize.record_json(Unheard())
