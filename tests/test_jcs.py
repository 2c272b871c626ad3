"""RFC 8785 canonical JSON: the number forms and key order of the RFC's own examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_trail.export.jcs import NotCanonical, canonical, number


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-1.5, "-1.5"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (123e-20, "1.23e-18"),
        (2**60, "1152921504606847000"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (333333333.3333333, "333333333.3333333"),
        (9007199254740992, "9007199254740992"),
        (1e16, "10000000000000000"),
        (4.5, "4.5"),
        (-12.5e-9, "-1.25e-8"),
        (295147905179352830000.0, "295147905179352830000"),
    ],
)
def test_numbers_as_ecmascript_writes_them(value, expected):
    assert number(value) == expected


def test_members_sort_by_utf16_code_units():
    # RFC 8785 section 3.2.3: U+1F600 (a surrogate pair) sorts before U+FB33 in UTF-16, after it by code point
    value = {
        "\u20ac": "Euro",
        "\r": "CR",
        "\ufb33": "Hebrew",
        "1": "One",
        "\U0001f600": "Smiley",
        "\u0080": "Control",
        "\u00f6": "Latin",
    }
    keys = list(__import__("json").loads(canonical(value)))
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]


def test_strings_escape_only_what_json_must():
    assert (
        canonical(['\u20ac$\u000f\nA\'B"\\\\"/', "\u2028"]) == '["€$\\u000f\\nA\'B\\"\\\\\\\\\\"/","\u2028"]'
    )


def test_no_whitespace_and_literals():
    assert (
        canonical({"b": [True, False, None], "a": {"y": 1, "x": 2}})
        == '{"a":{"x":2,"y":1},"b":[true,false,null]}'
    )


@pytest.mark.parametrize("bad", [math.inf, math.nan, {1: "x"}, {"a": object()}])
def test_what_is_not_json_is_refused(bad):
    with pytest.raises(NotCanonical):
        canonical(bad)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_double_reads_back(value):
    assert float(number(value)) == value or (value == 0 and number(value) == "0")
