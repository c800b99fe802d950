"""Calibrate an encoder's channel compensation and routing thresholds on synthetic voices;
writes thresholds.json and channel_projection.json into the calibration directory the
configuration points to (setting ``voice_calibration_dir``, ``VOXMEM_VOICE_CALIBRATION_DIR``),
never into the installed package. The server reads an encoder's entry there before the tables
shipped in server/voice/; to ship a calibration, copy its entries into those files and commit.

    export VOXMEM_VOICE_CALIBRATION_DIR=/srv/voxmem/calibration
    python -m bench.calibrate [--encoder resemblyzer]
    python -m bench.calibrate --dry-run   # print and write the report only

Uses the CALIBRATION sentences only (the identity benchmark scores other sentences) and
the six distinct voices (``CHOSEN_6``). Per condition (clean, reverb+noise, telephone,
tempo), each voice is enrolled on its first ``--enrol`` utterances *in that channel*
(what the online router has after a few turns) and every later utterance of every voice
is scored against each enrolment; cross-channel scores (clean enrolment, shifted test)
are reported too. Rules (docs/voice.md):

* ``link`` = highest different-speaker score over the *separable* conditions + 0.02, so no
  observed pair of different people would link. A condition is inseparable when its
  highest different-speaker score exceeds its lowest same-speaker score (telephone band:
  two voices differ only in a cue the band limit removes); it is reported, not fitted.
* ``knn_link`` = the same rule as ``link`` on the mean-of-top-k exemplar score.
* ``asker_link`` = highest different-speaker score in the *clean* channel + 0.02: a spoken
  question is recorded by the device's own microphone, and the read-only match changes no
  state; a stranger in a reverberant room can still exceed it (reported in docs/voice.md).
* ``update`` (gate) and ``merge`` (reconciliation) are chosen by simulation: online routing
  with the gated policy and post-session reconciliation over synthetic multi-session
  scenarios built from the calibration sentences in the separable channels; the grid point
  with the best mean B-cubed F1 among those with **zero wrong links and zero
  contaminated entities** wins (ties: the larger, more conservative thresholds). ``update``
  is always above ``link`` (a gate no stricter than the link would be plain EMA).
* ``merge_cross`` (reconciliation of two speakers never heard in one session) is then
  searched from ``merge`` down to 0.60 by the same simulation and the same rule.
* Channel compensation (``voxmem.voice.compensation``): a NAP basis is fitted on the
  "shifted minus clean" embeddings of the *nuisance pool*: those of the 46 background voices of
  ``voices.BACKGROUND`` (espeak-ng variants never used by ``CHOSEN_6``) and the four extra voices
  of ``VOICES`` that are farther from every benchmark voice than the benchmark voices are from
  each other (``nuisance_pool``), so it never sees the voices it is scored on, nor look-alikes;
  every rule above is applied to embeddings compensated with the first k directions, for k in
  ``PROJECTION_KS``. The k kept has zero wrong links in that simulation, then the fewest wrong
  links in the same simulation with every shift (the inseparable telephone band included:
  compensation must not add wrong links there), then the best F1; ties go to the smaller k.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from bench.embcache import EmbeddingCache, embedding_cache
from bench.sentences import CALIBRATION
from bench.voices import BACKGROUND, CHOSEN_6, CONDITIONS, VOICES
from voxmem.config import get_settings
from voxmem.voice.compensation import PROJECTION_FILE, ChannelProjection
from voxmem.voice.encoders import build_encoder
from voxmem.voice.routing import SpeakerState, normalise, speaker_score
from voxmem.voice.thresholds import THRESHOLDS_FILE, Thresholds, calibration_table


def _write_entry(target: Path, shipped: Path, encoder: str, entry: dict, indent: int) -> Path:
    """Set one encoder's entry in ``target``/<shipped file name>, keeping the other encoders
    already calibrated there (the shipped table itself is never written)."""
    target.mkdir(parents=True, exist_ok=True)
    path = target / shipped.name
    table = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    table[encoder] = entry
    path.write_text(json.dumps(table, indent=indent) + "\n", encoding="utf-8")
    return path


def save_projection(target: Path, encoder: str, projection: ChannelProjection, source: str) -> Path:
    """Write a fitted NAP basis as the server loads it (``voxmem.voice.compensation.load_projection``)."""
    entry = {
        "k": projection.k,
        "source": source,
        "basis": [[round(float(x), 7) for x in row] for row in projection.basis],
    }
    return _write_entry(target, PROJECTION_FILE, encoder, entry, indent=1)


def _scores(emb, voices, enrol_cond, test_cond, enrol, k, policy):
    same, diff = [], []
    for v in voices:
        ex = emb[(v, enrol_cond)][:enrol]
        state = SpeakerState(v, normalise(ex.mean(axis=0)), enrol, ex)
        for u in voices:
            for e in emb[(u, test_cond)][enrol:]:
                (same if u == v else diff).append(speaker_score(e, state, policy, k))
    return np.asarray(same), np.asarray(diff)


# calibration scenarios of each kind (clean, shifted, recording-shaped): with 12, one borderline
# pair of utterances moved the chosen merge threshold (0.85 / 0.86 / 0.87 across pool changes)
SCENARIOS_PER_KIND = 24


def _scenarios(cache, shifts: tuple[str, ...], n: int = SCENARIOS_PER_KIND):
    """Calibration scenarios with their embeddings (calibration sentences): ``n`` clean and ``n``
    shifted multi-session conversations (single audio turns, reconciled after each session), and
    ``n`` recording-shaped ones: one clean session in which every voice speaks, reconciled once at
    its end, as a whole-recording job does. Why the last kind: there a voice whose second turn
    missed ``link`` stays a one-turn fragment unless the same-session ``merge`` joins it, which
    multi-session scenarios hardly test (a test recording of three voices came out as four)."""
    from bench.identity_bench import make_scenario

    scenarios = [
        make_scenario(1000 + s, shifted, sentences=CALIBRATION, shifts=shifts)
        for s in range(n)
        for shifted in (False, True)
    ]
    scenarios += [
        make_scenario(2000 + s, False, n_sessions=1, sentences=CALIBRATION, opening=len(CHOSEN_6))
        for s in range(n)
    ]
    return scenarios, [[cache.get(t.voice, t.text, t.condition) for t in sc] for sc in scenarios]


def _simulate(thresholds, scenarios, embedded) -> dict:
    """Gated online routing with reconciliation after each session, as the server runs it."""
    from bench.memory_router import MemoryRouter
    from bench.metrics import identity_scores

    f1s, wrong, contaminated = [], 0, 0
    for sc, emb in zip(scenarios, embedded, strict=True):
        router = MemoryRouter("gated", thresholds)
        pred, acts = [], []
        for i, (turn, e) in enumerate(zip(sc, emb, strict=True)):
            d = router.route(e, str(turn.session))
            pred.append(d.speaker_id)
            acts.append(d.action)
            if i + 1 == len(sc) or sc[i + 1].session != turn.session:
                router.reconcile()
        s = identity_scores([x.voice for x in sc], [router.resolve(p) for p in pred], acts)
        f1s.append(s.b3_f1)
        wrong += s.wrong_links
        contaminated += s.contaminated_entities
    return {"b3_f1": float(np.mean(f1s)), "wrong_links": wrong, "contaminated": contaminated}


def _best_safe(grid: list[dict], keys: tuple[str, ...]) -> list[dict]:
    """Best mean F1 among points with zero wrong links and zero contamination; ties go to
    the larger (more conservative) thresholds."""
    safe = [g for g in grid if g["wrong_links"] == 0 and g["contaminated"] == 0]
    return sorted(safe or grid, key=lambda g: (-round(g["b3_f1"], 4), *(-g[k] for k in keys)))


def simulate_gate_and_merge(cache, link: float, k: int, shifts: tuple[str, ...], n: int = SCENARIOS_PER_KIND):
    """Grid search of (update, merge), then of merge_cross below merge, by simulated online
    routing on calibration scenarios."""
    scenarios, embedded = _scenarios(cache, shifts, n)
    grid = []
    for update in np.arange(link + 0.01, 0.961, 0.01):  # the gate is stricter than link
        for merge in np.arange(0.80, 0.961, 0.01):
            t = Thresholds(link, float(update), 0.0, link, k, float(merge), 0.03)
            row = {"update": round(float(update), 3), "merge": round(float(merge), 3)}
            grid.append(row | _simulate(t, scenarios, embedded))
    ranked = _best_safe(grid, ("merge", "update"))
    update, merge = ranked[0]["update"], ranked[0]["merge"]
    cross_grid = []
    for cross in np.arange(merge, 0.599, -0.01):
        t = Thresholds(link, update, 0.0, link, k, merge, 0.03, merge_cross=float(cross))
        cross_grid.append({"merge_cross": round(float(cross), 3)} | _simulate(t, scenarios, embedded))
    return update, merge, _best_safe(cross_grid, ("merge_cross",))[0]["merge_cross"], ranked, cross_grid


PROJECTION_KS = (0, 2, 4, 8, 16)
# voices the channel projection may be fitted on: never a benchmark voice (nor an espeak variant
# of one); nuisance_pool() then drops those that *sound* like one
NUISANCE_CANDIDATES = tuple(BACKGROUND) + tuple(v for v in VOICES if v not in CHOSEN_6)


def nuisance_pool(cache: EmbeddingCache, candidates: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The candidates that are farther from every benchmark voice than the benchmark voices are
    from each other (clean centroids of the calibration sentences, uncompensated). Why: two
    espeak-ng variants with different names can sound alike (bg_m4 sits at cosine 0.977 from
    us_croak_hi, where the benchmark's closest pair is at 0.78); fitting on such a voice would be
    fitting on the benchmark."""
    if cache.projection is not None:
        raise ValueError("the nuisance pool is chosen on uncompensated embeddings")

    def centroid(voice: str) -> np.ndarray:
        return normalise(np.mean([cache.get(voice, t) for t in CALIBRATION], axis=0))

    chosen = np.stack([centroid(v) for v in CHOSEN_6])
    between = chosen @ chosen.T
    np.fill_diagonal(between, -1.0)
    candidates = NUISANCE_CANDIDATES if candidates is None else candidates  # read at call time
    return tuple(v for v in candidates if float((chosen @ centroid(v)).max()) < between.max())


