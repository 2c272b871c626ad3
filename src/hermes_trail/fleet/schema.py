"""The shared index's tables in PostgreSQL: versioned, migrated forward by ``trail share --migrate``, and
guarded by row-level security so a pushing host can write only its own rows.

Unlike the local index (derived data, rebuilt beside when its format changes), the shared index is many
machines' data in a database someone administers: it is never rebuilt, only migrated. ``fleet_meta``
holds the schema's ``version``; each step of :data:`MIGRATIONS` takes it one version forward, all of them
in one transaction under an advisory lock, so two hosts migrating at once do it once.

Tables, in the schema :data:`SCHEMA`:

- ``fleet_meta``: ``version``, and the schemas the ``pg_trgm`` and ``vector`` extensions live in (a
  managed server may have installed them anywhere), ``vector`` = ``on`` once passages can be held.
- ``hosts``: each machine that pushes, the login role that may push for it (``NULL`` for a host only
  the administrator pushes), and what its last push left (its sessions, docs, their characters and words:
  what a search's BM25 needs of the whole collection, without counting it).
- ``sessions``: one row per session of each host, keyed by (host, store, session_id), with the local
  index's fingerprint (which a push compares to send only what changed), the command that resumes it
  on its own machine, how many docs and passages it has, and how its passages were made
  (``passages_made``, version 5: the local index's passages format; 0 for earlier ones), and how many
  of its docs hold Chinese, Japanese or Korean runs and their bigrams (``cjk_docs``, ``bigrams``, version
  7, summed per host in ``hosts``: the bigram BM25's collection).
- ``docs``: what the local index holds for each session, already redacted there (nothing is redacted
  again, nothing unredacted ever leaves the machine), with the host, profile, store and fingerprint of
  its session; ``seq`` is its place in the session. ``tsv`` is a generated ``tsvector`` of its text in
  every configuration of :data:`LANGUAGES` (Porter stems as locally, :data:`STEMMED`, plus ``simple``:
  every word as written, for names, identifiers and languages stemming would mangle), and the bigrams of its
  Chinese, Japanese and Korean runs (which the parser reads as one word each), under a GIN index;
  ``key`` (paths, commands, file names) has a ``pg_trgm`` GIN index for substrings.
- ``passages`` (only with the ``vector`` extension): each session's passage vectors, ``vector(512)``,
  for search by meaning, with an HNSW index when the extension's version has one.

Roles (``NOLOGIN`` groups; logins are made by :data:`ROLE_FUNCTIONS`): :data:`PUSHER` may read every row
and insert, update and delete the rows of the host ``hosts`` registers for it, nothing else;
:data:`READER` may only read. The tables' owner (whoever ran ``--migrate``) bypasses the policies: it
can push for any host, and must never be registered as a host.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_trail.fleet import folding, keys, separators
from hermes_trail.fleet.connection import FleetError, clean, unbounded
from hermes_trail.index import cjk

if TYPE_CHECKING:
    import psycopg

SCHEMA = "trail_fleet"
PUSHER = "trail_fleet_pusher"
READER = "trail_fleet_reader"
# The configuration that stems (schema version 6): PostgreSQL's English configuration with Martin Porter's
# original stemmer (its snowball dictionary's ``porter``), the one FTS5's ``porter`` tokenizer implements,
# where ``english`` has Porter2 (Snowball English). The stems differ: "https" is "http" locally and was
# "https" there, "weekly" "weekli" and was "week", "generalization" "gener" and was "general", so the two
# indexes found and counted other docs for a word (the recall store's "weekly": 21 docs and 44).
STEMMED = f"{SCHEMA}.porter"
# The text search configurations every doc is indexed in (their vectors are concatenated in one column).
LANGUAGES = (STEMMED, "simple")
# Passage vectors: the sentence model's dimensions (Universal Sentence Encoder multilingual, index/encoder).
DIMENSIONS = 512
# A doc's text is indexed up to this many characters (a tsvector holds at most 1 MB).
TSV_CHARS = 200_000
# The version this code reads and writes; --migrate brings a database to it.
VERSION = 10
# Chinese, Japanese and Korean characters (Thai, Lao, Myanmar and Khmer too, since version 9), the local
# index's ranges (the characters themselves in the statement, for a database in UTF-8): a run of them is
# one word to the parser.
_CJK = cjk.RANGES


def _cjk_function() -> str:
    """``cjk_bigrams(text)``: the overlapping character bigrams of each run of Chinese, Japanese or Korean
    characters in the text and its last character (a lone character as itself), as the local index's
    bigram index has them (``数据库`` gives ``数据 据库 库``: :func:`~hermes_trail.index.cjk.indexed`, since
    version 8); empty for a text without such characters, which most are (one regex test each)."""
    return f"""CREATE OR REPLACE FUNCTION {SCHEMA}.cjk_bigrams(t text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $fn$
        SELECT CASE WHEN t ~ '[{_CJK}]' THEN coalesce((
            SELECT string_agg(CASE WHEN length(m[1]) = 1 THEN m[1] ELSE (
                SELECT string_agg(substr(m[1], i, 2), ' ' ORDER BY i)
                FROM generate_series(1, length(m[1]) - 1) AS i
            ) || ' ' || right(m[1], 1) END, ' | ')
            FROM regexp_matches(t, '([{_CJK}]+)', 'g') AS m
        ), '') ELSE '' END
        $fn$"""


# Characters the local word index splits words at that PostgreSQL's parser keeps inside one token (a
# path, a file name, a host, a version, an e-mail address): English reads the text with them as spaces,
# so ``augment.py`` is the words augment and py, as locally; ``simple`` reads it as written.
SPLIT = "/.@:\\"
# Characters every configuration reads as spaces (schema version 4): with them, the parser takes what
# looks like markup for a tag or an entity and indexes none of its words, so ``<meta name="viewport">``,
# ``List<String>``, ``a<b && c>d`` and ``&copy;`` lost words the local index finds (viewport, String, b
# and c, copy).
MARKUP = "<>&"


def read_as(lang: str, text: str) -> str:
    """``text`` as the configuration ``lang`` reads it in the docs' ``tsv`` (a query's words the same):
    punctuation and symbols past ASCII as spaces in every configuration (:mod:`separators`), and English
    reading paths, hosts and versions word by word; its letters as the local index reads them (``Über`` as
    uber, :mod:`~hermes_trail.fleet.folding`)."""
    return folding.fold(text).translate(separators.spaces(SPLIT + MARKUP if lang == STEMMED else MARKUP))


def _sql_read_as(lang: str, text: str) -> str:
    """:func:`read_as` in SQL, for the docs' generated ``tsv`` (its letters folded by the pushing host)."""
    # A text of ASCII alone (as many bytes as characters: most docs) has none of the separators.
    pattern = separators.regex_class().replace("\\", "\\\\")  # in an E'' literal
    read = (
        f"CASE WHEN octet_length({text}) = char_length({text}) THEN {text} "
        f"ELSE regexp_replace({text}, E'{pattern}', ' ', 'g') END"
    )
    # Each character read as a space by a replace() of its own: translate() compares every character of
    # the text with each one it replaces, multibyte-aware, which was over a quarter of a doc's time in the
    # server (52 of 250 µs a doc of 800 characters for English's eight, 18 more for simple's three); a
    # replace() looks for one string and costs a few µs. The same text either way.
    for char in SPLIT + MARKUP if lang == STEMMED else MARKUP:
        read = f"replace({read}, E'{char.replace(chr(92), chr(92) * 2)}', ' ')"
    return read


