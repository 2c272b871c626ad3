"""The characters past ASCII that the local word index splits words at and PostgreSQL's parser may not.

FTS5's ``unicode61`` tokenizer keeps letters, numbers and private-use characters in a word and splits at
every other one. PostgreSQL's parser, in a database whose locale is C, takes every character past ASCII for
a letter: "Osterode–Buntenbock" (an en dash), “quoted”, "Done✅" and "东京。大阪" were one word each in the
shared index, and none of their words was found there as it is locally. The shared index reads these as
spaces in every configuration (schema version 6), and a query's words the same.

:data:`RANGES` is Unicode 14's punctuation, symbols, separators and format and control characters (general
categories P, S, Z, Cc and Cf) from U+0080 to U+1FAFF that SQLite 3.40's ``unicode61`` splits words at,
as inclusive ranges of code points: 6,212 characters (dashes, quotes, bullets, arrows, currency signs,
CJK punctuation, most emoji). The 2,230 others of those categories are newer than its tables (emoji and
signs of later Unicode versions): it keeps them inside a word, and so does the shared index. The list is
written out, not computed from :mod:`unicodedata` and the tokenizer at run time: that took 40 ms and
more of each command's start, and a Python or an SQLite of another Unicode version would read a query's
words otherwise than the docs were read when the shared index was migrated. ``tests/test_fleet.py``
checks that the local word index splits at each.
"""

from __future__ import annotations

import functools

_WRITTEN = """
0080-00A9 00AB-00B1 00B4 00B6-00B8 00BB 00BF 00D7 00F7 02C2-02C5 02D2-02DF 02E5-02EB 02ED 02EF-02FF
0375 037E 0384-0385 0387 03F6 0482 055A-055F 0589-058A 058F 05BE 05C0 05C3 05C6 05F3-05F4 0600-0604
0606-060F 061B 061E-061F 066A-066D 06D4 06DD-06DE 06E9 06FD-06FE 0700-070D 070F 07F6-07F9 0830-083E
085E 0964-0965 0970 09F2-09F3 09FA-09FB 0AF0-0AF1 0B70 0BF3-0BFA 0C7F 0D79 0DF4 0E3F 0E4F 0E5A-0E5B
0F01-0F17 0F1A-0F1F 0F34 0F36 0F38 0F3A-0F3D 0F85 0FBE-0FC5 0FC7-0FCC 0FCE-0FDA 104A-104F 109E-109F
10FB 1360-1368 1390-1399 1400 166D-166E 1680 169B-169C 16EB-16ED 1735-1736 17D4-17D6 17D8-17DB
1800-180A 180E 1940 1944-1945 19DE-19FF 1A1E-1A1F 1AA0-1AA6 1AA8-1AAD 1B5A-1B6A 1B74-1B7C 1BFC-1BFF
1C3B-1C3F 1C7E-1C7F 1CC0-1CC7 1CD3 1FBD 1FBF-1FC1 1FCD-1FCF 1FDD-1FDF 1FED-1FEF 1FFD-1FFE 2000-2064
206A-206F 207A-207E 208A-208E 20A0-20B9 2100-2101 2103-2106 2108-2109 2114 2116-2118 211E-2123 2125
2127 2129 212E 213A-213B 2140-2144 214A-214D 214F 2190-23F3 2400-2426 2440-244A 249C-24E9 2500-26FF
2701-2775 2794-2B4C 2B50-2B59 2CE5-2CEA 2CF9-2CFC 2CFE-2CFF 2D70 2E00-2E2E 2E30-2E3B 2E80-2E99
2E9B-2EF3 2F00-2FD5 2FF0-2FFB 3000-3004 3008-3020 3030 3036-3037 303D-303F 309B-309C 30A0 30FB
3190-3191 3196-319F 31C0-31E3 3200-321E 322A-3247 3250 3260-327F 328A-32B0 32C0-32FE 3300-33FF
4DC0-4DFF A490-A4C6 A4FE-A4FF A60D-A60F A673 A67E A6F2-A6F7 A700-A716 A720-A721 A789-A78A A828-A82B
A836-A839 A874-A877 A8CE-A8CF A8F8-A8FA A92E-A92F A95F A9C1-A9CD A9DE-A9DF AA5C-AA5F AA77-AA79
AADE-AADF AAF0-AAF1 ABEB FB29 FBB2-FBC1 FD3E-FD3F FDFC-FDFD FE10-FE19 FE30-FE52 FE54-FE66 FE68-FE6B
FEFF FF01-FF0F FF1A-FF20 FF3B-FF40 FF5B-FF65 FFE0-FFE6 FFE8-FFEE FFF9-FFFD 10100-10102 10137-1013F
10179-10189 10190-1019B 101D0-101FC 1039F 103D0 10857 1091F 1093F 10A50-10A58 10A7F 10B39-10B3F
11047-1104D 110BB-110C1 11140-11143 111C5-111C8 12470-12473 1D000-1D0F5 1D100-1D126 1D129-1D164
1D16A-1D16C 1D173-1D17A 1D183-1D184 1D18C-1D1A9 1D1AE-1D1DD 1D200-1D241 1D245 1D300-1D356 1D6C1
1D6DB 1D6FB 1D715 1D735 1D74F 1D76F 1D789 1D7A9 1D7C3 1EEF0-1EEF1 1F000-1F02B 1F030-1F093
1F0A0-1F0AE 1F0B1-1F0BE 1F0C1-1F0CF 1F0D1-1F0DF 1F110-1F12E 1F130-1F16B 1F170-1F19A 1F1E6-1F202
1F210-1F23A 1F240-1F248 1F250-1F251 1F300-1F320 1F330-1F335 1F337-1F37C 1F380-1F393 1F3A0-1F3C4
1F3C6-1F3CA 1F3E0-1F3F0 1F400-1F43E 1F440 1F442-1F4F7 1F4F9-1F4FC 1F500-1F53D 1F540-1F543
1F550-1F567 1F5FB-1F640 1F645-1F64F 1F680-1F6C5 1F700-1F773
"""


def _ranges() -> tuple[tuple[int, int], ...]:
    out = []
    for item in _WRITTEN.split():
        first, _, last = item.partition("-")
        out.append((int(first, 16), int(last or first, 16)))
    return tuple(out)


RANGES = _ranges()


def regex_class() -> str:
    """The ranges as a bracket expression of PostgreSQL's regular expressions, each code point escaped."""
    return "[" + "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in RANGES) + "]"


@functools.cache
def spaces(extra: str) -> dict[int, str]:
    """A :meth:`str.translate` table reading the ranges' characters, and ``extra``, as spaces."""
    table = dict.fromkeys(map(ord, extra), " ")
    table.update((code, " ") for first, last in RANGES for code in range(first, last + 1))
    return table
