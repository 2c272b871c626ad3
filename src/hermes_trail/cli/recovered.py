"""``trail list --deleted`` and ``trail show`` of a recovered session: sessions only a snapshot or a divert
still holds, each with where it came from."""

from __future__ import annotations

from pathlib import Path

from hermes_trail.cli.common import err, print_json
from hermes_trail.formatting import clock, safe
from hermes_trail.history import History
from hermes_trail.listing import SessionFilter, select
from hermes_trail.model import Session
from hermes_trail.recovery import Finder, Recoveries, recover


def origin_line(session: Session) -> str:
    """One line saying where a recovered session was found, and when it was deleted if that is known."""
    found = session.recovered
    if found is None:
        return ""
    what = f"snapshot {found.snapshot}" if found.kind == "snapshot" else "divert"
    line = f"recovered from {what}: {found.path}"
    if found.deleted_at is not None:
        by = ", by a sweep" if found.swept else ""
        line += f" (deleted {clock(found.deleted_at, with_date=True)}{by})"
    if found.also_in:
        line += f"; also in {len(found.also_in)} other cop{'y' if len(found.also_in) == 1 else 'ies'}"
    return line


def recoveries(history: History, homes: list[Path] | None, dbs: list[Path] | None) -> Recoveries:
    found = recover(history, homes=homes or (), dbs=dbs or ())
    for stray in found.strays:
        err(f"skipped {stray.kind} {stray.where}: {stray.reason}")
    return found


def list_deleted(
    history: History,
    homes: list[Path] | None,
    dbs: list[Path] | None,
    flt: SessionFilter,
    limit: int,
    json_output: bool,
) -> bool:
    """Print the recovered sessions; returns whether something was passed over."""
    from hermes_trail.serialize import iso, note_json, session_json, stray_json

    with recoveries(history, homes, dbs) as found:
        chosen = select(found.sessions, flt, limit)
        if json_output:
            print_json(
                {
                    "sessions": [session_json(s) for s in chosen],
                    "total": sum(1 for s in found.sessions if flt.accepts(s)),
                    "fences_without_copy": [
                        {
                            "session_id": f.session_id,
                            "profile": f.profile,
                            "store_path": f.store_path,
                            "deleted_at": iso(f.deleted_at),
                            "swept": f.swept,
                        }
                        for f in found.fences_without_copy
                        if flt.profile is None or f.profile == flt.profile
                    ],
                    "strays": [stray_json(s) for s in [*history.strays, *found.strays]],
                    "notes": [note_json(n) for n in history.notes],
                    "demo": history.demo,
                }
            )
        else:
            from hermes_trail.cli.tables import print_sessions
            from hermes_trail.cli.term import Printer

            out = Printer()
            if not found.sessions and not found.fences_without_copy:
                out.line("no deleted session in a snapshot, a divert or a deletion fence")
                return bool(found.strays)
            matched = sum(1 for s in found.sessions if flt.accepts(s))
            print_sessions(chosen, matched=matched, total=len(found.sessions))
            for session in chosen:
                out.line(f"{safe(session.id)}: {safe(origin_line(session))}")
            for fence in found.fences_without_copy:
                when = clock(fence.deleted_at, with_date=True) if fence.deleted_at else "at a time unknown"
                line = f"{fence.session_id}: deleted {when} ({fence.profile}); no copy found"
                out.line(safe(line))
        return bool(found.strays)


def report_recovery(finder: Finder) -> None:
    """On stderr: the copies that could not be read, and where a recovered session that was found came
    from (once each)."""
    for stray in finder.recovery_strays:
        err(f"skipped {stray.kind} {stray.where}: {stray.reason}")
    if finder.recovered_found is not None:
        err(origin_line(finder.recovered_found))
