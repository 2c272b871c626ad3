"""A word typed wrong, read as the words of the history one slip away from it.

"kubernets", "secnds", "pyhton": a word no index holds is dropped from the match and reported missing
(:mod:`plan`), which leaves the answer to the other words, and often the word dropped was the one that
named the conversation. Most slips of the fingers are one edit from the word meant: two letters swapped, one
left out, one doubled or added, one struck for a key beside it. Those are looked up in the history's own
word index (what a person typed before is what they mistype now), and the words it has stand for the one
typed, said beside the answer ("Not found: kubernets; searched for kubernetes.").

Only a word of letters (no digits, no ``_``, ``.`` or ``/``: names and paths are looked for by their parts
and substrings), of at least :data:`SHORTEST` of them (a shorter word has too many neighbours to mean one:
one of four letters is read with two of its letters swapped only, "exti" as exit),
and no word of English (:func:`known`): a word spelt right that the history lacks ("memorizes") was meant
as typed, and the history's words one letter from it ("memories") are not what it asks.
Each spelling is one term-list lookup (about 35 microseconds in a million messages); a word of eight
letters has about 190 of them, asked only when the word is missing, the likeliest 60 first (:func:`tiers`).
The local index and the shared one read the same spellings in the same order and keep the same ones
(:func:`kept`).
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable

from hermes_trail.index.stopwords import fold, language

# Letters a word needs before its slips are looked for; a word of SWAPPED_FROM letters ("exti", "form") is
# looked for with two of its letters swapped only, the commonest slip, of a few spellings only.
SHORTEST = 5
SWAPPED_FROM = 4
# Words at most that stand for one typed wrong, the most common first.
MOST = 3
# How far the docs of each spelling found are counted to tell the most common (a count there says "at least").
COUNTED = 200
# Docs of a spelling found (the first written) whose texts tell how the history writes it (:func:`written`).
READ = 20

# The keys around each key of a QWERTY keyboard: a letter struck for its neighbour.
_NEAR = {
    "q": "wa", "w": "qeas", "e": "wrsd", "r": "etdf", "t": "ryfg", "y": "tugh", "u": "yihj", "i": "uojk",
    "o": "ipkl", "p": "ol", "a": "qwsz", "s": "adwezx", "d": "sferxc", "f": "dgrtcv", "g": "fhtyvb",
    "h": "gjyubn", "j": "hkuinm", "k": "jliom", "l": "kop", "z": "asx", "x": "zcsd", "c": "xvdf",
    "v": "cbfg", "b": "vngh", "n": "bmhj", "m": "njk",
}  # fmt: skip
_VOWELS = "aeiou"
# The consonants a word left out is looked for with: English's most frequent ("bakup": backup, "tempate":
# template, "enviroment": environment). Each letter is a lookup a position; the rarer ones are left out.
_OFTEN_LEFT_OUT = "tnsrhldcm"


def wanted(word: str) -> bool:
    """Whether ``word`` (as typed) is one whose slips are looked for: ASCII letters, :data:`SWAPPED_FROM`
    or more, and no word of English (:func:`known`)."""
    return len(word) >= SWAPPED_FROM and word.isascii() and word.isalpha() and not known(word)


def known(word: str) -> bool:
    """Whether ``word`` is English in one of its forms ("memorizes", "laid", "answers"), as the sentence
    vocabulary or the dictionary of :mod:`lexicon` spell it: a word the history lacks though it was meant
    as typed, which is not to be read as the history's words around it ("memories", "paid")."""
    from hermes_trail.index import lexicon, semantic

    # The dictionary first: one indexed lookup, where the vocabulary is read whole on first use (8 ms of a
    # search whose missing words are English, as a question asked in other words has).
    forms = _forms(word.lower())
    marks = ", ".join("?" for _ in forms)
    try:
        dictionary = lexicon.table()
        sql = f"SELECT 1 FROM en WHERE word IN ({marks}) LIMIT 1"
        if dictionary is not None and dictionary.execute(sql, forms).fetchone() is not None:
            return True
    except sqlite3.Error:  # a compiled dictionary damaged after it was written: the vocabulary alone tells
        pass
    return any(semantic.whole_word(form) for form in forms)


