"""Search queries as people type them, run against real FTS5 tables of both index tokenizers."""

from __future__ import annotations

import sqlite3
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_trail.index import schema
from hermes_trail.index.query import (
    And,
    Not,
    Or,
    Phrase,
    Query,
    Term,
    needs_trigram,
    parse,
    terms,
    to_fts,
    to_trigram,
)

# The index's tokenizers (test_tokenizers_are_the_index_s checks they still are).
WORDS = "tokenize='porter unicode61 remove_diacritics 2'"
TRIGRAMS = "tokenize='trigram'"

DOCS = {
    "fox": "The quick brown fox jumps over the lazy dog",
    "redfox": "A quick red fox ran away",
    "bears": "Brown bears sleep all winter",
    "choice": "salt or pepper, not both",
    "edit": "Edited src/hermes_trail/index/query.py and tests/test_query.py",
    "read": "Read src/hermes_trail/cli/app.py",
    "rust": "error[E0308]: mismatched types in parser.rs",
    "cafe": "Un café naïve au résumé",
    "code": "config = load_config(path); foo_bar.baz()",
    "url": "docs at https://sqlite.org/fts5.html#trigram",
    "cpp": "C++ templates and C# generics",
    "runner": "the runner was running tests",
    "quote": 'he said "hello world" twice',
    "shell": "cat .env and echo $HOME --force",
    "zh": "我们在测试中文搜索功能",
    "ja": "東京タワーに行きました",
    "ko": "한국어 검색 테스트",
}
NAMES = list(DOCS)


@pytest.fixture(scope="module")
def index():
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE docs_fts USING fts5(text, {WORDS})")
    conn.execute(f"CREATE VIRTUAL TABLE docs_tri USING fts5(key, {TRIGRAMS})")
    for rowid, text in enumerate(DOCS.values()):
        conn.execute("INSERT INTO docs_fts (rowid, text) VALUES (?, ?)", (rowid, text))
        conn.execute("INSERT INTO docs_tri (rowid, key) VALUES (?, ?)", (rowid, text))
    yield conn
    conn.close()


def run(conn, table, expression):
    rows = conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (expression,)).fetchall()
    return {NAMES[rowid] for (rowid,) in rows}


def words(conn, text):
    expression = to_fts(parse(text))
    assert expression is not None, text
    return run(conn, "docs_fts", expression)


def grams(conn, text):
    expression = to_trigram(parse(text))
    assert expression is not None, text
    return run(conn, "docs_tri", expression)


def test_tokenizers_are_the_index_s():
    conn = sqlite3.connect(":memory:")
    schema.create(conn)
    sql = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE name IN ('docs_fts', 'docs_tri')"))
    assert WORDS in sql["docs_fts"]
    assert TRIGRAMS in sql["docs_tri"]


# ------------------------------------------------------------------------------------------------ parse


