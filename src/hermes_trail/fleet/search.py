"""Search the shared index: the local search's rules, on PostgreSQL's own full-text search.

The query is read as the local search reads it (:mod:`hermes_trail.index.query`: phrases, ``OR``,
exclusions, prefixes; function words dropped when anything else was typed), and each word or phrase
becomes ``websearch_to_tsquery`` in every configuration the docs are indexed in (English stems, and
``simple`` for the word as written), so ``deploying`` finds ``deployed`` and an identifier is found as
it is. English reads paths, hosts and versions as the local word index does, word by word
(:func:`~hermes_trail.fleet.schema.read_as`): ``augmentations.py`` finds ``augment.py``. Words that
look like paths, file names or commands are also looked for as substrings of the ``key`` column
(``pg_trgm``), as the local trigram index does.

Ranking follows the local one: the newest :data:`WINDOW` matches (a common word is ranked where "what did
I do about X" usually is; a full window by length), fewer by BM25 computed here from the terms' counts
(PostgreSQL has none, and ``ts_rank_cd`` ordered the same history otherwise), times what matched (a prompt
over a tool's output), the session's class (cron runs and sub-agents lower) and a bounded recency lift;
hits grouped by conversation, a title with every word lifting it. When every word together finds fewer
than five conversations, the weaker evidence is fused as locally (any of the words, weighed by how much
of the query a conversation covers; the nearest in meaning when the shared index has pgvector; titles),
and a later conversation that says the leader's fact changed leads. Chinese, Japanese and Korean text is
found inside its runs through their character bigrams, which each doc's ``tsv`` holds (schema version 3),
as the local bigram index finds it.

Hits are the local :class:`~hermes_trail.index.search.Hit` with the host they come from
(:class:`FleetHit`), in the local :class:`~hermes_trail.index.search.SearchResult`: ``--json`` has the
local shape plus ``host``.
"""

from __future__ import annotations

import contextvars
import functools
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from hermes_trail.fleet import folding, schema
from hermes_trail.fleet.connection import FleetError, Statement, clean, connect, rows_after
from hermes_trail.fleet.hits import (
    _D,
    _DOC_COLUMNS,
    _S,
    FleetHit,
    _conversations,
    _group,
    _hit,
    _sessions,
    _where,
)
from hermes_trail.fleet.meaning import _meaning
from hermes_trail.fleet.push import TOKEN
from hermes_trail.hermes import dsn as dsns
from hermes_trail.index import cjk, lexicon, plan, query, spelling, stopwords, variants, when
from hermes_trail.index.filters import SearchFilters, active_in, like, unmatched
from hermes_trail.index.fusion import (
    COVERAGE_BIGRAMS,
    COVERAGE_POWER,
    COVERAGE_TERMS,
    LEXICAL_WEIGHT,
    RARE_CAP,
    RECENCY_BOOST,
    SESSION_WEIGHT,
    STRICT_WEIGHT,
    TITLE_WEIGHT,
    TRANSLATED_WEIGHT,
    asked_file_lift,
    conversation_score,
    evidence_of,
    fused,
    kind_weight,
    lift_edits,
    lift_profiles,
    meaning_weight,
    rarity,
)
from hermes_trail.index.newest import (
    about_terms,
    asks_now,
    asks_present,
    later_of_people,
    newest_first,
    restating_query,
)
from hermes_trail.index.results import (
    Conversation,
    Hit,
    SearchResult,
)
from hermes_trail.index.search import (
    COUNT_CAP,
    FURTHER_WINDOWS,
    HEAD,
    LISTED_PROMPTS,
    RELAX_BELOW,
    RELAXED_WINDOW,
    SHORTLIST,
    TITLED,
    Highlighter,
    _occurrence_score,
    _on_sessions,
    _parts,
    lift_titled,
    listed,
    opening_line,
    placed_sessions,
    prefix_relaxed,
    session_named,
    title_covers,
    title_shares,
    titled_evidence,
    titled_with,
    untitled_sessions,
)
from hermes_trail.index.search import WINDOW as LOCAL_WINDOW

if TYPE_CHECKING:
    import psycopg

# The newest matches ranked, as the local search's window: with more matches, the newest this many are
# ranked by their length (and, for an OR, how often the words occur in their start), as locally.
WINDOW = LOCAL_WINDOW
# A substring match that the words did not find: ranked as a weak word match.
TRIGRAM_RANK = 0.05
# BM25 as FTS5 computes it (k1, b), and the most docs a term's frequency is counted up to (past that, a
# word that common weighs next to nothing anyway).
BM25_K1 = 1.2
BM25_B = 0.75
DF_CAP = 20_000
# The most terms BM25 counts (each one's docs are counted): a pasted error message's words, not a page's.
BM25_TERMS = 32


# -- the query as a tsquery ------------------------------------------------------------------------------
# A hyphen between two letters (not a date's or a negative number's: the parser reads those with digits).
_HYPHENATED = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
# A hyphenated word alone ("Shop-URLs", "pre-commit").
_HYPHENATED_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


# A word of a phrase as PostgreSQL's parser reads it: one led by a letter ("gpt", "x86"), a number with its
# dots ("3.11"), or one led by a digit ("4o"). Only a number alone is read signed after a hyphen.
_PARSED_WORD = r"[^\W\d_][^\W_]*|\d+(?:\.\d+)*(?![^\W_])|\d[^\W_]*"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)*")
_WORDS_AND_NUMBERS = re.compile(rf"-?(?:{_PARSED_WORD})(?:[ -]+(?:{_PARSED_WORD}))*")


def _words(text: str) -> list[str]:
    """The words of ``text`` as PostgreSQL's parser reads them, a word of an Indic script with its vowel
    signs and other marks (``\\w`` splits it at each: "कुतु", typed on the way to "कुतुब", was asked as क
    then त, a start no word has there)."""
    return re.findall(rf"(?:\w|[{cjk.INDIC_MARKS}])+", text)


def _leaf_sql(leaf: query.Term | query.Phrase) -> tuple[str, list[Any]] | None:
    """One word or phrase as a tsquery expression: ``websearch_to_tsquery`` in every language, OR-ed (a
    prefix: the word's start in ``simple``, which every doc is indexed in too); with its numbers signed or
    not (:func:`_signed_or_not`)."""
    made = _leaf_as_read(leaf)
    either = _signed_or_not(leaf)
    if made is None or either is None:
        return made
    return f"({made[0]} || to_tsquery('simple', %s))", [*made[1], either]


def _signed_or_not(leaf: query.Term | query.Phrase) -> str | None:
    """A phrase of words with a number among them, each number as written or with a minus, in ``simple``:
    PostgreSQL's parser reads a number after a hyphen as a signed one ("GPT-4": gpt, -4; "SHA-256",
    "covid-19", "python-3.11"), where the local word index reads its words (gpt, 4). So "gpt 4", "sha256"
    (the phrase "sha 256") and "covid 19" found no "GPT-4", "SHA-256" or "covid-19" there, nor "GPT-4" a
    "GPT 4", nor "4" the "4" of "GPT-4", as they do locally. ``None`` for a leaf with no number."""
    text = folding.fold(leaf.text).lower()
    if not _WORDS_AND_NUMBERS.fullmatch(text):
        return None
    words = re.findall(rf"-?(?:{_PARSED_WORD})", text)
    if not any(_NUMBER.fullmatch(w) for w in words):
        return None
    said = []
    for at, word in enumerate(words):
        word = word.removeprefix("-")  # "-4" as typed is 4 to the local index too
        star = ":*" if leaf.prefix and at == len(words) - 1 else ""
        if _NUMBER.fullmatch(word):
            said.append(f"('{word}'{star} | '-{word}'{star})")
        else:
            said.append(f"'{word}'{star}")
    return " <-> ".join(said)


def _leaf_as_read(leaf: query.Term | query.Phrase) -> tuple[str, list[Any]] | None:
    """:func:`_leaf_sql`, the words as the docs' configurations read them."""
    if leaf.prefix:
        # Its letters as the docs' are read (folded: "übe" typed on as ube, "başarısı" as basarisi).
        words = _words(folding.fold(leaf.text).lower())
        if not words:
            return None
        expression = " <-> ".join(f"'{w}'" for w in words[:-1]) + (" <-> " if len(words) > 1 else "")
        return "to_tsquery('simple', %s)", [expression + f"'{words[-1]}':*"]
    # Each configuration reads the words as the docs' tsv has them (``augment.py``: augment, py in English).
    # A hyphen between letters as a space: PostgreSQL reads "shop-urls" as the compound and its parts, and
    # a doc that says "shop URLs" has only the parts, which FTS5's phrase of them finds too.
    text = _HYPHENATED.sub(" ", leaf.text)
    if text != leaf.text and not _HYPHENATED_WORD.fullmatch(leaf.text):
        # A phrase with a hyphenated word among other words (an address: ".../asyncio-task.html", "fix
        # pre-commit"): PostgreSQL puts the compound before its parts, one place on, so the words before it
        # are two places from its first part, and the phrase read with a space met no doc that hyphenates
        # it (a whole address said missing). Either reading.
        return _either_hyphen(leaf.text, text)
    quoted = ['"' + schema.read_as(lang, text).replace('"', " ") + '"' for lang in schema.LANGUAGES]
    parts = [f"websearch_to_tsquery('{lang}', %s)" for lang in schema.LANGUAGES]
    if cjk.has_cjk(leaf.text) and (grams := _bigram_tsquery(leaf.text)) is not None:
        # Found inside a run too, as the local bigram index finds it: the phrase of its bigrams.
        as_words = "(" + " || ".join(parts) + ")"
        return f"({as_words} || to_tsquery('simple', %s))", [*quoted, grams]
    if len(parts) == 2 and len(text) < 3 and text.isalnum():
        # FTS5's porter tokenizer leaves a word of one or two letters as it is, PostgreSQL's stems it ("OS"
        # as o, which found "-o yaml" in three commands where the local index finds no "os"): as written.
        return parts[1], quoted[1:]
    if len(parts) == 2:
        # A word both configurations read alike (most identifiers, names, numbers) once: `'a' | 'a'` finds
        # the same docs at twice the recheck, and the planner takes it for twice as common as it is. A
        # word whose stemmed reading lost a part to English's stop words ("shop's" as 'shop', "held-out"
        # as 'held', "don't" as nothing) is read as the phrase of its parts as written: the local word
        # index keeps every word and finds "shop's" as the phrase "shop s" (4 docs of the recall
        # benchmark, where 'shop' is in 100), "held-out" as "held out", written either way; its letters
        # read as the docs' are (folded: "café's" as cafe s).
        said = _words(schema.read_as("simple", text))
        if isinstance(leaf, query.Phrase) and len(said) > 1:
            # A phrase of words, one of them a function word ("back up", what a history writes apart
            # for "backup"): each other word by the start it shares with its stem, as the local index's
            # phrase of stems finds "backed up" (written so, its stem's start: 'back':* <-> 'up').
            phrase = " <-> ".join(_stem_start(w) for w in said)
            c, params = "to_tsquery('simple', %s)", [*quoted, phrase]
        else:
            c, params = "websearch_to_tsquery('simple', %s)", [*quoted, '"' + " ".join(said) + '"']
        made = (
            "(SELECT CASE WHEN a::text = b::text THEN a WHEN numnode(a) < numnode(b) THEN c ELSE a || b END "
            f"FROM (SELECT {parts[0]} AS a, {parts[1]} AS b, {c} AS c) w)"
        )
        return made, params
    return "(" + " || ".join(parts) + ")", quoted


