"""``trail install hermes`` and ``trail uninstall hermes``; the logic is in
:mod:`hermes_trail.integrations.hermes.install`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from hermes_trail.cli.common import EXIT_OK, fail, print_json

install_app = typer.Typer(
    help="Connect hermes-trail to an agent: MCP, plugin, memory provider, skill.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
uninstall_app = typer.Typer(
    help="Take out what `trail install` put in, exactly that.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

ProfileOption = Annotated[
    str | None, typer.Option("--profile", "-p", help="This profile's home (default: the one hermes uses).")
]
AllProfilesOption = Annotated[bool, typer.Option("--all-profiles", help="The root home and every profile.")]
RootOption = Annotated[
    Path | None,
    typer.Option(
        "--home", help="The Hermes home or root (default: HERMES_HOME, else ~/.hermes).", show_default=False
    ),
]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Print the diff of every file; write nothing.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (keys documented in docs/json.md).")]


def _targets(profile: str | None, all_profiles: bool, home: Path | None) -> list[Any]:
    from hermes_trail.integrations.hermes.install import InstallError, targets

    if profile is not None and all_profiles:
        fail("--profile and --all-profiles cannot go together")
    try:
        return targets(profile=profile, all_profiles=all_profiles, home=home)
    except InstallError as exc:
        fail(str(exc))


def _report(plan: Any, backups: list[Path], dry_run: bool, status: str) -> dict[str, Any]:
    changes = plan.changes
    return {
        "home": str(plan.target.home),
        "profile": plan.target.profile,
        "status": status,
        "dry_run": dry_run,
        "added": [str(c.path) for c in changes if c.before is None],
        "changed": [str(c.path) for c in changes if c.before is not None and c.after is not None],
        "removed": [str(c.path) for c in changes if c.after is None],
        "backups": [str(b) for b in backups],
        "notes": list(plan.notes),
        "backups_removed": [str(b) for b in plan.stale] if status == "uninstalled" else [],
    }


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")


@install_app.command("hermes")
def install_hermes(
    profile: ProfileOption = None,
    all_profiles: AllProfilesOption = False,
    home: RootOption = None,
    memory: Annotated[
        bool, typer.Option("--memory", help="Also make `trail` the memory provider (memory.provider).")
    ] = False,
    dry_run: DryRunOption = False,
    build: Annotated[
        bool | None,
        typer.Option(
            "--build-index/--no-build-index",
            help="Build the search index now, with a progress bar (default: ask on a terminal).",
            show_default=False,
        ),
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Put hermes-trail into Hermes: an mcp_servers entry for `trail mcp`, the hermes-trail plugin (recall
    before each prompt, past fixes on a failing command, /trail), the memory provider `trail` and the skill
    trail-history. config.yaml keeps its comments, order and quoting and is backed up first.

    \b
    Example:
        trail install hermes --dry-run
        trail install hermes --all-profiles
    """
    from hermes_trail.integrations.hermes import install as inst
    from hermes_trail.integrations.hermes.yamledit import ConfigEditError

    plans = []
    for target in _targets(profile, all_profiles, home):
        try:
            plans.append(inst.plan_install(target, memory=memory))
        except (inst.InstallError, ConfigEditError) as exc:
            fail(f"{target.home}: {exc} (nothing was written)")
    about_hermes = inst.hermes_notes(inst.find_hermes())
    for plan in plans:
        plan.notes.extend(about_hermes)
    reports = []
    for plan in plans:
        if dry_run:
            sys.stdout.write("" if json_output else inst.diff(plan))
            reports.append(_report(plan, [], True, "would install" if plan.changes else "installed"))
            continue
        if not plan.changes:
            reports.append(_report(plan, [], False, "installed"))
            if not json_output:
                _say(f"{plan.target.home}: hermes-trail is installed already; nothing to change")
            continue
        backups = inst.apply_install(plan)
        reports.append(_report(plan, backups, False, "installed"))
        if not json_output:
            _say(f"{plan.target.home} (profile {plan.target.profile}): hermes-trail installed")
            for path in backups:
                _say(f"  backup: {path}")
    if json_output:
        print_json({"homes": reports})
    elif not dry_run:
        for report in reports:
            for note in report["notes"]:
                _say(f"note: {note}")
        if plans and any(r["added"] or r["changed"] for r in reports):
            _say(
                "Start a new Hermes session to load it; `hermes plugins list` shows hermes-trail; "
                "`trail doctor` checks every piece."
            )
    if not dry_run:
        _first_builds(plans, build, json_output)
    raise typer.Exit(EXIT_OK)


