"""The index database: where it lives, its tables, and how a damaged or outdated one is replaced.

The index is derived data: it is never migrated. A format change builds a new file beside the old one and
swaps it in when complete, so a search never waits on a rebuild of someone else's format, and a damaged
file is rebuilt with a one-line message.

Tables:

- ``stores``: per Hermes store, what tells cheaply whether it changed (file size and mtime, WAL size and
  mtime) and when it was last read.
- ``sessions``: one row per indexed session, with the fingerprint that tells whether its rows changed
  (row count, newest timestamp, inactive rows, Hermes' own counters), its project, profile, source,
  class and lineage root (a continuation chain is one conversation), and its *gist*: a static sentence
  vector of its title and prompts (``semantic.py``) that finds it when asked in other words. Its titles
  are indexed alone (``sessions_title``), so a search reads every title without reading the rows; its id
  too (``sessions_session``): the conversation a hook is called in is found by its id alone, in any store.
- ``docs``: one row per searchable thing the model yields: a prompt, a reply, a summary, a notice, a
  command with its output and exit code, a file edit, a tool's kept output. Never raw rows. ``chars`` is
  the length of its text, stored before the text so ranking can weigh a doc without reading its text.
- ``tools``: the names of the tools any call used (kept as their docs are written; a name stays when
  its calls are deleted), so a ``--tool`` no call used is said so with the names there are.
- ``meta``: the format; ``build``, a random id each new index gets (a rebuild copied into the old file
  keeps its inode); and ``sessions_version``, which triggers bump whenever a session row is added or
  removed. What a long-lived process keeps derived from the sessions (the gist matrix) is stale when either
  moved; ``passages_version``, bumped by each batch of passage vectors written, does the same for them;
  ``passages_format``, what the passages were made by (:data:`PASSAGES_FORMAT`); ``reading``, how its
  word and bigram indexes read a text (``cjk.READING``: an index without it reads as the first did).
- ``passages``: the vectors of each session's passages (``vectors.py``): about a thousand characters of
  its prompts, summaries, replies and tool outputs each, encoded by the full sentence model (int8), with
  the doc each starts in. ``encoded``: the sessions whose passages are made (with how many), so a session
  with none is not encoded again (a count below zero: made by an earlier ``PASSAGES_FORMAT``, to be made
  again; its passages answer meanwhile). Both are filled after the word index, by ``trail index``; a trigger
  takes a removed session's rows with it (a changed session comes back under a new id, unencoded).
- ``docs_fts``: the word index over ``docs.text`` (unicode61, diacritics folded, Porter stemming), as
  ``docs_words`` gives it: a doc's ``words`` in its place where the text has words of another script inside
  a run of Chinese, Japanese or Korean, or full-width letters (``cjk.spaced``: "用Docker部署" is read as
  用 Docker 部署, which the tokenizer reads as three words, not one).
- ``fails`` and ``fails_fts``: the failed commands only (``kind = 'command'``, an exit code other than 0,
  not rewound), what ``trail fix`` and the plugin's fix notes search: their few columns (a doc's row
  carries its text, a page or more) and the same word index as ``docs_fts`` over their text. A few
  percent of the docs, so an error made of common words reads short posting lists. Triggers on ``docs``
  keep both, so every writer of docs keeps them without knowing of them. What came after a failure is
  read from ``docs_steps``: each session's live commands and prompts, in order, with what is read of them
  (``rewound`` too, though always 0: SQLite reads the row for a column the query names and the index
  lacks, even one its condition fixes).
- ``docs_tri``: a trigram index over ``docs.key``: only what a word index cannot find in a word (paths,
  commands, file names): substrings.
- ``docs_cjk``: character bigrams of text in scripts without spaces between words (Chinese, Japanese,
  Korean, Thai, Lao, Myanmar, Khmer), which neither a word index nor a trigram index (no two-character
  words) can find.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from hermes_trail import readonly

# Bump when the tables or what goes into them change: an index of another format is rebuilt beside.
FORMAT = "trail-index-9"  # 9: docs.words; 8: fails, fails_fts, docs_steps, sessions_session; 7: passages
# Bump when what a passage of a session says changes: an index whose passages were made otherwise keeps its
# word index and has its passages made again (``vectors.py``), its old vectors answering meanwhile.
PASSAGES_FORMAT = 2  # 2: a session's title opens its first passage

# How the word index (``docs_fts``, ``fails_fts`` below) splits and stems words: what a word typed is looked
# for as (``plan.stem``).
WORD_TOKENIZER = "porter unicode61 remove_diacritics 2"

# The bigram index (``docs_cjk``): its tokens are the bigrams as they are, marks included, so that Thai's
# "ร์" and "ร้" are two (a word tokenizer's default splits at a mark: both were "ร", and a Thai question
# found every turn with any "ร"). Made so since the index's ``reading`` 2 (``writer.read_docs_again``).
BIGRAM_INDEX = (
    "CREATE VIRTUAL TABLE docs_cjk USING fts5(cjk, content='docs', content_rowid='id', "
    "tokenize=\"unicode61 remove_diacritics 0 categories 'L* N* Co M*'\")"
)

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE stores (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    profile TEXT NOT NULL,
    identity TEXT NOT NULL,
    watermark INTEGER NOT NULL DEFAULT 0,
    synced_at REAL NOT NULL
);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    store TEXT NOT NULL,
    session_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    profile TEXT NOT NULL,
    project TEXT NOT NULL,
    source TEXT,
    kind TEXT NOT NULL,
    relation TEXT,
    root TEXT NOT NULL,
    title TEXT,
    model TEXT,
    started REAL,
    last_activity REAL,
    fingerprint TEXT NOT NULL,
    gist BLOB,
    UNIQUE (store, session_id)
);
CREATE INDEX sessions_root ON sessions (store, root);
CREATE INDEX sessions_session ON sessions (session_id);
CREATE INDEX sessions_title ON sessions (title) WHERE title IS NOT NULL;
CREATE INDEX sessions_places ON sessions (source, project);
CREATE TRIGGER sessions_added AFTER INSERT ON sessions BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'sessions_version';
END;
CREATE TRIGGER sessions_removed AFTER DELETE ON sessions BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'sessions_version';
END;
CREATE TABLE docs (
    id INTEGER PRIMARY KEY,
    sess INTEGER NOT NULL,
    row INTEGER NOT NULL,
    part INTEGER NOT NULL DEFAULT 0,
    role TEXT NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT,
    time REAL,
    exit_code INTEGER,
    path TEXT,
    moved_to TEXT,
    action TEXT,
    added INTEGER,
    removed INTEGER,
    applied INTEGER,
    command TEXT,
    rewound INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    chars INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    key TEXT,
    cjk TEXT,
    words TEXT
);
CREATE VIEW docs_words AS SELECT id, coalesce(words, text) AS text FROM docs;
CREATE INDEX docs_sess ON docs (sess);
CREATE INDEX docs_path ON docs (path) WHERE path IS NOT NULL;
CREATE INDEX docs_command ON docs (kind, exit_code) WHERE kind = 'command';
CREATE INDEX docs_steps ON docs (sess, id, kind, rewound, exit_code, row, part, time, command)
WHERE kind IN ('command', 'prompt') AND rewound = 0;
CREATE TABLE tools (name TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE passages (
    id INTEGER PRIMARY KEY,
    sess INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    vec BLOB NOT NULL
);
CREATE INDEX passages_sess ON passages (sess);
CREATE TABLE encoded (sess INTEGER PRIMARY KEY, passages INTEGER NOT NULL);
CREATE TRIGGER sessions_unencoded AFTER DELETE ON sessions BEGIN
    DELETE FROM passages WHERE sess = old.id;
    DELETE FROM encoded WHERE sess = old.id;
END;
CREATE VIRTUAL TABLE docs_fts USING fts5(
    text, content='docs_words', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE docs_tri USING fts5(key, content='docs', content_rowid='id', tokenize='trigram');
CREATE TABLE fails (
    id INTEGER PRIMARY KEY,
    sess INTEGER NOT NULL,
    row INTEGER NOT NULL,
    part INTEGER NOT NULL,
    time REAL,
    exit_code INTEGER NOT NULL,
    command TEXT NOT NULL
);
CREATE VIRTUAL TABLE fails_fts USING fts5(
    text, content='docs_words', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER docs_failed AFTER INSERT ON docs
WHEN new.kind = 'command' AND new.exit_code <> 0 AND new.rewound = 0 AND new.command IS NOT NULL BEGIN
    INSERT INTO fails VALUES (new.id, new.sess, new.row, new.part, new.time, new.exit_code, new.command);
    INSERT INTO fails_fts (rowid, text) VALUES (new.id, coalesce(new.words, new.text));
END;
CREATE TRIGGER docs_failed_removed AFTER DELETE ON docs
WHEN old.kind = 'command' AND old.exit_code <> 0 AND old.rewound = 0 AND old.command IS NOT NULL BEGIN
    DELETE FROM fails WHERE id = old.id;
    INSERT INTO fails_fts (fails_fts, rowid, text) VALUES ('delete', old.id, coalesce(old.words, old.text));
END;
CREATE TRIGGER docs_failed_changed AFTER UPDATE ON docs
WHEN (old.kind = 'command' AND old.exit_code <> 0 AND old.rewound = 0 AND old.command IS NOT NULL)
    OR (new.kind = 'command' AND new.exit_code <> 0 AND new.rewound = 0 AND new.command IS NOT NULL) BEGIN
    DELETE FROM fails WHERE id = old.id;
    INSERT INTO fails_fts (fails_fts, rowid, text) SELECT 'delete', old.id, coalesce(old.words, old.text)
    WHERE old.kind = 'command' AND old.exit_code <> 0 AND old.rewound = 0 AND old.command IS NOT NULL;
    INSERT INTO fails SELECT new.id, new.sess, new.row, new.part, new.time, new.exit_code, new.command
    WHERE new.kind = 'command' AND new.exit_code <> 0 AND new.rewound = 0 AND new.command IS NOT NULL;
    INSERT INTO fails_fts (rowid, text) SELECT new.id, coalesce(new.words, new.text)
    WHERE new.kind = 'command' AND new.exit_code <> 0 AND new.rewound = 0 AND new.command IS NOT NULL;
END;
"""


