"""What each tool call means: commands, file edits, kept output. Dispatches to the rule of each tool."""

from __future__ import annotations

from hermes_trail.hermes.decode.files import interpret_files
from hermes_trail.hermes.decode.terminal import interpret_terminal
from hermes_trail.hermes.decode.tooloutput import kept_output
from hermes_trail.model import Session, ToolCall, Turn

FILE_TOOLS = frozenset({"read_file", "write_file", "patch"})
# The argument that says what a call was about, in the order a person would name it. The one rule for the
# replay, the exports and the timeline (whose rows document this order).
SUBJECT_KEYS = ("command", "path", "file_path", "url", "query", "pattern", "goal")


def call_subject(call: ToolCall) -> str | None:
    """What a call was about: the first non-empty of its command, path, URL, query (...) arguments, as
    given; ``None`` when it has none."""
    args = call.arguments or {}
    return next((args[k] for k in SUBJECT_KEYS if isinstance(args.get(k), str) and args[k]), None)


def interpret(session: Session, turns: list[Turn]) -> None:
    """Give every result its kept output, and every terminal and file call its meaning."""
    for turn in turns:
        if turn.result is not None and turn.result.output is None:
            turn.result.output, turn.result.data = kept_output(turn.result.text)
        for call in turn.tool_calls:
            if call.name == "terminal":
                interpret_terminal(call, yolo=session.yolo)
            elif call.name in FILE_TOOLS:
                interpret_files(call)
