"""Scope-leak set with the mention trap (finding 3): a person talked *about* in a session
is not present in it, so under the participant policy they read none of it. Hand-written
phrasings (not the generator's), each with Dave joining the space later in another session.
A vocative control shows the set can fail the other way."""

from __future__ import annotations

import uuid

import pytest
from memory.test_memory_integration import say

pytestmark = pytest.mark.integration

MENTIONS = (
    "Our neighbour, Dave, must never hear about this.",
    "Don't tell Dave about the party, it's a surprise.",
    "I heard Dave is moving to Leeds, keep it quiet.",
    "Dave's birthday present is hidden in the garage.",
    "Honestly, we should not invite Dave this time.",
)


@pytest.fixture
def household(services, app_client):
    space = f"probe-scope-{uuid.uuid4().hex[:8]}"
    services.spaces.create(space, "participant")
    headers = {"Authorization": f"Bearer {services.spaces.issue_key(space, label='probe').key}"}
    say(app_client, headers, space, "secret", "Maya", "Tom, we need to talk about something.", 0)
    for i, text in enumerate(MENTIONS):
        say(app_client, headers, space, "secret", "Maya" if i % 2 == 0 else "Tom", text, 1 + i)
    say(app_client, headers, space, "garden", "Dave", "The hedge needs cutting before the weekend.", 20)
    say(app_client, headers, space, "garden", "Maya", "Dave, you can borrow our trimmer.", 21)
    yield space, headers
    services.spaces.delete(space)


def _evidence(app_client, space, headers, asker, text):
    r = app_client.post(
        f"/spaces/{space}/retrieve",
        headers=headers,
        json={"text": text, "asker": asker, "k": 30, "layers": ["interaction", "fact", "profile"]},
    )
    assert r.status_code == 200, r.text
    return r.json()


def test_mentioned_person_reads_nothing_of_the_session(app_client, services, household) -> None:
    space, headers = household
    dave = services.db.query(
        "MATCH (p:Participant {space: $space, key: 'dave'}) RETURN p.id AS id", space=space
    )
    assert len(dave) == 1
    leaked = []
    for text in [*MENTIONS, "surprise party birthday Leeds invite secret"]:
        out = _evidence(app_client, space, headers, dave[0]["id"], text)
        leaked += [e["text"] for e in out["evidence"] if e.get("session") == "secret"]
        leaked += [str(e) for e in out["evidence"] if any(m[:20] in str(e) for m in MENTIONS)]
    assert leaked == []
    control = _evidence(app_client, space, headers, dave[0]["id"], "borrow trimmer hedge")
    assert any("trimmer" in e["text"] for e in control["evidence"]), control