def tsv_expression(source: str = "coalesce(folded, text)") -> str:
    """The docs' generated ``tsv``: the text in every configuration of :data:`LANGUAGES` (:func:`read_as`),
    and its Chinese, Japanese and Korean bigrams (:func:`_cjk_function`) as words of ``simple``. The text
    is its letters as the local index reads them (``folded``, version 7, when folding changes it: see
    :mod:`~hermes_trail.fleet.folding`); ``source`` the column it is read from (version 1's table had
    no ``folded``)."""
    text = _limited(source)
    words = [f"to_tsvector('{lang}'::regconfig, {_sql_read_as(lang, text)})" for lang in LANGUAGES]
    # Most docs are ASCII (as many bytes as characters): told without calling the function.
    bigrams = (
        f"CASE WHEN octet_length({text}) = char_length({text}) THEN ''::tsvector "
        f"ELSE to_tsvector('simple'::regconfig, {SCHEMA}.cjk_bigrams({text})) END"
    )
    return " || ".join([*words, bigrams])


def _limited(source: str) -> str:
    """A doc's text up to :data:`TSV_CHARS` characters. ``left()`` finds where that many characters end by
    reading the text, and copies it, each of the eight times the expression reads the text: 35 of a doc's
    190 µs in the server. A text of no more bytes than that is no longer, which ``octet_length`` tells from
    the value's header."""
    longer = f"left({source}, {TSV_CHARS})"
    return f"(CASE WHEN octet_length({source}) <= {TSV_CHARS} THEN {source} ELSE {longer} END)"


# The form of the docs' generated ``tsv`` (:func:`tsv_expression`) a database's column was made in, kept in
# ``fleet_meta`` as ``tsv_form``: each form makes the same words as the one before, in less of the server's
# time, so a database of an older form reads and takes pushes as before, without a new version; --migrate
# makes its column again. 1 (none kept): ``translate()`` and ``left()``; 2: ``replace()``, ``left()`` only
# for a longer text.
TSV_FORM = 2
# What a push and `trail doctor` say of a database of an older form, and what makes it this one.
OLDER_FORM = "its docs' tsvectors are made in an older form, which takes a push about a quarter longer"
REMAKE = "trail share DSN --migrate  (once, by its administrator: makes every doc's tsvector again)"


# Who a pushing login pushes for: an uncorrelated subquery in a policy is one InitPlan per statement.
_MINE = f"host = (SELECT {SCHEMA}.my_host())"


def _policies(table: str) -> list[str]:
    """Every role may read every row of ``table``; a pusher may write only rows of its own host."""
    t = f"{SCHEMA}.{table}"
    return [
        f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY read_all ON {t} FOR SELECT USING (true)",
        f"CREATE POLICY insert_own ON {t} FOR INSERT TO {PUSHER} WITH CHECK ({_MINE})",
        f"CREATE POLICY update_own ON {t} FOR UPDATE TO {PUSHER} USING ({_MINE}) WITH CHECK ({_MINE})",
        f"CREATE POLICY delete_own ON {t} FOR DELETE TO {PUSHER} USING ({_MINE})",
    ]


def _group_roles() -> str:
    """The two group roles, made once per server (roles are the cluster's, not one database's)."""
    # Another database of the server may be migrating at once (its advisory lock is its own): a role
    # made meanwhile is the same role.
    made = " ".join(
        f"IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{name}') THEN BEGIN CREATE ROLE {name} "
        "NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END; END IF;"
        for name in (PUSHER, READER)
    )
    return f"DO $$ BEGIN {made} END $$"


# The functions an administrator runs to make the logins (see docs/fleet.md); executable by nobody else.
ROLE_FUNCTIONS = f"""
CREATE FUNCTION {SCHEMA}.add_host(host_name text, role_name name, secret text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
        IF secret IS NULL THEN
            EXECUTE format('CREATE ROLE %I LOGIN', role_name);
        ELSE
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', role_name, secret);
        END IF;
    END IF;
    EXECUTE format('GRANT {PUSHER} TO %I', role_name);
    INSERT INTO {SCHEMA}.hosts (host, role) VALUES (host_name, role_name)
    ON CONFLICT (host) DO UPDATE SET role = excluded.role;
END
$fn$;
CREATE FUNCTION {SCHEMA}.add_reader(role_name name, secret text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
        IF secret IS NULL THEN
            EXECUTE format('CREATE ROLE %I LOGIN', role_name);
        ELSE
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', role_name, secret);
        END IF;
    END IF;
    EXECUTE format('GRANT {READER} TO %I', role_name);
END
$fn$;
REVOKE ALL ON FUNCTION {SCHEMA}.add_host(text, name, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION {SCHEMA}.add_reader(name, text) FROM PUBLIC;
"""


