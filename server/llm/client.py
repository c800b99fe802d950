"""The one factory for langchain chat models, and which LLM (if any) is in use.

Why one place: the extractor, the retrieval planner, the LLM reader and the benchmark judge
all talk to the same endpoint; they differ only in whether the reply is constrained to a JSON
schema. ``VOXMEM_LLM_PROVIDER`` decides:

- ``auto`` (default): the local llama.cpp server when ``voxmem llm up`` runs it, else no LLM
  (deterministic offline answers). Auto-detected, the local LLM only *answers*; extraction
  and planning stay offline, which keeps ingestion at offline speed on 2 cores.
- ``local``: the local server, required: a question fails with 503 while it is down.
- ``openai`` / ``ollama``: any OpenAI-compatible or Ollama endpoint (``VOXMEM_LLM_BASE_URL``,
  ``VOXMEM_LLM_MODEL``); used for every LLM role.
- ``none``: offline only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from voxmem.errors import VoxmemError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from voxmem.config import Settings


class LLMUnavailable(VoxmemError):
    """The configured LLM endpoint does not answer (after retries)."""

    status_code = 503


@dataclass(frozen=True)
class Endpoint:
    """The LLM in use: who serves it, where, which model, and how it was chosen."""

    provider: str  # 'local' | 'openai' | 'ollama'
    base_url: str | None
    model: str
    source: str  # 'configured' | 'auto-detected'

    @property
    def required(self) -> bool:
        """A configured LLM must answer (503 otherwise); an auto-detected one may be missed."""
        return self.source == "configured"

    def describe(self) -> str:
        where = f" at {self.base_url}" if self.base_url else ""
        kind = "local llama.cpp" if self.provider == "local" else self.provider
        return f"{kind} {self.model}{where} ({self.source})"


def resolve(settings: Settings) -> Endpoint | None:
    """The endpoint to use now, or None for offline. ``auto`` probes the local server's state."""
    from voxmem.llm import server

    provider = settings.llm_provider
    if provider == "none":
        return None
    if provider in ("local", "auto"):
        if provider == "auto":
            current = server.status(settings, probe=False)
            if not current.running or not current.model:
                return None
            return Endpoint("local", current.base_url, current.model, "auto-detected")
        return Endpoint("local", server.base_url(settings), settings.llm_local_model, "configured")
    if provider not in ("openai", "ollama"):
        raise ValueError(f"unknown VOXMEM_LLM_PROVIDER {provider!r} (auto | none | local | openai | ollama)")
    if not settings.llm_model:
        return None
    return Endpoint(provider, settings.llm_base_url, settings.llm_model, "configured")


def chat_model(
    settings: Settings,
    json_schema: dict[str, Any] | None = None,
    endpoint: Endpoint | None = None,
    max_tokens: int | None = None,
) -> BaseChatModel:
    """A langchain chat model for ``endpoint`` (default: :func:`resolve`), temperature 0.

    ``json_schema`` constrains the reply (:func:`constrain`).
    """
    endpoint = endpoint or resolve(settings)
    if endpoint is None:
        raise ValueError(
            "no LLM configured: run `voxmem llm up` (local) or set VOXMEM_LLM_PROVIDER=openai|ollama "
            "and VOXMEM_LLM_MODEL"
        )
    if endpoint.provider in ("openai", "local"):
        from langchain_openai import ChatOpenAI

        model: BaseChatModel = ChatOpenAI(
            model=endpoint.model,
            base_url=endpoint.base_url,
            api_key=settings.llm_api_key.get_secret_value(),
            temperature=0,
            max_retries=0,  # retries are ours (tenacity), so a dead server fails fast and clearly
            timeout=settings.llm_timeout_s,
            max_tokens=max_tokens,
        )
        return constrain(model, endpoint, json_schema) if json_schema is not None else model
    from langchain_ollama import ChatOllama

    kwargs: dict[str, Any] = {"model": endpoint.model, "temperature": 0}
    if endpoint.base_url:
        kwargs["base_url"] = endpoint.base_url
    if json_schema is not None:
        kwargs["format"] = json_schema
    if max_tokens:
        kwargs["num_predict"] = max_tokens
    return ChatOllama(**kwargs)


def constrain(
    model: Any,
    endpoint: Endpoint | None,
    json_schema: dict[str, Any] | None,
    grammar: str | None = None,
    **kwargs: Any,
) -> Any:
    """``model`` bound so that its replies follow ``json_schema`` or, on the local server, the
    GBNF ``grammar`` (plus request ``kwargs`` such as ``max_tokens``), in the form each server
    accepts.

    OpenAI: ``response_format`` json_schema. The local llama.cpp server answers HTTP 500 to that
    form but compiles ``{"type": "json_object", "schema": …}`` into a grammar: measured on the
    1.5B model, the same ~20 tokens per reply as unconstrained sampling cost per token, and fewer
    tokens in all (no code fence, no chatter), so a reply always parses. A ``grammar`` goes to the
    local server instead, as its ``grammar`` field: what a schema cannot say, such as where the
    spaces go (the LLM reader's reply, ``llm_reader.answer_grammar``); other servers have no
    such field and keep the schema. A model without ``bind`` (a scripted test model) or another
    provider is returned with only ``kwargs`` bound.
    """
    if not hasattr(model, "bind"):
        return model
    provider = endpoint.provider if endpoint is not None else None
    if provider == "local" and grammar is not None:
        kwargs["extra_body"] = {"grammar": grammar}
    elif provider == "openai" and json_schema is not None:
        kwargs["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "Reply", "schema": json_schema, "strict": False},
        }
    elif provider == "local" and json_schema is not None:
        kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
    return model.bind(**kwargs) if kwargs else model


def describe(settings: Settings) -> dict[str, Any]:
    """For /health and the CLI: which answerer runs and on what."""
    try:
        endpoint = resolve(settings)
    except ValueError as exc:
        return {"answerer": "extractive", "llm": f"misconfigured: {exc}"}
    if endpoint is None:
        hint = " (start one with `voxmem llm up`)" if settings.llm_provider == "auto" else ""
        return {"answerer": "extractive", "llm": f"none: deterministic offline components{hint}"}
    return {"answerer": "llm", "llm": endpoint.describe()}
