"""Which home a ``hermes`` command opens: profile names ``-p`` accepts, the sticky active profile.

Follows ``hermes_cli.main._apply_profile_override`` and ``hermes_cli.profiles``: an explicit ``-p NAME``
wins (``default`` is the root, any other name ``<root>/profiles/NAME``; a name outside
``[a-z0-9][a-z0-9_-]{0,63}`` is not taken as a profile at all, and a reserved one is refused); without it,
a ``HERMES_HOME`` whose parent directory is named ``profiles`` is trusted as it is; otherwise the root's
``active_profile`` file, written by ``hermes profile use``, names the profile (absent, empty or
``default``: no profile). The root is ``get_default_hermes_root`` (:func:`locate.root_for`).

Reading ``active_profile`` is the one file access here; nothing is written.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path

from hermes_trail.hermes import locate

# hermes_cli/profiles.py: _PROFILE_ID_RE; the same pattern decides whether ``-p VALUE`` is a profile.
PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
# hermes_cli/profiles.py: _RESERVED_NAMES. ``default`` passes validation but means the root, never
# ``profiles/default``.
RESERVED_NAMES = frozenset({"hermes", "default", "test", "tmp", "root", "sudo"})
ACTIVE_PROFILE_FILE = "active_profile"


def name_refusal(name: str) -> str | None:
    """Why ``hermes -p <name>`` cannot open the profile directory ``profiles/<name>``, or ``None``."""
    if name in RESERVED_NAMES:
        return f"'{name}' is a name Hermes reserves (-p {name} never opens profiles/{name})"
    if not PROFILE_NAME.match(name):
        return f"'{name}' is outside the names Hermes takes for a profile ([a-z0-9][a-z0-9_-], at most 64)"
    return None


def active_profile(root: Path) -> str | None:
    """The sticky profile named in ``<root>/active_profile``, lowercased as Hermes normalizes it; ``None``
    when the file is absent, unreadable, empty or says ``default``."""
    try:
        name = (root / ACTIVE_PROFILE_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not name or name.casefold() == "default":
        return None
    return name.lower()


def hermes_root(
    env: Mapping[str, str], *, platform: str = sys.platform, user_home: Path | None = None
) -> Path:
    """The root whose profiles ``hermes`` sees under ``env`` (``get_default_hermes_root``)."""
    native = locate.platform_default_home(env, platform=platform, user_home=user_home)
    value = env.get("HERMES_HOME", "").strip()
    return locate.root_for(value, native) if value else native


def opened_home(
    env: Mapping[str, str],
    profile: str | None = None,
    *,
    platform: str = sys.platform,
    user_home: Path | None = None,
) -> Path | None:
    """The home ``hermes [-p profile] ...`` opens when run with ``env``; ``None`` when it would refuse
    to start (a reserved ``-p`` name other than ``default``, an active profile it cannot take)."""
    native = locate.platform_default_home(env, platform=platform, user_home=user_home)
    value = env.get("HERMES_HOME", "").strip()
    root = hermes_root(env, platform=platform, user_home=user_home)
    if profile is not None and PROFILE_NAME.match(profile):
        if profile == "default":
            return root
        return None if profile in RESERVED_NAMES else root / locate.PROFILES_DIR / profile
    if value and Path(value).parent.name == locate.PROFILES_DIR:
        return _expand(value)
    active = active_profile(root)
    if active is not None:
        if active in RESERVED_NAMES or not PROFILE_NAME.match(active):
            return None
        return root / locate.PROFILES_DIR / active
    return _expand(value) if value else native


def same_dir(a: Path, b: Path) -> bool:
    """Whether two paths name the same directory (symbolic links followed)."""
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return a == b


def _expand(value: str) -> Path:
    return Path(value).expanduser()
