"""A mention is not an address, end to end through the HTTP API on the real Neo4j (issue 16.3).

In session "secret", Maya tells Tom "Our neighbour, Dave, must never hear about this."; later
Dave joins the space by speaking in another session. Dave is talked about, not
called: under the participant policy he must not become a participant of "secret" (and so
must not read it), and under the private policy the sentence must not be shown to him as
said to him. A sentence that really calls him ("Dave, can you water the plants?") is the
control: it must reach him, so the test can fail both ways.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from voxmem.client import VoxmemClient
from voxmem.core import Voxmem

from .test_memory_integration import say

pytestmark = pytest.mark.integration

SECRET = "Our neighbour, Dave, must never hear about this."


def _space(services: Voxmem, policy: str) -> Iterator[tuple[str, dict[str, str]]]:
    space_id = f"test-mention-{policy}-{uuid.uuid4().hex[:8]}"
    services.spaces.create(space_id, policy)
    key = services.spaces.issue_key(space_id, label="pytest").key
    try:
        yield space_id, {"Authorization": f"Bearer {key}"}
    finally:
        services.spaces.delete(space_id)


@pytest.fixture
def participant_space(services: Voxmem) -> Iterator[tuple[str, dict[str, str]]]:
    yield from _space(services, "participant")


@pytest.fixture
def private_space(services: Voxmem) -> Iterator[tuple[str, dict[str, str]]]:
    yield from _space(services, "private")


def _household(app_client, headers, space: str) -> None:
    """Dave is mentioned before he ever speaks (a name-only participant is made for him), then
    joins the space by speaking in another session, as the probe found it."""
    say(app_client, headers, space, "secret", "Maya", "Tom, we are planning a surprise party.", 0)
    say(app_client, headers, space, "secret", "Tom", "Great, where will it be?", 1)
    say(app_client, headers, space, "secret", "Maya", SECRET, 2)
    say(app_client, headers, space, "garden", "Dave", "The hedge needs cutting before the weekend.", 10)
    say(app_client, headers, space, "garden", "Maya", "I can lend you our trimmer.", 11)


def _dave(services: Voxmem, space: str) -> str:
    rows = services.db.query(
        "MATCH (p:Participant {space: $space, key: 'dave'}) RETURN p.id AS id", space=space
    )
    assert len(rows) == 1, rows
    return rows[0]["id"]


def _texts(client: VoxmemClient, space: str, asker: str, text: str) -> list[str]:
    out = client.retrieve(space, text, asker=asker, k=20, layers=["interaction"])
    return [e.get("text", "") for e in out["evidence"]]


def test_participant_policy_a_mentioned_person_cannot_read_the_session(
    app_client, participant_space, services
):
    space, headers = participant_space
    _household(app_client, headers, space)
    dave = _dave(services, space)
    present = services.db.query(
        "MATCH (p:Participant {space: $space, id: $id})-[:PARTICIPATED_IN]->(s:Session) RETURN s.id AS s",
        space=space,
        id=dave,
    )
    assert [r["s"] for r in present] == ["garden"]
    addressed = services.db.query(
        "MATCH (m:Message {space: $space})-[:ADDRESSES]->(:Participant {id: $id}) RETURN m.text AS text",
        space=space,
        id=dave,
    )
    assert SECRET not in [r["text"] for r in addressed]
    client = VoxmemClient(http=app_client)
    client.headers = headers
    seen = _texts(client, space, dave, "surprise party neighbour never hear about this")
    assert SECRET not in seen and not any("surprise party" in t for t in seen)
    assert any("hedge" in t for t in _texts(client, space, dave, "hedge cutting weekend"))


def test_private_policy_a_mention_is_not_shown_as_said_to_them(app_client, private_space, services):
    space, headers = private_space
    _household(app_client, headers, space)
    say(app_client, headers, space, "secret", "Maya", "Dave, can you water the plants while we are away?", 13)
    dave = _dave(services, space)
    client = VoxmemClient(http=app_client)
    client.headers = headers
    seen = _texts(client, space, dave, "neighbour never hear about this water the plants")
    assert SECRET not in seen
    assert "Dave, can you water the plants while we are away?" in seen


def test_non_latin_names_are_accepted_and_kept_apart(app_client, space_headers, space, services):
    """Issue 16.5 through the API: "Иван" is a valid speaker, and "Wei 王" / "Wei 李" are two people."""
    for minute, (speaker, text) in enumerate(
        [("Иван", "Привет всем."), ("Wei 王", "I will bring the tea."), ("Wei 李", "I will bring cups.")]
    ):
        say(app_client, space_headers, space, "s1", speaker, text, minute)
    rows = services.db.query(
        "MATCH (p:Participant {space: $space}) RETURN p.name AS name ORDER BY name", space=space
    )
    assert sorted(r["name"] for r in rows) == sorted(["Иван", "Wei 王", "Wei 李"])


def test_a_corrected_name_rewrites_what_people_read(services, space):
    """Renaming is not silent and not partial: after "Actually it's Katherine, not Kate." the
    facts about that voice read "Katherine" (the facts written while she was "Kate" included),
    the old name stays as an alias, keyed for lookups."""
    from .test_memory_integration import voice

    voice(services, space, "v1", "spk_k", "Hi, I'm Kate.", 0, f"{space}:k0")
    voice(services, space, "v1", "spk_k", "I love green tea and Kate's cake recipes.", 1, f"{space}:k1")
    voice(services, space, "v1", "spk_o", "Nice to meet you.", 2, f"{space}:o0")
    summary = voice(services, space, "v1", "spk_k", "Actually it's Katherine, not Kate.", 3, f"{space}:k2")
    assert [n["action"] for n in summary["names"]] == ["rename"]
    texts = [
        r["c"]
        for r in services.db.query(
            "MATCH (f:Fact {space: $space}) RETURN f.content AS c ORDER BY c", space=space
        )
    ]
    earlier = [t for t in texts if "Katherine, not" not in t]  # the correction itself keeps "Kate"
    assert earlier and not any("Kate " in t or "Kate." in t or t.startswith("Kate") for t in earlier), texts
    assert "Katherine loves green tea and Katherine's cake recipes." in texts, texts
    people = services.db.query(
        "MATCH (p:Participant {space: $space, name: 'Katherine'}) RETURN p.aliases AS aliases, "
        "p.alias_keys AS keys",
        space=space,
    )
    assert people == [{"aliases": ["Kate"], "keys": ["kate"]}]
