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
# How the indexes read a text (:func:`spaced`, :data:`RANGES`), as a number each index keeps: an index made
# when it read less reads the docs with the characters each later reading adds again (:data:`READ_AGAIN`),
# once, instead of being rebuilt. 2: :data:`SOUTHEAST`'s runs and :data:`UNFOLDED`.
READING = 2
READ_AGAIN = {2: SOUTHEAST + UNFOLDED}
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
_NARROWED = str.maketrans(WIDE + UNFOLDED, NARROW + FOLDED)


@functools.cache
def _wide() -> re.Pattern[str]:
    return re.compile(f"[{WIDE}{UNFOLDED}]")


@functools.cache
def _boundary() -> re.Pattern[str]:
    return re.compile(BOUNDARY)


@functools.cache
def _special() -> re.Pattern[str]:
    """What :func:`spaced` changes a text for: a full-width letter or digit, a letter of :data:`UNFOLDED`,
    or a character of a run."""
    return re.compile(f"[{WIDE}{UNFOLDED}{RANGES}]")


def narrowed(text: str) -> str:
    """``text`` with its full-width letters and digits as ASCII, and the letters of :data:`UNFOLDED` as the
    ASCII letter typed for them: the same length, each character where it was (what a highlight is found
    in)."""
    return text if text.isascii() or _wide().search(text) is None else text.translate(_NARROWED)


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
