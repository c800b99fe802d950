"""Negated auxiliaries are no keywords of a question: with and without the apostrophe (the ASR's
"doesnt"), curly or straight, and "won't"/"can't", whose stems are not their auxiliary."""

from __future__ import annotations

from voxmem.retrieval.text import content_words, keyword_lucene


def test_negated_auxiliaries_are_not_keywords() -> None:
    question = "Why doesn't Tom like tea, and why didnt he say so? He won't, can’t, isnt, wasn't."
    assert content_words(question) == ["tom", "like", "tea"]
    assert keyword_lucene("Doesnt she? Didn't they? Don't we?") is None


def test_words_that_only_start_like_a_negation_stay_keywords() -> None:
    assert content_words("Dont worry about Donte's wonton soup") == ["worry", "donte", "wonton", "soup"]
