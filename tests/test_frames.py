"""What hermes-trail puts into a turn is recognised and taken out before indexing (frames.py)."""

from __future__ import annotations

import pytest

from hermes_trail.frames import (
    FIX_CLOSE,
    FIX_OPEN,
    FRAME_CLOSE,
    FRAME_OPEN,
    is_own_tool,
    is_reading_command,
    strip_injected,
)


def test_text_without_frames_is_the_same_object():
    text = "Run the migrations, then restart the worker."
    assert strip_injected(text) is text


def test_recall_and_fix_frames_are_cut_out_whole():
    text = (
        f"Why does deploy fail?\n\n{FRAME_OPEN}\nRecords …\n- [2026-11-02] s1: zebracorn\n{FRAME_CLOSE}"
        f"\n\nthen {FIX_OPEN}\n- `pip install zebracorn`\n{FIX_CLOSE} done"
    )
    assert strip_injected(text) == "Why does deploy fail?\n\nthen  done"


def test_a_frame_cut_short_goes_to_the_end():
    assert strip_injected(f"output\n\n{FIX_OPEN}\n- `make` worked in 2 conv") == "output"


def test_markers_in_any_case_and_with_attributes():
    assert strip_injected("a <TRAIL-RECALL id=1>x</Trail-Recall> b") == "a  b"


def test_hermes_memory_fence_around_a_recall_goes_with_it():
    fence = (
        "<memory-context>\n[System note: The following is recalled memory context, NOT new user input.]"
        f"\n\n{FRAME_OPEN}\n- zebracorn\n{FRAME_CLOSE}\n</memory-context>"
    )
    assert strip_injected(f"Fix the build\n\n{fence}") == "Fix the build"


def test_another_providers_memory_fence_stays():
    fence = "<memory-context>\nthe user likes tabs\n</memory-context>"
    text = f"Fix the build\n\n{fence}\n\n{FRAME_OPEN}x{FRAME_CLOSE}"
    assert strip_injected(text) == f"Fix the build\n\n{fence}"


@pytest.mark.parametrize(
    ("name", "own"),
    [
        ("trail_recall", True),
        ("trail_fix", True),
        ("trail_blame", True),
        ("mcp_trail_recall", True),
        ("mcp_trail_search", True),
        ("mcp__trail__recall", True),
        ("mcp__trail__fix", True),
        ("terminal", False),
        ("mcp_github_search", False),
        ("mcp__github__search", False),
        (None, False),
        ("trail", False),
        ("mcp__trailhead__x", False),
    ],
)
def test_own_tools(name, own):
    assert is_own_tool(name) is own


@pytest.mark.parametrize(
    ("command", "reading"),
    [
        ('trail recall "staging db"', True),
        ("/home/u/.local/bin/trail fix 'ModuleNotFoundError'", True),
        ("cd /src/api && trail search deploy --json | head", True),
        ("python -m hermes_trail blame src/app.py", True),
        ("trail index", False),
        ("trail install hermes", False),
        ("echo trail is nice", False),
        ("git log --oneline", False),
        ("", False),
        ("trail recall 'unbalanced", True),
    ],
)
def test_reading_commands(command, reading):
    assert is_reading_command(command) is reading


MCP_DOCS = ("mcp.md", "hermes.md")


def test_every_name_hermes_gives_the_mcp_servers_tools():
    """Hermes' own naming (0.19: ``mcp__<server>__<tool>``), read from its source, for every tool trail's
    MCP server lists, and Hermes' utility tools on that server."""
    mcp_tool = pytest.importorskip("tools.mcp_tool")
    from hermes_trail.mcp.tools import TOOLS

    assert mcp_tool.MCP_TOOL_NAME_PREFIX == "mcp__"
    names = [mcp_tool.mcp_prefixed_tool_name("trail", tool) for tool in TOOLS]
    names += [u["schema"]["name"] for u in mcp_tool._build_utility_schemas("trail")]
    assert names and all(is_own_tool(n) for n in names), names
    assert not is_own_tool(mcp_tool.mcp_prefixed_tool_name("github", "search"))
    # The skill the model reads and the docs a person reads name the tools as Hermes does.
    from pathlib import Path

    from hermes_trail.integrations.hermes import install

    prefix = mcp_tool.mcp_prefixed_tool_name("trail", "")
    root = Path(__file__).resolve().parents[1]
    for text in (install._asset("SKILL.md.in"), *(root.joinpath("docs", d).read_text() for d in MCP_DOCS)):
        assert prefix in text


