"""The real local LLM, started through ``voxmem llm``, answering against the real Neo4j.

Uses a small model on a port of its own (``VOXMEM_TEST_LLM_PORT``, default 18771), so a developer's
LLM on the default port is untouched. The test command (``scripts/voxmem.sh test``) provisions the
model before pytest (wheel, virtualenv, GGUF); here provisioning is reused. Skipped only when the
model cannot be provisioned, and never under CI, where that is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from retrieval.household import PEOPLE, Household, build_household

from voxmem.config import Settings
from voxmem.core import Voxmem
from voxmem.llm import server
from voxmem.llm.client import LLMUnavailable
from voxmem.llm.models import ModelProvisionError
from voxmem.retrieval.agent import POLICIES
from voxmem.retrieval.llm_reader import LLMReader, Reply, answer_grammar, parse_answer
from voxmem.retrieval.service import RetrievalService

pytestmark = pytest.mark.integration

MODEL = os.environ.get("VOXMEM_TEST_LLM_MODEL", "qwen2.5-coder-0.5b-instruct-q4")
PORT = int(os.environ.get("VOXMEM_TEST_LLM_PORT", "18771"))
ENV = {"VOXMEM_LLM_LOCAL_MODEL": MODEL, "VOXMEM_LLM_LOCAL_PORT": str(PORT), "VOXMEM_LLM_PROVIDER": "local"}


def voxmem_llm(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **ENV}
    cmd = [sys.executable, "-m", "voxmem.cli", "llm", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def local(services: Voxmem) -> Iterator[Settings]:
    settings = services.settings.model_copy(
        update={"llm_provider": "local", "llm_local_model": MODEL, "llm_local_port": PORT}
    )
    try:
        server.provision(settings, MODEL)
    except ModelProvisionError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"the local model {MODEL} cannot be provisioned here: {exc}")
    started = voxmem_llm("up")
    assert started.returncode == 0, started.stderr
    try:
        yield settings
    finally:
        voxmem_llm("down")


@pytest.fixture(scope="module")
def house(services: Voxmem) -> Iterator[Household]:
    built = build_household(services, f"test-llm-{uuid.uuid4().hex[:8]}", "open")
    yield built
    services.spaces.delete(built.space)


def test_status_reports_the_running_model_on_loopback(local: Settings):
    shown = voxmem_llm("status", "--json")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    state = json.loads(shown.stdout)
    assert state["running"] and state["model"] == MODEL and state["base_url"] == f"http://127.0.0.1:{PORT}/v1"


def test_the_server_computes_logits_only_for_the_token_it_samples(local: Settings):
    """llama_cpp.server's default (logits for every prompt token) cost ~15 % of a question's CPU."""
    state = json.loads(voxmem_llm("status", "--json").stdout)
    with open(f"/proc/{state['pid']}/cmdline", "rb") as f:
        args = f.read().decode().split("\0")
    assert args[args.index("--logits_all") + 1] == "False"


def test_the_real_server_reads_prompts_with_threads_that_wait_passively(local: Settings):
    """Two threads read a prompt on 2 cores, and OpenMP's threads sleep at barriers rather than
    spin (``server.prompt_threads``, ``server.environment``: spinning ones collapsed under load)."""
    state = json.loads(voxmem_llm("status", "--json").stdout)
    with open(f"/proc/{state['pid']}/cmdline", "rb") as f:
        args = f.read().decode().split("\0")
    with open(f"/proc/{state['pid']}/environ", "rb") as f:
        env = f.read().decode().split("\0")
    wanted = server.prompt_threads(local, local.llm_local_threads, os.cpu_count())
    assert int(args[args.index("--n_threads_batch") + 1]) == state["threads_batch"] == wanted
    assert "OMP_WAIT_POLICY=PASSIVE" in env


def test_the_real_model_answers_from_the_graph_with_its_evidence(local: Settings, services, house):
    service = RetrievalService(local, services.db, services.embedder)
    assert service.default_policy == "llm"  # configured as `local`: the LLM plans too
    scope = service.scope(house.space, None)
    answer = service.ask(scope, "What is the garage door code?", policy="heuristic")
    assert answer.answerer == "llm", answer.notes
    assert "4417" in answer.answer
    assert answer.used == [house.mid("kitchen-1")]  # the only turn that holds the code
    assert set(answer.used) <= {e["id"] for e in answer.evidence}
    assert any(n.startswith(f"LLM reader: local llama.cpp {MODEL}") for n in answer.notes)


def test_the_real_server_holds_the_ids_to_the_compact_grammar(local: Settings, services, house):
    """The reply grammar (``answer_grammar``) compiles on the real llama.cpp server, and after the
    answer the reply has no space (the schema's grammar let the model write ``", "ids": [1]}``,
    each space part of a generated token, ~95 ms on one core); the strict parser reads it."""
    service = RetrievalService(local, services.db, services.embedder)
    scope = service.scope(house.space, None)
    result = service.agent().run("What is the garage door code?", scope, POLICIES["heuristic"]())
    reader = service.reader()
    assert isinstance(reader, LLMReader)
    messages, shown = reader.prompt(result)
    text = reader._invoke(messages, Reply(grammar=answer_grammar(list(shown.entries))))
    assert text.startswith('{"answer":') and ',"ids":[' in text and text.endswith("]}"), text
    assert ", " not in text[text.index(',"ids":[') :], text
    parsed = parse_answer(text, shown.entries)  # an answer cites a line: the grammar requires it
    assert parsed is None or (parsed[1] and set(parsed[1]) <= set(shown.entries)), text


def test_the_real_model_picks_a_turn_and_the_person_comes_from_the_graph(local: Settings, services, house):
    service = RetrievalService(local, services.db, services.embedder)
    scope = service.scope(house.space, None)
    question = "Who was Tom talking to when he mentioned the garage?"
    result = service.agent().run(question, scope, POLICIES["heuristic"]())
    reader = service.reader()
    assert isinstance(reader, LLMReader)
    picked = reader.read(result, attribution=True)
    assert reader.calls >= 1  # the real endpoint was asked
    if picked.chosen is not None:
        name, used = picked.chosen
        turn = next(e for e in result.evidence if e.id == used[0]).evidence
        assert name in PEOPLE and name in {a.get("name") for a in turn.addressees}


def test_a_stopped_configured_llm_is_a_clear_503(local: Settings, services, house):
    assert voxmem_llm("down").returncode == 0
    shown = voxmem_llm("status")
    assert shown.returncode == 3 and "not running" in shown.stdout and "voxmem llm up" in shown.stdout
    service = RetrievalService(local, services.db, services.embedder)
    with pytest.raises(LLMUnavailable, match="voxmem llm up") as info:
        service.ask(service.scope(house.space, None), "What is the garage door code?", policy="heuristic")
    assert info.value.status_code == 503
