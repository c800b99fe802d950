"""Names in a reply that answer a question are not calls of the asker (issue 11, item 4).

"What's your friend's name?" → "Oh, Chandler." and "Who's seven?" → "Y'know, me, Rachel, …"
named the asker "Chandler" and "Rachel" on FriendsQA with speakers hidden (an answer that calls
the asker by name names the asker, 0.7); "Ahh, Pete, the other day …" opens a reply with a turn
to someone new just as "Oh, Pete, …" does. Hand-written sentences below, none from FriendsQA.
"""

from __future__ import annotations

import pytest

from voxmem.extractors.offline import ANSWERED_BY_NAME, OfflineExtractor, asks_who

from .helpers import window

EX = OfflineExtractor()


def _names(question: str, reply: str):
    return EX.extract(window([("a", question), ("b", reply)])).record


@pytest.mark.parametrize(
    "question,reply",
    [
        ("What's your cousin's name again?", "Oh, Wiebke."),
        ("Who is coming on Saturday?", "Well, me, Ingrid, the twins and the dog."),
    ],
)
def test_a_name_answering_a_question_for_a_person_names_nobody(question, reply):
    record = _names(question, reply)
    assert record.names == []
    assert not any(a.target in ("Wiebke", "Ingrid") for a in record.addressees)


def test_an_answer_to_another_question_still_names_the_asker():
    record = _names("Can we have the barbecue on Sunday?", "Only if it stops raining, Ingrid.")
    assert [(n.speaker, n.name, n.confidence) for n in record.names] == [("S1", "Ingrid", ANSWERED_BY_NAME)]


def test_a_name_after_one_opening_word_opens_the_reply():
    """ "Ahh, Dariusz, …" is an opening call like "Oh, Dariusz, …": a reply opening with a name
    often turns to someone new, so it does not name the asker."""
    assert (
        _names("How are you doing?", "Ahh, Dariusz, the other day you said you needed to talk.").names == []
    )


def test_questions_for_a_person():
    assert asks_who("Hi. Who is it?") and asks_who("So what's his name?")
    assert not asks_who("Who knows. Can you pass the salt?")  # the last question asks for no one
    assert not asks_who("Who is it.")  # not a question