def _stem_start(word: str) -> str:
    """A word of a phrase as a tsquery word of ``simple``: a word of English letters of three or more that
    is no function word, as the start it shares with its Porter stem (a prefix: "backed" as 'back':*);
    any other as written."""
    if not (word.isascii() and word.isalpha() and len(word) >= 3) or stopwords.is_stopword(word):
        return f"'{word}'"
    start = plan.shared_start(word, plan.stem(word))
    return f"'{start}':*" if len(start) >= 3 else f"'{word}'"


def _either_hyphen(written: str, spaced: str) -> tuple[str, list[Any]]:
    """A phrase with a hyphenated word among others as a tsquery: as written (the compound where docs
    hyphenate it) or with the hyphen a space (where they write the words apart), in every language."""
    parts, params = [], []
    for lang in schema.LANGUAGES:
        for text in (written, spaced):
            parts.append(f"websearch_to_tsquery('{lang}', %s)")
            params.append('"' + schema.read_as(lang, text).replace('"', " ") + '"')
    return "(" + " || ".join(parts) + ")", params


def _bigram_tsquery(text: str, any_of: bool = False) -> str | None:
    """``text``'s runs (:func:`~hermes_trail.index.cjk.question_runs`) as a tsquery of the docs' bigram
    words: each run the phrase of its bigrams, all of them (``any_of``: any one bigram), a lone character
    the prefix of the bigrams it starts."""
    parts = cjk.question_runs([text])
    if any_of:
        grams = [g for g in plan.run_bigrams(parts) if len(g) == 2]
        return " | ".join(f"'{g}'" for g in grams) or None
    made = [
        f"'{part}':*" if len(part) == 1 else "(" + " <-> ".join(f"'{g}'" for g in cjk.bigrams(part)) + ")"
        for part in parts
    ]
    return " & ".join(made) or None


_Sql = tuple[str, list[Any]]


def _joined(operators: tuple[str, str]) -> Callable[[list[_Sql], bool], _Sql]:
    """How :func:`query.fold` joins the parts of an AND (``operators[0]``) or an OR, in parentheses."""

    def join(parts: list[_Sql], either: bool) -> _Sql:
        joined = f" {operators[either]} ".join(p[0] for p in parts)
        return "(" + joined + ")", [v for p in parts for v in p[1]]

    return join


def _tsquery_sql(node: query.Node | None) -> _Sql | None:
    """The parsed query as one tsquery expression, its AND, OR and exclusions kept (``None``: nothing)."""
    return query.fold(
        node,
        _leaf_sql,
        _joined(("&&", "||")),
        lambda kept, out: (f"({kept[0]} && !!{out[0]})", kept[1] + out[1]),
    )


def _trigram_leaf(leaf: query.Term | query.Phrase) -> _Sql:
    if len(leaf.text) < query.TRIGRAM_MIN:
        raise _TooShort
    return "d.key ILIKE %s", ["%" + like(leaf.text) + "%"]


def _trigram_sql(node: query.Node | None) -> _Sql | None:
    """The parsed query as substrings of ``d.key`` (paths, commands, file names): ``None`` when a term is
    shorter than a trigram, as the local trigram index refuses it."""
    return query.fold(
        node,
        _trigram_leaf,
        _joined(("AND", "OR")),
        lambda kept, out: (f"({kept[0]} AND NOT coalesce({out[0]}, false))", kept[1] + out[1]),
    )


class _TooShort(Exception):
    pass


@dataclass(slots=True)
class _Plan:
    """A query read for the shared index: its tsquery (as text, made once by the server) and the
    substring condition, the terms that mark snippets, and what to say about the words typed."""

    tsquery: str | None
    trigram: tuple[str, list[Any]] | None
    terms: list[str]
    typed: list[str]
    dropped: list[str]
    missing: list[str]
    prefix: str | None
    # Whether the query has alternatives (an OR): a full window is then ranked by the words' occurrences.
    alternatives: bool = False
    # What the query excludes (``-word``): the weaker evidence leaves it out too (:func:`_excluded`).
    exclusions: tuple[query.Node, ...] = ()
    # The profiles the query names (``work``): their conversations are lifted, as locally.
    profiles: tuple[str, ...] = ()
    # The front ends it names with a word no text has (``discord``): lifted too, as locally.
    sources: tuple[str, ...] = ()
    # The words typed wrong, each with the words one slip away searched for in its place (as locally).
    spelled: dict[str, list[str]] = field(default_factory=dict)
    # Quoted phrases no doc has as typed, with their quotes: said with the missing words (as locally).
    unfound: list[str] = field(default_factory=list)
    # Names whose marks the tsvector drops (``c++``), lower case: a match must write them so (as locally,
    # :func:`~hermes_trail.index.query.marked_names`).
    marked: tuple[str, ...] = ()
    # The project words it names with a word no text has (``billing``): lifted too, as locally.
    projects: tuple[str, ...] = ()
    # The places a question of their names alone names: their conversations answer (as locally).
    places: plan.Places | None = None

    @property
    def meant(self) -> list[str]:
        """The words typed, each typed wrong as the first word read for it (as locally)."""
        return spelling.meant(self.typed, self.spelled)


# The profile names of the shared index (other than the default), by their case-folded spelling, kept per
# connection for a while: a word naming one says where to look, not what to find (as locally).
PROFILES_SECONDS = 60.0
_PROFILES: dict[tuple[int, int], tuple[float, dict[str, str]]] = {}


def _profile_names(conn: psycopg.Connection[Any]) -> dict[str, str]:
    def read() -> dict[str, str]:
        return plan.profile_names(r[0] for r in conn.execute(f"SELECT DISTINCT profile FROM {_S}"))

    return schema.kept(_PROFILES, conn, PROFILES_SECONDS, read)


_PLACES: dict[tuple[int, int], tuple[float, tuple[dict[str, str], dict[str, str]]]] = {}


def _places(conn: psycopg.Connection[Any]) -> tuple[dict[str, str], dict[str, str]]:
    """The shared index's front ends and the words its projects are named by, in one read, kept per
    connection as its profiles are (as locally: :func:`plan.source_names`, :func:`plan.project_names`)."""

    def read() -> tuple[dict[str, str], dict[str, str]]:
        rows = conn.execute(f"SELECT DISTINCT source, project FROM {_S}").fetchall()
        return plan.source_names(r[0] for r in rows), plan.project_names(r[1] for r in rows)

    return schema.kept(_PLACES, conn, PROFILES_SECONDS, read)


def _plan(conn: psycopg.Connection[Any], text: str, checked: bool) -> _Plan:
    """``text`` read as :func:`hermes_trail.index.plan.read` reads it; unless ``checked``, no word is
    looked up (the words as typed, when they find enough)."""
    parsed = query.with_flags(query.parse(text), text, functools.partial(flag_in, conn))
    exclusions = tuple(query.exclusions(parsed))
    plain = query.conjuncts(parsed)
    every = query.terms(parsed)
    change: dict[query.Term, query.Node | None] = {}
    said = [t.text for t in plain]
    stop = [t for t in plain if not t.prefix and stopwords.is_stopword(t.text, said)]
    dropped: list[str] = []
    if stop and len({t.text for t in stop}) < len(every):
        change.update((t, None) for t in stop)
        dropped = list(dict.fromkeys(t.text for t in stop))
    # A word naming a profile other than the default says where to look, not what to find (as locally).
    named = _profile_names(conn)
    profiles = plan.naming_profiles(plain, change, named, dropped, every)
    kept = [t for t in plain if t not in change]
    missing: list[str] = []
    spelled: dict[str, list[str]] = {}
    sources: list[str] = []
    projects: list[str] = []
    places: plan.Places | None = None
    prefix: str | None = None
    last = query.last_term(parsed)
    if last is not None and last in kept and plan.stemmed_away(last):
        # The start of a word still being typed, which its stem made a function word (as locally).
        change[last] = query.Term(last.text, prefix=True)
        prefix = last.text
        kept = [t for t in kept if t is not last]
    kept = plan.join_clitics(kept, change, functools.partial(_exist, conn))  # Arabic and Hebrew, as locally
    if checked and kept:
        once = list(dict.fromkeys(kept))  # each word once, as locally (an error pasted whole repeats them)
        holds = functools.cache(lambda word: _exist(conn, [query.Term(word)])[0])
        respell = functools.cache(plan.slips_for(text, functools.partial(_respelled, conn)))
        variant, have = functools.partial(_variant, conn), functools.partial(_exist, conn)
        found = _exist(conn, once)
        for term, there in zip(once, found, strict=True):
            if there or term.prefix:
                continue
            typed = query.Term(term.text, prefix=True)
            if (
                term is last
                and len(term.text) >= 2
                and not query.is_marked_name(term.text)
                and _exist(conn, [typed])[0]
            ):
                change[term] = typed
                prefix = term.text
                continue
            # What stands for a word the shared index lacks, by the local rule.
            stood = plan.stood_for(term, term is last, text, variant, have, holds, respell)
            if stood is None:
                missing.append(term.text)
                continue
            change[term], said, lacking = stood
            if said:
                spelled[term.text] = said
            missing += lacking
        if missing:  # words side by side that the history writes as one name (as locally)
            plains = [t for t in plain if t not in profiles]
            runs = plan.joined(text, plains, missing, functools.partial(_exist, conn))
            missing, dropped = plan.take_joined(runs, change, spelled, missing, dropped)
        if missing:  # the first part of a compound (as locally)
            missing = plan.read_as_starts(missing, kept, change, spelled, variant)
        if missing:  # what the words no text has name, as locally
            others = len(every) - len(dropped) - len(missing) > 0
            if others:
                change.update((t, None) for t in kept if t.text in missing)
            alone = plan.names_alone(parsed, plain, every, kept, missing)
            where = functools.partial(_places, conn)
            sources, projects, missing, places = plan.naming_places(
                missing, profiles, others, alone, named, where
            )
    if change:
        parsed = query.rewrite(parsed, change)
    tsquery = None
    if (made := _tsquery_sql(parsed.root)) is not None:
        row = conn.execute(f"SELECT ({made[0]})::text", made[1]).fetchone()
        tsquery = row[0] if row and row[0] else None
    trigram = None
    if query.needs_trigram(parsed):
        try:
            trigram = _trigram_sql(parsed.root)
        except _TooShort:
            trigram = None
    alternatives = _has_or(parsed.root)
    named_profiles = tuple(dict.fromkeys(named[t.text.casefold()] for t in profiles))
    quoted = query.phrases(parsed) if checked else []
    unfound = [f'"{p.text}"' for p, has in zip(quoted, _exist(conn, quoted), strict=True) if not has]
    return _Plan(
        tsquery,
        trigram,
        query.terms(parsed),
        every,
        dropped,
        missing,
        prefix,
        alternatives,
        exclusions,
        named_profiles,
        tuple(sources),
        spelled,
        unfound,
        tuple(query.marked_names(parsed)),
        tuple(projects),
        places,
    )


def _written_so(name: str) -> tuple[str, str]:
    """The condition, on a doc ``d``, that it writes ``name`` (lower case) with its marks where a word
    starts, and its parameter."""
    return "d.text ~* %s", "(^|[^[:alnum:]])" + re.escape(name)


