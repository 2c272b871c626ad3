"""The session picker behind ``trail pick``: every session of every store in one list, narrowed as a person
types (titles, first prompts, ids, directories; the search index for what was said inside), a preview of
the highlighted session, and what to do with the one chosen.

Opening must feel instant on a history of any size, so nothing here decodes a whole store: the list is
read from ``sessions`` columns and two indexed look-ups per row (the first user message, the newest
message time), the newest screenful first, the rest on a worker thread once the picker is up; a preview
decodes the first rows of one session only. prompt_toolkit is imported by :func:`run_picker` alone, after
:func:`painted` has put a first frame on the screen with the standard library, so the list shows while the
UI library loads (keys typed meanwhile wait in the terminal and are read when it is ready).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from hermes_trail.errors import StoreUnreadable
from hermes_trail.model import Session, Store, Stray

if TYPE_CHECKING:
    from hermes_trail.history import History
    from hermes_trail.resume import ResumePlan

# What a key does once the picker closes.
RESUME, SHOW, EXPORT, COPY = "resume", "show", "export", "copy"
# The help line, in the picker and in its first frame.
KEYS_HELP = "enter resume · ^o show · ^x export .md · ^y copy id · ↑↓ move · esc quit"
# Characters of the first prompt kept for the list and its matching.
PROMPT_CHARS = 240
# A preview decodes this many message rows of the session at most (tool calls and results included).
PREVIEW_ROWS = 80
PREVIEW_TURNS = 16
PREVIEW_TURN_CHARS = 700
# The index is asked once typing pauses this long, for this many conversations.
SEARCH_PAUSE = 0.15
SEARCH_LIMIT = 30
# Words shorter than this are matched in memory only (the index would match half the history).
SEARCH_MIN_CHARS = 3

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def one_line(text: str | None, limit: int = PROMPT_CHARS) -> str:
    """``text`` on one line, control characters (escape sequences included) turned into spaces."""
    if not text:
        return ""
    line = " ".join(text[: limit * 2].split())  # str.split is ten times as fast as a pattern here
    if not line.isprintable():  # a control character split() does not take (an escape), or a format one
        line = " ".join(_CONTROLS.sub(" ", line).split())
    return line[:limit]


@dataclass(slots=True)
class Choice:
    """One session as the picker lists it: sessions-table columns, its first prompt and newest activity.

    :param hit: what the search index found in it for the current query (a snippet), if it did.
    """

    store: Store
    id: str
    title: str
    prompt: str
    source: str
    cwd: str
    started: float | None
    active: float | None
    hit: str = ""
    haystack: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.haystack:
            words = (self.title, self.prompt, self.id, self.cwd, self.store.profile, self.source)
            self.haystack = " ".join(words).lower()

    @property
    def ref(self) -> str:
        """``<store name>:<id>``: what :meth:`History.find` takes, unambiguous across profiles."""
        return f"{self.store.name}:{self.id}"

    @property
    def key(self) -> tuple[str, str]:
        return (self.store.key, self.id)

    @property
    def label(self) -> str:
        """The title, else the first prompt (Hermes' own list does the same)."""
        return self.title or self.prompt or "(no prompt)"

    @property
    def when(self) -> float | None:
        return self.active if self.active is not None else self.started


# -- the list -----------------------------------------------------------------------------------------
def _sql(columns: list[str], limit: int | None) -> tuple[str, tuple[Any, ...]]:
    def col(name: str) -> str:
        return f"s.{name}" if name in columns else "NULL"

    newest = "(SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id)"
    sql = (
        f"SELECT s.id, {col('title')}, {col('source')}, {col('cwd')}, {col('started_at')}, "
        f"{col('last_activity_at')}, {newest} FROM sessions s"
    )
    params: tuple[Any, ...] = ()
    if limit is not None:  # the newest sessions, through Hermes' index on started_at
        sql += f" ORDER BY {col('started_at')} DESC LIMIT ?"
        params += (limit,)
    return sql, params


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _store_choices(history: History, store: Store, limit: int | None) -> list[Choice]:
    from hermes_trail.hermes.store import SqliteStore

    reader = history.reader(store)
    out: list[Choice] = []
    if isinstance(reader, SqliteStore):
        sql, params = _sql(reader.columns("sessions"), limit)
        rows = [tuple(r.values()) for r in reader.rows(sql, params)]
    else:  # a database store: its sessions rows
        light = reader.session_rows(light=True)
        rows = [
            (r.get("id"), r.get("title"), r.get("source"), r.get("cwd"), r.get("started_at"), None, None)
            for r in light
        ]
    ids = [sid for sid, *_ in rows if isinstance(sid, str) and sid]
    # The first prompt by the rule every list follows (History.first_prompts: the first live user row).
    prompts = history.first_prompts(((store, sid) for sid in ids), PROMPT_CHARS)
    for sid, title, source, cwd, started, column, newest in rows:
        if not isinstance(sid, str) or not sid:
            continue  # a row no command could name
        # Last activity: the newest of the column (schema 31) and the messages, as a session's is.
        times = [t for t in (_number(column), _number(newest)) if t is not None]
        out.append(
            Choice(
                store,
                sid,
                one_line(title if isinstance(title, str) else None),
                one_line(prompts.get((store.key, sid))),
                source if isinstance(source, str) else "",
                cwd if isinstance(cwd, str) else "",
                _number(started),
                max(times) if times else None,
            )
        )
    return out


def list_choices(history: History, limit: int | None = None) -> list[Choice]:
    """Every session of ``history``'s stores (opened without a catalog), newest activity first.

    :param limit: only the newest ``limit`` sessions of each store by start (the first screen).
    """
    out: list[Choice] = []
    for store in history.stores:
        try:
            out.extend(_store_choices(history, store, limit))
        except StoreUnreadable as exc:  # the other stores still list
            history.strays.append(Stray(where=store.path, reason=exc.reason, kind="store", store=store.name))
    out.sort(key=lambda c: (c.when or 0.0, c.id), reverse=True)
    return out


def narrow(choices: list[Choice], query: str) -> list[Choice]:
    """The choices whose title, first prompt, id, directory, profile or source hold every word typed."""
    words = query.lower().split()
    if not words:
        return list(choices)
    if len(words) == 1:
        word = words[0]
        return [c for c in choices if word in c.haystack]
    return [c for c in choices if all(w in c.haystack for w in words)]


def index_hits(index: Path, query: str, limit: int = SEARCH_LIMIT) -> dict[tuple[str, str], str]:
    """Sessions the search index finds for ``query``, best first: ``(store key, session id)`` to a
    snippet of what matched."""
    from hermes_trail.index import meaning_client
    from hermes_trail.index.results import MARK_CLOSE, MARK_OPEN
    from hermes_trail.index.search import SearchFilters, search

    with meaning_client.served():  # the model stays in the meaning server, not in the picker's memory
        result = search(index, query, SearchFilters(), limit=limit, per_conversation=1, snippet_chars=100)
    hits: dict[tuple[str, str], str] = {}
    for conversation in result.conversations:
        for hit in conversation.hits:
            text = hit.snippet.replace(MARK_OPEN, "").replace(MARK_CLOSE, "")
            hits.setdefault((hit.store, hit.session_id), one_line(text, 160))
    return hits


def merge_hits(shown: list[Choice], every: list[Choice], hits: Mapping[tuple[str, str], str]) -> list[Choice]:
    """The in-memory matches, then the sessions the index found that they do not hold (its order)."""
    by_key = {c.key: c for c in every}
    have = {c.key for c in shown}
    extra: list[Choice] = []
    for key, snippet in hits.items():
        found = by_key.get(key)
        if found is None or key in have:
            continue
        extra.append(
            Choice(
                found.store,
                found.id,
                found.title,
                found.prompt,
                found.source,
                found.cwd,
                found.started,
                found.active,
                hit=snippet,
                haystack=found.haystack,
            )
        )
    return shown + extra


def stamp(when: float | None, now: float | None = None) -> str:
    """``11-28 09:14`` this year, ``2025-11-28`` before; blank when unknown."""
    if when is None:
        return " " * 11
    try:
        local = time.localtime(when)
    except (OverflowError, OSError, ValueError):
        return " " * 11
    this_year = time.localtime(now if now is not None else time.time()).tm_year
    return time.strftime("%m-%d %H:%M" if local.tm_year == this_year else "%Y-%m-%d ", local)


def several_stores(choices: list[Choice]) -> bool:
    """Whether the rows need a store column (the first screen holds the newest of every store)."""
    return len({c.store.name for c in choices}) > 1


def row_text(choice: Choice, profiles: bool) -> str:
    """One list row: when, the profile when there are several, the source, the title or first prompt."""
    parts = [stamp(choice.when)]
    if profiles:
        parts.append(f"{choice.store.name[:10]:<10}")
    parts.append(f"{(choice.source or '-')[:8]:<8}")
    parts.append(choice.label)
    if choice.hit:  # found by the index in what was said: show what
        parts.append(f"  ≈ {choice.hit}")
    return " ".join(parts)


# -- the preview --------------------------------------------------------------------------------------
def find_session(history: History, choice: Choice) -> Session:
    """The session ``choice`` names, with its whole row (not its messages)."""
    return history.find(choice.ref)


def preview(history: History, choice: Choice) -> list[tuple[str, str]]:
    """The highlighted session as styled lines: what it is, the command that resumes it, its first turns.

    Reads at most :data:`PREVIEW_ROWS` message rows and decodes them as a replay does.
    """
    from hermes_trail.errors import TrailError
    from hermes_trail.hermes.decode.conversation import read_conversation
    from hermes_trail.hermes.store import SqliteStore
    from hermes_trail.resume import plan_for

    session = find_session(history, choice)
    out: list[tuple[str, str]] = [("class:head", f"{choice.label}\n")]
    facts = [session.ref, session.source or "", session.model or ""]
    out.append(("class:dim", " · ".join(f for f in facts if f) + "\n"))
    if session.cwd:
        out.append(("class:dim", f"in {session.cwd}\n"))
    if session.message_count:
        out.append(("class:dim", f"{session.message_count} messages\n"))
    try:
        out.append(("class:cmd", f"$ {plan_for(session).command}\n"))
    except TrailError as exc:
        out.append(("class:dim", f"cannot resume: {exc}\n"))
    if choice.hit:
        out.append(("class:hit", f"≈ {choice.hit}\n"))
    out.append(("", "\n"))
    reader = history.reader(session.store)
    if isinstance(reader, SqliteStore):
        rows = reader.rows(
            "SELECT * FROM messages WHERE session_id = ? ORDER BY id LIMIT ?", (session.id, PREVIEW_ROWS)
        )
    else:
        rows = reader.message_rows(session.id)[:PREVIEW_ROWS]
    read_conversation(session, rows, reader.columns("messages"))
    shown = 0
    for turn in session.turns:
        if shown >= PREVIEW_TURNS:
            out.append(("class:dim", "…\n"))
            break
        text = turn.text.strip()
        if turn.role == "user" and text:
            out += [("class:you", "you  "), ("", _cut(text) + "\n\n")]
        elif turn.role == "assistant":
            if text:
                out += [("class:agent", "hermes  "), ("", _cut(text) + "\n")]
            for call in turn.tool_calls:
                if call.command is not None:
                    what = call.command.command
                elif call.edits or call.reads:
                    what = " ".join([e.path for e in call.edits] + call.reads)
                else:
                    what = call.arguments_text
                out.append(("class:tool", f"  {call.name}: {one_line(what, 160)}\n"))
            out.append(("", "\n"))
        elif turn.role == "summary" and text:
            out += [("class:dim", "summary  "), ("class:dim", _cut(text, 300) + "\n\n")]
        else:
            continue
        shown += 1
    if not session.turns:
        out.append(("class:dim", "(no messages)\n"))
    return out


def _cut(text: str, limit: int = PREVIEW_TURN_CHARS) -> str:
    text = _CONTROLS.sub(lambda m: "\n" if "\n" in m.group() else " ", text)
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


# -- after the picker ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Picked:
    """What the person chose: ``action`` (:data:`RESUME`, :data:`SHOW`, :data:`EXPORT`, :data:`COPY`)."""

    action: str
    choice: Choice


Executor = Callable[[list[str], dict[str, str], Path | None], None]


def exec_in(argv: list[str], env: dict[str, str], cwd: Path | None) -> None:
    """Replace this process with ``argv``, run in ``cwd`` (when given) with ``env``."""
    if cwd is not None:
        os.chdir(cwd)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvpe(argv[0], argv, env)


def resume_target(history: History, choice: Choice) -> tuple[ResumePlan, Path | None]:
    """The command ``trail resume`` prints for the session, and the directory it ran in (``None`` when it
    recorded none, or that directory is gone).

    :raises ResumeRefused: Hermes cannot be pointed at its store.
    """
    from hermes_trail.resume import plan_for

    session = find_session(history, choice)
    plan = plan_for(session)
    cwd = Path(session.cwd) if session.cwd else None
    return plan, (cwd if cwd is not None and cwd.is_dir() else None)


def resume(plan: ResumePlan, cwd: Path | None, execute: Executor = exec_in) -> None:
    """Run the resume command as ``trail resume --exec`` does, in the session's directory."""
    execute(plan.argv, {**os.environ, **plan.env}, cwd)


def export_markdown(history: History, choice: Choice, directory: Path) -> Path:
    """Write the session as Markdown (secrets redacted) into ``directory``, named as ``trail export``
    names it.

    :raises ExportError: ``directory`` is inside a Hermes home, or the file cannot be written.
    """
    from hermes_trail.export import ExportError, encode, inside, render, safe_name, write_into

    roots = [Path(s.path).parent for s in history.stores] + [Path(s.home) for s in history.stores if s.home]
    if (found := inside(directory, roots)) is not None:
        raise ExportError(f"refusing to write into a Hermes home ({found}); run trail pick elsewhere")
    session = history.load(find_session(history, choice))
    rendered = render(session, "md", family=history.family(session), redacting=True)
    return write_into(directory, safe_name(session, "md"), encode(rendered.text))


def osc52(text: str) -> str:
    """The escape sequence that asks the terminal to put ``text`` on the clipboard (OSC 52)."""
    import base64

    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\x07"


# -- the terminal -------------------------------------------------------------------------------------
@contextmanager
def painted(stream: IO[str], choices: list[Choice], query: str = "", status: str = "") -> Iterator[None]:
    """Draw the picker's first frame with the standard library, and hold typed keys (unechoed) until the
    picker reads them; on leaving, give the terminal back as it was."""
    if sys.platform == "win32":  # no termios to hold the keys with: prompt_toolkit draws the first frame
        yield
        return
    import termios
    import tty

    fd = stream.fileno()
    try:
        saved: list[Any] | None = termios.tcgetattr(fd)
    except termios.error:
        saved = None
    try:
        if saved is not None:
            tty.setcbreak(fd, termios.TCSANOW)  # no echo: keys typed now wait for the picker
            quiet = termios.tcgetattr(fd)
            quiet[0] &= ~termios.ICRNL  # an Enter typed now must reach the picker as Enter, not ctrl-j
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
        try:
            size = os.get_terminal_size(fd)  # what prompt_toolkit will draw on (COLUMNS aside)
        except OSError:
            size = os.terminal_size((80, 24))
        stream.write(first_frame(choices, size.columns, size.lines, query, status))
        stream.flush()
        try:
            yield
        except BaseException:  # ctrl-c or a failure before the picker took the screen: give it back
            stream.write("\x1b[?1049l")
            stream.flush()
            raise
    finally:
        if saved is not None:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def first_frame(choices: list[Choice], width: int, height: int, query: str = "", status: str = "") -> str:
    """The picker as it first opens (prompt, status, the newest rows, the keys), as escape sequences for
    the alternate screen; what :func:`run_picker` then draws over."""
    width, height = max(width, 20), max(height, 5)
    profiles = several_stores(choices)
    listed = (width * LIST_SHARE) // 100 if width >= WIDE else width
    lines = [f"> {query}", status or f"{len(choices)} sessions"]
    rows = height - 3 if width >= WIDE else (height - 4) // 2  # narrow: the preview takes the lower half
    for n, choice in enumerate(choices[:rows]):
        lines.append(("▶ " if n == 0 else "  ") + row_text(choice, profiles)[: listed - 3])
    if width < WIDE:
        lines += [""] * (rows + 2 - len(lines)) + ["─" * width]
    body = "\r\n".join(line[:width] for line in lines)
    help_line = KEYS_HELP[: width - 1]
    # Alternate screen, home, clear; no wrapping while drawing; keys on the last line; cursor on the query.
    return (
        f"\x1b[?1049h\x1b[H\x1b[2J\x1b[?7l{body}\x1b[{height};1H{help_line}\x1b[?7h\x1b[1;{3 + len(query)}H"
    )


# Width from which the preview stands beside the list instead of below it, and the list's share (%).
WIDE = 100
LIST_SHARE = 55
_WORDS = re.compile(r"\S+\s*|\s+")


def wrap(fragments: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """Styled text broken into lines of ``width`` characters at spaces (a longer word is cut)."""
    out: list[tuple[str, str]] = []
    column = 0
    for style, text in fragments:
        for n, piece in enumerate(text.split("\n")):
            if n:
                out.append(("", "\n"))
                column = 0
            for word in _WORDS.findall(piece):
                if column and column + len(word.rstrip()) > width:
                    out.append(("", "\n"))
                    column = 0
                    word = word.lstrip()
                while len(word) > width:
                    out += [(style, word[:width]), ("", "\n")]
                    word = word[width:]
                out.append((style, word))
                column += len(word)
    return out


class _Worker:
    """One daemon thread running the latest job of each kind, in the order of ``kinds``."""

    def __init__(self, kinds: tuple[str, ...]) -> None:
        self._kinds = kinds
        self._jobs: dict[str, Callable[[], None]] = {}
        self._cv = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="trail-pick", daemon=True)
        self._thread.start()

    def submit(self, kind: str, job: Callable[[], None]) -> None:
        with self._cv:
            self._jobs[kind] = job
            self._cv.notify()

    def stop(self, timeout: float = 5.0) -> None:
        """Drop what waits and let the running job finish (it may use the history the caller uses next)."""
        with self._cv:
            self._stopped = True
            self._jobs.clear()
            self._cv.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._jobs and not self._stopped:
                    self._cv.wait()
                if self._stopped:
                    return
                kind = next(k for k in self._kinds if k in self._jobs)
                job = self._jobs.pop(kind)
            with suppress(Exception):  # a failed preview or search must not end the picker
                job()


def run_picker(
    history: History,
    first: list[Choice],
    *,
    full: bool = False,
    index: Path | None = None,
    query: str = "",
    input: Any = None,  # prompt_toolkit's own name for it
    output: Any = None,
    ready: Callable[[Any], None] | None = None,
) -> Picked | None:
    """Run the picker until a session is chosen (its :class:`Picked`) or it is left (``None``).

    :param first: what to list at once; unless ``full``, every session is read on a worker meanwhile.
    :param index: the search index to ask about what was said inside sessions (none: titles and prompts).
    :param input: prompt_toolkit input and output, for tests (default: the terminal).
    :param ready: called with the picker once it runs (tests wait on its ``shown`` list).
    :raises KeyboardInterrupt: Ctrl-C.
    """
    return _Picker(history, first, full, index, query).run(input, output, ready)


class _Picker:
    def __init__(
        self, history: History, first: list[Choice], full: bool, index: Path | None, query: str
    ) -> None:
        self.history = history
        self.every = first
        self.profiles = several_stores(first)
        self.full = full
        self.index = index
        self.initial = query
        self.shown: list[Choice] = narrow(first, query)
        self.narrowed: tuple[str, list[Choice], list[Choice]] = (query, first, self.shown)
        self.selected = 0
        self.top = 0
        self.hits: dict[tuple[str, str], str] = {}
        self.hits_for = ""
        self.searching = False
        self.previews: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.previewing: tuple[str, str] = ("", "")
        self.lock = threading.Lock()  # the history's readers: one thread at a time
        self.worker = _Worker(("preview", "catalog", "search"))
        self.app: Any = None
        self.pending_search: Any = None

    # -- state, on the UI thread --
    @property
    def current(self) -> Choice | None:
        return self.shown[self.selected] if 0 <= self.selected < len(self.shown) else None

    def refilter(self, keep: bool = True) -> None:
        """List what the query matches; the highlight stays on its session when ``keep`` (the list grew
        or the index answered), else goes to the top (the query changed)."""
        held = self.current.key if keep and self.current is not None else None
        query = self.query
        last_query, last_every, last_found = self.narrowed
        if last_every is self.every and last_query and query.startswith(last_query):
            found = narrow(last_found, query)  # a longer query matches a subset: look only there
        else:
            found = narrow(self.every, query)
        self.narrowed = (query, self.every, found)
        shown = merge_hits(found, self.every, self.hits) if self.hits and self.hits_for == query else found
        self.shown = shown
        self.selected = next((n for n, c in enumerate(shown) if c.key == held), 0)
        self.ask_preview()

    @property
    def query(self) -> str:
        return str(self.buffer.text) if self.app is not None else self.initial

    def move(self, by: int) -> None:
        if self.shown:
            self.selected = max(0, min(len(self.shown) - 1, self.selected + by))
            self.ask_preview()

    def on_typed(self) -> None:
        self.refilter(keep=False)
        self.ask_search()

    # -- jobs, on the worker --
    def call_soon(self, fn: Callable[[], None]) -> None:
        app = self.app
        if app is None or app.loop is None:
            return
        try:
            app.loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop closed: the picker is gone
            return

    def load_catalog(self) -> None:
        with self.lock:
            every = list_choices(self.history)

        def apply() -> None:
            self.every = every
            self.profiles = several_stores(every)
            self.full = True
            self.refilter()
            self.app.invalidate()

        self.call_soon(apply)

    def ask_preview(self) -> None:
        choice = self.current
        if choice is None or (choice.ref, choice.hit) in self.previews:
            return
        wanted = (choice.ref, choice.hit)  # a session found by the index shows what it matched
        self.previewing = wanted

        def job() -> None:
            if self.previewing != wanted:
                return  # moved on: a newer preview job follows
            with self.lock:
                try:
                    lines = preview(self.history, choice)
                except Exception as exc:  # a store that fails to read says so in the pane
                    lines = [("class:dim", f"cannot preview {choice.ref}: {exc}\n")]

            def apply() -> None:
                self.previews[wanted] = lines
                self.app.invalidate()

            self.call_soon(apply)

        self.worker.submit("preview", job)

    def ask_search(self) -> None:
        query = self.query.strip()
        if self.index is None or len(query) < SEARCH_MIN_CHARS:
            self.hits, self.hits_for, self.searching = {}, "", False
            return
        index = self.index
        self.searching = True

        def job() -> None:
            if self.query.strip() != query:
                return  # typed on: the newer query's job follows
            try:
                hits = index_hits(index, query)
            except Exception:  # an index being rebuilt, a damaged one: titles still match
                hits = {}

            def apply() -> None:
                if self.query.strip() != query:
                    return
                self.hits, self.hits_for, self.searching = hits, self.query, False
                self.refilter()
                self.app.invalidate()

            self.call_soon(apply)

        if self.pending_search is not None:
            self.pending_search.cancel()
        if self.app is None or self.app.loop is None:
            return
        # Asked once typing pauses, so a word typed fast is one search, and previews never wait behind it.
        self.pending_search = self.app.loop.call_later(SEARCH_PAUSE, self.worker.submit, "search", job)

    # -- drawing --
    def list_height(self) -> int:
        info = self.list_window.render_info
        if info is not None:
            return max(int(info.window_height), 1)
        rows = int(self.app.output.get_size().rows) if self.app is not None else 24
        return max(rows - 3, 1) if self.wide() else max((rows - 3) // 2, 1)

    def wide(self) -> bool:
        return self.app is None or int(self.app.output.get_size().columns) >= WIDE

    def list_text(self) -> list[tuple[str, str]]:
        height = self.list_height()
        if self.selected < self.top:
            self.top = self.selected
        elif self.selected >= self.top + height:
            self.top = self.selected - height + 1
        self.top = max(0, min(self.top, max(len(self.shown) - height, 0)))
        profiles = self.profiles
        out: list[tuple[str, str]] = []
        for n in range(self.top, min(self.top + height, len(self.shown))):
            choice = self.shown[n]
            style = "class:selected" if n == self.selected else ("class:hit" if choice.hit else "")
            out.append((style, ("▶ " if n == self.selected else "  ") + row_text(choice, profiles) + "\n"))
        if not self.shown:
            out.append(("class:dim", "  no session matches" + ("" if self.full else " yet") + "\n"))
        return out

    def status_text(self) -> list[tuple[str, str]]:
        total = len(self.every)
        found = sum(1 for c in self.shown if c.hit)
        text = f"{len(self.shown):,} of {total:,}{'' if self.full else '+'} sessions"
        if found:
            text += f" ({found} found inside by the index)"
        if self.searching:
            text += " · searching…"
        elif self.index is None and self.query.strip():
            text += " · no search index (trail index builds one)"
        return [("class:dim", text)]

    def preview_text(self) -> list[tuple[str, str]]:
        choice = self.current
        if choice is None:
            return []
        placeholder = [("class:head", choice.label + "\n"), ("class:dim", "…")]
        lines = self.previews.get((choice.ref, choice.hit)) or placeholder
        columns = int(self.app.output.get_size().columns) if self.app is not None else 80
        width = columns - (columns * LIST_SHARE) // 100 - 2 if columns >= WIDE else columns
        return wrap(lines, max(width, 10))

    def run(self, input: Any, output: Any, ready: Callable[[Any], None] | None) -> Picked | None:
        from prompt_toolkit.application import Application
        from prompt_toolkit.buffer import Buffer
        from prompt_toolkit.document import Document
        from prompt_toolkit.filters import Condition
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.layout import (
            ConditionalContainer,
            FormattedTextControl,
            HSplit,
            Layout,
            VSplit,
            Window,
        )
        from prompt_toolkit.layout.controls import BufferControl
        from prompt_toolkit.layout.dimension import Dimension
        from prompt_toolkit.layout.processors import BeforeInput
        from prompt_toolkit.styles import Style

        self.buffer = Buffer(
            document=Document(self.initial, len(self.initial)),
            multiline=False,
            on_text_changed=lambda _: self.on_typed(),
        )
        self.list_window = Window(
            FormattedTextControl(self.list_text), wrap_lines=False, width=Dimension(weight=LIST_SHARE)
        )
        preview_window = Window(
            FormattedTextControl(self.preview_text), wrap_lines=True, width=Dimension(weight=100 - LIST_SHARE)
        )
        wide, narrow_ = Condition(self.wide), ~Condition(self.wide)
        body = HSplit(
            [
                VSplit(
                    [
                        self.list_window,
                        ConditionalContainer(Window(width=1, char="│", style="class:dim"), filter=wide),
                        ConditionalContainer(preview_window, filter=wide),
                    ]
                ),
                ConditionalContainer(Window(height=1, char="─", style="class:dim"), filter=narrow_),
                ConditionalContainer(
                    Window(FormattedTextControl(self.preview_text), wrap_lines=True), filter=narrow_
                ),
            ]
        )
        root = HSplit(
            [
                Window(BufferControl(self.buffer, input_processors=[BeforeInput("> ")]), height=1),
                Window(FormattedTextControl(self.status_text), height=1),
                body,
                Window(FormattedTextControl([("class:dim", KEYS_HELP)]), height=1),
            ]
        )
        keys = KeyBindings()

        def leave(action: str) -> Callable[[Any], None]:
            def handler(event: Any) -> None:
                if self.current is not None:
                    event.app.exit(result=Picked(action, self.current))

            return handler

        keys.add("enter", eager=True)(leave(RESUME))
        keys.add("c-j", eager=True)(leave(RESUME))  # Enter, from a terminal that maps CR to NL
        keys.add("c-o", eager=True)(leave(SHOW))
        keys.add("c-x", eager=True)(leave(EXPORT))
        keys.add("c-y", eager=True)(leave(COPY))
        keys.add("escape", eager=True)(lambda event: event.app.exit(result=None))
        keys.add("c-c", eager=True)(lambda event: event.app.exit(exception=KeyboardInterrupt()))
        for key, by in (("up", -1), ("c-p", -1), ("down", 1), ("c-n", 1)):
            keys.add(key, eager=True)(lambda event, by=by: self.move(by))
        keys.add("pageup", eager=True)(lambda event: self.move(-self.list_height()))
        keys.add("pagedown", eager=True)(lambda event: self.move(self.list_height()))
        style = Style.from_dict(
            {
                "selected": "reverse",
                "dim": "#888888",
                "head": "bold",
                "hit": "#5fafd7",
                "you": "bold #5faf5f",
                "agent": "bold #d7af5f",
                "tool": "#888888",
                "cmd": "#5fafd7",
            }
        )
        app: Application[Picked | None] = Application(
            layout=Layout(root, focused_element=self.buffer),
            key_bindings=keys,
            style=style,
            full_screen=True,
            input=input,
            output=output,
            erase_when_done=False,
        )
        app.ttimeoutlen = 0.05  # Esc alone leaves at once, not after half a second
        self.app = app

        def started() -> None:
            self.ask_preview()  # first: the worker takes the catalog next, unless a preview waits
            if not self.full:
                self.worker.submit("catalog", self.load_catalog)
            if self.initial:
                self.ask_search()
            if ready is not None:
                ready(self)

        try:
            return app.run(pre_run=started, handle_sigint=False)
        finally:
            self.worker.stop()
