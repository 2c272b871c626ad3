"""What a person types into a search box, read as a query for the index and never as FTS5 syntax.

:func:`parse` reads the text into a small tree; :func:`to_fts` and :func:`to_trigram` write it as a MATCH
expression for the word index (``docs_fts``) and the trigram index (``docs_tri``). Every term goes out as
a quoted FTS5 string, so nothing a person types (``col:value``, ``NEAR(``, ``^``, a stray quote) can be
FTS5 syntax, and no input raises a MATCH error.

What :func:`parse` understands; anything else is plain text::

    query := item*                          items are AND-ed; an AND between two items is allowed
    item  := '-' unit | 'NOT' unit | alts   an exclusion, or alternatives
    alts  := unit (('OR' | '|') unit)*
    unit  := word | word* | "phrase" | "phrase"* | ( query )

- ``OR`` binds tighter than the implicit AND, as in web search: ``error build OR test`` is
  ``error AND (build OR test)``. Parentheses say otherwise.
- An operator acts only where it can: ``OR`` and ``|`` between two units, ``NOT`` and ``-`` before one,
  ``AND`` between two items. Elsewhere (``OR foo``, ``foo NOT``, ``a OR -b``) it is a plain word. Only
  upper-case ``OR``, ``AND``, ``NOT`` are operators, and ``NOT`` not inside text written in capitals
  (``DO NOT MATCH``, ``NOT NULL``, ``404 NOT FOUND``: an error message as printed).
- ``-`` excludes only at the start of a word and not before a digit or another ``-``: ``-1``, ``--force``
  and ``foo-bar`` are words.
- Quotes pair up from the left into phrases, also inside a word (``say"hi there"`` is ``say`` and a
  phrase); a last unpaired ``"`` is dropped. Inside a phrase nothing is an operator. A phrase is also
  quoted as a phone or a word processor quotes it (``“…”``, ``„…“``, ``«…»``, ``»…«``, ``「…」``) and
  as Markdown quotes code (`` `redis-cli ping` ``), from the start of a word.
- Parentheses group only when they pair up, at a word's edge, at most :data:`MAX_DEPTH` deep; others are
  characters (``f(x)`` is one word).
- The marks of a sentence around a word are not part of it: ``why?`` is ``why``, ``down,`` is ``down``,
  ``¿qué`` is ``qué``, ``'start_period'`` is ``start_period``; inside a word they stay (``node.js``).
- A trailing ``*`` asks for a prefix. Leading ``*`` (the glob habit, ``*.py``) are dropped: the word index
  has no suffix search and the trigram index matches anywhere anyway.
- Full-width letters and digits are their ASCII ones, and a word of a script written with spaces ends
  where a run of Chinese, Japanese or Korean starts (``用Docker部署`` is 用, Docker and 部署), as the word
  indexes read their text (:func:`~hermes_trail.index.cjk.spaced`).
- Control characters, NUL and lone surrogates separate words: SQLite cannot take them in a MATCH string
  (a NUL ends it early, a surrogate cannot be encoded).
- A query of only exclusions is no query: FTS5 can only subtract from something. Searching, it is read
  as typed (:func:`with_flags`): "-Wall" alone is the flag.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import ClassVar, NamedTuple, TypeVar

from hermes_trail.model import _Frozen

__all__ = [
    "And",
    "Not",
    "Or",
    "Phrase",
    "Query",
    "Term",
    "needs_trigram",
    "parse",
    "terms",
    "to_fts",
    "to_trigram",
]

# Deeper pairs are read as text. FTS5's own parser overflows near 100 levels of parentheses, and each
# level here can become three in the expression; nobody types eight.
MAX_DEPTH = 8

# The trigram tokenizer indexes runs of three characters: a shorter string matches no row at all.
TRIGRAM_MIN = 3


# The tree's classes are written out as the model's are (``model._Frozen``: the ``__init__``, ``repr``,
# ``==``, hashing and refused assignment ``@dataclass(frozen=True)`` made), so that every ``trail search``
# does not generate and compile their methods at start-up.
class Term(_Frozen):
    """A word as typed, without its operators; ``prefix`` when it ended in ``*``."""

    _fields: ClassVar[tuple[str, ...]] = ("text", "prefix")
    __slots__ = _fields
    __match_args__ = _fields

    text: str
    prefix: bool

    def __init__(self, text: str, prefix: bool = False) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "prefix", prefix)


class Phrase(_Frozen):
    """Quoted words, to be found together and in order (whitespace inside collapsed to one space)."""

    _fields: ClassVar[tuple[str, ...]] = ("text", "prefix")
    __slots__ = _fields
    __match_args__ = _fields

    text: str
    prefix: bool

    def __init__(self, text: str, prefix: bool = False) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "prefix", prefix)


class Not(_Frozen):
    """An exclusion; only ever an item of an :class:`And`."""

    _fields: ClassVar[tuple[str, ...]] = ("node",)
    __slots__ = _fields
    __match_args__ = _fields

    node: Node

    def __init__(self, node: Node) -> None:
        object.__setattr__(self, "node", node)


class Or(_Frozen):
    """Alternatives, two or more."""

    _fields: ClassVar[tuple[str, ...]] = ("nodes",)
    __slots__ = _fields
    __match_args__ = _fields

    nodes: tuple[Node, ...]

    def __init__(self, nodes: tuple[Node, ...]) -> None:
        object.__setattr__(self, "nodes", nodes)


class And(_Frozen):
    """Items that must all hold, and exclusions (:class:`Not`) that must not."""

    _fields: ClassVar[tuple[str, ...]] = ("nodes",)
    __slots__ = _fields
    __match_args__ = _fields

    nodes: tuple[Node, ...]

    def __init__(self, nodes: tuple[Node, ...]) -> None:
        object.__setattr__(self, "nodes", nodes)


Node = Term | Phrase | Not | Or | And


class Query(_Frozen):
    """A parsed query; ``root`` is ``None`` when the text held nothing to search for."""

    _fields: ClassVar[tuple[str, ...]] = ("root",)
    __slots__ = _fields
    __match_args__ = _fields

    root: Node | None

    def __init__(self, root: Node | None) -> None:
        object.__setattr__(self, "root", root)


# ---------------------------------------------------------------------------------------------- lexing

_WORD, _PHRASE, _LPAREN, _RPAREN, _NEG, _PIPE = "word", "phrase", "(", ")", "-", "|"
_OPERATORS = frozenset({"OR", "AND", "NOT"})
# ``NOT`` in text written in capitals (:func:`_in_capitals`): a word, never an operator.
_TEXT = "text"
# C0 and C1 controls (NUL, tabs, newlines included) and lone surrogates.
_UNSAFE = "[\x00-\x1f\x7f-\x9f\ud800-\udfff]"
# A terminal's colour and cursor codes (ANSI escape sequences), in output piped or passed on with them:
# read as text, "\x1b[31mFAILED" was the word "31mfailed".
_ESCAPES = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"


@functools.cache
def _compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern of this module compiled on first use: the Unicode ranges take milliseconds to compile,
    which every ``trail search`` would pay at start-up, where most queries are ASCII and need none."""
    return re.compile(pattern, flags)


