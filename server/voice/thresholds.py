"""Per-encoder decision thresholds, calibrated by ``python -m bench.calibrate``.

Why a table keyed by encoder: cosine scales differ between encoders (GE2E different-
speaker pairs sit near 0.6, ECAPA's near 0.0), so a threshold is a property of the
encoder, measured on data, and never copied from another one. Settings may override the
link/update thresholds for experiments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from importlib import resources
from pathlib import Path

from voxmem.voice.encoders import EncoderUnavailable

THRESHOLDS_FILE = Path(str(resources.files("voxmem.voice").joinpath("thresholds.json")))


def calibration_table(shipped: Path, calibration_dir: Path | None) -> dict:
    """A per-encoder table: the one shipped with the package, with every encoder found in
    ``calibration_dir`` (setting ``voice_calibration_dir``, where the calibration writes) taking
    its place. Calibration output lives outside the package, so re-calibrating never edits
    installed files and a deployment chooses which calibration it runs."""
    table = json.loads(shipped.read_text(encoding="utf-8")) if shipped.exists() else {}
    override = calibration_dir / shipped.name if calibration_dir else None
    if override is not None and override.exists():
        table.update(json.loads(override.read_text(encoding="utf-8")))
    return table


@dataclass(frozen=True)
class Thresholds:
    """``link``: centroid score to join an existing speaker; ``update``: stricter score (plus
    ``update_margin`` over the runner-up) for the gated policy to move a centroid; ``knn_link``:
    the link threshold on the k-nearest-exemplar score; ``merge``: centroid cosine for the
    post-session reconciliation of two speakers heard in one session; ``merge_cross``: the lower
    cosine for two speakers never heard together (a voice back through another channel);
    ``asker_link``: score a read-only asker match needs (calibrated on
    the clean channel, where spoken questions are recorded); ``asker_margin``: margin it needs over
    the best speaker identified as *another* participant; ``overlap_dispersion``: window
    dispersion above which a recording piece counts as mixed speech and is not routed."""

    link: float
    update: float
    update_margin: float
    knn_link: float
    knn_k: int
    merge: float
    asker_margin: float
    asker_link: float = -1.0  # < 0: use ``link``
    merge_cross: float = -1.0  # < 0: use ``merge`` (no cross-session relaxation)
    overlap_dispersion: float = -1.0  # < 0: no overlap detection (voxmem.voice.overlap)

    @classmethod
    def from_entry(cls, entry: dict) -> Thresholds:
        """The thresholds of one encoder's ``thresholds.json`` entry (other keys, such as
        ``source`` or ``channel_projection_k``, are notes, not thresholds)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in entry.items() if k in names})

    @property
    def merge_cross_threshold(self) -> float:
        return self.merge_cross if self.merge_cross >= 0 else self.merge

    @property
    def asker_threshold(self) -> float:
        return self.asker_link if self.asker_link >= 0 else self.link


def load_thresholds(
    encoder: str, link: float | None = None, update: float | None = None, calibration_dir: Path | None = None
) -> Thresholds:
    table = calibration_table(THRESHOLDS_FILE, calibration_dir)
    if encoder not in table:
        raise EncoderUnavailable(
            f"no calibrated thresholds for encoder {encoder!r}: run `python -m bench.calibrate "
            f"--encoder {encoder}` first"
        )
    values = Thresholds.from_entry(table[encoder])
    if link is not None:
        values = replace(values, link=link)
    if update is not None:
        values = replace(values, update=update)
    return values
