"""Meaning, not words: static sentence vectors that let a search find a session asked in other words.

"notebook runs out of charge while suspended" shares no word with "laptop battery drains during sleep";
full-text search cannot connect them. Each session gets one vector, its *gist*: the weighted mean of the
static vectors of the words in its title and in what the person asked. A query's vector against those
finds sessions by meaning.

The vectors are all-MiniLM-L6-v2 distilled to one vector per vocabulary token (model2vec's method, see
``scripts/distill_static_embeddings.py``), so embedding a text is a tokenizer pass and a sum: no
transformer, microseconds a text, numpy the only need. Without numpy (Hermes' own Python, where the
plugin runs) :func:`available` is false and search stays lexical. A process that has not loaded numpy and
writes a few sessions (a ``trail`` command after a Hermes turn) makes their gists without it, the same sum
in Python (:class:`_PlainTable`).

The tokenizer is BERT's uncased WordPiece: lower case, accents stripped, punctuation and CJK characters
split apart, then each word cut greedily into the longest pieces the vocabulary has.
"""

from __future__ import annotations

import functools
import math
import re
import struct
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

DATA = Path(__file__).with_name("data") / "static-minilm.npz"
# What a person asked, at most this many characters of it, makes a session's gist.
GIST_CHARS = 4000
# Words longer than this are not split into pieces (BERT's own limit); they count as unknown.
MAX_WORD = 100
_SPECIAL = frozenset({"[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]"})


@functools.cache
def available() -> bool:
    """Whether semantic vectors can be made here (numpy installed and the table shipped). Told without
    importing numpy, which a search whose meaning pass runs elsewhere never needs."""
    from importlib.util import find_spec

    return find_spec("numpy") is not None and DATA.is_file()


@functools.cache
def _members() -> dict[str, tuple[int, int, bool]]:
    """Where each array of the shipped ``.npz`` starts (its data's offset in the file), its size, and
    whether it is deflated, from the archive's central directory, read once a process. Read here rather than
    through ``zipfile``, whose import (compression modules a plain zip does not need) took 7 ms of a
    ``trail`` command after a Hermes turn."""
    data = _mapped()
    end = data.rfind(b"PK\x05\x06")
    count, _, start = struct.unpack_from("<HII", data, end + 10)
    found = {}
    at = start
    for _ in range(count):
        assert data[at : at + 4] == b"PK\x01\x02", "not a zip central directory entry"
        method, packed, size, name_len, extra_len, comment = struct.unpack_from("<H8xIIHHH", data, at + 10)
        (local,) = struct.unpack_from("<I", data, at + 42)
        assert 0xFFFFFFFF not in (packed, size, local), "a zip64 member"  # the table is 8 MB
        name = bytes(data[at + 46 : at + 46 + name_len]).decode("utf-8")
        skip = sum(struct.unpack_from("<HH", data, local + 26))  # the local header's name and extra
        deflated = method != 0
        found[name] = (local + 30 + skip, packed if deflated else size, deflated)
        at += 46 + name_len + extra_len + comment
    return found


