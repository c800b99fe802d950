"""Recording-ingest throughput with one vs two queue workers on the same recordings.

    nice -n 10 python -m bench.workers_bench [--recordings 6] [--rounds 2] [--threads 1]

A Redis of its own (`voxmem redis up` on port 16392, a fresh queue name) and the main Neo4j of
the environment (``source /work/bench-env.sh``). The same synthetic multi-speaker recordings
(four turns of three espeak-ng voices, ~15 s each, built from ``bench.sentences.BENCHMARK``) are
ingested by one ``voxmem worker`` and then by two, ``--rounds`` times interleaved (1, 2, 1, 2 …)
so a change in the machine's load hits both alike; each recording goes into a fresh space.
Workers are started and warmed (models loaded) before the clock starts; a round's wall time runs
from the first enqueue to the last job's final record.

Reported per round and as medians: wall time, recordings per minute, audio seconds per wall
second, and each job's CPU seconds (the worker process's CPU time over the job, models' threads
included — the honest measure on a shared machine: two workers reach 2× one worker when each job
costs the same CPU and two cores are free). Core count and load average (before and after each
round) are printed and saved with the numbers in ``results/workers/workers_bench.json`` (+ PNG).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

import soundfile as sf

from bench.sentences import BENCHMARK
from bench.voices import concatenate, synthesize
from voxmem import redis_local
from voxmem.config import get_settings
from voxmem.core import Voxmem

VOICES = ("us_f3_s150", "us_m1", "us_klatt5")
OUT = Path("results/workers")
VOXMEM = str(Path(sys.executable).parent / "voxmem")


def recordings(n: int) -> list[tuple[bytes, float]]:
    """``n`` FLAC recordings (bytes, seconds) of four turns each, three voices alternating."""
    out = []
    for i in range(n):
        turns = [(VOICES[(i + k) % 3], BENCHMARK[(4 * i + k) % len(BENCHMARK)]) for k in range(4)]
        samples, _ = concatenate([synthesize(text, voice) for voice, text in turns], gap_s=1.0)
        buf = io.BytesIO()
        sf.write(buf, samples, 16_000, format="FLAC")
        out.append((buf.getvalue(), len(samples) / 16_000))
    return out


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def start_workers(k: int, env: dict[str, str], threads: int, tag: str) -> list[subprocess.Popen[bytes]]:
    procs, logs = [], []
    for j in range(k):
        log = OUT / f".worker-{tag}-{j}.log"
        logs.append(log)
        with open(log, "wb") as fh:
            procs.append(
                subprocess.Popen(
                    [VOXMEM, "worker", "--name", f"bench-{tag}-{j}", "--threads", str(threads)],
                    env=env,
                    stdout=fh,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
    deadline = time.monotonic() + 600
    for proc, log in zip(procs, logs, strict=True):
        while "ready on" not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        log.unlink()
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def warm_up(api: Voxmem, recs: list[tuple[bytes, float]], workers: int) -> None:
    """One untimed job per worker (first queries, lazily built parts), as a long-running worker has."""
    run_round(api, recs[:1] * workers, workers, f"warm{uuid.uuid4().hex[:6]}")


def run_round(api: Voxmem, recs: list[tuple[bytes, float]], workers: int, tag: str) -> dict:
    spaces = [f"bench-workers-{tag}-{i}" for i in range(len(recs))]
    for s in spaces:
        api.spaces.create(s, "participant")
    try:
        load_before = load()
        t0 = time.perf_counter()
        jobs = [
            api.pipeline.submit_recording(s, "rec", "r", raw, audio_uri="r.flac")
            for s, (raw, _) in zip(spaces, recs, strict=True)
        ]
        results = []
        for s, job in zip(spaces, jobs, strict=True):
            while (got := api.jobs.get(s, job.id)).status in ("queued", "running"):
                time.sleep(0.2)
            if got.status != "done" or got.result is None:
                raise RuntimeError(f"job {job.id} ended {got.status}: {got.error}")
            results.append(got.result)
        wall = time.perf_counter() - t0
    finally:
        for s in spaces:
            api.spaces.delete(s)
    audio_s = sum(d for _, d in recs)
    cpu = [r["cpu_s"] for r in results]
    return {
        "workers": workers,
        "recordings": len(recs),
        "audio_s": round(audio_s, 2),
        "wall_s": round(wall, 2),
        "recordings_per_min": round(60 * len(recs) / wall, 3),
        "audio_s_per_wall_s": round(audio_s / wall, 3),
        "cpu_s_per_job": [round(c, 2) for c in cpu],
        "cpu_s_per_job_median": round(statistics.median(cpu), 2),
        # cores' worth of CPU the workers got: far below the worker count = the machine is busy
        "worker_cores_used": round(sum(cpu) / wall, 3),
        "job_wall_s_median": round(statistics.median(r["wall_s"] for r in results), 2),
        # seconds the worker's threads were runnable but got no CPU (the machine's other load)
        "cpu_wait_s_per_job_median": round(statistics.median(r.get("cpu_wait_s", 0.0) for r in results), 2),
        # where a job's wall time goes (routing includes each turn's transaction and its memory)
        "stage_s_median": {
            stage: round(statistics.median(r["stage_seconds"].get(stage, 0.0) for r in results), 2)
            for stage in sorted({k for r in results for k in r["stage_seconds"]})
        },
        "jobs_per_worker": {
            w: sum(r["worker"] == w for r in results) for w in {r["worker"] for r in results}
        },
        "load_before": load_before,
        "load_after": load(),
    }


def plot(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, key, label in (
        (axes[0], "recordings_per_min", "recordings / min"),
        (axes[1], "cpu_s_per_job_median", "CPU s per job (median)"),
    ):
        for k in (1, 2):
            vals = [r[key] for r in report["rounds"] if r["workers"] == k]
            ax.scatter([k] * len(vals), vals, color="C0" if k == 1 else "C1")
            ax.bar(k, statistics.median(vals), alpha=0.4, color="C0" if k == 1 else "C1")
        ax.set_xticks([1, 2], ["1 worker", "2 workers"])
        ax.set_ylabel(label)
    fig.suptitle(
        f"{report['cores']} cores, load {report['rounds'][0]['load_before'][0]}–"
        f"{max(r['load_after'][0] for r in report['rounds'])}: throughput ratio {report['ratio_2_vs_1']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recordings", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="model threads per worker")
    parser.add_argument("--redis-port", type=int, default=16392)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "VOXMEM_REDIS_URL": f"redis://127.0.0.1:{args.redis_port}/0",
        "VOXMEM_QUEUE_NAME": f"bench-{uuid.uuid4().hex[:8]}",
        "VOXMEM_LLM_PROVIDER": "none",
    }
    settings = get_settings().model_copy(
        update={
            "jobs_mode": "queue",
            "redis_url": env["VOXMEM_REDIS_URL"],
            "queue_name": env["VOXMEM_QUEUE_NAME"],
            "llm_provider": "none",
        }
    )
    started = not redis_local.status(settings).running
    redis_local.up(settings)
    api = Voxmem.build(settings)
    api.start(warm_models=True)
    print(f"cores {os.cpu_count()}, load {load()}: building {args.recordings} recordings", flush=True)
    recs = recordings(args.recordings)
    rounds = []
    try:
        for r in range(args.rounds):
            for k in (1, 2):
                procs = start_workers(k, env, args.threads, f"{r}{k}")
                try:
                    warm_up(api, recs, k)
                    res = run_round(api, recs, k, f"{uuid.uuid4().hex[:6]}")
                finally:
                    stop_workers(procs)
                rounds.append(res)
                print(
                    f"round {r} workers {k}: wall {res['wall_s']} s, {res['recordings_per_min']} rec/min, "
                    f"{res['audio_s_per_wall_s']} audio s/s, CPU/job median {res['cpu_s_per_job_median']} s, "
                    f"cores used {res['worker_cores_used']}, "
                    f"CPU wait/job {res['cpu_wait_s_per_job_median']} s, "
                    f"load {res['load_before']} -> {res['load_after']}",
                    flush=True,
                )
    finally:
        api.close()
        if started:
            redis_local.down(settings)

    def med(k: int, key: str) -> float:
        return round(statistics.median(x[key] for x in rounds if x["workers"] == k), 3)

    ratio = round(med(2, "recordings_per_min") / med(1, "recordings_per_min"), 3)
    cpu_ratio = round(med(2, "cpu_s_per_job_median") / med(1, "cpu_s_per_job_median"), 3)
    report = {
        "command": f"nice -n 10 python -m bench.workers_bench --recordings {args.recordings} "
        f"--rounds {args.rounds} --threads {args.threads}",
        "cores": os.cpu_count(),
        "threads_per_worker": args.threads,
        "recording_audio_s": [round(d, 2) for _, d in recs],
        "rounds": rounds,
        "median": {
            k: {key: med(k, key) for key in ("wall_s", "recordings_per_min", "cpu_s_per_job_median")}
            for k in (1, 2)
        },
        "ratio_2_vs_1": ratio,
        "cpu_per_job_ratio_2_vs_1": cpu_ratio,
    }
    (OUT / "workers_bench.json").write_text(json.dumps(report, indent=2) + "\n")
    plot(report, OUT / "workers_bench.png")
    print(
        f"cores {report['cores']}: median throughput 1 worker {med(1, 'recordings_per_min')} rec/min, "
        f"2 workers {med(2, 'recordings_per_min')} rec/min, ratio {ratio}; CPU s per job "
        f"{med(1, 'cpu_s_per_job_median')} vs {med(2, 'cpu_s_per_job_median')} (ratio {cpu_ratio}); "
        f"load now {load()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