def resemblyzer_pool() -> tuple[str, ...]:
    """The nuisance pool resemblyzer's calibration kept (results/identity/calibration.json).
    Why another encoder may start from it: it is already the candidates that sound like no
    benchmark voice; :func:`nuisance_pool` then applies the same rule with that encoder's own
    embeddings, so a voice stays only if *both* encoders hear it as unlike every benchmark voice
    (and the 37 other candidates need not be synthesised and embedded again)."""
    report = json.loads(Path("results/identity/calibration.json").read_text())["report"]
    return tuple(report["nuisance_pool"])


def nuisance_differences(cache: EmbeddingCache, pool: tuple[str, ...]) -> np.ndarray:
    """Raw "shifted minus clean" embeddings of the same utterance for the nuisance ``pool`` (so
    channel compensation is never fitted on the voices it is scored on). Why a pool of many
    voices: fitted on four voices alone, the directions past the second one described those
    voices as much as the channels (k = 8 added wrong links in the telephone band)."""
    rows = []
    for v in pool:
        for t in CALIBRATION:
            clean = cache.get(v, t, "clean")
            rows += [cache.get(v, t, c) - clean for c in CONDITIONS if c != "clean"]
    return np.stack(rows)


def calibrate(
    encoder_name: str,
    enrol: int = 3,
    k: int = 5,
    ks: tuple[int, ...] = PROJECTION_KS,
    candidates: tuple[str, ...] | None = None,
) -> dict:
    """Fit the channel projection, then calibrate thresholds for each candidate k on compensated
    embeddings; keep the k whose simulation is best with zero wrong links (ties: smaller k).
    ``ks = (0,)`` skips the projection (the fused encoder compensates its resemblyzer half with
    resemblyzer's own basis inside the encoder; no basis was fitted for the d-vector)."""
    cache = embedding_cache(build_encoder(encoder_name))
    pool: tuple[str, ...] = ()
    full = ChannelProjection.identity()
    if max(ks) > 0:
        pool = nuisance_pool(cache, candidates)
        full = ChannelProjection.fit(nuisance_differences(cache, pool), max(ks))
    cache.save()
    tried = []
    for n in ks:
        if max(ks) > 0:
            cache.projection = full.first(n)
        result = _thresholds_for(cache, encoder_name, enrol, k)
        # the same simulation with every shift, the inseparable telephone band included: wrong
        # links there are what compensation must not add (a wrong link attributes one person's
        # words to another; a fragment only waits for reconciliation)
        t = Thresholds.from_entry(result["thresholds"])
        scenarios, embedded = _scenarios(cache, tuple(c for c in CONDITIONS if c != "clean"))
        result["all_shifts"] = _simulate(t, scenarios, embedded)
        tried.append((n, result))
    safe = [
        (n, r)
        for n, r in tried
        if r["simulation"]["wrong_links"] == 0 and r["simulation"]["contaminated"] == 0
    ]
    n, best = max(
        safe or tried,
        key=lambda item: (
            -item[1]["all_shifts"]["wrong_links"],
            round(item[1]["simulation"]["b3_f1"], 4),
            -item[0],
        ),
    )
    best["thresholds"]["channel_projection_k"] = n
    best["projection"] = full.first(n)
    best["report"]["nuisance_pool"] = list(pool)
    best["report"]["projection_choice"] = [
        {"k": m, **r["simulation"], "link": r["thresholds"]["link"], "all_shifts": r["all_shifts"]}
        for m, r in tried
    ]
    return best


