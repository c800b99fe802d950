"""Spoken turns with names only in vocatives: the voices get the right names, end to end.

Real models (espeak-ng voices, the bundled encoder, tiny.en ASR) and the real Neo4j, through
the HTTP API, as the demo and the benchmark runner use it. Nobody gives a name: a careful
listener learns them from who answers whom ("Tom, …?" → the next voice is Tom; "Can we …?"
→ "…, Leo, …" → the asker is Leo), and a spoken question is then answered for that person.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from bench.voices import concatenate, synthesize
from voxmem.cypher import query
from voxmem.ids import new_id
from voxmem.stores.participants import ParticipantStore

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed"),
]

PARENT, TOM, LEO = "us_f3_s150", "us_m1", "us_klatt5"
CONVERSATION = [  # (voice, text): names appear only as vocatives
    (PARENT, "Tom, the garage door is broken again. Can you fix it tomorrow?"),
    (TOM, "I can, but only in the evening after work."),
    (LEO, "Can we go to the cinema on Saturday?"),
    (TOM, "Only if your homework is done, Leo. The film starts at seven."),
]


def post_turn(client, space, headers, session, voice, text, turn_id):
    r = client.post(
        f"/spaces/{space}/sessions/{session}/audio-turns",
        headers=headers,
        files={"audio": (f"{turn_id}.wav", synthesize(text, voice).read_bytes(), "audio/wav")},
        data={"turn_id": turn_id},
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_vocatives_name_the_voices_and_the_spoken_asker(app_client, services, space, space_headers) -> None:
    heard = [
        post_turn(app_client, space, space_headers, "s1", voice, text, f"t{n}")
        for n, (voice, text) in enumerate(CONVERSATION)
    ]
    transcript = [h["text"] for h in heard]
    msgs = app_client.get(f"/spaces/{space}/messages?session=s1", headers=space_headers).json()
    names = [(m["speaker"] or {}).get("name") for m in msgs]
    assert names[1] == names[3] == "Tom", (names, transcript)  # answered "Tom, …?"
    assert names[2] == "Leo", (names, transcript)  # asked, then answered with "…, Leo"
    assert names[0] not in ("Tom", "Leo"), (names, transcript)  # the caller is neither
    # the placeholder made for "Tom" while only his name was known is folded into the voice
    tom_id = msgs[1]["speaker"]["id"]
    assert [a["id"] for a in msgs[0]["addressees"]] == [tom_id], msgs[0]["addressees"]
    assert any(a["id"] == msgs[2]["speaker"]["id"] for a in msgs[3]["addressees"]), msgs[3]["addressees"]
    for key in ("tom", "leo"):  # one person per name: no name-only placeholder left beside the voice
        assert len(services.db.query(query("participant_find_name"), space=space, key=key)) == 1, key

    # A replayed turn re-derives the same memory and keeps the names.
    again = post_turn(app_client, space, space_headers, "s1", *CONVERSATION[3], "t3")
    assert again["idempotent_replay"] is True and again["speaker"]["name"] == "Tom"

    asked = app_client.post(
        f"/spaces/{space}/query",
        headers=space_headers,
        files={"audio": ("q.wav", synthesize("What did I ask for?", LEO).read_bytes(), "audio/wav")},
    )
    assert asked.status_code == 200, asked.text
    scope = asked.json()["scope"]
    assert scope["identified_by"] == "voice" and scope.get("asker_name") == "Leo", scope


def test_first_turn_of_a_new_session_reconciles_voice_fragments(
    app_client, services, space, space_headers
) -> None:
    first = post_turn(app_client, space, space_headers, "s1", TOM, CONVERSATION[1][1], "a0")
    post_turn(app_client, space, space_headers, "s1", PARENT, CONVERSATION[0][1], "a1")
    # A fragment of Tom's voice, as the online router leaves when an early utterance misses:
    # a second Speaker (with its own unnamed participant) whose centroid is Tom's own voice.
    stack = services
    tom_vec = stack.voice.embed(stack.pipeline.prepare(synthesize(CONVERSATION[3][1], TOM).read_bytes()))
    fragment = new_id("spk")

    def make_fragment(tx) -> None:
        tx.run(
            query("speaker_create"),
            space=space,
            id=fragment,
            encoder=stack.voice.tag,
            embedding=np.asarray(tom_vec, dtype=np.float32).tolist(),
        ).consume()
        ParticipantStore.for_new_speaker(tx, space, fragment, label="fragment", source="voice")

    services.db.write(make_fragment)

    def active() -> set[str]:
        listing = app_client.get(f"/spaces/{space}/speakers", headers=space_headers).json()
        return {s["id"] for s in listing if s["merged_into"] is None}

    assert fragment in active()
    post_turn(app_client, space, space_headers, "s1", PARENT, CONVERSATION[2][1], "a2")  # same session
    assert fragment in active()  # no reconciliation inside a running session
    post_turn(app_client, space, space_headers, "s2", PARENT, "Good morning, the car is ready.", "b0")
    remaining = active()
    # Tom's voice and its fragment are one speaker now (either may survive: both have one
    # observation); the other voice is untouched.
    assert len(remaining & {fragment, first["routing"]["speaker_id"]}) == 1, remaining
    assert len(remaining) == 2, remaining


def test_recording_job_writes_memory_per_turn_and_names_the_voices(
    app_client, space, space_headers, run_recording
) -> None:
    samples, _ = concatenate([synthesize(text, voice) for voice, text in CONVERSATION], gap_s=1.0)
    job, _ = run_recording(samples, max_polls=1500)
    assert job["result"]["memory"] == "written" and job["result"]["memory_errors"] == [], job["result"]
    msgs = app_client.get(f"/spaces/{space}/messages?session=rec", headers=space_headers).json()
    said = [(m["text"], (m["speaker"] or {}).get("name")) for m in msgs]

    def name_of(word: str) -> str | None:
        return next((name for text, name in said if word in text.lower()), f"(no turn with {word!r})")

    assert name_of("evening") == "Tom" and name_of("homework") == "Tom", said
    assert name_of("cinema") == "Leo", said
    assert said[0][1] not in ("Tom", "Leo"), said  # the caller is neither


def test_the_turns_asr_vocabulary_reaches_the_extractors_window(
    app_client, services, space, space_headers
) -> None:
    """The names a spoken turn's ASR was told to expect are kept on its message and shown to
    the extractor with the turn: what lets it read a sentence-start call outside them (tiny.en's
    "Mad," for "Dad,") as a misheard word, not a new participant."""
    r = app_client.post(
        f"/spaces/{space}/sessions/s1/audio-turns",
        headers=space_headers,
        files={"audio": ("v.wav", synthesize("The ferry leaves at six.", TOM).read_bytes(), "audio/wav")},
        data={"turn_id": "v0", "vocabulary": "Ingrid,Bruno"},
    )
    assert r.status_code == 201, r.text
    message_id = r.json()["id"]
    stored = services.db.query(
        "MATCH (m:Message {space: $space, id: $id}) RETURN m.asr_vocabulary AS v", space=space, id=message_id
    )
    assert stored == [{"v": ["Ingrid", "Bruno"]}]
    assert services.memory.window(space, message_id).current.vocabulary == ["Ingrid", "Bruno"]
