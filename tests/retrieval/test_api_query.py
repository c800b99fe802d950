"""The retrieval API end to end: /query, /retrieve, profile, errors, the Python client and LangChain."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from voxmem.client import VoxmemClient, VoxmemHTTPError
from voxmem.integrations.langchain import VoxmemRetriever, voxmem_tool

pytestmark = pytest.mark.integration


@pytest.fixture
def client(app_client, admin_headers) -> VoxmemClient:
    c = VoxmemClient(http=app_client)
    c.headers = admin_headers
    return c


def test_query_attribution_answer_with_evidence_trace_and_scope(households, client):
    house = households["open"]
    out = client.query(house.space, "Who said the garage door code is 4417?")
    assert out["answer"] == "Tom" and out["answerer"] == "graph" and out["supported"]
    assert out["offline"]["answerer"] == "offline (graph)" and out["offline"]["planner"].startswith("offline")
    assert out["used"] == [house.mid("kitchen-1")]
    first = next(e for e in out["evidence"] if e["id"] == house.mid("kitchen-1"))
    assert first["speaker"]["name"] == "Tom" and [a["name"] for a in first["addressees"]] == ["Ana"]
    assert first["session"] == "kitchen" and first["ts"]
    assert out["trace"] and out["trace"][0]["actions"] and out["scope"]["policy"] == "open"
    whom = client.query(house.space, "Who was Lena talking to when she mentioned peanuts?")
    assert whom["answer"] == "Tom" and whom["answerer"] == "graph"


def test_query_private_asker_and_not_in_memory(households, client):
    house = households["private"]
    maya = house.people["Maya"]
    out = client.query(house.space, "What is the garage door code?", asker=maya)
    assert out["answer"] == "not in memory" and not out["supported"]
    assert {e["id"] for e in out["evidence"]} <= house.visible_messages("Maya")
    scope = out.scope.model_dump()  # the client returns the typed QueryOut
    assert scope == {**scope, "asker": maya, "asker_name": "Maya", "identified_by": "id"}
    mine = client.query(house.space, "What did I ask for on the way home?", asker=maya, policy="heuristic")
    assert mine["supported"] and "pizza" in mine["answer"].lower()


def test_retrieve_and_profile_endpoints(households, client):
    house = households["participant"]
    tom = house.people["Tom"]
    found = client.retrieve(house.space, "garage door code", asker=tom, k=5, layers=["interaction", "fact"])
    assert found["evidence"][0]["id"] == house.mid("kitchen-1")
    assert found["evidence"][0]["support"][0]["id"] == house.facts["garage_code"]
    assert found["scope"]["rule"].startswith("participant")
    prof = client.profile(house.space, "Ana", asker=tom)
    assert [a["text"] for a in prof["attributes"]] == ["staying at a hotel, checks out at 11 am"]


def test_errors_are_clear_4xx(households, client, app_client, admin_headers):
    house = households["open"]
    with pytest.raises(VoxmemHTTPError) as unknown_asker:
        client.query(house.space, "anything?", asker="p_nobody")
    assert unknown_asker.value.status_code == 404
    with pytest.raises(VoxmemHTTPError) as bad_policy:
        client.query(house.space, "anything?", policy="telepathy")
    assert bad_policy.value.status_code == 422
    with pytest.raises(VoxmemHTTPError) as llm_missing:
        client.query(house.space, "anything?", policy="llm")
    assert llm_missing.value.status_code == 422 and "LLM" in json.dumps(llm_missing.value.body)
    with pytest.raises(VoxmemHTTPError) as no_person:
        client.profile(house.space, "Nobody Here")
    assert no_person.value.status_code == 404
    empty = app_client.post(f"/spaces/{house.space}/query", json={"question": ""}, headers=admin_headers)
    assert empty.status_code == 422
    broken = app_client.post(
        f"/spaces/{house.space}/query",
        content=b"{not json",
        headers={**admin_headers, "content-type": "application/json"},
    )
    assert broken.status_code == 400
    no_audio = app_client.post(
        f"/spaces/{house.space}/query", files={"question": (None, "hi")}, headers=admin_headers
    )
    assert no_audio.status_code == 422
    no_key = app_client.post(f"/spaces/{house.space}/query", json={"question": "hi"})
    assert no_key.status_code == 401


def test_openapi_documents_query_routes_with_examples(app_client):
    spec = app_client.get("/openapi.json").json()
    query = spec["paths"]["/spaces/{space}/query"]["post"]
    assert set(query["requestBody"]["content"]) == {"application/json", "multipart/form-data"}
    assert query["requestBody"]["content"]["application/json"]["schema"]["examples"]
    assert spec["components"]["schemas"]["QueryOut"].get("examples")
    assert "/spaces/{space}/retrieve" in spec["paths"]
    assert "/spaces/{space}/retrieve/profile/{participant}" in spec["paths"]


def test_langchain_retriever_and_tool(households, client):
    house = households["open"]
    docs = VoxmemRetriever(client=client, space=house.space, k=3).invoke("peanut allergy")
    assert docs[0].metadata["message_id"] == house.mid("car-3") and docs[0].metadata["speaker"] == "Lena"
    tool = voxmem_tool(client, house.space)
    out = json.loads(tool.invoke({"question": "Who said the garage door code is 4417?"}))
    assert out["answer"] == "Tom" and out["evidence"][0]["speaker"] == "Tom"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_spoken_question_unknown_voice_gets_the_unknown_asker_scope(households, client, tmp_path):
    wav = tmp_path / "q.wav"
    subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(wav), "What is the garage door code?"], check=True
    )
    for policy in ("open", "private"):
        house = households[policy]
        out = client.query_audio(house.space, wav)
        assert "garage" in out["transcript"].lower()
        assert out["voice"]["known"] is False and out["scope"]["identified_by"] == "voice"
        if policy == "open":
            assert out["evidence"] and "4417" in out["answer"]
        else:
            assert out["evidence"] == [] and out["answer"] == "not in memory"