def _safe(text: str) -> str:
    """``text`` without a terminal's escape codes (:data:`_ESCAPES`) and with every :data:`_UNSAFE`
    character a space (printable ASCII has none)."""
    if text.isascii() and text.isprintable():
        return text
    if "\x1b" in text:
        text = _compiled(_ESCAPES).sub("", text)
    return _compiled(_UNSAFE).sub(" ", text)


class _Tok(NamedTuple):
    kind: str
    text: str = ""
    prefix: bool = False


# The quotes that open a phrase at the start of a word besides '"', each with the ones that close it:
# typographic quotes (a phone's keyboard and a word processor write them for '"', and German, French and
# Russian quote so), the corner brackets of Chinese and Japanese, and Markdown's backtick around code.
_QUOTES = {"\u201c": "\u201d\u201c", "\u201e": "\u201c\u201d", "\u00ab": "\u00bb", "\u00bb": "\u00ab"}
_QUOTES |= {"\u300c": "\u300d", "\u300e": "\u300f", "`": "`"}


def _closing(s: str, opened: int) -> int:
    """Where the quote opened at ``opened`` (:data:`_QUOTES`) closes in ``s``; -1 when it does not."""
    closers = _QUOTES[s[opened]]
    return min((at for c in closers if (at := s.find(c, opened + 1)) != -1), default=-1)