def _forms(word: str) -> list[str]:
    """``word`` and the forms it may be made from by the regular endings of English."""
    forms = [word]
    for ending, base in (
        ("ies", "y"),
        ("es", ""),
        ("s", ""),
        ("ed", ""),
        ("ed", "e"),
        ("ing", ""),
        ("ing", "e"),
    ):
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            forms.append(word[: -len(ending)] + base)
    return list(dict.fromkeys(forms))


def spellings(word: str) -> list[str]:
    """The spellings one edit from ``word`` (lower case), the likeliest slips first (:func:`tiers`)."""
    return [spelled for tier in tiers(word) for spelled in tier]


def tiers(word: str) -> list[list[str]]:
    """The spellings one edit from ``word`` (lower case) in two tiers, each looked for only when the one
    before found none: the likeliest slips (two letters swapped, a letter too many inside it, one left
    out that doubles its neighbour, a vowel left out: about a third of them), then a key struck for its
    neighbour, a vowel for another, a common consonant left out. Each once, ``word`` itself not among
    them."""
    low = word.lower()
    cuts = [(low[:i], low[i:]) for i in range(len(low) + 1)]
    swapped = [a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1]
    if len(low) < SHORTEST:  # a short word has too many neighbours to mean one: its letters swapped only
        return [[w for w in dict.fromkeys(swapped) if w != low], []]
    # A letter too many, inside the word: without its first or last letter a word is mostly another word
    # it is made from ("picker": pick, "telly": tell, "braised": raised), not a slip.
    extra = [a + b[1:] for a, b in cuts[1:-2]]
    if len(low) > 2 and low[-1] == low[-2]:  # a last key struck twice: "postgress"
        extra.append(low[:-1])
    doubled = [a + b[0] + b for a, b in cuts if b]
    vowel = [a + v + b for a, b in cuts for v in _VOWELS]
    near = [a + k + b[1:] for a, b in cuts if b for k in _NEAR.get(b[0], "")]
    vowels = [a + v + b[1:] for a, b in cuts if b[:1] in _VOWELS for v in _VOWELS]  # "renewel": renewal
    other = [a + c + b for a, b in cuts for c in _OFTEN_LEFT_OUT]
    first = dict.fromkeys([*swapped, *extra, *doubled, *vowel])
    then = dict.fromkeys(w for w in [*near, *vowels, *other] if w not in first)
    return [[w for w in tier if w != low] for tier in (first, then)]


def kept(spelled: list[str], counts: list[int], same: Callable[[str], str] = str.lower) -> list[str]:
    """Of the spellings the history has (``spelled``, in :func:`spellings`' order) with how many docs hold
    each (``counts``), the ones a word typed wrong is read as: one per word the index holds (``same``: the
    form it holds a spelling as, its stem: "seconds" and "second" are one), the most common first, at most
    :data:`MOST`."""
    best: dict[str, tuple[int, int, str]] = {}
    for order, (word, counted) in enumerate(zip(spelled, counts, strict=True)):
        key, count = same(word), min(counted, COUNTED)  # an estimate past the count says as much as it
        if count <= 0:
            continue
        if key not in best or count > best[key][0]:
            best[key] = (count, -order, word)
    ranked = sorted(best.values(), reverse=True)
    return [word for _, _, word in ranked[:MOST]]


_WORD = re.compile(r"[^\W\d_]+")


def written(spelled: str, texts: list[str], same: Callable[[str], str]) -> str:
    """The word a spelling the history has stands for, as the history writes it: the word index holds
    words by their stems, so a slip's spelling found there may be no word at all ("reneweal" is found as
    renew); the most common word of the same stem (``same``) in ``texts`` (docs it matches) is shown and
    searched for instead ("renewal"), the spelling itself when they have none. A spelling the texts write
    as it is is that word: "needed", one slip from "eneded", was shown as "needs" where the first docs
    said that more often, which is no slip of it (and which docs come first differs between the local
    index and the shared one)."""
    counted = _of_stem(spelled, texts, same)
    return max(counted, key=lambda w: (w == spelled, counted[w], w)) if counted else spelled


def writes(spelled: str, texts: list[str], same: Callable[[str], str]) -> bool:
    """Whether ``texts`` (docs a spelling matched) write a word held as the spelling is (``same``: its
    stem): how the local word index finds a spelling at all. The shared index reads each doc in two
    configurations at once, and a spelling read in one may be another word read in the other ("pagese" is
    pages in English, which "pages" is in ``simple``; "fals" is fals in ``simple``, which "false" is in
    English): a spelling no doc writes so is no word of the history."""
    return bool(_of_stem(spelled, texts, same))