@pytest.mark.parametrize(
    ("text", "root"),
    [
        ("fox", Term("fox")),
        ("quick fox", And((Term("quick"), Term("fox")))),
        ('"quick   fox"', Phrase("quick fox")),
        ('"quick br"*', Phrase("quick br", prefix=True)),
        ("fox*", Term("fox", prefix=True)),
        ("*.py", Term(".py")),
        ("*foo*", Term("foo", prefix=True)),
        ("a OR b", Or((Term("a"), Term("b")))),
        ("a | b|c", Or((Term("a"), Term("b"), Term("c")))),
        # OR binds tighter than the implicit AND, as in web search.
        ("a b OR c d", And((Term("a"), Or((Term("b"), Term("c"))), Term("d")))),
        ("(a b) OR c", Or((And((Term("a"), Term("b"))), Term("c")))),
        ("a AND b", And((Term("a"), Term("b")))),
        ("a -b", And((Term("a"), Not(Term("b"))))),
        ("a NOT b", And((Term("a"), Not(Term("b"))))),
        ('a -"b c"', And((Term("a"), Not(Phrase("b c"))))),
        ("a -(b OR c)", And((Term("a"), Not(Or((Term("b"), Term("c"))))))),
        ("-a", And((Not(Term("a")),))),
        # A group's items and exclusions join the enclosing conjunction.
        ("a (b -c)", And((Term("a"), Term("b"), Not(Term("c"))))),
        ("((a))", Term("a")),
        # Stray operators are words.
        ("OR a", And((Term("OR"), Term("a")))),
        ("a OR", And((Term("a"), Term("OR")))),
        ("a OR -b", And((Term("a"), Term("OR"), Not(Term("b"))))),
        ("AND", Term("AND")),
        ("a NOT", And((Term("a"), Term("NOT")))),
        # NOT in text written in capitals is its word (an error as printed); beside lower case it excludes.
        ("DO NOT MATCH", And((Term("DO"), Term("NOT"), Term("MATCH")))),
        ("NOT NULL constraint", And((Term("NOT"), Term("NULL"), Term("constraint")))),
        ("404 NOT FOUND", And((Term("404"), Term("NOT"), Term("FOUND")))),
        ("nginx NOT APACHE", And((Term("nginx"), Not(Term("APACHE"))))),
        ("a NOT B", And((Term("a"), Not(Term("B"))))),
        ("NOT fox", And((Not(Term("fox")),))),
        ("AWS OR GCP", Or((Term("AWS"), Term("GCP")))),
        ("a or b", And((Term("a"), Term("or"), Term("b")))),
        ("| a", And((Term("|"), Term("a")))),
        # Words that only look like operators.
        ("--force", Term("--force")),
        ("-1", Term("-1")),
        ("foo-bar", Term("foo-bar")),
        ("- a", And((Term("-"), Term("a")))),
        ("col:value", Term("col:value")),
        ("f(x)", Term("f(x)")),
        ("(f(x))", Term("f(x)")),
        ('"OR" "-a"', And((Phrase("OR"), Phrase("-a")))),
        # Unbalanced quotes and parentheses.
        ('"quick fox', And((Term("quick"), Term("fox")))),
        ('say"hello world"', And((Term("say"), Phrase("hello world")))),
        ("(a b", And((Term("("), Term("a"), Term("b")))),
        ("a b)", And((Term("a"), Term("b"), Term(")")))),
        ("a\x00b\tc", And((Term("a"), Term("b"), Term("c")))),
        # The marks of the sentence around a word are not part of it; inside a word they stay.
        ("why is it slow?", And((Term("why"), Term("is"), Term("it"), Term("slow")))),
        ("down, why?!", And((Term("down"), Term("why")))),
        ("¿dónde está?", And((Term("dónde"), Term("está")))),
        ("它为什么这么慢？", Term("它为什么这么慢")),
        ("see src/main.py, node.js...", And((Term("see"), Term("src/main.py"), Term("node.js")))),
        ("fox*?", Term("fox", prefix=True)),
        ("?!", Term("?!")),
        # A phrase quoted as a phone, a word processor or Markdown quotes it (each read as two words
        # with the quotes in them, which no snippet could mark); quotes around a word are not part of it.
        ("\u201cparse config\u201d file", And((Phrase("parse config"), Term("file")))),
        ("\u201eredis cli\u201c", Phrase("redis cli")),
        ("\u00abredirect URIs\u00bb", Phrase("redirect URIs")),
        ("\u300c周会\u300d", Phrase("周会")),
        ("`redis-cli ping` failed", And((Phrase("redis-cli ping"), Term("failed")))),
        ("'start_period' and \u201cunclosed", And((Term("start_period"), Term("and"), Term("unclosed")))),
        # A terminal's colour codes and links, in output piped with them, are not text.
        ("\x1b[31mFAILED\x1b[0m test_add", And((Term("FAILED"), Term("test_add")))),
        ("\x1b]8;;https://x.org\x1b\\docs\x1b]8;;\x1b\\ \x1b[1;32mok", And((Term("docs"), Term("ok")))),
        ("don't the users\u2019 files", And((Term("don't"), Term("the"), Term("users"), Term("files")))),
        ("", None),
        ("  \n ", None),
        ('""', None),
        ("()", None),
    ],
)
def test_parse(text, root):
    assert parse(text) == Query(root)


def test_parentheses_deeper_than_the_limit_are_text():
    deep = parse("(" * 20 + "a b" + ")" * 20)
    assert terms(deep) == ["a", "b"]
    assert to_fts(deep) == '("a" AND "b")'
    assert deep.root == And((*[Term("(")] * 12, Term("a"), Term("b"), *[Term(")")] * 12))


