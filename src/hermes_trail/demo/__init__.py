"""The small demo Hermes home shipped with the package (``hermes_home/``), read when the user has none.

Standard library only: asked by commands at start-up (is this the demo home?).
"""

from __future__ import annotations

from pathlib import Path


def demo_home() -> Path:
    """Where the demo home is: beside this module, in the installed package (never a zip: SQLite needs the
    stores as files)."""
    return Path(__file__).resolve().parent / "hermes_home"