def _of_stem(spelled: str, texts: list[str], same: Callable[[str], str]) -> Counter[str]:
    """The words of ``texts``, lower case, held as ``spelled`` is (``same``: its stem), each with how often
    it is written; its first letters compared folded first (the stem has no accents), before the stem is
    made."""
    root = same(spelled)
    return Counter(
        word
        for text in texts
        for word in map(str.lower, _WORD.findall(text))
        if fold(word)[:2] == root[:2] and same(word) == root
    )


# The endings English makes a word from another with ("picker" from pick): a word typed with one, whose
# stem the history has, is that other word, not a slip of one the history has.
_DERIVED = ("er", "ers", "ed", "ing", "ings", "ly", "ment", "ments", "ness")


def standing_for(typed: str, words: list[str], same: Callable[[str], str] = str.lower) -> list[str]:
    """Of the words the history writes for a slip's spellings (:func:`written`), once each, those that can
    stand for ``typed``: not the start of it ("telly" is no slip of tell: a word made from another that the
    history lacks), unless what follows only repeats its last letter ("postgress"); nor one whose stem
    (``same``) ``typed`` is made from with an ending of English ("picker" is no slip of picked); nor one
    more than :data:`FURTHEST` edits from it. The index holds stems, and a slip's spelling may share its
    stem with a word that is no slip of the one typed: "readis", a letter from "redis", is held as readi,
    the stem of "ready", which a search for Redis was answered with."""
    low = typed.lower()

    def made_from(word: str) -> bool:
        rest = low[len(word) :]
        if low.startswith(word) and rest and rest != word[-1:] * len(rest):  # "postgress" is a slip
            return True
        root = same(word)
        return any(low == root + ending for ending in _DERIVED)

    return [w for w in dict.fromkeys(words) if not made_from(w) and edits(low, w.lower()) <= FURTHEST]


# Edits at most between a word typed wrong and the word the history writes for it: one slip, and one
# more for the ending the history writes the word with ("deploymnts": deployment).
FURTHEST = 2


def edits(a: str, b: str) -> int:
    """How many edits turn ``a`` into ``b``: a letter added, left out or struck for another, or two
    neighbours swapped (the optimal string alignment distance)."""
    if a == b:
        return 0
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        now = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            now[j] = min(row[j] + 1, now[j - 1] + 1, row[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                now[j] = min(now[j], before[j - 2] + 1)
        before, row = row, now
    return row[-1]


def respelled(
    word: str,
    there: Callable[[list[str]], list[str]],
    counts: Callable[[list[str]], list[int]],
    texts: Callable[[str], list[str]],
    same: Callable[[str], str],
) -> list[str]:
    """The words one slip away from ``word`` that an index holds, which stand for it: none for a word whose
    slips are not looked for (:func:`wanted`). The index is asked through ``there`` (which of these
    spellings some doc has, in their order), ``counts`` (how many docs have each, up to :data:`COUNTED`)
    and ``texts`` (the texts of the first :data:`READ` docs that have one); ``same`` is the form it holds a
    word as. The local index and the shared one answer with this one rule."""
    if not wanted(word):
        return []
    for tier in tiers(word):
        if found := there(tier):
            break
    else:
        return []
    chosen = kept(found, counts(found), same)
    return standing_for(word, [written(w, texts(w), same) for w in chosen], same)


def meant(typed: list[str], spelled: dict[str, list[str]]) -> list[str]:
    """The words ``typed`` with each one typed wrong as the first word read for it ("restic backup
    schedule", not "restic bakup schedule")."""
    return [spelled[word][0] if spelled.get(word) else word for word in typed]


def for_the_model(question: str, typed: list[str], spelled: dict[str, list[str]]) -> list[str]:
    """The words of ``question`` the sentence model reads: as :func:`meant`, but in a question in another
    language than English (its function words tell) as typed. The model reads every language it knows; the
    words standing there for one the history lacks are the word index's, found among English words that
    start alike ("la app pierde el carrito cuando el móvil ...": carrier, movies), which the model then read
    in place of the Spanish."""
    return typed if language(question) not in ("en", "cjk") else meant(typed, spelled)