OVERLAP_FLAG_RATE = 0.05  # share of single-voice calibration pieces the detector may flag


def _mix_pieces(n_voices: int = 24, max_s: float = 6.0) -> dict[str, list[np.ndarray]]:
    """Synthetic recording pieces of *non-benchmark* voices (``NUISANCE_CANDIDATES``, calibration
    sentences, clean): ``single`` (one voice, two sentences), ``overlap`` (a second voice starts
    40 % into the first, at equal loudness) and ``change`` (one voice, then another)."""
    import soundfile as sf

    from bench.voices import synthesize

    def clip(voice: str, i: int) -> np.ndarray:
        x, _ = sf.read(synthesize(CALIBRATION[i % len(CALIBRATION)], voice), dtype="float32")
        return x / max(float(np.sqrt(np.mean(x**2))), 1e-6) * 0.05

    gap = np.zeros(4800, np.float32)
    voices = NUISANCE_CANDIDATES[:n_voices]
    out: dict[str, list[np.ndarray]] = {"single": [], "overlap": [], "change": []}
    for n, a in enumerate(voices):
        b = voices[(n + 7) % len(voices)]
        xa, xa2, xb = clip(a, n), clip(a, n + 1), clip(b, n + 2)
        out["single"].append(np.concatenate([xa, gap, xa2]))
        start = int(0.4 * len(xa))
        mixed = np.zeros(max(len(xa), start + len(xb)), np.float32)
        mixed[: len(xa)] += xa
        mixed[start : start + len(xb)] += xb
        out["overlap"].append(mixed)
        out["change"].append(np.concatenate([xa, gap, xb]))
    return {k: [x[: int(max_s * 16_000)] for x in v] for k, v in out.items()}


