"""voxmem.lazy.Lazy: built once on first use, even when many threads ask at the same moment."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from voxmem.lazy import Lazy


def test_built_once_under_concurrency_and_only_when_asked() -> None:
    calls: list[int] = []
    start = threading.Event()

    def build() -> object:
        calls.append(1)
        time.sleep(0.05)  # a slow load: other threads arrive while it runs
        return object()

    lazy = Lazy(build)
    assert not lazy.loaded and calls == []

    def get() -> object:
        start.wait()
        return lazy.get()

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(get) for _ in range(8)]
        start.set()
        values = {id(f.result()) for f in futures}
    assert calls == [1] and len(values) == 1 and lazy.loaded


def test_a_none_value_counts_as_built() -> None:
    calls: list[int] = []
    lazy: Lazy[None] = Lazy(lambda: calls.append(1))
    assert lazy.get() is None and lazy.get() is None
    assert calls == [1]
