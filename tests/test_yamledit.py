"""Edits to a Hermes config.yaml: made on the text, everything else left as written, checked by parsing."""

from __future__ import annotations

import difflib

import pytest

from hermes_trail.integrations.hermes import yamledit
from hermes_trail.integrations.hermes.yamledit import ConfigEditError

ENTRY = {"command": "/opt/trail/bin/trail", "args": ["mcp", "--home", "/home/u/.hermes"]}

# Comments, a four-space block, a flow mapping, three quoting styles, a long line, YAML 1.1 words.
ODD = """\
# Hermes config, edited by hand
model:
  default: "anthropic/claude-sonnet-4"   # quoted on purpose
  provider: 'openrouter'
terminal: {backend: local, timeout: 180}
agent:
    max_turns: 90        # four spaces here
    personalities:
        - helpful
        - "concise"
plugins:
  enabled:
  - disk-cleanup    # keep
  disabled: []
mcp_servers:
  # the GitHub one
  github:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-github"]
long_line: this is a very long plain scalar that goes on and on past eighty columns, never re-wrapped
yes_value: yes
octal: 0755
empty:
memory:
  provider: ""

# trailing comment
"""


def only_added(before: str, after: str) -> list[str]:
    """The lines ``after`` adds; fails when it changes or removes any line of ``before``."""
    added = []
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        assert op in ("equal", "insert"), (op, before.splitlines()[a1:a2], after.splitlines()[b1:b2])
        if op == "insert":
            added += after.splitlines()[b1:b2]
    return added


def test_each_edit_only_adds_lines_to_a_hand_written_file():
    text, rewritten = yamledit.put_key(ODD, ["mcp_servers"], "trail", ENTRY)
    assert not rewritten
    assert only_added(ODD, text) == [
        "  trail:",
        '    command: "/opt/trail/bin/trail"',
        '    args: [mcp, "--home", "/home/u/.hermes"]',
    ]
    text2, rewritten = yamledit.append_item(text, ["plugins", "enabled"], "hermes-trail")
    assert not rewritten and only_added(text, text2) == ["  - hermes-trail"]
    data = yamledit.load_data(text2)
    assert data["mcp_servers"]["trail"] == ENTRY and data["plugins"]["enabled"] == [
        "disk-cleanup",
        "hermes-trail",
    ]
    assert list(data["mcp_servers"]) == ["trail", "github"]


def test_a_scalar_is_replaced_in_place_with_its_comment():
    text, rewritten = yamledit.set_scalar(
        "memory:\n  provider:   ''   # off for now\n", ["memory", "provider"], "trail"
    )
    assert not rewritten and text == "memory:\n  provider:   trail   # off for now\n"
    text, _ = yamledit.set_scalar(ODD, ["memory", "provider"], "trail")
    assert [line for line in text.splitlines() if "provider: trail" in line] == ["  provider: trail"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", 'mcp_servers:\n  trail:\n    command: "/x"\n'),
        ("# just a comment\n", '# just a comment\nmcp_servers:\n  trail:\n    command: "/x"\n'),
        ("model: m\n", 'model: m\nmcp_servers:\n  trail:\n    command: "/x"\n'),
        ("model: m", 'model: m\nmcp_servers:\n  trail:\n    command: "/x"\n'),
        ("mcp_servers: {}   # none\nx: 1\n", 'mcp_servers:  # none\n  trail:\n    command: "/x"\nx: 1\n'),
        ("mcp_servers:\nx: 1\n", 'mcp_servers:\n  trail:\n    command: "/x"\nx: 1\n'),
        ("a:\n    b: 1\n", 'a:\n    b: 1\nmcp_servers:\n    trail:\n        command: "/x"\n'),
        ("model: m\r\nx: 1\r\n", 'model: m\r\nx: 1\r\nmcp_servers:\r\n  trail:\r\n    command: "/x"\r\n'),
    ],
)
def test_put_key_on_the_text(before, after):
    assert yamledit.put_key(before, ["mcp_servers"], "trail", {"command": "/x"}) == (after, False)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("plugins:\n  enabled: []\n", "plugins:\n  enabled: [hermes-trail]\n"),
        ("plugins:\n  enabled: [a, 'b']  # two\n", "plugins:\n  enabled: [a, 'b', hermes-trail]  # two\n"),
        (
            "plugins:\n  enabled:\n    - a\n  x: 1\n",
            "plugins:\n  enabled:\n    - a\n    - hermes-trail\n  x: 1\n",
        ),
        ("plugins:\n  enabled:\n", "plugins:\n  enabled:\n    - hermes-trail\n"),
        ("plugins:\n  disabled: [x]\n", "plugins:\n  enabled: [hermes-trail]\n  disabled: [x]\n"),
        ("model: m\n", "model: m\nplugins:\n  enabled: [hermes-trail]\n"),
    ],
)
def test_append_item_on_the_text(before, after):
    assert yamledit.append_item(before, ["plugins", "enabled"], "hermes-trail") == (after, False)


