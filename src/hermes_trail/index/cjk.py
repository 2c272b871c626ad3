"""Text in scripts written without spaces between words (Chinese, Japanese, Korean; Thai, Lao, Myanmar and
Khmer too), made searchable.

A word tokenizer reads a whole run of such characters as one token, and a trigram index cannot match the
two-character words these languages are full of. The classic answer is overlapping character bigrams: the
run ``東京タワー`` is indexed as ``東京 京タ タワ ワー`` and its last character ``ー``; a query for any
substring of two or more characters becomes the phrase of its bigrams, a single character a prefix query.

The same scripts hold words of other scripts without a space between them: "Redisを再起動", "用Docker部署
Postgres", "端口5432", "Redis를 재시작". The word tokenizer reads each such stretch as one token
("redisを再起動"), so the word redis was found in none of them. And an input method in its full-width mode
types "ＡＰＩ" and "２０２６", letters and digits of their own that no search for "API" or "2026" matches.
:func:`spaced` is the text as the word indexes read it (the local one and the shared one alike), and every
question is read so too: full-width letters and digits as ASCII, and a space where a run of these scripts
meets a letter or digit of a script written with spaces.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from hermes_trail.index import stopwords

# Thai, Lao, Myanmar and Khmer, written without spaces between words too (a space ends a phrase or a
# sentence), and with marks the word indexes split a word at: "ส้มตำ" inside "ร้านส้มตำที่สยาม" was a
# word no doc had. Their runs are read as the others' are (bigrams of characters, marks included: each
# side split alike, a run's bigrams stay a phrase of the doc's).
SOUTHEAST = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
# Han, Hiragana, Katakana, Hangul and their compatibility blocks, and :data:`SOUTHEAST`, as a character
# class's ranges (the shared index's bigram function is made from them too: a change there needs a schema
# version of its own; the local index reads its docs again for what one adds: :data:`READING`).
RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f" + SOUTHEAST
# Letters the word indexes' diacritic folding leaves as they are (it folds "ğ" and "ş", which decompose),
# and the ASCII letter a person types for each on a keyboard without it, one for one: Turkish dotless ı,
# Polish ł, Danish and Norwegian ø, Croatian đ, Icelandic ð, Sami ŧ, Maltese ħ. "baglanti" found no
# "bağlantı", nor "latwy" a "łatwy". :func:`narrowed` reads them so, as it reads full-width letters.
UNFOLDED = "ıłŁøØđĐðÐŧŦħĦ"
FOLDED = "ilLoOdDdDtThH"
# The vowel signs and other marks of the scripts of India and Sri Lanka (Devanagari to Sinhala, U+0900-0DFF;
# Unicode 14's marks there, written out: a Python of another Unicode version reads the same). A word
# tokenizer splits a word at each mark, so "की" (of) was "क", as were "के" and "को", and "किताब" (book)
# the phrase क त ब, which "कुतुब" is too: a Hindi question found nearly every turn. :func:`narrowed`
# reads each as a character of a private-use plane (U+100000 on, one for one), which a word tokenizer
# keeps inside a word, as it keeps the letters around it.
_INDIC_MARKS = """
0900-0903 093A-093C 093E-094F 0951-0957 0962-0963 0981-0983 09BC 09BE-09C4 09C7-09C8 09CB-09CD 09D7
09E2-09E3 09FE 0A01-0A03 0A3C 0A3E-0A42 0A47-0A48 0A4B-0A4D 0A51 0A70-0A71 0A75 0A81-0A83 0ABC 0ABE-0AC5
0AC7-0AC9 0ACB-0ACD 0AE2-0AE3 0AFA-0AFF 0B01-0B03 0B3C 0B3E-0B44 0B47-0B48 0B4B-0B4D 0B55-0B57 0B62-0B63
0B82 0BBE-0BC2 0BC6-0BC8 0BCA-0BCD 0BD7 0C00-0C04 0C3C 0C3E-0C44 0C46-0C48 0C4A-0C4D 0C55-0C56 0C62-0C63
0C81-0C83 0CBC 0CBE-0CC4 0CC6-0CC8 0CCA-0CCD 0CD5-0CD6 0CE2-0CE3 0D00-0D03 0D3B-0D3C 0D3E-0D44 0D46-0D48
0D4A-0D4D 0D57 0D62-0D63 0D81-0D83 0DCA 0DCF-0DD4 0DD6 0DD8-0DDF 0DF2-0DF3
"""
# Where a mark of :data:`_INDIC_MARKS` is read: this plane's start plus its distance from U+0900.
MARK_PLANE = 0x100000
# Arabic's and Hebrew's vowel points and other marks (harakat, shadda, niqqud, cantillation) and Arabic's
# tatweel, a stretch of the line: a text writes them or leaves them out (most do), and a word tokenizer
# splits a word at each, so "السَّلَامُ" was the words الس, ل, ام, and "السلام" found it not. :func:`narrowed`
# reads each as U+0301, a combining accent, which the word indexes' diacritic folding drops inside a word.
_POINTS = """
0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7 0610-061A 0640 064B-065F 0670 06D6-06DC 06DF-06E4 06E7-06E8 06EA-06ED
08CA-08E1 08E3-08FF
"""
POINT_READ_AS = "\u0301"


def _class(written: str) -> str:
    """Written ranges ("0900-0903 093A") as a character class's contents."""
    parts = []
    for item in written.split():
        first, _, last = item.partition("-")
        parts.append(chr(int(first, 16)) + (f"-{chr(int(last, 16))}" if last else ""))
    return "".join(parts)


