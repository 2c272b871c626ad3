"""``trail doctor``: check hermes-trail inside Hermes, piece by piece; the checks are in
:mod:`hermes_trail.integrations.hermes.doctor`."""

from __future__ import annotations

import sys
from typing import Any

import typer

from hermes_trail.cli.common import EXIT_ERROR, EXIT_OK, print_json
from hermes_trail.cli.install import AllProfilesOption, JsonOption, ProfileOption, RootOption, _targets

MARKS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


def doctor(
    profile: ProfileOption = None,
    all_profiles: AllProfilesOption = False,
    home: RootOption = None,
    json_output: JsonOption = False,
) -> None:
    """Check hermes-trail inside Hermes: Hermes and its MCP client, the install, the plugin loading in Hermes'
    Python, the MCP entry, the index (fresh, with meaning vectors) and the memory provider; each problem with
    its fix. Exits 1 when something fails.

    \b
    Example:
        trail doctor
        trail doctor --all-profiles --json
    """
    from hermes_trail.integrations.hermes.doctor import FAIL, diagnose

    checks = diagnose(_targets(profile, all_profiles, home))
    failed = any(c.status == FAIL for c in checks)
    if json_output:
        print_json({"ok": not failed, "checks": [c.as_json() for c in checks]})
    else:
        shown: Any = None
        for check in checks:
            if check.home != shown and check.home is not None:
                sys.stdout.write(f"\n{check.home}\n")
                shown = check.home
            sys.stdout.write(f"  {MARKS.get(check.status, check.status)}  {check.name}: {check.detail}\n")
            if check.fix:
                sys.stdout.write(f"        fix: {check.fix}\n")
    raise typer.Exit(EXIT_ERROR if failed else EXIT_OK)
