"""Which faster-whisper decode options make voxmem's ASR better on real speech, and at what CPU cost?

Why: the demo's "at nine" comes out of tiny.en as "after high", and the obvious levers (beam
search, temperature fallback, VAD before decoding, names as an initial prompt, stricter
no-speech / compression thresholds) must be judged on recordings nobody here wrote, never on the
demo. Real speech with a reference transcript here: the pyannote call (30 s, two speakers,
``sample.stm``), decoded whole and cut into its speaker turns (consecutive lines of one speaker
joined), the way the audio-turn route decodes one turn per call. The four AMI clips have speaker
turns (``reference.rttm``) but no transcript: they give CPU cost per audio second, whole and per
turn (turns of at least 1 s), and the number of words written. ``--demo`` adds the demo's
espeak turns for information only (it is not what options are chosen on).

WER is jiwer's on ``bench.scoring.normalize`` text (numbers, punctuation and articles folded);
``errors`` counts substitutions + deletions + insertions. CPU is process time of the decode per
audio second (all CTranslate2 threads), with the model loaded; the load average is recorded.

``--compute-types`` repeats every variant per CTranslate2 compute type (report keyed by it).

    python -m bench.asr_decode [--model bundled:tiny.en] [--variants beam5,vad] [--demo] \
        [--compute-types int8,float32] [--out results/asr/decode_options.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import scoring
from bench.asr_bench import DATA, cpu_flags
from voxmem.asr.transcriber import _transcript, resolve_model
from voxmem.audio.decode import decode_audio
from voxmem.config import get_settings

SR = 16000
# name -> faster-whisper transcribe() options on top of the product's (language en, no
# conditioning on previous text, no VAD, greedy): "current" is what voxmem runs.
VARIANTS: dict[str, dict[str, Any]] = {
    "current": {},
    "no_fallback": {"temperature": 0.0},
    "beam3": {"beam_size": 3},
    "beam5": {"beam_size": 5},
    "vad": {"vad_filter": True},
    "beam5_vad": {"beam_size": 5, "vad_filter": True},
    "names_prompt": {"initial_prompt": "Diane, Sheila."},  # the call's two names, as a prompt
    "no_speech_0.4": {"no_speech_threshold": 0.4},
    "compression_2.0": {"compression_ratio_threshold": 2.0},
}
BASE = {"language": "en", "beam_size": 1, "condition_on_previous_text": False, "vad_filter": False}
Clip = tuple[str, np.ndarray]  # (reference or "", samples)


def _cut(samples: np.ndarray, start: float, end: float, pad: float = 0.2) -> np.ndarray:
    return samples[int(max(0.0, start - pad) * SR) : int((end + pad) * SR)]


def pyannote_sets() -> dict[str, list[Clip]]:
    samples = decode_audio(DATA / "pyannote_sample" / "sample.wav").samples.astype(np.float32)
    stm = (DATA / "pyannote_sample" / "sample.stm").read_text().splitlines()
    lines = [(p[2], float(p[3]), float(p[4]), p[5]) for p in (x.split(" ", 5) for x in stm if x.strip())]
    turns: list[tuple[str, float, float, str]] = []
    for speaker, start, end, text in lines:  # one speaker's consecutive lines (gap < 0.6 s) = a turn
        if turns and turns[-1][0] == speaker and start - turns[-1][2] < 0.6:
            turns[-1] = (speaker, turns[-1][1], end, f"{turns[-1][3]} {text}")
        else:
            turns.append((speaker, start, end, text))
    return {
        "pyannote_whole": [(" ".join(t for *_, t in lines), samples)],
        "pyannote_turns": [(text, _cut(samples, s, e)) for _, s, e, text in turns],
    }


def ami_sets() -> dict[str, list[Clip]]:
    rttm = [x.split() for x in (DATA / "ami" / "reference.rttm").read_text().splitlines() if x.strip()]
    whole: list[Clip] = []
    turns: list[Clip] = []
    for wav in sorted((DATA / "ami").glob("*.wav")):
        samples = decode_audio(wav).samples.astype(np.float32)
        whole.append(("", samples))
        for r in sorted((r for r in rttm if r[1] == wav.stem), key=lambda r: float(r[3])):
            start, length = float(r[3]), float(r[4])
            if length >= 1.0:
                turns.append(("", _cut(samples, start, start + length)))
    return {"ami_whole": whole, "ami_turns": turns}


def demo_set() -> dict[str, list[Clip]]:
    from bench.asr_bench import _demo_clips

    return {"demo": [(ref, decode_audio(p).samples.astype(np.float32)) for ref, p in _demo_clips()]}


def measure(model: Any, clips: list[Clip], options: dict[str, Any]) -> dict[str, Any]:
    import jiwer

    rows = []
    for ref, samples in clips:
        c0 = time.process_time()
        segments, _ = model.transcribe(samples, **(BASE | options))
        hyp = _transcript(list(segments)).text
        rows.append((ref, hyp, time.process_time() - c0, len(samples) / SR))
    out: dict[str, Any] = {
        "clips": len(rows),
        "cpu_s_per_audio_s": round(sum(r[2] for r in rows) / sum(r[3] for r in rows), 4),
        "words_written": sum(len(scoring.normalize(r[1]).split()) for r in rows),
    }
    if rows and rows[0][0]:
        refs = [scoring.normalize(r[0]) for r in rows]
        hyps = [scoring.normalize(r[1]) or "-" for r in rows]
        counts = jiwer.process_words(refs, hyps)
        out |= {
            "wer": round(jiwer.wer(refs, hyps), 4),
            "errors": counts.substitutions + counts.deletions + counts.insertions,
            "ref_words": sum(len(r.split()) for r in refs),
        }
    out["transcripts"] = [r[1] for r in rows]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="bundled:tiny.en")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--demo", action="store_true", help="also the demo's espeak turns (information only)")
    ap.add_argument("--threads", type=int, default=get_settings().asr_threads)
    ap.add_argument("--compute-types", default=get_settings().asr_compute_type)
    ap.add_argument("--out", type=Path, default=Path("results/asr/decode_options.json"))
    args = ap.parse_args(argv)
    os.environ["HF_HUB_OFFLINE"] = "1"
    from faster_whisper import WhisperModel

    sets = pyannote_sets() | ami_sets() | (demo_set() if args.demo else {})
    path = resolve_model(args.model, get_settings().cache_dir)
    report: dict[str, Any] = {
        "model": args.model,
        "threads": args.threads,
        "cores": os.cpu_count(),
        "cpu_flags": cpu_flags(),
        "load_at_start": [round(x, 2) for x in os.getloadavg()],
        "compute_types": {},
    }
    for compute_type in args.compute_types.split(","):
        model = WhisperModel(path, device="cpu", compute_type=compute_type, cpu_threads=args.threads)
        model.transcribe(np.zeros(SR, np.float32), language="en")  # load and warm up
        report["compute_types"][compute_type] = {"variants": variants(model, sets, args.variants.split(","))}
        print(f"  ({args.model} {compute_type})", flush=True)
    report["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


def variants(model: Any, sets: dict[str, list[Clip]], names: list[str]) -> dict[str, Any]:
    """Every named variant measured on every set (the names prompt on the pyannote call only)."""
    out: dict[str, Any] = {}
    for name in names:
        options = VARIANTS[name]
        # the names prompt holds the pyannote call's two names: only meaningful on that call
        prompt = "initial_prompt" in options
        chosen = {k: v for k, v in sets.items() if not prompt or k.startswith("pyannote")}
        per = {key: measure(model, clips, options) for key, clips in chosen.items()}
        out[name] = {"options": options, "sets": per, "load1": round(os.getloadavg()[0], 2)}
        shown = "  ".join(
            f"{k}: err {v.get('errors', '-')} wer {v.get('wer', '-')} cpu/s {v['cpu_s_per_audio_s']}"
            for k, v in per.items()
        )
        print(f"{name:<16} {shown}  load {os.getloadavg()[0]:.1f}", flush=True)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