@pytest.mark.parametrize(
    "before",
    [
        "mcp_servers: ~\n",
        "mcp_servers: null  # nothing\n",
        "{model: m}\n",
        "plugins: {enabled: [a]}\n",
        "mcp_servers: {github: {command: npx}}\n",
    ],
)
def test_shapes_left_to_the_round_trip_still_come_out_right(before):
    text, _ = yamledit.put_key(before, ["mcp_servers"], "trail", ENTRY)
    text, _ = yamledit.append_item(text, ["plugins", "enabled"], "hermes-trail")
    data, old = yamledit.load_data(text), yamledit.load_data(before)
    assert data["mcp_servers"]["trail"] == ENTRY and "hermes-trail" in data["plugins"]["enabled"]
    for key, value in old.items():
        if key not in ("mcp_servers", "plugins"):
            assert data[key] == value


@pytest.mark.parametrize(
    ("before", "message"),
    [
        ("- a\n- b\n", "does not hold a mapping"),
        ("mcp_servers: 3\n", "mcp_servers in config.yaml is not a mapping"),
        ("mcp_servers:\n  trail: {command: other}\n", "mcp_servers.trail is already in config.yaml"),
        ("model: [unclosed\n", "not valid YAML"),
    ],
)
def test_what_cannot_be_edited_is_refused(before, message):
    with pytest.raises(ConfigEditError, match=message.replace(".", r"\.").replace("[", r"\[")):
        yamledit.put_key(before, ["mcp_servers"], "trail", ENTRY)


def test_removal_by_round_trip():
    text, _ = yamledit.put_key(ODD, ["mcp_servers"], "trail", ENTRY)
    text, _ = yamledit.append_item(text, ["plugins", "enabled"], "hermes-trail")
    back = yamledit.remove(
        text, [("key", ["mcp_servers", "trail"], ENTRY), ("item", ["plugins", "enabled"], "hermes-trail")]
    )
    assert yamledit.load_data(back) == yamledit.load_data(ODD)
    assert "# the GitHub one" in back and "# trailing comment" in back and "'openrouter'" in back


@pytest.mark.parametrize(
    "before",
    [
        ODD,
        "plugins:\n  enabled: [a, 'b']  # two\n",
        "plugins:\n  enabled: []\n",
        "mcp_servers: {}   # none\nplugins:\n    enabled:\n        - x   # keep\n",
        "model: m\r\nx: 1\r\n",
        "",
    ],
)
def test_removal_on_the_text_gives_back_the_text(before):
    text, _ = yamledit.put_key(before, ["mcp_servers"], "trail", ENTRY)
    text, _ = yamledit.append_item(text, ["plugins", "enabled"], "hermes-trail")
    old = yamledit.load_data(before) or {}
    edits = [("key", ["mcp_servers", "trail"], ENTRY), ("item", ["plugins", "enabled"], "hermes-trail")]
    edits += [("prune", ["mcp_servers"], None)] if "mcp_servers" not in old else []
    if "plugins" not in old:
        edits += [("prune", ["plugins", "enabled"], None), ("prune", ["plugins"], None)]
    back = yamledit.remove(text, edits)
    if "mcp_servers: {}" in before:
        assert back == before.replace("mcp_servers: {}   # none", "mcp_servers:  # none")
    else:
        assert back == before