def _first_builds(plans: list[Any], build: bool | None, json_output: bool) -> None:
    """Say how long each index not built yet takes to build, and build it now when asked (``--build-index``)
    or when the person says yes at a terminal; ``trail index`` shows its progress bar."""
    import subprocess

    from hermes_trail.index.opening import build_under_way
    from hermes_trail.integrations.hermes import install as inst

    seen: set[Path] = set()
    for plan in plans:
        index = inst.index_for(plan.target.home)
        if index in seen:
            continue
        seen.add(index)
        first = inst.first_build(plan.target.home, index)
        if first is None or not first["messages"]:
            continue
        if not json_output:
            _say(_first_build_line(index, first))
        if build_under_way(index):
            if not json_output:
                _say("  another trail process is building it now")
            continue
        asked = build
        if asked is None:
            asked = (
                not json_output
                and sys.stdin.isatty()
                and sys.stderr.isatty()
                and typer.confirm("Build it now?", default=True, err=True)
            )
        if not asked:
            if not json_output:
                _say(f"  to build it later: trail index --index {index} --home {plan.target.home}")
            continue
        command, args = inst.trail_command()
        run = [command, *args, "index", "--index", str(index), "--home", str(plan.target.home)]
        done = subprocess.run(run, stdout=subprocess.DEVNULL if json_output else sys.stderr.fileno())
        if done.returncode != 0:
            fail(f"building {index} failed (exit {done.returncode}); trail index says why")


def _first_build_line(index: Path, first: dict[str, Any]) -> str:
    """The line that says how long the first build of ``index`` takes (:func:`first_build`'s estimate)."""
    done = f", {first['done']:,} of them indexed by a build that was cut short" if first["done"] else ""
    rest = "the rest" if first["done"] else "it"
    return (
        f"The search index {index} is not built yet: {first['messages']:,} messages in "
        f"{first['sessions']:,} sessions{done}. `trail index` builds {rest} in about "
        f"{_duration(first['seconds'])}; left to Hermes, the plugin starts that build in the background "
        "the first time Hermes runs, and recalls nothing until it is done."
    )


def _duration(seconds: float) -> str:
    if seconds < 5:
        return "a few seconds"
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


@uninstall_app.command("hermes")
def uninstall_hermes(
    profile: ProfileOption = None,
    all_profiles: AllProfilesOption = False,
    home: RootOption = None,
    dry_run: DryRunOption = False,
    json_output: JsonOption = False,
) -> None:
    """Take hermes-trail out of Hermes: exactly what `trail install hermes` added. config.yaml is put back
    byte for byte when nothing else changed it since install; otherwise only hermes-trail's settings are
    taken out. Backed up first either way.

    \b
    Example:
        trail uninstall hermes --all-profiles --dry-run
    """
    from hermes_trail.integrations.hermes import install as inst
    from hermes_trail.integrations.hermes.yamledit import ConfigEditError

    plans = []
    for target in _targets(profile, all_profiles, home):
        try:
            plans.append(inst.plan_uninstall(target))
        except (inst.InstallError, ConfigEditError) as exc:
            fail(f"{target.home}: {exc} (nothing was changed)")
    reports = []
    for plan in plans:
        if not plan.manifest:
            reports.append(_report(plan, [], dry_run, "not installed"))
            if not json_output:
                _say(f"{plan.target.home}: hermes-trail is not installed there (no install manifest)")
            continue
        if dry_run:
            sys.stdout.write("" if json_output else inst.diff(plan))
            reports.append(_report(plan, [], True, "would uninstall"))
            continue
        backups = inst.apply_uninstall(plan)
        reports.append(_report(plan, backups, False, "uninstalled"))
        if not json_output:
            how = "put back as it was" if plan.restored else "hermes-trail's settings taken out"
            where = f"{plan.target.home} (profile {plan.target.profile})"
            _say(f"{where}: hermes-trail uninstalled; config.yaml {how}")
            for path in backups:
                _say(f"  backup: {path}")
            for note in plan.notes:
                _say(f"note: {note}")
    if json_output:
        print_json({"homes": reports})
    raise typer.Exit(EXIT_OK)