# ----------------------------------------------------------------------------------------- word index


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("fox", {"fox", "redfox"}),
        ("quick fox", {"fox", "redfox"}),
        ("QUICK Fox", {"fox", "redfox"}),
        # Phrases: together and in order.
        ('"quick brown"', {"fox"}),
        ('"brown quick"', set()),
        ('"quick fox"', set()),
        ('"quick br"*', {"fox"}),
        # Alternatives and grouping.
        ("winter OR lazy", {"fox", "bears"}),
        ("red | lazy", {"fox", "redfox"}),
        ("red OR lazy fox", {"fox", "redfox"}),
        ("(quick red) OR bears", {"redfox", "bears"}),
        ("brown (fox OR winter)", {"fox", "bears"}),
        # Exclusions.
        ("fox -lazy", {"redfox"}),
        ("fox NOT lazy", {"redfox"}),
        ('fox -"lazy dog"', {"redfox"}),
        ('fox -"dog lazy"', {"fox", "redfox"}),
        ("quick -(red fox)", {"fox"}),
        ("fox -lazy -red", set()),
        ("brown -(fox -lazy)", {"fox", "bears"}),
        # Prefixes (stemmed like the indexed words).
        ("templ*", {"cpp"}),
        ("runn*", {"runner"}),
        ("brow* bear*", {"bears"}),
        # Stemming and folded diacritics.
        ("running", {"runner"}),
        ("cafe naive resume", {"cafe"}),
        # Code and punctuation: a quoted string is a phrase of its words.
        ("E0308", {"rust"}),
        ("parser.rs", {"rust"}),
        ("load_config", {"code"}),
        ("foo_bar.baz()", {"code"}),
        ("--force", {"shell"}),
        ("$HOME", {"shell"}),
        ("src/hermes_trail/index/query.py", {"edit"}),
        # No user text is FTS5 syntax.
        ("brown:fox", {"fox"}),
        ("text:fox", set()),
        ("NEAR(quick fox)", set()),
        ("^quick +brown", {"fox"}),
        ("{text}: fox", set()),
        ("'; DROP TABLE docs_fts; --", set()),
        # Stray operators are words, and 'or'/'not' occur in the text.
        ("OR pepper", {"choice"}),
        ("pepper OR", {"choice"}),
        ("NOT", {"choice"}),
        ("salt AND", set()),
        ("AND salt", set()),
        ("salt OR -both", set()),
        # Unbalanced quotes and parentheses, and punctuation around words.
        ('said "hello world', {"quote"}),
        ('"hello world" said"', {"quote"}),
        ("(quick fox", {"fox", "redfox"}),
        ("quick fox))", {"fox", "redfox"}),
        ("fox... -> !!", {"fox", "redfox"}),
        ("fox\x00\\", {"fox", "redfox"}),
        ("fox 🦊", {"fox", "redfox"}),
    ],
)
def test_word_index(index, text, found):
    assert words(index, text) == found


@pytest.mark.parametrize(
    "text",
    ["", "   ", "-fox", "NOT fox", "-(fox quick)", "...", "()", '""', "-> :: || &&", "- * |", "\x00", '"'],
)
def test_word_index_has_no_query(text):
    assert to_fts(parse(text)) is None


def test_fts_expression_quotes_every_term():
    assert to_fts(parse('say "it\'s ""x""" col:v pre* -(a OR b)')) == (
        '(("say" AND "it\'s" AND "x" AND "col:v" AND "pre" *) NOT ("a" OR "b"))'
    )
    assert to_fts(parse('a"b c"d')) == '("a" AND "b c" AND "d")'
    assert to_fts(Query(Term('say "hi"\x00'))) == '"say ""hi"" "'


# -------------------------------------------------------------------------------------- trigram index


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("query.py", {"edit"}),
        ("QUERY.PY", {"edit"}),
        ("hermes_trail/index", {"edit"}),
        ("hermes_trail", {"edit", "read"}),
        ("*.py", {"edit", "read"}),
        ("*.py -test_", {"read"}),
        ("quer*", {"edit"}),
        ("sqlite.org OR app.py", {"url", "read"}),
        ("https://sqlite.org", {"url"}),
        ("C++", {"cpp"}),
        (".env", {"shell"}),
        ("query.py )", {"edit"}),
        ('"brown fox"', {"fox"}),
        ('"fox brown"', set()),
        # Text without spaces between words: any substring of three characters or more.
        ("東京タワー", {"ja"}),
        ("京タワ", {"ja"}),
        ("中文搜索", {"zh"}),
        ('"검색 테스트"', {"ko"}),
        ("搜索功 OR 東京タ -中文搜", {"ja"}),
    ],
)
def test_trigram_index(index, text, found):
    assert grams(index, text) == found


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ab",
        "東京",
        "query.py ab",
        "query.py OR ab",
        "query.py -ab",
        "-query.py",
        "검색 테스트",
        "-> ::",
    ],
)
def test_trigram_index_has_no_query(text):
    assert to_trigram(parse(text)) is None


