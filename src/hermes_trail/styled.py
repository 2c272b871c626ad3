"""Styled text for a terminal, without rich: what a transcript is made of before it is printed.

A :class:`Styled` is runs of text, each with a style name (``"bold"``, ``"dim italic"``, ``"red"``), and
an indent; a :class:`Rule` is a divider with a title. They only describe; the CLI prints them
(``cli/term.py``), wrapping at the terminal's width and writing escapes only where they are wanted. Rich
took longer to import than ``trail show`` took to read and lay out a session.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Styled:
    """Runs of text with their styles, indented by ``indent`` columns; a run may hold newlines."""

    runs: list[tuple[str, str]] = field(default_factory=list)
    indent: int = 0

    @classmethod
    def of(cls, text: str = "", style: str = "") -> Styled:
        return cls([(text, style)] if text else [])

    def append(self, text: str, style: str = "") -> Styled:
        if text:
            self.runs.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.runs)


@dataclass(frozen=True, slots=True)
class Rule:
    """A divider across the terminal with a title in it."""

    title: str
    style: str = ""


Block = Styled | Rule


def indented(block: Styled, by: int) -> Styled:
    """``block`` indented ``by`` more columns."""
    block.indent += by
    return block