def _respelled(conn: psycopg.Connection[Any], word: str) -> list[str]:
    """The words one slip away from ``word`` that the shared index holds, which stand for it, by the rule
    the local index reads them with (:func:`~hermes_trail.index.spelling.respelled`)."""
    common: set[str] = set()  # the spellings found among the index's most common words
    read: dict[str, list[str]] = {}

    def there(words: list[str]) -> list[str]:
        found, often = _words_there(conn, words)
        common.update(often)
        # Held as the local index holds words (its stem written in a doc), not by another word's form in
        # the other configuration (:func:`spelling.writes`).
        return [w for w in found if spelling.writes(w, texts(w), plan.stem)]

    def texts(spelled: str) -> list[str]:
        if spelled not in read:
            read[spelled] = _texts_of(spelled)
        return read[spelled]

    def _texts_of(spelled: str) -> list[str]:
        leaf = _leaf_sql(_word(spelled))
        if leaf is None:
            return []
        if spelled in common and len(scanned := _scanned_texts(conn, leaf)) >= spelling.READ:
            return scanned
        return _first_texts(conn, leaf)

    return spelling.respelled(
        word,
        there,
        lambda words: doc_frequencies(conn, words, spelling.COUNTED),
        texts,
        plan.stem,
    )


def flag_in(conn: psycopg.Connection[Any], word: str, flag: str) -> bool:
    """Whether the history writes ``word -flag``, a command with its flag (as locally)."""
    leaf = _leaf_sql(plan.flag_leaf(word, flag))
    return leaf is not None and plan.flag_written(_first_texts(conn, leaf), word, flag)


def _variant(
    conn: psycopg.Connection[Any], term: query.Term, tiers: list[list[variants.Reading]]
) -> tuple[query.Node, list[str]] | None:
    """The first of ``tiers`` the shared index has, and how it writes it, by the local rule
    (:func:`~hermes_trail.index.plan.local_variant`)."""

    def texts(reading: variants.Reading) -> list[str]:
        leaf = _leaf_sql(reading)
        return [] if leaf is None else _first_texts(conn, leaf)

    return variants.found(term, tiers, lambda readings: _exist(conn, readings), texts)


def _first_texts(conn: psycopg.Connection[Any], leaf: tuple[str, list[Any]]) -> list[str]:
    """The texts of the first :data:`~hermes_trail.index.spelling.READ` docs that match ``leaf``, in the
    order they were written, as locally (no sort: a common word's newest, sorted, cost 15 ms): how the
    history writes what was found."""
    sql = f"SELECT d.text FROM {_D} d WHERE d.tsv @@ {leaf[0]} LIMIT {spelling.READ}"
    return [str(r[0]) for r in conn.execute(sql, leaf[1])]


# The docs a common word's first texts are looked for in, from the table's start (:func:`_scanned_texts`).
SCANNED_DOCS = 5_000


def _scanned_texts(conn: psycopg.Connection[Any], leaf: tuple[str, list[Any]]) -> list[str]:
    """The texts of the first docs that have a word among the index's most common (one in 0.5 % of the
    docs or more), read from the table's first :data:`SCANNED_DOCS` docs in the order they are stored:
    the first docs the GIN index finds, in the same order, without making its bitmap of every doc that has
    the word first ("false" in 430,000 of 850,000 docs: 70 ms, this under 1). Fewer than asked for when the
    word is common only further on: the caller then asks the index."""
    sql = (
        f"SELECT d.text FROM (SELECT text, tsv FROM {_D} LIMIT {SCANNED_DOCS}) d "
        f"WHERE d.tsv @@ {leaf[0]} LIMIT {spelling.READ}"
    )
    # From the table's first block, whatever another scan of it is doing, and in one process, in the order
    # stored: the same docs each time.
    settings: list[Statement] = [
        ("SET LOCAL synchronize_seqscans = off", None),
        ("SET LOCAL max_parallel_workers_per_gather = 0", None),
    ]
    return [str(r[0]) for r in rows_after(conn, settings, sql, leaf[1])]


def _words_there(conn: psycopg.Connection[Any], words: list[str]) -> tuple[list[str], list[str]]:
    """Those of ``words`` (of letters only) that some doc has, in their order, and which of them are among
    the index's most common words. A word of the table's statistics' most common lexemes (a large index,
    as :func:`_doc_frequencies` trusts them) is there without a look; any other is found as :func:`_exist`
    finds a word, each through the GIN index, in one statement that makes each word's tsquery in the
    server. A word's check as its own ``EXISTS`` cost the planner as much again (150 spellings: 8-21 ms,
    this 1-2); a common word's check made the GIN index's bitmap of every doc that has it ("false": 70 ms
    at 850,000 docs)."""
    langs = [f"websearch_to_tsquery('{lang}', w)" for lang in schema.LANGUAGES]
    common = list(_common_lexemes(conn)) if _collection(conn)[0] >= ESTIMATE_FROM else []
    # The look is made only for a word not common (a CASE, whose branches are evaluated in their order).
    look = f"EXISTS (SELECT 1 FROM {_D} d WHERE d.tsv @@ ({' || '.join(langs)}))"
    sql = (
        f"SELECT w, often FROM unnest(%s::text[]) WITH ORDINALITY AS u(w, n), "
        f"LATERAL (SELECT tsvector_to_array({_tsvector_sql('w')}) && %s::text[] AS often) c "
        f"WHERE CASE WHEN often THEN true ELSE {look} END ORDER BY n"
    )
    rows = _without_scans(conn, sql, (words, common))  # through the index, as _exist asks
    return [str(w) for w, _ in rows], [str(w) for w, often in rows if often]


def respelled(conn: psycopg.Connection[Any], word: str) -> list[str]:
    """The words one slip away from ``word`` that the shared index has, or the word as it writes it
    otherwise, when it lacks ``word`` itself (as :func:`~hermes_trail.index.how.local_respelled`)."""
    return plan.stand_ins(
        word,
        lambda typed: _exist(conn, [_word(typed)])[0],
        lambda term, tiers: _variant(conn, term, tiers),
        lambda typed: _respelled(conn, typed),
    )


def _has_or(node: query.Node | None) -> bool:
    if isinstance(node, query.Or):
        return True
    if isinstance(node, query.And):
        return any(_has_or(n) for n in node.nodes)
    return False


def _exist(conn: psycopg.Connection[Any], terms: Sequence[query.Term | query.Phrase]) -> list[bool]:
    """Whether any doc has each term (a word, or a substring of a path-like one): one GIN lookup each."""
    if not terms:
        return []
    checks: list[str] = []
    params: list[Any] = []
    for term in terms:
        if query.nothing_to_find(term):  # punctuation alone ("!", "..."): nothing missing, as locally
            checks.append("true")
            continue
        leaf = _leaf_sql(term)
        if leaf is None:
            checks.append("false")
            continue
        check = f"EXISTS (SELECT 1 FROM {_D} d WHERE d.tsv @@ {leaf[0]})"
        params += leaf[1]
        if isinstance(term, query.Term) and query.is_marked_name(term.text):  # C++, not every "c"
            written, pattern = _written_so(term.text.lower())
            check = f"EXISTS (SELECT 1 FROM {_D} d WHERE d.tsv @@ {leaf[0]} AND {written})"
            params.append(pattern)
        if cjk.has_cjk(term.text) and (grams := _bigram_tsquery(term.text, any_of=True)) is not None:
            # A run not found as it is is missing only when not one of its bigrams is anywhere.
            check = f"({check} OR EXISTS (SELECT 1 FROM {_D} d WHERE d.tsv @@ to_tsquery('simple', %s)))"
            params.append(grams)
        if query.leaf_needs_trigram(term) and len(term.text) >= query.TRIGRAM_MIN:
            check = f"({check} OR EXISTS (SELECT 1 FROM {_D} d WHERE d.key ILIKE %s))"
            params.append("%" + like(term.text) + "%")
        checks.append(check)
    # Through the indexes, never a scan: the planner, expecting an EXISTS to stop at an early row, read
    # every doc for a word none has (2 s a check at 850,000 docs; a typo took 5-8 s to say "not found").
    rows = _without_scans(conn, "SELECT " + ", ".join(checks), params)
    return [bool(v) for v in rows[0]] if rows else [False] * len(terms)


# -- candidates ------------------------------------------------------------------------------------------
def _candidates(
    conn: psycopg.Connection[Any],
    reading: _Plan,
    filters: SearchFilters,
    hosts: list[str] | None,
    window: int = WINDOW,
    words: list[str] | None = None,
) -> tuple[list[tuple[Any, ...]], bool]:
    """The newest ``window`` matching docs, each with its rank, and whether the window was full.

    Fewer matches than the window: each ranked by BM25 (:func:`_bm25`; a substring match alone ranks
    weakly). A full window is ranked as the local search ranks one, without reading ranks:
    by the doc's length, and for an ``OR`` by how often the words occur in its start; and when its
    matches make fewer than five conversations (one long conversation filling it), up to
    :data:`FURTHER_WINDOWS` more windows look past their sessions. With ``words`` (the any-word pass),
    each row ends with which of the words the doc has.
    """
    if reading.tsquery is None and reading.trigram is None:
        return [], False
    clauses, params = _where(filters, hosts)
    for name in reading.marked:
        written, pattern = _written_so(name)
        clauses, params = [*clauses, written], [*params, pattern]
    match: list[str] = []
    match_params: list[Any] = []
    if reading.tsquery is not None:
        match.append("d.tsv @@ %s::tsquery")
        match_params.append(reading.tsquery)
    if reading.trigram is not None:
        match.append(reading.trigram[0])
        match_params += reading.trigram[1]
    where = " AND ".join(["(" + " OR ".join(match) + ")", *clauses])
    join = f" JOIN {_S} s ON s.id = d.sess" if any("s." in c for c in clauses) else ""
    # Whether a doc matched the words (its BM25 is counted) or only as a substring: a question only when
    # substrings were looked for too. Ranks are computed here, not by PostgreSQL (see _bm25).
    rank, rank_params = "1.0::real", list[Any]()
    if reading.trigram is not None:
        rank, rank_params = "NULL::real", []
        if reading.tsquery is not None:
            rank, rank_params = "CASE WHEN d.tsv @@ %s::tsquery THEN 1.0::real END", [reading.tsquery]
    counted = [t.lower() for t in reading.terms if t.strip()][:8] if reading.alternatives else []
    head = f"left(d.text, {HEAD})" if counted else "''"
    has, has_params = "", []
    if words:
        has = ", ARRAY[" + ", ".join("d.tsv @@ %s::tsquery" for _ in words) + "]"
        has_params = list(words)
    late = bool(counted or words)  # what reads the text or the tsvector again: only for the window's rows
    bound = None if reading.trigram is not None else _walk_bound(conn, reading.tsquery, window)
    # A search kept to a time that would read the GIN index (or walk a phrase's newest docs, then read it)
    # reads every doc since the time's start instead, newest first, when they are fewer than half its
    # words' matches at any time. A common word's walk (``bound`` 0) stops at the window's end already.
    covering = None
    if filters.since is not None and reading.trigram is None and bound != 0:
        at_least = _matches_at_least(conn, reading.tsquery)
        covering = _time_bound(conn, filters) if at_least else None
        if covering is not None and at_least >= TIME_WALK_SHARE * covering:
            bound = covering
        else:
            covering = None

    def fetch(sql: str, args: list[Any], walk: bool) -> list[tuple[Any, ...]]:
        if walk:
            return conn.execute(sql, args).fetchall()
        # The matches through the GIN index, never a scan of every doc nor a walk of the newest: the
        # planner, taking a phrase of common words or a word no doc has for common, read them all.
        return _without_scans(conn, sql, args)

    def read(below: int | None, bound: int | None) -> list[tuple[Any, ...]]:
        """The window's rows: past the doc ``below``; walking newest first (``bound`` 0), only the newest
        ``bound`` docs, or through the GIN index (``None``)."""
        past = " AND d.id < %s" if below is not None else ""
        walk = bound is not None
        newest = _NEWEST if walk else _NEWEST_SORTED
        docs, first = f"{_D} d", []
        if bound:
            docs, first = f"(SELECT * FROM {_D} d {_NEWEST} LIMIT %s) d", [bound]
        filtered = [*match_params, *params, *([below] if past else []), window]
        tail = f"FROM {docs}{join} WHERE {where}{past} {newest} LIMIT %s"
        if not late:
            sql = f"SELECT {_DOC_COLUMNS}, {rank}, d.chars, '' {tail}"
            return fetch(sql, [*rank_params, *first, *filtered], walk)
        inner = f"SELECT {_DOC_COLUMNS}, {rank}, d.chars {tail}"
        # In the window's order again: a join keeps no order, and what comes after ranks equal docs in
        # the order they came (the order a hash join made varied with what the connection had asked).
        order = "ORDER BY m.time DESC NULLS LAST, m.id DESC"
        sql = f"SELECT m.*, {head}{has} FROM ({inner}) m JOIN {_D} d ON d.id = m.id {order}"
        return fetch(sql, [*has_params, *rank_params, *first, *filtered], walk)

    rows = read(None, bound)
    if bound and covering is None and len(rows) < window and _collection(conn)[0] > bound:
        rows = read(None, None)  # a phrase too seldom said to fill the window in the docs walked
    windowed = len(rows) >= window
    if words is not None:
        if windowed:
            return _by_words(rows), True
        base = _bm25(conn, reading, [r[:12] for r in rows])
        ranked = sorted(zip(base, rows, strict=True), key=lambda pair: _by_rank(pair[0]))
        return [(*b, r[14]) for b, r in ranked[:SHORTLIST]], False
    if not windowed:
        return sorted(_bm25(conn, reading, [r[:12] for r in rows]), key=_by_rank), False
    for _ in range(FURTHER_WINDOWS):
        sessions = list({int(r[1]) for r in rows})
        if _conversations(conn, sessions) >= RELAX_BELOW:
            break
        first = conn.execute(f"SELECT min(id) FROM {_D} WHERE sess = ANY(%s)", (sessions,)).fetchone()
        # Walked as the first window when that walked to its end; else (a phrase's bounded walk, the GIN
        # index) through the GIN index.
        onward = covering if covering is not None else 0 if bound == 0 else None
        more = read(int(first[0]), onward) if first and first[0] is not None else []
        if not more:
            break
        rows += more
    floor = math.log(2.0) * max(1, len(counted))
    scored = [(*r[:11], -_occurrence_score(r[13], r[12], counted, floor)) for r in rows]
    return sorted(scored, key=lambda r: -r[11])[:SHORTLIST], True


