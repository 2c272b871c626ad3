"""What a typed query asks of the indexes: the words that carry it, the ones the history lacks, and the word
a person may still be typing.

People type questions, not expressions. Three things go wrong when a query is taken word for word:

- function words ("how", "is", "of", "the") are required of every match and decide the ranking, though
  they are in every turn of every history (:mod:`stopwords`); they are dropped whenever anything else
  was typed;
- one word the history lacks (a typo, another wording) makes the whole conjunction find nothing while
  the other words name exactly one conversation; such a word is dropped and reported, so the answer is
  the conversations with the words that exist, and the person sees which ones were not found;
- the last word of a search typed as you go is unfinished ("kubern"): when it is no word of the index as
  it is, it is read as a prefix.

Each check is one lookup in a full-text index's term list, ``LIMIT 1``: microseconds, whatever the size
of the history. A word is missing only when no index could find it: the word index, the trigram index
for paths and commands (substrings), the bigram index for Chinese and Japanese.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, NamedTuple, TypeVar

from hermes_trail.index import cjk, query, schema, spelling, stopwords, variants
from hermes_trail.model import _Record

# A prefix shorter than this matches too much of any history to mean one word.
PREFIX_MIN = 2


class Places(NamedTuple):
    """Where a question of names alone asks about: profiles, front ends (``sessions.source``) and project
    words (:func:`project_words`). No text says "discord" or "billing", but sessions came from Discord or
    ran in ``~/work/billing-service``: a person who types that name alone asks for those conversations, and
    "No match" answered. A session is in them when it is in one of each kind named."""

    profiles: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    # The words that named them, as typed ("Discord" of "my Discord chats").
    words: tuple[str, ...] = ()

    def described(self) -> str:
        """Where, as a person reads it: "of the profile work", "from the front end discord", "in a project
        named billing", together "of the profile work, from the front end telegram"."""
        parts = []
        for names, one, many in (
            (self.profiles, "of the profile", "of the profiles"),
            (self.sources, "from the front end", "from the front ends"),
            (self.projects, "in a project named", "in projects named"),
        ):
            if names:
                parts.append(f"{one if len(names) == 1 else many} {' or '.join(names)}")
        return ", ".join(parts)

    def explained(self) -> str:
        """What the answer is, said first above it."""
        return f"No turn says {' or '.join(self.words)}: the conversations {self.described()}, newest first."

    def hold(self, profile: str | None, source: str | None, project: str | None) -> bool:
        """Whether a session of that profile, front end and project is in these places."""
        return (
            (not self.profiles or profile in self.profiles)
            and (not self.sources or source in self.sources)
            and (not self.projects or not project_words(project).isdisjoint(self.projects))
        )


# Written out as the model's classes are (``model._Record``): what ``@dataclass`` made, without generating
# and compiling its methods at every start of a ``trail`` command that syncs or searches.
class Plan(_Record):
    """One query, read: what to match in which index, and what to say about the words typed."""

    _fields: ClassVar[tuple[str, ...]] = (
        "parsed",
        "terms",
        "runs",
        "plans",
        "missing",
        "dropped",
        "prefix",
        "typed",
        "profiles",
        "sources",
        "projects",
        "spelled",
        "unfound",
        "beside_runs",
        "prefix_start",
        "places",
    )
    __slots__ = _fields

    parsed: query.Query
    # The words and phrases that rank and mark hits (function words out, unless nothing else was typed).
    terms: list[str]
    # The parts of the query's Chinese and Japanese runs that carry meaning, each matched as a substring.
    runs: list[str]
    # (index table, MATCH expression), in the order the indexes are asked.
    plans: list[tuple[str, str]]
    # Words typed that no index holds (and no word starts with): left out of the match, and reported.
    missing: list[str]
    # Function words left out of the match.
    dropped: list[str]
    # The last word, read as the prefix of a word (the person may still be typing it).
    prefix: str | None
    # Every word and phrase typed to find, as typed: what the meaning of the query is read from.
    typed: list[str]
    # Profiles the query names ("what did the bot say", "the work billing service"): their conversations
    # rank first; the name itself is not required of a match.
    profiles: list[str]
    # Front ends the query names with a word no text has ("the discord forecast branch"): their
    # conversations rank first, as a profile's do; the word is not missing.
    sources: list[str]
    # Words of projects' directory names the query says with a word no text has ("the failed invoices in
    # billing": ``~/work/billing-service``): their conversations rank first, as a front end's do.
    projects: list[str]
    # Words no index holds, each with the words one slip away from it that the history has, which stand
    # for it (:mod:`spelling`): "kubernets" read as kubernetes. Such a word is not missing.
    spelled: dict[str, list[str]]
    # Quoted phrases no doc has as typed (their words may be there, apart), with their quotes: said with
    # the missing words, though the words they have still answer and weigh as found.
    unfound: list[str]
    # The word-index expression of the other words a question with Chinese, Japanese or Korean runs asks
    # every match to have: a doc the bigram index finds by the runs alone must have them too.
    beside_runs: str | None
    # The start of :attr:`prefix` the word index is asked for in its place, when Porter reads the prefix as
    # another word (:func:`safe_start`: "pay" as pai); a match must still have a word starting as typed.
    prefix_start: str | None
    # The profiles, front ends and projects a question of their names alone names ("discord", "work
    # telegram"): no text has its words, the answer is the conversations held there (:func:`naming_places`).
    places: Places | None

    def __init__(
        self,
        parsed: query.Query,
        terms: list[str],
        runs: list[str],
        plans: list[tuple[str, str]] | None = None,
        missing: list[str] | None = None,
        dropped: list[str] | None = None,
        prefix: str | None = None,
        typed: list[str] | None = None,
        profiles: list[str] | None = None,
        sources: list[str] | None = None,
        projects: list[str] | None = None,
        spelled: dict[str, list[str]] | None = None,
        unfound: list[str] | None = None,
        beside_runs: str | None = None,
        prefix_start: str | None = None,
        places: Places | None = None,
    ) -> None:
        self.parsed = parsed
        self.terms = terms
        self.runs = runs
        self.plans = [] if plans is None else plans
        self.missing = [] if missing is None else missing
        self.dropped = [] if dropped is None else dropped
        self.prefix = prefix
        self.typed = [] if typed is None else typed
        self.profiles = [] if profiles is None else profiles
        self.sources = [] if sources is None else sources
        self.projects = [] if projects is None else projects
        self.spelled = {} if spelled is None else spelled
        self.beside_runs = beside_runs
        self.unfound = [] if unfound is None else unfound
        self.prefix_start = prefix_start
        self.places = places

    @property
    def meant(self) -> list[str]:
        """The words typed, each typed wrong as the first word read for it (:func:`spelling.meant`)."""
        return spelling.meant(self.typed, self.spelled)


