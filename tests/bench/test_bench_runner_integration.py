"""The runner end to end on the real app and Neo4j: a trimmed generated case in text mode.

Text mode keeps this fast (no speech models); the audio path is exercised by the runner
command itself (docs/benchmark.md). The benchmark space is deleted afterwards.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from bench.cases import Case, trim_case
from bench.judge import LLMJudge
from bench.report import write_report
from bench.runner import Run
from bench.scenarios import generate_case
from bench.target import Target
from voxmem.config import Settings
from voxmem.ids import turn_message_id

pytestmark = pytest.mark.integration


def _small_case() -> Case:
    """The first session of a generated case and (at most four of) the questions it answers."""
    case = trim_case(generate_case("household", 3, 3, 6, 12), 1)
    return case.model_copy(update={"qa": case.qa[:4]})


def test_text_run_scores_every_question_and_cleans_up(
    app_client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    case = _small_case()
    assert case.qa, "the trimmed case must keep some questions"
    target = Target(app_client, settings.admin_key.get_secret_value(), "pytest app")
    # a scripted chat model stands in for the judge's LLM: its grades must reach the report
    grades = ["0.75", "Score: 1", "no idea", "0.2"]
    judge = LLMJudge(settings, model=FakeListChatModel(responses=grades))
    run = Run(target, case, mode="text", condition="clean", policy="participant", judge=judge, progress=False)
    results = run.run()
    assert results["run"]["turns"] == case.n_turns()
    expected = [0.75, 1.0, None, 0.25][: len(case.qa)]
    assert [q["judge"] for q in results["questions"]] == expected
    assert results["scores"]["overall"]["judge"] == pytest.approx(
        sum(g for g in expected if g is not None) / sum(g is not None for g in expected)
    )
    assert len(results["questions"]) == len(case.qa)
    assert all(q["error"] is None for q in results["questions"])
    # every stored message came back under the case's turn ids, so recall is computable
    assert {r["message_id"] for r in results["turn_log"]} == {
        turn_message_id(run.space, t.turn_id) for _, t in case.turns()
    }
    assert all(q["recall@30"] is not None for q in results["questions"])
    assert results["authorization"]["wrong_authorizations"] == 0
    folder = write_report(results, tmp_path / "run")
    assert (folder / "report.md").exists()
    # the space is gone: its key no longer works
    assert app_client.get(f"/spaces/{run.space}", headers=target.admin).status_code == 404


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_audio_run_scores_final_and_online_identities(app_client: TestClient, settings: Settings) -> None:
    """Audio mode: two short spoken sessions; identities are scored as routed and as they end up
    after reconciliation (the runner ends the last session as a device would)."""
    case = trim_case(generate_case("household", 7, 3, 6, 12), 2)
    sessions = [s.model_copy(update={"turns": s.turns[:5]}) for s in case.sessions]
    case = case.model_copy(update={"sessions": sessions, "qa": []})
    target = Target(app_client, settings.admin_key.get_secret_value(), "pytest app")
    run = Run(target, case, mode="audio", condition="clean", policy="participant", progress=False)
    results = run.run()
    log, ident = results["turn_log"], results["identity"]
    assert len(log) == 10 and all(r["entity"] and r["final_entity"] for r in log)
    assert ident["entities"] <= ident["online_entities"]
    assert ident["entities"] == len({r["final_entity"] for r in log})
    assert 0.0 < ident["routing_accuracy"] <= 1.0 and 0.0 < ident["online_routing_accuracy"] <= 1.0
