"""A word the history writes otherwise than it was typed, or in another form.

People write one word with a hyphen, as one, or as two ("e-mail" and "email", "pre-commit" and
"precommit", "billing-api" and "billingapi", "log in" and "login"), and the word index holds a hyphenated
word as its parts: "email" found no "e-mail", and "wi-fi" no "wifi"; nor "python3.12" a "Python 3.12". A
German name or word typed on a keyboard without its letters is written with two ("Mueller", "Strasse"),
and the index, which reads "ü" as u, held "Müller" as muller: "mueller" found no "Müller", nor "müller" a
"Mueller". A British asker's "colour" found nothing in a history whose agent writes "color", "kubernetes"
nothing where it says "k8s", "خادم" nothing where it says "الخادم" (Arabic and Hebrew join their article to
the word), and "серверы" nothing where it says "сервер" (the index stems English alone).

Such a word, missing as typed, is looked for as each of its other writings, in tiers (:func:`readings`,
then after its slips :func:`apart`, and for a word past ASCII :func:`inflections`), the first one some doc
has standing for it and said as a slip's word is ("Not found: precommit; searched for pre-commit."). The
local index and the shared one read a word so alike (:func:`found`): each says which readings it has and
gives a few texts that have one, and this module decides.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable

from hermes_trail.index import cjk, query, stopwords

# A word of words joined by hyphens or dashes ("Lyon–Lisbon", the en dash of a route or a range), and
# nothing else (not a path, a flag or a negative number). This module's patterns are compiled on first use
# (``re``'s own cache): compiled at import, they cost every search 1.5 ms of its start.
JOINERS = "-\u2010\u2011\u2013\u2014"
HYPHENATED = rf"[^\W_]+(?:[{JOINERS}][^\W_]+)+"
JOINER = rf"[{JOINERS}]"

# The letters of a word read as two words the history writes apart ("email": e-mail), at least and at most.
APART_MIN = 4
APART_MAX = 24
# The letters a second half still being typed has at least ("precom": pre, com): a shorter start of a
# word is the start of too many.
PREFIX_HALF = 3

Reading = query.Term | query.Phrase


class Forms(list[Reading]):
    """A tier of forms of one word, each a word of its own (Arabic's and Hebrew's with their article or
    particle joined): the history may have several, and any of them is the word asked for."""


class Longer(list[Reading]):
    """A tier of one word read as the start of longer words (:func:`starts`): found only where a doc has a
    word that goes on from it by a part of its own (:data:`LONGER_BY` letters at least), not by an ending."""


# German's letters as a keyboard without them types them, and as the word index holds them (it drops the
# dots: "ü" as u; "ß" it keeps).
_AS_TYPED = {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"}
_VOWELS_HELD = (("ae", "a"), ("oe", "o"), ("ue", "u"))
_GERMAN = frozenset("äöüß")
_WORD = r"[^\W\d_]+"
# A name with its version or number joined to it ("python3.12", "node18", "ubuntu22.04").
_VERSIONED = r"([a-z]{2,})(\d+(?:\.\d+)*)"
# A version number, with or without the "v" of a release tag ("2.4.0", "v2.4.0"): the word index holds the
# tag's first number as a word with its "v" ("v2"), so one found nothing of the other.
_TAGGED = r"(v?)(\d+(?:\.\d+)+(?:[-+][^\W_]+(?:\.[^\W_]+)*)?)"
# A number with its unit joined to it ("4gb", "100ms", "2am"): the history may write them apart ("4 GB").
_MEASURED = r"(\d+(?:[.,]\d+)?)([a-z]{1,4})"
# A name of code written in camel case ("parseConfigFile", "XMLHttpRequest"), and its words: the word index
# holds it as one word, and the same name written with underscores or dashes ("parse_config_file") as its
# words; so one found nothing of the other.
_CAMEL = r"(?=[A-Za-z\d]+$).*?(?:[a-z][A-Z]|[A-Z]{2}[a-z])"
_CAMEL_WORDS = r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+"


# A web address, its query and its fragment apart.
_LINK = re.compile(
    r"(?P<page>(?:https?|ftp)://[^\s?#]+)(?P<query>\?[^\s#]*)?(?P<fragment>#\S*)?", re.IGNORECASE
)


def readings(text: str) -> list[list[Reading]]:
    """What a word the history lacks as typed may be written as there, a few lookups, asked before the word
    is read as a slip (:mod:`~hermes_trail.index.plan`):

    - a hyphenated word, joined ("e-mail": email); a name with its version joined to it, apart
      ("python3.12": python 3.12, "node18": node 18), else the name alone ("python3": python, where the
      history runs ``python``); a number with its unit joined to it, apart ("4gb": 4 GB); a name of code
      in camel case, as its words ("parseConfigFile": parse_config_file, "parse config file"); a version
      number as a release tag, and a tag as its number ("2.4.0": v2.4.0, "v2.4": 2.4, "2.5.0-rc1":
      v2.5.0-rc1);
    - a word with German's letters, as a keyboard without them types them ("müller": mueller); one typed
      so, with them ("mueller": Müller, held as muller; "strasse": straße; "gruesse": grüsse, grüße),
      taken only where the history writes them so (:func:`shown`): "aerial" is no "ärial"; a word as
      British or American English spells it ("colour": color, :func:`_british_or_american`), or written
      short or whole ("k8s": kubernetes, "repository": repo);
    - a web address, without its fragment, then without its query ("…/asyncio-task.html#task-groups",
      "…/pricing?utm_source=mail": the page the history names)."""
    low = text.lower()
    if cjk.has_cjk(low):
        return []
    if (link := re.fullmatch(_LINK, text)) is not None and (link["query"] or link["fragment"]):
        # an address with another fragment or query than the history's ("…task.html#task-groups",
        # "…?utm_source=x"): the page without them
        page = link["page"]
        return (
            [[query.Term(page + (link["query"] or ""))], [query.Term(page)]]
            if link["fragment"]
            else [[query.Term(page)]]
        )
    if re.match(_CAMEL, text):
        return [[query.Phrase(" ".join(re.findall(_CAMEL_WORDS, text)).lower())], *readings(low)]
    if re.fullmatch(HYPHENATED, low):
        return [[query.Term(re.sub(JOINER, "", low))]]
    if tagged := re.fullmatch(_TAGGED, low):
        return [[query.Term(tagged[2] if tagged[1] else f"v{tagged[2]}")]]
    if versioned := re.fullmatch(_VERSIONED, low):
        # then the name alone, where the history runs it without its version ("python3": python)
        return [[query.Phrase(f"{versioned[1]} {versioned[2]}")], [query.Term(versioned[1])]]
    if measured := re.fullmatch(_MEASURED, low):
        return [[query.Phrase(f"{measured[1]} {measured[2]}")]]
    if not low.isalpha():
        return []
    if not low.isascii():
        if clitics := clitic_forms(low):
            return [Forms(query.Term(w) for w in clitics)]
        typed = "".join(_AS_TYPED.get(c, c) for c in low)
        return [[query.Term(typed)]] if typed != low and typed.isascii() else []
    spelled = [*_with_german_letters(low), *_british_or_american(low), *_ABBREVIATED.get(low, ())]
    return [[query.Term(w) for w in dict.fromkeys(spelled)]] if spelled else []


def apart(text: str, last: bool) -> list[list[Reading]]:
    """A word of Latin letters the history lacks as typed, as two side by side, cut anywhere (the most even
    cut first; the first half may be one letter: "e mail", "x ray"; "wärmepumpe": Wärme-Pumpe); the last
    word, which may still be typed, then with its second half the start of a word ("precom": pre-commit).
    Asked after the word's slips
    (a word typed wrong is commoner than one spaced otherwise, and a phrase is a dearer lookup: the
    shared index's took a word typed wrong from 13 to 24 ms p50 when asked first)."""
    low = text.lower()
    if not (low.isalpha() and APART_MIN <= len(low) <= APART_MAX and _latin(low)):
        return []
    cuts = sorted(range(1, len(low) - 1), key=lambda at: (abs(len(low) - 2 * at), at))
    halves = [(low[:at], low[at:]) for at in cuts]
    tiers: list[list[Reading]] = [[query.Phrase(f"{a} {b}") for a, b in halves]]
    if last:
        tiers.append([query.Phrase(f"{a} {b}", prefix=True) for a, b in halves if len(b) >= PREFIX_HALF])
    return tiers


# The most words side by side read as one name of code, and its most letters ("get user by id": getUserById).
JOINED_MOST = 4
JOINED_LONGEST = 40


def together(text: str, words: list[str], missing: set[str]) -> list[tuple[int, int, query.Term]]:
    """Runs of ``words`` (the query's words, in order) that hold a word of ``missing``, each as one word,
    the longest first: where the history writes a name of code in camel case, which the word index holds
    as one word ("format date": formatDate, "user repository": UserRepository, "get user by id":
    getUserById). Only runs written side by side in ``text`` (by spaces), of ASCII letters and digits."""
    runs: list[tuple[int, int, query.Term]] = []
    typed = " " + " ".join(w.strip(_AROUND) for w in text.lower().split()) + " "
    for size in range(min(JOINED_MOST, len(words)), 1, -1):
        for start in range(len(words) - size + 1):
            run = words[start : start + size]
            if not missing.intersection(run) or not all(w.isascii() and w.isalnum() for w in run):
                continue
            joined = "".join(run).lower()
            if len(joined) <= JOINED_LONGEST and f" {' '.join(run).lower()} " in typed:
                runs.append((start, start + size, query.Term(joined)))
    return runs


# The marks of a sentence or a quote around a word as typed (``ages?``, ``"format``).
_AROUND = ".,;:?!\"'`()\u201c\u201d\u00ab\u00bb"


def _latin(word: str) -> bool:
    """Whether ``word`` is of the Latin script: a German compound is written with its letters
    ("datenbankgröße": Datenbank-Größe), and a Russian or Greek word is read in its other forms instead
    (:func:`inflections`)."""
    return word.isascii() or all(c.isascii() or unicodedata.name(c, "").startswith("LATIN") for c in word)


# Arabic and Hebrew write their article and the commonest prepositions and conjunctions joined to the word
# ("الخادم", the server; "والخادم", and the server; "השרת", the server; "בשרת", on the server), so a word of
# theirs asked without them (or with them, where the history has it bare) was missing. The forms of a word
# looked for, each a word of the index, the commonest first; at most MOST_FORMS of them are searched.
_ARABIC_BEFORE = ("ال", "وال", "بال", "فال", "لل", "و", "ب", "ل", "ف")
_HEBREW_BEFORE = ("ה", "ו", "ב", "ל", "מ", "ש", "וה", "שה", "מה", "כ")
_ARABIC = "[\u0600-\u06ff]"
_HEBREW = "[\u0590-\u05ff]"
MOST_FORMS = 6
# Letters a word keeps without what is joined to it, at least.
BARE_MIN = 3


def _clitics(low: str) -> tuple[str, ...]:
    """What Arabic or Hebrew joins before a word, by the script of ``low``; none for another script."""
    if low.isascii():
        return ()
    if re.match(_ARABIC, low):
        return _ARABIC_BEFORE
    return _HEBREW_BEFORE if re.match(_HEBREW, low) else ()


def clitic_forms(low: str) -> list[str]:
    """``low``, a word of Arabic or Hebrew, with each article or particle joined before it, and without the
    one it has ("خادم": الخادم, والخادم...; "השרת": שרת, בשרת...); none for a word of another script. A word
    missing as typed is looked for as them (:func:`readings`), and one found as typed is looked for as
    them too (``plan.with_clitics``): a text writes most nouns with the article."""
    before = _clitics(low)
    if not before:
        return []
    bare = [low[len(b) :] for b in sorted(before, key=len, reverse=True) if low.startswith(b)]
    bare = [w for w in bare if len(w) >= BARE_MIN][:1]
    roots = [low, *bare]
    return [w for w in dict.fromkeys(b + r for r in roots for b in ("", *before)) if w != low]


def _with_german_letters(low: str) -> list[str]:
    """``low`` (ASCII) with its "ae", "oe", "ue" as the index holds "ä", "ö", "ü" (a, o, u), then with its
    "ss" as "ß" too; none when it has neither."""
    vowels = low
    for typed, held in _VOWELS_HELD:
        vowels = vowels.replace(typed, held)
    both = vowels.replace("ss", "ß")
    return [w for w in dict.fromkeys([vowels, both]) if w != low]


# British and American spellings of one word, each way: (the part of the word, as the other writes it). Only
# at the end of a word, before its regular endings, where the two differ (colour, organise, analyse,
# cancelled, centre, licence, catalogue, programme, grey).
_ENDINGS = r"(?=(?:s|es|ed|ing|er|ers|ite|ites|able|ful|less|ation|ations|ly)?$)"
_SPELLINGS = (
    (rf"(?<=[a-z])our{_ENDINGS}", "or"),
    (rf"(?<=[a-z]{{2}})or{_ENDINGS}", "our"),
    (r"(?<=[a-z]{2})is(?=(?:e|es|ed|ing|er|ers|ation|ations)$)", "iz"),
    (r"(?<=[a-z]{2})iz(?=(?:e|es|ed|ing|er|ers|ation|ations)$)", "is"),
    (r"(?<=[a-z])ys(?=(?:e|es|ed|ing|er|ers)$)", "yz"),
    (r"(?<=[a-z])yz(?=(?:e|es|ed|ing|er|ers)$)", "ys"),
    (r"(?<=[a-z][aeiou])ll(?=(?:ed|ing|er|ers)$)", "l"),
    (r"(?<=[a-z][aeiou])l(?=(?:ed|ing|er|ers)$)", "ll"),
    (r"(?<=[a-z]{2}[^aeiou])re(?=s?$)", "er"),
    (r"(?<=[a-z]{2}[^aeiou])er(?=s?$)", "re"),
    (r"(?<=[a-z]{2})ence(?=s?$)", "ense"),
    (r"(?<=[a-z]{2})ense(?=s?$)", "ence"),
    (r"(?<=[a-z]{2})ogue(?=s?$)", "og"),
    (r"(?<=[a-z]{2})og(?=s?$)", "ogue"),
    (r"(?<=[a-z]{2}r)amme(?=s?$)", "am"),
    (r"(?<=[a-z]{2}r)am(?=s?$)", "amme"),
    (r"^grey", "gray"),
    (r"^gray", "grey"),
)


# The words of software that people write short as often as whole, each way: "kubernetes pvc" found
# nothing by its first word in a history that says "k8s" (a word of English is read as no slip).
_SHORT = {
    "k8s": "kubernetes", "db": "database", "repo": "repository", "config": "configuration",
    "auth": "authentication", "env": "environment", "prod": "production", "deps": "dependencies",
    "pg": "postgres", "postgresql": "postgres", "js": "javascript", "ts": "typescript", "msg": "message",
    "dir": "directory", "pkg": "package", "lib": "library", "img": "image", "docs": "documentation",
    "info": "information", "admin": "administrator", "app": "application", "cert": "certificate",
    "creds": "credentials", "pw": "password", "passwd": "password", "tmp": "temporary", "gh": "github",
    "cron": "crontab", "infra": "infrastructure", "perf": "performance", "mgmt": "management",
}  # fmt: skip
_ABBREVIATED: dict[str, tuple[str, ...]] = {}
for _short, _whole in _SHORT.items():
    _ABBREVIATED[_short] = (*_ABBREVIATED.get(_short, ()), _whole)
    _ABBREVIATED[_whole] = (*_ABBREVIATED.get(_whole, ()), _short)


@functools.cache
def _spellings() -> tuple[tuple[re.Pattern[str], str], ...]:
    """:data:`_SPELLINGS` compiled, on first use: every search would compile them at its start (1.5 ms of
    a command's 60), and few need them."""
    return tuple((re.compile(pattern), other) for pattern, other in _SPELLINGS)


def _british_or_american(low: str) -> list[str]:
    """``low`` as the other side of the Atlantic spells it ("colour": color, "optimize": optimise,
    "cancelled": canceled), each way its spelling may differ: a British asker's word was missing from a
    history whose agent writes American English, and a dictionary has both, so no slip was read in it."""
    return [w for w in dict.fromkeys(p.sub(other, low, count=1) for p, other in _spellings()) if w != low]


# Letters a word of another language keeps at least when read without its ending, and the most left out.
INFLECTED_KEPT = 4
INFLECTED_ENDING = 3


# The fewest letters a word the history lacks has to be read as the start of a longer word.
STARTS_MIN = 5


def starts(text: str) -> list[list[Reading]]:
    """A word the history lacks as typed, read as the start of a longer word it has: the first part of a
    German or Dutch compound ("Zugang": Zugangsdaten, "Sicherung": Sicherungskopie), a name's short form
    ("postgres": PostgreSQL). Of letters only, at least :data:`STARTS_MIN`, and not Chinese or Japanese (a
    run of those is read by its bigrams)."""
    low = text.lower()
    if not low.isalpha() or len(low) < STARTS_MIN or cjk.has_cjk(low):
        return []
    return [Longer([query.Term(low, prefix=True)])]


# The fewest letters a longer word goes on by to be another word than a form of the one typed (a compound's
# second part, with a joining "s": "Zugang" and "Zugangsdaten"; not "Server" and "Servern").
LONGER_BY = 3
# What a longer word may go on by that makes it a form of the word, not a compound: English's endings the
# word index's stemmer leaves on ("batter" is no start of "batteries").
_FORM_ENDINGS = frozenset((
    "ies", "ied", "ier", "iers", "iest", "ers", "ing", "ings", "ion", "ions", "ment", "ments", "ness", "able",
    "ably", "ible", "ity", "ities", "ive", "ives", "ism", "isms", "ist", "ists", "ize", "ized", "izes", "ise",
    "ised", "ally", "ical", "less", "ful", "ship", "ation", "ations",
))  # fmt: skip


def _longer(typed: str, texts: list[str]) -> str | None:
    """The word of ``texts`` that goes on from ``typed`` by :data:`LONGER_BY` letters or more, the one
    written most often, lower case; ``None`` when none does. Not a name of code in camel case
    ("formatDate"): its words typed apart are read as one name where they stand side by side ("format
    date"), and "format the date" is not about it."""
    start = stopwords.fold(typed.lower())
    words = Counter(
        w.lower()
        for text in texts
        for w in re.findall(_WORD, text)
        if (folded := stopwords.fold(w.lower())).startswith(start)
        and len(folded) - len(start) >= LONGER_BY
        and folded[len(start) :] not in _FORM_ENDINGS
        and not any(c.isupper() for c in w[1:])
    )
    return _commonest(words)


def inflections(text: str) -> list[list[Reading]]:
    """A word of another language than English, which the word index does not stem, read as the start of
    the word it is a form of: itself without its last one, two or three letters, each a tier, the longest
    first, at least :data:`INFLECTED_KEPT` kept ("серверы", servers, as сервер…: "сервер" and "сервера"
    are in the history; "διακομιστης", typed without its accent, as διακομιστ…). Asked of a word past
    ASCII no reading found (:func:`~hermes_trail.index.plan.inflectable`)."""
    low = text.lower()
    if not low.isalpha() or cjk.has_cjk(low):
        return []
    return [
        [query.Term(low[:-cut], prefix=True)]
        for cut in range(1, INFLECTED_ENDING + 1)
        if len(low) - cut >= INFLECTED_KEPT
    ]


def found(
    term: query.Term,
    tiers: list[list[Reading]],
    there: Callable[[list[Reading]], list[bool]],
    texts: Callable[[Reading], list[str]],
) -> tuple[query.Node, list[str]] | None:
    """The first reading of ``tiers`` (:func:`readings`, :func:`apart`, :func:`inflections` of ``term``)
    that an index has (``there``: which of a tier some doc has), with how its docs write it (``texts``: a
    few of them, :func:`shown`), which is the word said as searched for; of a tier of :class:`Forms`,
    every form the index has, any of them ("الخادم", "والخادم")."""
    for tier in tiers:
        if isinstance(tier, Longer):
            for reading in [r for r, has in zip(tier, there(tier), strict=True) if has]:
                if (longer := _longer(term.text, texts(reading))) is not None:
                    return reading, [longer]
            continue
        if isinstance(tier, Forms):
            forms = [r for r, has in zip(tier, there(tier), strict=True) if has][:MOST_FORMS]
            if forms:
                return forms[0] if len(forms) == 1 else query.Or(tuple(forms)), [r.text for r in forms]
            continue
        if tier and isinstance(tier[0], query.Phrase) and tier[0].prefix:
            # Only after a first half the index has as a word: the start of a second is every word it
            # begins (a tier of them took 80-110 ms in a million messages, this one 1-6).
            firsts = list(dict.fromkeys(r.text.split(" ")[0] for r in tier))
            words = {w for w, has in zip(firsts, there(list(map(query.Term, firsts))), strict=True) if has}
            tier = [r for r in tier if r.text.split(" ")[0] in words]
        for reading in [r for r, has in zip(tier, there(tier), strict=True) if has]:
            if (written := shown(term.text, reading, texts(reading))) is not None:
                return reading, [written]
    return None


def shown(typed: str, reading: Reading, texts: list[str]) -> str | None:
    """How ``texts`` (docs that have ``reading``) most often write it, lower case: "pre-commit" for the
    phrase "pre commit", the form of a word read by its start ("сервер" for серверы), "müller" for muller;
    ``None`` when a word typed with "ae", "oe", "ue" or "ss" is not written there with German's letters
    (it was another word: "aerial" and "Arial"), or when no word there is a form of the one typed ("lange"
    read as "lang…" finds "language")."""
    if isinstance(reading, query.Term) and reading.prefix:  # a word's start: the form it most often starts
        start = stopwords.fold(reading.text)
        words = Counter(
            w
            for text in texts
            for w in map(str.lower, re.findall(_WORD, text))
            if stopwords.fold(w).startswith(start) and _form_of(typed, w)
        )
        return _commonest(words)
    if isinstance(reading, query.Phrase):
        body = r"[\W_]{0,2}".join(map(re.escape, reading.text.split(" ")))
        tail = r"[^\W_]*" if reading.prefix else r"(?![^\W_])"
        pattern = re.compile(rf"(?<![^\W_]){body}{tail}", re.I)
        return (
            _commonest(Counter(m.group().lower() for text in texts for m in pattern.finditer(text)))
            or reading.text
        )
    low = typed.lower()
    if re.fullmatch(HYPHENATED, low) or not low.isascii() or reading.text not in _with_german_letters(low):
        return reading.text
    return _commonest(
        Counter(
            word
            for text in texts
            for word in map(str.lower, re.findall(_WORD, text))
            if _GERMAN.intersection(word) and stopwords.fold(word) == reading.text
        )
    )


def _form_of(typed: str, word: str) -> bool:
    """Whether ``word`` may be ``typed`` with another ending: both end within :data:`INFLECTED_ENDING`
    letters of where they part ("Servern" and "Server", "серверы" and "сервера"), not a longer word that
    starts alike ("lange" and "language")."""
    a, b = stopwords.fold(typed.lower()), stopwords.fold(word)
    common = next((at for at, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return len(a) - common <= INFLECTED_ENDING and len(b) - common <= INFLECTED_ENDING


def _commonest(seen: Counter[str]) -> str | None:
    """The word ``seen`` most often (of two as often, the later in alphabetical order); ``None`` for none."""
    return max(seen, key=lambda w: (seen[w], w)) if seen else None