def _lex(text: str) -> list[_Tok]:
    s = _safe(text)
    if not s.isascii():  # read as the word indexes read their text ("用Docker部署", "ＡＰＩ")
        from hermes_trail.index import cjk

        s = cjk.spaced(s)
    toks: list[_Tok] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c == '"' or (c in _QUOTES and (i == 0 or s[i - 1].isspace() or s[i - 1] in "(")):
            close = s.find('"', i + 1) if c == '"' else _closing(s, i)
            if close == -1:  # the last, unpaired quote: a forgotten closing quote, not text to find
                i += 1
                continue
            end = close + 1
            while end < n and s[end] == "*":
                end += 1
            toks.append(_Tok(_PHRASE, s[i + 1 : close], end > close + 1))
            i = end
            continue
        if c in "()":
            toks.append(_Tok(c, c))
            i += 1
            continue
        if c == "|":
            end = i
            while end < n and s[end] == "|":
                end += 1
            toks.append(_Tok(_PIPE, s[i:end]))
            i = end
            continue
        if c == "-" and i + 1 < n and not (s[i + 1].isspace() or s[i + 1] in "-|)" or s[i + 1].isdigit()):
            toks.append(_Tok(_NEG, c))
            i += 1
            continue
        # A word runs to whitespace, a quote, a pipe, or a ')' it did not open: 'f(x))' is 'f(x)' and ')'.
        end, depth = i, 0
        while end < n:
            ch = s[end]
            if ch.isspace() or ch in '"|' or (ch == ")" and depth == 0):
                break
            depth += ch == "("
            depth -= ch == ")"
            end += 1
        toks.append(_Tok(_WORD, s[i:end]))
        i = end
    return _in_capitals(_pair_parens(toks))


def _in_capitals(toks: list[_Tok]) -> list[_Tok]:
    """``NOT`` inside text written in capitals is its word, not an exclusion: an error pasted as printed
    ("THESE PACKAGES DO NOT MATCH THE HASHES", "NOT NULL constraint failed", "404 NOT FOUND") or SQL
    ("WHERE email IS NOT NULL") left out the very conversations that had the error. Text in capitals: the
    word after it is written in capitals (two letters or more), and the one before it, if any, too or is a
    number. A ``NOT`` between words in lower case ("nginx NOT apache") or before a single letter excludes.
    (``OR`` and ``AND`` there stay operators: an alternative only widens a search, and AND is implied.)"""

    def capitals(tok: _Tok | None) -> bool:
        return (
            tok is not None
            and tok.kind == _WORD
            and tok.text.isupper()
            and sum(map(str.isalpha, tok.text)) > 1
        )

    def number(tok: _Tok) -> bool:
        return tok.kind == _WORD and not any(map(str.isalpha, tok.text))

    out = list(toks)
    for i, tok in enumerate(toks):
        if tok != (_WORD, "NOT", False) or not capitals(toks[i + 1] if i + 1 < len(toks) else None):
            continue
        before = toks[i - 1] if i else None
        if before is None or capitals(before) or number(before):
            out[i] = _Tok(_TEXT, tok.text)
    return out


