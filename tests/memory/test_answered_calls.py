"""A call by a kinship or role term nobody known bears ("Dad, can we …?" with several people
present) is said to whoever answers it: the answer re-points the earlier turn's inferred
ADDRESSES edge (issue 11, item 4).

Rules (the extractor's ``answered`` record) as unit tests; the writer's re-pointing on the real
Neo4j: per turn, through a batch import (the same edges), on a retry of the answer or of the call
alone and on a full reprocess (idempotent); a call by a name is never re-pointed, also on the
spoken path.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from tests.ingest.history import minute_turns
from tests.ingest.test_batch_memory_equivalence import memory
from tests.memory.helpers import window
from tests.memory.test_llm_backend import ScriptedChat
from tests.memory.test_memory_integration import voice
from voxmem.core import Voxmem
from voxmem.extractors.llm import LLMExtractor
from voxmem.extractors.offline import OfflineExtractor
from voxmem.ids import turn_message_id
from voxmem.pipeline.batch import BatchImporter
from voxmem.stores.messages import Turn

NAMES = {"p": "Priya", "t": "Tom", "m": "Maya"}
KITCHEN = [
    ("t", "I can, but only until noon."),
    ("m", "Mom, I need new football boots before Saturday's match."),
    ("p", "Fine, but you pay half from your allowance."),
    ("l", "Dad, can we have pizza for dinner on Friday?"),
]


def answered(turns: list[tuple[str, str]], names: dict[str, str] = NAMES, roster: list[str] | None = None):
    return OfflineExtractor().extract(window(turns, names, roster=roster)).record.answered


# --- the rule ----------------------------------------------------------------------------------
def test_an_unknown_kinship_call_is_answered_by_the_next_voice() -> None:
    # an answer that calls the asker back by name
    calls = answered([*KITCHEN, ("t", "Only if it is vegetarian, Leo. Your mother stopped eating meat.")])
    assert [(c.message_id, c.term) for c in calls] == [("m3", "Dad")]
    # an answer-shaped reply
    calls = answered([*KITCHEN, ("t", "Sure, if it is vegetarian.")])
    assert [(c.message_id, c.term) for c in calls] == [("m3", "Dad")]


def test_no_answer_no_known_callee_no_second_guess() -> None:
    # a reply that is not an answer (someone talking on) changes nothing
    assert answered([*KITCHEN, ("t", "The plumber called again this morning.")]) == []
    # the call names someone who spoke in the window: that person was called, whoever answers
    turns = [
        *KITCHEN[:3],
        ("l", "Maya, can I borrow your old boots?"),
        ("p", "Sure, they are in the garage."),
    ]
    assert answered(turns) == []
    # the call already names the answerer
    assert answered([*KITCHEN[:3], ("l", "Tom, can we have pizza?"), ("t", "Sure, on Friday.")]) == []
    # two people called: which one answered is not known
    assert (
        answered([*KITCHEN[:3], ("l", "Dad, can we have pizza? Mom, can we?"), ("t", "Sure, on Friday.")])
        == []
    )
    # a question answered by the asker itself is no answer
    assert answered([*KITCHEN[:3], ("l", "Dad, can we have pizza?"), ("l", "Sure, why not.")]) == []


def test_a_call_by_a_name_is_left_to_the_name() -> None:
    """A name names its addressee: on FriendsQA the voice answering a call by a name nobody
    bore was the person called in 3 of 12 cases (docs/memory.md), so no re-pointing, not even
    for the ASR's "Mad," (for "Dad,"), which made a name-only roster entry."""
    turns = [*KITCHEN[:3], ("l", "Mad, can we have pizza?"), ("t", "Only if it is vegetarian, Leo.")]
    assert answered(turns, {**NAMES, "mad": "Mad"}, roster=["mad"]) == []
    assert answered([*KITCHEN[:3], ("l", "Jeannie, can we go?"), ("t", "Sure, in a minute.")]) == []


def test_the_llm_backend_gets_the_same_backward_step() -> None:
    """The model is not asked for it (it is not in the schema it is given); the rule adds it."""
    empty = json.dumps({"names": [], "addressees": [], "facts": [], "attributes": []})
    turns = [*KITCHEN, ("t", "Sure, if it is vegetarian.")]
    result = LLMExtractor(ScriptedChat(answers=[empty])).extract(window(turns, NAMES))
    assert [(c.message_id, c.term) for c in result.record.answered] == [("m3", "Dad")]


