"""Images shared in a turn: the caption is indexed as text; open_clip embeds the pixels
only when local weights are configured (``VOXMEM_CLIP_MODEL_PATH``).

Why captions first: no CLIP weights can be downloaded here, and a caption is what both
retrieval and the extractor can read; the caption also becomes a fact ("Maya shared an
image: …") when the turn is (re)extracted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxmem.config import Settings
from voxmem.cypher import query
from voxmem.db import Database
from voxmem.errors import InvalidInput, NotFound
from voxmem.ids import new_id
from voxmem.lazy import Lazy


class ClipEmbedder:
    """Lazy open_clip image encoder; ``available`` is false unless weights are configured."""

    def __init__(self, settings: Settings, arch: str = "ViT-B-32") -> None:
        self.path = settings.clip_model_path
        self.arch = arch
        self._model: Lazy[tuple[Any, Any]] = Lazy(self._load)

    @property
    def available(self) -> bool:
        return self.path is not None and Path(self.path).exists()

    def _load(self) -> tuple[Any, Any]:
        """The open_clip model (eval mode) and its image preprocessing."""
        import open_clip  # optional extra: pip install voxmem[clip]

        model, _, preprocess = open_clip.create_model_and_transforms(self.arch, pretrained=str(self.path))
        return model.eval(), preprocess

    def embed_file(self, path: str) -> list[float]:
        import torch
        from PIL import Image as PILImage

        model, preprocess = self._model.get()
        image = preprocess(PILImage.open(path).convert("RGB")).unsqueeze(0)
        with torch.no_grad():
            vec = model.encode_image(image)[0]
        vec = vec / vec.norm()
        return vec.float().tolist()


class ImageStore:
    def __init__(self, db: Database, clip: ClipEmbedder) -> None:
        self.db = db
        self.clip = clip

    def attach(self, space: str, message_id: str, caption: str, uri: str | None = None) -> dict[str, Any]:
        """Attach an image (caption required) to a stored message; embed it if CLIP is configured."""
        caption = " ".join(caption.split())
        if not caption:
            raise InvalidInput("image caption is empty")
        embedding = None
        if self.clip.available and uri and Path(uri).is_file():
            embedding = self.clip.embed_file(uri)
        rows = self.db.execute(
            query("memory_image_attach"),
            space=space,
            message_id=message_id,
            id=new_id("img"),
            caption=caption,
            uri=uri,
            embedding=embedding,
        )
        if not rows:
            raise NotFound(f"unknown message {message_id!r}")
        return {**rows[0], "embedded": embedding is not None}