def unfound_words(unfound: list[str]) -> list[str]:
    """The words that carry the quoted phrases no doc has (:attr:`Plan.unfound`, with their quotes): what
    answered in their place, and what a snippet marks (it marked the phrase alone, so nothing, and the web
    page took the answers for ones only near in meaning)."""
    words = [w for phrase in unfound for w in re.findall(r"\w+", phrase)]
    return [w for w in dict.fromkeys(words) if not stopwords.is_stopword(w, words)]


def exists(conn: sqlite3.Connection, table: str, expression: str) -> bool:
    """Whether any doc of the full-text index ``table`` matches: one term-list lookup, ``LIMIT 1``."""
    sql = f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1"
    return conn.execute(sql, (expression,)).fetchone() is not None


_MARKED: dict[tuple[Any, ...], bool] = {}


def holds_marked(conn: sqlite3.Connection, name: str) -> bool:
    """Whether any doc writes ``name``, a name whose marks the word index drops (``C++``: it holds "c"),
    with its marks: a doc with the letters must have them (or the commands' trigram index has it). Kept
    until the index's sessions change: a name no doc writes is looked for in the text of every doc with
    its letters (45 ms for "c#" at a million messages), and a search asks twice or three times."""
    key = (*schema.state_key(conn, "sessions_version"), name.lower())
    if key not in _MARKED:
        if len(_MARKED) > 64:
            _MARKED.clear()
        _MARKED[key] = _holds_marked(conn, name)
    return _MARKED[key]


def _holds_marked(conn: sqlite3.Connection, name: str) -> bool:
    starting_words(conn)
    letters = query.leaf_fts(query.Term(name))
    sql = (
        "SELECT 1 FROM docs_fts f JOIN docs d ON d.id = f.rowid "
        "WHERE docs_fts MATCH ? AND trail_word_start(d.text, ?) LIMIT 1"
    )
    if letters is not None and conn.execute(sql, (letters, name.lower())).fetchone() is not None:
        return True
    commands = query.leaf_fts(query.Term(name)) or '""'
    return len(name) >= query.TRIGRAM_MIN and exists(conn, "docs_tri", commands)


def has_word(text: str | None, start: str) -> bool:
    """Whether ``text`` has a word beginning with ``start`` (lower case): where the word index's tokenizer
    starts a word (after anything but a letter or digit, ``_`` included), accents left out as it leaves
    them out."""
    if not text:
        return False
    lowered = text.lower()
    if _word_at(lowered, start):
        return True
    if lowered.isascii() and start.isascii():
        return False
    # Both as the word index reads them: accents left out, and Turkish ı as the i typed for it
    # ("başarısı" typed on is the start of "başarısız", read as basarisiz, as "basarisi" is).
    return _word_at(stopwords.fold(cjk.narrowed(lowered)), stopwords.fold(cjk.narrowed(start)))


def _word_at(lowered: str, start: str) -> bool:
    at = lowered.find(start)
    while at >= 0:
        # A word starts after a run of Chinese, Japanese or Korean too ("用docker部署"), as the word index
        # reads the text (``cjk.spaced``).
        before = lowered[at - 1] if at else " "
        if not before.isalnum() or (not before.isascii() and cjk.has_cjk(before)):
            return True
        at = lowered.find(start, at + 1)
    return False


def starting_words(conn: sqlite3.Connection) -> None:
    """Give ``conn`` the SQL function ``trail_word_start(text, start)`` (:func:`has_word`)."""
    conn.create_function("trail_word_start", 2, has_word, deterministic=True)


_STEMMER: list[sqlite3.Connection] = []
_STEMMING = threading.Lock()


@functools.lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """``word`` as the word index holds it: its Porter stem, lower case, made by SQLite's own tokenizer (a
    table of one row in memory, kept for the process); ``word`` itself when it is more than one token. Kept
    per word: a search asks it of its last word two or three times."""
    with _STEMMING:
        if not _STEMMER:
            memory = sqlite3.connect(":memory:", check_same_thread=False)
            memory.execute(f"CREATE VIRTUAL TABLE s USING fts5(x, tokenize={schema.WORD_TOKENIZER!r})")
            memory.execute("CREATE VIRTUAL TABLE v USING fts5vocab(s, row)")
            _STEMMER.append(memory)
        memory = _STEMMER[0]
        memory.execute("DELETE FROM s")
        memory.execute("INSERT INTO s VALUES (?)", (word,))
        found = memory.execute("SELECT term FROM v").fetchall()
    return str(found[0][0]) if len(found) == 1 else word.lower()


# The shortest start of a word a title is searched for by its stem: shorter ones are in too many titles.
TITLE_STEM_MIN = 3
_TITLE_WORDS = re.compile(r"\w+")


def title_part(word: str) -> str:
    """What every title that has ``word`` in some form has, as a substring: the start the word shares with
    its stem, less the letter an ending changes ("city" and "cities" both have "cit", "make" and "making"
    "mak"); the word itself (lower case) when that start is short or the word is not an English one. The
    titles' own index is read with it (a ``LIKE``, an ``ILIKE``) and :func:`title_has` decides."""
    low = word.casefold()
    if not (low.isascii() and low.isalpha()) or len(low) <= TITLE_STEM_MIN:
        return low
    root = stem(low)
    start = shared_start(low, root)
    if start == root and root[-1] in "eiy":  # "make" and "making", "batteri" and "battery"
        start = start[:-1]
    return start if len(start) >= TITLE_STEM_MIN else low


def shared_start(word: str, root: str) -> str:
    """The start ``word`` shares with ``root`` (its stem): what every form of it begins with but for the
    letter an ending changes ("backed", back; "pay", pa of pai)."""
    return word[: next((at for at, (a, b) in enumerate(zip(word, root, strict=False)) if a != b), len(root))]


def folded_title(text: str) -> str:
    """``text`` case-folded, its letters past ASCII as the word index folds them ("Müller" as muller,
    "Déploiement" as deploiement: ``fleet.folding``'s table of FTS5's ``remove_diacritics``; "Bağlantı" as
    baglanti, ``cjk.UNFOLDED``), which the shared index's titles are folded with too: a title is matched
    by a word typed without its accents. A word or title with Indic marks has them as written, and one
    with Arabic's or Hebrew's points none (``cjk.marks_back``): a question's words come read with their
    marks as other characters, and a title "सर्वर की किताब" had no "किताब" then."""
    low = text.casefold()
    if low.isascii():
        return low
    from hermes_trail.fleet import folding

    return cjk.marks_back(cjk.narrowed(low)).translate(folding.title_table())


