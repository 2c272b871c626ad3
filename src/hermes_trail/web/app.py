"""What the web viewer's pages ask for, answered as JSON-ready dicts: the sessions (filtered, a page at a
time, with the values each filter can take), the stats for the charts, search, and one session's replay.

Every answer is built from the uses (``listing``, ``stats``, ``export.view``) and the service's search;
everything shown is redacted. Parameters arrive as strings from the query; a bad one is a
:class:`BadRequest` naming it.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_trail.errors import AmbiguousSession, SessionNotFound, TrailError
from hermes_trail.listing import project_matches
from hermes_trail.model import Session
from hermes_trail.serialize import iso, tokens_json
from hermes_trail.web.catalog import Catalog, Measurer

if TYPE_CHECKING:
    from hermes_trail.history import History
    from hermes_trail.recovery import Finder

MARK_OPEN, MARK_CLOSE = "\u00ab", "\u00bb"  # as index/search.py marks a match
# Strings longer than this are cut in a replay served to the browser (an export keeps them whole).
VIEW_STRING_LIMIT = 100_000
PAGE_MAX = 500
FACETS = ("profile", "project", "source", "model")
# The filters the dashboard sends (dashboard.js: FILTERS), echoed in the sessions' answer.
VIEW_FILTERS = (*FACETS, "from", "to", "text")
# Replays kept ready, newest use last; a 5,000-message session's view is a few megabytes.
VIEW_CACHE = 4
# A replay kept: the session's ref, the catalog's generation, and what changes when the session grows.
ViewKey = tuple[str, int, tuple[object, ...]]


def _view_key(session: Session, generation: int) -> ViewKey:
    return (session.ref, generation, (session.last_activity_at, session.message_count))


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
        if self.project is not None and not project_matches(session.project, self.project):
            return False  # the CLI's rule: the full path, or its last parts
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


_NOT_LETTERS = re.compile(r"[\W_]+")


def snippet_parts(snippet: str, query: str) -> list[list[Any]]:
    """A search snippet as ``[text, marked]`` parts, terminal escapes removed and controls made visible.

    The search marks each match between ``«`` and ``»`` without escaping the text's own guillemets, so a
    pair is a mark only when what it holds is a word of the query (the search marks only those, as the word
    index reads them: "café" for cafe, "pre-commit" for "pre commit") and holds no ``«`` itself; any other
    guillemet is text.
    """
    from hermes_trail.export.view import plain
    from hermes_trail.index.search import seen

    def letters(text: str) -> str:  # as the search marks it: accents off, words apart by anything
        return " ".join(_NOT_LETTERS.split(seen(unicodedata.normalize("NFC", text)).casefold()))

    wanted = letters(query)
    stems: set[str] | None = None

    def held(inner: str) -> bool:
        """Whether a marked word is a word of the query: as typed, or in another form with its stem (the
        search marks "Authorization" for authorized)."""
        nonlocal stems
        if letters(inner) in wanted:
            return True
        said = _NOT_LETTERS.split(inner.casefold().strip())
        if not said or not all(word.isascii() and word.isalpha() for word in said):
            return False
        from hermes_trail.index import plan

        if stems is None:
            stems = {plan.stem(w) for w in wanted.split() if w.isascii() and w.isalpha()}
        # each word of a phrase found in another form too ("backed up" for "back up")
        return all(plan.stem(word) in stems for word in said)

    parts: list[list[Any]] = []

    def add(text: str, marked: bool) -> None:
        if not text:
            return
        if parts and parts[-1][1] == marked and not marked:
            parts[-1][0] += text
        else:
            parts.append([text, marked])

    i, size = 0, len(snippet)
    while i < size:
        start = snippet.find(MARK_OPEN, i)
        if start < 0:
            add(snippet[i:], False)
            break
        end = snippet.find(MARK_CLOSE, start + 1)
        inner = snippet[start + 1 : end] if end > start + 1 else ""
        if inner and MARK_OPEN not in inner and held(inner):
            add(snippet[i:start], False)
            add(inner, True)
            i = end + 1
        else:
            add(snippet[i : start + 1], False)
            i = start + 1
    return [[plain(text), marked] for text, marked in parts]


def _row(session: Session) -> dict[str, Any]:
    """One line of the session table: what the table shows, nothing more."""
    from hermes_trail.export.view import plain
    from hermes_trail.redact import redact
    from hermes_trail.transcript import money

    usage = session.usage
    return {
        "ref": session.ref,
        "id": session.id,
        "title": redact(plain(session.title)) if session.title else None,
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
        "cost_kind": usage.cost_kind,
    }


class Indexing:
    """The search index's first sync in the background, as the page shows it: ``building`` (messages
    read of those to read), then ``ready``, or ``failed`` with why. A viewer that never started one is
    ready: its searches sync as every query does."""

    def __init__(self) -> None:
        self.state = "ready"
        self.done = 0
        self.total = 0
        self.error: str | None = None
        self.seconds: float | None = None
        self._lock = threading.Lock()

    def as_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "state": self.state,
                "done": self.done,
                "total": self.total,
                "error": self.error,
                "seconds": self.seconds,
            }

    def progress(self, done: int, total: int) -> None:
        with self._lock:
            self.done, self.total = done, total

    @property
    def ready(self) -> bool:
        return self.state != "building"


class WebApp:
    """The answers of one running viewer, over one catalog and one index."""

    def __init__(
        self,
        homes: tuple[str | Path, ...] = (),
        dbs: tuple[str | Path, ...] = (),
        index: Path | None = None,
        env: Mapping[str, str] | None = None,
        pgs: tuple[str, ...] = (),
    ) -> None:
        from hermes_trail.service import Trail

        self.catalog = Catalog(homes=homes, dbs=dbs, pgs=pgs, env=env)
        self.measurer = Measurer(self.catalog)
        self.trail = Trail(index=index, homes=homes, dbs=dbs, pgs=pgs, env=env)
        self._views: OrderedDict[ViewKey, bytes] = OrderedDict()
        self._views_lock = threading.Lock()
        self._making: dict[ViewKey, threading.Event] = {}
        self._facet_cache: tuple[Any, list[Session], dict[str, list[list[Any]]]] | None = None
        self._rates: dict[Any, Any] = {}
        self._heads: OrderedDict[tuple[ViewKey, int], bytes] = OrderedDict()
        self._local = threading.local()
        self.indexing = Indexing()

    def build_index(self, say: Callable[[str], None] | None = None) -> threading.Thread:
        """Sync the search index in a background thread (the server already listens); the page shows
        its progress and search answers once it is done. ``say`` gets a line at the start, about every
        tenth of the way, and at the end, for a log with no terminal."""
        import time

        state = self.indexing
        with state._lock:
            state.state, state.done, state.total, state.error = "building", 0, 0, None
        trail = self.trail
        said = [-1]

        def progress(done: int, total: int) -> None:
            state.progress(done, total)
            tenth = done * 10 // total if total else 0
            if say is not None and total and tenth > said[0]:
                said[0] = tenth
                say(f"indexing for search: {done:,} of {total:,} messages")

        def run() -> None:
            started = time.perf_counter()
            try:
                # Through Trail's own sync: the searches after it then know the index is fresh.
                trail.sync(force=True, progress=progress, notify=say)
                report = trail.last_sync
            except Exception as exc:  # shown in the page and said; the viewer itself keeps working
                with state._lock:
                    state.state, state.error = "failed", str(exc) or type(exc).__name__
                if say is not None:
                    say(f"the search index could not be built: {state.error}")
                return
            with state._lock:
                state.state, state.seconds = "ready", round(time.perf_counter() - started, 3)
            if say is not None and report is not None and report.messages_read:
                say(f"search index ready: {report.messages_read:,} messages read in {state.seconds:.1f} s")
            # The dictionary and the sentence model loaded now, not by the first search that needs them.
            for failed in trail.warm_up():
                if say is not None:
                    say(failed)

        thread = threading.Thread(target=run, name="trail-index", daemon=True)
        thread.start()
        return thread

    def index_status(self, query: Mapping[str, str]) -> dict[str, Any]:
        """The search index's sync: ``building`` with its progress, ``ready`` or ``failed``."""
        return self.indexing.as_json()

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
        everything, facets = self._facets(history)
        chosen = [s for s in everything if flt.accepts(s)] if flt != Filters() else everything
        page = chosen[offset : offset + limit]
        rows = [_row(s) for s in page]
        untitled = [s for s in page if not s.title]
        if untitled:  # its first prompt instead, as `trail list` and Hermes' own list show it
            from hermes_trail.export.view import plain

            openings = history.first_prompts([(s.store, s.id) for s in untitled], redacted=True)
            for row, session in zip(rows, page, strict=True):
                if not session.title and (text := openings.get(session.key)):
                    row["opening"] = plain(text)
        if query.get("estimate") == "1":  # trail's estimate beside each unknown cost, labelled so
            guesses = self.estimates(page)
            for row, session in zip(rows, page, strict=True):
                row["estimate"] = guesses.get(session.key)
        return {
            "sessions": rows,
            "total": len(chosen),
            "all": len(everything),
            "offset": offset,
            # the view answered, as asked: the page uses a preloaded answer only when it is the view its
            # filters show
            "view": {
                "filters": {name: query.get(name) or "" for name in VIEW_FILTERS},
                "offset": offset,
                "estimate": query.get("estimate") == "1",
            },
            "facets": facets,
            "demo": history.demo,
            "index": self.indexing.as_json(),
            "stores": [{"name": s.name, "profile": s.profile, "path": s.path} for s in history.stores],
            "skipped": [
                {"where": s.where, "reason": s.reason}
                for s in history.strays
                if s.kind in ("store", "directory")
            ],
        }

    def _facets(self, history: Any) -> tuple[list[Session], dict[str, list[list[Any]]]]:
        """Every session and each filter's values with their counts, made once per reading of the stores."""
        with self._views_lock:
            if self._facet_cache is not None and self._facet_cache[0] is history:
                return self._facet_cache[1], self._facet_cache[2]
        everything = list(history.sessions)
        counts: dict[str, dict[str, int]] = {name: {} for name in FACETS}
        for session in everything:
            for name in FACETS:
                value = getattr(session, name) or ""
                counts[name][value] = counts[name].get(value, 0) + 1
        facets: dict[str, list[list[Any]]] = {
            name: [[k, n] for k, n in sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))]
            for name, values in counts.items()
        }
        with self._views_lock:
            self._facet_cache = (history, everything, facets)
        return everything, facets

    def stats(self, query: Mapping[str, str]) -> dict[str, Any]:
        """``trail stats --json`` of the sessions that pass the filters (message figures: those measured)."""
        from hermes_trail.stats import GROUPINGS, aggregate

        by = query.get("by") or "day"
        if by not in GROUPINGS:
            raise BadRequest(f"by must be one of: {', '.join(GROUPINGS)}")
        flt = Filters.parse(query)
        chosen = [s for s in self.catalog.sessions() if flt.accepts(s)]
        estimates = self.estimates(chosen) if query.get("estimate") == "1" else None
        report = aggregate(chosen, by, self.measurer.figures(chosen), estimates)
        out = report.as_json()
        out["measuring"] = {"done": report.overall.measured, "total": report.overall.sessions}
        return out

    def estimates(self, sessions: list[Session]) -> dict[tuple[str, str], float]:
        """Trail's estimates of the sessions of unknown cost (``stats.estimate_costs``), the rates of each
        model asked of Hermes once; none when no Hermes is found."""
        from hermes_trail.stats import estimate_costs

        return estimate_costs(sessions, rates_for=self._rates_for) or {}

    def _rates_for(self, pairs: Any, env: Any = None) -> dict[Any, Any] | None:
        from hermes_trail.pricing import hermes_rates

        wanted = set(pairs)
        with self._views_lock:
            missing = wanted - set(self._rates)
        if missing:
            found = hermes_rates(missing, env)
            if found is None:
                return None
            with self._views_lock:
                self._rates.update(found)
        with self._views_lock:
            return {pair: self._rates.get(pair) for pair in wanted}

    def search(self, query: Mapping[str, str]) -> dict[str, Any]:
        """``trail search --json`` (redacted, budgeted), with the dashboard's filters."""
        from hermes_trail.export.view import plain
        from hermes_trail.service import ServiceError

        words = (query.get("q") or "").strip()
        if not words:
            return {"query": "", "matches": 0, "windowed": False, "seconds": 0, "conversations": []}
        if not self.indexing.ready:  # the first build: say how far it is rather than wait for it
            return {
                "query": words,
                "matches": 0,
                "windowed": False,
                "seconds": 0,
                "conversations": [],
                "indexing": self.indexing.as_json(),
            }
        flt = Filters.parse(query)
        try:
            result = self.trail.search(
                words,
                project=flt.project,
                profile=flt.profile,
                source=flt.source,
                since=flt.start.isoformat() if flt.start else None,
                until=(flt.end + timedelta(days=1)).isoformat() if flt.end else None,
                limit=_int(query.get("limit"), "limit", 10, 1, 50),
            )
        except ServiceError as exc:
            raise BadRequest(str(exc)) from exc
        # A Chinese question's marks are also the English words it was read as, an English one's the
        # Chinese or Japanese words; a word typed wrong's, the words searched for in its place.
        respelled = [w for spelled in result.get("spelled", {}).values() for w in spelled]
        marked = " ".join([words, *result.get("read_as", []), *result.get("read_as_cjk", []), *respelled])
        for conversation in result.get("conversations", []):
            for hit in conversation.get("hits", []):
                hit["snippet_parts"] = snippet_parts(hit.get("snippet") or "", marked)
                if hit.get("title"):
                    hit["title"] = plain(hit["title"])
        return result

    # -- any question ---------------------------------------------------------------------------------
    def ask(self, name: str, query: Mapping[str, str]) -> dict[str, Any]:
        """``/api/ask/<question>``: any question of ``questions.py`` (recall, search, fix, blame, how,
        show, sessions, stats, export), its arguments read and bounded by the same declaration the MCP
        tools and the command line are made from, answered by the same
        :class:`~hermes_trail.service.Trail` call, in the same JSON (recall's page as ``{"page": ...}``;
        an empty page for nothing found)."""
        from hermes_trail.questions import QUESTIONS, arguments
        from hermes_trail.service import ServiceError

        question = QUESTIONS.get(name)
        if question is None:
            raise NotFound(f"there is no question {name!r}; the questions are {', '.join(QUESTIONS)}")
        given = {key: value for key, value in query.items() if key != "token"}
        try:
            args = arguments(question, given)
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc
        if not self.indexing.ready and question.indexed:
            return {"indexing": self.indexing.as_json()}
        try:
            answer = getattr(self.trail, name)(**args)
        except ServiceError as exc:  # a session no store holds is not found; the rest is a bad request
            raise (NotFound if isinstance(exc.__cause__, SessionNotFound) else BadRequest)(str(exc)) from exc
        return {"page": answer or ""} if isinstance(answer, str) or answer is None else dict(answer)

    # -- one session ----------------------------------------------------------------------------------
    def session(self, query: Mapping[str, str]) -> dict[str, Any]:
        """One session's replay view (``export/view.py``), redacted, long strings cut."""
        import json

        return dict(json.loads(self.session_body(query)))

    def session_body(self, query: Mapping[str, str]) -> bytes:
        """:meth:`session` as the JSON bytes served (the last few are kept ready).

        With ``head=N`` only the first N replayed turns (``partial``), answered as soon as they are read:
        from the session's first rows alone when those settle them (``first_turns``; the figures only
        every row tells are then left out), else once the whole session is read. The whole view is then
        made in the background, so the page's next request for it finds it ready or nearly.
        """
        import json

        from hermes_trail.export.view import session_view
        from hermes_trail.web.first_turns import first_rows

        ref = (query.get("ref") or "").strip()
        if not ref:
            raise BadRequest("ref names no session")
        head = _int(query.get("head"), "head", 0, 0, 10_000) or None
        generation = self.catalog.generation
        with self._finder() as (history, reader):
            session = self._find(reader, ref)
            key = _view_key(session, generation)
            cached = self._cached(key, wait=head is None) if head is None else self._heads.get((key, head))
            if cached is not None:
                return cached
            first = None
            if head is not None:
                family = reader.family(session)  # linked before the copy first_rows decodes into
                first = first_rows(history, session, head)
            if first is None:
                reader.load(session)
                family = reader.family(session)
        if head is None:
            return self._whole(key, session, family)
        with self._views_lock:
            start = key not in self._making  # else another request is making it already
            if start:
                self._making[key] = threading.Event()
        if first is None:
            view = session_view(session, family, limit=VIEW_STRING_LIMIT, head=head)
        else:
            view = session_view(first, family, limit=VIEW_STRING_LIMIT, head=head, counted=False)
        if start:  # made once this answer is out (the server says so), or after half a second
            answered = threading.Event()
            self._local.answered = answered
            if first is None:
                made = threading.Thread(target=self._whole, args=(key, session, family, answered))
            else:  # read again, whole, in a history of that thread's own
                made = threading.Thread(target=self._read_whole, args=(key, session.ref, answered))
            made.daemon = True
            made.start()
        body = json.dumps(view, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
        with self._views_lock:
            self._heads[(key, head)] = body
            while len(self._heads) > VIEW_CACHE:
                self._heads.popitem(last=False)
        return body

    @contextmanager
    def _finder(self) -> Iterator[tuple[History, Finder]]:
        """A history of its own (``Catalog.reader``) and the finder over it, closed after use."""
        from hermes_trail.recovery import Finder

        catalog = self.catalog
        with (
            catalog.reader() as history,
            Finder(history, homes=catalog.homes, dbs=catalog.dbs, env=catalog.env) as reader,
        ):
            yield history, reader

    @staticmethod
    def _find(reader: Finder, ref: str) -> Session:
        """The session ``ref`` names: a live one, else a deleted one a snapshot or divert holds."""
        try:
            return reader.find(ref)
        except AmbiguousSession as exc:
            raise BadRequest(f"{ref!r} names several sessions: {', '.join(exc.candidates[:8])}") from exc
        except SessionNotFound as exc:
            near = reader.near(ref)  # an id with a slip in it (a link typed by hand)
            like = f"; sessions like it: {', '.join(near)}" if near else ""
            raise NotFound(f"no session {ref!r}{like}") from exc

    def _read_whole(self, key: ViewKey, ref: str, after: threading.Event) -> None:
        """The whole view of a session whose first turns were answered from its first rows: read whole
        (once that answer is out), made and kept. A failure is left to the page's request for the whole
        view, which reads the session again and says what went wrong."""
        try:
            after.wait(0.5)
            generation = self.catalog.generation
            with self._finder() as (_, reader):
                session = reader.load(self._find(reader, ref))
                family = reader.family(session)
            self._whole(_view_key(session, generation), session, family)  # kept under what it read
        except Exception:
            return
        finally:
            with self._views_lock:
                making = self._making.pop(key, None)
            if making is not None:
                making.set()

    def _cached(self, key: ViewKey, wait: bool) -> bytes | None:
        """The view kept for ``key``; with ``wait``, one being made is waited for (up to a minute)."""
        with self._views_lock:
            cached = self._views.get(key)
            if cached is not None:
                self._views.move_to_end(key)
                return cached
            making = self._making.get(key)
        if making is None or not wait:
            return None
        making.wait(60)
        with self._views_lock:
            return self._views.get(key)

    def forget_views(self) -> None:
        """Drop the replays kept ready (the next request for one reads its session again)."""
        with self._views_lock:
            self._views.clear()
            self._heads.clear()

    def answered(self) -> None:
        """Called by the server once the answer of this thread's request is sent: the whole view that a
        first-turns answer put off is made now, without slowing that answer down."""
        event = getattr(self._local, "answered", None)
        if event is not None:
            event.set()
            self._local.answered = None

    def _whole(
        self,
        key: ViewKey,
        session: Session,
        family: Mapping[str, Session],
        after: threading.Event | None = None,
    ) -> bytes:
        """The whole view of a loaded session, made and kept (once ``after`` is set, when given)."""
        import json

        from hermes_trail.export.view import session_view

        try:
            if after is not None:
                after.wait(0.5)
            view = session_view(session, family, limit=VIEW_STRING_LIMIT)
            body = json.dumps(view, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
            with self._views_lock:
                self._views[key] = body
                while len(self._views) > VIEW_CACHE:
                    self._views.popitem(last=False)
            return body
        finally:
            with self._views_lock:
                making = self._making.pop(key, None)
            if making is not None:
                making.set()
