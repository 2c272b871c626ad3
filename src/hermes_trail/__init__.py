"""hermes-trail: read everything Hermes Agent recorded, faithfully.

The public names below are loaded on first use (PEP 562), so importing the package, as every ``trail``
command does first, costs nothing until a name is needed.
"""

from __future__ import annotations

# Before any other import: the quiet Ctrl-C handler below must be in place as early as the package runs.
# ``_signal`` (built in) rather than ``signal``, which would import ``enum`` first.
import _signal  # type: ignore[import-not-found]  # (no stub: the C module under `signal`)
import sys as _sys


def _starting_trail() -> bool:
    """Whether this process is the ``trail`` command starting: its console script, or ``python -m
    hermes_trail`` while the module is being located (``sys.argv[0]`` is ``-m`` until then)."""
    first = _sys.argv[0] if _sys.argv else ""
    return first == "-m" or first.replace("\\", "/").rsplit("/", 1)[-1] in ("trail", "trail.exe")


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C before the command's own handling is in place: exit 130, no traceback
    (``cli/app.main`` puts Python's handler back, and its own exit, once it runs)."""
    raise SystemExit(130)


if _starting_trail() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

from importlib import import_module  # noqa: E402  (after the handler, on purpose)
from typing import TYPE_CHECKING, Any  # noqa: E402

if TYPE_CHECKING:
    from hermes_trail.errors import AmbiguousSession, SessionNotFound, StoreUnreadable, TrailError
    from hermes_trail.history import History, open_history
    from hermes_trail.model import Session, Store, Stray, ToolCall, ToolResult, Turn, Usage

__version__ = "0.1.0"

_HOMES = {
    "AmbiguousSession": "hermes_trail.errors",
    "SessionNotFound": "hermes_trail.errors",
    "StoreUnreadable": "hermes_trail.errors",
    "TrailError": "hermes_trail.errors",
    "History": "hermes_trail.history",
    "open_history": "hermes_trail.history",
    "Session": "hermes_trail.model",
    "Store": "hermes_trail.model",
    "Stray": "hermes_trail.model",
    "ToolCall": "hermes_trail.model",
    "ToolResult": "hermes_trail.model",
    "Turn": "hermes_trail.model",
    "Usage": "hermes_trail.model",
}

__all__ = [
    "AmbiguousSession",
    "History",
    "Session",
    "SessionNotFound",
    "Store",
    "StoreUnreadable",
    "Stray",
    "ToolCall",
    "ToolResult",
    "TrailError",
    "Turn",
    "Usage",
    "open_history",
]


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'hermes_trail' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
