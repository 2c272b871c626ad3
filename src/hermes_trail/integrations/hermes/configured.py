"""hermes-trail's settings in a Hermes home's ``config.yaml``: ``plugins.entries.hermes-trail.settings``.

Hermes keeps a plugin's settings there (a newer Hermes hands them to the plugin as ``ctx.get_config``, and
reads a legacy ``config`` subtree beside ``settings``; both are read here), and
``hermes config set plugins.entries.hermes-trail.settings.share DSN`` writes one. What the Hermes plugin
and ``trail mcp`` take from it (docs/fleet.md):

- ``share``: a pushing login's DSN of the shared index. This machine's index is pushed there, as
  ``trail share DSN`` pushes it, by the plugin's background syncs and by a running ``trail mcp``.
- ``share_every``: seconds between two pushes, at least (60).
- ``fleet``: a DSN of the shared index recall, search and fix notes are answered from (every machine's
  history; a reader's login is enough).

An environment variable, where one is set, wins over the file (``TRAIL_HERMES_PUSH``, ``TRAIL_PUSH``, ...).
The file is only read, and parsed only when hermes-trail is a key in it (every Hermes start with the
plugin reads it). A value of the wrong kind is left out and said, never its text: a DSN may hold a
password (which belongs in ``~/.pgpass`` or ``PGPASSWORD`` in ``$HERMES_HOME/.env``, not in
``config.yaml``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PLUGIN = "hermes-trail"
WHERE = f"plugins.entries.{PLUGIN}.settings"
# The plugin's name as a mapping's key: the file is parsed (20 ms of imports) only when it holds one.
_KEYED = re.compile(r"""(?m)^\s*["']?hermes-trail["']?\s*:|[{,]\s*["']?hermes-trail["']?\s*:""")


@dataclass(frozen=True)
class Configured:
    """The settings found (empty: none), and what was wrong with the others."""

    share: str = ""
    share_every: float | None = None
    fleet: str = ""
    problems: list[str] = field(default_factory=list)


def seconds(text: str | None, default: float) -> float:
    """A setting's positive number of seconds, from its text; ``default`` for anything else (empty, not a
    number, zero or less)."""
    try:
        value = float((text or "").strip() or default)
    except ValueError:
        return default
    return value if value > 0 else default


def hermes_home(env: Mapping[str, str] | None = None) -> Path:
    """The home of the Hermes this process runs in, as Hermes itself resolves it (a profile's home scoped to
    this context included); outside Hermes, ``HERMES_HOME`` or ``~/.hermes``. Hermes' resolver is asked
    only when Hermes has loaded it: imported anew it may write a warning into the home's logs."""
    loaded = sys.modules.get("hermes_constants")
    try:
        if loaded is not None:
            return Path(loaded.get_hermes_home())
    except Exception:  # a Hermes without the function: resolved as below
        pass
    value = (os.environ if env is None else env).get("HERMES_HOME", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".hermes"


def read(home: Path) -> Configured:
    """hermes-trail's settings in ``home/config.yaml`` (none when the file is missing or unreadable)."""
    try:
        text = (home / "config.yaml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Configured()
    if not _KEYED.search(text):  # hermes-trail is no key here (``plugins.enabled`` lists it as an item)
        return Configured()
    try:
        data = _load(text)
    except ImportError:  # neither YAML reader is importable here: the environment alone says
        return Configured(
            problems=[f"no YAML reader to read {home / 'config.yaml'} with (ruamel.yaml, PyYAML)"]
        )
    except Exception as exc:  # any YAML error: Hermes will say it louder
        why = type(exc).__name__
        return Configured(problems=[f"{home / 'config.yaml'} is not YAML that can be read ({why})"])
    entry = _at(data, ("plugins", "entries", PLUGIN))
    if not isinstance(entry, dict):
        return Configured()
    merged: dict[str, Any] = {}
    for part in ("config", "settings"):  # the legacy subtree first: ``settings`` wins
        if isinstance(entry.get(part), dict):
            merged.update(entry[part])
    problems: list[str] = []
    share = _dsn(merged, "share", problems)
    fleet = _dsn(merged, "fleet", problems)
    every = merged.get("share_every")
    if every is not None and (isinstance(every, bool) or not isinstance(every, int | float) or every <= 0):
        problems.append(f"{WHERE}.share_every is not a positive number of seconds; 60 it is")
        every = None
    return Configured(share, float(every) if every is not None else None, fleet, problems)


def _load(text: str) -> Any:
    """The data of a YAML text: with ruamel.yaml (hermes-trail's), else PyYAML (Hermes', in whose process
    the plugin may find hermes-trail's package without its dependencies)."""
    try:
        from ruamel.yaml import YAML
    except ImportError:
        import yaml

        return yaml.safe_load(text)
    return YAML(typ="safe", pure=True).load(text)


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _dsn(settings: Mapping[str, Any], key: str, problems: list[str]) -> str:
    value = settings.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append(f"{WHERE}.{key} is not a text (a PostgreSQL DSN); left out")
        return ""
    return value.strip()
