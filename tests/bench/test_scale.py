"""``bench.scale`` helpers that need no Neo4j: the timed questions' quiet lock, the copies'
reproducible perturbation and the loader's split between two writers and its pause for the lock."""

from __future__ import annotations

import os
import threading
import time
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from bench import scale
from bench.retrieval_data import Row
from voxmem.passages import passage


def test_quiet_lock_is_held_only_inside_and_names_its_holder(tmp_path: Path):
    lock = tmp_path / "quiet.lock"
    with scale.quiet(lock, "engineer S", 2, None) as info:
        assert lock.read_text().startswith("engineer S, until ")
        assert os.getpriority(os.PRIO_PROCESS, 0) == 0
    assert not lock.exists()
    assert info["held_from_utc"] <= info["held_to_utc"]


def test_quiet_lock_waits_for_another_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    lock = tmp_path / "quiet.lock"
    lock.write_text("someone else\n")
    real_sleep = time.sleep
    monkeypatch.setattr(scale.time, "sleep", lambda s: real_sleep(0.01))
    threading.Timer(0.2, lock.unlink).start()
    started = time.monotonic()
    with scale.quiet(lock, "engineer S", 2, None):
        assert "engineer S" in lock.read_text()  # ours, not the other holder's text
    assert time.monotonic() - started >= 0.2


def test_no_lock_no_change():
    with scale.quiet(None, "x", 1, None) as info:
        assert info == {"lock": None}


def test_copy_perturbation_is_the_same_in_every_run():
    row = Row(turn_id="t1", session="s1", idx=0, speaker="A", text="hi", ts=datetime(2020, 1, 1))
    text = passage(row.text, row.speaker, row.addressees)

    vec = SimpleNamespace(
        passages=[text],
        index={text: 0},
        dense=np.eye(1, 384, dtype=np.float32),
        terms=["hi"],
        weights=[np.ones(1, np.float32)],
    )

    unit = scale.Unit("u", [row])

    def payload(copy: int) -> list[float]:
        rows = scale._payload("scale-main", unit, copy, vec, scale._copy_rng("scale-main", unit, copy))  # type: ignore[arg-type]
        return rows[0]["embedding"]

    assert payload(3) == payload(3)
    assert payload(3) != payload(4)
    assert 0.97 < float(np.dot(payload(3), vec.dense[0])) < 0.999  # perturbed, cosine ~0.99


class _CountingLayout(scale.Layout):
    """The loader's split and pause logic without Neo4j: a "write" only counts a unit's rows."""

    def __init__(self, writers: int, yield_to: Path | None = None) -> None:
        self.units = [scale.Unit(f"u{i}", [None] * (10 + i)) for i in range(3)]  # type: ignore[list-item]
        self.writers, self.yield_to, self.batch = writers, yield_to, 1
        self._lock = threading.Lock()
        self.counts = {scale.MAIN: 0}
        self.main_copies, self.others = 0, []
        self.threads: set[str] = set()
        self.services = SimpleNamespace(db=SimpleNamespace(execute=lambda *a, **k: []))  # type: ignore[assignment]

    def _write(self, space: str, unit: scale.Unit, copy: int) -> int:
        self.threads.add(threading.current_thread().name)
        time.sleep(0.002)  # a write takes time, so the two halves overlap as real transactions do
        with self._lock:
            self.counts[space] = self.counts.get(space, 0) + len(unit.rows)
        return len(unit.rows)


@pytest.mark.parametrize("writers", [1, 2])
def test_loader_fills_both_halves_with_either_writer_count(writers: int):
    layout = _CountingLayout(writers)
    report = layout.grow(1000)
    main = layout.counts[scale.MAIN]
    assert layout.total >= 1000
    assert report["written"] == layout.total
    assert abs(main - (layout.total - main)) <= 12  # half each, within one unit
    assert len(layout.threads) == writers  # two writers: the halves were written by two threads


def test_loader_starts_no_batch_while_the_quiet_lock_exists(tmp_path: Path):
    lock = tmp_path / "quiet.lock"
    lock.write_text("someone timing")
    layout = _CountingLayout(2, yield_to=lock)
    worker = threading.Thread(target=layout.grow, args=(200,))
    worker.start()
    time.sleep(0.3)
    assert layout.total == 0  # paused while someone holds the lock
    lock.unlink()
    worker.join(timeout=30)
    assert layout.total >= 200