def _version_1(trgm: str) -> list[str]:
    s = SCHEMA
    return [
        _group_roles(),
        _cjk_function(),
        _porter(),  # what the docs' tsv is made in (the version that brought it in makes it too)
        f"""CREATE TABLE {s}.hosts (
            host text PRIMARY KEY CHECK (host <> ''),
            role name UNIQUE,
            pushed_at timestamptz,
            sessions integer NOT NULL DEFAULT 0,
            docs bigint NOT NULL DEFAULT 0,
            chars bigint NOT NULL DEFAULT 0,
            tokens bigint NOT NULL DEFAULT 0,
            passages bigint NOT NULL DEFAULT 0,
            trail_version text
        )""",
        f"""CREATE FUNCTION {s}.my_host() RETURNS text LANGUAGE sql STABLE AS
            $fn$ SELECT host FROM {s}.hosts WHERE role = current_user $fn$""",
        f"""CREATE TABLE {s}.sessions (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            host text NOT NULL REFERENCES {s}.hosts (host) ON DELETE CASCADE,
            store text NOT NULL,
            session_id text NOT NULL,
            ref text NOT NULL,
            profile text NOT NULL,
            project text NOT NULL,
            source text,
            kind text NOT NULL,
            relation text,
            root text NOT NULL,
            title text,
            model text,
            started double precision,
            last_activity double precision,
            fingerprint text NOT NULL,
            resume text NOT NULL DEFAULT '',
            docs integer NOT NULL DEFAULT 0,
            chars bigint NOT NULL DEFAULT 0,
            tokens bigint NOT NULL DEFAULT 0,
            passages integer NOT NULL DEFAULT 0,
            pushed_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (host, store, session_id),
            UNIQUE (id, host),
            UNIQUE (id, host, fingerprint)
        )""",
        f"CREATE INDEX sessions_root ON {s}.sessions (host, store, root)",
        f"CREATE INDEX sessions_title ON {s}.sessions USING gin (title {trgm}.gin_trgm_ops)",
        f"""CREATE TABLE {s}.docs (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            sess bigint NOT NULL,
            host text NOT NULL,
            profile text NOT NULL,
            store text NOT NULL,
            fingerprint text NOT NULL,
            seq integer NOT NULL,
            row bigint NOT NULL,
            part integer NOT NULL DEFAULT 0,
            role text NOT NULL,
            kind text NOT NULL,
            tool text,
            time double precision,
            exit_code integer,
            path text,
            moved_to text,
            action text,
            added integer,
            removed integer,
            applied boolean,
            command text,
            rewound boolean NOT NULL DEFAULT false,
            archived boolean NOT NULL DEFAULT false,
            chars integer NOT NULL DEFAULT 0,
            text text NOT NULL,
            key text,
            tsv tsvector GENERATED ALWAYS AS ({tsv_expression("text")}) STORED,
            UNIQUE (sess, seq),
            FOREIGN KEY (sess, host, fingerprint) REFERENCES {s}.sessions (id, host, fingerprint)
                ON DELETE CASCADE
        )""",
        f"CREATE INDEX docs_tsv ON {s}.docs USING gin (tsv)",
        f"CREATE INDEX docs_key ON {s}.docs USING gin (key {trgm}.gin_trgm_ops) WHERE key IS NOT NULL",
        f"CREATE INDEX docs_host ON {s}.docs (host)",
        *_policies("sessions"),
        *_policies("docs"),
        f"ALTER TABLE {s}.hosts ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY read_all ON {s}.hosts FOR SELECT USING (true)",
        f"CREATE POLICY update_own ON {s}.hosts FOR UPDATE TO {PUSHER} "
        "USING (role = current_user) WITH CHECK (role = current_user)",
        ROLE_FUNCTIONS,
        f"GRANT USAGE ON SCHEMA {s} TO {PUSHER}, {READER}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO {PUSHER}, {READER}",
        f"GRANT INSERT, UPDATE, DELETE ON {s}.sessions, {s}.docs TO {PUSHER}",
        f"GRANT UPDATE (pushed_at, sessions, docs, chars, tokens, passages, trail_version) "
        f"ON {s}.hosts TO {PUSHER}",
    ]


def _passages(vector: str) -> list[str]:
    """The passage vectors' table, made when the ``vector`` extension is there (at any --migrate). Each
    names its session by (``sess``, ``host``), checked by triggers as the docs are (:mod:`keys`)."""
    s = SCHEMA
    return [
        f"""CREATE TABLE {s}.passages (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            sess bigint NOT NULL,
            host text NOT NULL,
            seq integer NOT NULL,
            vec {vector}.vector({DIMENSIONS}) NOT NULL
        )""",
        f"CREATE INDEX passages_sess ON {s}.passages (sess)",
        *_policies("passages"),
        f"GRANT SELECT ON {s}.passages TO {PUSHER}, {READER}",
        f"GRANT INSERT, UPDATE, DELETE ON {s}.passages TO {PUSHER}",
    ]


def _version_2(trgm: str) -> list[str]:
    """The newest matches first without sorting them all: a word in many docs is answered by walking
    this index and stopping at the window's end (the planner weighs it against the GIN index and a sort,
    which wins for rare words). Without it, a common word on an analyzed table read every doc. And the
    ids a push reserves before writing (pushers may take ids from the two sequences)."""
    return [
        f"CREATE INDEX docs_newest ON {SCHEMA}.docs (time DESC NULLS LAST, id DESC)",
        # A push reserves its ids in its local order before writing on several connections (push.py).
        f"GRANT USAGE ON SEQUENCE {SCHEMA}.docs_id_seq, {SCHEMA}.sessions_id_seq TO {PUSHER}",
    ]