def calibrate_overlap(encoder) -> dict:
    """The overlap detector's dispersion threshold for an encoder with window embeddings: the
    smallest value that flags at most ``OVERLAP_FLAG_RATE`` of single-voice pieces (a flagged
    piece is only not routed; an unflagged mixed piece can contaminate a voice), with the
    detection rates on the synthetic mixes. Benchmark voices and AMI are never used."""
    from voxmem.voice.overlap import dispersion

    windowed = encoder.parts[1] if hasattr(encoder, "parts") else encoder  # fused: its d-vector's windows
    pieces = _mix_pieces()
    disp = {k: [dispersion(windowed.embed_windows(x)[1]) for x in v] for k, v in pieces.items()}
    threshold = round(float(np.quantile(disp["single"], 1.0 - OVERLAP_FLAG_RATE)), 4)
    return {
        "overlap_dispersion": threshold,
        "report": {
            "pieces_per_kind": len(disp["single"]),
            "flagged": {k: float(np.mean(np.asarray(v) > threshold)) for k, v in disp.items()},
            "dispersion_median": {k: float(np.median(v)) for k, v in disp.items()},
            "voices": "NUISANCE_CANDIDATES (never a benchmark voice), calibration sentences, clean",
        },
    }


def _thresholds_for(cache: EmbeddingCache, encoder_name: str, enrol: int, k: int) -> dict:
    voices = list(CHOSEN_6)
    t0 = time.perf_counter()
    emb = {(v, c): np.stack([cache.get(v, t, c) for t in CALIBRATION]) for c in CONDITIONS for v in voices}
    cache.save()
    report: dict = {"in_channel": {}, "cross_channel_clean_enrol": {}}
    separable_diff, knn_diff = [], []
    for cond in CONDITIONS:
        same, diff = _scores(emb, voices, cond, cond, enrol, k, "fixed")
        ksame, kdiff = _scores(emb, voices, cond, cond, enrol, k, "knn")
        xs, xd = _scores(emb, voices, "clean", cond, enrol, k, "fixed")
        separable = bool(diff.max() < same.min())
        report["in_channel"][cond] = {
            "same_min": float(same.min()),
            "same_p10": float(np.percentile(same, 10)),
            "same_mean": float(same.mean()),
            "diff_mean": float(diff.mean()),
            "diff_max": float(diff.max()),
            "knn_same_min": float(ksame.min()),
            "knn_diff_max": float(kdiff.max()),
            "separable": separable,
        }
        report["cross_channel_clean_enrol"][cond] = {
            "same_min": float(xs.min()),
            "same_mean": float(xs.mean()),
            "diff_max": float(xd.max()),
        }
        if separable:
            separable_diff.append(diff.max())
            knn_diff.append(kdiff.max())
    link = round(float(max(separable_diff)) + 0.02, 3)
    separable = tuple(c for c, r in report["in_channel"].items() if r["separable"] and c != "clean")
    update, merge, merge_cross, grid, cross_grid = simulate_gate_and_merge(cache, link, k, separable)
    report["simulation_grid_top"] = grid[:10]
    report["cross_session_merge_grid"] = cross_grid
    simulation = next(g for g in cross_grid if g["merge_cross"] == merge_cross)
    cent = np.stack([normalise(emb[(v, "clean")].mean(axis=0)) for v in voices])
    cc = cent @ cent.T
    np.fill_diagonal(cc, -1)
    report.update(
        encoder=encoder_name,
        channel_projection_k=cache.projection.k if cache.projection is not None else 0,
        voices=voices,
        n_sentences=len(CALIBRATION),
        enrol_utterances=enrol,
        seconds=round(time.perf_counter() - t0, 1),
        max_centroid_cosine_between_voices=float(cc.max()),
    )
    for cond, row in report["in_channel"].items():
        row["frr_at_link"] = float(np.mean(_scores(emb, voices, cond, cond, enrol, k, "fixed")[0] < link))
    thresholds = {
        "link": link,
        "update": update,
        "update_margin": 0.0,
        "knn_link": round(float(max(knn_diff)) + 0.02, 3),
        "knn_k": k,
        "merge": merge,
        "merge_cross": merge_cross,
        "asker_margin": 0.03,
        "asker_link": round(report["in_channel"]["clean"]["diff_max"] + 0.02, 3),
        "source": f"bench.calibrate: {len(voices)} voices x {len(CALIBRATION)} calibration sentences, "
        f"separable conditions {[c for c, r in report['in_channel'].items() if r['separable']]}",
    }
    return {"thresholds": thresholds, "report": report, "simulation": simulation}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--encoder", default="resemblyzer")
    parser.add_argument("--enrol", type=int, default=3)
    parser.add_argument("--ks", default=",".join(map(str, PROJECTION_KS)), help="projection sizes to try")
    parser.add_argument(
        "--pool-from-resemblyzer",
        action="store_true",
        help="nuisance candidates = resemblyzer's calibrated pool (then filtered by this encoder)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print, do not write thresholds.json")
    parser.add_argument(
        "--calibration-dir",
        type=Path,
        help="where thresholds.json and channel_projection.json go (default: setting voice_calibration_dir)",
    )
    parser.add_argument(
        "--overlap-only", action="store_true", help="only (re)fit the overlap detector's threshold"
    )
    parser.add_argument("--out", type=Path, help="default results/identity/calibration[-ENCODER].json")
    args = parser.parse_args(argv)
    suffix = "" if args.encoder == "resemblyzer" else f"-{args.encoder}"
    args.out = args.out or Path(f"results/identity/calibration{suffix}.json")
    target = args.calibration_dir or get_settings().voice_calibration_dir
    if target is None and not args.dry_run:
        parser.error(
            "no calibration directory: set VOXMEM_VOICE_CALIBRATION_DIR (the server reads it) or pass "
            "--calibration-dir; the package's shipped tables are never written"
        )
    encoder = build_encoder(args.encoder)
    if args.overlap_only:
        if not hasattr(encoder, "embed_windows"):
            parser.error(f"encoder {args.encoder!r} gives no window embeddings")
        overlap = calibrate_overlap(encoder)
        print(json.dumps(overlap, indent=2))
        if not args.dry_run:
            entry = calibration_table(THRESHOLDS_FILE, target)[args.encoder]
            entry["overlap_dispersion"] = overlap["overlap_dispersion"]
            print(f"wrote {_write_entry(target, THRESHOLDS_FILE, args.encoder, entry, indent=2)}")
            report = json.loads(args.out.read_text()) if args.out.exists() else {}
            report["overlap"] = overlap
            args.out.write_text(json.dumps(report, indent=2))
        return
    candidates = resemblyzer_pool() if args.pool_from_resemblyzer else None
    ks = tuple(int(x) for x in args.ks.split(","))
    result = calibrate(args.encoder, enrol=args.enrol, ks=ks, candidates=candidates)
    projection = result.pop("projection")
    if hasattr(encoder, "embed_windows"):
        result["overlap"] = calibrate_overlap(encoder)
        result["thresholds"]["overlap_dispersion"] = result["overlap"]["overlap_dispersion"]
    print(json.dumps(result, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    if not args.dry_run:
        written = _write_entry(target, THRESHOLDS_FILE, args.encoder, result["thresholds"], indent=2)
        pool = result["report"]["nuisance_pool"]
        pool = f"{len(pool)} voices unlike any of CHOSEN_6: {', '.join(pool)}"
        source = f"{result['thresholds']['source']}; NAP basis fitted on {pool}"
        basis = save_projection(target, args.encoder, projection, source)
        print(f"wrote {written} and {basis} (k={projection.k}); the server reads them with")
        print(f"VOXMEM_VOICE_CALIBRATION_DIR={target}")


if __name__ == "__main__":
    main()