def _pair_parens(toks: list[_Tok]) -> list[_Tok]:
    """Parentheses that pair up (within :data:`MAX_DEPTH`) stay; the others become words."""
    open_at: list[int] = []
    paired: set[int] = set()
    for i, tok in enumerate(toks):
        if tok.kind == _LPAREN:
            open_at.append(i)
        elif tok.kind == _RPAREN and open_at:
            j = open_at.pop()
            if len(open_at) < MAX_DEPTH:
                paired.update((i, j))
    return [
        _Tok(_WORD, tok.text) if tok.kind in (_LPAREN, _RPAREN) and i not in paired else tok
        for i, tok in enumerate(toks)
    ]


# --------------------------------------------------------------------------------------------- parsing


def parse(text: str) -> Query:
    """Read what a person typed into a search box; never raises.

    :param text: the query as typed, any characters at all.
    """
    return Query(_Parser(_lex(text)).conjunction())


def _starts_unit(tok: _Tok | None) -> bool:
    return tok is not None and tok.kind in (_WORD, _TEXT, _PHRASE, _LPAREN)


def _is_neg(tok: _Tok | None) -> bool:
    return tok is not None and tok.kind == _NEG


def _starts_alternative(tok: _Tok | None) -> bool:
    return _starts_unit(tok) and not (tok is not None and tok.kind == _WORD and tok.text in _OPERATORS)


class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.pos = 0

    def peek(self, ahead: int = 0) -> _Tok | None:
        at = self.pos + ahead
        return self.toks[at] if at < len(self.toks) else None

    def conjunction(self) -> Node | None:
        """Items up to the end or to the ')' that closes this group (left for the caller)."""
        items: list[Node] = []
        while (tok := self.peek()) is not None and tok.kind != _RPAREN:
            after = self.peek(1)
            if tok == (_WORD, "AND", False) and items and (_starts_unit(after) or _is_neg(after)):
                self.pos += 1
                continue
            if (tok.kind == _NEG or tok == (_WORD, "NOT", False)) and _starts_unit(after):
                self.pos += 1
                excluded = self.unit()
                if excluded is not None:
                    items.append(Not(excluded))
                continue
            node = self.alternatives()
            if isinstance(node, And):  # a group's items join ours, exclusions included
                items.extend(node.nodes)
            elif node is not None:
                items.append(node)
        if not items:
            return None
        if len(items) == 1 and not isinstance(items[0], Not):
            return items[0]
        return And(tuple(items))

    def alternatives(self) -> Node | None:
        options = [self.unit()]
        while (tok := self.peek()) is not None and (tok.kind == _PIPE or tok == (_WORD, "OR", False)):
            if not _starts_alternative(self.peek(1)):
                break
            self.pos += 1
            options.append(self.unit())
        nodes: list[Node] = []
        for option in options:
            if isinstance(option, Or):
                nodes.extend(option.nodes)
            elif option is not None:
                nodes.append(option)
        if not nodes:
            return None
        return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))

    def unit(self) -> Node | None:
        tok = self.toks[self.pos]
        self.pos += 1
        if tok.kind == _PHRASE:
            text = " ".join(tok.text.split())
            return Phrase(text, tok.prefix) if text else None
        if tok.kind == _LPAREN:
            node = self.conjunction()
            self.pos += 1  # its ')': pairs are balanced, so conjunction() stopped there
            return node
        # A word, a stray '-' or '|' or operator, all read as text; the marks of the sentence around it
        # are not part of it.
        body = _unmarked(tok.text).lstrip("*")
        if not body:
            return Term(tok.text)
        stem = body.rstrip("*")
        return Term(stem, prefix=len(stem) < len(body))