def _tsv_made_again() -> list[str]:
    """The docs' ``tsv`` made again for every doc, as :func:`tsv_expression` makes it now: the column is
    generated, so it is dropped and added (with its index). A migration over several versions that each
    do it does it once, in the last (:func:`_statements`)."""
    s = SCHEMA
    return [
        f"DROP INDEX IF EXISTS {s}.docs_tsv",
        f"ALTER TABLE {s}.docs DROP COLUMN tsv",
        f"ALTER TABLE {s}.docs ADD COLUMN tsv tsvector GENERATED ALWAYS AS ({tsv_expression()}) STORED",
        f"CREATE INDEX docs_tsv ON {s}.docs USING gin (tsv)",
    ]


def _version_3(trgm: str) -> list[str]:
    """Chinese, Japanese and Korean text found inside a run, as locally: each doc's bigrams of such runs
    join its ``tsv``."""
    return [_cjk_function(), *_tsv_made_again()]


def _version_4(trgm: str) -> list[str]:
    """The words of what looks like markup indexed, as locally (:data:`MARKUP`)."""
    return _tsv_made_again()


def _porter() -> str:
    """The configuration :data:`STEMMED`, made once: English's, its stemmer replaced by the snowball
    dictionary's ``porter`` (with English's stop words, as before)."""
    s = SCHEMA
    return f"""DO $do$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_ts_dict d JOIN pg_namespace n ON n.oid = d.dictnamespace
                       WHERE n.nspname = '{s}' AND d.dictname = 'porter_stem') THEN
            CREATE TEXT SEARCH DICTIONARY {s}.porter_stem
                (TEMPLATE = pg_catalog.snowball, Language = porter, StopWords = english);
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace
                       WHERE n.nspname = '{s}' AND c.cfgname = 'porter') THEN
            CREATE TEXT SEARCH CONFIGURATION {STEMMED} (COPY = pg_catalog.english);
            ALTER TEXT SEARCH CONFIGURATION {STEMMED}
                ALTER MAPPING REPLACE pg_catalog.english_stem WITH {s}.porter_stem;
        END IF;
    END $do$"""


def _version_6(trgm: str) -> list[str]:
    """Words stemmed as locally (:data:`STEMMED`), and punctuation, symbols and spaces past ASCII read as
    spaces in every configuration, as locally (:mod:`~hermes_trail.fleet.separators`)."""
    return [_porter(), *_tsv_made_again()]


def _version_5(trgm: str) -> list[str]:
    """How each session's passages were made (the local index's passages format; 0: earlier, or not
    known), so passages a host made again another way are sent again."""
    column = "passages_made integer NOT NULL DEFAULT 0"
    return [f"ALTER TABLE {SCHEMA}.sessions ADD COLUMN IF NOT EXISTS {column}"]


def _bigrams_counted() -> list[str]:
    """How many docs of each session and host hold Chinese, Japanese or Korean runs and how many tokens the
    bigram index holds of them, counted from the docs there."""
    s = SCHEMA
    grams = f"cardinality(array_remove(string_to_array({s}.cjk_bigrams(text), ' '), '|'))"
    counted = (
        f"SELECT sess, count(*) AS n, sum({grams}) AS grams FROM {s}.docs "
        f"WHERE {s}.cjk_bigrams(text) <> '' GROUP BY sess"
    )
    return [
        f"UPDATE {s}.sessions s SET cjk_docs = c.n, bigrams = c.grams FROM ({counted}) c WHERE s.id = c.sess",
        f"UPDATE {s}.hosts h SET cjk_docs = t.n, bigrams = t.grams FROM (SELECT host, sum(cjk_docs) AS n, "
        f"sum(bigrams) AS grams FROM {s}.sessions GROUP BY host) t WHERE h.host = t.host",
    ]


def _version_7(trgm: str) -> list[str]:
    """Each doc's letters as the local index reads them (``folded``: "Bürgeramt" as Burgeramt, "Über" as
    uber), which its ``tsv`` is made of; and how many docs of each session and host hold Chinese, Japanese
    or Korean runs and how many bigrams those have (``cjk_docs``, ``bigrams``): what BM25 over the runs'
    bigrams needs of the collection, as the local index's bigram index keeps them (its docs with runs and
    their mean length). Both made from the docs already there."""
    s = SCHEMA
    letters = "".join(folding.PAIRS.split())
    folded = f"translate(text, '{letters[0::2]}', '{letters[1::2]}')"
    return [
        # Each doc's letters as the local index reads them, where that changes its text: the docs pushed
        # before are folded here (as :func:`folding.fold` folds, the same table), then read again.
        f"ALTER TABLE {s}.docs ADD COLUMN IF NOT EXISTS folded text",
        f"UPDATE {s}.docs d SET folded = x.folded FROM (SELECT id, {folded} AS folded FROM {s}.docs "
        f"WHERE text ~ '{folding.REGEX_CLASS}') x WHERE d.id = x.id AND x.folded <> d.text",
        *_tsv_made_again(),
        f"ALTER TABLE {s}.sessions ADD COLUMN IF NOT EXISTS cjk_docs integer NOT NULL DEFAULT 0",
        f"ALTER TABLE {s}.sessions ADD COLUMN IF NOT EXISTS bigrams bigint NOT NULL DEFAULT 0",
        f"ALTER TABLE {s}.hosts ADD COLUMN IF NOT EXISTS cjk_docs bigint NOT NULL DEFAULT 0",
        f"ALTER TABLE {s}.hosts ADD COLUMN IF NOT EXISTS bigrams bigint NOT NULL DEFAULT 0",
        *_bigrams_counted(),
        f"GRANT UPDATE (cjk_docs, bigrams) ON {s}.hosts TO {PUSHER}",
    ]