def default_index_path(env: Mapping[str, str] | None = None) -> Path:
    """``TRAIL_INDEX``, else ``index.db`` in the platform's user data directory for hermes-trail."""
    env = os.environ if env is None else env
    explicit = env.get("TRAIL_INDEX", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    try:
        from platformdirs import user_data_dir
    except ImportError:  # inside Hermes' own Python (the plugin), which does not ship platformdirs
        return _fallback_data_dir(env) / "index.db"
    return Path(user_data_dir("hermes-trail", appauthor=False)) / "index.db"


def demo_index_path(env: Mapping[str, str] | None = None) -> Path:
    """The index of the bundled demo home, beside the default one (:func:`default_index_path`): a command
    run where no Hermes home is found (another shell, a service without ``HERMES_HOME``) reads the demo,
    and syncing it into the default index would take the real homes' sessions out of it, to be read
    again, whole, by the next command that finds them."""
    return default_index_path(env).with_name("demo-index.db")


def index_bytes(path: Path) -> int:
    """An index's size on disk: its file and its write-ahead log."""
    return sum(part.stat().st_size for part in (path, Path(f"{path}-wal")) if part.is_file())


def _fallback_data_dir(env: Mapping[str, str]) -> Path:
    """The directory platformdirs would pick, for the platforms Hermes runs on, from the standard library."""
    import sys

    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "hermes-trail"
    if sys.platform == "win32":
        base = env.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / "hermes-trail"
    base = env.get("XDG_DATA_HOME", "").strip() or str(home / ".local" / "share")
    return Path(base) / "hermes-trail"


# The page cache of a connection that writes (kibibytes when negative): 32 MB, the build appends in rowid
# order.
CACHE_SIZE = -32768


# The write-ahead log kept between writes, in bytes: SQLite reuses its file and never shrinks it by itself,
# so one large sync (12.5 MB of log for 1,000 messages appended to 50 sessions of a 30 MB index) left a file
# of that size beside the index for as long as a process kept it open (the MCP server, the plugin, a
# library caller), and after it exited without closing. Past this size the log is cut back to it when it
# starts over (SQLite's ``journal_size_limit``) and at the end of a sync (``sync.trim_log``). 4 MB: the
# log SQLite's automatic checkpoint lets grow (1,000 pages).
LOG_KEEP_BYTES = 4 << 20


def connect(path: Path) -> sqlite3.Connection:
    """A connection tuned for one writer and many readers: WAL, a generous busy wait, no fsync per row."""
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute(f"PRAGMA cache_size = {CACHE_SIZE}")
    conn.execute(f"PRAGMA journal_size_limit = {LOG_KEEP_BYTES}")
    return conn


# The full-text indexes, and how each is tuned while a build fills it: FTS5 writes the terms it holds in
# memory as a new segment whenever they pass ``hashsize`` bytes (1 MB by default), and merges a level's
# segments whenever ``automerge`` of them are there (4), or all of them at once at ``crisismerge`` (16).
# A build writes larger segments and merges none of them on the way (only past 256 on a level, which a
# history of about two million messages reaches): the finished build merges each index whole, once
# (:func:`merge_whole`). Every term a search looks up is looked up in every segment, and the segments a
# build left (18 at a million messages, merged sixteen at a time on the way) cost a search about a
# millisecond of its five; merged on the way and again at the end, a build would write its terms three
# times, where now it writes them twice, as it did when it merged sixteen at a time and not at the end.
# The pending terms take at most ``hashsize`` of memory per table.
FTS_TABLES = ("docs_fts", "docs_tri", "docs_cjk", "fails_fts")
BUILDING_FTS = {"hashsize": 8_000_000, "automerge": 0, "crisismerge": 256}
# An index in use merges as FTS5 does by default: a sync adds a small segment at each commit, and a search
# reads every segment, so they are merged four at a time.
IN_USE_FTS = {"automerge": 4, "crisismerge": 16}


def tune_fts(conn: sqlite3.Connection, settings: dict[str, int]) -> None:
    """Set FTS5 ``settings`` on every full-text index (kept in the index: they hold for every later
    connection). A setting this SQLite does not know is left as it is."""
    import contextlib

    for table in FTS_TABLES:
        for name, value in settings.items():
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES (?, ?)", (name, value))


# The ``meta`` row that says how the index reads a text (``cjk.READING``; none: as the first did).
READING = "reading"


# The ``meta`` row that says the word indexes were merged whole (by the build that made them, or once
# after): an index without it was built by a trail whose builds did not end so.
WORDS_MERGED = "words_merged"


def merge_whole(conn: sqlite3.Connection) -> None:
    """Merge each full-text index into one segment (FTS5's ``optimize``): what a finished build does, its
    terms written once more (3-5 s at a million messages, against a build of about 40)."""
    for table in FTS_TABLES:
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, 1)", (WORDS_MERGED,))