# What ends a sentence or a clause after a word ("why?", "down,", "slow..."), and what opens a Spanish one
# before it ("¿qué"): not part of the word, which would otherwise be no function word ("why?"), a word no
# index holds ("spät?"), and a term for the trigram index (as punctuation makes one look like code). Inside
# a word they stay (``node.js``, ``a,b``, ``f(x).y``).
_TRAILING_MARKS = ".,;:?!…。，、；：？！'\u2019`\u201d\u201c\u00bb\u00ab\u300d\u300f"
_LEADING_MARKS = "¿¡'\u2018`\u201c\u201e\u00ab\u00bb\u300c\u300e"


def _unmarked(text: str) -> str:
    """``text`` without the sentence's marks at its ends; as typed when nothing but marks is left."""
    word = text.rstrip(_TRAILING_MARKS).lstrip(_LEADING_MARKS)
    return word if _has_token(word) else text


# ----------------------------------------------------------------------------------------- expressions

_Leaf = Term | Phrase


def _is_token_char(ch: str) -> bool:
    # unicode61 keeps letters, numbers and private-use characters ("L* N* Co"). Its Unicode tables are
    # older than Python's (6.1 in SQLite 3.40): it also keeps what they leave unassigned (Cn), and so
    # reads characters assigned since then (newer emoji, some marks) as word characters where this reads
    # them as punctuation. A term of only those is dropped here though FTS5 could find it: a looser
    # query, never a wrong error.
    category = unicodedata.category(ch)
    return category[0] in "LN" or category in ("Co", "Cn")


def _has_token(text: str) -> bool:
    """Whether the word index's tokenizer would find any word in ``text`` (else it is punctuation)."""
    return any(map(_is_token_char, text))


def _quote(text: str) -> str:
    # parse() never leaves a quote, NUL or surrogate in a term, but a tree built by hand may.
    return '"' + _safe(text).replace('"', '""') + '"'


def _join(parts: list[str], operator: str) -> str | None:
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else "(" + f" {operator} ".join(parts) + ")"


def _render(node: Node, leaf: Callable[[_Leaf], str | None]) -> str | None:
    """``node`` as an FTS5 expression, each term written by ``leaf`` (``None``: the term drops out)."""
    if isinstance(node, Term | Phrase):
        return leaf(node)
    if isinstance(node, Not):  # an exclusion on its own selects nothing
        return None
    parts = [p for n in node.nodes if not isinstance(n, Not) and (p := _render(n, leaf)) is not None]
    if isinstance(node, Or):
        return _join(parts, "OR")
    # FTS5 has only a binary NOT: what is kept, then NOT what goes.
    kept = _join(parts, "AND")
    excluded = [p for n in node.nodes if isinstance(n, Not) and (p := _render(n.node, leaf)) is not None]
    if kept is None or not excluded:
        return kept
    return f"({kept} NOT {_join(excluded, 'OR')})"


_T = TypeVar("_T")


def fold(
    node: Node | None,
    leaf: Callable[[_Leaf], _T | None],
    join: Callable[[list[_T], bool], _T],
    exclude: Callable[[_T, _T], _T],
) -> _T | None:
    """``node`` made into another language's expression: each term or phrase by ``leaf`` (``None``: it
    drops out), the parts an AND or OR keeps by ``join`` (``True`` for OR), and what an AND excludes taken
    from what it keeps by ``exclude``, one exclusion at a time. ``None`` when nothing is left to find (an
    exclusion alone selects nothing). The shared index's tsquery and substrings, and ``how``'s doc ids
    through two indexes, are made so."""
    if node is None or isinstance(node, Not):
        return None
    if isinstance(node, Term | Phrase):
        return leaf(node)
    folded = (fold(n, leaf, join, exclude) for n in node.nodes if not isinstance(n, Not))
    parts = [p for p in folded if p is not None]
    if not parts:
        return None
    made = join(parts, isinstance(node, Or))
    if isinstance(node, And):
        for n in node.nodes:
            if isinstance(n, Not) and (left_out := fold(n.node, leaf, join, exclude)) is not None:
                made = exclude(made, left_out)
    return made