def _version_8(trgm: str) -> list[str]:
    """Each doc's words as the local index reads them (:func:`~hermes_trail.index.cjk.spaced`): a word of
    another script inside a run of Chinese, Japanese or Korean is a word of its own ("用Docker部署" as 用
    Docker 部署, which the parser read as one word, so docker was found in none of them), and full-width
    letters and digits are ASCII ("ＡＰＩ" is api); and each run's last character a token of the bigrams
    (:func:`~hermes_trail.index.cjk.indexed`), so a character asked alone is found where it ends a run.
    The docs pushed before with such characters are read so here (the same classes, in PostgreSQL's
    regular expressions), their ``tsv`` made again by the update and their sessions' bigrams counted
    again; the rest is left as it is."""
    # Every doc with a run, or with full-width letters, is written again.
    return _runs_read_again(cjk.RANGES + cjk.WIDE)


def _version_9(trgm: str) -> list[str]:
    """Thai, Lao, Myanmar and Khmer runs read as Chinese, Japanese and Korean runs are (``cjk.SOUTHEAST``):
    by their bigrams, and a word of another script against one a word of its own; and the letters the
    diacritic folding leaves (``cjk.UNFOLDED``: Turkish ı) read as the ASCII letter typed for them. The docs
    pushed before that hold such characters are read so, as version 8 read its docs."""
    # The titles' folded index is made again with the letters (``folding.translate_sql``), by every
    # --migrate's speed-ups, as the expression a search now asks.
    return [*_runs_read_again(cjk.READ_AGAIN[2]), f"DROP INDEX IF EXISTS {SCHEMA}.sessions_title_folded"]


def _version_10(trgm: str) -> list[str]:
    """Arabic's and Hebrew's vowel points and Arabic's tatweel left out of the words (``cjk.POINTS``), as the
    local word index drops them: a text writes them or not, and "السلام" found no "السَّلَامُ". The docs
    pushed before that hold them are read so: their folded text without them, their ``tsv`` made again by
    the update."""
    points = "".join(cjk.points())
    folded = f"translate(coalesce(folded, text), '{points}', '')"
    # The titles' folded index made again without them too (``folding.translate_sql``), by every
    # --migrate's speed-ups, as the expression a search now asks.
    return [
        f"UPDATE {SCHEMA}.docs SET folded = nullif({folded}, text) WHERE text ~ '[{cjk.POINTS}]'",
        f"DROP INDEX IF EXISTS {SCHEMA}.sessions_title_folded",
    ]


def _runs_read_again(chars: str) -> list[str]:
    """The bigram function made as :data:`cjk.RANGES` has it now, and every doc with one of ``chars``
    (a character class's contents) written again: its folded text what it is now (none where that is the
    text), its ``tsv`` made again by the update with the function, and its session's bigrams counted
    again; the rest of the docs left as they are."""
    s = SCHEMA
    wide, narrow = cjk.WIDE + cjk.UNFOLDED, cjk.NARROW + cjk.FOLDED  # :func:`cjk.narrowed`
    narrowed = f"translate(coalesce(folded, text), '{wide}', '{narrow}')"
    spaced = f"regexp_replace({narrowed}, '{cjk.BOUNDARY}', ' ', 'g')"
    return [
        _cjk_function(),
        f"UPDATE {s}.docs SET folded = nullif({spaced}, text) WHERE text ~ '[{chars}]'",
        *_bigrams_counted(),
    ]


# Indexes that only make a question faster, made by every --migrate where missing: an index without them
# answers the same, so no version asks for them. The paths edits recorded, for a path blamed that nothing
# edited (``fleet.blame.fleet_near_paths``): without it, every doc of every host was read (a scan of the
# whole table, text and tsvectors; a few percent of the docs are edits). Not timed at full size.
SPEED_UPS = (
    f"CREATE INDEX IF NOT EXISTS docs_edited ON {SCHEMA}.docs (path, host, rewound) "
    "WHERE kind = 'edit' AND path IS NOT NULL",
    # The docs' most common lexemes and their shares, as ANALYZE keeps them, for every login: pg_stats
    # hides a table under row-level security from a role it applies to, so a reader's or a pusher's
    # search found no statistics and counted every common word's docs, walked no phrase of common words
    # newest first, and checked a common word typed wrong through a bitmap of every doc that has it. Every
    # role reads every row (:func:`_policies`): the statistics tell no one anything the rows do not.
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.common_lexemes(OUT elems text[], OUT freqs real[])
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
        SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_catalog.pg_stats
        WHERE schemaname = '{SCHEMA}' AND tablename = 'docs' AND attname = 'tsv'
        $fn$""",
    f"REVOKE ALL ON FUNCTION {SCHEMA}.common_lexemes() FROM PUBLIC",
    f"GRANT EXECUTE ON FUNCTION {SCHEMA}.common_lexemes() TO {PUSHER}, {READER}",
    # What a push ends with (:func:`~hermes_trail.fleet.push.settle`): the entries its inserts left in the
    # GIN indexes' pending lists moved into the indexes. Until then every lookup through one also reads
    # its whole pending list (up to 4 MB), and autovacuum, which would move them, runs only once a fifth
    # of the table was inserted since it last did: never, for a shared index that hosts push a few
    # hundred docs at a time. Only the index's owner may clean it; a pushing login may ask this.
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.settle() RETURNS bigint
        LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
        SELECT coalesce(sum(gin_clean_pending_list(c.oid)), 0)::bigint FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am a ON a.oid = c.relam
        WHERE n.nspname = '{SCHEMA}' AND a.amname = 'gin' AND c.relkind = 'i'
        $fn$""",
    f"REVOKE ALL ON FUNCTION {SCHEMA}.settle() FROM PUBLIC",
    f"GRANT EXECUTE ON FUNCTION {SCHEMA}.settle() TO {PUSHER}",
)

# The advisory lock a host's pushes take turns on is this text and the host's name, hashed
# (``hashtextextended``): a push's (:mod:`~hermes_trail.fleet.push`) and ``remove_host``'s.
HOST_LOCK = "trail_fleet:host:"

