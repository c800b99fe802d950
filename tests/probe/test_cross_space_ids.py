"""Turn ids of spaces whose names nest never collide (finding 4), and turns stored under the
old ``<space>:<turn_id>`` form stay idempotent on retry."""

from __future__ import annotations

import uuid

import pytest

from voxmem.ids import legacy_turn_message_id, recording_message_id, turn_message_id

pytestmark = pytest.mark.integration


def test_ids_are_unambiguous() -> None:
    assert turn_message_id("nest", "t:x") != turn_message_id("nest:t", "x")
    assert turn_message_id("s", "r1:0") != recording_message_id("s", "r1", 0)
    assert turn_message_id("s", "r~r1~0") != recording_message_id("s", "r1", 0)  # '~' is refused anyway


@pytest.fixture
def nested(services):
    outer = f"nest-{uuid.uuid4().hex[:8]}"
    inner = f"{outer}:t"
    for s in (outer, inner):
        services.spaces.create(s, "participant")
    keys = {s: services.spaces.issue_key(s, label="probe").key for s in (outer, inner)}
    yield outer, inner, keys
    for s in (outer, inner):
        services.spaces.delete(s)


def _post(client, space, key, turn_id, text):
    return client.post(
        f"/spaces/{space}/sessions/s1/turns",
        headers={"Authorization": f"Bearer {key}"},
        json={"speaker": "Ann", "text": text, "turn_id": turn_id},
    )


def test_nested_space_names_cannot_take_each_others_turns(app_client, nested) -> None:
    outer, inner, keys = nested
    first = _post(app_client, inner, keys[inner], "x", "inner space speaking")
    second = _post(app_client, outer, keys[outer], "t:x", "outer space speaking")
    assert first.status_code == 201, first.text
    assert second.status_code == 201, second.text
    assert first.json()["id"] != second.json()["id"]
    assert second.json()["text"] == "outer space speaking"
    got = app_client.get(
        f"/spaces/{outer}/messages/{second.json()['id']}", headers={"Authorization": f"Bearer {keys[outer]}"}
    )
    assert got.status_code == 200 and got.json()["text"] == "outer space speaking"
    for space, text in ((outer, "outer space speaking"), (inner, "inner space speaking")):
        listed = app_client.get(
            f"/spaces/{space}/messages", headers={"Authorization": f"Bearer {keys[space]}"}
        )
        assert [m["text"] for m in listed.json()] == [text]


def test_legacy_turn_ids_stay_idempotent(app_client, services, space, space_headers) -> None:
    r = app_client.post(
        f"/spaces/{space}/sessions/s1/turns",
        headers=space_headers,
        json={"speaker": "Ann", "text": "hello there", "turn_id": "old1"},
    )
    assert r.status_code == 201
    legacy = legacy_turn_message_id(space, "old1")
    services.db.execute(
        "MATCH (m:Message {space: $space, id: $id}) SET m.id = $legacy",
        space=space,
        id=r.json()["id"],
        legacy=legacy,
    )
    again = app_client.post(
        f"/spaces/{space}/sessions/s1/turns",
        headers=space_headers,
        json={"speaker": "Ann", "text": "hello there", "turn_id": "old1"},
    )
    assert again.status_code == 201 and again.json()["id"] == legacy
    assert (
        services.db.query("MATCH (m:Message {space: $space}) RETURN count(m) AS n", space=space)[0]["n"] == 1
    )