def segments(conn: sqlite3.Connection) -> int:
    """How many segments the word index is in (each term a search looks up is looked up in each)."""
    return int(conn.execute("SELECT count(DISTINCT segid) FROM docs_fts_idx").fetchone()[0])


def passages_format_of(conn: sqlite3.Connection) -> int | None:
    """The :data:`PASSAGES_FORMAT` the index's passages were made by (``None``: an index from before one
    was recorded)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'passages_format'").fetchone()
    return int(row[0]) if row is not None and str(row[0]).isdigit() else None


def awaiting_passages(conn: sqlite3.Connection) -> int:
    """How many sessions a vector stage has to make passages for: those without, and all of them when the
    index's passages were made by an earlier :data:`PASSAGES_FORMAT` (the stage marks each to be made
    again). Two counts, no read of the sessions' rows."""
    total = int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
    if passages_format_of(conn) != PASSAGES_FORMAT:
        return total
    done = int(conn.execute("SELECT count(*) FROM encoded WHERE passages >= 0").fetchone()[0])
    return max(total - done, 0)


# Parts added after the index's format was set, each made once by the first sync that finds it missing
# rather than by a rebuild (no session is read again): ``sessions_places`` lets the front ends and projects
# a question's words may name be read off it alone (``plan._places``: every session row, with its gist,
# was read for them, 6.5 ms warm and 127 ms cold on 10,000 sessions, against about 2 either way);
# ``tools``, the names of the tools any call used, kept by the writer as it writes docs (``writer.Writer``),
# so a ``--tool`` no call used is said so with the tools there are (``filters.unmatched``) without reading
# every doc (2.5 s at a million messages): an index made before it reads them once, at that sync.
LATER_PARTS = {
    "sessions_places": ("CREATE INDEX IF NOT EXISTS sessions_places ON sessions (source, project)",),
    "tools": (
        "CREATE TABLE IF NOT EXISTS tools (name TEXT PRIMARY KEY) WITHOUT ROWID",
        "INSERT OR IGNORE INTO tools SELECT DISTINCT tool FROM docs WHERE tool IS NOT NULL",
    ),
}


