"""What a person sees, in a real headless Chromium driven by Playwright: the dashboard, search, a replay
(scrubbed, a tool call expanded), hostile content staying inert, and an exported HTML file opened offline.

Chromium is Debian's (``/usr/bin/chromium``, or ``TRAIL_CHROMIUM``); Playwright never downloads a browser
here. Without Chromium these tests skip, unless ``TRAIL_REQUIRE_BROWSER=1`` (set by ``.ci/run``) makes
that a failure. Screenshots land in ``test-artifacts/`` (git-ignored). Every request a page makes is
routed through the test: anything not to the viewer itself (or the exported file) is refused and fails
the test.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
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
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]  # fmt: skip


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


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

    def __init__(self, browser: Any, allowed: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="UTC")
        self.refused: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []

        def route(route: Any) -> None:
            if route.request.url.startswith(allowed):
                route.continue_()
            else:
                self.refused.append(route.request.url)
                route.abort()

        self.context.route("**/*", route)
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
    assert "6 session(s) with unknown cost (not counted as $0)" in cards and "$0.25" in cards
    assert page.locator("#c-sessions svg g.bar").count() == 6, "six days with sessions"
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
    assert page.locator("#table tbody tr td.title").inner_text().startswith("(untitled) " + w.WORK_ID)
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


def test_scrub_the_replay_and_expand_a_tool_call(tab, server):
    page = tab.page
    page.goto(origin(server) + f"/session?ref=default:{w.CODING_ID}")
    page.wait_for_selector("body[data-drawn=all]")
    turns = page.locator("article.turn")
    assert turns.count() == 6, "paired tool rows are shown under their calls"
    scrub = page.locator("input.scrub")
    scrub.fill("5")
    last = page.locator("article.turn.current")
    assert last.locator(".text").inner_text() == "All four tests pass now."
    assert page.locator(".position").inner_text().startswith("turn 6 of 6")
    scrub.fill("1")
    call = page.locator("article.turn.current details.call").first
    assert call.locator(".call-body").is_hidden()
    assert call.locator("summary .what").inner_text() == "pytest -q"
    assert (
        call.locator(".badge.exit").inner_text() == "exit 1"
        and call.locator(".badge.dur").inner_text() == "10 s"
    )
    call.locator("summary").click()
    output = call.locator(".call-body .output")
    assert output.is_visible() and output.inner_text() == "1 failed, 3 passed"
    patch = page.locator("details.call", has=page.locator("summary .name", has_text="patch"))
    patch.locator("summary").click()
    assert patch.locator(".diff .del").inner_text().strip() == "- a - b"
    assert patch.locator(".diff .add").inner_text().strip() == "+ a + b"
    tab.shot("replay-scrubbed")
    page.keyboard.press("j")
    assert page.locator(".position").inner_text().startswith("turn 3 of 6")


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
        assert page.locator(".position").inner_text().startswith("turn 4 of 5")
        page.locator("article.turn.current details.call summary").click()
        assert page.locator("article.turn.current .output").inner_text() == "red alert done"
        assert w.SECRET not in page.content()
        tab.shot("export-html")
    finally:
        tab.close()


def test_a_long_replay_draws_in_batches_and_scrubs_into_place(browser, tmp_path):
    import hermesdb as h

    long_id = "20261110_090000_10a900"
    pairs = [(f"Question {i}: what is {i} squared?", f"Answer {i}: {i * i}.\n" + "More words. " * 40)
             for i in range(200)]  # fmt: skip
    home = h.write_home(tmp_path / "hermes", [h.chat(long_id, *pairs, title="Long one")])
    web = WebApp(homes=(home,), index=tmp_path / "index.db")
    srv = start(web, "127.0.0.1", 0)
    tab = Page(browser, origin(srv) + "/")
    try:
        page = tab.page
        page.goto(origin(srv) + f"/session?ref=default:{long_id}")
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
        assert page.locator(".position").inner_text().startswith("turn 400 of 400")
        page.keyboard.press("k")
        assert page.locator(".position").inner_text().startswith("turn 399 of 400")
        tab.shot("replay-long")
    finally:
        tab.close()
        srv.shutdown()
        web.close()