def _fts_leaf(leaf: _Leaf) -> str | None:
    if not _has_token(leaf.text):
        return None
    return _quote(leaf.text) + (" *" if leaf.prefix else "")


def to_fts(query: Query) -> str | None:
    """The MATCH expression for the word index (``docs_fts``), ``None`` when there is nothing to find.

    Terms and phrases become quoted FTS5 strings (the tokenizer makes a multi-word string a phrase, so
    ``snake_case`` finds ``snake_case`` and ``snake case``); prefixes become ``"term" *``. Terms the
    tokenizer reads as punctuation only are left out, since FTS5 would match them against nothing; a
    query left with no positive term is ``None``.
    """
    return None if query.root is None else _render(query.root, _fts_leaf)


class _Unanswerable(Exception):
    """A term the trigram index cannot match (too short): its answer would be wrong, not just poor."""


def _trigram_leaf(leaf: _Leaf) -> str | None:
    if len(leaf.text) >= TRIGRAM_MIN:
        return _quote(leaf.text)
    if not _has_token(leaf.text):
        return None  # '-', '|', a stray ')': debris the word index ignores too
    raise _Unanswerable


def to_trigram(query: Query) -> str | None:
    """The MATCH expression for the trigram index (``docs_tri``): every term and phrase as a substring.

    ``None`` when there is nothing to find, or when any term, alternative or exclusion has fewer than
    three characters: the trigram index matches such a string against no row, so the answer would miss
    rows (a term, an alternative) or keep rows it should drop (an exclusion). A prefix is a substring.
    """
    if query.root is None:
        return None
    try:
        return _render(query.root, _trigram_leaf)
    except _Unanswerable:
        return None


# ------------------------------------------------------------------------------------------ inspection


def excluded_fts(query: Query) -> str | None:
    """The query's exclusions (``-word``, ``-"a phrase"``, at its top) as one word-index MATCH expression
    of any of them; ``None`` without one. What the weaker evidence (any of the words, meaning) leaves out
    too: a turn with an excluded word is no answer, however the rest of the query found it."""
    parts = [p for n in exclusions(query) if (p := _render(n, _fts_leaf)) is not None]
    return _join(parts, "OR")


def exclusions(query: Query) -> list[Node]:
    """What the query excludes at its top (``-word``, ``-"a phrase"``): each excluded node."""
    root = query.root
    nodes = root.nodes if isinstance(root, And) else ()
    return [n.node for n in nodes if isinstance(n, Not)]


def _positive_leaves(node: Node | None) -> list[_Leaf]:
    if node is None or isinstance(node, Not):
        return []
    if isinstance(node, Term | Phrase):
        return [node]
    return [leaf for n in node.nodes for leaf in _positive_leaves(n)]


def phrases(query: Query) -> list[Phrase]:
    """The quoted phrases to find (not the excluded ones), in order, each once."""
    return list(dict.fromkeys(leaf for leaf in _positive_leaves(query.root) if isinstance(leaf, Phrase)))


def as_typed(text: str, words: list[str]) -> list[str]:
    """``words`` of the question ``text`` (as it was read: full-width letters as ASCII, Turkish ı as i,
    ``cjk.narrowed``, one character for one) as they were typed there, where a word read so was: a word
    said missing is the asker's ("bağlantı", not "bağlanti")."""
    if text.isascii():
        return words
    from hermes_trail.index import cjk

    read = cjk.narrowed(text)
    if read == text:
        return words
    out = []
    for word in words:
        at = read.find(word)
        out.append(text[at : at + len(word)] if at >= 0 else word)
    return out


def terms(query: Query) -> list[str]:
    """The texts of the terms and phrases to find (not the excluded ones), in order, each once.

    Punctuation neither index can search (``-``, ``|``, a stray ``(``) is left out.
    """
    found = [
        leaf.text
        for leaf in _positive_leaves(query.root)
        if _has_token(leaf.text) or len(leaf.text) >= TRIGRAM_MIN
    ]
    return list(dict.fromkeys(found))