def title_has(title: str, word: str) -> bool:
    """Whether ``title`` has ``word``: as typed, anywhere (the word a person is still typing counts), or in
    another form of it, a word of the title with the same stem ("Capital cities" has "city", "Making the
    release" has "make"). A title is what a person remembers a session by, in their own form of a word."""
    low, words = folded_title(word), folded_title(title)
    if low in words:
        return True
    part = title_part(low)
    if part == low:
        return False
    root = stem(low)
    return any(stem(w) == root for w in _TITLE_WORDS.findall(words) if w.startswith(part))


def title_names(title: str, word: str) -> bool:
    """Whether ``title`` names ``word``: as a word of its own or another form of it (the same stem), not
    a word that holds it ("reload" does not name "load"), nor a word it only starts, as :func:`title_has`
    reads the word a person is still typing. Chinese or Japanese words anywhere, as they have no spaces;
    a word of several as its run of words."""
    low, parts, part, root = _title_word(word)
    folded = folded_title(title)
    if cjk.has_cjk(low):
        return low in folded
    if len(parts) != 1:
        return bool(parts) and f" {' '.join(parts)} " in f" {' '.join(_TITLE_WORDS.findall(folded))} "
    # Every form of the word starts as :func:`title_part` says: most titles have no such start at all.
    if part not in folded:
        return False
    return any(w == low or stem(w) == root for w in _TITLE_WORDS.findall(folded) if w.startswith(part))


@functools.lru_cache(maxsize=4096)
def _title_word(word: str) -> tuple[str, tuple[str, ...], str, str]:
    """``word`` as :func:`title_names` reads it, made once however many titles it is read in: folded, its
    words, the start every form of it has (:func:`title_part`) and its stem (a one-word word's)."""
    low = folded_title(word)
    parts = tuple(_TITLE_WORDS.findall(low))
    if len(parts) != 1 or cjk.has_cjk(low):
        return low, parts, low, low
    return parts[0], parts, title_part(parts[0]), stem(parts[0])


def stemmed_away(term: query.Term) -> bool:
    """Whether the last word typed is the start of a word, though its stem is a word: a function word
    ("ins": in, "fors": for, "ons": on), which no one types with an s to mean it. The word index holds
    words by their Porter stems and stems what is looked for too, so the start of "install" being typed
    was read as the word "in". A stem that is a word of content ("logs": log, "indexes": index) is the
    word typed, in another form."""
    word = term.text.lower()
    if term.prefix or not word.isascii() or not word.isalpha() or len(word) < PREFIX_MIN:
        return False
    root = stem(word)
    return root != word and stopwords.is_stopword(root, [root])


def respelled(conn: sqlite3.Connection, word: str) -> list[str]:
    """The words one slip away from ``word`` that the word index holds, which stand for it
    (:func:`spelling.respelled`)."""

    def fts(spelled: str) -> str:
        return query.leaf_fts(query.Term(spelled)) or '""'

    def counts(words: list[str]) -> list[int]:
        sql = "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)"
        return [int(conn.execute(sql, (fts(w), spelling.COUNTED)).fetchone()[0]) for w in words]

    def texts(spelled: str) -> list[str]:
        return _texts(conn, fts(spelled))

    def there(words: list[str]) -> list[str]:
        return [w for w in words if exists(conn, "docs_fts", fts(w))]

    return spelling.respelled(word, there, counts, texts, stem)


# A word of a question in another language than English shorter than this is not read as a word of English
# one slip away ("Frist" as first, "bevor" as before, "lange" as language): it is a word of that language the
# history lacks. A longer one may be a word of software typed wrong ("deploymnet").
FOREIGN_SLIP_FROM = 8


