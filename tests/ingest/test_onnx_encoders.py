"""Stored-vector encoders through ONNX Runtime (issue 17): the int8 MiniLM that stores message,
fact and attribute vectors by default stays within cosine 0.99 of the torch model the store was
written with before, and the SPLADE export gives the torch model's terms and weights.

Texts are hand-written turns, passages and fact sentences of several lengths (padding inside a
length-sorted batch must not change a text's vector), not the benchmark's data.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx

from voxmem.config import Settings
from voxmem.embeddings import MAX_PADDING, SparseEncoder, TextEmbedder, padded_batches

TEXTS = [
    "Maya to Tom: Dad, can we stop for pizza on the way home?",
    "Tom: Maya, we had pizza yesterday. How about sushi?",
    "Priya to Tom: Tom, the plumber is coming on Thursday at ten.",
    "Dave works as a nurse.",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "Melanie: I finally finished the painting of the lake at sunrise, the one I started in "
    "spring, and I think I will hang it in the hallway next to the photos of the kids.",
    "ok",
    "José said the garage door code is 4417, don't tell the kids!",
    "Lena moved to Porto last year and works at a bakery near the river; she says the "
    "tourists keep asking for the custard tarts before the shop even opens in the morning, "
    "which is why she now starts baking at four.",
    "Priya's favourite food is sushi.",
    "Grandma: 我们周末去公园吧 — the kids would love it.",
    "Tom loves hiking.",
]


def test_onnx_stored_vectors_are_within_cosine_099_of_torch() -> None:
    onnx = TextEmbedder(Settings(text_embedding_backend="onnx"))
    torch = TextEmbedder(Settings(text_embedding_backend="torch"))
    assert (onnx.backend, torch.backend) == ("onnx", "torch")
    stored = onnx.embed(TEXTS)  # one length-sorted, padded batch
    reference = torch.embed(TEXTS)
    assert stored.shape == reference.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-5)
    cosines = (stored * reference).sum(axis=1)
    assert cosines.min() >= 0.99, cosines
    # padding does not leak into a text's vector: alone it is the same vector
    alone = np.stack([onnx.embed([t])[0] for t in TEXTS])
    assert ((alone * stored).sum(axis=1) >= 0.9999).all()
    # and a query vector (always ONNX) equals the stored vector of the same text
    assert ((onnx.embed_queries(TEXTS) * stored).sum(axis=1) >= 0.9999).all()


def test_stored_vectors_come_from_the_int8_export(tmp_path: Path) -> None:
    """The bundled MiniLM is exported with int8 weight products (MatMulNBits) into the cache
    dir and serves, rather than the fallback graph whose int8 weights are cast back to float."""
    embedder = TextEmbedder(Settings(cache_dir=tmp_path))
    vectors = embedder.embed(TEXTS[:3])
    (export,) = (tmp_path / "models").glob("minilm-l6-q8b*.onnx")
    ops = Counter(node.op_type for node in onnx.load(str(export)).graph.node)
    assert ops["MatMulNBits"] == 36  # 6 layers x (Q, K, V, output, 2 feed-forward)
    assert ops["MatMul"] == 12  # only the attention products (queries x keys, weights x values)
    reference = TextEmbedder(Settings(text_embedding_backend="torch")).embed(TEXTS[:3])
    assert ((vectors * reference).sum(axis=1) >= 0.99).all()


def test_a_non_bundled_model_keeps_torch(tmp_path: Path) -> None:
    assert TextEmbedder(Settings(text_embedding_model=str(tmp_path))).backend == "torch"


def test_splade_onnx_export_gives_the_torch_terms(tmp_path: Path) -> None:
    exported = SparseEncoder(cache_dir=tmp_path, backend="onnx")
    exported.warm_up()
    assert exported.backend == "onnx", "the export failed and fell back to torch"
    assert list((tmp_path / "models").glob("splade-tiny-*.onnx"))
    reference = SparseEncoder(backend="torch")
    got, want = exported.encode(TEXTS), reference.encode(TEXTS)
    for text, g, w in zip(TEXTS, got, want, strict=True):
        assert 5 <= len(g) <= exported.max_terms, text
        # terms at the cut may swap on a 1e-6 tie; the rest are the same terms, same weights
        same = set(g) & set(w)
        assert len(same) >= len(w) - 2, text
        assert max(abs(g[t] - w[t]) for t in same) <= 0.002, text


class _Tokens:
    """A stand-in tokenizer: text 'n' is n tokens long."""

    class _Encoding:
        def __init__(self, n: int) -> None:
            self.ids = list(range(1, n + 1))

    def encode_batch(self, texts: list[str]) -> list[_Encoding]:
        return [self._Encoding(int(t)) for t in texts]


def test_batches_stop_where_padding_would_exceed_a_quarter() -> None:
    # eight concurrent turns' passages of very different lengths, as the coalescer merges them
    texts = ["9", "40", "10", "12", "38", "11", "80", "41"]
    batches = list(padded_batches(_Tokens(), texts, batch_size=32))
    assert sorted(i for chunk, _, _ in batches for i in chunk) == list(range(len(texts)))
    for chunk, ids, mask in batches:
        real = int(mask.sum())
        assert len(chunk) == 1 or ids.size <= (1 + MAX_PADDING) * real, (chunk, ids.shape, real)
        for row, i in enumerate(chunk):  # each row is its text, padded with zeros after it
            assert int(mask[row].sum()) == int(texts[i]) and ids[row, : int(texts[i])].tolist()[0] == 1
    assert [len(c) for c, _, _ in batches] == [4, 3, 1]  # 9-12, 38-41, 80: not one batch of width 80
    # texts of one length still fill whole batches
    assert [len(c) for c, _, _ in padded_batches(_Tokens(), ["20"] * 40, batch_size=32)] == [32, 8]
