"""The two rules that take a deleted person's name out of what stays (pure functions; the
integration tests are tests/probe/test_deletion_leaves_nothing.py and the delete tests of
tests/memory/test_memory_integration.py)."""

from __future__ import annotations

from voxmem.ids import name_key
from voxmem.memory.pipeline import hints_without, text_without_name


def test_a_name_the_system_wrote_for_you_reads_as_someone_a_name_said_stays() -> None:
    said = ["Your room is 412."]
    assert text_without_name("Dave's room is 412.", ["Dave"], said) == "Someone's room is 412."
    assert text_without_name("Nice to meet Dave.", ["Dave", "Davey"], ["Nice to meet you."]) == (
        "Nice to meet someone."
    )
    # the speaker said the name (in the text or an image caption): their words, kept
    assert text_without_name("Dave's room is 412.", ["Dave"], ["Dave, your room is 412."]) is None
    assert text_without_name("Dave's room.", ["Dave"], ["Look!\nDave's new room"]) is None
    # an unnamed person's placeholder and its caption are never said: always the system's
    names = ["{p_1}", "unnamed voice 1"]
    assert text_without_name("{p_1}'s room is 412.", names, said) == "Someone's room is 412."
    assert text_without_name("unnamed voice 1's room is 412.", names, said) == "Someone's room is 412."
    # each name on its own: one said, another written by the system
    assert text_without_name("Dave told {p_1} so.", ["Dave", "{p_1}"], ["Dave told you so."]) == (
        "Dave told someone so."
    )
    # the name as stored, not a word spelled like it
    assert text_without_name("Ann may visit May.", ["May"], ["You may visit me."]) is None  # said, any case
    assert text_without_name("Ann may see May.", ["May"], ["Ann will see you."]) == "Ann may see someone."
    # a name inside another word or name is not the name
    assert text_without_name("Davey and Daveport met.", ["Dave"], ["They met."]) is None


def test_hints_lose_the_deleted_name_unless_someone_remaining_bears_it() -> None:
    gone = {name_key("Dave"), name_key("José")}
    assert hints_without(["Ann", "dave", "Jose", "Oslo"], gone, {name_key("Ann")}) == ["Ann", "Oslo"]
    assert hints_without(["Ann", "Dave"], gone, {name_key("Dave")}) == ["Ann", "Dave"]  # another Dave stays
    assert hints_without(["Dave Smith"], gone, set()) == ["Dave Smith"]  # not his name key