def _by_rank(row: tuple[Any, ...]) -> tuple[float, int]:
    """The order of docs ranked by BM25 (:func:`_bm25`), as the local index's are: the best first, and of
    equal ranks the one pushed first (FTS5 gives them in the order of their ids). A question whose any-word
    matches tied at the 200th (13 docs, each with "home" once) kept another 200 of them after other
    questions on the same connection."""
    return (-(row[11] or 0.0), int(row[0]))


def _by_words(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A full any-word window ranked as the local one is: the docs with the most telling words first
    (each word weighing by how rare it is in the window's span of ids; every doc of the span with any of
    them is in the window), the best :data:`WINDOW` of those weighed by their length."""
    ids = [int(r[0]) for r in rows]
    span = max(ids) - min(ids) + 1
    present = [sum(1 for r in rows if r[14][i]) for i in range(len(rows[0][14]))]
    weights = [math.log1p(span / (1.0 + n)) for n in present]
    has = {int(r[0]): sum(w for w, h in zip(weights, r[14], strict=True) if h) for r in rows}
    best = sorted(rows, key=lambda r: (-has[int(r[0])], -int(r[0])))[:WINDOW]
    scored = [(*r[:11], has[int(r[0])] / (1.0 + r[12] / 4000.0), r[14]) for r in best]
    return sorted(scored, key=lambda r: -r[11])[:SHORTLIST]


def bm25(
    conn: psycopg.Connection[Any],
    docs: list[int],
    terms: list[str],
    prefix: str | None = None,
    texts: dict[int, str] | None = None,
) -> dict[int, float]:
    """FTS5's BM25 of ``terms`` for ``docs`` (its formula and constants, which PostgreSQL does not have;
    positive, higher better): each term's docs counted (up to :data:`DF_CAP`), the collection's size and
    mean length in words read from ``hosts``, a doc's words as the local word index counts them, a
    term's occurrences as the words with its Porter stem (:class:`Word`; ``prefix``: the term still
    being typed). Every term counts, as every phrase of the query counts in FTS5's: a question of nine
    words was ranked by its first eight (up to :data:`BM25_TERMS`). The Chinese, Japanese and Korean
    runs of the terms are scored as the local bigram index scores them too (:func:`_bigram_bm25`), and a
    doc keeps the better of the two, as a doc two local indexes found does. ``texts``: the docs' texts,
    when read already."""
    terms = [t for t in terms if t.strip()][:BM25_TERMS]
    if not docs or not terms:
        return {}
    if texts is None:
        texts = dict(conn.execute(f"SELECT id, text FROM {_D} WHERE id = ANY(%s)", (docs,)).fetchall())
    total, words = _collection(conn)
    total = max(total, len(docs))
    scores = _scores(
        docs,
        phrases(terms, prefix),
        _doc_frequencies(conn, terms, prefix),
        (total, float(words) / total if words else 100.0),
        lambda doc: TOKEN.findall(folding.fold(texts.get(doc, "")).lower()),
    )
    if runs := cjk.question_runs(terms):
        bigrams = _bigram_bm25(conn, docs, runs, texts)
        if cjk.only_runs(terms):  # as locally: a question of runs alone, by their bigrams alone
            return {doc: bigrams[doc] for doc in scores}
        scores = {doc: max(score, bigrams[doc]) for doc, score in scores.items()}
    return scores


def _bigram_bm25(
    conn: psycopg.Connection[Any], docs: list[int], runs: list[str], texts: dict[int, str]
) -> dict[int, float]:
    """FTS5's BM25 of the question's runs over the local bigram index (``docs_cjk``): each run the phrase
    of its bigrams (a lone character: the bigrams it starts), a doc's tokens its runs' bigrams, the
    collection the docs with runs and their bigrams, as each host's pushes counted them (version 7)."""
    held, grams = _bigram_collection(conn)
    wanted = [
        [Word(run, prefix=True)] if len(run) == 1 else [Word(g) for g in cjk.bigrams(run)] for run in runs
    ]
    return _scores(
        docs,
        wanted,
        _doc_frequencies(conn, runs, None),
        (max(held, 1), float(grams) / held if held and grams else 1.0),
        lambda doc: cjk.index_tokens(texts.get(doc, "")),
    )


def _scores(
    docs: list[int],
    wanted: list[list[Word]],
    counts: list[int],
    collection: tuple[int, float],
    tokens_of: Callable[[int], list[str]],
) -> dict[int, float]:
    """BM25 as FTS5 computes it: ``wanted`` the query's phrases, ``counts`` the docs each is in, the
    collection its size and mean length, ``tokens_of`` a doc's tokens."""
    total, mean = collection
    idfs = [max(math.log((total - n + 0.5) / (n + 0.5)), 1e-6) for n in counts]
    out = {}
    for doc in docs:
        tokens = tokens_of(doc)
        length = max(len(tokens), 1)
        score = 0.0
        for phrase, idf in zip(wanted, idfs, strict=True):
            tf = _occurrences(tokens, phrase)
            score += idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / mean))
        out[doc] = score
    return out


def _bm25(
    conn: psycopg.Connection[Any], reading: _Plan, rows: list[tuple[Any, ...]]
) -> list[tuple[Any, ...]]:
    """The rows (fewer than a window) ranked by BM25, as the local search ranks them (:func:`bm25`). A doc
    found by its substrings alone keeps its weak rank."""
    if not rows or reading.tsquery is None:
        return rows
    scores = bm25(conn, [r[0] for r in rows if r[11] is not None], reading.terms, reading.prefix)
    if not scores:
        return rows
    return [r if r[11] is None else (*r[:11], scores[r[0]] or float(r[11])) for r in rows]


class Word:
    """One word of a term as the local word index counts it in a doc (:func:`_occurrences`): the tokens
    whose Porter stem is its stem ("login" for "logins", not "listenhandle" for "listener"), or, for the
    word still being typed (a prefix), every token that starts with it."""

    __slots__ = ("_seen", "prefix", "root", "start", "text")

    def __init__(self, text: str, prefix: bool = False) -> None:
        self.text = text
        self.prefix = prefix
        self.root = plan.stem(text) if text.isalnum() else text
        # A token with the same stem starts as the stem does but for its last letter (Porter makes "y"
        # an "i" and takes an "e" back: "city" and "citi", "making" and "make"): a cheap test first.
        self.start = self.root[:-1] or self.root
        self._seen: dict[str, bool] = {}

    def counts(self, token: str) -> bool:
        if self.prefix:
            return token.startswith(self.text)
        if token == self.text:
            return True
        if not token.startswith(self.start):
            return False
        found = self._seen.get(token)
        if found is None:
            found = self._seen[token] = plan.stem(token) == self.root
        return found


def phrases(terms: list[str], prefix: str | None = None) -> list[list[Word]]:
    """Each term as the words of a phrase (:class:`Word`); ``prefix``: the term still being typed."""
    return [
        [Word(w, prefix=term == prefix) for w in TOKEN.findall(folding.fold(term).lower())]
        if term.strip()
        else []
        for term in terms
    ]


def _occurrences(tokens: list[str], phrase: list[Word]) -> int:
    """How often the words of ``phrase`` follow each other in ``tokens`` (:meth:`Word.counts`): FTS5's
    count of a term in a doc, which its BM25 reads."""
    if not phrase:
        return 0
    first, rest = phrase[0], phrase[1:]
    found = 0
    for i, token in enumerate(tokens):
        if first.counts(token) and all(
            i + j + 1 < len(tokens) and w.counts(tokens[i + j + 1]) for j, w in enumerate(rest)
        ):
            found += 1
    return found


def _doc_frequencies(
    conn: psycopg.Connection[Any], terms: list[str], prefix: str | None, cap: int = DF_CAP
) -> list[int]:
    """How many docs have each term. A word among the collection's most common (the statistics
    ``ANALYZE`` keeps of the ``tsv`` column) is estimated from its share, which counting would cost most;
    any other is counted through the GIN index, up to ``cap``; a phrase (words with spaces) as its rarest
    word."""
    phrases = {t: TOKEN.findall(t) for t in terms if " " in t.strip()}
    if phrases:  # a phrase is in at most as many docs as its rarest word: counting it reads positions
        words = list(dict.fromkeys(w for parts in phrases.values() for w in parts))
        rest = [t for t in terms if t not in phrases]
        counts = dict(zip(rest + words, _doc_frequencies(conn, rest + words, prefix, cap), strict=True))
        return [min((counts[w] for w in phrases[t]), default=0) if t in phrases else counts[t] for t in terms]
    total = _collection(conn)[0]
    # Estimates save counting where counting costs (a word in most of a large index); a smaller index is
    # counted exactly, so its ranking does not change with when PostgreSQL last analyzed the table.
    common = _common_lexemes(conn) if total >= ESTIMATE_FROM else {}
    # A prefix (typed, or ``bea*`` of the any-word pass) is counted: a word's share is not its start's.
    plain = [t for t in terms if t != prefix and not t.endswith("*")]
    lexemes: dict[str, list[str]] = {}
    if common and plain:
        made = [f"tsvector_to_array({_tsvector_sql()})" for _ in plain]
        row = conn.execute(
            "SELECT " + ", ".join(made), [schema.read_as(lang, t) for t in plain for lang in schema.LANGUAGES]
        )
        lexemes = dict(zip(plain, row.fetchone() or [], strict=False))
    counted_before = schema.kept(_COUNTED, conn, COUNTED_SECONDS, dict)
    known: list[int | None] = []
    for term in terms:
        shares = [common[x] for x in lexemes.get(term) or [] if x in common]
        known.append(
            round(max(shares) * total) if shares else counted_before.get((term, term == prefix, cap))
        )
    selects: list[str] = []
    params: list[Any] = []
    for term, estimate in zip(terms, known, strict=True):
        if estimate is not None:
            continue
        made_leaf = _leaf_sql(query.Term(term, prefix=True) if term == prefix else _word(term))
        if made_leaf is None:
            selects.append("0")
            continue
        selects.append(
            f"(SELECT count(*) FROM (SELECT 1 FROM {_D} d WHERE d.tsv @@ {made_leaf[0]} LIMIT {int(cap)}) c)"
        )
        params += made_leaf[1]
    counted: list[Any] = []
    if selects:
        counted = list(conn.execute("SELECT " + ", ".join(selects), params).fetchone() or [])
    found = iter(counted)
    out = []
    for term, estimate in zip(terms, known, strict=True):
        if estimate is None:
            estimate = counted_before[term, term == prefix, cap] = int(next(found, 0))
        out.append(estimate)
    return out


