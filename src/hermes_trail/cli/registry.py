"""Every ``trail`` command, once: its name, the module and function behind it, in the order ``trail --help``
lists them. The quick path (:mod:`hermes_trail.cli.commands`) and the Typer application
(:mod:`hermes_trail.cli.typer_app`) both look commands up here."""

from __future__ import annotations

from importlib import import_module
from typing import Any

# Every command, once, in the order `trail --help` lists them: (module, function) under hermes_trail.cli.
# A value naming a Typer instance (install, uninstall) is a group of subcommands.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("list_cmd", "list_sessions"),
    "show": ("show_cmd", "show"),
    "search": ("search_cmd", "search"),
    "recall": ("recall_cmd", "recall"),
    "fix": ("fix_cmd", "fix"),
    "blame": ("blame_cmd", "blame"),
    "how": ("how_cmd", "how"),
    "timeline": ("timeline", "timeline_cmd"),
    "stats": ("stats_cmd", "stats_cmd"),
    "export": ("export_cmd", "export_cmd"),
    "handoff": ("handoff_cmd", "handoff"),
    "resume": ("resume_cmd", "resume"),
    "pick": ("pick_cmd", "pick"),
    "index": ("index_cmd", "index"),
    "share": ("share_cmd", "share"),
    "web": ("web_cmd", "web_cmd"),
    "mcp": ("mcp_cmd", "mcp"),
    "install": ("install", "install_app"),
    "uninstall": ("install", "uninstall_app"),
    "doctor": ("doctor_cmd", "doctor"),
}
# `trail` alone lists the most recent sessions: `trail list` with this many.
DEFAULT_LISTING = {"limit": 20}


def command_function(name: str) -> Any:
    """The function (or Typer group) behind command ``name``."""
    module, attribute = COMMANDS[name]
    return getattr(import_module(f"hermes_trail.cli.{module}"), attribute)