# The administrator's functions made (or made again) by every ``--migrate``, beside :data:`ROLE_FUNCTIONS`
# (which version 1 made): nothing an earlier trail reads, so no new version. ``remove_host``: a machine
# retired (a laptop replaced, a teammate gone) leaves the shared index with everything it pushed (its
# sessions, their docs and passages, by the tables' cascades), after any push of it still running (the
# host's push lock, :mod:`~hermes_trail.fleet.push`); its login may push no more (its group taken away;
# the role itself is the administrator's to drop, as it may have been made elsewhere). How many sessions
# went.
ADMIN_FUNCTIONS = (
    f"""CREATE OR REPLACE FUNCTION {SCHEMA}.remove_host(host_name text) RETURNS bigint
        LANGUAGE plpgsql AS $fn$
        DECLARE
            login name;
            removed bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended('{HOST_LOCK}' || host_name, 0));
            SELECT role INTO login FROM {SCHEMA}.hosts WHERE host = host_name;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'no host % is registered in this shared index', quote_literal(host_name);
            END IF;
            SELECT count(*) INTO removed FROM {SCHEMA}.sessions WHERE host = host_name;
            DELETE FROM {SCHEMA}.hosts WHERE host = host_name;
            IF login IS NOT NULL AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = login) THEN
                EXECUTE format('REVOKE {PUSHER} FROM %I', login);
            END IF;
            RETURN removed;
        END
        $fn$""",
    f"REVOKE ALL ON FUNCTION {SCHEMA}.remove_host(text) FROM PUBLIC",
)


def _title_speed_ups(trgm: str) -> tuple[str, ...]:
    """The titles folded as the local index folds them, indexed by their trigrams (as :data:`SPEED_UPS`,
    made where missing: a title is matched so only when none matched as written, and without the index
    the sessions are read through)."""
    from hermes_trail.fleet import folding

    folded = folding.translate_sql("title")
    return (
        f"CREATE INDEX IF NOT EXISTS sessions_title_folded ON {SCHEMA}.sessions "
        f"USING gin (({folded}) {trgm}.gin_trgm_ops)",
    )


def settles(conn: psycopg.Connection[Any]) -> bool:
    """Whether the database has ``settle()`` (:data:`SPEED_UPS`), which a push ends with: a database
    migrated by an earlier trail has not, until ``--migrate`` makes it."""
    found = conn.execute(f"SELECT to_regprocedure('{SCHEMA}.settle()') IS NOT NULL").fetchone()
    return bool(found and found[0])


# What a push and `trail doctor` say of a database without ``settle()``, and what makes it.
UNSETTLED = (
    "migrated by an earlier trail: searches read what a push inserted from the indexes' pending lists "
    "until autovacuum merges them"
)
SETTLE = "trail share DSN --migrate"


# Each version's statements, given the schemas the extensions live in; index = version - 1.
MIGRATIONS = (
    _version_1,
    _version_2,
    _version_3,
    _version_4,
    _version_5,
    _version_6,
    _version_7,
    _version_8,
    _version_9,
    _version_10,
)
assert len(MIGRATIONS) == VERSION


@dataclass(slots=True)
class Info:
    """What a migrated shared index is: its version, whether it holds passages (``vector``), where the
    extensions' types and functions are, and the form its docs' ``tsv`` is made in (:data:`TSV_FORM`)."""

    version: int
    vector: bool
    trgm_schema: str
    vector_schema: str | None
    tsv_form: int = TSV_FORM


@dataclass(slots=True)
class MigrateReport:
    before: int
    after: int
    vector: bool
    # What a person should know: the vector extension missing (no search by meaning), an index skipped.
    notes: list[str]


def _meta(conn: psycopg.Connection[Any]) -> dict[str, str] | None:
    exists = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.fleet_meta",)).fetchone()
    if exists is None or exists[0] is None:
        return None
    return {str(k): str(v) for k, v in conn.execute(f"SELECT key, value FROM {SCHEMA}.fleet_meta")}


def _extension_schema(conn: psycopg.Connection[Any], name: str) -> str | None:
    row = conn.execute(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = %s",
        (name,),
    ).fetchone()
    return None if row is None else str(row[0])


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _try(conn: psycopg.Connection[Any], sql: str) -> str | None:
    """Run ``sql`` in a savepoint; the error's first line when it fails (the transaction goes on)."""
    import psycopg

    try:
        with conn.transaction():
            conn.execute(sql)
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def _vectors_in_rows(conn: psycopg.Connection[Any], vector: str) -> None:
    """The passage vectors stored in their rows (``STORAGE PLAIN``): 512 floats are a little over the size
    PostgreSQL moves out of a row (TOAST), and each distance then read six more pages: an exact scan of
    4,000 passages (what the planner does on a small shared index) took 16.8 ms, 3.6 with the vectors in
    their rows. A shared index made before is set so at its next ``--migrate``, and its vectors written
    again into their rows (once; the HNSW index takes them again too)."""
    row = conn.execute(
        "SELECT attstorage FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'vec'",
        (f"{SCHEMA}.passages",),
    ).fetchone()
    if row is None or row[0] == "p":
        return
    conn.execute(f"ALTER TABLE {SCHEMA}.passages ALTER COLUMN vec SET STORAGE PLAIN")
    # A value written unchanged keeps its place out of the row: through text (exact), it is written anew.
    conn.execute(f"UPDATE {SCHEMA}.passages SET vec = vec::text::{vector}.vector")


def _statements(before: int, trgm: str) -> list[str]:
    """What takes a shared index from version ``before`` to :data:`VERSION`, in order; the ``tsv`` made
    again (:func:`_tsv_made_again`) in the last version that does it only: each time rewrites every doc."""
    steps = [st for version in range(before + 1, VERSION + 1) for st in MIGRATIONS[version - 1](trgm)]
    again = set(_tsv_made_again())
    return [st for i, st in enumerate(steps) if st not in again or st not in steps[i + 1 :]]