def doc_frequencies(conn: psycopg.Connection[Any], words: list[str], cap: int = DF_CAP) -> list[int]:
    """How many docs of the shared index have each of ``words`` (estimated or counted up to ``cap``)."""
    return _doc_frequencies(conn, words, None, cap)


# How many docs have a term, as counted (up to a cap) by :func:`_doc_frequencies`, kept per connection
# for a while: a search counts its words for BM25, for how rare each is in the any-word pass and for the
# rule of the newest fact, and a long-lived caller asks of the same words again.
COUNTED_SECONDS = 60.0
_COUNTED: dict[tuple[int, int], tuple[float, dict[tuple[str, bool, int], int]]] = {}


def _tsvector_sql(text: str = "%s") -> str:
    """A text's tsvector as the docs' generated column makes it: ``text`` (by default one parameter per
    language) read in each language."""
    return " || ".join(f"to_tsvector('{lang}', {text})" for lang in schema.LANGUAGES)


# The newest matches first, by when they were said: doc ids follow the order each host pushed in, so
# across hosts the newest ids are the last host's push, not the latest activity.
_NEWEST = "ORDER BY d.time DESC NULLS LAST, d.id DESC"
# The same order, kept from walking the newest-first index (``docs_newest``): see :func:`_walk_bound`.
_NEWEST_SORTED = "ORDER BY d.time + 0 DESC NULLS LAST, d.id DESC"
_PHRASE = re.compile(r" <(?:-|\d+)> ")
# A tsquery's text as PostgreSQL writes it: quoted lexemes (a prefix's ``:*``, weights), its operators.
_TSQUERY_TOKEN = re.compile(r"'((?:[^']|'')*)'(:[*A-D]+)?|<(?:-|\d+)>|[&|!()]|\S")
# A phrase's walk reads at most this share of the docs its words' AND is estimated to match (what the
# GIN index would read and recheck): reading one newest first costs about 0.6 of rechecking one (3
# against 5 µs at 340,000 docs), so a phrase too rare for the walk to fill the window costs about a third
# more than the GIN index alone.
PHRASE_WALK_SHARE = 0.5


def _share(tsquery: str, common: dict[str, float]) -> float | None:
    """The share of docs ``tsquery`` matches at least, as far as the most common lexemes' shares tell: an
    OR the most of its sides' (its sides are most often one word's forms, English stem and word as written,
    in the same docs; a side of rare words adds nothing to count on), an AND (a phrase's words too, which
    it needs all of) the least of its sides', a prefix the most common word it starts. ``None`` when that
    is nothing: an AND with a lexeme not among the most common, an exclusion (``!``)."""
    tokens = [(m.group(0), m.group(1), m.group(2)) for m in _TSQUERY_TOKEN.finditer(tsquery)]
    at = 0

    def either() -> float | None:
        nonlocal at
        known = [both()]
        while at < len(tokens) and tokens[at][0] == "|":
            at += 1
            known.append(both())
        shares = [share for share in known if share is not None]
        return max(shares) if shares else None

    def both() -> float | None:
        nonlocal at
        least = single()
        while least is not None and at < len(tokens) and (tokens[at][0] == "&" or tokens[at][0][0] == "<"):
            at += 1
            more = single()
            least = None if more is None else min(least, more)
        return least

    def single() -> float | None:
        nonlocal at
        if at >= len(tokens):
            return None
        text, lexeme, flags = tokens[at]
        at += 1
        if text == "(":
            inner = either()
            if at >= len(tokens) or tokens[at][0] != ")":
                return None
            at += 1
            return inner
        if lexeme is None:
            return None
        lexeme = lexeme.replace("''", "'")
        if flags and "*" in flags:  # at least the most common word it starts
            return max((v for k, v in common.items() if k.startswith(lexeme)), default=0.0) or None
        return common.get(lexeme) or None

    share = either()
    return share if at == len(tokens) else None


# A search kept to a time may walk every doc since its start, newest first, when there are at most this
# many and its words match more docs at any time: the GIN index reads every match of a common word or
# phrase and then drops those of other times (850,000 docs, 21,000 of them in the last day: a phrase of
# common words 750-830 ms that way, 50 ms walked; bench_fleet's queries kept to the last day 674-695 ms at
# the 95th percentile). Each doc walked costs a check of its tsvector, a few µs; counting them, 12 ms for
# 21,000.
TIME_WALK_DOCS = 50_000
# ... and when its words match at least this many times as many docs at any time: a doc walked costs a
# little more than a GIN match read (2.4 against 1.7 µs, measured on that phrase).
TIME_WALK_SHARE = 2.0


def _matches_at_least(conn: psycopg.Connection[Any], tsquery: str | None) -> float:
    """How many docs ``tsquery`` matches at least, as far as the most common lexemes tell (0 when they tell
    nothing: a rare word, whose GIN matches are few)."""
    if tsquery is None:
        return 0.0
    share = _share(tsquery, _common_lexemes(conn))
    return 0.0 if share is None else share * _collection(conn)[0]


def _time_bound(conn: psycopg.Connection[Any], filters: SearchFilters) -> int | None:
    """How many of the newest docs a search kept to a time would read (every doc since its start, through
    ``docs_newest``), when they are at most :data:`TIME_WALK_DOCS`; ``None`` otherwise, or without a
    start."""
    if filters.since is None:
        return None
    sql = f"SELECT count(*) FROM (SELECT 1 FROM {_D} d WHERE d.time >= %s LIMIT %s) c"
    # Never prepared: after a few runs a prepared statement may take a plan made without its time (a scan
    # of every doc, 340 ms at 850,000, where the ``docs_newest`` index reads those since it in 6-13 ms).
    row = conn.execute(sql, (filters.since, TIME_WALK_DOCS + 1), prepare=False).fetchone()
    count = int(row[0]) if row else TIME_WALK_DOCS + 1
    return max(count, 1) if count <= TIME_WALK_DOCS else None


def _walk_bound(conn: psycopg.Connection[Any], tsquery: str | None, window: int) -> int | None:
    """How the newest ``window`` matches of ``tsquery`` are found: ``None`` through the GIN index (reading
    every match, ``share * docs``, then sorting); ``0`` by walking the docs newest first to the window's
    end (reading about ``window / share``), when ``share**2 * docs >= window``; a number, for a phrase, by
    walking at most that many docs and through the GIN index when they did not fill the window.

    The share is estimated from the table's most common lexemes (``pg_stats``, :func:`_share`). An AND of
    a lexeme not among the most common, or a prefix that starts none of them, goes through the GIN index:
    PostgreSQL's own estimate takes a word no doc has for a common one, and then walked every doc. A
    phrase's share is not known, only its words' (which the GIN index reads, and rechecks each doc's
    positions of): a phrase of common words is walked (50-120 ms where the GIN index took 0.65-1.1 s at
    340,000 docs), but only so far, since a phrase seldom said though its words are common would walk
    every doc."""
    if tsquery is None:
        return None
    share = _share(tsquery, _common_lexemes(conn))
    total = _collection(conn)[0]
    if share is None or share * share * total < window:
        return None
    if not _PHRASE.search(tsquery):
        return 0
    return max(window, int(PHRASE_WALK_SHARE * share * total))


# Docs from which a common word's count is estimated from the table's statistics rather than counted.
ESTIMATE_FROM = 100_000
# Each connection's view of the most common lexemes, read again after this many seconds.
COMMON_SECONDS = 60.0
_COMMON: dict[tuple[int, int], tuple[float, dict[str, float]]] = {}


def _common_lexemes(conn: psycopg.Connection[Any]) -> dict[str, float]:
    """The most common lexemes of the docs and the share of docs each is in (the table's statistics, as
    every login may read them: :func:`_has_common_lexemes`), empty until the table was analyzed."""
    now = time.monotonic()
    cached = _COMMON.get(schema.connection_key(conn))
    if cached is not None and now - cached[0] < COMMON_SECONDS:
        return cached[1]
    row = conn.execute(
        f"SELECT * FROM {schema.SCHEMA}.common_lexemes()"
        if _has_common_lexemes(conn)
        else "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
        f"WHERE schemaname = '{schema.SCHEMA}' AND tablename = 'docs' AND attname = 'tsv'"
    ).fetchone()
    found = dict(zip(row[0], row[1], strict=False)) if row and row[0] and row[1] else {}
    _COMMON.clear()  # one connection's at a time: a long-lived caller's
    _COMMON[schema.connection_key(conn)] = (now, found)
    return found


def _has_common_lexemes(conn: psycopg.Connection[Any]) -> bool:
    """Whether the database has :func:`~hermes_trail.fleet.schema` ``common_lexemes()`` (made by every
    ``--migrate`` since 2026-12-05); before it, only a role that row-level security leaves alone (the
    administrator) sees the statistics, in ``pg_stats``."""
    row = conn.execute("SELECT to_regprocedure(%s)", (f"{schema.SCHEMA}.common_lexemes()",)).fetchone()
    return bool(row and row[0])


