"""A typed question's asker given by name (issue 11, item 4, the demo's "Who asked for pizza?").

The demo's client sent only ids of voices it saw named, so a name only a voiceless placeholder
bore ("Priya", called by Tom, her voice unnamed) became no asker: "not in memory" under the
participant policy whatever memory held. It now sends the name and the server resolves it. The
server's side is pinned too: an asker known only by name reads the sessions that person took
part in, nothing else.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.memory.test_memory_integration import voice
from voxmem.client import VoxmemHTTPError
from voxmem.core import Voxmem
from voxmem.demo import _ask, _load_conversation, _shown_evidence


class _Client:
    """Records each typed query; a name in ``unknown`` is 404, as the server answers it."""

    def __init__(self, unknown: set[str]) -> None:
        self.unknown = unknown
        self.askers: list[str | None] = []

    def query(self, space: str, question: str, asker: str | None = None) -> dict[str, Any]:
        if asker in self.unknown:
            raise VoxmemHTTPError(404, {"detail": f"asker {asker!r} is not a participant"})
        self.askers.append(asker)
        scope = {"asker": asker, "asker_name": asker, "identified_by": "id" if asker else "none"}
        return {
            "scope": scope,
            "answer": "-",
            "answerer": "none",
            "supported": True,
            "notes": [],
            "evidence": [],
        }


def test_the_demo_sends_a_typed_questions_asker_by_name() -> None:
    conversation = _load_conversation()
    typed = [q["asker"] for q in conversation["questions"] if not q.get("spoken")]
    assert "Priya" in typed
    client = _Client(unknown=set())
    _ask(client, conversation, spoken=False)  # type: ignore[arg-type]
    assert client.askers == [q["asker"] for q in conversation["questions"]]


def test_a_name_memory_never_heard_is_asked_without_an_asker(capsys: pytest.CaptureFixture[str]) -> None:
    conversation = _load_conversation()
    client = _Client(unknown={"Priya"})
    _ask(client, conversation, spoken=False)  # type: ignore[arg-type]
    expected = [None if q["asker"] == "Priya" else q["asker"] for q in conversation["questions"]]
    assert client.askers == expected
    assert "nobody in memory is called 'Priya' yet" in capsys.readouterr().out


def test_the_demo_shows_the_turns_an_answer_rests_on() -> None:
    """Under an answer the demo prints the turns it cites (``used``), not the best-ranked ones;
    with nothing cited, the two best retrieved, labelled as such."""
    evidence = [
        {"id": f"m{i}", "session": "car", "idx": i, "text": t, "speaker": {"name": n}}
        for i, (n, t) in enumerate(
            [("Maya", "The match moves to Sunday."), ("Tom", "Grandma can come."), ("Maya", "By the bikes.")]
        )
    ]
    cited = _shown_evidence({"evidence": evidence, "used": ["m2"]})  # type: ignore[arg-type]
    assert [(label, ev["id"]) for label, ev in cited] == [("rests on", "m2")]
    none = _shown_evidence({"evidence": evidence, "used": []})  # type: ignore[arg-type]
    assert [(label, ev["id"]) for label, ev in none] == [("retrieved", "m0"), ("retrieved", "m1")]


@pytest.mark.integration
def test_an_asker_known_only_by_name_reads_only_their_sessions(
    services: Voxmem, space: str, app_client: TestClient, space_headers: dict[str, str]
) -> None:
    """Tom calls "Noor" in the car; Noor's voice never spoke, so "Noor" is a name-only person of
    that session. Asked by that name, the car is readable and the kitchen (where she was never
    heard) is not."""
    turns = [
        ("kitchen", "spk_l", "Can we have pizza for dinner on Friday?"),
        ("kitchen", "spk_t", "Only if it is vegetarian, Leo."),
        ("car", "spk_t", "Noor, I moved my dentist appointment to Friday."),
    ]
    for i, (session, speaker, text) in enumerate(turns):
        voice(services, space, session, speaker, text, i, f"{space}:m{i}")
    sessions = services.db.query(
        """MATCH (p:Participant {space: $space, name: 'Noor'}) WHERE NOT (p)-[:SPEAKS]->()
           RETURN [(p)-[:PARTICIPATED_IN]->(s) | s.id] AS sessions""",
        space=space,
    )
    assert sessions == [{"sessions": ["car"]}]

    def ask(question: str) -> dict[str, Any]:
        r = app_client.post(
            f"/spaces/{space}/query", json={"question": question, "asker": "Noor"}, headers=space_headers
        )
        assert r.status_code == 200, r.text
        return r.json()

    pizza = ask("Who asked for pizza?")
    assert pizza["scope"]["asker_name"] == "Noor"
    assert {e["session"] for e in pizza["evidence"]} <= {"car"}
    assert "pizza" not in pizza["answer"].lower()
    dentist = ask("When is the dentist appointment?")
    assert {e["session"] for e in dentist["evidence"]} == {"car"}
    assert "Friday" in dentist["answer"]
