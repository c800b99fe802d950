"""A value built on first use, once per process, under a lock.

Why: models (sentence encoders, SPLADE, the ONNX query encoder) take seconds and hundreds of MB
to load, and many requests may ask for one at the same moment; each must load once, only when
first needed, and never twice under concurrency. One helper instead of a lock-and-check per model.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Lazy(Generic[T]):
    """``Lazy(build).get()`` calls ``build()`` the first time only; ``loaded`` says whether it ran."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._done = False
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._done

    def get(self) -> T:
        if not self._done:
            with self._lock:
                if not self._done:
                    self._value = self._build()
                    self._done = True
        return cast(T, self._value)  # built above; T itself may allow None
