"""docs/json.md renders as the Markdown it means to be: every code fence closes before the next heading,
each command has one section, each table parses as a table, and no key is listed twice in one table."""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt

DOC = Path(__file__).parents[1] / "docs" / "json.md"


def tokens() -> list:
    return MarkdownIt("commonmark").enable("table").parse(DOC.read_text())


def test_every_fence_closes_and_holds_no_heading():
    fences = [t for t in tokens() if t.type == "fence"]
    assert fences, "the contract shows its shapes in fences"
    for fence in fences:
        assert "\n## " not in "\n" + fence.content and "\n### " not in "\n" + fence.content, fence.content
    raw = DOC.read_text().splitlines()
    assert sum(1 for line in raw if line.startswith("```")) % 2 == 0, "a fence is left open"


def test_each_section_once_and_every_table_a_table():
    toks = tokens()
    headings = [toks[i + 1].content for i, t in enumerate(toks) if t.type == "heading_open" and t.tag == "h2"]
    assert len(headings) == len(set(headings)), headings
    assert any("trail stats --json" in h for h in headings) and any(
        "trail install hermes" in h for h in headings
    )
    raw_tables = sum(
        1 for line in DOC.read_text().splitlines() if line.startswith("| key | type | meaning |")
    )
    assert sum(1 for t in toks if t.type == "table_open") == raw_tables


def test_no_key_twice_in_one_table():
    toks = tokens()
    keys: list[str] = []
    in_body = False
    for i, tok in enumerate(toks):
        if tok.type == "tbody_open":
            in_body, keys = True, []
        elif tok.type == "tbody_close":
            in_body = False
            assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
        elif in_body and tok.type == "tr_open":
            keys.append(toks[i + 2].content)