# ------------------------------------------------------------------------------------------ inspection


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("src/hermes_trail", True),
        ("query.py", True),
        ("*.py", True),
        ("https://example.com", True),
        ("C:\\Users\\me", True),
        ("~/notes", True),
        (".env", True),
        ("$HOME", True),
        ("--force", True),
        ("std::vector", True),
        ("self->name", True),
        ("localhost:8080", True),
        ("C++", True),
        ("C#", True),
        ("中文", True),
        ("タワー", True),
        ("한국어", True),
        ("hello 東京", True),
        ("hello world", False),
        ('"hello world"', False),
        ("snake_case", False),
        ("E0308", False),
        ("ENOENT", False),
        ("ERR_NOT_FOUND", False),
        ("don't", False),
        ("well-known", False),
        ("done. why? (yes)", False),
        ("hello -src/x -中文", False),
        ("", False),
    ],
)
def test_needs_trigram(text, expected):
    assert needs_trigram(parse(text)) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b OR c -d", ["a", "b", "c"]),
        ('"quick fox" fox* fox -fox', ["quick fox", "fox"]),
        ("x -> y ===", ["x", "y", "==="]),
        ("( - | ) -x", []),
        ("", []),
    ],
)
def test_terms(text, expected):
    assert terms(parse(text)) == expected


# ---------------------------------------------------------------------------------- any input at all

# Pieces people (and pastes) put into a search box, to be combined in any order.
PIECES = st.sampled_from(
    [
        '"',
        "'",
        "(",
        ")",
        "OR",
        "AND",
        "NOT",
        "NEAR",
        "NEAR(",
        "-",
        "--",
        "*",
        "|",
        "^",
        "+",
        ":",
        "col:",
        "{",
        "}",
        ",",
        ".",
        "\\",
        "\x00",
        "\n",
        "\t",
        "\ud800",
        " ",
        "  ",
        "a",
        "fox",
        "qu",
        "中文",
        "東京タワー",
        "é",
        "🦊",
        "src/a.py",
        "'; DROP TABLE x; --",
        "\u200d",
        "\ufffe",
    ]
)
TEXTS = st.one_of(st.text(), st.lists(PIECES, max_size=40).map("".join))


@given(text=TEXTS)
@settings(max_examples=600, deadline=None, database=None)
def test_any_text_gives_no_query_or_one_fts5_accepts(index, text):
    query = parse(text)
    for table, expression in (("docs_fts", to_fts(query)), ("docs_tri", to_trigram(query))):
        if expression is not None:
            run(index, table, expression)  # raises sqlite3.OperationalError if FTS5 rejects it
    assert needs_trigram(query) in (True, False)
    assert all(isinstance(term, str) and term for term in terms(query))


def trees():
    texts = st.text() | st.sampled_from(
        ['"', '""', 'a"b', "a\x00b", "\ud800x", "*", "NEAR", "a b", "東京タワー"]
    )
    leaves = st.builds(Term, texts, st.booleans()) | st.builds(Phrase, texts, st.booleans())
    return st.recursive(
        leaves,
        lambda nodes: (
            st.builds(Not, nodes)
            | st.builds(Or, st.lists(nodes, min_size=1, max_size=4).map(tuple))
            | st.builds(And, st.lists(nodes, min_size=1, max_size=4).map(tuple))
        ),
        max_leaves=25,
    )


@given(root=trees())
@settings(max_examples=400, deadline=None, database=None)
def test_any_tree_gives_no_query_or_one_fts5_accepts(index, root):
    """Trees built by hand (the dataclasses are public), not only those parse() makes."""
    query = Query(root)
    for table, expression in (("docs_fts", to_fts(query)), ("docs_tri", to_trigram(query))):
        if expression is not None:
            run(index, table, expression)


@given(text=st.text(alphabet=string.punctuation + " "))
@settings(max_examples=300, deadline=None, database=None)
def test_punctuation_alone_is_no_word_query(text):
    assert to_fts(parse(text)) is None


@pytest.mark.parametrize(
    "text",
    [
        "(" * 200 + "a" + ")" * 200,
        "-(" * 100 + "a" + ")" * 100,
        "".join(f"(a{i} OR -(b{i} " for i in range(50)) + ")" * 100,
        " OR ".join(f"w{i}" for i in range(3000)),
        " ".join(f"-w{i} w{i}*" for i in range(2000)),
    ],
)
def test_deep_and_long_queries_are_accepted(index, text):
    query = parse(text)
    for table, expression in (("docs_fts", to_fts(query)), ("docs_tri", to_trigram(query))):
        if expression is not None:
            run(index, table, expression)
