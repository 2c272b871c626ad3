"""``tool_calls`` cells and the ids that pair results, as Hermes reads them.

The malformed cells (invalid JSON, a non-list, non-object entries) are hand-built: Hermes serialises the
list it holds with ``json.dumps``, so only damage or a foreign writer leaves them.
"""

from __future__ import annotations

import json

import pytest

from hermes_trail.hermes.decode.toolcalls import decode_tool_calls, id_variants, pairing_id

CALL = {
    "id": "call_a|fc_b",
    "call_id": "call_a",
    "response_item_id": "fc_b",
    "type": "function",
    "function": {"name": "terminal", "arguments": '{"command": "ls"}'},
}


def test_a_hermes_call_decodes_with_every_alias():
    (call,) = decode_tool_calls(json.dumps([CALL])).calls
    assert call.name == "terminal"
    assert call.arguments == {"command": "ls"}
    assert call.id == "call_a"
    assert set(call.aliases) == {"call_a", "call_a|fc_b", "fc_b"}


def test_a_lone_object_is_a_list_of_one():
    decoded = decode_tool_calls(json.dumps(CALL))
    assert [c.name for c in decoded.calls] == ["terminal"] and not decoded.problems


@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ("[{broken", "not valid JSON"),
        ("42", "JSON number, not a list"),
        ('"text"', "JSON string, not a list"),
    ],
)
def test_unreadable_cells_are_named_not_raised(cell, problem):
    decoded = decode_tool_calls(cell)
    assert decoded.calls == [] and problem in decoded.problems[0]


def test_bad_entries_are_named_while_the_valid_ones_still_count():
    decoded = decode_tool_calls(json.dumps([CALL, 7, None, "x", CALL]))
    assert len(decoded.calls) == 2
    where = [p.split(" is ")[0] for p in decoded.problems]
    assert where == ["tool_calls[1]", "tool_calls[2]", "tool_calls[3]"]


def test_arguments_that_are_not_json_are_kept_as_text():
    entry = {**CALL, "function": {"name": "x", "arguments": "{oops"}}
    (call,) = decode_tool_calls([entry]).calls
    assert call.arguments is None and call.arguments_text == "{oops"


def test_responses_style_entries_name_the_function_at_the_top():
    (call,) = decode_tool_calls(
        [{"type": "function_call", "call_id": "c1", "name": "web_search", "arguments": {"q": "x"}}]
    ).calls
    assert call.name == "web_search" and call.arguments == {"q": "x"} and call.id == "c1"


def test_id_variants_split_bridge_ids():
    assert id_variants(" a|b ") == ["a|b", "a", "b"]
    assert id_variants("") == [] and id_variants(None) == []
    assert pairing_id({"id": "x|y"}) == "x"
    assert pairing_id({"call_id": "c", "id": "i"}) == "c"
