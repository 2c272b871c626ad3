"""Function words: what a question is made of but says nothing about which conversation it means.

"how much of the disk is used" names its subject with two words; the other five are in almost every
turn of every history. Left in, they decide the ranking (the newest window is full of them, and a snippet
marks them everywhere), so a query drops them whenever it has any other word, in every language the index
holds words of. A query of only function words ("to be or not to be") keeps them all: then they are the
subject.

The lists are the closed classes (articles, pronouns, auxiliaries, prepositions, conjunctions, question words,
common adverbs of degree), the politeness of a request and the hedges of someone who half-remembers
("I think", "maybe"), never a word that can be a command or what a
command does (``make``, ``get``, ``go``, ``use``, ``run``, ``list``, ``up``, ``down``), of English, German,
French, Spanish, Italian, Portuguese and Dutch, as the word index reads them (lower case, diacritics folded).
Chinese and Japanese have no spaces to drop a word at: their particles and question words split a run into the
parts that carry meaning (:func:`cjk_parts`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

_ENGLISH = """
a about above after again against all am an and any are aren't as at be because been before being below
between both but by can can't cannot could couldn't did didn't do does doesn't doing don't during
each few for from further had hadn't has hasn't have haven't having he her here hers herself him himself
his how i if in into is isn't it it's its itself just let's me more most much my myself no nor not now of
on once only or other ought our ours ourselves own same she should shouldn't so some such
than that that's the their theirs them themselves then there there's these they they're this those
through to too until very was wasn't we were weren't what what's when where which while who whom
why will with won't would wouldn't you your yours yourself yourselves yes also again already ever still
many may might must shall us via per vs etc anything something thing things way ways want wanted need
needed tell told know knew like please thanks thank okay ok hey hi hello did does done doing whether whose
where's who's how's when's why's here's what're who'd how'd i'm i've we've you're you've you'll you'd
they've they'll they'd he's she's ain't one ones
think maybe perhaps probably somehow
pls plz thx ty btw fyi lol imo imho tbh afaik aka asap versus e.g e.g. i.e i.e. eg w/ w/o
"""
# (The last line: what people type in a chat to fill it, which says nothing of what to find: "btw", "pls"
# and "e.g." were said missing, "Not found anywhere: pls".)
# Not the contractions that are words without their apostrophe, as the lists are read (``id``, ``ill``,
# ``well``, ``shell``, ``shed``, ``hell``, ``wed``: i'd, i'll, we'll, she'll, she'd, he'll, we'd).
_GERMAN = """
aber alle allem allen aller alles als also am an ans auch auf aus bei beim bin bis bist da dabei dafür
damit dann das dass dein deine dem den denn der des dessen dich die dies diese diesem diesen dieser dieses
dir doch dort du durch ein eine einem einen einer eines er es etwas euch euer für gegen gewesen hab habe
haben hat hatte hätte ich ihr ihre im in ist ja jede jedem jeden jeder jetzt kann kein keine können könnte
man mein meine mich mir mit muss nach nicht nichts noch nun nur ob oder ohne sehr sein seine sich sie
sind so soll sollte sondern über um und uns unser unter vom von vor war waren warum was weil welche
welcher wenn wer werden wie wieder will wir wird wo wurde würde zu zum zur wieso weshalb wann welches
vielleicht wahrscheinlich glaube irgendwie irgendwas irgendwo nochmal nochmals
inzwischen mittlerweile derzeit aktuell schon immer
"""
_FRENCH = """
au aux avec ce ces cet cette dans de des du elle elles en est et eux il ils je la le les leur leurs lui
ma mais me même mes moi mon ne nos notre nous on ou où par pas pour qu que quel quelle quels quelles qui
sa sans se ses son sont sur ta te tes toi ton tu un une vos votre vous est était été être avoir ai as
avons avez ont fait faire comment pourquoi quand combien y a à c ça cela ceci d l n s t j m qu
peut probablement pense crois
maintenant encore déjà actuellement
"""
_SPANISH = """
a al algo como con cual cuales cuando de del desde donde el ella ellas ellos en entre era es esa ese eso
esta estaba estas este esto estos fue ha han hay la las le les lo los me mi mis muy más nada ni no nos
o para pero por porque qué que quien se sea ser si sin sobre son su sus también te tengo tiene ti tu
un una uno unos y ya yo cómo cuál cuándo dónde por qué cuánto cuánta cuántos
quizás quizá probablemente creo
ahora todavía actualmente aún
"""
_ITALIAN = """
il lo la i gli le un uno una di da in con su per tra fra e ed o ma che chi cui non come dove quando
perché quale quali quanto è sono era del della dei degli delle nel nella al alla ai agli alle mi ti si ci
vi io tu lui lei noi voi loro mio tuo suo cosa ho hai ha abbiamo avete hanno dell dall nell sull all coll
quell adesso ora ancora già
"""
_PORTUGUESE = """
o os a as um uma uns umas de do da dos das em no na nos nas por pelo pela com para que quem qual como
onde quando porque é são foi ser estar está eu tu ele ela nós vós eles elas meu minha seu sua não sim
agora ainda já
"""
_DUTCH = """
de het een en van ik te dat die in is hij niet zijn op aan met als voor had er maar om hem dan zou of wat
mijn men dit zo door over ze zich bij ook tot je mij uit der daar haar naar heb hoe heeft hebben deze
u want nog zal me zij nu ge geen omdat iets worden toch al waren veel meer doen toen moet ben zonder kan
hun dus alles onder ja eens hier wie werd altijd doch wordt wezen kunnen ons zelf tegen na reeds wil
kon niets uw iemand geweest andere waar waarom wanneer
"""


def fold(word: str) -> str:
    """A word as the word index reads it: lower case, diacritics removed (and an accent typed apart from
    its letter, as macOS names files)."""
    if word.isascii():  # nothing to decompose (most of the tables below: folded at every start)
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _words(block: str) -> frozenset[str]:
    return frozenset(fold(word).replace("'", "") for word in block.split())


_ENGLISH_WORDS = _words(_ENGLISH)
# The other languages' function words that are not English ones: ``die``, ``dir``, ``man``, ``nas``,
# ``son`` and ``war`` are also words an English question about a machine is made of.
_FOREIGN = tuple(
    _words(block) - _ENGLISH_WORDS for block in (_GERMAN, _FRENCH, _SPANISH, _ITALIAN, _PORTUGUESE, _DUTCH)
)
STOPWORDS: frozenset[str] = _ENGLISH_WORDS.union(*_FOREIGN)
# The other languages' function words as they write them, for a word typed with accents that folds to one
# of English's: French "à" is one (folded, "a"), Vietnamese "máy" (machine) and "sở" none.
_WRITTEN = frozenset(
    word.lower()
    for block in (_GERMAN, _FRENCH, _SPANISH, _ITALIAN, _PORTUGUESE, _DUTCH)
    for word in block.split()
)


# Chinese and Japanese function words and particles: where a query's run is cut (longest first). Not the
# single Chinese characters that are also parts of words (都 of 京都, 在 of 现在, 会 of 会议).
_CJK_WORDS = """
怎么样 为什么 怎么 什么 如何 哪里 哪个 多少 是否 可以 能否 的话 时候 一下
多久 多长时间 多大 多远 多快 哪儿 哪些 怎样 为何 何时 几点 几个 几天
还是 或者 以及 这个 那个 这些 那些 我们 你们 他们 问题
的 了 吗 呢 吧 啊 请问 是不是 有没有 能不能 可不可以
どうやって どうして どうすれば ですか ました ません ている ていた について
として ください でした ですが する した して なに なぜ どう どこ いつ だれ どれ
どのくらい どれくらい どれぐらい いくら いくつ どんな どの
これ それ あれ この その あの ので から まで より ため です ます ない たい
の は が を に で と も へ や か ね よ な
"""
_CJK_FUNCTION = sorted(_CJK_WORDS.split(), key=len, reverse=True)


# The patterns below are compiled on first use: their Unicode ranges and alternatives take milliseconds to
# compile, which every search would pay at start-up for text that is mostly ASCII (they match none).
@functools.cache
def _cjk_split() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in _CJK_FUNCTION))


@functools.cache
def _cjk_script() -> re.Pattern[str]:
    return re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


# What joins function words into one ("qu'est-ce"): an apostrophe or a hyphen.
_JOINED = re.compile(r"['\u2019-]")
# The elided article or preposition a word starts with: "l'", "qu'", "dell'".
_ELIDED = re.compile(r"^([^\W\d_]{1,5})['\u2019](?=[^\W\d_])")


def _key(word: str) -> str:
    word = word.lower() if word.isascii() else fold(word)
    return word.replace("'", "").replace("\u2019", "")


# The asker speaking of themselves: a question with one of these is about the person, whom Hermes' USER.md
# describes (in the third person: "Prefers answers with the command first"). English, then German, French,
# Spanish, Italian, Portuguese and Dutch (as the word index reads them), then Chinese and Japanese.
_FIRST_PERSON = _words("i i'm i've i'd me my mine myself")
_FIRST_PERSON_FOREIGN = _words(
    """
    ich mich mir mein meine meinem meinen meiner je moi mon ma mes yo mi mis io mio mia miei mie eu meu
    minha meus minhas ik mij mijn
    """
)
# 私 with a particle after it: alone it also starts 私有 and 私钥 (private, a private key).
_FIRST_PERSON_CJK = ("我", "私の", "私は", "私が", "私に", "私を", "僕", "俺", "わたし", "ぼく")


# Phrases that say when, whose words are otherwise words of their own: "far" in "best checkpoint so far",
# "days" in "where do we train these days" (asking how things stand now) say nothing of what the question is
# about, which the rule of the newest fact reads by its rarest words ("far" was the first one's).
_TIME_PHRASES = (
    ("so", "far"),
    ("these", "days"),
    ("at", "the", "moment"),
    ("at", "present"),
    ("to", "date"),
    ("im", "moment"),
    ("zur", "zeit"),
    ("en", "ce", "moment"),
    ("en", "este", "momento"),
    ("hoy", "en", "dia"),
)


def time_phrase_words(words: list[str]) -> set[int]:
    """The places in ``words`` (a question's words in order, as written) of those in a phrase that says
    when ("so far", "these days", "at the moment", :data:`_TIME_PHRASES`)."""
    keys = [_key(w) for w in words]
    places: set[int] = set()
    for phrase in _TIME_PHRASES:
        width = len(phrase)
        for start in range(len(keys) - width + 1):
            if tuple(keys[start : start + width]) == phrase:
                places.update(range(start, start + width))
    return places


def speaks_of_self(words: list[str]) -> bool:
    """Whether a question's typed ``words`` have the asker speak of themselves ("how do I like answers laid
    out", "what's my role", "wann darf man mir schreiben"): a question about the person. A word of another
    language than English counts beside a second function word of that language, as :func:`is_stopword`
    reads them (``io`` in "io errors in the exporter" is no Italian "I")."""
    for word in words:
        key = _key(word)
        if key in _FIRST_PERSON and not (len(word) > 1 and word.isupper()):
            return True
        if key in _FIRST_PERSON_FOREIGN and is_stopword(word, words):
            return True
        if any(mark in word for mark in _FIRST_PERSON_CJK):
            return True
    return False


def is_stopword(term: str, among: Iterable[str] | None = None) -> bool:
    """Whether ``term`` (one typed word) is a function word of a language the index holds; a word typed
    in capitals (``GET``, ``IS``) was meant as it is.

    With ``among`` (the query's words), a function word of another language than English counts as one
    only when the query has a second function word of that language: in "restic snapshots on the nas",
    ``nas`` is the machine, not Portuguese for "in the"; in "os backups nas nuvens" both are Portuguese.
    """
    if len(term) > 1 and term.isupper():
        return False
    key = _key(term)
    if key in _ENGLISH_WORDS:
        # English writes its function words in ASCII (a curly apostrophe aside): a word with accents that
        # folds to one is another language's word, as Vietnamese "máy" (machine) is no "may", nor "sở" a
        # "so". It was dropped from "máy chủ" (server), which then matched any turn with "chủ".
        if term.replace("\u2019", "'").isascii():
            return True
        return term.lower().replace("\u2019", "'") in _WRITTEN
    if key not in STOPWORDS:
        # Function words of another language than English joined as one ("qu'est-ce", "n'est-ce",
        # "d'un"): one too. It was a word no turn has, said missing. Not English ones: "to-do" is a task.
        parts = [part for part in _JOINED.split(term) if part]
        return len(parts) > 1 and all(
            _key(part) not in _ENGLISH_WORDS and is_stopword(part, among) for part in parts
        )
    return _of_another_language(key, among, _FOREIGN)


def _of_another_language(
    key: str, among: Iterable[str] | None, languages: tuple[frozenset[str], ...]
) -> bool:
    """Whether ``key`` is a function word of one of ``languages``: with ``among`` (the query's words), only
    when the query has a second function word of that language."""
    if not any(key in language for language in languages):
        return False
    if among is None:
        return True
    # A word's elided article counts as one of its language's (the "l" of "l'erreur", the "dell" of
    # "dell'API"): "l'erreur de connexion" has two French ones, and "de" was searched for and marked.
    said = [part for word in among for part in (word, *_ELIDED.findall(word))]
    others = {_key(word) for word in said if not (len(word) > 1 and word.isupper())} - {key}
    return any(key in language and not others.isdisjoint(language) for language in languages)


_LANGUAGES = ("de", "fr", "es", "it", "pt", "nl")
# Each function word's languages, by their place in _LANGUAGES (-1: English): one look-up a word of a text
# (the meaning pass tells the language of the first turn of each conversation it offers, 100 texts a search).
_LANGUAGES_OF: dict[str, tuple[int, ...]] = dict.fromkeys(_ENGLISH_WORDS, (-1,))
for _place, _words_of in enumerate(_FOREIGN):
    for _word in _words_of:
        _LANGUAGES_OF[_word] = (*_LANGUAGES_OF.get(_word, ()), _place)
# How much of a text tells its language: a few sentences.
LANGUAGE_CHARS = 600
# A word of letters, whole: not the letters of a hash, a UUID or an identifier ("6f1f0d6e-2a7b-4c8e",
# "product_list", "220G") nor a part of a path or a dotted name ("views.py", "amazonaws.com"): their "d",
# "e", "c", "com" and "ist" are no function words (hex digits made a Terraform unlock's output French).
_WORD = re.compile(r"(?<![\w./\\])[^\W\d_]+(?:'[^\W\d_]+)?(?![\w/\\]|\.\w)")


def language(text: str) -> str:
    """The language a text is written in, as far as its function words tell: ``cjk`` for Chinese or
    Japanese script, a code for the other languages the index knows the function words of when the text
    has at least two of that language's own, else ``en``. What the search needs to know is only whether
    a question and a conversation can share words at all."""
    text = text[:LANGUAGE_CHARS]
    if not text.isascii() and _cjk_script().search(text):
        return "cjk"
    counts = [0] * len(_LANGUAGES)
    english = 0
    ascii_only = text.isascii()
    for word in _WORD.findall(text.lower() if ascii_only else text):
        if len(word) > 12:  # function words are short
            continue
        key = word.replace("'", "") if ascii_only else _key(word)  # as _key reads it, the text lowered once
        for language in _LANGUAGES_OF.get(key, ()):
            if language < 0:
                english += 1
            else:
                counts[language] += 1
    best = max(range(len(_LANGUAGES)), key=counts.__getitem__)  # the first of the most, in their order
    return _LANGUAGES[best] if counts[best] >= 2 and counts[best] >= english else "en"


def cjk_parts(run: str) -> list[str]:
    """A run of Chinese or Japanese cut at its function words: the parts that carry its meaning
    (``如何修复数据库连接超时`` gives ``修复数据库连接超时``), the run itself when nothing is left."""
    parts = [part for part in _cjk_split().split(run) if part]
    words = [part for part in parts if len(part) > 1]  # a lone character left between two cuts says little
    return words or parts or [run]
