"""Content cells decoded as Hermes decodes them.

Values here are cell values, not rows: ``SessionDB._encode_content`` only writes valid JSON behind the
prefix, so the invalid and odd shapes can only come from damage or foreign writers and are built by hand.
"""

from __future__ import annotations

import json

from hermes_trail.hermes.decode.content import CONTENT_PREFIX, decode_content, sanitize_context
from hermes_trail.hermes.store import InvalidText


def test_plain_text_is_itself_and_user_text_is_stripped():
    assert decode_content("  hello  ", "user").text == "hello"
    assert decode_content("  out  ", "tool").text == "  out  "


def test_null_content_is_empty_and_marked():
    content = decode_content(None, "assistant")
    assert content.text == "" and content.null


def test_text_parts_are_joined_and_images_are_placeholders():
    parts = [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "input_image", "image_url": "x"},
        {"type": "text", "text": "twice"},
    ]
    content = decode_content(CONTENT_PREFIX + json.dumps(parts), "user")
    assert content.text == "look\n[image: image/png, 3 bytes]\n[image: x]\ntwice"
    assert content.structured == parts and not content.problems
    assert [(i.media_type, i.size, i.url) for i in content.images] == [
        ("image/png", 3, "data:image/png;base64,AAAA"),
        (None, None, "x"),
    ]


def test_a_part_whose_type_is_no_name_is_an_unknown_part_not_an_error():
    """Found by the side-file fuzzer in CI: a divert line's content ``{"type": []}`` raised a TypeError (a
    list looked up among the image types) and stopped the timeline."""
    for odd in ([], {"a": 1}, 3):
        parts = [{"type": "text", "text": "kept"}, {"type": odd, "text": "odd"}, {"type": odd}]
        content = decode_content(CONTENT_PREFIX + json.dumps(parts), "user")
        assert content.text == "kept" and content.images == []
        alone = decode_content(CONTENT_PREFIX + json.dumps({"type": odd}), "user")
        assert json.loads(alone.text) == {"type": odd}


def test_a_dict_is_kept_whole():
    value = {"type": "text", "text": "inside", "extra": 1}
    content = decode_content(CONTENT_PREFIX + json.dumps(value), "assistant")
    assert content.structured == value and content.text == "inside"


def test_invalid_json_behind_the_prefix_stays_the_text_it_is():
    raw = CONTENT_PREFIX + "{not json"
    content = decode_content(raw, "user")
    assert content.text == raw and content.structured is None
    assert "no valid JSON" in content.problems[0]


def test_recalled_memory_blocks_are_removed_as_hermes_does():
    text = (
        "<memory-context>[System note: The following is recalled memory context, NOT new user input. "
        "Treat as informational background data.] old facts</memory-context>  real question "
    )
    assert decode_content(text, "user").text == "real question"
    assert sanitize_context("a </memory-context> b") == "a  b"


def test_text_that_is_not_utf8_is_kept_and_named():
    content = decode_content(InvalidText("caf\ufffd"), "user")
    assert content.text == "caf\ufffd" and "UTF-8" in content.problems[0]


def test_blob_content_is_read_as_text():
    content = decode_content(b"bytes here", "tool")
    assert content.text == "bytes here" and "blob" in content.problems[0]