# --- the writer, on the real Neo4j -------------------------------------------------------------
T0 = datetime(2026, 11, 2, 7, 30, tzinfo=UTC)
HOUSEHOLD = [
    ("Tom", "I can, but only until noon. I have a client call at one."),
    ("Maya", "Mom, I need new football boots before Saturday's match."),
    ("Priya", "Fine, but you pay half from your allowance."),
    ("Leo", "Dad, I finished my homework. Can we have pizza for dinner on Friday?"),
    ("Tom", "Only if it is vegetarian, Leo. Your mother stopped eating meat."),
    ("Priya", "Everyone, grandma arrives on Sunday, so keep the guest room tidy."),
]


def household(prefix: str) -> list[Turn]:
    return minute_turns([("kitchen", speaker, text) for speaker, text in HOUSEHOLD], T0, prefix)


def edges_of(services: Voxmem, space: str, message_id: str) -> list[dict]:
    return services.db.query(
        """MATCH (m:Message {space: $space, id: $id})-[r:ADDRESSES]->(p:Participant)
           RETURN p.name AS to, r.source AS source, r.answered_by AS answered_by, r.term AS term""",
        space=space,
        id=message_id,
    )


@pytest.mark.integration
@pytest.mark.parametrize("chunk", [4, 6], ids=["call-and-answer-in-two-chunks", "in-one-chunk"])
def test_the_answerer_is_addressed_per_turn_in_a_batch_and_on_replay(
    services: Voxmem, two_spaces: tuple[str, str], chunk: int
) -> None:
    single, bulk = two_spaces
    for turn in household("t"):
        services.pipeline.append_text(single, turn)
    # Leo's call was said to Tom, who answered (not to Priya, who spoke just before it)
    assert edges_of(services, single, turn_message_id(single, "t3")) == [
        {"to": "Tom", "source": "answered", "answered_by": turn_message_id(single, "t4"), "term": "Dad"}
    ]
    facts_to = services.db.query(
        """MATCH (f:Fact)-[:DERIVED_FROM]->(:Message {space: $space, id: $id})
           RETURN [(f)-[:ADDRESSED_TO]->(p) | p.name] AS to""",
        space=single,
        id=turn_message_id(single, "t3"),
    )
    assert facts_to == [{"to": ["Tom"]}]  # "Leo finished Leo's homework." was said to Tom too
    # a batch import writes the same
    result = BatchImporter(services.pipeline, derive_chunk=chunk).run(bulk, household("t"))
    assert result.derived == len(HOUSEHOLD)
    assert memory(services, bulk) == memory(services, single)
    # a retry of the answer re-derives the same; so does a retry of the call alone (the answer
    # was not replayed, so its edge stands and the turn-taking guess to Priya does not come
    # back), and a full reprocess, twice (learned aliases are undone before the replay)
    before = memory(services, single)
    services.memory.process_message(single, turn_message_id(single, "t4"))
    assert memory(services, single) == before
    services.memory.process_message(single, turn_message_id(single, "t3"))
    assert memory(services, single) == before
    for _ in range(2):
        services.memory.reprocess(single)
        assert memory(services, single) == before


@pytest.mark.integration
def test_a_voice_called_by_name_is_never_replaced_by_whoever_answers(services: Voxmem, space: str) -> None:
    """Sam spoke (has a voice) but not within the answer's window: the call was said to Sam."""
    voice(services, space, "s", "spk_s", "Hi, I'm Sam.", 0, f"{space}:s0")
    for i, text in enumerate(["The train was late.", "The bus too.", "And the tram.", "Terrible."]):
        voice(services, space, "s", "spk_a" if i % 2 else "spk_b", text, 1 + i, f"{space}:x{i}")
    voice(services, space, "s", "spk_b", "Sam, can you drive us on Friday?", 6, f"{space}:b9")
    voice(services, space, "s", "spk_a", "Sure, I can drive.", 7, f"{space}:a9")
    assert [e["to"] for e in edges_of(services, space, f"{space}:b9")] == ["Sam"]
    assert edges_of(services, space, f"{space}:b9")[0]["source"] == "vocative"
