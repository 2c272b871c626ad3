"""Snippets: a window around the first term, every term marked once, word terms only at word starts."""

from __future__ import annotations

from hermes_trail.index.search import Highlighter


def highlight(text: str, terms: list[str], chars: int) -> str:
    return Highlighter(terms).snippet(text, chars)


def test_every_term_is_marked_once_longest_first():
    text = "ran the tests: test_login passed, latest build failed"
    assert highlight(text, ["test", "test_login"], 200) == (
        "ran the «test»s: «test_login» passed, latest build failed"
    )  # "latest" holds "test" but not at a word start; "test_login" is not marked twice


def test_the_window_starts_near_the_first_term():
    text = "x" * 500 + " connection refused " + "y" * 500
    snippet = Highlighter(["refused", "connection"]).snippet(text, 90)
    assert snippet.startswith("…") and snippet.endswith("…")
    assert "«connection» «refused»" in snippet
    assert len(snippet) == 90 + 2 + 4  # the window, two ellipses, four marks


def test_a_snippet_ends_at_a_word_not_at_the_line_break_an_output_ends_with():
    """A tool's output ends in a line break (``read_file``'s); the snippet kept it, which the web page
    showed as a dangling ⏎."""
    output = "4|def to_celsius(fahrenheit):\n5|    return fahrenheit * 5 / 9 - 32\n"
    assert highlight(output, ["fahrenheit"], 200).endswith("* 5 / 9 - 32")
    assert highlight("first line\n\nsecond line", ["first"], 12) == "«first» line…"  # cut at a break
    assert highlight("nothing here \n to see", ["absent"], 14) == "nothing here…"


def test_no_term_found_gives_the_start():
    assert highlight("nothing here to see", ["absent"], 7) == "nothing…"
    assert highlight("short", [], 10) == "short"


def test_symbols_are_matched_literally_and_case_is_ignored():
    marked = highlight("Run make build (v2.1+) NOW", ["(v2.1+)", "now"], 100)
    assert marked == "Run make build «(v2.1+)» «NOW»"


def test_the_window_is_around_a_word_that_starts_with_the_term():
    """Inside a word (``ins`` in "cabins") is where the window goes only when no word starts with it: a
    prefix typed as "ins" is about "install", which the snippet must show."""
    text = "The cabins " + "z " * 200 + "then install the exporter"
    snippet = highlight(text, ["ins"], 60)
    assert "«ins»tall" in snippet and "cabins" not in snippet
    assert highlight("pytest -q", ["test"], 40) == "pytest -q"  # nowhere at a word start: the start


# Texts and terms where a mark's look behind and a stem's form decide: a term inside a word, after an
# underscore or a mark, a stem's other form, a phrase in other forms, accents, full-width letters, Chinese.
_PLACES = [
    ("latest tests: pytest test_login retest_all", ["test"]),
    ("authorized the authorization; reauthorize", ["authorized"]),
    ("we backed up the disks, then back-ups ran", ["back up", "disk"]),
    ("start_period period-ending periodic", ["period"]),
    ("#deploy deploy_all redeploy $NODE_ENV node_env", ["#deploy", "$NODE_ENV"]),
    ("café cafe CAFÉ ＡＰＩ api", ["cafe", "api"]),
    ("用Docker部署 docker-compose 部署", ["docker", "部署"]),
    ("cities city's citizen", ["city"]),
]


def test_marks_are_looked_for_only_where_one_may_begin_and_found_where_every_place_is_tried():
    """The highlighter tries its pattern only where a term (or a stem's start) begins; the marks must be
    those a scan trying every character finds, in order."""
    for text, terms in _PLACES:
        marker = Highlighter(terms)
        assert marker.mark is not None
        for read in (text, text.lower(), "x" + text, text + " " + text):
            fast = [m.span() for m in marker._marks(marker.mark, read)]
            assert fast == [m.span() for m in marker.mark.finditer(read)], (terms, read)
            assert fast, (terms, read)
