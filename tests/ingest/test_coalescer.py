"""The model-call coalescer of voxmem.embeddings: concurrent callers share one batch, each gets
its own results, a failure reaches every caller of its batch, a lone caller runs at once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from voxmem.embeddings import Coalescer


class SlowModel:
    """Upper-cases texts; each call takes 50 ms and is recorded (the batches it was given)."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail_on = fail_on
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def __call__(self, texts: list[str]) -> list[str]:
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        self.calls.append(list(texts))
        time.sleep(0.05)
        with self.lock:
            self.active -= 1
        if self.fail_on is not None and self.fail_on in texts:
            raise ValueError(f"cannot encode {self.fail_on}")
        return [t.upper() for t in texts]


def test_concurrent_callers_share_batches_and_get_their_own_results() -> None:
    model = SlowModel()
    batched = Coalescer(model)
    inputs = [[f"a{i}", f"b{i}"] if i % 2 else [f"c{i}"] for i in range(16)]
    with ThreadPoolExecutor(16) as pool:
        outputs = list(pool.map(batched, inputs))
    assert outputs == [[t.upper() for t in texts] for texts in inputs]
    assert len(model.calls) < len(inputs)  # merged (16 one-at-a-time calls without it)
    assert model.max_active == 1  # one model call at a time
    assert sorted(t for call in model.calls for t in call) == sorted(t for texts in inputs for t in texts)


def test_a_lone_caller_runs_at_once() -> None:
    model = SlowModel()
    batched = Coalescer(model)
    assert batched(["x"]) == ["X"] and batched(["y", "z"]) == ["Y", "Z"]
    assert model.calls == [["x"], ["y", "z"]]


def test_a_failure_reaches_the_callers_of_its_batch_only() -> None:
    model = SlowModel(fail_on="bad")
    batched = Coalescer(model)
    with pytest.raises(ValueError, match="bad"):
        batched(["bad"])
    assert batched(["good"]) == ["GOOD"]  # the coalescer is not stuck after a failure
    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(batched, ["bad"] if i == 0 else [f"t{i}"]) for i in range(8)]
        failed = [f for f in futures if f.exception() is not None]
    assert failed and all("bad" in str(f.exception()) for f in failed)
    assert batched(["after"]) == ["AFTER"]
