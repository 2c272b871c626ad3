"""What the web viewer's pages ask for, answered as JSON-ready dicts: the sessions (filtered, a page at a
time, with the values each filter can take), the stats for the charts, search, and one session's replay.

Every answer is built from the uses (``listing``, ``stats``, ``export.view``) and the service's search;
everything shown is redacted. Parameters arrive as strings from the query; a bad one is a
:class:`BadRequest` naming it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from hermes_trail.errors import AmbiguousSession, SessionNotFound, TrailError
from hermes_trail.model import Session
from hermes_trail.serialize import iso, tokens_json
from hermes_trail.web.catalog import Catalog, Measurer

# Strings longer than this are cut in a replay served to the browser (an export keeps them whole).
VIEW_STRING_LIMIT = 100_000
PAGE_MAX = 500
FACETS = ("profile", "project", "source", "model")
# Replays kept ready, newest use last; a 5,000-message session's view is a few megabytes.
VIEW_CACHE = 4


class BadRequest(TrailError):
    """A parameter the page sent that cannot be used; the message names it."""


class NotFound(TrailError):
    """The session asked for is not in any store."""


def _day(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise BadRequest(f"{name} must be a date like 2026-11-30") from exc


def _int(value: str | None, name: str, default: int, least: int, most: int) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError as exc:
        raise BadRequest(f"{name} must be a whole number") from exc
    return max(least, min(number, most))


@dataclass(frozen=True, slots=True)
class Filters:
    """The dashboard's filters; ``None`` means any. Days are local dates, both ends included."""

    profile: str | None = None
    project: str | None = None
    source: str | None = None
    model: str | None = None
    start: date | None = None
    end: date | None = None
    text: str | None = None

    @classmethod
    def parse(cls, query: Mapping[str, str]) -> Filters:
        start, end = _day(query.get("from"), "from"), _day(query.get("to"), "to")
        if start and end and end < start:
            raise BadRequest("to is before from")
        return cls(
            profile=query.get("profile") or None,
            project=query.get("project") or None,
            source=query.get("source") or None,
            model=query.get("model") or None,
            start=start,
            end=end,
            text=(query.get("text") or "").strip().lower() or None,
        )

    def accepts(self, session: Session) -> bool:
        if self.profile is not None and session.profile != self.profile:
            return False
        if self.project is not None and session.project != self.project:
            return False
        if self.source is not None and (session.source or "") != self.source:
            return False
        if self.model is not None and (session.model or "") != self.model:
            return False
        if self.start is not None or self.end is not None:
            first = session.started_at or session.last_activity_at
            last = session.last_activity_at or session.started_at
            if first is None or last is None:
                return False
            local = datetime.now().astimezone().tzinfo
            if self.start is not None and last < datetime.combine(self.start, time.min, local):
                return False
            after = datetime.combine(self.end + timedelta(days=1), time.min, local) if self.end else None
            if after is not None and first >= after:
                return False
        if self.text is not None:
            hay = f"{session.id} {session.title or ''} {session.project}".lower()
            if self.text not in hay:
                return False
        return True


def _row(session: Session) -> dict[str, Any]:
    """One line of the session table: what the table shows, nothing more."""
    from hermes_trail.index.redact import redact
    from hermes_trail.transcript import money

    usage = session.usage
    return {
        "ref": session.ref,
        "id": session.id,
        "title": redact(session.title) if session.title else None,
        "profile": session.profile,
        "project": session.project,
        "source": session.source,
        "model": session.model,
        "kind": session.kind,
        "relation": session.relation,
        "started_at": iso(session.started_at),
        "last_activity_at": iso(session.last_activity_at),
        "messages": session.message_count,
        "tokens": tokens_json(usage),
        "cost": usage.cost_usd,
        "cost_text": money(usage),
    }