def migrate(conn: psycopg.Connection[Any], dsn: str = "") -> MigrateReport:
    """Bring the shared index to :data:`VERSION` (creating it in an empty database), in one transaction.

    Needs a role that may create a schema and extensions in the database and roles in the server (the
    database's owner with ``CREATEROLE``; on a managed server, its administrator login). Also adds the
    passages table as soon as the ``vector`` extension can be created, and :data:`SPEED_UPS` and the
    checks of each row's session (:mod:`keys`) where missing.

    :raises FleetError: the database refused (the reason, without the DSN's password), or it holds a
        newer version than this trail knows.
    """
    import psycopg

    notes: list[str] = []
    try:
        _require_utf8(conn)
        with conn.transaction():
            unbounded(conn)  # the user asked for it; another migration is waited for
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('trail_fleet:migrate', 0))")
            meta = _meta(conn)
            before = int(meta["version"]) if meta else 0
            if before > VERSION:
                raise FleetError(
                    f"the shared index is at version {before}, newer than this trail's {VERSION}: "
                    "upgrade hermes-trail"
                )
            if meta is None:
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
                conn.execute(f"CREATE TABLE {SCHEMA}.fleet_meta (key text PRIMARY KEY, value text NOT NULL)")
                meta = {}
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            trgm = _extension_schema(conn, "pg_trgm") or "public"
            steps = _statements(before, _quoted(trgm))
            for statement in steps:
                conn.execute(statement)
            remade = not set(_tsv_made_again()).isdisjoint(steps)  # by a version's migration
            if before and meta.get("tsv_form") != str(TSV_FORM) and not remade:
                for statement in _tsv_made_again():
                    conn.execute(statement)
                notes.append(
                    "every doc's tsvector was made again in this trail's form: the same words, "
                    "which a push now costs the server about a third less time to make"
                )
            if before < 7:
                # Text and tsvectors compressed by lz4 (PostgreSQL 14 and later, when built with it):
                # pglz's compression was a tenth of a push's time, its decompression a search's rechecks'.
                # The tsvector column is made anew by versions 3, 4, 6 and 7, which adds ``folded``.
                for column in ("text", "folded", "tsv") if before < 2 else ("folded", "tsv"):
                    if _try(conn, f"ALTER TABLE {SCHEMA}.docs ALTER COLUMN {column} SET COMPRESSION lz4"):
                        break
            for statement in SPEED_UPS + ADMIN_FUNCTIONS + _title_speed_ups(_quoted(trgm)):
                conn.execute(statement)
            vector = meta.get("vector") == "on"
            vector_schema = meta.get("vector_schema")
            if vector and vector_schema:
                _vectors_in_rows(conn, _quoted(vector_schema))
            if not vector:
                failed = _try(conn, "CREATE EXTENSION IF NOT EXISTS vector")
                vector_schema = _extension_schema(conn, "vector")
                if vector_schema is None:
                    notes.append(
                        "the vector extension (pgvector) is not available"
                        + (f" ({failed})" if failed else "")
                        + ": the shared index has no passage vectors, so --fleet searches by words only "
                        "(no search by meaning); install pgvector and run --migrate again to add them"
                    )
                else:
                    for statement in _passages(_quoted(vector_schema)):
                        conn.execute(statement)
                    _vectors_in_rows(conn, _quoted(vector_schema))
                    hnsw = (
                        f"CREATE INDEX passages_vec ON {SCHEMA}.passages "
                        f"USING hnsw (vec {_quoted(vector_schema)}.vector_cosine_ops)"
                    )
                    if (why := _try(conn, hnsw)) is not None:
                        notes.append(f"no HNSW index on the passages ({why}): meaning is searched exactly")
                    vector = True
            # Each doc's and passage's session checked once a statement (:mod:`keys`), where missing.
            by_row = before > 0 and keys.by_row(conn, SCHEMA)
            for statement in keys.statements(SCHEMA, vector):
                conn.execute(statement)
            if by_row:
                notes.append(keys.REPLACED)
            rows = {
                "version": str(VERSION),
                "trgm_schema": trgm,
                "vector": "on" if vector else "off",
                "tsv_form": str(TSV_FORM),
            }
            if vector_schema:
                rows["vector_schema"] = vector_schema
            for key, value in rows.items():
                conn.execute(
                    f"INSERT INTO {SCHEMA}.fleet_meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
            conn.execute(f"GRANT SELECT ON {SCHEMA}.fleet_meta TO {PUSHER}, {READER}")
            for extensions in dict.fromkeys(filter(None, (trgm, vector_schema))):
                notes += _usable(conn, extensions)
            notes += _grantable(conn)
    except psycopg.Error as exc:
        raise FleetError(f"cannot migrate the shared index: {clean(exc, dsn)}") from exc
    _INFO.clear()
    return MigrateReport(before, VERSION, vector, notes)


def _usable(conn: psycopg.Connection[Any], extensions: str) -> list[str]:
    """Let the logins use the extensions in the schema ``extensions`` (the types, operators and functions of
    ``pg_trgm`` and ``vector``): a managed service may keep them in a schema of their own whose use it
    grants to its administrator alone (Supabase's ``extensions``), where a reader's search by meaning or by
    a word's letters was refused ("permission denied for schema extensions"). What the administrator may
    not grant (PostgreSQL then grants nothing, with a warning) is said, with the statement for the schema's
    owner."""

    def lacking() -> list[str]:
        sql = "SELECT has_schema_privilege(%s, %s, 'USAGE')"
        return [role for role in (PUSHER, READER) if not _holds(conn, sql, (role, extensions))]

    if not (missing := lacking()):
        return []
    grant = f"GRANT USAGE ON SCHEMA {_quoted(extensions)} TO {', '.join(missing)}"
    why = _try(conn, grant)
    if not lacking():
        return []
    said = f"the logins may not use the extensions in the schema {extensions}"
    return [f"{said}{f' ({why})' if why else ''}: as its owner, {grant}"]


def _holds(conn: psycopg.Connection[Any], sql: str, params: tuple[str, ...]) -> bool:
    """What a privilege question (``has_schema_privilege``, ``pg_has_role``) answers."""
    row = conn.execute(sql, params).fetchone()
    return bool(row and row[0])


def _grantable(conn: psycopg.Connection[Any]) -> list[str]:
    """Whether this administrator may give the group roles to the machines' logins (``add_host``,
    ``add_reader``): roles are the server's, and when another administrator made them (another database's
    migration, the service's own superuser), a login that may create roles but holds no ADMIN OPTION on
    them may not, from PostgreSQL 16 on; ``add_host`` then failed. Said, with what to ask for. (Before 16,
    a login that may create roles may give any role but a superuser's.)"""
    superuser, creates = conn.execute(
        "SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user"
    ).fetchone() or (False, False)
    if superuser or (creates and conn.info.server_version < 160000):
        return []
    sql = "SELECT pg_has_role(current_user, %s, 'MEMBER WITH ADMIN OPTION')"
    missing = [role for role in (PUSHER, READER) if not _holds(conn, sql, (role,))]
    if not missing:
        return []
    roles = ", ".join(missing)
    return [
        f"{roles} were made by another administrator of this server, and this login may not give them to the "
        f"machines' logins (trail_fleet.add_host, add_reader): as that administrator or a superuser, GRANT "
        f"{roles} TO {conn.info.user} WITH ADMIN OPTION"
    ]


def _require_utf8(conn: psycopg.Connection[Any]) -> None:
    """Refuse a database whose encoding is not UTF-8: the shared index holds text of every language (its
    functions' own patterns name Chinese and Japanese characters). LATIN1 cannot hold them, SQL_ASCII
    stores bytes the server's parser then cuts as no language's words; both stopped the migration with a
    bare ``UnicodeEncodeError`` of the driver."""
    encoding = conn.info.parameter_status("server_encoding") or "UTF8"  # reported at every connection
    if encoding.upper().replace("-", "") != "UTF8":
        raise FleetError(
            f"the database {conn.info.dbname} is in the encoding {encoding}; the shared index holds text "
            "of every language and needs UTF8: make a database for it with CREATE DATABASE … ENCODING "
            "'UTF8' TEMPLATE template0 (a managed service's databases are UTF8 already)"
        )


# What a long-lived caller's connection found at its last question: read again after this many seconds.
INFO_SECONDS = 30.0
_INFO: dict[tuple[int, int], tuple[float, Info]] = {}


def connection_key(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    """What tells one open connection from another, also one made later at the same address."""
    return (id(conn), conn.info.backend_pid)


_T = TypeVar("_T")


def kept(
    cache: dict[tuple[int, int], tuple[float, _T]],
    conn: psycopg.Connection[Any],
    seconds: float,
    make: Callable[[], _T],
) -> _T:
    """What ``make`` gives for ``conn``, kept in ``cache`` for ``seconds``: a long-lived caller's connection
    asks many questions of what seldom changes. One connection's at a time (the others' are dropped)."""
    now = time.monotonic()
    key = connection_key(conn)
    found = cache.get(key)
    if found is not None and now - found[0] < seconds:
        return found[1]
    value = make()
    cache.clear()
    cache[key] = (now, value)
    return value


def require(conn: psycopg.Connection[Any], dsn: str = "") -> Info:
    """The shared index's :class:`Info`, when it is at this trail's version (kept a while per
    connection: a long-lived caller asks many questions of a schema that seldom changes).

    :raises FleetError: not migrated (an administrator runs ``trail share DSN --migrate``), older or newer.
    """
    return kept(_INFO, conn, INFO_SECONDS, lambda: _read_info(conn, dsn))


def _read_info(conn: psycopg.Connection[Any], dsn: str) -> Info:
    import psycopg

    try:
        meta = _meta(conn)
    except psycopg.Error as exc:
        raise FleetError(f"cannot read the shared index: {clean(exc, dsn)}") from exc
    if meta is None:
        raise FleetError(
            f"no shared index in this database (no {SCHEMA}.fleet_meta): "
            "its administrator runs `trail share DSN --migrate` first"
        )
    version = int(meta.get("version", "0"))
    if version < VERSION:
        raise FleetError(
            f"the shared index is at version {version}, this trail needs {VERSION}: "
            "its administrator runs `trail share DSN --migrate`"
        )
    if version > VERSION:
        raise FleetError(
            f"the shared index is at version {version}, newer than this trail's {VERSION}: "
            "upgrade hermes-trail"
        )
    return Info(
        version,
        meta.get("vector") == "on",
        _quoted(meta.get("trgm_schema", "public")),
        _quoted(meta["vector_schema"]) if meta.get("vector_schema") else None,
        int(meta.get("tsv_form", "1")),
    )


def add_host(conn: psycopg.Connection[Any], host: str, role: str, password: str | None = None) -> None:
    """Register ``host`` with a login ``role`` that may push for it only (what an administrator runs as
    ``SELECT trail_fleet.add_host('laptop', 'trail_laptop', 'secret')``)."""
    conn.execute(f"SELECT {SCHEMA}.add_host(%s, %s, %s)", (host, role, password))


def remove_host(conn: psycopg.Connection[Any], host: str) -> int:
    """Retire ``host``: its sessions, docs and passages deleted, its login's right to push taken away (what
    an administrator runs as ``SELECT trail_fleet.remove_host('laptop')``); how many sessions went."""
    row = conn.execute(f"SELECT {SCHEMA}.remove_host(%s)", (host,)).fetchone()
    return int(row[0]) if row else 0


def add_reader(conn: psycopg.Connection[Any], role: str, password: str | None = None) -> None:
    """A login ``role`` that may only search (``SELECT trail_fleet.add_reader('trail_search', 'secret')``)."""
    conn.execute(f"SELECT {SCHEMA}.add_reader(%s, %s)", (role, password))
