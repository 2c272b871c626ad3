"""The JSON Canonicalization Scheme (RFC 8785), which the Agent Session Format hashes its entries over.

Members are sorted by their names' UTF-16 code units, there is no whitespace, strings keep every
character but the ones JSON must escape, and numbers are written as ECMAScript writes a double (the
shortest digits that read back, in plain or exponent form by the size of the exponent). Python's own
``json`` differs in the number forms (``1e+16``, ``1e-07``) and in key order for names beyond U+FFFF,
so both are done here.
"""

from __future__ import annotations

import json
import math
from typing import Any


class NotCanonical(ValueError):
    """A value the scheme cannot write: a number that is not finite, a key that is not a string."""


def number(value: float | int) -> str:
    """A number as ECMAScript's ``Number.prototype.toString`` writes the double it is."""
    if isinstance(value, bool):
        raise NotCanonical("a boolean is not a number")
    as_float = float(value)
    if not math.isfinite(as_float):
        raise NotCanonical(f"{value!r} is not a finite number")
    if as_float == 0:
        return "0"
    sign = "-" if as_float < 0 else ""
    # repr gives the shortest digits that read back; value = int(digits) * 10**scale
    mantissa, _, exp = repr(abs(as_float)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    scale = int(exp or 0) - len(frac)
    trimmed = digits.rstrip("0")
    scale += len(digits) - len(trimmed)
    digits = trimmed
    k = len(digits)
    n = k + scale  # value = 0.<digits> * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exponent = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{head}e{'+' if exponent > 0 else '-'}{abs(exponent)}"


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int | float):
        out.append(number(value))
    elif isinstance(value, dict):
        if any(not isinstance(k, str) for k in value):
            raise NotCanonical("object member names must be strings")
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            if i:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise NotCanonical(f"{type(value).__name__} is not JSON")


def canonical(value: Any) -> str:
    """``value`` in canonical form."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def canonical_bytes(value: Any) -> bytes:
    """The canonical form's UTF-8 bytes (a lone surrogate is refused: normalise strings first)."""
    return canonical(value).encode("utf-8")