def add_later_parts(conn: sqlite3.Connection) -> list[str]:
    """Make the :data:`LATER_PARTS` the index lacks; the names of those made. Two syncs may find one
    missing at once (an index of this format is synced without the build lock): each makes it only if it
    is still missing, whole or not at all. One that finds the index busy past its wait leaves it to the
    next sync."""
    held = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('index', 'table')")}
    made = [name for name in LATER_PARTS if name not in held]
    for name in made:
        try:
            conn.execute("SAVEPOINT later_part")
            for statement in LATER_PARTS[name]:
                conn.execute(statement)
            conn.execute("RELEASE later_part")
        except sqlite3.OperationalError as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK TO later_part")
                conn.execute("RELEASE later_part")
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            return []
    return made


def create(conn: sqlite3.Connection) -> None:
    """Make the tables of an empty index (tuned for the build that fills it) and record its format."""
    from secrets import token_hex

    from hermes_trail.index import cjk

    conn.executescript(_SCHEMA + BIGRAM_INDEX + ";")
    tune_fts(conn, BUILDING_FTS)
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('format', ?), ('build', ?), ('sessions_version', 0), "
        "('passages_version', 0), ('passages_format', ?), (?, ?)",
        (FORMAT, token_hex(8), PASSAGES_FORMAT, READING, cjk.READING),
    )