# Run in the newer Hermes' Python: its names for the MCP tools of a server "trail" (its tools module moved
# the naming into tools/mcp_tool_schema.py).
NEWER_NAMES = """
import json, sys
try:
    from tools import mcp_tool_schema as naming
except ImportError:
    from tools import mcp_tool as naming
names = [naming.mcp_prefixed_tool_name("trail", tool) for tool in sys.argv[1:]]
names += [u["schema"]["name"] for u in naming._build_utility_schemas("trail")]
print(json.dumps({"names": names, "other": naming.mcp_prefixed_tool_name("github", "search")}))
"""


def test_every_name_a_newer_hermes_gives_the_mcp_servers_tools(newer_hermes):
    import json
    import subprocess

    from hermes_trail.mcp.tools import TOOLS

    done = subprocess.run(
        [newer_hermes, "-c", NEWER_NAMES, *TOOLS], capture_output=True, text=True, timeout=120, check=True
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found["names"]) > len(TOOLS) and all(is_own_tool(n) for n in found["names"]), found
    assert not is_own_tool(found["other"])


def test_an_mcp_answer_in_a_stored_session_is_not_indexed(tmp_path):
    """A session where the model called trail's MCP fix, written by Hermes' SessionDB under the name
    Hermes gives it: the answer is history already, so searching its words finds nothing."""
    mcp_tool = pytest.importorskip("tools.mcp_tool")
    import hermesdb
    from hermes_trail.service import Trail

    name = mcp_tool.mcp_prefixed_tool_name("trail", "fix")
    messages = [
        hermesdb.user("What did we decide about the ocelotfish rollout?", timestamp=hermesdb.T0),
        hermesdb.assistant(
            "", hermesdb.call("c1", name, error="ocelotfish rollout"), timestamp=hermesdb.T0 + 1
        ),
        hermesdb.tool(
            "c1",
            name,
            {"fixes": [{"command": "pip install quillbeast", "worked": 3}]},
            timestamp=hermesdb.T0 + 2,
        ),
        hermesdb.assistant("We chose the staged rollout.", timestamp=hermesdb.T0 + 3),
    ]
    spec = hermesdb.SessionSpec("20261105_090000_dd0004", messages)
    home = hermesdb.write_home(tmp_path / "hermes", [spec])
    trail = Trail(index=tmp_path / "index.db", homes=(home,), parallel=False)
    trail.sync(force=True)
    assert trail.search("quillbeast")["conversations"] == []
    assert trail.search("ocelotfish")["conversations"], "the session itself is indexed"


def test_a_recall_through_mcp_does_not_find_its_own_call_in_flight(tmp_path):
    """The session calling trail's MCP recall is stored with the call before the answer comes (Hermes
    writes the assistant row first); the server syncs before it answers and must not find that call."""
    mcp_tool = pytest.importorskip("tools.mcp_tool")
    import hermesdb
    from hermes_trail.service import Trail

    name = mcp_tool.mcp_prefixed_tool_name("trail", "recall")
    messages = [
        hermesdb.user("what do we know about it", timestamp=hermesdb.T0),
        hermesdb.assistant(
            "", hermesdb.call("c1", name, query="pangolinwhistle deploy"), timestamp=hermesdb.T0 + 1
        ),
    ]
    spec = hermesdb.SessionSpec("20261105_090000_dd0005", messages)
    home = hermesdb.write_home(tmp_path / "hermes", [spec])
    assert Trail(index=tmp_path / "index.db", homes=(home,), parallel=False).recall("pangolinwhistle") == ""