def _each(written: str) -> list[str]:
    out: list[str] = []
    for item in written.split():
        first, _, last = item.partition("-")
        out += map(chr, range(int(first, 16), int(last or first, 16) + 1))
    return out


def points() -> list[str]:
    """Each character of :data:`POINTS`."""
    return _each(_POINTS)


INDIC_MARKS = _class(_INDIC_MARKS)
POINTS = _class(_POINTS)
# How the indexes read a text (:func:`spaced`, :data:`RANGES`), as a number each index keeps: an index made
# when it read less reads the docs with the characters each later reading adds again (:data:`READ_AGAIN`),
# once, instead of being rebuilt. 2: :data:`SOUTHEAST`'s runs and :data:`UNFOLDED`; 3: :data:`INDIC_MARKS`
# and :data:`POINTS`.
READING = 3
READ_AGAIN = {2: SOUTHEAST + UNFOLDED, 3: INDIC_MARKS + POINTS}
RUN_PATTERN = f"[{RANGES}]+"


@functools.cache
def _run() -> re.Pattern[str]:
    """:data:`RUN_PATTERN` compiled on first use: compiling its ranges takes milliseconds, which every
    ``trail search`` would pay at start-up for text that is mostly ASCII (which it never matches)."""
    return re.compile(RUN_PATTERN)


def __getattr__(name: str) -> Any:
    if name == "RUN":  # the compiled pattern, as this module once defined it
        return _run()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Letters and digits of the scripts written with spaces between words (ASCII, Latin, Greek, Cyrillic: the
# ranges the shared index folds too), where a run of :data:`RANGES` meets them a word starts. Written out,
# not ``\w``: the shared index applies the same classes in PostgreSQL's regular expressions.
SPACED = "0-9A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0370-\u03ff\u0400-\u04ff\u1e00-\u1eff"
BOUNDARY = f"(?<=[{RANGES}])(?=[{SPACED}])|(?<=[{SPACED}])(?=[{RANGES}])"
# Full-width digits and Latin letters (U+FF10-FF19, U+FF21-FF3A, U+FF41-FF5A) and the ASCII they stand for.
WIDE = "".join(map(chr, [*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B)]))
NARROW = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_NARROWED: dict[int, int | str] = {
    **str.maketrans(WIDE + UNFOLDED, NARROW + FOLDED),
    **{ord(mark): MARK_PLANE + ord(mark) - 0x900 for mark in _each(_INDIC_MARKS)},
    **dict.fromkeys(map(ord, _each(_POINTS)), POINT_READ_AS),
}
# The marks as they were: what a text :func:`narrowed` holds is written with (the shared index's words).
_MARKS_BACK = {MARK_PLANE + ord(mark) - 0x900: ord(mark) for mark in _each(_INDIC_MARKS)}


@functools.cache
def _wide() -> re.Pattern[str]:
    return re.compile(f"[{WIDE}{UNFOLDED}{INDIC_MARKS}{POINTS}]")