# What a word index splits into pieces or loses: paths, URLs, file names and dotted or scoped names,
# dotfiles, variables and long flags, C++ and C#.
_CODE_LIKE = re.compile(
    r"""
      ://                           # a URL
    | [\w.~][/\\] | [/\\][\w.~]     # a path: src/a.py, ./x, ~/x, C:\dir, /etc
    | \w(?:\.|::|->|:)\w            # a file or dotted/scoped name: query.py, os.path, a::b, a->b, host:80
    | ^(?:\.|\$|--)\w               # a dotfile, a variable, a long flag: .env, $HOME, --force
    | \w(?:\+\+|\#)(?!\w)           # C++, C#
    """,
    re.VERBOSE,
)


def needs_trigram(query: Query) -> bool:
    """Whether a term to find is one the word index cannot answer well, and the trigram index can.

    That is text in a script without spaces between words (Chinese, Japanese, Korean), and text that looks
    like a path, a URL, a file name, a dotted or scoped name, a dotfile, a variable or a flag. Not
    ``snake_case`` or an error code (``E0308``, ``ENOENT``, ``ERR_NOT_FOUND``): the word index finds
    those exactly, as one word or as a phrase of its parts, in prose and tool output the trigram index
    does not hold.
    """
    return any(leaf_needs_trigram(leaf) for leaf in _positive_leaves(query.root))


# ------------------------------------------------------------------------------------------- rewriting


def with_flags(parsed: Query, text: str, written: Callable[[str, str], bool]) -> Query:
    """``parsed`` with each word a dash excludes searched for as a flag where ``written`` (the word before,
    the flag) says the history writes them so: right after that word ("rm -rf", "curl -H", "python -m
    pytest -x"), else after any word (``written`` with no word: "docker -af", "why -lstdc++fs", "the
    -Wall flag"). A command line pasted whole excluded the very command it asks for, and a question about a
    flag found nothing, or what its other words found. An exclusion the history does not write so ("deploy
    -staging") stays one, and so does ``NOT word``; a query of exclusions alone is read as typed
    (:func:`_excluded_alone`)."""
    root = parsed.root
    if not isinstance(root, And) or not any(isinstance(n, Not) for n in root.nodes):
        return parsed
    if all(isinstance(n, Not) or _function_word(n) for n in root.nodes):
        return Query(_excluded_alone(root, text))
    nodes = list(root.nodes)
    for at, node in enumerate(nodes):
        if not (isinstance(node, Not) and isinstance(node.node, Term)) or node.node.prefix:
            continue
        flag = node.node.text
        if not re.search(rf"(?<!\S)-{re.escape(flag)}(?!\S)", text):
            continue  # excluded by NOT
        before = nodes[at - 1] if at else None
        word = before.text if isinstance(before, Term) and not before.prefix else ""
        beside = bool(word) and re.search(rf"(?<!\S){re.escape(word)}\s+-{re.escape(flag)}(?!\S)", text)
        if (beside and written(word, flag)) or written("", flag):
            nodes[at] = Term(f"-{flag}")
    return Query(And(tuple(nodes)))


def _function_word(node: Node) -> bool:
    from hermes_trail.index import stopwords  # not at import: a query is parsed before any index is read

    return isinstance(node, Term) and not node.prefix and stopwords.is_stopword(node.text)


def _excluded_alone(root: And, text: str) -> Node:
    """A query of exclusions alone (or beside function words: "what is -Wall"), read as what was typed: an
    exclusion selects nothing on its own, so "-Wall", "-af" or "-lstdc++fs" (a flag pasted alone) said "No
    match" and named no word missing, and "what is -Wall" found what "what is" finds. A word typed with its
    dash is that flag; one after ``NOT``, and a phrase or group, is itself."""
    nodes: list[Node] = []
    for node in root.nodes:
        if not isinstance(node, Not):
            nodes.append(node)
            continue
        excluded = node.node
        if (
            isinstance(excluded, Term)
            and not excluded.prefix
            and re.search(rf"(?<!\S)-{re.escape(excluded.text)}(?!\S)", text)
        ):
            excluded = Term(f"-{excluded.text}")
        nodes.extend(excluded.nodes if isinstance(excluded, And) else (excluded,))
    return nodes[0] if len(nodes) == 1 else And(tuple(nodes))