def _without_scans(conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` as the planner finds them with no scan of a whole table (``enable_seqscan`` off
    in a transaction of its own), in one round trip (:func:`~hermes_trail.fleet.connection.rows_after`)."""
    return rows_after(conn, [("SET LOCAL enable_seqscan = off", None)], sql, params)


_T = TypeVar("_T")
# What one search has read of the hosts' totals (:func:`_once`), while :func:`search` answers it.
_ASKED: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("fleet_asked", default=None)


def _once(name: str, make: Callable[[], _T]) -> _T:
    """What ``make`` reads, once a search (:func:`search`): a search's passes asked the hosts' totals a
    dozen times, a round trip each. Read each time outside a search."""
    asked = _ASKED.get()
    if asked is None:
        return make()
    if name not in asked:
        asked[name] = make()
    return cast(_T, asked[name])


def _hosts_summed(conn: psycopg.Connection[Any], first: str, second: str) -> tuple[int, int]:
    """Two of the ``hosts`` columns each host's last push recorded, summed over the hosts (no count of the
    docs); once a search. Each pair of columns is read on its own: a database made before version 7 has
    no bigram columns, and answers the rest until ``--migrate``."""

    def read() -> tuple[int, int]:
        row = conn.execute(
            f"SELECT coalesce(sum({first}), 0), coalesce(sum({second}), 0) FROM {schema.SCHEMA}.hosts"
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    return _once(f"{first}, {second}", read)


def _collection(conn: psycopg.Connection[Any]) -> tuple[int, float]:
    """How many docs the shared index holds and how many words they have (:func:`_hosts_summed`)."""
    total, words = _hosts_summed(conn, "docs", "tokens")
    return total, float(words)


def _bigram_collection(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    """How many docs of the shared index hold Chinese, Japanese or Korean runs and how many bigrams those
    have (:func:`_hosts_summed`)."""
    return _hosts_summed(conn, "cjk_docs", "bigrams")


def _scored(
    conn: psycopg.Connection[Any], rows: list[tuple[Any, ...]], edit_lift: float = 1.0
) -> list[FleetHit]:
    """Hits of candidate rows, scored as the local search scores them: rank times what matched (an edit
    ``edit_lift`` more: :func:`~hermes_trail.index.fusion.asked_file_lift`), the session's class and a
    bounded recency lift."""
    sessions = _sessions(conn, {int(r[1]) for r in rows})
    times = [r[7] for r in rows if r[7] is not None]
    newest, oldest = (max(times), min(times)) if times else (0.0, 0.0)
    span = max(newest - oldest, 1.0)
    hits = []
    for row in rows:
        session = sessions.get(int(row[1]))
        if session is None:  # pushed again meanwhile
            continue
        rank = float(row[11]) if row[11] is not None else TRIGRAM_RANK
        recency = ((row[7] or oldest) - oldest) / span
        score = rank * kind_weight(row[5], edit_lift) * SESSION_WEIGHT.get(session[7], 1.0)
        hits.append(_hit(row, session, score * (1.0 + RECENCY_BOOST * recency)))
    return sorted(hits, key=lambda h: h.score, reverse=True)


def _lift_titles(ordered: list[Conversation], words: list[str]) -> None:
    """A conversation whose title has every word is lifted, as locally (:func:`lift_titled`)."""
    lift_titled(ordered, words)


# -- the weaker evidence ---------------------------------------------------------------------------------
def _any_words(
    conn: psycopg.Connection[Any],
    words: list[str],
    filters: SearchFilters,
    hosts: list[str] | None,
    info: schema.Info,
    coverage: float,
    weight: float = LEXICAL_WEIGHT,
    groups: list[list[str]] | None = None,
    cut: int = COVERAGE_TERMS,
    shares_after: bool = False,
    excluded: str | None = None,
    against: int | None = None,
    marked: tuple[str, ...] = (),
    edit_lift: float = 1.0,
    titled: bool = True,
) -> tuple[list[tuple[Conversation, float]], set[int], int]:
    """Conversations with any of ``words``, each weighed by how much of the query it covers in its turns or
    its title (rarer words more, as the local any-word pass; with ``groups``, a question word's several
    readings, a group is covered by any of its words; ``titled``: a title can name the words, as it cannot a
    Chinese or Japanese bigram or reading, as locally): one list of the fused evidence (``weight`` its weight
    before ``coverage``), and the docs it matched. The first ``cut`` words are read; with ``shares_after`` (a
    Chinese or Japanese question's bigrams), each conversation's evidence against the list's best is then
    times the square of its share, as the local bigram list weighs it. ``excluded``: the query's exclusions as
    a tsquery's text (:func:`_excluded`), whose docs are no match. Also returned: the most of the words (or
    groups) one conversation has; ``against``: that of the English words' list, for an English question read
    as Chinese, whose list then weighs as locally (the one's most against the other's). ``marked``: the names
    a match must write with their marks (the list of one such name, as locally); ``edit_lift``:
    :func:`_scored`'s."""
    singles, used = [], []
    for word in words[:cut]:
        leaf = _leaf_sql(_word(word))
        if leaf is None:
            continue
        row = conn.execute(f"SELECT ({leaf[0]})::text", leaf[1]).fetchone()
        if row and row[0]:
            singles.append(str(row[0]))
            used.append(word)
    if len(singles) < 1:
        return [], set(), 0
    either = " | ".join(f"({q})" for q in singles)
    if excluded is not None:
        either = f"({either}) & !({excluded})"
    any_of = _Plan(either, None, words[:cut], [], [], [], None, alternatives=True, marked=marked)
    rows, _ = _candidates(conn, any_of, filters, hosts, RELAXED_WINDOW, words=singles)
    hits = _scored(conn, rows, edit_lift)
    has = {int(r[0]): list(r[12]) for r in rows}
    units = [[used.index(w) for w in g if w in used] for g in groups[:cut]] if groups else []
    units = [u for u in units if u] or [[i] for i in range(len(singles))]
    # Each word's rarity in the whole shared index, as the local pass weighs it (not among the matches,
    # where a word every match has would count as common whatever the index), counted up to where a word
    # stops being rare: counting a common word's docs through the GIN index is what a full window's
    # ranking saves (a question of words nobody wrote took 8 → 22 ms).
    docs = max(_collection(conn)[0], len(rows))
    counts = _doc_frequencies(conn, used, None, RARE_CAP)
    weights = [rarity(docs, max(counts[i] for i in unit)) for unit in units]
    total = sum(weights) or 1.0
    found = list(_group(hits).values())
    scores, shares, most = [], [], 0
    for conv in found:
        covered = [
            any(has[h.doc][i] for h in conv.hits if h.doc in has for i in unit)
            or (titled and title_covers(conv, [used[i] for i in unit]))
            for unit in units
        ]
        share = sum(w for w, c in zip(weights, covered, strict=True) if c) / total
        shares.append(share**COVERAGE_POWER)
        scores.append(conversation_score(conv.hits) * (1.0 if shares_after else shares[-1]))
        most = max(most, sum(covered))
    weight *= coverage
    if against is not None:
        weight = min(STRICT_WEIGHT * coverage, weight * (most / max(against, 1)) ** COVERAGE_POWER)
    evidence = evidence_of(found, scores, weight)
    if shares_after:
        evidence = [(conv, part * share) for (conv, part), share in zip(evidence, shares, strict=True)]
    return evidence, set(has), most


# Whether each Chinese or Japanese reading of an English word is in the shared index, kept per connection
# for a while (a long-lived caller asks of the same words again): each is a GIN bitmap scan of its own,
# about 0.15 ms, and an English question has up to 64 readings a word (a hundred or more a question).
READINGS_SECONDS = 60.0
_READINGS_THERE: dict[tuple[int, int], tuple[float, dict[str, bool]]] = {}


def _in_chinese(conn: psycopg.Connection[Any], words: list[str]) -> tuple[list[list[str]], list[str]]:
    """An English question's ``words`` read as the Chinese or Japanese words the shared index has
    (:func:`lexicon.chinese_groups`), and those of the ``words`` so read: the readings not known yet on
    this connection (:data:`READINGS_SECONDS`) asked about in two round trips at most."""
    each = lexicon.chinese(words)
    readings = list(dict.fromkeys(w for found in each for w in found))
    if not readings:
        return [], []
    known: dict[str, bool] = schema.kept(_READINGS_THERE, conn, READINGS_SECONDS, dict)
    asked = [w for w in readings if w not in known]
    if asked:
        phrases = ["(" + " <-> ".join(f"'{g}'" for g in cjk.bigrams(w)) + ")" for w in asked]
        # Through the GIN index only: first whether any reading is there at all (a shared index of
        # English alone answers that with one lookup), then which.
        check = f"EXISTS (SELECT 1 FROM {_D} d WHERE d.tsv @@ to_tsquery('simple', %s))"
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            row = conn.execute(f"SELECT {check}", [" | ".join(phrases)]).fetchone()
            if row and row[0]:
                row = conn.execute("SELECT " + ", ".join([check] * len(phrases)), phrases).fetchone()
                known.update(zip(asked, (bool(has) for has in row or []), strict=True))
            else:
                known.update(dict.fromkeys(asked, False))
    if not any(known.get(w) for w in readings):
        return [], []
    groups = lexicon.chinese_groups(each, lambda some: [bool(known.get(w)) for w in some])
    return groups, lexicon.words_read(words, each, groups)


def _excluded(conn: psycopg.Connection[Any], exclusions: tuple[query.Node, ...]) -> str | None:
    """The query's exclusions (``-word``) as one tsquery's text, any of them (``None``: none), as the
    local search leaves them out of its weaker evidence (``query.excluded_fts``)."""
    parts = [p for n in exclusions if (p := _tsquery_sql(n)) is not None]
    if not parts:
        return None
    row = conn.execute(
        "SELECT (" + " || ".join(p[0] for p in parts) + ")::text", [v for p in parts for v in p[1]]
    ).fetchone()
    return str(row[0]) if row and row[0] else None


def _without_excluded(
    conn: psycopg.Connection[Any], pool: list[tuple[Conversation, float]], excluded: str
) -> list[tuple[Conversation, float]]:
    """``pool`` without the conversations reported on a turn with an excluded word (as locally)."""
    docs = sorted({h.doc for conv, _ in pool for h in conv.hits})
    if not docs:
        return pool
    rows = conn.execute(f"SELECT id FROM {_D} WHERE id = ANY(%s) AND tsv @@ %s::tsquery", (docs, excluded))
    gone = {int(r[0]) for r in rows}
    return [(conv, score) for conv, score in pool if not any(h.doc in gone for h in conv.hits)]


def _word(text: str) -> query.Term:
    """A word of the any-word pass as a term: ``bea*`` (the word still being typed) a prefix."""
    if text.endswith("*") and text.strip("*"):
        return query.Term(text.rstrip("*"), prefix=True)
    return query.Term(text)


def _present(conn: psycopg.Connection[Any], terms: list[str], prefix: str | None = None) -> list[str]:
    """The words of ``terms`` some doc has; for one none has (a path remembered wrong,
    ``tax/vat_rates.yaml``), those of its parts that some doc has, as the local any-word pass does. The
    word still being typed (``prefix``) is looked for as the start of words, and kept as ``bea*``, when
    the local pass would (:func:`~hermes_trail.index.search.prefix_relaxed`)."""
    terms = [t + "*" if t == prefix else t for t in terms if t != prefix or prefix_relaxed(t)]
    if not terms:
        return []
    found = _exist(conn, [_word(t) for t in terms])
    out: list[str] = []
    for term, there in zip(terms, found, strict=True):
        if there:
            out.append(term)
            continue
        parts = [p for p in _parts(term) if p not in out]
        if len(parts) > 1:
            out += [
                p for p, ok in zip(parts, _exist(conn, [query.Term(p) for p in parts]), strict=True) if ok
            ]
    return list(dict.fromkeys(out))


def _titled(
    conn: psycopg.Connection[Any], words: list[str], filters: SearchFilters, hosts: list[str] | None
) -> list[tuple[Conversation, float]]:
    """Sessions whose title has every word (a substring, through the title's trigram index), reported on
    their first live prompt: strong evidence of their own when the words found few conversations."""
    titled = list(_group([hit for hit, _ in _titled_sessions(conn, words, filters, hosts, True)]).values())
    return evidence_of(titled, [1.0] * len(titled), TITLE_WEIGHT)


def _titles_read_as(
    conn: psycopg.Connection[Any], groups: list[list[str]], filters: SearchFilters, hosts: list[str] | None
) -> list[tuple[Conversation, float]]:
    """Sessions whose titles have the words of a Chinese or Japanese question read as English, by the
    square of the share of the question each has, as locally (:func:`search.title_shares`)."""
    words = list(dict.fromkeys(w for group in groups for w in group))
    if len(groups) < 2 or not words:
        return []
    found = _titled_sessions(conn, words, filters, hosts, every=False)
    shares = title_shares(((i, title) for i, (_, title) in enumerate(found)), groups)
    return titled_evidence([(found[i][0], share) for i, share in shares.items()], _group)


def _titled_sessions(
    conn: psycopg.Connection[Any],
    words: list[str],
    filters: SearchFilters,
    hosts: list[str] | None,
    every: bool,
) -> list[tuple[FleetHit, str]]:
    """Sessions whose title has every one of ``words`` (or, not ``every``, any of them), each a hit on its
    first live prompt, with its title; at most :data:`TITLED`, newest first, then in the order they were
    pushed, as the local search lists them."""
    if not words or filters.role or filters.tool or filters.since is not None or filters.until is not None:
        return []
    others: list[str] = []
    params: list[Any] = []
    if hosts:
        others.append("s.host = ANY(%s)")
        params.append(list(hosts))
    on_sessions, more = _on_sessions(filters).clauses("%s")  # project, profile, source, session
    others += on_sessions
    params += more

    def titled(title: str, folded: Callable[[str], str]) -> list[int]:
        """The titles (``title``: the column as matched) with each word's start (``folded`` as matched),
        newest first; those with the word in some form, as locally."""
        likes = [f"{title} ILIKE %s" for _ in words]
        clauses = [*(likes if every else ["(" + " OR ".join(likes) + ")"]), *others]
        patterns = ["%" + like(plan.title_part(folded(w))) + "%" for w in words]
        sql = f"SELECT s.id, s.title FROM {_S} s WHERE {' AND '.join(clauses)} ORDER BY s.id DESC"
        rows = conn.execute(sql, [*patterns, *params])
        return [sess for sess, found in rows if titled_with(found, words, every)][:TITLED]

    chosen = titled("s.title", str)
    if not chosen and every:
        # None as written: the titles folded as the local index folds them, as locally ("muller" in
        # "Termin bei Müller"; ILIKE is blind to accents).
        chosen = titled(folding.translate_sql("s.title"), plan.folded_title)
    if not chosen:
        return []
    sql = (
        f"SELECT {_DOC_COLUMNS} FROM {_S} s CROSS JOIN LATERAL (SELECT * FROM {_D} d WHERE d.sess = s.id "
        "ORDER BY (d.kind = 'prompt' AND NOT d.rewound) DESC, d.seq LIMIT 1) d WHERE s.id = ANY(%s)"
    )
    rows = sorted(conn.execute(sql, [chosen]).fetchall(), key=lambda r: int(r[1]))
    sessions = _sessions(conn, {int(r[1]) for r in rows})
    out: list[tuple[FleetHit, str]] = []
    for r in rows:
        session = sessions[int(r[1])]
        hit = _hit(r, session, SESSION_WEIGHT.get(session[7], 1.0))
        out.append((hit, hit.title or ""))
    return out


# -- the search ------------------------------------------------------------------------------------------
def search(
    dsn: str,
    text: str,
    filters: SearchFilters | None = None,
    hosts: list[str] | None = None,
    limit: int = 20,
    per_conversation: int = 3,
    snippet_chars: int = 160,
    conn: psycopg.Connection[Any] | None = None,
) -> SearchResult:
    """Search the shared index at ``dsn`` for ``text`` (anything a person types), in the hosts named
    (every host when ``None``). Same result as the local search, each hit a :class:`FleetHit`.

    :param conn: an open connection to use (a long-lived caller); else one is opened and closed.
    :raises FleetError: the database cannot be reached or read, or is not migrated.
    """
    import psycopg

    started = time.perf_counter()
    filters = filters or SearchFilters()
    own = conn is None
    conn = connect(dsn) if conn is None else conn
    asking = _ASKED.set({})
    try:
        info = schema.require(conn, dsn)
        shared = conn  # one connection for both passes of a question that names a time

        def answer(asked: str, kept: SearchFilters) -> SearchResult:
            at = started if asked == text else time.perf_counter()
            return _search(shared, info, asked, kept, hosts, limit, per_conversation, snippet_chars, at)

        def listing(kept: SearchFilters) -> SearchResult:
            return _in_window(shared, text, kept, hosts, limit, per_conversation, snippet_chars)

        if (named := session_named(text)) is not None:  # a session id pasted: that conversation (as locally)
            found = _in_window(conn, text, filters, hosts, limit, per_conversation, snippet_chars, named)
            if found.conversations:
                found.session = named
                return found
        return when.answered(text, filters, answer, listing, limit)
    except psycopg.Error as exc:
        raise FleetError(f"{dsns.shown(dsn)}: search failed ({clean(exc, dsn)})") from exc
    finally:
        _ASKED.reset(asking)
        if own:
            conn.close()


def _search(
    conn: psycopg.Connection[Any],
    info: schema.Info,
    text: str,
    filters: SearchFilters,
    hosts: list[str] | None,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
    started: float,
) -> SearchResult:
    reading = _plan(conn, text, checked=False)
    rows, windowed = _candidates(conn, reading, filters, hosts)
    edit_lift = asked_file_lift(text)
    hits = _scored(conn, rows, edit_lift)
    if len(_group(hits)) < RELAX_BELOW:
        checked = _plan(conn, text, checked=True)
        if checked.missing:
            # As locally: no conversation has every word, so none is ranked as having them; the words
            # that exist are the any-word pass's, weighed by how much of the query they cover.
            hits, windowed, rows = [], False, []
        elif (checked.tsquery, checked.trigram) != (reading.tsquery, reading.trigram):
            rows, windowed = _candidates(conn, checked, filters, hosts)
            hits = _scored(conn, rows, edit_lift)
        reading = checked
        if checked.places is not None:  # names of places alone: their conversations (as locally)
            at_places = _of_places(
                conn, text, checked.places, filters, hosts, limit, per_conversation, snippet_chars
            )
            at_places.seconds = time.perf_counter() - started
            if at_places.conversations:
                return at_places
    terms = reading.terms
    as_hits: list[Hit] = list(hits)
    lift_edits(as_hits, terms)
    matched = {h.doc for h in hits}
    groups = _group(hits)
    # How well each conversation with every word answers them, before any fusion rescales it.
    answered = {key: conversation_score(conv.hits) for key, conv in groups.items()}
    ordered = sorted(groups.values(), key=lambda c: answered[(c.store, c.root)], reverse=True)
    meaning: dict[tuple[str, str], float] = {}  # each conversation's standing in the meaning pass
    typed = [t for t in reading.meant if t not in reading.dropped]
    _lift_titles(ordered, typed)
    few = len(groups) < RELAX_BELOW
    unencoded: int | None = None
    missing = reading.missing
    unfound = reading.unfound
    read_as: list[str] = []
    read_in_chinese: list[str] = []
    if few:
        # Sessions whose titles have the words typed (or, when some are nowhere, the words that exist):
        # a title with the words answers, and nothing is said missing.
        pool = _titled(conn, typed, filters, hosts)
        if pool:
            missing = unfound = []
        elif reading.missing and len(found := [t for t in terms if t.strip()]) >= 2:
            pool = _titled(conn, found, filters, hosts)
        pool += evidence_of(ordered, [conversation_score(c.hits) for c in ordered], STRICT_WEIGHT)
        ordered = []
        words = _present(
            conn,
            [t for t in terms if any(c.isalnum() for c in t) and not cjk.has_cjk(t)],
            prefix=reading.prefix,
        )
        coverage = len(terms) / (len(terms) + len(reading.missing)) if terms else 1.0
        excluded = _excluded(conn, reading.exclusions)
        most_covered = 0  # the most of the question's words one conversation has, in the English list
        if len(words) >= (1 if not groups else 2):
            # A name its marks make (``c++``) is a list of its own, of the docs that write it so (as
            # locally): among the other words it was any doc with a "c".
            plain = [w for w in words if not query.is_marked_name(w)]
            lists: list[tuple[list[str], tuple[str, ...]]] = [(plain, ())] if plain else []
            lists += [([w], (w.lower(),)) for w in words if query.is_marked_name(w)]
            for some, names in lists:
                evidence, docs, covered = _any_words(
                    conn,
                    some,
                    filters,
                    hosts,
                    info,
                    coverage,
                    excluded=excluded,
                    marked=names,
                    edit_lift=edit_lift,
                )
                pool += evidence
                matched |= docs
                most_covered = max(most_covered, covered)
        # A Chinese or Japanese question's bigrams, any of them, each conversation by the share of the
        # question's it holds, as locally.
        grams = plan.run_bigrams(cjk.question_runs(terms))
        if len(grams) >= (1 if not groups else 2):  # one bigram ("部署") as one word, as locally
            evidence, docs, _ = _any_words(
                conn,
                grams,
                filters,
                hosts,
                info,
                coverage,
                cut=COVERAGE_BIGRAMS,
                shares_after=True,
                edit_lift=edit_lift,
                titled=False,
            )
            pool += evidence
            matched |= docs
        # A Chinese or Japanese question's words read as English, as locally: its runs cut at their
        # particles and question words first.
        runs = cjk.question_runs(typed)
        readings = lexicon.english_groups(runs, lambda some: _exist(conn, [query.Term(w) for w in some]))
        if not readings and not runs:
            # An English question's words read as Chinese, as locally.
            readings, read_across = _in_chinese(conn, lexicon.question_words(typed))
            read_in_chinese = lexicon.interleaved(readings)
            missing = lexicon.still_missing(missing, read_across)
        elif readings:
            read_as = lexicon.interleaved(readings)
            own = [[t] for t in typed if not cjk.has_cjk(t)]
            pool += _titles_read_as(conn, [*readings, *own], filters, hosts)
            missing = lexicon.unread(missing, readings)
        if readings:
            evidence, docs, _ = _any_words(
                conn,
                read_as or read_in_chinese,
                filters,
                hosts,
                info,
                coverage,
                TRANSLATED_WEIGHT,
                readings,
                excluded=excluded,
                against=most_covered if read_in_chinese else None,
                edit_lift=edit_lift,
                titled=not read_in_chinese,
            )
            pool += evidence
            matched |= docs
        # What the sentence model reads, as locally (spelling.for_the_model).
        model_words = spelling.for_the_model(text, reading.typed, reading.spelled)
        if info.vector and (meaning_text := " ".join(query.as_typed(text, model_words)).strip()):
            weight = meaning_weight(reading.typed, reading.dropped)
            near, meaning, unencoded = _meaning(conn, meaning_text, filters, hosts, info, weight)
            pool += near
            if read_as:  # the dictionary's English reading, read by the model too, as locally
                near, read, _ = _meaning(
                    conn, " ".join(read_as), filters, hosts, info, weight * TRANSLATED_WEIGHT
                )
                pool += near
                for key, z in read.items():
                    meaning[key] = max(z, meaning.get(key, z))
            if unencoded is None:
                row = conn.execute(f"SELECT count(*) FROM {_S} WHERE passages = 0").fetchone()
                unencoded = int(row[0]) if row else None
        if excluded is not None:
            pool = _without_excluded(conn, pool, excluded)
        if pool:
            ordered = fused(pool, floor=1.0, about_user=stopwords.speaks_of_self(reading.typed))
    lift_profiles(ordered, list(reading.profiles), list(reading.sources), list(reading.projects))
    asked = about_terms(terms, text)
    ordered = _newest_first(
        conn,
        ordered,
        asked,
        meaning,
        answered,
        asks_present(reading.typed),
        asks_now(reading.typed),
        filters=filters,
        hosts=hosts,
    )
    ordered = ordered[:limit]
    conversations = []
    for group in ordered:
        group.hits = sorted(group.hits, key=lambda h: h.score, reverse=True)[:per_conversation]
        group.store = group.hits[0].store if group.hits else group.store
        conversations.append(group)
    marked = terms + read_as + read_in_chinese + plan.unfound_words(unfound)
    _snippets(conn, [h for c in conversations for h in c.hits], marked, snippet_chars)
    _openings(conn, conversations)
    counted = len(matched)
    result = SearchResult(
        text, conversations, min(counted, COUNT_CAP), windowed, time.perf_counter() - started
    )
    result.matches_exact = not windowed and counted < COUNT_CAP
    result.missing = query.as_typed(text, missing + unfound)
    result.dropped, result.prefix = reading.dropped, reading.prefix
    result.unencoded = unencoded
    result.read_as = read_as
    result.read_as_cjk = read_in_chinese
    result.spelled = reading.spelled
    if not conversations:
        result.unmatched = said_unmatched(conn, filters, hosts)
    return result


def _in_window(
    conn: psycopg.Connection[Any],
    text: str,
    filters: SearchFilters,
    hosts: list[str] | None,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
    session_id: str | None = None,
) -> SearchResult:
    """The local index's answer to a question about a time that asks for nothing in particular
    (``index.search._in_window``): the time's conversations, each by its first prompts then; with
    ``session_id``, that session's (a session id pasted as the question: ``index.search._of_session``)."""
    started = time.perf_counter()
    clauses, params = _where(filters, hosts)
    named: list[Any] = [session_id]
    if session_id is not None:
        which = "s.session_id = %s"
    else:
        which = active_in("%s")
        named = [filters.until, filters.since]
    rows = conn.execute(
        f"SELECT {_DOC_COLUMNS} FROM {_S} s JOIN {_D} d ON d.sess = s.id WHERE {which} "
        f"AND d.kind = 'prompt' AND {' AND '.join(clauses) or 'true'} ORDER BY d.time DESC LIMIT %s",
        [*named, *params, LISTED_PROMPTS],
    ).fetchall()
    sessions = _sessions(conn, {int(r[1]) for r in rows})
    hits: list[Hit] = [_hit(r, sessions[int(r[1])], 0.0) for r in rows if int(r[1]) in sessions]
    return listed(
        conn,
        text,
        hits,
        len(rows) < LISTED_PROMPTS,  # the query's LIMIT: exact unless it was reached
        limit,
        per_conversation,
        snippet_chars,
        started,
        group=_group,
        snippets=_snippets,
        openings=_openings,
    )


def _of_places(
    conn: psycopg.Connection[Any],
    text: str,
    places: plan.Places,
    filters: SearchFilters,
    hosts: list[str] | None,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
) -> SearchResult:
    """The local index's answer to a question of places' names alone (``index.search._of_places``): the
    conversations held there, the one active last first, each by its first prompts; every host's apart.
    Nothing for a search kept to a role or a tool, as locally."""
    if filters.role or filters.tool:
        return SearchResult(text, [], 0, False, 0.0)
    clauses, params = _where(_on_sessions(filters), None)
    clauses = [c for c in clauses if not c.startswith("d.")]
    if hosts:
        clauses.append("s.host = ANY(%s)")
        params.append(list(hosts))
    if filters.since is not None and filters.until is not None:  # "discord yesterday": active then
        clauses.append(active_in("%s"))
        params += [filters.until, filters.since]
    for column, named in (("s.source", places.sources), ("s.profile", places.profiles)):
        if named:  # only those sessions' rows read, as locally
            clauses.append(f"{column} = ANY(%s)")
            params.append(list(named))
    rows = conn.execute(
        f"SELECT s.id, s.host, s.store, s.root, s.profile, s.source, s.project FROM {_S} s "
        f"WHERE {' AND '.join(clauses) or 'true'} "
        "ORDER BY coalesce(s.last_activity, s.started) DESC NULLS LAST, s.id DESC",
        params,
    ).fetchall()
    # A conversation of each host apart, as :func:`_group` keeps them.
    shown, every = placed_sessions(((r[0], (r[1], r[2]), *r[3:]) for r in rows), places, limit)
    doc_clauses, doc_params = _where(filters, hosts)
    where = " AND ".join(["d.kind = 'prompt'", *doc_clauses])
    joined = f"FROM {_S} s JOIN {_D} d ON d.sess = s.id WHERE {where} AND d.sess = ANY(%s)"
    row = conn.execute(f"SELECT count(*) {joined}", [*doc_params, every]).fetchone()
    found = conn.execute(
        f"SELECT {_DOC_COLUMNS} {joined} ORDER BY d.time DESC NULLS LAST, d.id DESC", [*doc_params, shown]
    ).fetchall()
    sessions = _sessions(conn, {int(r[1]) for r in found})
    hits: list[Hit] = [_hit(r, sessions[int(r[1])], 0.0) for r in found if int(r[1]) in sessions]
    result = listed(
        conn,
        text,
        hits,
        True,
        limit,
        per_conversation,
        snippet_chars,
        time.perf_counter(),
        group=_group,
        snippets=_snippets,
        openings=_openings,
    )
    result.matches, result.places = int(row[0]) if row else 0, places
    return result


def said_unmatched(
    conn: psycopg.Connection[Any], filters: SearchFilters, hosts: list[str] | None
) -> list[str]:
    """The shared index's ``index.filters.unmatched``: the ``hosts`` asked for that never pushed here, then
    the filters no session of the shared index matches at all."""
    # The shared docs' tools are read from the docs themselves: on a search that found nothing only.
    tools = f"SELECT DISTINCT tool FROM {_D} WHERE tool IS NOT NULL"
    return _unmatched_hosts(conn, hosts) + unmatched(conn, filters, "%s", _S, tools)


def _unmatched_hosts(conn: psycopg.Connection[Any], hosts: list[str] | None) -> list[str]:
    """The ``hosts`` asked for that never pushed here (a typo, a machine that never pushed), said with the
    hosts that did."""
    if not hosts:
        return []
    sql = f"SELECT host FROM {schema.SCHEMA}.hosts WHERE pushed_at IS NOT NULL ORDER BY host"
    known = [str(r[0]) for r in conn.execute(sql)]
    unknown = [h for h in hosts if h not in known]
    if not unknown:
        return []
    there = ", ".join(known) if known else "none yet"
    return [f"no host {', '.join(repr(h) for h in unknown)} has pushed to this shared index (hosts: {there})"]


def _openings(conn: psycopg.Connection[Any], conversations: list[Conversation]) -> None:
    """The local index's headings of untitled conversations (``index.search._openings``): each one's first
    live prompt, from the docs its host pushed (``seq``: their order in the session, by the ``(sess, seq)``
    index)."""
    wanted = untitled_sessions(conversations)
    if not wanted:
        return
    rows = conn.execute(
        f"SELECT d.id, (SELECT p.text FROM {_D} p WHERE p.sess = d.sess AND p.kind = 'prompt' "
        "AND NOT p.rewound AND NOT p.archived ORDER BY p.seq LIMIT 1) "
        f"FROM {_D} d WHERE d.id = ANY(%s)",
        (list(wanted),),
    )
    for doc, text in rows:
        if text and text.strip():
            wanted[int(doc)].opening = opening_line(text)


def _newest_first(
    conn: psycopg.Connection[Any],
    ordered: list[Conversation],
    terms: list[str],
    meaning: dict[tuple[str, str], float],
    answered: dict[tuple[str, str], float],
    present: bool,
    now: bool = False,
    *,
    filters: SearchFilters,
    hosts: list[str] | None,
) -> list[Conversation]:
    """The local rule of the newest fact (:func:`~hermes_trail.index.search.newest_first`: a later
    conversation that says the leader's fact changed leads), over the shared index's texts and counts, and
    its later conversations of people with a turn that has one of each list of words (``restating``, in
    the search's ``filters`` and ``hosts``)."""

    def texts(docs: list[int]) -> dict[int, tuple[str, str]]:
        rows = conn.execute(f"SELECT id, kind, lower(text) FROM {_D} WHERE id = ANY(%s)", (docs,))
        return {int(doc): (str(kind), str(text)) for doc, kind, text in rows}

    def counts(words: list[str]) -> dict[str, int]:  # only up to where a word stops being rare
        return dict(zip(words, _doc_frequencies(conn, words, None, RARE_CAP), strict=True))

    def restating(held: list[str], facts: list[str], after: float) -> list[Conversation]:
        made = _tsquery_sql(query.parse(restating_query(held, facts)).root)
        row = conn.execute(f"SELECT ({made[0]})::text", made[1]).fetchone() if made is not None else None
        if not row or not row[0]:
            return []
        asked = _Plan(row[0], None, [*held, *facts], [], [], [], None, alternatives=True)
        rows, _ = _candidates(conn, asked, filters, hosts)
        return later_of_people(list(_group(_scored(conn, rows)).values()), after)

    return newest_first(ordered, terms, meaning, answered, texts, counts, present, now, restating)


def _snippets(conn: psycopg.Connection[Any], hits: list[Hit], terms: list[str], chars: int) -> None:
    """Each hit's snippet, made as the local search makes it (one read of the texts)."""
    if not hits:
        return
    rows = conn.execute(f"SELECT id, text FROM {_D} WHERE id = ANY(%s)", ([h.doc for h in hits],))
    texts = {int(doc): str(body) for doc, body in rows}
    marker = Highlighter(terms)
    for hit in hits:
        hit.snippet = marker.snippet(texts.get(hit.doc, ""), chars)


def hosts_of(result: SearchResult) -> list[str]:
    """The hosts a result's hits come from, in order of first appearance."""
    return list(
        dict.fromkeys(h.host for c in result.conversations for h in c.hits if isinstance(h, FleetHit))
    )


def completed(conn: psycopg.Connection[Any], result: SearchResult, terms: list[str]) -> SearchResult:
    """``result`` made ready for a recall page as the local one is (:func:`hermes_trail.recall.complete_with`:
    the reply that answered the best-matching prompt, a summary without Hermes' preamble), read from the
    shared index: a doc's session is its ``sess``."""
    from hermes_trail.recall import AFTER_PROMPT, complete_with

    def text_of(doc: int) -> str:
        row = conn.execute(f"SELECT text FROM {_D} WHERE id = %s", (doc,)).fetchone()
        return str(row[0]) if row else ""

    def after(prompt: Hit) -> list[tuple[Any, ...]]:
        return conn.execute(
            f"SELECT d.id, d.row, d.part, d.role, d.kind, d.time, d.text FROM {_D} d "
            f"WHERE d.sess = (SELECT p.sess FROM {_D} p WHERE p.id = %s) AND NOT d.rewound "
            f"AND (d.row > %s OR (d.row = %s AND d.part > %s)) ORDER BY d.row, d.part LIMIT {AFTER_PROMPT}",
            (prompt.doc, prompt.row, prompt.row, prompt.part),
        ).fetchall()

    return complete_with(result, terms, text_of, after)


def named_by_host(result: SearchResult, resume: bool = True) -> SearchResult:
    """A copy of ``result`` whose hits name their host where a person (or an agent's recall page) reads
    them: in the profile (``laptop/default``) and before the command that resumes them (``on laptop:
    hermes --resume …``; left out without ``resume``)."""
    conversations = []
    for conversation in result.conversations:
        hits: list[Hit] = []
        for hit in conversation.hits:
            if isinstance(hit, FleetHit):
                command = f"on {hit.host}: {hit.resume_command}" if resume and hit.resume_command else ""
                hit = _copy(hit, profile=f"{hit.host}/{hit.profile}", resume_command=command)
            hits.append(hit)
        conversations.append(_copy(conversation, hits=hits))
    copied: SearchResult = _copy(result, conversations=conversations)
    return copied


def _copy(record: Any, **changes: Any) -> Any:
    """A copy of a search record with ``changes`` (a written-out record's ``_replace``, a dataclass's
    ``replace``)."""
    if hasattr(record, "_replace"):
        return record._replace(**changes)
    from dataclasses import replace

    return replace(record, **changes)
