"""A home's ``sessiondb`` setting: the PostgreSQL store a profile keeps its sessions in instead of
``state.db``.

Hermes 0.19.0 and the NousResearch/hermes-agent source up to the pluggable-provider work (PR #104018,
``hermes_state_provider.get_session_db_provider``) read ``sessiondb.provider`` from ``config.yaml`` and ship
only ``sqlite``; the PostgreSQL provider is specified by RFC #23717, whose configuration is::

    sessiondb:
      provider: postgresql
      postgresql:
        dsn: postgresql://user:pass@localhost:5432/hermes

That is what is read here, with ``dsn`` (or ``url``) also accepted directly under ``sessiondb``, and a DSN
built from separate fields (``host``, ``port``, ``user``, ``password``, ``dbname``/``database``, ...) when
there is none. String values are ``${VAR}``-expanded as Hermes' config loader expands them
(``hermes_cli.config._expand_env_vars``), from the environment and then from the home's ``.env``, which
Hermes loads into its environment at start; a reference left unresolved is reported, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from hermes_trail.hermes import dsn as dsns
from hermes_trail.model import _Frozen

CONFIG_NAME = "config.yaml"
ENV_NAME = ".env"
POSTGRES_PROVIDERS = ("postgresql", "postgres", "pg")
_REFERENCE = re.compile(r"\${([^}]+)}")


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Setting(_Frozen):
    """What a home's config says about its session store: a DSN to read, or why it cannot be read."""

    _fields: ClassVar[tuple[str, ...]] = ("config", "dsn", "problem")
    __slots__ = _fields
    _hidden: ClassVar[tuple[str, ...]] = ("dsn",)
    config: Path
    dsn: str | None
    problem: str | None

    def __init__(self, config: Path, dsn: str | None = None, problem: str | None = None) -> None:
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "dsn", dsn)
        object.__setattr__(self, "problem", problem)


def read_setting(home: Path, env: Mapping[str, str]) -> Setting | None:
    """The PostgreSQL store ``home``'s ``config.yaml`` names; ``None`` when it keeps sessions in SQLite.

    The file is parsed only when it mentions ``sessiondb``, so homes without the setting cost one read.
    """
    config = home / CONFIG_NAME
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except (OSError, RuntimeError):
        return None  # no config (the usual case) or one that cannot be read: Hermes defaults to SQLite
    if "sessiondb" not in text:
        return None
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return Setting(config, problem=f"cannot be parsed as YAML ({_first_line(exc)})")
    section = data.get("sessiondb") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        return None
    provider = str(section.get("provider") or "sqlite").strip().lower()
    if provider == "sqlite":
        return None
    if provider not in POSTGRES_PROVIDERS:
        return Setting(
            config, problem=f"sessiondb.provider {provider!r} is not one trail reads (sqlite, postgresql)"
        )
    nested: dict[str, Any] = next(
        (section[k] for k in POSTGRES_PROVIDERS if isinstance(section.get(k), dict)), {}
    )
    value = _dsn_value(nested) or _dsn_value(section)
    if value is None:
        return Setting(config, problem="sessiondb.provider is postgresql but no dsn or connection fields")
    expanded, missing = _expand(value, env, home)
    if missing:
        names = ", ".join("${" + m + "}" for m in missing)
        return Setting(
            config,
            problem=f"sessiondb DSN refers to {names}, not set here (set it, or name the "
            "store with --pg or TRAIL_HERMES_PG_DSN)",
        )
    return Setting(config, dsn=expanded)


def _dsn_value(section: Mapping[str, Any]) -> str | None:
    for key in ("dsn", "url", "uri", "conninfo"):
        value = section.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return dsns.from_fields(section)


def _expand(value: str, env: Mapping[str, str], home: Path) -> tuple[str, list[str]]:
    """``${VAR}`` references replaced from ``env``, then from ``home/.env``; the names left unresolved."""
    names = _REFERENCE.findall(value)
    if not names:
        return value, []
    dotenv = read_dotenv(home / ENV_NAME) if any(n not in env for n in names) else {}
    missing = [n for n in names if n not in env and n not in dotenv]
    expanded = _REFERENCE.sub(lambda m: env.get(m[1], dotenv.get(m[1], m[0])), value)
    return expanded, missing


def read_dotenv(path: Path) -> dict[str, str]:
    """``KEY=value`` lines of a ``.env`` file (``export`` and quotes allowed), as python-dotenv reads them."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, RuntimeError):
        return {}
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        found[key.strip()] = value
    return found


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