class WebApp:
    """The answers of one running viewer, over one catalog and one index."""

    def __init__(self, homes: tuple[str | Path, ...] = (), dbs: tuple[str | Path, ...] = (),
                 index: Path | None = None, env: Mapping[str, str] | None = None,
                 pgs: tuple[str, ...] = ()) -> None:  # fmt: skip
        from hermes_trail.service import Trail

        self.catalog = Catalog(homes=homes, dbs=dbs, pgs=pgs, env=env)
        self.measurer = Measurer(self.catalog)
        self.trail = Trail(index=index, homes=homes, dbs=dbs, pgs=pgs, env=env)
        self._views: OrderedDict[tuple[str, int, tuple[object, ...]], bytes] = OrderedDict()
        self._views_lock = threading.Lock()

    def close(self) -> None:
        self.measurer.stop()
        self.catalog.close()

    # -- the dashboard --------------------------------------------------------------------------------
    def sessions(self, query: Mapping[str, str]) -> dict[str, Any]:
        """A page of sessions that pass the filters, newest activity first, and every filter's values."""
        flt = Filters.parse(query)
        offset = _int(query.get("offset"), "offset", 0, 0, 10**9)
        limit = _int(query.get("limit"), "limit", 100, 1, PAGE_MAX)
        history = self.catalog.history()
        everything = list(history.sessions)
        chosen = [s for s in everything if flt.accepts(s)]
        facets: dict[str, dict[str, int]] = {name: {} for name in FACETS}
        for session in everything:
            for name in FACETS:
                value = getattr(session, name) or ""
                facets[name][value] = facets[name].get(value, 0) + 1
        return {
            "sessions": [_row(s) for s in chosen[offset : offset + limit]],
            "total": len(chosen),
            "all": len(everything),
            "offset": offset,
            "facets": {
                name: sorted(([k, n] for k, n in counts.items()), key=lambda kv: (-kv[1], kv[0]))
                for name, counts in facets.items()
            },
            "demo": history.demo,
            "stores": [{"name": s.name, "profile": s.profile, "path": s.path} for s in history.stores],
            "skipped": [
                {"where": s.where, "reason": s.reason}
                for s in history.strays
                if s.kind in ("store", "directory")
            ],
        }

    def stats(self, query: Mapping[str, str]) -> dict[str, Any]:
        """``trail stats --json`` of the sessions that pass the filters (message figures: those measured)."""
        from hermes_trail.stats import GROUPINGS, aggregate

        by = query.get("by") or "day"
        if by not in GROUPINGS:
            raise BadRequest(f"by must be one of: {', '.join(GROUPINGS)}")
        flt = Filters.parse(query)
        chosen = [s for s in self.catalog.sessions() if flt.accepts(s)]
        report = aggregate(chosen, by, self.measurer.figures(chosen))
        out = report.as_json()
        out["measuring"] = {"done": report.overall.measured, "total": report.overall.sessions}
        return out

    def search(self, query: Mapping[str, str]) -> dict[str, Any]:
        """``trail search --json`` (redacted, budgeted), with the dashboard's filters."""
        from hermes_trail.service import ServiceError

        words = (query.get("q") or "").strip()
        if not words:
            return {"query": "", "matches": 0, "windowed": False, "seconds": 0, "conversations": []}
        flt = Filters.parse(query)
        try:
            return self.trail.search(
                words, project=flt.project, profile=flt.profile, source=flt.source,
                since=flt.start.isoformat() if flt.start else None,
                until=(flt.end + timedelta(days=1)).isoformat() if flt.end else None,
                limit=_int(query.get("limit"), "limit", 10, 1, 50),
            )  # fmt: skip
        except ServiceError as exc:
            raise BadRequest(str(exc)) from exc

    # -- one session ----------------------------------------------------------------------------------
    def session(self, query: Mapping[str, str]) -> dict[str, Any]:
        """One session's replay view (``export/view.py``), redacted, long strings cut."""
        import json

        return dict(json.loads(self.session_body(query)))

    def session_body(self, query: Mapping[str, str]) -> bytes:
        """:meth:`session` as the JSON bytes served (the last few are kept ready)."""
        import json

        from hermes_trail.export.view import session_view

        ref = (query.get("ref") or "").strip()
        if not ref:
            raise BadRequest("ref names no session")
        generation = self.catalog.generation
        with self.catalog.reader() as reader:
            try:
                session = reader.find(ref)
            except AmbiguousSession as exc:
                raise BadRequest(f"{ref!r} names several sessions: {', '.join(exc.candidates[:8])}") from exc
            except SessionNotFound as exc:
                raise NotFound(f"no session {ref!r}") from exc
            key = (session.ref, generation, (session.last_activity_at, session.message_count))
            with self._views_lock:
                cached = self._views.get(key)
                if cached is not None:
                    self._views.move_to_end(key)
                    return cached
            reader.load(session)
            family = reader.family(session)
            view = session_view(session, family, limit=VIEW_STRING_LIMIT)
        body = json.dumps(view, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
        with self._views_lock:
            self._views[key] = body
            while len(self._views) > VIEW_CACHE:
                self._views.popitem(last=False)
        return body