@functools.cache
def _mapped() -> Any:
    """The shipped ``.npz`` mapped read-only: a stored array is read where it lies, copying none of it (the
    vectors are 8 MB, of which a sync after a Hermes turn reads a few hundred rows)."""
    import mmap

    with open(DATA, "rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _member(name: str) -> tuple[memoryview, tuple[int, ...], str]:
    """One array of the shipped ``.npz`` without numpy: its bytes, shape and dtype (``.npy`` format 1). A
    member stored rather than deflated (the vectors and the vocabulary) is read in place, from the mapped
    file: through ``zipfile`` it took three times as long, and inflating the vocabulary 12 ms."""
    import ast

    offset, size, deflated = _members()[f"{name}.npy"]
    raw = memoryview(_mapped())[offset : offset + size]
    if deflated:
        import zlib

        raw = memoryview(zlib.decompress(raw, -15))
    length = int.from_bytes(raw[8:10], "little")
    header = ast.literal_eval(bytes(raw[10 : 10 + length]).decode("latin-1"))
    return raw[10 + length :], tuple(header["shape"]), str(header["descr"])


class _Vocabulary:
    """BERT's WordPiece vocabulary (read without numpy: the tokenizer needs none), and the weight of each
    token: frequent tokens carry little meaning, and BERT's vocabulary is roughly in frequency order, so
    the log of a token's id weighs it (model2vec's Zipf weighting); special tokens weigh nothing."""

    def __init__(self) -> None:
        data, _, kind = _member("vocab")  # one string, the tokens a line each: UTF-8 (S), else UTF-32 (U)
        text = bytes(data).decode("utf-8" if "S" in kind else "utf-32-le")
        self.tokens = text.rstrip("\x00").split("\n")
        self.ids = {token: i for i, token in enumerate(self.tokens)}
        self.unknown = self.ids.get("[UNK]", 100)
        self.special = frozenset(self.ids[t] for t in _SPECIAL if t in self.ids)


@functools.cache
def _vocabulary() -> _Vocabulary:
    return _Vocabulary()


def whole_word(word: str) -> bool:
    """Whether the vocabulary has ``word`` (lower case) as one token: about 20,000 common English words,
    "laid" and "worse" among them, which a dictionary's headwords ("lay", "bad") do not spell out."""
    return DATA.is_file() and word in _vocabulary().ids and not word.startswith("##")


class _Table:
    """The token vectors as shipped (int8, 8 MB) with one factor a token (its scale times its weight). A
    text's vector is the factor-weighted sum of its tokens' rows: converting a few hundred int8 rows is
    fast, where half-precision rows cost ten times as much to sum."""

    def __init__(self) -> None:
        import numpy as np

        with np.load(DATA) as data:
            self.quantized = np.ascontiguousarray(data["vectors"])
            scale = data["scale"].astype(np.float32)
        vocabulary = _vocabulary()
        weights = np.log1p(np.arange(len(vocabulary.tokens), dtype=np.float32))
        weights[list(vocabulary.special)] = 0.0
        self.factor = scale * weights
        self.dims = int(self.quantized.shape[1])

    def sum(self, ids: list[int]) -> Any:
        """The weighted sum of the vectors of ``ids`` (float32)."""
        import numpy as np

        return self.factor[ids] @ self.quantized[ids].astype(np.float32)


@functools.cache
def _table() -> _Table:
    return _Table()


class _PlainTable:
    """The same table read and summed without numpy, for a process that has not loaded it: a ``trail``
    command whose sync writes the few sessions Hermes changed would spend most of its time importing numpy
    and its table (about 0.2 s) to sum a few hundred rows. In double precision, so a gist made here is the
    numpy one to float16's precision (at most the odd last bit apart)."""

    def __init__(self) -> None:
        vectors, shape, _ = _member("vectors")
        self.rows = memoryview(vectors).cast("b")  # int8
        self.dims = shape[1]
        self.scale, _, _ = _member("scale")  # float16, a token each
        self._half = struct.Struct("<e").unpack_from
        self._special = _vocabulary().special

    def factor(self, token: int) -> float:
        if token in self._special:
            return 0.0
        half: float = self._half(self.scale, 2 * token)[0]
        return half * math.log1p(token)

    def unit(self, ids: list[int]) -> list[float] | None:
        """The unit vector of the weighted sum of ``ids``' rows; ``None`` for a zero one."""
        total = [0.0] * self.dims
        for token, count in Counter(ids).items():
            weight = self.factor(token) * count
            if weight:
                row = self.rows[token * self.dims : (token + 1) * self.dims]
                total = [a + weight * b for a, b in zip(total, row, strict=True)]
        norm = math.sqrt(math.fsum(x * x for x in total))
        if not math.isfinite(norm) or norm == 0.0:
            return None
        return [x / norm for x in total]


@functools.cache
def _plain_table() -> _PlainTable:
    return _PlainTable()


@functools.cache
def can_gist() -> bool:
    """Whether a session's gist can be made here: the table ships; numpy is not needed for a few
    (:func:`gist_blob`), so the Hermes plugin, in a Python without it, makes the gists of what it syncs.
    Asked once a process (a build asked it for every session)."""
    return DATA.is_file()


def warm() -> None:
    """Load the table now (before forking workers that share it)."""
    _table()


# A sync that writes more sessions than this makes their gists by numpy (its import and table, about
# 0.2 s, are then less than summing in Python: a few tenths of a millisecond more a session); fewer, as
# a ``trail`` command after a Hermes turn writes, without it (:class:`_PlainTable`).
PLAIN_UP_TO = 20


def expect(sessions: int) -> None:
    """Ready the gists of ``sessions`` sessions about to be written: numpy's table for many of them."""
    if sessions > PLAIN_UP_TO and available():
        warm()


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


# ASCII text (most of what agents and people type) takes a regular expression instead of a loop over
# characters: in ASCII every printable character that is not a letter or digit is BERT punctuation.
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")
_ASCII_CONTROLS = {code: None for code in (*range(0, 9), 11, 12, *range(14, 32), 127)}


def words(text: str) -> list[str]:
    """BERT's basic tokenization: lower case, no accents, punctuation and CJK characters on their own;
    control characters dropped."""
    if text.isascii():
        return _ASCII_WORDS.findall(text.lower().translate(_ASCII_CONTROLS))
    text = unicodedata.normalize("NFD", text.lower())
    out: list[str] = []
    current: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        code = ord(char)
        if category == "Mn" or code == 0 or code == 0xFFFD:
            continue
        if char in " \t\n\r" or category == "Zs":  # BERT's whitespace; other separators are controls
            if current:
                out.append("".join(current))
                current = []
        elif category in ("Cc", "Cf"):
            continue
        elif _is_punctuation(char) or _is_cjk(code):
            if current:
                out.append("".join(current))
                current = []
            out.append(char)
        else:
            current.append(char)
    if current:
        out.append("".join(current))
    return out


@functools.lru_cache(maxsize=200_000)
def pieces(word: str) -> tuple[int, ...]:
    """WordPiece ids of one word: the longest known prefix, then ``##``-pieces; unknown if it cannot."""
    table = _vocabulary()
    if len(word) > MAX_WORD:
        return (table.unknown,)
    ids: list[int] = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            found = table.ids.get(piece)
            if found is not None:
                break
            end -= 1
        if found is None:
            return (table.unknown,)
        ids.append(found)
        start = end
    return tuple(ids)


def token_ids(text: str) -> list[int]:
    return [i for word in words(text) for i in pieces(word)]


def embed(text: str) -> np.ndarray | None:
    """The unit vector of ``text`` (float32), or ``None`` when it has no known word."""
    import numpy as np

    ids = token_ids(text)
    if not ids:
        return None
    vector = _table().sum(ids)
    norm = float(np.linalg.norm(vector))
    if not math.isfinite(norm) or norm == 0.0:
        return None
    return np.asarray(vector / norm, dtype=np.float32)


def gist_blob(texts: list[str]) -> bytes | None:
    """A session's gist as stored in the index (float16 bytes), from its title and prompts: by numpy where
    it is loaded (a build, a long-lived process), else without it (:class:`_PlainTable`)."""
    text = "\n".join(t for t in texts if t)[:GIST_CHARS]
    if not text.strip():
        return None
    if sys.modules.get("numpy") is None:  # not loaded (or not to be: a Python without it)
        ids = token_ids(text)
        unit = _plain_table().unit(ids) if ids else None
        return None if unit is None else struct.pack(f"<{len(unit)}e", *unit)
    import numpy as np

    vector = embed(text)
    return None if vector is None else vector.astype(np.float16).tobytes()


def matrix(blobs: list[bytes]) -> Any:
    """Stored gists as one float32 matrix, a row each (unit vectors: a product with a query is cosine)."""
    import numpy as np

    if not blobs:
        return np.zeros((0, _table().dims), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(blobs), -1).astype(np.float32)


def top(similarity: Any, count: int) -> list[int]:
    """Indexes of the ``count`` largest values, largest first (a partial sort: thousands of gists)."""
    import numpy as np

    if len(similarity) <= count:
        return [int(i) for i in np.argsort(-similarity, kind="stable")]
    part = np.argpartition(-similarity, count)[:count]
    return [int(i) for i in part[np.argsort(-similarity[part], kind="stable")]]