@functools.cache
def _boundary() -> re.Pattern[str]:
    return re.compile(BOUNDARY)


@functools.cache
def _special() -> re.Pattern[str]:
    """What :func:`spaced` changes a text for: a full-width letter or digit, a letter of :data:`UNFOLDED`,
    a mark of :data:`INDIC_MARKS` or :data:`POINTS`, or a character of a run."""
    return re.compile(f"[{WIDE}{UNFOLDED}{INDIC_MARKS}{POINTS}{RANGES}]")


def narrowed(text: str) -> str:
    """``text`` with its full-width letters and digits as ASCII, the letters of :data:`UNFOLDED` as the
    ASCII letter typed for them, the marks of :data:`INDIC_MARKS` as characters a word keeps and the points
    of :data:`POINTS` as an accent its folding drops: the same length, each character where it was (what a
    highlight is found in)."""
    return text if text.isascii() or _wide().search(text) is None else text.translate(_NARROWED)


def marks_back(text: str) -> str:
    """``text`` (:func:`narrowed`) with the marks of :data:`INDIC_MARKS` as they were, and without the
    accents that stand for :data:`POINTS`: the shared index's parser keeps every character past ASCII in a
    word, so it reads the marks as written and folds the points away."""
    if text.isascii():
        return text
    return text.translate(_MARKS_BACK).replace(POINT_READ_AS, "") if _marked(text) else text


def _marked(text: str) -> bool:
    return POINT_READ_AS in text or any(ord(c) >= MARK_PLANE for c in text)


def spaced(text: str) -> str:
    """``text`` as the word indexes read it: :func:`narrowed`, and a space wherever a run of Chinese,
    Japanese or Korean meets a letter or digit of a script written with spaces ("用Docker部署" as 用 Docker
    部署). ASCII text (most) as it is, without a pass."""
    if text.isascii() or _special().search(text) is None:  # most text past ASCII: one pass
        return text
    narrow = narrowed(text)
    return _boundary().sub(" ", narrow) if _run().search(narrow) is not None else narrow


def has_cjk(text: str) -> bool:
    return not text.isascii() and _run().search(text) is not None


def only_runs(terms: list[str]) -> bool:
    """Whether a question is of Chinese, Japanese or Korean alone (every term holds a run): such a question
    is weighed by its runs' bigrams alone, in the local index and the shared one, not by the word index,
    which holds a run as one word and finds only the docs where it stands alone between marks."""
    return bool(terms) and all(map(has_cjk, terms))


def bigrams(run: str) -> list[str]:
    """The overlapping bigrams of one run (a lone character stands for itself)."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def indexed(run: str) -> list[str]:
    """What the CJK index holds of one run: its bigrams, and its last character alone. A character asked
    alone is looked for as the start of a token, which every character of a run is but its last: without
    it, "猫" found no turn that says "我想养一只猫。" (the run ends there), and was reported missing."""
    return [run] if len(run) == 1 else [*bigrams(run), run[-1]]


def index_text(text: str) -> str | None:
    """What the CJK index gets for ``text``: each run's tokens (:func:`indexed`), runs kept apart by a
    separator."""
    if text.isascii():  # the common case, decided in C without a regex pass
        return None
    runs = _run().findall(text)
    if not runs:
        return None
    return " | ".join(" ".join(indexed(run)) for run in runs)


def index_tokens(text: str) -> list[str]:
    """The CJK index's tokens of ``text`` in order (:func:`index_text`): what its BM25 counts."""
    if text.isascii():
        return []
    return [gram for run in _run().findall(text) for gram in indexed(run)]


def query_runs(text: str) -> list[str]:
    """The CJK runs of a query, each to be matched as a substring."""
    return [] if text.isascii() else _run().findall(text)


def run_expression(run: str) -> str:
    """An FTS5 expression (unicode61 tokenizer) matching ``run`` as a substring of indexed text."""
    if len(run) == 1:
        return f'"{run}" *'
    return '"' + " ".join(bigrams(run)) + '"'


def question_runs(terms: list[str]) -> list[str]:
    """The Chinese, Japanese or Korean runs of a question's terms, each cut at its particles and question
    words (what its bigram index and its dictionary reading look for)."""
    return [part for term in terms for run in query_runs(term) for part in stopwords.cjk_parts(run)]