FOREIGN = "foreign"
DAMAGED = "damaged"


def inspect(path: Path) -> str | None:
    """What the file at ``path`` is, read without writing to it: an index's format (``trail-index-N``),
    :data:`FOREIGN` (a database of something else, never to be touched), :data:`DAMAGED` (not a readable
    database), or ``None`` (absent or empty)."""
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except FileNotFoundError:
        return None
    except OSError:
        return DAMAGED
    if not header:
        return None
    if not header.startswith(b"SQLite format 3\x00"):
        return DAMAGED
    # As the store reader does: see a WAL through a read-only -shm, else read the file as it is.
    live = Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()
    params = "mode=ro&readonly_shm=1" if live else "immutable=1"
    try:
        conn = readonly.connect(path, params)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return None
            if "meta" not in tables:
                return FOREIGN
            found = format_of(conn)
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return DAMAGED
    return found if found and found.startswith("trail-index") else FOREIGN


def format_of(conn: sqlite3.Connection) -> str | None:
    """The format an index records, ``None`` when it has none (empty, foreign or damaged)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row else None


def marked(marker: Path, state: str) -> bool:
    """Whether the file ``marker`` beside an index says ``state``: a pass over the index (the gists filled,
    a vector stage started) was already done for that state of it, and need not be again."""
    try:
        return marker.read_text() == state
    except (OSError, ValueError):
        return False


def mark(marker: Path, state: str) -> None:
    """Say in ``marker`` that the pass it stands for was done for ``state`` of the index (:func:`marked`);
    nothing when nothing can be written beside the index (the pass is then done again, never skipped)."""
    import contextlib

    with contextlib.suppress(OSError):
        marker.write_text(state)


def state_key(conn: sqlite3.Connection, *moved_by: str) -> tuple[object, ...]:
    """What a long-lived process (the MCP server, the plugin, the web viewer) keys what it derives from
    the index on: the database's file, its ``build`` id (a rebuild copied into the same file keeps the
    inode) and the ``meta`` counters the derived data moves with (``sessions_version``,
    ``passages_version``)."""
    database = conn.execute("PRAGMA database_list").fetchone()[2]
    marks = ", ".join("?" for _ in ("build", *moved_by))
    state = conn.execute(f"SELECT key, value FROM meta WHERE key IN ({marks})", ("build", *moved_by))
    return (database, tuple(sorted(state)))


def _varint(data: bytes) -> int | None:
    """The varint (SQLite's: big-endian, 7 bits a byte, the ninth byte whole) at the start of ``data``."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return None


def doc_total(conn: sqlite3.Connection) -> int:
    """How many docs the word index holds. FTS5 keeps the number in its averages record (rowid 1 of
    ``docs_fts_data``, a varint first: the N its own BM25 uses), one read; ``count(*)`` over ``docs``
    reads the whole table (tens of milliseconds on a million messages) and is the fallback."""
    try:
        row = conn.execute("SELECT block FROM docs_fts_data WHERE id = 1").fetchone()
    except sqlite3.DatabaseError:
        row = None
    if row is not None and isinstance(row[0], bytes) and row[0]:
        found = _varint(row[0])
        if found is not None:
            return found
    if row is None and conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is None:
        return 0
    return int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
