"""A Hermes home with a history worth recalling, written through Hermes' ``SessionDB``, for the tests of the
Hermes plugin, the memory provider and the self-recall filter.

- ``MIGRATION_ID``: a chat about the zebracorn migration of the staging database (the word ``zebracorn``
  is in no other session).
- ``FIX_ID``: a coding session where ``pytest -q`` failed with ``ModuleNotFoundError: No module named
  'quagga'``, ``pip install quagga`` worked and ``pytest -q`` then passed.
- ``EDIT_ID``: a coding session where ``pytest -q tests/test_prices.py`` failed with ``DISCOUNT_ERROR``,
  ``prices.py`` was patched and the same command then passed: a fix that is a change, no command.
- ``CURRENT_ID``: the session a test plays the agent in; it mentions zebracorn too, so a recall that does
  not leave the current conversation out would find it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hermesdb
from hermesdb import T0, assistant, terminal_exchange, user

MIGRATION_ID = "20261102_090000_aa0001"
FIX_ID = "20261103_090000_bb0002"
CURRENT_ID = "20261110_090000_cc0003"
EDIT_ID = "20261104_090000_dd0004"
WORD = "zebracorn"
ERROR = "ModuleNotFoundError: No module named 'quagga'"
DISCOUNT_ERROR = "AssertionError: assert apply_discount(100, 0.25) == 75.0 (got 100.25)"
PRICES = "/home/dev/api/shop/prices.py"


def specs() -> list[hermesdb.SessionSpec]:
    migration = hermesdb.chat(
        MIGRATION_ID,
        (
            "How do we run the zebracorn migration on the staging database?",
            "Run `make migrate-zebracorn STAGE=staging` after taking a snapshot; it takes about ten minutes.",
        ),
        start=T0,
        title="Zebracorn migration",
        cwd="/home/dev/api",
    )
    fix_msgs = [
        user("Run the test suite", timestamp=T0 + 86400),
        *terminal_exchange("call_f1", "pytest -q", f"E   {ERROR}\n1 error in 0.12s", exit_code=2),
        *terminal_exchange("call_f2", "pip install quagga", "Successfully installed quagga-1.2.0"),
        *terminal_exchange("call_f3", "pytest -q", "12 passed in 0.40s"),
        assistant("Installed quagga; the suite passes now.", timestamp=T0 + 86400 + 60),
    ]
    for i, msg in enumerate(fix_msgs):
        msg.setdefault("timestamp", T0 + 86400 + i)
    fix = hermesdb.SessionSpec(
        FIX_ID, fix_msgs, cwd="/home/dev/api", started_at=T0 + 86400, ended_at=T0 + 86400 + 60
    )
    edit_msgs = [
        user("The discount test fails, fix it", timestamp=T0 + 2 * 86400),
        *terminal_exchange("call_e1", "pytest -q tests/test_prices.py", f"E   {DISCOUNT_ERROR}", exit_code=1),
        assistant(
            "The discount is added, not taken off.",
            hermesdb.call(
                "call_e2",
                "patch",
                mode="replace",
                path=PRICES,
                old_string="return price + rate",
                new_string="return price * (1 - rate)",
            ),
        ),
        hermesdb.tool(
            "call_e2",
            "patch",
            {
                "success": True,
                "diff": "-return price + rate\n+return price * (1 - rate)\n",
                "files_modified": [PRICES],
            },
        ),
        *terminal_exchange("call_e3", "pytest -q tests/test_prices.py", "4 passed in 0.05s"),
        assistant("Fixed: the discount is now taken off the price.", timestamp=T0 + 2 * 86400 + 60),
    ]
    for i, msg in enumerate(edit_msgs):
        msg.setdefault("timestamp", T0 + 2 * 86400 + i)
    edited = hermesdb.SessionSpec(
        EDIT_ID, edit_msgs, cwd="/home/dev/api", started_at=T0 + 2 * 86400, ended_at=T0 + 2 * 86400 + 60
    )
    current = hermesdb.chat(
        CURRENT_ID,
        ("Earlier today we talked about zebracorn tables.", "Yes."),
        start=T0 + 8 * 86400,
        cwd="/home/dev/api",
    )
    return [migration, fix, edited, current]


def write(home: Path) -> Path:
    """The home at ``home`` (``home/state.db``)."""
    return hermesdb.write_home(home, specs())


def installed(root: Path, monkeypatch: Any, memory: bool = False) -> tuple[Path, Path]:
    """The home at ``root/hermes``, its index built at ``root/index/index.db`` and hermes-trail installed
    into it by the installer's own code (``memory``: as its memory provider too); ``HERMES_HOME`` and
    ``TRAIL_INDEX`` point at them for the test."""
    from hermes_trail.integrations.hermes import install, runtime
    from hermes_trail.service import Trail

    runtime.forget_providers()
    home = write(root / "hermes")
    index = root / "index" / "index.db"
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("TRAIL_INDEX", str(index))
    Trail(index=index, homes=(home,), parallel=False).sync(force=True)
    install.apply_install(install.plan_install(install.Target(home, "default"), memory=memory))
    return home, index