def conjuncts(query: Query) -> list[Term]:
    """The plain words every match must have: the query's own term, or the terms directly AND-ed at its
    top (nested groups of AND included), in order. Not phrases, alternatives or exclusions: those were
    typed as they are meant."""

    def walk(node: Node | None) -> list[Term]:
        if isinstance(node, Term):
            return [node]
        if isinstance(node, And):
            return [t for n in node.nodes if not isinstance(n, Not | Or | Phrase) for t in walk(n)]
        return []

    return walk(query.root)


def rewrite(query: Query, change: Mapping[Term, Node | None]) -> Query:
    """The query with some of its :func:`conjuncts` replaced (by a term, or by an :class:`And` of terms
    that must all hold; ``None``: dropped). A conjunction left with nothing positive to find is no query
    (exclusions alone select nothing)."""

    def walk(node: Node) -> Node | None:
        if isinstance(node, Term):
            return change.get(node, node)
        if not isinstance(node, And):
            return node
        kept = [k for n in node.nodes if (k := walk(n) if not isinstance(n, Not | Or | Phrase) else n)]
        if not any(not isinstance(k, Not) for k in kept):
            return None
        return kept[0] if len(kept) == 1 else And(tuple(kept))

    return Query(None if query.root is None else walk(query.root))


def last_term(query: Query) -> Term | None:
    """The query's last word when it is a plain word every match must have: the one a person may still
    be typing."""
    leaves = _positive_leaves(query.root)
    found = conjuncts(query)
    if not leaves or not found or leaves[-1] is not found[-1] or found[-1].prefix:
        return None
    return found[-1]


def leaf_fts(leaf: Term | Phrase) -> str | None:
    """One term or phrase as a word-index MATCH expression (``None``: only punctuation)."""
    return _fts_leaf(leaf)


def nothing_to_find(leaf: Term | Phrase) -> bool:
    """Whether ``leaf`` is punctuation alone ("!", "..."), which neither the word index nor the trigram index
    can look for: nothing to find, so nothing missing (the local and the shared index alike)."""
    return leaf_fts(leaf) is None and not (leaf_needs_trigram(leaf) and len(leaf.text) >= TRIGRAM_MIN)


def leaf_needs_trigram(leaf: Term | Phrase) -> bool:
    """Whether one term is for the trigram index (see :func:`needs_trigram`)."""
    text = leaf.text
    # A run of a script written without spaces between words, which a word index reads as one word (no
    # ASCII is in those scripts).
    unspaced = not text.isascii() and _has_run(text)
    return bool(unspaced or _CODE_LIKE.search(text))


def _has_run(text: str) -> bool:
    from hermes_trail.index import cjk  # imported here, as by _lex: most questions are ASCII

    return cjk.has_cjk(text)


# A name whose marks make it another name than its letters (C++, C#, F#, g++): the word index drops the
# marks and holds "c", which Objective-C, C: and "bash -c" have too.
_MARKED_NAME = re.compile(r"[^\W_]+(?:\+\+|#)")


def marked_names(query: Query) -> list[str]:
    """The words every match must have that are such names, lower case, as a match must write them."""
    return [t.text.lower() for t in conjuncts(query) if is_marked_name(t.text)]


def is_marked_name(text: str) -> bool:
    """Whether ``text`` is a name the word index holds without the marks that make it
    (:func:`marked_names`)."""
    return _MARKED_NAME.fullmatch(text) is not None
