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
    text = (f"Why does deploy fail?\n\n{FRAME_OPEN}\nRecords …\n- [2026-11-02] s1: zebracorn\n{FRAME_CLOSE}"
            f"\n\nthen {FIX_OPEN}\n- `pip install zebracorn`\n{FIX_CLOSE} done")  # fmt: skip
    assert strip_injected(text) == "Why does deploy fail?\n\nthen  done"


def test_a_frame_cut_short_goes_to_the_end():
    assert strip_injected(f"output\n\n{FIX_OPEN}\n- `make` worked in 2 conv") == "output"


def test_markers_in_any_case_and_with_attributes():
    assert strip_injected("a <TRAIL-RECALL id=1>x</Trail-Recall> b") == "a  b"


def test_hermes_memory_fence_around_a_recall_goes_with_it():
    fence = ("<memory-context>\n[System note: The following is recalled memory context, NOT new user input.]"
             f"\n\n{FRAME_OPEN}\n- zebracorn\n{FRAME_CLOSE}\n</memory-context>")  # fmt: skip
    assert strip_injected(f"Fix the build\n\n{fence}") == "Fix the build"


def test_another_providers_memory_fence_stays():
    fence = "<memory-context>\nthe user likes tabs\n</memory-context>"
    text = f"Fix the build\n\n{fence}\n\n{FRAME_OPEN}x{FRAME_CLOSE}"
    assert strip_injected(text) == f"Fix the build\n\n{fence}"


@pytest.mark.parametrize(
    ("name", "own"),
    [("trail_recall", True), ("trail_fix", True), ("trail_blame", True), ("mcp_trail_recall", True),
     ("mcp_trail_search", True), ("terminal", False), ("mcp_github_search", False), (None, False),
     ("trail", False)],
)  # fmt: skip
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
