"""Styled text for a terminal, without rich: what a transcript is made of before it is printed.

A :class:`Styled` is runs of text, each with a style name (``"bold"``, ``"dim italic"``, ``"red"``), and
an indent; a :class:`Rule` is a divider with a title. They only describe; the CLI prints them
(``cli/term.py``), wrapping at the terminal's width and writing escapes only where they are wanted. Rich
took longer to import than ``trail show`` took to read and lay out a session.
"""

from __future__ import annotations

from typing import ClassVar

from hermes_trail.model import _Frozen, _Record


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Styled(_Record):
    """Runs of text with their styles, indented by ``indent`` columns; a run may hold newlines. A line too
    long for the terminal goes on ``hang`` columns further in (a paragraph of prose: 0; a field's value:
    under the value)."""

    _fields: ClassVar[tuple[str, ...]] = ("runs", "indent", "hang")
    __slots__ = _fields
    runs: list[tuple[str, str]]
    indent: int
    hang: int

    def __init__(self, runs: list[tuple[str, str]] | None = None, indent: int = 0, hang: int = 2) -> None:
        self.runs = [] if runs is None else runs
        self.indent = indent
        self.hang = hang

    @classmethod
    def of(cls, text: str = "", style: str = "", hang: int = 2) -> Styled:
        return cls([(text, style)] if text else [], hang=hang)

    def append(self, text: str, style: str = "") -> Styled:
        if text:
            self.runs.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.runs)


class Rule(_Frozen):
    """A divider across the terminal with a title in it."""

    _fields: ClassVar[tuple[str, ...]] = ("title", "style")
    __slots__ = _fields
    title: str
    style: str

    def __init__(self, title: str, style: str = "") -> None:
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "style", style)


Block = Styled | Rule


def indented(block: Styled, by: int) -> Styled:
    """``block`` indented ``by`` more columns."""
    block.indent += by
    return block
