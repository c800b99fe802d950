"""Start, stop and inspect the local llama.cpp server (``python -m llama_cpp.server``).

Like ``voxmem neo4j``: the process is detached (own session, output to
``<cache>/llm/logs/llama-<port>.log``), listens on 127.0.0.1 only, and what we started is
recorded in ``<cache>/llm/run/llama-<port>.json``. A recorded pid counts as ours only while its
command line still names ``llama_cpp.server`` and this port, so a recycled pid is never
signalled. ``up`` returns once the OpenAI-compatible endpoint lists the model.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from voxmem.llm.models import ensure_model, spec_for
from voxmem.llm.runtime import ensure_runtime
from voxmem.neo4j_local.locking import file_lock

if TYPE_CHECKING:
    from voxmem.config import Settings

log = logging.getLogger(__name__)


class LLMServerError(RuntimeError):
    """The local LLM server could not be provisioned, started or stopped."""


@dataclass
class LLMStatus:
    """What ``voxmem llm status`` reports."""

    running: bool
    base_url: str
    model: str | None = None
    pid: int | None = None
    threads: int | None = None
    threads_batch: int | None = None
    ctx: int | None = None
    rss_mb: float | None = None
    started_at: str | None = None
    log: str = ""
    message: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def summary(self) -> str:
        if not self.running:
            return f"local LLM: not running ({self.base_url}){' - ' + self.message if self.message else ''}"
        rss = f", RSS {self.rss_mb:.0f} MiB" if self.rss_mb is not None else ""
        return (
            f"local LLM {self.model}: running, pid {self.pid}{rss}, "
            f"{self.threads} thread(s) generating, {self.threads_batch} reading prompts, ctx {self.ctx}\n"
            f"  endpoint {self.base_url}\n  log      {self.log}"
        )


def base_url(settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.llm_local_port}/v1"


def _run_dir(settings: Settings) -> Path:
    return settings.cache_dir / "llm" / "run"


def state_path(settings: Settings) -> Path:
    return _run_dir(settings) / f"llama-{settings.llm_local_port}.json"


def log_path(settings: Settings) -> Path:
    return settings.cache_dir / "llm" / "logs" / f"llama-{settings.llm_local_port}.log"


def _read_state(settings: Settings) -> dict[str, object]:
    try:
        data = json.loads(state_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _is_ours(pid: int, port: int) -> bool:
    """The pid is alive (not a zombie) and is a llama_cpp.server on this port."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our exited child
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return False
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, IndexError):
        return False
    text = [a.decode(errors="replace") for a in args]
    return "llama_cpp.server" in text and str(port) in text


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def _models_answer(url: str, timeout: float = 2.0) -> list[str] | None:
    """The model ids the endpoint lists, or None when it does not answer."""
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=timeout) as reply:
            data = json.loads(reply.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return [m.get("id", "") for m in data.get("data", [])]


def status(settings: Settings, probe: bool = True) -> LLMStatus:
    """Whether the server we started on the configured port runs; ``probe`` asks its endpoint."""
    url = base_url(settings)
    state = _read_state(settings)
    pid = state.get("pid")
    if not isinstance(pid, int) or not _is_ours(pid, settings.llm_local_port):
        msg = "start it with `voxmem llm up`"
        if _port_open(settings.llm_local_port):
            msg = f"port {settings.llm_local_port} is taken by a process voxmem did not start"
        return LLMStatus(False, url, log=str(log_path(settings)), message=msg)
    answering = _models_answer(url) if probe else [str(state.get("model"))]
    return LLMStatus(
        running=answering is not None,
        base_url=url,
        model=str(state.get("model")),
        pid=pid,
        threads=state.get("threads"),  # type: ignore[arg-type]
        # a server started before the field was recorded read prompts with its generation threads
        threads_batch=state.get("threads_batch", state.get("threads")),  # type: ignore[arg-type]
        ctx=state.get("ctx"),  # type: ignore[arg-type]
        rss_mb=_rss_mb(pid),
        started_at=str(state.get("started_at")),
        log=str(log_path(settings)),
        message="" if answering is not None else "process alive but the endpoint does not answer (loading?)",
    )


def provision(settings: Settings, model: str | None = None) -> tuple[Path, Path]:
    """Build/reuse the runtime and assemble/reuse the model: (server python, GGUF path)."""
    python = ensure_runtime(settings.cache_dir, settings.llm_local_version)
    gguf = ensure_model(settings.cache_dir, model or settings.llm_local_model)
    return python, gguf


def command(
    settings: Settings, python: Path, gguf: Path, name: str, threads: int, threads_batch: int
) -> list[str]:
    """The server's command line.

    ``--logits_all False``: llama_cpp.server defaults to logits for every prompt token (for
    logprobs, which no caller asks for): the vocabulary projection of each of ~250 prompt tokens
    plus a copy of 152k floats per token, ~15 % of a reader question's CPU (docs/retrieval.md).

    ``--cache`` (``llm_local_cache_mb`` > 0): the server keeps the evaluated state of its last
    prompts and resumes the one sharing the longest prefix. Without it only the previous prompt's
    prefix is reused, so two clients with different system prompts (the reader and the judge, the
    answer and the attribution prompt, two users) re-evaluate their whole ~700-token prompt on
    every call. Measured on 8 LoCoMo dev reader prompts alternating with judge prompts (1.5B, one
    thread, nice 19, load 7-11, docs/retrieval.md "Ninth LLM pass"): reader CPU-s median 17.6
    without, 10.1 with a 32 MiB cache, 9.7 with 64 MiB; a reader alone pays ~0.5 CPU-s per call
    for saving the state (8.4 -> 8.9). The size counts only llama.cpp's state (~21 MB per reader
    prompt, ~6 MB per judge prompt), while llama-cpp-python also copies a 311 MB logits buffer
    into each saved state: RSS 1.9 GiB without, 3.0 GiB at 32 MiB, 3.5 GiB at 64 MiB; hence the
    small default (32 MiB: a reader's state and a shorter prompt's).

    ``threads`` generate (one by default, ``llm_local_threads``) and ``threads_batch`` read the
    prompt (:func:`prompt_threads`); the threads wait passively (:func:`environment`)."""
    cmd = [
        str(python), "-m", "llama_cpp.server",
        "--model", str(gguf), "--model_alias", name,
        "--host", "127.0.0.1", "--port", str(settings.llm_local_port),
        "--n_threads", str(threads), "--n_threads_batch", str(threads_batch),
        "--n_ctx", str(settings.llm_local_ctx),
        "--logits_all", "False",
    ]  # fmt: skip
    if settings.llm_local_cache_mb > 0:
        size = str(settings.llm_local_cache_mb << 20)
        cmd += ["--cache", "True", "--cache_type", "ram", "--cache_size", size]
    return cmd


def prompt_threads(settings: Settings, threads: int, cores: int | None) -> int:
    """Threads that evaluate a prompt: ``llm_local_threads_batch``, at most the cores, never fewer
    than the generating threads.

    Why two on 2 cores while one generates: ~80 % of a reader call is prompt evaluation, a batch of
    ~250 tokens whose matrix products split evenly over threads; a generated token is one small
    product per layer, where a second thread gained ~0.1 s a call, within the noise (9 calls). On
    the same 21 LoCoMo dev reader prompts alternated between servers (docs/retrieval.md "Fifteenth
    LLM pass"): wall p50 12.38 s with one thread, 7.93 s with two reading the prompt (passive
    waiting), every reply identical; with a CPU hog of the server's scheduling weight on the other
    core (19 prompts) 11.84 s and 11.88 s, worst 16.52 s and 16.07 s: no collapse."""
    wanted = max(settings.llm_local_threads_batch, threads)
    return max(threads, min(wanted, cores or 1))


def environment() -> dict[str, str]:
    """The server's environment: ours, with OpenMP's threads waiting passively at barriers.

    Why: the wheel is built with OpenMP (``OPENMP = 1`` in the server log; ggml's barrier is
    ``GOMP_barrier``), whose threads spin at a barrier (GOMP's spin count) before they sleep.
    llama-cpp-python 0.3.36 exposes no llama.cpp ``--poll`` or threadpool setting, but the OpenMP
    runtime reads ``OMP_WAIT_POLICY``. With a CPU hog on the other core, two spinning prompt
    threads took 19.45 s p50 for 18.7 CPU-s (the waiting thread burnt the core the other one
    needed), passive ones 11.88 s, as one thread (11.84 s); quiet, passive waiting cost 7.41 ->
    7.99 s p50 on the same 12 prompts (docs/retrieval.md "Fifteenth LLM pass"). The thirteenth
    pass's 44-82 s calls had two spinning threads generating too."""
    return {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}


def up(settings: Settings, model: str | None = None, threads: int | None = None) -> LLMStatus:
    """Provision if needed, start the server in the background, wait until it answers."""
    name = model or settings.llm_local_model
    threads = threads or settings.llm_local_threads
    threads_batch = prompt_threads(settings, threads, os.cpu_count())
    spec_for(name)  # an unknown name fails before anything is downloaded
    with file_lock(_run_dir(settings) / "up.lock"):
        current = status(settings)
        same = current.model == name and (current.threads, current.threads_batch) == (threads, threads_batch)
        if current.running and same:
            return current
        if current.pid is not None and same:
            # ours, alive, the same model, but its endpoint did not answer the 2 s probe: one worker
            # busy with a long request on a loaded CPU (or still loading). Restarting it here killed
            # another client's request mid-answer (a benchmark's `up` broke a judge run): wait.
            waited = _await_answer(settings, current.pid)
            if waited is not None:
                return waited
        if current.pid is not None:
            _stop(settings, current.pid)
        if _port_open(settings.llm_local_port):
            raise LLMServerError(
                f"port {settings.llm_local_port} is taken by a process voxmem did not start; "
                "set VOXMEM_LLM_LOCAL_PORT to another port"
            )
        python, gguf = provision(settings, name)
        cmd = command(settings, python, gguf, name, threads, threads_batch)
        logfile = log_path(settings)
        logfile.parent.mkdir(parents=True, exist_ok=True)
        with open(logfile, "ab") as out:
            out.write(f"\n=== voxmem start {time.strftime('%Y-%m-%dT%H:%M:%S')}: {' '.join(cmd)}\n".encode())
            out.flush()
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=environment(),
            )
        state = {
            "pid": proc.pid,
            "model": name,
            "gguf": str(gguf),
            "threads": threads,
            "threads_batch": threads_batch,
            "ctx": settings.llm_local_ctx,
            "port": settings.llm_local_port,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        state_path(settings).write_text(json.dumps(state, indent=2), encoding="utf-8")
        deadline = time.monotonic() + settings.llm_start_timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LLMServerError(f"the llama.cpp server exited with {proc.returncode}:\n{_tail(logfile)}")
            if _models_answer(base_url(settings)) is not None:
                _first_completion(settings, proc, name, logfile)
                return status(settings)
            time.sleep(0.5)
        _stop(settings, proc.pid)
        raise LLMServerError(
            f"the llama.cpp server did not answer within {settings.llm_start_timeout_s:.0f} s:\n"
            + _tail(logfile)
        )


def _first_completion(settings: Settings, proc: subprocess.Popen[bytes], name: str, logfile: Path) -> None:
    """One token through the model before ``up`` says it is ready.

    Why: ``/v1/models`` answers before any matrix is multiplied. A llama.cpp build that cannot run
    on this CPU (a native build on a VM listing AMX it does not grant) passed that check and then
    died on every client's first question, which each caller saw only as "connection refused".
    A reply, or a slow reply from a live process on a loaded machine, is accepted; a dead process is
    an error that says so.
    """
    body = json.dumps({"model": name, "prompt": "1 + 1 =", "max_tokens": 1}).encode()
    request = urllib.request.Request(
        f"{base_url(settings)}/completions", data=body, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.llm_start_timeout_s) as reply:
            reply.read()
    except (urllib.error.URLError, OSError):
        time.sleep(0.5)
        if proc.poll() is None:
            return  # alive, only slow (or the reply failed): the status check will tell
        raise LLMServerError(
            f"the llama.cpp server crashed on its first completion (exit {proc.returncode}): this build of "
            f"llama-cpp-python does not run on this CPU (see `dmesg`); log {logfile}:\n{_tail(logfile)}"
        ) from None


def _await_answer(settings: Settings, pid: int) -> LLMStatus | None:
    """The status once the running server answers (within ``llm_start_timeout_s``), else None."""
    deadline = time.monotonic() + settings.llm_start_timeout_s
    while time.monotonic() < deadline and _is_ours(pid, settings.llm_local_port):
        if _models_answer(base_url(settings), timeout=10.0) is not None:
            return status(settings)
        time.sleep(0.5)
    return None


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _stop(settings: Settings, pid: int, timeout_s: float = 20.0) -> None:
    if _is_ours(pid, settings.llm_local_port):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and _is_ours(pid, settings.llm_local_port):
            time.sleep(0.2)
        if _is_ours(pid, settings.llm_local_port):
            os.kill(pid, signal.SIGKILL)
    state_path(settings).unlink(missing_ok=True)


def down(settings: Settings) -> bool:
    """Stop the server we started on the configured port; False when none was running."""
    state = _read_state(settings)
    pid = state.get("pid")
    if not isinstance(pid, int):
        return False
    running = _is_ours(pid, settings.llm_local_port)
    _stop(settings, pid)
    return running