def slips_for(question: str, respell: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """``respell`` (the words one slip away from a word an index lacks) as ``question`` may mean it: in a
    question in another language than English (its function words tell), a short word is no slip of an
    English word (:data:`FOREIGN_SLIP_FROM`)."""
    if stopwords.language(question) in ("en", "cjk"):
        return respell

    def read(word: str) -> list[str]:
        words = respell(word)
        return words if len(word) >= FOREIGN_SLIP_FROM else [w for w in words if not spelling.known(w)]

    return read


def _there(conn: sqlite3.Connection, readings: list[variants.Reading]) -> list[bool]:
    """Which of ``readings`` some doc of the word index has."""
    return [exists(conn, "docs_fts", query.leaf_fts(r) or '""') for r in readings]


def local_variant(
    conn: sqlite3.Connection, term: query.Term, tiers: list[list[variants.Reading]]
) -> tuple[query.Node, list[str]] | None:
    """The first of ``tiers`` (:mod:`variants`: ``term`` written otherwise, or in another form) the word
    index has, and how it writes it (:func:`variants.found`)."""

    def texts(reading: variants.Reading) -> list[str]:
        return _texts(conn, query.leaf_fts(reading) or '""')

    return variants.found(term, tiers, functools.partial(_there, conn), texts)


Joined = list[tuple[list[query.Term], query.Term]]


def joined(
    text: str,
    plain: list[query.Term],
    missing: list[str],
    there: Callable[[list[variants.Reading]], list[bool]],
) -> Joined:
    """The query's words side by side, one of them missing, that an index has as one word (``there``:
    which of some words it has), each run with its word (:func:`variants.together`: "format date" for a
    ``formatDate``); a word in one run only, the longest first."""
    runs = variants.together(text, [t.text for t in plain], set(missing))
    taken: set[int] = set()
    out: Joined = []
    for (start, end, word), has in zip(runs, there([w for _, _, w in runs]) if runs else [], strict=True):
        if has and not taken.intersection(range(start, end)):
            taken.update(range(start, end))
            out.append((plain[start:end], word))
    return out


def take_joined(
    runs: Joined,
    change: dict[query.Term, query.Node | None],
    spelled: dict[str, list[str]],
    missing: list[str],
    dropped: list[str],
) -> tuple[list[str], list[str]]:
    """Each run of :func:`joined` asked as its one word, and said as a word written otherwise is ("Not
    found: format date; searched for formatdate."): its words are neither missing nor dropped."""
    for run, word in runs:
        change[run[0]] = word
        change.update((t, None) for t in run[1:])
        spelled[" ".join(t.text for t in run)] = [word.text]
        said = {t.text for t in run}
        missing = [w for w in missing if w not in said]
        dropped = [w for w in dropped if w not in said]
    return missing, dropped


Variant = Callable[[query.Term, list[list[variants.Reading]]], tuple[query.Node, list[str]] | None]


def stand_ins(
    word: str, holds: Callable[[str], bool], variant: Variant, respell: Callable[[str], list[str]]
) -> list[str]:
    """The words that stand for ``word`` in an index that lacks it (``holds``: whether it has a word): as
    it writes it otherwise (``variant``: :func:`local_variant`, its tiers of :func:`variants.readings`),
    then one slip away (``respell``: :func:`respelled`), then apart (:func:`variants.apart`), then as the
    start of a compound (:func:`variants.starts`: "Sicherung", Sicherungskopie), in the order a search
    reads them; none when it has ``word`` itself. What ``trail how`` and ``trail fix`` ask for in its
    place, by one rule for the local index and the shared one."""
    first, later = variants.readings(word), variants.apart(word, last=False) + variants.starts(word)
    if not (spelling.wanted(word) or first or later) or holds(word):
        return []
    if first and (read := variant(query.Term(word), first)) is not None:
        return read[1]
    if words := respell(word):
        return words
    read = variant(query.Term(word), later) if later else None
    return read[1] if read is not None else []


def stood_for(
    term: query.Term,
    last: bool,
    question: str,
    variant: Variant,
    have: Callable[[list[query.Term]], list[bool]],
    holds: Callable[[str], bool],
    respell: Callable[[str], list[str]],
) -> tuple[query.Node, list[str], list[str]] | None:
    """What a search asks in place of ``term``, a word of ``question`` no index holds as typed, by one
    rule for the local index and the shared one (``variant``: :func:`local_variant` or the shared index's;
    ``have``: which of some words it has; ``holds``: whether it has one; ``respell``: the words one slip
    away it has): the node, the words it is said as (``spelled``; none for a compound's parts), and the
    words of it still missing; ``None`` when nothing stands for it. In this order:

    - as the history writes it otherwise ("e-mail": email, "mueller": Müller, "colour": color);
    - a name of code with a word of it typed wrong, mended ("parse_confg_file": parse_config_file);
    - a hyphenated word the history does not have as one (``Hugo-Build``, ``Push-Benachrichtigungen``):
      the parts it has, each on its own, the others missing;
    - one slip away;
    - apart ("email": e-mail, "precommit": pre-commit), or a word of another language in another form
      than the history's ("серверы": сервер, сервера)."""
    if (read := variant(term, variants.readings(term.text))) is not None:
        return read[0], read[1], []
    if (mended := mended_name(term.text, holds, respell)) is not None and (
        read := variant(term, [[mended]])
    ) is not None:
        return read[0], read[1], []
    parts = compound_parts(term.text)
    having = [part for part, has in zip(parts, have(parts) if parts else [], strict=True) if has]
    if having:
        node = having[0] if len(having) == 1 else query.And(tuple(having))
        return node, [], [part.text for part in parts if part not in having]
    if words := respell(term.text):
        return either(words), words, []
    later = variants.apart(term.text, last) + (
        variants.inflections(term.text) if inflectable(term.text, question) else []
    )
    if (read := variant(term, later)) is not None:
        return read[0], read[1], []
    return None


def read_as_starts(
    missing: list[str],
    kept: list[query.Term],
    change: dict[query.Term, query.Node | None],
    spelled: dict[str, list[str]],
    variant: Variant,
) -> list[str]:
    """Of the words still ``missing`` once every other reading was tried (its words side by side as one
    name too: "format date" is formatDate, not "format" as its start), each the history has as the start of
    a longer word (:func:`variants.starts`: "Zugang" of Zugangsdaten) read so, in ``change`` and
    ``spelled``; the words left missing. One rule for the local index and the shared one."""
    left: list[str] = []
    for word in missing:
        term = next((t for t in kept if t.text == word), None)
        read = variant(term, variants.starts(word)) if term is not None else None
        if term is None or read is None:
            left.append(word)
            continue
        change[term], spelled[word] = read
    return left


def inflectable(word: str, question: str) -> bool:
    """Whether ``word`` may be a form of another word of the history in a language the word index does not
    stem (:func:`variants.inflections`): one past ASCII (Cyrillic, Greek, Latin with accents), or any word
    of a question in another language than English that the index holds the words of ("die Servern":
    Server). Not a word of ASCII letters in an English question: English's words the dictionary lacks
    were read as their start too ("picker" as picked, "telly" as tell: four answers of the recall
    benchmark's tuning questions moved, one from fourth to seventh), and the word index finds a start by
    its Porter stem ("picke" as pick)."""
    return not word.isascii() or stopwords.language(question) not in ("en", "cjk")


def _texts(conn: sqlite3.Connection, expression: str) -> list[str]:
    """The texts of the first :data:`~hermes_trail.index.spelling.READ` docs the word index finds for
    ``expression``, in the order they were written: how the history writes what was found."""
    sql = "SELECT d.text FROM docs_fts f JOIN docs d ON d.id = f.rowid WHERE docs_fts MATCH ? LIMIT ?"
    return [r[0] for r in conn.execute(sql, (expression, spelling.READ))]


def flag_written(texts: list[str], word: str, flag: str) -> bool:
    """Whether ``texts`` (docs with the phrase of ``word`` and ``flag``) write ``word -flag``, a command
    with its flag (:func:`query.with_flags`), not the two words apart; ``word`` empty: ``-flag`` after any
    word, or none."""
    before = rf"(?<![^\W_]){re.escape(word)}[ \t]+" if word else r"(?<!\S)"
    return any(re.search(rf"{before}-{re.escape(flag)}(?![^\W_])", t, re.IGNORECASE) for t in texts)


def flag_leaf(word: str, flag: str) -> query.Term | query.Phrase:
    """What docs that may write ``word -flag`` have (:func:`flag_written`): the phrase of the two, or the
    flag's word."""
    return query.Phrase(f"{word} {flag}") if word else query.Term(flag)


def flag_in(conn: sqlite3.Connection, word: str, flag: str) -> bool:
    """Whether the history writes ``word -flag`` (:func:`flag_written`), from the docs with both side by
    side (with the flag's word, ``word`` empty)."""
    expression = query.leaf_fts(flag_leaf(word, flag))
    return expression is not None and flag_written(_texts(conn, expression), word, flag)


def join_clitics(
    kept: list[query.Term],
    change: dict[query.Term, query.Node | None],
    have: Callable[[list[query.Term]], list[bool]],
) -> list[query.Term]:
    """Each word of Arabic or Hebrew of ``kept`` (not a prefix) asked for in ``change`` as typed and as
    joined to its article (:func:`with_clitics`), in the local index and the shared one alike; the words of
    ``kept`` left to read."""
    for term in dict.fromkeys(kept):
        if not term.prefix and (joined_to := with_clitics(term, have)) is not None:
            change[term] = joined_to
    return [t for t in kept if t not in change]


def with_clitics(term: query.Term, have: Callable[[list[query.Term]], list[bool]]) -> query.Node | None:
    """A word of Arabic or Hebrew the index has as typed, and its forms with an article or particle joined
    before it that the index has too (:func:`variants.clitic_forms`), any of them: "خادم" found the turn
    that says it bare and not the reply that says "الخادم" (the server), as most of a text writes a noun.
    ``None`` for a word of another script, or one without such forms (the local index and the shared one
    alike: ``have`` says which words each has)."""
    forms = [query.Term(f) for f in variants.clitic_forms(term.text.lower())]
    if not forms or not have([term])[0]:
        return None
    there = [f for f, has in zip(forms, have(forms), strict=True) if has][: variants.MOST_FORMS]
    return query.Or((term, *there)) if there else None


def either(words: list[str]) -> query.Node:
    """Words that stand for one typed (:func:`respelled`) as the node that asks for any of them."""
    return query.Term(words[0]) if len(words) == 1 else query.Or(tuple(map(query.Term, words)))


def _holds(conn: sqlite3.Connection, word: str) -> bool:
    """Whether any index holds ``word``."""
    return _found(conn, query.Term(word))


def _found(conn: sqlite3.Connection, term: query.Term | query.Phrase) -> bool:
    """Whether any index holds ``term`` (a word, or a quoted phrase) as the search would look for it."""
    if cjk.has_cjk(term.text):
        # A run not found as it is is looked for by its bigrams (the search's any-of pass): it is missing
        # only when not one of them is in the history.
        grams = {
            g
            for run in cjk.query_runs(term.text)
            for part in stopwords.cjk_parts(run)
            for g in cjk.bigrams(part)
        }
        return any(exists(conn, "docs_cjk", cjk.run_expression(g)) for g in grams)
    if isinstance(term, query.Term) and query.is_marked_name(term.text):
        return holds_marked(conn, term.text)
    fts = query.leaf_fts(term)
    if fts is not None and exists(conn, "docs_fts", fts):
        return True
    if query.leaf_needs_trigram(term) and len(term.text) >= query.TRIGRAM_MIN:
        return exists(conn, "docs_tri", query.leaf_fts(query.Term(term.text)) or '""')
    return query.nothing_to_find(term)


_PROFILES: dict[tuple[Any, ...], dict[str, str]] = {}


def _profiles(conn: sqlite3.Connection) -> dict[str, str]:
    """The index's profile names other than the default, by their case-folded spelling; read again only
    when the index's sessions changed (its ``build`` id or ``sessions_version``). Read off the stores that
    hold sessions (a session's profile is its store's): a scan of every session row took 13 ms on 10,000
    sessions, at every query of a new process."""
    held = """SELECT DISTINCT profile FROM stores
        WHERE EXISTS (SELECT 1 FROM sessions WHERE sessions.store = stores.key)"""
    return _kept_read(_PROFILES, conn, held, lambda rows: profile_names(r[0] for r in rows))


_T = TypeVar("_T")


def _kept_read(
    cache: dict[tuple[Any, ...], _T],
    conn: sqlite3.Connection,
    sql: str,
    make: Callable[[list[Any]], _T],
) -> _T:
    """What ``make`` makes of the rows ``sql`` reads, kept in ``cache`` until the index's sessions change
    (its ``build`` id or ``sessions_version``)."""
    key = schema.state_key(conn, "sessions_version")
    if key not in cache:
        found = make(conn.execute(sql).fetchall())
        cache.clear()
        cache[key] = found
    return cache[key]


def profile_names(names: Iterable[str | None]) -> dict[str, str]:
    """The profile ``names`` a question's word can name (not the default, not a single letter), by their
    case-folded spelling. The local index and the shared one read them alike."""
    return {n.casefold(): n for n in names if n and n != "default" and len(n) > 1}


def naming_profiles(
    plain: list[query.Term],
    change: dict[query.Term, query.Node | None],
    named: dict[str, str],
    dropped: list[str],
    every: list[Any],
) -> list[query.Term]:
    """The question's words that name a profile (``named``: :func:`profile_names`), marked in ``change`` to
    leave the match when anything else is left to find: such a word says where to look, not what to
    find."""
    profiles = [t for t in plain if t not in change and not t.prefix and t.text.casefold() in named]
    if profiles and len({t.text for t in profiles}) + len(dropped) < len(every):
        change.update((t, None) for t in profiles)
    return profiles


def names_alone(
    parsed: query.Query,
    plain: list[query.Term],
    every: list[Any],
    kept: list[query.Term],
    missing: list[str],
) -> bool:
    """Whether a question is words side by side and nothing else (no phrase, alternative or word left out)
    and the words it asks for (``kept``) are each one no index holds (``missing``, which a place may name)
    or one that asks for nothing in particular ("chats", "discussed": ``when``'s): so "discord chats" and
    "what did I discuss on telegram" ask for a place's conversations as "discord" does
    (:func:`naming_places`)."""
    from hermes_trail.index.when import asks_for_nothing

    absent = set(missing)
    if not absent or {t.text for t in plain} != set(every):
        return False
    if query.phrases(parsed) or query.exclusions(parsed):
        return False
    return all(t.text in absent or asks_for_nothing(t.text) for t in kept)


_PLACES: dict[tuple[Any, ...], tuple[dict[str, str], dict[str, str]]] = {}


def _places(conn: sqlite3.Connection) -> tuple[dict[str, str], dict[str, str]]:
    """The front ends the index's sessions came from (:func:`source_names`) and the words their projects
    are named by (:func:`project_names`), off the index ``sessions_places`` (about 2 ms on 10,000 sessions,
    page cache warm or cold; where a sync has not made it yet, a scan of the session rows with their gists:
    6.5 ms warm, 127 cold); read again only when the sessions changed, and only for a question with a
    word no index holds."""
    return _kept_read(
        _PLACES,
        conn,
        "SELECT DISTINCT source, project FROM sessions",
        lambda rows: (source_names(r[0] for r in rows), project_names(r[1] for r in rows)),
    )


def source_names(names: Iterable[str | None]) -> dict[str, str]:
    """The front ends (``sessions.source``: ``cli``, ``telegram``, ``discord``, ``cron``) a question's word
    can name, by their case-folded spelling (not a single letter). The local index and the shared one read
    them alike."""
    return {n.casefold(): n for n in names if n and len(n) > 1}


def naming_sources(missing: list[str], named: dict[str, str]) -> tuple[list[str], list[str]]:
    """Of the words no index holds (``missing``), the front ends they name (``named``: :func:`source_names`)
    and the words still missing. No text says "discord" in "the discord forecast branch", but a session
    came from Discord: the word says where to look, as a profile's name does, and is not missing."""
    sources = [named[w.casefold()] for w in missing if w.casefold() in named]
    return list(dict.fromkeys(sources)), [w for w in missing if w.casefold() not in named]


# A project that is a directory: an absolute path, one under the home (``~``) or on a drive (``C:\``); not
# ``profiles/<name>`` nor ``hermes``, which name no directory (a session Hermes ran nowhere in particular).
_DIRECTORY = re.compile(r"(?:/|~|[A-Za-z]:[\\/])")
# The directories whose last name is a person's, not a project's.
_HOMES = ("home", "users")


@functools.lru_cache(maxsize=4096)
def project_words(project: str | None) -> frozenset[str]:
    """The words a session's directory is named by, case-folded: its last name whole and each word of it
    ("billing" and "service" for ``/home/ada/work/billing-service``). None for a project that is no
    directory, nor for a home directory (``/home/ada``, ``/root``, ``~``: its name is the user's)."""
    if not project or not _DIRECTORY.match(project):
        return frozenset()
    parts = [p for p in re.split(r"[\\/]+", project) if p and not p.endswith(":")]
    home = len(parts) == 2 and parts[0].casefold() in _HOMES
    if not parts or parts[-1] == "~" or parts == ["root"] or home:
        return frozenset()
    last = parts[-1].casefold()
    words = [w for w in re.split(r"[\W_]+", last) if len(w) > 1 and not w.isdigit()]
    return frozenset([last, *words])


def project_names(projects: Iterable[str | None]) -> dict[str, str]:
    """The words a question can name a project by (:func:`project_words`), each also by its stem
    ("invoices" names ``invoice-api``), to the word as the project has it. The local index and the shared
    one read them alike."""
    named: dict[str, str] = {}
    for project in projects:
        for word in project_words(project):
            named.setdefault(word, word)
            named.setdefault(stem(word), word)
    return named


def naming_projects(missing: list[str], named: dict[str, str]) -> tuple[list[str], list[str]]:
    """Of the words no index holds (``missing``), the project words they name (``named``:
    :func:`project_names`) and the words still missing. No turn says "billing" in "the failed invoices in
    billing", but the session ran in ``~/work/billing-service``: the word says where to look, as a front
    end's name does, and is not missing."""
    found: list[str] = []
    left: list[str] = []
    for word in missing:
        key = word.casefold()
        if (named_as := named.get(key) or named.get(stem(key))) is not None:
            found.append(named_as)
        else:
            left.append(word)
    return list(dict.fromkeys(found)), left


def naming_places(
    missing: list[str],
    profiles: list[query.Term],
    others: bool,
    alone: bool,
    named: dict[str, str],
    places: Callable[[], tuple[dict[str, str], dict[str, str]]],
) -> tuple[list[str], list[str], list[str], Places | None]:
    """Of the words no index holds (``missing``), the front ends and projects they name and the words still
    missing, with ``others`` (other words answer, so the names say where to look among them); and the
    places the question names when it is names alone (``alone``: :func:`names_alone`): the profiles it
    named beside other words (``profiles``, which left the match: :func:`naming_profiles`) or as a word no
    index holds, the front ends and the projects, each word left asking for nothing in particular.
    ``named``: the profile names (:func:`profile_names`); ``places``: the front ends' and projects'
    (:func:`_places`, read only when needed). The local index and the shared one read them alike."""
    from hermes_trail.index.when import asks_for_nothing

    if not others:
        # Names of places are few ("work telegram billing"): a question of more words no index holds is
        # no such question, and the session rows are not read for it (6 ms of a one-shot search on 10,000).
        asked = [w for w in missing if w.casefold() in named or not asks_for_nothing(w)]
        if not alone or not asked or len(asked) > PLACE_WORDS:
            return [], [], missing, None
    named_sources, named_projects = places()
    # A profile's name beside other words left the match already; alone it is a word no index holds.
    by_name = [named[t.text.casefold()] for t in profiles]
    left = missing
    if not others:
        by_name += [named[w.casefold()] for w in missing if w.casefold() in named]
        left = [w for w in missing if w.casefold() not in named]
    sources, left = naming_sources(left, named_sources)
    projects: list[str] = []
    if left:
        projects, left = naming_projects(left, named_projects)
    lone = None
    if alone and all(asks_for_nothing(w) for w in left):
        said = [*(t.text for t in profiles), *(w for w in missing if w not in left)]
        lone = _places_of(by_name, sources, projects, said)
    return (sources, projects, left, lone) if others else ([], [], missing, lone)


def _places_of(
    profiles: list[str], sources: list[str], projects: list[str], said: list[str]
) -> Places | None:
    """The places named (by the words ``said``), unless none is, or one is no place (memory, a skill:
    :data:`_NOT_PLACES`)."""
    if not (profiles or sources or projects) or _NOT_PLACES.intersection(sources):
        return None
    return Places(tuple(dict.fromkeys(profiles)), tuple(sources), tuple(projects), tuple(dict.fromkeys(said)))


# The most names of places a question of them alone has (besides words that ask for nothing in particular).
PLACE_WORDS = 3


# Front ends no question names as a place: Hermes' memory and skills are indexed as sessions of these
# sources, and have no conversations to list.
_NOT_PLACES = frozenset({"memory", "skill"})


# A word of words joined by hyphens or dashes (``variants.JOINERS``) or apostrophes: a possessive or an
# elided article ("landlord's", "l'hôtel", "dell'anno").
_APOSTROPHES = "'\u2019"
_PARTED = re.compile(rf"[^\W_]+(?:[{variants.JOINERS}{_APOSTROPHES}][^\W_]+)+")
_PARTER = re.compile(rf"[{variants.JOINERS}{_APOSTROPHES}]")


# A name of names joined by a colon or an at: a host and its port ("10.0.0.5:5432"), a user and a host
# ("shop@db-01"), an image and its tag ("nginx:1.25"). Not a web address, nor digits alone (14:30, 16:9).
_JOINED_AT = re.compile(r"[^\s:@/\\]+(?:[:@][^\s:@/\\]+)+")


def compound_parts(text: str) -> list[query.Term]:
    """The words of a hyphenated word, or of one with an apostrophe, that carry meaning (none for any other
    word): function words and single characters left out. "landlord's" was missing from a history that
    says "landlord" (the word index reads it as the phrase "landlord s"), and "l'hôtel" from one that says
    "hôtel". So are the names of a name joined by a colon or an at (``10.0.0.5:5432``, pasted from an
    error, where the history says "10.0.0.5", port 5432; ``shop@10.0.0.5``)."""
    if _JOINED_AT.fullmatch(text) and not re.fullmatch(r"[\d:]+", text):
        found = [w for w in re.split("[:@]", text) if len(w) > 1]
        return [query.Term(w) for w in dict.fromkeys(found)] if len(found) > 1 else []
    if not _PARTED.fullmatch(text) or cjk.has_cjk(text):
        return []
    found = [w for w in _PARTER.split(text) if len(w) > 1]
    return [query.Term(w) for w in dict.fromkeys(found) if not stopwords.is_stopword(w, found)]


# The words of a name of code joined by underscores, hyphens or dots ("parse_confg_file", "pre-comit",
# "docker-compse.yml").
_NAMED = re.compile(r"[A-Za-z0-9]+(?:[_.-]+[A-Za-z0-9]+)+")


def mended_name(
    text: str, holds: Callable[[str], bool], respell: Callable[[str], list[str]]
) -> query.Phrase | None:
    """A name of code or a file's whose words are joined by underscores, hyphens or dots, a word of it
    typed wrong ("parse_confg_file", "docker-compse.yml"), as the phrase of its words with each slip
    mended ("parse config file"), when every word is there or one slip away (``holds``: whether an index
    has a word; ``respell``: the words one slip away it has). ``None`` for any other word."""
    if not _NAMED.fullmatch(text):
        return None
    mended = []
    for word in re.split(r"[_.-]+", text.lower()):
        if holds(word):
            mended.append(word)
        elif words := respell(word):
            mended.append(words[0])
        else:
            return None
    return query.Phrase(" ".join(mended))


# How English words end past their stem (Porter's suffixes, and their plurals): what a person typing
# "installa", "deploym" or "authentica" has begun of the word's ending.
ENDINGS = (
    "ational", "ations", "ization", "isation", "ators", "ements", "ments", "nesses", "ings", "ities",
    "ables", "ibles", "ences", "ances", "ively", "ously", "fulness", "iveness", "ousness", "alism",
    "ically", "ists", "isms", "ives", "izes", "ised", "ized", "ating", "ated", "ates", "ions", "ents",
    "ants", "ers", "ies", "ied", "est", "ly", "logy", "logies",
)  # fmt: skip
# A stem shorter than this is no word of its own (typing "dep" is still a prefix).
STEM_MIN = 3


def still_typed(word: str) -> bool:
    """Whether ``word``, the last of a query and no word of the history, may be the start of one still
    being typed: not a Chinese or Japanese run, nor a name its marks end (``c++``, ``F#``)."""
    return len(word) >= PREFIX_MIN and not cjk.has_cjk(word) and not query.is_marked_name(word)


def unfinished_stem(conn: sqlite3.Connection, text: str) -> str | None:
    """The stem a word still being typed will have, when its start as typed is no stem's start: the word
    index holds each word by its Porter stem, which is often shorter than the word ("installation" is
    held as instal, "deployment" as deploy), so "installa" is the start of no word there and found
    nothing until the word was finished. Its longest start that is a word of the index, the rest being
    the start of an English ending (after a doubled consonant: "runn" for running), is what the
    finished word would find; ``None`` when there is none. The word so finished must have that stem (or
    be the start):
    "commit" is no "com" with "-mities" to come (a word typed whole the history lacks, which found
    "github.com")."""
    word = text.lower()
    if not word.isascii() or not word.isalpha():
        return None
    for cut in range(len(word) - 1, STEM_MIN - 1, -1):
        start, rest = word[:cut], word[cut:]
        doubled = rest[0] if rest[0] == start[-1] and rest[0] not in "aeiou" else ""  # running: run, n, ing
        rest = rest[len(doubled) :]
        endings = [e for e in ENDINGS if e.startswith(rest)]
        # (Porter stems the start alone otherwise at times: "deploy" as deploi, "deployments" as deploy.)
        if not any(stem(start + doubled + e) in (stem(start), start) for e in endings):
            continue
        if exists(conn, "docs_fts", query.leaf_fts(query.Term(start)) or '""'):
            return start
    return None


# Docs of a start read at most for one with a word that starts as typed (:func:`starts_a_word`).
START_READ = 2_000


def safe_start(word: str) -> str | None:
    """The start of ``word``, a word still being typed, that the word index can look for as a prefix when
    it cannot look for the word: FTS5 stems what it looks for, and Porter reads a start as a word of its
    own ("pay" as pai, "proxy" as proxi, "keys" as kei), so "pay" found no "payment", "proxy" no
    "ProxySQL", "play" no "playbook" (nothing at all). The start it shares with its stem, as Porter leaves
    it; ``None`` when Porter leaves the word as typed, or that start is shorter than :data:`PREFIX_MIN`."""
    low = word.lower()
    if not (low.isascii() and low.isalpha()):
        return None
    root = stem(low)
    if root == low:
        return None
    start = shared_start(low, root)
    while len(start) >= PREFIX_MIN and stem(start) != start:
        start = start[:-1]
    return start if len(start) >= PREFIX_MIN else None


def started_as_typed(conn: sqlite3.Connection, typed: str) -> bool:
    """Whether a word still being typed, which the word index has as the start of a word, is the start of
    one as typed: FTS5 stems a prefix before it looks for it, so "shortne" (a slip of "shorten", typed
    whole) is looked for as shortn, which "shorten" starts, and read as a word still being typed that no
    doc then had, neither missing nor read as the word it is a slip of (the shared index reads a prefix
    unstemmed, and read it so). Asked of the first docs only when Porter changes the word."""
    low = typed.lower()
    if not (low.isascii() and low.isalpha()) or stem(low) == low:
        return True
    return starts_a_word(conn, low, low)


def starts_a_word(conn: sqlite3.Connection, start: str, typed: str) -> bool:
    """Whether a doc with a word starting with ``start`` (:func:`safe_start`) has one starting as ``typed``,
    among the first :data:`START_READ` such docs (a start of two letters is in a good part of the index; a
    word typed wrong is in none of them, and is then read as a slip)."""
    starting_words(conn)
    sql = (
        "SELECT 1 FROM (SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?) f JOIN docs d ON d.id = "
        "f.rowid WHERE trail_word_start(d.text, ?) LIMIT 1"
    )
    return conn.execute(sql, (f'"{start}" *', START_READ, typed.lower())).fetchone() is not None


def run_bigrams(runs: list[str]) -> list[str]:
    """The distinct bigrams of ``runs`` (:func:`~hermes_trail.index.cjk.question_runs`), in order: the
    any-of list of a question."""
    return list(dict.fromkeys(g for run in runs for g in cjk.bigrams(run)))


def read(conn: sqlite3.Connection, text: str, checked: bool = True) -> Plan:
    """``text`` as a :class:`Plan` over the index open on ``conn``. Unless ``checked``, its words are not
    looked up (none is missing, none a prefix): the plan of a query whose words all turn out to match,
    which needs no lookup at all."""
    parsed = query.with_flags(query.parse(text), text, functools.partial(flag_in, conn))
    plain = query.conjuncts(parsed)
    every = query.terms(parsed)
    change: dict[query.Term, query.Node | None] = {}
    dropped: list[str] = []
    # Function words go when anything else is left to find (a phrase, an alternative, another word).
    said = [t.text for t in plain]
    stop = [t for t in plain if not t.prefix and stopwords.is_stopword(t.text, said)]
    if stop and len({t.text for t in stop}) < len(every):
        change.update((t, None) for t in stop)
        dropped = list(dict.fromkeys(t.text for t in stop))
    # A word naming a profile other than the default says where to look, not what to find.
    named = _profiles(conn)
    profiles = naming_profiles(plain, change, named, dropped, every)
    kept = [t for t in plain if t not in change]
    missing: list[str] = []
    spelled: dict[str, list[str]] = {}
    prefix: str | None = None
    prefix_start: str | None = None
    last = query.last_term(parsed)
    if last is not None and last in kept and stemmed_away(last):
        # The start of a word still being typed, which its stem made a function word ("ins": in).
        change[last] = query.Term(last.text, prefix=True)
        prefix = last.text
        kept = [t for t in kept if t is not last]
    # Each word once: an error pasted whole repeats its words, and each repeat was looked up again (the
    # spelling of a missing one at some fifty look-ups: 4 s for a traceback of 17,000 characters); so are
    # the words of names (``shard_1``, ``shard_2``: :func:`mended_name`).
    holds = functools.cache(functools.partial(_holds, conn))
    respell = functools.cache(slips_for(text, functools.partial(respelled, conn)))
    variant = functools.partial(local_variant, conn)

    def have(parts: list[query.Term]) -> list[bool]:
        return [_found(conn, part) for part in parts]

    kept = join_clitics(kept, change, have)  # Arabic and Hebrew: as typed and as joined to its article
    for term in dict.fromkeys(kept) if checked else []:
        if term.prefix or _found(conn, term):  # a prefix typed as one is looked for as it is
            continue
        typed = query.Term(term.text, prefix=True)
        unfinished = term is last and still_typed(term.text)
        if (
            unfinished
            and exists(conn, "docs_fts", query.leaf_fts(typed) or '""')
            and started_as_typed(conn, term.text)
        ):
            change[term] = typed
            prefix = term.text
            continue
        if unfinished and (stem := unfinished_stem(conn, term.text)) is not None:
            change[term] = query.Term(stem)
            prefix = term.text
            continue
        if unfinished and (start := safe_start(term.text)) and starts_a_word(conn, start, term.text):
            change[term] = query.Term(start, prefix=True)
            prefix, prefix_start = term.text, start
            continue
        if (stood := stood_for(term, term is last, text, variant, have, holds, respell)) is None:
            missing.append(term.text)
            continue
        change[term], said, lacking = stood
        if said:
            spelled[term.text] = said
        missing += lacking
    if missing:  # words side by side that the history writes as one name ("user repository")
        plains = [t for t in plain if t not in profiles]
        names = joined(text, plains, missing, functools.partial(_there, conn))
        missing, dropped = take_joined(names, change, spelled, missing, dropped)
    if missing:  # the first part of a compound ("Zugang": Zugangsdaten)
        missing = read_as_starts(missing, kept, change, spelled, variant)
    left = len(every) - len(dropped) - len(missing)
    sources: list[str] = []
    projects: list[str] = []
    places: Places | None = None
    if missing:
        if left > 0:  # the words that exist answer; the ones no index has are reported
            change.update((t, None) for t in kept if t.text in missing)
        alone = names_alone(parsed, plain, every, kept, missing)
        where = functools.partial(_places, conn)
        sources, projects, missing, places = naming_places(missing, profiles, left > 0, alone, named, where)
    if change:
        parsed = query.rewrite(parsed, change)
    terms = query.terms(parsed)
    runs = cjk.question_runs(terms)
    out = Plan(
        parsed,
        terms,
        runs,
        missing=missing,
        dropped=dropped,
        prefix=prefix,
        typed=every,
        profiles=list(dict.fromkeys(named[t.text.casefold()] for t in profiles)),
        sources=sources,
        projects=projects,
        spelled=spelled,
        unfound=[f'"{p.text}"' for p in query.phrases(parsed) if checked and not _found(conn, p)],
        prefix_start=prefix_start,
        places=places,
    )
    # A question of Chinese, Japanese or Korean runs alone is looked for in the bigram index alone: the word
    # index found only the docs where the run stood alone between marks ("周会：周二"), and its BM25 put
    # those a million times above the docs that say it inside a sentence (``cjk.only_runs``).
    if (fts := query.to_fts(parsed)) and not (runs and cjk.only_runs(terms)):
        out.plans.append(("docs_fts", fts))
    if query.needs_trigram(parsed) and (tri := query.to_trigram(parsed)):
        out.plans.append(("docs_tri", tri))
    if runs:
        out.plans.append(("docs_cjk", " AND ".join(cjk.run_expression(r) for r in runs)))
        # The bigram index holds the runs alone: the question's other words ("paper 너무") a doc it finds
        # must have in the word index, or a doc with the run alone was a match of every word.
        beside = [f for t in query.conjuncts(parsed) if not cjk.has_cjk(t.text) and (f := query.leaf_fts(t))]
        out.beside_runs = " AND ".join(beside) or None
    return out
